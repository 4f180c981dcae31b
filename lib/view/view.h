/*
 * view.h --- inside the view object (lj_view.so), shared by its files.
 *
 * The object is preloaded into a stock e2fsprogs binary (LD_PRELOAD) and
 * replaces its unix_io_manager; see view.c for the environment contract.
 */
#ifndef LJ_VIEW_H
#define LJ_VIEW_H

#include "lazy_journal.h"

#define LJ_EXPORT __attribute__((visibility("default")))

/* In an interposed function: real, the next definition of fn (libext2fs's,
 * libss's), of function type type (dlfcn.h). */
#define LJ_REAL(fn, type) \
	static type real; \
	if (!real) \
		real = (type)dlsym(RTLD_NEXT, #fn)

enum lj_view_mode {
	LJ_VIEW_INERT,		/* not asked for: the real unix manager */
	LJ_VIEW_CURRENT,	/* current metadata, read-only */
	LJ_VIEW_MIGRATED,	/* as migration leaves it, read-only */
	LJ_VIEW_DEBUGFS,	/* current; -w journals; our requests */
	LJ_VIEW_REHEARSE,	/* as migration leaves it, lazy_journal kept;
				   every write kept in memory */
	LJ_VIEW_MKE2FS		/* stock mke2fs: the real unix manager; the
				   lazy journal's size and flag put in
				   (view_mke2fs.c) */
};

extern enum lj_view_mode lj_view_mode;
/* The view manager (what the process sees as unix_io_manager). */
extern struct struct_io_manager lj_view_manager;
/* Opens of a lazy fs whose log cannot be read show home copies (with a
 * warning) instead of failing: debugfs -c (catastrophic mode). */
extern int lj_view_tolerant;
/* A lazy open or one of our requests failed: exit status 1 at exit. */
void lj_view_failed(void);
/* Registered with atexit by the constructor: makes that status 1. */
void lj_view_exit(void);

/* The io options of the ext2fs_open2 in progress (view_fs.c's
 * interposer; NULL: none): set them, get the ones before back.  The next
 * device the view opens takes them. */
const char *lj_view_open_options(const char *opts);

/* view_rehearse.c: a file the rehearsal created, truncated or unlinked
 * (the view opens it as an empty overlay). */
int lj_view_rehearse_new_file(const char *path);

/* view_fs.c: the file system stock debugfs has open (or NULL). */
ext2_filsys lj_view_fs(void);
/* Did the last open of the session fail (stock said why)? */
int lj_view_open_failed(void);

/* view_mke2fs.c: LJ_MKE2FS from the environment; the last close of the
 * file system stock mke2fs made, before (flag set) and after (its
 * result). */
void lj_view_mke2fs_setup(int argc, char **argv);
void lj_view_mke2fs_closing(ext2_filsys fs);
void lj_view_mke2fs_closed(errcode_t err);

#endif
