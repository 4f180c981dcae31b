/*
 * view_fs.c --- which file system the stock tool has open (LJ_VIEW=debugfs).
 *
 * Interposes ext2fs_open2, ext2fs_close* and ext2fs_free of the stock
 * binary (libext2fs calls them through the PLT too): our debugfs requests
 * and debugfs's request boundaries act on the file system opened through
 * the view.  In every mode, the io
 * options of the name (IMAGE?offset=N) are handed to the view, which must
 * apply them before it looks at the device.  debugfs -c
 * (EXT2_FLAG_IGNORE_SB_ERRORS) opens a lazy fs whose log cannot be read on
 * its home copies, with a warning.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <string.h>

#include "view.h"

static ext2_filsys open_fs;
static int open_failed;

ext2_filsys lj_view_fs(void)
{
	return open_fs;
}

int lj_view_open_failed(void)
{
	return open_failed;
}

typedef errcode_t (*open2_fn)(const char *, const char *, int, int,
			      unsigned int, io_manager, ext2_filsys *);

LJ_EXPORT errcode_t ext2fs_open2(const char *name, const char *io_options,
				 int flags, int superblock,
				 unsigned int block_size, io_manager manager,
				 ext2_filsys *ret_fs)
{
	const char *q = name ? strchr(name, '?') : NULL, *saved;
	errcode_t err;
	LJ_REAL(ext2fs_open2, open2_fn);

	if (!real)
		return EXT2_ET_UNIMPLEMENTED;
	/* the io options it applies after the open (as it reads them) */
	saved = lj_view_open_options(io_options ? io_options :
				     q ? q + 1 : NULL);
	if (lj_view_mode != LJ_VIEW_DEBUGFS || manager != &lj_view_manager) {
		err = real(name, io_options, flags, superblock, block_size,
			   manager, ret_fs);
		lj_view_open_options(saved);
		return err;
	}
	lj_view_tolerant = lj_view_mode == LJ_VIEW_DEBUGFS &&
			   (flags & EXT2_FLAG_IGNORE_SB_ERRORS);
	err = real(name, io_options, flags, superblock, block_size, manager,
		   ret_fs);
	lj_view_open_options(saved);
	lj_view_tolerant = 0;
	open_failed = err != 0;
	if (err)
		return err;
	open_fs = *ret_fs;
	return 0;
}

static void forget(ext2_filsys fs)
{
	if (fs && fs == open_fs)
		open_fs = NULL;
}

typedef errcode_t (*close2_fn)(ext2_filsys, int);
typedef errcode_t (*close_fn)(ext2_filsys);
typedef errcode_t (*close_free_fn)(ext2_filsys *);
typedef void (*free_fn)(ext2_filsys);

/* The real close's result, after stock mke2fs's hooks (view_mke2fs.c). */
static errcode_t closed(errcode_t err)
{
	lj_view_mke2fs_closed(err);
	return err;
}

LJ_EXPORT errcode_t ext2fs_close2(ext2_filsys fs, int flags)
{
	LJ_REAL(ext2fs_close2, close2_fn);
	forget(fs);
	lj_view_mke2fs_closing(fs);
	return closed(real ? real(fs, flags) : EXT2_ET_UNIMPLEMENTED);
}

LJ_EXPORT errcode_t ext2fs_close(ext2_filsys fs)
{
	LJ_REAL(ext2fs_close, close_fn);
	forget(fs);
	lj_view_mke2fs_closing(fs);
	return closed(real ? real(fs) : EXT2_ET_UNIMPLEMENTED);
}

LJ_EXPORT errcode_t ext2fs_close_free(ext2_filsys *fs)
{
	LJ_REAL(ext2fs_close_free, close_free_fn);
	if (fs) {
		forget(*fs);
		lj_view_mke2fs_closing(*fs);
	}
	return closed(real ? real(fs) : EXT2_ET_UNIMPLEMENTED);
}

LJ_EXPORT void ext2fs_free(ext2_filsys fs)
{
	LJ_REAL(ext2fs_free, free_fn);
	forget(fs);
	if (real)
		real(fs);
}
