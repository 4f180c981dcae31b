/*
 * journal_create.c --- the internal journal a lazy tool wants: what the
 * device has against the size wanted (-J size= or doc/contract.md §6, in whole
 * MiB as -J size= takes it), and making it at a given size and place
 * (stock's placement, -J location=, or an SMR band boundary), as stock
 * tune2fs -O ^has_journal then -J size= would.  Used by mke2fs, tune2fs
 * and e2fsck (a journal stock e2fsck recreated gets the lazy size).
 */
#include <string.h>

#include "lazy_journal.h"
#include "base_io.h"

blk64_t lj_lazy_journal_size(blk64_t nblocks, unsigned int blocksize,
			     unsigned long size_mib, unsigned long *mib)
{
	blk64_t l = lj_lazy_journal_blocks(nblocks);

	*mib = 0;
	if (!l)
		return 0;	/* too small for any journal */
	*mib = size_mib ? size_mib : lj_blocks_to_mib(l, blocksize);
	return lj_mib_to_blocks(*mib, blocksize);
}

/* First block and size of fs's journal (0s: none), from the block map
 * lj_journal_open walks; the journal superblock is not read. */
static errcode_t journal_place(ext2_filsys fs, blk64_t *start,
			       blk64_t *blocks)
{
	lj_journal *j;
	errcode_t err;

	*start = *blocks = 0;
	if (!ext2fs_has_feature_journal(fs->super) ||
	    !fs->super->s_journal_inum)
		return 0;
	err = lj_journal_map(fs, fs->io, &j);
	if (err)
		return err;
	*start = lj_journal_pblk(j, 0);
	*blocks = j->maxlen;
	lj_journal_close(j);
	return 0;
}

errcode_t lj_journal_place(const char *device, blk64_t *start,
			   blk64_t *blocks)
{
	ext2_filsys fs;
	errcode_t err;

	*start = *blocks = 0;
	err = ext2fs_open2(device, NULL, EXT2_FLAG_64BITS, 0, 0,
			   lj_io_base(), &fs);
	if (err)
		return err;
	err = journal_place(fs, start, blocks);
	ext2fs_close_free(&fs);
	return err;
}

errcode_t lj_journal_fit(const char *device, unsigned long size_mib,
			 struct lj_journal_fit *fit)
{
	ext2_filsys fs;
	errcode_t err;

	memset(fit, 0, sizeof(*fit));
	err = ext2fs_open2(device, NULL, EXT2_FLAG_64BITS, 0, 0,
			   lj_io_base(), &fs);
	if (err)
		return err;
	fit->blocksize = fs->blocksize;
	fit->want = lj_lazy_journal_size(ext2fs_blocks_count(fs->super),
					 fs->blocksize, size_mib,
					 &fit->want_mib);
	fit->place_err = journal_place(fs, &fit->start, &fit->have);
	fit->fits = !fit->place_err && fit->have &&
		    (size_mib ? fit->have == fit->want :
				fit->have >= fit->want);
	ext2fs_close_free(&fs);
	return 0;
}


/* Free the blocks of the (empty) journal inode, as tune2fs -O ^has_journal */
static errcode_t remove_journal(ext2_filsys fs)
{
	ext2_ino_t ino = fs->super->s_journal_inum;
	struct ext2_inode inode;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super) || !ino)
		return 0;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (!err)
		err = ext2fs_punch(fs, ino, &inode, NULL, 0, ~0ULL);
	if (err)
		return err;
	memset(&inode, 0, sizeof(inode));
	err = ext2fs_write_inode(fs, ino, &inode);
	if (err)
		return err;
	fs->super->s_journal_inum = 0;
	memset(fs->super->s_jnl_blocks, 0, sizeof(fs->super->s_jnl_blocks));
	fs->super->s_jnl_backup_type = 0;
	ext2fs_clear_feature_journal(fs->super);
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/*
 * The band boundary nearest the middle of the file system whose first
 * band (or the whole journal, if shorter) is free; ~0 if none.
 */
static blk64_t band_goal(ext2_filsys fs, blk64_t nblocks, blk64_t band)
{
	blk64_t n = ext2fs_blocks_count(fs->super);
	blk64_t first = fs->super->s_first_data_block;
	blk64_t run = nblocks < band ? nblocks : band;
	blk64_t k0 = (n / 2 + band - 1) / band, d;

	for (d = 0; d <= n / band + 1; d++) {
		blk64_t k[2] = { k0 + d, k0 - d };
		int s;

		for (s = 0; s < 2; s++) {
			blk64_t b = k[s] * band;

			if ((s && d > k0) || b < first || b + nblocks > n)
				continue;
			if (ext2fs_test_block_bitmap_range2(fs->block_map,
							    b, (unsigned)run))
				return b;
		}
	}
	return ~0ULL;
}

/* The blocks pad_gaps marked, free again. */
static void unpad(ext2_filsys fs, ext2fs_block_bitmap *pads)
{
	blk64_t end = ext2fs_blocks_count(fs->super) - 1, e;
	blk64_t b = fs->super->s_first_data_block;

	if (!*pads)
		return;
	while (!ext2fs_find_first_set_block_bitmap2(*pads, b, end, &b)) {
		if (ext2fs_find_first_zero_block_bitmap2(*pads, b, end, &e))
			e = end + 1;
		ext2fs_unmark_block_bitmap_range2(fs->block_map, b, e - b);
		b = e;
		if (b > end)
			break;
	}
	ext2fs_free_block_bitmap(*pads);
	*pads = NULL;
}

/*
 * Bands: the journal's extents go round the group metadata in their way
 * (a flex group's bitmaps and inode tables, a backup superblock), and a
 * log resuming inside a band after such a gap goes through the drive's
 * persistent cache on every pass (doc/smr.md).  So, walking the free runs
 * the journal will take from goal on (libext2fs allocates it in order),
 * the free blocks from each gap's end to the next band boundary are
 * marked in use in fs->block_map, and in *pads, while the journal is
 * made: each of its extents then starts on a band.  Nothing is padded
 * when the padded journal would not fit before the end.
 */
static errcode_t pad_gaps(ext2_filsys fs, blk64_t goal, blk64_t nblocks,
			  blk64_t band, ext2fs_block_bitmap *pads)
{
	ext2fs_block_bitmap map = fs->block_map;
	blk64_t end = ext2fs_blocks_count(fs->super) - 1, pos = goal, used, b;
	errcode_t err;

	err = ext2fs_allocate_block_bitmap(fs, "journal pads", pads);
	while (!err && nblocks) {
		if (ext2fs_find_first_set_block_bitmap2(map, pos, end, &used))
			used = end + 1;
		if (used - pos >= nblocks)
			return 0;
		nblocks -= used - pos;
		if (ext2fs_find_first_zero_block_bitmap2(map, used, end, &pos))
			break;
		for (b = (pos + band - 1) / band * band; pos < b && pos <= end;
		     pos++)
			if (!ext2fs_test_block_bitmap2(map, pos)) {
				ext2fs_mark_block_bitmap2(map, pos);
				ext2fs_mark_block_bitmap2(*pads, pos);
			}
	}
	unpad(fs, pads);	/* no room: none */
	return err;
}

errcode_t lj_make_journal(const char *device, blk64_t nblocks, blk64_t goal,
			  blk64_t band, int lazyinit, blk64_t *start)
{
	struct ext2fs_journal_params params;
	ext2fs_block_bitmap pads = NULL;
	ext2_filsys fs;
	errcode_t err;

	*start = 0;
	err = ext2fs_open2(device, NULL, EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE |
			   EXT2_FLAG_64BITS, 0, 0, lj_io_base(), &fs);
	if (err)
		return err;
	err = ext2fs_read_bitmaps(fs);
	if (!err)
		err = remove_journal(fs);
	if (!err && band)
		goal = band_goal(fs, nblocks, band);
	if (!err && band && goal != ~0ULL)
		err = pad_gaps(fs, goal, nblocks, band, &pads);
	if (!err)
		err = ext2fs_get_journal_params(&params, fs);
	if (!err) {
		params.num_journal_blocks = (blk_t)nblocks;
		params.num_fc_blocks = 0;
		err = ext2fs_add_journal_inode3(fs, &params, goal,
			EXT2_MKJOURNAL_NO_MNT_CHECK |
			(lazyinit ? EXT2_MKJOURNAL_LAZYINIT : 0));
	}
	unpad(fs, &pads);
	if (err) {
		ext2fs_close_free(&fs);
		return err;
	}
	err = ext2fs_close_free(&fs);
	if (!err) {
		blk64_t len;

		err = lj_journal_place(device, start, &len);
	}
	return err;
}
