/*
 * test_mount_channel.c --- what the lazy mount asks of the lazy channel
 * (lazy_io.c), its block-range set (block_set.c) and its block cache
 * (block_cache.c, never older than the device): unchanged blocks not
 * journaled (LJ_LAZY_SKIP_SAME), flushes that only ask for a commit
 * (LJ_LAZY_DEFER_COMMIT, lj_lazy_commit), blocks freed leaving the
 * running transaction and data over them journaled until the commit
 * (lj_lazy_note_freed, lj_lazy_data_journaled),
 * data flushed without a commit (lj_lazy_flush_data).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "lj_private.h"

/* ------------------------------------------------------------------ */
/* block_set.c                                                        */

START_TEST(test_bset)
{
	struct lj_block_set s;
	static const struct { blk64_t start, count; } add[] = {
		{ 100, 10 }, { 110, 5 },	/* touching: one run */
		{ 50, 1 }, { 200, 20 }, { 205, 30 },	/* overlapping */
		{ 10, 0 },			/* empty: nothing */
	};
	static const struct { blk64_t blk; int in; } probe[] = {
		{ 49, 0 }, { 50, 1 }, { 51, 0 }, { 99, 0 }, { 100, 1 },
		{ 114, 1 }, { 115, 0 }, { 10, 0 }, { 199, 0 }, { 200, 1 },
		{ 234, 1 }, { 235, 0 },
	};
	size_t i;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(lj_bset_has(&s, 0), 0);
	for (i = 0; i < sizeof(add) / sizeof(add[0]); i++)
		ck_assert_int_eq(lj_bset_add(&s, add[i].start, add[i].count),
				 0);
	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		ck_assert_msg(lj_bset_has(&s, probe[i].blk) == probe[i].in,
			      "block %llu", (unsigned long long)probe[i].blk);
	ck_assert_uint_eq(s.n, 3);	/* 50, 100-114, 200-234 */
	lj_bset_clear(&s);
	ck_assert_int_eq(lj_bset_has(&s, 100), 0);
	lj_bset_free(&s);
}
END_TEST

/* Additions in random order, each followed by lookups, against a plain
 * array of flags; the set's own shape checked after each (sorted, no
 * two ranges touching: what keeps lookups a binary search). */
START_TEST(test_bset_random)
{
	enum { SPAN = 4096, ROUNDS = 3000 };
	static unsigned char in[SPAN + 64];
	struct lj_block_set s;
	unsigned int seed = 12345;
	size_t i, k;
	blk64_t bad;

	memset(&s, 0, sizeof(s));
	memset(in, 0, sizeof(in));
	for (i = 0; i < ROUNDS; i++) {
		blk64_t start = rand_r(&seed) % SPAN;
		blk64_t count = rand_r(&seed) % (i % 50 ? 4 : 40);

		ck_assert_int_eq(lj_bset_add(&s, start, count), 0);
		memset(in + start, 1, count);
		/* (one assertion a round: Check marks each one it passes,
		 * which under ASan outlasted the test's timeout) */
		for (k = 0, bad = 0; k < 8; k++) {
			blk64_t b = rand_r(&seed) % (SPAN + 64);

			if (lj_bset_has(&s, b) != in[b])
				bad = b + 1;
		}
		ck_assert_msg(!bad, "round %zu: block %llu", i,
			      (unsigned long long)(bad - 1));
		for (k = 1; k < s.n && !bad; k++)
			bad = s.r[k - 1].start + s.r[k - 1].count >=
			      s.r[k].start;
		ck_assert_msg(!bad, "round %zu: ranges %zu and %zu touch", i,
			      k - 2, k - 1);
	}
	for (i = 0, bad = 0; i < sizeof(in); i++)
		if (lj_bset_has(&s, i) != in[i])
			bad = i + 1;
	ck_assert_msg(!bad, "block %llu", (unsigned long long)(bad - 1));
	lj_bset_free(&s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* block_cache.c                                                      */

START_TEST(test_bcache)
{
	struct lj_block_cache c;
	unsigned char a[16], b[16], out[16];

	memset(&c, 0, sizeof(c));	/* zeroed: no cache */
	memset(a, 0xAA, sizeof(a));
	memset(b, 0xBB, sizeof(b));
	lj_bcache_put(&c, 3, a);
	ck_assert_int_eq(lj_bcache_get(&c, 3, out), 0);
	ck_assert_int_eq(lj_bcache_init(&c, 8, sizeof(a)), 0);
	ck_assert_int_eq(lj_bcache_get(&c, 0, out), 0);	/* block 0 too */
	lj_bcache_put(&c, 3, a);
	ck_assert_int_eq(lj_bcache_get(&c, 3, out), 1);
	ck_assert_mem_eq(out, a, sizeof(a));
	lj_bcache_put(&c, 11, b);	/* the same slot: 3 goes */
	ck_assert_int_eq(lj_bcache_has(&c, 3), 0);
	ck_assert_int_eq(lj_bcache_get(&c, 11, out), 1);
	ck_assert_mem_eq(out, b, sizeof(b));
	lj_bcache_drop(&c, 3);		/* not there: 11 stays */
	ck_assert_int_eq(lj_bcache_has(&c, 11), 1);
	lj_bcache_drop(&c, 11);
	ck_assert_int_eq(lj_bcache_has(&c, 11), 0);
	lj_bcache_free(&c);
	ck_assert_int_eq(lj_bcache_has(&c, 11), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The channel                                                        */

static ut_img *img_rw(ext2_filsys *fs, int modes)
{
	ut_img *img = ut_img_create("-b 4096", "16M", 1);

	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, fs), 0);
	ck_assert_ptr_nonnull(lj_lazy_writer((*fs)->io));
	ck_assert_int_eq(lj_lazy_set_mode((*fs)->io, modes, 1), 0);
	return img;
}

static size_t pending(ext2_filsys fs)
{
	return lj_writer_pending(lj_lazy_writer(fs->io));
}

/* A metadata write of the live bytes journals nothing under SKIP_SAME;
 * without it, or with other bytes, it is journaled. */
START_TEST(test_skip_same)
{
	static const int modes[] = { LJ_LAZY_SKIP_SAME, 0 };
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, modes[_i]);
	unsigned char *buf = malloc(img->bs);
	lj_lazy_state *st;
	blk64_t H = img->free_blk;

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_uint_eq(pending(fs), modes[_i] ? 0 : 1);
	ck_assert_uint_eq(st->writes_same, modes[_i] ? 1 : 0);
	buf[7] ^= 0x5a;
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_uint_eq(pending(fs), 1);
	/* the superblock as libext2fs writes it back (flags kept by the
	 * writer): no change, nothing journaled */
	if (modes[_i]) {
		ck_assert_int_eq(io_channel_read_blk64(fs->io, 0, 1, buf), 0);
		ck_assert_int_eq(io_channel_write_blk64(fs->io, 0, 1, buf), 0);
		ck_assert_uint_eq(pending(fs), 1);
	}
	ext2fs_close_free(&fs);
	free(buf);
	ut_img_free(img);
}
END_TEST

/* A flush under DEFER_COMMIT commits nothing until lj_lazy_commit. */
START_TEST(test_defer_commit)
{
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, LJ_LAZY_DEFER_COMMIT);
	unsigned char *buf = malloc(img->bs);
	lj_lazy_state *st;
	blk64_t H = img->free_blk;

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	memset(buf, 0xC3, img->bs);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(lj_lazy_commit_wanted(fs->io), 0);
	ck_assert_int_eq(io_channel_flush(fs->io), 0);
	ck_assert_int_eq(lj_lazy_commit_wanted(fs->io), 1);
	ck_assert_uint_eq(pending(fs), 1);
	ck_assert_ptr_null(lj_jmap_lookup(st->jmap, H));
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_int_eq(lj_lazy_commit_wanted(fs->io), 0);
	ck_assert_uint_eq(pending(fs), 0);
	ck_assert_ptr_nonnull(lj_jmap_lookup(st->jmap, H));
	ext2fs_close_free(&fs);
	free(buf);
	ut_img_free(img);
}
END_TEST

/* A block freed in the running transaction leaves it (jbd2's forget):
 * one journaled before has its copy revoked (the commit then maps it no
 * more), one never journaled is only dropped (nothing to revoke). */
START_TEST(test_freed_forgotten)
{
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, 0);
	unsigned char *buf = malloc(img->bs);
	const unsigned char *copy;
	lj_lazy_state *st;
	lj_writer *w;
	blk64_t H = img->free_blk, G = H + 1;

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	w = lj_lazy_writer(fs->io);
	memset(buf, 0x33, img->bs);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_ptr_nonnull(lj_jmap_lookup(st->jmap, H));
	memset(buf, 0x44, img->bs);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, G, 1, buf), 0);
	ck_assert_uint_eq(pending(fs), 2);
	ck_assert_int_eq(lj_lazy_note_freed(fs->io, H, 2), 0);
	ck_assert_uint_eq(pending(fs), 0);
	ck_assert_int_eq(lj_writer_lookup(w, H, &copy), -1);
	ck_assert_int_eq(lj_writer_lookup(w, G, &copy), 0);
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_ptr_null(lj_jmap_lookup(st->jmap, H));
	ck_assert_ptr_null(lj_jmap_lookup(st->jmap, G));
	ext2fs_close_free(&fs);
	free(buf);
	ut_img_free(img);
}
END_TEST

/* Data goes home, but over a block freed since the last commit it is
 * journaled, until the commit. */
START_TEST(test_data_over_freed)
{
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, LJ_LAZY_DATA_HOME);
	unsigned char *buf = malloc(img->bs), *home = malloc(img->bs);
	blk64_t H = img->free_blk, G = H + 1;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(home);
	ck_assert_int_eq(lj_lazy_note_freed(fs->io, H, 1), 0);
	memset(buf, 0x11, img->bs);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, G, 1, buf), 0);
	ck_assert_uint_eq(pending(fs), 1);	/* H journaled, G home */
	ut_read_fsblock(img, G, home);
	ck_assert_mem_eq(home, buf, img->bs);
	ut_read_fsblock(img, H, home);
	ck_assert_int_ne(memcmp(home, buf, img->bs), 0);
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	memset(buf, 0x22, img->bs);	/* committed: home again */
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ut_read_fsblock(img, H, home);
	ck_assert_mem_eq(home, buf, img->bs);
	ext2fs_close_free(&fs);
	free(buf);
	free(home);
	ut_img_free(img);
}
END_TEST

/* lj_lazy_data_journaled: a block freed since the last commit is
 * journaled until the commit that frees it on disk has finished, its
 * start and write steps included; a run with one such block in it is
 * journaled.  lj_lazy_flush_data runs between a commit's steps (its
 * durability is the crash suites': tests/c_crash_persist). */
START_TEST(test_data_journaled)
{
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, LJ_LAZY_DATA_HOME);
	unsigned char *buf = malloc(img->bs), *home = malloc(img->bs);
	blk64_t H = img->free_blk, G = H + 1;
	int io_left;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(home);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, H, 2), 0);
	ck_assert_int_eq(lj_lazy_note_freed(fs->io, G, 1), 0);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, H, 1), 0);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, G, 1), 1);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, H, 2), 1);
	ck_assert_int_eq(lj_lazy_commit_start(fs->io, &io_left), 0);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, G, 1), 1);
	memset(buf, 0x5A, img->bs);
	ck_assert_int_eq(lj_lazy_write_data(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(lj_lazy_flush_data(fs->io), 0);
	ut_read_fsblock(img, H, home);
	ck_assert_mem_eq(home, buf, img->bs);
	ck_assert_int_eq(lj_lazy_commit_write(fs->io), 0);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, G, 1), 1);
	ck_assert_int_eq(lj_lazy_commit_finish(fs->io, 0), 0);
	ck_assert_int_eq(lj_lazy_data_journaled(fs->io, H, 2), 0);
	ext2fs_close_free(&fs);
	free(buf);
	free(home);
	ut_img_free(img);
}
END_TEST

/* What the channel reads after each change to a block it has cached:
 * the bytes journaled (before and after the commit), then the data
 * written home over it; a multi-block read sees the same. */
START_TEST(test_cache_coherent)
{
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, LJ_LAZY_DATA_HOME | LJ_LAZY_SKIP_SAME);
	unsigned char *buf = malloc(img->bs), *got = malloc(2 * img->bs);
	blk64_t H = img->free_blk;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ck_assert_int_eq(lj_lazy_note_freed(fs->io, H, 1), 0);
	memset(buf, 0x33, img->bs);	/* freed: journaled */
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_uint_eq(pending(fs), 1);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ck_assert_mem_eq(got, buf, img->bs);
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ck_assert_mem_eq(got, buf, img->bs);
	memset(buf, 0x44, img->bs);	/* committed: data goes home */
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ck_assert_mem_eq(got, buf, img->bs);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 2, got), 0);
	ck_assert_mem_eq(got, buf, img->bs);
	ut_read_fsblock(img, H, got);
	ck_assert_mem_eq(got, buf, img->bs);
	ext2fs_close_free(&fs);
	free(buf);
	free(got);
	ut_img_free(img);
}
END_TEST

/* lj_lazy_home_extent: the blocks of a run read from home as stored, and
 * where: data at home is, data journaled over a freed block is not
 * (pending, then mapped), nor the run past it; the descriptor reads what
 * the channel shows.  Not a lazy channel: none. */
START_TEST(test_home_extent)
{
	ext2_filsys fs;
	ut_img *img = img_rw(&fs, LJ_LAZY_DATA_HOME);
	unsigned char *buf = malloc(3 * img->bs), *got = malloc(3 * img->bs);
	blk64_t H = img->free_blk;
	io_channel plain;
	uint64_t pos;
	int fd = -1;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(got);
	memset(buf, 0x61, 3 * img->bs);
	ck_assert_int_eq(lj_lazy_write_data(fs->io, H, 3, buf), 0);
	ck_assert_uint_eq(lj_lazy_home_extent(fs->io, H, 3, &fd, &pos), 3);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(pos, H * img->bs);
	ck_assert_int_eq(pread(fd, got, 3 * img->bs, (off_t)pos),
			 (ssize_t)(3 * img->bs));
	ck_assert_mem_eq(got, buf, 3 * img->bs);
	ck_assert_int_eq(lj_lazy_note_freed(fs->io, H + 1, 1), 0);
	memset(buf, 0x62, img->bs);	/* over a freed block: journaled */
	ck_assert_int_eq(lj_lazy_write_data(fs->io, H + 1, 1, buf), 0);
	ck_assert_uint_eq(pending(fs), 1);
	ck_assert_uint_eq(lj_lazy_home_extent(fs->io, H, 3, &fd, &pos), 1);
	ck_assert_uint_eq(lj_lazy_home_extent(fs->io, H + 1, 2, &fd, &pos), 0);
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);	/* now mapped */
	ck_assert_uint_eq(lj_lazy_home_extent(fs->io, H + 1, 2, &fd, &pos), 0);
	ck_assert_uint_eq(lj_lazy_home_extent(fs->io, H + 2, 1, &fd, &pos), 1);
	ck_assert_uint_eq(pos, (H + 2) * img->bs);
	ck_assert_int_eq(unix_io_manager->open(img->path, 0, &plain), 0);
	ck_assert_uint_eq(lj_lazy_home_extent(plain, H, 1, &fd, &pos), 0);
	io_channel_close(plain);
	ext2fs_close_free(&fs);
	free(buf);
	free(got);
	ut_img_free(img);
}
END_TEST

Suite *mount_channel_suite(void)
{
	Suite *s = suite_create("mount_channel");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);	/* (under ASan on a slow machine) */
	tcase_add_test(tc, test_bset);
	tcase_add_test(tc, test_bset_random);
	tcase_add_test(tc, test_bcache);
	tcase_add_test(tc, test_cache_coherent);
	tcase_add_loop_test(tc, test_skip_same, 0, 2);
	tcase_add_test(tc, test_defer_commit);
	tcase_add_test(tc, test_freed_forgotten);
	tcase_add_test(tc, test_data_over_freed);
	tcase_add_test(tc, test_data_journaled);
	tcase_add_test(tc, test_home_extent);
	suite_add_tcase(s, tc);
	return s;
}
