/*
 * block_kind.c --- classify file-system blocks as superblock, group
 * descriptors, bitmaps, inode tables or other, for the jmap report.
 *
 * With flex_bg a group's bitmaps and inode table live in another group, so
 * we collect every group's static metadata into one sorted list of ranges
 * once and answer each query by binary search.
 */
#include <stdlib.h>

#include "lazy_journal.h"
#include "lj_private.h"

struct kind_range {
	blk64_t start;
	blk64_t len;
	enum lj_block_kind kind;
};

struct lj_kind_map {
	struct kind_range *r;
	size_t n, cap;
};

static int add_range(lj_kind_map *km, blk64_t start, blk64_t len,
		     enum lj_block_kind kind)
{
	if (!len)
		return 0;
	if (lj_array_grow(&km->r, &km->cap, km->n + 1, sizeof(*km->r)))
		return -1;
	km->r[km->n].start = start;
	km->r[km->n].len = len;
	km->r[km->n].kind = kind;
	km->n++;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct kind_range *x = a, *y = b;

	return x->start < y->start ? -1 : (x->start > y->start ? 1 : 0);
}

errcode_t lj_kind_map_build(ext2_filsys fs, lj_kind_map **ret)
{
	lj_kind_map *km;
	dgrp_t g;
	int bad = 0;
	errcode_t err;

	*ret = NULL;
	err = ext2fs_get_memzero(sizeof(*km), &km);
	if (err)
		return err;
	/* The primary superblock sits in block 0, or 1 with 1 KiB blocks. */
	bad |= add_range(km, fs->super->s_first_data_block, 1,
			 LJ_KIND_SUPERBLOCK);
	for (g = 0; g < fs->group_desc_count && !bad; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0;
		blk_t used = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc,
					  &used);
		/* A location of 0 means "this group has none". */
		bad |= add_range(km, super, g && super, LJ_KIND_SUPERBLOCK);
		bad |= add_range(km, old_desc, old_desc ? fs->desc_blocks +
				 fs->super->s_reserved_gdt_blocks : 0,
				 LJ_KIND_GROUP_DESC);
		bad |= add_range(km, new_desc, new_desc != 0,
				 LJ_KIND_GROUP_DESC);
		bad |= add_range(km, ext2fs_block_bitmap_loc(fs, g),
				 ext2fs_block_bitmap_loc(fs, g) != 0,
				 LJ_KIND_BLOCK_BITMAP);
		bad |= add_range(km, ext2fs_inode_bitmap_loc(fs, g),
				 ext2fs_inode_bitmap_loc(fs, g) != 0,
				 LJ_KIND_INODE_BITMAP);
		bad |= add_range(km, ext2fs_inode_table_loc(fs, g),
				 ext2fs_inode_table_loc(fs, g) ?
				 fs->inode_blocks_per_group : 0,
				 LJ_KIND_INODE_TABLE);
	}
	if (bad) {
		lj_kind_map_free(km);
		return EXT2_ET_NO_MEMORY;
	}
	qsort(km->r, km->n, sizeof(*km->r), cmp_range);
	*ret = km;
	return 0;
}

enum lj_block_kind lj_kind_of(const lj_kind_map *km, blk64_t blk)
{
	size_t lo = 0, hi = km->n;

	/* last range starting at or before blk */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (km->r[mid].start <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && blk < km->r[lo - 1].start + km->r[lo - 1].len)
		return km->r[lo - 1].kind;
	return LJ_KIND_OTHER;
}

const char *lj_kind_name(enum lj_block_kind k)
{
	static const char *const names[LJ_KIND_COUNT] = {
		"superblock", "group descriptors", "block bitmap",
		"inode bitmap", "inode table", "other"
	};

	return k < LJ_KIND_COUNT ? names[k] : "other";
}

void lj_kind_map_free(lj_kind_map *km)
{
	if (!km)
		return;
	ext2fs_free_mem(&km->r);
	ext2fs_free_mem(&km);
}
