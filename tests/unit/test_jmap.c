/*
 * test_jmap.c --- lj_jmap_build: the jbd2 replay rule (newest copy,
 * revokes, data checksums), reverse lookups, statistics and memory use.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* Build the jmap of the image's log (no salvage, keep tags). */
static lj_jmap *build(ut_img *img, ut_open *o)
{
	ut_open_journal(img, o);
	return ut_jmap(o, 0, LJ_JMAP_KEEP_TAGS);
}

/* A tag naming a block beyond the file system is an error. */
START_TEST(test_tag_out_of_range)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	int b64 = (f->incompat & LJ_FEATURE_INCOMPAT_64BIT) != 0;
	uint64_t X = img->free_blk;
	uint64_t bad = b64 ? (1ULL << 32) + X : img->fs_blocks;
	ut_block b1[] = { { .home = X } };
	ut_block b2[] = { { .home = X + 1 }, { .home = bad } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 2, .commit_sec = 2 };
	lj_jmap *m = (lj_jmap *)1;
	ut_writer w;
	ut_open o;
	lj_log *log;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 1);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_open_journal(img, &o);
	log = ut_scan(&o, 0);
	ck_assert_uint_eq(log->ntxn, 2);
	ck_assert_uint_eq(log->tags[2].home, bad);
	ck_assert_int_eq(lj_jmap_build(log, 0, &m), LJ_ET_TAG_OUT_OF_RANGE);
	ck_assert_ptr_null(m);		/* and log was freed */
	ut_close_journal(&o);
	ut_img_free(img);
}
END_TEST

/* lj_jmap_reverse: live, stale, meta, unused. */
START_TEST(test_reverse)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	uint64_t X = img->free_blk, Y = X + 1, home = 0;
	uint64_t rev[] = { Y };
	ut_block b1[] = { { .home = X }, { .home = Y } };
	ut_block b2[] = { { .home = X } };
	ut_block b3[] = { { .home = Y } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 2,
		      .revokes = rev, .nrevokes = 1 };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 3,
		      .flags = UT_NO_COMMIT };
	uint32_t tid = 0;
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, 0, LJ_FEATURE_INCOMPAT_REVOKE |
		    LJ_FEATURE_INCOMPAT_64BIT | LJ_FEATURE_INCOMPAT_CSUM_V3,
		    img->first + 10, 77);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	m = build(img, &o);
	ck_assert_uint_eq(m->n, 1);

	ck_assert_int_eq(lj_jmap_reverse(m, b2[0].jblock, &home, &tid),
			 LJ_JB_LIVE);
	ck_assert_uint_eq(home, X);
	ck_assert_uint_eq(tid, 78);

	home = tid = 0;
	ck_assert_int_eq(lj_jmap_reverse(m, b1[0].jblock, &home, &tid),
			 LJ_JB_STALE);
	ck_assert_uint_eq(home, X);
	ck_assert_uint_eq(tid, 77);
	home = tid = 0;
	ck_assert_int_eq(lj_jmap_reverse(m, b1[1].jblock, &home, &tid),
			 LJ_JB_STALE);		/* revoked */
	ck_assert_uint_eq(home, Y);
	ck_assert_uint_eq(tid, 77);

	tid = 0;
	ck_assert_int_eq(lj_jmap_reverse(m, t1.desc_block, &home, &tid),
			 LJ_JB_META);
	ck_assert_uint_eq(tid, 77);
	ck_assert_int_eq(lj_jmap_reverse(m, t1.commit_block, &home, &tid),
			 LJ_JB_META);
	ck_assert_uint_eq(tid, 77);
	ck_assert_int_eq(lj_jmap_reverse(m, t2.revoke_block, &home, &tid),
			 LJ_JB_META);
	ck_assert_uint_eq(tid, 78);
	ck_assert_int_eq(lj_jmap_reverse(m, t2.desc_block, &home, &tid),
			 LJ_JB_META);
	ck_assert_int_eq(lj_jmap_reverse(m, t2.commit_block, &home, &tid),
			 LJ_JB_META);

	/* The uncommitted transaction, before and after the log, sb. */
	ck_assert_int_eq(lj_jmap_reverse(m, t3.desc_block, &home, &tid),
			 LJ_JB_UNUSED);
	ck_assert_int_eq(lj_jmap_reverse(m, b3[0].jblock, &home, &tid),
			 LJ_JB_UNUSED);
	ck_assert_int_eq(lj_jmap_reverse(m, img->first + 9, &home, &tid),
			 LJ_JB_UNUSED);
	ck_assert_int_eq(lj_jmap_reverse(m, img->maxlen - 1, &home, &tid),
			 LJ_JB_UNUSED);
	ck_assert_int_eq(lj_jmap_reverse(m, 0, &home, &tid), LJ_JB_UNUSED);
	ut_done(img, &o, m);
}
END_TEST

START_TEST(test_stats)
{
	ut_img *img = ut_img_create("-b 4096", "16M", 0);
	uint64_t X = img->free_blk;
	uint64_t rev[] = { X + 1 };
	unsigned char *esc = malloc(img->bs);
	ut_block b1[] = { { .home = X }, { .home = X + 1 }, { .home = X + 2 } };
	ut_block b2[] = { { .home = X }, { .home = X + 3, .data = esc } };
	ut_txn t1 = { .blocks = b1, .nblocks = 3, .commit_sec = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 2, .commit_sec = 2,
		      .revokes = rev, .nrevokes = 1 };
	struct lj_jmap_stats st;
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_fill(esc, img->bs, X + 3, 0, 0);
	lj_put_be32(esc, LJ_JBD2_MAGIC);
	ut_log_init(&w, img, 0, LJ_FEATURE_INCOMPAT_REVOKE |
		    LJ_FEATURE_INCOMPAT_CSUM_V3, img->maxlen - 4, 500);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ck_assert(b2[1].escaped);
	m = build(img, &o);
	lj_jmap_stats(m, &st);
	ck_assert_uint_eq(st.live, 3);
	ck_assert_uint_eq(st.txns, 2);
	ck_assert_uint_eq(st.oldest_tid, 500);
	ck_assert_uint_eq(st.newest_tid, 501);
	ck_assert_uint_eq(st.log_blocks, t1.nblocks_used + t2.nblocks_used);
	ck_assert_uint_eq(st.journal_blocks, img->maxlen - img->first);
	ck_assert_uint_ge(st.bytes, 3 * sizeof(struct lj_jmap_entry));
	ck_assert_uint_le(st.bytes, sizeof(lj_jmap) + 3 * 24 + 4);
	ck_assert_uint_eq(m->nescaped, 1);
	ck_assert(lj_jmap_escaped(m, b2[1].jblock));
	ck_assert(!lj_jmap_escaped(m, b2[0].jblock));
	ck_assert_uint_eq(m->log->txn[0].nlive, 1);
	ck_assert_uint_eq(m->log->txn[1].nlive, 2);
	free(esc);
	ut_done(img, &o, m);
}
END_TEST

/* A million live entries cost at most 24 bytes each. */
START_TEST(test_memory)
{
	enum { NTAGS = 1000000, PER = 1000, NTXN = NTAGS / PER };
	lj_journal *j = calloc(1, sizeof(*j));
	lj_log *log = NULL;	/* the library frees it: ext2fs_get_* */
	struct lj_jmap_stats st;
	lj_jmap *m = NULL;
	uint32_t blk = 1;
	size_t i, k;

	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(ext2fs_get_memzero(sizeof(*log), &log), 0);
	j->blocksize = 4096;
	j->fs_blocks = 1ULL << 40;
	j->maxlen = j->last = 4000000;
	j->first = 1;
	j->sequence = 1000;
	j->start = 1;
	log->j = j;
	log->start_tid = 1000;
	log->end_tid = 1000 + NTXN;
	ck_assert_int_eq(ext2fs_get_array(NTAGS, sizeof(*log->tags),
					  &log->tags), 0);
	ck_assert_int_eq(ext2fs_get_arrayzero(NTXN, sizeof(*log->txn),
					      &log->txn), 0);
	for (k = 0; k < NTXN; k++) {
		struct lj_txn *t = &log->txn[k];

		t->tid = 1000 + (uint32_t)k;
		t->first_block = blk++;		/* descriptor */
		t->tag_first = k * PER;
		t->ntags = PER;
		for (i = k * PER; i < (k + 1) * PER; i++) {
			struct lj_tag *g = &log->tags[i];

			/* odd multiplier: a bijection on 32 bits */
			g->home = (uint32_t)(i * 2654435761U);
			g->jblock = blk++;
			g->tid = t->tid;
			g->csum = 0;
			g->flags = 0;
			g->pad = 0;
		}
		t->commit_block = blk++;
		t->nblocks = t->commit_block - t->first_block + 1;
		log->log_blocks += t->nblocks;
	}
	log->ntxn = NTXN;
	log->ntags = NTAGS;
	log->end = LJ_END_NO_MAGIC;

	ck_assert_int_eq(lj_jmap_build(log, 0, &m), 0);
	lj_jmap_stats(m, &st);
	ck_assert_uint_eq(st.live, NTAGS);
	ck_assert_uint_eq(st.txns, NTXN);
	ck_assert_uint_eq(st.oldest_tid, 1000);
	ck_assert_uint_eq(st.newest_tid, 1000 + NTXN - 1);
	ck_assert_msg(st.bytes / st.live <= 24, "%zu bytes for %zu entries",
		      st.bytes, st.live);
	for (i = 0; i < NTAGS; i += 99991) {
		const struct lj_jmap_entry *e =
			lj_jmap_lookup(m, (uint32_t)(i * 2654435761U));

		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->tid, 1000 + i / PER);
	}
	ck_assert_uint_eq(m->log->txn[5].nlive, PER);
	lj_jmap_free(m);
	free(j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The replay rule: one row per log shape                              */

#define BLK(o)		{ .off = (o) }
#define BAD(o)		{ .off = (o), .bad_csum = 1 }
#define SALT(o, s)	{ .off = (o), .salt = (s) }
#define REV(o)		{ .off = (o) }
#define MAP(t, b)	{ 1, (t), (b), 0 }
#define OFF(o)		UT_EQ(o)

static const struct ut_case jmap_cases[] = {
	{ /* The newest copy wins: X logged three times, Y (A + 9) once. */
	  .name = "newest wins", .start = 1, .seq = 1, .ntxn = 3,
	  .jmap_flags = LJ_JMAP_KEEP_TAGS,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 1 },
		   { 1, { SALT(0, 1) }, .commit_sec = 2 },
		   { 2, { BLK(9), SALT(0, 2) }, .commit_sec = 3 } },
	  .want = { { .n = UT_EQ(2),
		      .mapped = { { 1, 2, 1, 1 }, MAP(2, 0) },
		      .nlive = { UT_EQ(0), UT_EQ(0), UT_EQ(2) } } } },
	{ /* A revoke in a later transaction cancels every older copy; in a
	   * 64-bit log a record with the same low 32 bits as Y does not
	   * touch Y. */
	  .name = "revoke later", .seq = 10, .ntxn = 3,
	  .jmap_flags = LJ_JMAP_KEEP_TAGS,
	  .txn = { { 2, { BLK(0), BLK(1) }, .commit_sec = 1 },
		   { 1, { BLK(0) }, .commit_sec = 2 },
		   { 1, { BLK(2) }, 2,
		     { REV(0), { .off = 1, .hi33 = 1, .off32 = 102 } },
		     .commit_sec = 3 } },
	  .want = { { .nrevokes = UT_EQ(2),
		      .revoked = { { 1, 2, 0 }, { 1, 2, 1 } },
		      .n = UT_EQ(2), .unmapped = { OFF(0) },
		      .mapped = { MAP(0, 1), MAP(2, 0) } } } },
	{ /* A revoke record also cancels the tags of its own transaction
	   * (tids 0x7FFFFFFF..0x80000001). */
	  .name = "revoke same txn", .seq = 0x7FFFFFFF, .ntxn = 3,
	  .jmap_flags = LJ_JMAP_KEEP_TAGS,
	  .txn = { { 2, { BLK(0), BLK(1) }, 1, { REV(0) }, .commit_sec = 1 },
		   { 2, { BLK(2), BLK(3) }, .commit_sec = 2 },
		   { 1, { SALT(2, 1) }, 1, { REV(2) }, .commit_sec = 3 } },
	  .want = { { .ntxn = UT_EQ(3), .n = UT_EQ(2),
		      .unmapped = { OFF(0), OFF(2) },
		      .mapped = { MAP(0, 1), MAP(1, 1) } } } },
	{ /* A block logged again after its revoke (in a revoke-only
	   * transaction) is live again. */
	  .name = "relog after revoke", .seq = 1, .ntxn = 3,
	  .jmap_flags = LJ_JMAP_KEEP_TAGS,
	  .txn = { { 2, { BLK(0), BLK(1) }, .commit_sec = 1 },
		   { 0, { BLK(0) }, 2, { REV(0), REV(1) }, .commit_sec = 2 },
		   { 1, { SALT(0, 3) }, .commit_sec = 3 } },
	  .want = { { .ntxn = UT_EQ(3), .n = UT_EQ(1),
		      .txn_ntags = { [1] = UT_EQ(0) },
		      .txn_first = { [1] = { UT_AT_REVOKE, 1 } },
		      .mapped = { MAP(2, 0) }, .unmapped = { OFF(1) } } } },
	{ /* A bad data-block checksum skips that copy: the older one wins,
	   * V (A + 2) has no good copy.  Nothing to verify without block
	   * checksums. */
	  .name = "bad data csum", .seq = 1, .ntxn = 2,
	  .jmap_flags = LJ_JMAP_KEEP_TAGS,
	  .txn = { { 1, { BLK(0) }, .commit_sec = 1 },
		   { 3, { BAD(0), BLK(1), BAD(2) }, .commit_sec = 2 } },
	  .when = ut_fmt_v23,
	  .want = { { .ntxn = UT_EQ(2), .bad_csums = UT_EQ(0),
		      .data_blocks_read = UT_EQ(0),
		      .mapped = { MAP(1, 1), MAP(1, 0), MAP(1, 2) } },
		    { .ntxn = UT_EQ(2), .n = UT_EQ(2),
		      .bad_csums = UT_EQ(2), .min_data_blocks_read = 4,
		      .bad_csum_msg = "checksum",
		      .mapped = { MAP(1, 1), MAP(0, 0) },
		      .unmapped = { OFF(2) } } } },
	{ /* A tag that is revoked anyway is not checked (not counted as
	   * bad): Y's newest copy is bad (counted), its older one revoked. */
	  .name = "revoked bad csum", .seq = 1, .ntxn = 3,
	  .jmap_flags = LJ_JMAP_KEEP_TAGS,
	  .txn = { { 2, { BAD(0), BLK(1) }, .commit_sec = 1 },
		   { 0, { BLK(0) }, 2, { REV(0), REV(1) }, .commit_sec = 2 },
		   { 1, { BAD(1) }, .commit_sec = 3 } },
	  .when = ut_fmt_v23,
	  .want = { { .ntxn = UT_EQ(3), .bad_csums = UT_EQ(0),
		      .unmapped = { OFF(0) }, .mapped = { MAP(2, 0) } },
		    { .ntxn = UT_EQ(3), .bad_csums = UT_EQ(1),
		      .n = UT_EQ(0), .unmapped = { OFF(0), OFF(1) } } } },
};
UT_CASE_TEST(test_replay_rule, jmap_cases)

Suite *jmap_suite(void)
{
	const struct ut_test rule[] = {
		UT_CASE_ENTRY(test_replay_rule, jmap_cases),
		{ test_tag_out_of_range, ut_nfmts },
		{ test_reverse, 0 },
		{ test_stats, 0 },
		{ NULL, 0 }
	};
	const struct ut_test memory[] = { { test_memory, 0 }, { NULL, 0 } };
	const struct ut_tcase tcs[] = {
		{ "replay-rule", 30, rule },
		{ "memory", 50, memory },
	};

	return ut_suite("jmap", tcs, 2);
}
