/*
 * test_migrate.c --- lj_migrate_home: live copies home, ascending and
 * coalesced, the log emptied in the SPEC §2 order, and a crash after any
 * write recovered by running it again.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
 * The crash model records the migration as SPEC §2 orders it: the home
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
	suite_add_tcase(s, tc);
	return s;
}
