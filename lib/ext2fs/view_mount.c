/*
 * view_mount.c --- stock fuse2fs as the lazy mount (LJ_VIEW=mount).
 *
 * Stock fuse2fs reaches libfuse through fuse_main_real (PLT); interposed
 * here, its table of operations is replaced by a copy whose every entry
 * runs the stock operation between op_begin and op_end:
 *
 *  - One operation at a time (op_lock), and a transaction ends only
 *    between two operations: the lazy channel defers every flush
 *    (LJ_LAZY_DEFER_COMMIT) and op_end commits.
 *  - A commit (commit_fs) first has libext2fs write what it keeps in
 *    memory (superblock, descriptors, bitmaps: ext2fs_flush2 without
 *    sync), so that every committed state is a whole file system, then
 *    commits the running transaction (durable on return: fsync and
 *    fsyncdir reply only after it, with its error if it failed).
 *  - When: at every persistence point the kernel's FUSE client passes
 *    on (fsync and fdatasync through any descriptor, fsyncdir, a write
 *    through an O_SYNC or O_DSYNC descriptor: op_end_as), whatever stock
 *    did for it, and on any flush an operation asked for; when the
 *    running transaction would take half the free log; commit seconds
 *    (-o commit=, default 5, as ext4) after the oldest uncommitted
 *    change (a timer thread, started in init: fuse2fs daemonises after
 *    it opens the device); and at destroy (umount, SIGTERM, SIGINT).
 *    syncfs, sync and sync_file_range never reach a FUSE server (the
 *    kernel does not send FUSE_SYNCFS on /dev/fuse): the commit interval
 *    bounds what they cover.
 *  - Names: a path with a component longer than 255 bytes gets
 *    ENAMETOOLONG before stock sees it (stock fuse2fs writes such a name
 *    with its length byte wrapped: a corrupt directory), as do symlink
 *    targets of a block or more (with their NUL, more than a block), as
 *    ext4 answers.
 *
 *  - The kernel's answers (view_posix.c): the front-end mounts with
 *    default_permissions, so the kernel makes the access checks; stock
 *    sees root as the caller (its own checks know the primary group
 *    only), and the wrappers below do what the VFS leaves to ext4: the
 *    owner, mode and inherited ACLs of a new inode, stat's nanoseconds,
 *    EFBIG and EMLINK, the mode and the ACL kept in step, xattr flags;
 *    fallocate's zero range and punch hole to the byte (view_range.c).
 *
 * On plain ext4 with an internal journal (no lazy_journal) the channel
 * is the lazy one as well, and all of the above holds: metadata journaled
 * and committed between operations, file data home first (ordered); the
 * cleaner checkpoints committed blocks home instead of re-logging them
 * (checkpoint.c), and the umount empties the log (lj_view_mount_closed).
 * With -o nojournal (LJ_MOUNT_NOJOURNAL), or without has_journal, the
 * channel is the real unix one, writing in place, and there is nothing to
 * commit; the rest applies as well.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define FUSE_USE_VERSION 29
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fuse.h>
#include <et/com_err.h>

#include "view.h"
#include "view_posix.h"

#define LJ_COMMIT_ENV	"LJ_MOUNT_COMMIT"
#define LJ_NOJOURNAL_ENV "LJ_MOUNT_NOJOURNAL"	/* -o nojournal: in place */
#define LJ_NAME_MAX	255	/* EXT2_NAME_LEN */

static struct fuse_operations stock_ops;
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timer_cond = PTHREAD_COND_INITIALIZER;
static pthread_t timer;
static int timer_running, timer_stop;
static unsigned int commit_secs = 5;
static struct timespec first_change;	/* oldest uncommitted change */
static int changed;			/* anything uncommitted */
static int no_plain_journal;		/* -o nojournal */

int lj_view_mount_journals_plain(void)
{
	return !no_plain_journal;
}

void lj_view_mount_setup(void)
{
	const char *s = getenv(LJ_COMMIT_ENV);
	char *end;
	unsigned long v;

	no_plain_journal = getenv(LJ_NOJOURNAL_ENV) != NULL;
	unsetenv(LJ_NOJOURNAL_ENV);

	if (s && *s) {
		v = strtoul(s, &end, 10);
		if (!*end && v <= 86400)
			commit_secs = v ? (unsigned int)v : 5;	/* 0: default */
	}
	unsetenv(LJ_COMMIT_ENV);
}

/* The open fs, when it writes through a lazy channel. */
static ext2_filsys lazy_fs(void)
{
	ext2_filsys fs = lj_view_fs();

	return fs && lj_lazy_writer(fs->io) ? fs : NULL;
}

/* Has the fs anything not yet committed (in the running transaction, or
 * only in libext2fs's memory)? */
static int uncommitted(ext2_filsys fs)
{
	return lj_writer_pending(lj_lazy_writer(fs->io)) ||
	       (fs->flags & (EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
			     EXT2_FLAG_IB_DIRTY));
}

static int log_short(ext2_filsys fs);

/*
 * After a commit that left the log short of room, the cleaner frees a
 * quarter of it at once (jbd2 checkpoints until its largest transaction,
 * a quarter of the journal, fits).  Else it frees only what each commit
 * needs, the log stays short, and every operation that follows commits
 * and cleans (20 times fewer operations under stress-ng, tests/
 * u_mount_stress).  A log whose live blocks leave no more room is not an
 * error: the next commit makes what room it needs.
 */
static errcode_t clean_ahead(ext2_filsys fs)
{
	lj_lazy_state *st;
	errcode_t err;

	if (!log_short(fs) || lj_lazy_get_state(fs->io, &st) || !st->journal)
		return 0;
	err = lj_writer_make_room(lj_lazy_writer(fs->io),
				  (st->journal->last - st->journal->first) / 4);
	return err == LJ_ET_JOURNAL_FULL ? 0 : err;
}

/* Everything libext2fs holds goes into the running transaction, which is
 * committed.  0 or -EIO (said on stderr). */
static int commit_fs(ext2_filsys fs)
{
	errcode_t err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);

	if (!err)
		err = lj_lazy_commit(fs->io);
	if (!err)
		err = clean_ahead(fs);
	if (err) {
		com_err("fuse2fs", err, "while committing to the journal of %s",
			fs->device_name);
		return -EIO;
	}
	changed = 0;
	return 0;
}

/* Nothing to commit: the data sent home since the last flush is flushed
 * (lj_lazy_commit).  0 or -EIO (said on stderr). */
static int flush_data(ext2_filsys fs)
{
	errcode_t err = lj_lazy_commit(fs->io);

	if (err) {
		com_err("fuse2fs", err, "while flushing %s", fs->device_name);
		return -EIO;
	}
	return 0;
}

static int interval_passed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - first_change.tv_sec >= (time_t)commit_secs;
}

/* Would the running transaction, with what a flush adds (every bitmap
 * and descriptor block, the superblock), take half the free log? */
static int log_short(ext2_filsys fs)
{
	lj_writer *w = lj_lazy_writer(fs->io);
	blk64_t flush = 2ULL * fs->group_desc_count + fs->desc_blocks + 1;

	return 2 * (lj_writer_pending(w) + flush) >= lj_writer_free_blocks(w);
}

static void op_begin(void)
{
	pthread_mutex_lock(&op_lock);
	lj_posix_stock_as_root(1);
}

/*
 * After an operation: commit when due, and always after a persistence
 * point (persist: fsync, fdatasync, fsyncdir, a write through an O_SYNC
 * or O_DSYNC descriptor), whatever stock did for it.  ext4 commits the
 * running transaction there; stock flushes only what its own state marks
 * dirty, so an fsync through a read-only descriptor or of a directory
 * would commit nothing.  A persistence point with nothing uncommitted
 * still flushes the data sent home (lj_lazy_commit).  ret, or the
 * commit's error (-EIO).
 */
static int op_end_as(int ret, int persist)
{
	ext2_filsys fs = lazy_fs();

	lj_posix_stock_as_root(0);
	if (fs) {
		int err = 0;

		if (!changed && uncommitted(fs)) {
			changed = 1;
			clock_gettime(CLOCK_MONOTONIC, &first_change);
		}
		if (lj_lazy_commit_wanted(fs->io) ||
		    (changed && (persist || interval_passed() ||
				 log_short(fs))))
			err = commit_fs(fs);
		else if (persist)
			err = flush_data(fs);
		if (err && ret >= 0)
			ret = err;
	}
	pthread_mutex_unlock(&op_lock);
	return ret;
}

static int op_end(int ret)
{
	return op_end_as(ret, 0);
}

/* Commits commit_secs after the oldest uncommitted change, also while
 * no operation comes. */
static void *timer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&op_lock);
	while (!timer_stop) {
		struct timespec until;
		ext2_filsys fs = lazy_fs();

		if (fs && changed && interval_passed())
			commit_fs(fs);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&timer_cond, &op_lock, &until);
	}
	pthread_mutex_unlock(&op_lock);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Names                                                              */

/* -ENAMETOOLONG if a component of path is longer than ext4 stores. */
static int check_path(const char *path)
{
	size_t n = 0;

	for (; path && *path; path++) {
		n = *path == '/' ? 0 : n + 1;
		if (n > LJ_NAME_MAX)
			return -ENAMETOOLONG;
	}
	return 0;
}

static int check_paths(const char *a, const char *b)
{
	int err = check_path(a);

	return err ? err : check_path(b);
}

/* ext4 keeps a symlink target in at most one block. */
static int check_symlink(const char *target, const char *path)
{
	ext2_filsys fs = lj_view_fs();

	if (fs && strlen(target) >= fs->blocksize)
		return -ENAMETOOLONG;
	return check_path(path);
}

/* ------------------------------------------------------------------ */
/* The operations                                                     */

/* w_name(params): check (an expression, 0 to go on), then the stock
 * operation between op_begin and op_end. */
#define LJ_OP(name, check, params, args)				\
	static int w_##name params					\
	{								\
		int ret = (check);					\
									\
		if (ret)						\
			return ret;					\
		op_begin();						\
		return op_end(stock_ops.name args);			\
	}

LJ_OP(readlink, check_path(p), (const char *p, char *buf, size_t n),
      (p, buf, n))
LJ_OP(unlink, check_path(p), (const char *p), (p))
LJ_OP(rmdir, check_path(p), (const char *p), (p))
LJ_OP(rename, check_paths(a, b), (const char *a, const char *b), (a, b))
LJ_OP(chown, check_path(p), (const char *p, uid_t u, gid_t g), (p, u, g))
LJ_OP(open, check_path(p), (const char *p, struct fuse_file_info *fi),
      (p, fi))
LJ_OP(read, 0, (const char *p, char *b, size_t n, off_t o,
		struct fuse_file_info *fi), (p, b, n, o, fi))
LJ_OP(statfs, check_path(p), (const char *p, struct statvfs *s), (p, s))
LJ_OP(flush, 0, (const char *p, struct fuse_file_info *fi), (p, fi))
LJ_OP(release, 0, (const char *p, struct fuse_file_info *fi), (p, fi))
LJ_OP(opendir, check_path(p), (const char *p, struct fuse_file_info *fi),
      (p, fi))
LJ_OP(readdir, 0, (const char *p, void *b, fuse_fill_dir_t f, off_t o,
		   struct fuse_file_info *fi), (p, b, f, o, fi))
LJ_OP(releasedir, 0, (const char *p, struct fuse_file_info *fi), (p, fi))
LJ_OP(access, check_path(p), (const char *p, int m), (p, m))
LJ_OP(bmap, check_path(p), (const char *p, size_t bs, uint64_t *idx),
      (p, bs, idx))

/*
 * The operations where the kernel's answer needs more than stock's
 * (view_posix.c): each still one operation between op_begin and op_end.
 */
static int w_getattr(const char *p, struct stat *st)
{
	int ret = check_path(p);

	if (ret)
		return ret;
	op_begin();
	ret = stock_ops.getattr(p, st);
	if (!ret)
		lj_posix_stat(st);
	return op_end(ret);
}

static int w_fgetattr(const char *p, struct stat *st,
		      struct fuse_file_info *fi)
{
	int ret;

	op_begin();
	ret = stock_ops.fgetattr(p, st, fi);
	if (!ret)
		lj_posix_stat(st);
	return op_end(ret);
}

/* A new inode: its mode, owner and ACLs as the kernel makes them. */
#define LJ_NEW_OP(name, type, check, params, args)			\
	static int w_##name params					\
	{								\
		struct lj_posix_new n;					\
		int ret = check_path(p);				\
									\
		if (ret)						\
			return ret;					\
		m |= (type);						\
		op_begin();						\
		ret = (check);						\
		if (!ret)						\
			ret = lj_posix_new_begin(&stock_ops, p, &m, &n); \
		if (!ret)						\
			ret = stock_ops.name args;			\
		if (!ret)						\
			ret = lj_posix_new_end(&stock_ops, p, &n);	\
		return op_end(ret);					\
	}

LJ_NEW_OP(mknod, 0, 0, (const char *p, mode_t m, dev_t d), (p, m, d))
LJ_NEW_OP(mkdir, S_IFDIR, lj_posix_mkdir_ok(p), (const char *p, mode_t m),
	  (p, m))

static int w_symlink(const char *t, const char *p)
{
	struct lj_posix_new n;
	mode_t m = S_IFLNK | 0777;
	int ret = check_symlink(t, p);

	if (ret)
		return ret;
	op_begin();
	ret = lj_posix_new_begin(&stock_ops, p, &m, &n);
	if (!ret)
		ret = stock_ops.symlink(t, p);
	if (!ret)
		ret = lj_posix_new_end(&stock_ops, p, &n);
	return op_end(ret);
}

static int w_create(const char *p, mode_t m, struct fuse_file_info *fi)
{
	struct lj_posix_new n;
	int ret = check_path(p);

	if (ret)
		return ret;
	op_begin();
	ret = lj_posix_new_begin(&stock_ops, p, &m, &n);
	if (!ret)
		ret = stock_ops.create(p, m, fi);
	if (!ret) {
		ret = lj_posix_new_end(&stock_ops, p, &n);
		if (ret && stock_ops.release)	/* undone: not open */
			(void)stock_ops.release(p, fi);
	}
	return op_end(ret);
}

static int w_link(const char *a, const char *b)
{
	int ret = check_paths(a, b);

	if (ret)
		return ret;
	op_begin();
	ret = lj_posix_link_ok(a);
	if (!ret)
		ret = stock_ops.link(a, b);
	return op_end(ret);
}

static int w_chmod(const char *p, mode_t m)
{
	int ret = check_path(p);

	if (ret)
		return ret;
	op_begin();
	ret = stock_ops.chmod(p, m);
	if (!ret)
		ret = lj_posix_chmod_acl(&stock_ops, p, m);
	return op_end(ret);
}

static int w_truncate(const char *p, off_t o)
{
	int ret = check_path(p);

	if (ret)
		return ret;
	op_begin();
	ret = lj_posix_size_ok(&stock_ops, p, NULL, o);
	if (!ret)
		ret = stock_ops.truncate(p, o);
	return op_end(ret);
}

static int w_ftruncate(const char *p, off_t o, struct fuse_file_info *fi)
{
	int ret;

	op_begin();
	ret = lj_posix_size_ok(&stock_ops, p, fi, o);
	if (!ret)
		ret = stock_ops.ftruncate(p, o, fi);
	return op_end(ret);
}

/* O_SYNC includes O_DSYNC's bit: either makes each write a persistence
 * point (the kernel's FUSE client sends an fsync after it as well). */
static int w_write(const char *p, const char *b, size_t n, off_t o,
		   struct fuse_file_info *fi)
{
	int ret;

	op_begin();
	ret = lj_posix_write_ok(&stock_ops, p, fi, o, &n);
	if (!ret)
		ret = stock_ops.write(p, b, n, o, fi);
	return op_end_as(ret, fi && (fi->flags & O_DSYNC));
}

/* Persistence points: stock's own fsync (if any) first, then the
 * commit of everything uncommitted, durable before the reply. */
static int w_fsync(const char *p, int d, struct fuse_file_info *fi)
{
	op_begin();
	return op_end_as(stock_ops.fsync ? stock_ops.fsync(p, d, fi) : 0, 1);
}

static int w_fsyncdir(const char *p, int d, struct fuse_file_info *fi)
{
	op_begin();
	return op_end_as(stock_ops.fsyncdir ? stock_ops.fsyncdir(p, d, fi) : 0,
			 1);
}

static int w_fallocate(const char *p, int mode, off_t o, off_t len,
		       struct fuse_file_info *fi)
{
	int ret;

	op_begin();
	ret = o > INT64_MAX - len ? -EFBIG :
	      lj_posix_size_ok(&stock_ops, p, fi, o + len);
	if (!ret)	/* partial blocks to the byte (view_range.c) */
		ret = lj_posix_fallocate_range(&stock_ops, p, mode, o, len,
					       fi);
	return op_end(ret);
}

static int w_utimens(const char *p, const struct timespec tv[2])
{
	struct timespec t[2];
	int ret = check_path(p);

	if (ret)
		return ret;
	lj_posix_clamp_times(tv, t);
	op_begin();
	return op_end(stock_ops.utimens(p, t));
}

/* ioctl: stock's own owner checks (FS_IOC_SETFLAGS) are the kernel's,
 * which FUSE does not make: stock sees the caller. */
static int w_ioctl(const char *p, int cmd, void *arg,
		   struct fuse_file_info *fi, unsigned int flags, void *data)
{
	op_begin();
	lj_posix_stock_as_root(0);
	return op_end(stock_ops.ioctl(p, cmd, arg, fi, flags, data));
}

#define LJ_ACL_ACCESS	"system.posix_acl_access"

static int w_setxattr(const char *p, const char *name, const char *v,
		      size_t size, int flags)
{
	int ret = check_path(p);

	if (!ret)
		ret = lj_posix_xattr_name(name);
	if (ret)
		return ret;
	op_begin();
	ret = lj_posix_xattr_flags(&stock_ops, p, name, flags);
	if (!ret && !strcmp(name, LJ_ACL_ACCESS))
		ret = lj_posix_set_access_acl(&stock_ops, p, v, size, flags);
	else if (!ret)
		ret = stock_ops.setxattr(p, name, v, size, flags);
	return op_end(ret);
}

static int w_getxattr(const char *p, const char *name, char *v, size_t size)
{
	int ret = check_path(p);

	if (!ret)
		ret = lj_posix_xattr_name(name);
	if (ret)
		return ret;
	op_begin();
	return op_end(stock_ops.getxattr(p, name, v, size));
}

static int w_removexattr(const char *p, const char *name)
{
	int ret = check_path(p);

	if (!ret)
		ret = lj_posix_xattr_name(name);
	if (ret)
		return ret;
	op_begin();
	return op_end(lj_posix_removexattr(&stock_ops, p, name));
}

static int w_listxattr(const char *p, char *l, size_t s)
{
	int ret = check_path(p);

	if (ret)
		return ret;
	op_begin();
	return op_end(lj_posix_listxattr(&stock_ops, p, l, s));
}

static void *w_init(struct fuse_conn_info *conn)
{
	void *ret;

	op_begin();
	ret = stock_ops.init ? stock_ops.init(conn) : NULL;
	lj_posix_init(conn);
	op_end(0);
	if (lazy_fs() && !pthread_create(&timer, NULL, timer_main, NULL))
		timer_running = 1;
	return ret;
}

static void w_destroy(void *data)
{
	ext2_filsys fs;

	if (timer_running) {
		pthread_mutex_lock(&op_lock);
		timer_stop = 1;
		pthread_cond_signal(&timer_cond);
		pthread_mutex_unlock(&op_lock);
		pthread_join(timer, NULL);
		timer_running = 0;
	}
	op_begin();
	if (stock_ops.destroy)
		stock_ops.destroy(data);
	fs = lazy_fs();
	if (fs)
		commit_fs(fs);
	pthread_mutex_unlock(&op_lock);
}

/*
 * The umount's last step.  Stock closes the file system after
 * fuse_main returns, and ext2fs_close writes the superblock once more:
 * the channel is held across that close (view_fs.c's interposers), then
 * lj_lazy_checkpoint_all commits that write and, on plain ext4, sends
 * every journaled block home and empties the log, as ext4's umount does.
 */
io_channel lj_view_mount_closing(ext2_filsys fs)
{
	if (lj_view_mode != LJ_VIEW_MOUNT || !fs || fs != lj_view_fs() ||
	    !lj_lazy_writer(fs->io))
		return NULL;
	fs->io->refcount++;
	return fs->io;
}

errcode_t lj_view_mount_closed(io_channel io, errcode_t err)
{
	errcode_t cerr;

	if (!io)
		return err;
	cerr = lj_lazy_checkpoint_all(io);
	if (cerr)
		com_err("fuse2fs", cerr, "while checkpointing the journal of %s",
			io->name);
	io_channel_close(io);
	return err ? err : cerr;
}

/* Each entry stock fills in is wrapped; the rest stay as stock's. */
#define LJ_WRAP(ops, name) \
	do { if ((ops)->name) (ops)->name = w_##name; } while (0)

static void wrap_ops(struct fuse_operations *ops)
{
	LJ_WRAP(ops, getattr);
	LJ_WRAP(ops, readlink);
	LJ_WRAP(ops, mknod);
	LJ_WRAP(ops, mkdir);
	LJ_WRAP(ops, unlink);
	LJ_WRAP(ops, rmdir);
	LJ_WRAP(ops, symlink);
	LJ_WRAP(ops, rename);
	LJ_WRAP(ops, link);
	LJ_WRAP(ops, chmod);
	LJ_WRAP(ops, chown);
	LJ_WRAP(ops, truncate);
	LJ_WRAP(ops, open);
	LJ_WRAP(ops, read);
	LJ_WRAP(ops, write);
	LJ_WRAP(ops, statfs);
	LJ_WRAP(ops, flush);
	LJ_WRAP(ops, release);
	ops->fsync = w_fsync;		/* persistence points: always ours */
	LJ_WRAP(ops, setxattr);	/* w_setxattr: ACLs as the kernel */
	LJ_WRAP(ops, getxattr);
	LJ_WRAP(ops, listxattr);
	LJ_WRAP(ops, removexattr);
	LJ_WRAP(ops, opendir);
	LJ_WRAP(ops, readdir);
	LJ_WRAP(ops, releasedir);
	ops->fsyncdir = w_fsyncdir;
	LJ_WRAP(ops, access);
	LJ_WRAP(ops, create);
	LJ_WRAP(ops, ftruncate);
	LJ_WRAP(ops, fgetattr);
	LJ_WRAP(ops, utimens);
	LJ_WRAP(ops, bmap);
	LJ_WRAP(ops, ioctl);
	LJ_WRAP(ops, fallocate);
	ops->init = w_init;
	ops->destroy = w_destroy;
}

typedef int (*fuse_main_fn)(int, char **, const struct fuse_operations *,
			    size_t, void *);

/*
 * Stock fuse2fs takes -o ro for itself and mounts read-write in the
 * kernel, then answers each writing call its own way (EIO, ENOTEMPTY, 0).
 * With the fs opened read-only, the kernel's mount is made read-only as
 * well, so the VFS answers EROFS before a call reaches us, as it does for
 * ext4 mounted -o ro.  argv, or a copy with "-oro" added (kept for the
 * process's life: libfuse holds on to it), *argc counting it.
 */
static char **read_only_mount(int *argc, char **argv)
{
	static char ro[] = "-oro";
	ext2_filsys fs = lj_view_fs();
	char **out;

	if (!fs || (fs->flags & EXT2_FLAG_RW))
		return argv;
	out = calloc((size_t)*argc + 2, sizeof(*out));
	if (!out)
		return argv;
	memcpy(out, argv, (size_t)*argc * sizeof(*out));
	out[(*argc)++] = ro;
	return out;
}

LJ_EXPORT int fuse_main_real(int argc, char *argv[],
			     const struct fuse_operations *op, size_t op_size,
			     void *user_data)
{
	static struct fuse_operations ours;
	LJ_REAL(fuse_main_real, fuse_main_fn);

	if (!real)
		return 1;
	if (lj_view_mode != LJ_VIEW_MOUNT || op_size > sizeof(ours))
		return real(argc, argv, op, op_size, user_data);
	memcpy(&stock_ops, op, op_size);
	ours = stock_ops;
	wrap_ops(&ours);
	argv = read_only_mount(&argc, argv);
	return real(argc, argv, &ours, op_size, user_data);
}
