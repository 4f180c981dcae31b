/*
 * migrate.c --- write the journaled metadata home and empty the log.
 *
 * The order is the crash-safety argument of doc/contract.md §3:
 *   1. every live block home (ascending, adjacent blocks in one write), flush
 *   2. journal superblock: s_start = 0, s_sequence past the log, flush
 *   3. needs_recovery cleared in the home superblock, flush
 * Until 2 is durable the log still replays to the same bytes (replay is
 * idempotent); between 2 and 3 the log is empty and needs_recovery merely
 * asks for a no-op recovery.
 *
 * Step 1 is lj_write_live_home (live_home.c), which is also the mount's
 * checkpoint on a file system without lazy_journal (checkpoint.c).
 *
 * The log is the one the caller's lazy channel scanned (lj_migrate_fs);
 * the writes go through one more open of the device, for writing and
 * exclusive, made after every check: its superblock handle writes step 3.
 */
#include <errno.h>
#include <string.h>

#include "lazy_journal.h"
#include "lj_private.h"

struct migration {
	lj_lazy_state *st;
	ext2_filsys sfs;	/* the home superblock, opened for writing */
	io_channel rw;		/* its channel: the device, no cache */
	unsigned int bs;
	unsigned char *buf;	/* one block */
	struct lj_migrate_stats *stats;
};

/* Mark the log empty, as jbd2 does after recovery. */
static errcode_t reset_journal(struct migration *mg)
{
	lj_journal *j = mg->st->journal;
	unsigned char *sb = mg->buf;
	errcode_t err;

	/* From the copy read when the journal was opened, as stock's
	 * recovery does: the block may have been a home of the log. */
	memcpy(sb, j->sb, mg->bs);
	mg->stats->new_sequence = mg->st->jmap->log->end_tid + 1;
	lj_jsb_set_log(j, sb, 0, mg->stats->new_sequence);
	err = io_channel_write_blk64(mg->rw, lj_journal_pblk(j, 0), 1, sb);
	if (err)
		return err;
	mg->stats->log_emptied = 1;
	return io_channel_flush(mg->rw);
}

/* Home blocks must not be written past the end of the device: a
 * truncated image would grow silently, a short device fail part-way.
 * Its last block is read: a short read means it is not all there. */
static errcode_t check_device_size(struct migration *mg, ext2_filsys fs)
{
	errcode_t err = io_channel_read_blk64(mg->rw,
					      ext2fs_blocks_count(fs->super) - 1,
					      1, mg->buf);

	return err == EXT2_ET_SHORT_READ ? LJ_ET_DEVICE_TOO_SMALL : 0;
}

static errcode_t check_not_mounted(const char *device)
{
	int mount_flags = 0;
	errcode_t err = ext2fs_check_if_mounted(device, &mount_flags);

	if (err)
		return err;
	if (mount_flags & EXT2_MF_MOUNTED)
		return LJ_ET_MOUNTED;
	return (mount_flags & EXT2_MF_BUSY) ? EBUSY : 0;
}

/* Re-read the primary superblock into the handle: the home writes may
 * have replaced it, and step 3 writes the handle's copy. */
static errcode_t reload_super(struct migration *mg)
{
	errcode_t err = io_channel_set_blksize(mg->rw, SUPERBLOCK_OFFSET);

	if (!err)
		err = io_channel_read_blk64(mg->rw, 1, -SUPERBLOCK_SIZE,
					    mg->sfs->super);
	if (!err)
		err = io_channel_set_blksize(mg->rw, (int)mg->bs);
	return err;
}

/* The device opened for writing (exclusive), with no write-back cache:
 * runs reach the device whole, in ascending order, as the crash model
 * records them. */
static errcode_t open_rw(struct migration *mg, const char *device)
{
	errcode_t err = lj_open_super(device, EXT2_FLAG_RW, &mg->sfs);

	if (err)
		return err;
	mg->rw = mg->sfs->io;
	err = io_channel_set_options(mg->rw, "cache=off");
	if (!err)
		err = io_channel_set_blksize(mg->rw, (int)mg->bs);
	return err;
}

errcode_t lj_migrate_fs(ext2_filsys fs, int flags, lj_progress_fn progress,
			void *arg, struct lj_migrate_stats *stats)
{
	struct migration mg;
	char why[8], *device = NULL;
	errcode_t err;

	memset(stats, 0, sizeof(*stats));
	memset(&mg, 0, sizeof(mg));
	mg.stats = stats;

	err = lj_lazy_get_state(fs->io, &mg.st);
	if (err)
		return err;
	/* doc/contract.md §5: a log only partly readable is migrated
	 * only by the salvage, which has saved the raw journal first. */
	err = mg.st->journal_err;
	if (!err && !(flags & LJ_MIGRATE_SALVAGE) &&
	    lj_log_incomplete(mg.st, why, sizeof(why)))
		err = LJ_ET_LOG_INCOMPLETE;
	if (!err)
		err = check_not_mounted(fs->device_name);
	if (err || !mg.st->journal)	/* no log to migrate */
		return err;

	mg.bs = fs->blocksize;
	err = ext2fs_get_mem(mg.bs, &mg.buf);
	/* by the name and offset the log was read at (IMAGE?offset=N) */
	if (!err)
		err = lj_lazy_device_name(fs->io, &device);
	if (!err)
		err = open_rw(&mg, device);
	if (!err)
		err = check_device_size(&mg, fs);
	/* Nothing was written before this point. */
	if (!err)
		err = lj_write_live_home(mg.st, mg.rw, mg.st->jmap->e,
					 mg.st->jmap->n, progress, arg, stats);
	if (!err && mg.st->journal->start)
		err = reset_journal(&mg);
	if (!err)
		err = reload_super(&mg);
	/* The lazy channel loads the journal only when the HOME superblock
	 * has needs_recovery; its lazy_journal decides (doc/contract.md §2.3),
	 * so a journaled superblock copy written home must not drop it. */
	if (!err)
		err = lj_change_features_close(&mg.sfs, 0,
				mg.st->lazy ? LJ_FEATURE_COMPAT_LAZY_JOURNAL : 0,
				0, 0, EXT3_FEATURE_INCOMPAT_RECOVER);
	if (mg.sfs) {		/* no ext2fs_close: it would write */
		ext2fs_mmp_stop(mg.sfs);
		ext2fs_free(mg.sfs);
	}
	ext2fs_free_mem(&mg.buf);
	ext2fs_free_mem(&device);
	return err;
}

errcode_t lj_migrate_home(const char *device, lj_progress_fn progress,
			  void *arg, struct lj_migrate_stats *stats)
{
	ext2_filsys fs;
	errcode_t err;

	memset(stats, 0, sizeof(*stats));
	err = lj_open_fs(device, 0, &fs);
	if (err)
		return err;
	err = lj_migrate_fs(fs, 0, progress, arg, stats);
	ext2fs_close_free(&fs);
	return err;
}
