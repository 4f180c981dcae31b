/*
 * test_lazy_io.c --- the lazy io channel behind lj_open_fs: reads through
 * the jmap (whole blocks, runs, sub-block and byte-granular reads, escaped
 * copies), the bootstrap of the superblock, refused writes, and what the
 * channel state says when there is no usable log.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "lj_private.h"
#include "crash_io.h"

#define V3 (LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT | \
	    LJ_FEATURE_INCOMPAT_CSUM_V3)

static const struct {
	const char *mkfs, *size;
} geo[] = {
	{ "-b 1024", "8M" },
	{ "-b 4096", "16M" },
	{ "-b 1024 -O ^64bit,^metadata_csum", "8M" },
};

static lj_lazy_state *open_lazy(ut_img *img, ext2_filsys *fs)
{
	lj_lazy_state *st = NULL;
	errcode_t err = lj_open_fs(img->path, 0, fs);

	ck_assert_msg(err == 0, "lj_open_fs: %ld", (long)err);
	ck_assert_int_eq(lj_lazy_get_state((*fs)->io, &st), 0);
	ck_assert_ptr_nonnull(st);
	ck_assert_ptr_nonnull(st->jmap);
	return st;
}

/* A log (csum v3) from journal block start, sequence seq: one
 * transaction (commit_sec 5) of the n blocks b (their out fields set). */
static void log_txn(ut_img *img, uint32_t start, uint32_t seq, ut_block *b,
		    size_t n)
{
	ut_txn t = { .blocks = b, .nblocks = n, .commit_sec = 5 };
	ut_writer w;

	ut_log_init(&w, img, 0, V3, start, seq);
	ut_log_txn(&w, &t);
}

/* The end of a test: fs closed, up to four buffers and the image freed. */
static void lz_done(ext2_filsys *fs, ut_img *img, void *a, void *b, void *c,
		    void *d)
{
	if (*fs)
		ext2fs_close_free(fs);
	free(a);
	free(b);
	free(c);
	free(d);
	ut_img_free(img);
}

/* An escaped copy is served with the jbd2 magic restored. */
START_TEST(test_escaped_read)
{
	ut_img *img = ut_img_create(geo[_i].mkfs, geo[_i].size, 1);
	unsigned int bs = img->bs;
	uint64_t H = img->free_blk, P = H + 1;
	unsigned char *magic = malloc(bs), *home = malloc(bs);
	unsigned char *plain = malloc(bs), *got = malloc(bs);
	ut_block b[] = { { .home = H, .data = magic },
			 { .home = P, .data = plain } };
	lj_lazy_state *st;
	ext2_filsys fs;

	ut_fill(home, bs, H, 0, 99);
	ut_write_fsblock(img, H, home);
	ut_fill(magic, bs, H, 1, 1);
	lj_put_be32(magic, LJ_JBD2_MAGIC);
	ut_fill(plain, bs, P, 1, 1);
	log_txn(img, img->first, 1, b, 2);
	ck_assert(b[0].escaped);
	ck_assert(!b[1].escaped);

	st = open_lazy(img, &fs);
	ck_assert_int_eq(st->lazy, 1);
	ck_assert_int_eq(st->has_log, 1);
	ck_assert_int_eq(st->journal_err, 0);
	ck_assert_uint_eq(st->jmap->n, 2);
	ck_assert(lj_jmap_escaped(st->jmap, b[0].jblock));

	/* Stored escaped in the journal ... */
	ck_assert_int_eq(lj_journal_read(st->journal, b[0].jblock, 1, got), 0);
	ck_assert_uint_eq(lj_be32(got), 0);
	ck_assert_mem_eq(got + 4, magic + 4, bs - 4);
	/* ... served with the magic back. */
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ck_assert_mem_eq(got, magic, bs);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, P, 1, got), 0);
	ck_assert_mem_eq(got, plain, bs);
	/* Both, in one read. */
	{
		unsigned char *two = malloc(2 * (size_t)bs);

		ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 2, two), 0);
		ck_assert_mem_eq(two, magic, bs);
		ck_assert_mem_eq(two + bs, plain, bs);
		free(two);
	}
	/* The first 4 bytes alone, byte-granular. */
	ck_assert_int_eq(io_channel_set_blksize(fs->io, 4), 0);
	memset(got, 0, 8);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H * (bs / 4), -6, got),
			 0);
	ck_assert_mem_eq(got, magic, 6);
	ck_assert_int_eq(io_channel_set_blksize(fs->io, (int)bs), 0);
	/* The home copy is still the old one. */
	ck_assert_int_eq(lj_lazy_read_home(fs->io, H, got), 0);
	ck_assert_mem_eq(got, home, bs);
	ck_assert_uint_ge(st->reads_mapped, 4);

	lz_done(&fs, img, magic, home, plain, got);
}
END_TEST

/* Open with a token (lj_lazy_set_open_verified); the jmap's state. */
static lj_lazy_state *open_token(const char *path, const char *token,
				 ext2_filsys *fs)
{
	lj_lazy_state *st = NULL;

	lj_lazy_set_open_verified(token);
	ck_assert_int_eq(lj_open_fs(path, 0, fs), 0);
	ck_assert_int_eq(lj_lazy_get_state((*fs)->io, &st), 0);
	return st;
}

/*
 * A checked log handed on (lj_lazy_verified_token): the same log on the
 * same device builds its jmap without reading the logged blocks; another
 * log (one more transaction), another device (a copy) or a token naming
 * anything else are checked as always; a log with a bad copy gives none.
 */
START_TEST(test_verified_token)
{
	ut_img *img = ut_img_create("-b 4096", "16M", 1);
	uint64_t A = img->free_blk, B = A + 1;
	ut_block b[] = { { .home = A }, { .home = B } };
	ut_block c[] = { { .home = A, .bad_csum = 1 } };
	char token[LJ_VERIFIED_TOKEN_SIZE], other[LJ_VERIFIED_TOKEN_SIZE + 2];
	char copy[700];
	lj_lazy_state *st;
	ext2_filsys fs = NULL;
	ut_writer w;
	ut_txn t = { .blocks = b, .nblocks = 2, .commit_sec = 5 };
	ut_txn t2 = { .blocks = c, .nblocks = 1, .commit_sec = 6 };

	ut_log_init(&w, img, 0, V3, img->first, 1);
	ut_log_txn(&w, &t);
	st = open_token(img->path, NULL, &fs);
	ck_assert_uint_eq(st->jmap->data_blocks_read, 2);
	lj_lazy_verified_token(fs->io, token, sizeof(token));
	ck_assert_str_ne(token, "");
	ext2fs_close_free(&fs);

	st = open_token(img->path, token, &fs);	/* the same log */
	ck_assert_uint_eq(st->jmap->data_blocks_read, 0);
	ck_assert_uint_eq(st->jmap->n, 2);
	ext2fs_close_free(&fs);

	snprintf(other, sizeof(other), "%s0", token);	/* names another */
	st = open_token(img->path, other, &fs);
	ck_assert_uint_eq(st->jmap->data_blocks_read, 2);
	ext2fs_close_free(&fs);

	snprintf(copy, sizeof(copy), "%s.copy", img->path);	/* a copy */
	ck_assert_int_eq(ut_copy_file(img->path, copy), 0);
	st = open_token(copy, token, &fs);
	ck_assert_uint_eq(st->jmap->data_blocks_read, 2);
	ext2fs_close_free(&fs);
	unlink(copy);

	ut_log_txn(&w, &t2);	/* one more transaction: a bad copy of A */
	st = open_token(img->path, token, &fs);
	ck_assert_uint_eq(st->jmap->data_blocks_read, 3);
	ck_assert_uint_eq(st->jmap->bad_csums, 1);
	ck_assert_uint_eq(st->jmap->n, 2);	/* A: its first copy */
	lj_lazy_verified_token(fs->io, other, sizeof(other));
	ck_assert_str_eq(other, "");
	lz_done(&fs, img, NULL, NULL, NULL, NULL);
}
END_TEST

/* Multi-block and sub-block reads straddling mapped and unmapped blocks. */
START_TEST(test_straddle)
{
	enum { N = 8 };
	static const int mapped[N] = { 0, 1, 0, 1, 1, 0, 0, 1 };
	ut_img *img = ut_img_create(geo[_i].mkfs, geo[_i].size, 0);
	unsigned int bs = img->bs, half = bs / 2;
	uint64_t F = img->free_blk + 8;
	unsigned char *want = malloc(N * (size_t)bs);
	unsigned char *got = malloc(N * (size_t)bs);
	ut_block b[N];
	lj_lazy_state *st;
	ext2_filsys fs;
	blk64_t home0, mapped0;
	size_t nb = 0;
	int i;

	memset(b, 0, sizeof(b));
	for (i = 0; i < N; i++) {
		unsigned char *d = want + (size_t)i * bs;

		ut_fill(d, bs, F + (uint64_t)i, 0, 7);
		ut_write_fsblock(img, F + (uint64_t)i, d);
		if (mapped[i]) {
			b[nb].home = F + (uint64_t)i;
			b[nb].salt = 1;
			nb++;
			ut_fill(d, bs, F + (uint64_t)i, 30, 1);
		}
	}
	log_txn(img, img->first + 20, 30, b, nb);

	st = open_lazy(img, &fs);
	ck_assert_uint_eq(st->jmap->n, 4);
	home0 = st->reads_home;
	mapped0 = st->reads_mapped;
	memset(got, 0, N * (size_t)bs);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, F, N, got), 0);
	ck_assert_mem_eq(got, want, N * (size_t)bs);
	ck_assert_uint_eq(st->reads_mapped - mapped0, 4);
	ck_assert_uint_eq(st->reads_home - home0, 4);

	/* Every sub-range of whole blocks. */
	for (i = 0; i < N; i++) {
		int n;

		for (n = 1; i + n <= N; n++) {
			memset(got, 0xEE, (size_t)n * bs);
			ck_assert_int_eq(io_channel_read_blk64(fs->io,
				F + (uint64_t)i, n, got), 0);
			ck_assert_mem_eq(got, want + (size_t)i * bs,
					 (size_t)n * bs);
		}
	}

	/* Half blocks: a channel block size of bs/2. */
	ck_assert_int_eq(io_channel_set_blksize(fs->io, (int)half), 0);
	for (i = 0; i < 2 * N - 1; i++) {
		memset(got, 0, 3 * (size_t)half);
		ck_assert_int_eq(io_channel_read_blk64(fs->io,
			2 * F + (uint64_t)i, i + 3 <= 2 * N ? 3 : 1, got), 0);
		ck_assert_mem_eq(got, want + (size_t)i * half,
				 (i + 3 <= 2 * N ? 3 : 1) * (size_t)half);
	}
	/* Bytes: odd offsets and lengths across block boundaries. */
	ck_assert_int_eq(io_channel_set_blksize(fs->io, 1), 0);
	for (i = 1; i < N; i++) {
		uint64_t off = (F + (uint64_t)i) * bs - 7;
		int len = (int)bs + 13;

		if (i == N - 1)		/* stay inside the 8 blocks */
			len = 14;
		memset(got, 0, (size_t)len);
		ck_assert_int_eq(io_channel_read_blk64(fs->io, off, -len, got),
				 0);
		ck_assert_mem_eq(got, want + (size_t)i * bs - 7, (size_t)len);
	}
	ck_assert_int_eq(io_channel_set_blksize(fs->io, (int)bs), 0);
	lz_done(&fs, img, want, got, NULL, NULL);
}
END_TEST

/*
 * The superblock lives in a mapped block (block 1 on 1k, block 0 on 4k):
 * libext2fs sees the journal copy, and so does a byte-granular read.
 */
START_TEST(test_mapped_superblock)
{
	ut_img *img = ut_img_create(geo[_i].mkfs, geo[_i].size, 1);
	unsigned int bs = img->bs;
	uint64_t sbblk = bs == 1024 ? 1 : 0;
	size_t off = bs == 1024 ? 0 : 1024;
	unsigned char *blk = malloc(bs), *home = malloc(bs), *got = malloc(bs);
	struct ext2_super_block *sb = (struct ext2_super_block *)(blk + off);
	ut_block b[] = { { .home = sbblk, .data = blk } };
	lj_lazy_state *st;
	ext2_filsys fs;

	ut_read_fsblock(img, sbblk, home);
	memcpy(blk, home, bs);
	ck_assert_uint_eq(ext2fs_le16_to_cpu(sb->s_magic), EXT2_SUPER_MAGIC);
	memset(sb->s_volume_name, 0, sizeof(sb->s_volume_name));
	strcpy((char *)sb->s_volume_name, "lazy-vol");
	if (ext2fs_le32_to_cpu(sb->s_feature_ro_compat) &
	    EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb->s_checksum = ext2fs_cpu_to_le32(ext2fs_crc32c_le(~0U,
			(unsigned char *)sb,
			offsetof(struct ext2_super_block, s_checksum)));
	log_txn(img, img->first, 3, b, 1);

	st = open_lazy(img, &fs);
	ck_assert_int_eq(st->has_log, 1);
	ck_assert_ptr_nonnull(lj_jmap_lookup(st->jmap, sbblk));
	ck_assert_str_eq((char *)fs->super->s_volume_name, "lazy-vol");
	ck_assert(lj_fs_is_lazy(fs->super));
	ck_assert(ext2fs_has_feature_journal_needs_recovery(fs->super));

	/* The superblock, as libext2fs reads it: 1024 bytes at 1024. */
	ck_assert_int_eq(io_channel_set_blksize(fs->io, SUPERBLOCK_OFFSET), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, 1, -SUPERBLOCK_SIZE,
					       got), 0);
	ck_assert_mem_eq(got, blk + off, SUPERBLOCK_SIZE);
	/* Just the volume name, 16 bytes at 1024 + 0x78. */
	ck_assert_int_eq(io_channel_set_blksize(fs->io, 8), 0);
	memset(got, 0, 16);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, (1024 + 0x78) / 8, -16,
					       got), 0);
	ck_assert_mem_eq(got, "lazy-vol\0\0\0\0\0\0\0\0", 16);
	ck_assert_int_eq(io_channel_set_blksize(fs->io, (int)bs), 0);

	/* Whole block and home copy. */
	ck_assert_int_eq(io_channel_read_blk64(fs->io, sbblk, 1, got), 0);
	ck_assert_mem_eq(got, blk, bs);
	ck_assert_int_eq(lj_lazy_read_home(fs->io, sbblk, got), 0);
	ck_assert_mem_eq(got, home, bs);
	ext2fs_close_free(&fs);

	/* LJ_OPEN_NO_LOG: the plain home view. */
	lj_lazy_set_open_flags(LJ_OPEN_NO_LOG);
	st = open_lazy(img, &fs);
	ck_assert_int_eq(st->has_log, 0);
	ck_assert_uint_eq(st->jmap->n, 0);
	ck_assert_str_eq((char *)fs->super->s_volume_name, "");
	ext2fs_close_free(&fs);
	/* ... for one open only. */
	st = open_lazy(img, &fs);
	ck_assert_str_eq((char *)fs->super->s_volume_name, "lazy-vol");
	lz_done(&fs, img, blk, home, got, NULL);
}
END_TEST

/*
 * A "-b 1024" image whose first free block H holds home content, and a
 * log (csum v3, sequence 3) of one transaction with a copy of H (and of
 * a block beyond_end past the end of the fs, when not 0), followed by
 * one with a copy of H + 1 and a bad descriptor checksum when bad_next.
 */
static ut_img *one_txn_img(int lazy, uint64_t beyond_end, int bad_next,
			   unsigned char **home)
{
	ut_img *img = ut_img_create("-b 1024", "8M", lazy);
	uint64_t H = img->free_blk;
	ut_block b1[] = { { .home = H }, { .home = img->fs_blocks + beyond_end } };
	ut_block b2[] = { { .home = H + 1 } };
	ut_txn t1 = { .blocks = b1, .nblocks = beyond_end ? 2 : 1,
		      .commit_sec = 5 };
	ut_txn t2 = { .blocks = b2, .nblocks = 1, .commit_sec = 6,
		      .flags = UT_BAD_DESC_CSUM };
	ut_writer w;

	*home = malloc(img->bs);
	ck_assert_ptr_nonnull(*home);
	ut_fill(*home, img->bs, H, 0, 5);
	ut_write_fsblock(img, H, *home);
	ut_log_init(&w, img, 0, V3, img->first, 3);
	ut_log_txn(&w, &t1);
	if (bad_next)
		ut_log_txn(&w, &t2);
	return img;
}

START_TEST(test_writes_refused_read_only)
{
	unsigned char *home;
	ut_img *img = one_txn_img(1, 0, 0, &home);
	uint64_t H = img->free_blk;
	unsigned char *buf = malloc(img->bs);
	ext2_filsys fs = (ext2_filsys)1;

	/* Open for writing, a writer journals; read-only, writes fail. */
	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, &fs), 0);
	ck_assert_ptr_nonnull(lj_lazy_writer(fs->io));
	ext2fs_close_free(&fs);
	open_lazy(img, &fs);
	ck_assert_ptr_null(lj_lazy_writer(fs->io));
	memset(buf, 0xAB, img->bs);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, H, 1, buf),
			 LJ_ET_WRITE_REFUSED);
	ck_assert_int_eq(io_channel_write_blk(fs->io, (unsigned long)H + 1, 1,
					      buf), LJ_ET_WRITE_REFUSED);
	ck_assert_int_eq(io_channel_write_byte(fs->io, H * img->bs, 10, buf),
			 LJ_ET_WRITE_REFUSED);
	ck_assert_int_eq(io_channel_discard(fs->io, H, 1),
			 LJ_ET_WRITE_REFUSED);
	ext2fs_close_free(&fs);
	ut_read_fsblock(img, H, buf);
	ck_assert_mem_eq(buf, home, img->bs);
	lz_done(&fs, img, buf, home, NULL, NULL);
}
END_TEST

/*
 * LJ_LAZY_SKIP_SAME: a write of a block's live bytes journals nothing,
 * found by reading the live copy; a block allocated since the commit
 * (lj_lazy_note_allocated) is never read for that: journaled, or
 * compared with its copy in the running transaction.  Freed since the
 * commit too, or after the commit: read and compared again.
 */
START_TEST(test_skip_same_fresh)
{
	unsigned char *home;
	ut_img *img = one_txn_img(1, 0, 0, &home);
	uint64_t H = img->free_blk, A = H + 5, B = H + 6, C = H + 7;
	unsigned char *buf = malloc(img->bs), *cur = malloc(img->bs);
	const unsigned char *pend;
	ext2_filsys fs = NULL;
	lj_lazy_state *st;
	lj_writer *w;
	blk64_t rh, same;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(cur);
	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, &fs), 0);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	w = lj_lazy_writer(fs->io);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(lj_lazy_set_mode(fs->io, LJ_LAZY_SKIP_SAME, 1), 0);

	/* A: not allocated: its home copy is read, the write dropped */
	ut_read_fsblock(img, A, buf);
	rh = st->reads_home;
	same = st->writes_same;
	ck_assert_int_eq(io_channel_write_blk64(fs->io, A, 1, buf), 0);
	ck_assert_uint_eq(st->reads_home, rh + 1);
	ck_assert_uint_eq(st->writes_same, same + 1);
	ck_assert_int_eq(lj_writer_lookup(w, A, &pend), 0);

	/* B: allocated: the same bytes are journaled, nothing read */
	ck_assert_int_eq(lj_lazy_note_allocated(fs->io, B, 1), 0);
	ut_read_fsblock(img, B, buf);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, B, 1, buf), 0);
	ck_assert_uint_eq(st->reads_home, rh + 1);
	ck_assert_uint_eq(st->writes_same, same + 1);
	ck_assert_int_eq(lj_writer_lookup(w, B, &pend), 1);
	ck_assert_mem_eq(pend, buf, img->bs);
	/* again, the same bytes: compared with the running copy */
	ck_assert_int_eq(io_channel_write_blk64(fs->io, B, 1, buf), 0);
	ck_assert_uint_eq(st->reads_home, rh + 1);
	ck_assert_uint_eq(st->writes_same, same + 2);
	/* other bytes: the running copy replaced, still nothing read */
	ut_fill(cur, img->bs, B, 9, 1);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, B, 1, cur), 0);
	ck_assert_uint_eq(st->reads_home, rh + 1);
	ck_assert_int_eq(lj_writer_lookup(w, B, &pend), 1);
	ck_assert_mem_eq(pend, cur, img->bs);

	/* C: freed and allocated again since the commit: read, compared */
	ck_assert_int_eq(lj_lazy_note_freed(fs->io, C, 1), 0);
	ck_assert_int_eq(lj_lazy_note_allocated(fs->io, C, 1), 0);
	ut_read_fsblock(img, C, buf);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, C, 1, buf), 0);
	ck_assert_uint_eq(st->reads_home, rh + 2);
	ck_assert_uint_eq(st->writes_same, same + 3);

	/* after the commit B is an ordinary block: compared with its live
	 * copy, which the channel's cache holds (nothing read) */
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	rh = st->reads_home + st->reads_mapped;
	ck_assert_int_eq(io_channel_write_blk64(fs->io, B, 1, cur), 0);
	ck_assert_uint_eq(st->reads_home + st->reads_mapped, rh);
	ck_assert_uint_eq(st->writes_same, same + 4);
	ck_assert_int_eq(lj_writer_lookup(w, B, &pend), 0);
	lz_done(&fs, img, buf, cur, home, NULL);
}
END_TEST

/*
 * lj_lazy_commit is durable on return even with nothing to commit: data
 * sent home since the last flush (an overwrite in place, the fsync after
 * it on the mount) is flushed; with no such data nothing is written.
 * On the crash model: one record, a flush, and none the second time.
 */
START_TEST(test_commit_flushes_data)
{
	unsigned char *home;
	ut_img *img = one_txn_img(1, 0, 0, &home);
	uint64_t D = img->free_blk + 5;
	unsigned char *buf = malloc(img->bs);
	ext2_filsys fs = NULL;
	size_t n;

	ck_assert_ptr_nonnull(buf);
	lj_crash_reset();
	lj_io_set_base(lj_crash_io_manager);
	ck_assert_int_eq(lj_open_fs(img->path, EXT2_FLAG_RW, &fs), 0);
	ck_assert_int_eq(lj_lazy_set_mode(fs->io, LJ_LAZY_DATA_HOME, 1), 0);
	n = lj_crash_count();
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_uint_eq(lj_crash_count(), n);		/* nothing */

	ut_fill(buf, img->bs, D, 3, 1);
	ck_assert_int_eq(io_channel_write_blk64(fs->io, D, 1, buf), 0);
	ck_assert_uint_eq(lj_writer_pending(lj_lazy_writer(fs->io)), 0);
	n = lj_crash_count();
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_ne(lj_crash_get(n - 1)->len, 0);	/* the data */
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_uint_eq(lj_crash_count(), n + 1);
	ck_assert_uint_eq(lj_crash_get(n)->len, 0);		/* flushed */
	ck_assert_int_eq(lj_lazy_commit(fs->io), 0);
	ck_assert_uint_eq(lj_crash_count(), n + 1);		/* once */
	ck_assert_int_eq(lj_lazy_set_mode(fs->io, LJ_LAZY_DATA_HOME, 0), 0);
	lz_done(&fs, img, buf, home, NULL, NULL);
	lj_io_set_base(NULL);
	lj_crash_reset();
}
END_TEST

/*
 * No usable log: the fs still opens, and the channel state says why.
 * Each row spoils the one-transaction log of one_txn_img in one way.
 */
enum spoil { SP_NONE, SP_GARBAGE_JSB, SP_CLEAR_RECOVER };

static const struct open_case {
	const char *name;
	int lazy;		/* lazy_journal set */
	uint64_t beyond_end;	/* one_txn_img */
	int bad_next;		/* one_txn_img */
	enum spoil spoil;
	/* the state after lj_open_fs */
	errcode_t journal_err;
	int no_journal;		/* st->journal NULL */
	int has_log;
	size_t n;		/* jmap entries */
	struct ut_num refused, salvaged;
	const char *note;	/* in st->note; "": any */
} open_cases[] = {
	/* a garbage journal superblock: no log, and a reason */
	{ "garbage jsb", 1, 0, 0, SP_GARBAGE_JSB,
	  EXT2_ET_CORRUPT_JOURNAL_SB, 1, 0, 0, { 0, 0 }, { 0, 0 }, "" },
	/* a tag outside the file system: no map, and the reason */
	{ "tag out of range", 1, 5, 0, SP_NONE,
	  LJ_ET_TAG_OUT_OF_RANGE, 0, 0, 0, { 0, 0 }, { 0, 0 }, NULL },
	/* a refused log: nothing on a plain fs, salvaged on a lazy one */
	{ "refused, plain", 0, 0, 1, SP_NONE,
	  0, 0, 0, 0, UT_EQ(1), UT_EQ(0), NULL },
	{ "refused, lazy", 1, 0, 1, SP_NONE,
	  0, 0, 1, 1, UT_EQ(1), UT_EQ(1), NULL },
	/* needs_recovery clear: the log holds nothing live */
	{ "no needs_recovery", 1, 0, 0, SP_CLEAR_RECOVER,
	  0, 0, 0, 0, { 0, 0 }, { 0, 0 }, "needs_recovery" },
};

static void spoil(ut_img *img, enum spoil how)
{
	unsigned char *buf = malloc(img->bs);
	lj_lazy_state *st = NULL;
	ext2_filsys fs;
	unsigned int i;

	ck_assert_ptr_nonnull(buf);
	switch (how) {
	case SP_GARBAGE_JSB:
		for (i = 0; i < img->bs; i++)
			buf[i] = (unsigned char)(i * 7 + 3);
		ut_write_jblock(img, 0, buf);
		break;
	case SP_CLEAR_RECOVER:
		ck_assert_int_eq(ext2fs_open2(img->path, NULL, EXT2_FLAG_RW |
					      EXT2_FLAG_64BITS, 0, 0,
					      unix_io_manager, &fs), 0);
		ck_assert_int_eq(lj_lazy_get_state(fs->io, &st),
				 LJ_ET_NOT_LAZY_CHANNEL);
		ext2fs_clear_feature_journal_needs_recovery(fs->super);
		ext2fs_mark_super_dirty(fs);
		ck_assert_int_eq(ext2fs_close_free(&fs), 0);
		break;
	case SP_NONE:
		break;
	}
	free(buf);
}

START_TEST(test_open_no_log)
{
	const struct open_case *c = &open_cases[_i];
	unsigned char *home, *buf;
	ut_img *img = one_txn_img(c->lazy, c->beyond_end, c->bad_next, &home);
	lj_lazy_state *st;
	ext2_filsys fs;

	spoil(img, c->spoil);
	st = open_lazy(img, &fs);
	ck_assert_int_eq(st->lazy, c->lazy);
	ck_assert_msg(st->journal_err == c->journal_err, "%s: journal_err %ld",
		      c->name, (long)st->journal_err);
	if (c->no_journal)
		ck_assert_ptr_null(st->journal);
	ck_assert_int_eq(st->has_log, c->has_log);
	ck_assert_uint_eq(st->jmap->n, c->n);
	if (c->refused.on)
		ck_assert_int_eq(st->jmap->log->refused, c->refused.v);
	if (c->salvaged.on)
		ck_assert_int_eq(st->jmap->log->salvaged, c->salvaged.v);
	if (c->note)
		ck_assert_msg(st->note[0] != 0 && strstr(st->note, c->note),
			      "%s: note: %s", c->name, st->note);
	if (!c->has_log) {	/* H reads as its home copy */
		buf = malloc(img->bs);
		ck_assert_ptr_nonnull(buf);
		ck_assert_int_eq(io_channel_read_blk64(fs->io, img->free_blk, 1,
						       buf), 0);
		ck_assert_mem_eq(buf, home, img->bs);
		free(buf);
	}
	lz_done(&fs, img, home, NULL, NULL, NULL);
}
END_TEST

/*
 * The views of the view object: LJ_OPEN_MIGRATED shows the superblock
 * without needs_recovery and lazy_journal (checksum valid) and the journal
 * superblock as an empty log one past its end; the home view serves home
 * copies; a block number whose byte offset overflows is a short read.
 */
START_TEST(test_views)
{
	ut_img *img = ut_img_create(geo[_i].mkfs, geo[_i].size, 1);
	unsigned int bs = img->bs;
	uint64_t H = img->free_blk;
	unsigned char *home = malloc(bs), *got = malloc(bs), *jsb = malloc(bs);
	ut_block b[] = { { .home = H } };
	lj_lazy_state *st;
	ext2_filsys fs;

	ut_fill(home, bs, H, 0, 7);
	ut_write_fsblock(img, H, home);
	log_txn(img, img->first, 4, b, 1);

	/* migrated */
	lj_lazy_set_open_flags(LJ_OPEN_MIGRATED);
	st = open_lazy(img, &fs);
	ck_assert_int_eq(st->has_log, 1);
	ck_assert(!ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert(!lj_fs_is_lazy(fs->super));
	ck_assert(ext2fs_superblock_csum_verify(fs, fs->super));
	ck_assert_int_eq(io_channel_read_blk64(fs->io,
		lj_journal_pblk(st->journal, 0), 1, jsb), 0);
	ck_assert_uint_eq(lj_be32(jsb + LJ_JSB_START), 0);
	ck_assert_uint_eq(lj_be32(jsb + LJ_JSB_SEQUENCE), 6);
	memcpy(got, jsb, bs);
	lj_jsb_csum_set(st->journal, got);
	ck_assert_mem_eq(got, jsb, bs);		/* checksum is valid */
	/* ... mapped blocks still current */
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ut_fill(home, bs, H, 4, 0);
	ck_assert_mem_eq(got, home, bs);
	ext2fs_close_free(&fs);

	/* current, then the home view */
	st = open_lazy(img, &fs);
	ck_assert(ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert(lj_fs_is_lazy(fs->super));
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ck_assert_mem_eq(got, home, bs);
	ck_assert_int_eq(lj_lazy_set_mode(fs->io, LJ_LAZY_HOME_VIEW, 1), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, H, 1, got), 0);
	ut_fill(home, bs, H, 0, 7);
	ck_assert_mem_eq(got, home, bs);
	ck_assert_int_eq(lj_lazy_set_mode(fs->io, LJ_LAZY_HOME_VIEW, 0), 0);
	ck_assert_int_eq(io_channel_read_blk64(fs->io,
		(1ULL << 62) / bs * 4 + 1, 1, got), EXT2_ET_SHORT_READ);
	ck_assert_int_eq(io_channel_read_blk64(fs->io, ~0ULL / bs, 1, got),
			 EXT2_ET_SHORT_READ);
	lz_done(&fs, img, home, got, jsb, NULL);
}
END_TEST

Suite *lazy_io_suite(void)
{
	Suite *s = suite_create("lazy_io");
	TCase *tc = tcase_create("channel");
	int ngeo = (int)(sizeof(geo) / sizeof(geo[0]));

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_escaped_read, 0, ngeo);
	tcase_add_loop_test(tc, test_straddle, 0, ngeo);
	tcase_add_loop_test(tc, test_mapped_superblock, 0, ngeo);
	tcase_add_test(tc, test_writes_refused_read_only);
	tcase_add_test(tc, test_skip_same_fresh);
	tcase_add_test(tc, test_commit_flushes_data);
	tcase_add_loop_test(tc, test_open_no_log, 0,
			    (int)(sizeof(open_cases) / sizeof(open_cases[0])));
	tcase_add_loop_test(tc, test_views, 0, ngeo);
	tcase_add_test(tc, test_verified_token);
	suite_add_tcase(s, tc);
	return s;
}
