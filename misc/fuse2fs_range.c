/*
 * fuse2fs_range.c --- lseek's SEEK_DATA and SEEK_HOLE, and
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
 * flags 0); the overlap and flags are checked again here.
 */
#include "fuse2fs_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* Where SEEK_DATA (data 1) or SEEK_HOLE (data 0) from off lands: 0 and
 * *res, or -errno. */
static int seek(ext2_ino_t ino, struct fs_inode *in, uint64_t off, int data,
		uint64_t *res)
{
	unsigned int bs = fs_srv.fs->blocksize;
	uint64_t size = EXT2_I_SIZE(FS_I(in));
	blk64_t lblk = off / bs, end = (size + bs - 1) / bs;

	if (off >= size)
		return -ENXIO;
	if (!(in->i.i_flags & EXT4_INLINE_DATA_FL)) {
		while (lblk < end) {
			blk64_t p, len;
			int un;
			errcode_t err = fs_map_run(ino, in, lblk, end - lblk,
						   &p, &len, &un);

			if (err)
				return -fs_errno(err);
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
	fs_begin();
	ret = fs_read_inode(FS_INO(fino), &in);
	if (!ret)
		ret = seek(FS_INO(fino), &in, (uint64_t)off,
			   whence == SEEK_DATA, &res);
	fs_end(0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_lseek(req, (off_t)res);
}
