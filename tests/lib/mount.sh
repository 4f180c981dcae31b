# shellcheck shell=bash
#
# mount.sh --- the lazy mount (fuse2fs/fuse2fs) in scenario tests
# (tests/u_mount_*).  Source after test_lib.sh.  FUSE needs /dev/fuse and
# root; without them need_fuse exits 77 (run_tests.sh: SKIPPED, with the
# reason).  The host kernel's ext4 on a loop device reads images back
# (kmount): a mount failure there fails the test.
#
#   need_fuse               exit 77 unless a FUSE mount can be made here
#   lazy_image IMG MIB      a sparse lazy_journal image made by our mke2fs
#   fmount PROG IMG DIR [OPT...]
#                           mount IMG on DIR with PROG (ours: $OUR_FUSE2FS,
#                           stock: $STOCK_FUSE2FS); fails unless mounted;
#                           the daemon is named with IMG's absolute path
#   fmount_counted LOG IMG DIR [OPT...]
#                           fmount with ours in the foreground
#                           (FUSE2FS_REQUESTS=1, its output into LOG): after
#                           fumount LOG holds its request counts and waits
#   wait_figure LOG KEY     KEY's value in LOG's "fuse2fs: waits:" line
#   fpid IMG                the pid of the daemon serving IMG
#   fumount DIR             unmount, and wait for the daemon to be gone
#   kmount IMG DIR          the host kernel's ext4, read-only, loop device
#   kumount DIR
#   manifest DIR            tests/progs/manifest.py of the tree
#   same_tree LABEL REF OUT one line: "LABEL: tree as written" when the
#                           manifests REF and OUT are equal, else "LABEL:
#                           tree differs" and the first differences
#   tree_ops DIR            the same workload on any tree: copies of
#                           /usr/include and /usr/share/doc, renames,
#                           unlinks, rmdir of whole trees, hard and symbolic
#                           links, chmod, truncate, xattrs, fsync

export OUR_FUSE2FS=$BUILDDIR/fuse2fs/fuse2fs
STOCK_FUSE2FS=${STOCK_FUSE2FS:-$(command -v fuse2fs || echo /usr/bin/fuse2fs)}
MANIFEST=$SRCDIR/tests/progs/manifest.py
FMOUNTS=()
KMOUNTS=()

mount_cleanup() {
	local d
	for d in "${FMOUNTS[@]}" "${KMOUNTS[@]}"; do
		umount "$d" 2>/dev/null
	done
	return 0
}
trap mount_cleanup EXIT

need_fuse() {
	if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
		echo "no /dev/fuse or not root: FUSE mounts cannot be made" >&2
		exit 77
	fi
}

lazy_image() {
	rm -f "$1"
	truncate -s "${2}M" "$1"
	"$OUR_MKE2FS" -q -F -t ext4 -O lazy_journal -E lazy_itable_init=1 \
		-U 6b1d5c2e-0f0a-4f5e-9d1b-2f3c4d5e6f70 "$1"
}

fmount() {
	local prog=$1 img dir=$3
	img=$(realpath "$2")	# the daemon's own command line, no other's
	shift 3
	mkdir -p "$dir"
	"$prog" "$img" "$dir" "$@" >"$TMPD/.fmount.out" 2>&1 || {
		echo "mount of $img failed: $(tail -n 1 "$TMPD/.fmount.out")"
		return 1
	}
	mountpoint -q "$dir" || { echo "$dir: not mounted"; return 1; }
	FMOUNTS+=("$dir")
}

fmount_counted() {
	local log=$1 img dir=$3
	img=$(realpath "$2")
	shift 3
	mkdir -p "$dir"
	FUSE2FS_REQUESTS=1 "$OUR_FUSE2FS" "$img" "$dir" -f "$@" >"$log" 2>&1 &
	for _ in $(seq 1 600); do	# (a slow device: seconds)
		mountpoint -q "$dir" && break
		kill -0 $! 2>/dev/null || break
		sleep 0.05
	done
	mountpoint -q "$dir" || {
		echo "mount of $img failed: $(tail -n 1 "$log")"
		return 1
	}
	FMOUNTS+=("$dir")
}

wait_figure() {
	sed -n 's/^fuse2fs: waits: //p' "$1" | tr ' ' '\n' |
		sed -n "s/^$2=//p"
}

fpid() {
	pgrep -f "fuse2fs $(realpath "$1") " | head -n 1
}

# img_held FILE: does a process hold FILE (an absolute path) open?  One
# process reads every descriptor's link (a readlink(1) per descriptor
# took 6 s a call: a fork costs milliseconds on these VMs, and each
# fumount asks); links only, never a stat, which could wait on a mount.
img_held() {
	perl -e 'for (glob "/proc/[0-9]*/fd/*") {
		my $l = readlink; exit 0 if defined $l && $l eq $ARGV[0] } exit 1' "$1"
}

# The daemon writes its last commit after the kernel has let go of the
# mount point: wait until no process holds the image any more (the mount
# table names ours absolutely, stock's as it was given).
fumount() {
	local dir=$1 img
	img=$(realpath "$(findmnt -n -o SOURCE "$dir")")
	# a mount its last user has just left can be busy for a moment
	# (seen under load, the two suites at once): tried again for 5 s
	local gone=1
	for _ in $(seq 1 50); do
		umount "$dir" 2>"$TMPD/.fumount.err" && { gone=0; break; }
		grep -q busy "$TMPD/.fumount.err" || break
		sleep 0.1
	done
	if [ "$gone" -ne 0 ]; then
		cat "$TMPD/.fumount.err" >&2
		return 1
	fi
	for _ in $(seq 1 300); do
		img_held "$img" || return 0
		sleep 0.1
	done
	echo "fuse2fs on $img did not exit"
	return 1
}

# loop_mount OPTIONS IMAGE DIR: the kernel's ext4 on a loop device.
# mount -o loop takes the first free loop device; when another suite
# (CI runs two at once) takes the same one between mount's look and its
# use, mount says "already mounted or mount point busy" (seen once in CI
# on a fresh image): tried again for up to 5 s.  Errors in
# $TMPD/.kmount.err.
loop_mount() {
	for _ in $(seq 50); do
		mount -t ext4 -o "$1,loop" "$2" "$3" 2>"$TMPD/.kmount.err" &&
			return 0
		grep -q busy "$TMPD/.kmount.err" || return 1
		sleep 0.1
	done
	return 1
}

kmount() {
	mkdir -p "$2"
	loop_mount ro "$1" "$2" || {
		echo "kernel mount of $1 failed: $(head -n 1 "$TMPD/.kmount.err")"
		return 1
	}
	KMOUNTS+=("$2")
}

# A kernel mount just used may be busy for a moment (seen once in CI
# right after a cmp of a file in it): tried again for up to 5 s.
kumount() {
	for _ in $(seq 50); do
		umount "$1" 2>"$TMPD/.kumount.err" && return 0
		grep -q busy "$TMPD/.kumount.err" || break
		sleep 0.1
	done
	cat "$TMPD/.kumount.err" >&2
	return 1
}

manifest() {
	python3 "$MANIFEST" "$1"
}

same_tree() {
	if cmp -s "$2" "$3"; then
		echo "$1: tree as written"
	else
		echo "$1: tree differs"
		diff "$2" "$3" | head -n 10
	fi
}

setx() {	# setx FILE NAME VALUE
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())' "$@"
}

tree_ops() {
	local d=$1
	cp -a /usr/include "$d/inc" &&
	cp -a /usr/share/doc "$d/doc" &&
	mv "$d/inc/linux" "$d/linux" &&
	mv "$d/doc" "$d/inc/doc" &&
	rm -rf "$d/inc/doc/"[a-l]* &&
	find "$d/inc" -name '*.h' -path '*/sys/*' -delete &&
	mkdir -p "$d/deep/a/b/c/d" && rmdir "$d/deep/a/b/c/d" &&
	ln "$d/inc/stdio.h" "$d/hard-stdio.h" &&
	ln -s ../inc/stdlib.h "$d/deep/sym" &&
	ln -s "$(printf 'x%.0s' $(seq 1 200))" "$d/deep/longsym" &&
	chmod 600 "$d/inc/string.h" && chmod 2755 "$d/deep/a" &&
	truncate -s 1000 "$d/inc/stdio.h" &&
	truncate -s 5000000 "$d/inc/stdlib.h" &&
	setx "$d/inc/errno.h" user.note "lazy journaling" &&
	setx "$d/deep" user.big "$(printf 'v%.0s' $(seq 1 3000))" &&
	{ [ -f "$TMPD/.rand" ] || dd if=/dev/urandom of="$TMPD/.rand" bs=64k count=40 status=none; } &&
	cp "$TMPD/.rand" "$d/rand" &&
	python3 -c 'import os,sys; f=os.open(sys.argv[1], os.O_WRONLY|os.O_CREAT, 0o644); os.write(f, b"fsynced\n"*1000); os.fsync(f); os.close(f)' "$d/synced" &&
	rm -rf "$d/linux/netfilter"
}
