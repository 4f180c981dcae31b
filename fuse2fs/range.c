/*
 * fuse2fs/range.c --- lseek's SEEK_DATA and SEEK_HOLE, and
 * copy_file_range, as the kernel's ext4 answers them.
 *
 * SEEK_DATA/SEEK_HOLE walk the file's map (fs_map_run: an extent tree in
 * one walk a run, a block map block by block).  Data is a written block:
 * a hole and an unwritten extent are both holes, as ext4 reports them
 * once nothing of them sits dirty in its page cache (the server writes
 * through, so nothing does).  An inline-data file is data from 0 to its
 * size.  An offset at or past the size (or negative) is ENXIO; the hole
 * at the end of every file starts at its size.
 *
 * copy_file_range reads the source as read does and writes the
 * destination through write's path (EFBIG, ENOSPC, size, mtime and
 * ctime as a write), a chunk at a time.  The kernel has checked what
 * ext4's answer checks first (both regular, the source readable, the
 * destination writable and not O_APPEND, no overlap within one file,
 * flags 0); they are checked again here (open keeps the open flags in
 * the file handle: libfuse passes copy_file_range the handles alone).
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* Where SEEK_DATA (data 1) or SEEK_HOLE (data 0) from off lands: 0 and
 * *res, or -errno. */
static int seek(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		uint64_t off, int data,
		uint64_t *res)
{
	unsigned int bs = srv->fs->blocksize;
	uint64_t size = EXT2_I_SIZE(FS_I(in));
	blk64_t lblk = off / bs, end = (size + bs - 1) / bs;

	if (off >= size)
		return -ENXIO;
	if (!(in->i.i_flags & EXT4_INLINE_DATA_FL)) {
		while (lblk < end) {
			blk64_t p, len;
			int un;
			errcode_t err = fs_map_run(srv, ino, in, lblk,
						   end - lblk,
						   &p, &len, &un);

			if (err)
				return -fs_errno(srv, err);
			if ((p && !un) == data) {
				uint64_t at = lblk * bs;

				*res = at > off ? at : off;
				if (*res >= size)
					break;
				return 0;
			}
			lblk += len;
		}
	} else if (data) {
		*res = off;
		return 0;
	}
	if (data)
		return -ENXIO;
	*res = size;
	return 0;
}

void fs_op_lseek(fuse_req_t req, fuse_ino_t fino, off_t off, int whence,
		 struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fs_inode in;
	uint64_t res = 0;
	int ret;

	(void)fi;
	if (whence != SEEK_DATA && whence != SEEK_HOLE) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (off < 0) {
		fuse_reply_err(req, ENXIO);
		return;
	}
	fs_begin(srv);
	ret = fs_read_inode(srv, FS_INO(fino), &in);
	if (!ret)
		ret = seek(srv, FS_INO(fino), &in, (uint64_t)off,
			   whence == SEEK_DATA, &res);
	fs_end(srv, 0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_lseek(req, (off_t)res);
}

/* At most this much a request (the kernel's MAX_RW_COUNT: the reply's
 * count is 32 bits), read and written a chunk at a time. */
#define FS_COPY_MAX	0x7ffff000UL
#define FS_COPY_CHUNK	(1UL << 20)

static int copy_range(fuse_req_t req, ext2_ino_t src, uint64_t off_in,
		      ext2_ino_t dst, uint64_t off_out, size_t len,
		      size_t *copied)
{
	struct fs_server *srv = fs_srv_of(req);
	size_t total = 0;
	int ret = fs_ino_fixed(srv, dst, 0);

	while (!ret && total < len) {
		struct fs_inode in, out;
		unsigned char *buf = NULL;
		size_t n = 0, done = 0,
		       want = len - total < FS_COPY_CHUNK ? len - total :
							    FS_COPY_CHUNK;

		ret = fs_read_inode(srv, src, &in);
		if (!ret)
			ret = fs_file_read(srv, src, &in, off_in + total, want,
					   &buf, &n);
		if (!ret && n)
			ret = fs_read_inode(srv, dst, &out);
		if (!ret && n)
			ret = fs_file_write(req, dst, &out, (const char *)buf,
					    n, off_out + total, &done);
		free(buf);
		if (ret || !n)
			break;
		total += done;
		if (done < n)	/* short: the largest size, or ENOSPC */
			break;
	}
	*copied = total;
	return total ? 0 : ret;
}

void fs_op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			   struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			   off_t off_out, struct fuse_file_info *fi_out,
			   size_t len, int flags)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t src = FS_INO(ino_in), dst = FS_INO(ino_out);
	/* libfuse passes the handles only: the open flags kept in them */
	int fl_in = (int)fi_in->fh, fl_out = (int)fi_out->fh;
	struct fs_inode out;
	int ret = 0, sync = 0;
	size_t copied = 0;

	if (flags || off_in < 0 || off_out < 0)
		ret = -EINVAL;
	else if ((fl_out & O_ACCMODE) == O_RDONLY || (fl_out & O_APPEND) ||
		 (fl_in & O_ACCMODE) == O_WRONLY)
		ret = -EBADF;
	if (len > FS_COPY_MAX)
		len = FS_COPY_MAX;
	/* one file: the ranges may not overlap */
	if (!ret && src == dst && (uint64_t)off_out < (uint64_t)off_in + len &&
	    (uint64_t)off_in < (uint64_t)off_out + len)
		ret = -EINVAL;
	if (ret || !len) {
		if (ret)
			fuse_reply_err(req, -ret);
		else
			fuse_reply_write(req, 0);
		return;
	}
	fs_begin(srv);
	if (!fs_read_inode(srv, dst, &out))
		sync = fs_write_is_sync(srv, fl_out, &out);
	ret = copy_range(req, src, (uint64_t)off_in, dst, (uint64_t)off_out,
			 len, &copied);
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, sync);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_write(req, copied);
}
