/*
 * unit_writer.h --- the model the writer, cleaner, compaction and crash
 * unit tests share (unit_writer.c): NH home blocks, the content each one
 * must read as (committed and in the running transaction), and the
 * checks that hold between transactions.  The oracle is our own scanner:
 * after every commit a fresh lj_log_scan + lj_jmap_build of the device
 * must give back exactly the map the writer holds in memory, and every
 * block read through the channel (and through a fresh read-only open)
 * must be the copy written last.
 */
#ifndef LJ_UNIT_WRITER_H
#define LJ_UNIT_WRITER_H

#include "unit.h"

#define NH 160			/* home blocks the tests write */

typedef struct wt {
	ut_img *img;
	const struct ut_fmt *f;
	unsigned int bs;
	uint64_t home[NH];	/* free fs blocks, outside the journal */
	unsigned char *model[NH]; /* committed live content */
	unsigned char *pend[NH]; /* copy in the running transaction */
	int prev[NH];		/* revoked in the running transaction */
	ext2_filsys fs;		/* lj_open_fs(EXT2_FLAG_RW) */
	lj_lazy_state *st;
	lj_writer *w;
	uint32_t rnd;
	uint32_t salt;
	int span;		/* random transactions use homes [0, span) */
	unsigned long commits;
} wt;

unsigned char *wt_xmalloc(size_t n);	/* fails the test when out */
uint32_t wt_rand(wt *t);

/*
 * An image in format f (mkfs options and size overridable), an empty log
 * in the journal format of f with sequence seq, the home copies read into
 * the model; opened for writing unless noopen.
 */
void wt_setup_img(wt *t, const struct ut_fmt *f, const char *mkfs,
		  const char *size, uint32_t seq, int noopen);
void wt_setup(wt *t, int fmt);
/* The same on a plain ext4 (no lazy_journal): the writer checkpoints. */
void wt_setup_plain(wt *t, int fmt);		/* ut_fmts[fmt], seq 1000, open */
void wt_open(wt *t);			/* lj_open_fs rw, state, writer */
void wt_close(wt *t);
void wt_free(wt *t);
/*
 * With the unit log writer (not ours): a log starting at journal block
 * start with sequence seq holding one transaction (commit_sec 10) that
 * logs data as the copy of home block t->home[i].
 */
void wt_log_one(wt *t, uint32_t start, uint32_t seq, uint64_t home,
		const unsigned char *data);

/* The running transaction: a new copy of home i (magic: starts with the
 * jbd2 magic, so it is stored escaped), a revoke of home i. */
void wt_add(wt *t, int i, int magic);
void wt_revoke(wt *t, int i);
/* The running transaction is now committed: the model follows. */
void wt_apply(wt *t);
/* lj_writer_commit, wt_apply, wt_check. */
void wt_commit(wt *t, const char *when);
/* Up to max blocks, mostly among 16 hot homes, with revokes. */
void wt_random_txn(wt *t, int max);
void wt_wrap_log(wt *t, unsigned int wraps, const char *when);

/* ntx random transactions in fmt (wt_setup), the writer closed. */
void wt_scene(wt *t, int fmt, int ntx);

/* Scan the device afresh (a new open, as a later tool would). */
lj_jmap *wt_fresh_jmap(ut_img *img, uint32_t *start, uint32_t *seq);
/* Every check that holds between transactions. */
void wt_check(wt *t, const char *when);
/* Contents seen by a fresh read-only open of img equal the model. */
void wt_check_contents(ut_img *img, const wt *t, const char *when);
/* Raw home copies equal the model (after a migration or checkpoint). */
void wt_check_home(ut_img *img, const wt *t, const char *when);

#endif
