/*
 * fuse2fs/commit.c --- requests under one lock, and commits that do not
 * hold them up.
 *
 *  - Every request runs between fs_begin and fs_end under one lock (the
 *    request lock: libext2fs is not thread-safe, not even to read, and
 *    neither are the lazy channel, its caches and our own tables), so a
 *    transaction ends only between two requests: the lazy channel defers
 *    every flush libext2fs makes (LJ_LAZY_DEFER_COMMIT) and a commit is
 *    started between requests.
 *  - A commit is started under the lock: libext2fs writes what it keeps
 *    in memory (superblock, descriptors, bitmaps: ext2fs_flush2 without
 *    sync), so every committed state is a whole file system, and the
 *    running transaction becomes the committing one
 *    (lj_lazy_commit_start).  Its log writes and flushes are made
 *    without the lock, while other requests are served and go into the
 *    next running transaction, as jbd2 commits one transaction while the
 *    next runs; then it is finished under the lock (the map told).  One
 *    commit writes at a time.  The thread that waits for it hands its
 *    turn at reading requests to another (loop.c), so a request that
 *    waits for a commit waits alone.
 *  - When: a persistence point (fsync, fsyncdir; a write, truncate,
 *    fallocate or copy_file_range through an O_SYNC or O_DSYNC handle;
 *    any change to a chattr +S file, to the entries of a +S or +D
 *    directory, on a -o sync or dirsync mount: fs_write_is_sync,
 *    fs_inode_sync, fs_dir_sync.  The request replies after what it
 *    changed and everything before it is durable, -EIO if that commit
 *    failed); when the running transaction would take a quarter of the
 *    free log or holds FS_TXN_MAX_BYTES of blocks, commit seconds (-o commit=, default 5) after the oldest
 *    uncommitted change, or when libext2fs flushed (the timer thread
 *    commits those, as jbd2's thread does: no request waits for them);
 *    when it would take half the free log (that request waits, as jbd2
 *    holds new handles until there is room); at umount.
 *  - When a commit starts that will leave the log short, the cleaner
 *    first frees a quarter of it (as jbd2 checkpoints until its largest
 *    transaction fits), under the lock.  Only then: the cleaner may
 *    commit the running transaction itself (to retire the blocks it
 *    revokes), which must be a whole file system, never the changes of
 *    requests served while the last commit wrote.
 * Blocks allocated and freed are told to the channel from libext2fs's
 * allocation-statistics callbacks.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include <et/com_err.h>

#include "server.h"

static int uncommitted(ext2_filsys fs)
{
	return lj_writer_pending(lj_lazy_writer(fs->io)) ||
	       (fs->flags & (EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
			     EXT2_FLAG_IB_DIRTY));
}

/* Blocks a flush adds to a transaction: every bitmap and descriptor
 * block, the superblock. */
static blk64_t flush_blocks(ext2_filsys fs)
{
	return 2ULL * fs->group_desc_count + fs->desc_blocks + 1;
}

/* Would the running transaction, with what a flush adds, take 1/part of
 * the free log? */
static int log_taken(ext2_filsys fs, unsigned int part)
{
	lj_writer *w = lj_lazy_writer(fs->io);

	return part * (lj_writer_pending(w) + flush_blocks(fs)) >=
	       lj_writer_free_blocks(w);
}

static int log_short(ext2_filsys fs)
{
	return log_taken(fs, 2);
}

/* At a commit's start (the flush made): once the running transaction is
 * committed, will the next flush alone take half the log left? */
static int short_after(ext2_filsys fs)
{
	lj_writer *w = lj_lazy_writer(fs->io);
	blk64_t pend = lj_writer_pending(w), free = lj_writer_free_blocks(w);

	return pend >= free || 2 * flush_blocks(fs) >= free - pend;
}

static errcode_t clean_ahead(ext2_filsys fs)
{
	lj_lazy_state *st;
	errcode_t err;

	if (!short_after(fs) || lj_lazy_get_state(fs->io, &st) || !st->journal)
		return 0;
	err = lj_writer_make_room(lj_lazy_writer(fs->io),
				  (st->journal->last - st->journal->first) / 4);
	return err == LJ_ET_JOURNAL_FULL ? 0 : err;
}

/* Start the running transaction's commit (lock held): 0, or an error.
 * *io_left: whether its writing is left to do. */
static errcode_t commit_start(struct fs_server *srv, int *io_left)
{
	ext2_filsys fs = srv->fs;
	errcode_t err = fs_quota_flush(srv);

	*io_left = 0;
	if (!err)
		err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err && srv->lazy)
		err = clean_ahead(fs);
	if (!err && srv->lazy)
		err = lj_lazy_commit_start(fs->io, io_left);
	else if (!err)	/* no journal: written in place */
		err = io_channel_flush(fs->io);
	if (!err)
		srv->commit.changed = 0;
	return err;
}

/* One commit, numbered: started under the lock, written without it
 * (this thread's turn at reading requests handed on), finished under
 * it.  The lock is held on entry and on return. */
static void commit_one(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	unsigned long me = ++srv->commit.started;
	int io_left;
	errcode_t err;
	long long t = fs_clock_ns();

	fs_waits_commit(srv);
	err = commit_start(srv, &io_left);
	fs_waits_cleaner(srv);
	fs_waits_locked(srv, 0, t);
	if (!err && srv->lazy) {	/* started: finished, written or not */
		if (io_left) {
			srv->commit.writing = 1;
			pthread_mutex_unlock(&srv->commit.lock);
			fs_loop_hand_off(srv);
			err = lj_lazy_commit_write(fs->io);
			pthread_mutex_lock(&srv->commit.lock);
			srv->commit.writing = 0;
		}
		t = fs_clock_ns();
		err = lj_lazy_commit_finish(fs->io, err);
		fs_waits_locked(srv, 1, t);
	}
	srv->commit.finished = me;
	fs_waits_commit(srv);
	if (err) {
		srv->commit.failed = me;
		com_err("fuse2fs", err, "while committing to %s",
			fs->device_name);
		fs_errors_commit_failed(srv);
	}
	pthread_cond_broadcast(&srv->commit.done);
}

int fs_commit_now(struct fs_server *srv)
{
	unsigned long target = srv->commit.started + 1;

	if (!srv->fs || srv->ro)
		return 0;
	/* everything changed so far is in the running transaction or the
	 * one writing: the next commit to start covers it */
	while (srv->commit.finished < target) {
		if (srv->commit.writing)
			fs_loop_wait(srv, &srv->commit.done);
		else
			commit_one(srv);
	}
	return srv->commit.failed >= target ? -EIO : 0;
}

static int interval_passed(struct fs_server *srv)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - srv->commit.first_change.tv_sec >=
	       (time_t)srv->commit_secs;
}

/*
 * The most the running transaction holds before the timer commits it,
 * whatever the interval.  Its blocks are copies in the daemon's memory,
 * and whatever it holds at umount or at an fsync is written while the
 * caller waits; committed as it grows, the log is written beside the
 * requests, on the CPU the client and the daemon leave idle, and the
 * copies' memory is reused.  jbd2's own cap (a quarter of the log, below)
 * is no cap with a 10 GiB log.  Measured (100,000 mkdirs, one lazy
 * mount, 10 GiB log; doc/smr.md): without it 3.0-3.1 s of work and a
 * 0.7-1.1 s umount (one 416 MiB transaction); with 64 MiB 2.8-3.0 s and
 * 0.17 s; with 16 MiB the work took 3.2-3.3 s (its commits' flushes).
 */
#define FS_TXN_MAX_BYTES	(64ULL << 20)

static int txn_full(ext2_filsys fs)
{
	return lj_writer_pending(lj_lazy_writer(fs->io)) * fs->blocksize >=
	       FS_TXN_MAX_BYTES;
}

/* Is a commit due without a persistence point: a flush libext2fs asked
 * for, the interval passed, the running transaction full, or taking a
 * quarter of the free log (as jbd2 commits at a quarter of its log, long
 * before handles have to wait for room)? */
static int commit_due(struct fs_server *srv)
{
	return lj_lazy_commit_wanted(srv->fs->io) ||
	       (srv->commit.changed &&
		(interval_passed(srv) || txn_full(srv->fs) ||
		 log_taken(srv->fs, 4)));
}

void fs_begin(struct fs_server *srv)
{
	pthread_mutex_lock(&srv->commit.lock);
	fs_loop_enter(srv);
}

int fs_end(struct fs_server *srv, int want_commit)
{
	ext2_filsys fs = srv->fs;
	int ret = 0;

	if (fs && !srv->ro) {
		if (srv->lazy && !srv->commit.changed && uncommitted(fs)) {
			srv->commit.changed = 1;
			clock_gettime(CLOCK_MONOTONIC,
				      &srv->commit.first_change);
		}
		/* the log short: wait for room, as jbd2 holds new handles */
		if (want_commit ||
		    (srv->lazy && srv->commit.changed && log_short(fs)))
			ret = fs_commit_now(srv);
		else if (srv->lazy && !srv->commit.writing && commit_due(srv))
			pthread_cond_signal(&srv->commit.wake);	/* the timer */
	}
	fs_waits_answered(srv, fs_loop_self(srv), want_commit);
	pthread_mutex_unlock(&srv->commit.lock);
	return ret;
}

/*
 * The transactions of each inode's last change and last change to its
 * data, size or mapping, as jbd2 keeps them in the inode (ext4's
 * i_sync_tid, i_datasync_tid), for fs_end_fsync: in the slot of the
 * inode number modulo the slots (inodes come in runs: a run of them
 * never shares one), the last inode changed there.  An inode whose slot
 * another one took is not known, and not known is not durable: its
 * fsync commits.  Transactions are numbered by commit.started: the
 * running one is started + 1 (one writing is started).
 */
static struct fs_last_change *last_slot(struct fs_server *srv,
					ext2_ino_t ino)
{
	return &srv->commit.last[ino % FS_CHANGE_SLOTS];
}

int fs_commit_wants_data(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_last_change *c = last_slot(srv, ino);

	return c->ino == ino && c->data_txn != srv->commit.started + 1;
}

void fs_commit_changed(struct fs_server *srv, ext2_ino_t ino, int data)
{
	struct fs_last_change *c = last_slot(srv, ino);
	unsigned long running = srv->commit.started + 1;

	if (c->ino != ino)	/* what changed before is not known */
		data = 1;
	c->ino = ino;
	c->txn = running;
	if (data)
		c->data_txn = running;
}

/* Is transaction txn durable: its commit finished, and none failed
 * since (a failed commit's changes go back into the running one)? */
static int durable(struct fs_server *srv, unsigned long txn)
{
	return txn <= srv->commit.finished && srv->commit.failed < txn;
}

/*
 * The end of an fsync of ino (lock held, released on return): 0 or
 * -errno.  Nothing is committed where what it covers is durable already,
 * as jbd2 commits nothing for an fsync whose inode's transaction has
 * committed (for an fdatasync, the transaction of its last change to
 * data, size or mapping).  The data written in place since is flushed
 * (without the lock, this thread's turn handed on, as a commit's
 * writes); with every change of ino durable there is none: each data
 * write is a change of ino (data.c) and a commit flushes the data
 * written before it starts.  Otherwise the commit of fs_end's
 * persistence point.
 */
int fs_end_fsync(struct fs_server *srv, ext2_ino_t ino, int datasync)
{
	struct fs_last_change *c = last_slot(srv, ino);
	int flush, ret;
	errcode_t err;

	if (!srv->lazy || c->ino != ino ||
	    !durable(srv, datasync ? c->data_txn : c->txn))
		return fs_end(srv, 1);
	flush = !durable(srv, c->txn);
	ret = fs_end(srv, 0);
	if (ret || !flush)
		return ret;
	fs_loop_hand_off(srv);
	err = lj_lazy_flush_data(srv->lazy);
	if (err)
		com_err("fuse2fs", err, "while flushing %s",
			srv->fs->device_name);
	return err ? -EIO : 0;
}

static void *timer_main(void *arg)
{
	struct fs_server *srv = arg;

	pthread_mutex_lock(&srv->commit.lock);
	while (!srv->commit.timer_stop) {
		struct timespec until;

		if (!srv->commit.writing && commit_due(srv))
			fs_commit_now(srv);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&srv->commit.wake, &srv->commit.lock,
				       &until);
	}
	pthread_mutex_unlock(&srv->commit.lock);
	return NULL;
}

void fs_timer_start(struct fs_server *srv)
{
	if (srv->lazy && !srv->commit.timer_running &&
	    !pthread_create(&srv->commit.timer, NULL, timer_main, srv))
		srv->commit.timer_running = 1;
}

void fs_timer_stop(struct fs_server *srv)
{
	if (!srv->commit.timer_running)
		return;
	pthread_mutex_lock(&srv->commit.lock);
	srv->commit.timer_stop = 1;
	pthread_cond_signal(&srv->commit.wake);
	pthread_mutex_unlock(&srv->commit.lock);
	pthread_join(srv->commit.timer, NULL);
	srv->commit.timer_running = 0;
}

/* ------------------------------------------------------------------ */
/* Blocks allocated and freed, told to the channel                     */

static void note(struct fs_server *srv, ext2_filsys fs, blk64_t blk,
		 blk64_t num, int inuse)
{
	if (srv->lazy && fs->io == srv->lazy)
		lj_lazy_note_stats(fs->io, fs, blk, num, inuse);
}

static void stats_one(ext2_filsys fs, blk64_t blk, int inuse)
{
	struct fs_server *srv = fs->priv_data;

	lj_bitmaps_note_blocks(srv->bitmaps, blk, 1, inuse);
	note(srv, fs, blk, 1, inuse);
	if (srv->commit.old_stats)
		srv->commit.old_stats(fs, blk, inuse);
}

static void stats_range(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	struct fs_server *srv = fs->priv_data;

	lj_bitmaps_note_blocks(srv->bitmaps, blk, num, inuse);
	note(srv, fs, blk, num, inuse);
	if (srv->commit.old_stats_range)
		srv->commit.old_stats_range(fs, blk, num, inuse);
}

/* A block libext2fs allocates for itself (extent-tree, indirect and
 * directory blocks) is written before its statistics are counted: told
 * to the channel first, so that its first write is not compared with
 * the free block's old contents. */
static errcode_t alloc_block(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct fs_server *srv = fs->priv_data;
	errcode_t err = fs_place_meta_block(srv, goal, ret);

	if (!err)
		note(srv, fs, *ret, 1, 1);
	return err;
}

static errcode_t new_range(ext2_filsys fs, int flags, blk64_t goal,
			   blk64_t len, blk64_t *pblk, blk64_t *plen)
{
	struct fs_server *srv = fs->priv_data;

	return lj_bitmaps_new_range(srv->bitmaps, flags, goal, len, pblk,
				    plen);
}

static errcode_t write_bitmaps(ext2_filsys fs)
{
	struct fs_server *srv = fs->priv_data;

	return lj_bitmaps_write(srv->bitmaps);
}

/* A writer's allocations and bitmaps through lj_bitmaps (read a group
 * at a time), its blocks told to the channel. */
void fs_alloc_hooks(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;

	if (!srv->bitmaps)
		return;
	fs->write_bitmaps = write_bitmaps;
	ext2fs_set_new_range_callback(fs, new_range, NULL);
	ext2fs_set_alloc_block_callback(fs, alloc_block, NULL);
	ext2fs_set_block_alloc_stats_callback(fs, stats_one,
					      &srv->commit.old_stats);
	ext2fs_set_block_alloc_stats_range_callback(
		fs, stats_range, &srv->commit.old_stats_range);
}
