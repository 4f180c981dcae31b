/*
 * view_posix.h --- the kernel's answers where stock fuse2fs 1.47.0 gives
 * others (view_posix.c), for the mount's wrappers (view_mount.c).  Each
 * call runs inside an operation (between op_begin and op_end), with the
 * stock operations of the table in ops.
 */
#ifndef LJ_VIEW_POSIX_H
#define LJ_VIEW_POSIX_H

#include <sys/stat.h>
#include <sys/types.h>

#include <fuse.h>
#include <ext2fs/ext2fs.h>

/* Stock sees root as the caller while on is set (this thread): the
 * kernel (default_permissions) has made the access checks, and stock's
 * own use the primary group only. */
void lj_posix_stock_as_root(int on);

/* init: the umask reaches us (FUSE_CAP_DONT_MASK), libext2fs adds none. */
void lj_posix_init(struct fuse_conn_info *conn);

/* A new inode (create, mknod, mkdir, symlink at path): begin sets *mode
 * as the kernel would make it (the parent's default ACL, else the
 * caller's umask); end sets the owner (the parent's group in a setgid
 * directory, which passes its setgid bit on to a directory) and the
 * inherited ACLs, and undoes the creation if that fails. */
#define LJ_ACL_MAX	256		/* entries we read or inherit */
#define LJ_ACL_SIZE	(4 + 8 * LJ_ACL_MAX)

struct lj_posix_new {
	int acl;			/* the parent has a default ACL */
	int access;			/* the new inode gets an access ACL */
	int isdir, islnk;
	size_t len;
	unsigned char dacl[LJ_ACL_SIZE];	/* the parent's default ACL */
	unsigned char aacl[LJ_ACL_SIZE];	/* the new access ACL */
};
int lj_posix_new_begin(const struct fuse_operations *ops, const char *path,
		       mode_t *mode, struct lj_posix_new *n);
int lj_posix_new_end(const struct fuse_operations *ops, const char *path,
		     struct lj_posix_new *n);

/* stat with nanoseconds (stock gives seconds only). */
void lj_posix_stat(struct stat *st);

/* Sizes: -EFBIG past the largest file ext4 keeps (of the inode at path,
 * or of fi's). */
int lj_posix_size_ok(const struct fuse_operations *ops, const char *path,
		     struct fuse_file_info *fi, off_t size);
/* a write of *len at off: -EFBIG at or past the largest size, else *len
 * cut to end there (as the kernel's generic_write_checks). */
int lj_posix_write_ok(const struct fuse_operations *ops, const char *path,
		      struct fuse_file_info *fi, off_t off, size_t *len);

/* link: -EMLINK at ext4's 65000 links; mkdir: at 65000 in the parent. */
int lj_posix_link_ok(const char *src);
int lj_posix_mkdir_ok(const char *path);

/* utimens: times clamped to what ext4 stores (as the kernel does). */
void lj_posix_clamp_times(const struct timespec in[2], struct timespec out[2]);

/* After a chmod: the access ACL's owner, group (mask) and other entries
 * follow the mode (posix_acl_chmod). */
int lj_posix_chmod_acl(const struct fuse_operations *ops, const char *path,
		       mode_t mode);

/* An xattr name ext4 keeps: 0, else -EOPNOTSUPP. */
int lj_posix_xattr_name(const char *name);

/* setxattr's XATTR_CREATE (-EEXIST) and XATTR_REPLACE (-ENODATA), which
 * stock ignores. */
int lj_posix_xattr_flags(const struct fuse_operations *ops, const char *path,
			 const char *name, int flags);
/* removexattr: -ENODATA for none (stock says 0), but 0 for an ACL. */
int lj_posix_removexattr(const struct fuse_operations *ops, const char *path,
			 const char *name);
/* listxattr: trusted.* for root only. */
int lj_posix_listxattr(const struct fuse_operations *ops, const char *path,
		       char *list, size_t size);

/* setxattr of an access ACL: the mode as the kernel sets it (the setgid
 * bit cleared for a caller outside the file's group). */
int lj_posix_set_access_acl(const struct fuse_operations *ops,
			    const char *path, const char *value, size_t size,
			    int flags);

/* fallocate with zero range or punch hole, to the byte as ext4 (stock
 * sees whole blocks only; view_range.c); other modes go to stock. */
int lj_posix_fallocate_range(const struct fuse_operations *ops,
			     const char *p, int mode, off_t o, off_t len,
			     struct fuse_file_info *fi);

/* The mount's ext2fs_fallocate (real: libext2fs's): blocks within the
 * file's size initialised and zeroed, those past it (keep-size) as asked
 * (libext2fs 1.47.0 corrupts the extent tree when writes turn unwritten
 * extents into written ones, block by block). */
typedef errcode_t (*lj_fallocate_fn)(ext2_filsys, int, ext2_ino_t,
				     struct ext2_inode *, blk64_t, blk64_t,
				     blk64_t);
errcode_t lj_posix_fallocate(lj_fallocate_fn real, ext2_filsys fs, int flags,
			     ext2_ino_t ino, struct ext2_inode *inode,
			     blk64_t goal, blk64_t start, blk64_t len);

#endif
