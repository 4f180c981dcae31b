/*
 * view_posix.c --- the kernel's answers where stock fuse2fs 1.47.0 gives
 * others; called by the mount's wrappers (view_mount.c), one operation
 * at a time.
 *
 * The mount runs with -o default_permissions (misc/fuse2fs_args.c): the
 * kernel's VFS makes every access check it makes for ext4 (search and
 * write permission with supplementary groups, sticky directories,
 * protected hard links, setattr_prepare for chmod, chown and utimes, the
 * setgid bit cleared on chmod, chown, write and truncate, the rename
 * rules).  Stock's own checks would then only refuse what the kernel
 * allowed (they know the caller's primary group only), so stock sees
 * root as the caller (fuse_get_context, interposed) and what stock did
 * in the caller's name is done here: the owner of a new inode, with the
 * group of a setgid parent.  What the VFS leaves to the file system is
 * here too:
 *  - the mode of a new inode: the parent's default ACL, inherited as
 *    posix_acl_create does, else the caller's umask (FUSE_CAP_DONT_MASK
 *    brings it unapplied);
 *  - nanoseconds in stat (stock gives seconds), times clamped to what
 *    ext4 stores (1901 to 2446) as the kernel clamps them;
 *  - the largest file (EFBIG), the most links (EMLINK);
 *  - ACLs: the mode follows a new access ACL and the ACL follows chmod;
 *  - xattr names outside ext4's namespaces: EOPNOTSUPP (stock writes
 *    them, and e2fsck then calls the block corrupt).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define FUSE_USE_VERSION 29
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "view.h"
#include "view_posix.h"

#include <sys/xattr.h>

#define ACL_ACCESS	"system.posix_acl_access"
#define ACL_DEFAULT	"system.posix_acl_default"
#define LINK_MAX_EXT4	65000		/* EXT4_LINK_MAX */
#define TIME_MIN	((time_t)INT32_MIN)
#define TIME_MAX	((time_t)INT32_MAX + (3LL << 32))	/* 2446 */

enum { ACL_USER_OBJ = 1, ACL_USER = 2, ACL_GROUP_OBJ = 4, ACL_GROUP = 8,
       ACL_MASK = 0x10, ACL_OTHER = 0x20 };

/* ------------------------------------------------------------------ */
/* The caller                                                         */

static __thread int as_root;
static __thread struct fuse_context fake;

typedef struct fuse_context *(*ctx_fn)(void);

static struct fuse_context *real_context(void)
{
	LJ_REAL(fuse_get_context, ctx_fn);

	return real ? real() : NULL;
}

void lj_posix_stock_as_root(int on)
{
	as_root = on;
}

LJ_EXPORT struct fuse_context *fuse_get_context(void)
{
	struct fuse_context *c = real_context();

	if (!as_root || !c)
		return c;
	fake = *c;
	fake.uid = 0;
	fake.gid = 0;
	return &fake;
}

typedef int (*groups_fn)(int, gid_t *);

/* Is the caller root, or in group g (primary or supplementary)? */
static int in_group_or_root(gid_t g)
{
	struct fuse_context *c = real_context();
	gid_t list[256];
	int i, n;
	LJ_REAL(fuse_getgroups, groups_fn);

	if (!c || c->uid == 0 || c->gid == g)
		return 1;
	n = real ? real(256, list) : 0;
	for (i = 0; i < n && i < 256; i++)
		if (list[i] == g)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Inodes                                                             */

static int lookup(const char *path, ext2_ino_t *ino,
		  struct ext2_inode_large *inode)
{
	ext2_filsys fs = lj_view_fs();

	if (!fs || ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino))
		return -ENOENT;
	memset(inode, 0, sizeof(*inode));
	if (ext2fs_read_inode_full(fs, *ino, (struct ext2_inode *)inode,
				   sizeof(*inode)))
		return -EIO;
	return 0;
}

/* The parent directory of path (a copy in buf). */
static const char *parent_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= size)
		n = size - 1;
	if (!n)
		return "/";
	memcpy(buf, path, n);
	buf[n] = 0;
	return buf;
}

static time_t inode_time(__u32 lo, __u32 extra, int has_extra, long *nsec)
{
	time_t t = (__s32)lo;

	*nsec = 0;
	if (has_extra) {
		t += (time_t)(extra & 3) << 32;
		*nsec = (long)(extra >> 2);
	}
	return t;
}

void lj_posix_stat(struct stat *st)
{
	ext2_filsys fs = lj_view_fs();
	struct ext2_inode_large in;
	unsigned int extra;

	if (!fs || !st->st_ino)
		return;
	memset(&in, 0, sizeof(in));
	if (ext2fs_read_inode_full(fs, (ext2_ino_t)st->st_ino,
				   (struct ext2_inode *)&in, sizeof(in)))
		return;
	extra = EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE ?
		EXT2_GOOD_OLD_INODE_SIZE + in.i_extra_isize : 0;
#define XT(f, lo, ex) \
	st->f.tv_sec = inode_time(in.lo, in.ex, extra >= \
		offsetof(struct ext2_inode_large, ex) + 4, &st->f.tv_nsec)
	XT(st_atim, i_atime, i_atime_extra);
	XT(st_mtim, i_mtime, i_mtime_extra);
	XT(st_ctim, i_ctime, i_ctime_extra);
#undef XT
}

static void clamp_one(const struct timespec *in, struct timespec *out)
{
	*out = *in;
	if (in->tv_nsec == UTIME_NOW || in->tv_nsec == UTIME_OMIT)
		return;
	if (out->tv_sec < TIME_MIN)
		out->tv_sec = TIME_MIN;
	if (out->tv_sec > TIME_MAX)
		out->tv_sec = TIME_MAX;
	if (out->tv_sec == TIME_MIN || out->tv_sec == TIME_MAX)
		out->tv_nsec = 0;	/* as timestamp_truncate */
}

void lj_posix_clamp_times(const struct timespec in[2], struct timespec out[2])
{
	clamp_one(&in[0], &out[0]);
	clamp_one(&in[1], &out[1]);
}

/* The largest size ext4 gives the inode (the kernel's s_maxbytes for
 * extent-mapped files, s_bitmap_maxbytes for block-mapped ones). */
static off_t max_size(ext2_filsys fs, const struct ext2_inode_large *in)
{
	int bits = EXT2_BLOCK_SIZE_BITS(fs->super);
	int huge = ext2fs_has_feature_huge_file(fs->super);
	uint64_t a = fs->blocksize / 4, blocks, limit = UINT64_MAX;

	if (!huge)	/* i_blocks: 2^32 sectors */
		limit = (((1ULL << 32) - 1) >> (bits - 9)) << bits;
	if (in->i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) {
		blocks = (1ULL << 32) - 1;
	} else {
		blocks = EXT2_NDIR_BLOCKS + a + a * a + a * a * a;
		if (!huge) {	/* the mapping blocks count in i_blocks */
			uint64_t meta = 1 + 1 + a + 1 + a + a * a;

			limit = ((((1ULL << 32) - 1) >> (bits - 9)) - meta)
				<< bits;
		}
		if (blocks > (1ULL << 32) - 1)
			blocks = (1ULL << 32) - 1;
	}
	if ((blocks << bits) < limit)
		limit = blocks << bits;
	return (off_t)limit;
}

/* The inode of path, or of the open file fi (through stock's fgetattr). */
static int file_inode(const struct fuse_operations *ops, const char *path,
		      struct fuse_file_info *fi, struct ext2_inode_large *in)
{
	ext2_filsys fs = lj_view_fs();
	struct stat st;
	ext2_ino_t ino;
	int ret;

	if (!fs)
		return -EIO;
	if (!fi)
		return lookup(path, &ino, in);
	if (!ops->fgetattr)
		return -EIO;
	ret = ops->fgetattr(path, &st, fi);
	if (ret)
		return ret;
	memset(in, 0, sizeof(*in));
	if (ext2fs_read_inode_full(fs, (ext2_ino_t)st.st_ino,
				   (struct ext2_inode *)in, sizeof(*in)))
		return -EIO;
	return 0;
}

int lj_posix_size_ok(const struct fuse_operations *ops, const char *path,
		     struct fuse_file_info *fi, off_t size)
{
	struct ext2_inode_large in;
	int ret = file_inode(ops, path, fi, &in);

	if (ret)
		return ret == -ENOENT ? 0 : ret;	/* stock says it */
	return size > max_size(lj_view_fs(), &in) ? -EFBIG : 0;
}

int lj_posix_write_ok(const struct fuse_operations *ops, const char *path,
		      struct fuse_file_info *fi, off_t off, size_t *len)
{
	struct ext2_inode_large in;
	off_t max;
	int ret = file_inode(ops, path, fi, &in);

	if (ret)
		return ret == -ENOENT ? 0 : ret;
	max = max_size(lj_view_fs(), &in);
	if (off >= max)
		return -EFBIG;
	if ((off_t)*len > max - off)
		*len = (size_t)(max - off);
	return 0;
}

int lj_posix_link_ok(const char *src)
{
	struct ext2_inode_large in;
	ext2_ino_t ino;

	if (lookup(src, &ino, &in))
		return 0;	/* stock answers */
	return in.i_links_count >= LINK_MAX_EXT4 ? -EMLINK : 0;
}

/* mkdir: -EMLINK when the parent's link count is at 65000 (ext4's answer
 * for a directory without an index; libext2fs would count on to 65535
 * and wrap). */
int lj_posix_mkdir_ok(const char *path)
{
	struct ext2_inode_large in;
	ext2_ino_t ino;
	char buf[PATH_MAX];

	if (lookup(parent_of(path, buf, sizeof(buf)), &ino, &in))
		return 0;
	return in.i_links_count >= LINK_MAX_EXT4 ? -EMLINK : 0;
}

/* ------------------------------------------------------------------ */
/* ACLs (their xattr form: a 4-byte version 2 header, then entries of  */
/* tag le16, permissions le16, id le32)                               */

static unsigned int le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static void set_perm(unsigned char *e, unsigned int perm)
{
	e[2] = perm & 7;
	e[3] = 0;
}

/* -EINVAL unless v is a well-formed ACL. */
static int acl_check(const unsigned char *v, size_t size)
{
	size_t i;

	if (size < 4 || (size - 4) % 8 || v[0] != 2 ||
	    v[1] || v[2] || v[3])
		return -EINVAL;
	for (i = 4; i < size; i += 8)
		switch (le16(v + i)) {
		case ACL_USER_OBJ: case ACL_USER: case ACL_GROUP_OBJ:
		case ACL_GROUP: case ACL_MASK: case ACL_OTHER:
			break;
		default:
			return -EINVAL;
		}
	return 0;
}

/* The permission bits an access ACL gives (the group class from the mask
 * entry when there is one); *equiv: the ACL says no more than them. */
static mode_t acl_perm(const unsigned char *v, size_t size, int *equiv)
{
	size_t i;
	int group = 0, mask = -1;
	mode_t perm = 0;

	*equiv = 1;
	for (i = 4; i < size; i += 8) {
		unsigned int bits = v[i + 2] & 7;

		switch (le16(v + i)) {
		case ACL_USER_OBJ:	perm |= bits << 6; break;
		case ACL_GROUP_OBJ:	group = (int)bits; break;
		case ACL_MASK:		mask = (int)bits; *equiv = 0; break;
		case ACL_OTHER:		perm |= bits; break;
		default:		*equiv = 0; break;
		}
	}
	return perm | (mode_t)(mask >= 0 ? mask : group) << 3;
}

/* posix_acl_create_masq: acl (a copy of the default ACL) masked by the
 * requested mode; *mode's permission bits as the ACL leaves them.
 * Returns whether the ACL says more than the mode. */
static int acl_create_masq(unsigned char *v, size_t size, mode_t *mode)
{
	unsigned char *group = NULL, *mask = NULL;
	mode_t m = *mode;
	int not_equiv = 0;
	size_t i;

	for (i = 4; i < size; i += 8) {
		unsigned char *e = v + i;
		unsigned int perm = e[2] & 7;

		switch (le16(e)) {
		case ACL_USER_OBJ:
			perm &= (m >> 6) & 7;
			set_perm(e, perm);
			m &= (perm << 6) | ~(mode_t)0700;
			break;
		case ACL_USER: case ACL_GROUP:
			not_equiv = 1;
			break;
		case ACL_GROUP_OBJ:
			group = e;
			break;
		case ACL_OTHER:
			perm &= m & 7;
			set_perm(e, perm);
			m &= perm | ~(mode_t)07;
			break;
		case ACL_MASK:
			mask = e;
			not_equiv = 1;
			break;
		}
	}
	if (mask || group) {
		unsigned char *e = mask ? mask : group;
		unsigned int perm = e[2] & 7 & (m >> 3);

		set_perm(e, perm);
		m &= (perm << 3) | ~(mode_t)070;
	}
	*mode = (*mode & ~(mode_t)0777) | (m & 0777);
	return not_equiv;
}

/* posix_acl_chmod: the entries the mode speaks for follow it. */
static void acl_chmod(unsigned char *v, size_t size, mode_t mode)
{
	unsigned char *group = NULL, *mask = NULL;
	size_t i;

	for (i = 4; i < size; i += 8) {
		unsigned char *e = v + i;

		switch (le16(e)) {
		case ACL_USER_OBJ:	set_perm(e, mode >> 6); break;
		case ACL_GROUP_OBJ:	group = e; break;
		case ACL_MASK:		mask = e; break;
		case ACL_OTHER:		set_perm(e, mode); break;
		}
	}
	if (mask)
		set_perm(mask, mode >> 3);
	else if (group)
		set_perm(group, mode >> 3);
}

static int get_acl(const struct fuse_operations *ops, const char *path,
		   const char *name, unsigned char *buf, size_t size)
{
	int ret;

	if (!ops->getxattr)
		return 0;
	ret = ops->getxattr(path, name, (char *)buf, size);
	if (ret == -ENODATA || ret == -ENOTSUP || ret == -ENOENT)
		return 0;
	if (ret > 0 && acl_check(buf, (size_t)ret))
		return 0;	/* not one we read: as none */
	return ret;
}

int lj_posix_chmod_acl(const struct fuse_operations *ops, const char *path,
		       mode_t mode)
{
	unsigned char v[LJ_ACL_SIZE];
	int n = get_acl(ops, path, ACL_ACCESS, v, sizeof(v));

	if (n <= 0 || !ops->setxattr)
		return n;
	acl_chmod(v, (size_t)n, mode);
	return ops->setxattr(path, ACL_ACCESS, (const char *)v, (size_t)n, 0);
}

int lj_posix_set_access_acl(const struct fuse_operations *ops,
			    const char *path, const char *value, size_t size,
			    int flags)
{
	struct ext2_inode_large in;
	ext2_ino_t ino;
	mode_t mode;
	int equiv, ret = acl_check((const unsigned char *)value, size);

	if (ret)
		return ret;
	if (!ops->chmod || lookup(path, &ino, &in))
		return ops->setxattr(path, ACL_ACCESS, value, size, flags);
	mode = (in.i_mode & ~(mode_t)0777) |
	       acl_perm((const unsigned char *)value, size, &equiv);
	if ((mode & S_ISGID) && !in_group_or_root(inode_gid(in)))
		mode &= ~(mode_t)S_ISGID;
	ret = ops->chmod(path, mode & 07777);
	if (!ret && !equiv)
		ret = ops->setxattr(path, ACL_ACCESS, value, size, flags);
	else if (!ret && ops->removexattr)	/* none, or the old one */
		(void)ops->removexattr(path, ACL_ACCESS);
	return ret;
}

/* ------------------------------------------------------------------ */
/* New inodes                                                         */

void lj_posix_init(struct fuse_conn_info *conn)
{
	ext2_filsys fs = lj_view_fs();

	conn->want |= FUSE_CAP_DONT_MASK;
	if (fs)
		fs->umask = 0;	/* stock's mkdir applies it */
}

int lj_posix_new_begin(const struct fuse_operations *ops, const char *path,
		       mode_t *mode, struct lj_posix_new *n)
{
	struct fuse_context *c = real_context();
	char buf[PATH_MAX];
	int ret;

	memset(n, 0, sizeof(*n));
	n->isdir = S_ISDIR(*mode);
	n->islnk = S_ISLNK(*mode);
	if (n->islnk)
		return 0;	/* symlinks: 0777, no ACL, no umask */
	ret = get_acl(ops, parent_of(path, buf, sizeof(buf)), ACL_DEFAULT,
		      n->dacl, sizeof(n->dacl));
	if (ret < 0)
		return ret;
	if (ret == 0) {
		if (c && !(c->umask & ~(mode_t)0777))
			*mode &= ~c->umask;
		return 0;
	}
	n->acl = 1;
	n->len = (size_t)ret;
	memcpy(n->aacl, n->dacl, n->len);
	n->access = acl_create_masq(n->aacl, n->len, mode);
	return 0;
}

/* Undo a creation whose inheritance failed. */
static void undo(const struct fuse_operations *ops, const char *path,
		 int isdir)
{
	if (isdir && ops->rmdir)
		(void)ops->rmdir(path);
	else if (!isdir && ops->unlink)
		(void)ops->unlink(path);
}

int lj_posix_new_end(const struct fuse_operations *ops, const char *path,
		     struct lj_posix_new *n)
{
	ext2_filsys fs = lj_view_fs();
	struct fuse_context *c = real_context();
	struct ext2_inode_large in, dir;
	ext2_ino_t ino, dino;
	char buf[PATH_MAX];
	uid_t uid = c ? c->uid : 0;
	gid_t gid = c ? c->gid : 0;
	int ret;

	if (!fs)
		return 0;
	ret = lookup(parent_of(path, buf, sizeof(buf)), &dino, &dir);
	if (!ret)
		ret = lookup(path, &ino, &in);
	if (ret) {
		undo(ops, path, n->isdir);
		return ret;
	}
	if (dir.i_mode & S_ISGID) {
		gid = inode_gid(dir);
		if (n->isdir)
			in.i_mode |= S_ISGID;
	}
	in.i_uid = (__u16)uid;
	ext2fs_set_i_uid_high(in, uid >> 16);
	in.i_gid = (__u16)gid;
	ext2fs_set_i_gid_high(in, gid >> 16);
	if (ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in,
				    sizeof(in))) {
		undo(ops, path, n->isdir);
		return -EIO;
	}
	if (n->acl && n->access)
		ret = ops->setxattr(path, ACL_ACCESS, (const char *)n->aacl,
				    n->len, 0);
	if (!ret && n->acl && n->isdir)
		ret = ops->setxattr(path, ACL_DEFAULT, (const char *)n->dacl,
				    n->len, 0);
	if (ret)
		undo(ops, path, n->isdir);
	return ret;
}

/* ------------------------------------------------------------------ */
/* xattr names                                                        */

int lj_posix_xattr_name(const char *name)
{
	static const char *const prefixes[] = { "user.", "trusted.",
						"security." };
	size_t i;

	if (!strcmp(name, ACL_ACCESS) || !strcmp(name, ACL_DEFAULT))
		return 0;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return name[strlen(prefixes[i])] ? 0 : -EINVAL;
	return -EOPNOTSUPP;
}

static int xattr_exists(const struct fuse_operations *ops, const char *path,
			const char *name)
{
	return ops->getxattr && ops->getxattr(path, name, NULL, 0) >= 0;
}

int lj_posix_xattr_flags(const struct fuse_operations *ops, const char *path,
			 const char *name, int flags)
{
	if ((flags & XATTR_CREATE) && xattr_exists(ops, path, name))
		return -EEXIST;
	if ((flags & XATTR_REPLACE) && !xattr_exists(ops, path, name))
		return -ENODATA;
	return 0;
}

int lj_posix_removexattr(const struct fuse_operations *ops, const char *path,
			 const char *name)
{
	int acl = !strcmp(name, ACL_ACCESS) || !strcmp(name, ACL_DEFAULT);

	if (!xattr_exists(ops, path, name))
		return acl ? 0 : -ENODATA;	/* as ext4's set_acl */
	return ops->removexattr(path, name);
}

/* listxattr without trusted.* unless the caller is root (the kernel
 * shows them to CAP_SYS_ADMIN only). */
int lj_posix_listxattr(const struct fuse_operations *ops, const char *path,
		       char *list, size_t size)
{
	struct fuse_context *c = real_context();
	char *all, *p, *end;
	size_t out = 0;
	int n = ops->listxattr(path, NULL, 0);

	if (n <= 0 || (c && c->uid == 0))
		return n <= 0 ? n : ops->listxattr(path, list, size);
	all = malloc((size_t)n);
	if (!all)
		return -ENOMEM;
	n = ops->listxattr(path, all, (size_t)n);
	for (p = all, end = all + (n > 0 ? n : 0); p < end;
	     p += strlen(p) + 1) {
		size_t len = strlen(p) + 1;

		if (!strncmp(p, "trusted.", 8))
			continue;
		if (size && out + len > size) {
			free(all);
			return -ERANGE;
		}
		if (size)
			memcpy(list + out, p, len);
		out += len;
	}
	free(all);
	return n < 0 ? n : (int)out;
}

/* ------------------------------------------------------------------ */
/* ACLs checked by the kernel                                         */

/*
 * libfuse 2 cannot ask for FUSE_POSIX_ACL (its protocol predates it): in
 * its INIT reply, the first reply written to /dev/fuse, the flag is set
 * here, so that the kernel checks access with the ACLs (named users and
 * groups, the mask) as it does for ext4, reading them through getxattr
 * and caching them until a setxattr, removexattr or chmod.  What the
 * flag asks of the file system (the mode and the ACL kept in step,
 * default ACLs inherited, the umask applied) is above.
 */
#define FUSE_INIT_POSIX_ACL	(1U << 20)

typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
static int init_seen;

static int is_fuse_dev(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == 10 && minor(st.st_rdev) == 229;
}

LJ_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	unsigned char arg[256];
	struct iovec mine[2];
	uint32_t flags;
	LJ_REAL(writev, writev_fn);

	if (!real)
		return -1;
	if (lj_view_mode != LJ_VIEW_MOUNT || init_seen || n != 2 ||
	    iov[0].iov_len != 16 || iov[1].iov_len < 16 ||
	    iov[1].iov_len > sizeof(arg) || !is_fuse_dev(fd))
		return real(fd, iov, n);
	init_seen = 1;		/* the first reply: INIT's */
	memcpy(arg, iov[1].iov_base, iov[1].iov_len);
	if (*(const int32_t *)((const char *)iov[0].iov_base + 4) ||
	    ((uint32_t *)arg)[0] != 7)
		return real(fd, iov, n);
	memcpy(&flags, arg + 12, 4);
	flags |= FUSE_INIT_POSIX_ACL;
	memcpy(arg + 12, &flags, 4);
	mine[0] = iov[0];
	mine[1].iov_base = arg;
	mine[1].iov_len = iov[1].iov_len;
	return real(fd, mine, 2);
}

/* ------------------------------------------------------------------ */
/* fallocate                                                          */

/*
 * Stock fuse2fs allocates unwritten extents (ext2fs_fallocate without
 * FORCE_INIT); a write into one has libext2fs convert it block by block
 * (ext2fs_bmap2 setting the mapping of each block), and on a file
 * preallocated then written all over in random order (fio --rw=randwrite
 * --verify) that left extents e2fsck calls out of range ("end of extent
 * exceeds allowed value") and blocks that read back as zeros.  Blocks
 * allocated here are written with zeros and mapped initialised, so no
 * write converts anything.
 */
errcode_t lj_posix_fallocate(lj_fallocate_fn real, ext2_filsys fs, int flags,
			     ext2_ino_t ino, struct ext2_inode *inode,
			     blk64_t goal, blk64_t start, blk64_t len)
{
	struct ext2_inode mine;
	blk64_t eof, head;
	int init = (flags & ~EXT2_FALLOCATE_FORCE_UNINIT) |
		   EXT2_FALLOCATE_FORCE_INIT | EXT2_FALLOCATE_ZERO_BLOCKS;
	errcode_t err;

	if (flags & EXT2_FALLOCATE_INIT_BEYOND_EOF)
		return real(fs, init, ino, inode, goal, start, len);
	if (!inode) {
		err = ext2fs_read_inode(fs, ino, &mine);
		if (err)
			return err;
		inode = &mine;
	}
	/* keep-size: unwritten past the size (e2fsck wants no written
	 * block there), written below it */
	eof = (EXT2_I_SIZE(inode) + fs->blocksize - 1) / fs->blocksize;
	head = start < eof ? (eof - start < len ? eof - start : len) : 0;
	if (head) {
		err = real(fs, init, ino, inode, goal, start, head);
		if (err)
			return err;
	}
	if (head < len)
		return real(fs, flags, ino, inode, goal, start + head,
			    len - head);
	return 0;
}
