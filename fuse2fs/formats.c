/*
 * fuse2fs/formats.c --- the on-disk features our server does not write as
 * the kernel's ext4 does: a read-write mount of a file system that has
 * one is refused before anything is opened for writing (one line naming
 * the feature, exit 32); -o ro serves it.  Everything else the kernel's
 * ext4 mounts read-write is served (tests/u_mount_formats, the format
 * matrix of doc/mount.md), but for two states a crash of the kernel's
 * ext4 leaves that only stock e2fsck (or the kernel) finishes: a journal
 * with fast commits to replay, and inodes in the orphan file.
 */
#include <stdio.h>

#include <ext2fs/ext2fs.h>

#include "checks.h"

struct fe_unserved {
	const char *name;		/* mke2fs -O's name */
	int (*has)(struct ext2_super_block *sb);
	const char *why;
};

static int has_casefold(struct ext2_super_block *sb)
{
	return ext2fs_has_feature_casefold(sb);
}

static int has_encrypt(struct ext2_super_block *sb)
{
	return ext2fs_has_feature_encrypt(sb);
}

static int has_verity(struct ext2_super_block *sb)
{
	return ext2fs_has_feature_verity(sb);
}

static int has_ea_inode(struct ext2_super_block *sb)
{
	return ext2fs_has_feature_ea_inode(sb);
}

static const struct fe_unserved unserved[] = {
	{ "casefold", has_casefold,
	  "names in +F directories are looked up case-sensitively" },
	{ "encrypt", has_encrypt,
	  "encrypted names and contents would be served without the key" },
	{ "verity", has_verity,
	  "verity files would be writable and their Merkle trees unchecked" },
	{ "ea_inode", has_ea_inode,
	  "values in xattr inodes are not charged to their file (i_blocks)" },
	{ NULL, NULL, NULL }
};

int fe_mount_unserved(const char *device, struct ext2_super_block *sb)
{
	const struct fe_unserved *u;

	for (u = unserved; u->name; u++)
		if (u->has(sb)) {
			fprintf(stderr, "fuse2fs: %s has the feature %s, which "
				"this fuse2fs does not write as ext4 does (%s); "
				"mount it -o ro\n", device, u->name, u->why);
			return FE_EXIT_MOUNT;
		}
	return 0;
}

/*
 * A crash of the kernel's ext4 can leave what the server would lose or
 * leave behind: fast commits (fsynced changes kept only in the journal's
 * fast-commit area, which our replay of the log home does not apply) and
 * inodes in the orphan file (open when unlinked; ext4 frees them at its
 * next mount, the server frees only those on the s_last_orphan list).
 * Stock e2fsck finishes both.  1 (after one line) when refused.
 */
int fe_mount_unrecovered(const char *device, struct ext2_super_block *sb)
{
	const char *what = NULL;

	if (ext2fs_has_feature_fast_commit(sb) &&
	    ext2fs_has_feature_journal(sb) &&
	    ext2fs_has_feature_journal_needs_recovery(sb))
		what = "a journal to recover that may hold fast commits, "
		       "which this fuse2fs does not replay";
	else if (ext2fs_has_feature_orphan_present(sb))
		what = "inodes in its orphan file (orphan_present), which this "
		       "fuse2fs does not free";
	if (!what)
		return 0;
	fprintf(stderr, "fuse2fs: %s has %s; run e2fsck -fy %s first\n",
		device, what, device);
	return 1;
}
