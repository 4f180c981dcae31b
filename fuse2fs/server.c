/*
 * fuse2fs/server.c --- the session: the command line as libfuse 3 reads
 * it, the file system opened (lazy: through the jmap, metadata journaled;
 * a plain ext4 with a journal: through the same channel; -o nojournal or
 * no journal: in place), the kernel mount made (read-only with -o ro,
 * default_permissions, long entry and attribute timeouts: the daemon
 * holds the device exclusively, so its answers are exact), the daemon
 * started once both succeeded, then one request at a time until umount,
 * and the last commit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>
#include <linux/fuse.h>

#include "server.h"
#include "checks.h"
#include "args.h"
#include "exit.h"

#define FS_CRASH_ENV	"LJ_CRASH_RECORD"

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fs_server *srv = userdata;

	conn->want |= FUSE_CAP_DONT_MASK;
	/* READ answers spliced from the device (fs_file_read_spliced) */
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_POSIX_ACL)
		conn->want |= FUSE_CAP_POSIX_ACL;
	if (conn->capable & FUSE_CAP_EXPORT_SUPPORT)
		conn->want |= FUSE_CAP_EXPORT_SUPPORT;
	conn->want &= ~(unsigned)FUSE_CAP_ATOMIC_O_TRUNC;
	conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	/* No one else changes the file system: cached pages stay right
	 * (no GETATTR before reads to check mtime) */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
	conn->max_write = 1U << 20;
	conn->max_readahead = 1U << 20;
	conn->time_gran = 1;
	fs_timer_start(srv);
}

static void op_destroy(void *userdata)
{
	struct fs_server *srv = userdata;

	fs_timer_stop(srv);
	fs_begin(srv);
	fs_end(srv, 1);
}

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.destroy = op_destroy,
	.lookup = fs_op_lookup,
	.forget = fs_op_forget,
	.forget_multi = fs_op_forget_multi,
	.getattr = fs_op_getattr,
	.setattr = fs_op_setattr,
	.readlink = fs_op_readlink,
	.mknod = fs_op_mknod,
	.mkdir = fs_op_mkdir,
	.unlink = fs_op_unlink,
	.rmdir = fs_op_rmdir,
	.symlink = fs_op_symlink,
	.rename = fs_op_rename,
	.link = fs_op_link,
	.open = fs_op_open,
	.read = fs_op_read,
	.write = fs_op_write,
	.release = fs_op_release,
	.fsync = fs_op_fsync,
	.opendir = fs_op_opendir,
	.readdir = fs_op_readdir,
	.readdirplus = fs_op_readdirplus,
	.releasedir = fs_op_releasedir,
	.fsyncdir = fs_op_fsync,
	.statfs = fs_op_statfs,
	.setxattr = fs_op_setxattr,
	.getxattr = fs_op_getxattr,
	.listxattr = fs_op_listxattr,
	.removexattr = fs_op_removexattr,
	.create = fs_op_create,
	.fallocate = fs_op_fallocate,
	.lseek = fs_op_lseek,
	.copy_file_range = fs_op_copy_file_range,
	.ioctl = fs_op_ioctl,
};

/* ------------------------------------------------------------------ */
/* The command line                                                   */

/* args for libfuse: argv without the device (args.c took our options
 * out), and ours (fsname, subtype, ro). */
static int build_args(const struct fe_mount_args *a, struct fuse_args *args)
{
	char extra[4200], *abs;
	int i, operands = 0, dashdash = 0;

	for (i = 0; i < a->argc; i++) {
		const char *arg = a->argv[i];

		if (i > 0 && !dashdash && !strcmp(arg, "-o") &&
		    i + 1 < a->argc) {	/* a list: not an operand */
			if (fuse_opt_add_arg(args, arg) ||
			    fuse_opt_add_arg(args, a->argv[++i]))
				return -1;
			continue;
		}
		if (i > 0 && !dashdash && !strcmp(arg, "--"))
			dashdash = 1;
		else if (i > 0 && (dashdash || arg[0] != '-') &&
			 operands++ == 0)
			continue;	/* the device */
		if (fuse_opt_add_arg(args, arg))
			return -1;
	}
	/* the mount table's source names the device absolutely, as mount(8)
	 * gives it: "already mounted" (fuse2fs/checks.c) is asked from any
	 * directory */
	abs = realpath(a->device, NULL);
	snprintf(extra, sizeof(extra), "-ofsname=%s,subtype=ext4%s",
		 abs ? abs : a->device, a->ro ? ",ro" : "");
	free(abs);
	return fuse_opt_add_arg(args, extra);
}

/* The options args.c read that the server keeps: 0, or -1 (said). */
static int take_args(struct fs_server *srv, const struct fe_mount_args *a)
{
	if (a->errors && fs_errors_option(srv, a->errors)) {
		fprintf(stderr, "fuse2fs: invalid option errors=%s\n",
			a->errors);
		return -1;
	}
	if (a->refused)
		return -1;
	srv->sync = a->sync;
	srv->dirsync = a->dirsync;
	srv->latency_qos = !a->nolatency_qos;
	if (a->timeout >= 0)
		srv->timeout = a->timeout;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The file system                                                    */

static void crash_record(void)
{
	errcode_t err = lj_crash_record_env(FS_CRASH_ENV);

	if (err) {
		com_err("fuse2fs", err, "while creating the record (%s)",
			FS_CRASH_ENV);
		exit(1);	/* never a test run without its record */
	}
}

/* The file system opened as the probe says: through the lazy channel
 * (a lazy fs; a plain one with a journal, read-write), else in place.
 * 0, or the exit status (said). */
static int open_fs(struct fs_server *srv, const char *name,
		   const struct fe_mount_args *a,
		   const struct fe_mount_probe *p, ext2_filsys *ret)
{
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_MASTER_SB_ONLY;
	/* an internal journal: the one the channel writes */
	int recover = p->journal && p->recover;
	errcode_t err;

	/* read-write, the front-end recovered the log first */
	if (!p->lazy && recover && a->ro) {
		fprintf(stderr, "Journal needs recovery; running "
			"`e2fsck -E journal_only' is required.\n");
		return FE_EXIT_RECOVERY;
	}
	if (!a->ro)
		flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
	if (p->lazy || (p->journal && !a->nojournal && !a->ro)) {
		err = lj_open_fs(name, flags, ret);
		if (!err) {
			srv->plain_journal = !p->lazy;
			if (!a->ro && lj_lazy_writer((*ret)->io)) {
				srv->lazy = (*ret)->io;
				err = lj_lazy_set_mode((*ret)->io,
						       LJ_LAZY_SKIP_SAME |
						       LJ_LAZY_DEFER_COMMIT, 1);
				if (!err)	/* in order, as jbd2 */
					err = lj_lazy_ordered_log((*ret)->io);
			}
		}
	} else {
		err = lj_open_plain(name, flags, ret);
	}
	/* the allocation bitmaps: only a writer needs them, a group's when
	 * it allocates or frees there (a read-only mount reads what its
	 * requests ask for, as the kernel's) */
	if (!err && !a->ro)
		err = lj_bitmaps_open(*ret, &srv->bitmaps);
	if (err && p->lazy && !a->ro)	/* a log the writer cannot take */
		com_err("fuse2fs", err, "while opening %s for writing%s%s%s",
			a->device, err == LJ_ET_MOUNTED ? "" : " (run e2fsck -fy ",
			err == LJ_ET_MOUNTED ? "" : a->device,
			err == LJ_ET_MOUNTED ? "" : ")");
	else if (err)
		com_err("fuse2fs", err, "while trying to open %s", a->device);
	return err ? FE_EXIT_OPEN : 0;
}

/*
 * Unmounted: the last commit, then the fs closed.  A plain fs journaled
 * through the channel is then left as jbd2 leaves a clean unmount: every
 * live block home, log emptied, needs_recovery cleared, in doc/contract.md §3's
 * order (lj_lazy_checkpoint_all).  That comes after ext2fs_close, whose
 * superblock write would start a transaction again, so the channel is
 * held across the close.  0 or 1.
 */
static int close_fs(struct fs_server *srv)
{
	ext2_filsys fs = srv->fs;
	io_channel held = NULL;
	errcode_t err;
	int ret = 0;

	if (!fs)
		return 0;
	if (!srv->ro) {
		fs_begin(srv);
		ret = fs_end(srv, 1);
	}
	if (srv->plain_journal && !srv->ro && !ret) {
		held = fs->io;
		held->refcount++;
	}
	fs_errors_close(srv);
	fs_quota_stop(srv);
	err = ext2fs_close_free(&srv->fs);
	lj_bitmaps_free(srv->bitmaps);
	srv->bitmaps = NULL;
	if (held) {
		if (!err)
			err = lj_lazy_checkpoint_all(held);
		io_channel_close(held);
	}
	if (err)
		com_err("fuse2fs", err, "while closing %s", srv->device);
	return ret || err;
}

/* The session ended or never served: what it holds given back. */
static void fs_session_discard(struct fs_server *srv)
{
	if (srv->se)
		fuse_session_destroy(srv->se);
	srv->se = NULL;
	free(srv->co.mountpoint);
	srv->co.mountpoint = NULL;
	fuse_opt_free_args(&srv->args);
}

struct fs_server *fs_server_new(void)
{
	struct fs_server *srv = calloc(1, sizeof(*srv));

	if (!srv)
		return NULL;
	/* entry and attribute timeouts: a day (this server alone changes
	 * the file system, and tells the kernel when an answer it holds
	 * changes) */
	srv->timeout = 86400.0;
	srv->commit_secs = 5;
	pthread_mutex_init(&srv->commit.lock, NULL);
	pthread_cond_init(&srv->commit.wake, NULL);
	pthread_cond_init(&srv->commit.done, NULL);
	pthread_mutex_init(&srv->loop.turn_lock, NULL);
	pthread_cond_init(&srv->loop.turn_free, NULL);
	return srv;
}

void fs_server_free(struct fs_server *srv)
{
	if (!srv)
		return;
	fs_session_discard(srv);
	fs_nodes_free(srv);
	pthread_cond_destroy(&srv->loop.turn_free);
	pthread_mutex_destroy(&srv->loop.turn_lock);
	pthread_cond_destroy(&srv->commit.done);
	pthread_cond_destroy(&srv->commit.wake);
	pthread_mutex_destroy(&srv->commit.lock);
	free(srv);
}

/*
 * The whole command line read, libfuse's options included (the session
 * is made, not mounted): before the front-end writes or says anything,
 * so that a typo anywhere costs one line and no write.  -1: go on to
 * fs_serve; otherwise the exit status (0 after --help or --version).
 */
int fs_session_prepare(struct fs_server *srv, const struct fe_mount_args *a)
{
	int ret = FE_EXIT_USAGE;

	if (take_args(srv, a) || build_args(a, &srv->args))
		goto out;
	if (fuse_parse_cmdline(&srv->args, &srv->co))
		goto out;
	if (srv->co.show_help) {
		printf("Usage: %s DEVICE MOUNTPOINT [-o options] [-f] [-d]\n\n",
		       a->argv[0]);
		fe_mount_help(stdout);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out;
	}
	if (srv->co.show_version) {	/* after our line, stock's lines */
		const char *ver, *date;

		ext2fs_get_library_version(&ver, &date);
		fprintf(stderr, "fuse2fs %s (%s)\nFUSE library version: %s\n"
			"using FUSE kernel interface version %d.%d\n", ver,
			date, fuse_pkgversion(), FUSE_KERNEL_VERSION,
			FUSE_KERNEL_MINOR_VERSION);
		ret = 0;
		goto out;
	}
	if (!a->device || !srv->co.mountpoint) {
		fprintf(stderr, "Usage: %s DEVICE MOUNTPOINT [-o options]\n",
			a->argv[0]);
		goto out;
	}
	/* libfuse's own options are read here: an unknown one fails */
	srv->se = fuse_session_new(&srv->args, fs_errors_ops(srv, &ops),
				   sizeof(ops), srv);
	if (srv->se)
		return -1;
out:
	fs_session_discard(srv);
	return ret;
}

/*
 * A read-write mount counted in the superblock as the kernel's ext4
 * counts it (ext4_setup_super): the mount count up by one, the mount
 * time now, a maximum mount count of 0 made the default; the kernel's
 * warnings when the count or the check interval says e2fsck is due.
 * Committed with the mount's first transaction (start_fs).
 */
static void count_mount(ext2_filsys fs, const char *device)
{
	struct ext2_super_block *sb = fs->super;
	time_t now = time(NULL);
	__s16 max = (__s16)sb->s_max_mnt_count;
	int64_t lastcheck = (int64_t)sb->s_lastcheck |
			    (int64_t)sb->s_lastcheck_hi << 32;

	if (max > 0 && sb->s_mnt_count >= (__u16)max)
		fprintf(stderr, "fuse2fs: %s: warning: maximal mount count "
			"reached, running e2fsck is recommended\n", device);
	else if (sb->s_checkinterval &&
		 lastcheck + sb->s_checkinterval <= (int64_t)now)
		fprintf(stderr, "fuse2fs: %s: warning: checktime reached, "
			"running e2fsck is recommended\n", device);
	if (!max)
		sb->s_max_mnt_count = EXT2_DFL_MAX_MNT_COUNT;
	sb->s_mnt_count++;
	sb->s_mtime = (__u32)now;
	sb->s_mtime_hi = (__u8)((uint64_t)now >> 32);
	ext2fs_mark_super_dirty(fs);
}

/* The file system opened and made ready to serve (mounted once more,
 * its orphans freed, committed): 0, or the exit status (said). */
static int start_fs(struct fs_server *srv, const char *name,
		    const struct fe_mount_args *a,
		    const struct fe_mount_probe *p)
{
	errcode_t err;
	int ret = open_fs(srv, name, a, p, &srv->fs);

	if (ret)
		return ret;
	if (fs_place_bands(srv, a->smr_band, a->offset)) {
		srv->ro = 1;	/* refused: nothing written at close */
		return FE_EXIT_USAGE;
	}
	srv->fs->priv_data = srv;	/* for libext2fs's hooks */
	fs_alloc_hooks(srv);
	if (srv->ro)
		return 0;
	fs_inode_hook(srv);
	if (fs_quota_start(srv)) {
		srv->ro = 1;	/* refused: nothing written at close */
		return FE_EXIT_OPEN;
	}
	count_mount(srv->fs, a->device);
	err = fs_orphans_recover(srv);
	if (!err) {
		fs_begin(srv);
		err = -fs_end(srv, 1);	/* an errno */
	}
	if (!err && fs_errors_panicked(srv))
		err = EUCLEAN;	/* damage under errors=panic */
	if (err) {
		com_err("fuse2fs", err, "while freeing orphans of %s",
			a->device);
		return FE_EXIT_OPEN;
	}
	return 0;
}

/* Mounted, served until umount, unmounted: the exit status. */
static int mount_and_serve(struct fs_server *srv)
{
	struct fuse_session *se = srv->se;
	int ret;

	if (fuse_set_signal_handlers(se))
		return FE_EXIT_MOUNT;
	if (fuse_session_mount(se, srv->co.mountpoint)) {
		fuse_remove_signal_handlers(se);
		return FE_EXIT_MOUNT;
	}
	if (fs_killpriv_io(se)) {
		fuse_session_unmount(se);
		fuse_remove_signal_handlers(se);
		return FE_EXIT_MOUNT;
	}
	fuse_daemonize(srv->co.foreground);
	ret = fs_loop(srv) || fs_errors_panicked(srv) ? 1 : 0;
	fuse_session_unmount(se);
	fuse_remove_signal_handlers(se);
	return ret;
}

/* After fs_session_prepare: the file system served until umount. */
int fs_serve(struct fs_server *srv, const char *name,
	     const struct fe_mount_args *a,
	     const struct fe_mount_probe *p)
{
	int ret;

	srv->device = a->device;
	srv->name = name;
	srv->ro = a->ro;
	srv->debug = srv->co.debug;
	if (a->commit > 0)
		srv->commit_secs = (unsigned int)a->commit;
	crash_record();
	ret = start_fs(srv, name, a, p);
	if (!ret && (p->lazy || (p->journal && !a->nojournal)))
		fe_mount_journal_line(a, p->lazy);
	if (!ret)
		ret = mount_and_serve(srv);
	fs_session_discard(srv);
	fs_timer_stop(srv);
	if (close_fs(srv))
		ret = ret ? ret : 1;
	return ret;
}
