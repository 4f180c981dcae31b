#!/bin/bash
# demo.sh --- the main job on a default image: a small ext4 file system whose
# newest metadata lives only in its journal, inspected through the jmap.
#
#   tests/demo.sh [IMAGE]      (default: a temporary image, removed after)
#
# How the image is made: stock debugfs runs "mkdir" and "write" on a copy;
# the metadata blocks that changed are then logged into the original's
# journal with stock debugfs (jo/jw/jc), so the home copies stay stale and
# the journal needs recovery -- what a crash, or a lazy-journaling kernel,
# leaves behind.  Then the lazy_journal flag is set.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sbin=${E2FSPROGS_SBIN:-/usr/sbin}
ours=$top/debugfs/debugfs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
img=${1:-$tmp/demo.img}

rm -f "$img"
truncate -s 256M "$img"
"$sbin/mke2fs" -q -F -t ext4 -b 4096 -E lazy_itable_init=1,nodiscard "$img"
cp "$img" "$tmp/after.img"
seq 1 20000 > "$tmp/numbers"
"$sbin/debugfs" -w -f - "$tmp/after.img" >/dev/null 2>&1 <<CMDS
mkdir projects
mkdir projects/ext4-lazy
write $tmp/numbers projects/ext4-lazy/numbers.txt
CMDS

# Blocks that mkdir/write changed outside the journal and the new file's data.
jblocks=$("$sbin/debugfs" -R "blocks <8>" "$img" 2>/dev/null)
changed=$(cmp -l "$img" "$tmp/after.img" | awk '{ print int(($1 - 1) / 4096) }' |
	  uniq | grep -vxF -f <(tr ' ' '\n' <<<"$jblocks" | grep .) | paste -sd, -)
# jw takes the content of the k-th listed block from the k-th block of FILE.
for b in ${changed//,/ }; do
	dd if="$tmp/after.img" bs=4096 skip="$b" count=1 2>/dev/null
done > "$tmp/blocks"
"$sbin/debugfs" -w -f - "$img" >/dev/null 2>&1 <<CMDS
jo
jw -b $changed $tmp/blocks
jc
CMDS
# Set lazy_journal (COMPAT 0x2000); s_feature_compat is at byte 0x5C of
# the superblock, which starts at byte 1024.
compat=$(od -An -tu4 -j $((1024 + 0x5C)) -N4 "$img" | tr -d ' ')
"$sbin/debugfs" -w -R "ssv feature_compat $((compat | 0x2000))" "$img" >/dev/null 2>&1

echo "== $img: metadata changed by mkdir/write is only in the journal"
echo "== debugfs -R \"jmap -s\""
"$ours" -R "jmap -s" "$img"
first=$("$sbin/debugfs" -R "bmap /projects/ext4-lazy/numbers.txt 0" "$tmp/after.img" 2>/dev/null)
echo "== debugfs -R \"jlookup $first 0 $((first + 1000))\""
"$ours" -R "jlookup $first 0 $((first + 1000))" "$img"
echo "== debugfs -R \"ls -l /projects/ext4-lazy\"   (through the jmap)"
"$ours" -R "ls -l /projects/ext4-lazy" "$img"
echo "== stock debugfs -R \"ls -l /projects/ext4-lazy\"   (home copies only)"
"$sbin/debugfs" -R "ls -l /projects/ext4-lazy" "$img" || true
