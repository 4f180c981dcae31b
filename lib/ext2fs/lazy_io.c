/*
 * lazy_io.c --- an io_manager that reads metadata through the jmap.
 *
 * The channel wraps a unix channel on the device.  Opening it bootstraps as
 * SPEC §2 says: read the home superblock with a plain ext2fs_open2, find the
 * journal through inode 8, scan the log, build the jmap, and close again.
 * From then on every read is split into file-system blocks; mapped blocks
 * come from their journal copy (with the jbd2 magic restored where the copy
 * was escaped), the rest from home.  So when libext2fs then reads the
 * superblock and group descriptors through this channel, it already sees
 * the journaled copies.  Writes are refused.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lazy_journal.h"
#include "jbd2_format.h"

#define LJ_LAZY_IO_MAGIC	0x4C4A494FL	/* "LJIO" */

struct lazy_priv {
	long magic;
	io_channel home;	/* unix channel, block size = fs block size */
	unsigned int fsbs;	/* file-system block size */
	unsigned char *bounce;	/* one fs block */
	lj_lazy_state st;
	struct struct_io_stats stats;
};

static int next_open_flags;

void lj_lazy_set_open_flags(int flags)
{
	next_open_flags = flags;
}

static struct lazy_priv *priv_of(io_channel io)
{
	struct lazy_priv *p;

	if (!io || io->magic != EXT2_ET_MAGIC_IO_CHANNEL ||
	    io->manager != lj_lazy_io_manager)
		return NULL;
	p = io->private_data;
	return p && p->magic == LJ_LAZY_IO_MAGIC ? p : NULL;
}

errcode_t lj_lazy_get_state(io_channel io, lj_lazy_state **ret)
{
	struct lazy_priv *p = priv_of(io);

	if (!p)
		return LJ_ET_NOT_LAZY_CHANNEL;
	*ret = &p->st;
	return 0;
}

static errcode_t empty_jmap(lj_jmap **ret)
{
	lj_log *log = calloc(1, sizeof(*log));

	if (!log)
		return EXT2_ET_NO_MEMORY;
	log->end = LJ_END_EMPTY;
	return lj_jmap_build(log, 0, ret);
}

/*
 * Find the log and build the jmap.  A journal we cannot read is not an
 * open failure: the state records why there is no log, and the tools
 * decide (debugfs reports it, e2fsck refuses to migrate).
 */
static errcode_t load_log(struct lazy_priv *p, ext2_filsys fs)
{
	lj_lazy_state *st = &p->st;
	lj_log *log = NULL;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super)) {
		snprintf(st->note, sizeof(st->note), "no journal");
		return 0;
	}
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super)) {
		snprintf(st->note, sizeof(st->note),
			 "needs_recovery is clear: the log holds nothing live");
		return 0;
	}
	err = lj_journal_open(fs, p->home, &st->journal);
	if (!err)
		err = lj_log_scan(st->journal, st->lazy ? LJ_SCAN_SALVAGE : 0,
				  &log);
	if (!err) {
		lj_jmap_free(st->jmap);
		st->jmap = NULL;
		err = lj_jmap_build(log, LJ_JMAP_KEEP_TAGS, &st->jmap);
		if (!err)
			st->has_log = st->jmap->log->ntxn != 0;
	}
	if (err) {
		st->journal_err = err;
		snprintf(st->note, sizeof(st->note), "%s", error_message(err));
		if (!st->jmap)
			return empty_jmap(&st->jmap);
	}
	return 0;
}

static errcode_t bootstrap(struct lazy_priv *p, const char *name)
{
	ext2_filsys fs;
	errcode_t err;

	err = ext2fs_open2(name, NULL, EXT2_FLAG_64BITS |
			   EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			   unix_io_manager, &fs);
	if (err)
		return err;
	p->fsbs = fs->blocksize;
	p->st.lazy = lj_fs_is_lazy(fs->super);
	err = io_channel_set_blksize(p->home, (int)fs->blocksize);
	if (!err)
		err = empty_jmap(&p->st.jmap);
	if (!err && !(next_open_flags & LJ_OPEN_NO_LOG))
		err = load_log(p, fs);
	ext2fs_close_free(&fs);
	return err;
}

static errcode_t lazy_close(io_channel channel);

static errcode_t lazy_open(const char *name, int flags, io_channel *channel)
{
	io_channel io;
	struct lazy_priv *p;
	errcode_t err;

	*channel = NULL;
	if (!name)
		return EXT2_ET_BAD_DEVICE_NAME;
	io = calloc(1, sizeof(*io));
	p = calloc(1, sizeof(*p));
	if (!io || !p) {
		free(io);
		free(p);
		return EXT2_ET_NO_MEMORY;
	}
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = lj_lazy_io_manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = p;
	p->magic = LJ_LAZY_IO_MAGIC;
	p->stats.num_fields = 2;
	io->name = strdup(name);
	if (!io->name) {
		err = EXT2_ET_NO_MEMORY;
		goto fail;
	}
	/* The device itself is only ever opened read-only. */
	err = unix_io_manager->open(name, flags & ~IO_FLAG_RW, &p->home);
	if (err)
		goto fail;
	err = bootstrap(p, name);
	if (err)
		goto fail;
	p->bounce = malloc(p->fsbs);
	if (!p->bounce) {
		err = EXT2_ET_NO_MEMORY;
		goto fail;
	}
	next_open_flags = 0;
	*channel = io;
	return 0;
fail:
	next_open_flags = 0;
	lazy_close(io);
	return err;
}

static errcode_t lazy_close(io_channel channel)
{
	struct lazy_priv *p = channel->private_data;

	if (--channel->refcount > 0)
		return 0;
	if (p) {
		lj_jmap_free(p->st.jmap);
		lj_journal_close(p->st.journal);
		if (p->home)
			io_channel_close(p->home);
		free(p->bounce);
		free(p);
	}
	free(channel->name);
	free(channel);
	return 0;
}

static errcode_t lazy_set_blksize(io_channel channel, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	channel->block_size = blksize;
	return 0;
}

/* One fs block's live copy: from the journal if mapped, else from home. */
static errcode_t read_fs_block(struct lazy_priv *p, blk64_t blk, void *buf)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(p->st.jmap, blk);
	errcode_t err;

	if (!e) {
		p->st.reads_home++;
		return io_channel_read_blk64(p->home, blk, 1, buf);
	}
	err = lj_journal_read(p->st.journal, e->jblock, 1, buf);
	if (err)
		return err;
	if (lj_jmap_escaped(p->st.jmap, e->jblock))
		lj_put_be32(buf, LJ_JBD2_MAGIC);
	p->st.reads_mapped++;
	return 0;
}

/* Unmapped blocks from blk on, at most max (a run read from home at once). */
static blk64_t home_run(struct lazy_priv *p, blk64_t blk, blk64_t max)
{
	blk64_t n = 0;

	while (n < max && !lj_jmap_lookup(p->st.jmap, blk + n))
		n++;
	return n;
}

static errcode_t lazy_read_blk64(io_channel channel, unsigned long long block,
				 int count, void *data)
{
	struct lazy_priv *p = channel->private_data;
	uint64_t size = count < 0 ? (uint64_t)-(int64_t)count :
			(uint64_t)count * (uint64_t)channel->block_size;
	uint64_t off = block * (uint64_t)channel->block_size;
	unsigned char *dst = data;
	errcode_t err;

	p->stats.bytes_read += size;
	while (size) {
		blk64_t blk = off / p->fsbs;
		unsigned int in = (unsigned int)(off % p->fsbs);
		uint64_t whole = in ? 0 : size / p->fsbs;
		blk64_t run = whole ? home_run(p, blk, whole) : 0;
		size_t part;

		if (run) {	/* aligned unmapped blocks: one home read */
			err = io_channel_read_blk64(p->home, blk, (int)run, dst);
			if (err)
				return err;
			p->st.reads_home += run;
			part = (size_t)(run * p->fsbs);
		} else if (whole) {	/* an aligned mapped block */
			err = read_fs_block(p, blk, dst);
			if (err)
				return err;
			part = p->fsbs;
		} else {		/* part of a block */
			part = p->fsbs - in;
			if (part > size)
				part = (size_t)size;
			err = read_fs_block(p, blk, p->bounce);
			if (err)
				return err;
			memcpy(dst, p->bounce + in, part);
		}
		dst += part;
		off += part;
		size -= part;
	}
	return 0;
}

static errcode_t lazy_read_blk(io_channel channel, unsigned long block,
			       int count, void *data)
{
	return lazy_read_blk64(channel, block, count, data);
}

static errcode_t lazy_write_blk64(io_channel channel, unsigned long long block,
				  int count, const void *data)
{
	(void)channel; (void)block; (void)count; (void)data;
	return LJ_ET_WRITE_REFUSED;
}

static errcode_t lazy_write_blk(io_channel channel, unsigned long block,
				int count, const void *data)
{
	return lazy_write_blk64(channel, block, count, data);
}

static errcode_t lazy_write_byte(io_channel channel, unsigned long offset,
				 int size, const void *data)
{
	return lazy_write_blk64(channel, offset, size, data);
}

static errcode_t lazy_discard(io_channel channel, unsigned long long block,
			      unsigned long long count)
{
	(void)channel; (void)block; (void)count;
	return LJ_ET_WRITE_REFUSED;
}

static errcode_t lazy_flush(io_channel channel)
{
	(void)channel;
	return 0;
}

static errcode_t lazy_set_option(io_channel channel, const char *option,
				 const char *arg)
{
	(void)channel; (void)option; (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t lazy_get_stats(io_channel channel, io_stats *stats)
{
	struct lazy_priv *p = channel->private_data;

	*stats = &p->stats;
	return 0;
}

errcode_t lj_lazy_read_home(io_channel io, blk64_t blk, void *buf)
{
	struct lazy_priv *p = priv_of(io);

	if (!p)
		return LJ_ET_NOT_LAZY_CHANNEL;
	return io_channel_read_blk64(p->home, blk, 1, buf);
}

errcode_t lj_open_fs(const char *name, int flags, ext2_filsys *ret)
{
	*ret = NULL;
	if (flags & EXT2_FLAG_RW)
		return LJ_ET_WRITE_REFUSED;
	return ext2fs_open2(name, NULL, flags | EXT2_FLAG_64BITS, 0, 0,
			    lj_lazy_io_manager, ret);
}

static struct struct_io_manager lazy_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "Lazy journal I/O Manager",
	.open		= lazy_open,
	.close		= lazy_close,
	.set_blksize	= lazy_set_blksize,
	.read_blk	= lazy_read_blk,
	.write_blk	= lazy_write_blk,
	.flush		= lazy_flush,
	.write_byte	= lazy_write_byte,
	.set_option	= lazy_set_option,
	.get_stats	= lazy_get_stats,
	.read_blk64	= lazy_read_blk64,
	.write_blk64	= lazy_write_blk64,
	.discard	= lazy_discard,
	.zeroout	= lazy_discard,
};

io_manager lj_lazy_io_manager = &lazy_manager;
