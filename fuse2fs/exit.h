/*
 * fuse2fs/exit.h --- the exit statuses of our fuse2fs, in one place.
 * They follow stock fuse2fs and mount(8): a bad command line is libfuse's
 * 1, a file system that cannot be opened stock's 2, a plain journal that
 * needs recovery on a read-only mount stock's 3, and a mount that could
 * not be made mount(8)'s "mount failure", 32.
 */
#ifndef FE_FUSE2FS_EXIT_H
#define FE_FUSE2FS_EXIT_H

#define FE_EXIT_USAGE		1
#define FE_EXIT_OPEN		2
#define FE_EXIT_RECOVERY	3
#define FE_EXIT_MOUNT		32

#endif
