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
#  * SPEC §2 invariant on the state itself: a journal with s_start != 0
#    has needs_recovery in the superblock (else the kernel wipes the log
#    unreplayed and `e2fsck -p` stops the boot); stock e2fsck's replay
#    must not say "needs_recovery flag is clear, but journal has data";
#  * our `e2fsck -fy` and, on another copy, stock replay and check
#    (lazy bit cleared, `e2fsck -E journal_only -y`, lazy bit cleared
#    again as a superblock logged by the kernel sets it, `e2fsck -fy`):
#    exit 0 or 1, then the result is identical outside the
#    journal (superblock bookkeeping masked) to stock's `e2fsck -fy` of the
#    image before the operation or of the image after it, and stock
#    `e2fsck -fn` finds it clean;
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
		# SPEC §2: a live log always has needs_recovery
		if grep -q "needs_recovery flag is clear, but journal has data" \
			"$out"; then
			echo "log live without needs_recovery (stock: $(grep -m1 'needs_recovery flag' "$out"))"
			return 1
		fi
		"$LJ_CRASH" unlazy "$2" || return 1
		"$STOCK_E2FSCK" -fy "$2" >"$out" 2>&1
	fi
	rc=$?
	[ "$rc" -le 1 ] || { echo "e2fsck -fy exit $rc"; return 1; }
	cp --sparse=always "$2" "$2.n.img"
	"$LJ_CRASH" unlazy "$2.n.img" || return 1
	"$STOCK_E2FSCK" -fn "$2.n.img" >"$out" 2>&1
	rc=$?
	rm -f "$2.n.img" "$out"
	[ "$rc" -eq 0 ] || { echo "stock e2fsck -fn exit $rc after recovery"; return 1; }
	return 0
}

# crash_check LABEL PRE POST LOG [DATALIST]: every crash state of LOG
# (recorded while PRE became POST) judged as above; DATALIST names data
# blocks compared as in POST whatever they hold.  Prints one line when
# every state passes, else one line per failure; returns 1 on a failure.
crash_check() {
	local label=$1 pre=$2 post=$3 log=$4 data=${5:-}
	local id kind epoch what st r w lz_post lz fail=0 n=0 ref who
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
	while read -r id kind epoch what; do
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
		for who in ours stock; do
			r=$TMPD/.crash.$who.img
			if [ "$(tail -n 1 "$r.res")" != rc=0 ]; then
				echo "$label: state $id ($kind, epoch $epoch, $what): $who: $(head -n 1 "$r.res")"
				fail=1
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
				echo "$label: state $id ($kind, epoch $epoch, $what): $who: $w"
				fail=1
			fi
		done
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
# mount's record (LJ_CRASH_RECORD, lib/ext2fs/view.c; PRE the image
# before the mount), sampled per epoch (lj_crash sample: the state
# without the epoch's writes, the one without its first write, and
# CRASH_MOUNT_NRAND seeded ones).  MARKERS has a line
# "PATH SHA256 RECORD_SIZE" per fsynced file: how far the record had got
# when its fsync returned.  Each state is judged by stock e2fsprogs:
#  * stock replay (lazy bit cleared, `e2fsck -E journal_only -y`: exit
#    0, 1 or 12, the last for the lazy bit the logged superblock brings
#    back) never finds a live log without needs_recovery, and then stock
#    `e2fsck -fn` (the bit cleared again) is clean: nothing to repair;
#  * every file whose fsync had returned by the state's cut (RECORD_SIZE
#    <= CUT, see lj_crash) is there, intact (stock debugfs dump);
#  * our `e2fsck -fn` on the lazy state itself is clean (not with a 5th
#    argument "plain": a plain ext4 mid-log is what the kernel's would
#    be, its home copies waiting for the replay, and our e2fsck -n skips
#    the replay as stock does).
# Prints one line when every state passes, else one line per failure;
# returns 1 on a failure.
crash_mount_check() {
	local label=$1 pre=$2 log=$3 markers=$4 plain=${5:-}
	local n=0 fail=0 id kind epoch cut what ntracked ours
	ours=", our e2fsck -fn clean"
	[ "$plain" = plain ] && ours=""
	"$LJ_CRASH" sample "$log" "$CRASH_MOUNT_NRAND" "$CRASH_SEED" \
		>"$TMPD/.cm.states" || { echo "$label: no crash states"; return 1; }
	ntracked=$(wc -l <"$markers")
	while read -r id kind epoch cut what; do
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

# crash_mount_state PRE LOG MARKERS ID CUT [plain]: judge one state (see above);
# silent when it passes, else says why
crash_mount_state() {
	local pre=$1 log=$2 markers=$3 id=$4 cut=$5 plain=${6:-}
	local st=$TMPD/.cm.$id.img rc=0 path sum size
	cp --sparse=always "$pre" "$st"
	"$LJ_CRASH" sample-apply "$log" "$id" "$CRASH_MOUNT_NRAND" "$CRASH_SEED" "$st" ||
		{ echo "cannot build the state"; return; }
	if [ "$plain" != plain ]; then
		"$OUR_E2FSCK" -fn "$st" >"$st.ours" 2>&1
		rc=$?
	fi
	[ "$rc" -eq 0 ] || { echo "our e2fsck -fn exit $rc: $(grep -m1 -vE '^(e2fsck|Pass|Warning: skipping)' "$st.ours")"; rm -f "$st"*; return; }
	"$LJ_CRASH" unlazy "$st" || { rm -f "$st"*; return; }
	"$STOCK_E2FSCK" -E journal_only -y "$st" >"$st.out" 2>&1
	rc=$?
	if [ "$rc" -gt 1 ] && [ "$rc" -ne 12 ]; then
		echo "stock e2fsck -E journal_only exit $rc"
	elif grep -q "needs_recovery flag is clear, but journal has data" "$st.out"; then
		echo "log live without needs_recovery"
	elif ! "$LJ_CRASH" unlazy "$st"; then
		:
	elif ! "$STOCK_E2FSCK" -fn "$st" >"$st.out" 2>&1; then
		echo "stock e2fsck -fn after replay: $(grep -m1 -vE '^(e2fsck|Pass)' "$st.out")"
	else
		: >"$st.cmds"
		while read -r path sum size; do
			[ "$size" -le "$cut" ] && echo "dump $path $st.${path//\//_}" >>"$st.cmds"
		done <"$markers"
		"$STOCK_DEBUGFS" -f "$st.cmds" "$st" >/dev/null 2>&1
		while read -r path sum size; do
			[ "$size" -le "$cut" ] || continue
			if [ ! -f "$st.${path//\//_}" ]; then
				echo "$path (fsynced before the cut) is missing"
				break
			fi
			if [ "$(sha256sum <"$st.${path//\//_}" | cut -d' ' -f1)" != "$sum" ]; then
				echo "$path (fsynced before the cut) is damaged"
				break
			fi
		done <"$markers"
	fi
	rm -f "$st"*
}
