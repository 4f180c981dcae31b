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
	unsigned int i;

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

	for (i = 0; i < 2; i++) {
		const ut_txn *t = i ? &t2 : &t1;

		ck_assert_uint_eq(log->txn[i].tid, 100 + i);
		ck_assert_uint_eq(log->txn[i].first_block, t->first_block);
		ck_assert_uint_eq(log->txn[i].commit_block, t->commit_block);
		ck_assert_uint_eq(log->txn[i].nblocks, t->nblocks_used);
		ck_assert_uint_eq(log->txn[i].tag_first, 2 * i);
		ck_assert_uint_eq(log->txn[i].ntags, 2);
		ck_assert_uint_eq(log->txn[i].commit_sec, 1000 + i);
	}

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
	ut_assert_mapped(m, A, b1[0].jblock, 100);
	ut_assert_mapped(m, B, b2[0].jblock, 101);
	ut_assert_mapped(m, C, b2[1].jblock, 101);
	ck_assert_ptr_null(lj_jmap_lookup(m, C + 1));
	ck_assert_ptr_null(lj_jmap_lookup(m, A - 1));
	ck_assert_uint_eq(m->bad_csums, 0);
	ck_assert_uint_eq(m->nescaped, 0);
	ut_assert_copy(&o, b2[0].jblock, B, 101, 0);
	ut_assert_copy(&o, b1[0].jblock, A, 100, 0);
	ut_done(img, &o, m);
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
		ut_assert_mapped(m, b[i].home, b[i].jblock, 1);
	lj_jmap_free(m);
	ut_close_journal(&o);
	free(b);
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
	ut_assert_mapped(m, A, L - 2, 0xFFFFFFFFU);
	ut_assert_mapped(m, A + 1, b2[0].jblock, 0);
	ut_assert_mapped(m, A + 2, F, 0xFFFFFFFFU);
	ut_assert_mapped(m, A + 3, F + 1, 0xFFFFFFFFU);
	ut_assert_copy(&o, F + 1, A + 3, 0xFFFFFFFFU, 0);
	ut_done(img, &o, m);
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
	ut_done(img, &o, m);
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
	ut_assert_mapped(m, A, L - 1, 3);
	ut_done(img, &o, m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Where the log ends and why: one row per log shape                   */

#define BLK(o)		{ .off = (o) }
#define REV(o)		{ .off = (o) }
#define MAP(t, b)	{ 1, (t), (b), 0 }
#define OFF(o)		UT_EQ(o)

static const struct ut_fmt fmt_4k_v3 = { "4k-64bit-csum_v3", "-b 4096",
	"16M", 0, V3 };
static const struct ut_fmt fmt_1k_v3 = { "1k-64bit-csum_v3", "-b 1024",
	"8M", 0, V3 };
static const struct ut_fmt fmt_1k_v2 = { "1k-32bit-csum_v2", "-b 1024",
	"8M", 0, V2 };
static const struct ut_fmt fmt_1k_v1 = { "1k-checksum_v1",
	"-b 1024 -O ^metadata_csum", "8M", LJ_FEATURE_COMPAT_CHECKSUM,
	LJ_FEATURE_INCOMPAT_REVOKE };

/*
 * async_commit: with csum v2/v3 the scan runs on past a bad commit and the
 * log ends at the LAST transaction with a bad commit checksum (t[1]'s own
 * copy counts: its commit is not the last bad; what is reported is where
 * replay ends); with the v1 checksum it stops at the commit after the
 * first bad one.
 */
#define ASYNC_CASE(nm, f) {						\
	.name = nm, .fmt = f, .incompat = ASYNC, .seq = 300, .ntxn = 5,	\
	.txn = { { 1, { BLK(0) }, .commit_sec = 2000 },			\
		 { 1, { BLK(1) }, .commit_sec = 2001,			\
		   .flags = UT_BAD_COMMIT_CSUM },			\
		 { 1, { BLK(2) }, .commit_sec = 2002 },			\
		 { 1, { BLK(3) }, .commit_sec = 2003,			\
		   .flags = UT_BAD_COMMIT_CSUM },			\
		 { 1, { BLK(4) }, .commit_sec = 2004 } },		\
	.when = ut_fmt_v23,						\
	.want = { { .refused = UT_EQ(0), .end_tid = UT_EQ(1),		\
		    .ntxn = UT_EQ(1), .n = UT_EQ(1) },			\
		  { .refused = UT_EQ(0), .end_tid = UT_EQ(3),		\
		    .ntxn = UT_EQ(3), .n = UT_EQ(3),			\
		    .end = UT_EQ(LJ_END_COMMIT_CSUM),			\
		    .end_at = { UT_AT_COMMIT, 3 },			\
		    .mapped = { MAP(1, 0), MAP(2, 0) },			\
		    .unmapped = { OFF(3), OFF(4) } } } }

/*
 * A bad descriptor (or revoke) block checksum in a transaction whose commit
 * time is not older than the previous one: stock refuses the whole log; a
 * lazy scan (LJ_SCAN_SALVAGE) keeps the transactions before it.  Formats
 * without block checksums read all three.
 */
#define REFUSED_CASE(nm, bad, at, salvage, ...) {			\
	.name = nm, .seq = 9, .ntxn = 3,				\
	.scan_flags = (salvage) ? LJ_SCAN_SALVAGE : 0,			\
	.txn = { { 1, { BLK(0) }, .commit_sec = 1000 },			\
		 { 1, { BLK(1) }, 1, { REV(5) }, .commit_sec = 1000,	\
		   .flags = bad },					\
		 { 1, { BLK(2) }, .commit_sec = 1002 } },		\
	.when = ut_fmt_v23,						\
	.want = { { .ntxn = UT_EQ(3), .refused = UT_EQ(0) },		\
		  { .refused = UT_EQ(1), .end = UT_EQ(LJ_END_REFUSED),	\
		    .end_at = { at, 1 }, .salvaged = UT_EQ(salvage),	\
		    __VA_ARGS__ } } }
#define REFUSED_STOCK	.ntxn = UT_EQ(0), .ntags = UT_EQ(0),		\
			.nrevokes = UT_EQ(0), .log_blocks = UT_EQ(0),	\
			.n = UT_EQ(0)
#define REFUSED_SALVAGE	.ntxn = UT_EQ(1), .end_tid = UT_EQ(1),		\
			.n = UT_EQ(1), .mapped = { MAP(0, 0) }

/* A revoke block with r_count beyond the block: recovery refuses. */
#define REVOKE_COUNT_CASE(nm, salvage) {				\
	.name = nm, .seq = 9, .ntxn = 2,				\
	.scan_flags = (salvage) ? LJ_SCAN_SALVAGE : 0,			\
	.txn = { { 1, { BLK(0) }, .commit_sec = 1000 },			\
		 { 1, { BLK(1) }, 1, { REV(7) }, .commit_sec = 1001,	\
		   .flags = UT_BAD_REVOKE_COUNT } },			\
	.want = { { .refused = UT_EQ(1),				\
		    .end = UT_EQ(LJ_END_REVOKE_COUNT),			\
		    .end_at = { UT_AT_REVOKE, 1 },			\
		    .ntxn = UT_EQ(salvage), .n = UT_EQ(salvage),	\
		    .nrevokes = UT_EQ(0) } } }

static const struct ut_case scan_cases[] = {
	{ /* An empty log: nothing to scan, nothing mapped. */
	  .name = "empty log", .fmt = &fmt_1k_v3, .empty = 1, .seq = 42,
	  .want = { { .end = UT_EQ(LJ_END_EMPTY), .ntxn = UT_EQ(0),
		      .ntags = UT_EQ(0), .start_tid = UT_EQ(0),
		      .end_tid = UT_EQ(0), .refused = UT_EQ(0),
		      .log_blocks = UT_EQ(0), .n = UT_EQ(0),
		      .unmapped = { OFF(0) } } } },
	{ /* A last transaction without commit block does not count. */
	  .name = "uncommitted", .seq = 7, .ntxn = 2,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 10 },
		   { 2, { BLK(0), BLK(1) }, .commit_sec = 11,
		     .flags = UT_NO_COMMIT } },
	  .want = { { .ntxn = UT_EQ(1), .end_tid = UT_EQ(1),
		      .end = UT_EQ(LJ_END_NO_MAGIC), .refused = UT_EQ(0),
		      .end_msg = "no commit block", .uncommitted = UT_EQ(1),
		      .clean_end = UT_EQ(0), .n = UT_EQ(1),
		      .mapped = { MAP(0, 0) }, .unmapped = { OFF(1) } } } },
	{ /* A block of another transaction ends the log; a valid next
	   * tid after it is never seen. */
	  .name = "wrong sequence", .start = 100, .seq = 50, .ntxn = 3,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 10 },
		   { 1, { BLK(1) }, .commit_sec = 11, .tid = UT_EQ(5) },
		   { 1, { BLK(2) }, .commit_sec = 12, .tid = UT_EQ(1) } },
	  .want = { { .end = UT_EQ(LJ_END_SEQUENCE),
		      .end_at = { UT_AT_FIRST, 1 }, .end_tid = UT_EQ(1),
		      .ntxn = UT_EQ(1), .n = UT_EQ(1),
		      .mapped = { MAP(0, 0) } } } },
	{ /* A bad commit checksum ends the log before that transaction;
	   * without checksums all three count. */
	  .name = "bad commit csum", .seq = 20, .ntxn = 3,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 1000 },
		   { 2, { BLK(0), BLK(1) }, .commit_sec = 1001,
		     .flags = UT_BAD_COMMIT_CSUM },
		   { 1, { BLK(2) }, .commit_sec = 1002 } },
	  .when = ut_fmt_has_csum,
	  .want = { { .refused = UT_EQ(0), .ntxn = UT_EQ(3),
		      .end = UT_EQ(LJ_END_NO_MAGIC) },
		    { .refused = UT_EQ(0), .end = UT_EQ(LJ_END_COMMIT_CSUM),
		      .end_at = { UT_AT_COMMIT, 1 }, .end_tid = UT_EQ(1),
		      .ntxn = UT_EQ(1), .n = UT_EQ(1),
		      .mapped = { MAP(0, 0) } } } },
	ASYNC_CASE("async v3", &fmt_4k_v3),
	ASYNC_CASE("async v2", &fmt_1k_v2),
	ASYNC_CASE("async v1", &fmt_1k_v1),
	REFUSED_CASE("bad desc csum", UT_BAD_DESC_CSUM, UT_AT_DESC, 0,
		     REFUSED_STOCK),
	REFUSED_CASE("bad desc csum, salvage", UT_BAD_DESC_CSUM, UT_AT_DESC,
		     1, REFUSED_SALVAGE),
	REFUSED_CASE("bad revoke csum", UT_BAD_REVOKE_CSUM, UT_AT_REVOKE, 0,
		     REFUSED_STOCK),
	REFUSED_CASE("bad revoke csum, salvage", UT_BAD_REVOKE_CSUM,
		     UT_AT_REVOKE, 1, REFUSED_SALVAGE),
	{ /* Same, with an OLDER commit time: a stale block, the log
	   * quietly ends (nothing to show without block checksums). */
	  .name = "bad desc csum, stale", .seq = 9, .ntxn = 2,
	  .scan_flags = LJ_SCAN_SALVAGE,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 1000 },
		   { 1, { BLK(1) }, .commit_sec = 999,
		     .flags = UT_BAD_DESC_CSUM } },
	  .when = ut_fmt_v23,
	  .want = { { .skip = 1 },
		    { .refused = UT_EQ(0), .salvaged = UT_EQ(0),
		      .end = UT_EQ(LJ_END_STALE_CSUM),
		      .end_at = { UT_AT_DESC, 1 }, .ntxn = UT_EQ(1),
		      .end_tid = UT_EQ(1), .n = UT_EQ(1),
		      .mapped = { MAP(0, 0) } } } },
	{ /* A bad descriptor checksum in a transaction without a commit
	   * block. */
	  .name = "bad desc csum, uncommitted", .fmt = &fmt_1k_v3, .seq = 9,
	  .ntxn = 2,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 1000 },
		   { 1, { BLK(1) }, .commit_sec = 1001,
		     .flags = UT_BAD_DESC_CSUM | UT_NO_COMMIT } },
	  .want = { { .refused = UT_EQ(0), .end = UT_EQ(LJ_END_NO_MAGIC),
		      .ntxn = UT_EQ(1), .n = UT_EQ(1) } } },
	REVOKE_COUNT_CASE("revoke count", 0),
	REVOKE_COUNT_CASE("revoke count, salvage", 1),
};
UT_CASE_TEST(test_log_end, scan_cases)

Suite *scan_suite(void)
{
	const struct ut_test tests[] = {
		{ test_basic, ut_nfmts },
		{ test_multi_descriptor, ut_nfmts },
		{ test_wrap_tags, ut_nfmts },
		{ test_wrap_commit, ut_nfmts },
		{ test_wrap_jsb_not_in_txn, 0 },
		UT_CASE_ENTRY(test_log_end, scan_cases),
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "log", 30, tests };

	return ut_suite("scan", &tc, 1);
}
