#!/bin/bash
#
# journal_size.sh --- when does the lazy cleaner start working?  The
# MakeDirs and RemoveDirs workloads (bench/workload -m lazy) on fresh
# sparse images by our mke2fs -O lazy_journal with a range of journal
# sizes; per size, what the cleaner did in each phase and how much live
# metadata the log held after MakeDirs (debugfs jmap -s).
#
# Each phase is one process (one mount): makedirs, then removedirs.
# Environment: SIZE (image, default 64G, sparse), N (directories, default
# 10000), OPS (operations per transaction, default 100), JSIZES (journal
# sizes in MiB, default "32 48 64 96 128"), TMPDIR.
# Usage (from the build tree): bench/journal_size.sh
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
WL=$builddir/bench/workload
SIZE=${SIZE:-64G}
N=${N:-10000}
OPS=${OPS:-100}
JSIZES=${JSIZES:-"32 48 64 96 128"}

# field NAME FILE: the value of NAME= on FILE's one line
field() {
	sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$2"
}

echo "image $SIZE (sparse), 4 KiB blocks; bench/workload -m lazy, N=$N, $OPS operations per transaction"
echo "| journal (MiB) | MakeDirs: journal written (blocks) | MakeDirs: re-logged / sent home | live mappings after MakeDirs | RemoveDirs: journal written | RemoveDirs: re-logged / sent home |"
echo "| --- | --- | --- | --- | --- | --- |"
for j in $JSIZES; do
	rm -f "$tmp/img"
	JSIZE=$j bench_lazy_image "$tmp/img" "$SIZE" \
		lazy_itable_init=1,lazy_journal_init=1,nodiscard
	bench_run 0 "$tmp/mk.out" "$WL" -m lazy -t "$OPS" -n "$N" \
		-w makedirs "$tmp/img"
	bench_run 0 "$tmp/jmap.out" "$builddir/debugfs/debugfs" \
		-R "jmap -s" "$tmp/img"
	live=$(sed -n 's/^Live mappings: *\([0-9]*\)$/\1/p' "$tmp/jmap.out")
	bench_run 0 "$tmp/rm.out" "$WL" -m lazy -t "$OPS" -w removedirs \
		"$tmp/img"
	printf '| %s | %s | %s / %s | %s | %s | %s / %s |\n' "$j" \
		"$(field journal "$tmp/mk.out")" \
		"$(field relogged "$tmp/mk.out")" \
		"$(field cleaner_home "$tmp/mk.out")" "$live" \
		"$(field journal "$tmp/rm.out")" \
		"$(field relogged "$tmp/rm.out")" \
		"$(field cleaner_home "$tmp/rm.out")"
done
