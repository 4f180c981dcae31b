#!/bin/bash
#
# run.sh --- `make check-kernel`: the real Linux kernel as referee.
#
# Usage: tests/kernel/run.sh [TEST_NAME...]
#
# Boots the distribution kernel (Debian 12: linux-image-amd64, 6.1) under
# qemu-system-x86_64 (tests/kernel/vm.sh) and runs every
# tests/kernel/<name>/script in a fresh scratch directory ($TMPD), comparing
# its stdout with tests/kernel/<name>/expect, as tests/run_tests.sh does.
# A script that exits 77 (a skip in tests/run_tests.sh) FAILS here, with
# its reason (the last line of its stderr): the kernel tests never skip,
# with or without LJ_REQUIRE_ALL.  Before any test, a smoke boot checks
# that the guest works; if qemu, the kernel, busybox-static or cpio is
# missing, or the guest cannot boot, the suite FAILS with a message saying
# so (it never skips).
#
# Environment: as tests/run_tests.sh (E2FSPROGS_SBIN, SRCDIR, BUILDDIR,
# KEEP_OUTPUT=1), plus vm.sh's (VM_CACHE, VM_KERNEL, VM_TIMEOUT, VM_ACCEL)
# and KERNEL_JOBS (tests run in parallel, default: the number of CPUs, at
# most 4; each guest is one single-threaded qemu).

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/run_env.sh
. "$here/../lib/run_env.sh" "$here/../.."
unset MKE2FS_CONFIG

# shellcheck source=tests/kernel/vm.sh
. "$here/vm.sh"

# secs A B: B - A, seconds with one decimal
secs() {
	awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'
}

fail_setup() {
	echo "check-kernel: FAILED: $*"
	echo "check-kernel: the kernel tests need qemu-system-x86, linux-image-amd64,"
	echo "check-kernel: busybox-static and cpio (Debian 12: apt-get install -y"
	echo "check-kernel: qemu-system-x86 linux-image-amd64 busybox-static cpio)"
	exit 1
}

for b in "$BUILDDIR/debugfs/debugfs" "$BUILDDIR/e2fsck/e2fsck" \
	 "$BUILDDIR/misc/mke2fs" "$BUILDDIR/tests/progs/lj_apply" \
	 "$BUILDDIR/tests/progs/lj_getxattrs" "$BUILDDIR/tests/progs/lj_setattrs"; do
	[ -x "$b" ] || fail_setup "$b is not built (run make check-kernel)"
done

t0=$(date +%s.%N)
errf=$(mktemp "${TMPDIR:-/tmp}/lj-ksetup.XXXXXX")
if ! vm_setup 2>"$errf"; then
	err=$(cat "$errf")
	rm -f "$errf"
	fail_setup "cannot prepare the guest kernel: $err"
fi
rm -f "$errf"
t1=$(date +%s.%N)
accel=$(vm_accel_args)
accel=${accel#-accel }
accel=${accel%% *}

# smoke boot: the modules load, ext4 is there, the disk shows up, the
# output travels back, the exit status too
smoke=$(mktemp -d "${TMPDIR:-/tmp}/lj-ksmoke.XXXXXX")
cat >"$smoke/guest.sh" <<'EOF'
grep -qw ext4 /proc/filesystems || { echo "no ext4 in /proc/filesystems"; exit 1; }
[ -b "$DISK0" ] || { echo "no test disk"; exit 1; }
[ -w /proc/sysrq-trigger ] || { echo "no /proc/sysrq-trigger"; exit 1; }
echo "guest: $(uname -r)"
exit 7
EOF
truncate -s 1M "$smoke/disk.img"
smoke_out=$(VM_CONSOLE="$smoke/console" vm_run -t 120 "$smoke/guest.sh" "$smoke/disk.img" 2>"$smoke/err")
rc=$?
if [ "$rc" -ne 7 ] || ! grep -q "^guest: $VM_VERSION\$" <<<"$smoke_out"; then
	echo "check-kernel: FAILED: the guest did not boot and run its script (status $rc)"
	printf '%s\n' "$smoke_out" | head -n 10
	head -n 40 "$smoke/err"
	rm -rf "$smoke"
	exit 1
fi
rm -rf "$smoke"
t2=$(date +%s.%N)
printf 'check-kernel: kernel %s, qemu %s (%s); cache ready in %ss, smoke boot %ss\n' \
	"$VM_VERSION" "$("$VM_QEMU" --version | awk 'NR == 1 {print $4}')" "$accel" \
	"$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")"

mapfile -t tests < <(test_names "$here" "$@")

jobs=${KERNEL_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -lt 1 ] && jobs=1
results=$(mktemp -d "${TMPDIR:-/tmp}/lj-kresults.XXXXXX")

# run_one NAME: run a test, leave its verdict in $results/NAME.*
run_one() {
	local t=$1 dir=$here/$1 tmpd s e rc
	if [ ! -f "$dir/script" ] || [ ! -f "$dir/expect" ]; then
		echo "$t: failed (no such test, or no script/expect)" >"$results/$t.verdict"
		return
	fi
	tmpd=$(mktemp -d "${TMPDIR:-/tmp}/lj-ktest.XXXXXX")
	s=$(date +%s.%N)
	(cd "$tmpd" && TMPD=$tmpd bash "$dir/script") >"$tmpd/.out" 2>"$tmpd/.stderr" </dev/null
	rc=$?
	e=$(date +%s.%N)
	local secs
	secs=$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.0f", b - a}')
	if [ "$rc" -eq 77 ]; then
		echo "$t: failed [${secs}s] (exit 77, a skip: $(tail -n 1 "$tmpd/.stderr"); the kernel tests never skip)" >"$results/$t.verdict"
		echo failed >"$results/$t.status"
	elif [ "$rc" -eq 0 ] && cmp -s "$dir/expect" "$tmpd/.out"; then
		echo "$t: ok [${secs}s]" >"$results/$t.verdict"
		echo ok >"$results/$t.status"
	else
		{
			echo "$t: failed [${secs}s]$([ "$rc" -ne 0 ] && echo " (script exit status $rc)")"
			diff -u "$dir/expect" "$tmpd/.out" | sed -n '3,40p'
			if [ -s "$tmpd/.stderr" ]; then
				echo "--- stderr:"
				tail -n 20 "$tmpd/.stderr"
			fi
		} >"$results/$t.verdict"
		echo failed >"$results/$t.status"
		if [ "${KEEP_OUTPUT:-}" = 1 ]; then
			mkdir -p "$BUILDDIR/tests/out"
			cp "$tmpd/.out" "$BUILDDIR/tests/out/kernel-$t.out"
		fi
	fi
	rm -rf "$tmpd"
}

running=0
for t in "${tests[@]}"; do
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

passed=0
failed=0
for t in "${tests[@]}"; do
	cat "$results/$t.verdict"
	case $(cat "$results/$t.status" 2>/dev/null) in
	ok) passed=$((passed + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done
rm -rf "$results"
t3=$(date +%s.%N)
printf 'check-kernel: %d passed, %d failed (%ss, %d jobs)\n' \
	"$passed" "$failed" "$(secs "$t0" "$t3")" "$jobs"
[ "$failed" -eq 0 ]
