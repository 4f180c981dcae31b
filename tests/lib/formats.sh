# shellcheck shell=bash
#
# formats.sh --- the format matrix (issue 39; tests/u_mount_formats and
# u_mount_formats_refused).  Source after test_lib.sh, mount.sh and
# posix.sh.  Users bring the file systems they have: for each row below
# a 64 MiB image made by stock mke2fs with the row's options (1024
# inodes, lazy_itable_init).
#
#   formats_matrix served|refused
#       served rows: the compact call set (tests/progs/posix_diff.py
#       formats) on the kernel's ext4 on a loop device (the oracle), then
#       on our fuse2fs on an image made the same way, plain, and lazy (our
#       mke2fs -O lazy_journal with the same options) where the row says:
#       every answer and the final tree the kernel's; stock e2fsck -fn
#       clean after (lazy: after stock replay; and our e2fsck -fn).
#       refused rows: a file written by the kernel (by stock debugfs where
#       the kernel cannot mount the row), our read-write mount exits 32
#       with one line naming the feature and writes nothing (cmp), and
#       -o ro serves the file as written; refused:crashed rows (fast
#       commits to replay, inodes in the orphan file): see crashed().
#       Status 1 when a row fails.
#   FORMATS_ONLY (a regular expression) runs only the rows it matches;
#   FORMATS_PENDING=skip leaves out the rows marked pending (served once
#   the branch named is merged: they fail until then).

# The rows: name | verdict | lazy | pending | mke2fs options | kernel's.
#   verdict: served; refused:FEATURE; refused:crashed (what a crash of
#            the kernel's ext4 leaves, refused until stock e2fsck -fy)
#   lazy:    yes: also on our mke2fs -O lazy_journal's image
#   pending: the branch that makes the row pass (- none)
#   kernel's: the kernel's image options when the kernel cannot mount the
#            row's (this one has no CONFIG_QUOTA: the same without quota;
#            stock e2fsck -fn still checks our quota files)
ROWS='
ext4|served|yes|-|-t ext4 -b 4096 -I 256|
1k|served|yes|-|-t ext4 -b 1024 -I 256|
2k|served|yes|-|-t ext4 -b 2048 -I 256|
i128|served|yes|-|-t ext4 -b 4096 -I 128|
ext3|served|yes|-|-t ext3 -b 4096 -I 256|
ext3-1k|served|yes|-|-t ext3 -b 1024 -I 128|
bigalloc|served|yes|-|-t ext4 -b 4096 -I 256 -O bigalloc -C 16384|
quota|served|yes|-|-t ext4 -b 4096 -I 256 -O quota,project|-t ext4 -b 4096 -I 256
inline|served|yes|-|-t ext4 -b 4096 -I 256 -O inline_data|
large_dir|served|yes|-|-t ext4 -b 4096 -I 256 -O large_dir|
nocsum|served|yes|-|-t ext4 -b 4096 -I 256 -O ^metadata_csum|
no64bit|served|yes|-|-t ext4 -b 4096 -I 256 -O ^64bit|
noflex|served|yes|-|-t ext4 -b 4096 -I 256 -O ^flex_bg|
nohuge|served|yes|-|-t ext4 -b 4096 -I 256 -O ^huge_file|
nodirindex|served|yes|-|-t ext4 -b 1024 -I 256 -O ^dir_index|
orphan_file|served|yes|-|-t ext4 -b 4096 -I 256 -O orphan_file|
fast_commit|served|no|-|-t ext4 -b 4096 -I 256 -O fast_commit|
nojournal|served|no|-|-t ext4 -b 4096 -I 256 -O ^has_journal|
ext2|served|no|-|-t ext2 -b 1024 -I 128|
casefold|refused:casefold|yes|-|-t ext4 -b 4096 -I 256 -O casefold|
encrypt|refused:encrypt|yes|-|-t ext4 -b 4096 -I 256 -O encrypt|
verity|refused:verity|yes|-|-t ext4 -b 4096 -I 256 -O verity|
ea_inode|refused:ea_inode|yes|-|-t ext4 -b 4096 -I 256 -O ea_inode|
fast_commit|refused:crashed|no|-|-t ext4 -b 4096 -I 256 -O fast_commit|
orphan_file|refused:crashed|no|-|-t ext4 -b 4096 -I 256 -O orphan_file|
'

# Differences the comparison allows, besides tests/lib/posix_allowed.txt
# (a regex on the kernel's line, a tab, the reason): every row's, then
# one row's.
allowed() {
	cat "$POSIX_ALLOWED"
	case $1 in
	inline) printf '%s\t%s\n' \
		"^[0-9]+ (files|xattr) root (blocks\\('d/small'\\): ok 0K|statfs_delta)" \
		"a new small file stays in its inode on the kernel's ext4; ours gives every new file a block (files the kernel left inline are served in place: u_posix_inline)" \
		"^[0-9]+ lnk root statfs_delta" \
		"a new directory's entries stay in its inode on the kernel's ext4 longer: ours moves them to a block when i_block is full" \
		"^[0-9]+ misc root getflags\\('d'\\): ok N" \
		"the same (the directory's inline-data flag)" \
		"^[0-9]+ dir root blocks\\('h'\\): " \
		"the same directory, begun in its inode: it leaves the inode at another name on the kernel's (above), so its first block fills and its leaves split at other names (20K against the kernel's 16K)" ;;
	esac
}

# mkimg IMG stock|lazy OPTIONS...: 64 MiB, 1024 inodes, lazy itable init,
# one hash seed for every image: a directory's index splits where the
# kernel's does (fuse2fs/htree.c), its count of blocks compared
mkimg() {
	local img=$1 kind=$2 prog=$STOCK_MKE2FS lj=()
	shift 2
	[ "$kind" = lazy ] && prog=$OUR_MKE2FS lj=(-O lazy_journal)
	rm -f "$img"
	truncate -s 64M "$img"
	"$prog" -q -F "$@" "${lj[@]}" -N 1024 \
		-E lazy_itable_init=1,hash_seed=2f3c4d5e-6b1d-4f5e-9d1b-0f0a6b1d5c2e "$img" \
		>"$img.mkfs" 2>&1 ||
		{ echo "$img: mke2fs ($kind): $(head -n 1 "$img.mkfs")"; return 1; }
}

# served NAME LAZY "OPTIONS" "KERNEL OPTIONS"
served() {
	local n=$1 lazy=$2 opts=$3 kopts=${4:-$3} k rc=0
	# 128-byte inodes keep whole seconds: which times a call changed
	# cannot be told within a second (tests/lib/posix.sh: POSIX_TIMES)
	local -x POSIX_TIMES=${POSIX_TIMES:-}
	case " $opts " in *" -I 128 "*) POSIX_TIMES=values ;; esac
	# shellcheck disable=SC2086 # the row's options, split as written
	mkimg "$n.k.img" stock $kopts || return 1
	posix_kernel "$n.k" "$n.k.img" formats || return 1
	allowed "$n" >"$n.allowed"
	for k in plain lazy; do
		[ "$k" = lazy ] && [ "$lazy" != yes ] && continue
		# shellcheck disable=SC2086
		mkimg "$n.$k.img" "$([ $k = lazy ] && echo lazy || echo stock)" \
			$opts || return 1
		posix_ours "$n.$k" "$n.$k.img" "" formats || return 1
		# the counts go to the log (stderr): the allowed differences
		# vary with the row
		if python3 "$POSIX_PY" compare "$n.allowed" "$n $k" "$n.k.out" \
			"$n.$k.out" "$n.k.tree" "$n.$k.tree" >"$n.$k.cmp"; then
			echo "$n $k: every answer and the tree the kernel's"
			cat "$n.$k.cmp" >&2
		else
			cat "$n.$k.cmp"
			rc=1
		fi
		posix_fsck "$n $k" "$n.$k.img" "$k" | tee "$n.$k.fsck"
		grep -q 'exit [1-9]' "$n.$k.fsck" && rc=1
	done
	return $rc
}

# crashed NAME OPTIONS...: what a crash of the kernel's ext4 leaves on
# fast_commit and orphan_file: the image copied while the kernel has it
# mounted, after a file was written and fsynced (on fast_commit: kept in
# the fast-commit area) and another unlinked while open (on orphan_file:
# in the orphan file).  Our read-write mount refuses it (exit 2, one
# line, nothing written); after stock e2fsck -fy it serves the fsynced
# file, and stock e2fsck -fn is clean after our umount.
crashed() {
	local n=$1 img=$1.crash.img st=0
	shift
	mkimg "$n.live.img" stock "$@" || return 1
	mkdir -p "k.$n.live" "m.$n.crash"
	loop_mount rw "$n.live.img" "k.$n.live" ||
		{ echo "$n: kernel mount failed"; return 1; }
	KMOUNTS+=("k.$n.live")
	head -c 5000 /dev/urandom >"$n.fsynced"
	python3 - "k.$n.live" "$n.fsynced" "$n.live.img" "$img" <<'PY'
import os, shutil, sys
mnt, data, live, snap = sys.argv[1:]
os.mkdir(mnt + "/d")
os.sync()
fd = os.open(mnt + "/d/f", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, open(data, "rb").read())
g = os.open(mnt + "/d/gone", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(g, b"x" * 100000)
os.unlink(mnt + "/d/gone")
os.fsync(g)
os.fsync(fd)
shutil.copyfile(live, snap)     # the power cut
os.close(fd)
os.close(g)
PY
	umount "k.$n.live"
	rw_refused "$n crashed" "$img" "e2fsck -fy" 2 || st=1
	"$STOCK_E2FSCK" -fy "$img" >"$n.crash.fsck" 2>&1
	fmount "$OUR_FUSE2FS" "$img" "m.$n.crash" || return 1
	if cmp -s "$n.fsynced" "m.$n.crash/d/f"; then
		echo "$n crashed: after stock e2fsck -fy, ours serves the fsynced file"
	else
		echo "$n crashed: after stock e2fsck -fy, the fsynced file DIFFERS"
		st=1
	fi
	fumount "m.$n.crash"
	posix_fsck "$n crashed" "$img" plain | tee "$n.crash.fn"
	grep -q 'exit [1-9]' "$n.crash.fn" && st=1
	return $st
}

# rw_refused LABEL IMG WORDS [STATUS]: our read-write mount exits STATUS
# (32) with one line saying WORDS and writes nothing
rw_refused() {
	local l=$1 img=$2 feat=$3 want=${4:-32} rc lines
	cp "$img" "$img.before"
	mkdir -p "m.$l"
	"$OUR_FUSE2FS" "$PWD/$img" "m.$l" >"$l.rw" 2>&1
	rc=$?
	if mountpoint -q "m.$l"; then
		echo "$l: MOUNTED read-write"
		fumount "m.$l"
	fi
	lines=$(wc -l <"$l.rw")
	echo "$l: read-write: exit $rc, $lines line(s), $(grep -qwF "$feat" "$l.rw" && echo "naming $feat" || echo "NOT naming $feat: $(head -n 1 "$l.rw")"), image $(cmp -s "$img" "$img.before" && echo unchanged || echo WRITTEN)"
	[ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -qwF "$feat" "$l.rw" &&
		cmp -s "$img" "$img.before"
}

# refused NAME FEATURE LAZY "OPTIONS": a file written by the kernel (in a
# case-insensitive directory on casefold), or by stock debugfs where the
# kernel cannot mount the row (this one has no CONFIG_UNICODE); our
# read-write mount refused (and of the lazy image where our mke2fs makes
# one); -o ro reads the file as written, and writes nothing
refused() {
	local n=$1 feat=$2 lazy=$3 img=$1.img f=file ok=0
	# shellcheck disable=SC2086
	mkimg "$img" stock $4 || return 1
	head -c 10000 /dev/urandom >"$n.data"
	mkdir -p "k.$n"
	if loop_mount rw "$img" "k.$n"; then
		KMOUNTS+=("k.$n")
		if [ "$feat" = casefold ]; then
			mkdir "k.$n/cf" && chattr +F "k.$n/cf" && f=cf/File
		fi
		cp "$n.data" "k.$n/$f"
		umount "k.$n"
	else
		"$STOCK_DEBUGFS" -w -R "write $n.data $f" "$img" >/dev/null 2>&1
	fi
	rw_refused "$n" "$img" "$feat" || ok=1
	if [ "$lazy" = yes ]; then
		# shellcheck disable=SC2086
		mkimg "$n.lazy.img" lazy $4 || return 1
		rw_refused "$n lazy" "$n.lazy.img" "$feat" || ok=1
	fi
	fmount "$OUR_FUSE2FS" "$img" "m.$n" -o ro || return 1
	if cmp -s "$n.data" "m.$n/$f"; then
		echo "$n: -o ro: $f read as written"
	else
		echo "$n: -o ro: $f DIFFERS"
		ok=1
	fi
	fumount "m.$n"
	cmp -s "$img" "$img.before" || { ok=1; echo "$n: -o ro: image WRITTEN"; }
	return $ok
}

formats_matrix() {
	local fail=0 name verdict lazy pending opts kopts t0
	# only root makes calls
	export POSIX_USERS=root
	while IFS='|' read -r name verdict lazy pending opts kopts; do
		[ "${verdict%%:*}" = "$1" ] || continue
		[ -n "$name" ] || continue
		[ -n "${FORMATS_ONLY:-}" ] && ! [[ $name =~ $FORMATS_ONLY ]] && continue
		[ "$pending" != - ] && [ "${FORMATS_PENDING:-}" = skip ] && continue
		t0=$SECONDS
		case $verdict in
		served) served "$name" "$lazy" "$opts" "$kopts" || fail=1 ;;
		refused:crashed)
			# shellcheck disable=SC2086
			crashed "$name" $opts || fail=1 ;;
		refused:*) refused "$name" "${verdict#refused:}" "$lazy" "$opts" ||
			fail=1 ;;
		esac
		echo "$name: $((SECONDS - t0)) s" >&2
	done <<<"$ROWS"
	return $fail
}
