/*
 * fuse2fs/dir.c --- the namespace: lookup and forget, new inodes (owner,
 * mode, setgid and inherited ACLs as ext4 makes them), link, unlink,
 * rmdir (orphans while held), rename (over a file or an empty directory,
 * across directories with '..' fixed, RENAME_NOREPLACE, RENAME_EXCHANGE),
 * readlink, and directory listings (readdir and readdirplus from a
 * snapshot taken at opendir and at a rewind).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>

#include <ext2fs/ext3_extents.h>

#include "server.h"

static int file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:	return EXT2_FT_REG_FILE;
	case S_IFDIR:	return EXT2_FT_DIR;
	case S_IFCHR:	return EXT2_FT_CHRDEV;
	case S_IFBLK:	return EXT2_FT_BLKDEV;
	case S_IFIFO:	return EXT2_FT_FIFO;
	case S_IFSOCK:	return EXT2_FT_SOCK;
	case S_IFLNK:	return EXT2_FT_SYMLINK;
	}
	return EXT2_FT_UNKNOWN;
}

static const mode_t type_mode[] = {
	[EXT2_FT_REG_FILE] = S_IFREG, [EXT2_FT_DIR] = S_IFDIR,
	[EXT2_FT_CHRDEV] = S_IFCHR, [EXT2_FT_BLKDEV] = S_IFBLK,
	[EXT2_FT_FIFO] = S_IFIFO, [EXT2_FT_SOCK] = S_IFSOCK,
	[EXT2_FT_SYMLINK] = S_IFLNK,
};

/* ino of name in dir: 0 and *ino, or -errno (-ENOENT: none). */
static int find(struct fs_server *srv, ext2_ino_t dir, const char *name,
		ext2_ino_t *ino)
{
	errcode_t err;
	int ret;

	if (strlen(name) > FS_NAME_MAX)
		return -ENAMETOOLONG;
	ret = fs_dir_lookup(srv, dir, name, ino);
	if (ret != FS_DX_LINEAR)
		return ret;
	err = ext2fs_lookup(srv->fs, dir, name, (int)strlen(name), NULL,
			    ino);
	if (err == EXT2_ET_NO_DIRECTORY)
		return -ENOTDIR;
	/* ext4's lookup passes over a corrupt block (not a checksum
	 * failure) without a word */
	if (err == EXT2_ET_FILE_NOT_FOUND || err == EXT2_ET_DIR_CORRUPTED)
		return -ENOENT;
	return -fs_errno(srv, err);
}

/* A new entry name -> ino in dir, the directory grown when full. */
static int add_entry(struct fs_server *srv, ext2_ino_t dir, const char *name,
		     ext2_ino_t ino,
		     int type)
{
	ext2_filsys fs = srv->fs;
	errcode_t err;
	int ret = fs_dir_add(srv, dir, name, ino, type);

	if (ret == FS_DIR_FULL) {
		ret = fs_dir_grow(srv, dir);
		if (!ret)
			ret = fs_dir_add(srv, dir, name, ino, type);
	}
	if (ret != FS_DX_LINEAR && ret != FS_DIR_FULL)
		return ret;
	err = ext2fs_link(fs, dir, name, ino, type);
	if (err != EXT2_ET_DIR_NO_SPACE)
		return -fs_errno(srv, err);
	ret = fs_dir_grow(srv, dir);
	return ret ? ret : -fs_errno(srv, ext2fs_link(fs, dir, name, ino,
						      type));
}

struct set_entry {
	const char *name;
	int len;
	ext2_ino_t ino;
	int type;
	int done;
};

static int set_entry_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d,
			int offset, int blocksize, char *buf, void *priv)
{
	struct set_entry *s = priv;

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (!d->inode || ext2fs_dirent_name_len(d) != s->len ||
	    memcmp(d->name, s->name, (size_t)s->len))
		return 0;
	d->inode = s->ino;
	if (s->type >= 0)
		ext2fs_dirent_set_file_type(d, s->type);
	s->done = 1;
	return DIRENT_CHANGED | DIRENT_ABORT;
}

/* The entry name of dir points at ino now (type < 0: kept). */
static int set_entry(struct fs_server *srv, ext2_ino_t dir, const char *name,
		     ext2_ino_t ino,
		     int type)
{
	struct set_entry s = { name, (int)strlen(name), ino, type, 0 };
	int ret = fs_dx_set(srv, dir, name, ino, type);
	errcode_t err;

	if (ret != FS_DX_LINEAR)
		return ret;
	err = ext2fs_dir_iterate2(srv->fs, dir, DIRENT_FLAG_INCLUDE_EMPTY,
				  NULL, set_entry_cb, &s);
	if (err)
		return -fs_errno(srv, err);
	return s.done ? 0 : -ENOENT;
}

static int count_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d,
		    int offset, int blocksize, char *buf, void *priv)
{
	int len = ext2fs_dirent_name_len(d);

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (!d->inode || (len == 1 && d->name[0] == '.') ||
	    (len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		return 0;
	*(int *)priv = 1;
	return DIRENT_ABORT;
}

static int dir_empty(struct fs_server *srv, ext2_ino_t dir)
{
	int any = 0;
	errcode_t err = ext2fs_dir_iterate2(srv->fs, dir, 0, NULL,
					    count_cb, &any);

	return err ? -fs_errno(srv, err) : any ? -ENOTEMPTY : 0;
}

/* Link count of ino changed by delta (written; ctime now).  A directory
 * at 1 stays there (dir_nlink: more links than counted). */
static int add_links(struct fs_server *srv, ext2_ino_t ino, int delta)
{
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);
	int n;

	if (ret)
		return ret;
	n = in.i.i_links_count + delta;
	if (LINUX_S_ISDIR(in.i.i_mode) && in.i.i_links_count == 1 && delta < 0)
		n = 1;
	in.i.i_links_count = (__u16)(n < 0 ? 0 : n > 65535 ? 65535 : n);
	fs_set_times(srv, &in, FS_T_C, NULL);
	return fs_write_inode(srv, ino, &in);
}

/* ino loses a link (a directory all of them): freed or orphaned at
 * none. */
static int drop_link(struct fs_server *srv, ext2_ino_t ino, int isdir)
{
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);

	if (ret)
		return ret;
	if (isdir || in.i.i_links_count <= 1)
		in.i.i_links_count = 0;
	else
		in.i.i_links_count--;
	fs_set_times(srv, &in, FS_T_C, NULL);
	ret = fs_write_inode(srv, ino, &in);
	if (!ret && !in.i.i_links_count)
		ret = fs_node_unlinked(srv, ino);
	return ret;
}

static void reply_entry(fuse_req_t req, int ret, ext2_ino_t ino)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fuse_entry_param e;

	if (!ret) {
		fs_begin(srv);
		ret = fs_entry(srv, ino, &e);
		fs_end(srv, 0);
	}
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_entry(req, &e);
}

void fs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fuse_entry_param e;
	ext2_ino_t ino = 0;
	int ret;

	fs_begin(srv);
	ret = find(srv, FS_INO(parent), name, &ino);
	if (!ret)
		ret = fs_entry(srv, ino, &e);
	fs_end(srv, 0);
	if (ret == -ENOENT) {	/* exact: the daemon holds the device */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = srv->timeout;
		fuse_reply_entry(req, &e);
	} else if (ret) {
		fuse_reply_err(req, -ret);
	} else {
		fuse_reply_entry(req, &e);
	}
}

void fs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct fs_server *srv = fs_srv_of(req);

	fs_begin(srv);
	fs_node_forget(srv, FS_INO(ino), nlookup);
	fs_end(srv, 0);
	fuse_reply_none(req);
}

void fs_op_forget_multi(fuse_req_t req, size_t count,
			struct fuse_forget_data *forgets)
{
	struct fs_server *srv = fs_srv_of(req);
	size_t i;

	fs_begin(srv);
	for (i = 0; i < count; i++)
		fs_node_forget(srv, FS_INO(forgets[i].ino), forgets[i].nlookup);
	fs_end(srv, 0);
	fuse_reply_none(req);
}

void fs_op_readlink(fuse_req_t req, fuse_ino_t fino)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_filsys fs = srv->fs;
	ext2_ino_t ino = FS_INO(fino);
	struct fs_inode in;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	fs_begin(srv);
	ret = fs_read_inode(srv, ino, &in);
	if (!ret && !LINUX_S_ISLNK(in.i.i_mode))
		ret = -EINVAL;
	len = ret ? 0 : EXT2_I_SIZE(FS_I(&in));
	if (!ret && !(buf = calloc(1, fs->blocksize + len + 1)))
		ret = -ENOMEM;
	if (!ret && (in.i.i_flags & EXT4_INLINE_DATA_FL)) {
		ret = -fs_errno(srv, ext2fs_inline_data_get(fs, ino, FS_I(&in),
							    buf, &len));
	} else if (!ret && ext2fs_is_fast_symlink(FS_I(&in))) {
		memcpy(buf, in.i.i_block, len < sizeof(in.i.i_block) ?
		       len : sizeof(in.i.i_block));
	} else if (!ret) {
		blk64_t pblk = 0;

		ret = -fs_errno(srv, ext2fs_bmap2(fs, ino, FS_I(&in), NULL, 0,
						  0, NULL, &pblk));
		if (!ret && pblk)
			ret = -fs_errno(srv, io_channel_read_blk64(fs->io,
								   pblk, 1,
								   buf));
		if (len > fs->blocksize)
			len = fs->blocksize;
	}
	fs_end(srv, 0);
	if (ret) {
		fuse_reply_err(req, -ret);
	} else {
		buf[len] = 0;
		fuse_reply_readlink(req, buf);
	}
	free(buf);
}

/* ------------------------------------------------------------------ */
/* New inodes                                                         */

/* What fs_new_inode decides of a new inode before it is made. */
struct new_attrs {
	mode_t mode;
	__u32 flags;		/* inherited from the directory */
	int inherit_projid;	/* the directory's PROJINHERIT */
	__u32 projid;
	uid_t uid;
	gid_t gid;
};

/* A new inode's fields: those fs_new_inode decided, and its times. */
static void set_attrs(struct fs_server *srv, struct fs_inode *in,
		      const struct new_attrs *a)
{
	in->i.i_mode = (__u16)a->mode;
	in->i.i_flags |= a->flags;
	if (a->inherit_projid && fs_has_projid(srv->fs, &in->i))
		in->i.i_projid = a->projid;
	fs_set_owner(in, a->uid, a->gid);
	fs_set_times(srv, in, FS_T_A | FS_T_M | FS_T_C | FS_T_CR, NULL);
}

/* A fresh in-memory inode: zeroed, the extra size of a large one. */
static void blank_inode(ext2_filsys fs, struct fs_inode *in)
{
	memset(in, 0, sizeof(*in));
	if (EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE)
		in->i.i_extra_isize = sizeof(struct ext2_inode_large) -
				      EXT2_GOOD_OLD_INODE_SIZE;
}

/* A generation for a new inode: never 0 (0 is "none given yet"). */
static __u32 generation(void)
{
	__u32 gen;

	do
		gen = (__u32)random();
	while (!gen);
	return gen;
}

/* An inode number for a new inode of mode in parent (not counted in use
 * yet), its inode-table block started fresh when it holds no other. */
static int pick_inode(struct fs_server *srv, ext2_ino_t parent, int mode,
		      ext2_ino_t *ino)
{
	errcode_t err = lj_bitmaps_new_inode(srv->bitmaps, parent, mode, ino);

	if (err)
		return -fs_errno(srv, err);
	fs_inode_block_fresh(srv, *ino);
	return 0;
}

static int new_plain_inode(struct fs_server *srv, ext2_ino_t parent,
			   const char *name, const struct new_attrs *a,
			   dev_t rdev, ext2_ino_t *ret)
{
	ext2_filsys fs = srv->fs;
	struct fs_inode in;
	ext2_ino_t ino;
	errcode_t err;
	int r = pick_inode(srv, parent, (int)a->mode, &ino);

	if (r)
		return r;
	blank_inode(fs, &in);
	in.i.i_links_count = 1;
	if (S_ISCHR(a->mode) || S_ISBLK(a->mode)) {
		unsigned int ma = major(rdev), mi = minor(rdev);

		if (ma < 256 && mi < 256)
			in.i.i_block[0] = ma << 8 | mi;
		else
			in.i.i_block[1] = (mi & 0xff) | (ma << 8) |
					  ((mi & ~0xffU) << 12);
	}
	if (S_ISREG(a->mode) && ext2fs_has_feature_extents(fs->super)) {
		ext2_extent_handle_t h;

		err = ext2fs_extent_open2(fs, ino, FS_I(&in), &h);
		if (err)
			return -fs_errno(srv, err);
		ext2fs_extent_free(h);
	}
	in.i.i_generation = generation();
	set_attrs(srv, &in, a);
	r = add_entry(srv, parent, name, ino, file_type(a->mode));
	if (r)
		return r;
	err = lj_bitmaps_inode_stats(srv->bitmaps, ino, +1, 0);
	if (err)
		return -fs_errno(srv, err);
	r = fs_write_inode(srv, ino, &in);
	*ret = ino;
	return r;
}

/* The one block of a new directory mapped in its inode: one extent in
 * the inode's own extent header (ext4's layout), or the first direct
 * block. */
static void map_first_block(ext2_filsys fs, struct fs_inode *in, blk64_t blk)
{
	struct ext3_extent_header *eh = (void *)in->i.i_block;
	struct ext3_extent *ex = (void *)(eh + 1);

	if (!ext2fs_has_feature_extents(fs->super)) {
		in->i.i_block[0] = (__u32)blk;
		return;
	}
	in->i.i_flags |= EXT4_EXTENTS_FL;
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16(1);
	eh->eh_max = ext2fs_cpu_to_le16((sizeof(in->i.i_block) -
					 sizeof(*eh)) / sizeof(*ex));
	eh->eh_depth = 0;
	ex->ee_block = 0;
	ex->ee_len = ext2fs_cpu_to_le16(1);
	ex->ee_start = ext2fs_cpu_to_le32((__u32)blk);
	ex->ee_start_hi = ext2fs_cpu_to_le16((__u16)(blk >> 32));
}

/*
 * A directory made as ext2fs_mkdir makes one (its block where libext2fs
 * would take it, "." and ".." in it), but each block written once: the
 * inode whole (fs_new_inode's attributes, a generation, the block mapped)
 * and the block with its checksum for that generation.  After
 * ext2fs_mkdir, a generation and an owner given to the directory cost two
 * more writes of its inode and a read and a rewrite of its block; making
 * directories spent a fifth of the daemon's time there (doc/smr.md,
 * "MakeDirs end to end, met").  The parent's link count is
 * raised by fs_new_inode, with its times.  Not for inline data
 * (new_lib_inode).
 */
static int new_dir_inode(struct fs_server *srv, ext2_ino_t parent,
			 const char *name, const struct new_attrs *a,
			 ext2_ino_t *ret)
{
	ext2_filsys fs = srv->fs;
	struct fs_inode in;
	ext2_ino_t ino;
	blk64_t blk = 0;
	char *block = NULL;
	errcode_t err;
	int r = pick_inode(srv, parent, LINUX_S_IFDIR | 0755, &ino);

	if (r)
		return r;
	r = add_entry(srv, parent, name, ino, EXT2_FT_DIR);
	if (r)
		return r;
	blank_inode(fs, &in);
	err = ext2fs_new_block2(fs, ext2fs_find_inode_goal(fs, ino, FS_I(&in),
							   0), NULL, &blk);
	if (!err)
		err = ext2fs_new_dir_block(fs, ino, parent, &block);
	if (err) {
		fs_dir_unlink(srv, parent, name, ino);
		return -fs_errno(srv, err);
	}
	in.i.i_links_count = 2;
	map_first_block(fs, &in, blk);
	err = ext2fs_inode_size_set(fs, FS_I(&in), fs->blocksize);
	if (!err)
		err = ext2fs_iblk_set(fs, FS_I(&in), 1);
	in.i.i_generation = generation();
	set_attrs(srv, &in, a);
	r = err ? -fs_errno(srv, err) :
		  fs_dir_write_block(srv, ino, in.i.i_generation, blk, block);
	ext2fs_free_mem(&block);
	if (r)
		return r;
	ext2fs_block_alloc_stats2(fs, blk, +1);
	err = lj_bitmaps_inode_stats(srv->bitmaps, ino, +1, 1);
	if (err)
		return -fs_errno(srv, err);
	r = fs_write_inode(srv, ino, &in);
	*ret = ino;
	return r;
}

/*
 * A generation for a new inode libext2fs made with none: the kernel tells
 * a reused inode number from the one it still holds by it (a directory
 * removed and another made on its number would otherwise be taken for
 * the dead one).  A directory's first block carries it in its checksum:
 * read as ext2fs_mkdir wrote it in this request (nothing to verify),
 * written again after.  The inode is written.
 */
static int new_generation(struct fs_server *srv, ext2_ino_t ino,
			  struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	blk64_t pblk = 0;
	char *buf = NULL;
	errcode_t err = 0;
	int ret;

	if (LINUX_S_ISDIR(in->i.i_mode) &&
	    !(in->i.i_flags & EXT4_INLINE_DATA_FL)) {
		err = ext2fs_bmap2(fs, ino, FS_I(in), NULL, 0, 0, NULL, &pblk);
		if (!err && pblk)
			err = ext2fs_get_mem(fs->blocksize, &buf);
		if (!err && pblk)
			err = io_channel_read_blk64(fs->io, pblk, 1, buf);
		if (err) {
			ext2fs_free_mem(&buf);
			return -fs_errno(srv, err);
		}
	}
	in->i.i_generation = generation();
	ret = fs_write_inode(srv, ino, in);
	if (!ret && buf)
		ret = fs_dir_write_block(srv, ino, in->i.i_generation, pblk,
					 buf);
	ext2fs_free_mem(&buf);
	return ret;
}

/*
 * mkdir (an inline-data file system) or symlink by libext2fs on an inode
 * chosen here, its name added first by add_entry (through the parent's
 * index, the parent grown or indexed when full): libext2fs's own lookup
 * and link would scan every block of the parent.  The name is taken back
 * if libext2fs then fails.  Then the attributes and a generation.
 */
static int new_lib_inode(struct fs_server *srv, ext2_ino_t parent,
			 const char *name, const struct new_attrs *a,
			 const char *target, ext2_ino_t *ret)
{
	ext2_filsys fs = srv->fs;
	struct fs_inode in;
	ext2_ino_t ino;
	errcode_t err;
	int r;

	r = pick_inode(srv, parent, target ? LINUX_S_IFLNK | 0777 :
		       LINUX_S_IFDIR | 0755, &ino);
	if (r)
		return r;
	r = add_entry(srv, parent, name, ino,
		      target ? EXT2_FT_SYMLINK : EXT2_FT_DIR);
	if (r)
		return r;
	if (target)
		err = ext2fs_symlink(fs, parent, ino, NULL, target);
	else
		err = ext2fs_mkdir(fs, parent, ino, NULL);
	if (err) {
		fs_dir_unlink(srv, parent, name, ino);
		return -fs_errno(srv, err);
	}
	*ret = ino;
	r = fs_read_inode(srv, ino, &in);
	if (r)
		return r;
	set_attrs(srv, &in, a);
	return in.i.i_generation ? fs_write_inode(srv, ino, &in) :
				   new_generation(srv, ino, &in);
}

int fs_new_inode(fuse_req_t req, ext2_ino_t parent, const char *name,
		 mode_t mode, mode_t umask, dev_t rdev, const char *target,
		 ext2_ino_t *ret)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_filsys fs = srv->fs;
	const struct fuse_ctx *c = fuse_req_ctx(req);
	unsigned char dacl[FS_ACL_MAX_SIZE], aacl[FS_ACL_MAX_SIZE];
	struct fs_inode dir;
	struct new_attrs a;
	ext2_ino_t ino;
	int ret2, nacl = 0, access = 0, own_dir;

	if (strlen(name) > FS_NAME_MAX)
		return -ENAMETOOLONG;
	if (target && strlen(target) >= fs->blocksize)
		return -ENAMETOOLONG;
	ret2 = fs_read_inode(srv, parent, &dir);
	if (ret2)
		return ret2;
	if (!LINUX_S_ISDIR(dir.i.i_mode))
		return -ENOTDIR;
	if (!dir.i.i_links_count)
		return -ENOENT;
	ret2 = find(srv, parent, name, &ino);
	if (!ret2)
		return -EEXIST;
	if (ret2 != -ENOENT)
		return ret2;
	ret2 = fs_fixed(&dir, 0);	/* an immutable directory */
	if (ret2)
		return ret2;
	if (S_ISDIR(mode) && dir.i.i_links_count >= FS_LINK_MAX)
		return -EMLINK;
	if (!S_ISLNK(mode)) {
		nacl = fs_xattr_get(srv, parent, FS_ACL_DEFAULT, dacl,
				    sizeof(dacl));
		if (nacl > 0 && !fs_acl_valid(dacl, (size_t)nacl))
			nacl = 0;
		if (nacl < 0 && nacl != -ENODATA && nacl != -EOPNOTSUPP)
			return nacl;
		if (nacl > 0) {
			memcpy(aacl, dacl, (size_t)nacl);
			access = fs_acl_create_masq(aacl, (size_t)nacl, &mode);
		} else {
			nacl = 0;
			mode &= ~(umask & 0777);
		}
	}
	a.uid = c->uid;
	a.gid = c->gid;
	if (dir.i.i_mode & S_ISGID) {
		a.gid = fs_gid(&dir);
		if (S_ISDIR(mode))
			mode |= S_ISGID;
	}
	if (!S_ISDIR(mode) && (mode & S_ISGID) && (mode & S_IXGRP) &&
	    c->uid != 0 && !fs_in_group(req, a.gid))
		mode &= ~(mode_t)S_ISGID;
	a.mode = mode;
	a.flags = fs_inherit_flags(&dir, (__u16)mode);
	/* ext4: a directory with PROJINHERIT gives its project id */
	a.inherit_projid = ext2fs_has_feature_project(fs->super) &&
			   (dir.i.i_flags & EXT4_PROJINHERIT_FL) &&
			   fs_has_projid(fs, &dir.i);
	a.projid = dir.i.i_projid;

	own_dir = S_ISDIR(mode) && !ext2fs_has_feature_inline_data(fs->super);
	if (own_dir)
		ret2 = new_dir_inode(srv, parent, name, &a, &ino);
	else if (S_ISDIR(mode) || S_ISLNK(mode))
		ret2 = new_lib_inode(srv, parent, name, &a, target, &ino);
	else
		ret2 = new_plain_inode(srv, parent, name, &a, rdev, &ino);
	if (ret2)
		return ret2;
	*ret = ino;
	/* the parent: its times, and the new directory's ".." link */
	ret2 = fs_read_inode(srv, parent, &dir);
	if (!ret2) {
		dir.i.i_links_count += own_dir;
		fs_set_times(srv, &dir, FS_T_M | FS_T_C, NULL);
		ret2 = fs_write_inode(srv, parent, &dir);
	}
	if (!ret2 && nacl && access)
		ret2 = fs_xattr_set(srv, ino, FS_ACL_ACCESS, aacl,
				    (size_t)nacl);
	if (!ret2 && nacl && S_ISDIR(mode))
		ret2 = fs_xattr_set(srv, ino, FS_ACL_DEFAULT, dacl,
				    (size_t)nacl);
	return ret2;
}

static void make(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev, const char *target)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fuse_entry_param e;
	ext2_ino_t ino = 0;
	int ret;

	fs_begin(srv);
	ret = fs_new_inode(req, FS_INO(parent), name, mode,
			   fuse_req_ctx(req)->umask, rdev, target, &ino);
	if (!ret)
		ret = fs_entry(srv, ino, &e);
	ret = ret ? (fs_end(srv, 0), ret) :
		    fs_end(srv, fs_dir_sync(srv, FS_INO(parent)));
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_entry(req, &e);
}

void fs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev)
{
	make(req, parent, name, mode, rdev, NULL);
}

void fs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode)
{
	make(req, parent, name, S_IFDIR | (mode & 07777), 0, NULL);
}

void fs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		   const char *name)
{
	make(req, parent, name, S_IFLNK | 0777, 0, link);
}

/* ext4 refuses a link or a rename that would put an inode of one project
 * into a directory that gives its new inodes another (PROJINHERIT):
 * EXDEV, and mv copies, the copy taking the directory's project id. */
static int other_project(struct fs_server *srv, ext2_ino_t dir,
			 const struct fs_inode *in)
{
	struct fs_inode d;
	int ret;

	if (!ext2fs_has_feature_project(srv->fs->super))
		return 0;
	ret = fs_read_inode(srv, dir, &d);
	if (ret || !(d.i.i_flags & EXT4_PROJINHERIT_FL))
		return ret;
	if ((fs_has_projid(srv->fs, &d.i) ? d.i.i_projid : 0) !=
	    (fs_has_projid(srv->fs, &in->i) ? in->i.i_projid : 0))
		return -EXDEV;
	return 0;
}

void fs_op_link(fuse_req_t req, fuse_ino_t fino, fuse_ino_t newparent,
		const char *newname)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino), other;
	struct fs_inode in;
	int ret;

	fs_begin(srv);
	ret = fs_read_inode(srv, ino, &in);
	if (!ret)
		ret = fs_ino_fixed(srv, FS_INO(newparent), 0);
	if (!ret)
		ret = fs_fixed(&in, 1);
	if (!ret && in.i.i_links_count >= FS_LINK_MAX)
		ret = -EMLINK;
	if (!ret) {
		ret = find(srv, FS_INO(newparent), newname, &other);
		ret = !ret ? -EEXIST : ret == -ENOENT ? 0 : ret;
	}
	if (!ret)
		ret = other_project(srv, FS_INO(newparent), &in);
	if (!ret)
		ret = add_entry(srv, FS_INO(newparent), newname, ino,
				file_type(in.i.i_mode));
	if (!ret)
		ret = add_links(srv, ino, 1);
	if (!ret)
		ret = fs_touch(srv, FS_INO(newparent), FS_T_M | FS_T_C);
	ret = ret ? (fs_end(srv, 0), ret) :
		    fs_end(srv, fs_dir_sync(srv, FS_INO(newparent)));
	reply_entry(req, ret, ino);
}

/* The entry name (of ino) leaves dir: ino loses a link (a directory
 * all of them, its parent one), freed or orphaned at none. */
static int remove_entry(struct fs_server *srv, ext2_ino_t dir, const char *name,
			ext2_ino_t ino,
			int isdir)
{
	int ret = fs_dir_unlink(srv, dir, name, ino);

	if (!ret)
		ret = drop_link(srv, ino, isdir);
	if (!ret && isdir)
		ret = add_links(srv, dir, -1);
	if (!ret)
		ret = fs_touch(srv, dir, FS_T_M | FS_T_C);
	return ret;
}

static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name,
			int isdir)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t dir = FS_INO(parent), ino = 0;
	struct fs_inode in;
	int ret;

	fs_begin(srv);
	ret = find(srv, dir, name, &ino);
	if (!ret)
		ret = fs_read_inode(srv, ino, &in);
	if (!ret)	/* the directory, then the victim (ext4's may_delete) */
		ret = fs_ino_fixed(srv, dir, 1);
	if (!ret)
		ret = fs_fixed(&in, 1);
	if (!ret && isdir && !LINUX_S_ISDIR(in.i.i_mode))
		ret = -ENOTDIR;
	if (!ret && !isdir && LINUX_S_ISDIR(in.i.i_mode))
		ret = -EISDIR;
	if (!ret && isdir)
		ret = dir_empty(srv, ino);
	if (!ret)
		ret = remove_entry(srv, dir, name, ino, isdir);
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, fs_dir_sync(srv, dir));
	fuse_reply_err(req, -ret);
}

void fs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, 0);
}

void fs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, 1);
}

/* A directory moved from one parent to another: its '..' and both
 * parents' link counts. */
static int reparent(struct fs_server *srv, ext2_ino_t ino, ext2_ino_t from,
		    ext2_ino_t to)
{
	int ret = set_entry(srv, ino, "..", to, -1);

	if (!ret)
		ret = add_links(srv, from, -1);
	if (!ret)
		ret = add_links(srv, to, 1);
	return ret;
}

static int do_exchange(struct fs_server *srv, ext2_ino_t sdir,
		       const char *sname, ext2_ino_t src,
		       struct fs_inode *sin, ext2_ino_t ddir,
		       const char *dname, ext2_ino_t dst, struct fs_inode *din)
{
	int ret = set_entry(srv, sdir, sname, dst, file_type(din->i.i_mode));

	if (!ret)
		ret = set_entry(srv, ddir, dname, src,
				file_type(sin->i.i_mode));
	if (!ret && sdir != ddir && LINUX_S_ISDIR(sin->i.i_mode))
		ret = reparent(srv, src, sdir, ddir);
	if (!ret && sdir != ddir && LINUX_S_ISDIR(din->i.i_mode))
		ret = reparent(srv, dst, ddir, sdir);
	if (!ret)
		ret = fs_touch(srv, src, FS_T_C);
	if (!ret)
		ret = fs_touch(srv, dst, FS_T_C);
	return ret;
}

static int do_rename(struct fs_server *srv, ext2_ino_t sdir, const char *sname,
		     ext2_ino_t ddir,
		     const char *dname, unsigned int flags)
{
	struct fs_inode sin, din, dd;
	ext2_ino_t src = 0, dst = 0;
	int ret, isdir;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if (strlen(dname) > FS_NAME_MAX)
		return -ENAMETOOLONG;
	ret = find(srv, sdir, sname, &src);
	if (!ret)
		ret = fs_read_inode(srv, src, &sin);
	if (ret)
		return ret;
	isdir = LINUX_S_ISDIR(sin.i.i_mode);
	ret = find(srv, ddir, dname, &dst);
	if (ret && ret != -ENOENT)
		return ret;
	if (ret)
		dst = 0;
	if ((flags & RENAME_NOREPLACE) && dst)
		return -EEXIST;
	if ((flags & RENAME_EXCHANGE) && !dst)
		return -ENOENT;
	if (dst == src)
		return 0;
	if (dst) {
		ret = fs_read_inode(srv, dst, &din);
		if (ret)
			return ret;
	}
	/* immutable and append-only: the source's directory and the source
	 * lose a name; the target's directory gains one (or loses one, with
	 * the target) */
	ret = fs_ino_fixed(srv, sdir, 1);
	if (!ret)
		ret = fs_fixed(&sin, 1);
	if (!ret)
		ret = fs_ino_fixed(srv, ddir, dst != 0);
	if (!ret && dst)
		ret = fs_fixed(&din, 1);
	if (ret)
		return ret;
	if (flags & RENAME_EXCHANGE) {
		ret = other_project(srv, ddir, &sin);
		if (!ret)
			ret = other_project(srv, sdir, &din);
		if (!ret)
			ret = do_exchange(srv, sdir, sname, src, &sin, ddir,
					  dname, dst, &din);
	} else if (dst) {
		int ddirent = LINUX_S_ISDIR(din.i.i_mode);

		if (isdir && !ddirent)
			return -ENOTDIR;
		if (!isdir && ddirent)
			return -EISDIR;
		if ((ret = other_project(srv, ddir, &sin)))
			return ret;
		if (ddirent && (ret = dir_empty(srv, dst)))
			return ret;
		ret = set_entry(srv, ddir, dname, src, file_type(sin.i.i_mode));
		if (!ret)
			ret = drop_link(srv, dst, ddirent);
		if (!ret && ddirent)
			ret = add_links(srv, ddir, -1);
	} else {
		if ((ret = other_project(srv, ddir, &sin)))
			return ret;
		if (isdir && sdir != ddir) {
			ret = fs_read_inode(srv, ddir, &dd);
			if (!ret && dd.i.i_links_count >= FS_LINK_MAX)
				ret = -EMLINK;
			if (ret)
				return ret;
		}
		ret = add_entry(srv, ddir, dname, src, file_type(sin.i.i_mode));
	}
	if (!ret && !(flags & RENAME_EXCHANGE)) {
		ret = fs_dir_unlink(srv, sdir, sname, src);
		if (!ret && isdir && sdir != ddir)
			ret = reparent(srv, src, sdir, ddir);
		if (!ret)
			ret = fs_touch(srv, src, FS_T_C);
	}
	if (!ret)
		ret = fs_touch(srv, sdir, FS_T_M | FS_T_C);
	if (!ret && ddir != sdir)
		ret = fs_touch(srv, ddir, FS_T_M | FS_T_C);
	return ret;
}

void fs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		  fuse_ino_t newparent, const char *newname,
		  unsigned int flags)
{
	struct fs_server *srv = fs_srv_of(req);
	int ret;

	fs_begin(srv);
	ret = do_rename(srv, FS_INO(parent), name, FS_INO(newparent),
			newname, flags);
	ret = ret ? (fs_end(srv, 0), ret) :
		    fs_end(srv, fs_dir_sync(srv, FS_INO(parent)) ||
				fs_dir_sync(srv, FS_INO(newparent)));
	fuse_reply_err(req, -ret);
}

/* ------------------------------------------------------------------ */
/* Listings                                                           */

struct dirent_snap {
	ext2_ino_t ino;
	int type;
	char *name;
};

struct dir_handle {
	struct dirent_snap *e;
	size_t n, cap;
};

static void snap_free(struct dir_handle *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->e[i].name);
	free(d->e);
	d->e = NULL;
	d->n = d->cap = 0;
}

static int snap_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		   int offset, int blocksize, char *buf, void *priv)
{
	struct dir_handle *d = priv;
	int len = ext2fs_dirent_name_len(de);
	struct dirent_snap *s;

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (!de->inode)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		void *p = realloc(d->e, cap * sizeof(*d->e));

		if (!p)
			return DIRENT_ABORT;
		d->e = p;
		d->cap = cap;
	}
	s = &d->e[d->n];
	s->name = malloc((size_t)len + 1);
	if (!s->name)
		return DIRENT_ABORT;
	memcpy(s->name, de->name, (size_t)len);
	s->name[len] = 0;
	s->ino = de->inode;
	s->type = ext2fs_dirent_file_type(de);
	d->n++;
	return 0;
}

static int snapshot(struct fs_server *srv, ext2_ino_t ino, struct dir_handle *d)
{
	errcode_t err;

	snap_free(d);
	err = ext2fs_dir_iterate2(srv->fs, ino, 0, NULL, snap_cb, d);
	/* ext4's readdir reports a corrupt block (not a checksum failure)
	 * and lists the rest; libext2fs stops there: what came before */
	if (err == EXT2_ET_DIR_CORRUPTED) {
		fs_errno(srv, err);
		return 0;
	}
	return -fs_errno(srv, err);
}

void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	struct dir_handle *d = calloc(1, sizeof(*d));
	int ret = d ? 0 : -ENOMEM;

	fs_begin(srv);
	if (!ret)
		ret = snapshot(srv, FS_INO(ino), d);
	fs_end(srv, 0);
	if (ret) {
		if (d)
			snap_free(d);
		free(d);
		fuse_reply_err(req, -ret);
		return;
	}
	fi->fh = (uintptr_t)d;
	fi->keep_cache = 1;
	fi->cache_readdir = 1;
	if (fuse_reply_open(req, fi) == -ENOENT) {
		snap_free(d);
		free(d);
	}
}

static void list(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi, int plus)
{
	struct fs_server *srv = fs_srv_of(req);
	struct dir_handle *d = (struct dir_handle *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t used = 0, i;
	int ret = buf ? 0 : -ENOMEM;

	fs_begin(srv);
	if (!ret && off == 0) {	/* again: opendir's told the error */
		fs_errors_quiet(srv, 1);
		ret = snapshot(srv, FS_INO(ino), d);
		fs_errors_quiet(srv, 0);
	}
	for (i = (size_t)off; !ret && i < d->n; i++) {
		struct dirent_snap *s = &d->e[i];
		size_t need;

		if (!plus) {
			struct stat st;

			memset(&st, 0, sizeof(st));
			st.st_ino = s->ino;
			st.st_mode = s->type < 8 ? type_mode[s->type] : 0;
			need = fuse_add_direntry(req, buf + used, size - used,
						 s->name, &st, (off_t)i + 1);
		} else {
			struct fuse_entry_param e;
			int dot = !strcmp(s->name, ".") ||
				  !strcmp(s->name, ".."), bad = 0;

			need = fuse_add_direntry_plus(req, NULL, 0, s->name,
						      NULL, 0);
			if (need > size - used)
				break;
			if (!dot) {	/* ext4's readdir reads no inode */
				fs_errors_quiet(srv, 1);
				bad = fs_entry(srv, s->ino, &e);
				fs_errors_quiet(srv, 0);
			}
			if (dot || bad) {
				memset(&e, 0, sizeof(e));
				e.attr.st_ino = s->ino;
				e.attr.st_mode = s->type < 8 ?
						 type_mode[s->type] : 0;
			}
			if (bad) {	/* looked up again at its next use */
				e.ino = FS_FUSE_INO(s->ino);
				fs_node_lookup(srv, s->ino);
			}
			need = fuse_add_direntry_plus(req, buf + used,
						      size - used, s->name,
						      &e, (off_t)i + 1);
		}
		if (need > size - used)
			break;
		used += need;
	}
	fs_end(srv, 0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_buf(req, buf, used);
	free(buf);
}

void fs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	list(req, ino, size, off, fi, 0);
}

void fs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi)
{
	list(req, ino, size, off, fi, 1);
}

void fs_op_releasedir(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi)
{
	struct dir_handle *d = (struct dir_handle *)(uintptr_t)fi->fh;

	(void)ino;
	snap_free(d);
	free(d);
	fuse_reply_err(req, 0);
}
