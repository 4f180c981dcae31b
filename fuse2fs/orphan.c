/*
 * fuse2fs/orphan.c --- inodes the kernel still holds, and the ext4 orphan
 * list.
 *
 * The kernel holds an inode while it counts lookups of it (forget gives
 * them back) and while a file is open.  An inode whose last link goes
 * while it is open lives on, as ext4 keeps it: on the orphan list (the
 * superblock's s_last_orphan, the next one in i_dtime), in the same
 * transaction as the unlink; at its last release and forget it is freed
 * (blocks, xattr block, inode) and taken off the list.  A crash leaves it
 * on the list: the next mount frees it (fs_orphans_recover), as the
 * kernel and e2fsck do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server.h"

/* A lookup's answer: the inode as stat shows it, and one more reference
 * the kernel holds (fs_node_lookup). */
int fs_entry(struct fs_server *srv, ext2_ino_t ino, struct fuse_entry_param *e)
{
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);

	memset(e, 0, sizeof(*e));
	if (ret)
		return ret;
	e->ino = FS_FUSE_INO(ino);
	e->generation = in.i.i_generation;
	e->attr_timeout = srv->timeout;
	e->entry_timeout = srv->timeout;
	fs_stat(srv, ino, &in, &e->attr);
	fs_node_lookup(srv, ino);
	return 0;
}

struct fs_node {
	ext2_ino_t ino;
	uint64_t nlookup;
	unsigned int nopen;
	int orphan;		/* on the orphan list */
	struct fs_node *next;
};

/*
 * The table of nodes: chained buckets, 1 << bits of them, doubled once
 * there are as many nodes as buckets, so that a lookup walks about one
 * node however many inodes the kernel holds (a fixed 4,096 buckets made
 * ls -lR of 800,000 directories walk chains of 200).  Fibonacci hashing:
 * inode numbers come in runs.
 */
#define FS_NODES_BITS_MIN	12

static size_t bucket_of(unsigned int bits, ext2_ino_t ino)
{
	return (uint32_t)(ino * 2654435769u) >> (32 - bits);
}

/* Twice the buckets (at first, 1 << FS_NODES_BITS_MIN); none to be had:
 * the table stays as it is, only its chains longer. */
static void grow(struct fs_server *srv)
{
	unsigned int bits = srv->nodes.bits ? srv->nodes.bits + 1 :
			    FS_NODES_BITS_MIN;
	struct fs_node **nb;
	size_t i;

	if (bits > 31 || !(nb = calloc((size_t)1 << bits, sizeof(*nb))))
		return;
	for (i = 0; srv->nodes.bits && i < (size_t)1 << srv->nodes.bits; i++)
		while (srv->nodes.bucket[i]) {
			struct fs_node *n = srv->nodes.bucket[i];
			size_t b = bucket_of(bits, n->ino);

			srv->nodes.bucket[i] = n->next;
			n->next = nb[b];
			nb[b] = n;
		}
	free(srv->nodes.bucket);
	srv->nodes.bucket = nb;
	srv->nodes.bits = bits;
}

/* Where ino's node is or would go; NULL while there is no table. */
static struct fs_node **slot(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_node **p;

	if (!srv->nodes.bits)
		return NULL;
	p = &srv->nodes.bucket[bucket_of(srv->nodes.bits, ino)];
	while (*p && (*p)->ino != ino)
		p = &(*p)->next;
	return p;
}

static struct fs_node *get(struct fs_server *srv, ext2_ino_t ino, int create)
{
	struct fs_node **p;

	if (create && (!srv->nodes.bits ||
		       srv->nodes.count >= (size_t)1 << srv->nodes.bits))
		grow(srv);
	p = slot(srv, ino);
	if (!p)
		return NULL;
	if (!*p && create) {
		*p = calloc(1, sizeof(**p));
		if (*p) {
			(*p)->ino = ino;
			srv->nodes.count++;
		}
	}
	return *p;
}

static void drop(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_node **p = slot(srv, ino), *n = p ? *p : NULL;

	if (n) {
		*p = n->next;
		free(n);
		srv->nodes.count--;
	}
}

/* Take ino off the orphan list (wherever it is on it). */
static int orphan_remove(struct fs_server *srv, ext2_ino_t ino,
			 struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	ext2_ino_t cur = fs->super->s_last_orphan, next;
	struct fs_inode prev;
	int ret, guard = 0;

	if (cur == ino) {
		fs->super->s_last_orphan = in->i.i_dtime;
		ext2fs_mark_super_dirty(fs);
		return 0;
	}
	while (cur && guard++ < 1000000) {
		ret = fs_read_inode(srv, cur, &prev);
		if (ret)
			return ret;
		next = prev.i.i_dtime;
		if (next == ino) {
			prev.i.i_dtime = in->i.i_dtime;
			return fs_write_inode(srv, cur, &prev);
		}
		cur = next;
	}
	return 0;
}

/* Free an unlinked inode: its blocks, its xattr block, itself. */
static int free_inode(struct fs_server *srv, ext2_ino_t ino,
		      struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	errcode_t err = 0;
	int ret;

	if (ext2fs_inode_has_valid_blocks2(fs, FS_I(in)) ||
	    (in->i.i_flags & EXT4_INLINE_DATA_FL))
		err = fs_punch(srv, ino, in, 0, ~0ULL);
	if (!err)
		err = ext2fs_free_ext_attr(fs, ino, &in->i);
	if (err)
		return -fs_errno(srv, err);
	in->i.i_dtime = (__u32)time(NULL);
	in->i.i_links_count = 0;
	err = lj_bitmaps_inode_stats(srv->bitmaps, ino, -1,
				     LINUX_S_ISDIR(in->i.i_mode));
	if (err)
		return -fs_errno(srv, err);
	fs_quota_freeing(srv, ino);
	ret = fs_write_inode(srv, ino, in);
	fs_quota_freeing(srv, 0);
	return ret;
}

/* An unlinked inode nobody holds: off the list, freed. */
static int release_orphan(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);

	if (!ret && in.i.i_links_count == 0) {
		ret = orphan_remove(srv, ino, &in);
		if (!ret)
			ret = free_inode(srv, ino, &in);
	}
	return ret;
}

static void maybe_free(struct fs_server *srv, struct fs_node *n)
{
	ext2_ino_t ino = n->ino;
	int orphan = n->orphan;

	if (n->nlookup || n->nopen)
		return;
	drop(srv, ino);
	if (orphan && !srv->ro)
		release_orphan(srv, ino);
}

void fs_node_lookup(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_node *n = get(srv, ino, 1);

	if (n)
		n->nlookup++;
}

void fs_node_open(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_node *n = get(srv, ino, 1);

	if (n)
		n->nopen++;
}

void fs_node_forget(struct fs_server *srv, ext2_ino_t ino, uint64_t count)
{
	struct fs_node *n = get(srv, ino, 0);

	if (!n)
		return;
	n->nlookup = n->nlookup > count ? n->nlookup - count : 0;
	maybe_free(srv, n);
}

void fs_node_release(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_node *n = get(srv, ino, 0);

	if (!n)
		return;
	if (n->nopen && !--n->nopen)
		fs_place_forget(srv, ino);	/* closed: its window too */
	maybe_free(srv, n);
}

void fs_nodes_free(struct fs_server *srv)
{
	size_t i;

	for (i = 0; srv->nodes.bits && i < (size_t)1 << srv->nodes.bits; i++)
		while (srv->nodes.bucket[i]) {
			struct fs_node *n = srv->nodes.bucket[i];

			srv->nodes.bucket[i] = n->next;
			free(n);
		}
	free(srv->nodes.bucket);
	memset(&srv->nodes, 0, sizeof(srv->nodes));
}

int fs_node_unlinked(struct fs_server *srv, ext2_ino_t ino)
{
	ext2_filsys fs = srv->fs;
	struct fs_node *n = get(srv, ino, 0);
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);

	if (ret)
		return ret;
	/* Not open: freed now, as ext4 frees it at the unlink (the kernel
	 * forgets it later; a new inode may take the number before that,
	 * and the kernel tells the two apart by generation). */
	if (!n || !n->nopen) {
		if (n && !n->nlookup)
			drop(srv, ino);
		return free_inode(srv, ino, &in);
	}
	if (n->orphan)
		return 0;
	in.i.i_dtime = fs->super->s_last_orphan;
	ret = fs_write_inode(srv, ino, &in);
	if (!ret) {
		fs->super->s_last_orphan = ino;
		ext2fs_mark_super_dirty(fs);
		n->orphan = 1;
	}
	return ret;
}

errcode_t fs_orphans_recover(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	ext2_ino_t ino = fs->super->s_last_orphan;
	struct fs_inode in;
	int guard = 0;

	if (!ino)
		return 0;
	while (ino && guard++ < 1000000) {
		ext2_ino_t next;

		if (ino < EXT2_FIRST_INODE(fs->super) ||
		    ino > fs->super->s_inodes_count ||
		    fs_read_inode(srv, ino, &in))
			break;
		next = in.i.i_dtime;
		fs->super->s_last_orphan = next;
		ext2fs_mark_super_dirty(fs);
		in.i.i_dtime = 0;
		if (in.i.i_links_count == 0) {
			int ret = free_inode(srv, ino, &in);

			if (ret)
				return -ret;	/* the errno */
		} else {	/* a truncate in progress: finished */
			fs_write_inode(srv, ino, &in);
			fs_truncate(srv, ino, &in, EXT2_I_SIZE(FS_I(&in)));
		}
		ino = next;
	}
	fs->super->s_last_orphan = 0;
	ext2fs_mark_super_dirty(fs);
	return 0;
}
