/*
 * super_features.c --- flip feature bits in the home superblock and its
 * backups.
 *
 * Only the bits change.  Every copy is read, changed, given its checksum
 * and written back as it is, then one flush: no ext2fs_flush, which would
 * restamp s_wtime and s_kbytes_written and sync twice more.  The handle
 * comes from ext2fs_open2 (superblock only) for its checks and geometry,
 * and for MMP, which an open for writing takes and the release gives back.
 * Also the flags a copy of the superblock carries while the log is in use
 * (lj_sb_keep_flags).
 */
#include <stddef.h>
#include <string.h>

#include "lazy_journal.h"
#include "base_io.h"
#include "lj_private.h"

struct feature_change {
	__u32 compat_set, compat_clear, incompat_set, incompat_clear;
};

static void apply_change(struct ext2_super_block *sb,
			 const struct feature_change *c)
{
	sb->s_feature_compat |= c->compat_set;
	sb->s_feature_compat &= ~c->compat_clear;
	sb->s_feature_incompat |= c->incompat_set;
	sb->s_feature_incompat &= ~c->incompat_clear;
}

/*
 * The same bits in every backup superblock, nothing else: their other
 * fields stay as whoever wrote them last left them.
 */
static errcode_t change_backups(ext2_filsys fs, const struct feature_change *c)
{
	struct ext2_super_block *sb;
	errcode_t err = 0;
	dgrp_t g;

	err = ext2fs_get_mem(SUPERBLOCK_SIZE, &sb);
	if (err)
		return err;
	for (g = 1; g < fs->group_desc_count && !err; g++) {
		blk64_t super = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, NULL, NULL, NULL);
		if (!super)
			continue;
		err = io_channel_read_blk64(fs->io, super, -SUPERBLOCK_SIZE, sb);
		if (err || sb->s_magic != EXT2_SUPER_MAGIC)
			continue;	/* a damaged backup is e2fsck's job */
		apply_change(sb, c);
		ext2fs_superblock_csum_set(fs, sb);
		err = io_channel_write_blk64(fs->io, super, -SUPERBLOCK_SIZE, sb);
	}
	ext2fs_free_mem(&sb);
	return err;
}

/* The primary copy sits at byte 1024 whatever the block size. */
errcode_t lj_sb_write_primary(io_channel io, unsigned int bs, const void *sb)
{
	errcode_t err = io_channel_set_blksize(io, SUPERBLOCK_OFFSET);

	if (!err)
		err = io_channel_write_blk64(io, 1, -SUPERBLOCK_SIZE, sb);
	if (!err)
		err = io_channel_set_blksize(io, (int)bs);
	return err;
}

static errcode_t write_primary(ext2_filsys fs)
{
	ext2fs_superblock_csum_set(fs, fs->super);
	return lj_sb_write_primary(fs->io, fs->blocksize, fs->super);
}

errcode_t lj_open_super(const char *device, int flags, ext2_filsys *fs)
{
	if (flags & EXT2_FLAG_RW)	/* a writer owns the device (O_EXCL) */
		flags |= EXT2_FLAG_EXCLUSIVE;
	return ext2fs_open2(device, NULL, flags | EXT2_FLAG_64BITS |
			    EXT2_FLAG_SUPER_ONLY, 0, 0, lj_io_base(), fs);
}

errcode_t lj_check_if_mounted(const char *device, int *mount_flags)
{
	const char *q = strchr(device, '?');
	char *name;
	errcode_t err;

	*mount_flags = 0;
	if (!q)
		return ext2fs_check_if_mounted(device, mount_flags);
	err = ext2fs_get_mem((size_t)(q - device) + 1, &name);
	if (err)
		return err;
	memcpy(name, device, (size_t)(q - device));
	name[q - device] = '\0';
	err = ext2fs_check_if_mounted(name, mount_flags);
	ext2fs_free_mem(&name);
	return err;
}

errcode_t lj_change_features_close(ext2_filsys *fsp, int backups,
				   __u32 compat_set, __u32 compat_clear,
				   __u32 incompat_set, __u32 incompat_clear)
{
	struct feature_change c = { compat_set, compat_clear, incompat_set,
				    incompat_clear };
	ext2_filsys fs = *fsp;
	errcode_t err = 0;

	apply_change(fs->super, &c);
	if (backups)
		err = change_backups(fs, &c);
	if (!err)
		err = write_primary(fs);
	if (!err)
		err = io_channel_flush(fs->io);
	ext2fs_mmp_stop(fs);
	ext2fs_free(fs);
	*fsp = NULL;
	return err;
}

errcode_t lj_change_features(const char *device, int backups,
			     __u32 compat_set, __u32 compat_clear,
			     __u32 incompat_set, __u32 incompat_clear)
{
	ext2_filsys fs;
	errcode_t err = lj_open_super(device, EXT2_FLAG_RW, &fs);

	if (err)
		return err;
	return lj_change_features_close(&fs, backups, compat_set, compat_clear,
					incompat_set, incompat_clear);
}

errcode_t lj_set_lazy_flag(const char *device, int on)
{
	return on ? lj_change_features(device, 1, LJ_FEATURE_COMPAT_LAZY_JOURNAL,
				       0, 0, 0)
		  : lj_change_features(device, 1, 0,
				       LJ_FEATURE_COMPAT_LAZY_JOURNAL, 0, 0);
}

/*
 * doc/contract.md §3: while the log is live, the superblock has needs_recovery
 * (and lazy_journal on a lazy fs).  A copy of the superblock's block that
 * goes home or into the log gets them, with its checksum redone, so the
 * invariant holds at every step and every view agrees on the flags.
 */
void lj_sb_keep_flags(unsigned char *buf, unsigned int bs, blk64_t first,
		      size_t n, int lazy)
{
	blk64_t sb_blk = SUPERBLOCK_OFFSET / bs;
	struct ext2_super_block *sb;

	if (sb_blk < first || sb_blk >= first + n)
		return;
	sb = (struct ext2_super_block *)(buf + (sb_blk - first) * bs +
					 SUPERBLOCK_OFFSET % bs);
	if (sb->s_magic != EXT2_SUPER_MAGIC)
		return;		/* not a superblock: left as it is */
	ext2fs_set_feature_journal_needs_recovery(sb);
	if (lazy)
		sb->s_feature_compat |= LJ_FEATURE_COMPAT_LAZY_JOURNAL;
	lj_sb_csum_set(sb);
}

void lj_sb_csum_set(struct ext2_super_block *sb)
{
	if (ext2fs_has_feature_metadata_csum(sb))
		sb->s_checksum = ext2fs_crc32c_le(~0U, (unsigned char *)sb,
			offsetof(struct ext2_super_block, s_checksum));
}
