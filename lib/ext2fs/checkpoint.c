/*
 * checkpoint.c --- journal space on a file system without lazy_journal:
 * committed blocks go home, as jbd2's checkpoint sends them.
 *
 * On plain ext4 the journal is only a redo log: every committed block
 * must also reach its home.  The cleaner (cleaner.c) re-logs live blocks
 * on a lazy file system; here it checkpoints instead: the live blocks of
 * the oldest transactions, as many as the room asked for needs, are
 * written home in one batch (ascending, adjacent blocks in one write,
 * migrate.c's step 1) and flushed; only then does the journal superblock's
 * tail move past them (flushed).  A block the running transaction revokes
 * may hold new file data at home already: its old copy is re-logged
 * instead (as cleaner.c's send_home does), until that revoke commits.
 *
 * lj_checkpoint_empty_log empties the log in doc/contract.md §3 order, a flush
 * after each step: (1) every live block home, (2) the journal superblock
 * s_start 0 with s_sequence the next tid, (3) needs_recovery cleared at
 * home.  It is what a clean umount of plain ext4 ends with.
 */
#include <string.h>

#include "writer_private.h"
#include "lj_private.h"

/* Is tid one of the oldest k transactions of the log? */
static int in_oldest(const lj_log *log, size_t k, uint32_t tid)
{
	return lj_tid_geq(tid, log->txn[0].tid) &&
	       lj_tid_geq(log->txn[k - 1].tid, tid);
}

/* The live copies of sel[0..n) (re-logged in a transaction of their own:
 * the running one revokes them). */
static errcode_t relog(lj_writer *w, const struct lj_jmap_entry *sel,
		       size_t n)
{
	struct lj_pending *p = NULL;
	size_t i, got = 0;
	errcode_t err;

	if (lj_enc_txn_blocks(w->j, n, 0) > lj_writer_free_blocks(w))
		return LJ_ET_JOURNAL_FULL;
	err = ext2fs_get_arrayzero(n, sizeof(*p), &p);
	for (i = 0; i < n && !err; i++) {
		p[i].home = sel[i].home;
		err = ext2fs_get_mem(w->bs, &p[i].data);
		if (!err) {
			got++;
			err = lj_journal_read(w->j, sel[i].jblock, 1,
					      p[i].data);
		}
		if (!err && lj_jmap_escaped(w->m, sel[i].jblock))
			lj_put_be32(p[i].data, LJ_JBD2_MAGIC);
	}
	if (!err)
		err = lj_append_txn(w, p, n, NULL, 0);
	if (!err)
		w->stats.relogged += n;
	for (i = 0; i < got; i++)
		ext2fs_free_mem(&p[i].data);
	ext2fs_free_mem(&p);
	return err;
}

/*
 * Checkpoint the oldest k transactions: their live blocks home (or
 * re-logged, see above), flushed, then the tail past them.  sel: room
 * for every jmap entry.
 */
static errcode_t checkpoint_oldest(lj_writer *w, size_t k)
{
	lj_log *log = w->m->log;
	struct lj_jmap_entry *home = NULL, *keep = NULL;
	struct lj_migrate_stats ms;
	uint64_t *homes = NULL;
	size_t nhome = 0, nkeep = 0, i;
	errcode_t err;

	memset(&ms, 0, sizeof(ms));
	err = ext2fs_get_array(w->m->n + 1, sizeof(*home), &home);
	if (!err)
		err = ext2fs_get_array(w->m->n + 1, sizeof(*keep), &keep);
	if (!err)
		err = ext2fs_get_array(w->m->n + 1, sizeof(*homes), &homes);
	if (err)
		goto out;
	/* copies: re-logging changes the map */
	for (i = 0; i < w->m->n; i++) {
		const struct lj_jmap_entry *e = &w->m->e[i];

		if (!in_oldest(log, k, e->tid))
			continue;
		if (lj_run_revoked(&w->run, e->home))
			keep[nkeep++] = *e;
		else
			home[nhome++] = *e;
	}
	if (nkeep)
		err = relog(w, keep, nkeep);
	if (!err && nhome)
		err = lj_write_live_home(w->st, w->rw, home, nhome, NULL, NULL,
					 &ms);
	if (err)
		goto out;
	for (i = 0; i < nhome; i++) {
		homes[i] = home[i].home;
		if (w->rec)
			w->rec(w->rec_arg, LJ_IO_META_HOME, home[i].home, 1);
	}
	w->stats.sent_home += nhome;
	err = lj_jmap_unmap(w->m, homes, nhome);
	for (i = 0; i < k && !err; i++)
		lj_jmap_drop_oldest(w->m);
	if (!err && log->ntxn)
		err = lj_append_set_tail(w, log->txn[0].first_block,
					 log->txn[0].tid);
	else if (!err)
		err = lj_append_set_tail(w, 0, w->next_tid);
out:
	ext2fs_free_mem(&home);
	ext2fs_free_mem(&keep);
	ext2fs_free_mem(&homes);
	return err;
}

/* How many of the oldest transactions free at least need blocks. */
static size_t txns_for(const lj_writer *w, uint32_t need)
{
	const lj_log *log = w->m->log;
	uint32_t freed = lj_writer_free_blocks(w);
	size_t k = 0;

	while (k < log->ntxn && freed < need)
		freed += log->txn[k++].nblocks;
	return k ? k : 1;
}

/* Does one of the oldest k transactions hold a live block the running
 * one revokes? */
static int revoked_by_running(const lj_writer *w, size_t k)
{
	size_t i;

	for (i = 0; i < w->run.nrev; i++) {
		const struct lj_jmap_entry *e =
			lj_jmap_lookup(w->m, w->run.rev[i]);

		if (e && in_oldest(w->m->log, k, e->tid))
			return 1;
	}
	return 0;
}

errcode_t lj_checkpoint_room(lj_writer *w, uint32_t need)
{
	errcode_t err = 0;

	while (!err && lj_writer_free_blocks(w) < need) {
		uint32_t before = lj_writer_free_blocks(w);
		size_t k;

		if (!w->m->log->ntxn)
			return LJ_ET_JOURNAL_FULL;
		k = txns_for(w, need);
		/* Blocks the running transaction revokes cannot go home:
		 * when it fits, commit it first, so that its revokes retire
		 * them (cleaner.c does the same). */
		if (revoked_by_running(w, k) &&
		    lj_enc_txn_blocks(w->j, w->run.np, w->run.nrev) <=
		    before) {
			err = lj_append_running(w);
			continue;
		}
		err = checkpoint_oldest(w, k);
		if (!err && lj_writer_free_blocks(w) <= before &&
		    lj_writer_free_blocks(w) < need)
			return LJ_ET_JOURNAL_FULL;
	}
	return err;
}

/* Step 3: needs_recovery cleared in the home superblock, flushed. */
static errcode_t clear_needs_recovery(lj_writer *w)
{
	blk64_t sb_blk = SUPERBLOCK_OFFSET / w->bs;
	struct ext2_super_block *sb;
	errcode_t err;

	err = io_channel_read_blk64(w->rw, sb_blk, 1, w->blk);
	if (err)
		return err;
	sb = (struct ext2_super_block *)(w->blk + SUPERBLOCK_OFFSET % w->bs);
	if (sb->s_magic != EXT2_SUPER_MAGIC)
		return EXT2_ET_BAD_MAGIC;
	ext2fs_clear_feature_journal_needs_recovery(sb);
	if (w->st->lazy)	/* doc/contract.md §2.1: the flag stays */
		sb->s_feature_compat |= LJ_FEATURE_COMPAT_LAZY_JOURNAL;
	lj_sb_csum_set(sb);
	err = lj_sb_write_primary(w->rw, w->bs, sb);
	if (!err)
		err = io_channel_flush(w->rw);
	if (!err) {
		w->recover_set = 0;
		w->st->needs_recovery = 0;
	}
	return err;
}

errcode_t lj_checkpoint_empty_log(lj_writer *w)
{
	errcode_t err = 0;

	if (w->m->log->ntxn)			/* steps 1 and 2 */
		err = checkpoint_oldest(w, w->m->log->ntxn);
	else if (w->tail)			/* step 2 alone */
		err = lj_append_set_tail(w, 0, w->next_tid);
	if (!err && w->recover_set)		/* step 3 */
		err = clear_needs_recovery(w);
	return err;
}
