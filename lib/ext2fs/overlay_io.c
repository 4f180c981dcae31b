/*
 * overlay_io.c --- a channel that keeps every write in memory.
 *
 * A layer over a channel opened read-only (or over nothing: an empty
 * file): writes land in memory, in chunks of LJ_OVERLAY_CHUNK bytes kept
 * sorted by chunk number (running_txn.c's bookkeeping); reads see them
 * over what lies below.  Nothing ever goes down but reads, so a program
 * running on it writes nothing at all: the view's rehearse mode
 * (view.c), under which tune2fs runs a stock operation before it writes
 * anything of its own.
 *
 * Requests that touch no written chunk go down as they are (the channel
 * below keeps this one's block size), so its answers -- a short read past
 * the end included -- are the device's own.
 */
#include <string.h>

#include "base_io.h"
#include "writer_private.h"
#include "lj_private.h"

#define LJ_OVERLAY_CHUNK	4096U

struct overlay_priv {
	io_channel below;	/* first, as every layer's (NULL: nothing) */
	struct lj_running mem;	/* the chunks written, by chunk number */
	unsigned char *tmp;	/* one block of below (or one chunk) */
	size_t tmp_size;
	struct struct_io_stats stats;
};

static struct overlay_priv *ovl(io_channel io)
{
	return io->private_data;
}

/* Room for n bytes in p->tmp. */
static errcode_t tmp_room(struct overlay_priv *p, size_t n)
{
	errcode_t err;

	if (n <= p->tmp_size)
		return 0;
	err = ext2fs_resize_mem(p->tmp_size, n, &p->tmp);
	if (!err)
		p->tmp_size = n;
	return err;
}

/*
 * Bytes [off, off + len) from below into dst, whatever its block size;
 * what lies past its end (or below nothing) reads as zeros.
 */
static errcode_t below_read(struct overlay_priv *p, uint64_t off,
			    uint64_t len, unsigned char *dst)
{
	uint64_t bs;
	errcode_t err;

	if (!p->below) {
		memset(dst, 0, len);
		return 0;
	}
	bs = (uint64_t)p->below->block_size;
	err = tmp_room(p, bs);
	while (!err && len) {
		uint64_t blk = off / bs, in = off % bs, part;

		if (!in && len >= bs && len / bs <= INT_MAX) {
			part = len - len % bs;
			err = io_channel_read_blk64(p->below, blk,
						    (int)(part / bs), dst);
		} else {
			part = bs - in < len ? bs - in : len;
			memset(p->tmp, 0, bs);
			err = io_channel_read_blk64(p->below, blk, 1, p->tmp);
			memcpy(dst, p->tmp + in, part);
		}
		if (err == EXT2_ET_SHORT_READ)
			err = 0;	/* zeros past the end */
		dst += part;
		off += part;
		len -= part;
	}
	return err;
}

/* Is any chunk from first to last (inclusive) written? */
static int written(const struct overlay_priv *p, uint64_t first,
		   uint64_t last)
{
	size_t slot;

	lj_run_find(&p->mem, first, &slot);
	return slot < p->mem.np && p->mem.p[slot].home <= last;
}

static errcode_t overlay_read(io_channel io, unsigned long long block,
			      int count, void *data)
{
	struct overlay_priv *p = ovl(io);
	unsigned char *dst = data;
	uint64_t off, size;
	errcode_t err = 0;

	if (lj_io_request(io, block, count, &off, &size))
		return EXT2_ET_SHORT_READ;
	p->stats.bytes_read += size;
	if (!size)
		return 0;
	if (p->below && !written(p, off / LJ_OVERLAY_CHUNK,
				 (off + size - 1) / LJ_OVERLAY_CHUNK))
		return io_channel_read_blk64(p->below, block, count, data);
	while (!err && size) {
		uint64_t c = off / LJ_OVERLAY_CHUNK;
		uint64_t in = off % LJ_OVERLAY_CHUNK;
		uint64_t part = LJ_OVERLAY_CHUNK - in;
		struct lj_pending *w = lj_run_find(&p->mem, c, NULL);

		if (part > size)
			part = size;
		if (w)
			memcpy(dst, w->data + in, part);
		else
			err = below_read(p, off, part, dst);
		dst += part;
		off += part;
		size -= part;
	}
	return err;
}

/* Bytes [off, off + size) written into memory. */
static errcode_t overlay_put(struct overlay_priv *p, uint64_t off,
			     uint64_t size, const unsigned char *src)
{
	errcode_t err = tmp_room(p, LJ_OVERLAY_CHUNK);

	p->stats.bytes_written += size;
	while (!err && size) {
		uint64_t c = off / LJ_OVERLAY_CHUNK;
		uint64_t in = off % LJ_OVERLAY_CHUNK;
		uint64_t part = LJ_OVERLAY_CHUNK - in;
		struct lj_pending *w = lj_run_find(&p->mem, c, NULL);
		unsigned char *copy;

		if (part > size)
			part = size;
		if (w) {
			memcpy(w->data + in, src, part);
		} else {
			if (part < LJ_OVERLAY_CHUNK)
				err = below_read(p, c * LJ_OVERLAY_CHUNK,
						 LJ_OVERLAY_CHUNK, p->tmp);
			if (!err) {
				memcpy(p->tmp + in, src, part);
				err = lj_run_add(&p->mem, c, p->tmp, &copy);
			}
		}
		src += part;
		off += part;
		size -= part;
	}
	return err;
}

static errcode_t overlay_write(io_channel io, unsigned long long block,
			       int count, const void *data)
{
	uint64_t off, size;

	if (lj_io_request(io, block, count, &off, &size))
		return EXT2_ET_SHORT_WRITE;
	return overlay_put(ovl(io), off, size, data);
}

static errcode_t overlay_write_byte(io_channel io, unsigned long offset,
				    int size, const void *data)
{
	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return overlay_put(ovl(io), offset, (uint64_t)size, data);
}

static errcode_t overlay_close(io_channel io)
{
	struct overlay_priv *p = ovl(io);

	if (io->refcount == 1) {
		lj_run_free(&p->mem);
		ext2fs_free_mem(&p->tmp);
	}
	return lj_io_layer_close(io);
}

static errcode_t overlay_set_blksize(io_channel io, int blksize)
{
	if (!ovl(io)->below)
		return lj_io_set_blksize(io, blksize);
	return lj_io_layer_set_blksize(io, blksize);
}

static errcode_t overlay_flush(io_channel io)
{
	(void)io;
	return 0;		/* nothing to write */
}

static errcode_t overlay_set_option(io_channel io, const char *opt,
				    const char *arg)
{
	return ovl(io)->below ? lj_io_layer_set_option(io, opt, arg) :
		EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t overlay_get_stats(io_channel io, io_stats *stats)
{
	*stats = &ovl(io)->stats;
	return 0;
}

/* Callers fall back to writing zeros, which land in memory. */
static errcode_t overlay_discard(io_channel io, unsigned long long block,
				 unsigned long long count)
{
	(void)io; (void)block; (void)count;
	return EXT2_ET_UNIMPLEMENTED;
}

static errcode_t overlay_open(const char *name, int flags, io_channel *ret)
{
	(void)name; (void)flags; (void)ret;
	return EXT2_ET_UNIMPLEMENTED;	/* lj_overlay_open only */
}

static struct struct_io_manager overlay_manager =
	LJ_IO_MANAGER("Overlay (writes in memory) I/O Manager", overlay_open,
		      overlay_close, overlay_set_blksize, overlay_read,
		      overlay_write, overlay_flush, overlay_write_byte,
		      overlay_set_option, overlay_get_stats, overlay_discard,
		      overlay_discard);

int lj_overlay_holds(io_channel io, uint64_t off, uint64_t len)
{
	if (!io || io->manager != &overlay_manager || !len)
		return 0;
	return written(ovl(io), off / LJ_OVERLAY_CHUNK,
		       (off + len - 1) / LJ_OVERLAY_CHUNK);
}

errcode_t lj_overlay_open(io_channel below, const char *name,
			  io_channel *ret)
{
	struct overlay_priv *p;
	io_channel io;
	errcode_t err;

	err = lj_io_channel_new(&overlay_manager, name, sizeof(*p), &io);
	if (err) {
		if (below)
			io_channel_close(below);
		return err;
	}
	p = io->private_data;
	p->below = below;
	p->mem.bs = LJ_OVERLAY_CHUNK;
	if (below) {
		io->block_size = below->block_size;
		/* a discard is refused: nothing reads back as zeros */
		io->flags = below->flags & ~CHANNEL_FLAGS_DISCARD_ZEROES;
	}
	p->stats.num_fields = 2;
	*ret = io;
	return 0;
}
