#!/bin/bash
#
# fuse_floor.sh --- MakeDirs' floor through FUSE on this machine (issue
# 36): the paper's MakeDirs (bench/smr/paper_work.py makedirs: DIRS
# directories, depth 10, fanout 4, depth-first), timed the same way on
#
#  * floor        bench/fuse_floor, a FUSE server that keeps the names in
#                 memory and does nothing else, its loop fuse2fs's, the
#                 CPUs held out of their idle halt (PM QoS),
#                 mounted with default_permissions as fuse2fs mounts;
#  * floor-noperm the same without default_permissions (the kernel then
#                 sends no GETATTR of a changed parent before the next
#                 permission check in it);
#  * ours         fuse2fs/fuse2fs on our `mke2fs -O lazy_journal` image;
#  * kernel       the kernel's ext4 on a loop device (-o noinit_itable);
#  * tmpfs        the kernel's memory file system: the system calls and
#                 python's loop with no file system work to speak of.
#
# Images as bench/smr/paper.sh makes them: SIZE (default 2T) sparse, a
# JOURNAL_MB (10240) journal, 4 KiB blocks.  Each round runs every
# system once, in a rotated order; each run starts from a fresh image or
# mount after drop_caches.  The time is the work's wall time alone (no
# mount, no umount).  Prints microseconds per directory (best of REPS
# rounds, and all of them), and the floor server's requests per directory.
#
# Usage: [DIRS=100000] [REPS=3] [SYSTEMS="floor floor-noperm ours kernel
#        tmpfs"] bench/fuse_floor.sh         (root, /dev/fuse, loop devices)
set -eu
. "$(dirname "$0")/lib.sh"

DIRS=${DIRS:-100000}
REPS=${REPS:-3}
SIZE=${SIZE:-2T}
JOURNAL_MB=${JOURNAL_MB:-10240}
SYSTEMS=${SYSTEMS:-floor floor-noperm ours kernel tmpfs}
FLOOR=$builddir/bench/fuse_floor
WORK=$top/bench/smr/paper_work.py

if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "fuse_floor.sh: needs root and /dev/fuse" >&2
	exit 1
fi
for p in "$FLOOR" "$builddir/fuse2fs/fuse2fs"; do
	[ -x "$p" ] || { echo "fuse_floor.sh: no $p (make)" >&2; exit 1; }
done
bench_mount_point
img=$tmp/fs.img

# up SYSTEM: $mnt served by SYSTEM, fresh; the FUSE daemons in the
# background, their stderr in $tmp/daemon.err.
up() {
	rm -f "$img"
	case $1 in
	floor|floor-noperm)
		local o=()
		[ "$1" = floor ] && o=(-o default_permissions)
		"$FLOOR" "$mnt" "${o[@]}" 2>"$tmp/daemon.err" &
		daemon=$!
		until mountpoint -q "$mnt"; do
			kill -0 "$daemon" 2>/dev/null ||
				{ cat "$tmp/daemon.err" >&2; exit 1; }
			sleep 0.05
		done ;;
	ours)
		JSIZE=$JOURNAL_MB bench_lazy_image "$img" "$SIZE" \
			lazy_itable_init=1,nodiscard
		bench_drop_caches
		bench_run 0 "$tmp/mount.out" "$builddir/fuse2fs/fuse2fs" \
			"$img" "$mnt" ;;
	kernel)
		bench_stock_image "$img" "$SIZE" -J "size=$JOURNAL_MB"
		bench_drop_caches
		bench_run 0 "$tmp/mount.out" mount -t ext4 \
			-o loop,noinit_itable "$img" "$mnt" ;;
	tmpfs)
		bench_run 0 "$tmp/mount.out" mount -t tmpfs tmpfs "$mnt" ;;
	esac
}

down() {
	bench_run 0 "$tmp/umount.out" umount "$mnt"
	case $1 in
	floor|floor-noperm)
		wait "$daemon"
		requests=$(sed -n 's/^fuse_floor: //p' "$tmp/daemon.err") ;;
	ours)
		while pgrep -f "fuse2fs $img " >/dev/null; do sleep 0.1; done ;;
	esac
	rm -f "$img"
}

declare -A runs		# [SYSTEM]: "us us ..." per directory
declare -A asked	# [SYSTEM]: the floor server's request counts
read -ra order <<<"$SYSTEMS"
for ((r = 0; r < REPS; r++)); do
	for ((i = 0; i < ${#order[@]}; i++)); do
		s=${order[(i + r) % ${#order[@]}]}
		up "$s"
		t0=$(bench_us)
		bench_run 0 "$tmp/work.out" python3 "$WORK" makedirs \
			"$mnt/dirs" "$DIRS"
		t1=$(bench_us)
		down "$s"
		runs[$s]+="$(awk -v t=$((t1 - t0)) -v n="$DIRS" \
			'BEGIN { printf "%.1f ", t / n }')"
		case $s in floor*) asked[$s]=$requests ;; esac
	done
done

echo "MakeDirs of $DIRS directories, us a directory (best; all rounds):"
for s in "${order[@]}"; do
	best=$(tr ' ' '\n' <<<"${runs[$s]}" | sed '/^$/d' | sort -g | head -1)
	printf '%-14s %8s   (%s)\n' "$s" "$best" "${runs[$s]% }"
done
for s in "${order[@]}"; do
	case $s in floor*) ;; *) continue ;; esac
	awk -v s="$s" -v n="$DIRS" -v a="${asked[$s]}" 'BEGIN {
		split(a, f, /[ =]/)
		printf "%s requests a directory: LOOKUP %.2f, MKDIR %.2f, " \
			"GETATTR %.2f\n", s, f[2] / n, f[4] / n, f[6] / n }'
done
