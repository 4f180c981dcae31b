# shellcheck shell=bash
#
# writer.sh --- the lazy writer, cleaner and compaction (tests/w_cleaner_*,
# w_compact_*, c_crash_*): images for it, and the log it leaves judged by
# stock e2fsprogs.  Sourced by test_lib.sh.

# logdump_clean LABEL IMG: stock `logdump` reads our log to its ordinary
# end (no checksum or format complaints); one line
logdump_clean() {
	local out
	out=$("$STOCK_DEBUGFS" -R "logdump" "$2" 2>&1)
	if printf '%s\n' "$out" | grep -qiE 'error|bad|invalid|corrupt|unexpected|checksum'; then
		echo "$1: stock logdump COMPLAINS:"
		printf '%s\n' "$out" | grep -iE 'error|bad|invalid|corrupt|unexpected|checksum' | head -n 3
	else
		echo "$1: stock logdump: $(printf '%s\n' "$out" | grep -c 'commit block') commit blocks, $(printf '%s\n' "$out" | tail -n 1 | sed 's/ at block [0-9]*//')"
	fi
}

# w_mkimg IMG SIZE_MB BS FEATURES JOURNAL_MB "JO_ARGS": a lazy image whose
# journal format is set by one stock transaction (`jo JO_ARGS`, logging
# the first free block of group 0 with mkdata content); the log then
# continues with whatever our writer appends
w_mkimg() {
	local img=$1 size=$2 bs=$3 feat=$4 jmb=$5 jo=$6 b
	mkimg "$img" "$size" "$bs" "$feat" "$jmb" || return 1
	b=$("$STOCK_DUMPE2FS" "$img" 2>/dev/null \
		| awk '/^  Free blocks: [0-9]/ {split($3, a, "-"); print a[1]; exit}')
	[ -n "$b" ] || { echo "w_mkimg: no free block"; return 1; }
	write_txns "$img" "$jo" "$b/" || return 1
	set_lazy "$img"
}

# w_stock_replayed IMG OUT: OUT = IMG with lazy_journal cleared, replayed
# by stock `e2fsck -E journal_only -y`; returns its exit status
w_stock_replayed() {
	stock_copy "$1" "$2"
	"$STOCK_E2FSCK" -E journal_only -y "$2" >/dev/null 2>&1
}

# w_migrated IMG OUT: OUT = IMG migrated by our `e2fsck -E journal_only
# -y`; returns its exit status
w_migrated() {
	cp --sparse=always "$1" "$2"
	"$OUR_E2FSCK" -E journal_only -y "$2" >/dev/null 2>&1
}

# w_match IMG NAME=REF...: compare IMG with each reference outside the
# journal (the journal blocks of IMG, block size from IMG; superblocks with
# the bookkeeping fields masked as cmp_outside_journal masks them) in one
# pass; prints the NAME of the first identical reference, or "NONE" and
# the first blocks differing from the first reference.  With W_CACHE set
# to a file name, the block size and journal block list of the first call
# are kept there and reused (for loops over copies of one image).
w_match() {
	local img=$1 bs jp=$TMPD/.w_jp
	shift
	if [ -n "${W_CACHE:-}" ] && [ -s "$W_CACHE" ]; then
		bs=$(head -n 1 "$W_CACHE")
		tail -n +2 "$W_CACHE" >"$jp"
	else
		bs=$(img_bs "$img")
		journal_pblocks "$img" >"$jp"
		[ -n "${W_CACHE:-}" ] && { echo "$bs"; cat "$jp"; } >"$W_CACHE"
	fi
	lj_perl w_match "$bs" "$jp" "$img" "$@"
}

# w_replay_checks LABEL IMG: the log our writer left, judged by stock
# e2fsprogs: logdump reads it cleanly, our jmap equals the map derived
# from logdump, stock replay = lj_apply = our migration (outside the
# journal), and stock `e2fsck -fn` finds the replayed copy clean.  Leaves
# $TMPD/.w_stock.img (the stock replay).
w_replay_checks() {
	local l=$1 img=$2 rc
	logdump_clean "$l" "$img"
	check_jmap "$l" "$img"
	check_replay "$l" "$img"
	w_stock_replayed "$img" "$TMPD/.w_stock.img"
	rc=$?
	w_migrated "$img" "$TMPD/.w_ours.img"
	echo "$l: stock replay exit $rc; our migration vs stock replay: $(cmp_outside_journal "$TMPD/.w_ours.img" "$TMPD/.w_stock.img")"
	"$STOCK_E2FSCK" -fn "$TMPD/.w_stock.img" >"$TMPD/.w_fsck.out" 2>&1
	echo "$l: stock e2fsck -fn after stock replay: exit $?"
	rm -f "$TMPD/.w_ours.img"
}
