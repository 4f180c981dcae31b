/*
 * fuse2fs/data.c --- file data, written by the server itself, told apart
 * from metadata by construction.
 *
 * Mapping and allocation go through libext2fs (ext2fs_bmap2, the extent
 * tree, the inode: metadata, journaled).  File data is written with
 * lj_lazy_write_data (home, ordered before the commit that makes it
 * reachable; journaled by the channel where the block was freed since the
 * last commit), contiguous blocks in one device request;
 * a partial block is read, merged and written whole.  Reads are coalesced
 * the same way; holes and unwritten extents read as zeros.  New data
 * blocks are taken as a range (ext2fs_new_range), written, then mapped
 * (set_map: a block-mapped file's indirect blocks allocated on the way).
 * On a bigalloc file system blocks are taken as ext4 takes them, by
 * clusters (place_run): the blocks of one logical cluster of a file lie
 * in one physical cluster, each at its offset in the logical one, and
 * i_blocks counts the clusters.
 * Holes in block-mapped files are punched by fuse2fs/ind.c.
 * Inline-data files go through libext2fs's file calls (their data lives
 * in the inode: metadata).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "server.h"

/* Is the request's caller allowed the reserved blocks (root, the
 * superblock's resuid or resgid)?  Set per writing request. */

void fs_set_privileged(fuse_req_t req)
{
	struct fs_server *srv = fs_srv_of(req);
	struct ext2_super_block *sb = srv->fs->super;
	const struct fuse_ctx *c = fuse_req_ctx(req);

	srv->cur.privileged = c->uid == 0 || c->uid == sb->s_def_resuid ||
		     fs_in_group(req, sb->s_def_resgid);
}

/* As ext4 counts them: 2% of the file system's clusters, at most 4096
 * clusters, on a file system with extents (none without). */
blk64_t fs_resv_blocks(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	blk64_t resv = EXT2FS_B2C(fs, ext2fs_blocks_count(fs->super)) / 50;

	if (!ext2fs_has_feature_extents(fs->super))
		return 0;
	return EXT2FS_C2B(fs, resv < 4096 ? resv : 4096);
}

/*
 * How many of want new blocks may be taken (0: ENOSPC), as ext4 counts:
 * the blocks kept for metadata (fs_resv_blocks) from everyone, the
 * reserved blocks from all but the privileged; whole clusters (want is).
 */
static blk64_t may_take(struct fs_server *srv, blk64_t want)
{
	ext2_filsys fs = srv->fs;
	blk64_t free = ext2fs_free_blocks_count(fs->super);
	blk64_t resv = fs_resv_blocks(srv);

	if (!srv->cur.privileged)
		resv += ext2fs_r_blocks_count(fs->super);
	if (free <= resv)
		return 0;
	if (free - resv < want)
		want = (free - resv) & ~(blk64_t)EXT2FS_CLUSTER_MASK(fs);
	return want;
}

/* File data of ino: through the journaling channel, home in one request
 * per run (lj_lazy_write_data); in place without a journal.  A change of
 * ino for its fsync: the next commit flushes it; for its fdatasync too
 * where the channel journals it (over a block freed since the last
 * commit), else a flush makes it durable. */
static errcode_t write_data(struct fs_server *srv, ext2_ino_t ino,
			    blk64_t pblk, blk64_t n, const void *buf)
{
	fs_commit_changed(srv, ino, srv->lazy &&
			  fs_commit_wants_data(srv, ino) &&
			  lj_lazy_data_journaled(srv->lazy, pblk, n));
	if (srv->lazy)
		return lj_lazy_write_data(srv->lazy, pblk, n, buf);
	return io_channel_write_blk64(srv->fs->io, pblk, (int)n, buf);
}

/* Map lblk: *pblk (0: a hole), *uninit. */
static errcode_t map(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		     blk64_t lblk,
		     blk64_t *pblk, int *uninit)
{
	int flags = 0;
	errcode_t err;

	*pblk = 0;
	err = ext2fs_bmap2(srv->fs, ino, FS_I(in), NULL, 0, lblk, &flags,
			   pblk);
	*uninit = (flags & BMAP_RET_UNINIT) != 0;
	return err;
}

/*
 * lblk mapped to pblk (flags: BMAP_UNINIT for an unwritten extent), by
 * libext2fs: an extent set in the tree, or an entry in the inode or an
 * indirect block.  The indirect, double- and triple-indirect blocks a
 * block-mapped file lacks are allocated (BMAP_ALLOC): through the
 * allocation hook (fuse2fs/commit.c), zeroed and written as metadata
 * (journaled: data mode is off here), counted in i_blocks by libext2fs.
 * New data blocks are counted by their allocator (place_run's fresh).
 */
static errcode_t set_map(struct fs_server *srv, ext2_ino_t ino,
			 struct fs_inode *in, blk64_t lblk,
			 blk64_t pblk, int flags)
{
	return ext2fs_bmap2(srv->fs, ino, FS_I(in), NULL,
			    BMAP_SET | BMAP_ALLOC | flags, lblk, NULL, &pblk);
}

/*
 * The run of blocks at lblk (at most max): *pblk the first's physical
 * block (0: a hole), *len how many follow contiguously alike, *uninit
 * unwritten.  Extent-mapped files in one tree walk (a hole skipped whole:
 * a sparse file reads at the speed of its data), others block by block.
 */
errcode_t fs_map_run(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		     blk64_t lblk,
			 blk64_t max, blk64_t *pblk, blk64_t *len, int *uninit)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	errcode_t err;

	*len = 1;
	if (!(in->i.i_flags & EXT4_EXTENTS_FL))
		return map(srv, ino, in, lblk, pblk, uninit);
	*pblk = 0;
	*uninit = 0;
	err = ext2fs_extent_open2(srv->fs, ino, FS_I(in), &h);
	if (err)
		return err;
	err = ext2fs_extent_goto2(h, 0, lblk);
	if (!err) {
		err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
		if (!err) {
			*pblk = e.e_pblk + (lblk - e.e_lblk);
			*len = e.e_lblk + e.e_len - lblk;
			*uninit = (e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) != 0;
		}
	} else if (err == EXT2_ET_EXTENT_NOT_FOUND ||
		   err == EXT2_ET_EXTENT_NO_NEXT) {
		/* a hole: up to the next extent */
		*len = max;
		err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
		while (!err && e.e_lblk <= lblk)
			err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF, &e);
		if (!err && e.e_lblk > lblk)
			*len = e.e_lblk - lblk;
		err = 0;
	}
	ext2fs_extent_free(h);
	if (*len > max)
		*len = max;
	if (!*len)
		*len = 1;
	return err;
}

/*
 * The physical block that lblk's logical cluster implies (*pblk, 0: none
 * of the cluster's blocks is mapped).  On bigalloc every block of a
 * logical cluster lies in the one physical cluster at its own offset:
 * a block written into a cluster the file already has takes its place
 * there, and no new cluster.
 */
static errcode_t cluster_home(struct fs_server *srv, ext2_ino_t ino,
			      struct fs_inode *in,
			      blk64_t lblk, blk64_t *pblk)
{
	blk64_t mask = EXT2FS_CLUSTER_MASK(srv->fs);
	blk64_t l = lblk & ~mask, end = l + mask + 1;
	errcode_t err = 0;

	*pblk = 0;
	while (mask && l < end && !err) {
		blk64_t p, len;
		int un;

		err = fs_map_run(srv, ino, in, l, end - l, &p, &len, &un);
		if (!err && p) {
			*pblk = p - (l & mask) + (lblk & mask);
			break;
		}
		l += len;
	}
	return err;
}

/*
 * Where the file's block lblk would go on from the one before it
 * (ext2fs_find_inode_goal answers the inode's group for a block past the
 * last extent), else where ext4 starts a file's data
 * (ext4_inode_to_goal_block): in flex groups of 4 or more groups, a
 * regular file's in the flex group's second group, the first kept for
 * directories (their blocks are searched from its start: libext2fs's
 * goal); else the inode's own group.
 */
static blk64_t data_goal(struct fs_server *srv, ext2_ino_t ino,
			 struct fs_inode *in, blk64_t lblk)
{
	ext2_filsys fs = srv->fs;
	unsigned int log_flex = fs->super->s_log_groups_per_flex;
	blk64_t p = 0, len;
	dgrp_t g = ext2fs_group_of_ino(fs, ino);
	int uninit;

	if (lblk && !fs_map_run(srv, ino, in, lblk - 1, 1, &p, &len,
				&uninit) && p)
		return p + 1;
	if (!(in->i.i_flags & EXT4_EXTENTS_FL) ||
	    !LINUX_S_ISREG(in->i.i_mode))
		return ext2fs_find_inode_goal(fs, ino, FS_I(in), lblk);
	if (ext2fs_has_feature_flex_bg(fs->super) && log_flex >= 2) {
		g &= ~((1U << log_flex) - 1);
		if (g + 1 < fs->group_desc_count)
			g++;
	}
	return ext2fs_group_first_block2(fs, g);
}

/*
 * Physical blocks for the hole [lblk, lblk+n): the first *p, *got (at
 * most n) of them in a row; *fresh clusters newly allocated, to be
 * counted in i_blocks (one block is one cluster without bigalloc).  In a
 * logical cluster the file has a physical cluster for, the blocks are
 * that cluster's; else whole clusters are taken, from a cluster's first
 * block (ext2fs_new_range on the cluster bitmap then answers whole
 * clusters, which ext2fs_block_alloc_stats_range counts right), stopping
 * before a last logical cluster that has its physical one.
 */
static errcode_t place_run(struct fs_server *srv, ext2_ino_t ino,
			   struct fs_inode *in, blk64_t lblk,
			   blk64_t n, blk64_t *p, blk64_t *got,
			   blk64_t *fresh)
{
	ext2_filsys fs = srv->fs;
	blk64_t mask = EXT2FS_CLUSTER_MASK(fs), coff = lblk & mask;
	blk64_t home = 0, goal, want, len = 0;
	errcode_t err = cluster_home(srv, ino, in, lblk, &home);

	*fresh = 0;
	if (!err && home) {
		*p = home;
		*got = n < mask + 1 - coff ? n : mask + 1 - coff;
		return 0;
	}
	if (!err && n > mask + 1 - coff && ((lblk + n) & mask)) {
		err = cluster_home(srv, ino, in, lblk + n - 1, &home);
		if (home)
			n = ((lblk + n) & ~mask) - lblk;
	}
	if (err)
		return err;
	want = may_take(srv, (coff + n + mask) & ~mask);
	if (!want)
		return EXT2_ET_BLOCK_ALLOC_FAIL;
	goal = fs_place_goal(srv, ino, lblk, want,
			     data_goal(srv, ino, in, lblk)) & ~mask;
	err = ext2fs_new_range(fs, 0, goal, want, NULL, p, &len);
	if (err)
		return err;
	if (len > want)
		len = want;
	fs_place_took(srv, lblk, *p, len);
	if ((*p & mask) || (len & mask))	/* never on a cluster bitmap */
		return EXT2_ET_BLOCK_ALLOC_FAIL;
	ext2fs_block_alloc_stats_range(fs, *p, (blk_t)len, +1);
	*fresh = EXT2FS_B2C(fs, len);
	*p += coff;
	*got = len - coff < n ? len - coff : n;
	return 0;
}

/*
 * The hole [lblk, lblk+n) of the file mapped, as written, to the
 * blocks [p, p+n).  An extent-mapped file gets
 * one tree update per run: the extent that ends at lblk - 1 is lengthened
 * when the run continues it on disk, else the run is inserted (as
 * extents of at most EXT_INIT_MAX_LEN blocks).  ext2fs_bmap2 would update
 * the tree, and checksum its leaf, once per block.  Block-mapped files
 * block by block (set_map).
 */
static errcode_t map_new_run(struct fs_server *srv, ext2_ino_t ino,
			     struct fs_inode *in,
			     blk64_t lblk, blk64_t p, blk64_t n)
{
	ext2_filsys fs = srv->fs;
	ext2_extent_handle_t h = NULL;
	errcode_t err = 0;
	blk64_t j;

	if (!(in->i.i_flags & EXT4_EXTENTS_FL)) {
		for (j = 0; j < n && !err; j++)
			err = set_map(srv, ino, in, lblk + j, p + j, 0);
		return err;
	}
	/* the handle works on in itself (its root is in i_block) */
	err = ext2fs_extent_open2(fs, ino, FS_I(in), &h);
	while (!err && n) {
		struct ext2fs_extent e, ne;
		blk64_t k = n < EXT_INIT_MAX_LEN ? n : EXT_INIT_MAX_LEN;
		int op = EXT2_EXTENT_INSERT_AFTER;

		/* the extent holding lblk - 1, or where lblk would go */
		err = ext2fs_extent_goto(h, lblk ? lblk - 1 : 0);
		if (!err || err == EXT2_ET_EXTENT_NOT_FOUND)
			err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
		if (err == EXT2_ET_NO_CURRENT_NODE) {	/* an empty tree */
			e.e_lblk = 0;
			e.e_len = 0;
			err = 0;
		}
		if (err)
			break;
		if (e.e_len && !(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) &&
		    e.e_lblk + e.e_len == lblk && e.e_pblk + e.e_len == p &&
		    e.e_len < EXT_INIT_MAX_LEN) {
			if (k > EXT_INIT_MAX_LEN - e.e_len)
				k = EXT_INIT_MAX_LEN - e.e_len;
			e.e_len += (__u32)k;
			err = ext2fs_extent_replace(h, 0, &e);
		} else {
			if (e.e_lblk > lblk)	/* before the first extent */
				op = 0;
			ne.e_lblk = lblk;
			ne.e_pblk = p;
			ne.e_len = (__u32)k;
			ne.e_flags = 0;
			err = ext2fs_extent_insert(h, op, &ne);
		}
		if (!err)
			err = ext2fs_extent_fix_parents(h);
		lblk += k;
		p += k;
		n -= k;
	}
	if (h)
		ext2fs_extent_free(h);
	return err;
}

/* Read [lblk, lblk+n) of the file into buf: each run in one read, holes
 * and unwritten blocks zeros. */
errcode_t fs_read_blocks(struct fs_server *srv, ext2_ino_t ino,
			 struct fs_inode *in,
			     blk64_t lblk, blk64_t n, unsigned char *buf)
{
	ext2_filsys fs = srv->fs;
	blk64_t i = 0;
	errcode_t err = 0;

	while (i < n && !err) {
		blk64_t p, len;
		int un;

		err = fs_map_run(srv, ino, in, lblk + i, n - i, &p, &len, &un);
		if (err)
			break;
		if (!p || un)
			memset(buf + i * fs->blocksize, 0, len * fs->blocksize);
		else
			err = io_channel_read_blk64(fs->io, p, (int)len,
						    buf + i * fs->blocksize);
		i += len;
	}
	return err;
}

/*
 * Write n whole blocks from buf at lblk: mapped blocks in place, holes
 * and unwritten blocks on new (or converted) blocks.
 */
static errcode_t write_blocks(struct fs_server *srv, ext2_ino_t ino,
			      struct fs_inode *in,
			      blk64_t lblk, blk64_t n,
			      const unsigned char *buf, blk64_t *done)
{
	ext2_filsys fs = srv->fs;
	blk64_t i = 0;
	errcode_t err = 0;

	while (i < n && !err) {
		blk64_t p, j, got = 0, fresh;
		int un;

		err = fs_map_run(srv, ino, in, lblk + i, n - i, &p, &j, &un);
		if (err)
			break;
		if (!p || un)	/* mapped anew: for its fdatasync */
			fs_commit_changed(srv, ino, 1);
		if (p) {	/* a run of mapped blocks */
			err = write_data(srv, ino, p, j,
					 buf + i * fs->blocksize);
			if (!err && un) {	/* now written */
				blk64_t k;

				for (k = 0; k < j && !err; k++)
					err = set_map(srv, ino, in,
						      lblk + i + k,
						      p + k, 0);
			}
			i += j;
			continue;
		}
		/* a run of holes: new blocks, as many in a row as can be */
		err = place_run(srv, ino, in, lblk + i, j, &p, &got, &fresh);
		if (err)
			break;
		err = ext2fs_iblk_add_blocks(fs, FS_I(in), fresh);
		if (!err)
			err = write_data(srv, ino, p, got,
					 buf + i * fs->blocksize);
		if (!err)
			err = map_new_run(srv, ino, in, lblk + i, p, got);
		i += got;
	}
	*done = i;
	return err;
}

/* Bytes [off, off+len) of the file from src (NULL: zeros), partial end
 * blocks merged with what they hold. */
static errcode_t write_bytes(struct fs_server *srv, ext2_ino_t ino,
			     struct fs_inode *in,
			     uint64_t off, size_t len, const char *src,
			     size_t *written)
{
	ext2_filsys fs = srv->fs;
	unsigned int bs = fs->blocksize;
	blk64_t first = off / bs, last = (off + len - 1) / bs;
	blk64_t n = last - first + 1;
	unsigned char *buf;
	errcode_t err = 0;
	size_t head = off % bs;
	blk64_t done = 0;

	if (written)
		*written = 0;
	if (!len)
		return 0;
	buf = malloc(n * bs);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	if (head)
		err = fs_read_blocks(srv, ino, in, first, 1, buf);
	if (!err && ((off + len) % bs) && (last != first || !head))
		err = fs_read_blocks(srv, ino, in, last, 1, buf + (n - 1) * bs);
	if (!err) {
		if (src)
			memcpy(buf + head, src, len);
		else
			memset(buf + head, 0, len);
		err = write_blocks(srv, ino, in, first, n, buf, &done);
		/* ENOSPC part way: the whole blocks written count */
		if (written && done * bs > head)
			*written = done * bs - head < len ? done * bs - head :
				   len;
		if (written && !err)
			*written = len;
	}
	free(buf);
	return err;
}

static int inline_data(const struct fs_inode *in)
{
	return (in->i.i_flags & EXT4_INLINE_DATA_FL) != 0;
}

/* Inline data: libext2fs's file calls (it moves the data out when it
 * grows past the inode). */
static int file_io(struct fs_server *srv, ext2_ino_t ino, char *buf,
		   size_t size, off_t off,
		   int write, size_t *done)
{
	ext2_file_t f;
	unsigned int got = 0;
	errcode_t err = ext2fs_file_open(srv->fs, ino,
					 write ? EXT2_FILE_WRITE : 0, &f);

	if (err)
		return -fs_errno(srv, err);
	err = ext2fs_file_llseek(f, (__u64)off, EXT2_SEEK_SET, NULL);
	if (!err && write)
		err = ext2fs_file_write(f, buf, (unsigned int)size, &got);
	else if (!err)
		err = ext2fs_file_read(f, buf, (unsigned int)size, &got);
	if (!err)
		err = ext2fs_file_close(f);
	else
		ext2fs_file_close(f);
	*done = got;
	return -fs_errno(srv, err);
}

/*
 * A write into an inline-data file: the whole content, merged in memory,
 * written from offset 0.  libext2fs 1.47.0 copies nbytes - pos bytes
 * when it writes inline data at a position before the end (an unsigned
 * wrap, and a crash, for a short write past the start): from 0 it copies
 * what it is given.
 */
static int inline_write(struct fs_server *srv, ext2_ino_t ino,
			const struct fs_inode *in,
			const char *buf, size_t size, uint64_t off,
			size_t *done)
{
	uint64_t old = EXT2_I_SIZE(FS_I(in));
	size_t len = (size_t)(off + size > old ? off + size : old), got = 0;
	char *all = calloc(1, len ? len : 1);
	int ret = 0;

	*done = 0;
	if (!all)
		return -ENOMEM;
	if (old)
		ret = file_io(srv, ino, all, (size_t)old, 0, 0, &got);
	if (!ret) {
		memcpy(all + off, buf, size);
		ret = file_io(srv, ino, all, len, 0, 1, &got);
	}
	if (!ret && got == len)
		*done = size;
	else if (!ret)
		ret = -ENOSPC;
	free(all);
	return ret;
}

int fs_truncate(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		uint64_t size)
{
	ext2_filsys fs = srv->fs;
	unsigned int bs = fs->blocksize;
	uint64_t old = EXT2_I_SIZE(FS_I(in));
	blk64_t from = (size + bs - 1) / bs;
	errcode_t err = 0;

	if (inline_data(in)) {
		ext2_file_t f;

		err = ext2fs_file_open(fs, ino, EXT2_FILE_WRITE, &f);
		if (!err) {
			err = ext2fs_file_set_size2(f, size);
			ext2fs_file_close(f);
		}
		if (!err)
			err = -fs_read_inode(srv, ino, in);	/* an errno */
		if (!err && size != old)
			fs_set_times(srv, in, FS_T_M | FS_T_C, NULL);
		return err ? -fs_errno(srv, err) : fs_write_inode(srv, ino, in);
	}
	if (size < old) {
		if (size % bs) {	/* the tail of the last block zeroed */
			blk64_t p;
			int un;

			err = map(srv, ino, in, size / bs, &p, &un);
			if (!err && p && !un)
				err = write_bytes(srv, ino, in, size,
						  bs - size % bs, NULL, NULL);
		}
		if (!err)
			err = fs_punch(srv, ino, in, from, ~0ULL);
	} else if (size > old && old % bs) {
		/* blocks past the old end may hold stale bytes: none do,
		 * ext4 zeroes a block's tail when it is written */
	}
	if (err)
		return -fs_errno(srv, err);
	err = ext2fs_inode_size_set(fs, FS_I(in), size);
	if (err)
		return -fs_errno(srv, err);
	if (size != old)
		fs_set_times(srv, in, FS_T_M | FS_T_C, NULL);
	return fs_write_inode(srv, ino, in);
}

int fs_file_read(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		 uint64_t off,
		 size_t size, unsigned char **ret_buf, size_t *ret_len)
{
	ext2_filsys fs = srv->fs;
	uint64_t fsize = EXT2_I_SIZE(FS_I(in)), end = off + size;
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret = 0;

	if (end > fsize || end < off)
		end = fsize;
	if (off < end) {
		unsigned int bs = fs->blocksize;
		blk64_t first = off / bs, last = (end - 1) / bs;

		len = (size_t)(end - off);
		buf = malloc((last - first + 1) * bs);
		if (!buf)
			ret = -ENOMEM;
		else if (inline_data(in))
			ret = file_io(srv, ino, (char *)buf, len, (off_t)off, 0,
				      &len);
		else
			ret = -fs_errno(srv, fs_read_blocks(srv, ino, in, first,
							    last - first + 1,
							    buf));
		if (!ret && !inline_data(in) && off % bs)
			memmove(buf, buf + off % bs, len);
	}
	if (ret) {
		free(buf);
		buf = NULL;
		len = 0;
	}
	*ret_buf = buf;
	*ret_len = len;
	return ret;
}

/*
 * A READ whose bytes lie in one run of blocks stored at home (file data,
 * as a streaming read finds it) is answered by the kernel from the
 * device's own pages: libfuse splices them from the device into a pipe
 * and from the pipe into the answer (under two pages it reads them into
 * memory).  The bytes are not copied into the daemon and out again (a
 * pread and a writev through /dev/fuse: two copies of every page and the
 * pinning of the daemon's buffer, 45% of the daemon's samples in a
 * streaming read).  Blocks in the log or in the running transaction (data written over
 * blocks freed since the last commit), holes and unwritten blocks are
 * read as before.  The caller holds the request lock until the answer
 * is sent, so no write comes between the check and the read.
 */
int fs_file_read_spliced(fuse_req_t req, ext2_ino_t ino, struct fs_inode *in,
			 uint64_t off, size_t size)
{
	struct fs_server *srv = fs_srv_of(req);
	unsigned int bs = srv->fs->blocksize;
	uint64_t fsize = EXT2_I_SIZE(FS_I(in)), end = off + size, pos;
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(0);
	blk64_t first, n, p, len;
	int fd, un;

	if (end > fsize || end < off)
		end = fsize;
	if (off >= end || inline_data(in))
		return 0;
	first = off / bs;
	n = (end - 1) / bs - first + 1;
	if (fs_map_run(srv, ino, in, first, n, &p, &len, &un) || !p || un ||
	    len < n || lj_lazy_home_extent(srv->fs->io, p, n, &fd, &pos) < n)
		return 0;
	bv.buf[0].size = (size_t)(end - off);
	bv.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	bv.buf[0].fd = fd;
	bv.buf[0].pos = (off_t)(pos + off % bs);
	fuse_reply_data(req, &bv, 0);
	return 1;
}

int fs_file_write(fuse_req_t req, ext2_ino_t ino, struct fs_inode *in,
		  const char *buf, size_t size, uint64_t off, size_t *ret_done)
{
	struct fs_server *srv = fs_srv_of(req);
	uint64_t max = fs_max_size(srv, in);
	size_t done = size;
	int ret = 0;

	fs_set_privileged(req);
	ret = fs_fixed(in, 0);
	if (!ret && off >= max && size)
		ret = -EFBIG;
	if (!ret && size > max - off)
		size = done = (size_t)(max - off);
	if (!ret && size && inline_data(in)) {
		ret = inline_write(srv, ino, in, buf, size, off, &done);
		if (!ret)
			ret = fs_read_inode(srv, ino, in);
	} else if (!ret && size) {
		ret = -fs_errno(srv, write_bytes(srv, ino, in, off, size, buf,
						 &done));
		if (ret && done)	/* a short write: what was written */
			ret = 0;
		if (!ret && off + done > EXT2_I_SIZE(FS_I(in)))
			ret = -fs_errno(srv, ext2fs_inode_size_set(srv->fs,
					FS_I(in), off + done));
	}
	if (!ret) {
		fs_set_times(srv, in, FS_T_M | FS_T_C, NULL);
		ret = fs_write_inode(srv, ino, in);
	}
	*ret_done = ret ? 0 : done;
	return ret;
}

int fs_write_is_sync(struct fs_server *srv, int open_flags,
		     const struct fs_inode *in)
{
	return (open_flags & (O_SYNC | O_DSYNC)) || fs_inode_sync(srv, in);
}

/* ------------------------------------------------------------------ */
/* fallocate                                                          */

/* New blocks for the holes of [lblk, lblk+n): written with zeros and
 * mapped as written below end (the file's size in blocks), unwritten
 * past it (e2fsck wants no written block past the size). */
#define FS_ZERO_RUN	256	/* blocks of zeros written at a time */

static errcode_t allocate(struct fs_server *srv, ext2_ino_t ino,
			  struct fs_inode *in, blk64_t lblk,
			  blk64_t n, blk64_t end, blk64_t *done)
{
	ext2_filsys fs = srv->fs;
	unsigned char *zero = NULL;
	blk64_t i = 0;
	errcode_t err = 0;

	*done = 0;
	while (i < n && !err) {
		blk64_t p, got = 0, j, fresh, want;
		int un;

		err = fs_map_run(srv, ino, in, lblk + i, n - i, &p, &want, &un);
		if (err)
			break;
		if (p) {
			i += want;
			continue;
		}
		if (want > FS_ZERO_RUN)
			want = FS_ZERO_RUN;
		err = place_run(srv, ino, in, lblk + i, want, &p, &got, &fresh);
		if (!err)
			err = ext2fs_iblk_add_blocks(fs, FS_I(in), fresh);
		if (err)
			break;
		if (lblk + i < end) {	/* the zeros, in one write */
			blk64_t k = end - (lblk + i) < got ? end - (lblk + i) :
				    got;

			if (!zero && !(zero = calloc(FS_ZERO_RUN,
						     fs->blocksize)))
				err = EXT2_ET_NO_MEMORY;
			if (!err)
				err = write_data(srv, ino, p, k, zero);
		}
		for (j = 0; j < got && !err; j++) {
			blk64_t l = lblk + i + j;

			err = set_map(srv, ino, in, l, p + j,
				      l < end ? 0 : BMAP_UNINIT);
		}
		i += got;
		*done = i;
	}
	free(zero);
	return err;
}

/* Bytes [off, off+len) within one block zeroed where the block is
 * written (a hole or unwritten block reads as zeros already). */
static errcode_t zero_part(struct fs_server *srv, ext2_ino_t ino,
			   struct fs_inode *in, uint64_t off,
			   uint64_t len)
{
	blk64_t p;
	int un;
	errcode_t err;

	if (!len)
		return 0;
	err = map(srv, ino, in, off / srv->fs->blocksize, &p, &un);
	if (err || !p || un)
		return err;
	return write_bytes(srv, ino, in, off, (size_t)len, NULL, NULL);
}

static int block_mapped(const struct fs_inode *in)
{
	return !(in->i.i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL));
}

/* Blocks [first, end) of a block-mapped file of size bytes punched, the
 * range ending where ext4 ends it: at the page holding the end of the
 * file (an indirect block past it stays when the range does not cover
 * it whole). */
static errcode_t punch_ind(struct fs_server *srv, struct fs_inode *in,
			   blk64_t first, blk64_t end,
			   uint64_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	blk64_t last = (size + page - 1) / page * page / srv->fs->blocksize;

	if (end > last)
		end = last;
	return first < end ? fs_punch_ind(srv, in, first, end - 1) : 0;
}

/* The vfs's limit for fallocate (the super block's s_maxbytes): an
 * extent-mapped file's largest size, whatever the file's mapping. */
static uint64_t vfs_max_size(struct fs_server *srv)
{
	struct fs_inode x = { .i = { .i_flags = EXT4_EXTENTS_FL } };

	return fs_max_size(srv, &x);
}

int fs_fallocate(struct fs_server *srv, ext2_ino_t ino, int mode, uint64_t off,
		 uint64_t len)
{
	ext2_filsys fs = srv->fs;
	unsigned int bs = fs->blocksize;
	struct fs_inode in;
	uint64_t end = off + len, size, newsize;
	blk64_t first_full, end_full, endblk, done = 0;
	errcode_t err = 0;
	int ret = fs_read_inode(srv, ino, &in);

	if (ret)
		return ret;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
		     FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	ret = fs_fixed(&in, !!(mode & ~FALLOC_FL_KEEP_SIZE));
	if (ret)
		return ret;
	if (!LINUX_S_ISREG(in.i.i_mode))
		return LINUX_S_ISDIR(in.i.i_mode) ? -EISDIR : -ENODEV;
	if (inline_data(&in))
		return -EOPNOTSUPP;
	if (off > UINT64_MAX - len || end > vfs_max_size(srv))
		return -EFBIG;
	/* ext4 punches holes in any file, but allocates (and zeroes a
	 * range as unwritten) in extent-mapped files only; it marks the
	 * file modified (mtime, ctime) before it finds it block-mapped */
	if (block_mapped(&in) && !(mode & FALLOC_FL_PUNCH_HOLE)) {
		fs_set_times(srv, &in, FS_T_M | FS_T_C, NULL);
		ret = fs_write_inode(srv, ino, &in);
		return ret ? ret : -EOPNOTSUPP;
	}
	size = EXT2_I_SIZE(FS_I(&in));
	first_full = (off + bs - 1) / bs;
	end_full = end / bs;
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		uint64_t zend = mode & FALLOC_FL_PUNCH_HOLE && end > size ?
				size : end;

		if (off < zend) {
			if (first_full > end_full) {	/* inside one block */
				err = zero_part(srv, ino, &in, off, zend - off);
			} else {
				uint64_t hend = first_full * bs;

				err = zero_part(srv, ino, &in, off,
						(hend < zend ? hend : zend) -
						off);
				if (!err && end_full * bs < zend)
					err = zero_part(srv, ino, &in,
							end_full * bs,
							zend - end_full * bs);
			}
		}
		if (!err && first_full < end_full && !block_mapped(&in))
			err = fs_punch(srv, ino, &in, first_full,
				       end_full - 1);
		else if (!err && first_full < end_full)
			err = punch_ind(srv, &in, first_full, end_full, size);
		if (err)
			return -fs_errno(srv, err);
		if (mode & FALLOC_FL_PUNCH_HOLE) {
			fs_set_times(srv, &in, FS_T_M | FS_T_C, NULL);
			return fs_write_inode(srv, ino, &in);
		}
	}
	/* allocate (mode 0, KEEP_SIZE, ZERO_RANGE); the size grows with
	 * what was allocated, as ext4's (so also on ENOSPC) */
	newsize = !(mode & FALLOC_FL_KEEP_SIZE) && end > size ? end : size;
	endblk = (newsize + bs - 1) / bs;
	err = allocate(srv, ino, &in, off / bs, (end + bs - 1) / bs - off / bs,
		       endblk, &done);
	if (newsize > size) {
		uint64_t got = (off / bs + done) * bs;

		if (err && got < newsize)
			newsize = got > size ? got : size;
		if (err && newsize > size)	/* no written block past it */
			fs_punch(srv, ino, &in, (newsize + bs - 1) / bs,
				 ~0ULL);
		if (ext2fs_inode_size_set(fs, FS_I(&in), newsize) && !err)
			err = EXT2_ET_FILE_TOO_BIG;
	}
	/* ext4 changes mtime and ctime with each piece allocated: also on
	 * ENOSPC after a first piece, not when none was */
	if (!err || done)
		fs_set_times(srv, &in, FS_T_M | FS_T_C, NULL);
	ret = fs_write_inode(srv, ino, &in);
	return err ? -fs_errno(srv, err) : ret;
}
