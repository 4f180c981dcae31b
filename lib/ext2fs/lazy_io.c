/*
 * lazy_io.c --- an io_manager that reads metadata through the jmap.
 *
 * The channel wraps a unix channel on the device.  Its first use (a read,
 * a write, a state query) bootstraps per doc/contract.md §2.3: read the home
 * superblock with a plain ext2fs_open2 (through that unix channel), find
 * the journal through inode 8, scan the log, build the jmap
 * (lazy_state.c), and close again.  Not the open: ext2fs_open2 applies
 * the io options of a name (IMAGE?offset=N, a file system inside a larger
 * file) only after the manager's open, and the bootstrap must read the
 * device as they place it.  The offset is remembered, so that whatever
 * opens the device again by name (the writer's flag changes, migration)
 * opens it at the same place (lj_lazy_device_name).
 * From then on every read is split into file-system blocks; mapped blocks
 * come from their journal copy (with the jbd2 magic restored where the copy
 * was escaped), the rest from home.  So when libext2fs then reads the
 * superblock and group descriptors through this channel, it already sees
 * the journaled copies.  Writes are refused unless the channel was opened
 * for writing (then they are journaled, see lazy_journal.h).
 *
 * Two views for the view object (view.c): LJ_OPEN_MIGRATED shows the file
 * system as migration will leave it (the primary superblock without
 * needs_recovery and lazy_journal, the journal superblock as an empty log),
 * and LJ_LAZY_HOME_VIEW (lj_lazy_set_mode) switches a channel to the home
 * copies.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lazy_journal.h"
#include "base_io.h"
#include "jbd2_format.h"
#include "lj_private.h"

#define LJ_LAZY_IO_MAGIC	0x4C4A494FL	/* "LJIO" */
#define LJ_CACHE_SLOTS		1024	/* blocks cached (open for writing) */

struct lazy_priv {
	long magic;
	io_channel home;	/* unix channel, block size = fs block size */
	io_channel log;		/* the log's writes (lj_lazy_ordered_log) */
	int rw;			/* open for writing: writes are journaled */
	int open_flags;		/* LJ_OPEN_* of the open */
	int ready;		/* bootstrapped (boot_err its answer) */
	errcode_t boot_err;
	char *offset;		/* the io option offset=, or NULL */
	uint64_t offset_bytes;	/* its value (the home channel accepted it) */
	int modes;		/* LJ_LAZY_*: data home, reads from home */
	int migrated;		/* LJ_OPEN_MIGRATED: patch sb and jsb */
	int commit_wanted;	/* a flush came under LJ_LAZY_DEFER_COMMIT */
	int data_unflushed;	/* data sent home since the last flush */
	int home_fd;		/* read-only on the device (lj_lazy_home_extent):
				 * -1 not yet opened, -2 could not be */
	/* Blocks freed since the last commit: the committed file system
	 * may still use them, so data over them is journaled.  freed_all:
	 * the set could not grow, so all data is, until the commit. */
	struct lj_block_set freed;
	int freed_all;
	/* While a commit is written (lj_lazy_commit_start .. _finish):
	 * what freed and freed_all held when it started (its blocks are
	 * used by the committed file system until it is durable), and
	 * whether data went home before it (its flushes cover that). */
	struct lj_block_set freed_committing;
	int freed_committing_all;
	int commit_flush;
	int keep_lazy;		/* LJ_OPEN_KEEP_LAZY: the flag stays */
	/* Blocks allocated since the last commit (lj_lazy_note_allocated):
	 * free in the committed file system, so a metadata write to one
	 * is a change whatever the device holds there, and LJ_LAZY_SKIP_SAME
	 * reads no old copy to compare it with.  A block missing from the
	 * set (it could not grow) is compared as any other. */
	struct lj_block_set allocated;
	blk64_t sb_blk;		/* fs block holding the primary superblock */
	blk64_t jsb_blk;	/* fs block of the journal superblock, or 0 */
	lj_writer *writer;
	lj_io_record_fn rec;	/* I/O record of data writes (workload) */
	void *rec_arg;
	unsigned int fsbs;	/* file-system block size */
	unsigned char *bounce;	/* one fs block */
	unsigned char *live;	/* one fs block: the live copy compared */
	struct lj_block_cache cache;	/* open for writing: recent blocks */
	char *verified;		/* lj_lazy_set_open_verified's token, kept
				   for the first bootstrap only */
	lj_lazy_state st;
	struct struct_io_stats stats;
};

static int next_open_flags;
static io_channel next_device;
static const char *next_verified;	/* lj_lazy_set_open_verified */

void lj_lazy_set_open_flags(int flags)
{
	next_open_flags = flags;
}

void lj_lazy_verified_token(io_channel io, char *buf, size_t size)
{
	lj_lazy_state *st;

	if (size)
		buf[0] = '\0';
	if (!lj_lazy_get_state(io, &st))
		lj_lazy_state_token(st, io->name, buf, size);
}

void lj_lazy_set_open_verified(const char *token)
{
	next_verified = token;
}

void lj_lazy_set_open_device(io_channel dev)
{
	next_device = dev;
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

/* The channel's private part, or LJ_ET_NOT_LAZY_CHANNEL. */
static errcode_t lazy_priv(io_channel io, struct lazy_priv **p)
{
	*p = priv_of(io);
	return *p ? 0 : LJ_ET_NOT_LAZY_CHANNEL;
}

static errcode_t ready(io_channel io, struct lazy_priv **pp);

/* The private part of a lazy channel, bootstrapped. */
static errcode_t booted_priv(io_channel io, struct lazy_priv **p)
{
	errcode_t err = lazy_priv(io, p);

	return err ? err : ready(io, p);
}

errcode_t lj_lazy_get_state(io_channel io, lj_lazy_state **ret)
{
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	if (!err)
		*ret = &p->st;
	return err;
}

static errcode_t bootstrap(struct lazy_priv *p)
{
	ext2_filsys fs;
	int flags = p->open_flags;
	errcode_t err;

	/* Through the home channel: the device is opened once. */
	err = lj_io_open_fs_on(p->home, EXT2_FLAG_64BITS |
			       EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs);
	if (err)
		return err;
	p->fsbs = fs->blocksize;
	p->st.lazy = lj_fs_is_lazy(fs->super);
	err = io_channel_set_blksize(p->home, (int)fs->blocksize);
	if (!err)
		err = lj_lazy_state_load(&p->st, fs, p->home, p->rw,
					 !(flags & LJ_OPEN_NO_LOG));
	p->sb_blk = SUPERBLOCK_OFFSET / fs->blocksize;
	if (!err && (flags & LJ_OPEN_MIGRATED)) {
		p->migrated = 1;
		p->keep_lazy = (flags & LJ_OPEN_KEEP_LAZY) != 0;
		if (p->st.journal && p->st.journal->start)
			p->jsb_blk = lj_journal_pblk(p->st.journal, 0);
	}
	ext2fs_close_free(&fs);
	return err;
}

static errcode_t lazy_close(io_channel channel);

errcode_t lj_lazy_device_name(io_channel io, char **ret)
{
	struct lazy_priv *p = priv_of(io);
	size_t len = strlen(io->name) + 1;
	errcode_t err;

	if (p && p->offset)
		len += strlen("?offset=") + strlen(p->offset);
	err = ext2fs_get_mem(len, ret);
	if (!err)
		snprintf(*ret, len, "%s%s%s", io->name,
			 p && p->offset ? "?offset=" : "",
			 p && p->offset ? p->offset : "");
	return err;
}

/* The state behind the channel, from its first use on. */
static errcode_t boot(struct lazy_priv *p)
{
	errcode_t err;

	p->st.verified = p->verified;
	err = bootstrap(p);
	p->st.verified = NULL;
	ext2fs_free_mem(&p->verified);	/* a reload scans the log again */

	if (!err && p->rw) {
		err = lj_writer_open(&p->st, p->home, &p->writer);
		if (!err && p->rec)
			lj_writer_set_record(p->writer, p->rec, p->rec_arg);
		if (!err && p->log)
			lj_writer_set_log(p->writer, p->log);
		if (!err)
			err = lj_bcache_init(&p->cache, LJ_CACHE_SLOTS, p->fsbs);
		if (!err)
			lj_writer_set_cache(p->writer, &p->cache);
	}
	if (!err)
		err = ext2fs_get_mem(p->fsbs, &p->bounce);
	if (!err)
		err = ext2fs_get_mem(p->fsbs, &p->live);
	return err;
}

/* p, bootstrapped: 0, or why the bootstrap failed (every time). */
static errcode_t ready(io_channel io, struct lazy_priv **pp)
{
	struct lazy_priv *p = io->private_data;

	if (!p->ready) {
		p->boot_err = boot(p);
		p->ready = 1;
	}
	*pp = p;
	return p->boot_err;
}

/* Back to before the bootstrap (the state freed). */
static void unload(struct lazy_priv *p)
{
	lj_writer_close(p->writer);
	p->writer = NULL;
	lj_jmap_free(p->st.jmap);
	lj_journal_close(p->st.journal);
	memset(&p->st, 0, sizeof(p->st));
	ext2fs_free_mem(&p->bounce);
	ext2fs_free_mem(&p->live);
	lj_bcache_free(&p->cache);
	lj_bset_free(&p->freed);
	lj_bset_free(&p->freed_committing);
	lj_bset_free(&p->allocated);
	p->freed_all = p->freed_committing_all = p->commit_wanted = 0;
	p->migrated = p->keep_lazy = 0;
	p->jsb_blk = 0;
	p->ready = 0;
	p->boot_err = 0;
}

static errcode_t lazy_open(const char *name, int flags, io_channel *channel)
{
	io_channel io, dev = next_device;
	const char *verified = next_verified;
	struct lazy_priv *p;
	errcode_t err;

	*channel = NULL;
	next_device = NULL;
	next_verified = NULL;
	err = name ? lj_io_channel_new(lj_lazy_io_manager, name, sizeof(*p),
				       &io) : EXT2_ET_BAD_DEVICE_NAME;
	if (err) {
		if (dev)
			io_channel_close(dev);
		next_open_flags = 0;
		return err;
	}
	p = io->private_data;
	p->magic = LJ_LAZY_IO_MAGIC;
	p->open_flags = next_open_flags;
	next_open_flags = 0;
	p->stats.num_fields = 2;
	/* Read-only unless writing was asked for; then journal writes must
	 * reach the device when they are made (no write-back cache). */
	p->rw = (flags & IO_FLAG_RW) != 0;
	p->home_fd = -1;
	p->home = dev;
	if (!p->home)	/* a commit may write while a request reads */
		err = lj_io_base()->open(name, p->rw ? flags | IO_FLAG_THREADS :
					 flags, &p->home);
	if (!err && p->rw)
		err = io_channel_set_options(p->home, "cache=off");
	if (!err && verified && *verified)
		err = ext2fs_get_mem(strlen(verified) + 1, &p->verified);
	if (!err && p->verified)
		strcpy(p->verified, verified);
	if (err) {
		lazy_close(io);
		return err;
	}
	*channel = io;
	return 0;
}

/*
 * A commit in three steps (lj_writer_commit_start and the two after it):
 * the blocks freed and allocated since the last commit start afresh for
 * the next, the freed ones kept aside until this one is durable (then
 * they are free on disk).  A commit flushes the data it orders before
 * its commit block; with nothing to commit, data sent home since the
 * last flush is flushed all the same: durable on return (an fsync after
 * an overwrite in place).  *io_left (may be NULL): whether the write
 * step has device I/O to do.
 */
static errcode_t commit_start(struct lazy_priv *p, int *io_left)
{
	struct lj_block_set tmp;
	errcode_t err = lj_writer_commit_start(p->writer);

	p->commit_wanted = 0;
	if (err)
		return err;
	tmp = p->freed_committing;	/* empty */
	p->freed_committing = p->freed;
	p->freed = tmp;
	p->freed_committing_all = p->freed_all;
	p->freed_all = 0;
	lj_bset_clear(&p->allocated);
	p->commit_flush = p->data_unflushed;
	p->data_unflushed = 0;
	if (io_left)
		*io_left = lj_writer_committing(p->writer) || p->commit_flush;
	return 0;
}

static errcode_t commit_write(struct lazy_priv *p)
{
	if (lj_writer_committing(p->writer))
		return lj_writer_commit_write(p->writer);
	return p->commit_flush ? io_channel_flush(p->home) : 0;
}

static errcode_t commit_finish(struct lazy_priv *p, errcode_t err)
{
	err = lj_writer_commit_finish(p->writer, err);
	if (err) {
		/* which blocks were freed is not kept: all data is
		 * journaled until a commit succeeds */
		if (p->freed_committing_all || p->freed_committing.n)
			p->freed_all = 1;
		p->data_unflushed |= p->commit_flush;
	}
	lj_bset_clear(&p->freed_committing);
	p->freed_committing_all = 0;
	p->commit_flush = 0;
	return err;
}

static errcode_t commit(struct lazy_priv *p)
{
	errcode_t err = commit_start(p, NULL);

	return err ? err : commit_finish(p, commit_write(p));
}

static errcode_t lazy_close(io_channel channel)
{
	struct lazy_priv *p = channel->private_data;
	errcode_t err = 0;

	if (--channel->refcount > 0)
		return 0;
	if (p && p->writer)
		err = commit(p);
	if (p) {
		unload(p);
		if (p->log)
			io_channel_close(p->log);
		if (p->home)
			io_channel_close(p->home);
		if (p->home_fd >= 0)
			close(p->home_fd);
		ext2fs_free_mem(&p->offset);
		ext2fs_free_mem(&p->verified);
	}
	lj_io_channel_free(channel);
	return err;
}

/* Is blk shown other than it is stored (the migrated view)? */
static int patched(const struct lazy_priv *p, blk64_t blk)
{
	return p->migrated && (blk == p->sb_blk ||
			       (p->jsb_blk && blk == p->jsb_blk));
}

/*
 * The migrated view of a superblock or journal superblock block: what
 * lj_migrate_home leaves there (needs_recovery and lazy_journal clear; the
 * log empty, s_sequence one past its end), checksums recomputed.
 */
static void patch_block(struct lazy_priv *p, blk64_t blk, unsigned char *buf)
{
	if (blk == p->sb_blk) {
		struct ext2_super_block *sb = (struct ext2_super_block *)
			(buf + SUPERBLOCK_OFFSET % p->fsbs);

		if (sb->s_magic != EXT2_SUPER_MAGIC)
			return;
		/* A log that cannot be read stays as it is, needs_recovery
		 * included, for e2fsck to report (only the flag is hidden). */
		if (!p->st.journal_err)
			ext2fs_clear_feature_journal_needs_recovery(sb);
		if (p->migrated && !p->keep_lazy)
			sb->s_feature_compat &= ~LJ_FEATURE_COMPAT_LAZY_JOURNAL;
		lj_sb_csum_set(sb);
	}
	if (p->jsb_blk && blk == p->jsb_blk && !p->st.journal_err &&
	    lj_be32(buf) == LJ_JBD2_MAGIC) {
		lj_jsb_set_log(p->st.journal, buf, 0,
			       p->st.jmap->log->end_tid + 1);
	}
}

static errcode_t read_fs_block_raw(struct lazy_priv *p, blk64_t blk,
				   void *buf);

/* May blk's bytes be cached?  Not a block of the journal: the writer
 * writes those below the channel.  (The writer keeps the cache up to date
 * with what it adds and revokes.) */
static int cacheable(const struct lazy_priv *p, blk64_t blk)
{
	return p->cache.slots && !(p->modes & LJ_LAZY_HOME_VIEW) &&
	       !lj_journal_lblk(p->st.journal, blk, NULL);
}

/* One fs block as this channel shows it. */
static errcode_t read_fs_block(struct lazy_priv *p, blk64_t blk, void *buf)
{
	errcode_t err = read_fs_block_raw(p, blk, buf);

	if (!err && patched(p, blk))
		patch_block(p, blk, buf);
	return err;
}

/* One fs block's live copy: from the journal if mapped, else from home. */
static errcode_t read_fs_block_raw(struct lazy_priv *p, blk64_t blk,
				   void *buf)
{
	const struct lj_jmap_entry *e;
	const unsigned char *pending, *data;
	errcode_t err;

	if (p->modes & LJ_LAZY_HOME_VIEW) {
		p->st.reads_home++;
		return io_channel_read_blk64(p->home, blk, 1, buf);
	}
	if (lj_jmap_live(p->st.jmap, blk, &e, &data) == LJ_LIVE_DATA) {
		memcpy(buf, data, p->fsbs);
		p->st.reads_mapped++;
		return 0;
	}

	if (p->writer) {	/* the running transaction comes first */
		int in = lj_writer_lookup(p->writer, blk, &pending);

		if (in > 0) {
			memcpy(buf, pending, p->fsbs);
			return 0;
		}
		if (in < 0)
			e = NULL;	/* revoked: home is live */
	}
	if (lj_bcache_get(&p->cache, blk, buf))
		return 0;
	if (!e) {
		p->st.reads_home++;
		err = io_channel_read_blk64(p->home, blk, 1, buf);
	} else {
		err = lj_journal_read(p->st.journal, e->jblock, 1, buf);
		if (!err && lj_jmap_escaped(p->st.jmap, e->jblock))
			lj_put_be32(buf, LJ_JBD2_MAGIC);
		if (!err)
			p->st.reads_mapped++;
	}
	if (!err && cacheable(p, blk))
		lj_bcache_put(&p->cache, blk, buf);
	return err;
}

/* Unmapped blocks from blk on, at most max (a run read from home at once). */
static blk64_t home_run(struct lazy_priv *p, blk64_t blk, blk64_t max)
{
	blk64_t n = 0;

	const unsigned char *pending, *data;
	const struct lj_jmap_entry *e;

	if (p->modes & LJ_LAZY_HOME_VIEW)
		return max;
	while (n < max &&
	       lj_jmap_live(p->st.jmap, blk + n, &e, &data) == LJ_LIVE_HOME &&
	       !patched(p, blk + n) &&
	       !(p->writer && lj_writer_lookup(p->writer, blk + n, &pending)))
		n++;
	return n;
}

/*
 * Mapped blocks from blk on, at most max, whose live copies are journal
 * blocks in a row from *first on (one journal read; none patched, none in
 * the running transaction); 0 when blk's live copy is not in the journal.
 */
static blk64_t journal_run(struct lazy_priv *p, blk64_t blk, blk64_t max,
			   uint32_t *first)
{
	const unsigned char *pending, *data;
	const struct lj_jmap_entry *e;
	blk64_t n = 0;

	if (p->modes & LJ_LAZY_HOME_VIEW)
		return 0;
	while (n < max &&
	       lj_jmap_live(p->st.jmap, blk + n, &e, &data) == LJ_LIVE_JOURNAL &&
	       (n ? e->jblock == *first + n : (*first = e->jblock, 1)) &&
	       !patched(p, blk + n) &&
	       !(p->writer && lj_writer_lookup(p->writer, blk + n, &pending)))
		n++;
	return n;
}

/* n live copies from journal block first on into dst, escapes undone. */
static errcode_t read_journal_run(struct lazy_priv *p, uint32_t first,
				  blk64_t n, unsigned char *dst)
{
	errcode_t err = lj_journal_read(p->st.journal, first, (unsigned)n, dst);
	blk64_t i;

	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (lj_jmap_escaped(p->st.jmap, first + (uint32_t)i))
			lj_put_be32(dst + i * p->fsbs, LJ_JBD2_MAGIC);
	p->st.reads_mapped += n;
	return 0;
}

static errcode_t lazy_read_blk64(io_channel channel, unsigned long long block,
				 int count, void *data)
{
	struct lazy_priv *p;
	uint64_t off, size;
	unsigned char *dst = data;
	errcode_t err = ready(channel, &p);

	if (err)
		return err;
	/* As a read past the end of the device: never a wrapped offset. */
	if (lj_io_request(channel, block, count, &off, &size))
		return EXT2_ET_SHORT_READ;
	p->stats.bytes_read += size;
	while (size) {
		blk64_t blk = off / p->fsbs;
		unsigned int in = (unsigned int)(off % p->fsbs);
		uint64_t whole = in ? 0 : size / p->fsbs;
		blk64_t run = 0, jrun = 0;
		uint32_t first = 0;
		size_t part;

		/* one block (libext2fs reads metadata so), or a cached one:
		 * through the cache */
		int one = whole == 1 ||
			  (whole && lj_bcache_has(&p->cache, blk));

		if (whole && !one)
			run = home_run(p, blk, whole);
		if (whole && !one && !run)
			jrun = journal_run(p, blk, whole, &first);
		if (run) {	/* aligned unmapped blocks: one home read */
			err = io_channel_read_blk64(p->home, blk, (int)run, dst);
			if (err)
				return err;
			p->st.reads_home += run;
			part = (size_t)(run * p->fsbs);
		} else if (jrun > 1) {	/* their copies in a row: one read */
			err = read_journal_run(p, first, jrun, dst);
			if (err)
				return err;
			part = (size_t)(jrun * p->fsbs);
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

/* Was blk allocated since the last commit, and not freed since (the
 * committed file system does not use it)? */
static int fresh(struct lazy_priv *p, blk64_t blk)
{
	return lj_bset_has(&p->allocated, blk) && !p->freed_all &&
	       !lj_bset_has(&p->freed, blk);
}

/*
 * A metadata block into the running transaction.  Under LJ_LAZY_SKIP_SAME
 * a block whose live copy already holds these bytes (once the superblock
 * keeps its flags, as the writer would store it) is not journaled:
 * libext2fs rewrites every descriptor and bitmap block at each flush.
 * A fresh block (allocated since the commit) is compared only with its
 * copy in the running transaction, never read from the device: its
 * device copy is free space, which no reader will see again (new
 * directory, extent and zeroed data blocks: one random read each).
 */
static errcode_t journal_fs_block(struct lazy_priv *p, blk64_t blk,
				  const void *buf)
{
	const unsigned char *pending;
	errcode_t err;

	if (!(p->modes & LJ_LAZY_SKIP_SAME))
		return lj_writer_add(p->writer, blk, buf);
	if (fresh(p, blk) && lj_writer_lookup(p->writer, blk, &pending) <= 0)
		return lj_writer_add(p->writer, blk, buf);
	err = read_fs_block_raw(p, blk, p->live);
	if (err)	/* unreadable live copy: journal the new one */
		return lj_writer_add(p->writer, blk, buf);
	if (blk == p->sb_blk) {
		if (buf != p->bounce)	/* a partial write merged it there */
			memcpy(p->bounce, buf, p->fsbs);
		lj_sb_keep_flags(p->bounce, p->fsbs, blk, 1, p->st.lazy);
		buf = p->bounce;
	}
	if (!memcmp(p->live, buf, p->fsbs)) {
		p->st.writes_same++;
		return 0;
	}
	return lj_writer_add(p->writer, blk, buf);
}

/* Data over blk must be journaled: the block was freed since the last
 * commit, and the committed file system may still use it. */
static int data_journaled(struct lazy_priv *p, blk64_t blk)
{
	return p->freed_all || lj_bset_has(&p->freed, blk) ||
	       p->freed_committing_all ||
	       lj_bset_has(&p->freed_committing, blk);
}

/*
 * Data blocks [blk, blk+n) home in one device write (ordered mode); a
 * journaled copy of each (it was metadata once) is revoked in the running
 * transaction, as jbd2 revokes freed metadata.  Until that revoke
 * commits, a crash replays the old copy (the running transaction did not
 * happen) and the cleaner never writes it home over the data.
 */
static errcode_t data_home(struct lazy_priv *p, blk64_t blk, blk64_t n,
			   const void *buf)
{
	errcode_t err = 0;
	blk64_t i;

	for (i = 0; i < n && !err; i++)
		err = lj_writer_revoke(p->writer, blk + i);
	if (!err)
		err = io_channel_write_blk64(p->home, blk, (int)n, buf);
	if (!err)
		p->data_unflushed = 1;
	if (!err && p->rec)
		p->rec(p->rec_arg, LJ_IO_DATA, blk, n);
	return err;
}

/* One whole fs block written: journaled, or home in data mode. */
static errcode_t write_fs_block(struct lazy_priv *p, blk64_t blk,
				const void *buf)
{
	if (!(p->modes & LJ_LAZY_DATA_HOME) || data_journaled(p, blk))
		return journal_fs_block(p, blk, buf);
	return data_home(p, blk, 1, buf);
}

/* Bytes [off, off+size) written: whole blocks as they are, partial ones
 * merged into the block's live copy. */
static errcode_t write_bytes(struct lazy_priv *p, uint64_t off, uint64_t size,
			     const unsigned char *src)
{
	unsigned char *tmp = p->bounce;
	errcode_t err = 0;

	if (!p->writer)
		return LJ_ET_WRITE_REFUSED;
	while (size && !err) {
		blk64_t blk = off / p->fsbs;
		unsigned int in = (unsigned int)(off % p->fsbs);
		size_t part = p->fsbs - in;

		if (part > size)
			part = (size_t)size;
		if (part == p->fsbs) {
			err = write_fs_block(p, blk, src);
		} else {
			err = read_fs_block(p, blk, tmp);
			if (!err) {
				memcpy(tmp + in, src, part);
				err = write_fs_block(p, blk, tmp);
			}
		}
		p->stats.bytes_written += part;
		src += part;
		off += part;
		size -= part;
	}
	return err;
}

static errcode_t lazy_write_blk64(io_channel channel, unsigned long long block,
				  int count, const void *data)
{
	struct lazy_priv *p;
	uint64_t off, size;
	errcode_t err = ready(channel, &p);

	if (err)
		return err;
	if (lj_io_request(channel, block, count, &off, &size))
		return EXT2_ET_SHORT_WRITE;
	return write_bytes(p, off, size, data);
}

static errcode_t lazy_write_byte(io_channel channel, unsigned long offset,
				 int size, const void *data)
{
	struct lazy_priv *p;
	errcode_t err = ready(channel, &p);

	if (err)
		return err;
	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return write_bytes(p, offset, (uint64_t)size, data);
}

static errcode_t lazy_discard(io_channel channel, unsigned long long block,
			      unsigned long long count)
{
	struct lazy_priv *p;
	errcode_t err = ready(channel, &p);

	(void)block; (void)count;
	if (err)
		return err;
	return p->writer ? EXT2_ET_UNIMPLEMENTED : LJ_ET_WRITE_REFUSED;
}

/* Flushing commits the running transaction (under LJ_LAZY_DEFER_COMMIT
 * it asks for the commit lj_lazy_commit will make). */
static errcode_t lazy_flush(io_channel channel)
{
	struct lazy_priv *p = channel->private_data;

	if (!p->ready || !p->writer)
		return 0;
	if (p->modes & LJ_LAZY_DEFER_COMMIT) {
		p->commit_wanted = 1;
		return 0;
	}
	return commit(p);
}

errcode_t lj_lazy_commit(io_channel io)
{
	struct lazy_priv *p;
	errcode_t err = lazy_priv(io, &p);

	if (err)
		return err;
	return p->ready && p->writer ? commit(p) : 0;
}

errcode_t lj_lazy_commit_start(io_channel io, int *io_left)
{
	struct lazy_priv *p;
	errcode_t err = lazy_priv(io, &p);

	*io_left = 0;
	if (err || !p->ready || !p->writer)
		return err;
	return commit_start(p, io_left);
}

errcode_t lj_lazy_commit_write(io_channel io)
{
	struct lazy_priv *p = priv_of(io);

	return p && p->ready && p->writer ? commit_write(p) : 0;
}

errcode_t lj_lazy_commit_finish(io_channel io, errcode_t err)
{
	struct lazy_priv *p = priv_of(io);

	return p && p->ready && p->writer ? commit_finish(p, err) : err;
}

errcode_t lj_lazy_abort(io_channel io)
{
	struct lazy_priv *p;
	errcode_t err = lazy_priv(io, &p);

	if (err || !p->writer)
		return err;
	lj_writer_abort(p->writer);
	p->commit_wanted = 0;
	lj_bset_clear(&p->freed);
	p->freed_all = 0;
	lj_bset_clear(&p->allocated);
	/* the cache holds what was written, committed or not */
	if (p->cache.slots)
		memset(p->cache.blk, 0, p->cache.slots * sizeof(*p->cache.blk));
	return 0;
}

errcode_t lj_lazy_checkpoint_all(io_channel io)
{
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	if (err || !p->writer)
		return err;
	err = commit(p);
	if (!err && !p->st.lazy)
		err = lj_writer_checkpoint_all(p->writer);
	return err;
}

errcode_t lj_lazy_note_freed(io_channel io, blk64_t blk, blk64_t count)
{
	struct lazy_priv *p;
	errcode_t err = lazy_priv(io, &p);
	blk64_t i;

	if (err || !p->writer)
		return err;
	if (!p->freed_all && lj_bset_add(&p->freed, blk, count))
		p->freed_all = 1;
	/* As jbd2 forgets a freed metadata buffer: its copy leaves the
	 * running transaction (a directory emptied and removed in one
	 * transaction is never logged), and a copy in the log is revoked
	 * (the block's home is live once the free commits). */
	for (i = 0; i < count && !err; i++)
		err = lj_writer_revoke(p->writer, blk + i);
	return err;
}

errcode_t lj_lazy_note_allocated(io_channel io, blk64_t blk, blk64_t count)
{
	struct lazy_priv *p;
	errcode_t err = lazy_priv(io, &p);

	/* a block left out is compared as before: nothing to undo */
	if (!err && p->writer)
		(void)lj_bset_add(&p->allocated, blk, count);
	return err;
}

void lj_lazy_note_stats(io_channel io, ext2_filsys fs, blk64_t blk,
			blk64_t num, int inuse)
{
	blk64_t mask = EXT2FS_CLUSTER_MASK(fs);
	blk64_t end = (blk + num + mask) & ~mask;

	blk &= ~mask;
	if (inuse < 0)
		(void)lj_lazy_note_freed(io, blk, end - blk);
	else if (inuse > 0)
		(void)lj_lazy_note_allocated(io, blk, end - blk);
}

int lj_lazy_commit_wanted(io_channel io)
{
	struct lazy_priv *p = priv_of(io);

	return p && p->commit_wanted;
}

/*
 * Options are the home channel's (a stock tool may set them).  A new
 * offset= moves the whole file system: a channel already bootstrapped
 * bootstraps again at its first use, unless it holds writes not yet
 * committed.
 */
static errcode_t lazy_set_option(io_channel channel, const char *option,
				 const char *arg)
{
	struct lazy_priv *p = channel->private_data;
	int offset = !strcmp(option, "offset");
	char *copy = NULL;
	errcode_t err;

	if (!p->home->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	if (offset && arg && p->offset && !strcmp(arg, p->offset))
		return p->home->manager->set_option(p->home, option, arg);
	if (offset && p->writer && lj_writer_pending(p->writer))
		return EXT2_ET_OP_NOT_SUPPORTED;
	if (offset && arg) {
		err = ext2fs_get_mem(strlen(arg) + 1, &copy);
		if (err)
			return err;
		strcpy(copy, arg);
	}
	err = p->home->manager->set_option(p->home, option, arg);
	if (!err && offset && p->log)
		err = p->log->manager->set_option(p->log, option, arg);
	if (err || !offset) {
		ext2fs_free_mem(&copy);
		return err;
	}
	ext2fs_free_mem(&p->offset);
	p->offset = copy;
	p->offset_bytes = copy ? strtoull(copy, NULL, 0) : 0;
	if (p->ready)
		unload(p);
	return 0;
}

static errcode_t lazy_get_stats(io_channel channel, io_stats *stats)
{
	struct lazy_priv *p = channel->private_data;

	*stats = &p->stats;
	return 0;
}

errcode_t lj_lazy_read_home(io_channel io, blk64_t blk, void *buf)
{
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	return err ? err : io_channel_read_blk64(p->home, blk, 1, buf);
}

errcode_t lj_lazy_write_home(io_channel io, blk64_t blk, const void *buf)
{
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	if (!err)
		err = io_channel_write_blk64(p->home, blk, 1, buf);
	return err ? err : io_channel_flush(p->home);
}

errcode_t lj_lazy_write_data(io_channel io, blk64_t blk, blk64_t n,
			     const void *buf)
{
	const unsigned char *src = buf;
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	if (!err && !p->writer)
		err = LJ_ET_WRITE_REFUSED;
	if (!err && n > INT_MAX)	/* one device request */
		err = EXT2_ET_SHORT_WRITE;
	while (n && !err) {
		blk64_t run = 1;

		if (data_journaled(p, blk)) {
			err = journal_fs_block(p, blk, src);
		} else {
			while (run < n && !data_journaled(p, blk + run))
				run++;
			err = data_home(p, blk, run, src);
		}
		p->stats.bytes_written += run * p->fsbs;
		src += run * p->fsbs;
		blk += run;
		n -= run;
	}
	return err;
}

int lj_lazy_data_journaled(io_channel io, blk64_t blk, blk64_t n)
{
	struct lazy_priv *p;

	if (booted_priv(io, &p) || !p->writer)
		return 1;
	for (; n; blk++, n--)
		if (data_journaled(p, blk))
			return 1;
	return 0;
}

/*
 * The descriptor is the channel's own, on the file the home channel has
 * open: the page cache is the file's, so what the home channel wrote is
 * what a read of it finds.
 */
blk64_t lj_lazy_home_extent(io_channel io, blk64_t blk, blk64_t n, int *fd,
			    uint64_t *pos)
{
	struct lazy_priv *p;
	blk64_t run;

	if (booted_priv(io, &p) || p->home_fd == -2)
		return 0;
	/* the first block cached: read as lazy_read_blk64 reads it */
	run = lj_bcache_has(&p->cache, blk) ? 0 : home_run(p, blk, n);
	if (!run)
		return 0;
	if (p->home_fd == -1)
		p->home_fd = open(io->name, O_RDONLY | O_CLOEXEC);
	if (p->home_fd < 0) {
		p->home_fd = -2;
		return 0;
	}
	p->stats.bytes_read += run * p->fsbs;
	p->st.reads_home += run;
	*fd = p->home_fd;
	*pos = p->offset_bytes + blk * p->fsbs;
	return run;
}

errcode_t lj_lazy_flush_data(io_channel io)
{
	struct lazy_priv *p = priv_of(io);

	return p && p->ready && p->writer ? io_channel_flush(p->home) : 0;
}

errcode_t lj_lazy_set_mode(io_channel io, int mode, int on)
{
	struct lazy_priv *p;
	errcode_t err = lazy_priv(io, &p);

	if (!err)
		p->modes = on ? p->modes | mode : p->modes & ~mode;
	return err;
}

lj_writer *lj_lazy_writer(io_channel io)
{
	struct lazy_priv *p = priv_of(io);

	return p && !ready(io, &p) ? p->writer : NULL;
}

static errcode_t open_log(io_channel io, struct lazy_priv *p, io_channel *ret)
{
	char *name;
	errcode_t err = lj_lazy_device_name(io, &name);

	*ret = NULL;
	if (err)
		return err;
	err = lj_io_open_name(lj_ordered_io_manager, name,
			      IO_FLAG_RW | IO_FLAG_THREADS, ret);
	ext2fs_free_mem(&name);
	if (!err)
		err = io_channel_set_blksize(*ret, (int)p->fsbs);
	if (!err)
		err = io_channel_set_options(*ret, "cache=off");
	if (err && *ret) {
		io_channel_close(*ret);
		*ret = NULL;
	}
	return err;
}

errcode_t lj_lazy_ordered_log(io_channel io)
{
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	if (err)
		return err;
	if (!p->writer)
		return EXT2_ET_RO_FILSYS;
	if (p->log)
		return 0;
	err = open_log(io, p, &p->log);
	if (!err)
		lj_writer_set_log(p->writer, p->log);
	return err;
}

errcode_t lj_lazy_set_record(io_channel io, lj_io_record_fn fn, void *arg)
{
	struct lazy_priv *p;
	errcode_t err = booted_priv(io, &p);

	if (err)
		return err;
	p->rec = fn;
	p->rec_arg = arg;
	if (p->writer)
		lj_writer_set_record(p->writer, fn, arg);
	return 0;
}

errcode_t lj_open_fs(const char *name, int flags, ext2_filsys *ret)
{
	*ret = NULL;
	/* A writer owns the device: O_EXCL, as a mount would hold it. */
	if (flags & EXT2_FLAG_RW)
		flags |= EXT2_FLAG_EXCLUSIVE;
	return ext2fs_open2(name, NULL, flags | EXT2_FLAG_64BITS, 0, 0,
			    lj_lazy_io_manager, ret);
}

static struct struct_io_manager lazy_manager =
	LJ_IO_MANAGER("Lazy journal I/O Manager", lazy_open, lazy_close,
		      lj_io_set_blksize, lazy_read_blk64, lazy_write_blk64,
		      lazy_flush, lazy_write_byte, lazy_set_option,
		      lazy_get_stats, lazy_discard, lazy_discard);

io_manager lj_lazy_io_manager = &lazy_manager;
