/*
 * log_scan.c --- the scan pass of jbd2 recovery.
 *
 * Walks the log from s_start/s_sequence exactly as jbd2's PASS_SCAN does and
 * records, for every transaction that recovery would replay, its tags and
 * revoke records.  Where the walk stops, and why, is kept for the report.
 * Only descriptor, revoke and commit blocks are read, except that the old
 * v1 commit checksum (crc32_be over descriptor and data blocks) forces the
 * data blocks to be read too.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdarg.h>

#include "lazy_journal.h"
#include "jbd2_format.h"
#include "lj_private.h"

struct scan {
	lj_journal *j;
	lj_log *log;
	unsigned char *buf;	/* one journal block */
	unsigned char *data;	/* data blocks for the v1 checksum */
	size_t cap_txn, cap_tags, cap_revokes;
	uint32_t next_tid;
	uint32_t blk;		/* next journal block to read */
	uint32_t budget;	/* blocks left before the log would overlap
				   itself (it never exceeds the log area) */
	int overlap;		/* ...and it did */
	size_t txn_tag_first;	/* first tag of the transaction being read */
	size_t txn_revoke_first;
	uint32_t txn_first_block;
	int txn_started;
	int txn_bad_revoke;	/* a revoke block with r_count out of range */
	uint32_t bad_revoke_block;
	uint32_t crc32_sum;	/* v1 transaction checksum */
	int need_check_commit_time;
	uint32_t bad_csum_block; /* descriptor/revoke block that failed */
	uint64_t last_commit_time;
	int end_set;		/* end_tid decided by a bad commit */
	uint32_t end_tid;
	uint32_t first_bad_revoke_tid; /* tid whose revoke block is invalid */
	int have_bad_revoke;
	uint32_t bad_revoke_at;
};

static void wrap(const lj_journal *j, uint32_t *blk)
{
	if (*blk >= j->last)
		*blk -= j->last - j->first;
}

/* Count one more block of the log; 0 once it would overlap itself. */
static int take_block(struct scan *s)
{
	if (!s->budget) {
		s->overlap = 1;
		return 0;
	}
	s->budget--;
	return 1;
}

/* Tail checksum of a descriptor or revoke block (csum v2/v3). */
static int block_tail_ok(const lj_journal *j, unsigned char *buf)
{
	unsigned char *tail = buf + j->blocksize - LJ_BLOCK_TAIL_SIZE;
	uint32_t want = lj_be32(tail), got;

	if (!lj_journal_csum_v23(j))
		return 1;
	memset(tail, 0, LJ_BLOCK_TAIL_SIZE);
	got = lj_crc32c(j->csum_seed, buf, j->blocksize);
	lj_put_be32(tail, want);
	return got == want;
}

static int commit_csum_ok(const lj_journal *j, unsigned char *buf)
{
	unsigned char *field = buf + LJ_COMMIT_CSUM;
	uint32_t want = lj_be32(field), got;

	if (!lj_journal_csum_v23(j))
		return 1;
	memset(field, 0, 4);
	got = lj_crc32c(j->csum_seed, buf, j->blocksize);
	lj_put_be32(field, want);
	return got == want;
}

/* Read the data blocks of one descriptor into the v1 checksum. */
static errcode_t sum_data_blocks(struct scan *s, uint32_t blk, uint32_t n)
{
	lj_journal *j = s->j;
	uint32_t per = (uint32_t)(j->blocksize / 8); /* max tags per block */

	while (n) {
		uint32_t run = n;
		errcode_t err;

		if (run > per)
			run = per;
		if (blk + run > j->last)
			run = j->last - blk;
		err = lj_journal_read(j, blk, run, s->data);
		if (err)
			return err;
		s->crc32_sum = ext2fs_crc32_be(s->crc32_sum, s->data,
					       (size_t)run * j->blocksize);
		s->log->data_blocks_read += run;
		blk += run;
		wrap(j, &blk);
		n -= run;
	}
	return 0;
}

static errcode_t add_tag(struct scan *s, uint64_t home, uint32_t jblock,
			 uint32_t csum, uint16_t flags)
{
	lj_log *log = s->log;
	struct lj_tag *t;

	if (lj_array_grow(&log->tags, &s->cap_tags, log->ntags + 1,
			  sizeof(*log->tags)))
		return EXT2_ET_NO_MEMORY;
	t = &log->tags[log->ntags++];
	t->home = home;
	t->jblock = jblock;
	t->tid = s->next_tid;
	t->csum = csum;
	t->flags = flags;
	t->pad = 0;
	return 0;
}

static errcode_t scan_descriptor(struct scan *s, uint32_t at)
{
	lj_journal *j = s->j;
	unsigned char *buf = s->buf;
	size_t off = LJ_HDR_SIZE;
	size_t end = j->blocksize - j->tail_bytes;
	uint32_t first_data = s->blk, n = 0;
	int csum3 = (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3) != 0;
	int b64 = (j->incompat & LJ_FEATURE_INCOMPAT_64BIT) != 0;
	errcode_t err;

	if (!block_tail_ok(j, buf)) {
		/* Maybe a stale block: the commit time decides. */
		if (!s->need_check_commit_time)
			s->bad_csum_block = at;
		s->need_check_commit_time = 1;
	}
	while (off + j->tag_bytes <= end) {
		const unsigned char *tag = buf + off;

		if (!take_block(s))
			return 0;	/* do_scan reports it */
		uint16_t flags = lj_be16(tag + LJ_TAG_FLAGS16);
		uint64_t home = lj_be32(tag + LJ_TAG_BLOCKNR);
		uint32_t csum;

		if (b64)
			home |= (uint64_t)lj_be32(tag + LJ_TAG_BLOCKNR_HIGH) << 32;
		csum = csum3 ? lj_be32(tag + LJ_TAG3_CSUM32) :
			       lj_be16(tag + LJ_TAG_CSUM16);
		err = add_tag(s, home, s->blk, csum, flags);
		if (err)
			return err;
		s->blk++;
		wrap(j, &s->blk);
		n++;
		off += j->tag_bytes;
		if (!(flags & LJ_FLAG_SAME_UUID))
			off += LJ_TAG_UUID_SIZE;
		if (flags & LJ_FLAG_LAST_TAG)
			break;
	}
	if ((j->compat & LJ_FEATURE_COMPAT_CHECKSUM) &&
	    !s->need_check_commit_time && !s->end_set) {
		s->crc32_sum = ext2fs_crc32_be(s->crc32_sum, buf, j->blocksize);
		return sum_data_blocks(s, first_data, n);
	}
	return 0;
}

static errcode_t scan_revoke(struct scan *s, uint32_t at)
{
	lj_journal *j = s->j;
	lj_log *log = s->log;
	uint32_t count = lj_be32(s->buf + LJ_REVOKE_COUNT);
	size_t rec = (j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t off;

	if (!block_tail_ok(j, s->buf)) {
		if (!s->need_check_commit_time)
			s->bad_csum_block = at;
		s->need_check_commit_time = 1;
	}
	/* jbd2's revoke pass fails the whole recovery on this. */
	if (count > j->blocksize - j->tail_bytes) {
		if (!s->txn_bad_revoke)
			s->bad_revoke_block = at;
		s->txn_bad_revoke = 1;
		return 0;
	}
	for (off = LJ_REVOKE_HDR_SIZE; off + rec <= count; off += rec) {
		struct lj_revoke *r;

		if (lj_array_grow(&log->revokes, &s->cap_revokes,
				  log->nrevokes + 1, sizeof(*log->revokes)))
			return EXT2_ET_NO_MEMORY;
		r = &log->revokes[log->nrevokes++];
		r->home = rec == 8 ? lj_be64(s->buf + off) : lj_be32(s->buf + off);
		r->tid = s->next_tid;
	}
	return 0;
}

static errcode_t add_txn(struct scan *s, uint32_t commit_block)
{
	lj_log *log = s->log;
	struct lj_txn *t;
	uint32_t span;

	if (lj_array_grow(&log->txn, &s->cap_txn, log->ntxn + 1,
			  sizeof(*log->txn)))
		return EXT2_ET_NO_MEMORY;
	t = &log->txn[log->ntxn++];
	memset(t, 0, sizeof(*t));
	t->tid = s->next_tid;
	t->first_block = s->txn_started ? s->txn_first_block : commit_block;
	t->commit_block = commit_block;
	span = commit_block >= t->first_block ?
		commit_block - t->first_block + 1 :
		(s->j->last - t->first_block) + (commit_block - s->j->first) + 1;
	t->nblocks = span;
	t->tag_first = s->txn_tag_first;
	t->ntags = (uint32_t)(log->ntags - s->txn_tag_first);
	t->commit_sec = lj_be64(s->buf + LJ_COMMIT_SEC);
	if (s->txn_bad_revoke && !s->have_bad_revoke) {
		s->have_bad_revoke = 1;
		s->first_bad_revoke_tid = s->next_tid;
		s->bad_revoke_at = s->bad_revoke_block;
	}
	return 0;
}

/* Start bookkeeping for the transaction next_tid (first block seen). */
static void txn_begin(struct scan *s, uint32_t at)
{
	if (s->txn_started)
		return;
	s->txn_started = 1;
	s->txn_first_block = at;
	s->txn_tag_first = s->log->ntags;
	s->txn_revoke_first = s->log->nrevokes;
	s->txn_bad_revoke = 0;
}

/* Drop tags/revokes of a transaction that never committed. */
static void txn_abandon(struct scan *s)
{
	if (!s->txn_started)
		return;
	s->log->ntags = s->txn_tag_first;
	s->log->nrevokes = s->txn_revoke_first;
	s->txn_started = 0;
}

static void set_end(struct scan *s, enum lj_log_end why, uint32_t at,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set_end(struct scan *s, enum lj_log_end why, uint32_t at,
		    const char *fmt, ...)
{
	va_list ap;

	/* After a bad commit (async_commit scans on), only a later bad
	 * commit or a refusal says more about where the log ends. */
	if (s->end_set && why != LJ_END_COMMIT_CSUM &&
	    why != LJ_END_REFUSED && why != LJ_END_REVOKE_COUNT)
		return;
	s->log->end = why;
	s->log->end_block = at;
	va_start(ap, fmt);
	vsnprintf(s->log->end_msg, sizeof(s->log->end_msg), fmt, ap);
	va_end(ap);
}

/*
 * The commit block of next_tid.  Returns 1 when the scan goes on, 0 when
 * the log ends here, -1 when recovery would refuse the whole log.
 */
static int scan_commit(struct scan *s, uint32_t at, errcode_t *err)
{
	lj_journal *j = s->j;
	unsigned char *buf = s->buf;
	uint64_t commit_time = lj_be64(buf + LJ_COMMIT_SEC);
	int bad = 0;

	if (s->need_check_commit_time) {
		if (commit_time >= s->last_commit_time) {
			set_end(s, LJ_END_REFUSED, s->bad_csum_block,
				"block checksum mismatch in transaction %u: "
				"recovery refuses the whole log", s->next_tid);
			return -1;
		}
		set_end(s, LJ_END_STALE_CSUM, s->bad_csum_block,
			"block checksum mismatch in transaction %u with an "
			"older commit time (stale block)", s->next_tid);
		return 0;
	}
	if (j->compat & LJ_FEATURE_COMPAT_CHECKSUM) {
		uint32_t found = lj_be32(buf + LJ_COMMIT_CSUM);
		unsigned type = buf[LJ_COMMIT_CSUM_TYPE];
		unsigned size = buf[LJ_COMMIT_CSUM_SIZE];

		if (s->end_set)	/* jbd2 stops at the commit after a bad one */
			return 0;
		if (!((s->crc32_sum == found && type == LJ_CRC32_CHKSUM &&
		       size == LJ_CRC32_CHKSUM_SIZE) ||
		      (type == 0 && size == 0 && found == 0)))
			bad = 1;
		s->crc32_sum = ~0U;
	}
	if (!bad && !commit_csum_ok(j, buf))
		bad = 1;
	if (bad) {
		if (commit_time < s->last_commit_time) {
			set_end(s, LJ_END_STALE_CSUM, at,
				"commit checksum mismatch in transaction %u "
				"with an older commit time (stale block)",
				s->next_tid);
			return 0;
		}
		s->end_set = 1;
		s->end_tid = s->next_tid;
		set_end(s, LJ_END_COMMIT_CSUM, at,
			"commit checksum mismatch in transaction %u",
			s->next_tid);
		if (!(j->incompat & LJ_FEATURE_INCOMPAT_ASYNC_COMMIT))
			return 0;
	}
	s->last_commit_time = commit_time;
	*err = add_txn(s, at);
	s->txn_started = 0;
	s->next_tid++;
	return *err ? 0 : 1;
}

/* Keep only transactions before end_tid (and their tags and revokes). */
static void truncate_log(lj_log *log, uint32_t end_tid)
{
	size_t keep = 0;

	while (keep < log->ntxn && lj_tid_gt(end_tid, log->txn[keep].tid))
		keep++;
	if (keep == log->ntxn)
		return;
	log->ntags = log->txn[keep].tag_first;
	if (keep == 0) {
		log->nrevokes = 0;
	} else {
		uint32_t last = log->txn[keep - 1].tid;
		size_t r = log->nrevokes;

		while (r && !lj_tid_geq(last, log->revokes[r - 1].tid))
			r--;
		log->nrevokes = r;
	}
	log->ntxn = keep;
}

static errcode_t do_scan(struct scan *s)
{
	lj_journal *j = s->j;
	lj_log *log = s->log;
	errcode_t err = 0;
	int refused = 0;

	for (;;) {
		uint32_t at = s->blk, type;

		if (s->overlap || !take_block(s)) {
			set_end(s, LJ_END_SEQUENCE, at,
				"the log wraps onto itself");
			break;
		}
		err = lj_journal_read(j, at, 1, s->buf);
		if (err)
			return err;
		s->blk++;
		wrap(j, &s->blk);
		if (lj_be32(s->buf + LJ_HDR_MAGIC) != LJ_JBD2_MAGIC) {
			set_end(s, LJ_END_NO_MAGIC, at, "no magic number");
			break;
		}
		if (lj_be32(s->buf + LJ_HDR_SEQUENCE) != s->next_tid) {
			set_end(s, LJ_END_SEQUENCE, at, "sequence %u, "
				"expected %u", lj_be32(s->buf + LJ_HDR_SEQUENCE),
				s->next_tid);
			break;
		}
		type = lj_be32(s->buf + LJ_HDR_BLOCKTYPE);
		if (type == LJ_BT_DESCRIPTOR) {
			txn_begin(s, at);
			err = scan_descriptor(s, at);
		} else if (type == LJ_BT_REVOKE) {
			txn_begin(s, at);
			err = scan_revoke(s, at);
		} else if (type == LJ_BT_COMMIT) {
			int r = scan_commit(s, at, &err);

			if (r < 0)
				refused = 1;
			if (r <= 0)
				break;
		} else {
			set_end(s, LJ_END_BLOCKTYPE, at,
				"unknown block type %u", type);
			break;
		}
		if (err)
			return err;
	}
	if (err)
		return err;

	if (s->txn_started && !s->end_set && (log->end == LJ_END_NO_MAGIC ||
	    log->end == LJ_END_SEQUENCE || log->end == LJ_END_BLOCKTYPE)) {
		size_t len = strlen(log->end_msg);

		log->uncommitted = 1;

		snprintf(log->end_msg + len, sizeof(log->end_msg) - len,
			 " (transaction %u has no commit block)", s->next_tid);
	}
	txn_abandon(s);
	log->end_tid = s->end_set ? s->end_tid : s->next_tid;
	truncate_log(log, log->end_tid);

	/* An invalid revoke block in a replayed transaction fails jbd2's
	 * revoke pass: recovery refuses the whole log. */
	if (!refused && s->have_bad_revoke &&
	    lj_tid_gt(log->end_tid, s->first_bad_revoke_tid)) {
		refused = 1;
		log->end_tid = s->first_bad_revoke_tid;
		truncate_log(log, log->end_tid);
		set_end(s, LJ_END_REVOKE_COUNT, s->bad_revoke_at,
			"revoke record count out of range in transaction %u: "
			"recovery refuses the whole log",
			s->first_bad_revoke_tid);
	}
	log->refused = refused;
	return 0;
}

errcode_t lj_log_scan(lj_journal *j, int flags, lj_log **ret)
{
	struct scan s;
	lj_log *log;
	errcode_t err;
	size_t i;

	*ret = NULL;
	err = ext2fs_get_memzero(sizeof(*log), &log);
	if (err)
		return err;
	log->j = j;
	log->start_tid = log->end_tid = j->sequence;
	log->end_block = j->start;
	if (!j->start) {
		log->end = LJ_END_EMPTY;
		snprintf(log->end_msg, sizeof(log->end_msg), "log is empty");
		*ret = log;
		return 0;
	}

	memset(&s, 0, sizeof(s));
	s.j = j;
	s.log = log;
	s.next_tid = j->sequence;
	s.blk = j->start;
	s.budget = j->last - j->first;
	s.crc32_sum = ~0U;
	err = ext2fs_get_mem(j->blocksize, &s.buf);
	if (!err && (j->compat & LJ_FEATURE_COMPAT_CHECKSUM))
		err = ext2fs_get_array(j->blocksize / 8, j->blocksize, &s.data);
	if (err)
		goto out;
	err = do_scan(&s);
	if (err)
		goto out;

	if (log->refused) {
		if (flags & LJ_SCAN_SALVAGE) {
			log->salvaged = 1;
		} else {
			log->end_tid = log->start_tid;
			truncate_log(log, log->end_tid);
		}
	}
	for (i = 0; i < log->ntxn; i++)
		log->log_blocks += log->txn[i].nblocks;
	*ret = log;
out:
	ext2fs_free_mem(&s.buf);
	ext2fs_free_mem(&s.data);
	if (err)
		lj_log_free(log);
	return err;
}

void lj_log_free(lj_log *log)
{
	if (!log)
		return;
	ext2fs_free_mem(&log->txn);
	ext2fs_free_mem(&log->tags);
	ext2fs_free_mem(&log->revokes);
	ext2fs_free_mem(&log);
}

const struct lj_txn *lj_log_txn_of_block(const lj_log *log, uint32_t jblk)
{
	size_t i;

	for (i = 0; i < log->ntxn; i++) {
		const struct lj_txn *t = &log->txn[i];

		if (t->first_block <= t->commit_block) {
			if (jblk >= t->first_block && jblk <= t->commit_block)
				return t;
		} else if ((jblk >= t->first_block && jblk < log->j->last) ||
			   (jblk >= log->j->first && jblk <= t->commit_block)) {
			return t;	/* the transaction wraps */
		}
	}
	return NULL;
}

int lj_log_clean_end(const lj_log *log)
{
	return !log->refused && !log->uncommitted &&
	       (log->end == LJ_END_EMPTY ||
		log->end == LJ_END_NO_MAGIC || log->end == LJ_END_SEQUENCE);
}

void lj_log_describe_end(const lj_log *log, char *buf, size_t len)
{
	if (log->end == LJ_END_EMPTY)
		snprintf(buf, len, "the log is empty");
	else
		snprintf(buf, len, "end of log at journal block %u: %s",
			 log->end_block, log->end_msg);
}
