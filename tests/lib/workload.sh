# shellcheck shell=bash
#
# workload.sh --- the workload generator (tests/w_workload_*,
# bench/workload) and the checks of what it leaves.  Sourced by test_lib.sh.

# wl_mkimg IMG SIZE_MB JOURNAL_MB: a lazy image (4 KiB blocks) made by our
# mke2fs -O lazy_journal; a pristine copy is kept as IMG.fresh
wl_mkimg() {
	rm -f "$1"
	truncate -s "${2}M" "$1"
	"$OUR_MKE2FS" -q -F -t ext4 -b 4096 -O lazy_journal -J "size=$3" \
		-E lazy_itable_init=1,nodiscard "$1" >/dev/null 2>&1 \
		|| { echo "wl_mkimg: mke2fs failed"; return 1; }
	cp --sparse=always "$1" "$1.fresh"
}

# wl_run IMG ARGS...: bench/workload ARGS IMG, with the I/O record in
# IMG.rec and the paths made in IMG.paths; its key=value lines go to
# IMG.out.  Prints per phase the figures that depend only on the workload
# (operations, transactions, data blocks) and, for lazy mode, whether
# metadata went home and whether the cleaner ran.
wl_run() {
	local img=$1 rc
	shift
	"$WORKLOAD" "$@" -r "$img.rec" -l "$img.paths" "$img" >"$img.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || { echo "workload: exit $rc: $(tail -n 1 "$img.out")"; return 1; }
	awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf("%s %s: ops %s, transactions %s, data blocks %s", v["phase"],
		       v["mode"], v["ops"], v["txns"], v["data"])
		if (v["mode"] == "lazy")
			printf(", metadata home %s, cleaner %s", v["meta_home"],
			       (v["relogged"] + v["cleaner_home"] > 0) ? "ran" : "idle")
		else
			printf(", metadata home %s", v["meta_home"] > 0 ? "> 0" : "0")
		printf("\n")
	}' "$img.out"
}

# wl_field IMG PHASE KEY: one figure of a phase from IMG.out
wl_field() {
	awk -v p="$2" -v k="$3" '$1 == "phase=" p {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] }
	}' "$1.out"
}

# wl_home_check LABEL IMG: every block outside the journal that differs
# between IMG.fresh and IMG must be a data block of the I/O record, a
# block the cleaner wrote home (meta_home in the record), or the primary
# superblock with only needs_recovery (and its checksum) changed: home
# copies of journaled metadata are never written behind the record's back.
wl_home_check() {
	local label=$1 img=$2 sb
	sb=same
	[ "$(sb_norm "$img.fresh")" = "$(sb_norm "$img")" ] || sb=CHANGED
	lj_perl_journal "$img" wl_home_check "$img.fresh" "$img" "$img.rec" "$sb" \
		| sed "s/^/$label: home blocks changed outside the journal: /"
}

# wl_stock_replayed IMG OUT: OUT = IMG replayed by stock e2fsck
# (-E journal_only -y with lazy_journal cleared before, and again after:
# the journaled superblock copies carry the flag); prints the exit status
wl_stock_replayed() {
	local rc
	stock_copy "$1" "$2"
	"$STOCK_E2FSCK" -E journal_only -y "$2" >"$TMPD/.wlreplay.out" 2>&1
	rc=$?
	clear_compat_bits "$2" 0x2000
	echo "stock e2fsck -E journal_only -y: exit $rc, log $(lazy_status "$2" | sed 's/, lazy.*//')"
}

# wl_requests IMG CMDFILE: debugfs requests for the tree in IMG.paths that
# still exists in IMG: `ls -l` of every directory, `stat` of every 5th
# file and directory, `cat` of every 3rd file; plus `ls -l /`
wl_requests() {
	awk '{ print ($1 == "d" ? "ls -l " : "stat ") $2 }
	     NR % 5 == 0 { print "stat " $2 }
	     $1 == "f" && NR % 3 == 0 { print "cat " $2 }
	     END { print "ls -l /" }' "$1.paths" >"$2"
}

# wl_trees_equal LABEL IMG: our debugfs reading IMG through the jmap and
# stock debugfs on a stock-replayed copy answer the same requests alike;
# stock e2fsck -fn on the replayed copy; our e2fsck -fn on IMG
wl_trees_equal() {
	local label=$1 img=$2 n rc
	echo "$label: $(wl_stock_replayed "$img" "$TMPD/.R.img")"
	wl_requests "$img" "$TMPD/.wlreq"
	n=$(wc -l <"$TMPD/.wlreq")
	"$OUR_DEBUGFS" -f "$TMPD/.wlreq" "$img" >"$TMPD/.wl.ours" 2>/dev/null
	"$STOCK_DEBUGFS" -f "$TMPD/.wlreq" "$TMPD/.R.img" >"$TMPD/.wl.stock" 2>/dev/null
	if cmp -s "$TMPD/.wl.ours" "$TMPD/.wl.stock"; then
		echo "$label: our debugfs (jmap) = stock debugfs after stock replay: $n requests, $(wc -l <"$TMPD/.wl.ours") lines alike"
	else
		echo "$label: our debugfs (jmap) DIFFERS from stock debugfs after stock replay ($n requests)"
		diff "$TMPD/.wl.stock" "$TMPD/.wl.ours" | head -n 10
	fi
	"$STOCK_E2FSCK" -fn "$TMPD/.R.img" >"$TMPD/.wlfsck.out" 2>&1
	rc=$?
	echo "$label: stock e2fsck -fn after replay: exit $rc"
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.wlfsck.out" | head -n 5
	"$OUR_E2FSCK" -fn "$img" >"$TMPD/.wlfsck.out" 2>&1
	echo "$label: our e2fsck -fn (through the jmap): exit $?"
}

# wl_data_check LABEL IMG: `cat` (our debugfs, through the jmap) of every
# file of IMG.paths that exists: each must hold its own 4 KiB pattern
# ("workload file INO PATH" repeated), written home in data mode
wl_data_check() {
	awk '$1 == "f" { print "cat " $2 }' "$2.paths" >"$TMPD/.wlcat"
	"$OUR_DEBUGFS" -f "$TMPD/.wlcat" "$2" 2>/dev/null | lj_perl wl_data_check \
		| sed "s/^/$1: data: /"
}
