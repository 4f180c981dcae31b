/*
 * view_data.c --- which writes of stock debugfs are file data
 * (LJ_VIEW=debugfs).
 *
 * The lazy channel sees block numbers only.  Which writes carry file data
 * is known one level up, in libext2fs: stock debugfs writes a
 * file through ext2fs_file_write, whose buffer goes to the device in
 * ext2fs_file_flush; ext2fs_file_set_size2 zeroes the tail of the last
 * block; ext2fs_fallocate zeroes the blocks it initialises.  Those are
 * data scopes.  Everything they call that writes metadata -- block mapping
 * and allocation (ext2fs_bmap2, the extent tree), inodes, extended
 * attributes, punching -- is a metadata scope again.  libext2fs calls its
 * own exported functions through the PLT, so interposing them here sees
 * the inner calls too.  The innermost scope decides; outside every scope a
 * write is metadata.  A data scope switches the channel to
 * LJ_LAZY_DATA_HOME (the block goes home, ordered before the commit that
 * makes it reachable); a misjudged write can only cost log space, since
 * the default is to journal.
 *
 * Blocks freed since the last commit are told to the channel
 * (lj_lazy_note_freed): the committed file system may still use them, so
 * data written over them is journaled, never sent home before the commit.
 * So are blocks allocated since then (lj_lazy_note_allocated, from the
 * allocator's answers and the allocation counts): free in the committed
 * file system, they are journaled without a read of their old copy to
 * compare with.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>

#include "view.h"

/* The channel of the open fs, when it is a lazy channel that writes. */
static io_channel writing_channel(void)
{
	ext2_filsys fs;

	if (lj_view_mode != LJ_VIEW_DEBUGFS)
		return NULL;
	fs = lj_view_fs();
	return fs && lj_lazy_writer(fs->io) ? fs->io : NULL;
}

static __thread int data_scope;	/* the innermost scope is a data scope */

/* Enter a scope (data or not); returns the scope to restore. */
static int scope_enter(int data)
{
	int was = data_scope;
	io_channel io = writing_channel();

	data_scope = data;
	if (io && was != data)
		lj_lazy_set_mode(io, LJ_LAZY_DATA_HOME, data);
	return was;
}

static void scope_leave(int was)
{
	io_channel io = writing_channel();

	if (io && was != data_scope)
		lj_lazy_set_mode(io, LJ_LAZY_DATA_HOME, was);
	data_scope = was;
}

/*
 * fn(params) interposed: the real function runs in a data scope (data 1)
 * or a metadata scope (data 0).  args repeats the parameter names.
 */
#define LJ_SCOPED(data, fn, params, args)				\
	typedef errcode_t (*fn##_fn) params;				\
	LJ_EXPORT errcode_t fn params					\
	{								\
		errcode_t err;						\
		int was;						\
		LJ_REAL(fn, fn##_fn);					\
		if (!real)						\
			return EXT2_ET_UNIMPLEMENTED;			\
		was = scope_enter(data);				\
		err = real args;					\
		scope_leave(was);					\
		return err;						\
	}

/* Data scopes. */
LJ_SCOPED(1, ext2fs_file_flush, (ext2_file_t file), (file))
LJ_SCOPED(1, ext2fs_file_set_size2, (ext2_file_t file, ext2_off64_t size),
	  (file, size))

/* fallocate: a data scope (the blocks it zeroes are file data). */
LJ_SCOPED(1, ext2fs_fallocate,
	  (ext2_filsys fs, int flags, ext2_ino_t ino, struct ext2_inode *inode,
	   blk64_t goal, blk64_t start, blk64_t len),
	  (fs, flags, ino, inode, goal, start, len))

/* Metadata scopes: mapping, allocation, inodes, xattrs, punching. */
LJ_SCOPED(0, ext2fs_bmap2,
	  (ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
	   char *block_buf, int bmap_flags, blk64_t block, int *ret_flags,
	   blk64_t *phys_blk),
	  (fs, ino, inode, block_buf, bmap_flags, block, ret_flags, phys_blk))
LJ_SCOPED(0, ext2fs_punch,
	  (ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
	   char *block_buf, blk64_t start, blk64_t end),
	  (fs, ino, inode, block_buf, start, end))
LJ_SCOPED(0, ext2fs_write_inode2,
	  (ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
	   int bufsize, int flags),
	  (fs, ino, inode, bufsize, flags))
LJ_SCOPED(0, ext2fs_write_inode_full,
	  (ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
	   int bufsize),
	  (fs, ino, inode, bufsize))
LJ_SCOPED(0, ext2fs_write_inode,
	  (ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode),
	  (fs, ino, inode))
LJ_SCOPED(0, ext2fs_write_new_inode,
	  (ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode),
	  (fs, ino, inode))
LJ_SCOPED(0, ext2fs_extent_replace,
	  (ext2_extent_handle_t handle, int flags,
	   struct ext2fs_extent *extent),
	  (handle, flags, extent))
LJ_SCOPED(0, ext2fs_extent_insert,
	  (ext2_extent_handle_t handle, int flags,
	   struct ext2fs_extent *extent),
	  (handle, flags, extent))
LJ_SCOPED(0, ext2fs_extent_delete, (ext2_extent_handle_t handle, int flags),
	  (handle, flags))
LJ_SCOPED(0, ext2fs_extent_set_bmap,
	  (ext2_extent_handle_t handle, blk64_t logical, blk64_t physical,
	   int flags),
	  (handle, logical, physical, flags))
LJ_SCOPED(0, ext2fs_extent_fix_parents, (ext2_extent_handle_t handle),
	  (handle))
LJ_SCOPED(0, ext2fs_write_ext_attr3,
	  (ext2_filsys fs, blk64_t block, void *buf, ext2_ino_t inum),
	  (fs, block, buf, inum))
LJ_SCOPED(0, ext2fs_xattrs_write, (struct ext2_xattr_handle *handle),
	  (handle))
LJ_SCOPED(0, ext2fs_inline_data_expand, (ext2_filsys fs, ext2_ino_t ino),
	  (fs, ino))

/* Blocks freed: the channel journals data written over them until the
 * next commit.  Blocks allocated: the channel writes them without
 * reading their old copy to compare (free space until the commit). */
typedef void (*stats2_fn)(ext2_filsys, blk64_t, int);
typedef void (*stats_range_fn)(ext2_filsys, blk64_t, blk_t, int);

static void note_alloc(ext2_filsys fs, blk64_t blk, blk64_t num, int inuse)
{
	io_channel io = writing_channel();

	if (io && fs == lj_view_fs())
		lj_lazy_note_stats(io, fs, blk, num, inuse);
}

/*
 * A block the allocator hands out is free in the running file system;
 * unless it was freed since the commit, it is free in the committed one
 * too.  libext2fs writes such a block before it counts it as allocated
 * (ext2fs_mkdir writes the new directory block, ext2fs_alloc_block3
 * zeroes the new block, then ext2fs_block_alloc_stats2), so the channel
 * hears of it here.  Only the file system's own bitmap counts.
 */
static void note_new(ext2_filsys fs, ext2fs_block_bitmap map, blk64_t blk,
		     blk64_t num)
{
	if (!map || (fs && map == fs->block_map))
		note_alloc(fs, blk, num, 1);
}

/*
 * fn(params) interposed: after the real allocator succeeds, the block it
 * returned in *ret is noted (note_new).  args repeats the parameter names.
 */
#define LJ_NEW_BLOCK(fn, params, args)				\
	typedef errcode_t (*fn##_fn) params;				\
	LJ_EXPORT errcode_t fn params					\
	{								\
		errcode_t err;						\
		LJ_REAL(fn, fn##_fn);					\
		if (!real)						\
			return EXT2_ET_UNIMPLEMENTED;			\
		err = real args;					\
		if (!err)						\
			note_new(fs, map, *ret, 1);			\
		return err;						\
	}

LJ_NEW_BLOCK(ext2fs_new_block3, (ext2_filsys fs, blk64_t goal,
	     ext2fs_block_bitmap map, blk64_t *ret, struct blk_alloc_ctx *ctx),
	     (fs, goal, map, ret, ctx))
LJ_NEW_BLOCK(ext2fs_new_block2, (ext2_filsys fs, blk64_t goal,
	     ext2fs_block_bitmap map, blk64_t *ret), (fs, goal, map, ret))
LJ_NEW_BLOCK(ext2fs_new_block, (ext2_filsys fs, blk_t goal,
	     ext2fs_block_bitmap map, blk_t *ret), (fs, goal, map, ret))

typedef errcode_t (*new_range_fn)(ext2_filsys, int, blk64_t, blk64_t,
				  ext2fs_block_bitmap, blk64_t *, blk64_t *);

LJ_EXPORT errcode_t ext2fs_new_range(ext2_filsys fs, int flags, blk64_t goal,
				     blk64_t len, ext2fs_block_bitmap map,
				     blk64_t *pblk, blk64_t *plen)
{
	errcode_t err;
	LJ_REAL(ext2fs_new_range, new_range_fn);

	if (!real)
		return EXT2_ET_UNIMPLEMENTED;
	err = real(fs, flags, goal, len, map, pblk, plen);
	if (!err && pblk && plen)
		note_new(fs, map, *pblk, *plen);
	return err;
}

LJ_EXPORT void ext2fs_block_alloc_stats2(ext2_filsys fs, blk64_t blk,
					 int inuse)
{
	LJ_REAL(ext2fs_block_alloc_stats2, stats2_fn);
	note_alloc(fs, blk, 1, inuse);
	if (real)
		real(fs, blk, inuse);
}

LJ_EXPORT void ext2fs_block_alloc_stats_range(ext2_filsys fs, blk64_t blk,
					      blk_t num, int inuse)
{
	LJ_REAL(ext2fs_block_alloc_stats_range, stats_range_fn);
	note_alloc(fs, blk, num, inuse);
	if (real)
		real(fs, blk, num, inuse);
}
