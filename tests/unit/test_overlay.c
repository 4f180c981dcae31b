/*
 * test_overlay.c --- the overlay channel (overlay_io.c) under which the
 * rehearse view runs a stock tool: every read answers what a device
 * taking the writes would hold (a shadow copy in memory is the oracle),
 * whatever the block size, the alignment or write_byte; the file below
 * is never written; over nothing, what was not written reads as zeros.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "lj_private.h"

#define FILE_BYTES	(256 * 1024)

static uint32_t seed;

static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

/* A scratch file of FILE_BYTES of patterned bytes; its path in path. */
static void make_file(char *path, size_t len, unsigned char *data)
{
	size_t i;
	int fd;

	snprintf(path, len, "%s/lj-overlay-XXXXXX", getenv("TMPDIR") ?
		 getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < FILE_BYTES; i++)
		data[i] = (unsigned char)(i * 7 + (i >> 9));
	ck_assert_int_eq(write(fd, data, FILE_BYTES), FILE_BYTES);
	close(fd);
}

/* Random writes (blocks of 1 KiB or 4 KiB, and write_byte) and reads of
 * the overlay, each read checked against shadow. */
static void exercise(io_channel io, unsigned char *shadow, size_t bytes)
{
	unsigned char *buf = malloc(64 * 1024);
	int round;

	ck_assert_ptr_nonnull(buf);
	for (round = 0; round < 2000; round++) {
		int bs = (rnd() & 1) ? 4096 : 1024;
		uint32_t op = rnd() % 3;
		size_t nblk = bytes / (size_t)bs, off, len;
		unsigned long long blk;
		int count;
		size_t i;

		ck_assert_int_eq(io_channel_set_blksize(io, bs), 0);
		if (op == 2) {		/* write_byte: any offset, any size */
			len = 1 + rnd() % 3000;
			off = rnd() % (bytes - len);
			for (i = 0; i < len; i++)
				buf[i] = (unsigned char)rnd();
			ck_assert_int_eq(io_channel_write_byte(io, off, (int)len,
							       buf), 0);
			memcpy(shadow + off, buf, len);
			continue;
		}
		count = 1 + (int)(rnd() % 8);
		blk = rnd() % (nblk - (size_t)count);
		off = blk * (size_t)bs;
		len = (size_t)count * (size_t)bs;
		if (op == 1) {
			for (i = 0; i < len; i++)
				buf[i] = (unsigned char)rnd();
			ck_assert_int_eq(io_channel_write_blk64(io, blk, count,
								buf), 0);
			memcpy(shadow + off, buf, len);
		} else {
			ck_assert_int_eq(io_channel_read_blk64(io, blk, count,
							       buf), 0);
			ck_assert_msg(!memcmp(buf, shadow + off, len),
				      "read of %d blocks of %d at %llu differs",
				      count, bs, blk);
		}
	}
	/* and a byte-count read across everything */
	ck_assert_int_eq(io_channel_set_blksize(io, 1024), 0);
	for (size_t o = 0; o + 64 * 1024 <= bytes; o += 64 * 1024) {
		ck_assert_int_eq(io_channel_read_blk64(io, o / 1024,
						       -(64 * 1024), buf), 0);
		ck_assert(!memcmp(buf, shadow + o, 64 * 1024));
	}
	free(buf);
}

START_TEST(test_overlay_over_file)
{
	unsigned char *orig = malloc(FILE_BYTES), *shadow = malloc(FILE_BYTES);
	unsigned char *after = malloc(FILE_BYTES);
	char path[600];
	io_channel below, io;
	int fd;

	ck_assert(orig && shadow && after);
	seed = 22;
	make_file(path, sizeof(path), orig);
	memcpy(shadow, orig, FILE_BYTES);
	ck_assert_int_eq(unix_io_manager->open(path, 0, &below), 0);
	ck_assert_int_eq(lj_overlay_open(below, path, &io), 0);
	exercise(io, shadow, FILE_BYTES);
	/* flush writes nothing; writes were seen */
	ck_assert_int_eq(io_channel_flush(io), 0);
	ck_assert(lj_overlay_holds(io, 0, FILE_BYTES));
	ck_assert(!lj_overlay_holds(below, 0, FILE_BYTES));
	/* a read past the end goes down as it is */
	{
		unsigned char b[4096];

		ck_assert_int_eq(io_channel_set_blksize(io, 4096), 0);
		ck_assert_int_eq(io_channel_read_blk64(io, FILE_BYTES / 4096 + 8,
						       1, b),
				 EXT2_ET_SHORT_READ);
	}
	ck_assert_int_eq(io_channel_close(io), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, after, FILE_BYTES), FILE_BYTES);
	close(fd);
	ck_assert_msg(!memcmp(orig, after, FILE_BYTES),
		      "the file below the overlay was written");
	unlink(path);
	free(orig);
	free(shadow);
	free(after);
}
END_TEST

START_TEST(test_overlay_over_nothing)
{
	unsigned char *shadow = calloc(1, FILE_BYTES);
	io_channel io;

	ck_assert_ptr_nonnull(shadow);
	seed = 23;
	ck_assert_int_eq(lj_overlay_open(NULL, "new-file", &io), 0);
	ck_assert(!lj_overlay_holds(io, 0, FILE_BYTES));
	exercise(io, shadow, FILE_BYTES);
	ck_assert_int_eq(io_channel_close(io), 0);
	free(shadow);
}
END_TEST

Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("overlay");

	tcase_add_test(tc, test_overlay_over_file);
	tcase_add_test(tc, test_overlay_over_nothing);
	suite_add_tcase(s, tc);
	return s;
}
