/*
 * fuse2fs/attr.c --- getattr, setattr (mode and the ACL in step, owner,
 * size, times with UTIME_NOW) and statfs as the kernel's ext4 answers
 * them; the inode's fields are inode.c's.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "server.h"

void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	struct fs_inode in;
	struct stat st;
	int ret;

	(void)fi;
	fs_begin(srv);
	ret = fs_read_inode(srv, FS_INO(ino), &in);
	if (!ret)
		fs_stat(srv, FS_INO(ino), &in, &st);
	fs_end(srv, 0);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, srv->timeout);
}

void fs_op_setattr(fuse_req_t req, fuse_ino_t fino, struct stat *attr,
		   int to_set, struct fuse_file_info *fi)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_ino_t ino = FS_INO(fino);
	struct fs_inode in;
	struct stat st;
	struct timespec now;
	int ret, sync = 0;

	/* one time for the call, as ext4's setattr: "now" atime, mtime
	 * and ctime all equal */
	clock_gettime(CLOCK_REALTIME, &now);
	fs_begin(srv);
	ret = fs_read_inode(srv, ino, &in);
	/* a +S file; ftruncate through an O_SYNC descriptor (libfuse gives
	 * fi only with the handle: ours keeps the open flags) */
	if (!ret)
		sync = fs_write_is_sync(srv, fi ? (int)fi->fh : 0, &in);
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
		else if ((uint64_t)attr->st_size > fs_max_size(srv, &in))
			ret = -EFBIG;
		else
			ret = fs_truncate(srv, ino, &in,
					  (uint64_t)attr->st_size);
		/* ext4 changes mtime and ctime on every truncate, to the
		 * size the file has too */
		if (!ret)
			fs_set_times(srv, &in, FS_T_M, &now);
	}
	if (!ret && (to_set & FUSE_SET_ATTR_MODE)) {
		in.i.i_mode = (__u16)((in.i.i_mode & LINUX_S_IFMT) |
				      (attr->st_mode & 07777));
		ret = fs_write_inode(srv, ino, &in);
		if (!ret)
			ret = fs_acl_chmod(srv, ino, in.i.i_mode);
		if (!ret)
			ret = fs_read_inode(srv, ino, &in);
	}
	if (!ret && (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		fs_set_owner(&in, to_set & FUSE_SET_ATTR_UID ? attr->st_uid :
			     fs_uid(&in), to_set & FUSE_SET_ATTR_GID ?
			     attr->st_gid : fs_gid(&in));
	if (!ret && (to_set & FUSE_SET_ATTR_ATIME))
		fs_set_times(srv, &in, FS_T_A,
			     to_set & FUSE_SET_ATTR_ATIME_NOW ?
			     &now : &attr->st_atim);
	if (!ret && (to_set & FUSE_SET_ATTR_MTIME))
		fs_set_times(srv, &in, FS_T_M,
			     to_set & FUSE_SET_ATTR_MTIME_NOW ?
			     &now : &attr->st_mtim);
	if (!ret) {
		fs_set_times(srv, &in, FS_T_C, to_set & FUSE_SET_ATTR_CTIME ?
			     &attr->st_ctim : &now);
		ret = fs_write_inode(srv, ino, &in);
	}
	if (!ret)
		fs_stat(srv, ino, &in, &st);
	ret = ret ? (fs_end(srv, 0), ret) : fs_end(srv, sync);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, srv->timeout);
}

void fs_op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fs_server *srv = fs_srv_of(req);
	ext2_filsys fs = srv->fs;
	struct ext2_super_block *sb;
	struct statvfs s;
	blk64_t overhead, reserved, free;

	(void)ino;
	fs_begin(srv);
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

			if (!fs_read_inode(srv, sb->s_journal_inum, &jin))
				overhead += EXT2_I_SIZE(FS_I(&jin)) /
					    fs->blocksize;
		}
	}
	reserved = ext2fs_r_blocks_count(sb) + fs_resv_blocks(srv);
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
	s.f_flag = srv->ro && !fs_errors_stopped(srv) ? ST_RDONLY : 0;
	fs_end(srv, 0);
	fuse_reply_statfs(req, &s);
}
