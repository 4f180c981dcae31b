/*
 * crash_io.c --- the device the library writes through, and a crash model
 * of it.
 *
 * Every device open of the library goes through lj_io_base() (base_io.c:
 * the stock unix_io_manager unless a test installs another).  lj_crash_io_manager is
 * such a replacement: a pass-through layer over a real manager (the way
 * libext2fs' test_io wraps a channel) that records, in issue order, every
 * write (byte offset, length, data; one record per block of the write) and
 * every flush.  A flush is a barrier for the whole device, whatever the
 * channel it was asked on (fsync of a file or block device writes back all
 * of its dirty pages).  From the record a test rebuilds the crash states of
 * CrashMonkey / dm-log-writes: everything before the last completed flush,
 * plus any subset of the writes issued after it.
 *
 * The record is global: one device under test per process.  It is kept
 * in memory (lj_crash_get, lj_crash_save), or, once lj_crash_stream names
 * a file, appended to that file as each record is made (a daemon's
 * record: nothing to save at exit, and another process sees how far the
 * record had got when, say, its fsync returned).
 *
 * Writes and flushes are issued and recorded one at a time (a mount's
 * commit writes the log while a request writes data): the record's order
 * is the order the device saw them in, and a flush recorded as a barrier
 * covers exactly the writes recorded before it.
 *
 * A streamed record also models a device going bad: while a file named
 * as the record with ".fail" appended exists, every write and flush
 * fails with EIO, issued to nothing and recorded nowhere (a test creates
 * that file to fail a mounted daemon's writes from then on).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "lazy_journal.h"
#include "crash_io.h"
#include "lj_private.h"

static io_manager crash_real;
static struct lj_crash_rec *recs;
static size_t nrec, cap;
static int stream_fd = -1;
static char *fail_path;		/* while this file exists, writes fail */
static pthread_mutex_t issue_lock = PTHREAD_MUTEX_INITIALIZER;

void lj_crash_set_real(io_manager real)
{
	crash_real = real;
}

size_t lj_crash_count(void)
{
	return nrec;
}

const struct lj_crash_rec *lj_crash_get(size_t i)
{
	return i < nrec && stream_fd < 0 ? &recs[i] : NULL;
}

void lj_crash_reset(void)
{
	size_t i;

	for (i = 0; i < nrec && stream_fd < 0; i++)
		ext2fs_free_mem(&recs[i].data);
	ext2fs_free_mem(&recs);
	nrec = cap = 0;
	if (stream_fd >= 0)
		close(stream_fd);
	stream_fd = -1;
}

/* The 12-byte header of a record in the file (see lj_crash_save). */
static void rec_header(unsigned char h[12], uint64_t off, uint32_t len)
{
	int k;

	for (k = 0; k < 8; k++)
		h[k] = (unsigned char)(off >> (8 * k));
	for (k = 0; k < 4; k++)
		h[8 + k] = (unsigned char)(len >> (8 * k));
}

/* One record appended to the stream, header and data in one write. */
static errcode_t stream_rec(uint64_t off, uint32_t len, const void *data)
{
	unsigned char h[12];
	struct iovec v[2];
	ssize_t n;

	rec_header(h, off, len);
	v[0].iov_base = h;
	v[0].iov_len = sizeof(h);
	v[1].iov_base = (void *)data;
	v[1].iov_len = data ? len : 0;
	do
		n = writev(stream_fd, v, 2);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)(sizeof(h) + v[1].iov_len))
		return EXT2_ET_SHORT_WRITE;
	nrec++;
	return 0;
}

errcode_t lj_crash_stream(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		      0644);

	if (fd < 0)
		return errno;
	lj_crash_reset();
	stream_fd = fd;
	free(fail_path);
	fail_path = malloc(strlen(path) + sizeof(".fail"));
	if (fail_path)
		sprintf(fail_path, "%s.fail", path);
	return 0;
}

/* Is the device failing writes now? */
static int failing(void)
{
	return stream_fd >= 0 && fail_path && !access(fail_path, F_OK);
}

static errcode_t add_rec(uint64_t off, uint32_t len, const void *data)
{
	struct lj_crash_rec *r;
	errcode_t err;

	if (stream_fd >= 0)
		return stream_rec(off, len, data);
	err = lj_array_grow(&recs, &cap, nrec + 1, sizeof(*recs));
	if (err)
		return err;
	r = &recs[nrec];
	r->offset = off;
	r->len = len;
	r->data = NULL;
	if (data) {
		err = ext2fs_get_mem(len, &r->data);
		if (err)
			return err;
		memcpy(r->data, data, len);
	}
	nrec++;
	return 0;
}

/* A write of size bytes at off: one record per block of the channel. */
static errcode_t record_write(io_channel ch, uint64_t off, uint64_t size,
			      const void *data)
{
	const unsigned char *p = data;
	uint64_t unit = (uint64_t)ch->block_size;
	errcode_t err = 0;

	while (size && !err) {
		uint64_t n = size < unit ? size : unit;

		err = add_rec(off, (uint32_t)n, p);
		off += n;
		p += n;
		size -= n;
	}
	return err;
}

static errcode_t crash_open(const char *name, int flags, io_channel *ret)
{
	errcode_t err = lj_io_layer_open(lj_crash_io_manager,
					 crash_real ? crash_real :
					 unix_io_manager, name, flags, 0, ret);

	/* Writes are recorded as they are issued: a write-back cache below
	 * would only delay them to the next flush, which the model already
	 * allows; no cache keeps the real device in step with the record. */
	if (!err && (flags & IO_FLAG_RW))
		(void)io_channel_set_options(lj_io_below(*ret), "cache=off");
	return err;
}

static errcode_t crash_write_blk64(io_channel ch, unsigned long long block,
				   int count, const void *data)
{
	uint64_t off, size;
	errcode_t err;

	if (lj_io_request(ch, block, count, &off, &size))
		return EXT2_ET_SHORT_WRITE;
	pthread_mutex_lock(&issue_lock);
	err = failing() ? EIO :
	      io_channel_write_blk64(lj_io_below(ch), block, count, data);
	if (!err)
		err = record_write(ch, off, size, data);
	pthread_mutex_unlock(&issue_lock);
	return err;
}

static errcode_t crash_write_byte(io_channel ch, unsigned long offset,
				  int size, const void *data)
{
	errcode_t err;

	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	pthread_mutex_lock(&issue_lock);
	err = failing() ? EIO :
	      io_channel_write_byte(lj_io_below(ch), offset, size, data);
	if (!err)
		err = add_rec(offset, (uint32_t)size, data);
	pthread_mutex_unlock(&issue_lock);
	return err;
}

static errcode_t crash_flush(io_channel ch)
{
	errcode_t err;

	pthread_mutex_lock(&issue_lock);
	err = failing() ? EIO : io_channel_flush(lj_io_below(ch));
	if (!err)
		err = add_rec(0, 0, NULL);	/* the barrier */
	pthread_mutex_unlock(&issue_lock);
	return err;
}

/* Discard and zeroout: the library never asks for them on a device it
 * writes; refused so that nothing escapes the record. */
static errcode_t crash_discard(io_channel ch EXT2FS_ATTR((unused)),
			       unsigned long long block EXT2FS_ATTR((unused)),
			       unsigned long long count EXT2FS_ATTR((unused)))
{
	return EXT2_ET_UNIMPLEMENTED;
}

static struct struct_io_manager crash_manager =
	LJ_IO_LAYER_MANAGER("Lazy journal crash-recording I/O Manager",
			    crash_open, lj_io_layer_read_blk64,
			    crash_write_blk64, crash_flush, crash_write_byte,
			    crash_discard, crash_discard);

io_manager lj_crash_io_manager = &crash_manager;

/*
 * The record as a file: per record a little-endian u64 offset, u32 length
 * and the data (none for a flush, length 0).
 */
errcode_t lj_crash_save(const char *path)
{
	FILE *f = fopen(path, "wb");
	size_t i;
	int bad = !f;

	if (stream_fd >= 0)	/* the stream is the record */
		bad = 1;
	for (i = 0; i < nrec && !bad; i++) {
		unsigned char h[12];

		rec_header(h, recs[i].offset, recs[i].len);
		bad = fwrite(h, 1, sizeof(h), f) != sizeof(h) ||
		      (recs[i].len &&
		       fwrite(recs[i].data, 1, recs[i].len, f) != recs[i].len);
	}
	if (f && fclose(f))
		bad = 1;
	return bad ? EXT2_ET_SHORT_WRITE : 0;
}
