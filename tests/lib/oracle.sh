# shellcheck shell=bash
#
# oracle.sh --- our jmap, log end and jlookup against the oracle derived
# from stock `logdump -a` (oracle_jmap.awk), and that oracle validated
# against stock replay.  Sourced by test_lib.sh.

# oracle_jmap IMG: expected jmap rows "home jblock tid" (sorted by home)
# from stock `logdump -a` and the jbd2 replay rule.
oracle_jmap() {
	"$STOCK_DEBUGFS" -R "logdump -a" "$1" 2>/dev/null \
		| awk -f "$ORACLE_AWK" | sort -n -k1,1
}

# oracle_end IMG: the oracle's view of where the log ends (one line)
oracle_end() {
	"$STOCK_DEBUGFS" -R "logdump -a" "$1" 2>/dev/null \
		| awk -v mode=end -f "$ORACLE_AWK"
}

# our_jmap IMG: the rows of our `debugfs -R jmap` (lines starting with a
# decimal number), columns 1-3
our_jmap() {
	"$OUR_DEBUGFS" -R "jmap" "$1" 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $1, $2, $3}'
}

# check_jmap LABEL IMG [empty]: compare our jmap with the logdump oracle;
# prints one deterministic line (and the first differences on a mismatch).
# Both sides empty proves nothing (a broken oracle and a broken scanner
# agree on nothing): it fails unless the caller passes "empty", stating
# that this log maps no block; "empty" with entries fails too.
check_jmap() {
	local label=$1 img=$2 want_empty=${3:-} n
	local before after
	oracle_jmap "$img" >"$TMPD/.jmap.want"
	before=$(sha256sum <"$img")
	our_jmap "$img" >"$TMPD/.jmap.got"
	after=$(sha256sum <"$img")
	[ "$before" = "$after" ] || echo "$label: IMAGE MODIFIED by our debugfs jmap"
	n=$(wc -l <"$TMPD/.jmap.want")
	if ! cmp -s "$TMPD/.jmap.want" "$TMPD/.jmap.got"; then
		echo "$label: jmap MISMATCH (oracle $n entries, ours $(wc -l <"$TMPD/.jmap.got"))"
		diff "$TMPD/.jmap.want" "$TMPD/.jmap.got" | head -n 10
		return 1
	elif [ "$n" -eq 0 ] && [ "$want_empty" != empty ]; then
		echo "$label: jmap EMPTY on both sides (oracle and ours): nothing was compared"
		return 1
	elif [ "$n" -ne 0 ] && [ "$want_empty" = empty ]; then
		echo "$label: jmap matches logdump oracle ($n entries) but the test expects an empty map"
		return 1
	fi
	echo "$label: jmap matches logdump oracle ($n entries)"
}

# check_jmap_rows LABEL IMG EXPECTED_FILE: compare our jmap with rows
# derived by hand (scenarios logdump cannot judge: checksum failures)
check_jmap_rows() {
	local label=$1 img=$2 want=$3 n
	our_jmap "$img" >"$TMPD/.jmap.got"
	n=$(wc -l <"$want")
	if cmp -s "$want" "$TMPD/.jmap.got"; then
		echo "$label: jmap matches expected rows ($n entries)"
	else
		echo "$label: jmap MISMATCH (expected $n entries, ours $(wc -l <"$TMPD/.jmap.got"))"
		diff "$want" "$TMPD/.jmap.got" | head -n 10
	fi
}

# check_log_end LABEL IMG: where our `jmap -s` says the log ends
check_log_end() {
	local label=$1 img=$2 l
	# accepted: "Log ends at journal block N: why" (the agreed wording),
	# "Log end: ... end of log at journal block N: why" and
	# "Log end: journal block N (why)"; only the block number is compared
	l=$("$OUR_DEBUGFS" -R "jmap -s" "$img" 2>&1 \
		| grep -oiE '(^Log ends at|end of log at|^Log end: *) ?journal block [0-9]+' \
		| head -n 1 | grep -oE '[0-9]+$')
	if [ -n "$l" ]; then
		echo "$label: jmap -s: Log ends at journal block $l"
	else
		echo "$label: jmap -s: no early end reported"
	fi
}

# check_jlookup LABEL IMG BLOCK...: our `jlookup` against the oracle:
#   "block B: journal block J (fs block P), transaction T" or "block B: home"
check_jlookup() {
	local label=$1 img=$2 b row j t p want got
	shift 2
	oracle_jmap "$img" >"$TMPD/.jmap.want"
	for b in "$@"; do
		row=$(awk -v b="$b" '$1 == b' "$TMPD/.jmap.want")
		if [ -n "$row" ]; then
			read -r _ j t <<<"$row"
			p=$(jblock_pblk "$img" "$j")
			want="block $b: journal block $j (fs block $p), transaction $t"
		else
			want="block $b: home"
		fi
		got=$("$OUR_DEBUGFS" -R "jlookup $b" "$img" 2>&1 | grep -E "^block $b:")
		if [ "$got" = "$want" ]; then
			echo "$label: jlookup $b ok (${want#block "$b": })"
		else
			echo "$label: jlookup $b MISMATCH: want '$want', got '$got'"
		fi
	done
}

# oracle_apply IMG: write the oracle's jmap home with dd (restoring the
# jbd2 magic of escaped blocks).  Used to validate the oracle itself
# against stock replay, independently of our library.
oracle_apply() {
	local img=$1 bs h j t f p
	bs=$(img_bs "$img")
	"$STOCK_DEBUGFS" -R "logdump -a" "$img" 2>/dev/null \
		| awk -v mode=flags -f "$ORACLE_AWK" | sort -n -k1,1 \
		>"$TMPD/.oracle.flags"
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	while read -r h j t f; do
		: "$t"
		p=$(sed -n "$((j + 1))p" "$TMPD/.jpblocks")
		read_blk "$img" "$p" "$bs" >"$TMPD/.blk"
		if [ $((f & 1)) -ne 0 ]; then
			poke "$TMPD/.blk" 0 c03b3998
		fi
		write_blk "$img" "$h" "$bs" <"$TMPD/.blk"
	done <"$TMPD/.oracle.flags"
}

# check_oracle_replay LABEL IMG: validate oracle (a) against stock replay
check_oracle_replay() {
	local label=$1 img=$2 rc v
	cp --sparse=always "$img" "$TMPD/.A.img"
	cp --sparse=always "$img" "$TMPD/.C.img"
	clear_compat_bits "$TMPD/.A.img" 0x2000
	stock_replay "$TMPD/.A.img"
	rc=$?
	oracle_apply "$TMPD/.C.img"
	v=$(cmp_outside_journal "$TMPD/.A.img" "$TMPD/.C.img")
	echo "$label: oracle self-check: stock e2fsck exit $rc, oracle vs stock: $v"
}

# scenario_checks LABEL IMG: the standard set (oracle self-check against
# stock replay, our jmap against the oracle, lj_apply against stock replay)
scenario_checks() {
	check_oracle_replay "$1" "$2"
	check_jmap "$1" "$2"
	check_replay "$1" "$2"
}
