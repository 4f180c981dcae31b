/*
 * base_io.c --- the io_manager our library opens devices with.
 *
 * Normally the unix manager of libext2fs.  Inside the view object
 * (view.c), which a stock binary preloads and whose unix_io_manager is our
 * own view manager, the view points this at the real unix manager so that
 * the library never opens a device through itself.
 *
 * Also what every io_manager of ours (lazy_io.c, crash_io.c, the fuzz
 * harness's in-memory one, bench's read recorder) does the same way: a new
 * channel, its release, the byte range of a block request, the 32-bit
 * block calls, and for the layers over another channel (crash_io.c,
 * bench) the open and the calls that only pass down.
 */
#include <string.h>

#include "base_io.h"

static io_manager base_manager;

io_manager lj_io_base(void)
{
	return base_manager ? base_manager : unix_io_manager;
}

void lj_io_set_base(io_manager m)
{
	base_manager = m;
}

errcode_t lj_io_channel_new(io_manager m, const char *name, size_t priv_size,
			    io_channel *ret)
{
	io_channel io = NULL;
	errcode_t err;

	*ret = NULL;
	if (!name)
		name = "";
	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (err)
		return err;
	err = ext2fs_get_memzero(priv_size ? priv_size : 1, &io->private_data);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (err) {
		lj_io_channel_free(io);
		return err;
	}
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = m;
	io->block_size = 1024;
	io->refcount = 1;
	*ret = io;
	return 0;
}

void lj_io_channel_free(io_channel io)
{
	if (!io)
		return;
	ext2fs_free_mem(&io->private_data);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
}

int lj_io_request(io_channel io, unsigned long long block, int count,
		  uint64_t *off, uint64_t *size)
{
	uint64_t bs = (uint64_t)io->block_size;

	*size = count < 0 ? (uint64_t)-(int64_t)count : (uint64_t)count * bs;
	if (block > UINT64_MAX / bs)
		return -1;
	*off = block * bs;
	return *size > UINT64_MAX - *off ? -1 : 0;
}

errcode_t lj_io_read_blk(io_channel io, unsigned long block, int count,
			 void *buf)
{
	return io->manager->read_blk64(io, block, count, buf);
}

errcode_t lj_io_write_blk(io_channel io, unsigned long block, int count,
			  const void *buf)
{
	return io->manager->write_blk64(io, block, count, buf);
}

errcode_t lj_io_set_blksize(io_channel io, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	io->block_size = blksize;
	return 0;
}

errcode_t lj_io_open_name(io_manager m, const char *device, int flags,
			  io_channel *ret)
{
	const char *q = strchr(device, '?');
	char *name;
	errcode_t err;

	*ret = NULL;
	if (!q)
		return m->open(device, flags, ret);
	err = ext2fs_get_mem((size_t)(q - device) + 1, &name);
	if (err)
		return err;
	memcpy(name, device, (size_t)(q - device));
	name[q - device] = '\0';
	err = m->open(name, flags, ret);
	ext2fs_free_mem(&name);
	if (!err)
		err = io_channel_set_options(*ret, q + 1);
	if (err && *ret) {
		io_channel_close(*ret);
		*ret = NULL;
	}
	return err;
}

/*
 * ext2fs_open2 takes a manager to open a channel with, never a channel.
 * The lent manager's open hands out one more reference to the channel lent
 * for the call; the file system's close drops it.
 */
static io_channel lent;

static errcode_t lent_open(const char *name EXT2FS_ATTR((unused)),
			   int flags EXT2FS_ATTR((unused)), io_channel *ret)
{
	if (!lent)
		return EXT2_ET_BAD_DEVICE_NAME;
	lent->refcount++;
	*ret = lent;
	return 0;
}

static struct struct_io_manager lent_manager = {
	.magic	= EXT2_ET_MAGIC_IO_MANAGER,
	.name	= "Lent channel I/O Manager",
	.open	= lent_open,
};

errcode_t lj_io_open_fs_on(io_channel io, int flags, ext2_filsys *ret)
{
	void *app_data = io->app_data;
	errcode_t err;

	lent = io;
	err = ext2fs_open2(io->name, NULL, flags, 0, 0, &lent_manager, ret);
	lent = NULL;
	io->app_data = app_data;	/* ext2fs_open2 points it at *ret */
	return err;
}

/* The private part of a layer begins with this. */
struct io_layer {
	io_channel below;
};

io_channel lj_io_below(io_channel io)
{
	return ((struct io_layer *)io->private_data)->below;
}

errcode_t lj_io_layer_open(io_manager m, io_manager below, const char *name,
			   int flags, size_t priv_size, io_channel *ret)
{
	struct io_layer *l;
	io_channel io;
	errcode_t err;

	*ret = NULL;
	if (priv_size < sizeof(*l))
		priv_size = sizeof(*l);
	err = lj_io_channel_new(m, name, priv_size, &io);
	if (err)
		return err;
	l = io->private_data;
	err = below->open(name, flags, &l->below);
	if (err) {
		lj_io_channel_free(io);
		return err;
	}
	*ret = io;
	return 0;
}

errcode_t lj_io_layer_close(io_channel io)
{
	errcode_t err = 0;

	if (--io->refcount > 0)
		return 0;
	if (lj_io_below(io))
		err = io_channel_close(lj_io_below(io));
	lj_io_channel_free(io);
	return err;
}

errcode_t lj_io_layer_set_blksize(io_channel io, int blksize)
{
	errcode_t err = io_channel_set_blksize(lj_io_below(io), blksize);

	if (!err)
		io->block_size = blksize;
	return err;
}

errcode_t lj_io_layer_set_option(io_channel io, const char *opt,
				 const char *arg)
{
	io_channel b = lj_io_below(io);

	return b->manager->set_option ? b->manager->set_option(b, opt, arg) :
		EXT2_ET_INVALID_ARGUMENT;
}

errcode_t lj_io_layer_get_stats(io_channel io, io_stats *stats)
{
	io_channel b = lj_io_below(io);

	return b->manager->get_stats ? b->manager->get_stats(b, stats) :
		EXT2_ET_UNIMPLEMENTED;
}

errcode_t lj_io_layer_read_blk64(io_channel io, unsigned long long block,
				 int count, void *buf)
{
	return io_channel_read_blk64(lj_io_below(io), block, count, buf);
}

errcode_t lj_io_layer_write_blk64(io_channel io, unsigned long long block,
				  int count, const void *buf)
{
	return io_channel_write_blk64(lj_io_below(io), block, count, buf);
}

errcode_t lj_io_layer_write_byte(io_channel io, unsigned long offset,
				 int size, const void *buf)
{
	return io_channel_write_byte(lj_io_below(io), offset, size, buf);
}

errcode_t lj_io_layer_flush(io_channel io)
{
	return io_channel_flush(lj_io_below(io));
}

errcode_t lj_io_layer_discard(io_channel io, unsigned long long block,
			      unsigned long long count)
{
	return io_channel_discard(lj_io_below(io), block, count);
}

errcode_t lj_io_layer_zeroout(io_channel io, unsigned long long block,
			      unsigned long long count)
{
	return io_channel_zeroout(lj_io_below(io), block, count);
}
