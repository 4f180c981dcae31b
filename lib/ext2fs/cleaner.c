/*
 * cleaner.c --- journal space: the cleaner, and committing the running
 * transaction into the room it makes (in three steps, so that a caller
 * serves requests while the log is written: lj_writer_commit_start).
 *
 * The cleaner frees journal space at the tail: the live blocks of the
 * oldest transaction are re-logged at the head (or written home when
 * re-logging would not gain space), and only once those copies are
 * durable does the journal superblock's tail move past it.  A checkpoint
 * is the cleaner sending everything home; compaction (compact.c) is the
 * cleaner run over every transaction of the log.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "writer_private.h"
#include "lj_private.h"

/* The live copy of a mapped block, magic restored. */
static errcode_t read_live(lj_writer *w, const struct lj_jmap_entry *e,
			   unsigned char *buf)
{
	errcode_t err = lj_journal_read(w->j, e->jblock, 1, buf);

	if (!err && lj_jmap_escaped(w->m, e->jblock))
		lj_put_be32(buf, LJ_JBD2_MAGIC);
	return err;
}

/* The live blocks of transaction tid (n of them), read from the log. */
static errcode_t read_txn_live(lj_writer *w, uint32_t tid, size_t n,
			       struct lj_pending *live, size_t *got)
{
	size_t i;
	errcode_t err = 0;

	*got = 0;
	for (i = 0; i < w->m->n && *got < n && !err; i++) {
		const struct lj_jmap_entry *e = &w->m->e[i];
		struct lj_pending *l = &live[*got];

		if (e->tid != tid)
			continue;
		l->home = e->home;
		err = ext2fs_get_mem(w->bs, &l->data);
		if (!err) {
			(*got)++;
			err = read_live(w, e, l->data);
		}
	}
	return err;
}

/*
 * Cold blocks go home, ordered before the tail moves.  A block revoked in
 * the running transaction may hold new data at home already (data mode
 * writes go home at once): its old copy must not be written over it.
 * Until that revoke commits, the old copy is re-logged instead (so a
 * crash before the commit still finds the block as it was).
 */
static errcode_t send_home(lj_writer *w, struct lj_pending *live, size_t n,
			   struct lj_compact_stats *cs)
{
	uint64_t *homes = NULL;
	size_t nkeep = 0, nhome = 0, i;
	errcode_t err;

	err = ext2fs_get_array(n, sizeof(*homes), &homes);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		struct lj_pending tmp = live[i];

		if (!lj_run_revoked(&w->run, live[i].home))
			continue;
		memmove(live + nkeep + 1, live + nkeep,
			(i - nkeep) * sizeof(*live));
		live[nkeep++] = tmp;
	}
	if (nkeep) {
		if (lj_enc_txn_blocks(w->j, nkeep, 0) >
		    lj_writer_free_blocks(w))
			err = LJ_ET_JOURNAL_FULL;
		else
			err = lj_append_txn(w, live, nkeep, NULL, 0);
		w->stats.relogged += nkeep;
		if (cs)
			cs->kept += nkeep;
	}
	for (i = nkeep; i < n && !err; i++) {
		/* a logged superblock (stock and kernel copies may lack them)
		 * goes home with lazy_journal and needs_recovery: the log
		 * stays in use */
		lj_sb_keep_flags(live[i].data, w->bs, live[i].home, 1,
				 w->st->lazy);
		err = io_channel_write_blk64(w->rw, live[i].home, 1,
					     live[i].data);
		if (!err && w->rec)
			w->rec(w->rec_arg, LJ_IO_META_HOME, live[i].home, 1);
		homes[nhome++] = live[i].home;
	}
	if (!err)
		err = io_channel_flush(w->rw);
	if (!err)
		err = lj_jmap_unmap(w->m, homes, nhome);
	w->stats.sent_home += n - nkeep;
	if (cs)
		cs->sent_home += n - nkeep;
	ext2fs_free_mem(&homes);
	return err;
}

/*
 * Clean the oldest transaction.  Its live blocks are re-logged at the
 * head when that fits and gains space (and, in compaction, when they were
 * written at or after keep_from), else written home; then the tail moves
 * past it.
 */
errcode_t lj_clean_tail(lj_writer *w, enum lj_clean_policy policy,
			uint32_t keep_from, struct lj_compact_stats *cs)
{
	lj_log *log = w->m->log;
	const struct lj_txn *t = &log->txn[0];
	struct lj_pending *live = NULL;
	size_t n = 0, i;
	uint32_t tid = t->tid, tblocks = t->nblocks;
	errcode_t err = 0;

	if (t->nlive) {
		err = ext2fs_get_arrayzero(t->nlive, sizeof(*live), &live);
		if (!err)
			err = read_txn_live(w, tid, t->nlive, live, &n);
		if (err)
			goto out;
	}
	if (n) {
		uint32_t cost = lj_enc_txn_blocks(w->j, n, 0);
		int relog = cost <= lj_writer_free_blocks(w) &&
			    (policy == LJ_CLEAN_GAIN ? cost < tblocks :
			     policy == LJ_CLEAN_KEEP_FROM &&
			     lj_tid_geq(tid, keep_from));

		if (relog) {
			err = lj_append_txn(w, live, n, NULL, 0);
			w->stats.relogged += n;
			if (cs)
				cs->kept += n;
		} else {
			err = send_home(w, live, n, cs);
		}
		if (err)
			goto out;
	}
	lj_jmap_drop_oldest(w->m);
	if (log->ntxn)
		err = lj_append_set_tail(w, log->txn[0].first_block,
					 log->txn[0].tid);
	else
		err = lj_append_set_tail(w, 0, w->next_tid);
out:
	for (i = 0; i < n; i++)
		ext2fs_free_mem(&live[i].data);
	ext2fs_free_mem(&live);
	return err;
}

/* Does the oldest transaction hold a live block the running one revokes? */
static int tail_revoked_by_running(const lj_writer *w)
{
	uint32_t tid = w->m->log->txn[0].tid;
	size_t i;

	for (i = 0; i < w->run.nrev; i++) {
		const struct lj_jmap_entry *e =
			lj_jmap_lookup(w->m, w->run.rev[i]);

		if (e && e->tid == tid)
			return 1;
	}
	return 0;
}

static errcode_t make_room(lj_writer *w, uint32_t need)
{
	uint32_t best = lj_writer_free_blocks(w);
	size_t idle = 0;
	errcode_t err = 0;

	if (!w->st->lazy)	/* plain ext4: checkpoint home */
		return lj_checkpoint_room(w, need);
	while (!err && lj_writer_free_blocks(w) < need) {
		if (!w->m->log->ntxn)
			return LJ_ET_JOURNAL_FULL;
		/*
		 * Blocks the running transaction revokes cannot go home (new
		 * data may be there) and re-logging them gains nothing: when
		 * the running transaction fits, commit it first, so that its
		 * revokes retire them.
		 */
		if (tail_revoked_by_running(w) &&
		    lj_enc_txn_blocks(w->j, w->run.np, w->run.nrev) <=
		    lj_writer_free_blocks(w)) {
			err = lj_append_running(w);
			continue;
		}
		/* Otherwise (the running transaction is what needs the room)
		 * they are re-logged as they are; a whole round of the log
		 * without progress means the space is not there until that
		 * transaction commits. */
		if (idle > w->m->log->ntxn)
			return LJ_ET_JOURNAL_FULL;
		err = lj_clean_tail(w, LJ_CLEAN_GAIN, 0, NULL);
		if (lj_writer_free_blocks(w) > best) {
			best = lj_writer_free_blocks(w);
			idle = 0;
		} else {
			idle++;
		}
	}
	return err;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The cleaner's runs are counted and timed (lj_writer_stats): a caller
 * that serves requests under one lock (the mount) reports how long they
 * were held up by it. */
errcode_t lj_writer_make_room(lj_writer *w, uint32_t need)
{
	uint64_t t0, ns;
	errcode_t err;

	if (need > lj_append_log_size(w) - 1)	/* never: it would spin */
		return LJ_ET_JOURNAL_FULL;
	if (lj_writer_free_blocks(w) >= need)
		return 0;
	t0 = now_ns();
	err = make_room(w, need);
	ns = now_ns() - t0;
	w->stats.cleaner_runs++;
	w->stats.cleaner_ns += ns;
	if (ns > w->stats.cleaner_max_ns)
		w->stats.cleaner_max_ns = ns;
	return err;
}

errcode_t lj_writer_commit_start(lj_writer *w)
{
	struct lj_running tmp;
	errcode_t err;

	if (w->in_commit)
		return EBUSY;
	if (!w->run.np && !w->run.nrev)
		return 0;
	err = lj_writer_make_room(w, lj_enc_txn_blocks(w->j, w->run.np,
						       w->run.nrev));
	/* (making room may have committed it already) */
	if (err || (!w->run.np && !w->run.nrev))
		return err;
	tmp = w->committing;	/* empty: its arrays are reused */
	w->committing = w->run;
	w->run = tmp;
	err = lj_append_begin(w, &w->job, w->committing.p, w->committing.np,
			      w->committing.rev, w->committing.nrev);
	if (err) {
		w->run = w->committing;
		w->committing = tmp;
		return err;
	}
	w->in_commit = 1;
	return 0;
}

errcode_t lj_writer_commit_write(lj_writer *w)
{
	return w->in_commit ? lj_append_write(w, &w->job) : 0;
}

/* A failed commit's copies and revokes back under the running
 * transaction's (which are newer). */
static errcode_t requeue(lj_writer *w)
{
	struct lj_running *c = &w->committing;
	unsigned char *copy;
	errcode_t err = 0;
	size_t i;

	for (i = 0; i < c->np && !err; i++)
		if (!lj_run_find(&w->run, c->p[i].home, NULL) &&
		    !lj_run_revoked(&w->run, c->p[i].home))
			err = lj_run_add(&w->run, c->p[i].home, c->p[i].data,
					 &copy);
	for (i = 0; i < c->nrev && !err; i++)
		if (!lj_run_find(&w->run, c->rev[i], NULL))
			err = lj_run_revoke(&w->run, c->rev[i]);
	return err;
}

errcode_t lj_writer_commit_finish(lj_writer *w, errcode_t err)
{
	if (!w->in_commit)
		return err;
	err = lj_append_end(w, &w->job, err);
	if (err)
		(void)requeue(w);	/* a copy it cannot keep: lost, as
					   in an aborted journal */
	lj_run_clear(&w->committing);
	w->in_commit = 0;
	return err;
}

int lj_writer_committing(const lj_writer *w)
{
	return w->in_commit;
}

errcode_t lj_writer_commit(lj_writer *w)
{
	errcode_t err = lj_writer_commit_start(w);

	if (err || !w->in_commit)
		return err;
	return lj_writer_commit_finish(w, lj_writer_commit_write(w));
}

errcode_t lj_writer_checkpoint(lj_writer *w)
{
	errcode_t err = lj_writer_commit(w);

	while (!err && w->m->log->ntxn)
		err = lj_clean_tail(w, LJ_CLEAN_HOME, 0, NULL);
	return err;
}

errcode_t lj_writer_checkpoint_all(lj_writer *w)
{
	errcode_t err = lj_writer_commit(w);

	return err ? err : lj_checkpoint_empty_log(w);
}
