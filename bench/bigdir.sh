#!/bin/bash
#
# bigdir.sh --- one big directory (issue 37 item 4): N creates of empty
# files in one directory, then a cold lstat of each name, on our mount
# (fuse2fs/fuse2fs over a lazy_journal image) and on the kernel's ext4 (a
# stock mke2fs image on a loop device), in the same run.
#
#  * create: a fresh image and mount, mkdir, N creates (open O_CREAT|O_EXCL,
#    close; names "file_%07d"), then fsync of the directory: until all
#    of it is committed (our mount: its log; the kernel's: jbd2's);
#  * stat: umount, drop_caches (the image's pages too), mount again, an
#    lstat of every name in creation order, umount.
# Prints one line per N and file system (seconds), and our time over the
# kernel's.  Needs root, /dev/fuse, loop devices, python3.
#
# Environment: NS (the counts, default "10000 100000"; 1000000 is an
# option), SIZE (images, sparse, default 8G; inodes: N + 1000), FUSE2FS
# (the server to time, default the build's fuse2fs/fuse2fs), TMPDIR.
# Any failing tool or mount fails the script.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

NS=${NS:-10000 100000}
SIZE=${SIZE:-8G}
OUR_FUSE2FS=${FUSE2FS:-$builddir/fuse2fs/fuse2fs}

if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "bigdir.sh: needs root and /dev/fuse" >&2
	exit 1
fi

cat >"$tmp/work.py" <<'PY'
import os, sys, time
cmd, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = time.monotonic()
if cmd == "create":
    os.mkdir(d)
    for i in range(n):
        os.close(os.open("%s/file_%07d" % (d, i),
                         os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    fd = os.open(d, os.O_RDONLY)
    os.fsync(fd)	# ours: a commit (fsyncdir); ext4: jbd2's
    os.close(fd)
else:
    for i in range(n):
        os.lstat("%s/file_%07d" % (d, i))
print("%.2f" % (time.monotonic() - t))
PY

bench_mount_point

printf '%-8s %-14s %10s %10s\n' N "file system" "create s" "stat s"
for n in $NS; do
	for kind in kernel lazy; do
		img=$tmp/$kind.img
		rm -f "$img"
		if [ $kind = lazy ]; then
			truncate -s "$SIZE" "$img"
			bench_run 0 "$tmp/mkfs.out" "$builddir/misc/mke2fs" -q -F \
				-t ext4 -O lazy_journal -N $((n + 1000)) \
				-E lazy_itable_init=1,nodiscard "$img"
			fs=$OUR_FUSE2FS
		else
			bench_stock_image "$img" "$SIZE" -N $((n + 1000))
			fs=kernel
		fi
		bench_drop_caches
		bench_mnt_up "$fs" "$img"
		c=$(python3 "$tmp/work.py" create "$mnt/d" "$n")
		bench_mnt_down "$img"
		bench_drop_caches
		bench_mnt_up "$fs" "$img"
		s=$(python3 "$tmp/work.py" stat "$mnt/d" "$n")
		bench_mnt_down "$img"
		printf '%-8s %-14s %10s %10s\n' "$n" \
			"$([ $kind = lazy ] && echo "ours (lazy)" || echo "kernel ext4")" "$c" "$s"
		eval "c_$kind=$c s_$kind=$s"
		rm -f "$img"
	done
	# shellcheck disable=SC2154  # set by the eval above
	awk -v n="$n" -v ck="$c_kernel" -v cl="$c_lazy" -v sk="$s_kernel" \
	    -v sl="$s_lazy" 'BEGIN { printf "%-8s %-14s %9.1fx %9.1fx\n",
		n, "ours/kernel", cl / ck, sl / sk }'
done
