/*
 * fuse2fs/server.h --- our FUSE server (libfuse 3's low-level API) on the
 * system libext2fs and the lazy channel: what its files share.
 *
 *   fuse2fs/server.c   the server (struct fs_server) made; the session:
 *                      options, open, mount, daemonise, loop
 *   fuse2fs/commit.c   requests under one lock; commits beside them
 *   fuse2fs/loop.c     the request loop: threads taking turns at reading
 *                      requests (polls a moment before sleeping)
 *   fuse2fs/latency.c  the CPUs kept out of deep idle while requests come
 *   fuse2fs/waits.c    how long requests waited, beside the cleaner and
 *                      commits
 *   fuse2fs/inode.c    inodes read and written, owner, times, stat
 *   fuse2fs/attr.c     getattr, setattr, statfs
 *   fuse2fs/dir.c      lookup, forget, the namespace calls, readdir
 *   fuse2fs/htree.c    directory indexes (htree): made, searched, kept
 *   fuse2fs/file.c     create, open, read, write, release, fsync, fallocate
 *   fuse2fs/data.c     file data mapped, written, read, truncated, allocated
 *   fuse2fs/place.c    where new file data goes (the writers' windows)
 *   fuse2fs/punch.c    ext2fs_punch, able to free the last block
 *   fuse2fs/ind.c      a hole punched in a block-mapped file
 *   fuse2fs/range.c    lseek (SEEK_DATA, SEEK_HOLE), copy_file_range
 *   fuse2fs/flags.c    inode flags (lsattr, chattr), immutable, append
 *   fuse2fs/killpriv.c setuid, setgid, capabilities cleared by the server
 *   fuse2fs/xattr.c    extended attributes, ACLs kept with the mode
 *   fuse2fs/acl.c      the ACL arithmetic of the kernel (xattr form)
 *   fuse2fs/orphan.c   lookup and open counts, the ext4 orphan list
 *
 * Who calls whom (no cycle; tests/l_layers): server.c -> the requests
 * (attr, dir, file, range, xattr, flags) -> data.c, htree.c, orphan.c,
 * killpriv.c, acl.c -> punch.c, inode.c, commit.c -> place.c, quota.c,
 * errors.c -> loop.c -> latency.c, waits.c.
 *   fuse2fs/quota.c    quota usage per user, group and project
 *   fuse2fs/errors.c   errno of libext2fs codes; errors recorded and
 *                      -o errors= applied as ext4 does
 *
 * A request is answered by inode number (fuse_ino_t is the ext2 inode
 * number; FUSE_ROOT_ID is EXT2_ROOT_INO).
 */
#ifndef FS_SERVER_H
#define FS_SERVER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define FUSE_USE_VERSION 34
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>
#include <ext2fs/ext2fs.h>

#include "lazy_journal.h"

/* A request's inode number as ext2's, and back (the root differs). */
#define FS_INO(f)	((ext2_ino_t)((f) == FUSE_ROOT_ID ? EXT2_ROOT_INO : (f)))
#define FS_FUSE_INO(i)	((fuse_ino_t)((i) == EXT2_ROOT_INO ? FUSE_ROOT_ID : (i)))

#define FS_NAME_MAX	255		/* EXT2_NAME_LEN */
#define FS_LINK_MAX	65000		/* EXT4_LINK_MAX */

struct fs_node;		/* fuse2fs/orphan.c */
struct fs_qf_delta;	/* fuse2fs/quota.c */

#define FS_DX_SEEN_SLOTS	4096
#define FS_OPCODES		64	/* loop.c's tables */
#define FS_MAX_THREADS		16	/* loop.c: threads serving requests */
#define FS_CHANGE_SLOTS		8192	/* commit.c: inodes' last changes */
#define FS_PLACE_WINDOWS	32	/* place.c: files' windows held */
#define FS_PLACE_STOPS		16	/* place.c: given-up windows' ends kept */

/* place.c: free blocks a writer's next data goes to, [next, end). */
struct fs_window {
	ext2_ino_t ino;		/* the file's (0: the small files') */
	blk64_t lblk;		/* the file's block that next continues */
	blk64_t next, end;	/* empty when equal */
	unsigned long used;	/* when last used (place.tick) */
};

/*
 * loop.c: a thread serving requests, and what it read of the request it
 * serves (fs_begin hands that to the server's cur).
 */
struct fs_server;
struct fs_thread {
	struct fs_server *srv;
	pthread_t id;
	struct fuse_buf buf;
	unsigned long serial;	/* its request's number */
	ext2_ino_t ino;		/* the request's inode */
	int write_kill;		/* a WRITE's FUSE_WRITE_KILL_SUIDGID */
	/* waits.c: when its request was read (ns; 0: none), and what
	 * was under way then */
	long long arrived;
	unsigned long commits_seen, cleaner_seen;
};

/*
 * The server: everything a request reads or changes, one per mount.
 * server.c makes it before the session and hands it to libfuse as the
 * session's userdata: a request finds it with fuse_req_userdata, a
 * libext2fs hook in fs->priv_data, the commit timer as its argument;
 * every function below it takes it as its first argument (srv).  There
 * is no other state: each part is kept by the file named beside it.
 */
struct fs_server {
	/* server.c: the file system, the mount's options, the session */
	ext2_filsys fs;
	io_channel lazy;	/* fs->io when it is a lazy writer, else NULL */
	lj_bitmaps *bitmaps;	/* a writer's allocation bitmaps */
	int ro;
	int plain_journal;	/* a plain ext4 journaled through the channel */
	double timeout;		/* entry and attr timeouts (seconds) */
	unsigned int commit_secs;
	int latency_qos;	/* not -o nolatency_qos (latency.c) */
	int sync, dirsync;	/* -o sync, -o dirsync (the kernel's mount
				 * flags: every change, every directory
				 * change commits before its answer) */
	const char *device;
	const char *name;	/* as libext2fs opens it (?offset=) */
	int debug;
	struct fuse_session *se;	/* for notifications */
	struct fuse_args args;		/* libfuse's command line, */
	struct fuse_cmdline_opts co;	/* as libfuse read it */

	/* commit.c: the request lock, the timer, what is uncommitted */
	struct {
		pthread_mutex_t lock;	/* held by a request, by a commit
					 * but while it writes the log */
		pthread_cond_t wake;
		pthread_cond_t done;	/* a commit ended */
		int writing;		/* a commit is writing the log */
		unsigned long started, finished;	/* commits begun, ended */
		unsigned long failed;	/* the last that failed, or 0 */
		pthread_t timer;
		int timer_running, timer_stop;
		int changed;			/* anything uncommitted */
		struct timespec first_change;	/* its oldest change */
		void (*old_stats)(ext2_filsys, blk64_t, int);
		void (*old_stats_range)(ext2_filsys, blk64_t, blk_t, int);
		/* the transactions of an inode's last change and of its last
		 * change to data, size or mapping, in the slot of its number
		 * (fs_commit_changed) */
		struct fs_last_change {
			ext2_ino_t ino;		/* 0: none */
			unsigned long txn, data_txn;
		} last[FS_CHANGE_SLOTS];
	} commit;

	/* waits.c: how long requests waited for their answers */
	struct {
		unsigned long commits;	/* started and ended: odd while
					 * one runs */
		unsigned long cleaner_runs;	/* the writer's stats, */
		uint64_t cleaner_ns, cleaner_max_ns;	/* as of the last
							 * commit start */
		long long longest, beside_cleaner, beside_commit, persist;
		long long start, finish;	/* a commit's, locked */
	} waits;

	/* errors.c: the behaviour applied, and whether it stopped us */
	struct {
		int behaviour;		/* EXT2_ERRORS_*, 0: the superblock's */
		int stopped;		/* remount-ro or panic applied */
		int panicked;
		int quiet;		/* errors answered only */
		struct fuse_lowlevel_ops inner;	/* the ops behind the gate */
		struct fuse_lowlevel_ops gated;
	} errors;

	/* orphan.c: lookup and open counts per inode, in a hash table
	 * that doubles as it fills (the kernel may hold millions) */
	struct {
		struct fs_node **bucket;
		unsigned int bits;	/* 1 << bits buckets; 0: none yet */
		size_t count;
	} nodes;

	/* place.c: the windows new file data goes to */
	struct {
		struct fs_window stream;	/* the small files' */
		struct fs_window meta;	/* libext2fs's blocks among data */
		struct fs_window w[FS_PLACE_WINDOWS];	/* larger files' */
		struct fs_window *cur;	/* the last goal's, until taken */
		unsigned long tick;
		blk64_t band;	/* -o smr_band= in blocks; 0: none */
		blk64_t band_skew;	/* block 0's place in its band */
		/* where the data of windows given up stopped (bands) */
		blk64_t stops[FS_PLACE_STOPS];
		unsigned int nstops;	/* stops written, the next slot */
	} place;

	/* htree.c: directory blocks whose checksum was verified */
	blk64_t dx_seen[FS_DX_SEEN_SLOTS];

	/* quota.c: the usage deltas of the running transaction */
	struct fs_quota_type {
		ext2_ino_t ino;		/* 0: this type is not kept */
		struct fs_qf_delta *d;
		size_t n, cap;
	} quota[3];
	int quota_on;		/* quota.c: the usage is kept */

	/* killpriv.c: FUSE_HANDLE_KILLPRIV_V2 at INIT */
	struct {
		int offered;		/* the kernel offered it */
		uint64_t init_unique;	/* INIT's request id, for its reply */
		int taken;		/* we answered INIT with it */
	} kp;

	/* loop.c: when to poll, the requests counted, the threads serving
	 * them and whose turn it is to read the next */
	struct {
		unsigned char score[FS_OPCODES];
		unsigned long counts[FS_OPCODES + 1];
		long long spin;		/* the poll after the last request */
		uint32_t last;		/* its opcode */
		unsigned long serial;	/* requests read */
		int threaded;		/* key made, threads may start */
		pthread_key_t key;	/* the calling thread's fs_thread */
		pthread_mutex_t turn_lock;	/* the fields below */
		pthread_cond_t turn_free;
		struct fs_thread *reader;	/* whose turn, or NULL */
		int idle;		/* threads waiting for the turn */
		int exiting;		/* the session ended */
		int result;		/* how: 0, or -errno */
		int nthr;
		struct fs_thread thr[FS_MAX_THREADS];
		/* latency.c: the PM QoS request while requests come */
		int qos_fd;		/* /dev/cpu_dma_latency while held */
		int qos_off;		/* never asked: off, or it failed */
		long long qos_last;	/* when the last request came (ns) */
	} loop;

	/* The request in progress under the request lock (commit.c). */
	struct {
		unsigned long serial;	/* loop.c: whose values these are */
		ext2_ino_t ino;		/* errors.c: the inode it works on */
		int told;		/* errors.c: it recorded an error */
		int privileged;		/* data.c: its caller may take the
					 * reserved blocks */
		int write_kill;		/* killpriv.c: the WRITE's
					 * FUSE_WRITE_KILL_SUIDGID */
		ext2_ino_t freeing;	/* quota.c: the inode freed by the
					 * next write of it */
		const struct ext2_inode *whole;	/* quota.c: a whole inode
						 * being written */
	} cur;
};

/* ---- fuse2fs/server.c: the session ------------------------------- */
struct fe_mount_args;
struct fe_mount_probe;
/* A server with the defaults (NULL: no memory), and given back. */
struct fs_server *fs_server_new(void);
void fs_server_free(struct fs_server *srv);
/*
 * The whole command line read, libfuse's options included (the session
 * is made, not mounted): before the front-end writes or says anything.
 * -1: go on to fs_serve; otherwise the exit status (0 after --help).
 */
int fs_session_prepare(struct fs_server *srv, const struct fe_mount_args *a);
/* After fs_session_prepare: the file system served until umount (name:
 * as libext2fs opens it), then closed; the exit status. */
int fs_serve(struct fs_server *srv, const char *name,
	     const struct fe_mount_args *a, const struct fe_mount_probe *p);
/* The server of a request. */
static inline struct fs_server *fs_srv_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* ---- fuse2fs/commit.c: requests under one lock, commits beside them - */
void fs_begin(struct fs_server *srv);
/* After a request: commit when due (or when want_commit); 0, or -EIO
 * when a commit that was needed failed. */
int fs_end(struct fs_server *srv, int want_commit);
/* ino changed in the running transaction (every inode write and data
 * write: inode.c, data.c); data: its data, size or mapping, what an
 * fdatasync must make durable (else its times, owner, mode, xattrs). */
void fs_commit_changed(struct fs_server *srv, ext2_ino_t ino, int data);
/* Would fs_commit_changed's data say anything new (0: a change of data
 * of ino is recorded in the running transaction, or ino is not known,
 * which counts as one)?  Its callers find out only then. */
int fs_commit_wants_data(struct fs_server *srv, ext2_ino_t ino);
/* fs_end of an fsync (fdatasync: datasync) of ino: a commit unless what
 * it covers is durable already; 0 or -EIO. */
int fs_end_fsync(struct fs_server *srv, ext2_ino_t ino, int datasync);
/* Commit everything changed so far and wait until it is durable (lock
 * held, released while waiting): 0 or -EIO. */
int fs_commit_now(struct fs_server *srv);

void fs_timer_start(struct fs_server *srv);
void fs_timer_stop(struct fs_server *srv);
/* The lazy channel told of blocks allocated and freed. */
void fs_alloc_hooks(struct fs_server *srv);

/* ---- fuse2fs/loop.c: requests until umount; 0 or -1 ------------- */
int fs_loop(struct fs_server *srv);
/* The calling thread's request into srv->cur (fs_begin, lock held). */
void fs_loop_enter(struct fs_server *srv);
/* The calling thread is about to wait (for a commit): if it is the one
 * reading requests, another thread takes its turn. */
void fs_loop_hand_off(struct fs_server *srv);
/* Wait on cond with the request lock (held; released while waiting),
 * the turn handed on first. */
void fs_loop_wait(struct fs_server *srv, pthread_cond_t *cond);
/* The calling serving thread (NULL: not one of the loop's). */
struct fs_thread *fs_loop_self(struct fs_server *srv);

/* ---- fuse2fs/waits.c: how long requests waited -------------------- */
/* The loop read t's request at now (ns, CLOCK_MONOTONIC). */
void fs_waits_read(struct fs_server *srv, struct fs_thread *t,
		   long long now);
/* A commit starts or ends (lock held). */
void fs_waits_commit(struct fs_server *srv);
/* A commit's start made (lock held): the cleaner's runs so far. */
void fs_waits_cleaner(struct fs_server *srv);
/* The server's clock (ns, CLOCK_MONOTONIC): the loop's polls, the
 * waits. */
long long fs_clock_ns(void);
/* A commit's start (finish 0) or finish held the lock since then. */
void fs_waits_locked(struct fs_server *srv, int finish, long long since);
/* t's request answered (fs_end, lock held; t NULL: no serving thread's);
 * persist: a persistence point's. */
void fs_waits_answered(struct fs_server *srv, struct fs_thread *t,
		       int persist);
/* "fuse2fs: waits: ..." to stderr. */
void fs_waits_print(struct fs_server *srv);

/* ---- fuse2fs/latency.c: PM QoS while requests come ---------------- */
/* Not held yet; never asked for with -o nolatency_qos (nor, quietly,
 * where the device cannot be opened). */
void fs_latency_init(struct fs_server *srv);
void fs_latency_close(struct fs_server *srv);
/* A request came at now (ns, CLOCK_MONOTONIC): latency 0 asked for. */
void fs_latency_request(struct fs_server *srv, long long now);
/* The poll's timeout (ms, -1: none) cut to when the request is to be
 * withdrawn; withdrawn when that time has come. */
int fs_latency_timeout(struct fs_server *srv, int timeout, long long now);

/* ---- fuse2fs/inode.c ------------------------------------------------ */
/* A whole on-disk inode (EXT2_INODE_SIZE bytes) in memory. */
struct fs_inode {
	struct ext2_inode_large i;
	unsigned char rest[1024 - sizeof(struct ext2_inode_large)];
};
#define FS_I(x)	((struct ext2_inode *)&(x)->i)
int fs_read_inode(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in);
int fs_write_inode(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in);
/* libext2fs's write_inode hook installed (a read-write mount). */
void fs_inode_hook(struct fs_server *srv);
void fs_inode_block_fresh(struct fs_server *srv, ext2_ino_t ino);
void fs_stat(struct fs_server *srv, ext2_ino_t ino, const struct fs_inode *in,
	     struct stat *st);
uid_t fs_uid(const struct fs_inode *in);
gid_t fs_gid(const struct fs_inode *in);
void fs_set_owner(struct fs_inode *in, uid_t uid, gid_t gid);
/* Times: which of FS_T_A/M/C/CR to set to ts (NULL: now). */
#define FS_T_A	1
#define FS_T_M	2
#define FS_T_C	4
#define FS_T_CR	8
void fs_set_times(struct fs_server *srv, struct fs_inode *in, int which,
		  const struct timespec *ts);
/* Read, set times, write. */
int fs_touch(struct fs_server *srv, ext2_ino_t ino, int which);
/* The largest size ext4 gives the inode. */
uint64_t fs_max_size(struct fs_server *srv, const struct fs_inode *in);
/* Is the caller root or in group g? */
int fs_in_group(fuse_req_t req, gid_t g);

/* ---- fuse2fs/attr.c ------------------------------------------------- */
void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		   int to_set, struct fuse_file_info *fi);
void fs_op_statfs(fuse_req_t req, fuse_ino_t ino);

/* ---- fuse2fs/errors.c: damage answered as ext4 answers it ---------- */
/* The errno of a libext2fs or channel code; a checksum, corruption or
 * device error also recorded and -o errors= applied (func, line: where). */
int fs_errno_at(struct fs_server *srv, errcode_t err, const char *func,
		int line);
#define fs_errno(srv, err)	fs_errno_at(srv, (err), __func__, __LINE__)
/* -o errors=VALUE: 0, or -1 for an unknown value. */
int fs_errors_option(struct fs_server *srv, const char *value);
/* The inode the current request works on (recorded with an error). */
void fs_errors_inode(struct fs_server *srv, ext2_ino_t ino);
/* While quiet, errors are answered only (an inode read that ext4 would
 * not have made). */
void fs_errors_quiet(struct fs_server *srv, int on);
/* Has remount-ro or panic been applied?  Has panic? */
int fs_errors_stopped(struct fs_server *srv);
int fs_errors_panicked(struct fs_server *srv);
/* ops with every modifying request answered EROFS once stopped. */
const struct fuse_lowlevel_ops *
fs_errors_ops(struct fs_server *srv, const struct fuse_lowlevel_ops *o);
/* A commit failed: the journal is aborted, as jbd2's (no later commit;
 * remount-ro even under errors=continue, or panic). */
void fs_errors_commit_failed(struct fs_server *srv);
/* Before the close: what was written since stopping dropped. */
void fs_errors_close(struct fs_server *srv);

/* ---- fuse2fs/dir.c -------------------------------------------------- */
void fs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void fs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void fs_op_forget_multi(fuse_req_t req, size_t count,
			struct fuse_forget_data *forgets);
void fs_op_readlink(fuse_req_t req, fuse_ino_t ino);
void fs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev);
void fs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode);
void fs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		   const char *name);
void fs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		const char *newname);
void fs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void fs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void fs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		  fuse_ino_t newparent, const char *newname,
		  unsigned int flags);
void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi);
void fs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi);
void fs_op_releasedir(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi);
/* A new inode in parent named name (create, mknod, mkdir, symlink): the
 * kernel's owner, mode (umask or default ACL) and inherited ACLs. */
int fs_new_inode(fuse_req_t req, ext2_ino_t parent, const char *name,
		 mode_t mode, mode_t umask, dev_t rdev, const char *target,
		 ext2_ino_t *ret);

/* ---- fuse2fs/htree.c: directory indexes (htree) ------------------- */
/* dx calls answer FS_DX_LINEAR when dir has no index they use (not
 * indexed, casefolded or encrypted, '.' or '..'): the caller scans. */
#define FS_DX_LINEAR	1
/* name's inode in dir through the index: 0, -ENOENT, -errno. */
int fs_dx_lookup(struct fs_server *srv, ext2_ino_t dir, const char *name,
		 ext2_ino_t *ino);
/* name's inode in dir, through the index or block by block, each block
 * verified once a mount: 0, -ENOENT, -errno; FS_DX_LINEAR for inline,
 * casefolded or encrypted directories (the caller asks libext2fs). */
int fs_dir_lookup(struct fs_server *srv, ext2_ino_t dir, const char *name,
		  ext2_ino_t *ino);
/* name -> ino (of type) added through dir's index (the leaf of its
 * hash), or to the first block of a linear dir with room, the block's
 * checksum set by fs_dir_write_block: 0 or -errno; FS_DIR_FULL when a
 * linear dir has no room (fs_dir_grow); a full leaf is split and the
 * index grown as ext4 grows it; FS_DX_LINEAR for what is left to
 * libext2fs (inline, casefolded or encrypted entries, a broken block). */
#define FS_DIR_FULL	2
int fs_dir_add(struct fs_server *srv, ext2_ino_t dir, const char *name,
	       ext2_ino_t ino, int type);
/* A directory block of dir (whose generation is gen) written, its
 * checksum set: a leaf's by lj_dir_leaf_csum_set, an index block's by
 * ext2fs_write_dir_block4; then known good for the mount. 0 or -errno. */
int fs_dir_write_block(struct fs_server *srv, ext2_ino_t dir, __u32 gen,
		       blk64_t pblk, char *buf);
/* The entry name of dir points at ino now (type < 0: kept). */
int fs_dx_set(struct fs_server *srv, ext2_ino_t dir, const char *name,
	      ext2_ino_t ino, int type);
/* The entry name (of ino; 0: any) leaves dir, through the index when dir
 * has one, else by a scan: 0 or -errno. */
int fs_dir_unlink(struct fs_server *srv, ext2_ino_t dir, const char *name,
		  ext2_ino_t ino);
/* dir had no room for a new entry: a full one-block directory becomes
 * indexed (as ext4 makes it), another linear one gets a block, an
 * indexed one is full (-ENOSPC, ext2fs_link split what it could). */
int fs_dir_grow(struct fs_server *srv, ext2_ino_t dir);

/* ---- fuse2fs/file.c ------------------------------------------------- */
void fs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		  mode_t mode, struct fuse_file_info *fi);
void fs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void fs_op_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		 size_t size, off_t off, struct fuse_file_info *fi);
void fs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* FSYNC and FSYNCDIR alike: the inode's last change committed. */
void fs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi);
void fs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		     off_t length, struct fuse_file_info *fi);

/* ---- fuse2fs/data.c ------------------------------------------------- */
/* The request's caller may take the reserved blocks (root, the
 * superblock's resuid or resgid): set per writing request. */
void fs_set_privileged(fuse_req_t req);
/* fallocate(2) of [off, off+len) with mode: 0 or -errno. */
int fs_fallocate(struct fs_server *srv, ext2_ino_t ino, int mode, uint64_t off,
		 uint64_t len);
/* Size of ino set to size (blocks past it freed, the tail zeroed). */
int fs_truncate(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		uint64_t size);
/* The run of blocks at lblk (at most max): *pblk the first's physical
 * block (0: a hole), *len how many follow alike, *uninit unwritten. */
errcode_t fs_map_run(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		     blk64_t lblk,
		     blk64_t max, blk64_t *pblk, blk64_t *len, int *uninit);
/* Bytes [off, off+size) of the file, cut at its size: *buf (malloc'd,
 * NULL when none) and *len; 0 or -errno. */
int fs_file_read(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		 uint64_t off,
		 size_t size, unsigned char **buf, size_t *len);
/* The READ of [off, off+size) answered from the device's pages when
 * they are one run of blocks at home: 1 when answered, else 0 (then read
 * it with fs_file_read).  Under the request lock. */
int fs_file_read_spliced(fuse_req_t req, ext2_ino_t ino, struct fs_inode *in,
			 uint64_t off, size_t size);
/* Must a write, truncate or fallocate through a descriptor with these
 * open flags (0: none) to in commit before its answer (O_SYNC, O_DSYNC,
 * chattr +S, -o sync)? */
int fs_write_is_sync(struct fs_server *srv, int open_flags,
		     const struct fs_inode *in);
/* The blocks ext4 keeps from every writer for metadata (statfs leaves
 * them out of f_bavail). */
blk64_t fs_resv_blocks(struct fs_server *srv);
/* size bytes of buf written at off as write(2) writes them (EFBIG past
 * the largest size, short at it or on ENOSPC part way; size, mtime and
 * ctime; the inode written): *done; 0 or -errno. */
int fs_file_write(fuse_req_t req, ext2_ino_t ino, struct fs_inode *in,
		  const char *buf, size_t size, uint64_t off, size_t *done);

/* ---- fuse2fs/place.c: where new file data goes --------------------- */
/* The goal for new blocks [lblk, lblk+n) of ino (ext2fs_new_range's):
 * its writers' window, opened when it has no room, searched from goal
 * (the block after the one before lblk, else the inode's goal). */
blk64_t fs_place_goal(struct fs_server *srv, ext2_ino_t ino, blk64_t lblk,
		      blk64_t n, blk64_t goal);
/* -o smr_band= (bytes; 0: none) on the device, the file system starting
 * offset bytes into it: 0, or -1 (said) when either is not a multiple of
 * the block size. */
int fs_place_bands(struct fs_server *srv, unsigned long long band,
		   unsigned long long offset);
/* After fs_place_goal: the blocks [p, p+len) taken for [lblk, ...). */
void fs_place_took(struct fs_server *srv, blk64_t lblk, blk64_t p,
		   blk64_t len);
/* A block for libext2fs's own use, the first free at or after goal
 * outside the windows (after FS_PLACE_WINDOWS windows met, in one); out of
 * the groups kept for directories, from the metadata window. */
errcode_t fs_place_meta_block(struct fs_server *srv, blk64_t goal,
			       blk64_t *ret);
/* ino closed for the last time: its window given up. */
void fs_place_forget(struct fs_server *srv, ext2_ino_t ino);

/* ---- fuse2fs/punch.c: blocks [start, end] of ino unmapped, freed ---- */
errcode_t fs_punch(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in,
		   blk64_t start, blk64_t end);

/* ---- fuse2fs/range.c: lseek SEEK_DATA/SEEK_HOLE, copy_file_range ---- */
void fs_op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		 struct fuse_file_info *fi);
void fs_op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			   struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			   off_t off_out, struct fuse_file_info *fi_out,
			   size_t len, int flags);

/* ---- fuse2fs/killpriv.c: the server clears privileges --------------- */
/* The session's io, which takes FUSE_HANDLE_KILLPRIV_V2 at INIT. */
int fs_killpriv_io(struct fuse_session *se);
/* Did the current WRITE ask to clear setuid and setgid? */
int fs_write_kill(struct fs_server *srv);
/* What a change to ino clears, as ext4 (once the kernel left it to us):
 * security.capability; setuid and setgid when kill_suidgid.  in is
 * written when it changes.  0 or -errno. */
int fs_kill_privs(fuse_req_t req, ext2_ino_t ino, struct fs_inode *in,
		  int kill_suidgid);

/* ---- fuse2fs/flags.c: lsattr/chattr, immutable, append-only -------- */
void fs_op_ioctl(fuse_req_t req, fuse_ino_t ino, int cmd, void *arg,
		 struct fuse_file_info *fi, unsigned flags,
		 const void *in_buf, size_t in_bufsz, size_t out_bufsz);
/* Must every change to in be durable when its request is answered
 * (chattr +S, -o sync)? */
int fs_inode_sync(struct fs_server *srv, const struct fs_inode *in);
/* Must a change to the entries of directory dir be (chattr +S or +D,
 * -o sync or dirsync)? */
int fs_dir_sync(struct fs_server *srv, ext2_ino_t dir);
/* -EPERM when in is immutable (or, append_too, append-only), else 0. */
int fs_fixed(const struct fs_inode *in, int append_too);
/* The same for inode ino (read): 0, -EPERM or the read's error. */
int fs_ino_fixed(struct fs_server *srv, ext2_ino_t ino, int append_too);
int fs_append_only(const struct fs_inode *in);
/* The flags a new inode of mode takes from its directory, as ext4's. */
__u32 fs_inherit_flags(const struct fs_inode *dir, __u16 mode);

/* ---- fuse2fs/ind.c -------------------------------------------------- */
/* Blocks [start, end] of a block-mapped file unmapped and freed as ext4
 * punches a hole (in->i.i_block and i_blocks changed; the caller writes
 * the inode). */
errcode_t fs_punch_ind(struct fs_server *srv, struct fs_inode *in,
		       blk64_t start, blk64_t end);

/* ---- fuse2fs/xattr.c ------------------------------------------------ */
void fs_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    const char *value, size_t size, int flags);
void fs_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    size_t size);
void fs_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void fs_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);
/* An xattr of ino: its length (buf NULL or big enough: copied), or
 * -ENODATA / -errno. */
int fs_xattr_get(struct fs_server *srv, ext2_ino_t ino, const char *name,
		 void *buf, size_t size);
/* Set (value non-NULL) or remove: 0 or -errno. */
int fs_xattr_set(struct fs_server *srv, ext2_ino_t ino, const char *name,
		 const void *value,
		 size_t size);
/* chmod: the access ACL follows the mode. */
int fs_acl_chmod(struct fs_server *srv, ext2_ino_t ino, mode_t mode);

/* ---- fuse2fs/acl.c -------------------------------------------------- */
#define FS_ACL_ACCESS	"system.posix_acl_access"
#define FS_ACL_DEFAULT	"system.posix_acl_default"
#define FS_ACL_MAX_SIZE	(4 + 8 * 256)
int fs_acl_valid(const unsigned char *v, size_t size);
mode_t fs_acl_mode(const unsigned char *v, size_t size, int *equiv);
int fs_acl_create_masq(unsigned char *v, size_t size, mode_t *mode);
void fs_acl_apply_mode(unsigned char *v, size_t size, mode_t mode);

/* ---- fuse2fs/orphan.c ----------------------------------------------- */
/* e for ino (read), counted as a lookup. */
int fs_entry(struct fs_server *srv, ext2_ino_t ino, struct fuse_entry_param *e);
void fs_node_lookup(struct fs_server *srv,
		    ext2_ino_t ino);	/* one more lookup */
void fs_node_open(struct fs_server *srv, ext2_ino_t ino);
/* Fewer lookups / one fewer open; an unlinked inode left with neither is
 * freed. */
void fs_node_forget(struct fs_server *srv, ext2_ino_t ino, uint64_t n);
void fs_node_release(struct fs_server *srv, ext2_ino_t ino);
/* Every count forgotten (the session is over). */
void fs_nodes_free(struct fs_server *srv);
/* ino's last link is gone (its inode written with i_links_count 0):
 * freed now, or kept on the orphan list while open or looked up. */
int fs_node_unlinked(struct fs_server *srv, ext2_ino_t ino);
/* At mount: the orphan list processed as the kernel does. */
errcode_t fs_orphans_recover(struct fs_server *srv);

/* ---- fuse2fs/quota.c ------------------------------------------------ */
/* A read-write mount of a quota file system: its quota files checked and
 * every inode write counted from now on; 0, or the error (said). */
errcode_t fs_quota_start(struct fs_server *srv);
void fs_quota_stop(struct fs_server *srv);
/* Before every inode write (inode.c's hook): the usage follows it;
 * EXT2_ET_CALLBACK_NOTHANDLED (the write goes on). */
errcode_t fs_quota_written(struct fs_server *srv, ext2_ino_t ino,
			   struct ext2_inode *in);
/* in is a whole inode (EXT2_INODE_SIZE bytes) while it is written: its
 * project id is read from it (NULL: no longer). */
void fs_quota_whole(struct fs_server *srv, const struct ext2_inode *in);
/* The next write of ino frees it (its inode no longer counted). */
void fs_quota_freeing(struct fs_server *srv, ext2_ino_t ino);
/* The usage changed since the last flush written into the quota files
 * (through the channel, before libext2fs's flush); 0 or the error. */
errcode_t fs_quota_flush(struct fs_server *srv);

/* Has the inode room for i_projid (ext4's i_extra_isize reaches it)? */
static inline int fs_has_projid(ext2_filsys fs,
				const struct ext2_inode_large *in)
{
	return EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE &&
	       (size_t)EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize >=
	       offsetof(struct ext2_inode_large, i_projid) + 4;
}

#endif
