/*
 * fuzz_common.h --- shared by the libFuzzer targets in fuzz/.
 *
 * A fuzz input is the journal area of a small ext4 image: byte k of the
 * input is byte k of journal block 0, 1, ... (the journal superblock
 * first), as fuzz/make_seeds.sh extracts it from real logs.  Journal
 * blocks past the input keep the template's content (zeros).  The
 * template is chosen by the input's journal superblock block size field
 * (be32 at 0x0C): 4096 picks the 4 KiB template, anything else the 1 KiB
 * one.  Bit 0 of byte 0x3FF of the journal superblock (ignored by jbd2
 * for an internal journal) asks for every v2/v3 checksum in the input to
 * be recomputed first, so mutations get past crc32c.  Templates are made once per process by fuzz/mktemplate.sh (stock
 * mke2fs + debugfs) in $LJ_FUZZ_TMPDIR (default /dev/shm).
 */
#ifndef LJ_FUZZ_COMMON_H
#define LJ_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

struct fz_template {
	const char *kind;	/* "1k" / "4k" */
	unsigned int bs;
	unsigned char *img;	/* pristine image, lazy_journal and
				   needs_recovery set */
	size_t size;
	blk64_t *jpblk;		/* journal block -> fs block */
	uint32_t jblocks;
	/* the working copy the targets fuzz */
	unsigned char *work;	/* in memory (fz_mem_io_manager) */
	char path[256];		/* on tmpfs (for lj_open_fs) */
	int fd;
	uint32_t dirty;		/* journal blocks 0..dirty-1 overwritten */
	ext2_filsys fs;		/* opened on work via the memory manager */
};

/* Make both templates (once); aborts on failure. */
void fz_init(void);
/* Template 0 (1k) or 1 (4k). */
struct fz_template *fz_template(int i);
/* Template for this input. */
struct fz_template *fz_pick(const uint8_t *data, size_t size);
/* Copy the input into the journal area of t->work (and of t->path when
 * to_file), restoring what the previous input overwrote. */
void fz_load(struct fz_template *t, const uint8_t *data, size_t size,
	     int to_file);

/* An io_manager over fz_template.work ("name" is ignored); read-only. */
extern io_manager fz_mem_io_manager;
void fz_mem_select(struct fz_template *t);

/* LJ_FUZZ_VERBOSE set: the targets say what each input led to. */
extern int fz_verbose;

/* Invariant violated: print and abort (libFuzzer saves the input). */
#define FZ_CHECK(cond) do { if (!(cond)) fz_fail(#cond, __FILE__, __LINE__); } while (0)
void fz_fail(const char *what, const char *file, int line)
	__attribute__((noreturn));

#endif
