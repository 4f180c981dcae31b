/*
 * fuse2fs/waits.c --- how long requests waited for their answers, and
 * what was under way meanwhile.
 *
 * Each request is timed from the moment the loop read it to its last
 * fs_end (its answer follows at once): the longest of all, the longest
 * of those during which the cleaner ran (it runs under the request lock,
 * at a commit's start: every request behind it waits), the longest of
 * those during which a commit ran (its log writes are made without the
 * lock: a request should not wait for them), and apart the longest
 * persistence point (fsync and the like wait for their commit by
 * design).  "During" is told by two counters read when the request is
 * read and again at its answer: the commits started and ended (odd while
 * one runs), and the cleaner's runs as the writer counts them.  They are
 * written under the lock and read without it, hence atomically.
 *
 * And the longest a commit held the lock, at its start (libext2fs's
 * flush, the cleaner, the running transaction handed over) and at its
 * finish (the map told).
 *
 * Printed at exit with the request counts (FUSE2FS_REQUESTS, loop.c):
 * "fuse2fs: waits: longest_us=N beside_cleaner_us=N beside_commit_us=N
 * persist_us=N cleaner_runs=N cleaner_ms=N cleaner_longest_us=N
 * commit_start_longest_us=N commit_finish_longest_us=N".
 */
#include <stdio.h>
#include <time.h>

#include "server.h"

long long fs_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void fs_waits_read(struct fs_server *srv, struct fs_thread *t,
		   long long now)
{
	t->arrived = now;
	t->commits_seen = __atomic_load_n(&srv->waits.commits,
					  __ATOMIC_RELAXED);
	t->cleaner_seen = __atomic_load_n(&srv->waits.cleaner_runs,
					  __ATOMIC_RELAXED);
}

void fs_waits_commit(struct fs_server *srv)
{
	__atomic_add_fetch(&srv->waits.commits, 1, __ATOMIC_RELAXED);
}

void fs_waits_cleaner(struct fs_server *srv)
{
	const struct lj_writer_stats *ws;

	if (!srv->lazy)
		return;
	ws = lj_writer_stats(lj_lazy_writer(srv->fs->io));
	srv->waits.cleaner_ns = ws->cleaner_ns;
	srv->waits.cleaner_max_ns = ws->cleaner_max_ns;
	__atomic_store_n(&srv->waits.cleaner_runs,
			 (unsigned long)ws->cleaner_runs, __ATOMIC_RELAXED);
}

static void longer(long long *longest, long long d)
{
	if (d > *longest)
		*longest = d;
}

void fs_waits_locked(struct fs_server *srv, int finish, long long since)
{
	longer(finish ? &srv->waits.finish : &srv->waits.start,
	       fs_clock_ns() - since);
}

void fs_waits_answered(struct fs_server *srv, struct fs_thread *t,
		       int persist)
{
	long long d;

	if (!t || !t->arrived)
		return;
	d = fs_clock_ns() - t->arrived;
	if (persist) {
		longer(&srv->waits.persist, d);
		return;
	}
	longer(&srv->waits.longest, d);
	if (srv->waits.cleaner_runs != t->cleaner_seen)
		longer(&srv->waits.beside_cleaner, d);
	if (srv->waits.commits != t->commits_seen || (t->commits_seen & 1))
		longer(&srv->waits.beside_commit, d);
}

void fs_waits_print(struct fs_server *srv)
{
	fprintf(stderr, "fuse2fs: waits: longest_us=%lld beside_cleaner_us=%lld "
		"beside_commit_us=%lld persist_us=%lld cleaner_runs=%lu "
		"cleaner_ms=%llu cleaner_longest_us=%llu "
		"commit_start_longest_us=%lld commit_finish_longest_us=%lld\n",
		srv->waits.longest / 1000, srv->waits.beside_cleaner / 1000,
		srv->waits.beside_commit / 1000, srv->waits.persist / 1000,
		srv->waits.cleaner_runs,
		(unsigned long long)(srv->waits.cleaner_ns / 1000000),
		(unsigned long long)(srv->waits.cleaner_max_ns / 1000),
		srv->waits.start / 1000, srv->waits.finish / 1000);
}
