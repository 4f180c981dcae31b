/*
 * ordered_io.c --- a layer that sends every write to the device as it is
 * made.
 *
 * A write through the page cache only dirties pages; the kernel's
 * writeback sends them when it likes, and when a large commit dirties more
 * than the background threshold its flusher starts in the middle while
 * the commit's flush sends the rest: the log reaches the device out of
 * order (doc/smr.md, "The log in order").  O_DIRECT keeps the order but
 * leaves nothing in the page cache, so every journal copy read later (the
 * cleaner's live copies, metadata the lazy channel's cache no longer
 * holds) comes from the disk.  This layer keeps the page cache and the
 * order: after each write it starts the writeback of exactly the bytes
 * written (sync_file_range(SYNC_FILE_RANGE_WRITE), which neither waits
 * for them nor flushes the device's cache).  Durability is unchanged: it
 * is still the flush below that makes anything durable.
 *
 * The writeback is started through a descriptor of its own on the same
 * file (the page cache is the file's, not the descriptor's); where it
 * cannot be opened, or the file has no writeback to start (tmpfs), writes
 * only pass down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_io.h"
#include "lazy_journal.h"
#include "lj_private.h"

struct ordered_priv {
	io_channel below;	/* first, as every layer's */
	int fd;			/* the same file, to start writeback on */
	uint64_t offset;	/* the io option offset= (bytes) */
};

static struct ordered_priv *opriv(io_channel io)
{
	return io->private_data;
}

static struct struct_io_manager ordered_manager;

static errcode_t ordered_open(const char *name, int flags, io_channel *ret)
{
	errcode_t err = lj_io_layer_open(&ordered_manager, lj_io_base(), name,
					 flags, sizeof(struct ordered_priv),
					 ret);

	if (!err)
		opriv(*ret)->fd = open(name, O_RDONLY | O_CLOEXEC);
	return err;
}

static errcode_t ordered_close(io_channel io)
{
	if (io->refcount == 1 && opriv(io)->fd >= 0)
		close(opriv(io)->fd);
	return lj_io_layer_close(io);
}

static errcode_t ordered_set_option(io_channel io, const char *opt,
				    const char *arg)
{
	errcode_t err = lj_io_layer_set_option(io, opt, arg);

	if (!err && !strcmp(opt, "offset"))
		opriv(io)->offset = strtoull(arg, NULL, 0);
	return err;
}

/* Start the writeback of [off, off + size) of what was just written.
 * Files with nothing to write back (tmpfs) accept it and do nothing; a
 * file that cannot seek refuses it (ESPIPE) and is only written. */
static errcode_t start_writeback(io_channel io, uint64_t off, uint64_t size)
{
	struct ordered_priv *p = opriv(io);

	if (p->fd < 0 || !size ||
	    !sync_file_range(p->fd, (off64_t)(p->offset + off), (off64_t)size,
			     SYNC_FILE_RANGE_WRITE))
		return 0;
	return errno == ESPIPE || errno == EINVAL ? 0 : (errcode_t)errno;
}

static errcode_t ordered_write_blk64(io_channel io, unsigned long long block,
				     int count, const void *buf)
{
	uint64_t off, size;
	errcode_t err;

	if (lj_io_request(io, block, count, &off, &size))
		return EXT2_ET_SHORT_WRITE;
	err = lj_io_layer_write_blk64(io, block, count, buf);
	return err ? err : start_writeback(io, off, size);
}

static errcode_t ordered_write_byte(io_channel io, unsigned long offset,
				    int size, const void *buf)
{
	errcode_t err = lj_io_layer_write_byte(io, offset, size, buf);

	return err || size < 0 ? err : start_writeback(io, offset, (uint64_t)size);
}

static struct struct_io_manager ordered_manager =
	LJ_IO_MANAGER("Ordered writeback I/O Manager", ordered_open,
		      ordered_close, lj_io_layer_set_blksize,
		      lj_io_layer_read_blk64, ordered_write_blk64,
		      lj_io_layer_flush, ordered_write_byte,
		      ordered_set_option, lj_io_layer_get_stats,
		      lj_io_layer_discard, lj_io_layer_zeroout);

io_manager lj_ordered_io_manager = &ordered_manager;
