# shellcheck shell=bash
#
# replay.sh --- stock e2fsck replay as referee: replayed copies compared
# outside the journal with what lj_apply makes.  Sourced by test_lib.sh.

# cmp_outside_journal A B: compare two images block by block, skipping the
# journal inode blocks; the block holding the primary superblock is
# compared raw outside the 1024-byte superblock and through sb_norm inside.
# Prints "identical outside the journal" or the differing blocks.
cmp_outside_journal() {
	local a=$1 b=$2
	if [ "$(sb_norm "$a")" != "$(sb_norm "$b")" ]; then
		echo "superblock differs (bookkeeping fields masked)"
		return 1
	fi
	# Backup superblocks (magic at 0x38, s_block_group_nr > 0) are
	# compared with the same bookkeeping fields masked as the primary.
	lj_perl_journal "$a" cmp_outside_journal "$a" "$b"
}

# stock_replay IMG: replay the journal with stock e2fsck (journal only);
# prints nothing, returns e2fsck's exit status
stock_replay() {
	"$STOCK_E2FSCK" -E journal_only -y "$1" >"$TMPD/.e2fsck.out" 2>&1
}

# stock_copy IMG OUT: OUT = IMG with lazy_journal cleared (what stock
# e2fsck accepts)
stock_copy() {
	cp --sparse=always "$1" "$2"
	clear_compat_bits "$2" 0x2000
}

# replay_verdict LABEL IMG REFEREE WHAT: copy A <- stock e2fsck replay of
# REFEREE (lazy flag cleared first: stock e2fsck refuses the unknown COMPAT
# bit), copy B <- lj_apply on IMG; compare outside the journal.
replay_verdict() {
	local label=$1 img=$2 ref=$3 what=$4 rc v
	cp --sparse=always "$ref" "$TMPD/.A.img"
	cp --sparse=always "$img" "$TMPD/.B.img"
	clear_compat_bits "$TMPD/.A.img" 0x2000
	stock_replay "$TMPD/.A.img"
	rc=$?
	if ! "$LJ_APPLY" "$TMPD/.B.img" >"$TMPD/.lj_apply.out" 2>&1; then
		echo "$label: replay: lj_apply failed: $(head -n 1 "$TMPD/.lj_apply.out")"
		return 1
	fi
	v=$(cmp_outside_journal "$TMPD/.A.img" "$TMPD/.B.img")
	echo "$label: replay: $what exit $rc, lj_apply vs stock: $v"
}

# check_replay LABEL IMG: oracle (b), stock replay of IMG itself.
check_replay() {
	replay_verdict "$1" "$2" "$2" "stock e2fsck"
}

# check_migration LABEL IMG: our migration judged by stock replay, as
# tests/f_migrate does: our e2fsck -E journal_only -y on one copy of IMG,
# stock e2fsck -fy on another with lazy_journal cleared (stock refuses
# the bit); then our e2fsck -fy on a third copy.  Stock's -fy replays the
# log and stops (exit 12) when the replayed superblock brings the bit
# back (the kernel journals it with the bit); the bit is cleared again
# and a second stock -fy runs the full check.  Each of ours is compared
# with stock's outside the journal (superblock bookkeeping masked:
# sb_norm); the lines give the exit statuses and the lazy state ours
# leaves.
check_migration() {
	local label=$1 img=$2 rs rc ro opt
	stock_copy "$img" "$TMPD/.mstock.img"
	"$STOCK_E2FSCK" -fy "$TMPD/.mstock.img" >"$TMPD/.mstock.out" 2>&1
	rs=$?
	clear_compat_bits "$TMPD/.mstock.img" 0x2000
	"$STOCK_E2FSCK" -fy "$TMPD/.mstock.img" >"$TMPD/.mstock.out" 2>&1
	rc=$?
	echo "$label: migration: stock -fy: replay exit $rs, then the check exit $rc ($(lazy_status "$TMPD/.mstock.img"))"
	for opt in "-E journal_only -y" -fy; do
		cp --sparse=always "$img" "$TMPD/.mours.img"
		# shellcheck disable=SC2086  # opt is two or one options
		"$OUR_E2FSCK" $opt "$TMPD/.mours.img" >"$TMPD/.mours.out" 2>&1
		ro=$?
		echo "$label: migration: ours $opt exit $ro ($(lazy_status "$TMPD/.mours.img")), vs stock -fy: $(cmp_outside_journal "$TMPD/.mours.img" "$TMPD/.mstock.img")"
	done
}

# cut_log_copy IMG OUT JBLOCK: OUT = IMG with journal block JBLOCK zeroed,
# i.e. the log ends there.  Stock replay of OUT is the hand-made referee
# for scenarios where the lazy salvage rule keeps what precedes a bad block.
cut_log_copy() {
	local img=$1 out=$2 jb=$3 bs p
	cp --sparse=always "$img" "$out"
	bs=$(img_bs "$out")
	p=$(jblock_pblk "$out" "$jb")
	dd if=/dev/zero of="$out" bs="$bs" seek="$p" count=1 conv=notrunc status=none
}

# check_replay_vs LABEL IMG REFEREE: lj_apply on IMG against stock replay
# of the REFEREE image (see cut_log_copy)
check_replay_vs() {
	replay_verdict "$1" "$2" "$3" "stock e2fsck (cut log)"
}

# stock_replay_msg IMG: stock e2fsck's replay messages for a copy of IMG
# (the image name and version banner removed)
stock_replay_msg() {
	cp --sparse=always "$1" "$TMPD/.M.img"
	clear_compat_bits "$TMPD/.M.img" 0x2000
	stock_replay "$TMPD/.M.img"
	echo "stock e2fsck exit $?"
	grep -vE '^e2fsck [0-9]|recovering journal$' "$TMPD/.e2fsck.out" \
		| sed "s|$TMPD/.M.img|IMG|g"
}

# fsck_clean_n LABEL IMG: stock `e2fsck -fn` on a copy with lazy_journal
# cleared; one line
fsck_clean_n() {
	local rc
	stock_copy "$2" "$TMPD/.N.img"
	"$STOCK_E2FSCK" -fn "$TMPD/.N.img" >"$TMPD/.fsckn.out" 2>&1
	rc=$?
	echo "$1: stock e2fsck -fn (flag hidden): exit $rc"
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.fsckn.out" | head -n 5
}
