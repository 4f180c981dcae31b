/*
 * test_journal.c --- lj_journal_open: geometry, formats, bad superblocks.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "lj_private.h"

#define ALL_V3 (LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT | \
		LJ_FEATURE_INCOMPAT_CSUM_V3)

START_TEST(test_geometry)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	unsigned char *buf = malloc(2 * img->bs);
	ut_open o;
	uint32_t i;

	ut_open_journal(img, &o);
	ck_assert_uint_eq(o.j->blocksize, 1024);
	ck_assert_uint_eq(o.j->fs_blocks, 8192);
	ck_assert_uint_eq(o.j->maxlen, 1024);
	ck_assert_uint_eq(o.j->first, 1);
	ck_assert_uint_eq(o.j->last, o.j->maxlen);
	ck_assert_uint_eq(o.j->start, 0);
	ck_assert_uint_ge(o.j->n_ext, 1);
	for (i = 0; i < o.j->maxlen; i++)
		ck_assert_uint_eq(lj_journal_pblk(o.j, i), img->pblk[i]);
	ck_assert_uint_eq(lj_journal_pblk(o.j, o.j->maxlen), 0);
	ck_assert_uint_eq(lj_journal_pblk(o.j, UINT32_MAX), 0);

	/* Block 0 is the journal superblock. */
	ck_assert_int_eq(lj_journal_read(o.j, 0, 1, buf), 0);
	ck_assert_mem_eq(buf, img->jsb, img->bs);
	/* Reads never run past s_maxlen (no wrap in lj_journal_read). */
	ck_assert_int_eq(lj_journal_read(o.j, o.j->maxlen - 1, 2, buf),
			 EXT2_ET_BAD_BLOCK_NUM);
	ck_assert_int_eq(lj_journal_read(o.j, o.j->maxlen - 2, 2, buf), 0);
	ut_close_journal(&o);
	free(buf);
	ut_img_free(img);
}
END_TEST

/* Tag size, tail and checksum seed for each log format. */
START_TEST(test_formats)
{
	static const struct {
		uint32_t compat, incompat;
		unsigned int tag_bytes, tail;
		const char *desc;
	} f[] = {
		{ 0, LJ_FEATURE_INCOMPAT_REVOKE, 8, 0, "32bit" },
		{ 0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT,
		  12, 0, "64bit" },
		{ 0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_CSUM_V2,
		  10, 4, "32bit csum_v2" },
		{ 0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT |
		  LJ_FEATURE_INCOMPAT_CSUM_V2, 14, 4, "64bit csum_v2" },
		{ 0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_CSUM_V3,
		  16, 4, "32bit csum_v3" },
		{ 0, ALL_V3 | LJ_FEATURE_INCOMPAT_ASYNC_COMMIT, 16, 4,
		  "64bit csum_v3 async_commit" },
		{ LJ_FEATURE_COMPAT_CHECKSUM, LJ_FEATURE_INCOMPAT_REVOKE, 8, 0,
		  "32bit checksum_v1" },
	};
	ut_img *img = ut_img_create("-b 4096", "16M", 0);
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		ut_writer w;
		ut_open o;
		char desc[100];

		ut_log_init(&w, img, f[i].compat, f[i].incompat, 0, 7);
		ut_open_journal(img, &o);
		ck_assert_uint_eq(o.j->incompat, f[i].incompat);
		ck_assert_uint_eq(o.j->compat, f[i].compat);
		ck_assert_uint_eq(o.j->sequence, 7);
		ck_assert_uint_eq(o.j->tag_bytes, f[i].tag_bytes);
		ck_assert_uint_eq(o.j->tail_bytes, f[i].tail);
		ck_assert_mem_eq(o.j->uuid, img->uuid, 16);
		if (f[i].tail)
			ck_assert_uint_eq(o.j->csum_seed, img->csum_seed);
		lj_journal_features(o.j, desc, sizeof(desc));
		ck_assert_str_eq(desc, f[i].desc);
		ut_close_journal(&o);
	}
	ut_img_free(img);
}
END_TEST

/* Damage the journal superblock in various ways: each is an error. */
static void expect_jsb_error(ut_img *img, unsigned char *sb, errcode_t want)
{
	ut_open o;

	ut_write_jblock(img, 0, sb);
	ck_assert_int_eq(ut_try_open_journal(img, &o), want);
	ck_assert_ptr_null(o.j);
	ck_assert_ptr_null(o.fs);
}

START_TEST(test_garbage_sb)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	unsigned char *sb = malloc(img->bs);
	ut_writer w;
	unsigned int i;

	ut_log_init(&w, img, 0, ALL_V3, 0, 1);

	for (i = 0; i < img->bs; i++)	/* random-looking garbage */
		sb[i] = (unsigned char)(i * 131 + 17);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);

	memset(sb, 0, img->bs);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);

	/* Right magic, bad checksum. */
	ut_jsb_compose(img, 0, 1, sb);
	sb[LJ_JSB_CHECKSUM + 3] ^= 1;
	expect_jsb_error(img, sb, LJ_ET_JSB_CSUM);

	/* csum v2 and v3 together. */
	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_FEATURE_INCOMPAT,
		    ALL_V3 | LJ_FEATURE_INCOMPAT_CSUM_V2);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);

	/* An unknown incompatible or read-only feature: no log, as stock
	 * e2fsck 1.47 says ("Journal superblock has an unknown incompatible
	 * feature flag set.", "... unknown read-only feature flag set."). */
	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_FEATURE_INCOMPAT, ALL_V3 | 0x100);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_UNSUPP_FEATURE);
	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_FEATURE_RO_COMPAT, 0x1);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_RO_UNSUPP_FEATURE);

	/* s_start outside the log area. */
	ut_jsb_compose(img, img->maxlen, 1, sb);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);

	/* Block size that is not the file system's. */
	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_BLOCKSIZE, 4096);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);

	/* s_first 0. */
	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_FIRST, 0);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);

	/* s_maxlen beyond the inode. */
	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_MAXLEN, img->maxlen + 1);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, LJ_ET_JOURNAL_INODE_SHORT);

	/* Unknown checksum type. */
	ut_jsb_compose(img, 0, 1, sb);
	sb[LJ_JSB_CHECKSUM_TYPE] = 1;
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_UNKNOWN_CSUM);

	/* And a good one opens again. */
	ut_jsb_compose(img, 0, 1, sb);
	ut_write_jblock(img, 0, sb);
	{
		ut_open o;

		ut_open_journal(img, &o);
		ut_close_journal(&o);
	}
	free(sb);
	ut_img_free(img);
}
END_TEST

/* Fast-commit blocks at the end of the journal are not log. */
START_TEST(test_fast_commit_area)
{
	ut_img *img = ut_img_create("-b 1024 -J size=2", "16M", 0);
	unsigned char *sb = malloc(img->bs);
	ut_writer w;
	ut_open o;

	ck_assert_uint_eq(img->maxlen, 2048);
	ut_log_init(&w, img, 0, ALL_V3 | LJ_FEATURE_INCOMPAT_FAST_COMMIT, 0, 1);
	ut_open_journal(img, &o);
	ck_assert_uint_eq(o.j->last, 2048 - LJ_DEFAULT_FC_BLOCKS);
	ut_close_journal(&o);

	ut_jsb_compose(img, 0, 1, sb);
	lj_put_be32(sb + LJ_JSB_NUM_FC_BLKS, 16);
	ut_jsb_csum(img, sb);
	ut_write_jblock(img, 0, sb);
	ut_open_journal(img, &o);
	ck_assert_uint_eq(o.j->last, 2048 - 16);
	ut_close_journal(&o);

	/* s_start in the fast-commit area is corrupt. */
	ut_jsb_compose(img, 2040, 1, sb);
	lj_put_be32(sb + LJ_JSB_NUM_FC_BLKS, 16);
	ut_jsb_csum(img, sb);
	expect_jsb_error(img, sb, EXT2_ET_CORRUPT_JOURNAL_SB);
	free(sb);
	ut_img_free(img);
}
END_TEST

/* No journal at all. */
START_TEST(test_no_journal)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 0);
	ext2_filsys fs;
	lj_journal *j = (lj_journal *)1;

	ck_assert_int_eq(ext2fs_open2(img->path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	ext2fs_clear_feature_journal(fs->super);
	ck_assert_int_eq(lj_journal_open(fs, fs->io, &j), EXT2_ET_NO_JOURNAL);
	ck_assert_ptr_null(j);
	ext2fs_set_feature_journal(fs->super);
	fs->super->s_journal_inum = 0;
	ck_assert_int_eq(lj_journal_open(fs, fs->io, &j),
			 LJ_ET_EXTERNAL_JOURNAL);
	ext2fs_close_free(&fs);
	ut_img_free(img);
}
END_TEST

/* lj_crc32c (the CPU's crc32 where it has one) is libext2fs's crc32c:
 * lengths 0..49152 (each up to 64, then sparser: through both of its
 * three-stream runs), at every alignment 0..7, from three seeds. */
START_TEST(test_crc32c)
{
	static unsigned char buf[3 * 8192 * 2 + 8];
	const uint32_t seeds[] = { 0, ~0U, 0x12345678 };
	size_t i, len, al;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + (i >> 7) * 7 + 1);
	for (i = 0; i < 3; i++)
		for (al = 0; al < 8; al++)
			for (len = 0; len + al < sizeof(buf);
			     len += 1 + len / 64)
				ck_assert_uint_eq(lj_crc32c(seeds[i], buf + al, len),
						  ext2fs_crc32c_le(seeds[i],
								   buf + al, len));
}
END_TEST

/* lj_dir_leaf_csum_set sets what libext2fs's ext2fs_dir_block_csum_set
 * sets on a leaf of names libext2fs linked (1 and 4 KiB blocks, three
 * generations); a block whose records run over the tail, an htree index
 * block and a file system without metadata_csum are left alone. */
START_TEST(test_dir_leaf_csum)
{
	static const char *const opts[] = { "-b 1024", "-b 4096" };
	static const __u32 gens[] = { 0, 1, 0xdeadbeef };
	size_t i, g;

	for (i = 0; i < 2; i++) {
		ut_img *img = ut_img_create(opts[i], "8M", 0);
		ext2_filsys fs;
		struct ext2_inode in;
		struct ext2_dir_entry *d = NULL;
		ext2_ino_t dir;
		blk64_t pblk;
		unsigned char *a, *b, *c;
		unsigned int bs, tail, rec = 0;
		char name[16];
		int k;

		ck_assert_int_eq(ext2fs_open(img->path, EXT2_FLAG_RW, 0, 0,
					     unix_io_manager, &fs), 0);
		ck_assert(ext2fs_has_feature_metadata_csum(fs->super));
		bs = fs->blocksize;
		a = malloc(bs);
		b = malloc(bs);
		c = malloc(bs);
		ck_assert_int_eq(ext2fs_read_bitmaps(fs), 0);
		ck_assert_int_eq(ext2fs_new_inode(fs, EXT2_ROOT_INO,
						  LINUX_S_IFDIR | 0755, 0,
						  &dir), 0);
		ck_assert_int_eq(ext2fs_mkdir(fs, EXT2_ROOT_INO, dir, "d"), 0);
		for (k = 0; k < 9; k++) {
			snprintf(name, sizeof(name), "name-%d", k * 37);
			ck_assert_int_eq(ext2fs_link(fs, dir, name, 11,
						     EXT2_FT_REG_FILE), 0);
		}
		ck_assert_int_eq(ext2fs_bmap2(fs, dir, NULL, NULL, 0, 0, NULL,
					      &pblk), 0);
		ck_assert_int_eq(io_channel_read_blk64(fs->io, pblk, 1, a), 0);
		tail = lj_dir_leaf_tail(fs, a);
		ck_assert_uint_eq(tail, bs - 12);
		for (g = 0; g < 3; g++) {
			ck_assert_int_eq(ext2fs_read_inode(fs, dir, &in), 0);
			in.i_generation = gens[g];
			ck_assert_int_eq(ext2fs_write_inode(fs, dir, &in), 0);
			memcpy(b, a, bs);
			ck_assert_int_eq(ext2fs_dir_block_csum_set(fs, dir,
					(struct ext2_dir_entry *)b), 0);
			memcpy(c, a, bs);
			memset(c + bs - 4, 0, 4);
			ck_assert_int_eq(lj_dir_leaf_csum_set(fs, dir, gens[g],
							      c), 0);
			ck_assert_mem_eq(c, b, bs);
		}
		/* the last record runs over the tail: no leaf with a tail */
		memcpy(c, a, bs);
		for (k = 0; k < (int)tail; k += (int)rec) {
			d = (struct ext2_dir_entry *)(c + k);
			ck_assert_int_eq(ext2fs_get_rec_len(fs, d, &rec), 0);
		}
		ck_assert_int_eq(ext2fs_set_rec_len(fs, rec + 12, d), 0);
		memcpy(b, c, bs);
		ck_assert_int_eq(lj_dir_leaf_csum_set(fs, dir, 1, c),
				 EXT2_ET_DIR_NO_SPACE_FOR_CSUM);
		ck_assert_mem_eq(c, b, bs);
		/* an htree node: one empty record spans the block */
		memset(c, 0, bs);
		ck_assert_int_eq(ext2fs_set_rec_len(fs, bs,
				 (struct ext2_dir_entry *)c), 0);
		ck_assert_uint_eq(lj_dir_leaf_tail(fs, c), 0);
		/* no metadata_csum: nothing to set */
		memcpy(c, a, bs);
		ext2fs_clear_feature_metadata_csum(fs->super);
		ck_assert_int_eq(lj_dir_leaf_csum_set(fs, dir, 1, c), 0);
		ck_assert_mem_eq(c, a, bs);
		ck_assert_uint_eq(lj_dir_leaf_tail(fs, a), 0);
		ext2fs_set_feature_metadata_csum(fs->super);
		free(a);
		free(b);
		free(c);
		fs->flags &= ~EXT2_FLAG_DIRTY;	/* the image is thrown away */
		ext2fs_free(fs);
		ut_img_free(img);
	}
}
END_TEST

Suite *journal_suite(void)
{
	const struct ut_test tests[] = {
		{ test_geometry, 0 },
		{ test_formats, 0 },
		{ test_garbage_sb, 0 },
		{ test_fast_commit_area, 0 },
		{ test_no_journal, 0 },
		{ test_crc32c, 0 },
		{ test_dir_leaf_csum, 0 },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "open", 30, tests };

	return ut_suite("journal", &tc, 1);
}
