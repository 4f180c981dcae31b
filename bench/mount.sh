#!/bin/bash
# mount.sh --- the lazy mount against stock fuse2fs, same run, same tree.
#
# Stock fuse2fs on a plain ext4 image and our fuse2fs on a lazy_journal
# image of the same size (our mke2fs -O lazy_journal: same geometry, the
# lazy journal size) run the same phases: cp -a of SRC (default
# /usr/include), sync, find|wc, cat of every file, rm -rf, each timed
# (wall clock), then umount.  Bytes each daemon wrote (/proc/PID/io wchar:
# every write and pwrite it issued, home and log alike), and for the lazy
# image what went into the log (debugfs jmap -s).  REPS runs (default 3);
# each figure is the median.  Prints one row per phase and the ratio
# ours/stock.  Needs root and /dev/fuse; fails when a mount or a phase
# fails.
set -eu
. "$(dirname "$0")/lib.sh"
bench_test_lib
# shellcheck source=tests/lib/mount.sh
. "$top/tests/lib/mount.sh"

SRC=${SRC:-/usr/include}
SIZE=${SIZE:-2G}
REPS=${REPS:-3}
phases="copy sync list read remove umount"

run_phase() {	# run_phase NAME DIR: one phase, its wall time in ms
	local t0 t1
	t0=$(bench_us)
	case $1 in
	copy)	cp -a "$SRC" "$2/tree" ;;
	sync)	sync "$2/tree" ;;
	list)	find "$2/tree" | wc -l >/dev/null ;;
	read)	find "$2/tree" -type f -exec cat {} + >/dev/null ;;
	remove)	rm -rf "$2/tree" ;;
	umount)	fumount "$2" ;;
	esac
	t1=$(bench_us)
	echo $(((t1 - t0) / 1000))
}

one_run() {	# one_run KIND REP: times into $tmp/KIND.PHASE, wchar
	local kind=$1 img=$tmp/$1.img m=$tmp/m pid p
	rm -f "$img"
	if [ "$kind" = stock ]; then
		bench_stock_image "$img" "$SIZE"
		fmount "$STOCK_FUSE2FS" "$img" "$m" >&2
	else
		bench_lazy_image "$img" "$SIZE" lazy_itable_init=1,nodiscard
		fmount "$OUR_FUSE2FS" "$img" "$m" >&2
	fi
	pid=$(pgrep -f "fuse2fs $img " | head -n 1)
	for p in $phases; do
		if [ "$p" = umount ]; then	# the daemon is gone after it
			awk '/^wchar/ { print $2 }' "/proc/$pid/io" >>"$tmp/$kind.wchar"
		fi
		run_phase "$p" "$m" >>"$tmp/$kind.$p"
	done
	if [ "$kind" = lazy ]; then
		"$builddir/debugfs/debugfs" -R "jmap -s" "$img" 2>/dev/null |
			sed -n 's/^Log blocks in use: *\([0-9]*\).*/\1/p' >>"$tmp/lazy.log"
	fi
}

for r in $(seq 1 "$REPS"); do
	one_run stock "$r"
	one_run lazy "$r"
done

echo "bench/mount.sh: SRC=$SRC ($(du -sh "$SRC" | cut -f1)), SIZE=$SIZE, REPS=$REPS (median ms)"
printf '%-8s %10s %10s %7s\n' phase stock lazy ratio
for p in $phases; do
	s=$(bench_median <"$tmp/stock.$p")
	l=$(bench_median <"$tmp/lazy.$p")
	printf '%-8s %10s %10s %7s\n' "$p" "$s" "$l" \
		"$(awk -v a="$l" -v b="$s" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
done
printf '%-8s %10s %10s\n' "MiB written" \
	"$(($(bench_median <"$tmp/stock.wchar") / 1048576))" \
	"$(($(bench_median <"$tmp/lazy.wchar") / 1048576))"
echo "lazy: log blocks in use after umount: $(bench_median <"$tmp/lazy.log")"
