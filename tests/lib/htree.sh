# shellcheck shell=bash
# tests/lib/htree.sh --- what stock tools and the kernel say of a directory
# index our mount wrote (u_mount_htree, u_mount_htree_levels).
# Needs tests/lib/mount.sh (kmount, kumount), $PY (tests/progs/htree_ops.py)
# and ours.list (htree_ops.py list of our mount); sets fail=1 on a failure.
# shellcheck disable=SC2034  # fail: the sourcing script's verdict

# htree_stock_checks LABEL IMG FIELDS: stock e2fsck -fn of IMG; the FIELDS
# (a sed alternation, e.g. 'Hash Version\|Indirect levels') of stock
# debugfs's htree_dump of /big on one line; stock e2fsck -fy of a copy
# finding nothing to optimize (no Pass 3A); the kernel's listing and stats
# of IMG the same as ours.list.
htree_stock_checks() {
	local label=$1 img=$2 fields=$3 rc
	"$STOCK_E2FSCK" -fn "$img" >fsck.out 2>&1
	rc=$?
	echo "$label: stock e2fsck -fn: exit $rc"
	[ "$rc" -eq 0 ] || { grep -vE '^e2fsck [0-9]|^Pass ' fsck.out | head -n 5; fail=1; }
	"$STOCK_DEBUGFS" -R "htree_dump /big" "$img" 2>/dev/null |
		sed -n "s/^[[:space:]]*\\($fields\\): /\\1 /p" |
		tr '\n' ' ' | sed "s/^/$label: htree_dump: /; s/ \$/\\n/"
	cp --sparse=always "$img" y.img
	"$STOCK_E2FSCK" -fy y.img >fsck.out 2>&1
	if grep -q 'Pass 3A' fsck.out; then
		echo "$label: stock e2fsck -fy: optimizes directories"
		grep -E 'Pass 3A|rehash|optimiz' fsck.out | head -n 3
		fail=1
	else
		echo "$label: stock e2fsck -fy: nothing to optimize"
	fi
	rm -f y.img
	kmount "$img" k || { fail=1; return 1; }
	python3 "$PY" list k >kernel.list ||
		{ echo "$label: the kernel's $(grep -m1 FAILED kernel.list)"; fail=1; }
	kumount k || fail=1
	if cmp -s ours.list kernel.list; then
		echo "$label: the kernel lists and stats the same"
	else
		echo "$label: the kernel's listing differs"
		diff ours.list kernel.list | head -n 5
		fail=1
	fi
}
