/*
 * read_record_io.c --- a pass-through io_manager that reports every device
 * read to one callback (bench/workload -T).  bench/workload installs it
 * under the library with lj_io_set_base(), so the lazy channel's home
 * reads, journal reads and the writer's reads all pass here.  Writes,
 * flushes and options go straight to the real channel.
 */
#include "read_record_io.h"

static io_manager rr_real;
static rr_read_fn rr_fn;
static void *rr_arg;

void rr_set_real(io_manager real)
{
	rr_real = real;
}

void rr_set_reader(rr_read_fn fn, void *arg)
{
	rr_fn = fn;
	rr_arg = arg;
}

/* The private part of a channel (lj_io_channel_new): the real channel. */
struct rr_priv {
	io_channel real;
};

static io_channel real_of(io_channel ch)
{
	return ((struct rr_priv *)ch->private_data)->real;
}

static errcode_t rr_close(io_channel ch)
{
	errcode_t err = 0;

	if (--ch->refcount > 0)
		return 0;
	if (real_of(ch))
		err = io_channel_close(real_of(ch));
	lj_io_channel_free(ch);
	return err;
}

static errcode_t rr_open(const char *name, int flags, io_channel *ret)
{
	io_manager real = rr_real ? rr_real : unix_io_manager;
	struct rr_priv *p;
	io_channel io;
	errcode_t err;

	*ret = NULL;
	err = lj_io_channel_new(rr_io_manager, name, sizeof(*p), &io);
	if (err)
		return err;
	p = io->private_data;
	err = real->open(name, flags, &p->real);
	if (err) {
		rr_close(io);
		return err;
	}
	*ret = io;
	return 0;
}

static errcode_t rr_set_blksize(io_channel ch, int blksize)
{
	errcode_t err = io_channel_set_blksize(real_of(ch), blksize);

	if (!err)
		ch->block_size = blksize;
	return err;
}

static errcode_t rr_read_blk64(io_channel ch, unsigned long long block,
			       int count, void *data)
{
	uint64_t off, size;
	errcode_t err;

	if (lj_io_request(ch, block, count, &off, &size))
		return EXT2_ET_SHORT_READ;
	err = io_channel_read_blk64(real_of(ch), block, count, data);
	if (!err && rr_fn && size)
		rr_fn(rr_arg, off, size);
	return err;
}

static errcode_t rr_read_blk(io_channel ch, unsigned long block, int count,
			     void *data)
{
	return rr_read_blk64(ch, block, count, data);
}

static errcode_t rr_write_blk64(io_channel ch, unsigned long long block,
				int count, const void *data)
{
	return io_channel_write_blk64(real_of(ch), block, count, data);
}

static errcode_t rr_write_blk(io_channel ch, unsigned long block, int count,
			      const void *data)
{
	return rr_write_blk64(ch, block, count, data);
}

static errcode_t rr_write_byte(io_channel ch, unsigned long offset, int size,
			       const void *data)
{
	return io_channel_write_byte(real_of(ch), offset, size, data);
}

static errcode_t rr_flush(io_channel ch)
{
	return io_channel_flush(real_of(ch));
}

static errcode_t rr_set_option(io_channel ch, const char *opt,
			       const char *arg)
{
	io_channel r = real_of(ch);

	return r->manager->set_option ? r->manager->set_option(r, opt, arg) :
		EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t rr_get_stats(io_channel ch, io_stats *stats)
{
	io_channel r = real_of(ch);

	return r->manager->get_stats ? r->manager->get_stats(r, stats) :
		EXT2_ET_UNIMPLEMENTED;
}

static errcode_t rr_discard(io_channel ch, unsigned long long block,
			    unsigned long long count)
{
	return io_channel_discard(real_of(ch), block, count);
}

static errcode_t rr_zeroout(io_channel ch, unsigned long long block,
			    unsigned long long count)
{
	return io_channel_zeroout(real_of(ch), block, count);
}

static struct struct_io_manager rr_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "Read-recording I/O Manager (bench)",
	.open		= rr_open,
	.close		= rr_close,
	.set_blksize	= rr_set_blksize,
	.read_blk	= rr_read_blk,
	.write_blk	= rr_write_blk,
	.flush		= rr_flush,
	.write_byte	= rr_write_byte,
	.set_option	= rr_set_option,
	.get_stats	= rr_get_stats,
	.read_blk64	= rr_read_blk64,
	.write_blk64	= rr_write_blk64,
	.discard	= rr_discard,
	.zeroout	= rr_zeroout,
};

io_manager rr_io_manager = &rr_manager;
