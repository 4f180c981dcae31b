/*
 * fuse2fs/punch.c --- ext2fs_punch, able to free the file system's last
 * block.
 *
 * libext2fs 1.47.0 refuses to free a run of an extent's blocks that ends
 * at the file system's last block: its check (free_start + free_count >=
 * blocks count: EXT2_ET_BAD_BLOCK_NUM) is one off, and the punch stops
 * half done, the file's earlier extents gone from the tree and the rest
 * left (an unlink then leaves an orphan with blocks that e2fsck frees).
 * The kernel's ext4 allocates that block like any other, and so do we.
 * So when the range holds the block mapped to the last block, that one
 * block is unmapped (ext2fs_bmap2 BMAP_SET to 0: the extent shortened or
 * split) and freed here first, then libext2fs punches the rest.  Extent
 * files without bigalloc only: block-mapped files are punched by another
 * path (ext2fs_punch_ind, fuse2fs/ind.c), and a bigalloc cluster holds
 * more than the one block.
 */
#include "server.h"

/* Is the file system's last block mapped by the file in [start, end]?
 * Its logical block: *lblk. */
static int holds_last_block(struct fs_server *srv, ext2_ino_t ino,
			    struct fs_inode *in, blk64_t start, blk64_t end,
			    blk64_t *lblk)
{
	ext2_filsys fs = srv->fs;
	blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	int op = EXT2_EXTENT_ROOT, found = 0;

	if (ext2fs_extent_open2(fs, ino, FS_I(in), &h))
		return 0;
	while (!ext2fs_extent_get(h, op, &e)) {
		op = EXT2_EXTENT_NEXT_LEAF;
		if ((e.e_flags & EXT2_EXTENT_FLAGS_LEAF) && e.e_len &&
		    e.e_pblk + e.e_len - 1 == last) {
			*lblk = e.e_lblk + e.e_len - 1;
			found = *lblk >= start && *lblk <= end;
			break;
		}
	}
	ext2fs_extent_free(h);
	return found;
}

errcode_t fs_punch(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		   blk64_t start, blk64_t end)
{
	ext2_filsys fs = srv->fs;
	blk64_t lblk, none = 0;
	errcode_t err;

	if ((in->i.i_flags & EXT4_EXTENTS_FL) &&
	    EXT2FS_CLUSTER_RATIO(fs) == 1 &&
	    holds_last_block(srv, ino, in, start, end, &lblk)) {
		err = ext2fs_bmap2(fs, ino, FS_I(in), NULL, BMAP_SET, lblk,
				   NULL, &none);
		if (err)
			return err;
		ext2fs_block_alloc_stats2(fs, ext2fs_blocks_count(fs->super) - 1,
					  -1);
		err = ext2fs_iblk_sub_blocks(fs, FS_I(in), 1);
		if (err)
			return err;
	}
	return ext2fs_punch(fs, ino, FS_I(in), NULL, start, end);
}
