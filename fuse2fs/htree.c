/*
 * fuse2fs/htree.c --- hashed directory indexes (htree) as ext4 keeps them.
 *
 * A directory that outgrows its first block becomes indexed, as the
 * kernel makes it: block 0 turns into the dx_root ('.', then '..' whose
 * record spans the block and hides the root info and the index entries),
 * its names move to two new leaves split by hash, and the inode gets
 * EXT2_INDEX_FL.  Names are then found, added, removed and re-pointed
 * through the index (hash -> leaf) instead of a scan of every block.  A
 * full leaf is split by hash as ext4's do_split splits it, a full index
 * node split in halves, a level added when every level is full (two
 * levels, three with large_dir; then ENOSPC, ext4's "Directory index
 * full").  libext2fs's ext2fs_link does the same, but leaves the end of
 * a split leaf as malloc left it and writes those bytes to the disk: we
 * write blocks whose every byte is set.  ext4 never shrinks an index
 * and neither do we.  Directory blocks go to fs->io (the lazy or plain
 * journaled channel) through fs_dir_write_block: a leaf's checksum set by
 * lj_dir_leaf_csum_set, an index block's by ext2fs_write_dir_block4.
 * Names are added to a linear directory here too (the first block with
 * room, as ext4 and ext2fs_link choose it).  Casefolded and encrypted
 * directories are left to libext2fs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define DX_ROOT_INFO	24	/* the root info follows '.' (12) and '..' */
#define DX_ROOT_ENTRIES	32	/* then the entries (info_length 8) */
#define DX_NODE_ENTRIES	8	/* a node: one empty record spans the block */
#define DX_BLOCK(e)	(ext2fs_le32_to_cpu((e)->block) & 0x0fffffff)
#define DX_HASH(e)	ext2fs_le32_to_cpu((e)->hash)

struct dx_level {
	char *buf;
	blk64_t pblk;		/* where buf was read from */
	struct ext2_dx_entry *e;	/* e[0].hash is the count and limit */
	unsigned int count, at;
};

struct dx_path {
	ext2_ino_t dir;
	struct fs_inode in;
	__u32 hash;		/* the name's (low bit clear) */
	int alg;		/* ext2fs_dirhash2's, from the root */
	unsigned int levels;	/* index levels: 1 + indirect_levels */
	struct dx_level lv[EXT4_HTREE_LEVEL];
};

/* A name found in a leaf: the block (buf) and where its entry lies. */
struct dx_hit {
	blk64_t pblk;
	__u32 gen;		/* the directory's generation (checksums) */
	char *buf;
	unsigned int off;
	int prev;		/* the entry before it in the block, or -1 */
};

static unsigned int dx_limit(ext2_filsys fs, unsigned int start)
{
	unsigned int tail = ext2fs_has_feature_metadata_csum(fs->super) ?
			    sizeof(struct ext2_dx_tail) : 0;

	return (fs->blocksize - start - tail) / sizeof(struct ext2_dx_entry);
}

/* ext2fs_dirhash2's version for the root's hash_version: the superblock
 * says whether names hash as signed or unsigned chars; -1 if unknown. */
static int dx_alg(ext2_filsys fs, int version)
{
	if (version < EXT2_HASH_LEGACY || version > EXT2_HASH_TEA)
		return -1;
	if (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH)
		version += EXT2_HASH_LEGACY_UNSIGNED;
	return version;
}

static errcode_t dx_hash(ext2_filsys fs, int alg, const char *name, int len,
			 __u32 *hash)
{
	ext2_dirhash_t h, minor;
	errcode_t err = ext2fs_dirhash2(alg, name, len, fs->encoding, 0,
					fs->super->s_hash_seed, &h, &minor);

	*hash = h;
	return err;
}

/*
 * Directory blocks whose checksum was verified since the mount (a block
 * number in its slot).  While we hold the device every write of a
 * directory block is ours (fs_dir_write_block, or libext2fs's), with its
 * checksum set: such a block needs no second verification (the kernel
 * too verifies a block once, when it comes from the disk).  A walk reads
 * the root, the nodes and a leaf for every lookup, create and unlink: the
 * checksums of 4 KiB blocks were most of the server's time in a big
 * directory.
 */

static errcode_t read_dir_block(struct fs_server *srv, blk64_t pblk, char *buf,
				ext2_ino_t dir)
{
	ext2_filsys fs = srv->fs;
	blk64_t *slot = &srv->dx_seen[pblk % FS_DX_SEEN_SLOTS];
	errcode_t err;

	if (*slot == pblk + 1)
		return io_channel_read_blk64(fs->io, pblk, 1, buf);
	err = ext2fs_read_dir_block4(fs, pblk, buf, 0, dir);
	if (!err)
		*slot = pblk + 1;
	return err;
}

int fs_dir_write_block(struct fs_server *srv, ext2_ino_t dir, __u32 gen,
		       blk64_t pblk, char *buf)
{
	ext2_filsys fs = srv->fs;
	errcode_t err = lj_dir_leaf_csum_set(fs, dir, gen, buf);

	if (!err)
		err = io_channel_write_blk64(fs->io, pblk, 1, buf);
	else	/* an index block, or no tail: libext2fs's checksum */
		err = ext2fs_write_dir_block4(fs, pblk, buf, 0, dir);
	if (!err)	/* its checksum is ours */
		srv->dx_seen[pblk % FS_DX_SEEN_SLOTS] = pblk + 1;
	return -fs_errno(srv, err);
}

/* Block lblk of the directory read (checksum verified) into buf. */
static errcode_t read_lblk(struct fs_server *srv, ext2_ino_t dir,
			   struct fs_inode *in, blk64_t lblk,
			   blk64_t *pblk, char *buf)
{
	ext2_filsys fs = srv->fs;
	errcode_t err;

	*pblk = 0;
	err = ext2fs_bmap2(fs, dir, FS_I(in), NULL, 0, lblk, NULL, pblk);
	if (!err && !*pblk)
		err = EXT2_ET_DIR_CORRUPTED;
	if (!err)
		err = read_dir_block(srv, *pblk, buf, dir);
	return err;
}

/* The index entries of a root or node block at start: the level set to
 * the entry whose range holds hash; 0 or -1 when the counts are wrong. */
static int dx_level_at(struct dx_level *lv, unsigned int start,
		       unsigned int limit, __u32 hash)
{
	struct ext2_dx_countlimit *cl = (void *)(lv->buf + start);
	unsigned int lo = 1, hi;

	lv->e = (struct ext2_dx_entry *)cl;
	lv->count = ext2fs_le16_to_cpu(cl->count);
	if (ext2fs_le16_to_cpu(cl->limit) != limit || !lv->count ||
	    lv->count > limit)
		return -1;
	hi = lv->count;		/* the last entry whose hash <= hash */
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (DX_HASH(&lv->e[mid]) > hash)
			hi = mid;
		else
			lo = mid + 1;
	}
	lv->at = lo - 1;
	return 0;
}

static void dx_free(struct dx_path *p)
{
	unsigned int i;

	for (i = 0; i < EXT4_HTREE_LEVEL; i++)
		ext2fs_free_mem(&p->lv[i].buf);
}

/* Read the child of level l's current entry into level l + 1. */
static int dx_descend(struct fs_server *srv, struct dx_path *p, unsigned int l)
{
	ext2_filsys fs = srv->fs;
	errcode_t err;

	err = read_lblk(srv, p->dir, &p->in, DX_BLOCK(&p->lv[l].e[p->lv[l].at]),
			&p->lv[l + 1].pblk, p->lv[l + 1].buf);
	if (err)
		return -fs_errno(srv, err);
	if (dx_level_at(&p->lv[l + 1], DX_NODE_ENTRIES,
			dx_limit(fs, DX_NODE_ENTRIES), p->hash))
		return -fs_errno(srv, EXT2_ET_DIR_CORRUPTED);
	return 0;
}

/*
 * From the root to the index entry of the leaf that holds name: 0;
 * FS_DX_LINEAR when dir has no index we use (not a directory, not
 * indexed, casefolded or encrypted, '.' or '..', a root we do not
 * understand); -errno.
 */
static int dx_walk(struct fs_server *srv, struct dx_path *p, ext2_ino_t dir,
		   const char *name,
		   int len)
{
	ext2_filsys fs = srv->fs;
	struct ext2_dx_root_info *ri;
	unsigned int l;
	int ret;

	memset(p, 0, sizeof(*p));
	p->dir = dir;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return FS_DX_LINEAR;
	ret = fs_read_inode(srv, dir, &p->in);
	if (ret)
		return ret == -ENOENT ? FS_DX_LINEAR : ret;
	if (!LINUX_S_ISDIR(p->in.i.i_mode) ||
	    !(p->in.i.i_flags & EXT2_INDEX_FL) ||
	    (p->in.i.i_flags & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL |
				EXT4_INLINE_DATA_FL)))
		return FS_DX_LINEAR;
	for (l = 0; l < EXT4_HTREE_LEVEL; l++)
		if (ext2fs_get_mem(fs->blocksize, &p->lv[l].buf))
			return -ENOMEM;
	if (read_lblk(srv, dir, &p->in, 0, &p->lv[0].pblk, p->lv[0].buf))
		return FS_DX_LINEAR;
	ri = (void *)(p->lv[0].buf + DX_ROOT_INFO);
	p->alg = dx_alg(fs, ri->hash_version);
	if (p->alg < 0 || ri->info_length != 8 ||
	    ri->indirect_levels >= ext2_dir_htree_level(fs) ||
	    dx_hash(fs, p->alg, name, len, &p->hash))
		return FS_DX_LINEAR;
	p->levels = ri->indirect_levels + 1U;
	if (dx_level_at(&p->lv[0], DX_ROOT_ENTRIES,
			dx_limit(fs, DX_ROOT_ENTRIES), p->hash))
		return FS_DX_LINEAR;
	for (l = 0; l + 1 < p->levels; l++) {
		ret = dx_descend(srv, p, l);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The next leaf may hold the name too: a leaf split between two names of
 * one hash marks the new leaf's index hash with the low bit (the names
 * continue there).  1 when the path moved to such a leaf, 0 when none,
 * -errno.
 */
static int dx_next(struct fs_server *srv, struct dx_path *p)
{
	int l = (int)p->levels - 1;
	__u32 h;
	int ret;

	while (l >= 0 && p->lv[l].at + 1 >= p->lv[l].count)
		l--;
	if (l < 0)
		return 0;
	h = DX_HASH(&p->lv[l].e[++p->lv[l].at]);
	if (!(h & 1) || (h & ~1U) != p->hash)
		return 0;
	for (; l + 1 < (int)p->levels; l++) {
		ret = dx_descend(srv, p, (unsigned int)l);
		if (ret)
			return ret;
		p->lv[l + 1].at = 0;
	}
	return 1;
}

/* A leaf whose records do not add up: the caller decides what ext4
 * answers (and records) for it. */
#define LEAF_CORRUPT	2

/* name in one leaf block: 1 (h->off, h->prev), 0 when absent,
 * LEAF_CORRUPT. */
static int leaf_find(struct fs_server *srv, const char *buf, const char *name,
		     int len,
		     struct dx_hit *h)
{
	ext2_filsys fs = srv->fs;
	unsigned int off = 0, rec;
	int prev = -1;

	while (off + 8 <= fs->blocksize) {
		struct ext2_dir_entry *d = (void *)(buf + off);

		if (ext2fs_get_rec_len(fs, d, &rec) || rec < 8 ||
		    off + rec > fs->blocksize ||
		    ext2fs_dirent_name_len(d) + 8U > rec)
			return LEAF_CORRUPT;
		if (d->inode && ext2fs_dirent_name_len(d) == len &&
		    !memcmp(d->name, name, (size_t)len)) {
			h->off = off;
			h->prev = prev;
			return 1;
		}
		prev = (int)off;
		off += rec;
	}
	return 0;
}

/* name's entry in dir through the index: 0 (h->buf is the caller's to
 * free), -ENOENT, FS_DX_LINEAR, -errno. */
static int dx_find(struct fs_server *srv, ext2_ino_t dir, const char *name,
		   struct dx_hit *h)
{
	struct dx_path p;
	int len = (int)strlen(name);
	int ret;

	memset(h, 0, sizeof(*h));
	if (len > FS_NAME_MAX)
		return -ENAMETOOLONG;
	ret = dx_walk(srv, &p, dir, name, len);
	if (!ret && ext2fs_get_mem(srv->fs->blocksize, &h->buf))
		ret = -ENOMEM;
	h->gen = p.in.i.i_generation;
	while (!ret) {
		struct dx_level *lv = &p.lv[p.levels - 1];
		errcode_t err = read_lblk(srv, dir, &p.in,
					  DX_BLOCK(&lv->e[lv->at]),
					  &h->pblk, h->buf);
		int found = err ? -fs_errno(srv, err) :
				  leaf_find(srv, h->buf, name, len, h);

		if (found == LEAF_CORRUPT)
			found = -fs_errno(srv, EXT2_ET_DIR_CORRUPTED);

		if (found) {	/* 1: here; < 0: an error */
			ret = found < 0 ? found : 0;
			break;
		}
		ret = dx_next(srv, &p);
		ret = ret < 0 ? ret : ret ? 0 : -ENOENT;
	}
	dx_free(&p);
	if (ret)
		ext2fs_free_mem(&h->buf);
	return ret;
}

int fs_dx_lookup(struct fs_server *srv, ext2_ino_t dir, const char *name,
		 ext2_ino_t *ino)
{
	struct dx_hit h;
	int ret = dx_find(srv, dir, name, &h);

	if (!ret) {
		*ino = ((struct ext2_dir_entry *)(h.buf + h.off))->inode;
		ext2fs_free_mem(&h.buf);
	}
	return ret;
}

/* A directory the linear code reads and changes block by block: its
 * block count; 0 for what is left to libext2fs (inline, casefolded or
 * encrypted entries, a size that is not whole blocks). */
static blk64_t linear_blocks(ext2_filsys fs, const struct fs_inode *in)
{
	if (!LINUX_S_ISDIR(in->i.i_mode) ||
	    EXT2_I_SIZE(&in->i) % fs->blocksize ||
	    (in->i.i_flags & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL |
			      EXT4_INLINE_DATA_FL)))
		return 0;
	return EXT2_I_SIZE(&in->i) / fs->blocksize;
}

/*
 * name in a linear directory, block by block through read_lblk (each
 * block's checksum verified once a mount, where ext2fs_lookup verifies it
 * at every call: a lookup per name made or listed).  FS_DX_LINEAR for
 * what is left to libext2fs (linear_blocks 0, a hole).
 */
static int linear_find(struct fs_server *srv, ext2_ino_t dir, const char *name,
		       ext2_ino_t *ino)
{
	ext2_filsys fs = srv->fs;
	struct fs_inode in;
	struct dx_hit h;
	blk64_t lblk, nblk, pblk;
	char *buf;
	int len = (int)strlen(name), ret;

	ret = fs_read_inode(srv, dir, &in);
	if (ret)
		return ret == -ENOENT ? FS_DX_LINEAR : ret;
	nblk = linear_blocks(fs, &in);
	if (!nblk)
		return FS_DX_LINEAR;
	if (ext2fs_get_mem(fs->blocksize, &buf))
		return -ENOMEM;
	ret = -ENOENT;
	for (lblk = 0; lblk < nblk && ret == -ENOENT; lblk++) {
		errcode_t err = read_lblk(srv, dir, &in, lblk, &pblk, buf);
		int found;

		if (err) {	/* a hole: libext2fs's scan skips it */
			ret = err == EXT2_ET_DIR_CORRUPTED && !pblk ?
			      FS_DX_LINEAR : -fs_errno(srv, err);
			break;
		}
		/* ext4's linear search ends at a corrupt block: not found,
		 * nothing recorded (a checksum failure was, by read_lblk) */
		found = leaf_find(srv, buf, name, len, &h);
		if (found > 0) {
			*ino = ((struct ext2_dir_entry *)(buf + h.off))->inode;
			ret = 0;
		} else if (found == LEAF_CORRUPT) {
			break;
		}
	}
	ext2fs_free_mem(&buf);
	return ret;
}

int fs_dir_lookup(struct fs_server *srv, ext2_ino_t dir, const char *name,
		  ext2_ino_t *ino)
{
	int ret = fs_dx_lookup(srv, dir, name, ino);

	return ret == FS_DX_LINEAR ? linear_find(srv, dir, name, ino) : ret;
}

int fs_dx_set(struct fs_server *srv, ext2_ino_t dir, const char *name,
	      ext2_ino_t ino, int type)
{
	struct dx_hit h;
	struct ext2_dir_entry *d;
	int ret = dx_find(srv, dir, name, &h);

	if (ret)
		return ret;
	d = (void *)(h.buf + h.off);
	d->inode = ino;
	if (type >= 0)
		ext2fs_dirent_set_file_type(d, type);
	ret = fs_dir_write_block(srv, dir, h.gen, h.pblk, h.buf);
	ext2fs_free_mem(&h.buf);
	return ret;
}

/* A record for name -> ino made in the leaf buf where one has room (the
 * first, as ext4 picks it): 1, 0 when the leaf is full, LEAF_CORRUPT. */
static int leaf_add(struct fs_server *srv, char *buf, const char *name, int len,
		    ext2_ino_t ino,
		    int type)
{
	ext2_filsys fs = srv->fs;
	unsigned int end = fs->blocksize, off = 0, rec, used;
	unsigned int need = EXT2_DIR_REC_LEN(len);
	struct ext2_dir_entry *d;

	if (ext2fs_has_feature_metadata_csum(fs->super))
		end -= sizeof(struct ext2_dir_entry_tail);	/* not a record */
	for (; off + 8 <= end; off += rec) {
		d = (void *)(buf + off);
		if (ext2fs_get_rec_len(fs, d, &rec) || rec < 8 ||
		    off + rec > end)
			return LEAF_CORRUPT;
		used = d->inode ? EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(d))
				: 0;
		if (rec < used + need)
			continue;
		if (used) {	/* the free end of a live record */
			if (ext2fs_set_rec_len(fs, used, d))
				return LEAF_CORRUPT;
			d = (void *)(buf + off + used);
			if (ext2fs_set_rec_len(fs, rec - used, d))
				return LEAF_CORRUPT;
		}
		d->inode = ino;
		ext2fs_dirent_set_name_len(d, len);
		ext2fs_dirent_set_file_type(d,
			ext2fs_has_feature_filetype(fs->super) ? type : 0);
		memcpy(d->name, name, (size_t)len);
		return 1;
	}
	return 0;
}

static int dx_make_room(struct fs_server *srv, struct dx_path *p,
			const char *leaf, blk64_t leaf_pblk);

/* Room is made at most this often for one name: a leaf split, then a
 * node split or a level added above it, then the leaf again. */
#define DX_ROOM_TRIES	4

/* name -> ino added to the leaf of its hash, the index grown when that
 * leaf is full (dx_make_room): 0 or -errno; FS_DX_LINEAR when dir has
 * no index we use, and when the leaf is broken (ext2fs_link answers). */
static int dx_add(struct fs_server *srv, ext2_ino_t dir, const char *name,
		  ext2_ino_t ino, int type)
{
	struct dx_path p;
	struct dx_level *lv;
	struct dx_hit h;
	int len = (int)strlen(name);
	int ret, added, tries;

	memset(&h, 0, sizeof(h));
	if (ext2fs_get_mem(srv->fs->blocksize, &h.buf))
		return -ENOMEM;
	for (tries = 0;; tries++) {
		ret = dx_walk(srv, &p, dir, name, len);
		if (!ret) {
			lv = &p.lv[p.levels - 1];
			ret = -fs_errno(srv, read_lblk(srv, dir, &p.in,
						       DX_BLOCK(&lv->e[lv->at]),
						       &h.pblk, h.buf));
		}
		added = ret ? -1 : leaf_add(srv, h.buf, name, len, ino, type);
		if (added == 1)
			ret = fs_dir_write_block(srv, dir, p.in.i.i_generation,
						 h.pblk, h.buf);
		else if (added == LEAF_CORRUPT)
			ret = FS_DX_LINEAR;
		else if (!added && tries == DX_ROOM_TRIES)
			ret = -ENOSPC;
		else if (!added)
			ret = dx_make_room(srv, &p, h.buf, h.pblk);
		dx_free(&p);
		if (ret || added)
			break;
	}
	ext2fs_free_mem(&h.buf);
	return ret;
}

/* name -> ino added to the first block of a linear directory with room
 * (as ext4 and ext2fs_link choose it): 0, -errno, FS_DIR_FULL;
 * FS_DX_LINEAR for an indexed directory and for what libext2fs answers
 * (linear_blocks 0, a hole, a broken block, a block without its
 * checksum tail). */
static int linear_add(struct fs_server *srv, ext2_ino_t dir, const char *name,
		      ext2_ino_t ino, int type)
{
	ext2_filsys fs = srv->fs;
	int csum = ext2fs_has_feature_metadata_csum(fs->super);
	int len = (int)strlen(name), ret;
	struct fs_inode in;
	blk64_t lblk, nblk, pblk;
	char *buf;

	ret = fs_read_inode(srv, dir, &in);
	if (ret)
		return ret;
	nblk = linear_blocks(fs, &in);
	if (!nblk || (in.i.i_flags & EXT2_INDEX_FL))
		return FS_DX_LINEAR;
	if (ext2fs_get_mem(fs->blocksize, &buf))
		return -ENOMEM;
	ret = FS_DIR_FULL;
	for (lblk = 0; lblk < nblk && ret == FS_DIR_FULL; lblk++) {
		errcode_t err = read_lblk(srv, dir, &in, lblk, &pblk, buf);
		int added = 0;

		if (err)
			ret = err == EXT2_ET_DIR_CORRUPTED && !pblk ?
			      FS_DX_LINEAR : -fs_errno(srv, err);
		else if (csum && !lj_dir_leaf_tail(fs, buf))
			ret = FS_DX_LINEAR;
		else
			added = leaf_add(srv, buf, name, len, ino, type);
		if (added == 1)
			ret = fs_dir_write_block(srv, dir, in.i.i_generation,
						 pblk, buf);
		else if (added == LEAF_CORRUPT)
			ret = FS_DX_LINEAR;
	}
	ext2fs_free_mem(&buf);
	return ret;
}

int fs_dir_add(struct fs_server *srv, ext2_ino_t dir, const char *name,
	       ext2_ino_t ino, int type)
{
	int ret = dx_add(srv, dir, name, ino, type);

	return ret == FS_DX_LINEAR ? linear_add(srv, dir, name, ino, type) :
				     ret;
}

int fs_dir_unlink(struct fs_server *srv, ext2_ino_t dir, const char *name,
		  ext2_ino_t ino)
{
	ext2_filsys fs = srv->fs;
	struct ext2_dir_entry *d, *prev;
	unsigned int rec, prec;
	struct dx_hit h;
	int ret = dx_find(srv, dir, name, &h);

	if (ret == FS_DX_LINEAR)
		return -fs_errno(srv, ext2fs_unlink(fs, dir, name, ino, 0));
	if (ret)
		return ret;
	d = (void *)(h.buf + h.off);
	if (ino && d->inode != ino) {
		ext2fs_free_mem(&h.buf);
		return -ENOENT;
	}
	/* as ext4: the record joins the one before it, or (first in its
	 * block) is left empty */
	if (h.prev >= 0) {
		prev = (void *)(h.buf + h.prev);
		ret = -fs_errno(srv, ext2fs_get_rec_len(fs, prev, &prec));
		if (!ret)
			ret = -fs_errno(srv, ext2fs_get_rec_len(fs, d, &rec));
		if (!ret)
			ret = -fs_errno(srv, ext2fs_set_rec_len(fs, prec + rec,
								prev));
	} else {
		d->inode = 0;
	}
	if (!ret)
		ret = fs_dir_write_block(srv, dir, h.gen, h.pblk, h.buf);
	ext2fs_free_mem(&h.buf);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Indexing a directory                                               */

struct dx_name {
	__u32 hash;
	unsigned int off;	/* in the old block */
	unsigned int rec;	/* its record's length there */
};

static int dx_name_cmp(const void *a, const void *b)
{
	const struct dx_name *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static unsigned int dx_rec(const char *blk, const struct dx_name *n)
{
	return EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(
			(struct ext2_dir_entry *)(blk + n->off)));
}

/* A leaf holding names [0, n) of old, packed, the last record to the end
 * (or to the dirent tail with metadata_csum). */
static errcode_t dx_fill_leaf(ext2_filsys fs, char *leaf, const char *old,
			      const struct dx_name *names, size_t n)
{
	unsigned int csum = ext2fs_has_feature_metadata_csum(fs->super) ?
			    sizeof(struct ext2_dir_entry_tail) : 0;
	unsigned int off = 0, rec = 0;
	errcode_t err = 0;
	size_t i;

	memset(leaf, 0, fs->blocksize);
	for (i = 0; i < n && !err; i++) {
		rec = dx_rec(old, &names[i]);
		memcpy(leaf + off, old + names[i].off, rec);
		err = ext2fs_set_rec_len(fs, rec,
					 (struct ext2_dir_entry *)(leaf + off));
		off += rec;
	}
	if (!err)
		err = ext2fs_set_rec_len(fs, fs->blocksize - csum - (off - rec),
					 (struct ext2_dir_entry *)(leaf + off -
								   rec));
	if (!err && csum)
		ext2fs_initialize_dirent_tail(fs,
					      EXT2_DIRENT_TAIL(leaf,
							       fs->blocksize));
	return err;
}

/* The live names of blk from offset start on, hashed and sorted: *names
 * (malloc'd), *n; FS_DX_LINEAR when its records do not add up. */
static int dx_hash_names(ext2_filsys fs, const char *blk, unsigned int start,
			 int alg, struct dx_name **names, size_t *n)
{
	struct ext2_dir_entry *d;
	unsigned int off, rec;
	struct dx_name *v;
	size_t cnt = 0;

	v = calloc(fs->blocksize / 12 + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (off = start; off + 8 <= fs->blocksize; off += rec) {
		d = (void *)(blk + off);
		if (ext2fs_get_rec_len(fs, d, &rec) || rec < 8 ||
		    off + rec > fs->blocksize) {
			free(v);
			return FS_DX_LINEAR;
		}
		if (!d->inode || !ext2fs_dirent_name_len(d))
			continue;
		v[cnt].off = off;
		v[cnt].rec = rec;
		if (dx_hash(fs, alg, d->name, ext2fs_dirent_name_len(d),
			    &v[cnt].hash)) {
			free(v);
			return FS_DX_LINEAR;
		}
		cnt++;
	}
	qsort(v, cnt, sizeof(*v), dx_name_cmp);
	*names = v;
	*n = cnt;
	return 0;
}

/* The names after '.' and '..' in block 0 (dx_hash_names); *dotdot the
 * parent; FS_DX_LINEAR when the block does not start with '.' and '..'. */
static int dx_collect(ext2_filsys fs, const char *blk, int alg,
		      struct dx_name **names, size_t *n, ext2_ino_t *dotdot)
{
	struct ext2_dir_entry *d = (void *)blk;
	unsigned int rec;

	if (ext2fs_dirent_name_len(d) != 1 || d->name[0] != '.' ||
	    ext2fs_get_rec_len(fs, d, &rec) || rec != 12)
		return FS_DX_LINEAR;
	d = (void *)(blk + 12);
	if (ext2fs_dirent_name_len(d) != 2 || memcmp(d->name, "..", 2) ||
	    ext2fs_get_rec_len(fs, d, &rec) || rec < 12 ||
	    12 + rec > fs->blocksize)
		return FS_DX_LINEAR;
	*dotdot = d->inode;
	return dx_hash_names(fs, blk, 12 + rec, alg, names, n);
}

/* Names [0, n) (n >= 2) split in two as ext4's do_split splits a leaf:
 * from the highest hash down, a record moves while no more than half of
 * it would lie beyond half the block; when that stops at the first name
 * (or never does), half the names move.  The first name moved, at least
 * one each side; *split its index hash, the low bit set when the halves
 * meet within one hash (the names continue). */
static size_t dx_split_point(ext2_filsys fs, const struct dx_name *names,
			     size_t n, __u32 *split)
{
	size_t i, size = 0;

	for (i = n; i > 0; i--) {
		if (size + names[i - 1].rec / 2 > fs->blocksize / 2)
			break;
		size += names[i - 1].rec;
	}
	/* i is the first name moved; ext4 moves half when the loop ended at
	 * (or before) the first name */
	if (i <= 1)
		i = n / 2;
	if (i >= n)
		i = n - 1;
	*split = names[i].hash | (names[i].hash == names[i - 1].hash);
	return i;
}

/* A new last block of dir (ext2fs_expand_dir's empty leaf): *lblk and
 * *pblk; in read again. */
static int dx_append(struct fs_server *srv, ext2_ino_t dir,
		     struct fs_inode *in, blk64_t *lblk, blk64_t *pblk)
{
	ext2_filsys fs = srv->fs;
	errcode_t err = ext2fs_expand_dir(fs, dir);
	int ret = err ? -fs_errno(srv, err) : fs_read_inode(srv, dir, in);

	if (ret)
		return ret;
	*lblk = EXT2_I_SIZE(FS_I(in)) / fs->blocksize - 1;
	*pblk = 0;
	err = ext2fs_bmap2(fs, dir, FS_I(in), NULL, 0, *lblk, NULL, pblk);
	if (!err && !*pblk)
		err = EXT2_ET_DIR_CORRUPTED;
	return -fs_errno(srv, err);
}

/* block 0 as the dx_root: '.', '..' spanning the block, the root info
 * and two entries (leaf 1 from hash 0, leaf 2 from split). */
static errcode_t dx_fill_root(ext2_filsys fs, char *root, ext2_ino_t dir,
			      ext2_ino_t dotdot, __u32 split)
{
	struct ext2_dir_entry *d = (void *)root;
	struct ext2_dx_root_info *ri = (void *)(root + DX_ROOT_INFO);
	struct ext2_dx_countlimit *cl = (void *)(root + DX_ROOT_ENTRIES);
	struct ext2_dx_entry *e = (void *)cl;
	int ft = ext2fs_has_feature_filetype(fs->super) ? EXT2_FT_DIR : 0;
	errcode_t err;

	memset(root, 0, fs->blocksize);
	d->inode = dir;
	ext2fs_dirent_set_name_len(d, 1);
	ext2fs_dirent_set_file_type(d, ft);
	d->name[0] = '.';
	err = ext2fs_set_rec_len(fs, 12, d);
	d = (void *)(root + 12);
	d->inode = dotdot;
	ext2fs_dirent_set_name_len(d, 2);
	ext2fs_dirent_set_file_type(d, ft);
	memcpy(d->name, "..", 2);
	if (!err)
		err = ext2fs_set_rec_len(fs, fs->blocksize - 12, d);
	ri->hash_version = fs->super->s_def_hash_version;
	ri->info_length = 8;
	cl->limit = ext2fs_cpu_to_le16(dx_limit(fs, DX_ROOT_ENTRIES));
	cl->count = ext2fs_cpu_to_le16(2);
	e[0].block = ext2fs_cpu_to_le32(1);
	e[1].hash = ext2fs_cpu_to_le32(split);
	e[1].block = ext2fs_cpu_to_le32(2);
	return err;
}

/*
 * The full one-block directory dir indexed: its names split by hash
 * between two new blocks (1 and 2), block 0 rewritten as the root.  The
 * upper half by size goes to the second leaf; when the halves meet within
 * one hash the second leaf's index hash has the low bit set (continued).
 */
static int dx_make(struct fs_server *srv, ext2_ino_t dir, struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	int alg = dx_alg(fs, fs->super->s_def_hash_version);
	struct dx_name *names = NULL;
	char *old = NULL, *blk = NULL;
	blk64_t pblk[3], lblk = 0;
	ext2_ino_t dotdot = 0;
	size_t n = 0, i;
	__u32 split;
	errcode_t err;
	int ret, b;

	if (alg < 0)
		return FS_DX_LINEAR;
	err = ext2fs_get_mem(fs->blocksize, &old);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &blk);
	if (!err)
		err = read_lblk(srv, dir, in, 0, &pblk[0], old);
	ret = -fs_errno(srv, err);
	if (!ret)
		ret = dx_collect(fs, old, alg, &names, &n, &dotdot);
	if (!ret && n < 2)
		ret = FS_DX_LINEAR;
	if (ret)
		goto out;
	i = dx_split_point(fs, names, n, &split);
	/* two blocks after the first, each an empty leaf until filled */
	for (b = 1; b <= 2 && !ret; b++)
		ret = dx_append(srv, dir, in, &lblk, &pblk[b]);
	if (!ret && lblk != 2)
		err = EXT2_ET_DIR_CORRUPTED;
	if (!err && !ret)
		err = dx_fill_leaf(fs, blk, old, names, i);
	if (!err && !ret)
		ret = fs_dir_write_block(srv, dir, in->i.i_generation,
					 pblk[1], blk);
	if (!err && !ret)
		err = dx_fill_leaf(fs, blk, old, names + i, n - i);
	if (!err && !ret)
		ret = fs_dir_write_block(srv, dir, in->i.i_generation,
					 pblk[2], blk);
	if (!err && !ret)
		err = dx_fill_root(fs, blk, dir, dotdot, split);
	if (!err && !ret)
		ret = fs_dir_write_block(srv, dir, in->i.i_generation,
					 pblk[0], blk);
	if (!ret)
		ret = -fs_errno(srv, err);
	if (!ret) {
		in->i.i_flags |= EXT2_INDEX_FL;
		ret = fs_write_inode(srv, dir, in);
	}
out:
	free(names);
	ext2fs_free_mem(&old);
	ext2fs_free_mem(&blk);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Room in an index: a full leaf split, a full node split, a level    */
/* added (as ext4 grows an index; what ext2fs_link does, but with     */
/* every byte of the blocks written set)                              */

static unsigned int dx_level_limit(ext2_filsys fs, unsigned int l)
{
	return dx_limit(fs, l ? DX_NODE_ENTRIES : DX_ROOT_ENTRIES);
}

/* Index entry hash -> lblk put after level l's current one, the level's
 * block written. */
static int dx_insert(struct fs_server *srv, struct dx_path *p, unsigned int l,
		     __u32 hash, blk64_t lblk)
{
	struct dx_level *lv = &p->lv[l];
	struct ext2_dx_countlimit *cl = (void *)lv->e;
	struct ext2_dx_entry *e = lv->e + lv->at + 1;

	memmove(e + 1, e, (lv->count - lv->at - 1) * sizeof(*e));
	e->hash = ext2fs_cpu_to_le32(hash);
	e->block = ext2fs_cpu_to_le32((__u32)lblk);
	cl->count = ext2fs_cpu_to_le16(++lv->count);
	return fs_dir_write_block(srv, p->dir, p->in.i.i_generation, lv->pblk,
				  lv->buf);
}

/* The full leaf (at leaf_pblk, read into leaf) split by hash: its upper
 * half moves to a new block whose entry goes into the last index level
 * (which has room). */
static int dx_split_leaf(struct fs_server *srv, struct dx_path *p,
			 const char *leaf, blk64_t leaf_pblk)
{
	ext2_filsys fs = srv->fs;
	struct dx_name *names = NULL;
	char *blk = NULL;
	blk64_t lblk, pblk;
	size_t n = 0, i;
	__u32 split;
	__u32 gen;
	errcode_t err;
	int ret = dx_hash_names(fs, leaf, 0, p->alg, &names, &n);

	if (!ret && n < 2)	/* a name that fills a leaf alone: none */
		ret = -fs_errno(srv, EXT2_ET_DIR_CORRUPTED);
	if (!ret && ext2fs_get_mem(fs->blocksize, &blk))
		ret = -ENOMEM;
	if (!ret)
		ret = dx_append(srv, p->dir, &p->in, &lblk, &pblk);
	if (ret)
		goto out;
	gen = p->in.i.i_generation;
	i = dx_split_point(fs, names, n, &split);
	err = dx_fill_leaf(fs, blk, leaf, names + i, n - i);
	ret = err ? -fs_errno(srv, err) :
		    fs_dir_write_block(srv, p->dir, gen, pblk, blk);
	if (!ret)
		err = dx_fill_leaf(fs, blk, leaf, names, i);
	if (!ret)
		ret = err ? -fs_errno(srv, err) :
			    fs_dir_write_block(srv, p->dir, gen, leaf_pblk, blk);
	if (!ret)
		ret = dx_insert(srv, p, p->levels - 1, split, lblk);
out:
	free(names);
	ext2fs_free_mem(&blk);
	return ret;
}

/*
 * The last index level is full: the deepest level above it with room
 * takes half of the full node below it (a new node); when every level
 * up to the root is full, the root's entries move down to a new node
 * (a level added), or, at ext4's limit of levels (three with large_dir),
 * -ENOSPC as ext4's "Directory index full".  One step: the caller walks
 * again and asks for more room while it needs it.
 */
static int dx_grow_index(struct fs_server *srv, struct dx_path *p)
{
	ext2_filsys fs = srv->fs;
	unsigned int node_limit = dx_limit(fs, DX_NODE_ENTRIES);
	int l = (int)p->levels - 1;
	struct ext2_dx_countlimit *cl;
	struct dx_level *full;
	blk64_t lblk, pblk;
	char *blk = NULL;
	unsigned int keep;
	errcode_t err;
	int ret;

	while (l >= 0 && p->lv[l].count >= dx_level_limit(fs, (unsigned int)l))
		l--;
	if (l < 0 && p->levels >= ext2_dir_htree_level(fs))
		return -ENOSPC;
	if (ext2fs_get_memzero(fs->blocksize, &blk))
		return -ENOMEM;
	ret = dx_append(srv, p->dir, &p->in, &lblk, &pblk);
	/* a node: one empty record spans the block, the entries follow */
	err = ext2fs_set_rec_len(fs, fs->blocksize, (void *)blk);
	if (!ret && err)
		ret = -fs_errno(srv, err);
	if (ret)
		goto out;
	cl = (void *)(blk + DX_NODE_ENTRIES);
	full = &p->lv[l + 1];
	keep = l < 0 ? 0 : full->count / 2;
	memcpy(cl, full->e + keep, (full->count - keep) * sizeof(*full->e));
	cl->limit = ext2fs_cpu_to_le16(node_limit);
	cl->count = ext2fs_cpu_to_le16(full->count - keep);
	ret = fs_dir_write_block(srv, p->dir, p->in.i.i_generation, pblk, blk);
	if (ret)
		goto out;
	if (l < 0) {	/* the root points at the new node alone */
		struct ext2_dx_root_info *ri = (void *)(full->buf +
							DX_ROOT_INFO);

		full->count = 1;
		full->e[0].block = ext2fs_cpu_to_le32((__u32)lblk);
		ri->indirect_levels++;
	} else {
		/* e[0]'s hash is the node's count and limit: the first
		 * moved entry's hash goes up to level l */
		ret = dx_insert(srv, p, (unsigned int)l, DX_HASH(&full->e[keep]),
				lblk);
		full->count = keep;
	}
	((struct ext2_dx_countlimit *)full->e)->count =
		ext2fs_cpu_to_le16(full->count);
	if (!ret)
		ret = fs_dir_write_block(srv, p->dir, p->in.i.i_generation,
					 full->pblk, full->buf);
out:
	ext2fs_free_mem(&blk);
	return ret;
}

static int dx_make_room(struct fs_server *srv, struct dx_path *p,
			const char *leaf, blk64_t leaf_pblk)
{
	unsigned int l = p->levels - 1;

	if (p->lv[l].count < dx_level_limit(srv->fs, l))
		return dx_split_leaf(srv, p, leaf, leaf_pblk);
	return dx_grow_index(srv, p);
}

int fs_dir_grow(struct fs_server *srv, ext2_ino_t dir)
{
	ext2_filsys fs = srv->fs;
	struct fs_inode in;
	int ret = fs_read_inode(srv, dir, &in);

	if (ret)
		return ret;
	if (in.i.i_flags & EXT2_INDEX_FL)
		return -ENOSPC;	/* ext4: the index is full */
	if (ext2fs_has_feature_dir_index(fs->super) &&
	    !(in.i.i_flags & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL |
			      EXT4_INLINE_DATA_FL | EXT2_INDEX_FL)) &&
	    EXT2_I_SIZE(FS_I(&in)) == fs->blocksize) {
		ret = dx_make(srv, dir, &in);
		if (ret != FS_DX_LINEAR)
			return ret;
	}
	return -fs_errno(srv, ext2fs_expand_dir(fs, dir));
}
