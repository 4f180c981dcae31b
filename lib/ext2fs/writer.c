/*
 * writer.c --- append transactions to the log, as the ext4-lazy kernel does.
 *
 * A transaction goes to the head of the log in the journal's own format
 * (tag size, checksum version, escaping, wrap-around at the end of the log
 * area) and becomes durable when its commit block is flushed.  Before the
 * first transaction of an empty log, needs_recovery is set in the home
 * superblock and the journal superblock is pointed at the head (SPEC §2).
 * Home copies are never written for journaled blocks.
 *
 * The cleaner frees journal space at the tail: the live blocks of the
 * oldest transaction are re-logged at the head (or written home when
 * re-logging would not gain space), and only once those copies are durable
 * does the journal superblock's tail move past it.  Compaction is the
 * cleaner run over every transaction of the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lazy_journal.h"
#include "lj_private.h"

struct pending {
	uint64_t home;
	unsigned char *data;
};

struct lj_writer {
	lj_lazy_state *st;
	lj_journal *j;
	lj_jmap *m;
	io_channel rw;
	char *device;
	unsigned int bs;
	uint32_t head;		/* next journal block to write */
	uint32_t tail;		/* first block of the log, 0 = empty */
	uint32_t next_tid;
	uint64_t last_sec;	/* commit times never go backwards */
	int recover_set;	/* needs_recovery is set at home */
	struct pending *p;	/* the running transaction, sorted by home */
	size_t np, capp;
	uint64_t *rev;		/* its revoke records */
	size_t nrev, caprev;
	unsigned char *blk;	/* one block of scratch */
	lj_io_record_fn rec;
	void *rec_arg;
	struct lj_writer_stats stats;
};

static uint32_t log_size(const lj_writer *w)
{
	return w->j->last - w->j->first;
}

static uint32_t next_block(const lj_writer *w, uint32_t b)
{
	return b + 1 == w->j->last ? w->j->first : b + 1;
}

uint32_t lj_writer_free_blocks(const lj_writer *w)
{
	uint32_t used;

	if (!w->tail)
		return log_size(w) - 1;
	used = w->head >= w->tail ? w->head - w->tail :
	       (w->j->last - w->tail) + (w->head - w->j->first);
	/* One block stays free so the head never catches the tail. */
	return log_size(w) - used - 1;
}

/* Journal blocks a transaction of n blocks and r revokes occupies. */
static uint32_t txn_blocks(const lj_writer *w, size_t n, size_t r)
{
	size_t room = w->bs - LJ_HDR_SIZE - w->j->tail_bytes;
	size_t per_desc = 1 + (room - w->j->tag_bytes - LJ_TAG_UUID_SIZE) /
			  w->j->tag_bytes;
	size_t rec = (w->j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t per_rev = (w->bs - LJ_REVOKE_HDR_SIZE - w->j->tail_bytes) / rec;

	return (uint32_t)((n + per_desc - 1) / per_desc + n +
			  (r + per_rev - 1) / per_rev + 1);
}

static errcode_t write_jblock(lj_writer *w, uint32_t jblk, const void *buf)
{
	blk64_t pblk = lj_journal_pblk(w->j, jblk);
	errcode_t err;

	if (!pblk)
		return EXT2_ET_BAD_BLOCK_NUM;
	err = io_channel_write_blk64(w->rw, pblk, 1, buf);
	if (err)
		return err;
	w->stats.journal_blocks++;
	if (w->rec)
		w->rec(w->rec_arg, LJ_IO_JOURNAL, pblk, 1);
	return 0;
}

/* Point the journal superblock at the tail (0: the log is empty). */
static errcode_t write_tail(lj_writer *w, uint32_t start, uint32_t seq)
{
	unsigned char *sb = w->blk;
	errcode_t err;

	err = lj_journal_read(w->j, 0, 1, sb);
	if (err)
		return err;
	lj_put_be32(sb + LJ_JSB_START, start);
	lj_put_be32(sb + LJ_JSB_SEQUENCE, seq);
	lj_jsb_csum_set(w->j, sb);
	err = write_jblock(w, 0, sb);
	if (!err)
		err = io_channel_flush(w->rw);
	if (err)
		return err;
	w->j->start = start;
	w->j->sequence = seq;
	w->tail = start;
	w->stats.tail_moves++;
	return 0;
}

static void put_header(unsigned char *b, uint32_t type, uint32_t tid)
{
	lj_put_be32(b + LJ_HDR_MAGIC, LJ_JBD2_MAGIC);
	lj_put_be32(b + LJ_HDR_BLOCKTYPE, type);
	lj_put_be32(b + LJ_HDR_SEQUENCE, tid);
}

static void put_block_tail(const lj_writer *w, unsigned char *b)
{
	unsigned char *tail = b + w->bs - LJ_BLOCK_TAIL_SIZE;

	if (!lj_journal_csum_v23(w->j))
		return;
	lj_put_be32(tail, 0);
	lj_put_be32(tail, ext2fs_crc32c_le(w->j->csum_seed, b, w->bs));
}

/* One tag at b for a copy of home stored escaped or not, with csum. */
static void put_tag(const lj_writer *w, unsigned char *b, uint64_t home,
		    uint16_t flags, uint32_t csum)
{
	lj_put_be32(b + LJ_TAG_BLOCKNR, (uint32_t)home);
	if (w->j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3) {
		lj_put_be32(b + 4, flags);
		lj_put_be32(b + LJ_TAG3_BLOCKNR_HIGH, (uint32_t)(home >> 32));
		lj_put_be32(b + LJ_TAG3_CSUM32, csum);
		return;
	}
	b[LJ_TAG_CSUM16] = (unsigned char)(csum >> 8);
	b[LJ_TAG_CSUM16 + 1] = (unsigned char)csum;
	b[LJ_TAG_FLAGS16] = (unsigned char)(flags >> 8);
	b[LJ_TAG_FLAGS16 + 1] = (unsigned char)flags;
	if (w->j->incompat & LJ_FEATURE_INCOMPAT_64BIT)
		lj_put_be32(b + LJ_TAG_BLOCKNR_HIGH, (uint32_t)(home >> 32));
}

struct commit_ctx {
	uint32_t tid;
	uint32_t at;		/* next journal block */
	uint32_t crc32_sum;	/* v1 checksum */
	struct lj_tag *tags;
	size_t ntags;
};

/* The on-disk copy of a block: escaped when it starts with the magic. */
static uint16_t escape_copy(const lj_writer *w, unsigned char *out,
			    const unsigned char *in)
{
	memcpy(out, in, w->bs);
	if (lj_be32(out) != LJ_JBD2_MAGIC)
		return 0;
	lj_put_be32(out, 0);	/* recovery puts the magic back */
	return LJ_FLAG_ESCAPE;
}

/* One descriptor block and the n data blocks it describes. */
static errcode_t write_descriptor(lj_writer *w, struct commit_ctx *c,
				  const struct pending *blocks, size_t n)
{
	unsigned char *desc = calloc(1, w->bs), *data = malloc(w->bs);
	uint32_t desc_at = c->at, at;
	size_t off = LJ_HDR_SIZE, i;
	errcode_t err = 0;

	if (!desc || !data) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	put_header(desc, LJ_BT_DESCRIPTOR, c->tid);
	at = next_block(w, desc_at);
	for (i = 0; i < n; i++, at = next_block(w, at)) {
		uint16_t flags = escape_copy(w, data, blocks[i].data);
		struct lj_tag *t = &c->tags[c->ntags++];
		uint32_t csum = 0;

		if (lj_journal_csum_v23(w->j)) {
			unsigned char seq[4];

			lj_put_be32(seq, c->tid);
			csum = ext2fs_crc32c_le(w->j->csum_seed, seq, 4);
			csum = ext2fs_crc32c_le(csum, data, w->bs);
			if (!(w->j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3))
				csum &= 0xFFFF;
		}
		if (i)
			flags |= LJ_FLAG_SAME_UUID;
		if (i + 1 == n)
			flags |= LJ_FLAG_LAST_TAG;
		put_tag(w, desc + off, blocks[i].home, flags, csum);
		off += w->j->tag_bytes;
		if (!i) {	/* the first tag carries the journal's UUID */
			memcpy(desc + off, w->j->uuid, LJ_TAG_UUID_SIZE);
			off += LJ_TAG_UUID_SIZE;
		}
		t->home = blocks[i].home;
		t->jblock = at;
		t->tid = c->tid;
		t->csum = csum;
		t->flags = flags;
		t->pad = 0;
	}
	put_block_tail(w, desc);
	/* v1 sums the descriptor, then its data blocks, as written. */
	if (w->j->compat & LJ_FEATURE_COMPAT_CHECKSUM)
		c->crc32_sum = ext2fs_crc32_be(c->crc32_sum, desc, w->bs);
	err = write_jblock(w, desc_at, desc);
	for (i = 0, at = next_block(w, desc_at); i < n && !err;
	     i++, at = next_block(w, at)) {
		escape_copy(w, data, blocks[i].data);
		if (w->j->compat & LJ_FEATURE_COMPAT_CHECKSUM)
			c->crc32_sum = ext2fs_crc32_be(c->crc32_sum, data,
						       w->bs);
		err = write_jblock(w, at, data);
	}
	c->at = at;
out:
	free(desc);
	free(data);
	return err;
}

static errcode_t write_revokes(lj_writer *w, struct commit_ctx *c,
			       const uint64_t *rev, size_t nrev)
{
	size_t rec = (w->j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t i = 0;
	errcode_t err = 0;

	while (i < nrev && !err) {
		unsigned char *b = w->blk;
		size_t off = LJ_REVOKE_HDR_SIZE;

		memset(b, 0, w->bs);
		put_header(b, LJ_BT_REVOKE, c->tid);
		for (; i < nrev && off + rec <= w->bs - w->j->tail_bytes;
		     i++, off += rec) {
			if (rec == 8) {
				lj_put_be32(b + off, (uint32_t)(rev[i] >> 32));
				lj_put_be32(b + off + 4, (uint32_t)rev[i]);
			} else {
				lj_put_be32(b + off, (uint32_t)rev[i]);
			}
		}
		lj_put_be32(b + LJ_REVOKE_COUNT, (uint32_t)off);
		put_block_tail(w, b);
		err = write_jblock(w, c->at, b);
		c->at = next_block(w, c->at);
	}
	return err;
}

static errcode_t write_commit(lj_writer *w, struct commit_ctx *c,
			      uint64_t sec, uint32_t nsec)
{
	unsigned char *b = w->blk;

	memset(b, 0, w->bs);
	put_header(b, LJ_BT_COMMIT, c->tid);
	lj_put_be32(b + LJ_COMMIT_SEC, (uint32_t)(sec >> 32));
	lj_put_be32(b + LJ_COMMIT_SEC + 4, (uint32_t)sec);
	lj_put_be32(b + LJ_COMMIT_NSEC, nsec);
	if (w->j->compat & LJ_FEATURE_COMPAT_CHECKSUM) {
		b[LJ_COMMIT_CSUM_TYPE] = LJ_CRC32_CHKSUM;
		b[LJ_COMMIT_CSUM_SIZE] = LJ_CRC32_CHKSUM_SIZE;
		lj_put_be32(b + LJ_COMMIT_CSUM, c->crc32_sum);
	} else if (lj_journal_csum_v23(w->j)) {
		lj_put_be32(b + LJ_COMMIT_CSUM,
			    ext2fs_crc32c_le(w->j->csum_seed, b, w->bs));
	}
	return write_jblock(w, c->at, b);
}

/* needs_recovery at home before the log holds anything (SPEC §2). */
static errcode_t ensure_needs_recovery(lj_writer *w)
{
	errcode_t err;

	if (w->recover_set)
		return 0;
	err = lj_change_features(w->device, 0, 0, 0,
				 EXT3_FEATURE_INCOMPAT_RECOVER, 0);
	if (err)
		return err;
	w->recover_set = 1;
	return 0;
}

/*
 * Write one transaction (blocks sorted by home, revokes) at the head and
 * make it durable; then record it in the map.
 */
static errcode_t commit_set(lj_writer *w, const struct pending *blocks,
			    size_t n, const uint64_t *rev, size_t nrev)
{
	uint32_t need = txn_blocks(w, n, nrev);
	size_t room = w->bs - LJ_HDR_SIZE - w->j->tail_bytes;
	size_t per_desc = 1 + (room - w->j->tag_bytes - LJ_TAG_UUID_SIZE) /
			  w->j->tag_bytes;
	struct commit_ctx c;
	struct lj_txn t;
	struct timespec now;
	size_t i;
	errcode_t err;

	if (need > lj_writer_free_blocks(w))
		return LJ_ET_JOURNAL_FULL;
	/*
	 * First transaction of an empty log: the journal superblock points
	 * at the head before needs_recovery is set, so that a superblock
	 * still naming an old, no longer live log (s_start left non-zero
	 * with needs_recovery clear) is never made live by a crash between
	 * the two writes.  The head holds nothing of the new tid yet.
	 */
	err = w->tail ? 0 : write_tail(w, w->head, w->next_tid);
	if (!err)
		err = ensure_needs_recovery(w);
	if (err)
		return err;

	memset(&c, 0, sizeof(c));
	c.tid = w->next_tid;
	c.at = w->head;
	c.crc32_sum = ~0U;
	c.tags = malloc((n ? n : 1) * sizeof(*c.tags));
	if (!c.tags)
		return EXT2_ET_NO_MEMORY;
	for (i = 0; i < n && !err; i += per_desc)
		err = write_descriptor(w, &c, blocks + i,
				       n - i < per_desc ? n - i : per_desc);
	if (!err)
		err = write_revokes(w, &c, rev, nrev);
	if (!err)
		err = io_channel_flush(w->rw);
	if (!err) {
		clock_gettime(CLOCK_REALTIME, &now);
		if ((uint64_t)now.tv_sec < w->last_sec)
			now.tv_sec = (time_t)w->last_sec;
		w->last_sec = (uint64_t)now.tv_sec;
		err = write_commit(w, &c, w->last_sec, (uint32_t)now.tv_nsec);
	}
	if (!err)
		err = io_channel_flush(w->rw);
	if (err)
		goto out;

	memset(&t, 0, sizeof(t));
	t.tid = c.tid;
	t.first_block = w->head;
	t.commit_block = c.at;
	t.nblocks = need;
	t.ntags = (uint32_t)n;
	t.commit_sec = w->last_sec;
	err = lj_jmap_add_txn(w->m, &t, c.tags, rev, nrev);
	w->head = next_block(w, c.at);
	w->next_tid++;
	w->stats.txns++;
out:
	free(c.tags);
	return err;
}

static void drop_pending(lj_writer *w)
{
	size_t i;

	for (i = 0; i < w->np; i++)
		free(w->p[i].data);
	w->np = 0;
	w->nrev = 0;
}

static errcode_t commit_running(lj_writer *w)
{
	errcode_t err = commit_set(w, w->p, w->np, w->rev, w->nrev);

	if (!err)
		drop_pending(w);
	return err;
}

errcode_t lj_writer_commit(lj_writer *w)
{
	uint32_t need;
	errcode_t err;

	if (!w->np && !w->nrev)
		return 0;
	need = txn_blocks(w, w->np, w->nrev);
	if (need > log_size(w) - 1)
		return LJ_ET_JOURNAL_FULL;
	err = lj_writer_make_room(w, need);
	if (!err)
		err = commit_running(w);
	return err;
}

size_t lj_writer_pending(const lj_writer *w)
{
	return w->np;
}

/* Index of home in the running transaction, or where it would go. */
static size_t find_pending(const lj_writer *w, uint64_t home, int *found)
{
	size_t lo = 0, hi = w->np;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->p[mid].home < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < w->np && w->p[lo].home == home;
	return lo;
}

static void unrevoke(lj_writer *w, uint64_t home)
{
	size_t i;

	for (i = 0; i < w->nrev; i++)
		if (w->rev[i] == home) {
			w->rev[i] = w->rev[--w->nrev];
			return;
		}
}

errcode_t lj_writer_add(lj_writer *w, blk64_t home, const void *data)
{
	int found;
	size_t i;

	/* A journal block logged as a home would be written over the log
	 * by the cleaner, and stock replay would overwrite log blocks. */
	if (lj_journal_lblk(w->j, home, NULL))
		return LJ_ET_WRITE_REFUSED;
	i = find_pending(w, home, &found);
	/* A revoke in the same transaction would cancel this copy too. */
	unrevoke(w, home);
	if (found) {
		memcpy(w->p[i].data, data, w->bs);
		lj_sb_keep_flags(w->p[i].data, w->bs, home, 1, w->st->lazy);
		return 0;
	}
	if (w->np == w->capp) {
		size_t ncap = w->capp ? 2 * w->capp : 64;
		struct pending *np = realloc(w->p, ncap * sizeof(*np));

		if (!np)
			return EXT2_ET_NO_MEMORY;
		w->p = np;
		w->capp = ncap;
	}
	memmove(w->p + i + 1, w->p + i, (w->np - i) * sizeof(*w->p));
	w->p[i].home = home;
	w->p[i].data = malloc(w->bs);
	if (!w->p[i].data) {
		memmove(w->p + i, w->p + i + 1, (w->np - i) * sizeof(*w->p));
		return EXT2_ET_NO_MEMORY;
	}
	memcpy(w->p[i].data, data, w->bs);
	lj_sb_keep_flags(w->p[i].data, w->bs, home, 1, w->st->lazy);
	w->np++;
	return 0;
}

errcode_t lj_writer_revoke(lj_writer *w, blk64_t home)
{
	int found;
	size_t i = find_pending(w, home, &found);

	if (found) {		/* drop our own copy */
		free(w->p[i].data);
		memmove(w->p + i, w->p + i + 1, (w->np - i - 1) * sizeof(*w->p));
		w->np--;
	}
	if (!lj_jmap_lookup(w->m, home))
		return 0;	/* nothing in the log to cancel */
	for (i = 0; i < w->nrev; i++)
		if (w->rev[i] == home)
			return 0;
	if (w->nrev == w->caprev) {
		size_t ncap = w->caprev ? 2 * w->caprev : 64;
		uint64_t *nr = realloc(w->rev, ncap * sizeof(*nr));

		if (!nr)
			return EXT2_ET_NO_MEMORY;
		w->rev = nr;
		w->caprev = ncap;
	}
	w->rev[w->nrev++] = home;
	return 0;
}

int lj_writer_lookup(lj_writer *w, blk64_t home, const unsigned char **data)
{
	int found;
	size_t i = find_pending(w, home, &found), k;

	if (found) {
		*data = w->p[i].data;
		return 1;
	}
	for (k = 0; k < w->nrev; k++)
		if (w->rev[k] == home)
			return -1;
	return 0;
}

/* The live copy of a mapped block, magic restored. */
static errcode_t read_live(lj_writer *w, const struct lj_jmap_entry *e,
			   unsigned char *buf)
{
	errcode_t err = lj_journal_read(w->j, e->jblock, 1, buf);

	if (!err && lj_jmap_escaped(w->m, e->jblock))
		lj_put_be32(buf, LJ_JBD2_MAGIC);
	return err;
}

/*
 * Clean the oldest transaction.  Its live blocks are re-logged at the
 * head when that fits and gains space (and, in compaction, when they were
 * written at or after keep_from_tid), else written home; then the tail
 * moves past it.
 */
enum clean_policy {
	CLEAN_GAIN,		/* re-log when that fits and frees space */
	CLEAN_KEEP_FROM,	/* re-log blocks written at/after keep_from */
	CLEAN_HOME,		/* everything home (a checkpoint) */
};

static errcode_t clean_tail(lj_writer *w, enum clean_policy policy,
			    uint32_t keep_from, struct lj_compact_stats *cs)
{
	lj_log *log = w->m->log;
	const struct lj_txn *t = &log->txn[0];
	struct pending *live = NULL;
	uint64_t *homes = NULL;
	size_t n = 0, nhome = 0, i;
	uint32_t tid = t->tid, tblocks = t->nblocks;
	errcode_t err = 0;

	if (t->nlive) {
		live = calloc(t->nlive, sizeof(*live));
		homes = calloc(t->nlive, sizeof(*homes));
		if (!live || !homes) {
			err = EXT2_ET_NO_MEMORY;
			goto out;
		}
	}
	for (i = 0; i < w->m->n && n < t->nlive && !err; i++) {
		const struct lj_jmap_entry *e = &w->m->e[i];

		if (e->tid != tid)
			continue;
		live[n].home = e->home;
		live[n].data = malloc(w->bs);
		if (!live[n].data)
			err = EXT2_ET_NO_MEMORY;
		else
			err = read_live(w, e, live[n].data);
		n++;
	}
	if (err)
		goto out;

	if (n) {
		uint32_t cost = txn_blocks(w, n, 0);
		int relog = cost <= lj_writer_free_blocks(w) &&
			    (policy == CLEAN_GAIN ? cost < tblocks :
			     policy == CLEAN_KEEP_FROM &&
			     lj_tid_geq(tid, keep_from));

		if (relog) {
			err = commit_set(w, live, n, NULL, 0);
			w->stats.relogged += n;
			if (cs)
				cs->kept += n;
		} else {	/* cold: home, ordered before the tail moves */
			size_t nkeep = 0;

			/*
			 * A block revoked in the running transaction may hold
			 * new data at home already (data mode writes go home
			 * at once): its old copy must not be written over it.
			 * Until that revoke commits, the old copy is re-logged
			 * instead (so a crash before the commit still finds
			 * the block as it was).
			 */
			for (i = 0; i < n; i++) {
				const unsigned char *d;
				struct pending tmp = live[i];

				if (lj_writer_lookup(w, live[i].home, &d) >= 0)
					continue;
				memmove(live + nkeep + 1, live + nkeep,
					(i - nkeep) * sizeof(*live));
				live[nkeep++] = tmp;
			}
			if (nkeep) {
				if (txn_blocks(w, nkeep, 0) >
				    lj_writer_free_blocks(w))
					err = LJ_ET_JOURNAL_FULL;
				else
					err = commit_set(w, live, nkeep, NULL, 0);
				w->stats.relogged += nkeep;
				if (cs)
					cs->kept += nkeep;
			}
			for (i = nkeep; i < n && !err; i++) {
				/* a logged superblock (stock and kernel copies
				 * may lack them) goes home with lazy_journal
				 * and needs_recovery: the log stays in use */
				lj_sb_keep_flags(live[i].data, w->bs,
						 live[i].home, 1, w->st->lazy);
				err = io_channel_write_blk64(w->rw, live[i].home,
							     1, live[i].data);
				if (!err) {
					if (w->rec)
						w->rec(w->rec_arg, LJ_IO_META_HOME,
						       live[i].home, 1);
				}
				homes[nhome++] = live[i].home;
			}
			if (!err)
				err = io_channel_flush(w->rw);
			if (!err)
				err = lj_jmap_unmap(w->m, homes, nhome);
			w->stats.sent_home += n - nkeep;
			if (cs)
				cs->sent_home += n - nkeep;
		}
		if (err)
			goto out;
	}
	lj_jmap_drop_oldest(w->m);
	if (log->ntxn)
		err = write_tail(w, log->txn[0].first_block, log->txn[0].tid);
	else
		err = write_tail(w, 0, w->next_tid);
out:
	for (i = 0; i < n; i++)
		free(live[i].data);
	free(live);
	free(homes);
	return err;
}

/* Does the oldest transaction hold a live block the running one revokes? */
static int tail_revoked_by_running(const lj_writer *w)
{
	uint32_t tid = w->m->log->txn[0].tid;
	size_t i;

	for (i = 0; i < w->nrev; i++) {
		const struct lj_jmap_entry *e = lj_jmap_lookup(w->m, w->rev[i]);

		if (e && e->tid == tid)
			return 1;
	}
	return 0;
}

errcode_t lj_writer_make_room(lj_writer *w, uint32_t need)
{
	uint32_t best = lj_writer_free_blocks(w);
	size_t idle = 0;
	errcode_t err = 0;

	if (need > log_size(w) - 1)	/* never: the cleaner would spin */
		return LJ_ET_JOURNAL_FULL;
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
		    txn_blocks(w, w->np, w->nrev) <= lj_writer_free_blocks(w)) {
			err = commit_running(w);
			continue;
		}
		/* Otherwise (the running transaction is what needs the room)
		 * they are re-logged as they are; a whole round of the log
		 * without progress means the space is not there until that
		 * transaction commits. */
		if (idle > w->m->log->ntxn)
			return LJ_ET_JOURNAL_FULL;
		err = clean_tail(w, CLEAN_GAIN, 0, NULL);
		if (lj_writer_free_blocks(w) > best) {
			best = lj_writer_free_blocks(w);
			idle = 0;
		} else {
			idle++;
		}
	}
	return err;
}

errcode_t lj_writer_checkpoint(lj_writer *w)
{
	errcode_t err = lj_writer_commit(w);

	while (!err && w->m->log->ntxn)
		err = clean_tail(w, CLEAN_HOME, 0, NULL);
	return err;
}

errcode_t lj_writer_open(lj_lazy_state *st, io_channel rw, const char *device,
			 lj_writer **ret)
{
	lj_log *log = st->jmap->log;
	lj_writer *w;
	errcode_t err;

	*ret = NULL;
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
	w = calloc(1, sizeof(*w));
	if (!w)
		return EXT2_ET_NO_MEMORY;
	w->st = st;
	w->j = st->journal;
	w->m = st->jmap;
	w->rw = rw;
	w->bs = w->j->blocksize;
	w->device = strdup(device);
	w->blk = malloc(w->bs);
	if (!w->device || !w->blk) {
		lj_writer_close(w);
		return EXT2_ET_NO_MEMORY;
	}
	w->recover_set = st->needs_recovery;
	if (log->ntxn) {
		const struct lj_txn *last = &log->txn[log->ntxn - 1];

		w->tail = w->j->start;
		w->head = next_block(w, last->commit_block);
		w->next_tid = last->tid + 1;
		w->last_sec = last->commit_sec;
	} else {
		/* An empty log (or one holding only an uncommitted tail):
		 * start afresh at s_first, as jbd2 does after recovery. */
		w->tail = 0;
		w->head = w->j->first;
		w->next_tid = w->j->start ? log->end_tid + 1 : w->j->sequence;
		if (w->j->start) {
			err = write_tail(w, 0, w->next_tid);
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
	drop_pending(w);
	free(w->p);
	free(w->rev);
	free(w->blk);
	free(w->device);
	free(w);
}

void lj_writer_set_record(lj_writer *w, lj_io_record_fn fn, void *arg)
{
	w->rec = fn;
	w->rec_arg = arg;
}

const struct lj_writer_stats *lj_writer_stats(const lj_writer *w)
{
	return &w->stats;
}

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
		err = lj_io_base()->open(device, IO_FLAG_RW | IO_FLAG_EXCLUSIVE,
					 &rw);
	if (!err)
		err = io_channel_set_options(rw, "cache=off");
	if (!err)
		err = io_channel_set_blksize(rw, (int)fs->blocksize);
	if (!err)
		err = lj_writer_open(st, rw, device, &w);
	if (err)
		goto out;
	ntxn = (uint32_t)st->jmap->log->ntxn;
	cs->blocks_before = st->jmap->log->log_blocks;
	keep_from = ntxn ? w->next_tid - (keep_txns ? keep_txns : ntxn + 1) :
		    w->next_tid;
	if (!keep_txns)
		keep_from = st->jmap->log->start_tid;
	/* Every transaction that was in the log is cleaned once. */
	for (i = 0; i < ntxn && !err; i++)
		err = clean_tail(w, CLEAN_KEEP_FROM, keep_from, cs);
	cs->blocks_after = st->jmap->log->log_blocks;
out:
	lj_writer_close(w);
	if (rw)
		io_channel_close(rw);
	if (fs)
		ext2fs_close_free(&fs);
	return err;
}
