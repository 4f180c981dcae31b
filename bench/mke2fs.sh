#!/bin/bash
#
# mke2fs.sh --- our `mke2fs -O lazy_journal` against stock
# `mke2fs -J size=<same MiB>` on sparse images of the same size, in the same
# run, alternating which goes first.  Reports the median wall time of each,
# and the ratio (target: within 5%).
#
# Usage: bench/mke2fs.sh [SIZE...]   (default: 1G 16G 400G 8T; REPS=7)
#
# Our extra cost is constant: one stock dry run (-n) to learn the block
# count, and the superblock write that sets the flag (about 4-5 ms here),
# so the ratio depends on how long the stock format itself takes.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BUILDDIR:-$here}
SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
OURS=$BUILDDIR/misc/mke2fs
STOCK=$SBIN/mke2fs
REPS=${REPS:-7}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lj-bench-mke2fs.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
E=(-q -F -t ext4 -E "lazy_itable_init=1,nodiscard")

now() { date +%s%N; }

run() {	# IMG SIZE CMD...: wall time in ms of CMD on a fresh sparse IMG
	local img=$1 size=$2 t0 t1
	shift 2
	rm -f "$img"
	truncate -s "$size" "$img"
	sync
	t0=$(now)
	"$@" "$img" >/dev/null 2>&1
	t1=$(now)
	echo $(( (t1 - t0) / 1000 ))
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

printf '%-6s %-18s %12s %12s %8s\n' size journal "ours (ms)" "stock (ms)" ratio
for size in "${@:-1G 16G 400G 8T}"; do
	for s in $size; do
		truncate -s "$s" "$TMP/probe"
		line=$("$OURS" -n -F -t ext4 -O lazy_journal "$TMP/probe" 2>/dev/null \
			| grep '^Lazy journal:')
		mib=$(sed -E 's/.*\(([0-9]+) MiB\)/\1/' <<<"$line")
		rm -f "$TMP/probe"
		: >"$TMP/ours"
		: >"$TMP/stock"
		for i in $(seq "$REPS"); do
			if [ $((i % 2)) -eq 1 ]; then
				run "$TMP/img" "$s" "$OURS" "${E[@]}" -O lazy_journal >>"$TMP/ours"
				run "$TMP/img" "$s" "$STOCK" "${E[@]}" -J size="$mib" >>"$TMP/stock"
			else
				run "$TMP/img" "$s" "$STOCK" "${E[@]}" -J size="$mib" >>"$TMP/stock"
				run "$TMP/img" "$s" "$OURS" "${E[@]}" -O lazy_journal >>"$TMP/ours"
			fi
		done
		o=$(median <"$TMP/ours")
		k=$(median <"$TMP/stock")
		printf '%-6s %-18s %12.1f %12.1f %8.3f\n' "$s" "$mib MiB" \
			"$(awk -v x="$o" 'BEGIN {print x / 1000}')" \
			"$(awk -v x="$k" 'BEGIN {print x / 1000}')" \
			"$(awk -v a="$o" -v b="$k" 'BEGIN {print a / b}')"
	done
done
