/*
 * test_scan.c --- lj_log_scan: where the log ends and why, in every format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define V3 (LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT | \
	    LJ_FEATURE_INCOMPAT_CSUM_V3)
#define V2 (LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_CSUM_V2)
#define ASYNC LJ_FEATURE_INCOMPAT_ASYNC_COMMIT

static int fmt_has_csum(const struct ut_fmt *f)
{
	return (f->compat & LJ_FEATURE_COMPAT_CHECKSUM) ||
	       (f->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
			       LJ_FEATURE_INCOMPAT_CSUM_V3));
}

static int fmt_v23(const struct ut_fmt *f)
{
	return (f->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
			       LJ_FEATURE_INCOMPAT_CSUM_V3)) != 0;
}

/* The journal copy at jblock holds exactly ut_fill(home, tid, salt). */
static void assert_copy(ut_open *o, uint32_t jblock, uint64_t home,
			uint32_t tid, uint32_t salt)
{
	unsigned char *got = malloc(o->j->blocksize);
	unsigned char *want = malloc(o->j->blocksize);

	ck_assert_int_eq(lj_journal_read(o->j, jblock, 1, got), 0);
	ut_fill(want, o->j->blocksize, home, tid, salt);
	ck_assert_mem_eq(got, want, o->j->blocksize);
	free(got);
	free(want);
}

static void assert_mapped(const lj_jmap *m, uint64_t home, uint32_t jblock,
			  uint32_t tid)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(m, home);

	ck_assert_msg(e != NULL, "block %llu not mapped",
		      (unsigned long long)home);
	ck_assert_uint_eq(e->home, home);
	ck_assert_uint_eq(e->jblock, jblock);
	ck_assert_uint_eq(e->tid, tid);
}

START_TEST(test_empty_log)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	ut_writer w;
	ut_open o;
	lj_jmap *m;
	lj_log *log;

	ut_log_init(&w, img, 0, V3, 0, 42);
	ut_open_journal(img, &o);
	log = ut_scan(&o, 0);
	ck_assert_int_eq(log->end, LJ_END_EMPTY);
	ck_assert_uint_eq(log->ntxn, 0);
	ck_assert_uint_eq(log->ntags, 0);
	ck_assert_uint_eq(log->start_tid, 42);
	ck_assert_uint_eq(log->end_tid, 42);
	ck_assert_int_eq(log->refused, 0);
	ck_assert_uint_eq(log->log_blocks, 0);
	ck_assert_int_eq(lj_jmap_build(log, 0, &m), 0);
	ck_assert_uint_eq(m->n, 0);
	ck_assert_ptr_null(lj_jmap_lookup(m, 1));
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* Two transactions, in every format; the map of the result. */
START_TEST(test_basic)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk, B = A + 1, C = A + 2;
	ut_block b1[] = { { .home = A }, { .home = B } };
	ut_block b2[] = { { .home = B }, { .home = C } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 1000 };
	ut_txn t2 = { .blocks = b2, .nblocks = 2, .commit_sec = 1001 };
	ut_writer w;
	ut_open o;
	lj_log *log;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first + 5, 100);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ck_assert_uint_eq(t1.nblocks_used, 4);

	ut_open_journal(img, &o);
	log = ut_scan(&o, 0);
	ck_assert_msg(log->end == LJ_END_NO_MAGIC, "%s: end %d: %s", f->name,
		      log->end, log->end_msg);
	ck_assert_uint_eq(log->end_block, w.blk);
	ck_assert_int_eq(log->refused, 0);
	ck_assert_int_eq(log->uncommitted, 0);
	ck_assert(lj_log_clean_end(log));
	{
		char d[200], want[80];

		lj_log_describe_end(log, d, sizeof(d));
		snprintf(want, sizeof(want), "end of log at journal block %u: ",
			 w.blk);
		ck_assert_msg(strncmp(d, want, strlen(want)) == 0, "%s", d);
	}
	ck_assert_uint_eq(log->start_tid, 100);
	ck_assert_uint_eq(log->end_tid, 102);
	ck_assert_uint_eq(log->ntxn, 2);
	ck_assert_uint_eq(log->ntags, 4);
	ck_assert_uint_eq(log->nrevokes, 0);
	ck_assert_uint_eq(log->log_blocks, 8);

	ck_assert_uint_eq(log->txn[0].tid, 100);
	ck_assert_uint_eq(log->txn[0].first_block, t1.first_block);
	ck_assert_uint_eq(log->txn[0].commit_block, t1.commit_block);
	ck_assert_uint_eq(log->txn[0].nblocks, 4);
	ck_assert_uint_eq(log->txn[0].tag_first, 0);
	ck_assert_uint_eq(log->txn[0].ntags, 2);
	ck_assert_uint_eq(log->txn[0].commit_sec, 1000);
	ck_assert_uint_eq(log->txn[1].tid, 101);
	ck_assert_uint_eq(log->txn[1].first_block, t2.first_block);
	ck_assert_uint_eq(log->txn[1].commit_block, t2.commit_block);
	ck_assert_uint_eq(log->txn[1].tag_first, 2);
	ck_assert_uint_eq(log->txn[1].ntags, 2);
	ck_assert_uint_eq(log->txn[1].commit_sec, 1001);

	ck_assert_uint_eq(log->tags[0].home, A);
	ck_assert_uint_eq(log->tags[0].jblock, b1[0].jblock);
	ck_assert_uint_eq(log->tags[0].tid, 100);
	ck_assert_uint_eq(log->tags[3].home, C);
	ck_assert_uint_eq(log->tags[3].jblock, b2[1].jblock);
	ck_assert_uint_eq(log->tags[3].tid, 101);
	ck_assert_uint_eq(log->tags[0].flags & LJ_FLAG_LAST_TAG, 0);
	ck_assert(log->tags[1].flags & LJ_FLAG_LAST_TAG);
	ck_assert(log->tags[1].flags & LJ_FLAG_SAME_UUID);
	if (f->compat & LJ_FEATURE_COMPAT_CHECKSUM)
		ck_assert_uint_eq(log->data_blocks_read, 4);
	else
		ck_assert_uint_eq(log->data_blocks_read, 0);

	ck_assert_ptr_eq(lj_log_txn_of_block(log, t1.first_block),
			 &log->txn[0]);
	ck_assert_ptr_eq(lj_log_txn_of_block(log, b1[1].jblock), &log->txn[0]);
	ck_assert_ptr_eq(lj_log_txn_of_block(log, t2.commit_block),
			 &log->txn[1]);
	ck_assert_ptr_null(lj_log_txn_of_block(log, w.blk));
	ck_assert_ptr_null(lj_log_txn_of_block(log, img->first));

	ck_assert_int_eq(lj_jmap_build(log, 0, &m), 0);
	ck_assert_uint_eq(m->n, 3);
	assert_mapped(m, A, b1[0].jblock, 100);
	assert_mapped(m, B, b2[0].jblock, 101);
	assert_mapped(m, C, b2[1].jblock, 101);
	ck_assert_ptr_null(lj_jmap_lookup(m, C + 1));
	ck_assert_ptr_null(lj_jmap_lookup(m, A - 1));
	ck_assert_uint_eq(m->bad_csums, 0);
	ck_assert_uint_eq(m->nescaped, 0);
	assert_copy(&o, b2[0].jblock, B, 101, 0);
	assert_copy(&o, b1[0].jblock, A, 100, 0);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* One transaction with more tags than one descriptor block holds. */
START_TEST(test_multi_descriptor)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	enum { N = 600 };
	ut_block *b = calloc(N, sizeof(*b));
	ut_txn t = { .blocks = b, .nblocks = N, .commit_sec = 5 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;
	size_t i;

	for (i = 0; i < N; i++)
		b[i].home = 2000 + 3 * i;
	ut_log_init(&w, img, f->compat, f->incompat, img->first, 1);
	ut_log_txn(&w, &t);
	ck_assert_uint_gt(t.nblocks_used, N + 2);	/* > 1 descriptor */
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_msg(m->log->ntxn == 1, "%s: %s", f->name, m->log->end_msg);
	ck_assert_uint_eq(m->log->txn[0].nblocks, t.nblocks_used);
	ck_assert_uint_eq(m->n, N);
	for (i = 0; i < N; i++)
		assert_mapped(m, b[i].home, b[i].jblock, 1);
	lj_jmap_free(m);
	ut_close_journal(&o);
	free(b);
	ut_img_free(img);
}
END_TEST

/* A last transaction without commit block does not count. */
START_TEST(test_uncommitted)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A } };
	ut_block b2[] = { { .home = A }, { .home = A + 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 10 };
	ut_txn t2 = { .blocks = b2, .nblocks = 2, .commit_sec = 11,
		      .flags = UT_NO_COMMIT };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 7);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_uint_eq(m->log->ntxn, 1);
	ck_assert_uint_eq(m->log->end_tid, 8);
	ck_assert_int_eq(m->log->end, LJ_END_NO_MAGIC);
	ck_assert_int_eq(m->log->refused, 0);
	ck_assert_msg(strstr(m->log->end_msg, "no commit block") != NULL,
		      "end_msg: %s", m->log->end_msg);
	ck_assert_int_eq(m->log->uncommitted, 1);
	ck_assert(!lj_log_clean_end(m->log));
	ck_assert_uint_eq(m->n, 1);
	assert_mapped(m, A, b1[0].jblock, 7);
	ck_assert_ptr_null(lj_jmap_lookup(m, A + 1));
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* A block of another transaction ends the log. */
START_TEST(test_wrong_sequence)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A } };
	ut_block b2[] = { { .home = A + 1 } };
	ut_block b3[] = { { .home = A + 2 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 10 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 11 };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 12 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first + 100, 50);
	ut_log_txn(&w, &t1);
	w.tid = 55;			/* not 51 */
	ut_log_txn(&w, &t2);
	w.tid = 51;			/* a valid 51 after it is never seen */
	ut_log_txn(&w, &t3);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_int_eq(m->log->end, LJ_END_SEQUENCE);
	ck_assert_uint_eq(m->log->end_block, t2.first_block);
	ck_assert_uint_eq(m->log->end_tid, 51);
	ck_assert_uint_eq(m->log->ntxn, 1);
	ck_assert_uint_eq(m->n, 1);
	assert_mapped(m, A, b1[0].jblock, 50);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* Data blocks wrap at s_maxlen back to s_first; the commit after it. */
START_TEST(test_wrap_tags)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A }, { .home = A + 1 }, { .home = A + 2 },
			  { .home = A + 3 } };
	ut_block b2[] = { { .home = A + 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 4, .commit_sec = 10 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 11 };
	uint32_t L = img->maxlen, F = img->first;
	ut_writer w;
	ut_open o;
	lj_jmap *m;
	lj_log *log;

	ut_log_init(&w, img, f->compat, f->incompat, L - 3, 0xFFFFFFFFU);
	ut_log_txn(&w, &t1);		/* tid wraps to 0 after it */
	ut_log_txn(&w, &t2);
	ck_assert_uint_eq(t1.desc_block, L - 3);
	ck_assert_uint_eq(b1[1].jblock, L - 1);
	ck_assert_uint_eq(b1[2].jblock, F);
	ck_assert_uint_eq(t1.commit_block, F + 2);
	ck_assert_uint_eq(t2.tid, 0);

	ut_open_journal(img, &o);
	log = ut_scan(&o, 0);
	ck_assert_msg(log->ntxn == 2, "%s: %s", f->name, log->end_msg);
	ck_assert_uint_eq(log->end_tid, 1);
	ck_assert_uint_eq(log->txn[0].first_block, L - 3);
	ck_assert_uint_eq(log->txn[0].commit_block, F + 2);
	ck_assert_uint_eq(log->txn[0].nblocks, 6);
	ck_assert_uint_eq(log->log_blocks, 6 + 3);
	if (f->compat & LJ_FEATURE_COMPAT_CHECKSUM)
		ck_assert_uint_eq(log->data_blocks_read, 5);
	ck_assert_ptr_eq(lj_log_txn_of_block(log, L - 1), &log->txn[0]);
	ck_assert_ptr_eq(lj_log_txn_of_block(log, F), &log->txn[0]);
	ck_assert_ptr_eq(lj_log_txn_of_block(log, F + 3), &log->txn[1]);
	ck_assert_ptr_null(lj_log_txn_of_block(log, F + 6));
	ck_assert_ptr_null(lj_log_txn_of_block(log, L - 4));

	ck_assert_int_eq(lj_jmap_build(log, 0, &m), 0);
	ck_assert_uint_eq(m->n, 4);
	assert_mapped(m, A, L - 2, 0xFFFFFFFFU);
	assert_mapped(m, A + 1, b2[0].jblock, 0);
	assert_mapped(m, A + 2, F, 0xFFFFFFFFU);
	assert_mapped(m, A + 3, F + 1, 0xFFFFFFFFU);
	assert_copy(&o, F + 1, A + 3, 0xFFFFFFFFU, 0);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/*
 * A transaction that wraps covers [first_block, last) and [first,
 * commit_block]: journal block 0 (the journal superblock) is never in it.
 */
START_TEST(test_wrap_jsb_not_in_txn)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A }, { .home = A + 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 10 };
	uint64_t home = 0;
	uint32_t tid = 0;
	const struct lj_txn *t;
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, 0, V3, img->maxlen - 2, 5);
	ut_log_txn(&w, &t1);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, LJ_JMAP_KEEP_TAGS);
	ck_assert_uint_eq(m->log->ntxn, 1);
	ck_assert_int_eq(lj_jmap_reverse(m, img->first + 1, &home, &tid),
			 LJ_JB_META);		/* its commit block */
	t = lj_log_txn_of_block(m->log, 0);
	ck_assert_msg(t == NULL, "journal block 0 (the journal superblock) "
		      "reported as part of wrapping transaction %u",
		      t ? t->tid : 0);
	ck_assert_int_eq(lj_jmap_reverse(m, 0, &home, &tid), LJ_JB_UNUSED);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* Only the commit block lies past the wrap. */
START_TEST(test_wrap_commit)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 10 };
	uint32_t L = img->maxlen, F = img->first;
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, L - 2, 3);
	ut_log_txn(&w, &t1);
	ck_assert_uint_eq(t1.commit_block, F);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_msg(m->log->ntxn == 1, "%s: %s", f->name, m->log->end_msg);
	ck_assert_uint_eq(m->log->txn[0].nblocks, 3);
	ck_assert_uint_eq(m->log->end_block, F + 1);
	assert_mapped(m, A, L - 1, 3);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* A bad commit checksum ends the log before that transaction. */
START_TEST(test_bad_commit_csum)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A } };
	ut_block b2[] = { { .home = A }, { .home = A + 1 } };
	ut_block b3[] = { { .home = A + 2 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1000 };
	ut_txn t2 = { .blocks = b2, .nblocks = 2, .commit_sec = 1001,
		      .flags = UT_BAD_COMMIT_CSUM };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 1002 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 20);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_int_eq(m->log->refused, 0);
	if (!fmt_has_csum(f)) {		/* nothing to check: all three */
		ck_assert_uint_eq(m->log->ntxn, 3);
		ck_assert_int_eq(m->log->end, LJ_END_NO_MAGIC);
	} else {
		ck_assert_msg(m->log->end == LJ_END_COMMIT_CSUM, "%s: %s",
			      f->name, m->log->end_msg);
		ck_assert_uint_eq(m->log->end_block, t2.commit_block);
		ck_assert_uint_eq(m->log->end_tid, 21);
		ck_assert_uint_eq(m->log->ntxn, 1);
		ck_assert_uint_eq(m->n, 1);
		assert_mapped(m, A, b1[0].jblock, 20);
	}
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/*
 * async_commit: with csum v2/v3 the scan runs on past a bad commit and the
 * log ends at the LAST transaction with a bad commit checksum; with the v1
 * checksum it stops at the commit after the first bad one.
 */
static void async_case(const char *mkfs, const char *size, uint32_t compat,
		       uint32_t incompat)
{
	ut_img *img = ut_img_create(mkfs, size, 0);
	uint64_t A = img->free_blk;
	ut_block b[5][1];
	ut_txn t[5];
	ut_writer w;
	ut_open o;
	lj_jmap *m;
	int i, v1 = (compat & LJ_FEATURE_COMPAT_CHECKSUM) != 0;

	memset(b, 0, sizeof(b));
	memset(t, 0, sizeof(t));
	ut_log_init(&w, img, compat, incompat | ASYNC, img->first, 300);
	for (i = 0; i < 5; i++) {
		b[i][0].home = A + (uint64_t)i;
		t[i].blocks = b[i];
		t[i].nblocks = 1;
		t[i].commit_sec = 2000 + (uint64_t)i;
		if (i == 1 || i == 3)
			t[i].flags = UT_BAD_COMMIT_CSUM;
		ut_log_txn(&w, &t[i]);
	}
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_int_eq(m->log->refused, 0);
	if (v1) {
		ck_assert_uint_eq(m->log->end_tid, 301);
		ck_assert_uint_eq(m->log->ntxn, 1);
		ck_assert_uint_eq(m->n, 1);
	} else {
		ck_assert_uint_eq(m->log->end_tid, 303);
		ck_assert_uint_eq(m->log->ntxn, 3);
		ck_assert_uint_eq(m->n, 3);
		/* t[1]'s own copy counts: its commit is not the last bad. */
		assert_mapped(m, A + 1, b[1][0].jblock, 301);
		assert_mapped(m, A + 2, b[2][0].jblock, 302);
		ck_assert_ptr_null(lj_jmap_lookup(m, A + 3));
		ck_assert_ptr_null(lj_jmap_lookup(m, A + 4));
		/* What is reported is where replay ends. */
		ck_assert_msg(m->log->end == LJ_END_COMMIT_CSUM &&
			      m->log->end_block == t[3].commit_block,
			      "async: log ends at tid 303 (bad commit at "
			      "journal block %u) but end=%d end_block=%u "
			      "end_msg=\"%s\"", t[3].commit_block,
			      m->log->end, m->log->end_block,
			      m->log->end_msg);
	}
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}

START_TEST(test_async_v3)
{
	async_case("-b 4096", "16M", 0, V3);
}
END_TEST

START_TEST(test_async_v2)
{
	async_case("-b 1024", "8M", 0, V2);
}
END_TEST

START_TEST(test_async_v1)
{
	async_case("-b 1024 -O ^metadata_csum", "8M",
		   LJ_FEATURE_COMPAT_CHECKSUM, LJ_FEATURE_INCOMPAT_REVOKE);
}
END_TEST

/*
 * A bad descriptor (or revoke) block checksum in a transaction whose commit
 * time is not older than the previous one: stock refuses the whole log; a
 * lazy scan (LJ_SCAN_SALVAGE) keeps the transactions before it.
 */
static void refused_case(const struct ut_fmt *f, unsigned int bad)
{
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	uint64_t rev[] = { A + 5 };
	ut_block b1[] = { { .home = A } };
	ut_block b2[] = { { .home = A + 1 } };
	ut_block b3[] = { { .home = A + 2 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1000 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 1000,
		      .revokes = rev, .nrevokes = 1, .flags = bad };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 1002 };
	uint32_t bad_at;
	ut_writer w;
	ut_open o;
	lj_jmap *m;
	int salvage;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 9);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	bad_at = bad == UT_BAD_DESC_CSUM ? t2.desc_block : t2.revoke_block;
	ut_open_journal(img, &o);
	for (salvage = 0; salvage < 2; salvage++) {
		m = ut_jmap(&o, salvage ? LJ_SCAN_SALVAGE : 0, 0);
		if (!fmt_v23(f)) {	/* no block checksums: all count */
			ck_assert_uint_eq(m->log->ntxn, 3);
			ck_assert_int_eq(m->log->refused, 0);
			lj_jmap_free(m);
			continue;
		}
		ck_assert_int_eq(m->log->refused, 1);
		ck_assert_int_eq(m->log->end, LJ_END_REFUSED);
		ck_assert_uint_eq(m->log->end_block, bad_at);
		ck_assert_int_eq(m->log->salvaged, salvage);
		if (salvage) {
			ck_assert_uint_eq(m->log->ntxn, 1);
			ck_assert_uint_eq(m->log->end_tid, 10);
			ck_assert_uint_eq(m->n, 1);
			assert_mapped(m, A, b1[0].jblock, 9);
		} else {
			ck_assert_uint_eq(m->log->ntxn, 0);
			ck_assert_uint_eq(m->log->ntags, 0);
			ck_assert_uint_eq(m->log->nrevokes, 0);
			ck_assert_uint_eq(m->log->log_blocks, 0);
			ck_assert_uint_eq(m->n, 0);
		}
		lj_jmap_free(m);
	}
	ut_close_journal(&o);
	ut_img_free(img);
}

START_TEST(test_bad_desc_csum_refused)
{
	refused_case(&ut_fmts[_i], UT_BAD_DESC_CSUM);
}
END_TEST

START_TEST(test_bad_revoke_csum_refused)
{
	refused_case(&ut_fmts[_i], UT_BAD_REVOKE_CSUM);
}
END_TEST

/* Same, with an OLDER commit time: a stale block, the log quietly ends. */
START_TEST(test_bad_desc_csum_stale)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img;
	uint64_t A;
	ut_block b1[] = { { .home = 0 } };
	ut_block b2[] = { { .home = 0 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1000 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 999,
		      .flags = UT_BAD_DESC_CSUM };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	if (!fmt_v23(f))
		return;		/* no block checksums in this format */
	img = ut_img_create(f->mkfs, f->size, 0);
	A = img->free_blk;
	b1[0].home = A;
	b2[0].home = A + 1;
	ut_log_init(&w, img, f->compat, f->incompat, img->first, 9);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, LJ_SCAN_SALVAGE, 0);
	ck_assert_int_eq(m->log->refused, 0);
	ck_assert_int_eq(m->log->salvaged, 0);
	ck_assert_int_eq(m->log->end, LJ_END_STALE_CSUM);
	ck_assert_uint_eq(m->log->end_block, t2.desc_block);
	ck_assert_uint_eq(m->log->ntxn, 1);
	ck_assert_uint_eq(m->log->end_tid, 10);
	ck_assert_uint_eq(m->n, 1);
	assert_mapped(m, A, b1[0].jblock, 9);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* A bad descriptor checksum in a transaction without a commit block. */
START_TEST(test_bad_desc_csum_uncommitted)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	uint64_t A = img->free_blk;
	ut_block b1[] = { { .home = A } };
	ut_block b2[] = { { .home = A + 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1000 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 1001,
		      .flags = UT_BAD_DESC_CSUM | UT_NO_COMMIT };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, 0, V3, img->first, 9);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_open_journal(img, &o);
	m = ut_jmap(&o, 0, 0);
	ck_assert_int_eq(m->log->refused, 0);
	ck_assert_int_eq(m->log->end, LJ_END_NO_MAGIC);
	ck_assert_uint_eq(m->log->ntxn, 1);
	ck_assert_uint_eq(m->n, 1);
	lj_jmap_free(m);
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* A revoke block with r_count beyond the block: recovery refuses. */
START_TEST(test_revoke_count_refused)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t A = img->free_blk;
	uint64_t rev[] = { A + 7 };
	ut_block b1[] = { { .home = A } };
	ut_block b2[] = { { .home = A + 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1000 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 1001,
		      .revokes = rev, .nrevokes = 1,
		      .flags = UT_BAD_REVOKE_COUNT };
	ut_writer w;
	ut_open o;
	lj_jmap *m;
	int salvage;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 9);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_open_journal(img, &o);
	for (salvage = 0; salvage < 2; salvage++) {
		m = ut_jmap(&o, salvage ? LJ_SCAN_SALVAGE : 0, 0);
		ck_assert_int_eq(m->log->refused, 1);
		ck_assert_int_eq(m->log->end, LJ_END_REVOKE_COUNT);
		ck_assert_uint_eq(m->log->end_block, t2.revoke_block);
		ck_assert_uint_eq(m->log->ntxn, salvage ? 1 : 0);
		ck_assert_uint_eq(m->n, salvage ? 1 : 0);
		ck_assert_uint_eq(m->log->nrevokes, 0);
		lj_jmap_free(m);
	}
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

Suite *scan_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = tcase_create("log");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_empty_log);
	tcase_add_loop_test(tc, test_basic, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_multi_descriptor, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_uncommitted, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_wrong_sequence, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_wrap_tags, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_wrap_commit, 0, ut_nfmts);
	tcase_add_test(tc, test_wrap_jsb_not_in_txn);
	tcase_add_loop_test(tc, test_bad_commit_csum, 0, ut_nfmts);
	tcase_add_test(tc, test_async_v3);
	tcase_add_test(tc, test_async_v2);
	tcase_add_test(tc, test_async_v1);
	tcase_add_loop_test(tc, test_bad_desc_csum_refused, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_bad_revoke_csum_refused, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_bad_desc_csum_stale, 0, ut_nfmts);
	tcase_add_test(tc, test_bad_desc_csum_uncommitted);
	tcase_add_loop_test(tc, test_revoke_count_refused, 0, ut_nfmts);
	suite_add_tcase(s, tc);
	return s;
}
