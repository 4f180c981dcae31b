# shellcheck shell=sh
#
# lj_guest.sh --- helpers for guest scripts (busybox sh), sourced by the
# guest /init before /guest.sh.  The guest script's stdout and stderr go to
# /tmp/out; the init copies them to the output disk ($LJ_OUT) when the
# script ends, or lj_crash does it just before crashing the guest.

# lj_flush_output RC: write /tmp/out and the exit trailer to the output
# disk and make it durable WITHOUT syncing any other file system
# (`sync FILE` is an fsync of that one device)
lj_flush_output() {
	{ cat /tmp/out; echo "@@lj-exit $1@@"; } >"$LJ_OUT"
	sync "$LJ_OUT"
}

# lj_crash: crash the guest now (sysrq b: immediate reboot, no sync, no
# unmount; qemu's -no-reboot turns it into an exit).  What was committed
# to a journal stays there, home copies stale.  Exit status reported: 0.
lj_crash() {
	lj_flush_output 0
	echo b >/proc/sysrq-trigger
	sleep 10
}

# lj_mount DEV DIR [OPTIONS] [TYPE]: mount, or say why not
lj_mount() {
	mkdir -p "$2"
	if ! mount -t "${4:-ext4}" -o "${3:-defaults}" "$1" "$2"; then
		echo "mount $1 failed"
		dmesg | tail -n 5
		return 1
	fi
}

# lj_tree DIR: a deterministic listing of the tree under DIR: one line
# per file (name or "name -> target" for a symlink, type, size, mode, uid,
# gid, links, inode, mtime, ctime), then the md5 of every regular file
lj_tree() {
	(cd "$1" && find . -exec stat -c '%N|%F|%s|%a|%u|%g|%h|%i|%Y|%Z' {} + |
		LC_ALL=C sort &&
	 find . -type f -exec md5sum {} + | LC_ALL=C sort -k2)
}

# lj_dmesg_clear: empty the kernel log buffer (before a mount whose
# messages lj_recovery_lines should judge)
lj_dmesg_clear() {
	dmesg -c >/dev/null
}

# lj_recovery_lines: kernel log lines about journal recovery since the last
# lj_dmesg_clear (ext4: "recovery complete", "recovery required on
# readonly filesystem", ...; jbd2 errors), timestamps removed
lj_recovery_lines() {
	dmesg | grep -iE 'recover|replay' | sed 's/^\[[^]]*\] //'
}

# lj_pattern SIZE TAG: SIZE bytes of deterministic text
lj_pattern() {
	yes "$2 0123456789abcdefghijklmnopqrstuvwxyz" | head -c "$1"
}

# lj_workload DIR: a tree built in many small transactions, each file
# with data fsynced (`sync FILE`) right after it is written so its data
# and metadata are committed (delayed allocation would leave an unsynced
# file empty after the crash); the 150 entries of many/ are empty.  The
# last step fsyncs the directories, so the whole tree is committed.  Covers directories (one big
# enough to need an htree index and several blocks), small and
# multi-block files (indirect blocks on ext3), fast and slow symlinks, a
# hard link, rename, unlink, chmod, chown, truncate and an overwrite.
lj_workload() {
	d=$1
	mkdir -p "$d/a/b/c" "$d/empty"
	lj_pattern 100 small >"$d/a/small"
	sync "$d/a/small"
	lj_pattern 200000 big >"$d/a/b/big"
	sync "$d/a/b/big"
	i=1
	while [ "$i" -le 20 ]; do
		lj_pattern $((i * 317)) "f$i" >"$d/a/b/c/f$i"
		sync "$d/a/b/c/f$i"
		i=$((i + 1))
	done
	ln -s small "$d/a/fastlink"
	ln -s "/a/rather/long/symlink/target/that/does/not/fit/in/the/inode/itself/$d" "$d/a/slowlink"
	ln "$d/a/small" "$d/a/hardlink"
	sync "$d/a"
	mv "$d/a/b/c/f3" "$d/a/moved"
	rm "$d/a/b/c/f5"
	chmod 600 "$d/a/small"
	chown 12:34 "$d/a/b/big"
	truncate -s 5000 "$d/a/b/c/f10"
	sync "$d/a/b/c/f10"
	lj_pattern 3000 over >"$d/a/b/c/f11"
	sync "$d/a/b/c/f11"
	mkdir "$d/many"
	i=1
	while [ "$i" -le 150 ]; do
		: >"$d/many/entry-with-a-rather-long-name-number-$i"
		i=$((i + 1))
	done
	echo 150 >"$d/many/entry-with-a-rather-long-name-number-150"
	sync "$d/many/entry-with-a-rather-long-name-number-150"
	rm "$d/many/entry-with-a-rather-long-name-number-7"
	for x in "$d/many" "$d/a/b/c" "$d/a/b" "$d/a" "$d"; do
		sync "$x"
	done
}

# lj_jbd2_logged DEV: blocks the journal of DEV logged since mount
# (from /proc/fs/jbd2/DEV-8/info: transactions x logged blocks per
# transaction, an estimate good to one block per transaction)
lj_jbd2_logged() {
	awk 'NR == 1 {n = $1} /logged blocks per transaction/ {b = $1}
	     END {print n * b}' "/proc/fs/jbd2/${1##*/}-8/info"
}

# lj_jbd2_maxlen DEV: the journal's length in blocks (4 x "each up to")
lj_jbd2_maxlen() {
	awk 'NR == 1 {print 4 * $(NF - 1)}' "/proc/fs/jbd2/${1##*/}-8/info"
}

# lj_workload_wrap DEV DIR: small fsynced transactions until about 60% of
# the journal is used, then a freeze (jbd2 checkpoints everything and the
# log starts again where the head is), then about 60% more: the live log
# runs past the end of the journal and wraps to its start
lj_workload_wrap() {
	dev=$1
	d=$2
	max=$(lj_jbd2_maxlen "$dev")
	mkdir -p "$d/w1" "$d/w2"
	sync "$d"
	i=0
	while [ "$(lj_jbd2_logged "$dev")" -lt $((max * 6 / 10)) ]; do
		i=$((i + 1))
		lj_pattern $((i * 100)) "w1-$i" >"$d/w1/$i"
		sync "$d/w1/$i"
	done
	fsfreeze --freeze "$d" && fsfreeze --unfreeze "$d"
	base=$(lj_jbd2_logged "$dev")
	i=0
	while [ "$(lj_jbd2_logged "$dev")" -lt $((base + max * 6 / 10)) ]; do
		i=$((i + 1))
		lj_pattern $((i * 100)) "w2-$i" >"$d/w2/$i"
		sync "$d/w2/$i"
	done
	sync "$d/w2"
	sync "$d"
}

# lj_manifest_raw DIR: the facts tests/progs/manifest.py lists of the tree
# under DIR (lost+found at its top left out), for `manifest.py --guest` on
# the host to put in its own form: one line per entry
# "S|PATH|MODE_HEX|SIZE|NLINK", per regular file "H|PATH|SHA256", per
# symlink "L|PATH|TARGET", per user.* xattr "X|PATH|NAME|VALUE_HEX" (with
# /bin/lj_getxattrs: run with VM_FILES=tests/progs/lj_getxattrs); PATH as
# find prints it from DIR ("." or "./...")
lj_manifest_raw() {
	(cd "$1" &&
	 find . -path ./lost+found -prune -o -exec stat -c 'S|%n|%f|%s|%h' {} + &&
	 find . -path ./lost+found -prune -o -type f -exec sha256sum {} + |
		sed 's/^\([0-9a-f]*\)  \(.*\)$/H|\2|\1/' &&
	 find . -path ./lost+found -prune -o -type l -print |
		while read -r l; do echo "L|$l|$(readlink "$l")"; done &&
	 find . -path ./lost+found -prune -o -exec lj_getxattrs {} +)
}
