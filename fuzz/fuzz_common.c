/*
 * fuzz_common.c --- templates and an in-memory io_manager for the fuzz
 * targets (see fuzz_common.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "lazy_journal.h"
#include "base_io.h"
#include "fuzz_common.h"

#ifndef E2FSPROGS_SBIN
#define E2FSPROGS_SBIN "/usr/sbin"
#endif
#ifndef LJ_FUZZ_SRCDIR
#define LJ_FUZZ_SRCDIR "."
#endif

static struct fz_template templates[2] = {
	{ .kind = "1k", .bs = 1024, .fd = -1 },
	{ .kind = "4k", .bs = 4096, .fd = -1 },
};
static struct fz_template *mem_sel;
int fz_verbose;

void fz_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "INVARIANT VIOLATED: %s (%s:%d)\n", what, file, line);
	abort();
}

static void die(const char *what)
{
	perror(what);
	abort();
}

/* ---------------- in-memory io manager ---------------- */

struct mem_priv { struct fz_template *t; struct struct_io_stats stats; };

static errcode_t mem_open(const char *name, int flags, io_channel *ret)
{
	io_channel io;
	struct mem_priv *p;
	errcode_t err;

	(void)flags;
	if (!mem_sel)
		return EXT2_ET_BAD_DEVICE_NAME;
	err = lj_io_channel_new(fz_mem_io_manager, name ? name : "mem",
				sizeof(*p), &io);
	if (err)
		return err;
	p = io->private_data;
	p->t = mem_sel;
	p->stats.num_fields = 2;
	*ret = io;
	return 0;
}

static errcode_t mem_close(io_channel io)
{
	if (--io->refcount > 0)
		return 0;
	lj_io_channel_free(io);
	return 0;
}

static errcode_t mem_read64(io_channel io, unsigned long long blk, int count,
			    void *buf)
{
	struct mem_priv *p = io->private_data;
	uint64_t len, off = UINT64_MAX;

	if (lj_io_request(io, blk, count, &off, &len) ||
	    off > p->t->size || len > p->t->size - off) {
		/* like unix_io: what exists, zeros after, short read */
		if (off < p->t->size) {
			memcpy(buf, p->t->work + off, p->t->size - off);
			memset((char *)buf + (p->t->size - off), 0,
			       len - (p->t->size - off));
		} else {
			memset(buf, 0, len);
		}
		return EXT2_ET_SHORT_READ;
	}
	memcpy(buf, p->t->work + off, len);
	p->stats.bytes_read += len;
	return 0;
}

static errcode_t mem_write64(io_channel io, unsigned long long blk, int count,
			     const void *buf)
{
	(void)io; (void)blk; (void)count; (void)buf;
	fz_fail("write through the fuzz memory channel", __FILE__, __LINE__);
}

static errcode_t mem_flush(io_channel io)
{
	(void)io;
	return 0;
}

static errcode_t mem_get_stats(io_channel io, io_stats *stats)
{
	*stats = &((struct mem_priv *)io->private_data)->stats;
	return 0;
}

static struct struct_io_manager mem_manager =
	LJ_IO_MANAGER("lj fuzz memory I/O manager", mem_open, mem_close,
		      lj_io_set_blksize, mem_read64, mem_write64, mem_flush,
		      NULL, NULL, mem_get_stats, NULL, NULL);
io_manager fz_mem_io_manager = &mem_manager;

void fz_mem_select(struct fz_template *t)
{
	mem_sel = t;
}

/* ---------------- templates ---------------- */

static const char *tmpdir(void)
{
	const char *d = getenv("LJ_FUZZ_TMPDIR");

	return d && *d ? d : "/dev/shm";
}

static void cleanup(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (templates[i].path[0])
			unlink(templates[i].path);
}

static void make_template(struct fz_template *t)
{
	char cmd[1024];
	ext2_filsys fs;
	struct stat st;
	errcode_t err;
	uint32_t i;
	int fd;

	snprintf(t->path, sizeof(t->path), "%s/ljfuzz-%d-%s.img", tmpdir(),
		 (int)getpid(), t->kind);
	snprintf(cmd, sizeof(cmd), "E2FSPROGS_SBIN='%s' '%s/fuzz/mktemplate.sh' "
		 "'%s' %s", E2FSPROGS_SBIN, LJ_FUZZ_SRCDIR, t->path, t->kind);
	if (system(cmd) != 0) {
		fprintf(stderr, "fuzz: %s failed\n", cmd);
		abort();
	}
	/* lazy_journal + needs_recovery, as on a mounted lazy fs */
	err = ext2fs_open2(t->path, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &fs);
	if (err) {
		fprintf(stderr, "fuzz: open %s: %s\n", t->path,
			error_message(err));
		abort();
	}
	fs->super->s_feature_compat |= LJ_FEATURE_COMPAT_LAZY_JOURNAL;
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	ext2fs_mark_super_dirty(fs);
	{
		struct ext2_inode ino;

		if (ext2fs_read_inode(fs, EXT2_JOURNAL_INO, &ino))
			abort();
		t->jblocks = (uint32_t)(EXT2_I_SIZE(&ino) / fs->blocksize);
	}
	t->jpblk = calloc(t->jblocks, sizeof(*t->jpblk));
	if (!t->jpblk)
		abort();
	for (i = 0; i < t->jblocks; i++)
		if (ext2fs_bmap2(fs, EXT2_JOURNAL_INO, NULL, NULL, 0, i, NULL,
				 &t->jpblk[i]) || !t->jpblk[i])
			abort();
	if (ext2fs_close_free(&fs))
		abort();

	fd = open(t->path, O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		die(t->path);
	t->size = (size_t)st.st_size;
	t->img = malloc(t->size);
	t->work = malloc(t->size);
	if (!t->img || !t->work)
		abort();
	if (pread(fd, t->img, t->size, 0) != (ssize_t)t->size)
		die("pread");
	memcpy(t->work, t->img, t->size);
	t->fd = fd;

	fz_mem_select(t);
	err = ext2fs_open2("mem", NULL, EXT2_FLAG_64BITS, 0, 0,
			   fz_mem_io_manager, &t->fs);
	if (err) {
		fprintf(stderr, "fuzz: open mem %s: %s\n", t->kind,
			error_message(err));
		abort();
	}
}

void fz_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	fz_verbose = getenv("LJ_FUZZ_VERBOSE") != NULL;
	initialize_ljrn_error_table();
	atexit(cleanup);
	make_template(&templates[0]);
	make_template(&templates[1]);
}

struct fz_template *fz_template(int i)
{
	return &templates[i & 1];
}

struct fz_template *fz_pick(const uint8_t *data, size_t size)
{
	if (size >= 16 && lj_be32(data + LJ_JSB_BLOCKSIZE) == 4096)
		return &templates[1];
	return &templates[0];
}

static void put_block(struct fz_template *t, uint32_t jblk,
		      const unsigned char *src, int to_file)
{
	size_t off = (size_t)t->jpblk[jblk] * t->bs;

	memcpy(t->work + off, src, t->bs);
	if (to_file && pwrite(t->fd, src, t->bs, (off_t)off) != (ssize_t)t->bs)
		die("pwrite");
}

/*
 * Checksum fix-up.  When bit 0 of byte 0x3FF of the journal superblock is
 * set (the end of s_users, which jbd2 ignores for an internal journal),
 * every descriptor/revoke block tail, commit checksum (v2/v3) and finally
 * the journal superblock checksum are recomputed, so mutations get past
 * crc32c and reach the logic behind it.  Data-tag checksums are left as
 * they are (a bad one only skips that block).  Inputs without the bit are
 * used as they are, which keeps the checksum-failure paths covered.
 */
#define FZ_FIXUP_BYTE	0x3FF

static void fixup_csums(unsigned char *area, uint32_t n, unsigned int bs)
{
	uint32_t incompat, seed, i;
	unsigned char *sb = area;

	if (!n || bs < LJ_JSB_SIZE || !(sb[FZ_FIXUP_BYTE] & 1))
		return;
	incompat = lj_be32(sb + LJ_JSB_FEATURE_INCOMPAT);
	if (!(incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
			  LJ_FEATURE_INCOMPAT_CSUM_V3)))
		return;
	seed = ext2fs_crc32c_le(~0U, sb + LJ_JSB_UUID, 16);
	for (i = 1; i < n; i++) {
		unsigned char *b = area + (size_t)i * bs;
		uint32_t type = lj_be32(b + LJ_HDR_BLOCKTYPE);
		unsigned char *f;

		if (lj_be32(b + LJ_HDR_MAGIC) != LJ_JBD2_MAGIC)
			continue;
		if (type == LJ_BT_DESCRIPTOR || type == LJ_BT_REVOKE)
			f = b + bs - LJ_BLOCK_TAIL_SIZE;
		else if (type == LJ_BT_COMMIT)
			f = b + LJ_COMMIT_CSUM;
		else
			continue;
		memset(f, 0, 4);
		lj_put_be32(f, ext2fs_crc32c_le(seed, b, bs));
	}
	sb[LJ_JSB_CHECKSUM_TYPE] = LJ_CSUM_TYPE_CRC32C;
	memset(sb + LJ_JSB_CHECKSUM, 0, 4);
	lj_put_be32(sb + LJ_JSB_CHECKSUM, ext2fs_crc32c_le(~0U, sb, LJ_JSB_SIZE));
}

void fz_load(struct fz_template *t, const uint8_t *data, size_t size,
	     int to_file)
{
	uint32_t n = (uint32_t)((size + t->bs - 1) / t->bs), i;
	unsigned char *area;

	if (n > t->jblocks)
		n = t->jblocks;
	area = malloc(((size_t)n + 1) * t->bs);
	if (!area)
		abort();
	for (i = 0; i < n; i++) {
		size_t off = (size_t)i * t->bs;
		size_t len = size - off < t->bs ? size - off : t->bs;
		unsigned char *blk = area + off;

		memcpy(blk, t->img + (size_t)t->jpblk[i] * t->bs, t->bs);
		memcpy(blk, data + off, len);
	}
	fixup_csums(area, n, t->bs);
	for (i = 0; i < n; i++)
		put_block(t, i, area + (size_t)i * t->bs, to_file);
	for (; i < t->dirty; i++)	/* restore the previous input's tail */
		put_block(t, i, t->img + (size_t)t->jpblk[i] * t->bs, to_file);
	t->dirty = n;
	free(area);
}
