#!/bin/bash
#
# mutants.sh --- does the crash model bite?  (make check-mutants)
#
# For each io_channel_flush call in lib/ext2fs/*.c in turn (but in the
# crash recorder and the layered channel's pass-through flush, crash_io.c
# and base_io.c: they are the model, not the library's ordering): a copy
# of the built tree with that one call replaced by 0 (sed), rebuilt, and the
# crash tests (tests/c_crash_*) run on it until one fails.  Prints a table
# "file:line  function  killed by TEST: its first unexpected line" (or
# SURVIVED); exit 1 when a mutant survives.  Usage: tests/mutants.sh [BUILDDIR] (default: cwd, a
# configured and built tree).  Temporary trees under $TMPDIR.
# MUTANT_TESTS names the tests; MUTANT_RUNNER the runner (default
# tests/run_tests.sh; the kernel sample: MUTANT_RUNNER=tests/kernel/run.sh
# MUTANT_TESTS=k_crash_sample).
set -u
build=$(cd "${1:-.}" && pwd)
[ -x "$build/tests/progs/lj_crash" ] || { echo "mutants: build $build first (make)"; exit 2; }
tests=${MUTANT_TESTS:-"c_crash_flags c_crash_migrate c_crash_writer c_crash_compact c_crash_data"}
runner=${MUTANT_RUNNER:-tests/run_tests.sh}
work=$(mktemp -d "${TMPDIR:-/tmp}/lj_mutants.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
survived=0
printf '%-34s %-22s %s\n' "mutant (flush removed)" "function" "result"
while IFS=: read -r file line _; do
	rm -rf "$work/tree"
	mkdir "$work/tree"
	(cd "$build" && tar --exclude=./.git --exclude=./tests/out \
		--exclude=./build-asan --exclude=./tests/kernel/cache \
		--exclude=./fuzz/build --exclude=./fuzz/work \
		--exclude='./tests/tmp*' -cf - .) | (cd "$work/tree" && tar -xf -)
	fn=$(awk -v n="$line" 'NR <= n && /^[a-z].*\(/ {f = $0} NR == n {
		sub(/\(.*/, "", f); sub(/.* \**/, "", f); print f; exit}' "$build/$file")
	sed -i "${line}s/io_channel_flush([^)]*)/0/" "$work/tree/$file"
	if ! grep -n "" "$work/tree/$file" | sed -n "${line}p" | grep -qv io_channel_flush; then
		printf '%-34s %-22s %s\n' "$file:$line" "$fn" "NOT APPLIED"
		survived=1
		continue
	fi
	if ! (cd "$work/tree" && make -s >/dev/null 2>&1); then
		printf '%-34s %-22s %s\n' "$file:$line" "$fn" "BUILD FAILED"
		survived=1
		continue
	fi
	# the test of the file's own operation first (only for speed)
	case $file in
	*migrate.c) first=c_crash_migrate ;;
	*log_append.c|*cleaner.c|*writer.c) first=c_crash_writer ;;
	*) first=c_crash_flags ;;
	esac
	order=$(tr ' ' '\n' <<<"$tests" | grep -vx "$first" | tr '\n' ' ')
	grep -qw "$first" <<<"$tests" && order="$first $order"
	killer=
	for t in $order; do
		if ! (cd "$work/tree" && SRCDIR=$work/tree BUILDDIR=$work/tree \
			$runner "$t" >"$work/out" 2>&1); then
			# the first line the test printed that its expect lacks
			killer="$t: $(grep -m1 '^+[^+]' "$work/out" | cut -c2-120)"
			break
		fi
	done
	if [ -n "$killer" ]; then
		printf '%-34s %-22s %s\n' "$file:$line" "$fn" "killed by $killer"
	else
		printf '%-34s %-22s %s\n' "$file:$line" "$fn" "SURVIVED"
		survived=1
	fi
done < <(cd "$build" && grep -n 'io_channel_flush(' lib/ext2fs/*.c \
	| grep -v '^lib/ext2fs/\(crash_io\|base_io\).c:' \
	| grep -v '^[^:]*:[0-9]*:\s*\*')
exit "$survived"
