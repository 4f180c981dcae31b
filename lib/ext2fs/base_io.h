/*
 * base_io.h --- the io_manager the library opens devices with, and what
 * all our io_managers (lazy_io.c, crash_io.c, the fuzz harness's
 * in-memory one, bench's read recorder) share.
 */
#ifndef LJ_BASE_IO_H
#define LJ_BASE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* The manager under every device open of the library (lazy channel,
 * migration, writer, feature flags): the unix one; inside the view object
 * the real unix one behind the preloaded view; in crash tests
 * lj_crash_io_manager.  lj_io_set_base(NULL): back to the unix one. */
io_manager lj_io_base(void);
void lj_io_set_base(io_manager m);

/* A channel of manager m on device, a name as ext2fs_open2 takes it:
 * "NAME?OPTIONS" opens NAME, then sets the io OPTIONS (offset=N). */
errcode_t lj_io_open_name(io_manager m, const char *device, int flags,
			  io_channel *ret);

/* A channel of manager m on name (NULL: ""): block size 1024, refcount 1,
 * a zeroed private part of priv_size bytes in io->private_data. */
errcode_t lj_io_channel_new(io_manager m, const char *name, size_t priv_size,
			    io_channel *ret);
/* Free what lj_io_channel_new allocated (private part included). */
void lj_io_channel_free(io_channel io);
/* Byte offset and size of a request of count blocks at block (count < 0:
 * -count bytes) on io; -1 when they do not fit in 64 bits. */
int lj_io_request(io_channel io, unsigned long long block, int count,
		  uint64_t *off, uint64_t *size);

/* read_blk and write_blk of every manager of ours: the manager's 64-bit
 * calls. */
errcode_t lj_io_read_blk(io_channel io, unsigned long block, int count,
			 void *buf);
errcode_t lj_io_write_blk(io_channel io, unsigned long block, int count,
			  const void *buf);
/* set_blksize of a channel with no device below it. */
errcode_t lj_io_set_blksize(io_channel io, int blksize);

/*
 * The table of an io_manager of ours.  NULL where the manager lacks a
 * call; read_blk and write_blk are always lj_io_read_blk/lj_io_write_blk.
 */
#define LJ_IO_MANAGER(desc, open_, close_, set_blksize_, read64, write64, \
		      flush_, write_byte_, set_option_, get_stats_,	\
		      discard_, zeroout_)				\
	{ .magic = EXT2_ET_MAGIC_IO_MANAGER, .name = (desc),		\
	  .open = (open_), .close = (close_),				\
	  .set_blksize = (set_blksize_),				\
	  .read_blk = lj_io_read_blk, .write_blk = lj_io_write_blk,	\
	  .read_blk64 = (read64), .write_blk64 = (write64),		\
	  .flush = (flush_), .write_byte = (write_byte_),		\
	  .set_option = (set_option_), .get_stats = (get_stats_),	\
	  .discard = (discard_), .zeroout = (zeroout_) }

/* ext2fs_open2 (flags as there) reading through io, an open channel,
 * instead of opening the device again; closing the file system leaves io
 * open. */
errcode_t lj_io_open_fs_on(io_channel io, int flags, ext2_filsys *ret);

/*
 * A layer (as libext2fs' test_io): a channel of manager m whose private
 * part (priv_size bytes) starts with the channel below, opened on the
 * same name with manager below; lj_io_below() is that channel.
 */
errcode_t lj_io_layer_open(io_manager m, io_manager below, const char *name,
			   int flags, size_t priv_size, io_channel *ret);
io_channel lj_io_below(io_channel io);
/* The calls of a layer that only pass down. */
errcode_t lj_io_layer_close(io_channel io);
errcode_t lj_io_layer_set_blksize(io_channel io, int blksize);
errcode_t lj_io_layer_set_option(io_channel io, const char *opt,
				 const char *arg);
errcode_t lj_io_layer_get_stats(io_channel io, io_stats *stats);
errcode_t lj_io_layer_read_blk64(io_channel io, unsigned long long block,
				 int count, void *buf);
errcode_t lj_io_layer_write_blk64(io_channel io, unsigned long long block,
				  int count, const void *buf);
errcode_t lj_io_layer_write_byte(io_channel io, unsigned long offset,
				 int size, const void *buf);
errcode_t lj_io_layer_flush(io_channel io);
errcode_t lj_io_layer_discard(io_channel io, unsigned long long block,
			      unsigned long long count);
errcode_t lj_io_layer_zeroout(io_channel io, unsigned long long block,
			      unsigned long long count);

/* The table of a layer: open, the calls it watches, and for the rest the
 * pass-through ones above. */
#define LJ_IO_LAYER_MANAGER(desc, open_, read64, write64, flush_,	\
			    write_byte_, discard_, zeroout_)		\
	LJ_IO_MANAGER(desc, open_, lj_io_layer_close,			\
		      lj_io_layer_set_blksize, read64, write64, flush_,	\
		      write_byte_, lj_io_layer_set_option,		\
		      lj_io_layer_get_stats, discard_, zeroout_)

#endif
