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
Suite *super_features_suite(void);

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

/* cp --sparse=always; 0 or -1. */
int ut_copy_file(const char *from, const char *to);
/* Run fn on work with the crash model; work = orig + its first n block
 * writes.  99: crashed there; 0: fn wrote fewer (finished); else failed. */
int ut_run_crashing(const char *orig, const char *work, long n,
		    int (*fn)(void *), void *arg);

#endif
