/*
 * lazy_journal.h --- lazy writeback journaling on top of libext2fs.
 *
 * The pieces, in the order a tool uses them:
 *
 *   lj_journal   the internal journal (inode 8): superblock, geometry and a
 *                cached logical->physical extent map           (journal.c)
 *   lj_log       one scan of the log with jbd2 recovery
 *                semantics: committed transactions, their tags and revoke
 *                records, and where/why the log ends             (log_scan.c)
 *   lj_jmap      home block -> live journal copy, built from an lj_log by
 *                the jbd2 replay rule (revoke pass, then replay)  (jmap.c)
 *   lj_lazy_io_manager
 *                an io_manager that wraps the unix one and serves reads of
 *                mapped blocks from the journal                   (lazy_io.c)
 *   lj_writer    transactions appended to the log, the cleaner and
 *                compaction          (writer.c, cleaner.c, compact.c)
 *
 * All symbols carry the lj_ prefix; error codes come from lj_err.et.
 */
#ifndef LJ_LAZY_JOURNAL_H
#define LJ_LAZY_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "lj_err.h"
#include "jbd2_format.h"

/* s_feature_compat bit of the ext4 superblock (doc/contract.md §2.1). */
#define LJ_FEATURE_COMPAT_LAZY_JOURNAL	0x2000

static inline int lj_fs_is_lazy(const struct ext2_super_block *sb)
{
	return (sb->s_feature_compat & LJ_FEATURE_COMPAT_LAZY_JOURNAL) != 0;
}

/* ------------------------------------------------------------------ */
/* journal.c: the internal journal                                     */

struct lj_extent {
	uint32_t lblk;		/* first journal block of the run */
	uint32_t len;
	blk64_t pblk;		/* file-system block of lblk */
};

typedef struct lj_journal {
	io_channel io;		/* device; its block size is the fs block size */
	unsigned int blocksize;
	blk64_t fs_blocks;	/* blocks count of the file system */
	uint32_t maxlen;	/* s_maxlen */
	uint32_t first;		/* s_first */
	uint32_t last;		/* end of the log area (exclusive); fast-commit
				   blocks beyond it are not part of the log */
	uint32_t sequence;	/* s_sequence */
	uint32_t start;		/* s_start; 0 = empty log */
	uint32_t compat, incompat, ro_compat;
	unsigned char uuid[16];
	uint32_t csum_seed;	/* crc32c(~0, uuid) for csum v2/v3 */
	unsigned int tag_bytes;	/* size of one descriptor tag, UUID excluded */
	unsigned int tail_bytes; /* descriptor/revoke tail: 0 or 4 */
	struct lj_extent *ext;	/* sorted by lblk, covering 0..maxlen-1 */
	size_t n_ext;
	unsigned char *sb;	/* raw journal superblock, one block */
} lj_journal;

static inline int lj_journal_csum_v23(const lj_journal *j)
{
	return (j->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
			       LJ_FEATURE_INCOMPAT_CSUM_V3)) != 0;
}

/*
 * Load the internal journal of fs.  Block reads go to io, which must be a
 * channel on the same device whose block size is (or is set to) the file
 * system block size.  Validates the journal superblock as jbd2 does; any
 * failure is reported as an errcode (EXT2_ET_CORRUPT_JOURNAL_SB, ...).
 */
errcode_t lj_journal_open(ext2_filsys fs, io_channel io, lj_journal **ret);
/*
 * Only the first half of lj_journal_open: check inode 8 and map its blocks,
 * without reading the journal superblock (which may not be valid yet).
 * j->maxlen is the inode's size in blocks and lj_journal_pblk() answers;
 * the superblock fields are 0 and j->sb is NULL.  lj_journal_close frees.
 */
errcode_t lj_journal_map(ext2_filsys fs, io_channel io, lj_journal **ret);
void lj_journal_close(lj_journal *j);
/* File-system block holding journal block jblk (0 if out of range). */
blk64_t lj_journal_pblk(const lj_journal *j, uint32_t jblk);
/* Read count journal blocks starting at jblk (no wrap), coalescing runs. */
errcode_t lj_journal_read(lj_journal *j, uint32_t jblk, unsigned int count,
			  void *buf);
/* Is fs block pblk one of the journal's blocks (0..maxlen-1)?  Then 1,
 * with its journal block number in *jblk (jblk may be NULL). */
int lj_journal_lblk(const lj_journal *j, blk64_t pblk, uint32_t *jblk);
/* Short description of the journal's format, e.g. "64bit csum_v3". */
void lj_journal_features(const lj_journal *j, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* log_scan.c: the scan pass                                           */

struct lj_tag {			/* one logged block, in log order */
	uint64_t home;		/* file-system block it belongs to */
	uint32_t jblock;	/* journal block holding the copy */
	uint32_t tid;
	uint32_t csum;		/* tag checksum (v2: low 16 bits) */
	uint16_t flags;		/* LJ_FLAG_* */
	uint16_t pad;
};

struct lj_revoke {		/* one revoke record */
	uint64_t home;
	uint32_t tid;
};

struct lj_txn {			/* one committed transaction */
	uint32_t tid;
	uint32_t first_block;	/* its first journal block */
	uint32_t commit_block;	/* journal block of its commit block */
	uint32_t nblocks;	/* journal blocks it occupies, commit included */
	size_t tag_first;	/* index of its first tag in lj_log.tags */
	uint32_t ntags;
	uint32_t nlive;		/* live jmap entries (filled by lj_jmap_build) */
	uint64_t commit_sec;
};

enum lj_log_end {
	LJ_END_EMPTY,		/* s_start == 0: nothing to scan */
	LJ_END_NO_MAGIC,	/* block without the jbd2 magic */
	LJ_END_SEQUENCE,	/* block of another transaction */
	LJ_END_BLOCKTYPE,	/* unknown block type */
	LJ_END_COMMIT_CSUM,	/* commit checksum mismatch */
	LJ_END_STALE_CSUM,	/* bad block checksum, older commit time */
	LJ_END_REFUSED,		/* bad block checksum: whole log refused */
	LJ_END_REVOKE_COUNT,	/* revoke block r_count out of range */
};

typedef struct lj_log {
	lj_journal *j;		/* not owned */
	struct lj_txn *txn;	/* committed transactions that replay counts */
	size_t ntxn;
	struct lj_tag *tags;	/* tags of those transactions, log order */
	size_t ntags;
	struct lj_revoke *revokes; /* revoke records of those transactions */
	size_t nrevokes;
	uint32_t start_tid;	/* s_sequence */
	uint32_t end_tid;	/* first tid not replayed */
	uint32_t end_block;	/* journal block where the scan stopped */
	enum lj_log_end end;
	int refused;		/* stock recovery refuses the whole log */
	int salvaged;		/* ...but we kept what came before */
	int uncommitted;	/* the log ends inside a transaction */
	uint32_t log_blocks;	/* journal blocks used by committed txns */
	unsigned long data_blocks_read; /* blocks read for v1 checksums */
	char end_msg[160];	/* why the scan stopped at end_block */
} lj_log;

#define LJ_SCAN_SALVAGE	0x1	/* lazy fs: keep txns before a refusal */

errcode_t lj_log_scan(lj_journal *j, int flags, lj_log **ret);
void lj_log_free(lj_log *log);
/* Transaction containing journal block jblk, or NULL. */
const struct lj_txn *lj_log_txn_of_block(const lj_log *log, uint32_t jblk);
/* Did the log end the ordinary way (no checksum trouble, no refusal)? */
int lj_log_clean_end(const lj_log *log);
/* "end of log at journal block 812: commit checksum mismatch in ..." */
void lj_log_describe_end(const lj_log *log, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* jmap.c: the map                                                      */

struct lj_jmap_entry {		/* 16 bytes */
	uint64_t home;
	uint32_t jblock;
	uint32_t tid;
};

typedef struct lj_jmap {
	lj_log *log;		/* owned */
	struct lj_jmap_entry *e; /* sorted by home */
	size_t n;
	uint32_t *by_jblock;	/* indices into e, sorted by journal block */
	uint32_t *escaped;	/* sorted journal blocks stored escaped */
	size_t nescaped;
	unsigned long bad_csums; /* tags skipped for a bad data checksum */
	unsigned long data_blocks_read; /* blocks read to verify checksums */
	char bad_csum_msg[160];	/* first such tag, for the report */
	/* Homes inside the journal (replay_homes.c): */
	size_t in_journal;	/* entries whose home is a journal block */
	struct lj_jmap_fix *fix; /* homes whose replayed bytes are not */
	size_t nfix;		/*   their jmap copy, sorted by home */
	size_t cap_txn, cap_tags; /* room in log->txn, log->tags (writer) */
} lj_jmap;

struct lj_jmap_fix {
	uint64_t home;
	unsigned char *data;	/* one block; NULL: the home copy stays */
};

#define LJ_JMAP_KEEP_TAGS 0x1	/* keep log->tags for stale reverse lookups */
#define LJ_JMAP_TAGS_CHECKED 0x2 /* every tag checksum is known good: not read */

/* Build the map; takes ownership of log (freed by lj_jmap_free). */
errcode_t lj_jmap_build(lj_log *log, int flags, lj_jmap **ret);
void lj_jmap_free(lj_jmap *m);
const struct lj_jmap_entry *lj_jmap_lookup(const lj_jmap *m, uint64_t home);
/* Is journal block jblk stored escaped (magic to restore)? */
int lj_jmap_escaped(const lj_jmap *m, uint32_t jblk);

enum lj_jblock_state { LJ_JB_UNUSED, LJ_JB_LIVE, LJ_JB_STALE, LJ_JB_META };
/*
 * What journal block jblk holds: a live or stale copy of *home written by
 * transaction *tid, a descriptor/commit/revoke block (META, *tid set), or
 * nothing the log uses.  Stale answers need LJ_JMAP_KEEP_TAGS.
 */
enum lj_jblock_state lj_jmap_reverse(const lj_jmap *m, uint32_t jblk,
				     uint64_t *home, uint32_t *tid);

/*
 * jmap_update.c: keep the map current as the writer appends: a transaction committed at
 * the head (its tags in log order, its revoke records), and the oldest
 * transaction dropped when the tail moves past it (it must hold no live
 * entries any more).  The map must have been built with LJ_JMAP_KEEP_TAGS.
 */
errcode_t lj_jmap_add_txn(lj_jmap *m, const struct lj_txn *t,
			  const struct lj_tag *tags, const uint64_t *revokes,
			  size_t nrevokes);
void lj_jmap_drop_oldest(lj_jmap *m);

struct lj_jmap_stats {
	size_t live;		/* entries */
	size_t txns;		/* committed transactions in the log */
	uint32_t log_blocks;	/* journal blocks in use */
	uint32_t journal_blocks; /* log area size */
	uint32_t oldest_tid, newest_tid;
	size_t bytes;		/* memory held by the map itself */
};
void lj_jmap_stats(const lj_jmap *m, struct lj_jmap_stats *st);

/* ------------------------------------------------------------------ */
/* replay_homes.c: tags whose home lies inside the journal             */

/*
 * Stock replay writes tag after tag in log order, reading each journal
 * copy just before writing its home; when a home is itself a journal
 * block, that write changes what later tags read.  Replay that order in
 * memory for such logs (nothing when no tag's home is in the journal):
 * fill m->in_journal and m->fix, so that every block outside the journal
 * gets stock replay's bytes.  Blocks inside the journal keep their
 * current contents in every view and are never written home (the log is
 * emptied anyway; writing them would destroy copies still to be read).
 * A log whose replay would overwrite one of its own descriptor, revoke or
 * commit blocks (stock recovery then stops part-way with an error) gives
 * LJ_ET_LOG_SELF_OVERWRITE.  Needs a map built with LJ_JMAP_KEEP_TAGS.
 */
errcode_t lj_jmap_resolve_journal_homes(lj_jmap *m);

enum lj_live_src {
	LJ_LIVE_HOME,		/* the home copy */
	LJ_LIVE_JOURNAL,	/* *e: the journal copy (escape restored) */
	LJ_LIVE_DATA,		/* *data: bytes computed by the replay */
};
/* Where the current bytes of fs block home come from. */
enum lj_live_src lj_jmap_live(const lj_jmap *m, uint64_t home,
			      const struct lj_jmap_entry **e,
			      const unsigned char **data);

/* ------------------------------------------------------------------ */
/* block_kind.c: what a metadata block is                              */

enum lj_block_kind {
	LJ_KIND_SUPERBLOCK, LJ_KIND_GROUP_DESC, LJ_KIND_BLOCK_BITMAP,
	LJ_KIND_INODE_BITMAP, LJ_KIND_INODE_TABLE, LJ_KIND_OTHER,
	LJ_KIND_COUNT
};
typedef struct lj_kind_map lj_kind_map;
errcode_t lj_kind_map_build(ext2_filsys fs, lj_kind_map **ret);
enum lj_block_kind lj_kind_of(const lj_kind_map *km, blk64_t blk);
const char *lj_kind_name(enum lj_block_kind k);
void lj_kind_map_free(lj_kind_map *km);

/* ------------------------------------------------------------------ */
/* lazy_io.c: the lazy io channel and the open helper                  */

extern io_manager lj_lazy_io_manager;

/* What the lazy channel found when it bootstrapped (doc/contract.md §2.3). */
typedef struct lj_lazy_state {
	int lazy;		/* lazy_journal set in the home superblock */
	int has_log;		/* needs_recovery set and log non-empty */
	int needs_recovery;	/* set in the home superblock */
	lj_journal *journal;	/* NULL when the fs has no usable journal */
	lj_jmap *jmap;		/* never NULL; empty when there is no log */
	errcode_t journal_err;	/* why the log could not be read, or 0 */
	blk64_t reads_mapped;	/* fs blocks served from the journal */
	blk64_t reads_home;	/* fs blocks served from home */
	blk64_t writes_same;	/* writes not journaled: nothing changed */
	char note[200];		/* why there is no log, if that is notable */
	const char *verified;	/* lj_lazy_set_open_verified's token */
} lj_lazy_state;

/* The state behind a lazy channel (LJ_ET_NOT_LAZY_CHANNEL otherwise). */
errcode_t lj_lazy_get_state(io_channel io, lj_lazy_state **ret);

/*
 * Open a file system with its metadata seen through the jmap: bootstrap
 * from the home superblock, scan the log, then re-read the superblock and
 * descriptors through the jmap.  flags are ext2fs_open2 flags.  With
 * EXT2_FLAG_RW, metadata writes are collected into a transaction (reads see
 * it) that io_channel_flush or close commits to the log; home copies are
 * not written (data goes home only in data mode).  ext2fs_flush flushes
 * the channel before and after the primary superblock, which makes two
 * transactions; for one, call ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC)
 * and then io_channel_flush(fs->io).  EXT2_FLAG_RW implies
 * EXT2_FLAG_EXCLUSIVE: a writer refuses a device someone holds (EBUSY).
 */
errcode_t lj_open_fs(const char *name, int flags, ext2_filsys *ret);

/* Read one fs block's home copy, bypassing the jmap. */
errcode_t lj_lazy_read_home(io_channel io, blk64_t blk, void *buf);
/* Block blk written home in place, below the log, and flushed (the kernel
 * writes an error record into a plain ext4's superblock so). */
errcode_t lj_lazy_write_home(io_channel io, blk64_t blk, const void *buf);

/* log_policy.c: doc/contract.md §5 (salvage).  1 when the
 * journal cannot be read or stock recovery would refuse the log (only a
 * prefix is readable), with the reason in why. */
int lj_log_incomplete(const lj_lazy_state *st, char *why, size_t len);
/* Save every block of the journal inode, in logical order, to a new file
 * path (refused if it exists); reads through fs->io (a hole: zeros). */
errcode_t lj_journal_save(const lj_lazy_state *st, ext2_filsys fs,
			  const char *path);

/* log_dropped.c: what a salvaged log leaves out.  The transactions from
 * the refused one on, walked as stock `debugfs logdump` walks them (by
 * sequence, no checksum checked), each with the fs blocks it logs and
 * revokes.  Empty unless log->refused; log->j must still be open. */
struct lj_dropped_block {
	uint64_t home;		/* fs block */
	int revoked;		/* a revoke record, not a logged copy */
};
struct lj_dropped_txn {
	uint32_t tid;
	uint32_t first_block;	/* its first journal block */
	uint32_t last_block;	/* its commit block, or the last one walked */
	int committed;		/* its commit block was found */
	size_t block_first;	/* index of its first entry in blocks */
	size_t nblocks;
};
typedef struct lj_dropped {
	struct lj_dropped_txn *txn;
	size_t ntxn;
	struct lj_dropped_block *blocks; /* log order */
	size_t nblocks;
} lj_dropped;
errcode_t lj_log_dropped(const lj_log *log, lj_dropped **ret);
void lj_dropped_free(lj_dropped *d);

/* Flags to control how the channel opens (set before ext2fs_open2). */
#define LJ_OPEN_NO_LOG	0x1	/* ignore the log: plain home view */
#define LJ_OPEN_MIGRATED 0x2	/* show the fs as migration leaves it: the
				   primary superblock without needs_recovery
				   and lazy_journal, the journal superblock
				   as an empty log (for stock e2fsck -n) */
#define LJ_OPEN_KEEP_LAZY 0x4	/* with LJ_OPEN_MIGRATED: lazy_journal stays
				   set (what tune2fs finds after migrating) */
void lj_lazy_set_open_flags(int flags);
/*
 * A checked log handed across exec: a front-end that opened the fs
 * (lj_open_fs) and then runs a stock tool under the view, which opens it
 * again.  lj_lazy_verified_token writes into buf (at least
 * LJ_VERIFIED_TOKEN_SIZE bytes) a token naming the device (st_dev,
 * st_ino) and the log the channel io scanned (first journal block and
 * transaction, where and at which transaction the scan ended, the number
 * of tags), when the jmap checked every tag checksum it needed and found
 * none bad; else "".  lj_lazy_set_open_verified(token), before the next
 * lazy open: if that open's scan finds this very log on this very device,
 * the jmap is built without reading the logged blocks again (their
 * checksums were good an instant ago); any other log is checked as
 * always.  NULL or "" clears it.
 */
#define LJ_VERIFIED_TOKEN_SIZE 128
#define LJ_VIEW_VERIFIED_ENV "LJ_VIEW_VERIFIED"	/* how the view gets it */
void lj_lazy_verified_token(io_channel io, char *buf, size_t size);
void lj_lazy_set_open_verified(const char *token);
/*
 * Modes of a lazy channel, each switched on or off by lj_lazy_set_mode:
 * LJ_LAZY_HOME_VIEW serves every read from home, not through the jmap.
 * LJ_LAZY_DATA_HOME, on a channel open for writing, sends data writes home
 * directly (ordered mode) while metadata writes are journaled.  It must
 * cover raw data-block writes only: ext2fs_file_write also writes the
 * inode and mapping blocks, which must be journaled.
 */
#define LJ_LAZY_HOME_VIEW	0x1
#define LJ_LAZY_DATA_HOME	0x2
/*
 * LJ_LAZY_SKIP_SAME: a metadata write that leaves the block's live copy
 * as it is journals nothing.  LJ_LAZY_DEFER_COMMIT: a flush of the channel
 * only asks for a commit (lj_lazy_commit_wanted); lj_lazy_commit makes it,
 * so that a program's flush in the middle of an operation never ends a
 * transaction there (the lazy mount commits between operations).
 */
#define LJ_LAZY_SKIP_SAME	0x4
#define LJ_LAZY_DEFER_COMMIT	0x8
errcode_t lj_lazy_set_mode(io_channel io, int mode, int on);
/*
 * File data: fs blocks [blk, blk+n) from buf, written home in one device
 * request per run (ordered: before the commit that makes them reachable),
 * each block's journaled copy revoked in the running transaction; a block
 * freed since the last commit is journaled instead (the committed file
 * system may still use it).  What LJ_LAZY_DATA_HOME does for a caller that
 * knows its writes are data (the mount); the view, whose data comes
 * through libext2fs's own writes, keeps the mode.
 */
errcode_t lj_lazy_write_data(io_channel io, blk64_t blk, blk64_t n,
			     const void *buf);
/* Would lj_lazy_write_data journal any of [blk, blk+n)?  (Then that data
 * is durable only once the running transaction has committed.)  Not a
 * writer: 1. */
int lj_lazy_data_journaled(io_channel io, blk64_t blk, blk64_t n);
/* How many of the n blocks from blk (at least 1, else 0) are read from
 * home as they are stored: not in the log or the running transaction
 * (and blk not in the channel's cache, which the channel's own reads
 * would use).  *fd: a read-only descriptor on the device, the
 * channel's (opened at the first call, closed with the channel); *pos:
 * the byte where blk is in it.  For a caller that hands the reading to
 * the kernel (the mount's spliced READ answers); its reads count in the
 * channel's statistics.  The answer holds until the next write through
 * the channel. */
blk64_t lj_lazy_home_extent(io_channel io, blk64_t blk, blk64_t n, int *fd,
			    uint64_t *pos);
/* Make the data written home so far durable (a flush of the device)
 * without a commit: for a persistence point whose metadata is committed
 * already.  May run without the caller's lock, beside its other calls
 * and a commit's write step (the device below is opened for threads). */
errcode_t lj_lazy_flush_data(io_channel io);
/* Commit the running transaction now (durable on return; with nothing to
 * commit, data written home since the last flush is flushed). */
errcode_t lj_lazy_commit(io_channel io);
/*
 * The same in the writer's three steps (lj_writer_commit_start), for a
 * caller that serves requests while the log is written: start and finish
 * under the caller's lock, write without it, while reads and writes of
 * the channel go on under the lock (the device below is opened for
 * threads).  *io_left: whether write has device I/O to do (0: nothing
 * to commit or flush).  Data over blocks freed before the start stays
 * journaled until finish.
 */
errcode_t lj_lazy_commit_start(io_channel io, int *io_left);
errcode_t lj_lazy_commit_write(io_channel io);
errcode_t lj_lazy_commit_finish(io_channel io, errcode_t err);
/*
 * THE UMOUNT CALL of a mount writing through a lazy channel (lazy or
 * plain ext4; a no-op without a writer).  Commits the running
 * transaction; then, on a file system WITHOUT lazy_journal (plain ext4,
 * journaled as the kernel journals it), checkpoints everything and empties
 * the log as ext4's clean umount does (lj_writer_checkpoint_all: every
 * live block home, the log reset, needs_recovery cleared, a flush between
 * steps), so that stock tools see a clean file system with an empty log.
 * On a lazy_journal file system the log is the metadata's home: only the
 * commit.  Call it after libext2fs's last write: ext2fs_close writes the
 * superblock again (s_kbytes_written), so hold a reference on the channel
 * (io->refcount++) across ext2fs_close, call this, then io_channel_close.
 */
errcode_t lj_lazy_checkpoint_all(io_channel io);
/* Drop the running transaction, as jbd2 aborts a journal: the log keeps
 * what was committed, reads see the committed blocks again, and the next
 * write starts a new transaction. */
errcode_t lj_lazy_abort(io_channel io);
/* Did a flush ask for a commit since the last lj_lazy_commit? */
int lj_lazy_commit_wanted(io_channel io);
/* Blocks [blk, blk+count) were freed in the running transaction: their
 * copies leave it and journaled copies are revoked (jbd2's forget), and
 * data written over them under LJ_LAZY_DATA_HOME is journaled until the
 * next commit (the committed file system may still use them). */
errcode_t lj_lazy_note_freed(io_channel io, blk64_t blk, blk64_t count);
/* Blocks [blk, blk+count) were allocated in the running transaction:
 * under LJ_LAZY_SKIP_SAME a metadata write to one of them is compared
 * only with its copy in the running transaction (none: journaled), never
 * with what the device holds (free space in the committed file system). */
errcode_t lj_lazy_note_allocated(io_channel io, blk64_t blk, blk64_t count);
/* libext2fs's allocation statistics for [blk, blk+num) of fs (inuse < 0:
 * freed, > 0: allocated) told to io by the two calls above, widened to
 * whole clusters: on a bigalloc file system a cluster is allocated and
 * freed as one, whichever of its blocks the statistics name. */
void lj_lazy_note_stats(io_channel io, ext2_filsys fs, blk64_t blk,
			blk64_t num, int inuse);

/* ------------------------------------------------------------------ */
/* migrate.c: write the jmap home and empty the log (doc/contract.md §3) */

struct lj_migrate_stats {
	blk64_t blocks;		/* live blocks written home */
	blk64_t writes;		/* write calls issued (runs coalesced) */
	blk64_t bytes;		/* bytes written home */
	uint32_t new_sequence;	/* s_sequence of the emptied journal */
	int log_emptied;	/* the journal was reset */
};

/* Called as blocks go home; done <= total. */
typedef void (*lj_progress_fn)(void *arg, blk64_t done, blk64_t total);

/*
 * Migrate the live log of device home: (1) write the live copy of every
 * jmap entry to its home block, ascending, adjacent blocks coalesced, and
 * flush; (2) reset the journal superblock (s_start 0, s_sequence one past
 * the end of the log) and flush; (3) clear needs_recovery in the home
 * superblock and flush.  A crash at any point leaves a file system that
 * the next run (ours, stock e2fsck or the kernel) recovers with nothing
 * lost.  Works on lazy and non-lazy file systems; a log that cannot be
 * read completely is refused (as lj_migrate_fs without flags).  progress
 * may be NULL.  Opens device (lj_open_fs), calls lj_migrate_fs, closes it.
 */
errcode_t lj_migrate_home(const char *device, lj_progress_fn progress,
			  void *arg, struct lj_migrate_stats *stats);

/*
 * The same on fs, opened by lj_open_fs (read-only will do): the log its
 * channel scanned is the one migrated, and the device is opened once more,
 * for writing and exclusive, after every check (mounted or busy, device
 * size; nothing is written before).  A log that cannot be read completely
 * (lj_log_incomplete) is refused: with the journal's error when it cannot
 * be read, with LJ_ET_LOG_INCOMPLETE when only a prefix can, unless flags
 * has LJ_MIGRATE_SALVAGE (doc/contract.md §5: the caller has saved the raw
 * journal; the readable transactions go home).  fs stays open.
 */
#define LJ_MIGRATE_SALVAGE	0x1
errcode_t lj_migrate_fs(ext2_filsys fs, int flags, lj_progress_fn progress,
			void *arg, struct lj_migrate_stats *stats);

/* ------------------------------------------------------------------ */
/* super_features.c: feature bits in the superblock and its backups    */

/* Set or clear lazy_journal in the home superblock and its backups. */
errcode_t lj_set_lazy_flag(const char *device, int on);
/* Set and clear feature bits in the home superblock (and its backups). */
errcode_t lj_change_features(const char *device, int backups,
			     __u32 compat_set, __u32 compat_clear,
			     __u32 incompat_set, __u32 incompat_clear);
/* Open device ("name?offset=N" too) with only its superblock read;
 * EXT2_FLAG_RW implies EXT2_FLAG_EXCLUSIVE. */
errcode_t lj_open_super(const char *device, int flags, ext2_filsys *fs);
/* ext2fs_check_if_mounted on device without its io options (a name
 * "IMAGE?offset=N" is checked as IMAGE, as stock e2fsck checks it). */
errcode_t lj_check_if_mounted(const char *device, int *mount_flags);
/*
 * lj_change_features on *fs (from lj_open_super with EXT2_FLAG_RW):
 * every copy written and flushed, then *fs released (not with
 * ext2fs_close, whose flush would write the superblock again).  Nothing
 * but the bits and the checksums changes; s_wtime stays: flipping a
 * feature bit is not a write of the file system.
 */
errcode_t lj_change_features_close(ext2_filsys *fs, int backups,
				   __u32 compat_set, __u32 compat_clear,
				   __u32 incompat_set, __u32 incompat_clear);

/* ------------------------------------------------------------------ */
/* The writer: writer.c (running transaction), cleaner.c (room, commit, */
/* checkpoint), compact.c (offline compaction); pieces: writer_private.h */

/* What a device write was, for I/O records (workload generator). */
enum lj_io_kind { LJ_IO_JOURNAL, LJ_IO_META_HOME, LJ_IO_DATA };
typedef void (*lj_io_record_fn)(void *arg, enum lj_io_kind kind,
				blk64_t fsblk, blk64_t count);

struct lj_writer_stats {
	blk64_t txns;		/* transactions committed */
	blk64_t journal_blocks;	/* journal blocks written (all kinds) */
	blk64_t journal_writes;	/* the device writes they took (runs) */
	blk64_t relogged;	/* live blocks the cleaner re-logged */
	blk64_t sent_home;	/* live blocks the cleaner wrote home */
	blk64_t tail_moves;	/* journal superblock updates */
	/* lj_writer_make_room that had to free blocks: runs, time (ns) */
	uint64_t cleaner_runs, cleaner_ns, cleaner_max_ns;
};

typedef struct lj_writer lj_writer;

/*
 * Start appending to the log of an open lazy state: the head follows the
 * last committed transaction (an uncommitted tail is overwritten, as jbd2
 * would).  rw is a channel on the device open for writing, block size =
 * fs block size.  A log that ended on checksum trouble is refused
 * (LJ_ET_LOG_NOT_CLEAN): run e2fsck first.
 */
errcode_t lj_writer_open(lj_lazy_state *st, io_channel rw, lj_writer **ret);
void lj_writer_close(lj_writer *w);
/* Would lj_writer_open append to this log?  0, or why not (as there). */
errcode_t lj_writer_can_open(const lj_lazy_state *st);

/* The running transaction: add (replacing an earlier copy in it), revoke,
 * look up (reads see uncommitted copies), commit (durable on return). */
errcode_t lj_writer_add(lj_writer *w, blk64_t home, const void *data);
errcode_t lj_writer_revoke(lj_writer *w, blk64_t home);
/* 1 and the data if home is in the running txn, -1 if revoked there, 0 else;
 * the same for the committing transaction, if any, after that. */
int lj_writer_lookup(lj_writer *w, blk64_t home, const unsigned char **data);
/* Commit the running transaction (durable on return): the three steps
 * below, one after the other. */
errcode_t lj_writer_commit(lj_writer *w);
/*
 * A commit in three steps, as jbd2 commits while the next transaction
 * runs, for a caller that serves requests while the log is written (the
 * mount).  The caller serialises every call on the writer with its own
 * lock, except lj_writer_commit_write, which runs without it:
 *  - start (locked): room made in the log (the cleaner may run), the
 *    running transaction becomes the committing one, a new running one
 *    takes later writes; lookups see the committing copies under the
 *    running ones.  Nothing to commit: 0, and no commit started
 *    (lj_writer_committing says).  One commit at a time: EBUSY.
 *  - write (unlocked, while adds, revokes and lookups go on): its blocks,
 *    a flush, the commit block, a flush (durable on success).
 *  - finish (locked): recorded in the map; on err (the write's) its
 *    copies and revokes go back under the running transaction's, to be
 *    committed with it.  Returns err, or the map's.
 * Neither the cleaner (lj_writer_make_room, checkpoints) nor
 * lj_writer_abort may run between start and finish.
 */
errcode_t lj_writer_commit_start(lj_writer *w);
errcode_t lj_writer_commit_write(lj_writer *w);
errcode_t lj_writer_commit_finish(lj_writer *w, errcode_t err);
int lj_writer_committing(const lj_writer *w);
/* Drop the running transaction (a mount's error behaviour). */
void lj_writer_abort(lj_writer *w);
/* Blocks in the running transaction. */
size_t lj_writer_pending(const lj_writer *w);

void lj_writer_set_record(lj_writer *w, lj_io_record_fn fn, void *arg);
/* Write the log through log (another channel on rw's device, open for
 * writing, the same block size; NULL: rw's again), e.g. one that starts
 * each write's writeback at once.  Flushes stay rw's: one device is below
 * both.  The caller keeps log open while the writer is. */
void lj_writer_set_log(lj_writer *w, io_channel log);
const struct lj_writer_stats *lj_writer_stats(const lj_writer *w);

/*
 * Cleaner: free at least need journal blocks.  Live blocks of the oldest
 * transactions are re-logged at the head when they fit, else written home
 * (cold blocks); the journal superblock's tail moves only after the new
 * copies are durable.
 */
errcode_t lj_writer_make_room(lj_writer *w, uint32_t need);
/* Checkpoint, as stock jbd2 does: commit, write every live block home,
 * empty the log (the baseline of the workload generator). */
errcode_t lj_writer_checkpoint(lj_writer *w);
/*
 * Empty the log, as a clean umount of ext4 leaves it: commit, then in
 * doc/contract.md §3 order with a flush after each step, every live block home
 * (one batch, ascending, adjacent blocks coalesced), the journal
 * superblock reset (s_start 0, s_sequence the next tid), needs_recovery
 * cleared at home.  The writer stays usable: its next commit sets
 * needs_recovery again first.
 */
errcode_t lj_writer_checkpoint_all(lj_writer *w);
/* Journal blocks free for new transactions. */
uint32_t lj_writer_free_blocks(const lj_writer *w);

struct lj_compact_stats {
	blk64_t kept;		/* live blocks re-logged */
	blk64_t sent_home;	/* live blocks written home */
	uint32_t blocks_before;	/* log blocks in use before */
	uint32_t blocks_after;	/* and after */
};

/*
 * Offline compaction: rewrite the log to hold only live blocks.  Blocks
 * last written more than keep_txns transactions before the newest are sent
 * home instead (keep_txns 0: keep every live block in the log).  Every
 * step is crash-safe: the old log stays valid until the new tail is
 * published.
 */
errcode_t lj_compact(const char *device, uint32_t keep_txns,
		     struct lj_compact_stats *stats);

/* The writer behind a lazy channel open for writing (NULL otherwise). */
lj_writer *lj_lazy_writer(io_channel io);
/*
 * The writer's log through a channel of its own on the device for as long
 * as io is open, one that starts the writeback of each write as it is made
 * (ordered_io.c): the log then reaches the device in the order it is
 * written, in runs of up to 1 MiB, as jbd2 submits it (left to the
 * kernel's writeback, a large commit's blocks may go in any order before
 * its flush), and stays in the page cache for the reads of journal
 * copies.  io must be open for writing (else EXT2_ET_RO_FILSYS).
 */
errcode_t lj_lazy_ordered_log(io_channel io);
/* Record the channel's device writes: data sent home under
 * LJ_LAZY_DATA_HOME (LJ_IO_DATA) here, and the writer's journal and home
 * writes (lj_writer_set_record).  fn NULL stops recording. */
errcode_t lj_lazy_set_record(io_channel io, lj_io_record_fn fn, void *arg);

/* ------------------------------------------------------------------ */
/* device_open.c: devices through the library's base manager          */

/* ext2fs_open2 (flags as there) on name ("DEV?offset=N" too) through the
 * manager every device open of the library uses (unix; the crash model's
 * recorder in tests): a file system without the lazy channel. */
errcode_t lj_open_plain(const char *name, int flags, ext2_filsys *ret);
/* Tests: when the environment variable var names a file, every write and
 * flush of every device the library opens from now on is recorded there
 * (crash_io.c's format; tests/c_crash_mount), and var is removed. */
errcode_t lj_crash_record_env(const char *var);

/* ------------------------------------------------------------------ */
/* crc32c.c: crc32c with the CPU's instruction                         */

/* ext2fs_crc32c_le's result (seeded by the caller, no inversion), with
 * the CPU's crc32 instruction where there is one (else libext2fs's). */
uint32_t lj_crc32c(uint32_t crc, const void *buf, size_t len);
/* Does lj_crc32c use the CPU's instruction? */
int lj_crc32c_fast(void);

/* ------------------------------------------------------------------ */
/* dir_csum.c: a directory leaf block's checksum (metadata_csum)       */

/* Where block's checksum tail starts when block is a directory leaf with
 * one (its records end there), else 0 (no metadata_csum, an htree index
 * block, no room for a tail, records that do not add up). */
unsigned int lj_dir_leaf_tail(ext2_filsys fs, const void *block);
/* The tail's checksum set as ext2fs_dir_block_csum_set sets it, for a
 * leaf of directory dir whose inode has this generation (a block in CPU
 * order is the disk's on a little-endian CPU; the mount's case).
 * EXT2_ET_DIR_NO_SPACE_FOR_CSUM when block is no leaf with a tail
 * (lj_dir_leaf_tail); 0 and nothing changed without metadata_csum. */
errcode_t lj_dir_leaf_csum_set(ext2_filsys fs, ext2_ino_t dir,
			       __u32 generation, void *block);

/* ------------------------------------------------------------------ */
/* group_bitmaps.c: the allocation bitmaps read a group at a time      */

/*
 * For a writer of fs (open read-write, no bitmaps read): fs->block_map and
 * fs->inode_map made, each group's bitmaps computed where its descriptor
 * says uninitialised and read only when an allocation or a change needs
 * them (what a mount reads then grows with the work, not with the file
 * system).  The writer routes allocations through lj_bitmaps_new_*, tells
 * lj_bitmaps_note_blocks what libext2fs's block statistics callback sees,
 * counts inodes with lj_bitmaps_inode_stats and has fs->write_bitmaps call
 * lj_bitmaps_write.  Free bm after ext2fs_close.
 */
typedef struct lj_bitmaps lj_bitmaps;
errcode_t lj_bitmaps_open(ext2_filsys fs, lj_bitmaps **ret);
void lj_bitmaps_free(lj_bitmaps *bm);
/* Bitmap blocks read so far. */
unsigned long lj_bitmaps_reads(const lj_bitmaps *bm);
/* ext2fs_new_block2, ext2fs_new_range (plen NULL: one block) and
 * ext2fs_new_inode on fs's bitmaps: the answer the whole bitmaps give. */
errcode_t lj_bitmaps_new_block(lj_bitmaps *bm, blk64_t goal, blk64_t *ret);
errcode_t lj_bitmaps_new_range(lj_bitmaps *bm, int flags, blk64_t goal,
			       blk64_t len, blk64_t *pblk, blk64_t *plen);
/* A free run of len blocks (a file system without bigalloc), the first
 * that starts at or after goal, else after the first data block: *ret;
 * EXT2_ET_BLOCK_ALLOC_FAIL when there is none.  Nothing is allocated. */
errcode_t lj_bitmaps_find_run(lj_bitmaps *bm, blk64_t goal, blk64_t len,
			      blk64_t *ret);
errcode_t lj_bitmaps_new_inode(lj_bitmaps *bm, ext2_ino_t dir, int mode,
			       ext2_ino_t *ret);
/* After libext2fs counted blocks [blk, blk + num) used (inuse > 0) or
 * free: a group not read yet is read and the change made again there.
 * A read that fails makes every later lj_bitmaps_write fail. */
void lj_bitmaps_note_blocks(lj_bitmaps *bm, blk64_t blk, blk64_t num,
			    int inuse);
/* ext2fs_inode_alloc_stats2, ino's group read first. */
errcode_t lj_bitmaps_inode_stats(lj_bitmaps *bm, ext2_ino_t ino, int inuse,
				 int isdir);
/* ext2fs_write_bitmaps for the groups in memory (fs->write_bitmaps). */
errcode_t lj_bitmaps_write(lj_bitmaps *bm);

/* ------------------------------------------------------------------ */
/* journal_size.c: doc/contract.md §6 sizing                           */

/*
 * Lazy journal size in blocks for a file system of nblocks blocks:
 * D = ext2fs_default_journal_size(nblocks); L = max(4D, N/1024), capped at
 * min(N/16, 10240000), never below D.  0 when the file system is too
 * small for any journal (D < 0).
 */
blk64_t lj_lazy_journal_blocks(blk64_t nblocks);
/* Whole MiB holding at least blocks blocks (what -J size= takes). */
unsigned long lj_blocks_to_mib(blk64_t blocks, unsigned int blocksize);
blk64_t lj_mib_to_blocks(unsigned long mib, unsigned int blocksize);

/* ------------------------------------------------------------------ */
/* journal_create.c: the journal a lazy tool wants, and making it     */

/*
 * The journal size asked for, in blocks: size_mib MiB (-J size=), or with
 * size_mib 0 the doc/contract.md §6 size rounded up to whole MiB (what -J size=
 * takes); *mib gets it in MiB.  0 when the file system is too small for
 * any journal.
 */
blk64_t lj_lazy_journal_size(blk64_t nblocks, unsigned int blocksize,
			     unsigned long size_mib, unsigned long *mib);
/*
 * Why fs (made, or to be changed) cannot take lazy_journal, in one line,
 * or NULL: an external journal, fast_commit (unless the same request
 * turns it off: fast_commit_kept 0), too small for any journal.
 */
const char *lj_lazy_fs_refusal(ext2_filsys fs, int fast_commit_kept);
extern const char lj_msg_too_small[];

struct lj_journal_fit {
	unsigned int blocksize;
	blk64_t want;		/* lj_lazy_journal_size */
	unsigned long want_mib;
	blk64_t start, have;	/* the journal there now (0s: none) */
	errcode_t place_err;	/* why it could not be looked at */
	int fits;		/* have == want (size given) or >= want */
};
/* What device has against what is wanted (size_mib as above); one open,
 * nothing written.  The error of opening the file system, or 0. */
errcode_t lj_journal_fit(const char *device, unsigned long size_mib,
			 struct lj_journal_fit *fit);

/* Physical block of journal block 0 and the journal size (0s: none). */
errcode_t lj_journal_place(const char *device, blk64_t *start,
			   blk64_t *blocks);

/*
 * Give device an internal journal of nblocks blocks (an existing one,
 * which must be empty, is removed first), as stock tune2fs -O ^has_journal
 * then -J size= would.  goal: first block wanted, ~0 for the stock
 * placement (middle of the file system).  band (blocks, 0 = none): start
 * on the free band boundary nearest the middle.  lazyinit: do not zero
 * the journal blocks.  *start gets the journal's first block.
 */
errcode_t lj_make_journal(const char *device, blk64_t nblocks, blk64_t goal,
			  blk64_t band, int lazyinit, blk64_t *start);

#endif
