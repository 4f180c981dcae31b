# shellcheck shell=bash
#
# posix.sh --- the differential tests against the kernel (tests/u_posix_*).
# Source after test_lib.sh and mount.sh.  The same calls
# (tests/progs/posix_diff.py) run on the kernel's ext4 on a loop device
# (the oracle) and on our fuse2fs, lazy and plain; every call's answer
# and the final tree must be the kernel's, but for the differences listed
# with their reason in tests/lib/posix_allowed.txt; so must, after each
# call, which times it changed on the inodes it named and their parents
# (POSIX_TIMES=values: not compared, for 128-byte inodes' whole
# seconds).  Root, /dev/fuse and a loop device are needed: without them
# the test FAILS, saying why (it is never skipped).
#
#   posix_need              fail (exit 1) unless root, /dev/fuse, FUSE
#                           and loop mounts are here
#   posix_mkfs IMG MIB [lazy]
#                           an image of MIB MiB, 4 KiB blocks, 256-byte
#                           inodes and NINODES inodes (default 16384);
#                           lazy: our mke2fs -O lazy_journal, else stock;
#                           POSIX_FEATURES (mke2fs -O) added when set;
#                           POSIX_ISIZE: other inode size (-I 128)
#   posix_kernel NAME IMG WHAT [ARG...]
#                           WHAT (calls, random SEED N, limits, inline,
#                           times) on the
#                           kernel's ext4: NAME.out, NAME.tree
#   posix_ours NAME IMG "OPTS" WHAT [ARG...]
#                           the same on our fuse2fs -o OPTS (on
#                           $POSIX_FUSE2FS when set: POSIX_FUSE2FS=
#                           /usr/bin/fuse2fs shows the test fail on stock)
#   posix_compare LABEL KNAME ONAME
#                           one line: how many calls, how many differ,
#                           how many of those are allowed; the others
#                           said and a non-zero status
#   posix_fsck LABEL IMG lazy|plain
#                           lazy: stock replay of a copy then stock
#                           e2fsck -fn, and our e2fsck -fn on IMG;
#                           plain: stock e2fsck -fn

POSIX_PY=$SRCDIR/tests/progs/posix_diff.py
POSIX_ALLOWED=$SRCDIR/tests/lib/posix_allowed.txt
NINODES=${NINODES:-16384}

posix_need() {
	local why=
	if [ "$(id -u)" != 0 ]; then
		why="not root"
	elif [ ! -c /dev/fuse ]; then
		why="no /dev/fuse"
	elif ! command -v python3 >/dev/null; then
		why="no python3"
	elif ! losetup -f >/dev/null 2>&1; then
		why="no free loop device"
	elif [ ! -x "$STOCK_FUSE2FS" ]; then
		why="no stock fuse2fs ($STOCK_FUSE2FS)"
	fi
	chmod 755 "$TMPD"	# the users reach their mount points
	if [ -n "$why" ]; then
		echo "FAILED: the kernel comparison cannot run: $why" >&2
		echo "FAILED: the kernel comparison cannot run: $why"
		exit 1
	fi
}

posix_mkfs() {
	local img=$1 mib=$2 kind=${3:-plain} f=()
	rm -f "$img"
	truncate -s "${mib}M" "$img"
	[ -n "${POSIX_FEATURES:-}" ] && f=(-O "$POSIX_FEATURES")
	if [ "$kind" = lazy ]; then
		"$OUR_MKE2FS" -q -F -t ext4 -b 4096 -I "${POSIX_ISIZE:-256}" \
			-N "$NINODES" \
			-O lazy_journal "${f[@]}" -E lazy_itable_init=1 "$img"
	else
		"$STOCK_MKE2FS" -q -F -t ext4 -b 4096 -I "${POSIX_ISIZE:-256}" \
			-N "$NINODES" \
			"${f[@]}" -E lazy_itable_init=1 "$img"
	fi
}

# posix_run NAME DIR WHAT ARG...: the calls, then the tree
posix_run() {
	local name=$1 dir=$2 what=$3
	shift 3
	python3 "$POSIX_PY" "$what" "$dir" "$@" >"$name.out" 2>"$name.err" ||
		{ echo "$name: posix_diff.py $what failed: $(tail -n 1 "$name.err")"; return 1; }
	python3 "$POSIX_PY" tree "$dir" >"$name.tree" 2>>"$name.err" ||
		{ echo "$name: posix_diff.py tree failed: $(tail -n 1 "$name.err")"; return 1; }
}

posix_kernel() {
	local name=$1 img=$2
	shift 2
	mkdir -p "k.$name"
	loop_mount rw "$img" "k.$name" || {
		echo "FAILED: kernel mount of $img: $(head -n 1 "$TMPD/.kmount.err")"
		exit 1
	}
	KMOUNTS+=("k.$name")
	posix_run "$name" "k.$name" "$@" || return 1
	umount "k.$name"
}

posix_ours() {
	local name=$1 img=$2 opts=$3 o=()
	shift 3
	[ -n "$opts" ] && o=(-o "$opts")
	# an absolute image name: fumount waits for "fuse2fs IMG" to exit,
	# which no other test's daemon may match
	fmount "${POSIX_FUSE2FS:-$OUR_FUSE2FS}" "$PWD/$img" "m.$name" "${o[@]}" ||
		exit 1
	posix_run "$name" "m.$name" "$@" || return 1
	fumount "m.$name" || return 1
}

posix_compare() {
	python3 "$POSIX_PY" compare "$POSIX_ALLOWED" "$1" "$2.out" "$3.out" \
		"$2.tree" "$3.tree"
}

posix_fsck() {
	local label=$1 img=$2 kind=$3 rc
	if [ "$kind" = lazy ]; then
		stock_copy "$img" "$TMPD/.R.img"
		stock_replay "$TMPD/.R.img"
		rc=$?
		# the replayed superblock is the logged one, lazy bit included
		# (stock replays, then refuses the bit: exit 12)
		[ "$rc" -le 1 ] || [ "$rc" -eq 12 ] ||
			echo "$label: stock replay: exit $rc"
		clear_compat_bits "$TMPD/.R.img" 0x2000
		"$STOCK_E2FSCK" -fn "$TMPD/.R.img" >"$TMPD/.fsck.out" 2>&1
		rc=$?
		echo "$label: stock replay, stock e2fsck -fn: exit $rc"
		[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.fsck.out" | head -n 5
		rm -f "$TMPD/.R.img"
		"$OUR_E2FSCK" -fn "$img" >"$TMPD/.fsck.out" 2>&1
		rc=$?
		echo "$label: our e2fsck -fn: exit $rc"
	else
		"$STOCK_E2FSCK" -fn "$img" >"$TMPD/.fsck.out" 2>&1
		rc=$?
		echo "$label: stock e2fsck -fn: exit $rc"
	fi
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.fsck.out" | head -n 5
}
