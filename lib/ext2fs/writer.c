/*
 * writer.c --- the writer: a running transaction appended to the log of an
 * open lazy state.
 *
 * Blocks added go into the running transaction (running_txn.c), revokes
 * cancel journaled copies; a commit (cleaner.c) makes room and appends it
 * (log_append.c).  Home copies are never written for journaled blocks.
 */
#include "writer_private.h"
#include "lj_private.h"

size_t lj_writer_pending(const lj_writer *w)
{
	return w->run.np;
}

errcode_t lj_writer_add(lj_writer *w, blk64_t home, const void *data)
{
	unsigned char *copy;
	errcode_t err;

	/* A journal block logged as a home would be written over the log
	 * by the cleaner, and stock replay would overwrite log blocks. */
	if (lj_journal_lblk(w->j, home, NULL))
		return LJ_ET_WRITE_REFUSED;
	/* A revoke in the same transaction would cancel this copy too. */
	lj_run_unrevoke(&w->run, home);
	err = lj_run_add(&w->run, home, data, &copy);
	if (!err)
		lj_sb_keep_flags(copy, w->bs, home, 1, w->st->lazy);
	if (w->cache && !err)
		lj_bcache_put(w->cache, home, copy);	/* the bytes read next */
	else if (w->cache)
		lj_bcache_drop(w->cache, home);
	return err;
}

/* The caller writes home next: the cached bytes go too. */
/* The running transaction dropped: nothing of it reaches the log. */
void lj_writer_abort(lj_writer *w)
{
	lj_run_clear(&w->run);
}

errcode_t lj_writer_revoke(lj_writer *w, blk64_t home)
{
	if (w->cache)
		lj_bcache_drop(w->cache, home);
	lj_run_drop(&w->run, home);	/* our own copy */
	/* nothing in the log, nor on its way there, to cancel */
	if (!lj_jmap_lookup(w->m, home) &&
	    !(w->in_commit && lj_run_find(&w->committing, home, NULL)))
		return 0;
	return lj_run_revoke(&w->run, home);
}

static int lookup_in(const struct lj_running *r, blk64_t home,
		     const unsigned char **data)
{
	const struct lj_pending *p = lj_run_find(r, home, NULL);

	if (p) {
		*data = p->data;
		return 1;
	}
	return lj_run_revoked(r, home) ? -1 : 0;
}

int lj_writer_lookup(lj_writer *w, blk64_t home, const unsigned char **data)
{
	int found = lookup_in(&w->run, home, data);

	if (!found && w->in_commit)
		found = lookup_in(&w->committing, home, data);
	return found;
}

errcode_t lj_writer_can_open(const lj_lazy_state *st)
{
	const lj_log *log = st->jmap->log;

	if (st->journal_err)
		return st->journal_err;
	if (!st->journal)
		return EXT2_ET_NO_JOURNAL;
	if (log->refused || log->end == LJ_END_COMMIT_CSUM ||
	    log->end == LJ_END_STALE_CSUM || log->end == LJ_END_REVOKE_COUNT)
		return LJ_ET_LOG_NOT_CLEAN;
	/* The cleaner would write such homes over the log itself. */
	if (st->jmap->in_journal || st->jmap->nfix)
		return LJ_ET_LOG_HOMES_IN_JOURNAL;
	return 0;
}

errcode_t lj_writer_open(lj_lazy_state *st, io_channel rw, lj_writer **ret)
{
	lj_log *log = st->jmap->log;
	lj_writer *w;
	errcode_t err;

	*ret = NULL;
	err = lj_writer_can_open(st);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*w), &w);
	if (err)
		return err;
	w->st = st;
	w->j = st->journal;
	w->m = st->jmap;
	w->rw = rw;
	w->bs = w->j->blocksize;
	w->run.bs = w->bs;
	w->committing.bs = w->bs;
	err = ext2fs_get_mem(w->bs, &w->blk);
	if (err) {
		lj_writer_close(w);
		return err;
	}
	w->recover_set = st->needs_recovery;
	if (log->ntxn) {
		const struct lj_txn *last = &log->txn[log->ntxn - 1];

		w->tail = w->j->start;
		w->head = lj_append_next_block(w, last->commit_block);
		w->next_tid = last->tid + 1;
		w->last_sec = last->commit_sec;
	} else {
		/* An empty log (or one holding only an uncommitted tail):
		 * start afresh at s_first, as jbd2 does after recovery. */
		w->tail = 0;
		w->head = w->j->first;
		w->next_tid = w->j->start ? log->end_tid + 1 : w->j->sequence;
		if (w->j->start) {
			err = lj_append_set_tail(w, 0, w->next_tid);
			if (err) {
				lj_writer_close(w);
				return err;
			}
		}
	}
	*ret = w;
	return 0;
}

void lj_writer_close(lj_writer *w)
{
	if (!w)
		return;
	lj_run_free(&w->run);
	lj_run_free(&w->committing);
	ext2fs_free_mem(&w->blk);
	ext2fs_free_mem(&w->job_buf);
	ext2fs_free_mem(&w);
}

void lj_writer_set_cache(lj_writer *w, struct lj_block_cache *c)
{
	w->cache = c;
}

void lj_writer_set_record(lj_writer *w, lj_io_record_fn fn, void *arg)
{
	w->rec = fn;
	w->rec_arg = arg;
}

void lj_writer_set_log(lj_writer *w, io_channel log)
{
	w->log = log;
}

const struct lj_writer_stats *lj_writer_stats(const lj_writer *w)
{
	return &w->stats;
}
