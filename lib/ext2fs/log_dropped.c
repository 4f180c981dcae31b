/*
 * log_dropped.c --- the transactions a salvaged log leaves out.
 *
 * When stock recovery would refuse a lazy file system's log, the scan
 * keeps the transactions before the bad one (doc/contract.md §5).  What
 * comes after is not replayed, but its blocks are still in the journal:
 * this walks them the way stock `debugfs logdump` walks a log -- from the
 * block after the last kept transaction, expecting the sequence where the
 * kept part ended, one transaction per commit block, without checking
 * any checksum -- and lists each transaction with the fs blocks it logs
 * and revokes, so that a writing e2fsck can say what it drops.
 */
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "jbd2_format.h"
#include "lj_private.h"

struct walk {
	lj_journal *j;
	lj_dropped *d;
	unsigned char *buf;
	uint32_t blk;		/* next journal block */
	uint32_t budget;	/* blocks left before the walk would loop */
	size_t cap_txn, cap_blocks;
};

static void next_block(const lj_journal *j, uint32_t *blk)
{
	if (++*blk >= j->last)
		*blk = j->first;
}

/* The transaction being walked (tid): the last one, opened if needed. */
static struct lj_dropped_txn *cur_txn(struct walk *w, uint32_t tid,
				      uint32_t at)
{
	lj_dropped *d = w->d;
	struct lj_dropped_txn *t;

	if (d->ntxn && d->txn[d->ntxn - 1].tid == tid &&
	    !d->txn[d->ntxn - 1].committed)
		return &d->txn[d->ntxn - 1];
	if (lj_array_grow(&d->txn, &w->cap_txn, d->ntxn + 1, sizeof(*t)))
		return NULL;
	t = &d->txn[d->ntxn++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_block = t->last_block = at;
	t->block_first = d->nblocks;
	return t;
}

static errcode_t add_block(struct walk *w, struct lj_dropped_txn *t,
			   uint64_t home, int revoked)
{
	lj_dropped *d = w->d;
	struct lj_dropped_block *b;
	errcode_t err = lj_array_grow(&d->blocks, &w->cap_blocks,
				      d->nblocks + 1, sizeof(*b));

	if (err)
		return err;
	b = &d->blocks[d->nblocks++];
	b->home = home;
	b->revoked = revoked;
	t->nblocks++;
	return 0;
}

/* One descriptor block: its tags, and the data blocks they occupy. */
static errcode_t walk_descriptor(struct walk *w, struct lj_dropped_txn *t)
{
	const lj_journal *j = w->j;
	size_t end = j->blocksize - j->tail_bytes, off = LJ_HDR_SIZE;
	int b64 = (j->incompat & LJ_FEATURE_INCOMPAT_64BIT) != 0;

	for (; off + j->tag_bytes <= end && w->budget; w->budget--) {
		const unsigned char *tag = w->buf + off;
		uint16_t flags = lj_be16(tag + LJ_TAG_FLAGS16);
		uint64_t home = lj_be32(tag + LJ_TAG_BLOCKNR);
		errcode_t err;

		if (b64)
			home |= (uint64_t)lj_be32(tag + LJ_TAG_BLOCKNR_HIGH)
				<< 32;
		err = add_block(w, t, home, 0);
		if (err)
			return err;
		t->last_block = w->blk;
		next_block(j, &w->blk);
		off += j->tag_bytes +
		       ((flags & LJ_FLAG_SAME_UUID) ? 0 : LJ_TAG_UUID_SIZE);
		if (flags & LJ_FLAG_LAST_TAG)
			break;
	}
	return 0;
}

/* One revoke block: its records (an r_count too large is cut short). */
static errcode_t walk_revoke(struct walk *w, struct lj_dropped_txn *t)
{
	const lj_journal *j = w->j;
	size_t rec = (j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t count = lj_be32(w->buf + LJ_REVOKE_COUNT), off;

	if (count > j->blocksize - j->tail_bytes)
		count = j->blocksize - j->tail_bytes;
	for (off = LJ_REVOKE_HDR_SIZE; off + rec <= count; off += rec) {
		errcode_t err = add_block(w, t, rec == 8 ?
					  lj_be64(w->buf + off) :
					  lj_be32(w->buf + off), 1);

		if (err)
			return err;
	}
	return 0;
}

static errcode_t walk(struct walk *w, uint32_t tid)
{
	const lj_journal *j = w->j;

	for (; w->budget; w->budget--) {
		uint32_t at = w->blk, type;
		struct lj_dropped_txn *t;
		errcode_t err;

		err = lj_journal_read(w->j, at, 1, w->buf);
		if (err)
			return err;
		if (lj_be32(w->buf + LJ_HDR_MAGIC) != LJ_JBD2_MAGIC ||
		    lj_be32(w->buf + LJ_HDR_SEQUENCE) != tid)
			return 0;
		type = lj_be32(w->buf + LJ_HDR_BLOCKTYPE);
		if (type != LJ_BT_DESCRIPTOR && type != LJ_BT_REVOKE &&
		    type != LJ_BT_COMMIT)
			return 0;
		t = cur_txn(w, tid, at);
		if (!t)
			return EXT2_ET_NO_MEMORY;
		t->last_block = at;
		next_block(j, &w->blk);
		if (type == LJ_BT_DESCRIPTOR)
			err = walk_descriptor(w, t);
		else if (type == LJ_BT_REVOKE)
			err = walk_revoke(w, t);
		else {
			t->committed = 1;
			tid++;
		}
		if (err)
			return err;
	}
	return 0;
}

errcode_t lj_log_dropped(const lj_log *log, lj_dropped **ret)
{
	lj_journal *j = log->j;
	struct walk w;
	errcode_t err;

	*ret = NULL;
	memset(&w, 0, sizeof(w));
	err = ext2fs_get_memzero(sizeof(*w.d), &w.d);
	if (err)
		return err;
	if (!log->refused || !j || !j->start) {
		*ret = w.d;
		return 0;
	}
	w.j = j;
	w.blk = j->start;
	if (log->ntxn) {
		w.blk = log->txn[log->ntxn - 1].commit_block;
		next_block(j, &w.blk);
	}
	w.budget = j->last - j->first;
	w.budget = log->log_blocks < w.budget ? w.budget - log->log_blocks : 0;
	err = ext2fs_get_mem(j->blocksize, &w.buf);
	if (!err)
		err = walk(&w, log->end_tid);
	ext2fs_free_mem(&w.buf);
	if (err) {
		lj_dropped_free(w.d);
		return err;
	}
	*ret = w.d;
	return 0;
}

void lj_dropped_free(lj_dropped *d)
{
	if (!d)
		return;
	ext2fs_free_mem(&d->txn);
	ext2fs_free_mem(&d->blocks);
	ext2fs_free_mem(&d);
}
