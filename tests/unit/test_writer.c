/*
 * test_writer.c --- the lazy writer: transactions appended by lj_writer_*
 * and by the lazy channel in write mode, the cleaner, checkpoint and
 * offline compaction.  The oracle is our own scanner: after every commit
 * a fresh lj_log_scan + lj_jmap_build of the device must give back exactly
 * the map the writer holds in memory, and every block read through the
 * channel (and through a fresh read-only open) must be the copy written
 * last.  Crash tests take the device as a child process left it after
 * its Nth block write (ut_run_crashing, on the crash model) and check
 * that the state on the device is the one before or the one after the
 * interrupted step, never a mix, and that migration then brings exactly that state home.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

static void copy_image(const char *from, const char *to);

static uint32_t wt_rand(wt *t)
{
	t->rnd = t->rnd * 1103515245U + 12345U;
	return (t->rnd >> 8) & 0xFFFFFF;
}

static unsigned char *xmalloc(size_t n)
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

static void wt_open(wt *t)
{
	errcode_t err = lj_open_fs(t->img->path, EXT2_FLAG_RW, &t->fs);

	ck_assert_msg(err == 0, "lj_open_fs rw: %s", error_message(err));
	ck_assert_int_eq(lj_lazy_get_state(t->fs->io, &t->st), 0);
	t->w = lj_lazy_writer(t->fs->io);
	ck_assert_ptr_nonnull(t->w);
}

static void wt_close(wt *t)
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
static void wt_setup_img(wt *t, const struct ut_fmt *f, const char *mkfs,
			 const char *size, uint32_t seq, int noopen)
{
	ut_writer uw;
	int i;

	memset(t, 0, sizeof(*t));
	t->f = f;
	t->img = ut_img_create(mkfs ? mkfs : f->mkfs, size ? size : f->size, 1);
	t->bs = t->img->bs;
	t->rnd = 12345;
	t->span = NH;
	pick_homes(t);
	for (i = 0; i < NH; i++) {
		t->model[i] = xmalloc(t->bs);
		ut_read_fsblock(t->img, t->home[i], t->model[i]);
	}
	ut_log_init(&uw, t->img, f->compat, f->incompat, 0, seq);
	if (!noopen)
		wt_open(t);
}

static void wt_setup(wt *t, int fmt)
{
	wt_setup_img(t, &ut_fmts[fmt], NULL, NULL, 1000, 0);
}

static void wt_free(wt *t)
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

/* New content for home i in the running transaction. */
static void wt_add(wt *t, int i, int magic)
{
	unsigned char *buf = xmalloc(t->bs);

	ut_fill(buf, t->bs, t->home[i], ++t->salt, (uint32_t)i);
	if (magic)
		lj_put_be32(buf, LJ_JBD2_MAGIC);
	ck_assert_int_eq(lj_writer_add(t->w, t->home[i], buf), 0);
	free(t->pend[i]);
	t->pend[i] = buf;
	t->prev[i] = 0;
}

static void wt_revoke(wt *t, int i)
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
static void wt_apply(wt *t)
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
static lj_jmap *fresh_jmap(ut_img *img, uint32_t *start, uint32_t *seq)
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
static void wt_check(wt *t, const char *when)
{
	unsigned char *buf = xmalloc(t->bs), *scratch = xmalloc(t->bs);
	uint32_t start, seq;
	lj_jmap *m = fresh_jmap(t->img, &start, &seq);
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
static void check_contents(ut_img *img, const wt *t, const char *when)
{
	unsigned char *buf = xmalloc(t->bs);
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
static void check_home(ut_img *img, const wt *t, const char *when)
{
	unsigned char *buf = xmalloc(t->bs);
	int i;

	for (i = 0; i < NH; i++) {
		ut_read_fsblock(img, t->home[i], buf);
		ck_assert_msg(!memcmp(buf, t->model[i], t->bs),
			      "%s: home copy of %d (block %llu) wrong", when, i,
			      (unsigned long long)t->home[i]);
	}
	free(buf);
}

static void wt_commit(wt *t, const char *when)
{
	errcode_t err = lj_writer_commit(t->w);

	ck_assert_msg(err == 0, "%s: commit: %s", when, error_message(err));
	wt_apply(t);
	wt_check(t, when);
}

/*
 * One random transaction: up to max blocks, mostly among 16 hot homes,
 * sometimes an escaped copy, a revoke, or a revoke followed by a new copy.
 */
static void wt_random_txn(wt *t, int max)
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

/* ------------------------------------------------------------------ */

/*
 * Every journal format: escaped copies, revoke then re-add in one
 * transaction, add then revoke, a revoke-only transaction; home copies
 * are never written.
 */
START_TEST(test_writer_formats)
{
	unsigned char *raw, *orig[NH];
	const unsigned char *pending;
	lj_jmap *m;
	wt t;
	int i;

	wt_setup(&t, _i);
	raw = xmalloc(t.bs);
	for (i = 0; i < NH; i++) {
		orig[i] = xmalloc(t.bs);
		memcpy(orig[i], t.model[i], t.bs);
	}
	/* T1: homes 0..5, home 3 starts with the jbd2 magic */
	for (i = 0; i < 6; i++)
		wt_add(&t, i, i == 3);
	ck_assert_uint_eq(lj_writer_pending(t.w), 6);
	wt_commit(&t, "T1");
	m = t.st->jmap;
	ck_assert_uint_eq(m->n, 6);
	ck_assert_uint_eq(m->log->ntxn, 1);
	ck_assert_uint_eq(m->log->txn[0].tid, 1000);
	ck_assert(lj_jmap_escaped(m, lj_jmap_lookup(m, t.home[3])->jblock));
	ck_assert(!lj_jmap_escaped(m, lj_jmap_lookup(m, t.home[2])->jblock));
	ck_assert_int_eq(lj_journal_read(t.st->journal,
		lj_jmap_lookup(m, t.home[3])->jblock, 1, raw), 0);
	ck_assert_uint_eq(lj_be32(raw), 0);	/* stored escaped */
	ck_assert_mem_eq(raw + 4, t.model[3] + 4, t.bs - 4);

	/* T2: new copy of 1, revoke 2, revoke + re-add 4, add + revoke 10
	 * (never logged: nothing to revoke), new escaped copy of 5 */
	wt_add(&t, 1, 0);
	wt_revoke(&t, 2);
	wt_revoke(&t, 4);
	ck_assert_int_eq(lj_writer_lookup(t.w, t.home[4], &pending), -1);
	wt_add(&t, 4, 0);
	wt_add(&t, 10, 0);
	wt_revoke(&t, 10);
	wt_add(&t, 5, 1);
	wt_check(&t, "T2 running");
	wt_commit(&t, "T2");
	m = t.st->jmap;
	ck_assert_ptr_null(lj_jmap_lookup(m, t.home[2]));
	ck_assert_ptr_null(lj_jmap_lookup(m, t.home[10]));
	ck_assert_uint_eq(lj_jmap_lookup(m, t.home[4])->tid, 1001);
	ck_assert_uint_eq(lj_jmap_lookup(m, t.home[1])->tid, 1001);
	ck_assert_uint_eq(lj_jmap_lookup(m, t.home[0])->tid, 1000);
	ck_assert(lj_jmap_escaped(m, lj_jmap_lookup(m, t.home[5])->jblock));
	ck_assert_uint_eq(m->log->txn[0].nlive, 2);	/* 0 and 3 */

	/* T3: revokes only */
	wt_revoke(&t, 0);
	wt_revoke(&t, 3);
	wt_commit(&t, "T3");
	ck_assert_uint_eq(t.st->jmap->log->txn[0].nlive, 0);
	ck_assert_uint_eq(t.st->jmap->n, 3);	/* 1, 4, 5 */
	check_contents(t.img, &t, "T3");
	wt_close(&t);
	/* nothing went home: home copies are as mke2fs left them */
	for (i = 0; i < NH; i++) {
		ut_read_fsblock(t.img, t.home[i], raw);
		ck_assert_mem_eq(raw, orig[i], t.bs);
		if (i == 1 || i == 4 || i == 5)
			ck_assert(memcmp(t.model[i], orig[i], t.bs) != 0);
	}
	check_contents(t.img, &t, "reopened");
	/* migration brings exactly the model home */
	{
		struct lj_migrate_stats ms;

		ck_assert_int_eq(lj_migrate_home(t.img->path, NULL, NULL, &ms),
				 0);
		ck_assert_uint_eq(ms.blocks, 3);
		check_home(t.img, &t, "migrated");
	}
	free(raw);
	for (i = 0; i < NH; i++)
		free(orig[i]);
	wt_free(&t);
}
END_TEST

/*
 * Transactions of many blocks: several descriptor blocks, several revoke
 * blocks; the fresh scan counts the same journal blocks as the writer.
 */
START_TEST(test_writer_big_txn)
{
	wt t;
	int i;

	wt_setup(&t, _i);
	for (i = 0; i < NH; i++)
		wt_add(&t, i, i % 7 == 0);
	wt_commit(&t, "all homes");
	for (i = 0; i < NH; i += 2)
		wt_revoke(&t, i);
	for (i = 1; i < NH; i += 4)
		wt_add(&t, i, 0);
	wt_commit(&t, "half revoked");
	ck_assert_uint_eq(t.st->jmap->n, NH / 2);
	check_contents(t.img, &t, "big");
	wt_free(&t);
}
END_TEST

/*
 * The lazy channel in write mode: whole-block, multi-block and byte
 * writes are collected in the running transaction (the channel reads them
 * back, a fresh open does not see them), flush commits; in data mode a
 * write goes home at once and cancels the journaled copy.
 */
START_TEST(test_writer_channel)
{
	unsigned char *two, *buf, *before;
	io_channel io;
	wt t;

	wt_setup(&t, _i);
	io = t.fs->io;
	two = xmalloc(2 * (size_t)t.bs);
	buf = xmalloc(t.bs);
	before = xmalloc(t.bs);
	/* homes[0] and [1] are adjacent (highest free blocks, descending) */
	ck_assert_uint_eq(t.home[0], t.home[1] + 1);
	ut_fill(two, t.bs, t.home[1], 77, 1);
	ut_fill(two + t.bs, t.bs, t.home[0], 77, 0);
	ck_assert_int_eq(io_channel_write_blk64(io, t.home[1], 2, two), 0);
	ck_assert_uint_eq(lj_writer_pending(t.w), 2);
	t.pend[1] = xmalloc(t.bs);
	memcpy(t.pend[1], two, t.bs);
	t.pend[0] = xmalloc(t.bs);
	memcpy(t.pend[0], two + t.bs, t.bs);
	/* 10 bytes in the middle of home 5: merged into its live copy */
	memcpy(before, t.model[5], t.bs);
	ck_assert_int_eq(io_channel_write_byte(io,
		(unsigned long)(t.home[5] * t.bs + 100), 10, "0123456789"), 0);
	memcpy(before + 100, "0123456789", 10);
	t.pend[5] = xmalloc(t.bs);
	memcpy(t.pend[5], before, t.bs);
	wt_check(&t, "running");
	check_contents(t.img, &t, "uncommitted: a fresh open sees the old");
	ck_assert_int_eq(io_channel_flush(io), 0);
	wt_apply(&t);
	wt_check(&t, "flushed");
	check_contents(t.img, &t, "flushed");

	/* data mode: home 0 goes home now, its journaled copy is revoked */
	ck_assert_int_eq(lj_lazy_set_data_mode(io, 1), 0);
	ut_fill(buf, t.bs, t.home[0], 78, 9);
	ck_assert_int_eq(io_channel_write_blk64(io, t.home[0], 1, buf), 0);
	ck_assert_int_eq(lj_lazy_set_data_mode(io, 0), 0);
	ut_read_fsblock(t.img, t.home[0], before);
	ck_assert_mem_eq(before, buf, t.bs);
	t.prev[0] = 1;
	wt_check(&t, "data write");
	ck_assert_int_eq(io_channel_flush(io), 0);
	wt_apply(&t);
	wt_check(&t, "data write committed");
	ck_assert_ptr_null(lj_jmap_lookup(t.st->jmap, t.home[0]));
	ck_assert_mem_eq(t.model[0], buf, t.bs);
	check_contents(t.img, &t, "data write");
	free(two);
	free(buf);
	free(before);
	wt_free(&t);
}
END_TEST

/*
 * libext2fs unchanged on a lazy fs opened for writing: mkdir and a file;
 * no block outside the journal changes; a fresh open sees the new tree;
 * after migration the plain library does too.
 */
/*
 * A log with a home inside the journal: the writer (cleaner, compaction,
 * debugfs -w) refuses it, and compaction writes nothing; an empty log
 * refuses a new copy of a journal block (its home write would land on the
 * log).
 */
START_TEST(test_writer_journal_homes)
{
	const struct ut_fmt *f = &ut_fmts[0];
	ut_img *img = ut_img_create(f->mkfs, f->size, 1);
	struct lj_compact_stats cs;
	unsigned char *before, *after, *buf;
	ut_block b[1];
	ut_txn t;
	ut_writer w;
	ext2_filsys fs;
	lj_writer *lw;
	off_t size;

	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, &fs), 0);
	lw = lj_lazy_writer(fs->io);
	ck_assert_ptr_nonnull(lw);
	buf = xmalloc(img->bs);
	memset(buf, 0x5a, img->bs);
	ck_assert_int_eq(lj_writer_add(lw, img->pblk[img->first + 9], buf),
			 LJ_ET_WRITE_REFUSED);
	ext2fs_close_free(&fs);
	free(buf);

	memset(b, 0, sizeof(b));
	memset(&t, 0, sizeof(t));
	b[0].home = img->pblk[img->first + 9];
	t.blocks = b;
	t.nblocks = 1;
	ut_log_init(&w, img, f->compat, f->incompat, img->first, 7);
	ut_log_txn(&w, &t);
	size = lseek(img->fd, 0, SEEK_END);
	before = xmalloc((size_t)size);
	after = xmalloc((size_t)size);
	ck_assert_int_eq(pread(img->fd, before, (size_t)size, 0), size);
	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, &fs),
			 LJ_ET_LOG_HOMES_IN_JOURNAL);
	ck_assert_int_eq(lj_compact(img->path, 0, &cs),
			 LJ_ET_LOG_HOMES_IN_JOURNAL);
	ck_assert_int_eq(pread(img->fd, after, (size_t)size, 0), size);
	ck_assert(!memcmp(before, after, (size_t)size));
	free(before);
	free(after);
	ut_img_free(img);
}
END_TEST

START_TEST(test_writer_libext2fs)
{
	const char *mkfs[] = { "-b 1024", "-b 4096", "-b 1024 -O ^64bit,^metadata_csum" };
	const char *sizes[] = { "8M", "16M", "8M" };
	ut_img *img = ut_img_create(mkfs[_i], sizes[_i], 1);
	struct lj_migrate_stats ms;
	unsigned char *before, *after;
	ext2_filsys fs;
	ext2_ino_t ino;
	off_t size, off;
	ut_open o;

	size = lseek(img->fd, 0, SEEK_END);
	before = xmalloc((size_t)size);
	after = xmalloc((size_t)size);
	ck_assert_int_eq(pread(img->fd, before, (size_t)size, 0), size);
	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, &fs), 0);
	ck_assert_int_eq(ext2fs_read_bitmaps(fs), 0);
	ck_assert_int_eq(ext2fs_mkdir(fs, EXT2_ROOT_INO, 0, "lazydir"), 0);
	ck_assert_int_eq(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "lazydir", &ino), 0);
	ck_assert_int_eq(ext2fs_mkdir(fs, ino, 0, "sub"), 0);
	ext2fs_mark_super_dirty(fs);
	ck_assert_int_eq(ext2fs_close_free(&fs), 0);

	/* only journal blocks changed */
	ck_assert_int_eq(pread(img->fd, after, (size_t)size, 0), size);
	ut_open_journal(img, &o);
	for (off = 0; off < size; off += img->bs) {
		blk64_t b = (blk64_t)(off / img->bs);
		uint32_t k;
		int in_journal = 0;

		if (!memcmp(before + off, after + off, img->bs))
			continue;
		for (k = 0; k < img->maxlen && !in_journal; k++)
			in_journal = img->pblk[k] == b;
		ck_assert_msg(in_journal, "block %llu changed at home",
			      (unsigned long long)b);
	}
	ut_close_journal(&o);

	ck_assert_int_eq(lj_open_fs(img->path, 0, &fs), 0);
	ck_assert_int_eq(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "lazydir/sub", &ino), 0);
	ext2fs_close_free(&fs);
	ck_assert_int_eq(lj_migrate_home(img->path, NULL, NULL, &ms), 0);
	ck_assert_int_eq(ext2fs_open2(img->path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	ck_assert_int_eq(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "lazydir/sub", &ino), 0);
	ext2fs_close_free(&fs);
	free(before);
	free(after);
	ut_img_free(img);
}
END_TEST

/*
 * needs_recovery is set at home before the first transaction of an empty
 * log, and the journal superblock points at it.
 */
START_TEST(test_writer_needs_recovery)
{
	ext2_filsys fs;
	uint32_t start, seq;
	lj_jmap *m;
	wt t;

	wt_setup_img(&t, &ut_fmts[1], NULL, NULL, 55, 1);
	ck_assert_int_eq(lj_change_features(t.img->path, 0, 0, 0, 0,
					    EXT3_FEATURE_INCOMPAT_RECOVER), 0);
	wt_open(&t);
	ck_assert_int_eq(t.st->needs_recovery, 0);
	wt_add(&t, 0, 0);
	wt_commit(&t, "first");
	ck_assert_int_eq(ext2fs_open2(t.img->path, NULL, EXT2_FLAG_64BITS, 0,
				      0, unix_io_manager, &fs), 0);
	ck_assert(ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert(lj_fs_is_lazy(fs->super));
	ext2fs_close_free(&fs);
	m = fresh_jmap(t.img, &start, &seq);
	ck_assert_uint_eq(start, t.img->first);
	ck_assert_uint_eq(seq, 55);
	ck_assert_uint_eq(m->n, 1);
	lj_jmap_free(m);
	wt_free(&t);
}
END_TEST

struct crash_one {
	const char *path;
	uint64_t home;
	const unsigned char *data;
};

static int child_one(void *arg)
{
	struct crash_one *c = arg;
	ext2_filsys fs;
	lj_writer *w;

	if (lj_open_fs(c->path, EXT2_FLAG_RW, &fs))
		return 1;
	w = lj_lazy_writer(fs->io);
	if (!w || lj_writer_add(w, c->home, c->data) || lj_writer_commit(w))
		return 1;
	return ext2fs_close_free(&fs) ? 1 : 0;
}

/*
 * needs_recovery clear but the journal superblock still points at an old
 * log (not live: its blocks were home long ago).  The first transaction
 * must never make that old log live again: a crash after any write of it
 * leaves the old copies unseen.
 */
START_TEST(test_writer_stale_log_crash)
{
	const struct ut_fmt *f = &ut_fmts[1];
	struct crash_one c;
	unsigned char *stale, *data, *buf;
	ut_block pb[1];
	ut_txn pt;
	ut_writer uw;
	char work[600];
	long n;
	int rc;
	wt t;

	wt_setup_img(&t, f, NULL, NULL, 30, 1);
	stale = xmalloc(t.bs);
	data = xmalloc(t.bs);
	buf = xmalloc(t.bs);
	ut_fill(stale, t.bs, t.home[20], 1, 5);
	ut_fill(data, t.bs, t.home[21], 2, 5);
	memset(pb, 0, sizeof(pb));
	pb[0].home = t.home[20];
	pb[0].data = stale;
	memset(&pt, 0, sizeof(pt));
	pt.blocks = pb;
	pt.nblocks = 1;
	pt.commit_sec = 10;
	ut_log_init(&uw, t.img, f->compat, f->incompat, t.img->first, 30);
	ut_log_txn(&uw, &pt);
	ck_assert_int_eq(lj_change_features(t.img->path, 0, 0, 0, 0,
					    EXT3_FEATURE_INCOMPAT_RECOVER), 0);
	snprintf(work, sizeof(work), "%s/work", t.img->dir);
	c.path = work;
	c.home = t.home[21];
	c.data = data;
	for (n = 1; n < 100; n++) {
		ext2_filsys fs;

		copy_image(t.img->path, work);
		rc = ut_run_crashing(t.img->path, work, n, child_one, &c);
		ck_assert_msg(rc == 0 || rc == 99, "N=%ld: exit %d", n, rc);
		ck_assert_int_eq(lj_open_fs(work, 0, &fs), 0);
		ck_assert_int_eq(io_channel_read_blk64(fs->io, t.home[20], 1,
						       buf), 0);
		ck_assert_msg(!memcmp(buf, t.model[20], t.bs),
			      "N=%ld: the old log came back to life", n);
		ck_assert_int_eq(io_channel_read_blk64(fs->io, t.home[21], 1,
						       buf), 0);
		ck_assert(!memcmp(buf, t.model[21], t.bs) ||
			  (!memcmp(buf, data, t.bs)));
		if (rc == 0)
			ck_assert_mem_eq(buf, data, t.bs);
		ext2fs_close_free(&fs);
		if (rc == 0)
			break;
	}
	ck_assert_int_eq(rc, 0);
	free(stale);
	free(data);
	free(buf);
	wt_free(&t);
}
END_TEST

/*
 * Wrap-around at the end of the log area: a prefix transaction (written
 * by the unit log writer) leaves the head k blocks before the end, then
 * the writer's transaction (3 blocks, a revoke) wraps inside its data, at
 * its revoke block or at its commit block.
 */
START_TEST(test_writer_wrap)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	int k;

	for (k = 1; k <= 5; k++) {
		ut_block pb[1];
		ut_txn pt;
		ut_writer uw;
		unsigned char *pdata;
		wt t;
		int i;

		wt_setup_img(&t, f, NULL, NULL, 1, 1);
		pdata = xmalloc(t.bs);
		ut_fill(pdata, t.bs, t.home[20], 1, 0);
		memset(pb, 0, sizeof(pb));
		pb[0].home = t.home[20];
		pb[0].data = pdata;
		memset(&pt, 0, sizeof(pt));
		pt.blocks = pb;
		pt.nblocks = 1;
		pt.commit_sec = 10;
		/* prefix: desc, data, commit ending k blocks before the end */
		ut_log_init(&uw, t.img, f->compat, f->incompat,
			    t.img->maxlen - 3 - (uint32_t)k, 77);
		ut_log_txn(&uw, &pt);
		memcpy(t.model[20], pdata, t.bs);
		wt_open(&t);
		ck_assert_uint_eq(t.st->jmap->n, 1);
		for (i = 0; i < 3; i++)
			wt_add(&t, i, i == 1);
		wt_revoke(&t, 20);
		wt_commit(&t, "wrapped");
		{
			const struct lj_txn *x = &t.st->jmap->log->txn[1];

			ck_assert_uint_eq(x->first_block, t.img->maxlen - k);
			ck_assert_uint_lt(x->commit_block, x->first_block);
		}
		/* and the tail transaction can be cleaned across the end */
		for (i = 0; i < 3; i++)
			wt_add(&t, i, 0);
		wt_commit(&t, "after wrap");
		ck_assert_int_eq(lj_writer_checkpoint(t.w), 0);
		wt_check(&t, "checkpoint after wrap");
		check_home(t.img, &t, "checkpoint after wrap");
		check_contents(t.img, &t, "wrap");
		free(pdata);
		wt_free(&t);
	}
}
END_TEST

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
	while (s->journal_blocks < wraps * t.img->maxlen) {
		wt_random_txn(&t, t.commits % 17 == 5 ? 60 : 12);
		wt_commit(&t, "cleaner");
		if (t.commits % 50 == 0)
			check_contents(t.img, &t, "cleaner");
	}
	ck_assert_uint_gt(s->relogged, 0);
	ck_assert_uint_gt(s->sent_home, 0);
	ck_assert_uint_gt(s->tail_moves, 10);
	check_contents(t.img, &t, "cleaner end");
	/* a new writer picks up where this one stopped */
	wt_close(&t);
	wt_open(&t);
	wt_check(&t, "reopened");
	wt_random_txn(&t, 12);
	wt_commit(&t, "after reopen");
	ck_assert_int_eq(lj_writer_checkpoint(t.w), 0);
	wt_check(&t, "checkpoint");
	check_home(t.img, &t, "checkpoint");
	wt_free(&t);
}
END_TEST

/*
 * A block revoked in the running transaction (a data-mode write put new
 * data at home) while its old journaled copy sits in the tail transaction
 * the cleaner must free: the cleaner must not write the old copy home over
 * the new data.  A crash before the commit may bring the old copy back
 * (the running transaction did not happen), never after it.
 */
START_TEST(test_writer_cleaner_pending_revoke)
{
	unsigned char *buf;
	io_channel io;
	wt t;
	int k;

	wt_setup(&t, _i);
	io = t.fs->io;
	buf = xmalloc(t.bs);
	wt_add(&t, 100, 0);	/* tail: one live block, cleaned to home */
	wt_commit(&t, "tail");
	wt_add(&t, 101, 0);	/* and one that will be re-logged */
	for (k = 0; k < 12; k++)
		wt_add(&t, k, 0);
	wt_commit(&t, "second");
	t.span = 100;
	while (lj_writer_free_blocks(t.w) > 25) {
		wt_random_txn(&t, 12);
		wt_commit(&t, "fill");
	}
	ck_assert_uint_eq(lj_jmap_lookup(t.st->jmap, t.home[100])->tid,
			  t.st->jmap->log->txn[0].tid);
	/* data writes over 100 and 101, then enough to make the cleaner run */
	ck_assert_int_eq(lj_lazy_set_data_mode(io, 1), 0);
	for (k = 100; k < 102; k++) {
		ut_fill(buf, t.bs, t.home[k], 4242, 1);
		ck_assert_int_eq(io_channel_write_blk64(io, t.home[k], 1, buf), 0);
		t.prev[k] = 1;
	}
	ck_assert_int_eq(lj_lazy_set_data_mode(io, 0), 0);
	for (k = 20; k < 50; k++)
		wt_add(&t, k, 0);
	wt_commit(&t, "data over a cleaned block");
	ck_assert_uint_gt(lj_writer_stats(t.w)->tail_moves, 1);
	for (k = 100; k < 102; k++) {
		ut_fill(buf, t.bs, t.home[k], 4242, 1);
		ck_assert_msg(!memcmp(t.model[k], buf, t.bs),
			      "home %d: the cleaner overwrote new data with an "
			      "old journaled copy", k);
	}
	check_contents(t.img, &t, "pending revoke");
	free(buf);
	wt_free(&t);
}
END_TEST

/*
 * The cleaner meets a tail transaction whose live block the running
 * transaction revokes (data written home over a freed metadata block):
 * writing that copy home would clobber the data and re-logging it gains
 * nothing, so make_room commits the running transaction first when it
 * fits; its revoke record retires the copy.  The log keeps the revoke
 * (stock replay honours it), the data stays at home.
 */
START_TEST(test_writer_cleaner_revokes_first)
{
	unsigned char *buf;
	const lj_log *log;
	uint32_t need;
	lj_jmap *m;
	size_t r;
	int found = 0;
	wt t;

	wt_setup(&t, _i);
	buf = xmalloc(t.bs);
	wt_add(&t, 100, 0);	/* the tail: one live block */
	wt_commit(&t, "tail");
	t.span = 100;
	while (lj_writer_free_blocks(t.w) > 40) {
		wt_random_txn(&t, 12);
		wt_commit(&t, "fill");
	}
	ck_assert_uint_eq(lj_jmap_lookup(t.st->jmap, t.home[100])->tid,
			  t.st->jmap->log->txn[0].tid);
	ck_assert_int_eq(lj_lazy_set_data_mode(t.fs->io, 1), 0);
	ut_fill(buf, t.bs, t.home[100], 4343, 1);
	ck_assert_int_eq(io_channel_write_blk64(t.fs->io, t.home[100], 1, buf),
			 0);
	ck_assert_int_eq(lj_lazy_set_data_mode(t.fs->io, 0), 0);
	t.prev[100] = 1;
	ck_assert_int_eq(lj_writer_lookup(t.w, t.home[100],
					  (const unsigned char **)&m), -1);
	wt_add(&t, 5, 0);
	wt_add(&t, 6, 0);
	wt_check(&t, "revoke pending");
	need = lj_writer_free_blocks(t.w) + 1;
	ck_assert_int_eq(lj_writer_make_room(t.w, need), 0);
	ck_assert_uint_ge(lj_writer_free_blocks(t.w), need);
	ck_assert_uint_eq(lj_writer_pending(t.w), 0);
	ck_assert_ptr_null(lj_jmap_lookup(t.st->jmap, t.home[100]));
	wt_apply(&t);
	wt_check(&t, "running committed by the cleaner");
	ck_assert_mem_eq(t.model[100], buf, t.bs);
	m = fresh_jmap(t.img, NULL, NULL);
	log = m->log;
	for (r = 0; r < log->nrevokes; r++)
		found |= log->revokes[r].home == t.home[100];
	ck_assert_msg(found, "no revoke record for the data block in the log");
	lj_jmap_free(m);
	check_contents(t.img, &t, "revokes first");
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

/*
 * Checkpoint: commit, every live block home, an empty log (s_start 0,
 * s_sequence past the last tid); the writer then starts a new log.
 */
START_TEST(test_writer_checkpoint)
{
	uint32_t start, seq, next;
	lj_jmap *m;
	wt t;
	int n;

	wt_setup(&t, _i);
	for (n = 0; n < 20; n++) {
		wt_random_txn(&t, 10);
		wt_commit(&t, "before checkpoint");
	}
	wt_random_txn(&t, 10);	/* left running: checkpoint commits it */
	next = t.st->jmap->log->txn[t.st->jmap->log->ntxn - 1].tid + 2;
	ck_assert_int_eq(lj_writer_checkpoint(t.w), 0);
	wt_apply(&t);
	wt_check(&t, "checkpoint");
	m = fresh_jmap(t.img, &start, &seq);
	ck_assert_uint_eq(start, 0);
	ck_assert_uint_eq(seq, next);
	ck_assert_uint_eq(m->n, 0);
	lj_jmap_free(m);
	ck_assert_uint_eq(t.st->jmap->n, 0);
	check_home(t.img, &t, "checkpoint");
	check_contents(t.img, &t, "checkpoint");
	/* and the log starts again */
	wt_add(&t, 3, 0);
	wt_commit(&t, "after checkpoint");
	ck_assert_uint_eq(t.st->jmap->log->txn[0].tid, next);
	wt_free(&t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Crash injection                                                      */

static void copy_image(const char *from, const char *to)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "cp --sparse=always '%s' '%s'", from, to);
	ck_assert_int_eq(system(cmd), 0);
}

/* Which of the models a fresh open sees: 0 or 1, -1 for a mix. */
static int which_model(const char *path, unsigned int bs, const uint64_t *home,
		       unsigned char **m0, unsigned char **m1)
{
	unsigned char *buf = xmalloc(bs);
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
	unsigned char *buf = xmalloc(bs);
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

struct crash_commit {
	const char *path;
	wt *t;			/* homes, and the transaction to write */
	int nblocks;
	unsigned char **data;	/* its contents */
	int *idx;
};

/* The child: open for writing, one big transaction, close. */
static int child_commit(void *arg)
{
	struct crash_commit *c = arg;
	ext2_filsys fs;
	lj_writer *w;
	int k;

	if (lj_open_fs(c->path, EXT2_FLAG_RW, &fs))
		return 1;
	w = lj_lazy_writer(fs->io);
	for (k = 0; k < c->nblocks; k++)
		if (lj_writer_add(w, c->t->home[c->idx[k]], c->data[k]))
			return 1;
	if (lj_writer_commit(w))
		return 1;
	return ext2fs_close_free(&fs) ? 1 : 0;
}

/*
 * Crash after every write of a commit that has to clean first (re-logging
 * some tail transactions, sending others home, moving the tail): the
 * device always holds the state before or after the commit, and a writer
 * opened after the crash goes on.
 */
START_TEST(test_writer_cleaner_crash)
{
	int fmt = _i == 0 ? 0 : 1;
	struct crash_commit c;
	unsigned char *after[NH], *data[30];
	int idx[30], k, rc, seen[2] = { 0, 0 };
	char work[600];
	long n;
	wt t;

	wt_setup(&t, fmt);
	/* at the tail: a transaction whose blocks all stay live (they go
	 * home: re-logging would not gain), one with 20 of 30 live (they are
	 * re-logged), then random ones that never touch homes 100.. */
	for (k = 100; k < 104; k++)
		wt_add(&t, k, 0);
	wt_commit(&t, "cold");
	for (k = 110; k < 130; k++)
		wt_add(&t, k, k % 5 == 0);
	for (k = 0; k < 10; k++)
		wt_add(&t, k, 0);
	wt_commit(&t, "warm");
	t.span = 100;
	/* fill to 23..25 free blocks: the 32 the transaction needs come
	 * from cleaning both, and the 22 re-logging costs fit */
	while (lj_writer_free_blocks(t.w) > 25) {
		if (lj_writer_free_blocks(t.w) > 40) {
			wt_random_txn(&t, 12);
		} else {
			wt_add(&t, 0, 0);
		}
		wt_commit(&t, "fill");
	}
	wt_close(&t);
	/* the transaction: 30 distinct homes */
	for (k = 0; k < 30; k++) {
		idx[k] = k * 3 % NH;
		data[k] = xmalloc(t.bs);
		ut_fill(data[k], t.bs, t.home[idx[k]], 9999, (uint32_t)k);
		if (k % 11 == 0)
			lj_put_be32(data[k], LJ_JBD2_MAGIC);
	}
	for (k = 0; k < NH; k++) {
		after[k] = xmalloc(t.bs);
		memcpy(after[k], t.model[k], t.bs);
	}
	for (k = 0; k < 30; k++)
		memcpy(after[idx[k]], data[k], t.bs);
	snprintf(work, sizeof(work), "%s/work", t.img->dir);
	memset(&c, 0, sizeof(c));
	c.path = work;
	c.t = &t;
	c.nblocks = 30;
	c.data = data;
	c.idx = idx;

	/* uninterrupted, in this process: the pass really cleans */
	copy_image(t.img->path, work);
	{
		ext2_filsys fs;
		const struct lj_writer_stats *s;
		lj_writer *w;

		ck_assert_int_eq(lj_open_fs(work, EXT2_FLAG_RW, &fs), 0);
		w = lj_lazy_writer(fs->io);
		for (k = 0; k < 30; k++)
			ck_assert_int_eq(lj_writer_add(w, t.home[idx[k]],
						       data[k]), 0);
		ck_assert_int_eq(lj_writer_commit(w), 0);
		s = lj_writer_stats(w);
		ck_assert_uint_gt(s->tail_moves, 1);
		ck_assert_uint_ge(s->sent_home, 4);
		ck_assert_uint_ge(s->relogged, 20);
		ck_assert_int_eq(ext2fs_close_free(&fs), 0);
	}

	for (n = 1; n < 2000; n++) {
		copy_image(t.img->path, work);
		rc = ut_run_crashing(t.img->path, work, n, child_commit, &c);
		if (rc == 0)
			break;
		ck_assert_msg(rc == 99, "N=%ld: child exit %d", n, rc);
		k = which_model(work, t.bs, t.home, t.model, after);
		ck_assert_msg(k >= 0, "N=%ld: a mix of before and after", n);
		seen[k]++;
		{
			uint32_t start;
			lj_jmap *m;
			ut_img tmp = *t.img;

			snprintf(tmp.path, sizeof(tmp.path), "%s", work);
			m = fresh_jmap(&tmp, &start, NULL);
			ck_assert_msg(!m->log->refused, "N=%ld: refused", n);
			lj_jmap_free(m);
		}
		/* a writer resumes on the crashed log: one more commit */
		if (n % 7 == 1) {
			ext2_filsys fs;
			lj_writer *w;

			ck_assert_int_eq(lj_open_fs(work, EXT2_FLAG_RW, &fs), 0);
			w = lj_lazy_writer(fs->io);
			ck_assert_ptr_nonnull(w);
			ck_assert_int_eq(lj_writer_add(w, t.home[NH - 1],
					 t.model[NH - 1]), 0);
			ck_assert_int_eq(ext2fs_close_free(&fs), 0);
			ck_assert_int_eq(which_model(work, t.bs, t.home,
						     t.model, after), k);
		}
		ck_assert_msg(which_home(work, t.bs, t.home, t.model, after) == k,
			      "N=%ld: migration after the crash differs", n);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_gt(seen[0], 10);
	ck_assert_int_gt(seen[1], 0);
	ck_assert_int_eq(which_model(work, t.bs, t.home, t.model, after), 1);
	for (k = 0; k < 30; k++)
		free(data[k]);
	for (k = 0; k < NH; k++)
		free(after[k]);
	wt_free(&t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Offline compaction                                                   */

/* A log with many overwritten copies; the writer closed. */
static void compact_scene(wt *t, int fmt, int ntx)
{
	int n;

	wt_setup(t, fmt);
	for (n = 0; n < ntx; n++) {
		wt_random_txn(t, 10);
		wt_commit(t, "compact scene");
	}
	wt_close(t);
}

START_TEST(test_compact_keep_all)
{
	struct lj_compact_stats cs;
	lj_jmap *before, *after;
	uint32_t start;
	size_t i;
	wt t;

	compact_scene(&t, _i, 40);
	before = fresh_jmap(t.img, NULL, NULL);
	ck_assert_int_eq(lj_compact(t.img->path, 0, &cs), 0);
	after = fresh_jmap(t.img, &start, NULL);
	ck_assert_uint_eq(cs.kept, before->n);
	ck_assert_uint_eq(cs.sent_home, 0);
	ck_assert_uint_eq(cs.blocks_before, before->log->log_blocks);
	ck_assert_uint_eq(cs.blocks_after, after->log->log_blocks);
	ck_assert_uint_lt(cs.blocks_after, cs.blocks_before);
	ck_assert_uint_eq(after->n, before->n);
	for (i = 0; i < after->n; i++) {
		ck_assert_uint_eq(after->e[i].home, before->e[i].home);
		/* re-logged: newer than anything that was in the log */
		ck_assert(lj_tid_gt(after->e[i].tid,
			  before->log->txn[before->log->ntxn - 1].tid));
	}
	ck_assert(!after->log->refused && lj_log_clean_end(after->log));
	lj_jmap_free(before);
	lj_jmap_free(after);
	check_contents(t.img, &t, "compacted");
	/* a second pass has nothing stale left to drop */
	ck_assert_int_eq(lj_compact(t.img->path, 0, &cs), 0);
	ck_assert_uint_le(cs.blocks_after, cs.blocks_before);
	check_contents(t.img, &t, "compacted twice");
	/* and the writer goes on after it */
	wt_open(&t);
	wt_check(&t, "writer after compaction");
	wt_random_txn(&t, 10);
	wt_commit(&t, "commit after compaction");
	wt_free(&t);
}
END_TEST

START_TEST(test_compact_keep_n)
{
	static const uint32_t keeps[] = { 1, 5, 1000 };
	int kk;

	for (kk = 0; kk < 3; kk++) {
		struct lj_compact_stats cs;
		lj_jmap *before, *after;
		uint32_t newest, kept = 0;
		size_t i;
		wt t;

		compact_scene(&t, _i, 30);
		before = fresh_jmap(t.img, NULL, NULL);
		newest = before->log->txn[before->log->ntxn - 1].tid;
		ck_assert_int_eq(lj_compact(t.img->path, keeps[kk], &cs), 0);
		after = fresh_jmap(t.img, NULL, NULL);
		/* kept: exactly the blocks written by the newest N txns */
		for (i = 0; i < before->n; i++) {
			int young = newest - before->e[i].tid < keeps[kk];

			kept += young;
			ck_assert_msg(!!lj_jmap_lookup(after, before->e[i].home) ==
				      young, "keep %u: home %llu tid %u (newest %u)",
				      keeps[kk],
				      (unsigned long long)before->e[i].home,
				      before->e[i].tid, newest);
		}
		ck_assert_uint_eq(after->n, kept);
		ck_assert_uint_eq(cs.kept, kept);
		ck_assert_uint_eq(cs.sent_home, before->n - kept);
		ck_assert_uint_eq(cs.blocks_after, after->log->log_blocks);
		ck_assert_uint_lt(cs.blocks_after, cs.blocks_before);
		lj_jmap_free(before);
		lj_jmap_free(after);
		check_contents(t.img, &t, "compacted keep N");
		/* the blocks sent home are home */
		{
			struct lj_migrate_stats ms;

			ck_assert_int_eq(lj_migrate_home(t.img->path, NULL, NULL,
							 &ms), 0);
			ck_assert_uint_eq(ms.blocks, kept);
			check_home(t.img, &t, "keep N, migrated");
		}
		wt_free(&t);
	}
}
END_TEST

/*
 * A superblock copy logged without lazy_journal / needs_recovery (as stock
 * debugfs logs it) that compaction sends home: the home superblock keeps
 * both flags while the log still holds transactions (SPEC §2), or the
 * newer transactions would be lost to every later reader.
 */
START_TEST(test_compact_superblock_home)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	struct lj_compact_stats cs;
	unsigned char *sb;
	uint64_t sbblk;
	unsigned int off;
	ut_block pb[1];
	ut_txn pt;
	ut_writer uw;
	ext2_filsys fs;
	lj_jmap *m;
	wt t;

	wt_setup_img(&t, f, NULL, NULL, 5, 1);
	sbblk = t.bs == 1024 ? 1 : 0;
	off = t.bs == 1024 ? 0 : 1024;
	sb = xmalloc(t.bs);
	ut_read_fsblock(t.img, sbblk, sb);
	/* the copy: both flags clear, checksum fixed */
	sb[off + 0x5C + 1] &= (unsigned char)~0x20;	/* COMPAT 0x2000 */
	sb[off + 0x60] &= (unsigned char)~0x04;	/* INCOMPAT 0x4 */
	if (sb[off + 0x64 + 1] & 0x04) {	/* metadata_csum (0x400) */
		uint32_t c = ext2fs_crc32c_le(~0U, sb + off, 1020);

		sb[off + 1020] = (unsigned char)c;
		sb[off + 1021] = (unsigned char)(c >> 8);
		sb[off + 1022] = (unsigned char)(c >> 16);
		sb[off + 1023] = (unsigned char)(c >> 24);
	}
	memset(pb, 0, sizeof(pb));
	pb[0].home = sbblk;
	pb[0].data = sb;
	memset(&pt, 0, sizeof(pt));
	pt.blocks = pb;
	pt.nblocks = 1;
	pt.commit_sec = 10;
	ut_log_init(&uw, t.img, f->compat, f->incompat, t.img->first, 5);
	ut_log_txn(&uw, &pt);
	wt_open(&t);
	wt_add(&t, 0, 0);
	wt_commit(&t, "newer");
	wt_close(&t);
	ck_assert_int_eq(lj_compact(t.img->path, 1, &cs), 0);
	ck_assert_uint_eq(cs.sent_home, 1);
	ck_assert_uint_eq(cs.kept, 1);
	ck_assert_int_eq(ext2fs_open2(t.img->path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	ck_assert_msg(ext2fs_has_feature_journal_needs_recovery(fs->super),
		      "needs_recovery cleared while the log holds a transaction");
	ck_assert_msg(lj_fs_is_lazy(fs->super), "lazy_journal cleared");
	ext2fs_close_free(&fs);
	m = fresh_jmap(t.img, NULL, NULL);
	ck_assert_uint_eq(m->n, 1);
	lj_jmap_free(m);
	check_contents(t.img, &t, "superblock home");
	free(sb);
	wt_free(&t);
}
END_TEST

struct crash_compact {
	const char *path;
	uint32_t keep;
};

static int child_compact(void *arg)
{
	struct crash_compact *c = arg;
	struct lj_compact_stats cs;

	return lj_compact(c->path, c->keep, &cs) ? 1 : 0;
}

/* Crash after every write of a compaction pass: nothing lost. */
START_TEST(test_compact_crash)
{
	uint32_t keep = _i ? 4 : 0;
	struct crash_compact c;
	char work[600];
	long n;
	int rc;
	wt t;

	compact_scene(&t, _i ? 1 : 0, 12);
	snprintf(work, sizeof(work), "%s/work", t.img->dir);
	c.path = work;
	c.keep = keep;
	for (n = 1; n < 3000; n++) {
		copy_image(t.img->path, work);
		rc = ut_run_crashing(t.img->path, work, n, child_compact, &c);
		if (rc == 0)
			break;
		ck_assert_msg(rc == 99, "N=%ld: child exit %d", n, rc);
		ck_assert_msg(which_model(work, t.bs, t.home, t.model,
					  t.model) == 0,
			      "N=%ld: contents changed by a crashed compaction",
			      n);
		/* compaction again after the crash, then migration */
		if (n % 3 == 0) {
			struct lj_compact_stats cs;

			ck_assert_int_eq(lj_compact(work, keep, &cs), 0);
		}
		ck_assert_msg(which_home(work, t.bs, t.home, t.model,
					 t.model) == 0,
			      "N=%ld: migration after the crash differs", n);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_gt(n, 10);
	wt_free(&t);
}
END_TEST

Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("writer");
	TCase *tcl = tcase_create("cleaner");
	TCase *tcc = tcase_create("cleaner_crash");
	TCase *tcx = tcase_create("compact_crash");

	tcase_set_timeout(tc, 60);
	tcase_set_timeout(tcl, 120);
	tcase_set_timeout(tcc, 120);
	tcase_set_timeout(tcx, 120);
	tcase_add_loop_test(tc, test_writer_formats, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_writer_big_txn, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_writer_channel, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_writer_libext2fs, 0, 3);
	tcase_add_test(tc, test_writer_needs_recovery);
	tcase_add_test(tc, test_writer_journal_homes);
	tcase_add_loop_test(tc, test_writer_wrap, 0, ut_nfmts);
	tcase_add_test(tc, test_writer_stale_log_crash);
	tcase_add_loop_test(tc, test_writer_checkpoint, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_compact_keep_all, 0, ut_nfmts);
	tcase_add_loop_test(tc, test_compact_keep_n, 0, 2);
	tcase_add_loop_test(tc, test_compact_superblock_home, 0, 3);
	tcase_add_loop_test(tcl, test_writer_cleaner, 0, ut_nfmts);
	tcase_add_loop_test(tcl, test_writer_cleaner_pending_revoke, 0, 2);
	tcase_add_loop_test(tcl, test_writer_cleaner_revokes_first, 0, 2);
	tcase_add_loop_test(tcl, test_writer_jmap_incremental, 0, ut_nfmts);
	tcase_add_loop_test(tcc, test_writer_cleaner_crash, 0, 2);
	tcase_add_loop_test(tcx, test_compact_crash, 0, 2);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcl);
	suite_add_tcase(s, tcc);
	suite_add_tcase(s, tcx);
	return s;
}
