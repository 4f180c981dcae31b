/*
 * fuse2fs/file.c --- the file requests: create, open, read, write,
 * release, fsync and fallocate, each between fs_begin and fs_end (the
 * commit a persistence point asks for).  The data itself is data.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "server.h"
/* ------------------------------------------------------------------ */

static void opened(fuse_req_t req, ext2_ino_t ino, struct fuse_file_info *fi,
		   const struct fuse_entry_param *e)
{
	struct fs_server *srv = fs_srv_of(req);

	fi->keep_cache = 1;
	fi->fh = (unsigned int)fi->flags;	/* copy_file_range's */
	fs_node_open(srv, ino);
	if ((e ? fuse_reply_create(req, e, fi) : fuse_reply_open(req, fi)) ==
	    -ENOENT) {	/* interrupted: not open after all */
		fs_begin(srv);
		fs_node_release(srv, ino);
		fs_end(srv, 0);
	}
}

void fs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		  mode_t mode, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fuse_entry_param e;
	ext2_ino_t ino = 0;
	int ret;

	fs_begin(srv);
	ret = fs_new_inode(req, FS_INO(parent), name,
			   S_IFREG | (mode & 07777), fuse_req_ctx(req)->umask,
			   0, NULL, &ino);
	if (!ret)
		ret = fs_entry(srv, ino, &e);
	if (!ret)
		fs_node_open(srv, ino);
	ret = ret ? (fs_end(srv, 0), ret) :
		    fs_end(srv, fs_dir_sync(srv, FS_INO(parent)));
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fi->keep_cache = 1;
	fi->fh = (unsigned int)fi->flags;
	if (fuse_reply_create(req, &e, fi) == -ENOENT) {
		fs_begin(srv);
		fs_node_release(srv, ino);
		fs_end(srv, 0);
	}
}

void fs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fs_inode in;
	int ret;

	fs_begin(srv);
	ret = fs_read_inode(srv, FS_INO(ino), &in);
	/* immutable: not for writing; append-only: for appending */
	if (!ret && (fi->flags & O_ACCMODE) != O_RDONLY) {
		ret = fs_fixed(&in, 0);
		if (!ret && fs_append_only(&in) && !(fi->flags & O_APPEND))
			ret = -EPERM;
	}
	if (!ret && (fi->flags & O_TRUNC))
		ret = fs_fixed(&in, 1);
	if (!ret && (fi->flags & O_TRUNC) && EXT2_I_SIZE(FS_I(&in)) &&
	    !srv->ro)
		ret = fs_truncate(srv, FS_INO(ino), &in, 0);
	fs_end(srv, 0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		opened(req, FS_INO(ino), fi, NULL);
}

void fs_op_read(fuse_req_t req, fuse_ino_t fino, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino);
	struct fs_inode in;
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret;

	(void)fi;
	fs_begin(srv);
	ret = fs_read_inode(srv, ino, &in);
	if (!ret && fs_file_read_spliced(req, ino, &in, (uint64_t)off, size)) {
		fs_end(srv, 0);
		return;
	}
	if (!ret)
		ret = fs_file_read(srv, ino, &in, (uint64_t)off, size, &buf,
				   &len);
	fs_end(srv, 0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_buf(req, (const char *)buf, len);
	free(buf);
}

void fs_op_write(fuse_req_t req, fuse_ino_t fino, const char *buf,
		 size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino);
	struct fs_inode in;
	size_t done = 0;
	int ret, sync = 0;

	fs_begin(srv);
	ret = fs_read_inode(srv, ino, &in);
	if (!ret && (fi->flags & O_APPEND))
		off = (off_t)EXT2_I_SIZE(FS_I(&in));
	if (!ret)
		sync = fs_write_is_sync(srv, fi->flags, &in);
	if (!ret && size)
		ret = fs_kill_privs(req, ino, &in, fs_write_kill(srv));
	if (!ret)
		ret = fs_file_write(req, ino, &in, buf, size, (uint64_t)off,
				    &done);
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, sync);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_write(req, done);
}

void fs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	(void)fi;
	fs_begin(srv);
	fs_node_release(srv, FS_INO(ino));
	fs_end(srv, 0);
	fuse_reply_err(req, 0);
}

void fs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);

	(void)fi;
	fs_begin(srv);
	fuse_reply_err(req, -fs_end_fsync(srv, FS_INO(ino), datasync));
}

void fs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		     off_t length, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fs_inode in;
	int ret, sync = 0;

	if (offset < 0 || length <= 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	fs_begin(srv);
	fs_set_privileged(req);
	/* the handle keeps the open flags (opened()) */
	if (!fs_read_inode(srv, FS_INO(ino), &in))
		sync = fs_write_is_sync(srv, (int)fi->fh, &in);
	ret = fs_fallocate(srv, FS_INO(ino), mode, (uint64_t)offset,
			   (uint64_t)length);
	/* extents made, converted or punched: maybe not the inode alone */
	fs_commit_changed(srv, FS_INO(ino), 1);
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, sync);
	/* the kernel refreshes the attributes it holds after a fallocate
	 * that succeeded only: a failed one may have allocated a part */
	if (ret && srv->se)
		fuse_lowlevel_notify_inval_inode(srv->se, ino, -1, 0);
	fuse_reply_err(req, -ret);
}
