# shellcheck shell=bash
#
# klib.sh --- host-side helpers for the kernel tests (tests/kernel/*/script).
# Sources the scenario helpers (tests/test_lib.sh: images, oracles, stock
# tools) and the harness (tests/kernel/vm.sh).  tests/kernel/run.sh runs each
# script in a fresh $TMPD, like tests/run_tests.sh.

# shellcheck source=tests/test_lib.sh
. "$SRCDIR/tests/test_lib.sh"
# shellcheck source=tests/kernel/vm.sh
. "$SRCDIR/tests/kernel/vm.sh"

# ---------------------------------------------------------------------
# Shapes of file systems for the kernel to write logs on.
#   name   image                                   mount options
#   v3     4 KiB, 64bit, metadata_csum             (journal csum v3)
#   none   4 KiB, 64bit, no metadata_csum          (no journal checksums)
#   1k     1 KiB, 32bit, no metadata_csum          journal_checksum (v1)
#   ext3   mke2fs -t ext3: no extents, 4 KiB        (ext3 driver = ext4)
#   wrap   4 KiB, metadata_csum, 4 MiB journal     (log wraps, see
#                                                    lj_workload_wrap)
#   async  4 KiB, metadata_csum                    data=journal,
#                                                  journal_async_commit
# shellcheck disable=SC2034  # used by the test scripts
KL_SHAPES="v3 none 1k ext3 wrap async"
# every test mount: commit only when the test asks (fsync), no atime
# updates, no background inode-table zeroing
KL_MNT=commit=600,noatime,noinit_itable

# kl_mkshape NAME IMG: make the image of a shape
kl_mkshape() {
	case $1 in
	v3)	mkimg "$2" 64 4096 64bit,metadata_csum ;;
	none)	mkimg "$2" 64 4096 ^metadata_csum ;;
	1k)	mkimg "$2" 32 1024 ^64bit,^metadata_csum ;;
	ext3)	rm -f "$2"
		truncate -s 64M "$2"
		"$STOCK_MKE2FS" -q -F -t ext3 -b 4096 \
			-E lazy_itable_init=1,nodiscard "$2" >/dev/null 2>&1 ||
			{ echo "kl_mkshape: mke2fs -t ext3 failed"; return 1; } ;;
	wrap)	mkimg "$2" 64 4096 64bit,metadata_csum 4 ;;
	async)	mkimg "$2" 64 4096 64bit,metadata_csum ;;
	*)	echo "kl_mkshape: unknown shape $1"; return 1 ;;
	esac
}

# kl_mount_args NAME: "OPTIONS TYPE" for lj_mount in the guest
kl_mount_args() {
	case $1 in
	1k)	echo "$KL_MNT,journal_checksum ext4" ;;
	ext3)	echo "commit=600,noatime ext3" ;;
	async)	echo "$KL_MNT,data=journal,journal_async_commit ext4" ;;
	*)	echo "$KL_MNT ext4" ;;
	esac
}

# kl_section FILE NAME: the lines of "=== NAME" up to the next "=== "
kl_section() {
	awk -v n="=== $2" '$0 == n {on = 1; next} /^=== / {on = 0} on' "$1"
}

# kl_vm LABEL OUTFILE GUEST_SCRIPT [DISK...]: vm_run, output to OUTFILE;
# one line on failure (and the output's tail), nothing on success
kl_vm() {
	local label=$1 out=$2 rc
	shift 2
	vm_run -t "${KL_TIMEOUT:-180}" "$@" >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$label: guest run failed (status $rc)"
		tail -n 15 "$out" "$out.err"
		return 1
	fi
}

# kl_same_tree LABEL WANT GOT: compare two lj_tree listings
kl_same_tree() {
	local n
	n=$(grep -c '|' "$2")
	if [ "$n" -eq 0 ]; then
		echo "$1: no listing"
	elif cmp -s "$2" "$3"; then
		echo "$1: tree identical to the one the guest wrote ($n entries)"
	else
		echo "$1: tree DIFFERS from the one the guest wrote"
		diff "$2" "$3" | head -n 10
	fi
}

# kl_log_shape LABEL IMG [MIN]: needs_recovery, journal format, committed
# transactions (at least MIN, default 20), whether the log wraps, live
# mapped blocks (at least 10), from stock logdump and the oracle
kl_log_shape() {
	local label=$1 img=$2 min=${3:-20} n start wraps
	echo "$label: $(lazy_status "$img" | sed 's/^journal start [0-9]*, //')"
	echo "$label: $(journal_features "$img")"
	"$STOCK_DEBUGFS" -R "logdump -a" "$img" >"$TMPD/.logdump" 2>/dev/null
	n=$(awk -f "$ORACLE_AWK" -v mode=end "$TMPD/.logdump" | awk '{print $2}')
	start=$(awk '/^Journal starts at block/ {sub(/,/, "", $5); print $5}' "$TMPD/.logdump")
	wraps=no
	awk -v s="$start" '/^Found expected sequence/ && $NF + 0 < s + 0 {f = 1}
		END {exit !f}' "$TMPD/.logdump" && wraps=yes
	if [ "${n:-0}" -ge "$min" ]; then
		echo "$label: log: at least $min committed transactions, wraps: $wraps"
	else
		echo "$label: log: only ${n:-0} committed transactions, wraps: $wraps"
	fi
	# live map entries (the oracle's): the home copies really are stale
	n=$(awk -f "$ORACLE_AWK" "$TMPD/.logdump" | wc -l)
	if [ "$n" -ge 10 ]; then
		echo "$label: log: at least 10 live mapped blocks"
	else
		echo "$label: log: only $n live mapped blocks"
	fi
}

# kl_our_migration LABEL IMG OUT: OUT = IMG with lazy_journal set, then
# migrated by our e2fsck -E journal_only -y; compared with stock replay
kl_our_migration() {
	local label=$1 img=$2 out=$3 rc
	cp --sparse=always "$img" "$out"
	set_lazy "$out"
	"$OUR_E2FSCK" -E journal_only -y "$out" >"$TMPD/.mig.out" 2>&1
	rc=$?
	stock_copy "$img" "$TMPD/.S.img"
	stock_replay "$TMPD/.S.img"
	echo "$label: our e2fsck -E journal_only -y (lazy copy): exit $rc, vs stock replay: $(cmp_outside_journal "$out" "$TMPD/.S.img")"
	echo "$label: after our migration: $(lazy_status "$out")"
	# doc/contract.md §7.3: Debian's e2fsck takes what journal_only leaves
	"$E2FSPROGS_SBIN/e2fsck" -fn "$out" >"$TMPD/.mig.out" 2>&1
	echo "$label: Debian's e2fsck -fn after our migration: exit $?"
}

# kl_fsck_after LABEL IMG: after a guest unmounted IMG cleanly: its state,
# stock e2fsck -fn (lazy_journal hidden from it), our e2fsck -fn
kl_fsck_after() {
	local label=$1 img=$2 rc
	echo "$label: $(lazy_status "$img")"
	fsck_clean_n "$label" "$img"
	"$OUR_E2FSCK" -fn "$img" >"$TMPD/.ourn.out" 2>&1
	rc=$?
	echo "$label: our e2fsck -fn: exit $rc"
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.ourn.out" | head -n 5
}

# kl_sb_mask_free IMG: zero the free block and inode counts of the primary
# superblock (the kernel recomputes them from the group descriptors at
# mount; stock replay keeps the logged superblock's stale values).  The
# checksum is left alone: cmp_outside_journal masks it.
kl_sb_mask_free() {
	perl -e '
		open(my $fh, "+<", $ARGV[0]) or die; binmode $fh;
		for my $o (0x0C, 0x10, 0x158) {
			seek($fh, 1024 + $o, 0); print $fh "\0\0\0\0";
		}
		close($fh);' "$1"
}

# kl_cmp_kernel_replay IMG_KERNEL IMG_STOCK: compare a copy replayed by the
# kernel with stock replay, free counts masked (see kl_sb_mask_free)
kl_cmp_kernel_replay() {
	cp --sparse=always "$1" "$TMPD/.K1.img"
	cp --sparse=always "$2" "$TMPD/.K2.img"
	kl_sb_mask_free "$TMPD/.K1.img"
	kl_sb_mask_free "$TMPD/.K2.img"
	cmp_outside_journal "$TMPD/.K1.img" "$TMPD/.K2.img"
	rm -f "$TMPD/.K1.img" "$TMPD/.K2.img"
}

# kl_logged_sb_flag LABEL IMG: does the current superblock (read through
# the jmap by our debugfs: the copy in the log when there is one) carry
# lazy_journal?
kl_logged_sb_flag() {
	local where=home sbblk=0
	[ "$(img_bs "$2")" = 1024 ] && sbblk=1
	"$OUR_DEBUGFS" -R "jlookup $sbblk" "$2" 2>/dev/null | grep -q 'journal block' &&
		where=logged
	if "$OUR_DEBUGFS" -R stats "$2" 2>/dev/null | grep '^Filesystem features:' | grep -qw lazy_journal; then	# the view names the bit
		echo "$1: the $where superblock carries lazy_journal"
	else
		echo "$1: the $where superblock does NOT carry lazy_journal"
	fi
}
