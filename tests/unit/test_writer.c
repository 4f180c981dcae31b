/*
 * test_writer.c --- the lazy writer's transactions: appended by
 * lj_writer_* and by the lazy channel in write mode in every journal
 * format (escaped copies, revokes, many descriptor and revoke blocks),
 * libext2fs writing through the channel, needs_recovery, wrap-around at
 * the end of the log area, checkpoint and a commit in three steps.
 * Oracle and model: unit_writer.h.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_writer.h"

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
	raw = wt_xmalloc(t.bs);
	for (i = 0; i < NH; i++) {
		orig[i] = wt_xmalloc(t.bs);
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
	wt_check_contents(t.img, &t, "T3");
	wt_close(&t);
	/* nothing went home: home copies are as mke2fs left them */
	for (i = 0; i < NH; i++) {
		ut_read_fsblock(t.img, t.home[i], raw);
		ck_assert_mem_eq(raw, orig[i], t.bs);
		if (i == 1 || i == 4 || i == 5)
			ck_assert(memcmp(t.model[i], orig[i], t.bs) != 0);
	}
	wt_check_contents(t.img, &t, "reopened");
	/* migration brings exactly the model home */
	{
		struct lj_migrate_stats ms;

		ck_assert_int_eq(lj_migrate_home(t.img->path, NULL, NULL, &ms),
				 0);
		ck_assert_uint_eq(ms.blocks, 3);
		wt_check_home(t.img, &t, "migrated");
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
	wt_check_contents(t.img, &t, "big");
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
	two = wt_xmalloc(2 * (size_t)t.bs);
	buf = wt_xmalloc(t.bs);
	before = wt_xmalloc(t.bs);
	/* homes[0] and [1] are adjacent (highest free blocks, descending) */
	ck_assert_uint_eq(t.home[0], t.home[1] + 1);
	ut_fill(two, t.bs, t.home[1], 77, 1);
	ut_fill(two + t.bs, t.bs, t.home[0], 77, 0);
	ck_assert_int_eq(io_channel_write_blk64(io, t.home[1], 2, two), 0);
	ck_assert_uint_eq(lj_writer_pending(t.w), 2);
	t.pend[1] = wt_xmalloc(t.bs);
	memcpy(t.pend[1], two, t.bs);
	t.pend[0] = wt_xmalloc(t.bs);
	memcpy(t.pend[0], two + t.bs, t.bs);
	/* 10 bytes in the middle of home 5: merged into its live copy */
	memcpy(before, t.model[5], t.bs);
	ck_assert_int_eq(io_channel_write_byte(io,
		(unsigned long)(t.home[5] * t.bs + 100), 10, "0123456789"), 0);
	memcpy(before + 100, "0123456789", 10);
	t.pend[5] = wt_xmalloc(t.bs);
	memcpy(t.pend[5], before, t.bs);
	wt_check(&t, "running");
	wt_check_contents(t.img, &t, "uncommitted: a fresh open sees the old");
	ck_assert_int_eq(io_channel_flush(io), 0);
	wt_apply(&t);
	wt_check(&t, "flushed");
	wt_check_contents(t.img, &t, "flushed");

	/* data mode: home 0 goes home now, its journaled copy is revoked */
	ck_assert_int_eq(lj_lazy_set_mode(io, LJ_LAZY_DATA_HOME, 1), 0);
	ut_fill(buf, t.bs, t.home[0], 78, 9);
	ck_assert_int_eq(io_channel_write_blk64(io, t.home[0], 1, buf), 0);
	ck_assert_int_eq(lj_lazy_set_mode(io, LJ_LAZY_DATA_HOME, 0), 0);
	ut_read_fsblock(t.img, t.home[0], before);
	ck_assert_mem_eq(before, buf, t.bs);
	t.prev[0] = 1;
	wt_check(&t, "data write");
	ck_assert_int_eq(io_channel_flush(io), 0);
	wt_apply(&t);
	wt_check(&t, "data write committed");
	ck_assert_ptr_null(lj_jmap_lookup(t.st->jmap, t.home[0]));
	ck_assert_mem_eq(t.model[0], buf, t.bs);
	wt_check_contents(t.img, &t, "data write");
	free(two);
	free(buf);
	free(before);
	wt_free(&t);
}
END_TEST

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
	buf = wt_xmalloc(img->bs);
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
	before = wt_xmalloc((size_t)size);
	after = wt_xmalloc((size_t)size);
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

/*
 * libext2fs unchanged on a lazy fs opened for writing: mkdir and a file;
 * no block outside the journal changes; a fresh open sees the new tree;
 * after migration the plain library does too.
 */
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
	before = wt_xmalloc((size_t)size);
	after = wt_xmalloc((size_t)size);
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
	m = wt_fresh_jmap(t.img, &start, &seq);
	ck_assert_uint_eq(start, t.img->first);
	ck_assert_uint_eq(seq, 55);
	ck_assert_uint_eq(m->n, 1);
	lj_jmap_free(m);
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
		unsigned char *pdata;
		wt t;
		int i;

		wt_setup_img(&t, f, NULL, NULL, 1, 1);
		pdata = wt_xmalloc(t.bs);
		ut_fill(pdata, t.bs, t.home[20], 1, 0);
		/* prefix: desc, data, commit ending k blocks before the end */
		wt_log_one(&t, t.img->maxlen - 3 - (uint32_t)k, 77, t.home[20],
			   pdata);
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
		wt_check_home(t.img, &t, "checkpoint after wrap");
		wt_check_contents(t.img, &t, "wrap");
		free(pdata);
		wt_free(&t);
	}
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
	m = wt_fresh_jmap(t.img, &start, &seq);
	ck_assert_uint_eq(start, 0);
	ck_assert_uint_eq(seq, next);
	ck_assert_uint_eq(m->n, 0);
	lj_jmap_free(m);
	ck_assert_uint_eq(t.st->jmap->n, 0);
	wt_check_home(t.img, &t, "checkpoint");
	wt_check_contents(t.img, &t, "checkpoint");
	/* and the log starts again */
	wt_add(&t, 3, 0);
	wt_commit(&t, "after checkpoint");
	ck_assert_uint_eq(t.st->jmap->log->txn[0].tid, next);
	wt_free(&t);
}
END_TEST

/* Take home i's copy out of the running model (it is committing now). */
static unsigned char *committing_copy(wt *t, int i)
{
	unsigned char *c = t->pend[i];

	t->pend[i] = NULL;
	return c;
}

/* Home i reads (through the writer) as want. */
static void reads_as(wt *t, int i, const unsigned char *want)
{
	const unsigned char *got;

	ck_assert_int_eq(lj_writer_lookup(t->w, t->home[i], &got), 1);
	ck_assert_mem_eq(got, want, t->bs);
}

/*
 * A commit in three steps, as the mount makes it: between start and
 * finish the committing copies are read under the running ones, a revoke
 * reaches them, the log space they take is not free and no second commit
 * starts; the next commit lands after it.  A failed write gives its
 * copies and revokes back to the running transaction, under the newer
 * ones, and the next commit logs them.
 */
START_TEST(test_writer_commit_steps)
{
	const unsigned char *got;
	unsigned char *c[5];
	uint32_t free0;
	int i;
	wt t;

	wt_setup(&t, _i);
	for (i = 0; i < 3; i++)
		wt_add(&t, i, i == 1);
	free0 = lj_writer_free_blocks(t.w);
	ck_assert_int_eq(lj_writer_commit_start(t.w), 0);
	ck_assert(lj_writer_committing(t.w));
	ck_assert_uint_eq(lj_writer_pending(t.w), 0);
	ck_assert_uint_lt(lj_writer_free_blocks(t.w), free0);
	ck_assert_int_eq(lj_writer_commit_start(t.w), EBUSY);
	for (i = 0; i < 3; i++)
		c[i] = committing_copy(&t, i);
	reads_as(&t, 1, c[1]);
	wt_add(&t, 1, 0);			/* newer, in the running one */
	reads_as(&t, 1, t.pend[1]);
	wt_revoke(&t, 2);			/* reaches the committing copy */
	ck_assert_int_eq(lj_writer_lookup(t.w, t.home[2], &got), -1);
	reads_as(&t, 0, c[0]);
	ck_assert_int_eq(lj_writer_commit_write(t.w), 0);
	ck_assert_int_eq(lj_writer_commit_finish(t.w, 0), 0);
	ck_assert(!lj_writer_committing(t.w));
	for (i = 0; i < 3; i++) {
		free(t.model[i]);
		t.model[i] = c[i];
	}
	t.commits++;
	wt_check(&t, "T1 in steps, T2 running");
	wt_commit(&t, "T2");
	ck_assert_ptr_null(lj_jmap_lookup(t.st->jmap, t.home[2]));

	/* a failed write: back under the running transaction */
	wt_add(&t, 3, 0);
	wt_add(&t, 4, 0);
	wt_revoke(&t, 0);
	ck_assert_int_eq(lj_writer_commit_start(t.w), 0);
	c[3] = committing_copy(&t, 3);
	c[4] = committing_copy(&t, 4);
	wt_add(&t, 4, 0);
	ck_assert_int_eq(lj_writer_commit_finish(t.w, EIO), EIO);
	ck_assert(!lj_writer_committing(t.w));
	reads_as(&t, 3, c[3]);
	reads_as(&t, 4, t.pend[4]);
	ck_assert_int_eq(lj_writer_lookup(t.w, t.home[0], &got), -1);
	t.pend[3] = c[3];
	free(c[4]);
	wt_commit(&t, "T3 after the failed write");
	wt_check_contents(t.img, &t, "T3");
	wt_free(&t);
}
END_TEST

/*
 * The log goes out in runs (log_append.c): a transaction's descriptor,
 * data and revoke blocks in one device write per stretch contiguous on
 * the device (cut where the log wraps, where the journal's extents break
 * and at 1 MiB), its commit block in one more after the flush.  The
 * expected runs come from the journal's placement as the image records
 * it (ut_img's pblk).  Through lj_lazy_ordered_log's channel: each run
 * is in the page cache once written (mincore; an O_DIRECT write would
 * have dropped it there), and the log a fresh scan reads is the writer's
 * (wt_commit's checks).
 */
struct runs {
	blk64_t blk[64], n[64];
	int count;
	blk64_t jsb;		/* the journal superblock's writes left out */
	blk64_t all;		/* every journal write */
	unsigned int bs;
	const unsigned char *map;	/* the image, mapped */
	size_t map_len;
	int uncached;		/* runs not in the page cache when written */
};

/* Are all pages of bytes [off, off + len) of the image in the page cache? */
static int cached(const struct runs *r, uint64_t off, uint64_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t first = off / page, last = (off + len - 1) / page, i;
	unsigned char *vec = wt_xmalloc(last - first + 1);
	int all = 1;

	ck_assert_uint_le(off + len, r->map_len);
	ck_assert_int_eq(mincore((void *)(r->map + first * page),
				 (last - first + 1) * page, vec), 0);
	for (i = 0; i <= last - first; i++)
		all = all && (vec[i] & 1);
	free(vec);
	return all;
}

static void note_run(void *arg, enum lj_io_kind kind, blk64_t blk,
		     blk64_t n)
{
	struct runs *r = arg;

	r->all += kind == LJ_IO_JOURNAL;
	if (kind != LJ_IO_JOURNAL || blk == r->jsb)
		return;
	ck_assert_int_lt(r->count, 64);
	r->blk[r->count] = blk;
	r->n[r->count++] = n;
	r->uncached += !cached(r, blk * r->bs, n * r->bs);
}

static void check_runs(wt *t, const struct runs *r, const char *when)
{
	const struct lj_txn *x =
		&t->st->jmap->log->txn[t->st->jmap->log->ntxn - 1];
	uint32_t max = (1u << 20) / t->bs, at = x->first_block, n;
	int k = 0;

	/* the body: descriptor, data and revoke blocks */
	while (at != x->commit_block) {
		blk64_t first = t->img->pblk[at];

		for (n = 0; at != x->commit_block && n < max &&
		     t->img->pblk[at] == first + n; n++)
			at = at + 1 == t->img->maxlen ? t->img->first : at + 1;
		ck_assert_msg(k < r->count, "%s: run %d missing", when, k);
		ck_assert_msg(r->blk[k] == first && r->n[k] == n,
			      "%s: run %d: %llu+%llu, want %llu+%u", when, k,
			      (unsigned long long)r->blk[k],
			      (unsigned long long)r->n[k],
			      (unsigned long long)first, n);
		k++;
	}
	ck_assert_int_eq(r->count, k + 1);
	ck_assert_uint_eq(r->blk[k], t->img->pblk[x->commit_block]);
	ck_assert_uint_eq(r->n[k], 1);
}

START_TEST(test_writer_runs)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	struct runs r;
	unsigned char *pdata;
	wt t;
	int i;
	blk64_t writes0;
	struct stat st;

	wt_setup_img(&t, f, NULL, NULL, 1, 1);
	pdata = wt_xmalloc(t.bs);
	ut_fill(pdata, t.bs, t.home[20], 1, 0);
	/* a transaction ending 5 blocks before the log's end: the next one
	 * wraps */
	wt_log_one(&t, t.img->maxlen - 8, 77, t.home[20], pdata);
	memcpy(t.model[20], pdata, t.bs);
	wt_open(&t);
	ck_assert_int_eq(lj_lazy_ordered_log(t.fs->io), 0);
	ck_assert_int_eq(lj_lazy_ordered_log(t.fs->io), 0);	/* once */
	memset(&r, 0, sizeof(r));
	r.jsb = t.img->pblk[0];
	r.bs = t.bs;
	ck_assert_int_eq(fstat(t.img->fd, &st), 0);
	r.map_len = (size_t)st.st_size;
	r.map = mmap(NULL, r.map_len, PROT_READ, MAP_SHARED, t.img->fd, 0);
	ck_assert_ptr_ne(r.map, MAP_FAILED);
	lj_writer_set_record(t.w, note_run, &r);
	writes0 = lj_writer_stats(t.w)->journal_writes;
	for (i = 0; i < 3; i++)
		wt_add(&t, i, i == 1);
	wt_revoke(&t, 20);
	wt_commit(&t, "wrapped");
	check_runs(&t, &r, "wrapped");
	r.count = 0;
	for (i = 0; i < NH; i++)
		wt_add(&t, i, i % 9 == 0);
	for (i = 0; i < NH; i += 3)
		wt_revoke(&t, i);
	wt_commit(&t, "many");
	check_runs(&t, &r, "many");
	/* every journal write counted, the journal superblock's too */
	ck_assert_uint_eq(lj_writer_stats(t.w)->journal_writes - writes0,
			  r.all);
	ck_assert_int_eq(r.uncached, 0);
	munmap((void *)r.map, r.map_len);
	free(pdata);
	wt_free(&t);
}
END_TEST

Suite *writer_suite(void)
{
	const struct ut_test tests[] = {
		{ test_writer_formats, ut_nfmts },
		{ test_writer_big_txn, ut_nfmts },
		{ test_writer_channel, ut_nfmts },
		{ test_writer_libext2fs, 3 },
		{ test_writer_needs_recovery, 0 },
		{ test_writer_journal_homes, 0 },
		{ test_writer_wrap, ut_nfmts },
		{ test_writer_runs, ut_nfmts },
		{ test_writer_checkpoint, ut_nfmts },
		{ test_writer_commit_steps, ut_nfmts },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "writer", 60, tests };

	return ut_suite("writer", &tc, 1);
}
