/*
 * fuzz_writer.c --- libFuzzer target: the transaction writer round trip
 * (write -> scan -> same map).
 *
 * Input: byte 0 picks the template (bit 0: 1k / 4k) and the journal
 * checksum format set in the empty journal before the session (bits 1-2:
 * none, v2, v3, none) with or without 64bit tags (bit 3); then 3-byte
 * operations on a 48-block region of free blocks (b0 % 8: 0-3 add a block
 * whose content derives from b2 -- bit 7 of b2 makes it start with the
 * jbd2 magic, so it is escaped --, 4 revoke, 5 commit, 6 make room for
 * b1 * 8 + 1 blocks, 7 checkpoint), home block = region + b1 % 48.
 *
 * The session runs on a tmpfs copy of the template opened with
 * lj_open_fs(EXT2_FLAG_RW), the writer behind the lazy channel.  After a
 * final commit every region block is read through the writing channel;
 * then the file system is closed, opened again read-only (a fresh log
 * scan and jmap) and every region block must read the same, and, for a
 * block whose last operation was an add, equal that add's content.  The
 * new log must end cleanly (no checksum trouble, nothing refused).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lazy_journal.h"
#include "fuzz_common.h"

#define REGION_BASE	3000
#define REGION		48

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init();
	return 0;
}

static void fill(unsigned char *b, unsigned int bs, blk64_t home, uint8_t seed)
{
	unsigned int i;

	for (i = 0; i < bs; i++)
		b[i] = (unsigned char)(seed * 31 + i * 7 + home);
	if (seed & 0x80)
		lj_put_be32(b, LJ_JBD2_MAGIC);
}

/* Empty journal superblock of the working file: set the format. */
static void set_format(struct fz_template *t, uint8_t mode)
{
	unsigned char sb[LJ_JSB_SIZE];
	off_t off = (off_t)t->jpblk[0] * t->bs;
	uint32_t inc;

	if (pread(t->fd, sb, sizeof(sb), off) != (ssize_t)sizeof(sb))
		abort();
	inc = lj_be32(sb + LJ_JSB_FEATURE_INCOMPAT) &
	      ~(LJ_FEATURE_INCOMPAT_CSUM_V2 | LJ_FEATURE_INCOMPAT_CSUM_V3 |
		LJ_FEATURE_INCOMPAT_64BIT);
	if (((mode >> 1) & 3) == 1)
		inc |= LJ_FEATURE_INCOMPAT_CSUM_V2;
	else if (((mode >> 1) & 3) == 2)
		inc |= LJ_FEATURE_INCOMPAT_CSUM_V3;
	if (mode & 8)
		inc |= LJ_FEATURE_INCOMPAT_64BIT;
	lj_put_be32(sb + LJ_JSB_FEATURE_INCOMPAT, inc);
	sb[LJ_JSB_CHECKSUM_TYPE] = LJ_CSUM_TYPE_CRC32C;
	memset(sb + LJ_JSB_CHECKSUM, 0, 4);
	if (inc & (LJ_FEATURE_INCOMPAT_CSUM_V2 | LJ_FEATURE_INCOMPAT_CSUM_V3))
		lj_put_be32(sb + LJ_JSB_CHECKSUM,
			    ext2fs_crc32c_le(~0U, sb, sizeof(sb)));
	if (pwrite(t->fd, sb, sizeof(sb), off) != (ssize_t)sizeof(sb))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_template *t;
	int16_t last[REGION];	/* -1: untouched, -2: revoked, else seed */
	unsigned char *seen, *buf, *want;
	ext2_filsys fs;
	lj_lazy_state *st;
	lj_writer *w;
	errcode_t err = 0;
	size_t i;
	unsigned int bs;

	if (size < 1)
		return 0;
	t = fz_template(data[0] & 1);
	bs = t->bs;
	/* a fresh copy of the template: the writer may write anywhere */
	if (pwrite(t->fd, t->img, t->size, 0) != (ssize_t)t->size)
		abort();
	set_format(t, data[0]);
	err = lj_open_fs(t->path, EXT2_FLAG_RW, &fs);
	if (err) {
		fprintf(stderr, "lj_open_fs rw: %s\n", error_message(err));
		abort();	/* the template must open */
	}
	w = lj_lazy_writer(fs->io);
	FZ_CHECK(w != NULL);
	seen = malloc((size_t)REGION * bs);
	buf = malloc(bs);
	want = malloc(bs);
	if (!seen || !buf || !want)
		abort();
	for (i = 0; i < REGION; i++)
		last[i] = -1;
	for (i = 1; i + 3 <= size && !err; i += 3) {
		uint8_t op = data[i] % 8, b1 = data[i + 1], b2 = data[i + 2];
		blk64_t home = REGION_BASE + b1 % REGION;

		switch (op) {
		case 4:
			err = lj_writer_revoke(w, home);
			if (!err)
				last[b1 % REGION] = -2;
			break;
		case 5:
			err = lj_writer_commit(w);
			break;
		case 6:
			err = lj_writer_make_room(w, (uint32_t)b1 * 8 + 1);
			break;
		case 7:
			err = lj_writer_checkpoint(w);
			break;
		default:
			fill(buf, bs, home, b2);
			err = lj_writer_add(w, home, buf);
			if (!err)
				last[b1 % REGION] = b2;
			break;
		}
	}
	if (!err)
		err = lj_writer_commit(w);
	if (err) {
		/* the journal may legitimately fill up; anything else is a
		 * writer failure on a healthy image */
		if (err != LJ_ET_JOURNAL_FULL) {
			fprintf(stderr, "writer: %s\n", error_message(err));
			FZ_CHECK(err == LJ_ET_JOURNAL_FULL);
		}
		ext2fs_free(fs);	/* drop the session unflushed */
		goto out;
	}
	for (i = 0; i < REGION; i++)
		FZ_CHECK(io_channel_read_blk64(fs->io, REGION_BASE + i, 1,
					       seen + i * bs) == 0);
	FZ_CHECK(ext2fs_close_free(&fs) == 0);

	/* read back through a fresh scan */
	FZ_CHECK(lj_open_fs(t->path, 0, &fs) == 0);
	FZ_CHECK(lj_lazy_get_state(fs->io, &st) == 0);
	FZ_CHECK(st->journal_err == 0);
	FZ_CHECK(!st->jmap->log->refused && lj_log_clean_end(st->jmap->log));
	for (i = 0; i < REGION; i++) {
		blk64_t home = REGION_BASE + i;

		FZ_CHECK(io_channel_read_blk64(fs->io, home, 1, buf) == 0);
		if (memcmp(buf, seen + i * bs, bs))
			fz_fail("block reads differently after the round trip",
				__FILE__, (int)home);
		if (last[i] >= 0) {
			fill(want, bs, home, (uint8_t)last[i]);
			if (memcmp(buf, want, bs))
				fz_fail("block is not its last write",
					__FILE__, (int)home);
		}
	}
	ext2fs_close_free(&fs);
out:
	free(seen);
	free(buf);
	free(want);
	return 0;
}
