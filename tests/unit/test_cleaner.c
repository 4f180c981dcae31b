/*
 * test_cleaner.c --- the writer's cleaner: a small log wrapped many times
 * (live blocks re-logged or sent home, the tail moved), a running
 * transaction that revokes a block of the tail, and the map merged at
 * each commit against a fresh build.  Oracle and model: unit_writer.h.
 */
#include <stdlib.h>
#include <string.h>

#include "unit_writer.h"

/*
 * The cleaner: a 1024-block journal filled by hundreds of transactions so
 * the log wraps several times; after every commit the map equals a fresh
 * scan's and every block reads as written last.  Live blocks are both
 * re-logged and sent home along the way.
 */
START_TEST(test_writer_cleaner)
{
	const struct lj_writer_stats *s;
	uint32_t wraps = 3;
	wt t;

	wt_setup(&t, _i);
	ck_assert_uint_eq(t.img->maxlen, 1024);
	s = lj_writer_stats(t.w);
	wt_wrap_log(&t, wraps, "cleaner");
	ck_assert_uint_gt(s->relogged, 0);
	ck_assert_uint_gt(s->sent_home, 0);
	ck_assert_uint_gt(s->tail_moves, 10);
	wt_check_contents(t.img, &t, "cleaner end");
	/* a new writer picks up where this one stopped */
	wt_close(&t);
	wt_open(&t);
	wt_check(&t, "reopened");
	wt_random_txn(&t, 12);
	wt_commit(&t, "after reopen");
	ck_assert_int_eq(lj_writer_checkpoint(t.w), 0);
	wt_check(&t, "checkpoint");
	wt_check_home(t.img, &t, "checkpoint");
	wt_free(&t);
}
END_TEST

/*
 * Data written home (data mode) over a block whose old journaled copy sits
 * in the tail transaction the cleaner must free: the running transaction
 * revokes it, and the cleaner must not write the old copy home over the
 * new data.  One table, two ways to make the cleaner run:
 *
 * - by a commit (pending revoke): a crash before the commit may bring the
 *   old copy back (the running transaction did not happen), never after
 *   it;
 * - by make_room (revokes first): writing that copy home would clobber the
 *   data and re-logging it gains nothing, so make_room commits the running
 *   transaction first when it fits; its revoke record retires the copy.
 *   The log keeps the revoke (stock replay honours it).
 */
enum clean_by { BY_COMMIT, BY_MAKE_ROOM };

static const struct revoke_case {
	const char *name;
	int fmt;		/* ut_fmts[] */
	int relog;		/* a second tail block (101), re-logged */
	uint32_t fill_to;	/* fill the log to this many free blocks */
	int ndata;		/* data writes over homes 100 .. 100+ndata-1 */
	uint32_t salt;		/* of the data */
	enum clean_by by;
} revoke_cases[] = {
	{ "pending revoke", 0, 1, 25, 2, 4242, BY_COMMIT },
	{ "pending revoke", 1, 1, 25, 2, 4242, BY_COMMIT },
	{ "revokes first", 0, 0, 40, 1, 4343, BY_MAKE_ROOM },
	{ "revokes first", 1, 0, 40, 1, 4343, BY_MAKE_ROOM },
};

/* make_room commits the running transaction and its revoke. */
static void clean_by_make_room(wt *t)
{
	const lj_log *log;
	uint32_t need;
	uint64_t runs;
	lj_jmap *m;
	size_t r;
	int found = 0;

	wt_add(t, 5, 0);
	wt_add(t, 6, 0);
	wt_check(t, "revoke pending");
	/* room there already: the cleaner does not run, nor is counted */
	runs = lj_writer_stats(t->w)->cleaner_runs;
	ck_assert_int_eq(lj_writer_make_room(t->w, 1), 0);
	ck_assert_uint_eq(lj_writer_stats(t->w)->cleaner_runs, runs);
	need = lj_writer_free_blocks(t->w) + 1;
	ck_assert_int_eq(lj_writer_make_room(t->w, need), 0);
	ck_assert_uint_ge(lj_writer_free_blocks(t->w), need);
	/* one run, counted and timed */
	ck_assert_uint_eq(lj_writer_stats(t->w)->cleaner_runs, runs + 1);
	ck_assert_uint_gt(lj_writer_stats(t->w)->cleaner_ns, 0);
	ck_assert_uint_ge(lj_writer_stats(t->w)->cleaner_ns,
			  lj_writer_stats(t->w)->cleaner_max_ns);
	ck_assert_uint_gt(lj_writer_stats(t->w)->cleaner_max_ns, 0);
	ck_assert_uint_eq(lj_writer_pending(t->w), 0);
	ck_assert_ptr_null(lj_jmap_lookup(t->st->jmap, t->home[100]));
	wt_apply(t);
	wt_check(t, "running committed by the cleaner");
	m = wt_fresh_jmap(t->img, NULL, NULL);
	log = m->log;
	for (r = 0; r < log->nrevokes; r++)
		found |= log->revokes[r].home == t->home[100];
	ck_assert_msg(found, "no revoke record for the data block in the log");
	lj_jmap_free(m);
}

START_TEST(test_writer_cleaner_revoke)
{
	const struct revoke_case *c = &revoke_cases[_i];
	const unsigned char *pending;
	unsigned char *buf;
	io_channel io;
	wt t;
	int k;

	wt_setup(&t, c->fmt);
	io = t.fs->io;
	buf = wt_xmalloc(t.bs);
	wt_add(&t, 100, 0);	/* tail: one live block, cleaned to home */
	wt_commit(&t, "tail");
	if (c->relog) {
		wt_add(&t, 101, 0);	/* and one that will be re-logged */
		for (k = 0; k < 12; k++)
			wt_add(&t, k, 0);
		wt_commit(&t, "second");
	}
	t.span = 100;
	while (lj_writer_free_blocks(t.w) > c->fill_to) {
		wt_random_txn(&t, 12);
		wt_commit(&t, "fill");
	}
	ck_assert_uint_eq(lj_jmap_lookup(t.st->jmap, t.home[100])->tid,
			  t.st->jmap->log->txn[0].tid);
	/* data writes over the tail's blocks */
	ck_assert_int_eq(lj_lazy_set_mode(io, LJ_LAZY_DATA_HOME, 1), 0);
	for (k = 100; k < 100 + c->ndata; k++) {
		ut_fill(buf, t.bs, t.home[k], c->salt, 1);
		ck_assert_int_eq(io_channel_write_blk64(io, t.home[k], 1, buf), 0);
		t.prev[k] = 1;
	}
	ck_assert_int_eq(lj_lazy_set_mode(io, LJ_LAZY_DATA_HOME, 0), 0);
	ck_assert_int_eq(lj_writer_lookup(t.w, t.home[100], &pending), -1);
	if (c->by == BY_COMMIT) {	/* enough to make the cleaner run */
		for (k = 20; k < 50; k++)
			wt_add(&t, k, 0);
		wt_commit(&t, "data over a cleaned block");
		ck_assert_uint_gt(lj_writer_stats(t.w)->tail_moves, 1);
	} else {
		clean_by_make_room(&t);
	}
	for (k = 100; k < 100 + c->ndata; k++) {
		ut_fill(buf, t.bs, t.home[k], c->salt, 1);
		ck_assert_msg(!memcmp(t.model[k], buf, t.bs),
			      "%s: home %d: the cleaner overwrote new data "
			      "with an old journaled copy", c->name, k);
	}
	wt_check_contents(t.img, &t, c->name);
	free(buf);
	wt_free(&t);
}
END_TEST

/*
 * The map the writer keeps is updated at each commit by merging (no full
 * re-sort): after many small commits, with revokes, re-copies and the
 * cleaner moving the tail around a 1024-block log, it must equal a map
 * built by a fresh scan of the device, entry by entry, with the same
 * escaped set and reverse index (cmp_jmap in wt_check).
 */
START_TEST(test_writer_jmap_incremental)
{
	wt t;
	int c;

	wt_setup(&t, _i);
	t.span = 40;
	for (c = 0; c < 600; c++) {
		int i = (int)(wt_rand(&t) % 40);

		if (c % 7 == 3 && lj_jmap_lookup(t.st->jmap, t.home[i]))
			wt_revoke(&t, i);
		else
			wt_add(&t, i, c % 5 == 0);
		ck_assert_int_eq(lj_writer_commit(t.w), 0);
		wt_apply(&t);
		if (c % 25 == 0 || c > 580)
			wt_check(&t, "incremental jmap");
	}
	ck_assert_uint_gt(lj_writer_stats(t.w)->tail_moves, 10);
	wt_free(&t);
}
END_TEST

Suite *cleaner_suite(void)
{
	const struct ut_test tests[] = {
		{ test_writer_cleaner, ut_nfmts },
		{ test_writer_cleaner_revoke, (int)(sizeof(revoke_cases) /
						    sizeof(revoke_cases[0])) },
		{ test_writer_jmap_incremental, ut_nfmts },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "cleaner", 120, tests };

	return ut_suite("cleaner", &tc, 1);
}
