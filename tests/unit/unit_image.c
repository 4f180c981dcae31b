/*
 * unit_image.c --- scratch images and a tiny jbd2 log writer for the unit
 * tests.  The block formats follow the kernel's
 * Documentation/filesystems/ext4/journal.rst; everything is big-endian.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "crash_io.h"
#include "unit.h"
#include "../progs/test_progs.h"

static char base_dir[256];

const struct ut_fmt ut_fmts[] = {
	{ "1k-32bit-nocsum", "-b 1024 -O ^64bit,^metadata_csum", "8M",
	  0, LJ_FEATURE_INCOMPAT_REVOKE },
	{ "4k-64bit-csum_v3", "-b 4096", "16M",
	  0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT |
	     LJ_FEATURE_INCOMPAT_CSUM_V3 },
	{ "1k-64bit-csum_v2", "-b 1024", "8M",
	  0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT |
	     LJ_FEATURE_INCOMPAT_CSUM_V2 },
	{ "4k-32bit-checksum_v1", "-b 4096 -O ^64bit", "16M",
	  LJ_FEATURE_COMPAT_CHECKSUM, LJ_FEATURE_INCOMPAT_REVOKE },
	{ "1k-32bit-csum_v3", "-b 1024", "8M",
	  0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_CSUM_V3 },
	{ "1k-32bit-csum_v2", "-b 1024 -O ^metadata_csum", "8M",
	  0, LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_CSUM_V2 },
};
const int ut_nfmts = (int)(sizeof(ut_fmts) / sizeof(ut_fmts[0]));

void ut_global_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(base_dir, sizeof(base_dir), "%s/lj-unit-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base_dir)) {
		perror("mkdtemp");
		exit(2);
	}
}

void ut_global_cleanup(void)
{
	char cmd[400];

	if (!base_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base_dir);
}

const char *ut_sbin_dir(void)
{
	const char *s = getenv("E2FSPROGS_SBIN");

	if (s && *s)
		return s;
#ifdef E2FSPROGS_SBIN
	return E2FSPROGS_SBIN;
#else
	return "/sbin";
#endif
}

static void put_be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void put_be64(unsigned char *p, uint64_t v)
{
	lj_put_be32(p, (uint32_t)(v >> 32));
	lj_put_be32(p + 4, (uint32_t)v);
}

ut_img *ut_img_create(const char *opts, const char *size, int lazy)
{
	ut_img *img = calloc(1, sizeof(*img));
	char cmd[1500];
	ext2_filsys fs;
	lj_journal *j;
	errcode_t err;
	uint64_t b, run;
	uint32_t i;

	ck_assert_ptr_nonnull(img);
	if (!base_dir[0])	/* test run outside test_main */
		ut_global_setup();
	snprintf(img->dir, sizeof(img->dir), "%s/imgXXXXXX", base_dir);
	ck_assert_msg(mkdtemp(img->dir) != NULL, "mkdtemp: %s",
		      strerror(errno));
	snprintf(img->path, sizeof(img->path), "%s/img", img->dir);
	snprintf(cmd, sizeof(cmd),
		 "'%s/mke2fs' -q -F -t ext4 -E lazy_itable_init=1,nodiscard "
		 "%s '%s' %s >/dev/null 2>&1", ut_sbin_dir(), opts ? opts : "",
		 img->path, size);
	ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);

	err = ext2fs_open2(img->path, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS,
			   0, 0, unix_io_manager, &fs);
	ck_assert_msg(err == 0, "ext2fs_open2: %ld", (long)err);
	err = lj_journal_open(fs, fs->io, &j);
	ck_assert_msg(err == 0, "lj_journal_open: %ld", (long)err);
	img->bs = fs->blocksize;
	img->fs_blocks = ext2fs_blocks_count(fs->super);
	img->maxlen = j->maxlen;
	img->first = j->first;
	img->pblk = calloc(img->maxlen, sizeof(*img->pblk));
	img->jsb = malloc(img->bs);
	ck_assert_ptr_nonnull(img->pblk);
	ck_assert_ptr_nonnull(img->jsb);
	for (i = 0; i < img->maxlen; i++) {
		img->pblk[i] = lj_journal_pblk(j, i);
		ck_assert_msg(img->pblk[i] != 0, "journal block %u unmapped", i);
	}
	memcpy(img->jsb, j->sb, img->bs);
	memcpy(img->uuid, j->sb + LJ_JSB_UUID, 16);
	lj_journal_close(j);

	/* The highest run of UT_FREE_RUN free blocks. */
	err = ext2fs_read_block_bitmap(fs);
	ck_assert_msg(err == 0, "ext2fs_read_block_bitmap: %ld", (long)err);
	run = 0;
	for (b = img->fs_blocks - 1; b > fs->super->s_first_data_block; b--) {
		if (ext2fs_test_block_bitmap2(fs->block_map, b)) {
			run = 0;
			continue;
		}
		if (++run == UT_FREE_RUN)
			break;
	}
	ck_assert_msg(run == UT_FREE_RUN, "no run of free blocks");
	img->free_blk = b;

	ext2fs_set_feature_journal_needs_recovery(fs->super);
	if (lazy)
		fs->super->s_feature_compat |= LJ_FEATURE_COMPAT_LAZY_JOURNAL;
	ext2fs_mark_super_dirty(fs);
	err = ext2fs_close_free(&fs);
	ck_assert_msg(err == 0, "ext2fs_close: %ld", (long)err);

	img->fd = open(img->path, O_RDWR);
	ck_assert_msg(img->fd >= 0, "open %s: %s", img->path, strerror(errno));
	return img;
}

void ut_img_free(ut_img *img)
{
	char cmd[700];

	if (!img)
		return;
	if (img->fd >= 0)
		close(img->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", img->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", img->dir);
	free(img->pblk);
	free(img->jsb);
	free(img);
}

void ut_write_fsblock(ut_img *img, uint64_t blk, const void *buf)
{
	ck_assert_uint_lt(blk, img->fs_blocks);
	ck_assert_int_eq(pwrite(img->fd, buf, img->bs, (off_t)(blk * img->bs)),
			 (ssize_t)img->bs);
}

void ut_read_fsblock(ut_img *img, uint64_t blk, void *buf)
{
	ck_assert_uint_lt(blk, img->fs_blocks);
	ck_assert_int_eq(pread(img->fd, buf, img->bs, (off_t)(blk * img->bs)),
			 (ssize_t)img->bs);
}

void ut_write_jblock(ut_img *img, uint32_t jblk, const void *buf)
{
	ck_assert_uint_lt(jblk, img->maxlen);
	ut_write_fsblock(img, img->pblk[jblk], buf);
}

void ut_fill(unsigned char *buf, unsigned int bs, uint64_t home,
	     uint32_t tid, uint32_t salt)
{
	lj_test_pattern(buf, bs, home, tid, salt);
	/* Never the jbd2 magic by accident; recognisable in a hex dump. */
	lj_put_be32(buf, 0x55540000U | (tid & 0xFFFFU));
}

/* ------------------------------------------------------------------ */

static int v23(const ut_img *img)
{
	return (img->incompat & (LJ_FEATURE_INCOMPAT_CSUM_V2 |
				 LJ_FEATURE_INCOMPAT_CSUM_V3)) != 0;
}

void ut_jsb_csum(ut_img *img, unsigned char *buf)
{
	uint32_t c;

	memset(buf + LJ_JSB_CHECKSUM, 0, 4);
	if (!v23(img))
		return;
	c = ext2fs_crc32c_le(~0U, buf, LJ_JSB_SIZE);
	lj_put_be32(buf + LJ_JSB_CHECKSUM, c);
}

void ut_jsb_compose(ut_img *img, uint32_t start, uint32_t seq,
		    unsigned char *buf)
{
	memcpy(buf, img->jsb, img->bs);
	lj_put_be32(buf + LJ_HDR_MAGIC, LJ_JBD2_MAGIC);
	lj_put_be32(buf + LJ_HDR_BLOCKTYPE, LJ_BT_SUPERBLOCK_V2);
	lj_put_be32(buf + LJ_JSB_SEQUENCE, seq);
	lj_put_be32(buf + LJ_JSB_START, start);
	lj_put_be32(buf + LJ_JSB_ERRNO, 0);
	lj_put_be32(buf + LJ_JSB_FEATURE_COMPAT, img->compat);
	lj_put_be32(buf + LJ_JSB_FEATURE_INCOMPAT, img->incompat);
	lj_put_be32(buf + LJ_JSB_FEATURE_RO_COMPAT, 0);
	buf[LJ_JSB_CHECKSUM_TYPE] = v23(img) ? LJ_CSUM_TYPE_CRC32C : 0;
	ut_jsb_csum(img, buf);
}

void ut_log_init(ut_writer *w, ut_img *img, uint32_t compat,
		 uint32_t incompat, uint32_t start, uint32_t seq)
{
	unsigned char *buf = malloc(img->bs);

	ck_assert_ptr_nonnull(buf);
	img->compat = compat;
	img->incompat = incompat;
	img->csum_seed = ext2fs_crc32c_le(~0U, img->uuid, 16);
	if (incompat & LJ_FEATURE_INCOMPAT_CSUM_V3)
		img->tag_bytes = 16;
	else
		img->tag_bytes = 8 +
			((incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 4 : 0) +
			((incompat & LJ_FEATURE_INCOMPAT_CSUM_V2) ? 2 : 0);
	img->tail_bytes = v23(img) ? LJ_BLOCK_TAIL_SIZE : 0;
	ut_jsb_compose(img, start, seq, buf);
	ut_write_jblock(img, 0, buf);
	free(buf);
	w->img = img;
	w->blk = start ? start : img->first;
	w->tid = seq;
}

/* Next journal block to write, wrapping at s_maxlen back to s_first. */
static uint32_t next_blk(ut_writer *w)
{
	uint32_t at = w->blk;

	w->blk++;
	if (w->blk >= w->img->maxlen)
		w->blk = w->img->first;
	return at;
}

static void put_hdr(unsigned char *buf, uint32_t type, uint32_t tid)
{
	lj_put_be32(buf + LJ_HDR_MAGIC, LJ_JBD2_MAGIC);
	lj_put_be32(buf + LJ_HDR_BLOCKTYPE, type);
	lj_put_be32(buf + LJ_HDR_SEQUENCE, tid);
}

static void put_tail(ut_img *img, unsigned char *buf, int bad)
{
	unsigned char *tail = buf + img->bs - LJ_BLOCK_TAIL_SIZE;
	uint32_t c;

	if (!v23(img))
		return;
	memset(tail, 0, LJ_BLOCK_TAIL_SIZE);
	c = ext2fs_crc32c_le(img->csum_seed, buf, img->bs);
	lj_put_be32(tail, bad ? c ^ 0x01010101U : c);
}

static uint32_t tag_csum(ut_img *img, const unsigned char *data, uint32_t tid)
{
	unsigned char seq[4];
	uint32_t c;

	lj_put_be32(seq, tid);
	c = ext2fs_crc32c_le(img->csum_seed, seq, 4);
	return ext2fs_crc32c_le(c, data, img->bs);
}

static void write_revoke(ut_writer *w, ut_txn *t)
{
	ut_img *img = w->img;
	unsigned char *buf = calloc(1, img->bs);
	size_t rec = (img->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	size_t off = LJ_REVOKE_HDR_SIZE, i;

	ck_assert_ptr_nonnull(buf);
	put_hdr(buf, LJ_BT_REVOKE, t->tid);
	for (i = 0; i < t->nrevokes; i++) {
		ck_assert_uint_le(off + rec, img->bs - img->tail_bytes);
		if (rec == 8)
			put_be64(buf + off, t->revokes[i]);
		else
			lj_put_be32(buf + off, (uint32_t)t->revokes[i]);
		off += rec;
	}
	lj_put_be32(buf + LJ_REVOKE_COUNT, (t->flags & UT_BAD_REVOKE_COUNT) ?
		    img->bs + 4 : (uint32_t)off);
	put_tail(img, buf, (t->flags & UT_BAD_REVOKE_CSUM) != 0);
	t->revoke_block = next_blk(w);
	ut_write_jblock(img, t->revoke_block, buf);
	free(buf);
}

void ut_log_txn(ut_writer *w, ut_txn *t)
{
	ut_img *img = w->img;
	unsigned int bs = img->bs;
	int b64 = (img->incompat & LJ_FEATURE_INCOMPAT_64BIT) != 0;
	int c3 = (img->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3) != 0;
	int c2 = (img->incompat & LJ_FEATURE_INCOMPAT_CSUM_V2) != 0;
	int v1 = (img->compat & LJ_FEATURE_COMPAT_CHECKSUM) != 0;
	unsigned char *desc = malloc(bs);
	unsigned char *data = malloc((t->nblocks ? t->nblocks : 1) * (size_t)bs);
	unsigned char *cb = calloc(1, bs);
	uint32_t crc = ~0U, start_blk = w->blk;
	size_t i = 0, k;
	int first_desc = 1;

	ck_assert_ptr_nonnull(desc);
	ck_assert_ptr_nonnull(data);
	ck_assert_ptr_nonnull(cb);
	t->tid = w->tid;
	t->first_block = w->blk;
	t->desc_block = t->revoke_block = t->commit_block = 0;

	if (t->nrevokes || (t->flags & UT_BAD_REVOKE_COUNT))
		write_revoke(w, t);

	/* Stored copies: escaped where they begin with the magic. */
	for (k = 0; k < t->nblocks; k++) {
		unsigned char *d = data + k * (size_t)bs;
		ut_block *b = &t->blocks[k];

		if (b->data)
			memcpy(d, b->data, bs);
		else
			ut_fill(d, bs, b->home, t->tid, b->salt);
		b->escaped = lj_be32(d) == LJ_JBD2_MAGIC;
		if (b->escaped)
			memset(d, 0, 4);
		if (!b64)
			ck_assert_uint_lt(b->home, 1ULL << 32);
	}

	while (i < t->nblocks) {
		size_t off = LJ_HDR_SIZE, end = bs - img->tail_bytes;
		size_t first = i, n = 0;
		uint32_t at;

		memset(desc, 0, bs);
		put_hdr(desc, LJ_BT_DESCRIPTOR, t->tid);
		while (i < t->nblocks) {
			ut_block *b = &t->blocks[i];
			const unsigned char *d = data + i * (size_t)bs;
			unsigned char *tag = desc + off;
			size_t need = img->tag_bytes + (n == 0 ? 16 : 0);
			uint16_t flags = 0;
			uint32_t c = tag_csum(img, d, t->tid);

			if (off + need > end)
				break;
			if (b->bad_csum)
				c ^= 0x5A5A5A5AU;
			if (n)
				flags |= LJ_FLAG_SAME_UUID;
			if (b->escaped)
				flags |= LJ_FLAG_ESCAPE;
			if (i + 1 == t->nblocks ||
			    off + need + img->tag_bytes > end)
				flags |= LJ_FLAG_LAST_TAG;
			lj_put_be32(tag + LJ_TAG_BLOCKNR, (uint32_t)b->home);
			if (c3) {
				lj_put_be32(tag + 4, flags);
				lj_put_be32(tag + LJ_TAG3_BLOCKNR_HIGH,
					    (uint32_t)(b->home >> 32));
				lj_put_be32(tag + LJ_TAG3_CSUM32, c);
			} else {
				if (c2)
					put_be16(tag + LJ_TAG_CSUM16,
						 (uint16_t)c);
				put_be16(tag + LJ_TAG_FLAGS16, flags);
				if (b64)
					lj_put_be32(tag + LJ_TAG_BLOCKNR_HIGH,
						    (uint32_t)(b->home >> 32));
			}
			off += img->tag_bytes;
			if (n == 0) {
				memcpy(desc + off, img->uuid, 16);
				off += 16;
			}
			n++;
			i++;
			if (flags & LJ_FLAG_LAST_TAG)
				break;
		}
		ck_assert_uint_gt(n, 0);
		put_tail(img, desc, first_desc &&
			 (t->flags & UT_BAD_DESC_CSUM));
		at = next_blk(w);
		if (first_desc)
			t->desc_block = at;
		first_desc = 0;
		ut_write_jblock(img, at, desc);
		crc = ext2fs_crc32_be(crc, desc, bs);
		for (k = first; k < first + n; k++) {
			const unsigned char *d = data + k * (size_t)bs;

			t->blocks[k].jblock = next_blk(w);
			ut_write_jblock(img, t->blocks[k].jblock, d);
			crc = ext2fs_crc32_be(crc, d, bs);
		}
	}

	if (!(t->flags & UT_NO_COMMIT)) {
		put_hdr(cb, LJ_BT_COMMIT, t->tid);
		put_be64(cb + LJ_COMMIT_SEC, t->commit_sec);
		lj_put_be32(cb + LJ_COMMIT_NSEC, 1000U * t->tid);
		if (v1) {
			cb[LJ_COMMIT_CSUM_TYPE] = LJ_CRC32_CHKSUM;
			cb[LJ_COMMIT_CSUM_SIZE] = LJ_CRC32_CHKSUM_SIZE;
			lj_put_be32(cb + LJ_COMMIT_CSUM, crc);
		} else if (v23(img)) {
			lj_put_be32(cb + LJ_COMMIT_CSUM,
				    ext2fs_crc32c_le(img->csum_seed, cb, bs));
		}
		if (t->flags & UT_BAD_COMMIT_CSUM)
			lj_put_be32(cb + LJ_COMMIT_CSUM,
				    lj_be32(cb + LJ_COMMIT_CSUM) ^ 0x00FF00FFU);
		t->commit_block = next_blk(w);
		ut_write_jblock(img, t->commit_block, cb);
	}
	t->nblocks_used = w->blk >= start_blk ? w->blk - start_blk :
		(img->maxlen - start_blk) + (w->blk - img->first);
	w->tid++;
	free(desc);
	free(data);
	free(cb);
}

/* ------------------------------------------------------------------ */

errcode_t ut_try_open_journal(ut_img *img, ut_open *o)
{
	errcode_t err;

	o->fs = NULL;
	o->j = NULL;
	err = ext2fs_open2(img->path, NULL, EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &o->fs);
	if (err)
		return err;
	err = lj_journal_open(o->fs, o->fs->io, &o->j);
	if (err)
		ext2fs_close_free(&o->fs);
	return err;
}

void ut_open_journal(ut_img *img, ut_open *o)
{
	errcode_t err = ut_try_open_journal(img, o);

	ck_assert_msg(err == 0, "opening the journal: %ld", (long)err);
}

void ut_close_journal(ut_open *o)
{
	lj_journal_close(o->j);
	o->j = NULL;
	if (o->fs)
		ext2fs_close_free(&o->fs);
}

lj_log *ut_scan(ut_open *o, int flags)
{
	lj_log *log = NULL;
	errcode_t err = lj_log_scan(o->j, flags, &log);

	ck_assert_msg(err == 0, "lj_log_scan: %ld", (long)err);
	ck_assert_ptr_nonnull(log);
	return log;
}

lj_jmap *ut_jmap(ut_open *o, int scan_flags, int jmap_flags)
{
	lj_jmap *m = NULL;
	errcode_t err = lj_jmap_build(ut_scan(o, scan_flags), jmap_flags, &m);

	ck_assert_msg(err == 0, "lj_jmap_build: %ld", (long)err);
	ck_assert_ptr_nonnull(m);
	return m;
}

int ut_copy_file(const char *from, const char *to)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "cp --sparse=always '%s' '%s'", from, to);
	return system(cmd) ? -1 : 0;
}

/*
 * The crash of a process right after its Nth device write, on the crash
 * model: in a child, fn(arg) runs on work (a copy of orig) with
 * lj_crash_io_manager under the library; then work is made orig again
 * plus the first n writes recorded (one per block, flushes skipped).
 * 99 when fn wrote at least n blocks (it "crashed"), 0 when it wrote
 * fewer (it finished, work is its result), anything else: fn failed.
 */
int ut_run_crashing(const char *orig, const char *work, long n,
		    int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t i, writes = 0;
		int fd;

		lj_crash_reset();
		lj_io_set_base(lj_crash_io_manager);
		if (fn(arg))
			_exit(3);
		lj_io_set_base(NULL);
		for (i = 0; i < lj_crash_count(); i++)
			writes += lj_crash_get(i)->len != 0;
		if ((long)writes < n)
			_exit(0);
		if (ut_copy_file(orig, work))
			_exit(4);
		fd = open(work, O_WRONLY);
		if (fd < 0)
			_exit(4);
		for (i = 0, writes = 0; (long)writes < n; i++) {
			const struct lj_crash_rec *r = lj_crash_get(i);

			if (!r->len)
				continue;
			if (pwrite(fd, r->data, r->len, (off_t)r->offset) !=
			    (ssize_t)r->len)
				_exit(4);
			writes++;
		}
		_exit(close(fd) ? 4 : 99);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}
