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

static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timer_cond = PTHREAD_COND_INITIALIZER;
static pthread_t timer;
static int timer_running, timer_stop;
static struct timespec first_change;	/* oldest uncommitted change */
static int changed;			/* anything uncommitted */

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

int fs_commit_now(void)
{
	ext2_filsys fs = fs_srv.fs;
	errcode_t err;

	if (!fs || fs_srv.ro)
		return 0;
	err = fs_quota_flush(fs);
	if (!err)
		err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err && fs_srv.lazy)
		err = lj_lazy_commit(fs->io);
	else if (!err)
		err = io_channel_flush(fs->io);
	if (!err && fs_srv.lazy)
		err = clean_ahead(fs);
	if (err) {
		com_err("fuse2fs", err, "while committing to %s",
			fs->device_name);
		fs_errors_commit_failed();
		return -EIO;
	}
	changed = 0;
	return 0;
}

static int interval_passed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - first_change.tv_sec >= (time_t)fs_srv.commit_secs;
}

void fs_begin(void)
{
	pthread_mutex_lock(&op_lock);
}

int fs_end(int want_commit)
{
	ext2_filsys fs = fs_srv.fs;
	int ret = 0;

	if (fs && !fs_srv.ro) {
		if (fs_srv.lazy && !changed && uncommitted(fs)) {
			changed = 1;
			clock_gettime(CLOCK_MONOTONIC, &first_change);
		}
		if (want_commit ||
		    (fs_srv.lazy && (lj_lazy_commit_wanted(fs->io) ||
				     (changed && (interval_passed() ||
						  log_short(fs))))))
			ret = fs_commit_now();
	}
	pthread_mutex_unlock(&op_lock);
	return ret;
}

static void *timer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&op_lock);
	while (!timer_stop) {
		struct timespec until;

		if (changed && interval_passed())
			fs_commit_now();
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&timer_cond, &op_lock, &until);
	}
	pthread_mutex_unlock(&op_lock);
	return NULL;
}

void fs_timer_start(void)
{
	if (fs_srv.lazy && !timer_running &&
	    !pthread_create(&timer, NULL, timer_main, NULL))
		timer_running = 1;
}

void fs_timer_stop(void)
{
	if (!timer_running)
		return;
	pthread_mutex_lock(&op_lock);
	timer_stop = 1;
	pthread_cond_signal(&timer_cond);
	pthread_mutex_unlock(&op_lock);
	pthread_join(timer, NULL);
	timer_running = 0;
}

/* ------------------------------------------------------------------ */
/* Blocks allocated and freed, told to the channel                     */

static void (*old_stats)(ext2_filsys, blk64_t, int);
static void (*old_stats_range)(ext2_filsys, blk64_t, blk_t, int);

static void note(ext2_filsys fs, blk64_t blk, blk64_t num, int inuse)
{
	if (fs_srv.lazy && fs->io == fs_srv.lazy)
		lj_lazy_note_stats(fs->io, fs, blk, num, inuse);
}

static void stats_one(ext2_filsys fs, blk64_t blk, int inuse)
{
	note(fs, blk, 1, inuse);
	if (old_stats)
		old_stats(fs, blk, inuse);
}

static void stats_range(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	note(fs, blk, num, inuse);
	if (old_stats_range)
		old_stats_range(fs, blk, num, inuse);
}

/* A block libext2fs allocates for itself (extent-tree, indirect and
 * directory blocks) is written before its statistics are counted: told
 * to the channel first, so that its first write is not compared with
 * the free block's old contents. */
static errcode_t alloc_block(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	errcode_t err = ext2fs_new_block2(fs, goal, fs->block_map, ret);

	if (!err)
		note(fs, *ret, 1, 1);
	return err;
}

void fs_alloc_hooks(ext2_filsys fs)
{
	ext2fs_set_alloc_block_callback(fs, alloc_block, NULL);
	ext2fs_set_block_alloc_stats_callback(fs, stats_one, &old_stats);
	ext2fs_set_block_alloc_stats_range_callback(fs, stats_range,
						    &old_stats_range);
}
