/*
 * fuse2fs/xattr.c --- extended attributes as ext4 keeps them: the
 * user., trusted., security. and system.posix_acl_* namespaces (others:
 * EOPNOTSUPP), XATTR_CREATE and XATTR_REPLACE, trusted.* listed to root
 * only, ctime on every change.  An access ACL sets the mode (the setgid
 * bit cleared for a caller outside the file's group) and is kept only
 * when it says more than the mode; a chmod sets the ACL's entries the
 * mode speaks for.  libext2fs converts ACLs to and from ext4's format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "server.h"

static int name_ok(const char *name)
{
	static const char *const prefixes[] = { "user.", "trusted.",
						"security." };
	size_t i;

	if (!strcmp(name, FS_ACL_ACCESS) || !strcmp(name, FS_ACL_DEFAULT))
		return 0;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return name[strlen(prefixes[i])] ? 0 : -EINVAL;
	return -EOPNOTSUPP;
}

static int open_xattrs(struct fs_server *srv, ext2_ino_t ino,
		       struct ext2_xattr_handle **h)
{
	errcode_t err = ext2fs_xattrs_open(srv->fs, ino, h);

	if (err == EXT2_ET_MISSING_EA_FEATURE)
		return -EOPNOTSUPP;
	if (!err) {
		err = ext2fs_xattrs_read(*h);
		if (err)
			ext2fs_xattrs_close(h);
	}
	return -fs_errno(srv, err);
}

int fs_xattr_get(struct fs_server *srv, ext2_ino_t ino, const char *name,
		 void *buf, size_t size)
{
	struct ext2_xattr_handle *h;
	void *value = NULL;
	size_t len = 0;
	errcode_t err;
	int ret = open_xattrs(srv, ino, &h);

	if (ret)
		return ret;
	err = ext2fs_xattr_get(h, name, &value, &len);
	ext2fs_xattrs_close(&h);
	if (err == EXT2_ET_EA_KEY_NOT_FOUND)
		return -ENODATA;
	if (err)
		return -fs_errno(srv, err);
	if (buf && len > size)
		ret = -ERANGE;
	else if (buf)
		memcpy(buf, value, len);
	ext2fs_free_mem(&value);
	return ret ? ret : (int)len;
}

/*
 * After a removal, or a set that moved the value into the inode (a value
 * that fits there now, as ext4 places it: the inode first): an xattr
 * block left without an entry is let go, as ext4 lets it go (libext2fs
 * 1.47.0 writes it back empty, still the inode's).  ext2fs_free_ext_attr drops the inode's reference: the
 * block's refcount, the block (on bigalloc its cluster) freed at 0, one
 * block (a cluster) less in i_blocks.
 */
static errcode_t drop_empty_block(struct fs_server *srv, ext2_ino_t ino)
{
	ext2_filsys fs = srv->fs;
	struct ext2_ext_attr_entry *first;
	struct fs_inode in;
	blk64_t blk;
	char *buf = NULL;
	errcode_t err;

	if (fs_read_inode(srv, ino, &in))
		return EXT2_ET_NO_MEMORY;
	blk = ext2fs_file_acl_block(fs, FS_I(&in));
	if (!blk)
		return 0;
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (!err)
		err = ext2fs_read_ext_attr3(fs, blk, buf, ino);
	first = (struct ext2_ext_attr_entry *)
		(buf + sizeof(struct ext2_ext_attr_header));
	if (!err && EXT2_EXT_IS_LAST_ENTRY(first)) {
		err = ext2fs_free_ext_attr(fs, ino, &in.i);
		if (!err && fs_write_inode(srv, ino, &in))
			err = EXT2_ET_NO_MEMORY;
	}
	ext2fs_free_mem(&buf);
	return err;
}

int fs_xattr_set(struct fs_server *srv, ext2_ino_t ino, const char *name,
		 const void *value,
		 size_t size)
{
	struct ext2_xattr_handle *h;
	errcode_t err;
	int ret = open_xattrs(srv, ino, &h);

	if (ret)
		return ret;
	if (value)
		err = ext2fs_xattr_set(h, name, value, size);
	else
		err = ext2fs_xattr_remove(h, name);
	if (!err)
		err = ext2fs_xattrs_close(&h);
	else
		ext2fs_xattrs_close(&h);
	if (!err)
		err = drop_empty_block(srv, ino);
	if (err == EXT2_ET_EA_KEY_NOT_FOUND)
		return -ENODATA;
	return -fs_errno(srv, err);
}

int fs_acl_chmod(struct fs_server *srv, ext2_ino_t ino, mode_t mode)
{
	unsigned char v[FS_ACL_MAX_SIZE];
	int n = fs_xattr_get(srv, ino, FS_ACL_ACCESS, v, sizeof(v));

	if (n == -ENODATA || n == -EOPNOTSUPP || n == -ERANGE ||
	    (n > 0 && !fs_acl_valid(v, (size_t)n)))
		return 0;
	if (n <= 0)
		return n;
	fs_acl_apply_mode(v, (size_t)n, mode);
	return fs_xattr_set(srv, ino, FS_ACL_ACCESS, v, (size_t)n);
}

/* Does name hold exactly value (of size bytes)?  ext4 leaves the inode
 * and its ctime as they are when it does. */
static int same_value(struct fs_server *srv, ext2_ino_t ino, const char *name,
		      const char *value,
		      size_t size)
{
	char *cur = malloc(size + 1);
	int n = cur ? fs_xattr_get(srv, ino, name, cur, size + 1) : -ENOMEM;
	int same = n >= 0 && (size_t)n == size && !memcmp(cur, value, size);

	free(cur);
	return same;
}

/* An access ACL: the mode from it; the ACL kept if it says more. */
static int set_access_acl(fuse_req_t req, ext2_ino_t ino, const char *value,
			  size_t size)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fs_inode in;
	int equiv, ret;
	mode_t mode;

	if (!fs_acl_valid((const unsigned char *)value, size))
		return -EINVAL;
	ret = fs_read_inode(srv, ino, &in);
	if (ret)
		return ret;
	mode = (in.i.i_mode & ~(mode_t)0777) |
	       fs_acl_mode((const unsigned char *)value, size, &equiv);
	if ((mode & S_ISGID) && !fs_in_group(req, fs_gid(&in)))
		mode &= ~(mode_t)S_ISGID;
	/* ext4 changes ctime only for a new mode or a change of the
	 * xattr: an ACL the mode says all of, where there was none,
	 * changes nothing */
	if (mode != in.i.i_mode) {
		in.i.i_mode = (__u16)mode;
		fs_set_times(srv, &in, FS_T_C, NULL);
		ret = fs_write_inode(srv, ino, &in);
	}
	if (!ret && !equiv && same_value(srv, ino, FS_ACL_ACCESS, value, size))
		return 0;
	if (!ret && !equiv)
		ret = fs_xattr_set(srv, ino, FS_ACL_ACCESS, value, size);
	else if (!ret) {	/* libext2fs removes a missing one "fine" */
		ret = fs_xattr_get(srv, ino, FS_ACL_ACCESS, NULL, 0);
		if (ret == -ENODATA)
			return 0;
		if (ret >= 0)
			ret = fs_xattr_set(srv, ino, FS_ACL_ACCESS, NULL, 0);
	}
	return ret ? ret : fs_touch(srv, ino, FS_T_C);
}

/* A change to ino's xattrs commits before its answer on a +S file. */
static int ino_sync(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_inode in;

	return !fs_read_inode(srv, ino, &in) && fs_inode_sync(srv, &in);
}

/* A change of ino's xattr name begins (fs_begin): immutable and
 * append-only first, as the VFS checks them, then the name.  0, or the
 * error answered and the request ended. */
static int change_begins(fuse_req_t req, ext2_ino_t ino, const char *name)
{
	struct fs_server *srv = fs_srv_of(req);
	int ret;

	fs_begin(srv);
	ret = fs_ino_fixed(srv, ino, 1);
	if (!ret)
		ret = name_ok(name);
	if (ret) {
		fs_end(srv, 0);
		fuse_reply_err(req, -ret);
	}
	return ret;
}

void fs_op_setxattr(fuse_req_t req, fuse_ino_t fino, const char *name,
		    const char *value, size_t size, int flags)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino);
	int ret, exists;

	if (change_begins(req, ino, name))
		return;
	exists = fs_xattr_get(srv, ino, name, NULL, 0);
	if (exists < 0 && exists != -ENODATA)
		ret = exists;
	else if ((flags & XATTR_CREATE) && exists >= 0)
		ret = -EEXIST;
	else if ((flags & XATTR_REPLACE) && exists < 0)
		ret = -ENODATA;
	else if (!strcmp(name, FS_ACL_ACCESS))
		ret = set_access_acl(req, ino, value, size);
	else if (!strcmp(name, FS_ACL_DEFAULT) &&
		 !fs_acl_valid((const unsigned char *)value, size))
		ret = -EINVAL;
	else if (exists >= 0 && same_value(srv, ino, name, value, size))
		ret = 0;
	else if (!(ret = fs_xattr_set(srv, ino, name, value, size)))
		ret = fs_touch(srv, ino, FS_T_C);
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, ino_sync(srv, ino));
	fuse_reply_err(req, -ret);
}

void fs_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    size_t size)
{
	struct fs_server *srv = fs_srv_of(req);
	char *buf = NULL;
	int ret = name_ok(name);

	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	if (size) {
		buf = malloc(size);
		if (!buf) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
	}
	fs_begin(srv);
	ret = fs_xattr_get(srv, FS_INO(ino), name, buf, size);
	fs_end(srv, 0);
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else if (!size)
		fuse_reply_xattr(req, (size_t)ret);
	else
		fuse_reply_buf(req, buf, (size_t)ret);
	free(buf);
}

struct list_ctx {
	char *buf;
	size_t size, used;
	int root;
};

static int list_one(char *name, char *value, size_t value_len, void *data)
{
	struct list_ctx *c = data;
	size_t len = strlen(name) + 1;

	(void)value;
	(void)value_len;
	if (!c->root && !strncmp(name, "trusted.", 8))
		return 0;
	if (name_ok(name))	/* system.data (inline data): ext4 hides it */
		return 0;
	if (c->buf && c->used + len <= c->size)
		memcpy(c->buf + c->used, name, len);
	c->used += len;
	return 0;
}

void fs_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct fs_server *srv = fs_srv_of(req);
	struct ext2_xattr_handle *h;
	struct list_ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.size = size;
	c.root = fuse_req_ctx(req)->uid == 0;
	if (size && !(c.buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fs_begin(srv);
	ret = open_xattrs(srv, FS_INO(ino), &h);
	if (ret == -EOPNOTSUPP)
		ret = 0;
	else if (!ret) {
		ret = -fs_errno(srv, ext2fs_xattrs_iterate(h, list_one, &c));
		ext2fs_xattrs_close(&h);
	}
	fs_end(srv, 0);
	if (ret)
		fuse_reply_err(req, -ret);
	else if (!size)
		fuse_reply_xattr(req, c.used);
	else if (c.used > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, c.buf, c.used);
	free(c.buf);
}

void fs_op_removexattr(fuse_req_t req, fuse_ino_t fino, const char *name)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino);
	int ret;
	int acl = !strcmp(name, FS_ACL_ACCESS) || !strcmp(name, FS_ACL_DEFAULT);

	if (change_begins(req, ino, name))
		return;
	ret = fs_xattr_get(srv, ino, name, NULL, 0);	/* libext2fs says 0 */
	if (ret >= 0 && !(ret = fs_xattr_set(srv, ino, name, NULL, 0)))
		ret = fs_touch(srv, ino, FS_T_C);
	else if (ret == -ENODATA && acl)
		ret = 0;	/* as ext4's set_acl, and no change */
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, ino_sync(srv, ino));
	fuse_reply_err(req, -ret);
}
