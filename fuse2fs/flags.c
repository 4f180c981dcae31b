/*
 * fuse2fs/flags.c --- the inode flags as ext4 shows and takes them
 * (FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IOC_FSGETXATTR,
 * FS_IOC_GETVERSION: lsattr and chattr), the flags new inodes inherit,
 * and the immutable and append-only rules the other requests obey.
 *
 * The kernel reaches a FUSE server's ioctl for these through its
 * fileattr calls (FS_IOC_GETFLAGS and SETFLAGS, 4 bytes each way) after
 * checking what the VFS checks for every file system: the caller owns
 * the file or has CAP_FOWNER (else EPERM), and changing immutable or
 * append-only takes CAP_LINUX_IMMUTABLE.  The daemon checks again
 * with the caller's capabilities as /proc/PID/status shows them
 * (CapEff; when it cannot be read, root has them all): CAP_FOWNER or
 * the owner's uid, CAP_LINUX_IMMUTABLE, and CAP_SYS_RESOURCE for data
 * journaling, which the VFS leaves to ext4.  The attributes the kernel
 * holds are invalidated after a change (the ctime).
 *
 * What ext4 does with a new flag set is done here, but for two: a
 * change of the extents flag (ext4 migrates the file between extents and
 * block map) and of casefold (an empty directory on a casefold file
 * system): both EOPNOTSUPP.  The other modifiable flags are kept as
 * ext4 keeps them; immutable and append-only are honoured by the server
 * (fs_fixed); every change to a file marked sync (its data, size,
 * allocation, attributes, xattrs) commits before it is answered, and so
 * does every change to the entries of a directory marked sync or
 * dirsync (fs_inode_sync, fs_dir_sync: chattr(1)'s promise; the kernel's
 * FUSE client knows none of these flags and sends no FSYNC for them).
 */
#include "server.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/fs.h>

/* The flags as ext4 (fs/ext4/ext4.h) shows them and lets them be set:
 * facts of the format, spelt out. */
#define FL_SECRM	0x00000001
#define FL_UNRM		0x00000002
#define FL_COMPR	0x00000004
#define FL_SYNC		0x00000008
#define FL_IMMUTABLE	0x00000010
#define FL_APPEND	0x00000020
#define FL_NODUMP	0x00000040
#define FL_NOATIME	0x00000080
#define FL_DIRTY	0x00000100
#define FL_COMPRBLK	0x00000200
#define FL_NOCOMPR	0x00000400
#define FL_ENCRYPT	0x00000800
#define FL_INDEX	0x00001000
#define FL_JOURNAL_DATA	0x00004000
#define FL_NOTAIL	0x00008000
#define FL_DIRSYNC	0x00010000
#define FL_TOPDIR	0x00020000
#define FL_EXTENTS	0x00080000
#define FL_VERITY	0x00100000
#define FL_EOFBLOCKS	0x00400000
#define FL_DAX		0x02000000
#define FL_INLINE_DATA	0x10000000
#define FL_PROJINHERIT	0x20000000
#define FL_CASEFOLD	0x40000000

#define FL_MODIFIABLE	(FL_SECRM | FL_UNRM | FL_COMPR | FL_SYNC | \
			 FL_IMMUTABLE | FL_APPEND | FL_NODUMP | FL_NOATIME | \
			 FL_JOURNAL_DATA | FL_NOTAIL | FL_DIRSYNC | \
			 FL_TOPDIR | FL_EXTENTS | FL_EOFBLOCKS | FL_DAX | \
			 FL_PROJINHERIT | FL_CASEFOLD)
#define FL_VISIBLE	(FL_MODIFIABLE | FL_DIRTY | FL_COMPRBLK | \
			 FL_NOCOMPR | FL_ENCRYPT | FL_INDEX | FL_VERITY | \
			 FL_INLINE_DATA)
#define FL_INHERITED	(FL_SECRM | FL_UNRM | FL_COMPR | FL_SYNC | \
			 FL_NODUMP | FL_NOATIME | FL_NOCOMPR | \
			 FL_JOURNAL_DATA | FL_NOTAIL | FL_DIRSYNC | \
			 FL_PROJINHERIT | FL_CASEFOLD | FL_DAX)
/* what a regular file, and what a file neither regular nor a directory,
 * may carry */
#define FL_REG_MASK	(~(__u32)(FL_DIRSYNC | FL_TOPDIR | FL_CASEFOLD | \
				  FL_PROJINHERIT))
#define FL_OTHER_MASK	(FL_NODUMP | FL_NOATIME)
/* never together with DAX */
#define FL_DAX_EXCL	(FL_VERITY | FL_ENCRYPT | FL_JOURNAL_DATA | \
			 FL_INLINE_DATA)

static __u32 mask_flags(__u16 mode, __u32 flags)
{
	if (LINUX_S_ISDIR(mode))
		return flags;
	if (LINUX_S_ISREG(mode))
		return flags & FL_REG_MASK;
	return flags & FL_OTHER_MASK;
}

int fs_fixed(const struct fs_inode *in, int append_too)
{
	__u32 f = in->i.i_flags;

	if ((f & FL_IMMUTABLE) || (append_too && (f & FL_APPEND)))
		return -EPERM;
	return 0;
}

int fs_inode_sync(struct fs_server *srv, const struct fs_inode *in)
{
	return srv->sync || (in->i.i_flags & FL_SYNC);
}

int fs_dir_sync(struct fs_server *srv, ext2_ino_t dir)
{
	struct fs_inode in;

	if (srv->sync || srv->dirsync)
		return 1;
	return !fs_read_inode(srv, dir, &in) &&
	       (in.i.i_flags & (FL_SYNC | FL_DIRSYNC));
}

int fs_ino_fixed(struct fs_server *srv, ext2_ino_t ino, int append_too)
{
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);

	return ret ? ret : fs_fixed(&in, append_too);
}

int fs_append_only(const struct fs_inode *in)
{
	return (in->i.i_flags & FL_APPEND) != 0;
}

__u32 fs_inherit_flags(const struct fs_inode *dir, __u16 mode)
{
	return mask_flags(mode, dir->i.i_flags & FL_INHERITED);
}

static __u32 shown(const struct fs_inode *in)
{
	__u32 f = in->i.i_flags & FL_VISIBLE;

	if (LINUX_S_ISREG(in->i.i_mode))
		f &= ~(__u32)FL_PROJINHERIT;
	return f;
}

/* Has the caller capability cap (its CapEff; root when unreadable)? */
static int capable(fuse_req_t req, int cap)
{
	const struct fuse_ctx *c = fuse_req_ctx(req);
	char path[64], line[256];
	uint64_t eff = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->pid);
	f = c->pid > 0 ? fopen(path, "r") : NULL;
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %" SCNx64, &eff) == 1;
	if (f)
		fclose(f);
	if (!found)
		return c->uid == 0;
	return (eff >> cap) & 1;
}

/* FS_IOC_SETFLAGS as ext4 takes it: 0 or -errno. */
static int set_flags(fuse_req_t req, ext2_ino_t ino, __u32 flags)
{
	struct fs_server *srv = fs_srv_of(req);
	const struct fuse_ctx *c = fuse_req_ctx(req);
	struct fs_inode in;
	__u32 old, keep;
	int ret = fs_read_inode(srv, ino, &in);

	if (ret)
		return ret;
	if (srv->ro)
		return -EROFS;
	if (c->uid != fs_uid(&in) && !capable(req, CAP_FOWNER))
		return -EPERM;
	if (flags & ~(__u32)FL_VISIBLE)
		return -EOPNOTSUPP;
	flags &= FL_MODIFIABLE;
	if (mask_flags(in.i.i_mode, flags) != flags)
		return -EOPNOTSUPP;
	old = in.i.i_flags;
	/* an immutable file stays as it is but for losing immutable */
	if ((old & flags & FL_IMMUTABLE) &&
	    ((old ^ flags) & FL_MODIFIABLE & ~(__u32)FL_IMMUTABLE))
		return -EPERM;
	if (((old ^ flags) & (FL_IMMUTABLE | FL_APPEND)) &&
	    !capable(req, CAP_LINUX_IMMUTABLE))
		return -EPERM;
	if (((old ^ flags) & FL_JOURNAL_DATA) &&
	    !capable(req, CAP_SYS_RESOURCE))
		return -EPERM;
	{
		__u32 o = old, f = flags;

		if (LINUX_S_ISDIR(in.i.i_mode)) {
			o &= ~(__u32)FL_INLINE_DATA;
			f &= ~(__u32)FL_INLINE_DATA;
		}
		if (((f & FL_DAX) && (o & FL_DAX_EXCL)) ||
		    ((f & FL_DAX_EXCL) && (o & FL_DAX)))
			return -EOPNOTSUPP;
	}
	/* ours: no migration between extents and block map, no casefold
	 * change */
	if ((old ^ flags) & (FL_EXTENTS | FL_CASEFOLD))
		return -EOPNOTSUPP;
	keep = old & ~(__u32)(FL_MODIFIABLE & ~FL_EXTENTS);
	in.i.i_flags = keep | (flags & FL_MODIFIABLE & ~(__u32)FL_EXTENTS);
	fs_set_times(srv, &in, FS_T_C, NULL);
	return fs_write_inode(srv, ino, &in);
}

/* FS_IOC_FSGETXATTR: the flags as xflags, the project id. */
static void get_fsxattr(struct fs_server *srv, const struct fs_inode *in,
			struct fsxattr *x)
{
	static const struct { __u32 fl, xfl; } map[] = {
		{ FL_SYNC, FS_XFLAG_SYNC },
		{ FL_IMMUTABLE, FS_XFLAG_IMMUTABLE },
		{ FL_APPEND, FS_XFLAG_APPEND },
		{ FL_NODUMP, FS_XFLAG_NODUMP },
		{ FL_NOATIME, FS_XFLAG_NOATIME },
		{ FL_DAX, FS_XFLAG_DAX },
		{ FL_PROJINHERIT, FS_XFLAG_PROJINHERIT },
	};
	__u32 f = shown(in);
	size_t i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (f & map[i].fl)
			x->fsx_xflags |= map[i].xfl;
	if (ext2fs_has_feature_project(srv->fs->super) &&
	    fs_has_projid(srv->fs, &in->i))
		x->fsx_projid = in->i.i_projid;
}

void fs_op_ioctl(fuse_req_t req, fuse_ino_t fino, int cmd, void *arg,
		 struct fuse_file_info *fi, unsigned flags,
		 const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino);
	unsigned int c = (unsigned int)cmd;
	struct fs_inode in;
	struct fsxattr x;
	__u32 v = 0;
	int ret;

	(void)arg; (void)fi;
	if (flags & FUSE_IOCTL_UNRESTRICTED) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	fs_begin(srv);
	ret = fs_read_inode(srv, ino, &in);
	if (ret) {
		fs_end(srv, 0);
		fuse_reply_err(req, -ret);
		return;
	}
	if (c == FS_IOC_GETFLAGS || c == FS_IOC32_GETFLAGS) {
		v = shown(&in);
		ret = out_bufsz < sizeof(v) ? -EINVAL : 0;
		fs_end(srv, 0);
		if (ret)
			fuse_reply_err(req, -ret);
		else
			fuse_reply_ioctl(req, 0, &v, sizeof(v));
	} else if (c == FS_IOC_SETFLAGS || c == FS_IOC32_SETFLAGS) {
		if (in_bufsz < sizeof(v))
			ret = -EINVAL;
		else
			memcpy(&v, in_buf, sizeof(v));
		if (!ret)
			ret = set_flags(req, ino, v);
		ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, 0);
		if (!ret && srv->se)	/* the ctime the kernel holds */
			fuse_lowlevel_notify_inval_inode(srv->se, fino, -1,
							 0);
		if (ret)
			fuse_reply_err(req, -ret);
		else
			fuse_reply_ioctl(req, 0, NULL, 0);
	} else if (c == FS_IOC_GETVERSION || c == FS_IOC32_GETVERSION) {
		v = in.i.i_generation;
		fs_end(srv, 0);
		if (out_bufsz < sizeof(v))
			fuse_reply_err(req, EINVAL);
		else
			fuse_reply_ioctl(req, 0, &v, sizeof(v));
	} else if (c == FS_IOC_FSGETXATTR) {
		get_fsxattr(srv, &in, &x);
		fs_end(srv, 0);
		if (out_bufsz < sizeof(x))
			fuse_reply_err(req, EINVAL);
		else
			fuse_reply_ioctl(req, 0, &x, sizeof(x));
	} else {
		fs_end(srv, 0);
		fuse_reply_err(req, ENOTTY);
	}
}
