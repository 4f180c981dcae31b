/*
 * test_writer_crash.c --- crashes of the writer, the cleaner and offline
 * compaction, one table: each row builds a scene, names a step (a commit
 * or a compaction pass) and what must hold on the device as a child
 * process left it after the step's Nth block write (ut_run_crashing, on
 * the crash model), for N = 1, 2, ... until the step finishes.  The state
 * must be the one before or the one after the step, never a mix, and
 * migration must then bring exactly that state home.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit_writer.h"

#define MAXTX 30		/* blocks of the step's transaction */

struct crash_case;

struct crash_run {
	const struct crash_case *c;
	wt t;
	char work[600];		/* the crashed copy */
	unsigned char *after[NH]; /* the model once the step is done */
	/* the step: a transaction of ntx blocks, or compaction */
	int ntx;
	int idx[MAXTX];		/* homes */
	unsigned char *data[MAXTX];
	int seen[2];		/* crashes that showed before / after */
};

struct crash_case {
	const char *name;
	int fmt;		/* ut_fmts[] */
	long max;		/* writes the step takes at the most */
	void (*scene)(struct crash_run *r);
	int (*step)(void *r);	/* in the child, on r->work; 0: done */
	void (*check)(struct crash_run *r, long n, int rc);
	uint32_t keep;		/* compaction: keep the newest N txns */
	long min_n;		/* the step took more than this many writes */
	int min_seen[2];	/* crashes that must show before / after */
};

/* ------------------------------------------------------------------ */
/* Steps (run in the crashing child)                                   */

/* Open for writing, the step's transaction, close. */
static int step_commit(void *arg)
{
	struct crash_run *r = arg;
	ext2_filsys fs;
	lj_writer *w;
	int k;

	if (lj_open_fs(r->work, EXT2_FLAG_RW, &fs))
		return 1;
	w = lj_lazy_writer(fs->io);
	if (!w)
		return 1;
	for (k = 0; k < r->ntx; k++)
		if (lj_writer_add(w, r->t.home[r->idx[k]], r->data[k]))
			return 1;
	if (lj_writer_commit(w))
		return 1;
	return ext2fs_close_free(&fs) ? 1 : 0;
}

static int step_compact(void *arg)
{
	struct crash_run *r = arg;
	struct lj_compact_stats cs;

	return lj_compact(r->work, r->c->keep, &cs) ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* What a crashed copy shows                                           */

/* Which of the models a fresh open sees: 0 or 1, -1 for a mix. */
static int which_model(const char *path, unsigned int bs, const uint64_t *home,
		       unsigned char **m0, unsigned char **m1)
{
	unsigned char *buf = wt_xmalloc(bs);
	int eq0 = 1, eq1 = 1, i;
	ext2_filsys fs;
	errcode_t err;

	err = lj_open_fs(path, 0, &fs);
	ck_assert_msg(err == 0, "lj_open_fs after crash: %s",
		      error_message(err));
	for (i = 0; i < NH; i++) {
		ck_assert_int_eq(io_channel_read_blk64(fs->io, home[i], 1, buf),
				 0);
		eq0 &= !memcmp(buf, m0[i], bs);
		eq1 &= !memcmp(buf, m1[i], bs);
	}
	ext2fs_close_free(&fs);
	free(buf);
	return eq0 ? 0 : eq1 ? 1 : -1;
}

/* Raw home copies after migration: which model? */
static int which_home(const char *path, unsigned int bs, const uint64_t *home,
		      unsigned char **m0, unsigned char **m1)
{
	unsigned char *buf = wt_xmalloc(bs);
	int eq0 = 1, eq1 = 1, i, fd = -1;
	struct lj_migrate_stats ms;

	ck_assert_int_eq(lj_migrate_home(path, NULL, NULL, &ms), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < NH; i++) {
		ck_assert_int_eq(pread(fd, buf, bs, (off_t)(home[i] * bs)),
				 (ssize_t)bs);
		eq0 &= !memcmp(buf, m0[i], bs);
		eq1 &= !memcmp(buf, m1[i], bs);
	}
	close(fd);
	free(buf);
	return eq0 ? 0 : eq1 ? 1 : -1;
}

/* ------------------------------------------------------------------ */
/* Scenes and checks                                                    */

/* The step's transaction: block k of it is data[k] for home idx[k]. */
static void set_step(struct crash_run *r, int k, int home,
		     unsigned char *data)
{
	int i;

	if (!r->after[0])	/* first block: after starts as before */
		for (i = 0; i < NH; i++) {
			r->after[i] = wt_xmalloc(r->t.bs);
			memcpy(r->after[i], r->t.model[i], r->t.bs);
		}
	r->idx[k] = home;
	r->data[k] = data;
	memcpy(r->after[home], data, r->t.bs);
	r->ntx = k + 1 > r->ntx ? k + 1 : r->ntx;
}

/*
 * needs_recovery clear but the journal superblock still points at an old
 * log (not live: its blocks were home long ago).  The first transaction
 * must never make that old log live again: a crash after any write of it
 * leaves the old copies unseen.
 */
static void scene_stale_log(struct crash_run *r)
{
	wt *t = &r->t;
	unsigned char *stale, *data;

	wt_setup_img(t, &ut_fmts[r->c->fmt], NULL, NULL, 30, 1);
	stale = wt_xmalloc(t->bs);
	data = wt_xmalloc(t->bs);
	ut_fill(stale, t->bs, t->home[20], 1, 5);
	wt_log_one(t, t->img->first, 30, t->home[20], stale);
	free(stale);
	ck_assert_int_eq(lj_change_features(t->img->path, 0, 0, 0, 0,
					    EXT3_FEATURE_INCOMPAT_RECOVER), 0);
	ut_fill(data, t->bs, t->home[21], 2, 5);
	set_step(r, 0, 21, data);
}

static void check_stale_log(struct crash_run *r, long n, int rc)
{
	wt *t = &r->t;
	unsigned char *buf = wt_xmalloc(t->bs);
	ext2_filsys fs;

	ck_assert_int_eq(lj_open_fs(r->work, 0, &fs), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, t->home[20], 1, buf), 0);
	ck_assert_msg(!memcmp(buf, t->model[20], t->bs),
		      "N=%ld: the old log came back to life", n);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, t->home[21], 1, buf), 0);
	ck_assert(!memcmp(buf, t->model[21], t->bs) ||
		  !memcmp(buf, r->data[0], t->bs));
	if (rc == 0)
		ck_assert_mem_eq(buf, r->data[0], t->bs);
	ext2fs_close_free(&fs);
	free(buf);
}

/*
 * A commit that has to clean first (re-logging some tail transactions,
 * sending others home, moving the tail): the device always holds the
 * state before or after the commit, and a writer opened after the crash
 * goes on.
 */
static void scene_cleaner(struct crash_run *r)
{
	wt *t = &r->t;
	int k;

	wt_setup(t, r->c->fmt);
	/* at the tail: a transaction whose blocks all stay live (they go
	 * home: re-logging would not gain), one with 20 of 30 live (they are
	 * re-logged), then random ones that never touch homes 100.. */
	for (k = 100; k < 104; k++)
		wt_add(t, k, 0);
	wt_commit(t, "cold");
	for (k = 110; k < 130; k++)
		wt_add(t, k, k % 5 == 0);
	for (k = 0; k < 10; k++)
		wt_add(t, k, 0);
	wt_commit(t, "warm");
	t->span = 100;
	/* fill to 23..25 free blocks: the 32 the transaction needs come
	 * from cleaning both, and the 22 re-logging costs fit */
	while (lj_writer_free_blocks(t->w) > 25) {
		if (lj_writer_free_blocks(t->w) > 40)
			wt_random_txn(t, 12);
		else
			wt_add(t, 0, 0);
		wt_commit(t, "fill");
	}
	wt_close(t);
	/* the transaction: 30 distinct homes */
	for (k = 0; k < MAXTX; k++) {
		unsigned char *d = wt_xmalloc(t->bs);

		ut_fill(d, t->bs, t->home[k * 3 % NH], 9999, (uint32_t)k);
		if (k % 11 == 0)
			lj_put_be32(d, LJ_JBD2_MAGIC);
		set_step(r, k, k * 3 % NH, d);
	}

	/* uninterrupted, in this process: the pass really cleans */
	{
		char path[600];
		ext2_filsys fs;
		const struct lj_writer_stats *s;
		lj_writer *w;

		snprintf(path, sizeof(path), "%s/clean", t->img->dir);
		ck_assert_int_eq(ut_copy_file(t->img->path, path), 0);
		ck_assert_int_eq(lj_open_fs(path, EXT2_FLAG_RW, &fs), 0);
		w = lj_lazy_writer(fs->io);
		for (k = 0; k < MAXTX; k++)
			ck_assert_int_eq(lj_writer_add(w, t->home[r->idx[k]],
						       r->data[k]), 0);
		ck_assert_int_eq(lj_writer_commit(w), 0);
		s = lj_writer_stats(w);
		ck_assert_uint_gt(s->tail_moves, 1);
		ck_assert_uint_ge(s->sent_home, 4);
		ck_assert_uint_ge(s->relogged, 20);
		ck_assert_int_eq(ext2fs_close_free(&fs), 0);
	}
}

static void check_cleaner(struct crash_run *r, long n, int rc)
{
	wt *t = &r->t;
	int k;

	if (rc == 0) {		/* done: the state after */
		ck_assert_int_eq(which_model(r->work, t->bs, t->home, t->model,
					     r->after), 1);
		return;
	}
	k = which_model(r->work, t->bs, t->home, t->model, r->after);
	ck_assert_msg(k >= 0, "N=%ld: a mix of before and after", n);
	r->seen[k]++;
	{
		lj_jmap *m;
		ut_img tmp = *t->img;

		snprintf(tmp.path, sizeof(tmp.path), "%s", r->work);
		m = wt_fresh_jmap(&tmp, NULL, NULL);
		ck_assert_msg(!m->log->refused, "N=%ld: refused", n);
		lj_jmap_free(m);
	}
	/* a writer resumes on the crashed log: one more commit */
	if (n % 7 == 1) {
		ext2_filsys fs;
		lj_writer *w;

		ck_assert_int_eq(lj_open_fs(r->work, EXT2_FLAG_RW, &fs), 0);
		w = lj_lazy_writer(fs->io);
		ck_assert_ptr_nonnull(w);
		ck_assert_int_eq(lj_writer_add(w, t->home[NH - 1],
					       t->model[NH - 1]), 0);
		ck_assert_int_eq(ext2fs_close_free(&fs), 0);
		ck_assert_int_eq(which_model(r->work, t->bs, t->home, t->model,
					     r->after), k);
	}
	ck_assert_msg(which_home(r->work, t->bs, t->home, t->model,
				 r->after) == k,
		      "N=%ld: migration after the crash differs", n);
}

/* A compaction pass: nothing lost, whatever write it stops after. */
static void scene_compact(struct crash_run *r)
{
	wt_scene(&r->t, r->c->fmt, 12);
}

static void check_compact(struct crash_run *r, long n, int rc)
{
	wt *t = &r->t;

	if (rc == 0)
		return;
	ck_assert_msg(which_model(r->work, t->bs, t->home, t->model,
				  t->model) == 0,
		      "N=%ld: contents changed by a crashed compaction", n);
	/* compaction again after the crash, then migration */
	if (n % 3 == 0) {
		struct lj_compact_stats cs;

		ck_assert_int_eq(lj_compact(r->work, r->c->keep, &cs), 0);
	}
	ck_assert_msg(which_home(r->work, t->bs, t->home, t->model,
				 t->model) == 0,
		      "N=%ld: migration after the crash differs", n);
}

/* ------------------------------------------------------------------ */
/* The table and its driver                                            */

static const struct crash_case crash_cases[] = {
	{ .name = "stale log", .fmt = 1, .max = 100,
	  .scene = scene_stale_log, .step = step_commit,
	  .check = check_stale_log },
	{ .name = "cleaner 1k", .fmt = 0, .max = 2000,
	  .scene = scene_cleaner, .step = step_commit,
	  .check = check_cleaner, .min_seen = { 11, 1 } },
	{ .name = "cleaner 4k", .fmt = 1, .max = 2000,
	  .scene = scene_cleaner, .step = step_commit,
	  .check = check_cleaner, .min_seen = { 11, 1 } },
	{ .name = "compact all", .fmt = 0, .max = 3000, .keep = 0,
	  .scene = scene_compact, .step = step_compact,
	  .check = check_compact, .min_n = 11 },
	{ .name = "compact keep 4", .fmt = 1, .max = 3000, .keep = 4,
	  .scene = scene_compact, .step = step_compact,
	  .check = check_compact, .min_n = 11 },
};

/*
 * Row _i: its scene, then the step on a fresh copy crashed after its
 * 1st, 2nd, ... write until it finishes; the row's check after each
 * crash and once after the uninterrupted finish.
 */
START_TEST(test_crash)
{
	const struct crash_case *c = &crash_cases[_i];
	struct crash_run *r = calloc(1, sizeof(*r));
	long n;
	int k, rc = -1;

	ck_assert_ptr_nonnull(r);
	r->c = c;
	c->scene(r);
	snprintf(r->work, sizeof(r->work), "%s/work", r->t.img->dir);
	for (n = 1; n < c->max; n++) {
		ck_assert_int_eq(ut_copy_file(r->t.img->path, r->work), 0);
		rc = ut_run_crashing(r->t.img->path, r->work, n, c->step, r);
		ck_assert_msg(rc == 0 || rc == 99, "%s: N=%ld: child exit %d",
			      c->name, n, rc);
		c->check(r, n, rc);
		if (rc == 0)
			break;
	}
	ck_assert_msg(rc == 0, "%s: still crashing after %ld writes", c->name,
		      c->max);
	ck_assert_msg(n >= c->min_n, "%s: done after %ld writes", c->name, n);
	ck_assert_int_ge(r->seen[0], c->min_seen[0]);
	ck_assert_int_ge(r->seen[1], c->min_seen[1]);
	for (k = 0; k < r->ntx; k++)
		free(r->data[k]);
	for (k = 0; k < NH; k++)
		free(r->after[k]);
	wt_free(&r->t);
	free(r);
}
END_TEST

Suite *writer_crash_suite(void)
{
	const struct ut_test tests[] = {
		{ test_crash, (int)(sizeof(crash_cases) /
				    sizeof(crash_cases[0])) },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "crash", 120, tests };

	return ut_suite("writer_crash", &tc, 1);
}
