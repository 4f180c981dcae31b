/*
 * fuse2fs/checks.h --- what our fuse2fs checks and says before it mounts.
 */
#ifndef FE_FUSE2FS_CHECKS_H
#define FE_FUSE2FS_CHECKS_H

#include <stdio.h>

#include "args.h"
#include "exit.h"

/*
 * Before anything is opened for the mount: the mount point (exists, is a
 * directory), the device not already mounted (by the kernel, also
 * through a loop device, or by a fuse2fs), and for a user (not root) what
 * fusermount needs.  0 to go on, else the exit status, after one line
 * naming the cause and what to do next.
 */
int fe_mount_precheck(const struct fe_mount_args *a);

struct ext2_super_block;

/*
 * A read-write mount of a file system with a feature the server does not
 * write as ext4 does (fuse2fs/formats.c): one line naming it, then
 * FE_EXIT_MOUNT; 0 when every feature is served.
 */
int fe_mount_unserved(const char *device, struct ext2_super_block *sb);

/*
 * A read-write mount of what a crash of the kernel's ext4 left for stock
 * e2fsck to finish (fast commits to replay, inodes in the orphan file):
 * 1 after one line saying to run e2fsck -fy first; else 0.
 */
int fe_mount_unrecovered(const char *device, struct ext2_super_block *sb);

/* What the device's primary superblock says, read once by the front-end
 * (fuse2fs/main.c) for its checks and for the server's open (all 0 when
 * it cannot be read: the server's open says why). */
struct fe_mount_probe {
	int lazy;		/* lazy_journal */
	int journal;		/* an internal journal (s_journal_inum) */
	int recover;		/* its log needs recovery (after any the
				 * front-end made: then 0) */
};

/* --help: the options we add, before stock's usage. */
void fe_mount_help(FILE *f);

/* The line that says how a read-write mount journals. */
void fe_mount_journal_line(const struct fe_mount_args *a, int lazy);

#endif
