# shellcheck shell=bash
#
# home.sh --- debugfs -w on a lazy file system (tests/w_debugfs_*): which
# blocks changed at home, and the view through the jmap against stock on a
# replayed copy.  Sourced by test_lib.sh.

# lazy_home_diff BEFORE AFTER: blocks outside the journal (of BEFORE)
# whose bytes differ between the two images, one per line, ascending.
# The block holding the primary superblock is listed as "sb:nr" when only
# needs_recovery (INCOMPAT 0x4) and the superblock checksum differ (what
# the writer sets before the first transaction, doc/contract.md §3), else by
# its number like any other block.
lazy_home_diff() {
	lj_perl_journal "$1" lazy_home_diff "$1" "$2"
}

# data_blocks IMG PATH...: the data blocks (not indirect or extent-tree
# blocks) of each file, one per line, from stock debugfs `stat` on IMG
# (a replayed copy: stock debugfs reads home copies).
data_blocks() {
	local img=$1 p
	shift
	for p in "$@"; do
		"$STOCK_DEBUGFS" -R "stat $p" "$img" 2>/dev/null \
			| sed -n '/^\(BLOCKS\|EXTENTS\):/,$p' | tr ', ' '\n\n' \
			| grep -E '^\([0-9]+(-[0-9]+)?\):[0-9]+(-[0-9]+)?$' \
			| sed 's/^.*://' | awk -F- '{
				e = ($2 == "") ? $1 : $2;
				for (b = $1; b <= e; b++) print b }'
	done | sort -n -u
}

# check_home_untouched LABEL BEFORE AFTER REPLAYED PATH...: the blocks
# that changed at home between BEFORE and AFTER (a lazy image changed by
# our debugfs -w) must be data blocks of the files PATH... (data goes
# home; REPLAYED is a stock-replayed copy to find them), plus the
# superblock's needs_recovery bit.  HOME_EXTRA_BLOCKS may name a file of
# more allowed data blocks (of files removed since).  One line verdict.
check_home_untouched() {
	local label=$1 before=$2 after=$3 rep=$4 n m bad
	shift 4
	lazy_home_diff "$before" "$after" >"$TMPD/.home.changed"
	{ data_blocks "$rep" "$@"; cat "${HOME_EXTRA_BLOCKS:-/dev/null}"; } \
		| sort -n -u >"$TMPD/.home.data"
	bad=$(grep -vx 'sb:nr' "$TMPD/.home.changed" | grep -vxFf "$TMPD/.home.data")
	n=$(grep -cvx 'sb:nr' "$TMPD/.home.changed")
	m=$(wc -l <"$TMPD/.home.data")
	if [ -z "$bad" ]; then
		echo "$label: home copies of metadata untouched ($n changed blocks at home, all among the $m data blocks written$(grep -qx 'sb:nr' "$TMPD/.home.changed" && echo '; superblock: needs_recovery only'))"
	else
		echo "$label: METADATA WRITTEN HOME: $(echo "$bad" | head -n 10 | paste -sd' ')"
	fi
}

# same_view LABEL LAZY_IMG REPLAYED_IMG REQUEST...: each request through
# our debugfs on the lazy image and through stock debugfs on the
# replayed copy; one line per request, "same" or the first differences.
same_view() {
	local label=$1 lazy=$2 rep=$3 r
	shift 3
	for r in "$@"; do
		"$OUR_DEBUGFS" -R "$r" "$lazy" >"$TMPD/.v1" 2>&1
		"$STOCK_DEBUGFS" -R "$r" "$rep" >"$TMPD/.v2" 2>&1
		if cmp -s "$TMPD/.v1" "$TMPD/.v2"; then
			echo "$label: $r: ours through the jmap = stock after replay"
		else
			echo "$label: $r: VIEWS DIFFER"
			diff "$TMPD/.v1" "$TMPD/.v2" | head -n 6
		fi
	done
}

# home_changes_are_data BEFORE AFTER REPLAYED: the blocks outside the
# journal that changed at home between BEFORE and AFTER, judged on
# REPLAYED (a stock-replayed copy) by stock debugfs: each must be a data
# block of the regular file that owns it (icheck, ncheck, stat's extent
# list), or owned by nothing and free (data of a file removed since).  One line:
# how many changed, how many were metadata.
home_changes_are_data() {
	local before=$1 after=$2 rep=$3 b ino path n=0 meta=0
	journal_pblocks "$after" >"$TMPD/.jblocks"
	for b in $(cmp -l "$before" "$after" | awk -v bs="$(img_bs "$after")" \
			'{ print int(($1 - 1) / bs) }' | uniq | grep -vxFf "$TMPD/.jblocks"); do
		[ "$b" = 0 ] && continue	# the superblock: needs_recovery
		n=$((n + 1))
		ino=$("$STOCK_DEBUGFS" -R "icheck $b" "$rep" 2>/dev/null |
			awk 'NR == 2 { print $2 }')
		case $ino in
		''|'<block')	# owned by no inode: must be free (inode tables
				# and bitmaps are owned by none, but in use)
			"$STOCK_DEBUGFS" -R "testb $b" "$rep" 2>/dev/null |
				grep -q 'not in use' || meta=$((meta + 1))
			continue ;;
		esac
		path=$("$STOCK_DEBUGFS" -R "ncheck $ino" "$rep" 2>/dev/null |
			awk 'NR == 2 { sub(/^\/+/, "/", $2); print $2 }')
		if [ -z "$path" ] || ! data_blocks "$rep" "$path" | grep -qx "$b"; then
			meta=$((meta + 1))
		fi
	done
	echo "home blocks changed outside the journal: $n, metadata among them: $meta"
}
