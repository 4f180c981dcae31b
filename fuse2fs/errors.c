/*
 * fuse2fs/errors.c --- a damaged file system answered as the kernel's ext4
 * answers it.
 *
 *  - One translation of libext2fs and channel codes to errno, keeping the
 *    cause as ext4 reports it: a bad checksum EBADMSG (ext4's EFSBADCRC),
 *    corruption EUCLEAN (EFSCORRUPTED), a short read or write EIO, an
 *    errno from the device as it is.
 *  - Each checksum, corruption or device I/O error is recorded in the
 *    superblock as ext4 records it: s_error_count, the first and last
 *    error's time, inode, block, function, line and code, and
 *    EXT2_ERROR_FS in s_state (stock e2fsck then checks the file system
 *    at its next run; dumpe2fs -h shows the fields).
 *  - Then the behaviour of -o errors= (else the superblock's s_errors,
 *    tune2fs -e; neither continue nor panic there means remount-ro, as
 *    ext4 reads it): continue, the record committed with the running
 *    transaction; remount-ro, the running transaction dropped as jbd2
 *    aborts the journal (what a half-done request wrote never reaches the
 *    log), the record committed alone, every later modifying request
 *    answered EROFS while reads go on, later errors not recorded; panic,
 *    the same, then the daemon ends and the mount goes away (the kernel
 *    stops the machine).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>

#include "server.h"

/* ext4's error codes in s_{first,last}_error_errcode */
enum { FS_ERR_UNKNOWN = 1, FS_ERR_EIO, FS_ERR_ENOMEM, FS_ERR_EFSBADCRC,
       FS_ERR_EFSCORRUPTED };

int fs_errors_option(struct fs_server *srv, const char *value)
{
	if (!strcmp(value, "continue"))
		srv->errors.behaviour = EXT2_ERRORS_CONTINUE;
	else if (!strcmp(value, "remount-ro"))
		srv->errors.behaviour = EXT2_ERRORS_RO;
	else if (!strcmp(value, "panic"))
		srv->errors.behaviour = EXT2_ERRORS_PANIC;
	else
		return -1;
	return 0;
}

static int applied(struct fs_server *srv)
{
	int b = srv->errors.behaviour ? srv->errors.behaviour :
		srv->fs->super->s_errors;

	return b == EXT2_ERRORS_CONTINUE || b == EXT2_ERRORS_PANIC ? b :
	       EXT2_ERRORS_RO;
}

int fs_errors_stopped(struct fs_server *srv)
{
	return srv->errors.stopped;
}

int fs_errors_panicked(struct fs_server *srv)
{
	return srv->errors.panicked;
}

void fs_errors_quiet(struct fs_server *srv, int on)
{
	srv->errors.quiet = on;
}

void fs_errors_inode(struct fs_server *srv, ext2_ino_t ino)
{
	srv->cur.ino = ino;
}

/* errno of err, and whether it tells of damage or a device error. */
static int translate(errcode_t err, int *damage)
{
	*damage = 1;
	switch (err) {
	case EXT2_ET_INODE_CSUM_INVALID:
	case EXT2_ET_INODE_BITMAP_CSUM_INVALID:
	case EXT2_ET_BLOCK_BITMAP_CSUM_INVALID:
	case EXT2_ET_EXTENT_CSUM_INVALID:
	case EXT2_ET_DIR_CSUM_INVALID:
	case EXT2_ET_EXT_ATTR_CSUM_INVALID:
	case EXT2_ET_SB_CSUM_INVALID:
	case EXT2_ET_MMP_CSUM_INVALID:
	case EXT2_ET_BAD_CRC:
		return EBADMSG;
	case EXT2_ET_DIR_CORRUPTED:
	case EXT2_ET_BAD_INODE_NUM:
	case EXT2_ET_BAD_BLOCK_NUM:
	case EXT2_ET_BAD_IND_BLOCK:
	case EXT2_ET_BAD_DIND_BLOCK:
	case EXT2_ET_BAD_TIND_BLOCK:
	case EXT2_ET_CORRUPT_SUPERBLOCK:
	case EXT2_ET_BAD_EA_BLOCK_NUM:
	case EXT2_ET_BAD_EA_HEADER:
	case EXT2_ET_BAD_EA_HASH:
	case EXT2_ET_EA_BAD_NAME_LEN:
	case EXT2_ET_EA_BAD_VALUE_SIZE:
	case EXT2_ET_EA_BAD_VALUE_OFFSET:
	case EXT2_ET_EA_INODE_CORRUPTED:
	case EXT2_ET_EXTENT_HEADER_BAD:
	case EXT2_ET_EXTENT_INDEX_BAD:
	case EXT2_ET_EXTENT_LEAF_BAD:
	case EXT2_ET_EXTENT_INVALID_LENGTH:
	case EXT2_ET_EXTENT_CYCLE:
	case EXT2_ET_INODE_CORRUPTED:
	case EXT2_ET_INODE_IS_GARBAGE:
	case EXT2_ET_FILESYSTEM_CORRUPTED:
	case EXT2_FILSYS_CORRUPTED:
	case EXT2_ET_UNKNOWN_CSUM:
		return EUCLEAN;
	case EXT2_ET_SHORT_READ:
	case EXT2_ET_SHORT_WRITE:
	case EIO:
		return EIO;
	}
	*damage = 0;
	switch (err) {
	case EXT2_ET_BLOCK_ALLOC_FAIL:
	case EXT2_ET_INODE_ALLOC_FAIL:
	case EXT2_ET_DIR_NO_SPACE_FOR_CSUM:
	case EXT2_ET_EA_NO_SPACE:
	case EXT2_ET_TOOSMALL:
	case EXT2_ET_INLINE_DATA_NO_SPACE:
		return ENOSPC;
	case EXT2_ET_NO_MEMORY:
		return ENOMEM;
	case EXT2_ET_FILE_NOT_FOUND:
		return ENOENT;
	case EXT2_ET_DIR_EXISTS:
		return EEXIST;
	case EXT2_ET_RO_FILSYS:
		return EROFS;
	case EXT2_ET_EA_KEY_NOT_FOUND:
		return ENODATA;
	case EXT2_ET_FILE_TOO_BIG:
		return EFBIG;
	case EXT2_ET_NO_DIRECTORY:
		return ENOTDIR;
	case EXT2_ET_TOO_MANY_REFS:
		return EMLINK;
	}
	if (err > 0 && err < 256)
		return (int)err;
	return EIO;
}

static unsigned char code_of(int eno)
{
	switch (eno) {
	case EIO:
		return FS_ERR_EIO;
	case ENOMEM:
		return FS_ERR_ENOMEM;
	case EBADMSG:
		return FS_ERR_EFSBADCRC;
	case EUCLEAN:
		return FS_ERR_EFSCORRUPTED;
	}
	return FS_ERR_UNKNOWN;
}

/* A function's name in a 32-byte field, NUL-padded, not terminated when
 * it fills the field (as the format has it). */
static void set_func(__u8 dst[32], const char *func)
{
	size_t n = strlen(func);

	memset(dst, 0, 32);
	memcpy(dst, func, n < 32 ? n : 32);
}

/* The error's fields in sb, as ext4 sets them. */
static void note(struct fs_server *srv, struct ext2_super_block *sb, int eno,
		 const char *func,
		 int line)
{
	time_t now = time(NULL);

	sb->s_state |= EXT2_ERROR_FS;
	if (!sb->s_first_error_time && !sb->s_first_error_time_hi) {
		sb->s_first_error_time = (__u32)now;
		sb->s_first_error_time_hi = (__u8)((uint64_t)now >> 32);
		sb->s_first_error_ino = srv->cur.ino;
		sb->s_first_error_block = 0;
		set_func(sb->s_first_error_func, func);
		sb->s_first_error_line = (__u32)line;
		sb->s_first_error_errcode = code_of(eno);
	}
	sb->s_last_error_time = (__u32)now;
	sb->s_last_error_time_hi = (__u8)((uint64_t)now >> 32);
	sb->s_last_error_ino = srv->cur.ino;
	sb->s_last_error_block = 0;
	set_func(sb->s_last_error_func, func);
	sb->s_last_error_line = (__u32)line;
	sb->s_last_error_errcode = code_of(eno);
	sb->s_error_count++;
}

/* The record of sb copied into the home superblock block blk (buf). */
static errcode_t home_record(struct fs_server *srv, io_channel io, blk64_t blk,
			     char *buf,
			     const struct ext2_super_block *sb)
{
	ext2_filsys fs = srv->fs;
	struct ext2_super_block *h;
	errcode_t err = lj_lazy_read_home(io, blk, buf);

	if (err)
		return err;
	h = (struct ext2_super_block *)(buf + SUPERBLOCK_OFFSET %
					fs->blocksize);
	h->s_state |= EXT2_ERROR_FS;
	memcpy((char *)h + EXT4_S_ERR_START, (const char *)sb +
	       EXT4_S_ERR_START, EXT4_S_ERR_LEN);
	h->s_first_error_time_hi = sb->s_first_error_time_hi;
	h->s_last_error_time_hi = sb->s_last_error_time_hi;
	h->s_first_error_errcode = sb->s_first_error_errcode;
	h->s_last_error_errcode = sb->s_last_error_errcode;
	ext2fs_superblock_csum_set(fs, h);
	return lj_lazy_write_home(io, blk, buf);
}

/*
 * remount-ro and panic: the running transaction dropped, then the record
 * alone written over the committed superblock (not libext2fs's copy in
 * memory, which holds the dropped transaction's counts) and committed.
 * On a plain ext4 it also goes home in place, as ext4 writes it after
 * aborting its journal: stock dumpe2fs and e2fsck read it there before
 * any replay (and a replay brings the logged copy, which has it too).
 */
static errcode_t record_alone(struct fs_server *srv, int eno, const char *func,
			      int line)
{
	ext2_filsys fs = srv->fs;
	unsigned int bs = fs->blocksize;
	blk64_t blk = SUPERBLOCK_OFFSET / bs;
	struct ext2_super_block *sb;
	char *buf;
	errcode_t err = 0;

	/* not while a commit writes the log (commit.c's state, under the
	 * request lock) */
	while (srv->commit.writing)
		fs_loop_wait(srv, &srv->commit.done);
	if (srv->lazy)
		err = lj_lazy_abort(fs->io);
	if (!err)
		err = ext2fs_get_mem(bs, &buf);
	if (err)
		return err;
	err = io_channel_read_blk64(fs->io, blk, 1, buf);
	sb = (struct ext2_super_block *)(buf + SUPERBLOCK_OFFSET % bs);
	if (!err) {
		note(srv, sb, eno, func, line);
		ext2fs_superblock_csum_set(fs, sb);
		err = io_channel_write_byte(fs->io, SUPERBLOCK_OFFSET,
					    SUPERBLOCK_SIZE, sb);
	}
	if (!err)
		err = srv->lazy ? lj_lazy_commit(fs->io) :
		      io_channel_flush(fs->io);
	if (!err && srv->lazy && srv->plain_journal) {
		char *home = NULL;

		err = ext2fs_get_mem(bs, &home);
		if (!err)
			err = home_record(srv, fs->io, blk, home, sb);
		ext2fs_free_mem(&home);
	}
	ext2fs_free_mem(&buf);
	/* nothing libext2fs holds in memory is written again */
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
		       EXT2_FLAG_IB_DIRTY);
	return err;
}

/* force: remount-ro even under errors=continue (a failed commit). */
static void hit(struct fs_server *srv, int eno, const char *func, int line,
		int force)
{
	ext2_filsys fs = srv->fs;
	int b;
	errcode_t err;

	/* one record a request: an errno from the device comes back through
	 * the server's own calls (fs_read_inode's EIO) a second time */
	if (!fs || srv->ro || srv->errors.stopped || srv->errors.quiet ||
	    (srv->cur.told && !force))
		return;
	srv->cur.told = 1;
	com_err("fuse2fs", 0, "error (device %s): %s:%d: inode #%u: %s",
		srv->device, func, line, srv->cur.ino, strerror(eno));
	b = applied(srv);
	if (b == EXT2_ERRORS_CONTINUE && force)
		b = EXT2_ERRORS_RO;
	if (b == EXT2_ERRORS_CONTINUE) {
		note(srv, fs->super, eno, func, line);
		ext2fs_mark_super_dirty(fs);
		return;
	}
	err = record_alone(srv, eno, func, line);
	if (err)
		com_err("fuse2fs", err, "while recording the error on %s",
			srv->device);
	srv->errors.stopped = 1;
	srv->ro = 1;		/* no commit, no atime, no orphan freed */
	if (b == EXT2_ERRORS_PANIC) {
		com_err("fuse2fs", 0, "%s: panic forced after error",
			srv->device);
		srv->errors.panicked = 1;
		if (srv->se)
			fuse_session_exit(srv->se);
	} else {
		com_err("fuse2fs", 0, "%s: remounting read-only",
			srv->device);
	}
}

int fs_errno_at(struct fs_server *srv, errcode_t err, const char *func,
		int line)
{
	int damage, eno;

	if (!err)
		return 0;
	/* libext2fs 1.47.0 reads an inode into the slot of its inode cache
	 * it is about to use and, when the checksum fails, leaves that slot
	 * named for the inode it held before: forget them all */
	if ((err == EXT2_ET_INODE_CSUM_INVALID ||
	     err == EXT2_ET_INODE_IS_GARBAGE) && srv->fs)
		ext2fs_flush_icache(srv->fs);
	eno = translate(err, &damage);
	if (srv->debug)
		com_err("fuse2fs", err, "(%s:%d, answered %s)", func, line,
			strerror(eno));
	if (damage)
		hit(srv, eno, func, line, 0);
	return eno;
}

/* ------------------------------------------------------------------ */
/* After remount-ro: modifying requests answered EROFS                 */

#define FS_GATE(srv, req)				\
	do {						\
		if ((srv)->errors.stopped) {		\
			fuse_reply_err(req, EROFS);	\
			return;				\
		}					\
	} while (0)

static void g_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		      int to_set, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.setattr(req, ino, attr, to_set, fi);
}

static void g_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		    mode_t mode, dev_t rdev)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.mknod(req, parent, name, mode, rdev);
}

static void g_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		    mode_t mode)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.mkdir(req, parent, name, mode);
}

static void g_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.unlink(req, parent, name);
}

static void g_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.rmdir(req, parent, name);
}

static void g_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		      const char *name)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.symlink(req, link, parent, name);
}

static void g_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		     fuse_ino_t newparent, const char *newname,
		     unsigned int flags)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.rename(req, parent, name, newparent, newname, flags);
}

static void g_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		   const char *newname)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.link(req, ino, newparent, newname);
}

static void g_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		FS_GATE(srv, req);
	srv->errors.inner.open(req, ino, fi);
}

static void g_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		    size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.write(req, ino, buf, size, off, fi);
}

static void g_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.fsync(req, ino, datasync, fi);
}

static void g_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		       struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.fsyncdir(req, ino, datasync, fi);
}

static void g_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		       const char *value, size_t size, int flags)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.setxattr(req, ino, name, value, size, flags);
}

static void g_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.removexattr(req, ino, name);
}

static void g_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.create(req, parent, name, mode, fi);
}

static void g_fallocate(fuse_req_t req, fuse_ino_t ino, int mode,
			off_t offset, off_t length, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.fallocate(req, ino, mode, offset, length, fi);
}

static void g_copy_file_range(fuse_req_t req, fuse_ino_t ino_in,
			      off_t off_in, struct fuse_file_info *fi_in,
			      fuse_ino_t ino_out, off_t off_out,
			      struct fuse_file_info *fi_out, size_t len,
			      int flags)
{
	struct fs_server *srv = fs_srv_of(req);

	FS_GATE(srv, req);
	srv->errors.inner.copy_file_range(req, ino_in, off_in, fi_in, ino_out,
					  off_out, fi_out, len, flags);
}

const struct fuse_lowlevel_ops *fs_errors_ops(struct fs_server *srv,
					      const struct fuse_lowlevel_ops *o)
{
	struct fuse_lowlevel_ops *g = &srv->errors.gated;

	srv->errors.inner = *g = *o;
#define FS_WRAP(op)	do { if (o->op) g->op = g_##op; } while (0)
	FS_WRAP(setattr);
	FS_WRAP(mknod);
	FS_WRAP(mkdir);
	FS_WRAP(unlink);
	FS_WRAP(rmdir);
	FS_WRAP(symlink);
	FS_WRAP(rename);
	FS_WRAP(link);
	FS_WRAP(open);
	FS_WRAP(write);
	FS_WRAP(fsync);
	FS_WRAP(fsyncdir);
	FS_WRAP(setxattr);
	FS_WRAP(removexattr);
	FS_WRAP(create);
	FS_WRAP(fallocate);
	FS_WRAP(copy_file_range);
#undef FS_WRAP
	return &srv->errors.gated;
}

void fs_errors_commit_failed(struct fs_server *srv)
{
	hit(srv, EIO, "commit", 0, 1);
}

void fs_errors_close(struct fs_server *srv)
{
	if (!srv->errors.stopped)
		return;
	if (srv->lazy)
		lj_lazy_abort(srv->fs->io);
	srv->fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
			      EXT2_FLAG_IB_DIRTY);
}
