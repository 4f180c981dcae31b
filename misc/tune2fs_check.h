/*
 * tune2fs_check.h --- the whole tune2fs command line checked as stock
 * tune2fs 1.47 would check it, before our tune2fs writes anything
 * (migration, flag changes).  A typo gets stock's message and exit status.
 */
#ifndef FE_TUNE2FS_CHECK_H
#define FE_TUNE2FS_CHECK_H

#include "lazy_opts.h"

/*
 * What stock's own option parser says about argv: stock tune2fs is run
 * with the device operand replaced by a path that cannot exist
 * (/dev/null/...), so it stops at its parse or at its open, and writes
 * nothing either way.  Returns -1 when the parse passed (stock got to the
 * open), else stock's exit status, with its stdout and stderr passed on.
 */
int fe_tune2fs_stock_parse(int argc, char **argv, const char *device);

/*
 * The checks stock tune2fs makes only after opening the file system, on
 * their syntax alone: -o (mount options), -O (feature list, with stock's
 * settable/clearable sets), -E (every extended option and its value),
 * -U.  log_bs: the file system's s_log_block_size (for sizes in -E
 * orphan_file_size=).  orig are the arguments as the user gave them (lazy_journal tokens
 * still in the -O lists).  Prints stock's message and returns 1, or 0.
 */
int fe_tune2fs_check_values(const struct fe_args *orig, const char *argv0,
			    unsigned log_bs);

#endif
