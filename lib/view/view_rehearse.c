/*
 * view_rehearse.c --- what a stock tool does beside its io channel, kept
 * from the disk while it rehearses (LJ_VIEW=rehearse, view.c).
 *
 * Under the rehearse view every channel the tool opens is an overlay
 * (overlay_io.c): writes stay in memory.  strace of stock tune2fs 1.47 on
 * every kind of operation shows what else it does to files:
 *
 *  - the undo file (-z FILE; with -I, E2FSPROGS_UNDO_DIR's
 *    tune2fs-DEV.e2undo, after unlinking the old one): libext2fs' undo
 *    manager creates it with ext2fs_open_file(O_CREAT) and then opens it
 *    through unix_io_manager, i.e. the view.  Here a file the rehearsal
 *    creates, truncates or unlinks is only remembered: the open answers
 *    with an empty memory file, and the view opens it as an overlay over
 *    nothing (lj_view_rehearse_new_file).
 *  - MMP: ext2fs_mmp_read reads the MMP block with its own descriptor
 *    (read-only, O_DIRECT), past the channel; after the rehearsal wrote
 *    that block (into memory) it is read back through the channel.
 *  - mount checks (/proc/mounts, /proc/swaps, an O_EXCL open of a block
 *    device): reads only.  The label and UUID ioctls of a mounted file
 *    system: never rehearsed (our tune2fs hands a mounted fs to stock).
 *
 * Outside the rehearse mode every entry point here is libext2fs' or
 * libc's own (dlsym RTLD_NEXT).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "view.h"
#include "lj_private.h"

#define REAL(fn, type) \
	static type real; \
	if (!real) \
		real = (type)dlsym(RTLD_NEXT, #fn)

/* Paths the rehearsal created, truncated or unlinked: empty from then on. */
#define MAX_NEW_FILES 16
static char *new_files[MAX_NEW_FILES];

int lj_view_rehearse_new_file(const char *path)
{
	int i;

	for (i = 0; i < MAX_NEW_FILES && new_files[i]; i++)
		if (!strcmp(new_files[i], path))
			return 1;
	return 0;
}

static int remember(const char *path)
{
	int i;

	if (lj_view_rehearse_new_file(path))
		return 0;
	for (i = 0; i < MAX_NEW_FILES && new_files[i]; i++)
		;
	if (i == MAX_NEW_FILES || !(new_files[i] = strdup(path))) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static int exists(const char *path)
{
	return !lj_view_rehearse_new_file(path) && access(path, F_OK) == 0;
}

typedef int (*open_file_fn)(const char *, int, mode_t);

/*
 * libext2fs' one door to open(2) (unix_io.c, undo_io.c).  Rehearsing, a
 * request to write is answered read-only, and one that would create or
 * truncate the file with an empty file in memory.
 */
LJ_EXPORT int ext2fs_open_file(const char *path, int flags, mode_t mode)
{
	REAL(ext2fs_open_file, open_file_fn);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (lj_view_mode != LJ_VIEW_REHEARSE ||
	    !(flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)))
		return real(path, flags, mode);
	if (exists(path) && !(flags & O_TRUNC)) {
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			errno = EEXIST;
			return -1;
		}
		return real(path, flags & ~(O_ACCMODE | O_CREAT | O_EXCL),
			    mode);
	}
	if (!(flags & O_CREAT) && !exists(path)) {
		errno = ENOENT;
		return -1;
	}
	if (remember(path))
		return -1;
	return memfd_create("lj-rehearse", MFD_CLOEXEC);
}

typedef int (*unlink_fn)(const char *);

/* tune2fs removes the old default undo file before it makes a new one. */
LJ_EXPORT int unlink(const char *path)
{
	REAL(unlink, unlink_fn);
	if (lj_view_mode != LJ_VIEW_REHEARSE) {
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
		return real(path);
	}
	if (!exists(path)) {
		errno = ENOENT;
		return -1;
	}
	return remember(path);
}

typedef errcode_t (*mmp_read_fn)(ext2_filsys, blk64_t, void *);

/*
 * The MMP block: stock's own fresh read of the device, unless this
 * rehearsal wrote it (ext2fs_mmp_start and _stop check that the sequence
 * they wrote reads back): then as written, checked as stock checks it.
 */
LJ_EXPORT errcode_t ext2fs_mmp_read(ext2_filsys fs, blk64_t mmp_blk,
				    void *buf)
{
	struct mmp_struct *mmp;
	errcode_t err;

	REAL(ext2fs_mmp_read, mmp_read_fn);
	if (!real)
		return EXT2_ET_OP_NOT_SUPPORTED;
	if (lj_view_mode != LJ_VIEW_REHEARSE || !fs->io ||
	    mmp_blk <= fs->super->s_first_data_block ||
	    mmp_blk >= ext2fs_blocks_count(fs->super) ||
	    !lj_overlay_holds(fs->io, mmp_blk * fs->blocksize,
			      fs->blocksize))
		return real(fs, mmp_blk, buf);
	if (!fs->mmp_cmp) {
		err = ext2fs_get_memalign(fs->blocksize, 512, &fs->mmp_cmp);
		if (err)
			return err;
	}
	err = io_channel_read_blk64(fs->io, mmp_blk, -(int)fs->blocksize,
				    fs->mmp_cmp);
	if (err)
		return err;
	mmp = fs->mmp_cmp;
	if (!(fs->flags & EXT2_FLAG_IGNORE_CSUM_ERRORS) &&
	    !ext2fs_mmp_csum_verify(fs, mmp))
		err = EXT2_ET_MMP_CSUM_INVALID;
	if (buf && buf != fs->mmp_cmp)
		memcpy(buf, fs->mmp_cmp, fs->blocksize);
	if (ext2fs_le32_to_cpu(mmp->mmp_magic) != EXT4_MMP_MAGIC)
		err = EXT2_ET_MMP_MAGIC_INVALID;
	return err;
}
