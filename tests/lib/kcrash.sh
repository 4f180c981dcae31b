# shellcheck shell=bash
#
# kcrash.sh --- the kernel as referee of the crash model (tests/kernel/
# k_crash_sample).  Sourced after tests/kernel/klib.sh (which brings
# test_lib.sh and so tests/lib/crash.sh).
#
# A scenario NAME is a library operation recorded on the crash model as in
# tests/c_crash_*: NAME.pre (the image before), NAME.post (after), NAME.log
# (lj_crash's record of its writes and flushes).  kc_sample picks a
# deterministic sample of its crash states whose log the kernel must
# replay and adds each to the guest script as a disk to mount; after the
# boot kc_judge compares what the kernel made of each state with the host
# model (stock replay and recovery of the same state).

# kc_pick < STATES: the IDs of the sampled states among `lj_crash states`
# lines ("ID KIND EPOCH WHAT"): for each epoch of n writes between two
# flushes, every write but the last (prefix n-1/n), every write but the
# one before the last (without n-2/n: the last write reordered ahead of
# the one before it, e.g. a commit block ahead of its data when a flush is
# missing), every write but the first (without 0/n: the first one, e.g.
# a journal superblock moving the tail, reordered after the rest), and
# the final state
kc_pick() {
	awk '{split($5, a, "/")}
	     $4 == "prefix" && a[1] + 1 == a[2] {print $1}
	     $4 == "without" && (a[1] + 2 == a[2] || a[1] == 0) {print $1}
	     $2 == "final" {print $1}' | sort -un
}

# kc_recovery IMG: "live" when IMG has needs_recovery set and a live log
# (journal start != 0: a mount makes the kernel replay it), "empty" with
# needs_recovery set and an empty log (the kernel loads the journal,
# finds nothing to replay and clears the flag), "unflagged" for a live
# log without needs_recovery (doc/contract.md §3 bans it: the kernel would not
# replay it), "" for neither
kc_recovery() {
	local s
	s=$(lazy_status "$1")
	if [[ $s == *"needs_recovery yes"* ]]; then
		if [[ $s == "journal start 0,"* ]]; then echo empty; else echo live; fi
	elif [[ $s != "journal start 0,"* ]]; then
		echo unflagged
	fi
}

# kc_refs NAME: NAME.old / NAME.new <- stock recovery (crash_fsck stock:
# replay, e2fsck -fy, e2fsck -fn clean) of NAME.pre / NAME.post: the
# contents a crash state may come back as; their free counts zeroed in the
# primary superblock (kl_sb_mask_free: the kernel recomputes them)
kc_refs() {
	cp --sparse=always "$1.pre" "$1.old"
	cp --sparse=always "$1.post" "$1.new"
	crash_fsck stock "$1.old" >/dev/null && crash_fsck stock "$1.new" >/dev/null &&
		kl_sb_mask_free "$1.old" && kl_sb_mask_free "$1.new"
}

# kc_contents NAME IMG: "new", "old" or "NONE (...)": IMG as it is (free
# counts masked) against NAME.new and NAME.old outside the journal
# (w_match: superblock bookkeeping masked); "new" when both are the same,
# as for an operation that keeps the contents
kc_contents() {
	local c=$TMPD/.kc.img
	cp --sparse=always "$2" "$c"
	kl_sb_mask_free "$c"
	W_CACHE='' w_match "$c" new="$1.new" old="$1.old"
	rm -f "$c"
}

# kc_guest_mount GUEST DISKNO LABEL: append to guest script GUEST a
# read-only mount (the kernel replays a live log) and unmount of $DISKn,
# its output in section "=== mount LABEL"
kc_guest_mount() {
	cat >>"$1" <<EOF
lj_dmesg_clear
echo "=== mount $3"
if lj_mount "\$DISK$2" /mnt/$3 ro; then
	umount /mnt/$3 && echo "mounted and unmounted"
fi
lj_recovery_lines
EOF
}

# kc_sample NAME MAX GUEST: among the states of scenario NAME that kc_pick
# names, those with needs_recovery set or a live log (kc_recovery), at
# most MAX spread evenly over them (the first and the last in): each as
# NAME-ID.st (NAME.pre with the state applied) and NAME-ID.img (a copy for
# the guest, mounted by GUEST as disk $KC_NDISK, counted up; appended to
# the array KC_DISKS); one line "NAME ID KIND live|empty|unflagged" per
# state in $TMPD/kc.list
kc_sample() {
	local n=$1 max=$2 guest=$3 id kind k r
	"$LJ_CRASH" states "$n.log" "$CRASH_NRAND" "$CRASH_SEED" >"$n.states" || return 1
	: >"$n.live"
	while read -r id; do
		cp --sparse=always "$n.pre" "$n-$id.st"
		"$LJ_CRASH" apply "$n.log" "$id" "$CRASH_NRAND" "$CRASH_SEED" "$n-$id.st" || return 1
		r=$(kc_recovery "$n-$id.st")
		[ -n "$r" ] && echo "$id $r" >>"$n.live"
	done < <(kc_pick <"$n.states")
	k=$(wc -l <"$n.live")
	awk -v k="$k" -v max="$max" 'BEGIN {
		if (k <= max) { for (i = 1; i <= k; i++) print i; exit }
		for (i = 0; i < max; i++) print 1 + int(i * (k - 1) / (max - 1))
	}' >"$n.idx"
	while read -r k; do
		read -r id r <<<"$(sed -n "${k}p" "$n.live")"
		kind=$(awk -v id="$id" '$1 == id {print $2}' "$n.states")
		echo "$n $id $kind $r" >>"$TMPD/kc.list"
		cp --sparse=always "$n-$id.st" "$n-$id.img"
		KC_DISKS+=("$n-$id.img")
		kc_guest_mount "$guest" "$KC_NDISK" "$n-$id"
		KC_NDISK=$((KC_NDISK + 1))
	done <"$n.idx"
	while read -r id r; do
		[ -e "$n-$id.img" ] || rm -f "$n-$id.st"
	done <"$n.live"
	rm -f "$n.idx"
}

# kc_judge NAME ID KIND LOG OUT: the state NAME-ID after the guest's mount
# (NAME-ID.img) against the host model, from the guest output OUT: the
# kernel mounted it and, unless LOG is "empty", replayed the log; its
# bytes equal stock replay's of the same state (NAME-ID.st; free counts
# masked); stock e2fsck -fn finds it clean as the kernel left it; it
# holds the old or the new contents (kc_contents: as stock recovers the
# image before and after the operation), the new ones for a state after
# the operation had returned (KIND tail or final).  Prints one line per
# failed check, else "NAME ID ok CONTENTS"; returns 1 when a check failed.
# Its scratch files are in $TMPD: give each concurrent call its own TMPD.
kc_judge() {
	local n=$1 id=$2 kind=$3 log=$4 out=$5 l="$1 state $2 ($3)" sec got rc fail=0
	sec=$(kl_section "$out" "mount $n-$id")
	if ! grep -q '^mounted and unmounted$' <<<"$sec"; then
		echo "$l: the kernel did not mount it:"
		sed 's/^/    /' <<<"$sec" | head -n 6
		return 1
	fi
	[ "$log" = unflagged ] &&
		{ echo "$l: a live log without needs_recovery"; fail=1; }
	[ "$log" != empty ] && ! grep -q 'recovery complete' <<<"$sec" &&
		{ echo "$l: the kernel did not replay the log"; fail=1; }
	stock_copy "$n-$id.st" "$TMPD/.kc.s.img"
	stock_replay "$TMPD/.kc.s.img"
	got=$(kl_cmp_kernel_replay "$n-$id.img" "$TMPD/.kc.s.img")
	[ "$got" = "identical outside the journal" ] ||
		{ echo "$l: kernel replay vs stock replay: $got"; fail=1; }
	rm -f "$TMPD/.kc.s.img"
	stock_copy "$n-$id.img" "$TMPD/.kc.n.img"
	"$STOCK_E2FSCK" -fn "$TMPD/.kc.n.img" >"$TMPD/.kc.n.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || {
		echo "$l: stock e2fsck -fn (flag hidden) on the kernel's result: exit $rc"
		grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.kc.n.out" | head -n 3
		fail=1
	}
	rm -f "$TMPD/.kc.n.img" "$TMPD/.kc.n.out"
	got=$(kc_contents "$n" "$n-$id.img")
	case $kind/$got in
	mid/old | mid/new | tail/new | final/new) ;;
	*) echo "$l: contents after the kernel: $got"; fail=1 ;;
	esac
	[ "$fail" -eq 0 ] && echo "$n $id ok $got"
	return $fail
}

# kc_judge_all LIST OUT: kc_judge for each "NAME ID KIND LOG" line of LIST,
# two at a time (each in its own scratch directory), results in LIST's
# order; returns 1 when one failed
kc_judge_all() {
	local list=$1 out=$2 n id kind log k=0 rc=0 top=$TMPD
	while read -r n id kind log; do
		k=$((k + 1))
		mkdir -p "$top/.kc.j$k"
		(TMPD=$top/.kc.j$k; kc_judge "$n" "$id" "$kind" "$log" "$out" >"$TMPD/res" 2>&1 </dev/null
		 echo $? >"$TMPD/rc") &
		[ $((k % 2)) -eq 0 ] && wait
	done <"$list"
	wait
	for ((i = 1; i <= k; i++)); do
		cat "$top/.kc.j$i/res"
		[ "$(cat "$top/.kc.j$i/rc")" = 0 ] || rc=1
		rm -rf "$top/.kc.j$i"
	done
	return $rc
}
