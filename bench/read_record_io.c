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

static errcode_t rr_open(const char *name, int flags, io_channel *ret)
{
	return lj_io_layer_open(rr_io_manager, rr_real ? rr_real :
				unix_io_manager, name, flags, 0, ret);
}

static errcode_t rr_read_blk64(io_channel ch, unsigned long long block,
			       int count, void *data)
{
	uint64_t off, size;
	errcode_t err;

	if (lj_io_request(ch, block, count, &off, &size))
		return EXT2_ET_SHORT_READ;
	err = io_channel_read_blk64(lj_io_below(ch), block, count, data);
	if (!err && rr_fn && size)
		rr_fn(rr_arg, off, size);
	return err;
}

/* Writes, flushes, discards and zeroouts only pass down. */
static struct struct_io_manager rr_manager =
	LJ_IO_LAYER_MANAGER("Read-recording I/O Manager (bench)", rr_open,
			    rr_read_blk64, lj_io_layer_write_blk64,
			    lj_io_layer_flush, lj_io_layer_write_byte,
			    lj_io_layer_discard, lj_io_layer_zeroout);

io_manager rr_io_manager = &rr_manager;
