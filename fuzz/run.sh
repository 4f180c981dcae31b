#!/bin/bash
# run.sh [--smoke] SECONDS --- run every fuzz target for SECONDS, all
# targets at once (one process each; the CI machine has 2 cores, so
# with three targets each gets about 2/3 of a core).
#
# Layout (in the build tree's fuzz/ directory):
#   build/<target>          the libFuzzer binaries (make fuzz-build)
#   work/seeds/{journal,writer}/ seeds from make_seeds.sh (made when missing)
#   work/corpus/<target>/   the growing corpus, kept between runs
#   work/artifacts/<target>/ crash / timeout / leak reproducers
#   work/logs/<target>.log  libFuzzer's output of the last run
#   work/stats.txt          one line per run and target (appended)
# Committed reproducers of fixed bugs in SRCDIR/fuzz/regress/<target>/
# are run first; any failure there fails the run.
# --smoke: the corpus lives in a scratch copy and is thrown away, so CI
# runs are independent of earlier ones.  Targets named in
# FUZZ_SMOKE_SEED_ONLY (default: none) only run their seeds in smoke mode,
# for a target with a known open bug; `make fuzz` mutates them all.
# Exit status 1 if any target found
# a crash, leak, timeout or invariant violation.
set -u
smoke=0
if [ "${1:-}" = --smoke ]; then smoke=1; shift; fi
secs=${1:-300}
here=$(cd "$(dirname "$0")" && pwd)	# source fuzz/
bdir=${FUZZ_BUILDDIR:-$PWD/fuzz}	# build fuzz/
targets=${FUZZ_TARGETS:-fuzz_scan fuzz_lazyio fuzz_writer}
work=$bdir/work
mkdir -p "$work/logs"
if [ ! -d "$work/seeds/writer" ] || [ -z "$(ls -A "$work/seeds/writer" 2>/dev/null)" ]; then
	"$here/make_seeds.sh" "$work/seeds" || exit 1
fi
scratch=
if [ "$smoke" = 1 ]; then
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/lj-fuzz-smoke.XXXXXX")
	trap 'rm -rf "$scratch"' EXIT
fi
export LJ_FUZZ_TMPDIR=${LJ_FUZZ_TMPDIR:-/dev/shm}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

rc=0
# regression inputs first: each must run clean
for t in $targets; do
	reg=$here/regress/$t
	if [ ! -d "$reg" ] || [ -z "$(ls -A "$reg")" ]; then
		continue
	fi
	if ! "$bdir/build/$t" -timeout=20 "$reg"/* >"$work/logs/$t.regress.log" 2>&1; then
		echo "$t: REGRESSION: a committed reproducer fails again" \
			"(see $work/logs/$t.regress.log)"
		rc=1
	fi
done

pids=()
for t in $targets; do
	if [ "$smoke" = 1 ]; then
		corpus=$scratch/$t
	else
		corpus=$work/corpus/$t
	fi
	seeds=journal
	[ "$t" = fuzz_writer ] && seeds=writer
	extra=()
	if [ "$smoke" = 1 ] && [[ " ${FUZZ_SMOKE_SEED_ONLY-} " == *" $t "* ]]; then
		extra=(-runs=0)
	fi
	art=$work/artifacts/$t/
	mkdir -p "$corpus" "$art"
	"$bdir/build/$t" "${extra[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-max_len=1048576 -print_final_stats=1 -artifact_prefix="$art" \
		"$corpus" "$work/seeds/$seeds" >"$work/logs/$t.log" 2>&1 &
	pids+=($!)
done
i=0
for t in $targets; do
	wait "${pids[$i]}"
	st=$?
	i=$((i + 1))
	log=$work/logs/$t.log
	execs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$log" | tail -n 1)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{print $2}')
	ncorp=$(find "$work/corpus/$t" -type f 2>/dev/null | wc -l)
	[ "$smoke" = 1 ] && ncorp=$(find "$scratch/$t" -type f | wc -l)
	if [ "$st" -eq 0 ]; then
		verdict=clean
	else
		verdict="FAILED (exit $st): $(grep -m1 -E 'ERROR: |INVARIANT|runtime error' "$log")"
		rc=1
	fi
	line="$t: ${secs}s, ${execs:-0} execs, coverage ${cov:-?}, corpus $ncorp, $verdict"
	echo "$line"
	[ "$smoke" = 1 ] || echo "$(date -u +%FT%TZ) $line" >>"$work/stats.txt"
done
exit $rc
