/*
 * test_bitmaps.c --- lj_bitmaps (group_bitmaps.c) against libext2fs with
 * every bitmap read: two copies of one file system, one opened with
 * ext2fs_read_bitmaps, one with lj_bitmaps_open; the same allocations
 * (blocks by goal, ranges, inodes by parent) give the same answers, the
 * same frees by number are applied (and lj_bitmaps_find_run finds the run
 * a test of every block finds), and after both wrote their bitmaps
 * every bitmap block and every group descriptor block is the same.
 * lj_bitmaps reads no bitmap at open and one for the first allocation,
 * which changes no other group's flags.  On a disk broken into holes,
 * where lj_bitmaps_find_run keeps each group's longest run, runs freed
 * anywhere (across a group's end too) are found as a test of every block
 * finds them.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static const struct {
	const char *opts, *size;
} shapes[] = {
	{ "-b 1024 -G 4", "64M" },		/* flex groups, uninit groups */
	{ "-b 1024 -O bigalloc -C 2048", "128M" },	/* cluster bitmaps */
	{ "-b 1024 -O ^flex_bg", "64M" },	/* tables in uninit groups */
	{ "-b 1024 -O ^metadata_csum,^flex_bg -g 2048", "64M" }, /* no uninit */
	{ "-b 4096", "300M" },			/* a short last group */
};

static unsigned long rnd_state;

static unsigned long rnd(unsigned long n)
{
	rnd_state = rnd_state * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned long)(rnd_state >> 33) % n;
}

static ext2_filsys open_rw(const char *path)
{
	ext2_filsys fs;

	ck_assert_int_eq(ext2fs_open(path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0,
				     0, unix_io_manager, &fs), 0);
	return fs;
}

/* Blocks and inodes taken here and there in the first half, so that
 * groups there are partly used when the test starts, and groups after
 * still uninitialised where the format has the flag. */
static void prefill(const char *path)
{
	ext2_filsys fs = open_rw(path);
	blk64_t nb = ext2fs_blocks_count(fs->super), b;
	ext2_ino_t ino;
	int i;

	ck_assert_int_eq(ext2fs_read_bitmaps(fs), 0);
	for (i = 0; i < 400; i++) {
		if (ext2fs_new_block2(fs, rnd(nb / 2), NULL, &b))
			break;
		ext2fs_block_alloc_stats2(fs, b, +1);
	}
	for (i = 0; i < 60; i++) {
		ext2_ino_t dir = (ext2_ino_t)rnd(fs->super->s_inodes_count / 2)
				 + 1;

		if (ext2fs_new_inode(fs, dir, LINUX_S_IFREG, NULL, &ino))
			break;
		ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	}
	ck_assert_int_eq(ext2fs_close_free(&fs), 0);
}

static void same_blocks(int fa, int fb, blk64_t blk, unsigned int bs,
			const char *what, dgrp_t g)
{
	unsigned char *a = malloc(bs), *b = malloc(bs);

	ck_assert(pread(fa, a, bs, (off_t)(blk * bs)) == (ssize_t)bs);
	ck_assert(pread(fb, b, bs, (off_t)(blk * bs)) == (ssize_t)bs);
	ck_assert_msg(!memcmp(a, b, bs), "%s of group %u differs", what,
		      (unsigned int)g);
	free(a);
	free(b);
}

/* The first free run of len blocks at or after goal, else from the
 * first data block, found by testing every block of a's bitmaps (all
 * read): 0 and *ret, or EXT2_ET_BLOCK_ALLOC_FAIL. */
static errcode_t brute_run(ext2_filsys fs, blk64_t goal, blk64_t len,
			   blk64_t *ret)
{
	blk64_t first = fs->super->s_first_data_block;
	blk64_t total = ext2fs_blocks_count(fs->super), b, n, start;
	blk64_t *run = calloc(total + 1, sizeof(*run));	/* free from b on */

	for (b = total; b-- > first;)
		run[b] = ext2fs_test_block_bitmap2(fs->block_map, b) ? 0 :
			 run[b + 1] + 1;
	if (goal < first || goal >= total)
		goal = first;
	for (n = 0; n < total - first; n++) {
		start = goal + n < total ? goal + n : goal + n - total + first;
		if (run[start] >= len) {
			*ret = start;
			free(run);
			return 0;
		}
	}
	free(run);
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

/* Two copies of img's file system: *a with every bitmap read, *b (path
 * path_b) through *bm. */
static void open_pair(ut_img *img, char *path_b, size_t size, ext2_filsys *a,
		      ext2_filsys *b, lj_bitmaps **bm)
{
	snprintf(path_b, size, "%s.b", img->path);
	ck_assert_int_eq(ut_copy_file(img->path, path_b), 0);
	*a = open_rw(img->path);
	*b = open_rw(path_b);
	ck_assert_int_eq(ext2fs_read_bitmaps(*a), 0);
	ck_assert_int_eq(lj_bitmaps_open(*b, bm), 0);
}

START_TEST(test_bitmaps_as_libext2fs)
{
	ut_img *img = ut_img_create(shapes[_i].opts, shapes[_i].size, 0);
	char path_b[sizeof(img->path) + 4];
	ext2_filsys a, b;
	lj_bitmaps *bm;
	blk64_t nb, ga, gb, la, lb, blk;
	ext2_ino_t ia, ib;
	unsigned int bs;
	dgrp_t g, ngroups;
	int i, fa, fb;
	errcode_t ea, eb;

	rnd_state = 1 + (unsigned long)_i;
	prefill(img->path);
	open_pair(img, path_b, sizeof(path_b), &a, &b, &bm);
	ck_assert_uint_eq(lj_bitmaps_reads(bm), 0);
	nb = ext2fs_blocks_count(a->super);
	ngroups = a->group_desc_count;

	/* the first allocation reads one bitmap at most */
	ck_assert_int_eq(ext2fs_new_block2(a, 0, NULL, &ga), 0);
	ck_assert_int_eq(lj_bitmaps_new_block(bm, 0, &gb), 0);
	ck_assert_uint_eq(ga, gb);
	ck_assert_uint_le(lj_bitmaps_reads(bm), 1);
	/* and leaves no trace elsewhere (a search run again did not clear
	 * another group's uninitialised flag) */
	for (g = 0; g < ngroups; g++)
		ck_assert_uint_eq(ext2fs_bg_flags(a, g), ext2fs_bg_flags(b, g));

	for (i = 0; i < 600; i++) {
		switch (rnd(5)) {
		case 4: {	/* a free run of a length, nothing taken (no
				 * bigalloc: its blocks are not clusters) */
			blk64_t len = rnd(4) ? 1 + rnd(256) : 1 + rnd(nb / 2);

			if (EXT2FS_CLUSTER_RATIO(a) > 1)
				break;
			blk = rnd(nb);
			ea = brute_run(a, blk, len, &ga);
			eb = lj_bitmaps_find_run(bm, blk, len, &gb);
			ck_assert_int_eq(ea, eb);
			if (!ea)
				ck_assert_uint_eq(ga, gb);
			break;
		}
		case 0:		/* a block near a goal, counted used */
			blk = rnd(nb);
			ea = ext2fs_new_block2(a, blk, NULL, &ga);
			eb = lj_bitmaps_new_block(bm, blk, &gb);
			ck_assert_int_eq(ea, eb);
			if (ea)
				break;
			ck_assert_uint_eq(ga, gb);
			ext2fs_block_alloc_stats2(a, ga, +1);
			ext2fs_block_alloc_stats2(b, gb, +1);
			lj_bitmaps_note_blocks(bm, gb, 1, +1);
			break;
		case 1: {	/* a run, whole or shorter */
			int flags = rnd(2) ? EXT2_NEWRANGE_MIN_LENGTH : 0;
			blk64_t len = 1 + rnd(64);

			blk = rnd(nb);
			ea = ext2fs_new_range(a, flags, blk, len, NULL, &ga,
					      &la);
			eb = lj_bitmaps_new_range(bm, flags, blk, len, &gb,
						  &lb);
			ck_assert_int_eq(ea, eb);
			if (ea)
				break;
			ck_assert_uint_eq(ga, gb);
			ck_assert_uint_eq(la, lb);
			ext2fs_block_alloc_stats_range(a, ga, (blk_t)la, +1);
			ext2fs_block_alloc_stats_range(b, gb, (blk_t)lb, +1);
			lj_bitmaps_note_blocks(bm, gb, lb, +1);
			break;
		}
		case 2:		/* a block freed by number, wherever it is */
			blk = a->super->s_first_data_block +
			      rnd(nb - a->super->s_first_data_block);
			if (!ext2fs_test_block_bitmap2(a->block_map, blk))
				break;
			ext2fs_block_alloc_stats2(a, blk, -1);
			ext2fs_block_alloc_stats2(b, blk, -1);
			lj_bitmaps_note_blocks(bm, blk, 1, -1);
			break;
		default: {	/* an inode by its parent; one freed */
			ext2_ino_t dir = (ext2_ino_t)rnd(a->super->s_inodes_count)
					 + 1;

			ea = ext2fs_new_inode(a, dir, LINUX_S_IFDIR, NULL, &ia);
			eb = lj_bitmaps_new_inode(bm, dir, LINUX_S_IFDIR, &ib);
			ck_assert_int_eq(ea, eb);
			if (!ea) {
				ck_assert_uint_eq(ia, ib);
				ext2fs_inode_alloc_stats2(a, ia, +1, 1);
				ck_assert_int_eq(lj_bitmaps_inode_stats(
					bm, ib, +1, 1), 0);
			}
			ia = EXT2_FIRST_INODE(a->super) +
			     (ext2_ino_t)rnd(a->super->s_inodes_count -
					     EXT2_FIRST_INODE(a->super));
			if (ext2fs_test_inode_bitmap2(a->inode_map, ia)) {
				ext2fs_inode_alloc_stats2(a, ia, -1, 0);
				ck_assert_int_eq(lj_bitmaps_inode_stats(
					bm, ia, -1, 0), 0);
			}
		}
		}
	}
	/* no bitmap read twice */
	ck_assert_uint_le(lj_bitmaps_reads(bm), 2 * (unsigned long)ngroups);

	ck_assert_int_eq(lj_bitmaps_write(bm), 0);
	ck_assert(!(b->flags & (EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY)));
	ck_assert_int_eq(ext2fs_close_free(&b), 0);
	lj_bitmaps_free(bm);
	b = open_rw(path_b);	/* where the metadata lies: a's = b's */
	bs = a->blocksize;
	ck_assert_int_eq(ext2fs_close_free(&a), 0);
	fa = open(img->path, O_RDONLY);
	fb = open(path_b, O_RDONLY);
	for (g = 0; g < ngroups; g++) {
		same_blocks(fa, fb, ext2fs_block_bitmap_loc(b, g), bs,
			    "block bitmap", g);
		same_blocks(fa, fb, ext2fs_inode_bitmap_loc(b, g), bs,
			    "inode bitmap", g);
	}
	for (blk = 0; blk < b->desc_blocks; blk++)
		same_blocks(fa, fb, ext2fs_descriptor_block_loc2(
				    b, b->super->s_first_data_block, blk),
			    bs, "descriptor block", (dgrp_t)blk);
	close(fa);
	close(fb);
	ext2fs_close_free(&b);
	unlink(path_b);
	ut_img_free(img);
}
END_TEST

/* Blocks [blk, blk + n) used (inuse 1) or freed in a (every bitmap
 * read) and in b through bm. */
static void both_stats(ext2_filsys a, ext2_filsys b, lj_bitmaps *bm,
		       blk64_t blk, blk64_t n, int inuse)
{
	ext2fs_block_alloc_stats_range(a, blk, (blk_t)n, inuse);
	ext2fs_block_alloc_stats_range(b, blk, (blk_t)n, inuse);
	lj_bitmaps_note_blocks(bm, blk, n, inuse);
}

/* lj_bitmaps_find_run's answer is brute_run's. */
static void same_run(ext2_filsys a, lj_bitmaps *bm, blk64_t goal,
		     blk64_t len)
{
	blk64_t ga = 0, gb = 0;
	errcode_t ea = brute_run(a, goal, len, &ga);

	ck_assert_int_eq(ea, lj_bitmaps_find_run(bm, goal, len, &gb));
	if (!ea)
		ck_assert_uint_eq(ga, gb);
}

START_TEST(test_find_run_broken_disk)
{
	ut_img *img = ut_img_create("-b 1024 -g 1024 -O ^resize_inode",
				    "16M", 0);
	char path_b[sizeof(img->path) + 4];
	ext2_filsys a, b;
	lj_bitmaps *bm;
	blk64_t nb, blk, ga, gb, len, bpg;
	int i;

	rnd_state = 7;
	open_pair(img, path_b, sizeof(path_b), &a, &b, &bm);
	nb = ext2fs_blocks_count(a->super);
	bpg = EXT2_BLOCKS_PER_GROUP(a->super);

	/* every free block but one in four taken: holes of one block */
	for (blk = a->super->s_first_data_block; blk < nb; blk++)
		if (blk % 4 && !ext2fs_test_block_bitmap2(a->block_map, blk))
			both_stats(a, b, bm, blk, 1, +1);
	for (i = 0; i < 300; i++) {
		/* searches that pass every group by, bounds kept */
		same_run(a, bm, rnd(nb), 2 + rnd(8));
		/* a run freed, at a group's end one time in three, and one
		 * taken again elsewhere */
		blk = rnd(3) ? a->super->s_first_data_block +
			       rnd(nb - a->super->s_first_data_block - 16)
			     : (1 + rnd(nb / bpg - 1)) * bpg +
			       a->super->s_first_data_block - rnd(8);
		for (len = 1 + rnd(12); len; len--, blk++)
			if (ext2fs_test_block_bitmap2(a->block_map, blk) &&
			    blk % 4)
				both_stats(a, b, bm, blk, 1, -1);
		blk = rnd(nb);
		if (!ext2fs_new_block2(a, blk, NULL, &ga)) {
			ck_assert_int_eq(lj_bitmaps_new_block(bm, blk, &gb), 0);
			ck_assert_uint_eq(ga, gb);
			both_stats(a, b, bm, ga, 1, +1);
		}
		same_run(a, bm, rnd(nb), 2 + rnd(12));
	}
	ck_assert_int_eq(ext2fs_close_free(&a), 0);
	ck_assert_int_eq(ext2fs_close_free(&b), 0);
	lj_bitmaps_free(bm);
	unlink(path_b);
	ut_img_free(img);
}
END_TEST

Suite *bitmaps_suite(void)
{
	const struct ut_test tests[] = {
		{ test_bitmaps_as_libext2fs,
		  (int)(sizeof(shapes) / sizeof(shapes[0])) },
		{ test_find_run_broken_disk, 1 },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "core", 120, tests };

	return ut_suite("bitmaps", &tc, 1);
}
