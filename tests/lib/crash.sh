# shellcheck shell=bash
#
# crash.sh --- the crash model in the scenario tests (tests/c_crash_*).
# Sourced by test_lib.sh.
#
# An operation of the library is recorded on the crash model
# (tests/progs/lj_crash record ..., or lj_write -X LOG): every block write
# and every flush, in issue order.  A crash state is the image before the
# operation plus every write before the last completed flush plus any
# subset of the writes issued after it (lj_crash states: each prefix, each
# single write dropped, seeded random subsets).  crash_check judges every
# state against stock e2fsprogs:
#  * doc/contract.md §3's invariant on the state: a journal with s_start != 0
#    has needs_recovery in the superblock (else the kernel wipes the log
#    unreplayed and `e2fsck -p` stops the boot); stock e2fsck's replay
#    must not say "needs_recovery flag is clear, but journal has data";
#  * our `e2fsck -fy` and, on another copy, stock replay and check
#    (lazy bit cleared, `e2fsck -E journal_only -y`, lazy bit cleared
#    again as a superblock logged by the kernel sets it, `e2fsck -fy`):
#    exit 0 or 1, then the result is identical outside the
#    journal (superblock bookkeeping masked) to stock's `e2fsck -fy` of the
#    image before the operation or of the image after it, and stock
#    `e2fsck -fn` finds it clean; both recoveries run on every state,
#    and a failed state is told with both verdicts (what each said);
#  * a state made only of writes issued after the last flush (the
#    operation had returned: "tail") and the state with every write
#    ("final") must give the image after, with the lazy bit of the image
#    after: what a tool reported done is durable.

LJ_CRASH=$BUILDDIR/tests/progs/lj_crash
CRASH_NRAND=${CRASH_NRAND:-2}
CRASH_SEED=${CRASH_SEED:-1}
CRASH_MOUNT_NRAND=${CRASH_MOUNT_NRAND:-1}	# crash_mount_check's

# crash_norm IMG REF LIST: blocks listed in LIST (one a line) copied from
# REF into IMG (data blocks, whose contents ordered mode leaves free)
crash_norm() {
	[ -s "$3" ] || return 0
	lj_perl copy_blocks "$1" "$2" "$3" "$(img_bs "$2")"
}

# crash_fsck WHO IMG: recover IMG with our or stock e2fsck -fy; returns 0
# when it exited 0 or 1 and stock e2fsck -fn then finds it clean (scratch
# files IMG.out, IMG.n.img: two can run at once)
crash_fsck() {
	local rc out=$2.out
	if [ "$1" = ours ]; then
		"$OUR_E2FSCK" -fy "$2" >"$out" 2>&1
	else
		# a superblock logged by the kernel brings lazy_journal back
		# with the replay: cleared before and after it
		"$LJ_CRASH" unlazy "$2" || return 1
		"$STOCK_E2FSCK" -E journal_only -y "$2" >"$out" 2>&1
		rc=$?
		# 12: the replayed superblock has the bit stock refuses
		[ "$rc" -le 1 ] || [ "$rc" -eq 12 ] \
			|| { echo "e2fsck -E journal_only -y exit $rc"; return 1; }
		# doc/contract.md §3: a live log always has needs_recovery
		if grep -q "needs_recovery flag is clear, but journal has data" \
			"$out"; then
			echo "log live without needs_recovery (stock: $(grep -m1 'needs_recovery flag' "$out"))"
			return 1
		fi
		"$LJ_CRASH" unlazy "$2" || return 1
		"$STOCK_E2FSCK" -fy "$2" >"$out" 2>&1
	fi
	rc=$?
	[ "$rc" -le 1 ] || { echo "e2fsck -fy exit $rc: $(crash_said "$out")"; return 1; }
	cp --sparse=always "$2" "$2.n.img"
	"$LJ_CRASH" unlazy "$2.n.img" || return 1
	"$STOCK_E2FSCK" -fn "$2.n.img" >"$out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || echo "stock e2fsck -fn exit $rc after recovery: $(crash_said "$out")"
	rm -f "$2.n.img" "$out"
	[ "$rc" -eq 0 ]
}

# crash_said OUT: up to three lines of an e2fsck's output OUT that say
# something (not its banner, passes or summary), joined by "; "
crash_said() {
	grep -vE '^(e2fsck [0-9]|Pass [0-9]|Warning: skipping|$|[^ ]*: [0-9]+/[0-9]+ files)' "$1" |
		head -n 3 | paste -sd ';' | sed 's/;/; /g'
}

# crash_every STATES: judge one state in how many of the list STATES:
# 1, or under sanitizers (LJ_SANITIZED=1, the CI's second suite) 3 when
# there are more than 9 and 6 when more than 300 (a mount's record):
# there the operation runs sanitized in full, and judging every state of
# it is the plain suite's part
crash_every() {
	local n
	n=$(wc -l <"$1")
	if [ "${LJ_SANITIZED:-}" != 1 ] || [ "$n" -le 9 ]; then
		echo 1
	elif [ "$n" -le 300 ]; then
		echo 3
	else
		echo 6
	fi
}

# crash_check LABEL PRE POST LOG [DATALIST]: every crash state of LOG
# (recorded while PRE became POST) judged as above (of the "mid" ones,
# one in crash_every); DATALIST names data
# blocks compared as in POST whatever they hold.  Prints one line when
# every state passes, else one line per failure; returns 1 on a failure.
crash_check() {
	local label=$1 pre=$2 post=$3 log=$4 data=${5:-}
	local id kind epoch what st r w lz_post lz fail=0 n=0 ref who skip=0 every
	W_CACHE=$TMPD/.crash.wcache
	rm -f "$W_CACHE"
	: >"$TMPD/.crash.nodata"
	[ -n "$data" ] || data=$TMPD/.crash.nodata
	for ref in pre post; do
		if [ "$ref" = pre ]; then st=$pre; else st=$post; fi
		cp --sparse=always "$st" "$TMPD/.crash.$ref.ref"
		crash_fsck stock "$TMPD/.crash.$ref.ref" >/dev/null \
			|| { echo "$label: the image $ref the operation does not recover"; return 1; }
	done
	crash_norm "$TMPD/.crash.pre.ref" "$TMPD/.crash.post.ref" "$data"
	lz_post=$(( $(sb_field "$post" 0x5C) & 0x2000 ))
	"$LJ_CRASH" states "$log" "$CRASH_NRAND" "$CRASH_SEED" >"$TMPD/.crash.states" \
		|| { echo "$label: no crash states"; return 1; }
	every=$(crash_every "$TMPD/.crash.states")
	while read -r id kind epoch what; do
		[ "$kind" = mid ] && [ $((skip++ % every)) -ne 0 ] && continue
		n=$((n + 1))
		st=$TMPD/.crash.st.img
		cp --sparse=always "$pre" "$st"
		"$LJ_CRASH" apply "$log" "$id" "$CRASH_NRAND" "$CRASH_SEED" "$st" || return 1
		lz=$(( $(sb_field "$st" 0x5C) & 0x2000 ))
		if [ "$kind" != mid ] && [ "$lz" != "$lz_post" ]; then
			echo "$label: state $id ($kind, epoch $epoch, $what): lazy_journal not as after the operation"
			fail=1
		fi
		# both recoveries at once, each on its own copy
		for who in ours stock; do
			cp --sparse=always "$st" "$TMPD/.crash.$who.img"
			{ crash_fsck "$who" "$TMPD/.crash.$who.img"; echo "rc=$?"; } \
				>"$TMPD/.crash.$who.img.res" &
		done
		wait
		# both verdicts, said together when either fails
		local verdicts=() bad=0
		for who in ours stock; do
			r=$TMPD/.crash.$who.img
			if [ "$(tail -n 1 "$r.res")" != rc=0 ]; then
				verdicts+=("$who: $(grep -v '^rc=' "$r.res" | paste -sd ';' | sed 's/;/; /g')")
				bad=1
				continue
			fi
			crash_norm "$r" "$TMPD/.crash.post.ref" "$data"
			if [ "$kind" = mid ]; then
				w=$(w_match "$r" old="$TMPD/.crash.pre.ref" \
					new="$TMPD/.crash.post.ref")
			else
				w=$(w_match "$r" new="$TMPD/.crash.post.ref")
			fi
			if [[ $w == NONE* ]]; then
				verdicts+=("$who: $w")
				bad=1
			else
				verdicts+=("$who: recovers, as $w")
			fi
		done
		if [ "$bad" -eq 1 ]; then
			echo "$label: state $id ($kind, epoch $epoch, $what): ${verdicts[0]}; ${verdicts[1]}"
			fail=1
		fi
	done <"$TMPD/.crash.states"
	rm -f "$TMPD"/.crash.*
	W_CACHE=
	echo "$label: $n crash states" >&2
	crash_verdict "$label" "$n" "$fail" "every crash state recovers (ours -fy, stock -fy) to the old or the new contents, stock -fn clean; done means durable"
}

# crash_verdict LABEL N FAIL WHAT: fails with fewer than two crash states
# (nothing was tested) or after a failed state (FAIL 1, already said);
# else prints "LABEL: WHAT"
crash_verdict() {
	if [ "$2" -lt 2 ]; then
		echo "$1: only $2 crash states"
		return 1
	fi
	[ "$3" -eq 0 ] || return 1
	echo "$1: $4"
}

# crash_mount_check LABEL PRE LOG MARKERS: the crash states of a lazy
# mount's record (LJ_CRASH_RECORD, fuse2fs/server.c; PRE the image
# before the mount), sampled per epoch (lj_crash sample: the state
# without the epoch's writes, the one without its first write, and
# CRASH_MOUNT_NRAND seeded ones).  MARKERS has a line
# "PATH SHA256 RECORD_SIZE [UNTIL]" per fsynced file: how far the record
# had got when its fsync returned (and, for a file removed later, when
# its removal began: from UNTIL on it may be gone).  Each state is judged by stock e2fsprogs:
#  * stock replay (lazy bit cleared, `e2fsck -E journal_only -y`: exit
#    0, 1 or 12, the last for the lazy bit the logged superblock brings
#    back) never finds a live log without needs_recovery, and then stock
#    `e2fsck -fn` (the bit cleared again) is clean: nothing to repair;
#  * every file whose fsync had returned by the state's cut (RECORD_SIZE
#    <= CUT, see lj_crash) is there, intact (stock debugfs dump); one
#    removed from UNTIL <= CUT on may be gone, but if there, intact;
#  * our `e2fsck -fn` on the lazy state itself is clean (not with a 5th
#    argument "plain": a plain ext4 mid-log is what the kernel's would
#    be, its home copies waiting for the replay, and our e2fsck -n skips
#    the replay as stock does).
# Both verdicts are made on every state (of the "mid" ones, one in
# crash_every), whatever the other said.
# Prints one line when every state passes, else one line per failure
# (ours, and stock's); returns 1 on a failure.
crash_mount_check() {
	local label=$1 pre=$2 log=$3 markers=$4 plain=${5:-}
	local n=0 fail=0 id kind epoch cut what ntracked ours skip=0 every
	ours=", our e2fsck -fn clean"
	[ "$plain" = plain ] && ours=""
	"$LJ_CRASH" sample "$log" "$CRASH_MOUNT_NRAND" "$CRASH_SEED" \
		>"$TMPD/.cm.states" || { echo "$label: no crash states"; return 1; }
	ntracked=$(wc -l <"$markers")
	every=$(crash_every "$TMPD/.cm.states")
	while read -r id kind epoch cut what; do
		[ "$kind" = mid ] && [ $((skip++ % every)) -ne 0 ] && continue
		n=$((n + 1))
		crash_mount_state "$pre" "$log" "$markers" "$id" "$cut" "$plain" \
			>"$TMPD/.cm.$id.res" 2>&1 &
		if [ $((n % 2)) -eq 0 ]; then
			wait
		fi
		printf '%s %s %s %s\n' "$id" "$kind" "$epoch" "$what" >>"$TMPD/.cm.done"
	done <"$TMPD/.cm.states"
	wait
	while read -r id kind epoch what; do
		if [ -s "$TMPD/.cm.$id.res" ]; then
			echo "$label: state $id ($kind, epoch $epoch, $what): $(head -n 1 "$TMPD/.cm.$id.res")"
			fail=1
		fi
	done <"$TMPD/.cm.done"
	echo "$label: $n crash states, $ntracked fsynced files" >&2
	rm -f "$TMPD"/.cm.*
	crash_verdict "$label" "$n" "$fail" "every crash state: stock replay clean (stock e2fsck -fn), every file fsynced before the cut intact (stock debugfs)$ours"
}

# crash_mount_state PRE LOG MARKERS ID CUT [plain]: judge one state (see
# above); silent when it passes, else one line with both verdicts, ours
# and stock's (stock replay and its checks run whatever ours said)
crash_mount_state() {
	local pre=$1 log=$2 markers=$3 id=$4 cut=$5 plain=${6:-}
	local st=$TMPD/.cm.$id.img rc path sum size ours="" stock=""
	cp --sparse=always "$pre" "$st"
	"$LJ_CRASH" sample-apply "$log" "$id" "$CRASH_MOUNT_NRAND" "$CRASH_SEED" "$st" ||
		{ echo "cannot build the state"; rm -f "$st"*; return; }
	if [ "$plain" != plain ]; then
		"$OUR_E2FSCK" -fn "$st" >"$st.ours" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || ours="our e2fsck -fn exit $rc: $(crash_said "$st.ours")"
	fi
	if ! "$LJ_CRASH" unlazy "$st"; then
		stock="cannot clear the lazy bit"
	else
		"$STOCK_E2FSCK" -E journal_only -y "$st" >"$st.out" 2>&1
		rc=$?
		if [ "$rc" -gt 1 ] && [ "$rc" -ne 12 ]; then
			stock="stock e2fsck -E journal_only exit $rc: $(crash_said "$st.out")"
		elif grep -q "needs_recovery flag is clear, but journal has data" "$st.out"; then
			stock="log live without needs_recovery"
		elif ! "$LJ_CRASH" unlazy "$st"; then
			stock="cannot clear the lazy bit after replay"
		elif ! "$STOCK_E2FSCK" -fn "$st" >"$st.out" 2>&1; then
			stock="stock e2fsck -fn after replay: $(crash_said "$st.out")"
		else
			stock=$(crash_mount_files "$st" "$markers" "$cut")
		fi
	fi
	if [ -n "$ours$stock" ]; then
		echo "ours: ${ours:-clean}; stock: ${stock:-replay clean, fsynced files intact}"
	fi
	rm -f "$st"*
}

# crash_mount_files ST MARKERS CUT: the files fsynced before CUT, read
# back from the replayed ST by stock debugfs; silent when each is there
# and intact (one removed from UNTIL <= CUT on may be gone), else says
# which is not.  A few processes per state, whatever the number of files:
# this runs for every crash state, and a fork costs milliseconds here.
crash_mount_files() {
	local st=$1 markers=$2 cut=$3 path out outs=()
	awk -v cut="$cut" -v st="$st" '$3 <= cut {
		f = $1; gsub("/", "_", f); print "dump " $1 " " st "." f }' \
		"$markers" >"$st.cmds"
	"$STOCK_DEBUGFS" -f "$st.cmds" "$st" >/dev/null 2>&1
	while read -r _ path out; do
		[ -f "$out" ] && outs+=("$out")
	done <"$st.cmds"
	{ [ "${#outs[@]}" -eq 0 ] || sha256sum -- "${outs[@]}"; } |
	awk -v cut="$cut" -v st="$st" '
		FILENAME == "-" { sub(/^\\/, ""); got[substr($0, 67)] = $1; next }
		$3 > cut { next }
		{ f = $1; gsub("/", "_", f); f = st "." f }
		!(f in got) && $4 != "" && $4 <= cut { next }
		!(f in got) { print $1 " (fsynced before the cut) is missing"; exit }
		got[f] != $2 { print $1 " (fsynced before the cut) is damaged"; exit }' \
		- "$markers"
}
