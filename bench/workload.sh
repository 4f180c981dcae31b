#!/bin/bash
#
# workload.sh --- the paper's metadata workloads (small versions), baseline
# against lazy, on fresh copies of one sparse image; prints a Table-2-style
# table.  Run from the build tree (make bench-workload or directly).
#
# Environment: SIZE (image, default 1G), N (directories for MakeDirs and
# files for CreateFiles, default 5000), OPS (operations per transaction,
# default 100), CKPT (baseline: checkpoint every CKPT transactions, default
# 6), JSIZE (journal MiB; default: mke2fs -O lazy_journal's size),
# TMPDIR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILDDIR=${BUILDDIR:-$PWD}
[ -x "$BUILDDIR/bench/workload" ] || BUILDDIR=$(cd "$here/.." && pwd)
WL=$BUILDDIR/bench/workload
MKE2FS=$BUILDDIR/misc/mke2fs
SIZE=${SIZE:-1G}
N=${N:-5000}
OPS=${OPS:-100}
CKPT=${CKPT:-6}
JSIZE=${JSIZE:-}
dir=$(mktemp -d "${TMPDIR:-/tmp}/workload.XXXXXX")
trap 'rm -rf "$dir"' EXIT

jopt=()
[ -n "$JSIZE" ] && jopt=(-J "size=$JSIZE")
truncate -s "$SIZE" "$dir/fresh.img"
"$MKE2FS" -q -F -t ext4 -b 4096 -O lazy_journal "${jopt[@]}" \
	-E lazy_itable_init=1,nodiscard "$dir/fresh.img" >"$dir/mke2fs.out" 2>&1
jblocks=$("${E2FSPROGS_SBIN:-/usr/sbin}/dumpe2fs" -h "$dir/fresh.img" 2>/dev/null \
	| awk '/^Total journal blocks:/ {print $4}')
echo "image $SIZE, 4 KiB blocks, journal $jblocks blocks; N=$N, $OPS operations per transaction, baseline checkpoint every $CKPT transactions or at half a log"
echo

for mode in baseline lazy; do
	for set in makedirs,removedirs createfiles,removefiles; do
		cp --sparse=always "$dir/fresh.img" "$dir/run.img"
		"$WL" -m "$mode" -t "$OPS" -c "$CKPT" -n "$N" -w "$set" \
			"$dir/run.img" >>"$dir/results"
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
}' "$dir/results"
