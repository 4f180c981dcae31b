# shellcheck shell=sh
#
# ops.sh --- the workload of tests/kernel/k_quota, in POSIX sh: the guest
# runs it with busybox sh on the kernel's ext4, the host with busybox sh
# and busybox's applets on our mount, so both make the same calls.  What
# busybox has no applet for is /bin/lj_setattrs (tests/progs/lj_setattrs).
# Every file's contents are zeros or fixed bytes; every directory fits in
# one block (ext4's hashed directories split otherwise than ours), so the
# trees take the same blocks on both sides.
#
#   kq_ops DIR    the workload on the tree under DIR, whose directory p
#                 has project id 7 and the project-inherit flag (set
#                 before, on the image); prints one line per link or
#                 rename into or out of p: its answer
#   kq_list DIR   the tree under DIR: "PATH|TYPE|SIZE|BLOCKS|UID|GID" per
#                 entry, then "PATH PROJID" per file and directory, sorted

# kq_zeros FILE BLOCKS [SEEK]: BLOCKS 4 KiB blocks of zeros into FILE at
# block SEEK (the rest of the file kept)
kq_zeros() {
	dd if=/dev/zero of="$1" bs=4096 count="$2" seek="${3:-0}" \
		conv=notrunc 2>/dev/null
}

# kq_tree DIR N: DIR with N files of 1000 x i bytes
kq_tree() {
	mkdir "$1" || return 1
	kq_i=1
	while [ "$kq_i" -le "$2" ]; do
		dd if=/dev/zero of="$1/f$kq_i" bs=1000 count="$kq_i" \
			2>/dev/null || return 1
		kq_i=$((kq_i + 1))
	done
}

kq_ops() {
	kq_d=$1
	kq_long=$(printf '%0200d' 0 | tr 0 x)
	mkdir "$kq_d/a" "$kq_d/b" "$kq_d/c" &&
	echo hi >"$kq_d/a/small" &&
	# written, extended past a hole, truncated back into the first run
	kq_zeros "$kq_d/a/f1" 25 && kq_zeros "$kq_d/a/f1" 3 60 &&
	truncate -s 10000 "$kq_d/a/f1" &&
	truncate -s 2M "$kq_d/a/sparse" && kq_zeros "$kq_d/a/sparse" 5 100 &&
	dd if=/dev/zero of="$kq_d/a/big" bs=65536 count=40 2>/dev/null &&
	kq_zeros "$kq_d/b/grow" 4 &&
	dd if=/dev/zero bs=4096 count=4 2>/dev/null >>"$kq_d/b/grow" &&
	chown 1000:2000 "$kq_d/a/f1" "$kq_d/a/sparse" &&
	chown -R 1001:2001 "$kq_d/b" &&
	ln "$kq_d/a/f1" "$kq_d/b/hard" &&
	ln -s small "$kq_d/a/sym" &&
	ln -s "$kq_long" "$kq_d/a/longsym" &&
	chown -h 1002:2002 "$kq_d/a/longsym" &&
	# an xattr block each (the same value: the kernel shares the block,
	# each inode is charged for it); a small one inside the inode
	lj_setattrs xattr "$kq_d/a/small" user.big 3000 &&
	lj_setattrs xattr "$kq_d/a/f1" user.big 3000 &&
	lj_setattrs xattr "$kq_d/b/grow" user.note 20 &&
	chown 1002 "$kq_d/a/small" && chgrp 2003 "$kq_d/a/small" &&
	# the shared block left by one, a value shrunk to fit in the inode
	lj_setattrs rmxattr "$kq_d/a/f1" user.big &&
	lj_setattrs xattr "$kq_d/a/sparse" user.big 3000 &&
	lj_setattrs xattr "$kq_d/a/sparse" user.big 10 &&
	mkfifo "$kq_d/b/fifo" && chgrp 2005 "$kq_d/b/fifo" &&
	# a tree, copied with its owners, part of it chowned, part removed
	mkdir "$kq_d/t" && kq_tree "$kq_d/t/x" 30 && kq_tree "$kq_d/t/y" 12 &&
	kq_tree "$kq_d/t/z" 20 &&
	chown -R 1003:2003 "$kq_d/t/x" && chgrp -R 2006 "$kq_d/t/y" &&
	cp -a "$kq_d/t/x" "$kq_d/t/x2" &&
	chown -R 1009 "$kq_d/t/x2" &&
	rm -rf "$kq_d/t/z" &&
	rm "$kq_d/a/big" &&
	mkdir "$kq_d/c/gone" && rmdir "$kq_d/c/gone" &&
	chown 1004:2004 "$kq_d/c" &&
	touch "$kq_d/c/t1" "$kq_d/c/t2" && chown 1004:2004 "$kq_d/c/t1" &&
	# owned, written, unlinked, fsynced while open
	lj_setattrs open-unlinked "$kq_d/c/open-unlinked" 1005 2005 50000 &&
	rm "$kq_d/c/t2" &&
	truncate -s 0 "$kq_d/b/grow" &&
	# preallocated (unwritten), then a hole punched in the middle
	fallocate -l 1048576 "$kq_d/a/falloc" &&
	chown 1006:2006 "$kq_d/a/falloc" &&
	lj_setattrs punch "$kq_d/a/falloc" 262144 131072 &&
	# six extents: an extent block; fsynced (the kernel allocates at
	# writeback: a file cut back before would never have had the block),
	# then one file cut back to two extents
	for kq_i in 0 2 4 6 8 10; do
		kq_zeros "$kq_d/a/frag" 1 "$kq_i" &&
		kq_zeros "$kq_d/a/frag2" 1 "$kq_i" || return 1
	done &&
	sync "$kq_d/a/frag" "$kq_d/a/frag2" &&
	chown 1010:2010 "$kq_d/a/frag" && chown 1011:2011 "$kq_d/a/frag2" &&
	truncate -s 12288 "$kq_d/a/frag2" &&
	# a rename over a file of another owner frees it
	echo victim >"$kq_d/c/victim" && chown 1007:2007 "$kq_d/c/victim" &&
	kq_zeros "$kq_d/c/new" 2 && mv "$kq_d/c/new" "$kq_d/c/victim" &&
	# and over an empty directory of another owner
	mkdir "$kq_d/c/d1" "$kq_d/c/d2" && chown 1012:2012 "$kq_d/c/d2" &&
	lj_setattrs rename "$kq_d/c/d1" "$kq_d/c/d2" &&
	# project 7: new inodes in p take it
	mkdir "$kq_d/p/sub" && kq_zeros "$kq_d/p/sub/data" 10 &&
	chown 1008:2008 "$kq_d/p/sub/data" &&
	lj_setattrs xattr "$kq_d/p/sub/data" user.big 3000 &&
	ln -s "$kq_long" "$kq_d/p/sub/longsym" &&
	cp -a "$kq_d/t/y" "$kq_d/p/y" &&
	mkdir "$kq_d/q" && lj_setattrs projinherit "$kq_d/q" &&
	kq_zeros "$kq_d/q/f" 3 &&
	# names moved into and out of p (ext4: EXDEV into p from another
	# project; busybox mv then copies, the copy taking project 7)
	kq_zeros "$kq_d/a/moved" 3 && kq_zeros "$kq_d/a/swap" 2 &&
	kq_zeros "$kq_d/p/swap" 1 && mkdir "$kq_d/p/out" &&
	mkdir "$kq_d/c/tree" && kq_zeros "$kq_d/c/tree/f" 2 &&
	chown -R 1013:2013 "$kq_d/c/tree" || return 1
	(cd "$kq_d" &&
	 kq_try ln a/moved p/link &&
	 kq_try mv a/moved p/moved &&
	 kq_try lj_setattrs rename c/tree p/tree &&
	 kq_try mv c/tree p/tree &&
	 kq_try lj_setattrs exchange a/swap p/swap &&
	 kq_try ln p/sub/data c/data-link &&
	 kq_try mv p/out c/out &&
	 kq_try mv p/y/f4 p/y/f4b) &&
	rm "$kq_d/p/y/f3"
}

# kq_try CMD...: run CMD, print "CMD: ok" or "CMD: refused: ITS STDERR"
kq_try() {
	if kq_err=$("$@" 2>&1); then
		echo "$*: ok"
	else
		echo "$*: refused: $kq_err"
	fi
}

kq_list() {
	(cd "$1" &&
	 find . -exec stat -c '%n|%F|%s|%b|%u|%g' {} + | LC_ALL=C sort &&
	 find . \( -type f -o -type d \) -exec lj_setattrs projid {} + |
		LC_ALL=C sort)
}
