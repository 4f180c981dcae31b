# tests/lib/dropped.sh --- sourced by test scripts (after test_lib.sh).
#
# logdump_dropped IMG TID: the transactions stock `debugfs -R "logdump -a"`
# shows from sequence TID on, one line each, in the words our e2fsck uses
# when it drops them from a salvaged log:
#   dropped transaction T (journal blocks F-L[, no commit block]): logged B...; revoked B...
# F is the first block logdump finds of T, L its commit block (or, without
# one, the last journal block logdump shows for T).
logdump_dropped() {
	"$STOCK_DEBUGFS" -R "logdump -a" "$1" 2>/dev/null | awk -v from="$2" '
	function flush() {
		if (tid == "" || tid + 0 < from + 0) return
		line = "dropped transaction " tid " (journal blocks " first "-" last
		if (!committed) line = line ", no commit block"
		line = line "):"
		if (logged != "") line = line " logged" logged
		if (logged != "" && revoked != "") line = line ";"
		if (revoked != "") line = line " revoked" revoked
		if (logged == "" && revoked == "") line = line " no blocks"
		print line
	}
	/^Found expected sequence/ {
		seq = $4; sub(/,$/, "", seq); blk = $NF
		if (seq != tid) { flush(); tid = seq; first = blk; logged = revoked = ""; committed = 0 }
		last = blk
		if ($0 ~ /commit block/) committed = 1
		next
	}
	/^  FS block [0-9]+ logged at journal block/ { logged = logged " " $3; last = $8; next }
	/^  Revoke FS block/ { revoked = revoked " " $4; next }
	END { flush() }'
}

# our_dropped OUT: our e2fsck'"'"'s dropped-transaction lines in OUT, device
# name removed
our_dropped() {
	sed -n 's/^[^ ]*: \(dropped transaction .*\)$/\1/p' "$1"
}

# check_dropped LABEL OUT IMG TID: our dropped-transaction lines in OUT
# against stock logdump of IMG from sequence TID on (IMG as before the run)
check_dropped() {
	logdump_dropped "$3" "$4" >"$TMPD/.dropped.stock"
	our_dropped "$2" >"$TMPD/.dropped.ours"
	if [ -s "$TMPD/.dropped.stock" ] &&
	   cmp -s "$TMPD/.dropped.stock" "$TMPD/.dropped.ours"; then
		echo "$1: dropped transactions (tid, blocks) as stock logdump -a lists them: $(wc -l <"$TMPD/.dropped.stock") transactions"
	else
		echo "$1: dropped transactions DIFFER from stock logdump -a:"
		diff "$TMPD/.dropped.stock" "$TMPD/.dropped.ours" | sed 's/^/    /'
	fi
	rm -f "$TMPD/.dropped.stock" "$TMPD/.dropped.ours"
}
