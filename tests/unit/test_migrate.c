/*
 * test_migrate.c --- lj_migrate_home / lj_migrate_fs: live copies home,
 * ascending and coalesced, the log emptied in doc/contract.md §3 order, a crash
 * after any write recovered by running it again, a log that cannot be
 * read completely refused unless salvaged.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash_io.h"
#include "unit.h"

/*
 * T1 logs A..A+3 (adjacent: one home run) and A+10 (escaped copy);
 * T2 logs A+1 again and revokes A+3.  Live after replay: A, A+2 and A+10
 * from T1, A+1 from T2; A+3 keeps its home copy.
 */
struct scene {
	ut_img *img;
	uint64_t A;
	unsigned char *want[11];	/* expected home content, A..A+10 */
	uint32_t seq;
};

static void scene_make(struct scene *sc, const struct ut_fmt *f, int lazy)
{
	ut_writer w;
	unsigned char *magic;
	ut_block b1[5], b2[1];
	ut_txn t1, t2;
	uint64_t rev;
	unsigned int bs;
	int i;

	memset(sc, 0, sizeof(*sc));
	sc->img = ut_img_create(f->mkfs, f->size, lazy);
	bs = sc->img->bs;
	sc->A = sc->img->free_blk;
	sc->seq = 7;
	for (i = 0; i <= 10; i++) {
		sc->want[i] = malloc(bs);
		ck_assert_ptr_nonnull(sc->want[i]);
		ut_read_fsblock(sc->img, sc->A + i, sc->want[i]);
	}
	magic = sc->want[10];
	ut_fill(magic, bs, sc->A + 10, sc->seq, 99);
	lj_put_be32(magic, LJ_JBD2_MAGIC);

	memset(b1, 0, sizeof(b1));
	memset(b2, 0, sizeof(b2));
	for (i = 0; i < 4; i++)
		b1[i].home = sc->A + i;
	b1[4].home = sc->A + 10;
	b1[4].data = magic;
	b2[0].home = sc->A + 1;
	rev = sc->A + 3;
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	t1.blocks = b1;
	t1.nblocks = 5;
	t1.commit_sec = 100;
	t2.blocks = b2;
	t2.nblocks = 1;
	t2.revokes = &rev;
	t2.nrevokes = 1;
	t2.commit_sec = 101;
	ut_log_init(&w, sc->img, f->compat, f->incompat, sc->img->first,
		    sc->seq);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ck_assert(b1[4].escaped);
	ut_fill(sc->want[0], bs, sc->A, sc->seq, 0);
	ut_fill(sc->want[2], bs, sc->A + 2, sc->seq, 0);
	ut_fill(sc->want[1], bs, sc->A + 1, sc->seq + 1, 0);
}

static void scene_free(struct scene *sc)
{
	int i;

	for (i = 0; i <= 10; i++)
		free(sc->want[i]);
	ut_img_free(sc->img);
}

/* Home blocks as expected, log empty, needs_recovery clear. */
static void scene_check(struct scene *sc, int lazy)
{
	unsigned char *buf = malloc(sc->img->bs);
	ext2_filsys fs;
	lj_lazy_state *st;
	int i;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i <= 10; i++) {
		if (i > 3 && i < 10)
			continue;
		ut_read_fsblock(sc->img, sc->A + i, buf);
		ck_assert_msg(!memcmp(buf, sc->want[i], sc->img->bs),
			      "home block A+%d differs", i);
	}
	free(buf);
	ck_assert_int_eq(ext2fs_open2(sc->img->path, NULL, EXT2_FLAG_64BITS,
				      0, 0, unix_io_manager, &fs), 0);
	ck_assert(!ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert_int_eq(lj_fs_is_lazy(fs->super), lazy);
	ext2fs_close_free(&fs);
	ck_assert_int_eq(lj_open_fs(sc->img->path, 0, &fs), 0);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	ck_assert_uint_eq(st->jmap->n, 0);
	ext2fs_close_free(&fs);
}

START_TEST(test_migrate_formats)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	struct lj_migrate_stats ms;
	struct scene sc;
	ut_open o;

	scene_make(&sc, f, 1);
	ck_assert_int_eq(lj_migrate_home(sc.img->path, NULL, NULL, &ms), 0);
	ck_assert_uint_eq(ms.blocks, 4);
	ck_assert_uint_eq(ms.writes, 2);	/* A..A+2, then A+10 */
	ck_assert_uint_eq(ms.bytes, 4 * sc.img->bs);
	ck_assert(ms.log_emptied);
	ck_assert_uint_eq(ms.new_sequence, sc.seq + 3);
	scene_check(&sc, 1);
	ut_open_journal(sc.img, &o);
	ck_assert_uint_eq(o.j->start, 0);
	ck_assert_uint_eq(o.j->sequence, sc.seq + 3);
	ut_close_journal(&o);
	scene_free(&sc);
}
END_TEST

/*
 * Homes inside the journal (first = s_first):
 *   T1 (first..first+3): A (copy at first+1), P(first+5) = X
 *   T2 (first+4..first+6): A+1, copy at first+5 (which T1 wrote X over)
 *   T3: P(first+1) (A's copy, which T1 already read)
 * Stock replay: A = T1's copy; A+1 = X, or with csum v2/v3 its copy
 * fails the tag checksum and A+1 keeps its home bytes.  The view and the
 * migration agree; blocks inside the journal are never written.
 */
START_TEST(test_migrate_journal_homes)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	int csum = (f->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
				   LJ_FEATURE_INCOMPAT_CSUM_V3)) != 0;
	struct lj_migrate_stats ms;
	unsigned char *x, *a_want, *a1_want, *buf, *jb5;
	ut_block b1[2], b2[1], b3[1];
	ut_txn t1, t2, t3;
	ext2_filsys fs;
	ut_writer w;
	ut_img *img;
	uint64_t A;
	unsigned int bs;

	img = ut_img_create(f->mkfs, f->size, 1);
	bs = img->bs;
	A = img->free_blk;
	x = malloc(bs);
	a_want = malloc(bs);
	a1_want = malloc(bs);
	buf = malloc(bs);
	jb5 = malloc(bs);
	ck_assert(x && a_want && a1_want && buf && jb5);
	ut_fill(x, bs, 4242, 1, 5);
	ut_read_fsblock(img, A + 1, a1_want);
	memset(b1, 0, sizeof(b1));
	memset(b2, 0, sizeof(b2));
	memset(b3, 0, sizeof(b3));
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	memset(&t3, 0, sizeof(t3));
	b1[0].home = A;
	b1[1].home = img->pblk[img->first + 5];
	b1[1].data = x;
	b2[0].home = A + 1;
	b3[0].home = img->pblk[img->first + 1];
	t1.blocks = b1;
	t1.nblocks = 2;
	t1.commit_sec = 100;
	t2.blocks = b2;
	t2.nblocks = 1;
	t2.commit_sec = 101;
	t3.blocks = b3;
	t3.nblocks = 1;
	t3.commit_sec = 102;
	ut_log_init(&w, img, f->compat, f->incompat, img->first, 7);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ut_log_txn(&w, &t3);
	ck_assert_uint_eq(b1[0].jblock, img->first + 1);
	ck_assert_uint_eq(b2[0].jblock, img->first + 5);
	ut_fill(a_want, bs, A, 7, 0);
	if (!csum)
		memcpy(a1_want, x, bs);
	ut_read_fsblock(img, img->pblk[img->first + 5], jb5);

	/* the view */
	ck_assert_int_eq(lj_open_fs(img->path, 0, &fs), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, A, 1, buf), 0);
	ck_assert(!memcmp(buf, a_want, bs));
	ck_assert_int_eq(io_channel_read_blk64(fs->io, A + 1, 1, buf), 0);
	ck_assert(!memcmp(buf, a1_want, bs));
	/* a journal block reads as the journal holds it */
	ck_assert_int_eq(io_channel_read_blk64(fs->io,
			 img->pblk[img->first + 5], 1, buf), 0);
	ck_assert(!memcmp(buf, jb5, bs));
	ext2fs_close_free(&fs);

	ck_assert_int_eq(lj_migrate_home(img->path, NULL, NULL, &ms), 0);
	ck_assert_uint_eq(ms.blocks, csum ? 1 : 2);
	ut_read_fsblock(img, A, buf);
	ck_assert(!memcmp(buf, a_want, bs));
	ut_read_fsblock(img, A + 1, buf);
	ck_assert(!memcmp(buf, a1_want, bs));
	ut_read_fsblock(img, img->pblk[img->first + 5], buf);
	ck_assert(!memcmp(buf, jb5, bs));
	free(x);
	free(a_want);
	free(a1_want);
	free(buf);
	free(jb5);
	ut_img_free(img);
}
END_TEST

/* T1 writes a home over T2's descriptor: refused, nothing written. */
START_TEST(test_migrate_journal_homes_descriptor)
{
	const struct ut_fmt *f = &ut_fmts[0];
	struct lj_migrate_stats ms;
	ut_block b1[1], b2[1];
	ut_txn t1, t2;
	ut_writer w;
	ut_img *img;

	img = ut_img_create(f->mkfs, f->size, 1);
	memset(b1, 0, sizeof(b1));
	memset(b2, 0, sizeof(b2));
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	b1[0].home = img->pblk[img->first + 3];
	b2[0].home = img->free_blk;
	t1.blocks = b1;
	t1.nblocks = 1;
	t2.blocks = b2;
	t2.nblocks = 1;
	ut_log_init(&w, img, f->compat, f->incompat, img->first, 7);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);
	ck_assert_uint_eq(t2.desc_block, img->first + 3);
	ck_assert_int_eq(lj_migrate_home(img->path, NULL, NULL, &ms),
			 LJ_ET_LOG_SELF_OVERWRITE);
	ck_assert_uint_eq(ms.blocks, 0);
	ut_img_free(img);
}
END_TEST

static void count_progress(void *arg, blk64_t done, blk64_t total)
{
	blk64_t *last = arg;

	ck_assert_uint_le(done, total);
	ck_assert_uint_ge(done, *last);
	*last = done;
}

START_TEST(test_migrate_non_lazy_progress)
{
	struct lj_migrate_stats ms;
	struct scene sc;
	blk64_t last = 0;

	scene_make(&sc, &ut_fmts[0], 0);
	ck_assert_int_eq(lj_migrate_home(sc.img->path, count_progress, &last,
					 &ms), 0);
	ck_assert_uint_eq(last, 4);
	scene_check(&sc, 0);
	/* A second run finds nothing to do and writes nothing. */
	ck_assert_int_eq(lj_migrate_home(sc.img->path, NULL, NULL, &ms), 0);
	ck_assert_uint_eq(ms.writes, 0);
	scene_free(&sc);
}
END_TEST

/*
 * The crash model records migration as doc/contract.md §3 orders it: the home
 * blocks, a flush, the journal superblock, a flush, the superblock
 * (needs_recovery cleared), a flush.
 */
START_TEST(test_migrate_crash_record)
{
	struct lj_migrate_stats ms;
	struct scene sc;
	size_t i, n, epoch = 0, writes[3] = { 0, 0, 0 };

	scene_make(&sc, &ut_fmts[1], 1);
	lj_crash_reset();
	lj_io_set_base(lj_crash_io_manager);
	ck_assert_int_eq(lj_migrate_home(sc.img->path, NULL, NULL, &ms), 0);
	lj_io_set_base(NULL);
	n = lj_crash_count();
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(lj_crash_get(n - 1)->len, 0);	/* ends flushed */
	for (i = 0; i < n; i++) {
		const struct lj_crash_rec *r = lj_crash_get(i);

		if (!r->len) {
			epoch++;
			continue;
		}
		ck_assert_uint_lt(epoch, 3);
		writes[epoch]++;
		if (epoch == 2)		/* the primary superblock */
			ck_assert_uint_eq(r->offset, SUPERBLOCK_OFFSET);
	}
	ck_assert_uint_eq(epoch, 3);
	ck_assert_uint_eq(writes[0], ms.blocks);
	ck_assert_uint_eq(writes[1], 1);
	ck_assert_uint_eq(writes[2], 1);
	lj_crash_reset();
	scene_check(&sc, 1);
	scene_free(&sc);
}
END_TEST

static int run_migrate(void *path)
{
	struct lj_migrate_stats ms;

	return lj_migrate_home(path, NULL, NULL, &ms) ? 1 : 0;
}

/*
 * Crash after block write N for every N of the migration, then run it
 * again: the result is the uninterrupted one.
 */
START_TEST(test_migrate_crash_resume)
{
	struct lj_migrate_stats ms;
	int n, rc = 99;

	for (n = 1; rc == 99; n++) {
		struct scene sc;
		char orig[600];

		scene_make(&sc, &ut_fmts[1], 1);
		snprintf(orig, sizeof(orig), "%s/orig", sc.img->dir);
		ck_assert_int_eq(ut_copy_file(sc.img->path, orig), 0);
		rc = ut_run_crashing(orig, sc.img->path, n, run_migrate,
				     sc.img->path);
		ck_assert_msg(rc == 99 || (rc == 0 && n > 4),
			      "N=%d: exit %d", n, rc);
		ck_assert_int_eq(lj_migrate_home(sc.img->path, NULL, NULL, &ms),
				 0);
		scene_check(&sc, 1);
		unlink(orig);
		scene_free(&sc);
	}
}
END_TEST

/* An unreadable journal: an error, and not one byte written. */
START_TEST(test_migrate_garbage_jsb)
{
	struct lj_migrate_stats ms;
	struct scene sc;
	unsigned char *before, *after, *junk;
	off_t size;
	int fd;

	scene_make(&sc, &ut_fmts[0], 1);
	junk = calloc(1, sc.img->bs);
	ck_assert_ptr_nonnull(junk);
	memset(junk, 0x5a, sc.img->bs);
	ut_write_jblock(sc.img, 0, junk);
	fd = sc.img->fd;
	size = lseek(fd, 0, SEEK_END);
	before = malloc((size_t)size);
	after = malloc((size_t)size);
	ck_assert(before && after);
	ck_assert_int_eq(pread(fd, before, (size_t)size, 0), size);
	ck_assert_int_ne(lj_migrate_home(sc.img->path, NULL, NULL, &ms), 0);
	ck_assert_int_eq(pread(fd, after, (size_t)size, 0), size);
	ck_assert(!memcmp(before, after, (size_t)size));
	free(before);
	free(after);
	free(junk);
	scene_free(&sc);
}
END_TEST

/* Whole image file into a new buffer (size in *size). */
static unsigned char *image_bytes(ut_img *img, off_t *size)
{
	unsigned char *buf;

	*size = lseek(img->fd, 0, SEEK_END);
	buf = malloc((size_t)*size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(img->fd, buf, (size_t)*size, 0), *size);
	return buf;
}

/*
 * A log stock recovery refuses (a bad descriptor checksum in T2, whose
 * commit time is not older than T1's): only T1 is readable.  Plain
 * migration refuses it with LJ_ET_LOG_INCOMPLETE and writes nothing; the
 * salvage (LJ_MIGRATE_SALVAGE, on the open that scanned it) sends T1 home
 * and empties the log.
 */
START_TEST(test_migrate_refused_log)
{
	const struct ut_fmt *f = &ut_fmts[1];
	struct lj_migrate_stats ms;
	unsigned char *before, *after, *want, *got;
	ut_block b1[1], b2[1];
	ut_txn t1, t2;
	ut_writer w;
	ut_img *img;
	ext2_filsys fs;
	lj_lazy_state *st;
	char why[400];
	off_t size, size2;

	img = ut_img_create(f->mkfs, f->size, 1);
	memset(b1, 0, sizeof(b1));
	memset(b2, 0, sizeof(b2));
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	b1[0].home = img->free_blk;
	b2[0].home = img->free_blk + 1;
	t1.blocks = b1;
	t1.nblocks = 1;
	t1.commit_sec = 100;
	t2.blocks = b2;
	t2.nblocks = 1;
	t2.commit_sec = 101;	/* not older: the whole log is refused */
	t2.flags = UT_BAD_DESC_CSUM;
	ut_log_init(&w, img, f->compat, f->incompat, img->first, 7);
	ut_log_txn(&w, &t1);
	ut_log_txn(&w, &t2);

	before = image_bytes(img, &size);
	ck_assert_int_eq(lj_migrate_home(img->path, NULL, NULL, &ms),
			 LJ_ET_LOG_INCOMPLETE);
	ck_assert_uint_eq(ms.blocks, 0);
	after = image_bytes(img, &size2);
	ck_assert_int_eq(size, size2);
	ck_assert(!memcmp(before, after, (size_t)size));
	free(after);

	ck_assert_int_eq(lj_open_fs(img->path, 0, &fs), 0);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	ck_assert(lj_log_incomplete(st, why, sizeof(why)));
	ck_assert_int_eq(lj_migrate_fs(fs, 0, NULL, NULL, &ms),
			 LJ_ET_LOG_INCOMPLETE);
	ck_assert_int_eq(lj_migrate_fs(fs, LJ_MIGRATE_SALVAGE, NULL, NULL,
				       &ms), 0);
	ck_assert_uint_eq(ms.blocks, 1);
	ck_assert(ms.log_emptied);
	ext2fs_close_free(&fs);

	want = malloc(img->bs);
	got = malloc(img->bs);
	ck_assert(want && got);
	ut_fill(want, img->bs, img->free_blk, 7, 0);
	ut_read_fsblock(img, img->free_blk, got);
	ck_assert(!memcmp(got, want, img->bs));
	ut_read_fsblock(img, img->free_blk + 1, got);	/* T2 dropped */
	ck_assert(!memcmp(got, before + (img->free_blk + 1) * img->bs,
			  img->bs));
	ck_assert_int_eq(ext2fs_open2(img->path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	ck_assert(!ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert(lj_fs_is_lazy(fs->super));
	ext2fs_close_free(&fs);
	free(want);
	free(got);
	free(before);
	ut_img_free(img);
}
END_TEST

Suite *migrate_suite(void)
{
	Suite *s = suite_create("migrate");
	TCase *tc = tcase_create("migrate");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_migrate_formats, 0, ut_nfmts);
	tcase_add_test(tc, test_migrate_non_lazy_progress);
	tcase_add_test(tc, test_migrate_crash_record);
	tcase_add_test(tc, test_migrate_crash_resume);
	tcase_add_test(tc, test_migrate_garbage_jsb);
	tcase_add_loop_test(tc, test_migrate_journal_homes, 0, ut_nfmts);
	tcase_add_test(tc, test_migrate_journal_homes_descriptor);
	tcase_add_test(tc, test_migrate_refused_log);
	suite_add_tcase(s, tc);
	return s;
}
