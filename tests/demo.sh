#!/bin/bash
# demo.sh --- the main job on a default image: a lazy_journal file system
# in use through the lazy mount, its metadata only in the journal.
#
#   tests/demo.sh [IMAGE]      (default: a temporary image, removed after)
#
# Our mke2fs -O lazy_journal makes a 1 GiB sparse image; our fuse2fs
# mounts it (our own FUSE server on the lazy channel) and a real tree is
# copied in; after umount, debugfs shows the map from home blocks to the
# journal; stock e2fsck replays a copy and stock fuse2fs sees the same
# tree there; our e2fsck -E journal_only migrates the log home, as before
# booting a kernel without lazy support.  Needs root and /dev/fuse.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
sbin=${E2FSPROGS_SBIN:-/usr/sbin}
stock_fuse2fs=$(command -v fuse2fs || echo /usr/bin/fuse2fs)
tree=${DEMO_TREE:-/usr/include/linux}
tmp=$(mktemp -d)
mnt=$tmp/mnt
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT
img=${1:-$tmp/demo.img}

if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "demo: the lazy mount needs root and /dev/fuse" >&2
	exit 1
fi
# umount returns before the daemon has written its last commit
wait_daemon() {
	while pgrep -f "fuse2fs $1 " >/dev/null; do sleep 0.1; done
}

echo "== mke2fs -O lazy_journal (1 GiB, sparse)"
rm -f "$img"
truncate -s 1G "$img"
"$build/misc/mke2fs" -F -t ext4 -O lazy_journal -E lazy_itable_init=1 "$img" |
	grep -i journal
echo "== fuse2fs $img $mnt; cp -a $tree; umount"
mkdir -p "$mnt"
"$build/fuse2fs/fuse2fs" "$img" "$mnt" -o commit=1 >/dev/null
cp -a "$tree" "$mnt/tree"
echo "$(find "$mnt/tree" | wc -l) entries, $(du -sh "$mnt/tree" | cut -f1) copied"
umount "$mnt"
wait_daemon "$img"
echo "== debugfs -R \"jmap -s\"   (the metadata lives in the journal)"
"$build/debugfs/debugfs" -R "jmap -s" "$img" 2>/dev/null
echo "== debugfs -R \"jlookup 0 1\"   (superblock, group descriptors)"
"$build/debugfs/debugfs" -R "jlookup 0 1" "$img" 2>/dev/null
echo "== stock debugfs -R \"ls /\"   (home copies only: the tree is not there)"
"$sbin/debugfs" -R "ls /" "$img" 2>/dev/null | tr -s ' ' | head -n 3

echo "== stock e2fsck replays a copy; stock fuse2fs -o ro on it"
cp --sparse=always "$img" "$tmp/replayed.img"
clear_lazy() {	# lazy_journal is COMPAT 0x2000 (byte 0x5C of the sb)
	local c
	c=$(od -An -tu4 -j $((1024 + 0x5C)) -N4 "$1" | tr -d ' ')
	"$sbin/debugfs" -w -R "ssv feature_compat $((c & ~0x2000))" "$1" \
		>/dev/null 2>&1
}
clear_lazy "$tmp/replayed.img"
"$sbin/e2fsck" -E journal_only -y "$tmp/replayed.img" >/dev/null 2>&1 || true
clear_lazy "$tmp/replayed.img"	# the logged superblock carries the flag
"$stock_fuse2fs" "$tmp/replayed.img" "$mnt" -o ro >/dev/null
if diff -r --no-dereference "$tree" "$mnt/tree" >/dev/null; then
	echo "stock replay holds the tree as copied"
else
	echo "stock replay DIFFERS from the tree" >&2
	exit 1
fi
umount "$mnt"
wait_daemon "$tmp/replayed.img"

echo "== e2fsck -E journal_only   (before booting a kernel without lazy support)"
"$build/e2fsck/e2fsck" -E journal_only -y "$img"
echo "== stock debugfs -R \"ls /\"   (the tree is home now)"
"$sbin/debugfs" -R "ls /" "$img" 2>/dev/null | tr -s ' ' | head -n 3
