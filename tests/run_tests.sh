#!/bin/bash
#
# run_tests.sh --- run the e2fsprogs-style scenario tests.
#
# Usage: tests/run_tests.sh [TEST_NAME...]
#
# Each tests/<name>/script (bash) runs in a fresh scratch directory ($TMPD,
# removed afterwards) with TZ=GMT and LC_ALL=C.  Its stdout is compared with
# tests/<name>/expect; a test passes only if its output matches AND its
# script exits 0 (a script that ends on a failed command fails).  Each
# verdict line ends with the test's wall time ("[12s]").  A script
# that exits 77 is reported as skipped (what it needs is not here: e.g. a
# loop device), with the last line of its stderr (the reason), and again in
# a list of the skips after the totals.  A script exits 77 only before its
# first check: a dependency lost half-way is a failure (tests/lib/device.sh).
# Environment:
#   E2FSPROGS_SBIN  stock e2fsprogs binaries (default /usr/sbin)
#   SRCDIR          source tree (default: the parent of this script)
#   BUILDDIR        build tree with debugfs/debugfs and tests/progs/lj_apply
#                   (default: the current directory if it has debugfs/debugfs,
#                   else SRCDIR)
#   LJ_SANITIZED    1: the binaries are built with sanitizers (make check in
#                   build-asan sets it); a test with an expect.sanitized
#                   is then compared with that (the test judges less
#                   there: its script says what)
#   LJ_TMPFS        where the crash tests (c_*) make their scratch directory
#                   (default /dev/shm when it is a writable tmpfs; empty:
#                   TMPDIR like the others)
#   KEEP_OUTPUT=1   keep <name>.out files in BUILDDIR/tests/out on failure
#   LJ_REQUIRE_ALL=1  (.ci/run sets it) the run fails when a test skipped
#                   that is not in the allowed-skip list: every line
#                   "NAME REASON" of LJ_SKIPS_ALLOWED (default
#                   tests/skips_allowed; # starts a comment)

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/run_env.sh
. "$here/lib/run_env.sh" "$here/.."

mapfile -t tests < <(test_names "$here" "$@")

# allowed_skip NAME: the reason the allowed-skip list gives for NAME
# (status 1 when NAME is not listed)
skips_allowed=${LJ_SKIPS_ALLOWED:-$here/skips_allowed}
allowed_skip() {
	[ -f "$skips_allowed" ] || return 1
	awk -v t="$1" '{ sub(/#.*/, "") } $1 == t { $1 = ""; sub(/^ +/, "")
		print ($0 == "" ? "no reason given" : $0); found = 1; exit }
		END { exit !found }' "$skips_allowed"
}

# The crash tests sync their images thousands of times, and their verdicts
# come from the crash record, not from what the device kept: on a tmpfs a
# flush costs nothing (c_crash_persist: 155 s on the disk, 48 s there).
# The other tests stay on TMPDIR: in a run of the whole suite on a tmpfs
# they were no faster (930 s against 1041 s, all of it the crash tests').
tmpfs=${LJ_TMPFS-/dev/shm}
if [ -z "$tmpfs" ] || [ ! -w "$tmpfs" ] ||
   [ "$(stat -f -c %T "$tmpfs" 2>/dev/null)" != tmpfs ]; then
	tmpfs=
fi

passed=0
failed=0
skipped=0
skips=()	# "NAME: reason", every skip
unlisted=()	# the skipped tests the allowed-skip list lacks
outdir=$BUILDDIR/tests/out
# Each failure's report, printed again after the summary: a CI log shows
# only its tail, and a failure in the middle of the run was lost there.
reports=$(mktemp "${TMPDIR:-/tmp}/lj-failures.XXXXXX")
trap 'rm -f "$reports"' EXIT
for t in "${tests[@]}"; do
	dir=$here/$t
	expect=$dir/expect
	[ "${LJ_SANITIZED:-}" = 1 ] && [ -f "$dir/expect.sanitized" ] &&
		expect=$dir/expect.sanitized
	if [ ! -f "$dir/script" ] || [ ! -f "$expect" ]; then
		echo "$t: failed (no such test, or no script/expect)" | tee -a "$reports"
		failed=$((failed + 1))
		continue
	fi
	scratch=${TMPDIR:-/tmp}
	case $t in c_*) scratch=${tmpfs:-$scratch} ;; esac
	TMPD=$(mktemp -d "$scratch/lj-test.XXXXXX")
	export TMPD
	out=$TMPD/.out
	t0=$SECONDS
	(cd "$TMPD" && bash "$dir/script") >"$out" 2>"$TMPD/.stderr" </dev/null
	rc=$?
	secs=$((SECONDS - t0))
	if [ "$rc" -eq 77 ]; then
		why=$(tail -n 1 "$TMPD/.stderr")
		if allowed=$(allowed_skip "$t"); then
			echo "$t: SKIPPED (${why:-no reason printed}) [allowed: $allowed]"
		else
			echo "$t: SKIPPED (${why:-no reason printed})"
			unlisted+=("$t")
		fi
		skips+=("$t: ${why:-no reason printed}")
		skipped=$((skipped + 1))
	elif [ "$rc" -eq 0 ] && cmp -s "$expect" "$out"; then
		echo "$t: ok [${secs}s]"
		passed=$((passed + 1))
	else
		{
			if [ "$rc" -ne 0 ]; then
				echo "$t: failed (script exit status $rc) [${secs}s]"
			else
				echo "$t: failed [${secs}s]"
			fi
			diff -u "$expect" "$out" | sed -n '3,40p'
			if [ -s "$TMPD/.stderr" ]; then
				echo "--- stderr:"
				head -n 10 "$TMPD/.stderr"
			fi
		} | tee -a "$reports"
		if [ "${KEEP_OUTPUT:-}" = 1 ]; then
			mkdir -p "$outdir"
			cp "$out" "$outdir/$t.out"
		fi
		failed=$((failed + 1))
	fi
	rm -rf "$TMPD"
done

echo "$passed passed, $failed failed, $skipped skipped"
cat "$reports"
for s in "${skips[@]}"; do
	echo "skipped: $s"
done
if [ "${LJ_REQUIRE_ALL:-}" = 1 ] && [ "${#unlisted[@]}" -gt 0 ]; then
	echo "LJ_REQUIRE_ALL=1: FAILED: ${#unlisted[@]} skipped test(s) not in ${skips_allowed#"$SRCDIR"/}: ${unlisted[*]}"
	exit 1
fi
[ "$failed" -eq 0 ]
