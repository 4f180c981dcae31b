# shellcheck shell=bash
#
# sb.sh --- the file-system superblock: feature bits (through stock
# debugfs), fields, checksums, the bookkeeping-masked form.
# Sourced by test_lib.sh.

# set_compat_bits IMG MASK / clear_compat_bits IMG MASK: change
# s_feature_compat with stock debugfs (which recomputes the superblock
# checksum when it writes it back).
set_compat_bits() {
	local img=$1 mask=$2 cur
	cur=$(sb_field "$img" 0x5C)
	"$STOCK_DEBUGFS" -w -R "ssv feature_compat $((cur | mask))" "$img" \
		>/dev/null 2>&1
}

clear_compat_bits() {
	local img=$1 mask=$2 cur
	cur=$(sb_field "$img" 0x5C)
	"$STOCK_DEBUGFS" -w -R "ssv feature_compat $((cur & ~mask))" "$img" \
		>/dev/null 2>&1
}

# set_lazy IMG: set the lazy_journal COMPAT bit (0x2000) in the home sb
set_lazy() {
	set_compat_bits "$1" 0x2000
}

# sb_field IMG OFFSET: the le32 at OFFSET of the primary superblock
sb_field() {
	lj_perl sb_field "$1" "$(($2))"
}

# sb_csum_ok IMG: verify the crc32c (inverted, over the first 1020 bytes,
# little-endian) of the primary superblock and of every backup that stock
# dumpe2fs lists.  Prints "ok (primary + N backups)" only when every copy
# was checked and verifies; "bad (...)" naming the failing copies; "not
# checked (no metadata_csum)" when there is no checksum to check.
sb_csum_ok() {
	local backups
	backups=$("$STOCK_DUMPE2FS" "$1" 2>/dev/null \
		| sed -n 's/.*Backup superblock at \([0-9]*\),.*/\1/p' | paste -sd, -)
	lj_perl sb_csum_ok "$1" "$backups"
}

# sbcopy_flags FILE OFFSET: in a file holding a copy of the primary
# superblock at byte OFFSET, set lazy_journal (COMPAT 0x2000) and
# needs_recovery (INCOMPAT 0x4), as in the superblock the kernel journals
# on a mounted lazy file system; s_checksum fixed under metadata_csum
sbcopy_flags() {
	lj_perl sbcopy_flags "$1" "$2"
}

# sb_norm IMG: hex of the primary superblock (1024 bytes) with the fields
# that replay bookkeeping legitimately changes masked:
#   s_mtime s_wtime s_mnt_count s_state s_lastcheck (+ their _hi bytes),
#   needs_recovery (INCOMPAT 0x4), lazy_journal (COMPAT 0x2000),
#   s_kbytes_written, s_checksum (LJ::norm).
sb_norm() {
	lj_perl sb_norm "$1"
}
