/*
 * fuse2fs_checks.h --- what our fuse2fs checks and says before it mounts.
 */
#ifndef FE_FUSE2FS_CHECKS_H
#define FE_FUSE2FS_CHECKS_H

#include <stdio.h>

#include "fuse2fs_args.h"
#include "fuse2fs_exit.h"

/*
 * Before anything is opened for the mount: the mount point (exists, is a
 * directory), the device not already mounted (by the kernel, also
 * through a loop device, or by a fuse2fs), and for a user (not root) what
 * fusermount needs.  0 to go on, else the exit status, after one line
 * naming the cause and what to do next.
 */
int fe_mount_precheck(const struct fe_mount_args *a);

/* --help: the options we add, before stock's usage. */
void fe_mount_help(FILE *f);

/* The line that says how a read-write mount journals. */
void fe_mount_journal_line(const struct fe_mount_args *a, int lazy);

#endif
