#!/bin/bash
#
# roundtrip.sh --- the floor under a request through the mount (issue 37):
# what a call answered by another process costs on this machine, beside
# what the same calls cost on our mount and on the kernel's ext4, each
# timed by bench/roundtrip (C: no interpreter in the figures).
#
#  * pipe, pipe-poll: a one-byte round trip between two processes over
#    two pipes, the answering process sleeping in read, or polling (as
#    fuse2fs/loop.c polls /dev/fuse while requests come): the least a
#    request and its answer can cost without any file system;
#  * miss: lstat of N names the directory does not hold (through FUSE one
#    LOOKUP each, answered from the index);
#  * create: N new empty files in one directory (through FUSE a GETATTR of
#    the directory, a LOOKUP, a CREATE, and the RELEASE of close);
#  * stat: lstat of the N files, on a fresh mount after drop_caches.
#
# Each file system gets a fresh sparse image (SIZE, default 8G, 4 KiB
# blocks, mke2fs's inode count): ours is fuse2fs/fuse2fs over our `mke2fs -O
# lazy_journal`, the kernel's a stock mke2fs image on a loop device.
# Prints microseconds per call and ours/kernel; "requests" is what the
# FUSE mount's calls would cost at the pipe-poll round trip alone (miss 1,
# create 3: the RELEASE is not waited for, stat 1).
#
# Usage: [N=20000] [SIZE=8G] bench/roundtrip.sh   (root, /dev/fuse, loop)
set -eu
. "$(dirname "$0")/lib.sh"

N=${N:-20000}
SIZE=${SIZE:-8G}
RT=$builddir/bench/roundtrip

if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "roundtrip.sh: needs root and /dev/fuse" >&2
	exit 1
fi
[ -x "$RT" ] || { echo "roundtrip.sh: no $RT (make)" >&2; exit 1; }

bench_mount_point

pipe=$("$RT" pipe "$N")
poll=$("$RT" pipe-poll "$N")
printf '%-22s %8s\n' "round trip" "us"
printf '%-22s %8s\n' "pipe" "$pipe" "pipe, polling" "$poll"
echo
declare -A us	# [CALL,KIND]: microseconds per call
for kind in kernel ours; do
	img=$tmp/$kind.img
	if [ $kind = ours ]; then
		bench_lazy_image "$img" "$SIZE" lazy_itable_init=1,nodiscard
		fs=$builddir/fuse2fs/fuse2fs
	else
		bench_stock_image "$img" "$SIZE"
		fs=kernel
	fi
	bench_drop_caches
	bench_mnt_up "$fs" "$img"
	mkdir "$mnt/d"
	us[miss,$kind]=$("$RT" miss "$mnt/d" "$N")
	us[create,$kind]=$("$RT" create "$mnt/d" "$N")
	bench_mnt_down "$img"
	bench_drop_caches
	bench_mnt_up "$fs" "$img"
	us[stat,$kind]=$("$RT" stat "$mnt/d" "$N")
	bench_mnt_down "$img"
	rm -f "$img"
done
printf '%-12s %10s %10s %10s %10s\n' call kernel ours ours/kernel requests
for call in miss:1 create:3 stat:1; do
	awk -v c="${call%:*}" -v r="${call#*:}" -v p="$poll" \
	    -v k="${us[${call%:*},kernel]}" -v o="${us[${call%:*},ours]}" 'BEGIN {
		printf "%-12s %10.1f %10.1f %9.1fx %10.1f\n", c, k, o, o / k, r * p }'
done
