/*
 * writer_private.h --- the writer's pieces, shared by the files that make
 * it up (not part of the library's API).
 *
 *   log_encode.c   descriptor, revoke and commit blocks (mirror of
 *                  log_scan.c)
 *   running_txn.c  the running transaction: copies and revokes
 *   log_append.c   a transaction appended at the head, the tail moved
 *   checkpoint.c   space at the tail without lazy_journal: home in one
 *                  batch, then move the tail; the log emptied at umount
 *   cleaner.c      space at the tail: re-log or home, then move the tail
 *   writer.c       the public writer: open, add, revoke, commit, close
 *   compact.c      offline compaction (opens the device itself)
 *
 * Calls go up this list only: compact.c uses cleaner.c and writer.c;
 * cleaner.c uses checkpoint.c;
 * checkpoint.c, cleaner.c and writer.c use log_append.c, log_encode.c and
 * running_txn.c; log_append.c uses log_encode.c and running_txn.c.
 */
#ifndef LJ_WRITER_PRIVATE_H
#define LJ_WRITER_PRIVATE_H

#include "lazy_journal.h"

/* ------------------------------------------------------------------ */
/* log_encode.c                                                         */

/* Tags one descriptor block holds. */
size_t lj_enc_tags_per_desc(const lj_journal *j);
/* Journal blocks a transaction of n blocks and r revokes occupies. */
uint32_t lj_enc_txn_blocks(const lj_journal *j, size_t n, size_t r);
/* The on-disk copy of a block (out): escaped when it starts with the
 * magic; returns LJ_FLAG_ESCAPE then, else 0. */
uint16_t lj_enc_escape(const lj_journal *j, unsigned char *out,
		       const unsigned char *in);
/* A descriptor block of transaction tid begins in desc (zeroed here);
 * returns the offset of its first tag. */
size_t lj_enc_desc_start(const lj_journal *j, unsigned char *desc,
			 uint32_t tid);
/*
 * The tag of copy (one block, as stored: escape is lj_enc_escape's
 * answer) of home, the i-th of the n the descriptor describes, at off;
 * returns the offset after it.  *tag gets its home, tid, csum and flags
 * (the caller sets its journal block).
 */
size_t lj_enc_desc_tag(const lj_journal *j, unsigned char *desc, size_t off,
		       uint32_t tid, uint64_t home, const unsigned char *copy,
		       uint16_t escape, size_t i, size_t n, struct lj_tag *tag);
/* The block tail checksum of a descriptor or revoke block (csum v2/v3). */
void lj_enc_block_tail(const lj_journal *j, unsigned char *b);
/* One revoke block for up to all of rev[0..nrev); returns how many. */
size_t lj_enc_revoke(const lj_journal *j, unsigned char *b, uint32_t tid,
		     const uint64_t *rev, size_t nrev);
/* The commit block; crc32_sum is the v1 transaction checksum. */
void lj_enc_commit(const lj_journal *j, unsigned char *b, uint32_t tid,
		   uint64_t sec, uint32_t nsec, uint32_t crc32_sum);

/* ------------------------------------------------------------------ */
/* running_txn.c                                                        */

struct lj_pending {
	uint64_t home;
	unsigned char *data;
};

struct lj_running {
	unsigned int bs;
	struct lj_pending *p;	/* sorted by home */
	size_t np, capp;
	uint64_t *rev;		/* revoke records, sorted */
	size_t nrev, caprev;
};

/* The copy of home in r (NULL: none); *slot: where it is or would go. */
struct lj_pending *lj_run_find(const struct lj_running *r, uint64_t home,
			       size_t *slot);
/* Put a copy of data for home (replacing an earlier one); *copy: ours. */
errcode_t lj_run_add(struct lj_running *r, uint64_t home, const void *data,
		     unsigned char **copy);
/* Drop the copy of home, if any. */
void lj_run_drop(struct lj_running *r, uint64_t home);
int lj_run_revoked(const struct lj_running *r, uint64_t home);
/* Add a revoke record for home (once). */
errcode_t lj_run_revoke(struct lj_running *r, uint64_t home);
void lj_run_unrevoke(struct lj_running *r, uint64_t home);
/* Empty it (after a commit); lj_run_free also releases the arrays. */
void lj_run_clear(struct lj_running *r);
void lj_run_free(struct lj_running *r);

/* ------------------------------------------------------------------ */
/* log_append.c: one transaction being appended                         */

struct lj_append_job {
	const struct lj_pending *blocks;	/* sorted by home */
	size_t n;
	const uint64_t *rev;
	size_t nrev;
	uint32_t need;		/* journal blocks it takes */
	uint32_t tid;
	uint32_t first;		/* its first journal block (the head) */
	uint32_t at;		/* next journal block to write */
	int start_log;		/* the log is empty: point the journal
				 * superblock at it first */
	int set_recovery;	/* needs_recovery not known set at home */
	uint32_t crc32_sum;	/* v1 checksum */
	struct lj_tag *tags;	/* one per block, as written */
	size_t ntags;
	unsigned char *desc, *data;	/* one block of scratch each */
	/* The run being gathered (log_append.c): run_n blocks for device
	 * blocks run_pblk.. in run, at most run_max. */
	unsigned char *run;
	blk64_t run_pblk;
	uint32_t run_n, run_max;
};

/* A run of journal blocks written at once. */
#define LJ_APPEND_RUN_BYTES	(1u << 20)

/* ------------------------------------------------------------------ */
/* The writer                                                           */

struct lj_writer {
	lj_lazy_state *st;
	lj_journal *j;
	lj_jmap *m;
	io_channel rw;
	io_channel log;		/* the log's writes, when not rw's (NULL) */
	unsigned int bs;
	uint32_t head;		/* next journal block to write */
	uint32_t tail;		/* first block of the log, 0 = empty */
	uint32_t next_tid;
	uint64_t last_sec;	/* commit times never go backwards */
	int recover_set;	/* needs_recovery is set at home */
	struct lj_running run;	/* the running transaction */
	/* The committing transaction: between lj_writer_commit_start and
	 * lj_writer_commit_finish, being written by job (its space in the
	 * log counted as used). */
	struct lj_running committing;
	struct lj_append_job job;
	int in_commit;
	unsigned char *blk;	/* one block of scratch (aligned) */
	unsigned char *job_buf;	/* a job's buffers, kept for the next */
	lj_io_record_fn rec;
	void *rec_arg;
	struct lj_writer_stats stats;
	struct lj_block_cache *cache;	/* the channel's, or NULL */
};

/* ------------------------------------------------------------------ */
/* log_append.c                                                         */

uint32_t lj_append_log_size(const lj_writer *w);
uint32_t lj_append_next_block(const lj_writer *w, uint32_t b);
/* Write one transaction (blocks sorted by home, revokes) at the head and
 * make it durable; then record it in the map.  The three steps it takes:
 * begin (room checked, the job set up at the head), write
 * (needs_recovery and an empty log's start, the blocks, a flush, the
 * commit block, a flush: nothing of w changed but the time of the last
 * commit and the count of journal blocks written), end (on success the
 * log's start, the head and tid moved and the map told; the job's memory
 * freed either way; returns err or the map's). */
errcode_t lj_append_txn(lj_writer *w, const struct lj_pending *blocks,
			size_t n, const uint64_t *rev, size_t nrev);
errcode_t lj_append_begin(lj_writer *w, struct lj_append_job *job,
			  const struct lj_pending *blocks, size_t n,
			  const uint64_t *rev, size_t nrev);
errcode_t lj_append_write(lj_writer *w, struct lj_append_job *job);
errcode_t lj_append_end(lj_writer *w, struct lj_append_job *job,
			errcode_t err);
/* The running transaction, then empty it. */
errcode_t lj_append_running(lj_writer *w);
/* Point the journal superblock at the tail (0: the log is empty). */
errcode_t lj_append_set_tail(lj_writer *w, uint32_t start, uint32_t seq);

/* ------------------------------------------------------------------ */
/* cleaner.c                                                            */

enum lj_clean_policy {
	LJ_CLEAN_GAIN,		/* re-log when that fits and frees space */
	LJ_CLEAN_KEEP_FROM,	/* re-log blocks written at/after keep_from */
	LJ_CLEAN_HOME,		/* everything home (a checkpoint) */
};

/* Clean the oldest transaction (cs may be NULL). */
errcode_t lj_clean_tail(lj_writer *w, enum lj_clean_policy policy,
			uint32_t keep_from, struct lj_compact_stats *cs);

/* ------------------------------------------------------------------ */
/* checkpoint.c                                                         */

/* lj_writer_make_room on a file system without lazy_journal (need fits
 * the log: checked there): the oldest
 * transactions' live blocks home in one batch, then the tail moves. */
errcode_t lj_checkpoint_room(lj_writer *w, uint32_t need);
/* Committed log emptied in doc/contract.md §3 order (the running transaction
 * must be empty): every live block home, flush; the journal superblock
 * s_start 0, flush; needs_recovery cleared at home, flush. */
errcode_t lj_checkpoint_empty_log(lj_writer *w);

#endif
