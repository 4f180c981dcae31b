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
# Reported: medians of RUNS (default 21) runs, in ms, of the wall clock
# and of the CPU time (bench/interleave: the three ways interleaved in
# rounds of rotated order), the ratios and plain's extra ms.
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
# a change of the machine's load meets all three alike (bench/interleave:
# medians of the wall clock and of the CPU time, user + system, of each
# way; a run that fails fails the script).
req="stat /d$((ndirs - 1))/f$((nfiles - 1))"
"$builddir/bench/interleave" "$runs" "$ours" -R "$req" "$img" -- \
	"$sbin/debugfs" -R "$req" "$tmp/rep.img" -- \
	"$ours" -R "$req" "$tmp/rep.img" >"$tmp/times" ||
	{ echo "bench: a timed debugfs run failed" >&2; exit 1; }
{ read -r o oc; read -r s sc; read -r p pc; } <"$tmp/times"
printf '%-6s %8s %8s\n' way ms cpu_ms
printf '%-6s %8.2f %8.2f\n' ours "$o" "$oc" stock "$s" "$sc" plain "$p" "$pc"
awk -v o="$o" -v s="$s" -v p="$p" -v oc="$oc" -v sc="$sc" -v pc="$pc" 'BEGIN {
	printf "wall: ours/stock %.2f, plain/stock %.2f, plain-stock %+.2f ms\n", o / s, p / s, p - s
	printf "cpu:  ours/stock %.2f, plain/stock %.2f, plain-stock %+.2f ms\n", oc / sc, pc / sc, pc - sc }'
# the outputs agree (the view shows what stock replay writes home)
"$ours" -R "$req" "$img" 2>/dev/null | grep -v 'time:' >"$tmp/o.out"
"$sbin/debugfs" -R "$req" "$tmp/rep.img" 2>/dev/null | grep -v 'time:' >"$tmp/s.out"
if cmp -s "$tmp/o.out" "$tmp/s.out"; then
	echo "output: ours = stock on the replayed copy"
else
	echo "output: DIFFERS"
	exit 1
fi
