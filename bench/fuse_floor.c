/*
 * bench/fuse_floor.c --- the least any FUSE server can take to answer a
 * directory tree's system calls on this machine (issue 36): a server
 * (libfuse 3, low level) that keeps the tree's names in memory and does
 * nothing else, no file system, no disk.  Its loop is fuse2fs's
 * (fuse2fs/loop.c): after a request it polls /dev/fuse for 20 us,
 * yielding the CPU, then sleeps in poll(2); the CPUs are held out of
 * their idle halt through PM QoS for the server's whole life
 * (fuse2fs/latency.c holds it while requests come).  What a
 * workload takes through it is what FUSE's round trips and the client's
 * own path cost before a file system does any work.
 *
 * It serves LOOKUP, MKDIR, GETATTR and FORGET (and, through libfuse's
 * defaults, INIT, STATFS and DESTROY); anything else is answered ENOSYS.
 * Entry and attribute timeouts are a day, as fuse2fs's.
 *
 * Usage: fuse_floor MOUNTPOINT [-o OPTION[,OPTION...]]   (foreground;
 *        -o default_permissions as fuse2fs mounts; umount ends it)
 * Environment: FUSE_FLOOR_SPIN_US, how long to poll after a request
 * (default 20, fuse2fs's; -1: for ever); FUSE_FLOOR_NO_QOS, no PM QoS.
 * On exit it prints "fuse_floor: LOOKUP=N MKDIR=N GETATTR=N FORGET=N".
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#define HASH_BITS	22
#define TIMEOUT		86400.0

struct name {
	struct name *next;
	fuse_ino_t parent, ino;
	char s[];
};

static struct name *table[1u << HASH_BITS];
static nlink_t *nlinks;		/* by inode number; 1 is the root */
static fuse_ino_t last_ino = FUSE_ROOT_ID, max_ino;
static unsigned long n_lookup, n_mkdir, n_getattr, n_forget;

static uint32_t hash(fuse_ino_t parent, const char *s)
{
	uint32_t h = 2166136261u ^ (uint32_t)parent;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h & ((1u << HASH_BITS) - 1);
}

static struct name *find(fuse_ino_t parent, const char *s)
{
	struct name *n;

	for (n = table[hash(parent, s)]; n; n = n->next)
		if (n->parent == parent && !strcmp(n->s, s))
			return n;
	return NULL;
}

static void fill(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = S_IFDIR | 0755;
	st->st_nlink = nlinks[ino];
	st->st_blksize = 4096;
	st->st_size = 4096;
	st->st_blocks = 8;
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.generation = 1;
	e.attr_timeout = e.entry_timeout = TIMEOUT;
	fill(ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *s)
{
	struct name *n = find(parent, s);

	n_lookup++;
	if (n)
		reply_entry(req, n->ino);
	else
		fuse_reply_err(req, ENOENT);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *s,
		     mode_t mode)
{
	size_t len = strlen(s) + 1;
	struct name *n;
	uint32_t h;

	(void)mode;
	n_mkdir++;
	if (find(parent, s)) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	if (last_ino == max_ino || !(n = malloc(sizeof(*n) + len))) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	memcpy(n->s, s, len);
	n->parent = parent;
	n->ino = ++last_ino;
	h = hash(parent, s);
	n->next = table[h];
	table[h] = n;
	nlinks[n->ino] = 2;
	nlinks[parent]++;
	reply_entry(req, n->ino);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	n_getattr++;
	fill(ino, &st);
	fuse_reply_attr(req, &st, TIMEOUT);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	(void)ino;
	(void)nlookup;
	n_forget++;
	fuse_reply_none(req);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = op_lookup,
	.mkdir = op_mkdir,
	.getattr = op_getattr,
	.forget = op_forget,
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Requests until umount: after each, the device polled for spin ns
 * (< 0: for ever), yielding the CPU between reads, then a sleep in
 * poll(2). */
static int serve(struct fuse_session *se, long long spin)
{
	struct fuse_buf buf = { .mem = NULL };
	int fd = fuse_session_fd(se), res = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long long t0 = now_ns();

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		perror("fuse_floor: fcntl");
		return -1;
	}
	while (!fuse_session_exited(se)) {
		res = fuse_session_receive_buf(se, &buf);
		if (res == -EAGAIN) {
			if (spin < 0 || now_ns() < t0 + spin)
				sched_yield();	/* a client here runs at once */
			else if (poll(&p, 1, -1) < 0 && errno != EINTR)
				break;
			continue;
		}
		if (res <= 0)
			break;
		fuse_session_process_buf(se, &buf);
		t0 = now_ns();
	}
	free(buf.mem);
	return res < 0 && res != -EINTR ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se;
	const char *mnt = NULL;
	const char *e = getenv("FUSE_FLOOR_SPIN_US");
	long long spin = e ? atoll(e) * 1000 : 20000;
	int32_t zero = 0;
	int i, qos = -1, res = 1;

	if (fuse_opt_add_arg(&args, argv[0]))
		return 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			if (fuse_opt_add_arg(&args, "-o") ||
			    fuse_opt_add_arg(&args, argv[++i]))
				return 1;
		} else if (argv[i][0] != '-' && !mnt) {
			mnt = argv[i];
		} else {
			mnt = NULL;
			break;
		}
	}
	if (!mnt) {
		fprintf(stderr, "Usage: fuse_floor MOUNTPOINT [-o OPTIONS]\n");
		return 2;
	}
	max_ino = (fuse_ino_t)1 << 24;
	if (!(nlinks = calloc(max_ino + 1, sizeof(*nlinks)))) {
		perror("fuse_floor");
		return 1;
	}
	nlinks[FUSE_ROOT_ID] = 2;
	/* wake-up latency 0 while /dev/cpu_dma_latency stays open */
	if (!getenv("FUSE_FLOOR_NO_QOS") &&
	    ((qos = open("/dev/cpu_dma_latency", O_WRONLY)) < 0 ||
	     write(qos, &zero, sizeof(zero)) != (ssize_t)sizeof(zero))) {
		perror("fuse_floor: /dev/cpu_dma_latency");
		return 1;
	}
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se) == 0) {
		if (fuse_session_mount(se, mnt) == 0) {
			res = serve(se, spin) ? 1 : 0;
			fuse_session_unmount(se);
		}
		fuse_remove_signal_handlers(se);
	}
	fuse_session_destroy(se);
	fuse_opt_free_args(&args);
	if (qos >= 0)
		close(qos);
	fprintf(stderr, "fuse_floor: LOOKUP=%lu MKDIR=%lu GETATTR=%lu "
		"FORGET=%lu\n", n_lookup, n_mkdir, n_getattr, n_forget);
	return res;
}
