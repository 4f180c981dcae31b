# shellcheck shell=bash
#
# lib.sh --- what the bench scripts share.  Sourced by each, after
# `set -eu`:  . "$(dirname "$0")/lib.sh"
#
# The environment is the test runners' (tests/lib/run_env.sh): SRCDIR,
# BUILDDIR (default: the current directory if it has debugfs/debugfs, else
# the source tree), E2FSPROGS_SBIN (stock tools, default /usr/sbin),
# E2FSCK_CONFIG=/dev/null, TZ=GMT, LC_ALL=C.  Sets:
#   top, builddir, sbin   SRCDIR, BUILDDIR, E2FSPROGS_SBIN
#   tmp                   a scratch directory under TMPDIR, removed at exit
# and the functions below.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/run_env.sh
. "$top/tests/lib/run_env.sh" "$top"
builddir=$BUILDDIR
sbin=$E2FSPROGS_SBIN
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lj-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# bench_test_lib: the test helpers (tests/test_lib.sh: mk_lazy_meta,
# stock_copy, set_lazy, lazy_status, ...), their scratch directory $tmp.
bench_test_lib() {
	export TMPD=$tmp
	# shellcheck source=tests/test_lib.sh
	. "$top/tests/test_lib.sh"
}

# bench_us: the wall clock in microseconds (no fork).
bench_us() {
	echo "${EPOCHREALTIME/./}"
}

# bench_run OK OUT CMD...: run CMD, its stdout and stderr into OUT; its
# exit status must be one of the comma-separated list OK (e.g. "0", or
# "0,1" where e2fsck may say it corrected something), or the script fails
# (exit 1), naming the command, its status and the end of its output.  A
# timed run whose tool fails is never timed as if it had worked.  (Called
# inside $(...) the exit ends that subshell and the assignment fails, which
# set -e turns into the script's exit; never call it on the left of a
# pipe, where the status is lost.)
bench_run() {
	local ok=$1 out=$2 rc=0
	shift 2
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	case ",$ok," in
	*",$rc,"*) return 0 ;;
	esac
	{
		echo "bench: '$*' exited $rc (expected $ok); the end of its output:"
		tail -n 20 "$out"
	} >&2
	exit 1
}

# bench_reported_kib: the memory the guest's balloon has reported free
# to the host so far (KiB; "-" without free page reporting).  The host
# backs such a page again at its first touch: page cache made of it cost
# 12 us per 4 KiB page more in one measurement (dd, doc/benchmarks.md,
# 3 Dec), so a run during which much was reported is not like one
# during which nothing was.
bench_reported_kib() {
	cat /sys/module/page_reporting/parameters/reported_kib 2>/dev/null ||
		echo -
}

# bench_median: the median of the numbers on stdin, one a line.
bench_median() {
	sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

# bench_mount_point: $mnt, a mount point under $tmp, unmounted (if it
# still is) before $tmp is removed at exit.
bench_mount_point() {
	mnt=$tmp/mnt
	mkdir -p "$mnt"
	trap 'umount "$mnt" 2>/dev/null || true; rm -rf "$tmp"' EXIT
}

# bench_mnt_up kernel|FUSE2FS IMG: IMG mounted on $mnt by the kernel's
# ext4 (on a loop device) or by the fuse2fs at the path FUSE2FS.
bench_mnt_up() {
	if [ "$1" = kernel ]; then
		bench_run 0 "$tmp/mount.out" mount -t ext4 -o loop "$2" "$mnt"
	else
		bench_run 0 "$tmp/mount.out" "$1" "$2" "$mnt"
	fi
}

# bench_mnt_down IMG: $mnt unmounted, and the daemon that served IMG (if
# one did) gone.
bench_mnt_down() {
	bench_run 0 "$tmp/umount.out" umount "$mnt"
	while pgrep -f "fuse2fs $1 " >/dev/null; do sleep 0.1; done
}

# bench_drop_caches: dirty pages written, then the page cache dropped.
bench_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# bench_stock_image IMG SIZE [MKE2FS_OPTION...]: a fresh sparse ext4 image
# of SIZE (truncate -s) by stock mke2fs, 4 KiB blocks, the least stock work.
bench_stock_image() {
	local img=$1 size=$2
	shift 2
	rm -f "$img"
	truncate -s "$size" "$img"
	"$sbin/mke2fs" -q -F -t ext4 -b 4096 "$@" \
		-E lazy_itable_init=1,nodiscard "$img"
}

# bench_lazy_image IMG SIZE EXTENDED: a fresh sparse image by our
# `mke2fs -O lazy_journal`, 4 KiB blocks, -E EXTENDED, -J size=$JSIZE when
# JSIZE is set; its output is shown only when it fails.
bench_lazy_image() {
	local jopt=()
	[ -n "${JSIZE:-}" ] && jopt=(-J "size=$JSIZE")
	truncate -s "$2" "$1"
	"$builddir/misc/mke2fs" -q -F -t ext4 -b 4096 -O lazy_journal \
		"${jopt[@]}" -E "$3" "$1" >"$tmp/mke2fs.out" 2>&1 ||
		{ cat "$tmp/mke2fs.out" >&2; exit 1; }
}

# bench_journal_blocks IMG: the journal's size in blocks (stock dumpe2fs).
bench_journal_blocks() {
	"$sbin/dumpe2fs" -h "$1" 2>/dev/null |
		awk '/^Total journal blocks:/ {print $4}'
}

# bench_random_log IMG LOGGED BASE STRIDE OPEN: LOGGED block copies logged
# into IMG's journal by stock debugfs -w: transactions of 64 distinct
# blocks drawn (srand 42) from a pool of LOGGED/10 blocks BASE,
# BASE+STRIDE, ...; contents from a 64-block random file; a commit, then
# "jo", after every 64 transactions.  OPEN: the first command ("jo" or
# "jo -c").  Leaves $tmp/data and $tmp/cmds.
bench_random_log() {
	local img=$1 n=$2 base=$3 stride=$4 open=$5
	head -c $((64 * 4096)) /dev/urandom >"$tmp/data"
	awk -v n="$n" -v u="$((n / 10))" -v f="$tmp/data" -v base="$base" \
	    -v stride="$stride" -v open="$open" 'BEGIN {
		srand(42); print open;
		for (t = 0; t < n / 64; t++) {
			l = "";
			delete seen;
			for (k = 0; k < 64; ) {
				b = base + int(rand() * u) * stride;
				if (b in seen) continue;
				seen[b] = 1; l = l (k ? "," : "") b; k++;
			}
			print "jw -b " l " " f;
			if (t % 64 == 63) { print "jc"; print "jo" }
		}
		print "jc" }' >"$tmp/cmds"
	"$sbin/debugfs" -w -f "$tmp/cmds" "$img" >/dev/null 2>&1
}
