/*
 * fuse2fs/attr.c --- inodes as the kernel's ext4 shows them: stat with
 * nanoseconds, getattr, setattr (mode and the ACL in step, owner, size,
 * times with UTIME_NOW, clamped as ext4 stores them), statfs.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "server.h"

#define TIME_MIN	((int64_t)INT32_MIN)
#define TIME_MAX	((int64_t)INT32_MAX + (3LL << 32))	/* 2446 */

int fs_read_inode(ext2_ino_t ino, struct fs_inode *in)
{
	ext2_filsys fs = fs_srv.fs;
	int size = EXT2_INODE_SIZE(fs->super);

	memset(in, 0, sizeof(*in));
	if (size > (int)sizeof(*in))
		size = sizeof(*in);
	if (ino < 1 || ino > fs->super->s_inodes_count)
		return -ENOENT;
	fs_errors_inode(ino);
	return -fs_errno(ext2fs_read_inode_full(fs, ino, FS_I(in), size));
}

int fs_write_inode(ext2_ino_t ino, struct fs_inode *in)
{
	ext2_filsys fs = fs_srv.fs;
	int size = EXT2_INODE_SIZE(fs->super);

	errcode_t err;

	if (size > (int)sizeof(*in))
		size = sizeof(*in);
	fs_quota_whole(FS_I(in));
	err = ext2fs_write_inode_full(fs, ino, FS_I(in), size);
	fs_quota_whole(NULL);
	return -fs_errno(err);
}

uid_t fs_uid(const struct fs_inode *in)
{
	return in->i.i_uid | (uid_t)in->i.osd2.linux2.l_i_uid_high << 16;
}

gid_t fs_gid(const struct fs_inode *in)
{
	return in->i.i_gid | (gid_t)in->i.osd2.linux2.l_i_gid_high << 16;
}

void fs_set_owner(struct fs_inode *in, uid_t uid, gid_t gid)
{
	in->i.i_uid = (__u16)uid;
	in->i.osd2.linux2.l_i_uid_high = (__u16)(uid >> 16);
	in->i.i_gid = (__u16)gid;
	in->i.osd2.linux2.l_i_gid_high = (__u16)(gid >> 16);
}

/* Is the extra field at offset off (4 bytes) in the inode? */
static int has_extra(const struct fs_inode *in, size_t off)
{
	ext2_filsys fs = fs_srv.fs;

	if (EXT2_INODE_SIZE(fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		return 0;
	return (size_t)EXT2_GOOD_OLD_INODE_SIZE + in->i.i_extra_isize >= off + 4;
}

#define HAS_X(in, f) has_extra(in, offsetof(struct ext2_inode_large, f))

int fs_has_projid(const struct ext2_inode_large *in)
{
	return EXT2_INODE_SIZE(fs_srv.fs->super) > EXT2_GOOD_OLD_INODE_SIZE &&
	       (size_t)EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize >=
	       offsetof(struct ext2_inode_large, i_projid) + 4;
}

static void get_time(const struct fs_inode *in, __u32 lo, __u32 extra,
		     int has, struct timespec *ts)
{
	ts->tv_sec = (__s32)lo;
	ts->tv_nsec = 0;
	if (has) {
		ts->tv_sec += (time_t)(extra & 3) << 32;
		ts->tv_nsec = (long)(extra >> 2);
	}
	(void)in;
}

static void put_time(const struct timespec *ts, __u32 *lo, __u32 *extra,
		     int has)
{
	int64_t s = ts->tv_sec;
	long ns = ts->tv_nsec;

	/* ext4's range (32-bit seconds without the extra field): a time
	 * outside is clamped, and one at either end has no nanoseconds */
	if (!has) {
		*lo = (__u32)(s < INT32_MIN ? INT32_MIN :
			      s > INT32_MAX ? INT32_MAX : s);
		return;
	}
	if (s <= TIME_MIN || s >= TIME_MAX) {
		s = s < TIME_MIN ? TIME_MIN : s > TIME_MAX ? TIME_MAX : s;
		ns = 0;
	}
	*lo = (__u32)s;
	*extra = (__u32)(((s - (int32_t)(__u32)s) >> 32) & 3) |
		 ((__u32)ns << 2);
}

void fs_set_times(struct fs_inode *in, int which, const struct timespec *ts)
{
	struct timespec now;

	if (!ts) {
		clock_gettime(CLOCK_REALTIME, &now);
		ts = &now;
	}
	if (which & FS_T_A)
		put_time(ts, &in->i.i_atime, &in->i.i_atime_extra,
			 HAS_X(in, i_atime_extra));
	if (which & FS_T_M)
		put_time(ts, &in->i.i_mtime, &in->i.i_mtime_extra,
			 HAS_X(in, i_mtime_extra));
	if (which & FS_T_C)
		put_time(ts, &in->i.i_ctime, &in->i.i_ctime_extra,
			 HAS_X(in, i_ctime_extra));
	if ((which & FS_T_CR) && HAS_X(in, i_crtime_extra))
		put_time(ts, &in->i.i_crtime, &in->i.i_crtime_extra, 1);
}

int fs_touch(ext2_ino_t ino, int which)
{
	struct fs_inode in;
	int ret = fs_read_inode(ino, &in);

	if (!ret) {
		fs_set_times(&in, which, NULL);
		ret = fs_write_inode(ino, &in);
	}
	return ret;
}

void fs_stat(ext2_ino_t ino, const struct fs_inode *in, struct stat *st)
{
	ext2_filsys fs = fs_srv.fs;
	const struct ext2_inode *i = (const struct ext2_inode *)&in->i;

	memset(st, 0, sizeof(*st));
	st->st_dev = 0;
	st->st_ino = ino;
	st->st_mode = in->i.i_mode;
	st->st_nlink = in->i.i_links_count;
	st->st_uid = fs_uid(in);
	st->st_gid = fs_gid(in);
	st->st_size = (off_t)EXT2_I_SIZE(i);
	st->st_blksize = (blksize_t)fs->blocksize;
	st->st_blocks = (blkcnt_t)ext2fs_get_stat_i_blocks(fs,
				(struct ext2_inode *)i);
	if (LINUX_S_ISCHR(in->i.i_mode) || LINUX_S_ISBLK(in->i.i_mode)) {
		if (in->i.i_block[0])
			st->st_rdev = makedev((in->i.i_block[0] >> 8) & 255,
					      in->i.i_block[0] & 255);
		else
			st->st_rdev = makedev((in->i.i_block[1] & 0xfff00) >> 8,
					      (in->i.i_block[1] & 0xff) |
					      ((in->i.i_block[1] >> 12) &
					       0xfff00));
	}
	get_time(in, in->i.i_atime, in->i.i_atime_extra,
		 HAS_X(in, i_atime_extra), &st->st_atim);
	get_time(in, in->i.i_mtime, in->i.i_mtime_extra,
		 HAS_X(in, i_mtime_extra), &st->st_mtim);
	get_time(in, in->i.i_ctime, in->i.i_ctime_extra,
		 HAS_X(in, i_ctime_extra), &st->st_ctim);
}

int fs_entry(ext2_ino_t ino, struct fuse_entry_param *e)
{
	struct fs_inode in;
	int ret = fs_read_inode(ino, &in);

	memset(e, 0, sizeof(*e));
	if (ret)
		return ret;
	e->ino = FS_FUSE_INO(ino);
	e->generation = in.i.i_generation;
	e->attr_timeout = fs_srv.timeout;
	e->entry_timeout = fs_srv.timeout;
	fs_stat(ino, &in, &e->attr);
	fs_node_lookup(ino);
	return 0;
}

/* Indirect blocks a block-mapped file of n blocks needs (n past the
 * direct and the indirect block's: ext4's count for s_bitmap_maxbytes). */
static uint64_t ind_blocks(uint64_t n, uint64_t a)
{
	uint64_t meta = 1;

	n -= EXT2_NDIR_BLOCKS + a;
	if (n < a * a)
		return meta + 1 + (n + a - 1) / a;
	meta += 1 + a;
	n -= a * a;
	return meta + 1 + (n + a - 1) / a + (n + a * a - 1) / (a * a);
}

/* The largest size ext4 gives the inode (s_maxbytes for extent-mapped
 * files, s_bitmap_maxbytes for block-mapped ones).  i_blocks counts
 * 2^32 - 1 sectors (2^48 - 1 with huge_file), indirect blocks included:
 * a block-mapped file has the blocks its map addresses, or as many as
 * i_blocks counts less the indirect blocks that many need. */
uint64_t fs_max_size(const struct fs_inode *in)
{
	ext2_filsys fs = fs_srv.fs;
	int bits = EXT2_BLOCK_SIZE_BITS(fs->super);
	int huge = ext2fs_has_feature_huge_file(fs->super);
	uint64_t a = fs->blocksize / 4, blocks, limit = UINT64_MAX;

	if (in->i.i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) {
		if (!huge)	/* i_blocks: 2^32 sectors */
			limit = (((1ULL << 32) - 1) >> (bits - 9)) << bits;
		blocks = (1ULL << 32) - 1;
	} else {
		uint64_t tree = EXT2_NDIR_BLOCKS + a + a * a + a * a * a;
		uint64_t cap = ((huge ? 1ULL << 48 : 1ULL << 32) - 1) >>
			       (bits - 9);

		if (tree + 1 + (1 + a) + (1 + a + a * a) <= cap)
			blocks = tree;
		else
			blocks = cap - ind_blocks(cap, a);
		if (blocks > (1ULL << 32) - 1)
			blocks = (1ULL << 32) - 1;
	}
	if ((blocks << bits) < limit)
		limit = blocks << bits;
	return limit;
}

int fs_in_group(fuse_req_t req, gid_t g)
{
	const struct fuse_ctx *c = fuse_req_ctx(req);
	gid_t list[256];
	int i, n;

	if (c->uid == 0 || c->gid == g)
		return 1;
	n = fuse_req_getgroups(req, 256, list);
	for (i = 0; i < n && i < 256; i++)
		if (list[i] == g)
			return 1;
	return 0;
}

void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_inode in;
	struct stat st;
	int ret;

	(void)fi;
	fs_begin();
	ret = fs_read_inode(FS_INO(ino), &in);
	if (!ret)
		fs_stat(FS_INO(ino), &in, &st);
	fs_end(0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, fs_srv.timeout);
}

void fs_op_setattr(fuse_req_t req, fuse_ino_t fino, struct stat *attr,
		   int to_set, struct fuse_file_info *fi)
{
	ext2_ino_t ino = FS_INO(fino);
	struct fs_inode in;
	struct stat st;
	struct timespec now;
	int ret, sync = 0;

	/* one time for the call, as ext4's setattr: "now" atime, mtime
	 * and ctime all equal */
	clock_gettime(CLOCK_REALTIME, &now);
	fs_begin();
	ret = fs_read_inode(ino, &in);
	/* a +S file; ftruncate through an O_SYNC descriptor (libfuse gives
	 * fi only with the handle: ours keeps the open flags) */
	if (!ret)
		sync = fs_write_is_sync(fi ? (int)fi->fh : 0, &in);
	/* immutable: nothing; append-only: times now, but no mode, owner,
	 * size or times given */
	if (!ret)
		ret = fs_fixed(&in, 0);
	if (!ret && fs_append_only(&in) &&
	    ((to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID |
			FUSE_SET_ATTR_GID | FUSE_SET_ATTR_SIZE)) ||
	     ((to_set & FUSE_SET_ATTR_ATIME) &&
	      !(to_set & FUSE_SET_ATTR_ATIME_NOW)) ||
	     ((to_set & FUSE_SET_ATTR_MTIME) &&
	      !(to_set & FUSE_SET_ATTR_MTIME_NOW))))
		ret = -EPERM;
	/* The kernel's word to clear privileges: FATTR_KILL_SUIDGID (a
	 * truncate by a caller without CAP_FSETID, a chown), or a SETATTR
	 * that sets nothing (chown(-1, -1), or before a copy_file_range or
	 * fallocate that must clear them) */
	if (!ret && ((to_set & FUSE_SET_ATTR_KILL_SUID) || !to_set))
		ret = fs_kill_privs(req, ino, &in, 1);
	if (!ret && (to_set & FUSE_SET_ATTR_SIZE)) {
		if (LINUX_S_ISDIR(in.i.i_mode))
			ret = -EISDIR;
		else if ((uint64_t)attr->st_size > fs_max_size(&in))
			ret = -EFBIG;
		else
			ret = fs_truncate(ino, &in, (uint64_t)attr->st_size);
		/* ext4 changes mtime and ctime on every truncate, to the
		 * size the file has too */
		if (!ret)
			fs_set_times(&in, FS_T_M, &now);
	}
	if (!ret && (to_set & FUSE_SET_ATTR_MODE)) {
		in.i.i_mode = (__u16)((in.i.i_mode & LINUX_S_IFMT) |
				      (attr->st_mode & 07777));
		ret = fs_write_inode(ino, &in);
		if (!ret)
			ret = fs_acl_chmod(ino, in.i.i_mode);
		if (!ret)
			ret = fs_read_inode(ino, &in);
	}
	if (!ret && (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		fs_set_owner(&in, to_set & FUSE_SET_ATTR_UID ? attr->st_uid :
			     fs_uid(&in), to_set & FUSE_SET_ATTR_GID ?
			     attr->st_gid : fs_gid(&in));
	if (!ret && (to_set & FUSE_SET_ATTR_ATIME))
		fs_set_times(&in, FS_T_A, to_set & FUSE_SET_ATTR_ATIME_NOW ?
			     &now : &attr->st_atim);
	if (!ret && (to_set & FUSE_SET_ATTR_MTIME))
		fs_set_times(&in, FS_T_M, to_set & FUSE_SET_ATTR_MTIME_NOW ?
			     &now : &attr->st_mtim);
	if (!ret) {
		fs_set_times(&in, FS_T_C, to_set & FUSE_SET_ATTR_CTIME ?
			     &attr->st_ctim : &now);
		ret = fs_write_inode(ino, &in);
	}
	if (!ret)
		fs_stat(ino, &in, &st);
	ret = ret ? (fs_end(0), ret) : fs_end(sync);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, fs_srv.timeout);
}

void fs_op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	ext2_filsys fs = fs_srv.fs;
	struct ext2_super_block *sb;
	struct statvfs s;
	blk64_t overhead, reserved, free;

	(void)ino;
	fs_begin();
	sb = fs->super;
	memset(&s, 0, sizeof(s));
	/* in clusters (mke2fs sets it on bigalloc), counted in blocks */
	overhead = EXT2FS_C2B(fs, (blk64_t)sb->s_overhead_clusters);
	if (!overhead) {	/* as ext4 counts it when the sb does not */
		dgrp_t g;

		overhead = sb->s_first_data_block;
		for (g = 0; g < fs->group_desc_count; g++)
			overhead += (blk64_t)ext2fs_bg_has_super(fs, g) *
				    (1 + fs->desc_blocks +
				     sb->s_reserved_gdt_blocks) +
				    2 + fs->inode_blocks_per_group;
		if (ext2fs_has_feature_journal(sb) && sb->s_journal_inum) {
			struct fs_inode jin;

			if (!fs_read_inode(sb->s_journal_inum, &jin))
				overhead += EXT2_I_SIZE(FS_I(&jin)) /
					    fs->blocksize;
		}
	}
	reserved = ext2fs_r_blocks_count(sb) + fs_resv_blocks();
	free = ext2fs_free_blocks_count(sb);
	s.f_bsize = fs->blocksize;
	s.f_frsize = fs->blocksize;
	s.f_blocks = ext2fs_blocks_count(sb) - overhead;
	s.f_bfree = free;
	s.f_bavail = free > reserved ? free - reserved : 0;
	s.f_files = sb->s_inodes_count;
	s.f_ffree = sb->s_free_inodes_count;
	s.f_favail = sb->s_free_inodes_count;
	s.f_fsid = *(const unsigned long *)sb->s_uuid ^
		   *(const unsigned long *)(sb->s_uuid + 8);
	s.f_namemax = FS_NAME_MAX;
	s.f_flag = fs_srv.ro && !fs_errors_stopped() ? ST_RDONLY : 0;
	fs_end(0);
	fuse_reply_statfs(req, &s);
}
