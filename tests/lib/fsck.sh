# shellcheck shell=bash
#
# fsck.sh --- running e2fsck on lazy file systems (tests/f_*): its
# output made deterministic, the lazy state as stock dumpe2fs shows it.
# Sourced by test_lib.sh.

# lazy_status IMG: journal start, needs_recovery and lazy_journal, as
# stock dumpe2fs shows them ("Journal start: N", FEATURE_C13)
lazy_status() {
	local h s nr lz
	h=$("$STOCK_DUMPE2FS" -h "$1" 2>/dev/null)
	s=$(awk '/^Journal start:/ {print $3}' <<<"$h")
	nr=no
	lz=no
	grep '^Filesystem features:' <<<"$h" | grep -qw needs_recovery && nr=yes
	grep '^Filesystem features:' <<<"$h" | grep -qw FEATURE_C13 && lz=yes
	echo "journal start ${s:-?}, needs_recovery $nr, lazy_journal $lz"
}

# mask_save: the file system UUID in the name of e2fsck's raw journal
# save (e2fsck-lazy-DEV-UUID[-N].journal) shown as UUID
mask_save() {
	sed -E 's/-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}(-[0-9]+)?\.journal/-UUID\2.journal/g'
}

# run_fsck IMG OUTFILE CMD...: run an e2fsck command line with IMG as its
# last argument; OUTFILE gets stdout+stderr with the version banner
# dropped and IMG's path replaced by "IMG"; prints "exit N"
run_fsck() {
	local img=$1 out=$2 rc
	shift 2
	"$@" "$img" >"$out.raw" 2>&1
	rc=$?
	grep -vE '^e2fsck [0-9]+\.[0-9]+' "$out.raw" | sed "s|$img|IMG|g" \
		| mask_save >"$out"
	rm -f "$out.raw"
	echo "exit $rc"
}

# stock_accepts LABEL IMG: stock e2fsck -fn on IMG as it is (no flag hidden,
# on a copy): the way out (e2fsck -E journal_only, tune2fs -O ^lazy_journal)
# must leave what every stock e2fsck accepts (doc/contract.md §7.3)
stock_accepts() {
	local rc
	cp --sparse=always "$2" "$TMPD/.A.img"
	"$STOCK_E2FSCK" -fn "$TMPD/.A.img" >"$TMPD/.accepts.out" 2>&1
	rc=$?
	echo "$1: stock e2fsck -fn (as is): exit $rc"
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.accepts.out" | head -n 5
	rm -f "$TMPD/.A.img"
}
