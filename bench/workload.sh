#!/bin/bash
#
# workload.sh --- the paper's metadata workloads (small versions), baseline
# against lazy, on fresh copies of one sparse image; prints a Table-2-style
# table.  Run from the build tree.
#
# Environment: SIZE (image, default 1G), N (directories for MakeDirs and
# files for CreateFiles, default 5000), OPS (operations per transaction,
# default 100), CKPT (baseline: checkpoint every CKPT transactions, default
# 6), JSIZE (journal MiB; default: mke2fs -O lazy_journal's size),
# TMPDIR.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
WL=$builddir/bench/workload
SIZE=${SIZE:-1G}
N=${N:-5000}
OPS=${OPS:-100}
CKPT=${CKPT:-6}

bench_lazy_image "$tmp/fresh.img" "$SIZE" lazy_itable_init=1,nodiscard
jblocks=$(bench_journal_blocks "$tmp/fresh.img")
echo "image $SIZE, 4 KiB blocks, journal $jblocks blocks; N=$N, $OPS operations per transaction, baseline checkpoint every $CKPT transactions or at half a log"
echo

for mode in baseline lazy; do
	for set in makedirs,removedirs createfiles,removefiles; do
		cp --sparse=always "$tmp/fresh.img" "$tmp/run.img"
		"$WL" -m "$mode" -t "$OPS" -c "$CKPT" -n "$N" -w "$set" \
			"$tmp/run.img" >>"$tmp/results"
	done
done

awk '
function f(k) { return v[k] }
{
	delete v
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	key = f("phase") " " f("mode")
	row[++n] = sprintf("| %s | %s | %d | %d | %d | %d | %d | %d | %d / %d | %s | %d |",
		f("phase"), f("mode"), f("ops"), f("txns"), f("meta_home"),
		f("meta_home_distinct"), f("journal"), f("data"),
		f("reads_journal"), f("reads_home"),
		f("mode") == "lazy" ? f("relogged") " / " f("cleaner_home") : f("checkpoints") " ckpt",
		f("ms"))
	ord[n] = (f("phase") == "makedirs" ? 1 : f("phase") == "removedirs" ? 2 : f("phase") == "createfiles" ? 3 : 4) * 10 + (f("mode") == "lazy")
}
END {
	print "| workload | mode | ops | txns | metadata home (blocks) | distinct home locations | journal (blocks) | data (blocks) | meta reads journal / home | cleaner relogged / home, or checkpoints | ms |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (o = 10; o <= 41; o++) for (i = 1; i <= n; i++) if (ord[i] == o) print row[i]
}' "$tmp/results"
