#!/bin/bash
# jmap_build.sh --- how building the jmap scales with the log.
#
# Builds logs of three sizes with stock debugfs (jo/jw/jc) on sparse images,
# each transaction logging 64 blocks drawn from a pool of unique blocks of
# 1/10 of all logged blocks (so ~90% of logged copies are stale), then
# reports for each: jmap build time, bytes read, peak RSS, bytes per entry,
# and, as a reference measured in the same run, the time stock
# `debugfs -R logdump` needs to walk the same log.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sbin=${E2FSPROGS_SBIN:-/usr/sbin}
bench=$top/bench/jmap_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes=${SIZES:-"4096 32768 262144"}	# logged blocks per log

printf '%-8s %-8s %-6s %-9s %-9s %-9s %-8s %-11s\n' logged live txns \
	build_ms read_mib rss_mib B/entry logdump_ms
for n in $sizes; do
	img=$tmp/img
	jmb=$(( (n + n * 2 / 64) / 256 + 64 ))	# journal MiB, with room
	rm -f "$img"
	truncate -s 16G "$img"
	"$sbin/mke2fs" -q -F -t ext4 -b 4096 -J size=$jmb \
		-E lazy_itable_init=1,nodiscard "$img"
	uniq=$((n / 10))
	# 64 blocks per transaction; content from a 64-block file.
	head -c $((64 * 4096)) /dev/urandom > "$tmp/data"
	awk -v n="$n" -v u="$uniq" -v f="$tmp/data" 'BEGIN {
		srand(42); print "jo";
		for (t = 0; t < n / 64; t++) {
			l = "";
			delete seen;
			for (k = 0; k < 64; ) {
				b = 100000 + int(rand() * u);
				if (b in seen) continue;
				seen[b] = 1; l = l (k ? "," : "") b; k++;
			}
			print "jw -b " l " " f;
			if (t % 64 == 63) { print "jc"; print "jo" }
		}
		print "jc" }' > "$tmp/cmds"
	"$sbin/debugfs" -w -f "$tmp/cmds" "$img" >/dev/null 2>&1
	out=$("$bench" "$img")
	t0=$(date +%s%N)
	"$sbin/debugfs" -R "logdump" "$img" >/dev/null 2>&1
	t1=$(date +%s%N)
	read -r -a f <<<"$out"
	set -- "${f[@]}"
	printf '%-8s %-8s %-6s %-9s %-9s %-9s %-8s %-11s\n' "$n" "$2" "$4" \
		"${8}" "${10}" "${12}" "${14}" "$(( (t1 - t0) / 1000000 ))"
done
