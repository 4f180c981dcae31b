/*
 * unit_writer.c --- the writer model of the unit tests (unit_writer.h):
 * images with NH free home blocks, the content each must read as, and the
 * checks against a fresh scan of the device and a fresh read-only open.
 */
#include <stdlib.h>
#include <string.h>

#include "unit_writer.h"

uint32_t wt_rand(wt *t)
{
	t->rnd = t->rnd * 1103515245U + 12345U;
	return (t->rnd >> 8) & 0xFFFFFF;
}

unsigned char *wt_xmalloc(size_t n)
{
	unsigned char *p = malloc(n);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* Free blocks of the image (highest first), none of them in the journal. */
static void pick_homes(wt *t)
{
	ext2_filsys fs;
	blk64_t b;
	int n = 0;

	ck_assert_int_eq(ext2fs_open2(t->img->path, NULL, EXT2_FLAG_64BITS, 0,
				      0, unix_io_manager, &fs), 0);
	ck_assert_int_eq(ext2fs_read_block_bitmap(fs), 0);
	for (b = ext2fs_blocks_count(fs->super) - 1;
	     b > fs->super->s_first_data_block && n < NH; b--)
		if (!ext2fs_test_block_bitmap2(fs->block_map, b))
			t->home[n++] = b;
	ck_assert_int_eq(n, NH);
	ext2fs_close_free(&fs);
}

void wt_open(wt *t)
{
	errcode_t err = lj_open_fs(t->img->path, EXT2_FLAG_RW, &t->fs);

	ck_assert_msg(err == 0, "lj_open_fs rw: %s", error_message(err));
	ck_assert_int_eq(lj_lazy_get_state(t->fs->io, &t->st), 0);
	t->w = lj_lazy_writer(t->fs->io);
	ck_assert_ptr_nonnull(t->w);
}

void wt_close(wt *t)
{
	errcode_t err = ext2fs_close_free(&t->fs);

	ck_assert_msg(err == 0, "ext2fs_close: %s", error_message(err));
	t->w = NULL;
	t->st = NULL;
}

/*
 * An image in format f (mkfs options and size overridable), an empty log
 * in the journal format of f with sequence seq, the home copies read into
 * the model; opened for writing unless noopen.
 */
static void setup_img(wt *t, const struct ut_fmt *f, const char *mkfs,
		      const char *size, uint32_t seq, int noopen, int lazy)
{
	ut_writer uw;
	int i;

	memset(t, 0, sizeof(*t));
	t->f = f;
	t->img = ut_img_create(mkfs ? mkfs : f->mkfs, size ? size : f->size,
			       lazy);
	t->bs = t->img->bs;
	t->rnd = 12345;
	t->span = NH;
	pick_homes(t);
	for (i = 0; i < NH; i++) {
		t->model[i] = wt_xmalloc(t->bs);
		ut_read_fsblock(t->img, t->home[i], t->model[i]);
	}
	ut_log_init(&uw, t->img, f->compat, f->incompat, 0, seq);
	if (!noopen)
		wt_open(t);
}

void wt_setup_img(wt *t, const struct ut_fmt *f, const char *mkfs,
		  const char *size, uint32_t seq, int noopen)
{
	setup_img(t, f, mkfs, size, seq, noopen, 1);
}

void wt_setup_plain(wt *t, int fmt)
{
	setup_img(t, &ut_fmts[fmt], NULL, NULL, 1000, 0, 0);
}

void wt_setup(wt *t, int fmt)
{
	wt_setup_img(t, &ut_fmts[fmt], NULL, NULL, 1000, 0);
}

void wt_free(wt *t)
{
	int i;

	if (t->fs)
		wt_close(t);
	for (i = 0; i < NH; i++) {
		free(t->model[i]);
		free(t->pend[i]);
	}
	ut_img_free(t->img);
}

/* One transaction of one block, written by the unit log writer. */
void wt_log_one(wt *t, uint32_t start, uint32_t seq, uint64_t home,
		const unsigned char *data)
{
	ut_block b[1];
	ut_txn tx;
	ut_writer uw;

	memset(b, 0, sizeof(b));
	b[0].home = home;
	b[0].data = data;
	memset(&tx, 0, sizeof(tx));
	tx.blocks = b;
	tx.nblocks = 1;
	tx.commit_sec = 10;
	ut_log_init(&uw, t->img, t->f->compat, t->f->incompat, start, seq);
	ut_log_txn(&uw, &tx);
}

/* New content for home i in the running transaction. */
void wt_add(wt *t, int i, int magic)
{
	unsigned char *buf = wt_xmalloc(t->bs);

	ut_fill(buf, t->bs, t->home[i], ++t->salt, (uint32_t)i);
	if (magic)
		lj_put_be32(buf, LJ_JBD2_MAGIC);
	ck_assert_int_eq(lj_writer_add(t->w, t->home[i], buf), 0);
	free(t->pend[i]);
	t->pend[i] = buf;
	t->prev[i] = 0;
}

void wt_revoke(wt *t, int i)
{
	ck_assert_int_eq(lj_writer_revoke(t->w, t->home[i]), 0);
	free(t->pend[i]);
	t->pend[i] = NULL;
	t->prev[i] = 1;
}

/* Copy of home i the running transaction makes live (NULL: home's). */
static const unsigned char *wt_want(wt *t, int i, unsigned char *scratch)
{
	if (t->pend[i])
		return t->pend[i];
	if (t->prev[i]) {
		ut_read_fsblock(t->img, t->home[i], scratch);
		return scratch;
	}
	return t->model[i];
}

/* The running transaction is now committed: the model follows. */
void wt_apply(wt *t)
{
	int i;

	for (i = 0; i < NH; i++) {
		if (t->pend[i]) {
			free(t->model[i]);
			t->model[i] = t->pend[i];
			t->pend[i] = NULL;
		} else if (t->prev[i]) {
			ut_read_fsblock(t->img, t->home[i], t->model[i]);
		}
		t->prev[i] = 0;
	}
	t->commits++;
}

/* The fresh scan's map and log equal the writer's in-memory ones. */
static void cmp_jmap(const lj_jmap *mem, const lj_jmap *disk,
		     const char *when)
{
	const lj_log *a = mem->log, *b = disk->log;
	size_t i;

	ck_assert_msg(!b->refused && !b->uncommitted && lj_log_clean_end(b),
		      "%s: fresh scan: %s", when, b->end_msg);
	ck_assert_msg(a->ntxn == b->ntxn, "%s: %zu txns in memory, %zu on disk",
		      when, a->ntxn, b->ntxn);
	if (a->ntxn)
		ck_assert_uint_eq(a->start_tid, b->start_tid);
	ck_assert_uint_eq(a->log_blocks, b->log_blocks);
	for (i = 0; i < a->ntxn; i++) {
		const struct lj_txn *x = &a->txn[i], *y = &b->txn[i];

		ck_assert_msg(x->tid == y->tid && x->first_block == y->first_block &&
			      x->commit_block == y->commit_block &&
			      x->nblocks == y->nblocks && x->ntags == y->ntags &&
			      x->nlive == y->nlive &&
			      x->commit_sec == y->commit_sec,
			      "%s: txn %zu differs: mem tid %u blocks %u..%u n %u "
			      "tags %u live %u, disk tid %u blocks %u..%u n %u "
			      "tags %u live %u", when, i, x->tid, x->first_block,
			      x->commit_block, x->nblocks, x->ntags, x->nlive,
			      y->tid, y->first_block, y->commit_block,
			      y->nblocks, y->ntags, y->nlive);
	}
	ck_assert_msg(mem->n == disk->n, "%s: %zu entries in memory, %zu on disk",
		      when, mem->n, disk->n);
	for (i = 0; i < mem->n; i++) {
		const struct lj_jmap_entry *x = &mem->e[i], *y = &disk->e[i];

		ck_assert_msg(x->home == y->home && x->jblock == y->jblock &&
			      x->tid == y->tid,
			      "%s: entry %zu: mem %llu->%u tid %u, disk %llu->%u "
			      "tid %u", when, i, (unsigned long long)x->home,
			      x->jblock, x->tid, (unsigned long long)y->home,
			      y->jblock, y->tid);
		ck_assert_int_eq(lj_jmap_escaped(mem, x->jblock),
				 lj_jmap_escaped(disk, y->jblock));
	}
	/* the merged escaped set and reverse index, as a fresh build's */
	ck_assert_msg(mem->nescaped == disk->nescaped &&
		      (!mem->nescaped || !memcmp(mem->escaped, disk->escaped,
				mem->nescaped * sizeof(*mem->escaped))),
		      "%s: escaped set differs (%zu in memory, %zu on disk)",
		      when, mem->nescaped, disk->nescaped);
	for (i = 0; i < mem->n; i++)
		ck_assert_msg(mem->e[mem->by_jblock[i]].jblock ==
			      disk->e[disk->by_jblock[i]].jblock,
			      "%s: reverse index differs at %zu", when, i);
}

/* Scan the device afresh (a new open, as a later tool would). */
lj_jmap *wt_fresh_jmap(ut_img *img, uint32_t *start, uint32_t *seq)
{
	ut_open o;
	lj_jmap *m;

	ut_open_journal(img, &o);
	m = ut_jmap(&o, LJ_SCAN_SALVAGE, 0);
	if (start)
		*start = o.j->start;
	if (seq)
		*seq = o.j->sequence;
	ut_close_journal(&o);
	m->log->j = NULL;
	return m;
}

/* Every check that holds between transactions. */
void wt_check(wt *t, const char *when)
{
	unsigned char *buf = wt_xmalloc(t->bs), *scratch = wt_xmalloc(t->bs);
	uint32_t start, seq;
	lj_jmap *m = wt_fresh_jmap(t->img, &start, &seq);
	int i;

	cmp_jmap(t->st->jmap, m, when);
	ck_assert_uint_eq(start, t->st->journal->start);
	if (start)
		ck_assert_uint_eq(seq, t->st->jmap->log->start_tid);
	lj_jmap_free(m);
	for (i = 0; i < NH; i++) {
		ck_assert_int_eq(io_channel_read_blk64(t->fs->io, t->home[i], 1,
						       buf), 0);
		ck_assert_msg(!memcmp(buf, wt_want(t, i, scratch), t->bs),
			      "%s: home %d (block %llu) reads wrong", when, i,
			      (unsigned long long)t->home[i]);
	}
	free(buf);
	free(scratch);
}

/* Contents seen by a fresh read-only open equal the model. */
void wt_check_contents(ut_img *img, const wt *t, const char *when)
{
	unsigned char *buf = wt_xmalloc(t->bs);
	ext2_filsys fs;
	errcode_t err;
	int i;

	err = lj_open_fs(img->path, 0, &fs);
	ck_assert_msg(err == 0, "%s: lj_open_fs: %s", when, error_message(err));
	for (i = 0; i < NH; i++) {
		ck_assert_int_eq(io_channel_read_blk64(fs->io, t->home[i], 1,
						       buf), 0);
		ck_assert_msg(!memcmp(buf, t->model[i], t->bs),
			      "%s: fresh open: home %d (block %llu) wrong", when,
			      i, (unsigned long long)t->home[i]);
	}
	ext2fs_close_free(&fs);
	free(buf);
}

/* Raw home copies equal the model (after a migration or checkpoint). */
void wt_check_home(ut_img *img, const wt *t, const char *when)
{
	unsigned char *buf = wt_xmalloc(t->bs);
	int i;

	for (i = 0; i < NH; i++) {
		ut_read_fsblock(img, t->home[i], buf);
		ck_assert_msg(!memcmp(buf, t->model[i], t->bs),
			      "%s: home copy of %d (block %llu) wrong", when, i,
			      (unsigned long long)t->home[i]);
	}
	free(buf);
}

void wt_commit(wt *t, const char *when)
{
	errcode_t err = lj_writer_commit(t->w);

	ck_assert_msg(err == 0, "%s: commit: %s", when, error_message(err));
	wt_apply(t);
	wt_check(t, when);
}

/* Random transactions committed until the log has been written through
 * `wraps` times its length, the contents checked every 50 commits. */
void wt_wrap_log(wt *t, unsigned int wraps, const char *when)
{
	const struct lj_writer_stats *s = lj_writer_stats(t->w);

	while (s->journal_blocks < (blk64_t)wraps * t->img->maxlen) {
		wt_random_txn(t, t->commits % 17 == 5 ? 60 : 12);
		wt_commit(t, when);
		if (t->commits % 50 == 0)
			wt_check_contents(t->img, t, when);
	}
}

/*
 * One random transaction: up to max blocks, mostly among 16 hot homes,
 * sometimes an escaped copy, a revoke, or a revoke followed by a new copy.
 */
void wt_random_txn(wt *t, int max)
{
	int k = 1 + (int)(wt_rand(t) % (uint32_t)max), j;

	for (j = 0; j < k; j++) {
		int i = wt_rand(t) % 4 ? (int)(wt_rand(t) % 16) :
			16 + (int)(wt_rand(t) % (uint32_t)(t->span - 16));

		wt_add(t, i, wt_rand(t) % 13 == 0);
	}
	if (wt_rand(t) % 4 == 0)
		wt_revoke(t, (int)(wt_rand(t) % 16));
	if (wt_rand(t) % 6 == 0) {
		int i = (int)(wt_rand(t) % 16);

		wt_revoke(t, i);
		wt_add(t, i, 0);
	}
}

/* A log with many overwritten copies: ntx random transactions; closed. */
void wt_scene(wt *t, int fmt, int ntx)
{
	int n;

	wt_setup(t, fmt);
	for (n = 0; n < ntx; n++) {
		wt_random_txn(t, 10);
		wt_commit(t, "scene");
	}
	wt_close(t);
}
