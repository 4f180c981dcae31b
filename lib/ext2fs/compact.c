/*
 * compact.c --- offline compaction (e2fsck -E lazy_compact): open the
 * device, then run the cleaner over every transaction of the log once.
 */
#include <string.h>

#include "writer_private.h"
#include "base_io.h"

errcode_t lj_compact(const char *device, uint32_t keep_txns,
		     struct lj_compact_stats *cs)
{
	ext2_filsys fs = NULL;
	lj_lazy_state *st;
	io_channel rw = NULL;
	lj_writer *w = NULL;
	uint32_t keep_from, i, ntxn;
	errcode_t err;

	memset(cs, 0, sizeof(*cs));
	err = lj_open_fs(device, 0, &fs);
	if (!err)
		err = lj_lazy_get_state(fs->io, &st);
	if (!err)
		err = lj_io_open_name(lj_io_base(), device,
				      IO_FLAG_RW | IO_FLAG_EXCLUSIVE, &rw);
	if (!err)
		err = io_channel_set_options(rw, "cache=off");
	if (!err)
		err = io_channel_set_blksize(rw, (int)fs->blocksize);
	if (!err)
		err = lj_writer_open(st, rw, &w);
	if (err)
		goto out;
	ntxn = (uint32_t)st->jmap->log->ntxn;
	cs->blocks_before = st->jmap->log->log_blocks;
	/* Blocks of the newest keep_txns transactions stay in the log (0:
	 * every one, from the oldest transaction on). */
	keep_from = keep_txns ? w->next_tid - keep_txns :
		    st->jmap->log->start_tid;
	/* Every transaction that was in the log is cleaned once. */
	for (i = 0; i < ntxn && !err; i++)
		err = lj_clean_tail(w, LJ_CLEAN_KEEP_FROM, keep_from, cs);
	cs->blocks_after = st->jmap->log->log_blocks;
out:
	lj_writer_close(w);
	if (rw)
		io_channel_close(rw);
	if (fs)
		ext2fs_close_free(&fs);
	return err;
}
