# shellcheck shell=bash
#
# jlog.sh --- journals written with the STOCK debugfs journal commands
# (jo/jw/jc), and lazy images whose log holds them.  Sourced by test_lib.sh.
#
# Facts about stock jo/jw/jc that shape these helpers (e2fsprogs 1.47.0):
#  * `jw -b B1,B2,... FILE` reads the block contents SEQUENTIALLY from the
#    start of FILE (first listed block <- bytes 0..bs-1, and so on).
#  * `jo -c` turns checksums on only while the log is empty and
#    needs_recovery is clear: with metadata_csum it gives csum v3 (or v2
#    with `-v 2`), without metadata_csum the v1 COMPAT_CHECKSUM (crc32_be
#    over the transaction's blocks in the commit block).  Without -c: none.
#    The journal gets the 64bit feature iff the file system has 64bit.
#  * A `jw` with both -b and -r leaves the next transaction of the same jo
#    session starting ON its commit block (block estimate too small), so
#    such a transaction is always followed by `jc` + `jo` here (jo finds the
#    head again by scanning the log).
#  * jw never wraps: a transaction that does not fit before the end of the
#    journal fails with ENOSPC.  Wrap-around is made by rotating the whole
#    log area afterwards (jrotate), which keeps every block's content.
#  * `jw -c` writes a transaction without its commit block (uncommitted);
#    it must be the last one written.
#  * The first tag of a descriptor has no SAME_UUID flag; stock writes its
#    16-byte UUID slot after the tag but fills in the wrong place (zeros).

# jlog_init CMDFILE [JO_ARGS...]: start a command file ("jo ARGS")
jlog_init() {
	local f=$1
	shift
	echo "jo $*" >"$f"
}

# jlog_txn CMDFILE BLOCKS REVOKES DATAFILE [nocommit]
#   BLOCKS / REVOKES: comma lists or "" for none.
jlog_txn() {
	local f=$1 blocks=$2 revokes=$3 data=$4 nocommit=${5:-}
	local cmd="jw"
	[ -n "$blocks" ] && cmd="$cmd -b $blocks"
	[ -n "$revokes" ] && cmd="$cmd -r $revokes"
	[ -n "$nocommit" ] && cmd="$cmd -c"
	[ -n "$blocks" ] && cmd="$cmd $data"
	echo "$cmd" >>"$f"
	# see the header: a data+revoke transaction needs the head found again
	if [ -n "$blocks" ] && [ -n "$revokes" ]; then
		printf 'jc\njo\n' >>"$f"
	fi
}

# jlog_run IMG CMDFILE: close the journal and run the command file with
# stock debugfs; complain (on stdout, so the test fails) on any error.
jlog_run() {
	local img=$1 f=$2 out
	echo "jc" >>"$f"
	out=$("$STOCK_DEBUGFS" -w -f "$f" "$img" 2>&1)
	if printf '%s\n' "$out" | grep -vE '^(debugfs( [0-9.]+ \(.*\))?:? |Setting csum v)' \
		| grep -q .; then
		echo "jlog_run: stock debugfs complained:"
		printf '%s\n' "$out" | grep -vE '^debugfs' | head -n 5
		return 1
	fi
}

# write_txns IMG "JO_ARGS" SPEC...: write one transaction per SPEC with
# stock debugfs.  SPEC is "BLOCKS/REVOKES" (comma lists, either may be
# empty), with a trailing "!" for a transaction left uncommitted.  Block
# contents: transaction i's data file from mkdata with tag "T<i>".
write_txns() {
	local img=$1 jo=$2 bs i=0 spec blocks revokes nc n
	shift 2
	bs=$(img_bs "$img")
	# a home block inside the journal would make the tests meaningless
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	if printf '%s\n' "$@" | tr ',/!' '\n' | grep -E '^[0-9]+$' \
		| grep -qxFf "$TMPD/.jpblocks"; then
		echo "write_txns: a home block lies inside the journal"
		return 1
	fi
	# shellcheck disable=SC2086  # JO_ARGS is a word list
	jlog_init "$TMPD/.cmd" $jo
	for spec in "$@"; do
		i=$((i + 1))
		nc=
		case $spec in *!) nc=1; spec=${spec%!} ;; esac
		blocks=${spec%%/*}
		revokes=${spec#*/}
		[ "$revokes" = "$spec" ] && revokes=
		if [ -n "$blocks" ]; then
			n=$(tr ',' '\n' <<<"$blocks" | grep -c .)
			mkdata "$TMPD/.d$i" "$n" "$bs" "T$i"
		fi
		jlog_txn "$TMPD/.cmd" "$blocks" "$revokes" "$TMPD/.d$i" $nc
	done
	jlog_run "$img" "$TMPD/.cmd"
	rm -f "$TMPD"/.d[0-9]*
}

# mk_lazy_meta IMG SIZE_MB BS FEATURES "JO_ARGS" CMDFILE [kernel]
#   A lazy image whose log holds real metadata changes.  A copy IMG.mod
#   is changed with stock debugfs (requests in CMDFILE); every block that
#   changed outside the journal is logged into IMG in three transactions:
#     T1: first half of the changed blocks, plus garbage for block X (an
#         unchanged inode-table block) and for Y (the last changed block)
#     T2: second half, revoking X and Y
#     T3: Y and the superblock block again (their final copies)
#   so stock replay of IMG gives IMG.mod back.  With "kernel", the logged
#   superblock copies carry lazy_journal and needs_recovery, as the kernel
#   logs them.  Prints one line: number of changed blocks, and the file
#   IMG.changed lists them.
mk_lazy_meta() {
	local img=$1 size=$2 bs=$3 feat=$4 jo=$5 cmds=$6 kern=${7:-}
	local half x y sbblk sboff b n
	mkimg "$img" "$size" "$bs" "$feat" 4 || return 1
	cp --sparse=always "$img" "$img.mod"
	"$STOCK_DEBUGFS" -w -f "$cmds" "$img.mod" >/dev/null 2>&1
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	cmp -l "$img" "$img.mod" | awk -v bs="$bs" '{print int(($1 - 1) / bs)}' \
		| uniq | grep -vxFf "$TMPD/.jpblocks" >"$img.changed"
	n=$(wc -l <"$img.changed")
	sbblk=0
	sboff=1024
	if [ "$bs" = 1024 ]; then
		sbblk=1
		sboff=0
	fi
	grep -qx "$sbblk" "$img.changed" \
		|| { echo "mk_lazy_meta: superblock block unchanged"; return 1; }
	half=$(((n + 1) / 2))
	head -n "$half" "$img.changed" >"$TMPD/.c1"
	tail -n +"$((half + 1))" "$img.changed" >"$TMPD/.c2"
	y=$(tail -n 1 "$TMPD/.c2")
	x=$("$STOCK_DUMPE2FS" "$img" 2>/dev/null \
		| awk '/Inode table at/ {split($4, a, "-"); print a[2]; exit}')
	x=$((x - 1))
	: >"$TMPD/.d1"
	: >"$TMPD/.d2"
	: >"$TMPD/.d3"
	while read -r b; do read_blk "$img.mod" "$b" "$bs" >>"$TMPD/.d1"; done <"$TMPD/.c1"
	mkdata "$TMPD/.g" 2 "$bs" GARBAGE
	cat "$TMPD/.g" >>"$TMPD/.d1"
	while read -r b; do read_blk "$img.mod" "$b" "$bs" >>"$TMPD/.d2"; done <"$TMPD/.c2"
	read_blk "$img.mod" "$sbblk" "$bs" >>"$TMPD/.d3"
	read_blk "$img.mod" "$y" "$bs" >>"$TMPD/.d3"
	if [ "$kern" = kernel ]; then
		# the superblock is the first block of T1 and of T3
		sbcopy_flags "$TMPD/.d1" "$sboff"
		sbcopy_flags "$TMPD/.d3" "$sboff"
	fi
	# shellcheck disable=SC2086  # JO_ARGS is a word list
	jlog_init "$TMPD/.cmd" $jo
	jlog_txn "$TMPD/.cmd" "$(paste -sd, "$TMPD/.c1"),$x,$y" "" "$TMPD/.d1"
	jlog_txn "$TMPD/.cmd" "$(paste -sd, "$TMPD/.c2")" "$x,$y" "$TMPD/.d2"
	jlog_txn "$TMPD/.cmd" "$sbblk,$y" "" "$TMPD/.d3"
	jlog_run "$img" "$TMPD/.cmd" || return 1
	set_lazy "$img"
	rm -f "$TMPD"/.d[123] "$TMPD/.g" "$TMPD"/.c[12]
	echo "$img: $n changed metadata blocks logged in 3 transactions (with revokes)"
}
