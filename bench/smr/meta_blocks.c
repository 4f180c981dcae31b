/*
 * meta_blocks.c --- the metadata blocks of a file system, for
 * bench/smr/paper_trace.py's classification of block-layer requests.
 *
 * Usage: meta_blocks DEVICE
 *
 * Prints "FIRST LAST" block ranges, in order: every group's superblock
 * and descriptor copies (reserved GDT blocks included), block and inode
 * bitmaps, inode tables; every directory's blocks; every inode's extent
 * tree (or indirect) blocks and extended attribute block.  File data,
 * and the journal's own blocks, are not metadata here (the journal is
 * classified apart).  Read through the jmap (lj_open_fs: a lazy file
 * system's directories are where its log says; a plain one's log is
 * empty after its umount, or its current blocks are there too).
 */
#include <stdio.h>
#include <stdlib.h>

#include <et/com_err.h>

#include "lazy_journal.h"

struct walk {
	ext2fs_block_bitmap meta;
	int all;	/* a directory: its data blocks too */
};

static int mark_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		      blk64_t ref_blk, int ref_offset, void *priv)
{
	struct walk *w = priv;

	(void)fs; (void)ref_blk; (void)ref_offset;
	/* negative counts are the tree's own blocks (extent index and
	 * leaf blocks, indirect blocks) */
	if (blockcnt < 0 || w->all)
		ext2fs_mark_block_bitmap2(w->meta, *blocknr);
	return 0;
}

static errcode_t mark_static(ext2_filsys fs, ext2fs_block_bitmap meta)
{
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		/* superblock, descriptors and reserved GDT copies */
		ext2fs_reserve_super_and_bgd(fs, g, meta);
		ext2fs_mark_block_bitmap2(meta, ext2fs_block_bitmap_loc(fs, g));
		ext2fs_mark_block_bitmap2(meta, ext2fs_inode_bitmap_loc(fs, g));
		ext2fs_mark_block_bitmap_range2(meta,
			ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group);
	}
	return 0;
}

static errcode_t mark_inodes(ext2_filsys fs, ext2fs_block_bitmap meta)
{
	ext2_inode_scan scan;
	struct ext2_inode inode;
	ext2_ino_t ino;
	struct walk w = { meta, 0 };
	errcode_t err;

	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		return err;
	while (!(err = ext2fs_get_next_inode(scan, &ino, &inode)) && ino) {
		blk64_t acl;

		if (!inode.i_links_count || inode.i_dtime)
			continue;
		acl = ext2fs_file_acl_block(fs, &inode);
		if (acl)
			ext2fs_mark_block_bitmap2(meta, acl);
		if (!ext2fs_inode_has_valid_blocks2(fs, &inode))
			continue;
		w.all = LINUX_S_ISDIR(inode.i_mode);
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
					    mark_block, &w);
		if (err)
			break;
	}
	ext2fs_close_inode_scan(scan);
	return err;
}

static void print_runs(ext2_filsys fs, ext2fs_block_bitmap meta)
{
	blk64_t end = ext2fs_blocks_count(fs->super) - 1;
	blk64_t first = fs->super->s_first_data_block, set, clear;

	while (first <= end &&
	       !ext2fs_find_first_set_block_bitmap2(meta, first, end, &set)) {
		if (ext2fs_find_first_zero_block_bitmap2(meta, set, end, &clear))
			clear = end + 1;
		printf("%llu %llu\n", (unsigned long long)set,
		       (unsigned long long)clear - 1);
		first = clear;
	}
}

int main(int argc, char **argv)
{
	ext2_filsys fs;
	ext2fs_block_bitmap meta;
	errcode_t err;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (argc != 2) {
		fprintf(stderr, "usage: meta_blocks DEVICE\n");
		return 1;
	}
	err = lj_open_fs(argv[1], EXT2_FLAG_64BITS, &fs);
	if (err) {
		com_err("meta_blocks", err, "while opening %s", argv[1]);
		return 1;
	}
	err = ext2fs_allocate_block_bitmap(fs, "metadata", &meta);
	if (!err)
		err = mark_static(fs, meta);
	if (!err)
		err = mark_inodes(fs, meta);
	if (err) {
		com_err("meta_blocks", err, "while reading %s", argv[1]);
		return 1;
	}
	print_runs(fs, meta);
	ext2fs_free_block_bitmap(meta);
	ext2fs_close_free(&fs);
	return 0;
}
