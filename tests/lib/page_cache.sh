# shellcheck shell=bash
#
# page_cache.sh --- the host's page cache, which every test on the machine
# shares.
#
# `echo 3 > /proc/sys/vm/drop_caches` empties it for every process, and CI
# runs two suites at once (the plain one and the sanitized one, .ci/run):
# a test that drops the caches (the benchmarks' cold phases) made a test
# that counts the reads reaching the disk (u_mount_small_log) see
# megabytes.  Each such test runs under one lock, the machine's (a fixed
# path, not the suite's scratch directory).

PAGE_CACHE_LOCK=/tmp/e2fsprogs-lazy-page-cache.lock

# page_cache_exclusive: the calling script run again from its start under
# flock(1), once no other such test runs (at most 15 minutes' wait).  The
# lock is held by flock itself (-o: not by the script's children, so a
# daemon that outlives its test cannot keep it).
page_cache_exclusive() {
	[ -n "$LJ_PAGE_CACHE_HELD" ] && return 0
	LJ_PAGE_CACHE_HELD=1 exec flock -o -w 900 "$PAGE_CACHE_LOCK" \
		bash "$0"
}
