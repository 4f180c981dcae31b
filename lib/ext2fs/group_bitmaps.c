/*
 * group_bitmaps.c --- the allocation bitmaps, read a group at a time.
 *
 * ext2fs_read_bitmaps reads every initialised group's block and inode
 * bitmap before a writer can allocate: on a fresh 2 TiB ext4, 1,028 block
 * reads spread over the whole disk (about one per flex group).  The
 * kernel's ext4 reads a group's bitmap when it first allocates or frees
 * in it.
 *
 * Here fs->block_map and fs->inode_map hold all ones for a group not read
 * yet, so every search libext2fs makes (ext2fs_new_block2,
 * ext2fs_new_range, ext2fs_new_inode) passes it by.  A group's bitmap is
 *  - computed at open, never read, when its descriptor says it is
 *    uninitialised (BLOCK_UNINIT, INODE_UNINIT, the descriptor's checksum
 *    valid), as libext2fs computes it;
 *  - read when an allocation passed it while its descriptor counts free
 *    blocks (inodes): the allocation then runs again, until no group it
 *    passed is unread with free ones left.  Its answer is the one the
 *    whole bitmap gives: an unread group counted full is all ones on disk
 *    too;
 *  - read when libext2fs frees or takes a block there by number
 *    (lj_bitmaps_note_blocks, from the block statistics callback, after
 *    the bit changed: the group is read and the change made again) and
 *    before an inode there is counted (lj_bitmaps_inode_stats).
 * A search for a free run (lj_bitmaps_find_run) remembers, for each
 * group it looked through from its first block without finding the
 * length asked for, the longest run it found starting there, and passes
 * the group by unread while a longer one is asked for: as ext4's
 * mballoc keeps each group's largest free order, or every search from a
 * goal in a full, broken-up part of the disk tests each of its holes
 * again (four tar -xf at once on an image two thirds full spent three
 * quarters of the daemon's time there).  Allocations only shorten runs;
 * a free in a group forgets its bound and the one of the group before,
 * whose runs may go on into it.
 * Only the groups read or computed are written (lj_bitmaps_write, as
 * fs->write_bitmaps): as ext2fs_write_bitmaps writes them, padding and
 * checksums included.  A bitmap that could not be read when a change
 * needed it fails every later write: its group is never written.
 */
#include <errno.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "lazy_journal.h"
#include "lj_private.h"

#define READY_BLOCKS	0x1	/* the group's block bitmap is in memory */
#define READY_INODES	0x2
#define RUN_UNKNOWN	((blk64_t)~0ULL)	/* lj_bitmaps.longest: not known
						 * (longer than any run) */

struct lj_bitmaps {
	ext2_filsys fs;
	unsigned char *ready;	/* READY_* per group */
	blk64_t *longest;	/* per group: no free run starting there is
				 * longer (RUN_UNKNOWN: not known) */
	errcode_t err;		/* a bitmap a change needed, not read */
	unsigned long reads;	/* bitmap blocks read */
	char *buf;		/* one block */
};

/* The descriptor's word that the group is uninitialised, to be trusted
 * (libext2fs's rule when it reads the bitmaps). */
static int uninit(ext2_filsys fs, dgrp_t g, int flag)
{
	return ext2fs_has_group_desc_csum(fs) &&
	       ext2fs_bg_flags_test(fs, g, flag) &&
	       ext2fs_group_desc_csum_verify(fs, g);
}

static blk64_t group_blocks(ext2_filsys fs, dgrp_t g)
{
	return ext2fs_group_last_block2(fs, g) -
	       ext2fs_group_first_block2(fs, g) + 1;
}

/* An inode bitmap's range set or cleared.  libext2fs has no range call
 * for inode bitmaps; its 64-bit bitmaps share one implementation and an
 * inode bitmap's unit is one inode (no cluster shift), so the block
 * bitmap's range calls serve. */
static void inode_range(ext2_filsys fs, dgrp_t g, int set)
{
	ext2fs_block_bitmap b = (ext2fs_block_bitmap)fs->inode_map;
	__u32 ipg = EXT2_INODES_PER_GROUP(fs->super);

	if (set)
		ext2fs_mark_block_bitmap_range2(b, (blk64_t)g * ipg + 1, ipg);
	else
		ext2fs_unmark_block_bitmap_range2(b, (blk64_t)g * ipg + 1, ipg);
}

/* The bitmaps and inode tables of the uninitialised groups marked where
 * they lie within [lo, hi] (libext2fs marks them after reading the
 * bitmaps; with flex_bg they lie in another group, unread at open: its
 * ones hold them, and they are marked again when it is read). */
static void mark_uninit_tables(ext2_filsys fs, blk64_t lo, blk64_t hi)
{
	ext2fs_block_bitmap map = fs->block_map;
	blk64_t n = fs->inode_blocks_per_group;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t t = ext2fs_inode_table_loc(fs, g);
		blk64_t bb = ext2fs_block_bitmap_loc(fs, g);
		blk64_t ib = ext2fs_inode_bitmap_loc(fs, g);

		if (!ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT))
			continue;
		if (t && t <= hi && t + n > lo) {
			blk64_t from = t < lo ? lo : t;
			blk64_t to = t + n - 1 > hi ? hi : t + n - 1;

			ext2fs_mark_block_bitmap_range2(map, from,
							(unsigned int)(to - from + 1));
		}
		if (bb && bb >= lo && bb <= hi)
			ext2fs_mark_block_bitmap2(map, bb);
		if (ib && ib >= lo && ib <= hi)
			ext2fs_mark_block_bitmap2(map, ib);
	}
}

/* Group g's block (kind READY_BLOCKS) or inode bitmap read into bm->buf,
 * its checksum verified as ext2fs_read_bitmaps verifies it. */
static errcode_t read_bitmap(struct lj_bitmaps *bm, dgrp_t g, int kind)
{
	ext2_filsys fs = bm->fs;
	int blocks = kind == READY_BLOCKS;
	blk64_t blk = blocks ? ext2fs_block_bitmap_loc(fs, g)
			     : ext2fs_inode_bitmap_loc(fs, g);
	errcode_t err;

	if (!blk || blk >= ext2fs_blocks_count(fs->super))
		return blocks ? EXT2_ET_GDESC_BAD_BLOCK_MAP
			      : EXT2_ET_GDESC_BAD_INODE_MAP;
	bm->reads++;
	err = io_channel_read_blk64(fs->io, blk, 1, bm->buf);
	if (err || (fs->flags & EXT2_FLAG_IGNORE_CSUM_ERRORS))
		return err;
	if (blocks && !ext2fs_block_bitmap_csum_verify(
			fs, g, bm->buf, EXT2_CLUSTERS_PER_GROUP(fs->super) / 8))
		return EXT2_ET_BLOCK_BITMAP_CSUM_INVALID;
	if (!blocks && !ext2fs_inode_bitmap_csum_verify(
			fs, g, bm->buf, EXT2_INODES_PER_GROUP(fs->super) / 8))
		return EXT2_ET_INODE_BITMAP_CSUM_INVALID;
	return 0;
}

/* Group g's block bitmap read into fs->block_map in place of its ones. */
static errcode_t read_block_group(struct lj_bitmaps *bm, dgrp_t g)
{
	ext2_filsys fs = bm->fs;
	blk64_t first = ext2fs_group_first_block2(fs, g);
	errcode_t err = read_bitmap(bm, g, READY_BLOCKS);

	if (!err) {
		ext2fs_unmark_block_bitmap_range2(fs->block_map, first,
						  group_blocks(fs, g));
		err = ext2fs_set_block_bitmap_range2(
			fs->block_map, EXT2FS_B2C(fs, first),
			EXT2_CLUSTERS_PER_GROUP(fs->super), bm->buf);
	}
	if (err)
		return err;
	bm->ready[g] |= READY_BLOCKS;
	mark_uninit_tables(fs, first, ext2fs_group_last_block2(fs, g));
	return 0;
}

static errcode_t read_inode_group(struct lj_bitmaps *bm, dgrp_t g)
{
	ext2_filsys fs = bm->fs;
	__u32 ipg = EXT2_INODES_PER_GROUP(fs->super);
	errcode_t err = read_bitmap(bm, g, READY_INODES);

	if (!err) {
		inode_range(fs, g, 0);
		err = ext2fs_set_inode_bitmap_range2(
			fs->inode_map, (__u64)g * ipg + 1, ipg, bm->buf);
	}
	if (err)
		return err;
	bm->ready[g] |= READY_INODES;
	return 0;
}

static errcode_t read_group(struct lj_bitmaps *bm, dgrp_t g, int kind)
{
	return kind == READY_BLOCKS ? read_block_group(bm, g)
				    : read_inode_group(bm, g);
}

errcode_t lj_bitmaps_open(ext2_filsys fs, lj_bitmaps **ret)
{
	struct lj_bitmaps *bm;
	errcode_t err;
	dgrp_t g;

	if (fs->block_map || fs->inode_map)
		return EXT2_ET_INVALID_ARGUMENT;
	err = ext2fs_get_memzero(sizeof(*bm), &bm);
	if (err)
		return err;
	bm->fs = fs;
	err = ext2fs_get_memzero(fs->group_desc_count, &bm->ready);
	if (!err)
		err = ext2fs_get_array(fs->group_desc_count,
				       sizeof(*bm->longest), &bm->longest);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &bm->buf);
	if (!err)
		memset(bm->longest, 0xff,
		       fs->group_desc_count * sizeof(*bm->longest));
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "block bitmap",
						   &fs->block_map);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "inode bitmap",
						   &fs->inode_map);
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		int flagged_b = ext2fs_bg_flags_test(fs, g,
						     EXT2_BG_BLOCK_UNINIT);
		int flagged_i = ext2fs_bg_flags_test(fs, g,
						     EXT2_BG_INODE_UNINIT);

		/* all zeros: the computed bitmap, metadata marked below */
		if (uninit(fs, g, EXT2_BG_BLOCK_UNINIT))
			bm->ready[g] |= READY_BLOCKS;
		else
			ext2fs_mark_block_bitmap_range2(
				fs->block_map, ext2fs_group_first_block2(fs, g),
				group_blocks(fs, g));
		if (uninit(fs, g, EXT2_BG_INODE_UNINIT))
			bm->ready[g] |= READY_INODES;
		else
			inode_range(fs, g, 1);
		/* flagged, the flag not to be trusted: read now, before
		 * libext2fs acts on the flag (ext2fs_new_inode clears it) */
		if (flagged_b && !(bm->ready[g] & READY_BLOCKS))
			err = read_block_group(bm, g);
		if (!err && flagged_i && !(bm->ready[g] & READY_INODES))
			err = read_inode_group(bm, g);
	}
	if (!err) {
		/* the computed groups: their superblock and descriptor copies */
		for (g = 0; g < fs->group_desc_count; g++)
			if (ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT))
				ext2fs_reserve_super_and_bgd(fs, g,
							     fs->block_map);
		mark_uninit_tables(fs, 0, ext2fs_blocks_count(fs->super) - 1);
		/* what is in memory is what is on disk: nothing to write */
		fs->flags &= ~(EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY);
		*ret = bm;
		return 0;
	}
	ext2fs_free_block_bitmap(fs->block_map);
	ext2fs_free_inode_bitmap(fs->inode_map);
	fs->block_map = NULL;
	fs->inode_map = NULL;
	lj_bitmaps_free(bm);
	return err;
}

void lj_bitmaps_free(lj_bitmaps *bm)
{
	if (!bm)
		return;
	ext2fs_free_mem(&bm->ready);
	ext2fs_free_mem(&bm->longest);
	ext2fs_free_mem(&bm->buf);
	ext2fs_free_mem(&bm);
}

unsigned long lj_bitmaps_reads(const lj_bitmaps *bm)
{
	return bm->reads;
}

/* ------------------------------------------------------------------ */
/* Allocation: run again while it passed an unread group with room     */

static __u32 free_in(ext2_filsys fs, dgrp_t g, int kind)
{
	return kind == READY_BLOCKS ? ext2fs_bg_free_blocks_count(fs, g)
				    : ext2fs_bg_free_inodes_count(fs, g);
}

/*
 * An allocation searched from START's group, forward and round to the
 * start of the file system (as ext2fs_new_block2, ext2fs_new_range and
 * ext2fs_new_inode search), and found FOUND (found 0: nothing).  The
 * first group it passed, unread with free ones, is read: 1; none: 0.
 */
static int read_passed(struct lj_bitmaps *bm, int kind, dgrp_t start,
		       blk64_t start_unit, blk64_t found, dgrp_t found_group,
		       errcode_t *err)
{
	ext2_filsys fs = bm->fs;
	dgrp_t n = fs->group_desc_count, pos, end = n;

	if (found)
		end = found >= start_unit ? found_group - start
					  : found_group + n - start;
	for (pos = 0; pos < end; pos++) {
		dgrp_t g = (start + pos) % n;

		if (!(bm->ready[g] & kind) && free_in(fs, g, kind)) {
			*err = read_group(bm, g, kind);
			return !*err;
		}
	}
	return 0;
}

/*
 * Before a search from START's group for NEED blocks (clusters) or
 * inodes: the groups it meets first read, up to the first whose
 * descriptor counts NEED free.  The search then seldom passes an unread
 * group: a search run again must not leave traces of the one before
 * (libext2fs clears the uninitialised flag of the group it lands in).
 */
static errcode_t read_ahead(struct lj_bitmaps *bm, int kind, dgrp_t start,
			    blk64_t need)
{
	ext2_filsys fs = bm->fs;
	dgrp_t n = fs->group_desc_count, pos;

	for (pos = 0; pos < n; pos++) {
		dgrp_t g = (start + pos) % n;
		__u32 free = free_in(fs, g, kind);

		if (free && !(bm->ready[g] & kind)) {
			errcode_t err = read_group(bm, g, kind);

			if (err)
				return err;
		}
		if (free >= need)
			return 0;
	}
	return 0;
}

/* Every unread group [blk, blk + num) touches, read. */
static errcode_t read_blocks_of(struct lj_bitmaps *bm, blk64_t blk,
				blk64_t num)
{
	ext2_filsys fs = bm->fs;
	blk64_t end = blk + num;
	errcode_t err = 0;

	if (end > ext2fs_blocks_count(fs->super))
		end = ext2fs_blocks_count(fs->super);
	while (!err && blk < end) {
		dgrp_t g = ext2fs_group_of_blk2(fs, blk);

		if (!(bm->ready[g] & READY_BLOCKS))
			err = read_block_group(bm, g);
		blk = ext2fs_group_last_block2(fs, g) + 1;
	}
	return err;
}

/* One search of the bitmap as it is: ext2fs_new_block2 for one block
 * (plen NULL), else ext2fs_new_range.  Nothing found: *got 0. */
static errcode_t search(struct lj_bitmaps *bm, int flags, blk64_t goal,
			blk64_t len, blk64_t *got, blk64_t *plen)
{
	ext2_filsys fs = bm->fs;
	errcode_t err = plen ? ext2fs_new_range(fs, flags, goal, len,
						fs->block_map, got, plen)
			     : ext2fs_new_block2(fs, goal, fs->block_map, got);

	if (err == EXT2_ET_BLOCK_ALLOC_FAIL)
		*got = 0;
	return err;
}

errcode_t lj_bitmaps_new_range(lj_bitmaps *bm, int flags, blk64_t goal,
			       blk64_t len, blk64_t *pblk, blk64_t *plen)
{
	ext2_filsys fs = bm->fs;
	blk64_t got, start = goal;
	errcode_t err, rerr = 0;

	if (flags & EXT2_NEWRANGE_FIXED_GOAL) {
		err = read_blocks_of(bm, goal, len);
		return err ? err : search(bm, flags, goal, len, pblk, plen);
	}
	if (start < fs->super->s_first_data_block ||
	    start >= ext2fs_blocks_count(fs->super))
		start = fs->super->s_first_data_block;
	err = read_ahead(bm, READY_BLOCKS, ext2fs_group_of_blk2(fs, start),
			 flags & EXT2_NEWRANGE_MIN_LENGTH ? 1 :
			 EXT2FS_NUM_B2C(fs, len));
	if (err)
		return err;
	do {
		err = search(bm, flags, goal, len, &got, plen);
		if (err && err != EXT2_ET_BLOCK_ALLOC_FAIL)
			return err;
	} while (read_passed(bm, READY_BLOCKS,
			     ext2fs_group_of_blk2(fs, start), start, got,
			     got ? ext2fs_group_of_blk2(fs, got) : 0, &rerr));
	if (rerr)
		return rerr;
	if (!err)
		*pblk = got;
	return err;
}

/* Where the free run from z ends, looked at no further than limit: *end,
 * the first block in use (or limit).  The groups it crosses into read. */
static errcode_t run_end(struct lj_bitmaps *bm, blk64_t z, blk64_t limit,
			 blk64_t *end)
{
	ext2_filsys fs = bm->fs;
	blk64_t at = z, stop, used;
	errcode_t err;

	while (at < limit) {
		dgrp_t g = ext2fs_group_of_blk2(fs, at);

		stop = ext2fs_group_last_block2(fs, g) + 1;
		if (stop > limit)
			stop = limit;
		if (!free_in(fs, g, READY_BLOCKS))
			break;		/* all in use, read or not */
		if (!(bm->ready[g] & READY_BLOCKS) &&
		    (err = read_block_group(bm, g)))
			return err;
		err = ext2fs_find_first_set_block_bitmap2(fs->block_map, at,
							  stop - 1, &used);
		if (!err) {
			*end = used;
			return 0;
		}
		if (err != ENOENT)
			return err;
		at = stop;
	}
	*end = at;
	return 0;
}

/*
 * The first free run of len blocks starting in [lo, hi), all in group g
 * (read): 0 and *ret; ENOENT and *next (where to go on: past hi, or past
 * a run that went on into the groups after) when there is none.  Looked
 * at from the group's first block to its end, the longest run found is
 * its bound (runs longer than a group are never bounded).
 */
static errcode_t run_in_group(struct lj_bitmaps *bm, dgrp_t g, blk64_t lo,
			      blk64_t hi, blk64_t len, blk64_t *ret,
			      blk64_t *next)
{
	ext2_filsys fs = bm->fs;
	blk64_t total = ext2fs_blocks_count(fs->super);
	blk64_t gend = ext2fs_group_last_block2(fs, g) + 1;
	blk64_t at = lo, longest = 0, z, end;
	int whole = lo == ext2fs_group_first_block2(fs, g) && hi == gend;
	errcode_t err;

	while (at < hi) {
		err = ext2fs_find_first_zero_block_bitmap2(fs->block_map, at,
							   hi - 1, &z);
		if (err == ENOENT)
			break;
		if (err)
			return err;
		err = run_end(bm, z, z + len < total ? z + len : total, &end);
		if (err)
			return err;
		if (end - z >= len) {
			*ret = z;
			return 0;
		}
		if (end - z > longest)
			longest = end - z;
		at = end + 1;	/* end is in use */
	}
	if (whole && len <= group_blocks(fs, g))
		bm->longest[g] = longest;
	*next = at > hi ? at : hi;
	return ENOENT;
}

/*
 * Not ext2fs_new_range with EXT2_NEWRANGE_MIN_LENGTH: when no free run is
 * long enough, its search goes back to the first block whenever it runs
 * off the end without a free block after it, and never stops (libext2fs
 * 1.47).  Here each start is looked at once: forward from goal's, then
 * from the first data block up to goal.  Groups whose descriptor counts
 * no free block, or whose bound is shorter than len, are passed over.
 */
errcode_t lj_bitmaps_find_run(lj_bitmaps *bm, blk64_t goal, blk64_t len,
			      blk64_t *ret)
{
	ext2_filsys fs = bm->fs;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t total = ext2fs_blocks_count(fs->super);
	errcode_t err;
	int pass;

	if (goal < first || goal >= total)
		goal = first;
	for (pass = 0; pass < 2; pass++) {
		blk64_t lo = pass ? first : goal, hi = pass ? goal : total;

		while (lo < hi) {
			dgrp_t g = ext2fs_group_of_blk2(fs, lo);
			blk64_t gend = ext2fs_group_last_block2(fs, g) + 1;

			if (!free_in(fs, g, READY_BLOCKS) ||
			    bm->longest[g] < len) {
				lo = gend;
				continue;
			}
			if (!(bm->ready[g] & READY_BLOCKS) &&
			    (err = read_block_group(bm, g)))
				return err;
			err = run_in_group(bm, g, lo, gend < hi ? gend : hi,
					   len, ret, &lo);
			if (err != ENOENT)
				return err;
		}
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

errcode_t lj_bitmaps_new_block(lj_bitmaps *bm, blk64_t goal, blk64_t *ret)
{
	return lj_bitmaps_new_range(bm, 0, goal, 1, ret, NULL);
}

errcode_t lj_bitmaps_new_inode(lj_bitmaps *bm, ext2_ino_t dir, int mode,
			       ext2_ino_t *ret)
{
	ext2_filsys fs = bm->fs;
	__u32 ipg = EXT2_INODES_PER_GROUP(fs->super);
	dgrp_t start = dir ? (dir - 1) / ipg : 0;
	ext2_ino_t got;
	errcode_t err, rerr = 0;

	err = read_ahead(bm, READY_INODES, start, 1);
	if (err)
		return err;
	do {
		got = 0;
		err = ext2fs_new_inode(fs, dir, mode, fs->inode_map, &got);
		if (err && err != EXT2_ET_INODE_ALLOC_FAIL)
			return err;
		if (err)
			got = 0;
	} while (read_passed(bm, READY_INODES, start, (blk64_t)start * ipg + 1,
			     got, got ? (got - 1) / ipg : 0, &rerr));
	if (rerr)
		return rerr;
	if (!err)
		*ret = got;
	return err;
}

/* ------------------------------------------------------------------ */
/* Changes libext2fs makes by number                                    */

void lj_bitmaps_note_blocks(lj_bitmaps *bm, blk64_t blk, blk64_t num,
			    int inuse)
{
	ext2_filsys fs = bm->fs;
	blk64_t end = blk + num;

	if (end > ext2fs_blocks_count(fs->super))
		end = ext2fs_blocks_count(fs->super);
	while (blk < end) {
		dgrp_t g = ext2fs_group_of_blk2(fs, blk);
		blk64_t next = ext2fs_group_last_block2(fs, g) + 1;
		blk64_t n = (next < end ? next : end) - blk;
		errcode_t err;

		if (inuse < 0) {	/* longer runs may start here now */
			bm->longest[g] = RUN_UNKNOWN;
			if (g)
				bm->longest[g - 1] = RUN_UNKNOWN;
		}
		if (!(bm->ready[g] & READY_BLOCKS)) {
			/* the change was made in the ones: made again */
			err = read_block_group(bm, g);
			if (err && !bm->err)
				bm->err = err;
			else if (!err && inuse > 0)
				ext2fs_mark_block_bitmap_range2(fs->block_map,
								blk, n);
			else if (!err && inuse < 0)
				ext2fs_unmark_block_bitmap_range2(
					fs->block_map, blk, n);
		}
		blk = next;
	}
}

errcode_t lj_bitmaps_inode_stats(lj_bitmaps *bm, ext2_ino_t ino, int inuse,
				 int isdir)
{
	ext2_filsys fs = bm->fs;
	dgrp_t g;

	if (!ino || ino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	g = (ino - 1) / EXT2_INODES_PER_GROUP(fs->super);
	if (!(bm->ready[g] & READY_INODES)) {
		errcode_t err = read_inode_group(bm, g);

		if (err)
			return err;
	}
	ext2fs_inode_alloc_stats2(fs, ino, inuse, isdir);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Written as ext2fs_write_bitmaps writes them, the groups in memory    */

/* Group g's block (kind READY_BLOCKS) or inode bitmap written as
 * ext2fs_write_bitmaps writes it: ones past its bits, its checksum and
 * the descriptor's set. */
static errcode_t write_group(struct lj_bitmaps *bm, dgrp_t g, int kind)
{
	ext2_filsys fs = bm->fs;
	int blocks = kind == READY_BLOCKS;
	__u32 nbits = blocks ? EXT2_CLUSTERS_PER_GROUP(fs->super)
			     : EXT2_INODES_PER_GROUP(fs->super);
	blk64_t blk = blocks ? ext2fs_block_bitmap_loc(fs, g)
			     : ext2fs_inode_bitmap_loc(fs, g);
	errcode_t err;

	memset(bm->buf, 0xff, fs->blocksize);
	if (blocks) {
		err = ext2fs_get_block_bitmap_range2(
			fs->block_map,
			EXT2FS_B2C(fs, ext2fs_group_first_block2(fs, g)),
			nbits, bm->buf);
		if (!err && g == fs->group_desc_count - 1) {
			/* past the last block: ones, to the block's end */
			unsigned int bit = EXT2FS_NUM_B2C(fs,
				(ext2fs_blocks_count(fs->super) -
				 fs->super->s_first_data_block) %
				EXT2_BLOCKS_PER_GROUP(fs->super));

			for (; bit && bit < fs->blocksize * 8U; bit++)
				ext2fs_set_bit(bit, bm->buf);
		}
		if (!err)
			err = ext2fs_block_bitmap_csum_set(fs, g, bm->buf,
							   nbits / 8);
	} else {
		err = ext2fs_get_inode_bitmap_range2(
			fs->inode_map, (__u64)g * nbits + 1, nbits, bm->buf);
		if (!err)
			err = ext2fs_inode_bitmap_csum_set(fs, g, bm->buf,
							   nbits / 8);
	}
	if (err)
		return err;
	ext2fs_group_desc_csum_set(fs, g);
	fs->flags |= EXT2_FLAG_DIRTY;
	if (blk && blk < ext2fs_blocks_count(fs->super) &&
	    io_channel_write_blk64(fs->io, blk, 1, bm->buf))
		return blocks ? EXT2_ET_BLOCK_BITMAP_WRITE
			      : EXT2_ET_INODE_BITMAP_WRITE;
	return 0;
}

errcode_t lj_bitmaps_write(lj_bitmaps *bm)
{
	ext2_filsys fs = bm->fs;
	int csum = ext2fs_has_group_desc_csum(fs);
	int blocks = ext2fs_test_bb_dirty(fs), inodes = ext2fs_test_ib_dirty(fs);
	errcode_t err = 0;
	dgrp_t g;

	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (bm->err)
		return bm->err;
	if (!blocks && !inodes)
		return 0;
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		if (blocks && (bm->ready[g] & READY_BLOCKS) &&
		    !(csum && ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT)))
			err = write_group(bm, g, READY_BLOCKS);
		if (!err && inodes && (bm->ready[g] & READY_INODES) &&
		    !(csum && ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT)))
			err = write_group(bm, g, READY_INODES);
	}
	if (!err)
		fs->flags &= ~(EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY);
	return err;
}
