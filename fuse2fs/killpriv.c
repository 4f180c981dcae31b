/*
 * fuse2fs/killpriv.c --- the server, not the kernel, clears setuid,
 * setgid and file capabilities when a file changes.
 *
 * Unless the server takes that job (FUSE_HANDLE_KILLPRIV_V2 in the INIT
 * reply), the kernel asks for security.capability (a GETXATTR round
 * trip) before every write, to learn whether the write must remove it;
 * small writes pay two requests each.  Once the server takes it, the
 * kernel marks the mount SB_NOSEC and skips the question for an inode it
 * has found free of privileges, and tells the server instead: a WRITE
 * carries FUSE_WRITE_KILL_SUIDGID and a SETATTR FATTR_KILL_SUIDGID when
 * the caller lacks CAP_FSETID (truncate, write) or the owner changes.
 *
 * libfuse 3.14 neither offers the flag nor passes the WRITE flag on, so
 * the session talks to /dev/fuse through our custom io: the INIT reply
 * gains the flag when the kernel offered it, and a WRITE's flags are
 * noted before libfuse hands the request to fs_op_write (one request at
 * a time, so the note is the current request's).
 *
 * What is cleared is what ext4 clears (the VFS rules): setuid; setgid
 * when the group may execute or the caller is outside the file's group;
 * security.capability on every write, whoever writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/fuse.h>

#include "server.h"

#define FS_CAPS_XATTR	"security.capability"

static ssize_t kp_read(int fd, void *buf, size_t len, void *userdata)
{
	struct fs_server *srv = userdata;
	ssize_t res = read(fd, buf, len);
	const struct fuse_in_header *h = buf;

	if (res < (ssize_t)sizeof(*h))
		return res;
	if (h->opcode == FUSE_INIT &&
	    res >= (ssize_t)(sizeof(*h) + sizeof(struct fuse_init_in))) {
		const struct fuse_init_in *in = (const void *)(h + 1);

		srv->kp.offered = !!(in->flags & FUSE_HANDLE_KILLPRIV_V2);
		srv->kp.init_unique = h->unique;
	} else if (h->opcode == FUSE_WRITE &&
		   res >= (ssize_t)(sizeof(*h) +
				    sizeof(struct fuse_write_in))) {
		const struct fuse_write_in *in = (const void *)(h + 1);
		struct fs_thread *t = fs_loop_self(srv);
		int kill = !!(in->write_flags & FUSE_WRITE_KILL_SUIDGID);

		/* read before the request lock: fs_begin hands it on */
		if (t)
			t->write_kill = kill;
		else
			srv->cur.write_kill = kill;
	}
	return res;
}

/* libfuse sends a reply as the header, then the argument. */
static ssize_t kp_writev(int fd, struct iovec *iov, int count,
			 void *userdata)
{
	struct fs_server *srv = userdata;
	struct fuse_out_header *h = iov[0].iov_base;

	if (srv->kp.offered && !srv->kp.taken && count >= 2 &&
	    iov[0].iov_len >= sizeof(*h) && h->unique == srv->kp.init_unique &&
	    !h->error && iov[1].iov_len >= offsetof(struct fuse_init_out,
						     flags) + sizeof(uint32_t)) {
		struct fuse_init_out *out = iov[1].iov_base;

		out->flags |= FUSE_HANDLE_KILLPRIV_V2;
		srv->kp.taken = 1;
	}
	return writev(fd, iov, count);
}

/* A spliced answer (fs_file_read_spliced), never the INIT's: as it is.
 * Without it libfuse offers no splicing to a custom io. */
static ssize_t kp_splice_send(int fdin, off_t *offin, int fdout,
			      off_t *offout, size_t len, unsigned int flags,
			      void *userdata)
{
	(void)userdata;
	return splice(fdin, offin, fdout, offout, len, flags);
}

int fs_killpriv_io(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {
		.read = kp_read, .writev = kp_writev,
		.splice_send = kp_splice_send };

	return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}

int fs_write_kill(struct fs_server *srv)
{
	return srv->cur.write_kill;
}

/* Does the inode hold any extended attribute (in its body or a block)? */
static int has_xattrs(struct fs_server *srv, const struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	size_t at = EXT2_GOOD_OLD_INODE_SIZE + in->i.i_extra_isize;
	__u32 magic;

	if (ext2fs_file_acl_block(fs, FS_I(in)))
		return 1;
	if (EXT2_INODE_SIZE(fs->super) <= EXT2_GOOD_OLD_INODE_SIZE ||
	    at + sizeof(magic) > (size_t)EXT2_INODE_SIZE(fs->super))
		return 0;
	memcpy(&magic, (const char *)&in->i + at, sizeof(magic));
	return ext2fs_le32_to_cpu(magic) == EXT2_EXT_ATTR_MAGIC;
}

int fs_kill_privs(fuse_req_t req, ext2_ino_t ino, struct fs_inode *in,
		  int kill_suidgid)
{
	struct fs_server *srv = fs_srv_of(req);
	__u16 mode = in->i.i_mode;
	int caps, ret;

	/* the kernel does it all; an immutable file changes in nothing (the
	 * request fails with EPERM) */
	if (!srv->kp.taken || fs_fixed(in, 0))
		return 0;
	/* (removing a missing name is no error to libext2fs: ask first) */
	caps = has_xattrs(srv, in) && fs_xattr_get(srv, ino, FS_CAPS_XATTR,
						   NULL, 0) >= 0;
	if (kill_suidgid && !LINUX_S_ISDIR(mode)) {
		mode &= (__u16)~LINUX_S_ISUID;
		if ((mode & LINUX_S_ISGID) && ((mode & LINUX_S_IXGRP) ||
					       !fs_in_group(req, fs_gid(in))))
			mode &= (__u16)~LINUX_S_ISGID;
	}
	if (!caps && mode == in->i.i_mode)
		return 0;
	if (fs_fixed(in, 1))	/* append-only: ext4 refuses the change */
		return -EPERM;
	if (caps) {
		ret = fs_xattr_set(srv, ino, FS_CAPS_XATTR, NULL, 0);
		if (!ret)
			ret = fs_read_inode(srv, ino, in);
		if (ret)
			return ret;
	}
	in->i.i_mode = mode;
	fs_set_times(srv, in, FS_T_C, NULL);
	return fs_write_inode(srv, ino, in);
}
