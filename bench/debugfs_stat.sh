#!/bin/bash
# debugfs_stat.sh --- latency of one `debugfs -R "stat PATH"`, in the same
# run:
#
#   ours     our debugfs on a lazy file system with a live log (stock
#            debugfs under the view: the log is scanned at open)
#   stock    stock debugfs on a stock-replayed copy (same metadata at home)
#   plain    our debugfs on that replayed copy (no lazy_journal: the view
#            passes the real channel through)
#
# The image: SIZE (default 1G) with the metadata of NDIRS directories of
# NFILES files each (stock debugfs -w on a copy) logged into its journal
# with stock jo/jw/jc (tests/test_lib.sh mk_lazy_meta), lazy_journal set.
# Reported: median of RUNS (default 21) wall times, in ms, the three ways
# interleaved (rounds in rotated order), the ratios and plain's extra ms.
# Every run must exit 0 (bench_run): a failing run fails the script.
# Usage: bench/debugfs_stat.sh   (SIZE in MiB, NDIRS, NFILES, RUNS)
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_test_lib
ours=$builddir/debugfs/debugfs
runs=${RUNS:-21}
size=${SIZE:-1024}
ndirs=${NDIRS:-20}
nfiles=${NFILES:-50}

: >"$tmp/cmds"
for ((d = 0; d < ndirs; d++)); do
	echo "mkdir d$d" >>"$tmp/cmds"
	for ((f = 0; f < nfiles; f++)); do
		echo "write /dev/null d$d/f$f" >>"$tmp/cmds"
	done
done
img=$tmp/lazy.img
mk_lazy_meta "$img" "$size" 4096 "metadata_csum,64bit" "" "$tmp/cmds" >/dev/null
stock_copy "$img" "$tmp/rep.img"
bench_run 0 "$tmp/replay.out" "$sbin/e2fsck" -E journal_only -y "$tmp/rep.img"
echo "image: ${size} MiB, $ndirs x $nfiles files; $(lazy_status "$img")"

# The three ways run in rounds, each round in a rotated order, so that
# a change of the machine's load meets all three alike; median of $runs.
req="stat /d$((ndirs - 1))/f$((nfiles - 1))"
way_cmd() {	# WAY: the command line of that way
	case $1 in
	ours) echo "$ours|$img" ;;
	stock) echo "$sbin/debugfs|$tmp/rep.img" ;;
	plain) echo "$ours|$tmp/rep.img" ;;
	esac
}
ways=(ours stock plain)
for w in "${ways[@]}"; do : >"$tmp/times.$w"; done
for ((i = 0; i < runs; i++)); do
	for ((k = 0; k < 3; k++)); do
		w=${ways[(i + k) % 3]}
		IFS='|' read -r prog dev <<<"$(way_cmd "$w")"
		t0=$(bench_us)
		bench_run 0 "$tmp/run.out" "$prog" -R "$req" "$dev"
		t1=$(bench_us)
		echo $((t1 - t0)) >>"$tmp/times.$w"
	done
done
median() { bench_median <"$tmp/times.$1" | awk '{printf "%.2f", $1 / 1000}'; }
o=$(median ours)
s=$(median stock)
p=$(median plain)
printf '%-6s %8s\n' way ms
printf '%-6s %8s\n' ours "$o" stock "$s" plain "$p"
awk -v o="$o" -v s="$s" -v p="$p" 'BEGIN {printf "ours/stock %.2f, plain/stock %.2f, plain-stock %+.2f ms\n", o / s, p / s, p - s}'
# the outputs agree (the view shows what stock replay writes home)
"$ours" -R "$req" "$img" 2>/dev/null | grep -v 'time:' >"$tmp/o.out"
"$sbin/debugfs" -R "$req" "$tmp/rep.img" 2>/dev/null | grep -v 'time:' >"$tmp/s.out"
if cmp -s "$tmp/o.out" "$tmp/s.out"; then
	echo "output: ours = stock on the replayed copy"
else
	echo "output: DIFFERS"
	exit 1
fi
