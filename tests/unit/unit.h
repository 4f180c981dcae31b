/*
 * unit.h --- shared helpers of the Check unit tests of the lazy journal
 * library: scratch ext4 images made with stock mke2fs, and a tiny jbd2 log
 * writer that crafts raw journal blocks (see unit_image.c).
 */
#ifndef LJ_UNIT_H
#define LJ_UNIT_H

#include <stddef.h>
#include <stdint.h>
#include <check.h>

#include "lazy_journal.h"
#include "jbd2_format.h"

/* Suites (one per test file). */
Suite *journal_suite(void);
Suite *scan_suite(void);
Suite *jmap_suite(void);
Suite *lazy_io_suite(void);
Suite *migrate_suite(void);
Suite *writer_suite(void);
Suite *cleaner_suite(void);
Suite *compact_suite(void);
Suite *writer_crash_suite(void);
Suite *super_features_suite(void);
Suite *mount_channel_suite(void);
Suite *overlay_suite(void);
Suite *checkpoint_suite(void);
Suite *bitmaps_suite(void);

/* Called once by test_main (parent process): scratch directory. */
void ut_global_setup(void);
void ut_global_cleanup(void);

/* ------------------------------------------------------------------ */
/* Images                                                              */

#define UT_FREE_RUN	64	/* free fs blocks (outside journal) per image */

typedef struct ut_img {
	char dir[512];		/* mkdtemp() directory holding the image */
	char path[600];
	int fd;			/* O_RDWR on the image */
	unsigned int bs;	/* fs block size */
	uint64_t fs_blocks;
	uint32_t maxlen, first;	/* journal geometry */
	blk64_t *pblk;		/* journal block -> fs block, maxlen entries */
	unsigned char *jsb;	/* journal superblock as mke2fs wrote it */
	unsigned char uuid[16];	/* journal superblock s_uuid */
	uint64_t free_blk;	/* first of UT_FREE_RUN free fs blocks */
	/* log format used by the writer (set by ut_log_init) */
	uint32_t compat, incompat;
	uint32_t csum_seed;
	unsigned int tag_bytes, tail_bytes;
} ut_img;

/*
 * Make an image with stock mke2fs ("-b 1024 -O ^64bit" etc. in opts, size
 * like "8M"), set needs_recovery (and lazy_journal when lazy) in the fs
 * superblock, record the journal geometry.  Fails the test on error.
 */
ut_img *ut_img_create(const char *opts, const char *size, int lazy);
void ut_img_free(ut_img *img);

/* Raw fs block I/O on the image file (bypassing every cache). */
void ut_write_fsblock(ut_img *img, uint64_t blk, const void *buf);
void ut_read_fsblock(ut_img *img, uint64_t blk, void *buf);
/* Raw journal block write at the place lj_journal_pblk() gave. */
void ut_write_jblock(ut_img *img, uint32_t jblk, const void *buf);

/* Deterministic content of a logged copy of home written by tid. */
void ut_fill(unsigned char *buf, unsigned int bs, uint64_t home,
	     uint32_t tid, uint32_t salt);

/* ------------------------------------------------------------------ */
/* Journal superblock                                                  */

/* Compose the journal superblock with the writer's format into buf. */
void ut_jsb_compose(ut_img *img, uint32_t start, uint32_t seq,
		    unsigned char *buf);
/* Recompute the v2/v3 checksum of a composed journal superblock. */
void ut_jsb_csum(ut_img *img, unsigned char *buf);

/* ------------------------------------------------------------------ */
/* Log writer                                                          */

typedef struct ut_block {	/* one logged block */
	uint64_t home;
	const unsigned char *data; /* NULL: ut_fill(home, tid, salt) */
	uint32_t salt;
	int bad_csum;		/* corrupt its tag checksum */
	uint32_t jblock;	/* out: journal block of the copy */
	int escaped;		/* out: stored escaped */
} ut_block;

#define UT_NO_COMMIT		0x01	/* stop before the commit block */
#define UT_BAD_COMMIT_CSUM	0x02
#define UT_BAD_DESC_CSUM	0x04	/* first descriptor's tail checksum */
#define UT_BAD_REVOKE_CSUM	0x08
#define UT_BAD_REVOKE_COUNT	0x10	/* r_count = block size + 4 */

typedef struct ut_txn {
	ut_block *blocks;
	size_t nblocks;
	const uint64_t *revokes;	/* written in one revoke block */
	size_t nrevokes;
	uint64_t commit_sec;
	unsigned int flags;	/* UT_* */
	/* out */
	uint32_t tid;
	uint32_t first_block;
	uint32_t commit_block;
	uint32_t desc_block;	/* first descriptor, 0 if none */
	uint32_t revoke_block;	/* 0 if none */
	uint32_t nblocks_used;	/* journal blocks written */
} ut_txn;

typedef struct ut_writer {
	ut_img *img;
	uint32_t blk;		/* next journal block */
	uint32_t tid;		/* tid of the next transaction */
} ut_writer;

/*
 * Choose the log format (JBD2 compat/incompat bits), write the journal
 * superblock with s_start = start, s_sequence = seq, and start writing at
 * start with tid seq.  start == 0 writes an empty log.
 */
void ut_log_init(ut_writer *w, ut_img *img, uint32_t compat,
		 uint32_t incompat, uint32_t start, uint32_t seq);
/* Write one transaction at w->blk with tid w->tid (both advance). */
void ut_log_txn(ut_writer *w, ut_txn *t);

/* ------------------------------------------------------------------ */
/* Reading back through the library                                    */

typedef struct ut_open {
	ext2_filsys fs;
	lj_journal *j;
} ut_open;

/* Open the image read-only with unix_io and load its journal. */
errcode_t ut_try_open_journal(ut_img *img, ut_open *o);
void ut_open_journal(ut_img *img, ut_open *o);
void ut_close_journal(ut_open *o);
/* lj_log_scan, asserting success. */
lj_log *ut_scan(ut_open *o, int flags);
/* lj_log_scan + lj_jmap_build, asserting success. */
lj_jmap *ut_jmap(ut_open *o, int scan_flags, int jmap_flags);

/* Common log formats for loop tests. */
struct ut_fmt {
	const char *name;
	const char *mkfs;	/* mke2fs options */
	const char *size;
	uint32_t compat, incompat;
};
extern const struct ut_fmt ut_fmts[];
extern const int ut_nfmts;

/* Where stock e2fsprogs' programs are (E2FSPROGS_SBIN, else the
 * configured directory). */
const char *ut_sbin_dir(void);
/* cp --sparse=always; 0 or -1. */
int ut_copy_file(const char *from, const char *to);
/* Run fn on work with the crash model; work = orig + its first n block
 * writes.  99: crashed there; 0: fn wrote fewer (finished); else failed. */
int ut_run_crashing(const char *orig, const char *work, long n,
		    int (*fn)(void *), void *arg);

/* ------------------------------------------------------------------ */
/* Shared assertions (unit_case.c)                                     */

int ut_fmt_has_csum(const struct ut_fmt *f);	/* v1, v2 or v3 */
int ut_fmt_v23(const struct ut_fmt *f);		/* block checksums */
/* The journal copy at jblock holds exactly ut_fill(home, tid, salt). */
void ut_assert_copy(ut_open *o, uint32_t jblock, uint64_t home,
		    uint32_t tid, uint32_t salt);
void ut_assert_mapped(const lj_jmap *m, uint64_t home, uint32_t jblock,
		      uint32_t tid);
void ut_assert_unmapped(const lj_jmap *m, uint64_t home);
/* lj_jmap_free, ut_close_journal, ut_img_free */
void ut_done(ut_img *img, ut_open *o, lj_jmap *m);

/* ------------------------------------------------------------------ */
/* Suites from tables (unit_case.c)                                    */

struct ut_test {
	const TTest *fn;	/* NULL ends a list */
	int loops;		/* 0: once; else _i = 0 .. loops - 1 */
};
struct ut_tcase {
	const char *name;
	int timeout;
	const struct ut_test *tests;
};
Suite *ut_suite(const char *name, const struct ut_tcase *tcs, size_t ntcs);

/* ------------------------------------------------------------------ */
/* Table-driven log cases (unit_case.c)                                */

/*
 * One row: a log of up to UT_CASE_MAXT transactions written in one format
 * (or in every format of ut_fmts), scanned with scan_flags and mapped;
 * then the result against want[0], or want[1] for the formats when()
 * picks (e.g. ut_fmt_v23: those with block checksums).  Block homes are
 * offsets from the image's first free block (A); numbers in want are
 * checked only when given (UT_EQ), end_tid relative to seq.
 */
#define UT_CASE_MAXT	5
#define UT_CASE_MAXB	4
#define UT_CASE_MAXR	2
#define UT_CASE_MAXM	4

struct ut_num { int on; long long v; };
#define UT_EQ(x)	{ 1, (x) }

struct ut_case_blk { uint64_t off; uint32_t salt; int bad_csum; };
struct ut_case_rev {
	uint64_t off;
	int hi33;	/* 64-bit log: (1 << 33) + A + off; else A + off32 */
	uint64_t off32;
};
struct ut_case_txn {
	size_t nblocks;
	struct ut_case_blk block[UT_CASE_MAXB];
	size_t nrevokes;
	struct ut_case_rev revoke[UT_CASE_MAXR];
	uint64_t commit_sec;
	unsigned int flags;	/* UT_NO_COMMIT, UT_BAD_* */
	struct ut_num tid;	/* written with tid seq + this */
};
enum ut_case_at_kind { UT_AT_NONE, UT_AT_FIRST, UT_AT_DESC, UT_AT_REVOKE,
		       UT_AT_COMMIT, UT_AT_WRITER /* where the writer stopped */ };
struct ut_case_at { enum ut_case_at_kind kind; size_t txn; };
struct ut_case_map {	/* block blk of transaction txn is live */
	int on;
	size_t txn, blk;
	int copy;	/* and its journal copy holds what was written */
};
struct ut_case_revoked { int on; size_t txn, k; };	/* log->revokes[i] */
struct ut_case_want {
	int skip;	/* nothing to show in these formats */
	struct ut_num end;		/* LJ_END_* */
	struct ut_case_at end_at;
	struct ut_num start_tid, end_tid, ntxn, ntags, nrevokes, log_blocks;
	struct ut_num refused, salvaged, uncommitted, clean_end;
	struct ut_num n, bad_csums, data_blocks_read;
	unsigned long min_data_blocks_read;
	const char *end_msg, *bad_csum_msg;	/* substrings */
	struct ut_case_map mapped[UT_CASE_MAXM];
	struct ut_num unmapped[UT_CASE_MAXM];	/* offsets from A */
	struct ut_case_revoked revoked[UT_CASE_MAXR];
	/* per transaction: live tags, tags, its first journal block */
	struct ut_num nlive[UT_CASE_MAXT], txn_ntags[UT_CASE_MAXT];
	struct ut_case_at txn_first[UT_CASE_MAXT];
};
struct ut_case {
	const char *name;
	const struct ut_fmt *fmt;	/* NULL: every format of ut_fmts */
	uint32_t incompat;		/* added to the format's */
	int empty;	/* an empty log (s_start = 0): no transactions */
	int start;	/* >= 0: s_first + start; < 0: s_maxlen + start */
	uint32_t seq;
	int scan_flags, jmap_flags;
	size_t ntxn;
	struct ut_case_txn txn[UT_CASE_MAXT];
	int (*when)(const struct ut_fmt *f);
	struct ut_case_want want[2];
};
/* Loop iterations of a table (one per case and format) and one run. */
int ut_case_runs(const struct ut_case *cases, size_t ncases);
void ut_case_run(const struct ut_case *cases, size_t ncases, int run);
#define UT_NCASES(table)	(sizeof(table) / sizeof((table)[0]))
/* A loop test running every row of a table; its entry in a ut_test list. */
#define UT_CASE_TEST(name, table)					\
	START_TEST(name) { ut_case_run(table, UT_NCASES(table), _i); } END_TEST
#define UT_CASE_ENTRY(name, table)					\
	{ name, ut_case_runs(table, UT_NCASES(table)) }

#endif
