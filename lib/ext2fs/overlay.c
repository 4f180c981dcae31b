/*
 * overlay.c --- a sparse image of the current metadata, for e2fsck -n.
 *
 * The stock e2fsck cannot see through the jmap, so `e2fsck -n` on a lazy
 * file system gives it a stand-in: a sparse file as large as the device in
 * which every block that e2fsck reads holds its live copy (read through the
 * lazy channel, so the journal copy where one is mapped), the log is empty
 * and needs_recovery and lazy_journal are clear.  Regular-file data is not
 * copied: e2fsck never reads it, so it may read back as zeros.
 *
 * Two passes: mark every block to copy in a block-granular bitmap (so each
 * block is copied once, whatever points at it), then copy the marked runs
 * in ascending order.  All-zero blocks are left as holes: they read back
 * the same, and an uninitialised inode table costs no space.
 *
 * What e2fsck reads, and so what is marked:
 *  - per group: superblock copies, group descriptors and reserved GDT
 *    blocks (ext2fs_reserve_super_and_bgd knows flex_bg and meta_bg),
 *    both bitmaps, and the inode table as far as an inode scan reads it
 *    (with group descriptor checksums libext2fs, and so e2fsck, skips
 *    INODE_UNINIT groups and the bg_itable_unused tail);
 *  - per in-use inode: its xattr block; the mapping blocks (extent-tree
 *    index/leaf blocks, indirect blocks) of every inode with a block map;
 *    all blocks of directories, slow symlinks, EA inodes and of the
 *    resize, quota and orphan-file inodes;
 *  - the journal: its mapping blocks and its superblock.  The rest of the
 *    journal is not copied: in the overlay the log is empty, so no reader
 *    looks at it, and a lazy journal is large (gigabytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lazy_journal.h"
#include "jbd2_format.h"

#define MAX_RUN_BLOCKS	256	/* largest single read/write */
#define MAX_EXTENT_ERRS	64	/* extent-tree errors tolerated per inode */

/* Offsets in the ext4 superblock (little-endian on disk). */
#define SB_OFFSET		1024
#define SB_SIZE			1024
#define SB_MAGIC_OFF		0x38
#define SB_COMPAT_OFF		0x5C
#define SB_INCOMPAT_OFF		0x60
#define SB_RO_COMPAT_OFF	0x64
#define SB_CSUM_OFF		0x3FC

struct ovl {
	ext2_filsys fs;
	lj_lazy_state *st;
	ext2fs_block_bitmap marked;	/* blocks to copy */
	blk64_t first;			/* s_first_data_block: bitmap start */
	blk64_t nblocks;		/* blocks_count */
	ext2_ino_t journal_ino;		/* 0 without an internal journal */
};

/* ------------------------------------------------------------------ */
/* Marking                                                              */

static void mark_range(struct ovl *o, blk64_t blk, blk64_t n)
{
	/* Garbage pointers are e2fsck's business, not ours: drop them. */
	if (blk < o->first) {	/* 1k blocks: block 0 is not in the bitmap */
		if (n <= o->first - blk)
			return;
		n -= o->first - blk;
		blk = o->first;
	}
	if (!n || blk >= o->nblocks)
		return;
	if (n > o->nblocks - blk)
		n = o->nblocks - blk;
	ext2fs_mark_block_bitmap_range2(o->marked, blk, (unsigned int)n);
}

static void mark(struct ovl *o, blk64_t blk)
{
	if (blk && blk >= o->first && blk < o->nblocks)
		ext2fs_mark_block_bitmap2(o->marked, blk);
}

/* Inode-table blocks an inode scan of group g reads (see header). */
static blk64_t itable_blocks_read(ext2_filsys fs, dgrp_t g)
{
	blk64_t ipg = EXT2_INODES_PER_GROUP(fs->super);
	blk64_t isize = EXT2_INODE_SIZE(fs->super), unused;

	if (!ext2fs_has_group_desc_csum(fs))
		return fs->inode_blocks_per_group;
	if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
		return 0;
	unused = ext2fs_bg_itable_unused(fs, g);
	ipg = unused < ipg ? ipg - unused : 0;
	return (ipg * isize + fs->blocksize - 1) / fs->blocksize;
}

static void mark_group_metadata(struct ovl *o)
{
	ext2_filsys fs = o->fs;
	dgrp_t g;

	/* Block 0 on 4k (the superblock); on 1k it is the boot sector */
	mark_range(o, 0, 1);
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, o->marked);
		mark(o, ext2fs_block_bitmap_loc(fs, g));
		mark(o, ext2fs_inode_bitmap_loc(fs, g));
		mark_range(o, ext2fs_inode_table_loc(fs, g),
			   itable_blocks_read(fs, g));
	}
	if (ext2fs_has_feature_mmp(fs->super))
		mark(o, fs->super->s_mmp_block);
}

/* Inodes whose every block e2fsck reads. */
static int wants_all_blocks(struct ovl *o, ext2_ino_t ino,
			    const struct ext2_inode *inode)
{
	const struct ext2_super_block *sb = o->fs->super;

	return LINUX_S_ISDIR(inode->i_mode) || LINUX_S_ISLNK(inode->i_mode) ||
	       (inode->i_flags & EXT4_EA_INODE_FL) ||
	       ino == EXT2_RESIZE_INO || ino == sb->s_usr_quota_inum ||
	       ino == sb->s_grp_quota_inum || ino == sb->s_prj_quota_inum ||
	       ino == sb->s_orphan_file_inum;
}

/*
 * Walk an extent tree.  Index entries name the tree blocks; leaf extents
 * are data.  After an error (bad header, checksum) ext2fs_extent_get has
 * already counted the visit, so EXT2_EXTENT_NEXT moves on to the next
 * sibling: keep going, so one bad subtree does not hide the others.
 */
static void walk_extents(struct ovl *o, ext2_ino_t ino,
			 struct ext2_inode *inode, int all)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ex;
	int op = EXT2_EXTENT_ROOT, errs = 0;
	errcode_t err;

	if (ext2fs_extent_open2(o->fs, ino, inode, &h))
		return;
	for (;;) {
		err = ext2fs_extent_get(h, op, &ex);
		op = EXT2_EXTENT_NEXT;
		if (err == EXT2_ET_EXTENT_NO_NEXT ||
		    (err && ++errs > MAX_EXTENT_ERRS))
			break;
		if (err || (ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT))
			continue;
		if (!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			mark(o, ex.e_pblk);
		else if (all)
			mark_range(o, ex.e_pblk, ex.e_len);
	}
	ext2fs_extent_free(h);
}

struct walk_ctx {
	struct ovl *o;
	int all;
};

static int mark_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		      blk64_t ref_blk, int ref_offset, void *priv)
{
	struct walk_ctx *w = priv;

	(void)fs; (void)ref_blk; (void)ref_offset;
	/* blockcnt < 0: an indirect, double or triple indirect block */
	if (blockcnt < 0 || w->all)
		mark(w->o, *blocknr);
	return 0;
}

/* Indirect-mapped inode; block_iterate3 skips what it cannot read. */
static void walk_indirect(struct ovl *o, ext2_ino_t ino, int all)
{
	struct walk_ctx w = { o, all };

	(void)ext2fs_block_iterate3(o->fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				    mark_block, &w);
}

static int inode_in_use(struct ovl *o, ext2_ino_t ino,
			const struct ext2_inode *inode)
{
	if (ino < EXT2_FIRST_INODE(o->fs->super) || inode->i_links_count)
		return 1;
	/* unlinked but allocated: orphans, or an inconsistency to report */
	return o->fs->inode_map &&
	       ext2fs_fast_test_inode_bitmap2(o->fs->inode_map, ino);
}

static void mark_inode(struct ovl *o, ext2_ino_t ino, struct ext2_inode *inode)
{
	int special = ino == EXT2_BAD_INO || ino == EXT2_RESIZE_INO ||
		      ino == o->journal_ino;

	if (!inode_in_use(o, ino, inode))
		return;
	mark(o, ext2fs_file_acl_block(o->fs, inode));
	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return;
	/* Reserved inodes may lack a regular mode; e2fsck still maps them. */
	if (!special && !ext2fs_inode_has_valid_blocks2(o->fs, inode))
		return;
	if (inode->i_flags & EXT4_EXTENTS_FL)
		walk_extents(o, ino, inode, wants_all_blocks(o, ino, inode));
	else
		walk_indirect(o, ino, wants_all_blocks(o, ino, inode));
}

static errcode_t mark_inodes(struct ovl *o)
{
	ext2_filsys fs = o->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode *inode = malloc((size_t)isize);
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino;
	errcode_t err;

	if (!inode)
		return EXT2_ET_NO_MEMORY;
	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		goto out;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, inode, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE ||
		    err == EXT2_ET_INODE_CSUM_INVALID ||
		    err == EXT2_ET_INODE_IS_GARBAGE)
			err = 0;	/* the inode is still returned */
		if (err || !ino)
			break;
		mark_inode(o, ino, inode);
	}
out:
	if (scan)
		ext2fs_close_inode_scan(scan);
	free(inode);
	return err;
}

static void mark_journal_super(struct ovl *o)
{
	blk64_t pblk = 0;

	if (o->journal_ino &&
	    !ext2fs_bmap2(o->fs, o->journal_ino, NULL, NULL, 0, 0, NULL, &pblk))
		mark(o, pblk);
}

/*
 * Mark everything to copy.  Checksum errors must not stop the walk (the
 * overlay must show them to e2fsck), so they are ignored meanwhile; the
 * inode bitmap is read only for the walk.
 */
static errcode_t mark_all(struct ovl *o)
{
	ext2_filsys fs = o->fs;
	int saved_flags = fs->flags, had_imap = fs->inode_map != NULL;
	errcode_t err;

	err = lj_lazy_get_state(fs->io, &o->st);
	if (err)
		return err;
	o->first = fs->super->s_first_data_block;
	o->nblocks = ext2fs_blocks_count(fs->super);
	if (ext2fs_has_feature_journal(fs->super) &&
	    !ext2fs_has_feature_journal_dev(fs->super) &&
	    fs->super->s_journal_inum)
		o->journal_ino = fs->super->s_journal_inum;
	err = ext2fs_allocate_subcluster_bitmap(fs, "metadata overlay",
						&o->marked);
	if (err)
		return err;
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	if (!had_imap && ext2fs_read_inode_bitmap(fs) && fs->inode_map) {
		ext2fs_free_inode_bitmap(fs->inode_map);
		fs->inode_map = NULL;	/* links counts alone, then */
	}
	mark_group_metadata(o);
	mark_journal_super(o);
	err = mark_inodes(o);
	if (!had_imap && fs->inode_map) {
		ext2fs_free_inode_bitmap(fs->inode_map);
		fs->inode_map = NULL;
	}
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
		    (saved_flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
	return err;
}

static void ovl_free(struct ovl *o)
{
	if (o->marked)
		ext2fs_free_block_bitmap(o->marked);
	o->marked = NULL;
}

/* Call fn on every run of marked blocks, ascending. */
static errcode_t for_each_run(struct ovl *o,
			      errcode_t (*fn)(struct ovl *, blk64_t, blk64_t,
					      void *),
			      void *arg)
{
	blk64_t start = o->first, end = o->nblocks - 1, s, e;
	errcode_t err;

	while (start <= end) {
		err = ext2fs_find_first_set_block_bitmap2(o->marked, start,
							  end, &s);
		if (err == ENOENT)
			return 0;
		if (err)
			return err;
		err = ext2fs_find_first_zero_block_bitmap2(o->marked, s, end,
							   &e);
		if (err == ENOENT)
			e = end + 1;
		else if (err)
			return err;
		err = fn(o, s, e - s, arg);
		if (err)
			return err;
		start = e;
	}
	return 0;
}

static errcode_t count_run(struct ovl *o, blk64_t blk, blk64_t n, void *arg)
{
	(void)o; (void)blk;
	*(blk64_t *)arg += n;
	return 0;
}

errcode_t lj_overlay_estimate(ext2_filsys fs, blk64_t *blocks)
{
	struct ovl o = { .fs = fs };
	errcode_t err;

	*blocks = 0;
	err = mark_all(&o);
	if (!err)
		err = for_each_run(&o, count_run, blocks);
	ovl_free(&o);
	return err;
}

/* ------------------------------------------------------------------ */
/* Copying                                                              */

struct copier {
	int fd;
	unsigned char *buf;	/* MAX_RUN_BLOCKS blocks */
	blk64_t dev_blocks;	/* blocks the device (and overlay) holds */
	blk64_t written;
};

static errcode_t pwrite_all(int fd, const unsigned char *p, size_t len,
			    off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? (errcode_t)errno : EXT2_ET_SHORT_WRITE;
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

static int all_zero(const unsigned char *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/* Write buf's n blocks at blk, leaving all-zero blocks as holes. */
static errcode_t write_nonzero(struct copier *c, unsigned int bs, blk64_t blk,
			       blk64_t n)
{
	blk64_t i = 0;
	errcode_t err;

	while (i < n) {
		blk64_t k = 0;

		while (i < n && all_zero(c->buf + i * bs, bs))
			i++;
		while (i + k < n && !all_zero(c->buf + (i + k) * bs, bs))
			k++;
		if (!k)
			break;
		err = pwrite_all(c->fd, c->buf + i * bs, (size_t)(k * bs),
				 (off_t)((blk + i) * bs));
		if (err)
			return err;
		c->written += k;
		i += k;
	}
	return 0;
}

static errcode_t copy_run(struct ovl *o, blk64_t blk, blk64_t n, void *arg)
{
	struct copier *c = arg;
	unsigned int bs = o->fs->blocksize;
	errcode_t err;

	/* A device shorter than the fs: e2fsck will see (and say) so. */
	if (blk >= c->dev_blocks)
		return 0;
	if (n > c->dev_blocks - blk)
		n = c->dev_blocks - blk;
	while (n) {
		blk64_t k = n < MAX_RUN_BLOCKS ? n : MAX_RUN_BLOCKS;

		err = io_channel_read_blk64(o->fs->io, blk, (int)k, c->buf);
		if (!err)
			err = write_nonzero(c, bs, blk, k);
		if (err)
			return err;
		blk += k;
		n -= k;
	}
	return 0;
}

/*
 * Empty the log in the overlay's journal superblock as jbd2 does after
 * recovery: s_start = 0, s_sequence one past the last transaction it
 * would replay, checksum (csum v2/v3) over the 1024-byte superblock.
 */
static errcode_t reset_journal(struct ovl *o, int fd)
{
	lj_journal *j = o->st->journal;
	unsigned char sb[LJ_JSB_SIZE];
	off_t off = (off_t)lj_journal_pblk(j, 0) * o->fs->blocksize;

	if (pread(fd, sb, sizeof(sb), off) != (ssize_t)sizeof(sb))
		return EXT2_ET_SHORT_READ;
	if (lj_be32(sb + LJ_JSB_START) == 0)
		return 0;
	lj_put_be32(sb + LJ_JSB_START, 0);
	lj_put_be32(sb + LJ_JSB_SEQUENCE, o->st->jmap->log->end_tid + 1);
	if (lj_journal_csum_v23(j)) {
		lj_put_be32(sb + LJ_JSB_CHECKSUM, 0);
		lj_put_be32(sb + LJ_JSB_CHECKSUM,
			    ext2fs_crc32c_le(~0U, sb, LJ_JSB_SIZE));
	}
	return pwrite_all(fd, sb, sizeof(sb), off);
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/*
 * Clear feature bits in one superblock copy of the overlay.  Done on the
 * raw bytes rather than through ext2fs_open2/close: that would refuse (or,
 * told to ignore it, silently repair) a bad superblock checksum and bump
 * s_wtime, and e2fsck must see the copy as it is.  The checksum is
 * recomputed only where it was right before.
 */
static errcode_t clear_super_bits(int fd, off_t off, uint32_t compat,
				  uint32_t incompat)
{
	unsigned char sb[SB_SIZE];
	int csum, csum_ok;

	if (pread(fd, sb, sizeof(sb), off) != (ssize_t)sizeof(sb))
		return EXT2_ET_SHORT_READ;
	if (sb[SB_MAGIC_OFF] != 0x53 || sb[SB_MAGIC_OFF + 1] != 0xEF)
		return 0;		/* not a superblock: leave it to e2fsck */
	csum = (get_le32(sb + SB_RO_COMPAT_OFF) &
		EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) != 0;
	csum_ok = csum && ext2fs_crc32c_le(~0U, sb, SB_CSUM_OFF) ==
			  get_le32(sb + SB_CSUM_OFF);
	if (!(get_le32(sb + SB_COMPAT_OFF) & compat) &&
	    !(get_le32(sb + SB_INCOMPAT_OFF) & incompat))
		return 0;
	put_le32(sb + SB_COMPAT_OFF, get_le32(sb + SB_COMPAT_OFF) & ~compat);
	put_le32(sb + SB_INCOMPAT_OFF,
		 get_le32(sb + SB_INCOMPAT_OFF) & ~incompat);
	if (csum_ok)
		put_le32(sb + SB_CSUM_OFF,
			 ext2fs_crc32c_le(~0U, sb, SB_CSUM_OFF));
	return pwrite_all(fd, sb, sizeof(sb), off);
}

/*
 * The file system as migration leaves it: log empty, needs_recovery and
 * lazy_journal clear (lazy_journal also in the backups, where a stock
 * e2fsck falling back to a backup would refuse it).  A log that could not
 * be read is left as it is, needs_recovery included, for e2fsck to report.
 */
static errcode_t finish_overlay(struct ovl *o, struct copier *c)
{
	ext2_filsys fs = o->fs;
	int log_ok = o->st->journal && !o->st->journal_err;
	uint32_t incompat = log_ok ? EXT3_FEATURE_INCOMPAT_RECOVER : 0;
	errcode_t err = 0;
	dgrp_t g;

	if (log_ok)
		err = reset_journal(o, c->fd);
	if (!err)
		err = clear_super_bits(c->fd, SB_OFFSET,
				       LJ_FEATURE_COMPAT_LAZY_JOURNAL,
				       incompat);
	for (g = 1; !err && g < fs->group_desc_count; g++) {
		blk64_t blk = ext2fs_group_first_block2(fs, g);

		if (ext2fs_bg_has_super(fs, g) && blk < c->dev_blocks)
			err = clear_super_bits(c->fd,
					       (off_t)(blk * fs->blocksize),
					       LJ_FEATURE_COMPAT_LAZY_JOURNAL,
					       incompat);
	}
	return err;
}

static errcode_t device_blocks(ext2_filsys fs, blk64_t *ret)
{
	blk64_t n = 0;

	if (ext2fs_get_device_size2(fs->device_name, (int)fs->blocksize, &n) ||
	    n == 0)
		n = ext2fs_blocks_count(fs->super);
	*ret = n;
	return 0;
}

errcode_t lj_overlay_build(ext2_filsys fs, const char *path,
			   blk64_t *written)
{
	struct ovl o = { .fs = fs };
	struct copier c = { .fd = -1 };
	errcode_t err;

	*written = 0;
	err = mark_all(&o);
	if (!err)
		err = device_blocks(fs, &c.dev_blocks);
	if (!err) {
		c.buf = malloc((size_t)MAX_RUN_BLOCKS * fs->blocksize);
		if (!c.buf)
			err = EXT2_ET_NO_MEMORY;
	}
	if (err)
		goto out;
	c.fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (c.fd < 0) {
		err = (errcode_t)errno;
		goto out;
	}
	if (ftruncate(c.fd, (off_t)(c.dev_blocks * fs->blocksize)) < 0)
		err = (errcode_t)errno;
	if (!err)
		err = for_each_run(&o, copy_run, &c);
	if (!err)
		err = finish_overlay(&o, &c);
	if (close(c.fd) < 0 && !err)
		err = (errcode_t)errno;
	if (err)
		unlink(path);
	*written = c.written;
out:
	free(c.buf);
	ovl_free(&o);
	return err;
}
