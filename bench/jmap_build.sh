#!/bin/bash
# jmap_build.sh --- how building the jmap scales with the log.
#
# Builds logs of three sizes with stock debugfs (jo/jw/jc) on sparse images,
# each transaction logging 64 blocks drawn from a pool of unique blocks of
# 1/10 of all logged blocks (so ~90% of logged copies are stale), then
# reports for each (bench/jmap_bench, one process): jmap build time, bytes
# read (/proc/self/io rchar), peak RSS (getrusage), the map's size per
# entry, and, as a reference measured in the same run, the time stock
# `debugfs -R logdump` needs to walk the same log.  The size per entry is
# not measured: it is what lj_jmap_stats computes from sizeof (the map
# header, per entry its struct and a 4-byte reverse-index slot, 4 bytes
# per escaped block), divided by the live entries, hence its column name;
# the growth slack of the arrays is not in it (peak RSS is measured).
# Usage: bench/jmap_build.sh   (SIZES: logged blocks per log)
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench=$builddir/bench/jmap_bench
sizes=${SIZES:-"4096 32768 262144"}	# logged blocks per log

printf '%-8s %-8s %-6s %-9s %-9s %-9s %-15s %-11s\n' logged live txns \
	build_ms read_mib rss_mib sizeof_B/entry logdump_ms
for n in $sizes; do
	img=$tmp/img
	jmb=$(( (n + n * 2 / 64) / 256 + 64 ))	# journal MiB, with room
	bench_stock_image "$img" 16G -J size=$jmb
	bench_random_log "$img" "$n" 100000 1 jo
	out=$("$bench" "$img")
	t0=$(bench_us)
	bench_run 0 "$tmp/logdump.out" "$sbin/debugfs" -R "logdump" "$img"
	t1=$(bench_us)
	read -r -a f <<<"$out"
	set -- "${f[@]}"
	printf '%-8s %-8s %-6s %-9s %-9s %-9s %-15s %-11s\n' "$n" "$2" "$4" \
		"${8}" "${10}" "${12}" "${14}" "$(( (t1 - t0) / 1000 ))"
done
