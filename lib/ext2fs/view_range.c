/*
 * view_range.c --- fallocate's zero range and punch hole on the mount, to
 * the byte (LJ_VIEW=mount).
 *
 * Stock fuse2fs 1.47.0 works on whole blocks where a range ends inside
 * one: its punch unmaps the block a range of a few bytes at a block's
 * start lies in (offset 0, length 1 zeroes the whole block), and it has
 * no zero range (a punch, then an allocation).  The kernel's ext4 zeroes
 * exactly the bytes asked for.  Here stock sees block-aligned ranges
 * only; the bytes of a partial block at either end of the range are
 * zeroed by a write of zeros through stock's write (ordinary file data),
 * up to the file's size (past it a block reads as zeros already), and
 * only where they are not zeros already (a hole stays a hole, as the
 * kernel's punch leaves it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define FUSE_USE_VERSION 29
#include <errno.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <string.h>

#include "view.h"
#include "view_posix.h"

/* Bytes [s, e) of the file zeroed where they are not zeros, below size. */
static int zero_piece(const struct fuse_operations *ops, const char *p,
		      struct fuse_file_info *fi, off_t s, off_t e, off_t size,
		      unsigned char *buf, size_t bs)
{
	static const unsigned char zeros[65536];
	size_t n, i;
	int got;

	if (e > size)
		e = size;
	if (s >= e)
		return 0;
	n = (size_t)(e - s);	/* within one block */
	if (n > bs || n > sizeof(zeros))
		return -EIO;
	got = ops->read(p, (char *)buf, n, s, fi);
	if (got < 0)
		return got;
	for (i = 0; i < (size_t)got && !buf[i]; i++)
		;
	if (i == (size_t)got)	/* zeros already (a hole, or short) */
		return 0;
	got = ops->write(p, (const char *)zeros, n, s, fi);
	if (got < 0)
		return got;
	return (size_t)got == n ? 0 : -EIO;
}

int lj_posix_fallocate_range(const struct fuse_operations *ops,
			     const char *p, int mode, off_t o, off_t len,
			     struct fuse_file_info *fi)
{
	ext2_filsys fs = lj_view_fs();
	unsigned char buf[65536];
	struct stat st;
	off_t bs, first, last, size;
	int ret;

	if (!(mode & (FALLOC_FL_ZERO_RANGE | FALLOC_FL_PUNCH_HOLE)))
		return ops->fallocate(p, mode, o, len, fi);
	if (!fs || !ops->fgetattr || !ops->read || !ops->write ||
	    fs->blocksize > sizeof(buf))
		return -EIO;
	if (o < 0 || len <= 0)
		return -EINVAL;
	ret = ops->fgetattr(p, &st, fi);
	if (ret)
		return ret;
	size = st.st_size;
	bs = fs->blocksize;
	first = (o + bs - 1) / bs * bs;		/* whole blocks [first, last) */
	last = (o + len) / bs * bs;
	if (first < last) {
		ret = ops->fallocate(p, FALLOC_FL_PUNCH_HOLE |
				     FALLOC_FL_KEEP_SIZE, first, last - first,
				     fi);
		if (ret)
			return ret;
	}
	if (first > last) {	/* inside one block */
		ret = zero_piece(ops, p, fi, o, o + len, size, buf, bs);
	} else {
		ret = zero_piece(ops, p, fi, o, first, size, buf, bs);
		if (!ret)
			ret = zero_piece(ops, p, fi, last, o + len, size, buf,
					 bs);
	}
	/* zero range: the range allocated, the size extended as asked */
	if (!ret && (mode & FALLOC_FL_ZERO_RANGE))
		ret = ops->fallocate(p, mode & FALLOC_FL_KEEP_SIZE, o, len, fi);
	return ret;
}
