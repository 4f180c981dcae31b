/*
 * fuse2fs/quota.c --- quota usage kept as ext4 keeps it with the quota
 * feature: space (i_blocks, in bytes) and inodes per user, group and
 * project id, in the quota files named by the superblock
 * (s_usr_quota_inum, s_grp_quota_inum, s_prj_quota_inum).
 *
 *  - Every inode write passes libext2fs's write_inode hook (inode.c's,
 *    which calls fs_quota_written): the usage of the inode as last
 *    written is taken from its ids and that of the new one given to its
 *    (new) ids, so chown and chgrp move usage and every
 *    allocation, unlink or free libext2fs makes is counted whoever makes
 *    it.  An inode counts from its first link (an allocation) until
 *    free_inode (fuse2fs/orphan.c) frees it, orphans included, as the
 *    kernel counts from ext4's new inode to its evict.
 *  - The changes are summed per id in memory and written into the quota
 *    files by fs_quota_flush, from fs_commit_now before libext2fs's own
 *    flush: through the channel as metadata, in the same transaction as
 *    the inodes they count.
 *  - Limits are kept as they are and not enforced: the kernel's ext4 with
 *    the quota feature only accounts until quotaon turns enforcement on,
 *    which a FUSE server cannot be asked for.
 *
 * The file format (QFMT_VFS_V1, the kernel's quota tree): 1 KiB blocks;
 * block 0 holds the header (magic, version) and the info (grace times,
 * flags, the file's length in blocks, the first free block, the first
 * data block with a free entry); block 1 is the root of a tree of four
 * levels of 256 block references, indexed by the id's bytes from the
 * highest; the last level's reference is a data block: a 16-byte header
 * (next and previous block with a free entry, entries in use) and 14
 * entries of 72 bytes (id, limits, usage, grace times).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "server.h"

#define QF_BLOCK	1024
#define QF_DEPTH	4
#define QF_ROOT		1
#define QF_DATA_HDR	16
#define QF_ENTRY	72
#define QF_PER_BLOCK	((QF_BLOCK - QF_DATA_HDR) / QF_ENTRY)
#define QF_VERSION	1
#define QF_USR		0	/* the types, as the kernel numbers them */
#define QF_GRP		1
#define QF_PRJ		2

/* Block 0: the header and the info. */
#define H_MAGIC		0
#define H_VERSION	4
#define H_BLOCKS	20
#define H_FREE_BLK	24
#define H_FREE_ENTRY	28
/* A data block's header. */
#define D_NEXT		0
#define D_PREV		4
#define D_ENTRIES	8
/* An entry. */
#define E_ID		0
#define E_INODES	24
#define E_SPACE		48
#define E_ITIME		64

static const __u32 qf_magic[3] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };
static const char *const qf_name[3] = { "user", "group", "project" };

struct fs_qf_delta {
	__u32 id;
	long long space, inodes;
};

/* One quota file open for a flush. */
struct qf_file {
	ext2_file_t f;
	unsigned char hdr[QF_BLOCK];
	__u32 blocks, free_blk, free_entry;
};

static __u32 get32(const unsigned char *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

static void put32(unsigned char *p, __u32 v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static unsigned long long get64(const unsigned char *p)
{
	return get32(p) | (unsigned long long)get32(p + 4) << 32;
}

static void put64(unsigned char *p, unsigned long long v)
{
	put32(p, (__u32)v);
	put32(p + 4, (__u32)(v >> 32));
}

static int all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* The quota file, in 1 KiB blocks                                     */

static errcode_t qf_read(struct qf_file *q, __u32 blk, unsigned char *b)
{
	unsigned int got = 0;
	errcode_t err;

	memset(b, 0, QF_BLOCK);
	err = ext2fs_file_llseek(q->f, (__u64)blk * QF_BLOCK, EXT2_SEEK_SET,
				 NULL);
	if (!err)	/* past the end: zeros */
		err = ext2fs_file_read(q->f, b, QF_BLOCK, &got);
	return err;
}

static errcode_t qf_write(struct qf_file *q, __u32 blk,
			  const unsigned char *b)
{
	unsigned int done = 0;
	errcode_t err;

	err = ext2fs_file_llseek(q->f, (__u64)blk * QF_BLOCK, EXT2_SEEK_SET,
				 NULL);
	if (!err)
		err = ext2fs_file_write(q->f, b, QF_BLOCK, &done);
	if (!err && done != QF_BLOCK)
		err = EXT2_ET_SHORT_WRITE;
	return err;
}

static errcode_t qf_open(struct fs_server *srv, int type, struct qf_file *q)
{
	ext2_filsys fs = srv->fs;
	errcode_t err;

	memset(q, 0, sizeof(*q));
	err = ext2fs_file_open(fs, srv->quota[type].ino, EXT2_FILE_WRITE,
			       &q->f);
	if (!err)
		err = qf_read(q, 0, q->hdr);
	if (!err && (get32(q->hdr + H_MAGIC) != qf_magic[type] ||
		     get32(q->hdr + H_VERSION) != QF_VERSION ||
		     get32(q->hdr + H_BLOCKS) <= QF_ROOT))
		err = EXT2_ET_FILESYSTEM_CORRUPTED;
	q->blocks = get32(q->hdr + H_BLOCKS);
	q->free_blk = get32(q->hdr + H_FREE_BLK);
	q->free_entry = get32(q->hdr + H_FREE_ENTRY);
	if (err && q->f) {
		ext2fs_file_close(q->f);
		q->f = NULL;
	}
	return err;
}

/* The info written back when it changed; the file closed. */
static errcode_t qf_close(struct qf_file *q, errcode_t err)
{
	errcode_t err2;

	if (!err && (q->blocks != get32(q->hdr + H_BLOCKS) ||
		     q->free_blk != get32(q->hdr + H_FREE_BLK) ||
		     q->free_entry != get32(q->hdr + H_FREE_ENTRY))) {
		put32(q->hdr + H_BLOCKS, q->blocks);
		put32(q->hdr + H_FREE_BLK, q->free_blk);
		put32(q->hdr + H_FREE_ENTRY, q->free_entry);
		err = qf_write(q, 0, q->hdr);
	}
	err2 = ext2fs_file_close(q->f);
	return err ? err : err2;
}

/* A zeroed block: the first on the free list, else one more. */
static errcode_t qf_new_block(struct qf_file *q, __u32 *blk,
			      unsigned char *b)
{
	errcode_t err;

	if (q->free_blk) {
		*blk = q->free_blk;
		err = qf_read(q, *blk, b);
		if (err)
			return err;
		q->free_blk = get32(b + D_NEXT);
	} else {
		*blk = q->blocks++;
	}
	memset(b, 0, QF_BLOCK);
	return qf_write(q, *blk, b);
}

/* Data block b off the list of data blocks with a free entry. */
static errcode_t qf_list_remove(struct qf_file *q, unsigned char *b)
{
	unsigned char nb[QF_BLOCK];
	__u32 next = get32(b + D_NEXT), prev = get32(b + D_PREV);
	errcode_t err = 0;

	if (next) {
		err = qf_read(q, next, nb);
		put32(nb + D_PREV, prev);
		if (!err)
			err = qf_write(q, next, nb);
	}
	if (prev && !err) {
		err = qf_read(q, prev, nb);
		put32(nb + D_NEXT, next);
		if (!err)
			err = qf_write(q, prev, nb);
	} else if (!prev) {
		q->free_entry = next;
	}
	put32(b + D_NEXT, 0);
	put32(b + D_PREV, 0);
	return err;
}

/* Data block blk (b) first on the list of blocks with a free entry. */
static errcode_t qf_list_insert(struct qf_file *q, __u32 blk,
				unsigned char *b)
{
	unsigned char nb[QF_BLOCK];
	errcode_t err = 0;

	put32(b + D_NEXT, q->free_entry);
	put32(b + D_PREV, 0);
	if (q->free_entry) {
		err = qf_read(q, q->free_entry, nb);
		put32(nb + D_PREV, blk);
		if (!err)
			err = qf_write(q, q->free_entry, nb);
	}
	q->free_entry = blk;
	return err;
}

/* Block blk, empty now, first on the free list. */
static errcode_t qf_free_block(struct qf_file *q, __u32 blk)
{
	unsigned char b[QF_BLOCK];

	memset(b, 0, QF_BLOCK);
	put32(b + D_NEXT, q->free_blk);
	q->free_blk = blk;
	return qf_write(q, blk, b);
}

static unsigned int entries(const unsigned char *b)
{
	return (unsigned int)(b[D_ENTRIES] | b[D_ENTRIES + 1] << 8);
}

static void set_entries(unsigned char *b, unsigned int n)
{
	b[D_ENTRIES] = n & 0xff;
	b[D_ENTRIES + 1] = (unsigned char)(n >> 8);
}

/* A new entry for id in a data block with room: *blk. */
static errcode_t qf_new_entry(struct qf_file *q, __u32 id, __u32 *blk)
{
	unsigned char b[QF_BLOCK], *e;
	unsigned int n, i;
	errcode_t err;

	if (q->free_entry) {
		*blk = q->free_entry;
		err = qf_read(q, *blk, b);
	} else {	/* the list was empty: the new block is all of it */
		err = qf_new_block(q, blk, b);
		q->free_entry = *blk;
	}
	if (err)
		return err;
	n = entries(b) + 1;
	if (n > QF_PER_BLOCK)
		return EXT2_ET_FILESYSTEM_CORRUPTED;
	set_entries(b, n);
	if (n == QF_PER_BLOCK) {
		err = qf_list_remove(q, b);
		if (err)
			return err;
	}
	for (i = 0; i < QF_PER_BLOCK; i++) {
		e = b + QF_DATA_HDR + i * QF_ENTRY;
		if (all_zero(e, QF_ENTRY))
			break;
	}
	if (i == QF_PER_BLOCK)
		return EXT2_ET_FILESYSTEM_CORRUPTED;
	put32(e + E_ID, id);
	/* An entry of all zeros reads as unused: id 0 with nothing counted
	 * is told apart by an itime of 1, as the kernel writes it. */
	if (!id)
		put64(e + E_ITIME, 1);
	return qf_write(q, *blk, b);
}

/* Where id's entry is: the tree blocks walked, the data block, the slot. */
struct qf_pos {
	__u32 tree[QF_DEPTH];
	unsigned int idx[QF_DEPTH];
	__u32 data;
	unsigned int slot;
};

static __u64 qf_off(const struct qf_pos *p)
{
	return (__u64)p->data * QF_BLOCK + QF_DATA_HDR + p->slot * QF_ENTRY;
}

/* id's entry, made when create and missing (p->data 0: none). */
static errcode_t qf_find(struct qf_file *q, __u32 id, int create,
			 struct qf_pos *p)
{
	unsigned char b[QF_BLOCK], nb[QF_BLOCK];
	__u32 blk = QF_ROOT, ref;
	unsigned int depth, i;
	errcode_t err;

	memset(p, 0, sizeof(*p));
	for (depth = 0; depth < QF_DEPTH; depth++) {
		unsigned int idx = (id >> (8 * (QF_DEPTH - 1 - depth))) & 0xff;

		p->tree[depth] = blk;
		p->idx[depth] = idx;
		err = qf_read(q, blk, b);
		if (err)
			return err;
		ref = get32(b + 4 * idx);
		if (!ref && !create)
			return 0;
		if (!ref) {
			err = depth == QF_DEPTH - 1 ?
				qf_new_entry(q, id, &ref) :
				qf_new_block(q, &ref, nb);
			if (!err) {
				put32(b + 4 * idx, ref);
				err = qf_write(q, blk, b);
			}
			if (err)
				return err;
		}
		if (ref <= QF_ROOT || ref >= q->blocks)
			return EXT2_ET_FILESYSTEM_CORRUPTED;
		blk = ref;
	}
	err = qf_read(q, blk, b);
	if (err)
		return err;
	for (i = 0; i < QF_PER_BLOCK; i++) {
		const unsigned char *e = b + QF_DATA_HDR + i * QF_ENTRY;

		if (get32(e + E_ID) == id && !all_zero(e, QF_ENTRY)) {
			p->data = blk;
			p->slot = i;
			return 0;
		}
	}
	return EXT2_ET_FILESYSTEM_CORRUPTED;
}

/*
 * The entry at p removed, as the kernel removes one with nothing counted
 * and no limit when it lets the dquot go: its reference cleared, a data
 * block left empty freed, then every tree block (the root aside) left
 * with no reference.
 */
static errcode_t qf_remove(struct qf_file *q, const struct qf_pos *p)
{
	unsigned char b[QF_BLOCK];
	unsigned int n, depth;
	errcode_t err = qf_read(q, p->data, b);

	if (err)
		return err;
	n = entries(b);
	if (!n)
		return EXT2_ET_FILESYSTEM_CORRUPTED;
	memset(b + QF_DATA_HDR + p->slot * QF_ENTRY, 0, QF_ENTRY);
	set_entries(b, n - 1);
	if (n == QF_PER_BLOCK)	/* room again */
		err = qf_list_insert(q, p->data, b);
	else if (n == 1)	/* empty */
		err = qf_list_remove(q, b);
	if (!err)
		err = n == 1 ? qf_free_block(q, p->data) :
			       qf_write(q, p->data, b);
	for (depth = QF_DEPTH; depth-- > 0 && !err; ) {
		err = qf_read(q, p->tree[depth], b);
		if (err)
			break;
		put32(b + 4 * p->idx[depth], 0);
		if (p->tree[depth] == QF_ROOT || !all_zero(b, QF_BLOCK))
			return qf_write(q, p->tree[depth], b);
		err = qf_free_block(q, p->tree[depth]);
	}
	return err;
}

static unsigned long long add_clamped(unsigned long long v, long long d)
{
	if (d < 0 && (unsigned long long)-d > v)
		return 0;	/* as the kernel: never below zero */
	return v + (unsigned long long)d;
}

static errcode_t qf_apply(struct qf_file *q, const struct fs_qf_delta *d)
{
	unsigned char e[QF_ENTRY];
	unsigned int got = 0;
	struct qf_pos p;
	errcode_t err = qf_find(q, d->id, 1, &p);

	if (!err)
		err = ext2fs_file_llseek(q->f, qf_off(&p), EXT2_SEEK_SET, NULL);
	if (!err)
		err = ext2fs_file_read(q->f, e, QF_ENTRY, &got);
	if (!err && got != QF_ENTRY)
		err = EXT2_ET_SHORT_READ;
	if (err)
		return err;
	put64(e + E_SPACE, add_clamped(get64(e + E_SPACE), d->space));
	put64(e + E_INODES, add_clamped(get64(e + E_INODES), d->inodes));
	/* nothing counted, no limit (the four after the id) */
	if (!get64(e + E_SPACE) && !get64(e + E_INODES) &&
	    all_zero(e + 8, E_INODES - 8) &&
	    all_zero(e + E_INODES + 8, E_SPACE - E_INODES - 8))
		return qf_remove(q, &p);
	/* id 0's itime of 1 only marks an entry with nothing else set */
	if (!d->id && get64(e + E_ITIME) == 1)
		put64(e + E_ITIME, 0);
	err = ext2fs_file_llseek(q->f, qf_off(&p), EXT2_SEEK_SET, NULL);
	if (!err)
		err = ext2fs_file_write(q->f, e, QF_ENTRY, &got);
	return err;
}

/* ------------------------------------------------------------------ */
/* Usage changes, summed per id                                        */

static void add(struct fs_server *srv, int type, __u32 id, long long space,
		long long inodes)
{
	struct fs_quota_type *t = &srv->quota[type];
	size_t i;

	if (!t->ino || (!space && !inodes))
		return;
	for (i = 0; i < t->n && t->d[i].id != id; i++)
		;
	if (i == t->n) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16;
			struct fs_qf_delta *d = realloc(t->d, cap * sizeof(*d));

			if (!d) {
				com_err("fuse2fs", EXT2_ET_NO_MEMORY,
					"while counting %s quota",
					qf_name[type]);
				return;
			}
			t->d = d;
			t->cap = cap;
		}
		memset(&t->d[t->n++], 0, sizeof(*t->d));
		t->d[i].id = id;
	}
	t->d[i].space += space;
	t->d[i].inodes += inodes;
}

static void move(struct fs_server *srv, int type, __u32 from, __u32 to,
		 long long space_from,
		 long long space_to, int inodes_from, int inodes_to)
{
	if (from == to) {
		add(srv, type, to, space_to - space_from,
		    inodes_to - inodes_from);
	} else {
		add(srv, type, from, -space_from, -inodes_from);
		add(srv, type, to, space_to, inodes_to);
	}
}

/* Inodes ext4 does not count: the reserved ones but the root, the
 * quota files, the orphan file. */
static int counted_ino(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_super_block *sb = fs->super;

	if (ino != EXT2_ROOT_INO && ino < EXT2_FIRST_INODE(sb))
		return 0;
	return ino != sb->s_usr_quota_inum && ino != sb->s_grp_quota_inum &&
	       ino != sb->s_prj_quota_inum && ino != sb->s_orphan_file_inum;
}

static __u32 projid(ext2_filsys fs, const struct ext2_inode_large *in)
{
	return fs_has_projid(fs, in) ? in->i_projid : 0;
}

/*
 * libext2fs's write_inode hook, before every inode write.  The buffer
 * may be only the 128-byte inode (ext2fs_write_inode, libext2fs's own
 * writes): then the project id is the old inode's (only the server's
 * fs_write_inode, which writes whole inodes, sets or changes one).
 */
errcode_t fs_quota_written(struct fs_server *srv, ext2_ino_t ino,
			   struct ext2_inode *in)
{
	ext2_filsys fs = srv->fs;
	struct ext2_inode_large old;
	long long s_old, s_new;
	int alloc, i_old, i_new;

	if (!srv->quota_on || !counted_ino(fs, ino))
		return EXT2_ET_CALLBACK_NOTHANDLED;
	if (ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)&old,
				   sizeof(old)))
		memset(&old, 0, sizeof(old));
	/* a first link: a free inode allocated (orphans are never linked
	 * again), whatever a former life left in it */
	alloc = !old.i_links_count && in->i_links_count;
	if (alloc)
		memset(&old, 0, sizeof(old));
	s_old = (long long)ext2fs_get_stat_i_blocks(fs,
				(struct ext2_inode *)&old) * 512;
	s_new = (long long)ext2fs_get_stat_i_blocks(fs, in) * 512;
	i_old = !alloc;
	i_new = ino != srv->cur.freeing;
	if (!i_new)
		srv->cur.freeing = 0;
	move(srv, QF_USR, inode_uid(old), inode_uid(*in), s_old, s_new,
	     i_old, i_new);
	move(srv, QF_GRP, inode_gid(old), inode_gid(*in), s_old, s_new,
	     i_old, i_new);
	move(srv, QF_PRJ, projid(fs, &old),
	     projid(fs, in == srv->cur.whole ?
			(const struct ext2_inode_large *)in : &old),
	     s_old, s_new, i_old, i_new);
	return EXT2_ET_CALLBACK_NOTHANDLED;
}

void fs_quota_whole(struct fs_server *srv, const struct ext2_inode *in)
{
	srv->cur.whole = in;
}

void fs_quota_freeing(struct fs_server *srv, ext2_ino_t ino)
{
	srv->cur.freeing = ino;
}

errcode_t fs_quota_flush(struct fs_server *srv)
{
	errcode_t err = 0;
	int type;

	for (type = 0; type < 3 && !err; type++) {
		struct fs_quota_type *t = &srv->quota[type];
		struct qf_file q;
		size_t i;

		if (!t->n)
			continue;
		err = qf_open(srv, type, &q);
		for (i = 0; i < t->n && !err; i++)
			err = qf_apply(&q, &t->d[i]);
		if (q.f)
			err = qf_close(&q, err);
		t->n = 0;
		if (err)
			com_err("fuse2fs", err, "while writing the %s quota "
				"file (inode %u)", qf_name[type], t->ino);
	}
	return err;
}

errcode_t fs_quota_start(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	struct ext2_super_block *sb = fs->super;
	const ext2_ino_t ino[3] = { sb->s_usr_quota_inum, sb->s_grp_quota_inum,
				    sb->s_prj_quota_inum };
	errcode_t err;
	int type;

	if (!ext2fs_has_feature_quota(sb))
		return 0;
	for (type = 0; type < 3; type++) {
		struct qf_file q;

		srv->quota[type].ino = ino[type];
		if (!ino[type])
			continue;
		err = qf_open(srv, type, &q);
		if (q.f)
			err = qf_close(&q, err);
		if (err == EXT2_ET_FILESYSTEM_CORRUPTED)
			fprintf(stderr, "fuse2fs: %s: the %s quota file (inode "
				"%u) has no vfsv1 quota header; run e2fsck -f "
				"%s\n", fs->device_name, qf_name[type],
				ino[type], fs->device_name);
		else if (err)
			com_err("fuse2fs", err, "while reading the %s quota "
				"file (inode %u) of %s", qf_name[type],
				ino[type], fs->device_name);
		if (err)
			return err;
	}
	srv->quota_on = 1;
	return 0;
}

void fs_quota_stop(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	int type;

	if (fs)
		fs->write_inode = NULL;
	srv->quota_on = 0;
	for (type = 0; type < 3; type++) {
		free(srv->quota[type].d);
		memset(&srv->quota[type], 0, sizeof(srv->quota[type]));
	}
}
