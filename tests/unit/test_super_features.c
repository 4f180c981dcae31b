/*
 * test_super_features.c --- lj_set_lazy_flag and lj_change_features: the
 * bit flips in the primary superblock and in every backup (or the primary
 * alone), each copy keeps a good checksum, nothing else in it changes
 * (s_wtime, s_kbytes_written included), and clearing the bit again gives
 * back the very bytes mke2fs wrote.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static const struct {
	const char *opts, *size;
} shapes[] = {
	{ "-b 1024", "64M" },			/* backups in groups 1 3 5 7 */
	{ "-b 4096 -O ^metadata_csum", "512M" },	/* no checksum */
	{ "-b 4096 -O sparse_super2", "512M" },	/* s_backup_bgs */
	{ "-b 4096 -O ^sparse_super,^resize_inode", "512M" }, /* all groups */
};

#define MAX_COPIES 16

struct copies {
	size_t n;
	off_t at[MAX_COPIES];
	struct ext2_super_block sb[MAX_COPIES];
};

/* Every superblock copy of the image at path, primary first. */
static void read_copies(const char *path, struct copies *c)
{
	ext2_filsys fs;
	dgrp_t g;
	size_t i;
	int fd;

	ck_assert_int_eq(lj_open_super(path, 0, &fs), 0);
	c->n = 1;
	c->at[0] = SUPERBLOCK_OFFSET;
	for (g = 1; g < fs->group_desc_count; g++) {
		blk64_t super = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, NULL, NULL, NULL);
		if (!super)
			continue;
		ck_assert_uint_lt(c->n, MAX_COPIES);
		c->at[c->n++] = (off_t)super * fs->blocksize;
	}
	ext2fs_close_free(&fs);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < c->n; i++)
		ck_assert_int_eq(pread(fd, &c->sb[i], SUPERBLOCK_SIZE, c->at[i]),
				 SUPERBLOCK_SIZE);
	close(fd);
}

/* b is a with compat bits set added: same bytes but those and the csum. */
static void check_copy(const struct ext2_super_block *a,
		       const struct ext2_super_block *b, __u32 set, size_t i)
{
	struct ext2_super_block x = *b;

	ck_assert_msg(b->s_feature_compat == (a->s_feature_compat | set),
		      "copy %zu: compat %#x", i, b->s_feature_compat);
	if (b->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		ck_assert_msg(b->s_checksum == ext2fs_crc32c_le(~0U,
			(const unsigned char *)b,
			offsetof(struct ext2_super_block, s_checksum)),
			"copy %zu: bad checksum", i);
	x.s_feature_compat = a->s_feature_compat;
	x.s_checksum = a->s_checksum;
	ck_assert_msg(!memcmp(&x, a, SUPERBLOCK_SIZE),
		      "copy %zu: more than the bit changed", i);
}

START_TEST(test_flag_every_copy)
{
	ut_img *img = ut_img_create(shapes[_i].opts, shapes[_i].size, 0);
	struct copies *c = malloc(3 * sizeof(*c));
	size_t i;

	ck_assert_ptr_nonnull(c);
	read_copies(img->path, &c[0]);
	ck_assert_uint_ge(c[0].n, 2);
	ck_assert_int_eq(lj_set_lazy_flag(img->path, 1), 0);
	read_copies(img->path, &c[1]);
	for (i = 0; i < c[0].n; i++)
		check_copy(&c[0].sb[i], &c[1].sb[i],
			   LJ_FEATURE_COMPAT_LAZY_JOURNAL, i);
	ck_assert_int_eq(lj_set_lazy_flag(img->path, 0), 0);
	read_copies(img->path, &c[2]);
	ck_assert(!memcmp(c[2].sb, c[0].sb, c[0].n * SUPERBLOCK_SIZE));
	free(c);
	ut_img_free(img);
}
END_TEST

/* backups = 0: the primary alone (the writer's needs_recovery). */
START_TEST(test_primary_only)
{
	ut_img *img = ut_img_create("-b 1024", "64M", 0);
	struct copies *c = malloc(2 * sizeof(*c));
	size_t i;

	ck_assert_ptr_nonnull(c);
	read_copies(img->path, &c[0]);
	ck_assert_int_eq(lj_change_features(img->path, 0,
					    LJ_FEATURE_COMPAT_LAZY_JOURNAL,
					    0, 0, 0), 0);
	read_copies(img->path, &c[1]);
	check_copy(&c[0].sb[0], &c[1].sb[0], LJ_FEATURE_COMPAT_LAZY_JOURNAL, 0);
	for (i = 1; i < c[0].n; i++)
		ck_assert(!memcmp(&c[0].sb[i], &c[1].sb[i], SUPERBLOCK_SIZE));
	free(c);
	ut_img_free(img);
}
END_TEST

/* Not a file system: the open's error, and not a byte written. */
START_TEST(test_not_ext4)
{
	ut_img *img = ut_img_create("-b 1024", "64M", 0);
	unsigned char zero[SUPERBLOCK_SIZE], back[SUPERBLOCK_SIZE];
	int fd = open(img->path, O_RDWR);

	ck_assert_int_ge(fd, 0);
	memset(zero, 0, sizeof(zero));
	ck_assert_int_eq(pwrite(fd, zero, sizeof(zero), SUPERBLOCK_OFFSET),
			 SUPERBLOCK_SIZE);
	ck_assert_int_eq(lj_set_lazy_flag(img->path, 1), EXT2_ET_BAD_MAGIC);
	ck_assert_int_eq(pread(fd, back, sizeof(back), SUPERBLOCK_OFFSET),
			 SUPERBLOCK_SIZE);
	ck_assert(!memcmp(back, zero, sizeof(zero)));
	close(fd);
	ut_img_free(img);
}
END_TEST

Suite *super_features_suite(void)
{
	const struct ut_test tests[] = {
		{ test_flag_every_copy,
		  (int)(sizeof(shapes) / sizeof(shapes[0])) },
		{ test_primary_only, 0 },
		{ test_not_ext4, 0 },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "core", 60, tests };

	return ut_suite("super_features", &tc, 1);
}
