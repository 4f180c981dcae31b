#!/bin/bash
#
# mke2fs.sh --- our `mke2fs -O lazy_journal` against stock
# `mke2fs -J size=<same MiB>` on sparse images of the same size, in the same
# run, rotating which goes first.  Reports the median wall time of each and
# the ratio (target: within 5%).
#
# A third column, "floor", is stock mke2fs started through
# bench/spawn_floor: the same stock run behind one extra process, which is
# what any front-end that hands the format to the stock binary pays before
# doing anything of its own.  Our own work on top of it is the flag write
# (every superblock copy, one flush).
#
# Every run must exit 0: a failing format fails the script.
# Usage: bench/mke2fs.sh [SIZE...]   (default: 1G 16G 400G 8T; REPS, the
#        runs of each contender per size, default 21)
#        OPTS="..." overrides the options common to all three
#        (default: -E lazy_itable_init=1,nodiscard, the least stock work)
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
OURS=$builddir/misc/mke2fs
STOCK=$sbin/mke2fs
FLOOR=$builddir/bench/spawn_floor
REPS=${REPS:-21}
# shellcheck disable=SC2206
E=(-q -F -t ext4 ${OPTS:--E lazy_itable_init=1,nodiscard})

run() {	# OUT SIZE CMD...: append the wall time (us) of CMD on a fresh IMG
	local out=$1 size=$2 t0 t1
	shift 2
	rm -f "$tmp/img"
	truncate -s "$size" "$tmp/img"
	sync
	t0=$(bench_us)
	bench_run 0 "$tmp/run.out" "$@" "$tmp/img"
	t1=$(bench_us)
	echo $((t1 - t0)) >>"$out"
}

ms() { awk -v x="$1" 'BEGIN {printf "%.1f", x / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

printf '%-6s %-10s %10s %10s %10s %8s %8s\n' size journal "ours ms" \
	"stock ms" "floor ms" ratio floor
[ $# -gt 0 ] || set -- 1G 16G 400G 8T
for s in "$@"; do
	truncate -s "$s" "$tmp/probe"
	line=$("$OURS" -n -F -t ext4 -O lazy_journal "$tmp/probe" 2>/dev/null \
		| grep '^Lazy journal:')
	mib=$(sed -E 's/.*\(([0-9]+) MiB\)/\1/' <<<"$line")
	rm -f "$tmp/probe" "$tmp/ours" "$tmp/stock" "$tmp/floor"
	for i in $(seq "$REPS"); do
		for k in 0 1 2; do
			case $(( (i + k) % 3 )) in
			0) run "$tmp/ours" "$s" "$OURS" "${E[@]}" -O lazy_journal ;;
			1) run "$tmp/stock" "$s" "$STOCK" "${E[@]}" -J size="$mib" ;;
			2) run "$tmp/floor" "$s" "$FLOOR" mke2fs "${E[@]}" \
				-J size="$mib" ;;
			esac
		done
	done
	o=$(bench_median <"$tmp/ours")
	k=$(bench_median <"$tmp/stock")
	f=$(bench_median <"$tmp/floor")
	printf '%-6s %-10s %10s %10s %10s %8s %8s\n' "$s" "$mib MiB" \
		"$(ms "$o")" "$(ms "$k")" "$(ms "$f")" "$(ratio "$o" "$k")" \
		"$(ratio "$f" "$k")"
done
