# shellcheck shell=bash
#
# blocks.sh --- raw block access: reading, writing and corrupting bytes of
# an image and of its journal blocks.  Sourced by test_lib.sh.

# read_blk IMG BLK BS > file
read_blk() {
	dd if="$1" bs="$3" skip="$2" count=1 status=none
}

# write_blk IMG BLK BS < file
write_blk() {
	dd of="$1" bs="$3" seek="$2" count=1 conv=notrunc status=none
}

# poke IMG BYTE_OFFSET HEXBYTES: overwrite bytes at an absolute offset
poke() {
	lj_perl poke "$1" "$2" "$3"
}

# flip_byte IMG BYTE_OFFSET: xor one byte with 0xff
flip_byte() {
	lj_perl flip_byte "$1" "$2"
}

# corrupt_jblock IMG JBLOCK OFFSET: flip the byte at OFFSET in journal
# block JBLOCK (found through stock bmap <8>).
corrupt_jblock() {
	local img=$1 jb=$2 off=$3 bs p
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" "$jb")
	flip_byte "$img" $((p * bs + off))
}

# jarea_perl IMG CODE: run perl CODE with the journal of IMG at hand:
#   $bs, @p (fs block of each journal block), $fh (IMG, read-write),
#   jrd($k) / jwr($k, $data) read / write journal block $k, and
#   jfix($k) recomputes the checksum of journal block $k after an edit
#   (journal sb, descriptor/revoke tail or commit block; v2/v3 only),
#   plus the shared subs of LJ.pm (crc32c, rd, wr, jsb_fix_csum).
jarea_perl() {
	lj_perl_journal "$1" jarea "$1" "$2"
}

# jblock_poke IMG JBLOCK OFFSET HEX: overwrite bytes of journal block
# JBLOCK and recompute its checksum (so the edit is not a checksum error)
jblock_poke() {
	# shellcheck disable=SC2016  # perl code
	jarea_perl "$1" 'my $b = jrd('"$2"'); substr($b, '"$3"', length(pack("H*", "'"$4"'"))) = pack("H*", "'"$4"'"); jwr('"$2"', $b); jfix('"$2"');'
}
