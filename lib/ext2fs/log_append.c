/*
 * log_append.c --- append transactions to the log, as the ext4-lazy
 * kernel does.
 *
 * A transaction goes to the head of the log in the journal's own format
 * (log_encode.c; wrap-around at the end of the log area) and becomes
 * durable when its commit block is flushed.  Before the first transaction
 * of an empty log needs_recovery is set in the home superblock and then
 * the journal superblock set to the head (doc/contract.md §3).  Home copies are
 * never written here.  Moving the tail (the journal superblock) is here
 * too; deciding when is the cleaner's job.
 */
#include <string.h>
#include <time.h>

#include "writer_private.h"
#include "lj_private.h"

uint32_t lj_append_log_size(const lj_writer *w)
{
	return w->j->last - w->j->first;
}

uint32_t lj_append_next_block(const lj_writer *w, uint32_t b)
{
	return b + 1 == w->j->last ? w->j->first : b + 1;
}

uint32_t lj_writer_free_blocks(const lj_writer *w)
{
	uint32_t used = w->in_commit ? w->job.need : 0;

	if (w->tail)
		used += w->head >= w->tail ? w->head - w->tail :
			(w->j->last - w->tail) + (w->head - w->j->first);
	/* One block stays free so the head never catches the tail. */
	return lj_append_log_size(w) - used - 1;
}

/* n journal blocks from buf at device block pblk, in one write of the
 * log's channel (the ordered one when the caller gave it). */
static errcode_t write_log(lj_writer *w, blk64_t pblk, uint32_t n,
			   const void *buf)
{
	errcode_t err = io_channel_write_blk64(w->log ? w->log : w->rw, pblk,
					       (int)n, buf);

	if (err)
		return err;
	w->stats.journal_blocks += n;
	w->stats.journal_writes++;
	if (w->rec)
		w->rec(w->rec_arg, LJ_IO_JOURNAL, pblk, n);
	return 0;
}

static errcode_t write_jblock(lj_writer *w, uint32_t jblk, const void *buf)
{
	blk64_t pblk = lj_journal_pblk(w->j, jblk);

	return pblk ? write_log(w, pblk, 1, buf) : EXT2_ET_BAD_BLOCK_NUM;
}

/*
 * A transaction's blocks go out in runs, as jbd2 submits its buffers: up
 * to run_max blocks contiguous on the device in one write, in log order
 * (through an ordered channel each write is sent to the device as it is
 * made, with no later writeback to reorder it).  log_slot gives the place
 * in the run for journal block jblk, writing the run first when jblk does
 * not follow it; push_run writes what the run holds.
 */
static errcode_t push_run(lj_writer *w, struct lj_append_job *c)
{
	errcode_t err = 0;

	if (c->run_n)
		err = write_log(w, c->run_pblk, c->run_n, c->run);
	c->run_n = 0;
	return err;
}

static unsigned char *log_slot(lj_writer *w, struct lj_append_job *c,
			       uint32_t jblk, errcode_t *err)
{
	blk64_t pblk = lj_journal_pblk(w->j, jblk);

	*err = pblk ? 0 : EXT2_ET_BAD_BLOCK_NUM;
	if (!*err && c->run_n &&
	    (pblk != c->run_pblk + c->run_n || c->run_n == c->run_max))
		*err = push_run(w, c);
	if (*err)
		return NULL;
	if (!c->run_n)
		c->run_pblk = pblk;
	return c->run + (size_t)c->run_n++ * w->bs;
}

/* The journal superblock pointed at start (0: the log empty) and seq,
 * written and flushed (buf: one block of scratch); w is not changed. */
static errcode_t write_tail(lj_writer *w, unsigned char *buf, uint32_t start,
			    uint32_t seq)
{
	errcode_t err = lj_journal_read(w->j, 0, 1, buf);

	if (err)
		return err;
	lj_jsb_set_log(w->j, buf, start, seq);
	err = write_jblock(w, 0, buf);
	return err ? err : io_channel_flush(w->rw);
}

static void note_tail(lj_writer *w, uint32_t start, uint32_t seq)
{
	w->j->start = start;
	w->j->sequence = seq;
	w->tail = start;
	w->stats.tail_moves++;
}

errcode_t lj_append_set_tail(lj_writer *w, uint32_t start, uint32_t seq)
{
	errcode_t err = write_tail(w, w->blk, start, seq);

	if (!err)
		note_tail(w, start, seq);
	return err;
}

/* One descriptor block and the n data blocks it describes.  The tags
 * are made first (each checksums the copy as stored), in the descriptor's
 * place in the run, before any data block takes the next. */
static errcode_t write_descriptor(lj_writer *w, struct lj_append_job *c,
				  const struct lj_pending *blocks, size_t n)
{
	uint32_t at;
	size_t off, i;
	int v1 = (w->j->compat & LJ_FEATURE_COMPAT_CHECKSUM) != 0;
	errcode_t err;
	unsigned char *desc = log_slot(w, c, c->at, &err), *slot;

	if (!desc)
		return err;
	off = lj_enc_desc_start(w->j, desc, c->tid);
	at = lj_append_next_block(w, c->at);
	for (i = 0; i < n; i++, at = lj_append_next_block(w, at)) {
		struct lj_tag *t = &c->tags[c->ntags++];
		uint16_t esc = lj_enc_escape(w->j, c->data, blocks[i].data);

		off = lj_enc_desc_tag(w->j, desc, off, c->tid,
				      blocks[i].home, c->data, esc, i, n, t);
		t->jblock = at;
	}
	lj_enc_block_tail(w->j, desc);
	/* v1 sums the descriptor, then its data blocks, as written. */
	if (v1)
		c->crc32_sum = ext2fs_crc32_be(c->crc32_sum, desc, w->bs);
	for (i = 0, at = lj_append_next_block(w, c->at); i < n;
	     i++, at = lj_append_next_block(w, at)) {
		slot = log_slot(w, c, at, &err);
		if (!slot)
			return err;
		lj_enc_escape(w->j, slot, blocks[i].data);
		if (v1)
			c->crc32_sum = ext2fs_crc32_be(c->crc32_sum, slot,
						       w->bs);
	}
	c->at = at;
	return 0;
}

static errcode_t write_revokes(lj_writer *w, struct lj_append_job *c,
			       const uint64_t *rev, size_t nrev)
{
	size_t i = 0;
	errcode_t err = 0;

	while (i < nrev) {
		unsigned char *b = log_slot(w, c, c->at, &err);

		if (!b)
			return err;
		i += lj_enc_revoke(w->j, b, c->tid, rev + i, nrev - i);
		c->at = lj_append_next_block(w, c->at);
	}
	return err;
}

static errcode_t write_commit(lj_writer *w, struct lj_append_job *c)
{
	struct timespec now;
	errcode_t err;
	unsigned char *b = log_slot(w, c, c->at, &err);

	if (!b)
		return err;
	clock_gettime(CLOCK_REALTIME, &now);
	if ((uint64_t)now.tv_sec < w->last_sec)
		now.tv_sec = (time_t)w->last_sec;
	w->last_sec = (uint64_t)now.tv_sec;
	lj_enc_commit(w->j, b, c->tid, w->last_sec, (uint32_t)now.tv_nsec,
		      c->crc32_sum);
	return push_run(w, c);
}

/*
 * needs_recovery at home before the log is used (doc/contract.md §3), and
 * flushed (buf: one block of scratch; w is not changed).  Through the
 * writer's own channel: the device is held exclusively (a block device
 * opened O_EXCL cannot be opened again, not even by this process).
 */
static errcode_t write_needs_recovery(lj_writer *w, unsigned char *buf)
{
	blk64_t sb_blk = SUPERBLOCK_OFFSET / w->bs;
	errcode_t err = io_channel_read_blk64(w->rw, sb_blk, 1, buf);

	if (err)
		return err;
	lj_sb_keep_flags(buf, w->bs, sb_blk, 1, w->st->lazy);
	err = lj_sb_write_primary(w->rw, w->bs, buf + SUPERBLOCK_OFFSET % w->bs);
	return err ? err : io_channel_flush(w->rw);
}

/*
 * Before a job's blocks: needs_recovery at home if it is not known to be
 * set; and before the first transaction of an empty log, in an order
 * where a crash after any write leaves what doc/contract.md §3 allows
 * (s_start > 0 only with needs_recovery; else stock e2fsck -p stops on
 * "journal has data" and the kernel wipes the log):
 *  1. a journal superblock still naming an old log that is no longer
 *     live (s_start left non-zero, needs_recovery clear) forgets it, so
 *     that step 2 cannot make it live again;
 *  2. needs_recovery at home (over an empty log: nothing to replay);
 *  3. the journal superblock points at the head, which holds nothing of
 *     the new tid yet.
 * Part of the job's writing (lj_append_end records what it did in w).
 */
static errcode_t open_log(lj_writer *w, struct lj_append_job *c)
{
	unsigned char *b = c->desc;	/* no descriptor built yet */
	errcode_t err = 0;

	if (c->start_log && c->set_recovery) {
		err = lj_journal_read(w->j, 0, 1, b);
		if (!err && lj_be32(b + LJ_JSB_START))
			err = write_tail(w, b, 0, c->tid);
	}
	if (!err && c->set_recovery)
		err = write_needs_recovery(w, b);
	if (!err && c->start_log)
		err = write_tail(w, b, c->first, c->tid);
	return err;
}

errcode_t lj_append_begin(lj_writer *w, struct lj_append_job *job,
			  const struct lj_pending *blocks, size_t n,
			  const uint64_t *rev, size_t nrev)
{
	errcode_t err;

	memset(job, 0, sizeof(*job));
	job->need = lj_enc_txn_blocks(w->j, n, nrev);
	if (job->need > lj_writer_free_blocks(w))
		return LJ_ET_JOURNAL_FULL;
	job->run_max = LJ_APPEND_RUN_BYTES / w->bs;
	err = ext2fs_get_array(n ? n : 1, sizeof(*job->tags), &job->tags);
	/* One writer's buffer, kept between jobs (begin and end run under
	 * the caller's lock). */
	job->desc = w->job_buf;
	w->job_buf = NULL;
	if (!err && !job->desc)
		err = ext2fs_get_mem((2 + job->run_max) * (size_t)w->bs,
				     &job->desc);
	if (err) {
		lj_append_end(w, job, err);
		return err;
	}
	job->data = job->desc + w->bs;
	job->run = job->data + w->bs;
	job->blocks = blocks;
	job->n = n;
	job->rev = rev;
	job->nrev = nrev;
	job->tid = w->next_tid;
	job->first = job->at = w->head;
	job->start_log = !w->tail;
	job->set_recovery = !w->recover_set;
	job->crc32_sum = ~0U;
	return 0;
}

/*
 * Runs without the caller's lock while other threads add to the running
 * transaction and read through the map: it reads only the job and the
 * journal's geometry, and writes only the device (the superblock's
 * needs_recovery, the journal superblock, its journal blocks), w->last_sec
 * and the counts of journal blocks and writes in w->stats (no one else
 * touches those while a job is being written).
 */
errcode_t lj_append_write(lj_writer *w, struct lj_append_job *c)
{
	size_t per_desc = lj_enc_tags_per_desc(w->j), i;
	errcode_t err = open_log(w, c);

	for (i = 0; i < c->n && !err; i += per_desc)
		err = write_descriptor(w, c, c->blocks + i,
				       c->n - i < per_desc ? c->n - i :
				       per_desc);
	if (!err)
		err = write_revokes(w, c, c->rev, c->nrev);
	if (!err)
		err = push_run(w, c);
	/* Everything of the transaction (and data written home before it:
	 * ordered mode) durable before the commit block is written. */
	if (!err)
		err = io_channel_flush(w->rw);
	if (!err)
		err = write_commit(w, c);
	if (!err)
		err = io_channel_flush(w->rw);
	return err;
}

errcode_t lj_append_end(lj_writer *w, struct lj_append_job *c, errcode_t err)
{
	struct lj_txn t;

	if (!err) {
		if (c->set_recovery)
			w->recover_set = 1;
		if (c->start_log)
			note_tail(w, c->first, c->tid);
		memset(&t, 0, sizeof(t));
		t.tid = c->tid;
		t.first_block = w->head;
		t.commit_block = c->at;
		t.nblocks = c->need;
		t.ntags = (uint32_t)c->n;
		t.commit_sec = w->last_sec;
		err = lj_jmap_add_txn(w->m, &t, c->tags, c->rev, c->nrev);
		w->head = lj_append_next_block(w, c->at);
		w->next_tid++;
		w->stats.txns++;
	}
	ext2fs_free_mem(&c->tags);
	if (!w->job_buf)
		w->job_buf = c->desc;
	else
		ext2fs_free_mem(&c->desc);
	c->desc = NULL;
	return err;
}

errcode_t lj_append_txn(lj_writer *w, const struct lj_pending *blocks,
			size_t n, const uint64_t *rev, size_t nrev)
{
	struct lj_append_job job;
	errcode_t err = lj_append_begin(w, &job, blocks, n, rev, nrev);

	if (err)
		return err;
	return lj_append_end(w, &job, lj_append_write(w, &job));
}

errcode_t lj_append_running(lj_writer *w)
{
	errcode_t err = lj_append_txn(w, w->run.p, w->run.np, w->run.rev,
				      w->run.nrev);

	if (!err)
		lj_run_clear(&w->run);
	return err;
}
