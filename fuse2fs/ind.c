/*
 * fuse2fs/ind.c --- a hole punched in a block-mapped (ext3-style) file,
 * as ext4 punches it.
 *
 * The system libext2fs's ext2fs_punch is right for a truncate (a range
 * to the end) but not for a bounded range of a block-mapped file: a range
 * that crosses from one level of the map to the next stops at the first,
 * and below the first indirect block of a double- or triple-indirect
 * block it frees every block past the range's start (fixed upstream
 * after 1.47.0).  So the map is walked here.  What ext4 frees: every
 * mapped block in the range, and an indirect block whose whole span lies
 * in the range; an indirect block the range covers only in part stays,
 * even when nothing is left under it.  Blocks are freed through
 * ext2fs_block_alloc_stats2 (the channel told, fuse2fs/commit.c), the
 * indirect blocks rewritten through the channel as metadata.
 */
#include "server.h"

struct ind_punch {
	ext2_filsys fs;
	blk64_t freed;		/* blocks freed, for i_blocks */
};

static errcode_t check_blk(ext2_filsys fs, blk_t b)
{
	if (b < fs->super->s_first_data_block ||
	    b >= ext2fs_blocks_count(fs->super))
		return EXT2_ET_BAD_IND_BLOCK;
	return 0;
}

static void free_blk(struct ind_punch *pu, blk_t b)
{
	ext2fs_block_alloc_stats2(pu->fs, b, -1);
	pu->freed++;
}

/* The block b of level (0: a data block; L: an indirect block whose
 * entries are of level L-1) freed with everything under it. */
static errcode_t free_tree(struct ind_punch *pu, blk_t b, int level)
{
	ext2_filsys fs = pu->fs;
	unsigned int i, n = fs->blocksize / 4;
	blk_t *buf;
	errcode_t err = check_blk(fs, b);

	if (err)
		return err;
	if (level) {
		err = ext2fs_get_mem(fs->blocksize, &buf);
		if (err)
			return err;
		err = ext2fs_read_ind_block(fs, b, buf);
		for (i = 0; i < n && !err; i++)
			if (buf[i])
				err = free_tree(pu, buf[i], level - 1);
		ext2fs_free_mem(&buf);
		if (err)
			return err;
	}
	free_blk(pu, b);
	return 0;
}

/*
 * Blocks [from, to) of the n entries p of level (each spans a^level
 * blocks; from and to relative to the first entry's first block).
 * *changed when an entry of p became 0.
 */
static errcode_t punch_entries(struct ind_punch *pu, blk_t *p, unsigned int n,
			       int level, uint64_t from, uint64_t to,
			       int *changed)
{
	ext2_filsys fs = pu->fs;
	uint64_t a = fs->blocksize / 4, span = 1;
	unsigned int i;
	errcode_t err = 0;
	int l;

	for (l = 0; l < level; l++)
		span *= a;
	for (i = 0; i < n && !err; i++) {
		uint64_t lo = i * span, hi = lo + span;
		blk_t *buf;
		int sub = 0;

		if (hi <= from || !p[i])
			continue;
		if (lo >= to)
			break;
		if (from <= lo && hi <= to) {	/* the whole span */
			err = free_tree(pu, p[i], level);
			if (!err) {
				p[i] = 0;
				*changed = 1;
			}
			continue;
		}
		/* in part (level > 0: a data block spans one block) */
		err = check_blk(fs, p[i]);
		if (!err)
			err = ext2fs_get_mem(fs->blocksize, &buf);
		if (err)
			break;
		err = ext2fs_read_ind_block(fs, p[i], buf);
		if (!err)
			err = punch_entries(pu, buf, (unsigned int)a, level - 1,
					    from > lo ? from - lo : 0,
					    (to < hi ? to : hi) - lo, &sub);
		if (!err && sub)
			err = ext2fs_write_ind_block(fs, p[i], buf);
		ext2fs_free_mem(&buf);
	}
	return err;
}

errcode_t fs_punch_ind(struct fs_server *srv, struct fs_inode *in,
		       blk64_t start, blk64_t end)
{
	ext2_filsys fs = srv->fs;
	struct ext2_inode *inode = FS_I(in);
	struct ind_punch pu = { fs, 0 };
	uint64_t a = fs->blocksize / 4, base = 0, span = EXT2_NDIR_BLOCKS;
	uint64_t to = (uint64_t)end + 1;
	errcode_t err = 0;
	int level, changed = 0;

	if (end < start)
		return 0;
	/* the direct blocks, then one entry of each level 1 to 3 */
	err = punch_entries(&pu, inode->i_block, EXT2_NDIR_BLOCKS, 0, start,
			    to, &changed);
	for (level = 1; level <= 3 && !err; level++) {
		base += span;
		span = level == 1 ? a : span * a;
		if (to <= base)
			break;
		if (start >= base + span)
			continue;
		err = punch_entries(&pu, &inode->i_block[EXT2_NDIR_BLOCKS +
							 level - 1],
				    1, level, start > base ? start - base : 0,
				    to - base, &changed);
	}
	if (pu.freed) {
		errcode_t e = ext2fs_iblk_sub_blocks(fs, inode, pu.freed);

		if (!err)
			err = e;
	}
	return err;
}
