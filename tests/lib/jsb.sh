# shellcheck shell=bash
#
# jsb.sh --- the journal superblock and commit blocks: fields, checksums,
# rotating the log area.  Sourced by test_lib.sh.

# jsb_offset IMG: byte offset of the journal superblock (journal block 0)
jsb_offset() {
	local bs p
	bs=$(img_bs "$1")
	p=$(jblock_pblk "$1" 0)
	echo $((p * bs))
}

# jsb_get IMG FIELD: print a journal superblock field (decimal)
#   FIELD: maxlen first sequence start compat incompat
jsb_get() {
	lj_perl jsb_get "$1" "$(jsb_offset "$1")" "$2"
}

# jsb_set IMG FIELD=VALUE...: set journal superblock fields (also magic,
# blocksize; a value with a leading 0 is octal or 0x hex), fix checksum
jsb_set() {
	local img=$1
	shift
	lj_perl jsb_set "$img" "$(jsb_offset "$img")" "$@"
}

# jsb_csum_ok IMG: "ok" if the journal sb checksum (v2/v3) verifies or is
# not used, "bad" otherwise
jsb_csum_ok() {
	lj_perl jsb_csum_ok "$1" "$(jsb_offset "$1")"
}

# jrotate IMG SHIFT: rotate the log area (journal blocks s_first ..
# s_maxlen-1) forward by SHIFT blocks and move s_start with it, so that a
# log written from s_first now wraps past the end of the journal.  Block
# contents do not depend on their position, so the log stays valid.
jrotate() {
	lj_perl_journal "$1" jrotate "$1" "$2"
}

# commit_set_time IMG JBLOCK SECONDS: rewrite the commit time of the
# commit block at JBLOCK and recompute its checksum (v2/v3: crc32c over
# the block with the checksum field zeroed, seeded with crc32c(~0, uuid)).
commit_set_time() {
	local img=$1 jb=$2 sec=$3 bs p
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" "$jb")
	lj_perl commit_set_time "$img" "$bs" $((p * bs)) "$(jsb_offset "$img")" "$sec"
}
