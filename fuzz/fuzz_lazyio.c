/*
 * fuzz_lazyio.c --- libFuzzer target: the lazy io channel reading through
 * a jmap built from a fuzzed journal.
 *
 * The input becomes the journal area of a tmpfs image (lazy_journal and
 * needs_recovery set), which is opened with lj_open_fs exactly as debugfs,
 * e2fsck -n and tune2fs -l open it.  Then every block is read through
 * fs->io (in odd-sized runs), odd byte ranges around mapped blocks are
 * read with a 1-byte channel block size, the home/mapped counters are
 * checked, and a few libext2fs walks (inodes, directories, bitmaps) run on
 * the metadata the jmap supplies.  Because the jmap may map the superblock
 * and group descriptors, this also feeds libext2fs a fuzzed superblock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init();
	return 0;
}

static int dir_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		  int offset, int blocksize, char *buf, void *priv)
{
	int *n = priv;

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	(void)de;
	return ++*n > 1000 ? DIRENT_ABORT : 0;
}

static void read_all(ext2_filsys fs, struct fz_template *t, lj_lazy_state *st)
{
	io_channel io = fs->io;
	unsigned int bs = fs->blocksize;
	blk64_t nblk = t->size / bs, b;
	const unsigned int run = 61;	/* odd: runs straddle mapped blocks */
	unsigned char *buf = malloc((size_t)run * bs), *one = malloc(bs);
	blk64_t before = st->reads_home + st->reads_mapped;
	size_t i;

	if (!buf || !one)
		abort();
	if (ext2fs_blocks_count(fs->super) < nblk)
		nblk = ext2fs_blocks_count(fs->super);
	for (b = 0; b < nblk; b += run) {
		unsigned int n = nblk - b < run ? (unsigned int)(nblk - b) : run;

		(void)io_channel_read_blk64(io, b, (int)n, buf);
	}
	FZ_CHECK(st->reads_home + st->reads_mapped >= before);
	/* each mapped block alone, its neighbours, and byte ranges across
	 * its edges (1-byte channel blocks, negative counts = bytes) */
	for (i = 0; i < st->jmap->n && i < 64; i++) {
		blk64_t h = st->jmap->e[i].home;
		blk64_t m0 = st->reads_mapped;

		if (io_channel_read_blk64(io, h, 1, one) == 0)
			FZ_CHECK(st->reads_mapped == m0 + 1);
		if (h)	/* with both neighbours */
			(void)io_channel_read_blk64(io, h - 1, 3, buf);
		(void)lj_lazy_read_home(io, h, one);
		if (h && io_channel_set_blksize(io, 1) == 0) {
			(void)io_channel_read_blk64(io, h * bs - 3, -(int)(bs + 7),
						    buf);
			(void)io_channel_read_blk64(io, h * bs + bs / 2 + 1, -5,
						    buf);
			(void)io_channel_read_blk64(io, h * bs + 1, -(int)(bs - 2),
						    buf);
			FZ_CHECK(io_channel_set_blksize(io, (int)bs) == 0);
		}
	}
	free(buf);
	free(one);
}

static void walks(ext2_filsys fs, struct fz_template *t)
{
	struct ext2_inode_large inode;
	ext2_ino_t ino, max;
	int n = 0;

	/* a superblock from the log that claims a much larger file system
	 * only makes libext2fs allocate; the channel was exercised already */
	if (ext2fs_blocks_count(fs->super) > 4 * (t->size / fs->blocksize) ||
	    fs->super->s_inodes_count > 65536)
		return;
	max = fs->super->s_inodes_count < 64 ? fs->super->s_inodes_count : 64;
	for (ino = 1; ino <= max; ino++)
		(void)ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)&inode,
					     sizeof(inode));
	if (ext2fs_check_directory(fs, EXT2_ROOT_INO) == 0)
		(void)ext2fs_dir_iterate2(fs, EXT2_ROOT_INO, 0, NULL, dir_cb, &n);
	for (ino = 12; ino <= 13 && ino <= max; ino++)
		if (ext2fs_check_directory(fs, ino) == 0)
			(void)ext2fs_dir_iterate2(fs, ino, 0, NULL, dir_cb, &n);
	if (ext2fs_read_bitmaps(fs) == 0)
		(void)ext2fs_test_block_bitmap2(fs->block_map,
						fs->super->s_first_data_block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_template *t = fz_pick(data, size);
	lj_lazy_state *st;
	ext2_filsys fs;
	errcode_t err;

	fz_load(t, data, size, 1);
	err = lj_open_fs(t->path, EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs);
	if (err) {
		FZ_CHECK(fs == NULL);
		if (fz_verbose)
			fprintf(stderr, "lj_open_fs: %s\n", error_message(err));
		return 0;
	}
	FZ_CHECK(lj_lazy_get_state(fs->io, &st) == 0);
	if (fz_verbose)
		fprintf(stderr, "lj_open_fs: ok, %zu mapped, journal: %s\n",
			st->jmap->n, st->journal_err ?
			error_message(st->journal_err) : "ok");
	FZ_CHECK(st->jmap != NULL);
	FZ_CHECK(st->lazy);
	FZ_CHECK(!st->journal_err || st->jmap->n == 0);
	FZ_CHECK(!st->jmap->n || st->journal);
	FZ_CHECK(ext2fs_write_inode(fs, EXT2_ROOT_INO, &(struct ext2_inode){0})
		 != 0);	/* a read-only open never writes */
	read_all(fs, t, st);
	walks(fs, t);
	ext2fs_close_free(&fs);
	return 0;
}
