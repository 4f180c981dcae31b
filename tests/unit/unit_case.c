/*
 * unit_case.c --- table-driven log cases for the Check unit tests: a log
 * described by a table row (transactions of blocks and revokes, written
 * with the crafting writer of unit_image.c) is scanned and mapped, and the
 * result compared with what the row expects.  Also the assertions and the
 * suite builder the test files share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* ------------------------------------------------------------------ */
/* Shared assertions                                                   */

int ut_fmt_has_csum(const struct ut_fmt *f)
{
	return (f->compat & LJ_FEATURE_COMPAT_CHECKSUM) || ut_fmt_v23(f);
}

int ut_fmt_v23(const struct ut_fmt *f)
{
	return (f->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
			       LJ_FEATURE_INCOMPAT_CSUM_V3)) != 0;
}

void ut_assert_copy(ut_open *o, uint32_t jblock, uint64_t home,
		    uint32_t tid, uint32_t salt)
{
	unsigned char *got = malloc(o->j->blocksize);
	unsigned char *want = malloc(o->j->blocksize);

	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	ck_assert_int_eq(lj_journal_read(o->j, jblock, 1, got), 0);
	ut_fill(want, o->j->blocksize, home, tid, salt);
	ck_assert_mem_eq(got, want, o->j->blocksize);
	free(got);
	free(want);
}

void ut_assert_mapped(const lj_jmap *m, uint64_t home, uint32_t jblock,
		      uint32_t tid)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(m, home);

	ck_assert_msg(e != NULL, "block %llu not mapped",
		      (unsigned long long)home);
	ck_assert_uint_eq(e->home, home);
	ck_assert_uint_eq(e->jblock, jblock);
	ck_assert_uint_eq(e->tid, tid);
}

void ut_assert_unmapped(const lj_jmap *m, uint64_t home)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(m, home);

	ck_assert_msg(e == NULL, "block %llu mapped to journal block %u "
		      "(tid %u)", (unsigned long long)home,
		      e ? e->jblock : 0, e ? e->tid : 0);
}

void ut_done(ut_img *img, ut_open *o, lj_jmap *m)
{
	lj_jmap_free(m);
	ut_close_journal(o);
	ut_img_free(img);
}

/* ------------------------------------------------------------------ */
/* Suites                                                              */

Suite *ut_suite(const char *name, const struct ut_tcase *tcs, size_t ntcs)
{
	Suite *s = suite_create(name);
	size_t i;

	for (i = 0; i < ntcs; i++) {
		const struct ut_tcase *c = &tcs[i];
		TCase *tc = tcase_create(c->name);
		const struct ut_test *t;

		tcase_set_timeout(tc, c->timeout);
		for (t = c->tests; t->fn; t++) {
			if (t->loops)
				tcase_add_loop_test(tc, t->fn, 0, t->loops);
			else
				tcase_add_test(tc, t->fn);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

/* ------------------------------------------------------------------ */
/* Log cases                                                           */

/* Every format of ut_fmts for a case with fmt == NULL, else one. */
int ut_case_runs(const struct ut_case *cases, size_t ncases)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ncases; i++)
		n += cases[i].fmt ? 1 : ut_nfmts;
	return n;
}

/* The case and format of loop iteration run (see ut_case_runs). */
static const struct ut_case *pick(const struct ut_case *cases,
				  size_t ncases, int run,
				  const struct ut_fmt **f)
{
	size_t i;

	for (i = 0; i < ncases; i++) {
		int k = cases[i].fmt ? 1 : ut_nfmts;

		if (run < k) {
			*f = cases[i].fmt ? cases[i].fmt : &ut_fmts[run];
			return &cases[i];
		}
		run -= k;
	}
	ck_abort_msg("no case for run %d", run);
	return NULL;
}

static uint64_t revoke_home(const ut_img *img, const struct ut_fmt *f,
			    const struct ut_case_rev *r)
{
	if (r->hi33)	/* the low 32 bits of A + off, in a 64-bit log */
		return (f->incompat & LJ_FEATURE_INCOMPAT_64BIT) ?
			(1ULL << 33) + img->free_blk + r->off :
			img->free_blk + r->off32;
	return img->free_blk + r->off;
}

/* The journal block a case names. */
static uint32_t where(const struct ut_case_at *at, const ut_txn *t,
		      const ut_writer *w)
{
	switch (at->kind) {
	case UT_AT_FIRST:	return t[at->txn].first_block;
	case UT_AT_DESC:	return t[at->txn].desc_block;
	case UT_AT_REVOKE:	return t[at->txn].revoke_block;
	case UT_AT_COMMIT:	return t[at->txn].commit_block;
	case UT_AT_WRITER:	return w->blk;
	default:		ck_abort_msg("bad ut_case_at"); return 0;
	}
}

#define CHECK_NUM(field, got)						\
	do {								\
		if (want->field.on)					\
			ck_assert_msg((long long)(got) ==		\
				      (long long)want->field.v,		\
				      "%s [%s]: " #field " %lld, want %lld", \
				      c->name, f->name,			\
				      (long long)(got),			\
				      (long long)want->field.v);	\
	} while (0)

static void check_want(const struct ut_case *c, const struct ut_fmt *f,
		       const struct ut_case_want *want, ut_img *img,
		       ut_open *o, const lj_jmap *m, const ut_txn *t,
		       ut_block (*b)[UT_CASE_MAXB], const ut_writer *w)
{
	const lj_log *log = m->log;
	uint64_t A = img->free_blk;
	size_t i;

	CHECK_NUM(end, log->end);
	if (want->end_at.kind)
		ck_assert_msg(log->end_block == where(&want->end_at, t, w),
			      "%s [%s]: log ends at %u, want %u: %s", c->name,
			      f->name, log->end_block,
			      where(&want->end_at, t, w), log->end_msg);
	CHECK_NUM(start_tid, log->start_tid - c->seq);
	CHECK_NUM(end_tid, log->end_tid - c->seq);
	CHECK_NUM(ntxn, log->ntxn);
	CHECK_NUM(ntags, log->ntags);
	CHECK_NUM(nrevokes, log->nrevokes);
	CHECK_NUM(log_blocks, log->log_blocks);
	CHECK_NUM(refused, log->refused);
	CHECK_NUM(salvaged, log->salvaged);
	CHECK_NUM(uncommitted, log->uncommitted);
	CHECK_NUM(clean_end, lj_log_clean_end(log) != 0);
	CHECK_NUM(n, m->n);
	CHECK_NUM(bad_csums, m->bad_csums);
	CHECK_NUM(data_blocks_read, m->data_blocks_read);
	if (want->min_data_blocks_read)
		ck_assert_uint_ge(m->data_blocks_read,
				  want->min_data_blocks_read);
	if (want->end_msg)
		ck_assert_msg(strstr(log->end_msg, want->end_msg) != NULL,
			      "%s [%s]: end_msg: %s", c->name, f->name,
			      log->end_msg);
	if (want->bad_csum_msg)
		ck_assert_msg(strstr(m->bad_csum_msg, want->bad_csum_msg),
			      "%s [%s]: bad_csum_msg: %s", c->name, f->name,
			      m->bad_csum_msg);
	for (i = 0; i < UT_CASE_MAXR && want->revoked[i].on; i++) {
		const struct ut_case_rev *r =
			&c->txn[want->revoked[i].txn].revoke[want->revoked[i].k];

		ck_assert_uint_eq(log->revokes[i].home, revoke_home(img, f, r));
		ck_assert_uint_eq(log->revokes[i].tid,
				  t[want->revoked[i].txn].tid);
	}
	for (i = 0; i < UT_CASE_MAXM && want->mapped[i].on; i++) {
		const struct ut_case_map *p = &want->mapped[i];
		const ut_block *bl = &b[p->txn][p->blk];

		ut_assert_mapped(m, bl->home, bl->jblock, t[p->txn].tid);
		if (p->copy)
			ut_assert_copy(o, bl->jblock, bl->home, t[p->txn].tid,
				       bl->salt);
	}
	for (i = 0; i < UT_CASE_MAXM && want->unmapped[i].on; i++)
		ut_assert_unmapped(m, A + want->unmapped[i].v);
	for (i = 0; i < UT_CASE_MAXT; i++) {
		if (want->nlive[i].on)
			ck_assert_uint_eq(log->txn[i].nlive, want->nlive[i].v);
		if (want->txn_ntags[i].on)
			ck_assert_uint_eq(log->txn[i].ntags,
					  want->txn_ntags[i].v);
		if (want->txn_first[i].kind)
			ck_assert_uint_eq(log->txn[i].first_block,
					  where(&want->txn_first[i], t, w));
	}
}

void ut_case_run(const struct ut_case *cases, size_t ncases, int run)
{
	const struct ut_fmt *f;
	const struct ut_case *c = pick(cases, ncases, run, &f);
	const struct ut_case_want *want = &c->want[c->when && c->when(f)];
	ut_block b[UT_CASE_MAXT][UT_CASE_MAXB];
	uint64_t rev[UT_CASE_MAXT][UT_CASE_MAXR];
	ut_txn t[UT_CASE_MAXT];
	ut_writer w;
	ut_open o;
	ut_img *img;
	lj_jmap *m;
	uint32_t start;
	size_t i, k;

	if (want->skip)
		return;		/* nothing this format can show */
	img = ut_img_create(f->mkfs, f->size, 0);
	memset(b, 0, sizeof(b));
	memset(t, 0, sizeof(t));
	if (c->empty)
		start = 0;
	else if (c->start >= 0)
		start = img->first + (uint32_t)c->start;
	else
		start = img->maxlen - (uint32_t)-c->start;
	ut_log_init(&w, img, f->compat, f->incompat | c->incompat, start,
		    c->seq);
	for (i = 0; i < c->ntxn; i++) {
		const struct ut_case_txn *ct = &c->txn[i];

		for (k = 0; k < ct->nblocks; k++) {
			b[i][k].home = img->free_blk + ct->block[k].off;
			b[i][k].salt = ct->block[k].salt;
			b[i][k].bad_csum = ct->block[k].bad_csum;
		}
		for (k = 0; k < ct->nrevokes; k++)
			rev[i][k] = revoke_home(img, f, &ct->revoke[k]);
		t[i].blocks = ct->nblocks ? b[i] : NULL;
		t[i].nblocks = ct->nblocks;
		t[i].revokes = ct->nrevokes ? rev[i] : NULL;
		t[i].nrevokes = ct->nrevokes;
		t[i].commit_sec = ct->commit_sec;
		t[i].flags = ct->flags;
		if (ct->tid.on)
			w.tid = c->seq + (uint32_t)ct->tid.v;
		ut_log_txn(&w, &t[i]);
	}
	ut_open_journal(img, &o);
	m = ut_jmap(&o, c->scan_flags, c->jmap_flags);
	check_want(c, f, want, img, &o, m, t, b, &w);
	ut_done(img, &o, m);
}
