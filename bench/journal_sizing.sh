#!/bin/bash
#
# journal_sizing.sh --- lazy journal size (doc/contract.md §6) next to stock's
# default, per file-system size: our `mke2fs -n -O lazy_journal` (writes
# nothing) prints the block count N and the lazy size; stock mke2fs formats
# a sparse image of the same size and stock dumpe2fs gives its default
# journal.  tests/m_lazy_sizing checks the lazy size against an awk copy
# of the formula; this prints the table of doc/tools.md.
#
# Usage: bench/journal_sizing.sh [SIZE...]   (default: 64M 1G 16G 400G 8T)
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || set -- 64M 1G 16G 400G 8T

echo "| file system | N (blocks) | stock default | lazy journal |"
echo "| --- | --- | --- | --- |"
for s in "$@"; do
	rm -f "$tmp/img"
	truncate -s "$s" "$tmp/img"
	bench_run 0 "$tmp/ours.out" "$builddir/misc/mke2fs" -n -F -t ext4 \
		-O lazy_journal "$tmp/img"
	read -r n bs < <(sed -n 's/^Creating filesystem with \([0-9]*\) \([0-9]*k\) blocks.*/\1 \2/p' "$tmp/ours.out")
	lazy=$(sed -n 's/^Lazy journal: \(.*\)$/\1/p' "$tmp/ours.out")
	bench_run 0 "$tmp/stock.out" "$sbin/mke2fs" -F -q -t ext4 \
		-E lazy_itable_init=1,nodiscard "$tmp/img"
	stock=$("$sbin/dumpe2fs" -h "$tmp/img" 2>/dev/null |
		awk '/^Total journal blocks:/ {b = $4} /^Total journal size:/ {z = $4}
		     END {print b " blocks (" z ")"}')
	printf '| %s | %s (%s) | %s | %s |\n' "$s" "$n" "$bs" "$stock" "$lazy"
done
