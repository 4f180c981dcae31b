/*
 * fuse2fs/commit.c --- one request at a time, and when to commit.
 *
 *  - Every request runs between fs_begin and fs_end under one lock, so a
 *    transaction ends only between two requests: the lazy channel defers
 *    every flush libext2fs makes (LJ_LAZY_DEFER_COMMIT) and fs_end
 *    commits.
 *  - A commit first has libext2fs write what it keeps in memory
 *    (superblock, descriptors, bitmaps: ext2fs_flush2 without sync), so
 *    every committed state is a whole file system, then commits the
 *    running transaction (durable on return).
 *  - When: a persistence point (fsync, fsyncdir; a write, truncate,
 *    fallocate or copy_file_range through an O_SYNC or O_DSYNC handle;
 *    any change to a chattr +S file, to the entries of a +S or +D
 *    directory, on a -o sync or dirsync mount: fs_write_is_sync,
 *    fs_inode_sync, fs_dir_sync.  The request replies after the commit,
 *    -EIO if it failed); when the running transaction would take half
 *    the free log; commit seconds (-o commit=, default 5) after the
 *    oldest uncommitted change (a timer thread, also while no request
 *    comes); at umount.
 *  - After a commit that left the log short, the cleaner frees a quarter
 *    of it at once (as jbd2 checkpoints until its largest transaction
 *    fits).
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

/* Would the running transaction, with what a flush adds (every bitmap
 * and descriptor block, the superblock), take half the free log? */
static int log_short(ext2_filsys fs)
{
	lj_writer *w = lj_lazy_writer(fs->io);
	blk64_t flush = 2ULL * fs->group_desc_count + fs->desc_blocks + 1;

	return 2 * (lj_writer_pending(w) + flush) >= lj_writer_free_blocks(w);
}

static errcode_t clean_ahead(ext2_filsys fs)
{
	lj_lazy_state *st;
	errcode_t err;

	if (!log_short(fs) || lj_lazy_get_state(fs->io, &st) || !st->journal)
		return 0;
	err = lj_writer_make_room(lj_lazy_writer(fs->io),
				  (st->journal->last - st->journal->first) / 4);
	return err == LJ_ET_JOURNAL_FULL ? 0 : err;
}

int fs_commit_now(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	errcode_t err;

	if (!fs || srv->ro)
		return 0;
	err = fs_quota_flush(srv);
	if (!err)
		err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err && srv->lazy)
		err = lj_lazy_commit(fs->io);
	else if (!err)
		err = io_channel_flush(fs->io);
	if (!err && srv->lazy)
		err = clean_ahead(fs);
	if (err) {
		com_err("fuse2fs", err, "while committing to %s",
			fs->device_name);
		fs_errors_commit_failed(srv);
		return -EIO;
	}
	srv->commit.changed = 0;
	return 0;
}

static int interval_passed(struct fs_server *srv)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - srv->commit.first_change.tv_sec >=
	       (time_t)srv->commit_secs;
}

void fs_begin(struct fs_server *srv)
{
	pthread_mutex_lock(&srv->commit.lock);
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
		if (want_commit ||
		    (srv->lazy && (lj_lazy_commit_wanted(fs->io) ||
				   (srv->commit.changed &&
				    (interval_passed(srv) || log_short(fs))))))
			ret = fs_commit_now(srv);
	}
	pthread_mutex_unlock(&srv->commit.lock);
	return ret;
}

static void *timer_main(void *arg)
{
	struct fs_server *srv = arg;

	pthread_mutex_lock(&srv->commit.lock);
	while (!srv->commit.timer_stop) {
		struct timespec until;

		if (srv->commit.changed && interval_passed(srv))
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
	errcode_t err = lj_bitmaps_new_block(srv->bitmaps, goal, ret);

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
