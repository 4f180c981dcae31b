/*
 * test_jmap.c --- lj_jmap_build: the jbd2 replay rule (newest copy,
 * revokes, data checksums), reverse lookups, statistics and memory use.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static int fmt_v23(const struct ut_fmt *f)
{
	return (f->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
			       LJ_FEATURE_INCOMPAT_CSUM_V3)) != 0;
}

static void assert_mapped(const lj_jmap *m, uint64_t home, uint32_t jblock,
			  uint32_t tid)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(m, home);

	ck_assert_msg(e != NULL, "block %llu not mapped",
		      (unsigned long long)home);
	ck_assert_uint_eq(e->jblock, jblock);
	ck_assert_uint_eq(e->tid, tid);
}

static void assert_unmapped(const lj_jmap *m, uint64_t home)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(m, home);

	ck_assert_msg(e == NULL, "block %llu mapped to journal block %u "
		      "(tid %u)", (unsigned long long)home,
		      e ? e->jblock : 0, e ? e->tid : 0);
}

/* Build the jmap of the image's log (no salvage, keep tags). */
static lj_jmap *build(ut_img *img, ut_open *o)
{
	ut_open_journal(img, o);
	return ut_jmap(o, 0, LJ_JMAP_KEEP_TAGS);
}

static void done(ut_img *img, ut_open *o, lj_jmap *m)
{
	lj_jmap_free(m);
	ut_close_journal(o);
	ut_img_free(img);
}

START_TEST(test_newest_wins)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t X = img->free_blk, Y = X + 9;
	ut_block b1[] = { { .home = X } };
	ut_block b2[] = { { .home = X, .salt = 1 } };
	ut_block b3[] = { { .home = Y }, { .home = X, .salt = 2 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 2 };
	ut_txn t3 = { .blocks = b3, .nblocks = 2, .commit_sec = 3 };
	unsigned char *got = malloc(img->bs), *want = malloc(img->bs);
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first + 1, 1);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	m = build(img, &o);
	ck_assert_uint_eq(m->n, 2);
	assert_mapped(m, X, b3[1].jblock, 3);
	assert_mapped(m, Y, b3[0].jblock, 3);
	ck_assert_int_eq(lj_journal_read(o.j, b3[1].jblock, 1, got), 0);
	ut_fill(want, img->bs, X, 3, 2);
	ck_assert_mem_eq(got, want, img->bs);
	ck_assert_uint_eq(m->log->txn[0].nlive, 0);
	ck_assert_uint_eq(m->log->txn[1].nlive, 0);
	ck_assert_uint_eq(m->log->txn[2].nlive, 2);
	free(got);
	free(want);
	done(img, &o, m);
}
END_TEST

/* A revoke in a later transaction cancels every older copy. */
START_TEST(test_revoke_later)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	int b64 = (f->incompat & LJ_FEATURE_INCOMPAT_64BIT) != 0;
	uint64_t X = img->free_blk, Y = X + 1, Z = X + 2;
	/* In a 64-bit log, a record with the same low 32 bits as Y. */
	uint64_t rev[] = { X, b64 ? (1ULL << 33) + Y : Z + 100 };
	ut_block b1[] = { { .home = X }, { .home = Y } };
	ut_block b2[] = { { .home = X } };
	ut_block b3[] = { { .home = Z } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 2 };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 3,
		      .revokes = rev, .nrevokes = 2 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 10);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	m = build(img, &o);
	ck_assert_uint_eq(m->log->nrevokes, 2);
	ck_assert_uint_eq(m->log->revokes[0].home, X);
	ck_assert_uint_eq(m->log->revokes[0].tid, 12);
	ck_assert_uint_eq(m->log->revokes[1].home, rev[1]);
	ck_assert_uint_eq(m->n, 2);
	assert_unmapped(m, X);
	assert_mapped(m, Y, b1[1].jblock, 10);
	assert_mapped(m, Z, b3[0].jblock, 12);
	done(img, &o, m);
}
END_TEST

/* A revoke record also cancels the tags of its own transaction. */
START_TEST(test_revoke_same_txn)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t X = img->free_blk, Y = X + 1, Z = X + 2, W = X + 3;
	uint64_t rev1[] = { X }, rev3[] = { Z };
	ut_block b1[] = { { .home = X }, { .home = Y } };
	ut_block b2[] = { { .home = Z }, { .home = W } };
	ut_block b3[] = { { .home = Z, .salt = 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 1,
		      .revokes = rev1, .nrevokes = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 2, .commit_sec = 2 };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 3,
		      .revokes = rev3, .nrevokes = 1 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 0x7FFFFFFF);
	ut_log_txn(&w, &t1);		/* tids 0x7FFFFFFF..0x80000001 */
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	m = build(img, &o);
	ck_assert_uint_eq(m->log->ntxn, 3);
	assert_unmapped(m, X);
	assert_mapped(m, Y, b1[1].jblock, 0x7FFFFFFF);
	assert_unmapped(m, Z);
	assert_mapped(m, W, b2[1].jblock, 0x80000000U);
	ck_assert_uint_eq(m->n, 2);
	done(img, &o, m);
}
END_TEST

/* A block logged again after its revoke is live again. */
START_TEST(test_relog_after_revoke)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t X = img->free_blk, Y = X + 1;
	uint64_t rev[] = { X, Y };
	ut_block b1[] = { { .home = X }, { .home = Y } };
	ut_block b3[] = { { .home = X, .salt = 3 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 1 };
	ut_txn t2 = { .commit_sec = 2, .revokes = rev, .nrevokes = 2 };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 3 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 1);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);		/* a revoke-only transaction */
	ut_log_txn(&w, &t3);
	m = build(img, &o);
	ck_assert_uint_eq(m->log->ntxn, 3);
	ck_assert_uint_eq(m->log->txn[1].ntags, 0);
	ck_assert_uint_eq(m->log->txn[1].first_block, t2.revoke_block);
	ck_assert_uint_eq(m->n, 1);
	assert_mapped(m, X, b3[0].jblock, 3);
	assert_unmapped(m, Y);
	done(img, &o, m);
}
END_TEST

/* A bad data-block checksum skips that copy: the older one wins. */
START_TEST(test_bad_data_csum)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t X = img->free_blk, Y = X + 1, V = X + 2;
	ut_block b1[] = { { .home = X } };
	ut_block b2[] = { { .home = X, .bad_csum = 1 }, { .home = Y },
			  { .home = V, .bad_csum = 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 1, .commit_sec = 1 };
	ut_txn t2 = { .blocks = b2, .nblocks = 3, .commit_sec = 2 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 1);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	m = build(img, &o);
	ck_assert_uint_eq(m->log->ntxn, 2);
	assert_mapped(m, Y, b2[1].jblock, 2);
	if (fmt_v23(f)) {
		assert_mapped(m, X, b1[0].jblock, 1);
		assert_unmapped(m, V);	/* its only copy is bad */
		ck_assert_uint_eq(m->n, 2);
		ck_assert_uint_eq(m->bad_csums, 2);
		ck_assert_uint_ge(m->data_blocks_read, 4);
		ck_assert_msg(strstr(m->bad_csum_msg, "checksum") != NULL,
			      "bad_csum_msg: %s", m->bad_csum_msg);
	} else {		/* nothing to verify */
		assert_mapped(m, X, b2[0].jblock, 2);
		assert_mapped(m, V, b2[2].jblock, 2);
		ck_assert_uint_eq(m->bad_csums, 0);
		ck_assert_uint_eq(m->data_blocks_read, 0);
	}
	done(img, &o, m);
}
END_TEST

/* A tag that is revoked anyway is not checked (not counted as bad). */
START_TEST(test_revoked_bad_csum)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	ut_img *img = ut_img_create(f->mkfs, f->size, 0);
	uint64_t X = img->free_blk, Y = X + 1;
	uint64_t rev[] = { X, Y };
	ut_block b1[] = { { .home = X, .bad_csum = 1 }, { .home = Y } };
	ut_block b3[] = { { .home = Y, .bad_csum = 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = 2, .commit_sec = 1 };
	ut_txn t2 = { .commit_sec = 2, .revokes = rev, .nrevokes = 2 };
	ut_txn t3 = { .blocks = b3, .nblocks = 1, .commit_sec = 3 };
	ut_writer w;
	ut_open o;
	lj_jmap *m;

	ut_log_init(&w, img, f->compat, f->incompat, img->first, 1);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	m = build(img, &o);
	ck_assert_uint_eq(m->log->ntxn, 3);
	assert_unmapped(m, X);
	if (fmt_v23(f)) {
		/* Y: newest copy bad (counted), older one revoked. */
		assert_unmapped(m, Y);
		ck_assert_uint_eq(m->bad_csums, 1);
		ck_assert_uint_eq(m->n, 0);
	} else {
		assert_mapped(m, Y, b3[0].jblock, 3);
		ck_assert_uint_eq(m->bad_csums, 0);
	}
	done(img, &o, m);
}
END_TEST

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
	done(img, &o, m);
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
	done(img, &o, m);
}
END_TEST

/* A million live entries cost at most 24 bytes each. */
START_TEST(test_memory)
{
	enum { NTAGS = 1000000, PER = 1000, NTXN = NTAGS / PER };
	lj_journal *j = calloc(1, sizeof(*j));
	lj_log *log = calloc(1, sizeof(*log));
	struct lj_jmap_stats st;
	lj_jmap *m = NULL;
	uint32_t blk = 1;
	size_t i, k;

	ck_assert_ptr_nonnull(j);
	ck_assert_ptr_nonnull(log);
	j->blocksize = 4096;
	j->fs_blocks = 1ULL << 40;
	j->maxlen = j->last = 4000000;
	j->first = 1;
	j->sequence = 1000;
	j->start = 1;
	log->j = j;
	log->start_tid = 1000;
	log->end_tid = 1000 + NTXN;
	log->tags = malloc(NTAGS * sizeof(*log->tags));
	log->txn = calloc(NTXN, sizeof(*log->txn));
	ck_assert_ptr_nonnull(log->tags);
	ck_assert_ptr_nonnull(log->txn);
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

Suite *jmap_suite(void)
{
	Suite *s = suite_create("jmap");
	TCase *tc = tcase_create("replay-rule");
	TCase *tm = tcase_create("memory");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_newest_wins, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_revoke_later, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_revoke_same_txn, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_relog_after_revoke, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_bad_data_csum, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_revoked_bad_csum, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_tag_out_of_range, 0, ut_nfmts);
	tcase_add_test(tc, test_reverse);
	tcase_add_test(tc, test_stats);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tm, 50);
	tcase_add_test(tm, test_memory);
	suite_add_tcase(s, tm);
	return s;
}
