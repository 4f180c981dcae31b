/*
 * debugfs.h --- shared state of our debugfs front-end.
 *
 * debugfs.c owns the shell (libss), opening/closing and forwarding of
 * requests we do not implement to the stock debugfs; jmap_cmds.c has the
 * journal commands (jmap, jlookup); inspect.c the read-only inspection
 * commands (stats, stat, ls, cat, dump, block_dump) which see metadata
 * through the jmap because current_fs sits on the lazy io channel;
 * modify.c the write requests (mkdir, write, rm, link, unlink, sif, ssv,
 * set_bg, ...), which on a lazy file system opened with -w journal their
 * changes through the same channel opened for writing.
 */
#ifndef LJ_DEBUGFS_H
#define LJ_DEBUGFS_H

#include <stdio.h>
#include <ext2fs/ext2fs.h>
#include "lazy_journal.h"

extern ext2_filsys current_fs;		/* NULL when no file system is open */
extern const char *debug_prog_name;	/* "debugfs" */

/* Print "<cmd>: Filesystem not open" and return 1 when none is open. */
int check_fs_open(const char *cmd);
/* Parse "<ino>" or a path (relative to root); 0 after printing an error. */
ext2_ino_t string_to_inode(const char *str);
/* Parse a block number; nonzero after printing an error. */
int strtoblk(const char *cmd, const char *str, blk64_t *ret);
/* Pager-less output stream for long listings (stdout). */
FILE *open_pager(void);
void close_pager(FILE *out);

/* Make the exit status nonzero (a lazy request failed). */
void lj_debugfs_failed(void);
/* Did the last open fail?  (Its error has been printed.) */
int lj_debugfs_open_failed(void);
/* Is the open file system lazy? */
int lj_debugfs_is_lazy(void);
/*
 * Inspection handlers call this first: on a file system without
 * lazy_journal the request is handed to stock debugfs (returns 1), so the
 * behaviour there is exactly the stock tool's.
 */
int lj_debugfs_forward_if_not_lazy(int argc, char **argv);
/* Hand a request to stock debugfs without the "sees home copies" note
 * (for requests that do not look at the file system, e.g. `ssv -l`). */
void lj_debugfs_forward_quiet(int argc, char **argv);
/* Does a request's option list (before the first operand) hold -opt? */
int lj_debugfs_has_option(int argc, char **argv, char opt);
/*
 * End of a write request on a lazy file system opened with -w: flush
 * (superblock, descriptors, bitmaps when dirty) and commit the running
 * transaction to the log.  Errors are reported against cmd.
 */
errcode_t lj_debugfs_commit(const char *cmd);

/* ss request handlers (signature fixed by libss) */
#define LJ_SS_ARGS int argc, char **argv, int sci_idx, void *infop
void do_open_filesys(LJ_SS_ARGS);
void do_close_filesys(LJ_SS_ARGS);
void do_jmap(LJ_SS_ARGS);
void do_jlookup(LJ_SS_ARGS);
void do_show_super_stats(LJ_SS_ARGS);
void do_stat(LJ_SS_ARGS);
void do_list_dir(LJ_SS_ARGS);
void do_cat(LJ_SS_ARGS);
void do_dump(LJ_SS_ARGS);
void do_block_dump(LJ_SS_ARGS);
void do_forward(LJ_SS_ARGS);
/* modify.c: write requests, native on a lazy fs opened with -w */
void do_mkdir(LJ_SS_ARGS);
void do_write(LJ_SS_ARGS);
void do_link(LJ_SS_ARGS);
void do_unlink(LJ_SS_ARGS);
void do_rm(LJ_SS_ARGS);
void do_rmdir(LJ_SS_ARGS);
void do_kill_file(LJ_SS_ARGS);
void do_set_super(LJ_SS_ARGS);
void do_set_inode(LJ_SS_ARGS);
void do_set_block_group(LJ_SS_ARGS);

#endif
