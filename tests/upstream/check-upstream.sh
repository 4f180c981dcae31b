#!/bin/bash
# check-upstream.sh: e2fsprogs' own test suite as the drop-in fidelity test.
#
# Fetches the e2fsprogs source of the installed stock version the Debian way
# (apt-get source, Debian patches applied), builds it once into a cache,
# then runs its tests/ twice on copies of that build:
#   ours:  the front-end names (../misc/mke2fs, ../debugfs/debugfs, ...)
#          are the stock binaries our front-ends exec ($E2FSPROGS_SBIN),
#          then each of our front-ends that exists in $TOP in their place
#          (argv[0] stays what upstream's scripts call);
#   stock: the stock binaries alone, on the tests ours did not pass (the
#          rest cannot fail only with ours; UPSTREAM_STOCK_ALL=1: all).
# Exits 1 when a test fails only with ours (names and upstream's .failed
# diffs are printed); tests failing in both runs are listed, not fatal.
#
# Usage: check-upstream.sh [TOP]   (TOP: our build directory, default .)
# Environment:
#   E2FSPROGS_SBIN   stock binaries (default /usr/sbin)
#   UPSTREAM_CACHE   build cache (default
#                    ${XDG_CACHE_HOME:-~/.cache}/e2fsprogs-lazy/upstream-VER)
#   UPSTREAM_RUNS    runs, default "ours stock"; "built" adds a run with
#                    upstream's own freshly built binaries (every test)
#   UPSTREAM_STOCK_ALL=1  the stock run on every test, not only on those
#                    ours did not pass (then "passing only with ours" too)
#   UPSTREAM_TESTS   test names to run instead of the whole suite
#   UPSTREAM_JOBS    parallel tests (default 2)
#   UPSTREAM_OURS    which of our front-ends to put in place (default all
#                    of $FRONTENDS that our build has), e.g. "misc/mke2fs"
#   UPSTREAM_KEEP=1  keep the run directories (path printed)
set -uo pipefail

TOP=$(cd "${1:-.}" && pwd) || exit 2
SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
JOBS=${UPSTREAM_JOBS:-2}
RUNS=${UPSTREAM_RUNS:-ours stock}
me=check-upstream

# The front-ends we provide, as paths in e2fsprogs' build tree.
FRONTENDS="misc/mke2fs misc/tune2fs debugfs/debugfs e2fsck/e2fsck
	   misc/dumpe2fs misc/e2image misc/e2freefrag"

die() { echo "$me: $*" >&2; exit 2; }
now() { date +%s; }

ver=$(dpkg-query -W -f='${source:Version}' e2fsprogs 2>/dev/null) ||
	die "e2fsprogs is not installed as a Debian package (dpkg-query)"
[ -n "$ver" ] || die "cannot read the e2fsprogs source version"
upver=${ver#*:}; upver=${upver%-*}
stockver=$("$SBIN/mke2fs" -V 2>&1 | sed -n 's/^mke2fs \([0-9.]*\) .*/\1/p')
[ "$stockver" = "$upver" ] ||
	die "$SBIN/mke2fs is version '$stockver', the e2fsprogs package $ver"

cache=${UPSTREAM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/e2fsprogs-lazy/upstream-$ver}
mkdir -p "$(dirname "$cache")" || die "cannot create $(dirname "$cache")"

# --- fetch and build (once per version; a lock keeps parallel runs apart)
build_cache() {
	local t0 t1 t2 src
	rm -rf "$cache" && mkdir -p "$cache" || return 1
	cd "$cache" || return 1
	t0=$(now)
	echo "$me: fetching e2fsprogs $ver source (apt-get source) into $cache"
	if ! apt-get source -qq --only-source "e2fsprogs=$ver" >fetch.log 2>&1; then
		cat fetch.log >&2
		echo "$me: apt-get source failed; apt needs a deb-src entry for" \
		     "the suite e2fsprogs $ver comes from (README," \
		     "\"Drop-in fidelity\") and dpkg-dev" >&2
		return 1
	fi
	src=$cache/e2fsprogs-$upver
	[ -x "$src/configure" ] || { echo "$me: no $src/configure" >&2; return 1; }
	t1=$(now)
	echo "$me: building e2fsprogs $ver (configure, make -j$JOBS)"
	mkdir build && cd build || return 1
	# No shared libraries: the suite sets LD_LIBRARY_PATH=../lib, which
	# must not slip a freshly built libext2fs under the stock binaries.
	if ! { "$src/configure" --disable-nls --disable-fuse2fs \
			--disable-elf-shlibs --disable-bsd-shlibs \
			>../configure.log 2>&1 &&
	       make -j"$JOBS" >../make.log 2>&1 &&
	       make -C tests test_one test_script mke2fs.conf test_data.tmp \
			>>../make.log 2>&1; }; then
		tail -30 ../configure.log ../make.log >&2
		echo "$me: building e2fsprogs $ver failed (logs in $cache)" >&2
		return 1
	fi
	t2=$(now)
	echo "$ver" >"$cache/.built"
	echo "$me: source fetch $((t1 - t0)) s, build $((t2 - t1)) s"
}

exec 9>"$cache.lock" || die "cannot open $cache.lock"
flock 9
if [ "$(cat "$cache/.built" 2>/dev/null)" != "$ver" ]; then
	( build_cache ) || exit 2
	# Caches of other versions are stale now.
	for old in "$(dirname "$cache")"/upstream-*; do
		case $old in "$cache"|"$cache".lock|*.lock) ;; *) rm -rf "$old" ;; esac
	done
else
	echo "$me: using the e2fsprogs $ver build cached in $cache"
fi
flock -u 9

# --- the runs
work=$(mktemp -d "${TMPDIR:-/tmp}/check-upstream.XXXXXX") || die "mktemp failed"
if [ "${UPSTREAM_KEEP:-}" = 1 ]; then
	echo "$me: run directories kept in $work"
else
	trap 'rm -rf "$work"' EXIT
fi

# place RUN: copy the cached build, put the binaries of RUN in place.
place() {
	local run=$1 d=$work/$1 p
	cp -a "$cache/build" "$d" || return 1
	[ "$run" = built ] && return 0
	for p in $FRONTENDS; do
		[ -x "$SBIN/${p##*/}" ] || continue
		rm -f "$d/$p" && ln -s "$SBIN/${p##*/}" "$d/$p" || return 1
	done
	[ "$run" = ours ] || return 0
	for p in ${UPSTREAM_OURS:-$FRONTENDS}; do
		[ -x "$TOP/$p" ] || continue
		rm -f "$d/$p" && ln -s "$TOP/$p" "$d/$p" || return 1
		echo "$me: ours: $p"
	done
}

# run RUN [TESTS]: upstream's own runner (make check: test_one per test,
# -j), on TESTS (names) when given, else on $UPSTREAM_TESTS or all.
run() {
	local run=$1 tests=${2:-${UPSTREAM_TESTS:-}} t t0 t1 list=()
	place "$run" || die "cannot set up the $run run"
	for t in $tests; do list+=("$cache/e2fsprogs-$upver/tests/$t"); done
	t0=$(now)
	(cd "$work/$run/tests" &&
	 if [ ${#list[@]} -gt 0 ]; then
		make -s test_pre >/dev/null && make -j"$JOBS" -s "${list[@]}" &&
		"$cache/e2fsprogs-$upver/tests/test_post"
	 else
		make -j"$JOBS" -s check
	 fi) >"$work/$run.out" 2>&1
	t1=$(now)
	(cd "$work/$run/tests" && ls -- *.failed 2>/dev/null) |
		sed 's/\.failed$//' | sort >"$work/$run.failed"
	(cd "$work/$run/tests" && ls -- *.ok 2>/dev/null) |
		sed 's/\.ok$//' | sort >"$work/$run.ok"
	echo "$me: $run run: $(wc -l <"$work/$run.ok") passed," \
	     "$(wc -l <"$work/$run.failed") failed, $((t1 - t0)) s"
}

# The tests ours did not pass: every test the ours run ran
# ($UPSTREAM_TESTS, or all that upstream's make check runs: tests/[a-z]_*,
# its Makefile's TESTS) but those that left an .ok.
not_ours_ok() {
	if [ -n "${UPSTREAM_TESTS:-}" ]; then
		printf '%s\n' $UPSTREAM_TESTS
	else
		(cd "$cache/e2fsprogs-$upver/tests" && ls -d -- [a-z]_*)
	fi | sort | comm -23 - "$work/ours.ok"
}

for r in $RUNS; do
	if [ "$r" = stock ] && [ -f "$work/ours.ok" ] &&
	   [ "${UPSTREAM_STOCK_ALL:-}" != 1 ]; then
		stock_subset=1
		todo=$(not_ours_ok | tr '\n' ' ')
		if [ -z "${todo// /}" ]; then
			echo "$me: stock run: not needed, every test passed with ours"
			: >"$work/stock.ok"
			: >"$work/stock.failed"
			continue
		fi
		run stock "$todo"
	else
		run "$r"
	fi
done

case " $RUNS " in *" stock "*) ;; *) exit 0 ;; esac
case " $RUNS " in *" ours "*) ;; *) exit 0 ;; esac

# Either run must pass tests: none at all is a broken set-up, not a verdict.
[ -s "$work/stock.ok" ] || [ -s "$work/ours.ok" ] ||
	die "no test passed with stock nor with ours; see $work/*.out (UPSTREAM_KEEP=1)"
# Only with ours: passed with stock, did not pass with ours (failed, or
# left no result at all).
both=$(comm -12 "$work/stock.failed" "$work/ours.failed")
only_ours=$(comm -23 "$work/stock.ok" "$work/ours.ok")
only_stock=$(comm -13 "$work/stock.ok" "$work/ours.ok")
[ -n "$both" ] &&
	echo "$me: failing with stock too (not counted):" $both
[ -n "$only_stock" ] && [ -z "${stock_subset:-}" ] &&
	echo "$me: passing only with ours (not counted):" $only_stock
if [ -z "$only_ours" ]; then
	echo "$me: 0 tests fail only with ours"
	exit 0
fi
for t in $only_ours; do
	echo "=================== $t: fails only with ours"
	cat "$work/ours/tests/$t.failed" 2>/dev/null
	if [ ! -s "$work/ours/tests/$t.failed" ]; then
		tail -40 "$work/ours/tests/$t.log" 2>/dev/null
	fi
done
echo "$me: $(echo "$only_ours" | wc -l) tests fail only with ours:" $only_ours
exit 1
