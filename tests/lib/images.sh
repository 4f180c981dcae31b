# shellcheck shell=bash
#
# images.sh --- small sparse images made by stock mke2fs, their geometry
# (block size, journal blocks) and deterministic block contents.
# Sourced by test_lib.sh.

# mkimg IMG SIZE_MB BLOCKSIZE FEATURES [JOURNAL_MB]
#   FEATURES is a mke2fs -O list, e.g. "64bit,metadata_csum" or
#   "^64bit,^metadata_csum".  The image is sparse.  MKIMG_OPTS: more
#   mke2fs options (a word list, e.g. "-I 128").
mkimg() {
	local img=$1 size=$2 bs=$3 feat=$4 jsize=${5:-}
	local jopt=() more=()
	[ -n "$jsize" ] && jopt=(-J "size=$jsize")
	read -r -a more <<<"${MKIMG_OPTS:-}"
	rm -f "$img"
	truncate -s "${size}M" "$img"
	"$STOCK_MKE2FS" -q -F -t ext4 -b "$bs" -O "$feat" "${jopt[@]}" "${more[@]}" \
		-E lazy_itable_init=1,nodiscard \
		"$img" >/dev/null 2>&1 \
		|| { echo "mkimg: mke2fs failed for $feat bs=$bs"; return 1; }
}

# img_bs IMG: file system block size
img_bs() {
	"$STOCK_DUMPE2FS" -h "$1" 2>/dev/null | awk '/^Block size:/ {print $3}'
}

# jblock_pblk IMG JBLOCK: file-system block holding journal block JBLOCK
jblock_pblk() {
	"$STOCK_DEBUGFS" -R "bmap <8> $2" "$1" 2>/dev/null | tail -n 1
}

# journal_pblocks IMG: every fs block of the journal inode, in order
journal_pblocks() {
	# `stat <8>` names logical ranges; `blocks <8>` would also list the
	# indirect blocks of an ext3 journal and shift every later entry.
	"$STOCK_DEBUGFS" -R "stat <8>" "$1" 2>/dev/null | lj_perl journal_pblocks
}

# journal_features IMG: the "Journal features:" line of stock dumpe2fs
journal_features() {
	"$STOCK_DUMPE2FS" -h "$1" 2>/dev/null | grep '^Journal features:' \
		| sed 's/  */ /g'
}

# mkdata FILE NBLOCKS BS TAG: NBLOCKS blocks of deterministic content,
# block i starts with "TAG/i" and is filled with a pattern derived from it.
mkdata() {
	lj_perl mkdata "$2" "$3" "$4" >"$1"
}

# mkdata_magic FILE BS: one block that starts with the jbd2 magic
# (big-endian 0xC03B3998), so stock jw stores it escaped.
mkdata_magic() {
	lj_perl mkdata_magic "$2" >"$1"
}
