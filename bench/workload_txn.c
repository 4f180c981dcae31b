/*
 * workload_txn.c --- transactions of bench/workload: a commit
 * (ext2fs_flush) after every OPS operations (-t); in baseline mode a
 * checkpoint after every TXNS transactions (-c) or when the log is more
 * than half full.
 */
#include "workload.h"

void wl_checkpoint(void)
{
	errcode_t err = lj_writer_checkpoint(wl.w);

	if (err)
		wl_die(err, "while checkpointing");
	wl.ckpts++;
	wl.txns_since_ckpt = 0;
}

void wl_end_txn(void)
{
	errcode_t err;

	if (!wl.ops_in_txn)
		return;
	/* ext2fs_flush syncs before and after the primary superblock (two
	 * commits); as one transaction, like a jbd2 commit: */
	err = ext2fs_flush2(wl.fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err)
		err = io_channel_flush(wl.fs->io);
	if (err)
		wl_die(err, "while committing a transaction");
	wl.ops_in_txn = 0;
	wl.txns++;
	wl.txns_since_ckpt++;
	if (wl.baseline) {
		uint32_t size = wl.st->journal->last - wl.st->journal->first;

		if (wl.txns_since_ckpt >= wl.ckpt_txns ||
		    lj_writer_free_blocks(wl.w) < size / 2)
			wl_checkpoint();
	}
}

void wl_op_done(void)
{
	wl.ops++;
	if (++wl.ops_in_txn >= wl.ops_per_txn)
		wl_end_txn();
}
