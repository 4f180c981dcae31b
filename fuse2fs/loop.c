/*
 * fuse2fs/loop.c --- the request loop, polling a moment before it sleeps.
 *
 * A FUSE request is a round trip between two processes.  When the
 * daemon sleeps in read(2) on /dev/fuse between two requests, the next
 * request has to wake it; on a virtual machine whose idle CPUs halt
 * (cpuidle haltpoll with no guest polling, as on our machines) waking a
 * halted CPU costs tens of microseconds, several times what the request
 * itself takes, and a client that issues requests one after another
 * (small writes, a stat per file) pays it on every call.  So after each
 * request the loop keeps reading the device without blocking for a short
 * while and only then sleeps in poll(2).
 *
 * Between two reads it yields the CPU: a client that shares the daemon's
 * CPU runs at once and sends its next request, where a plain busy loop
 * would hold it off until the poll ends (measured: that doubled the time
 * of sqlite's small transactions); a client on the other CPU finds the
 * daemon awake.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/fuse.h>

#include "server.h"

/*
 * How long to poll.  After a WRITE, long enough for a writer's next write
 * from the other CPU (fio's 4 KiB writes come 10-30 us after the reply: a
 * 20 us poll misses a third of them, 40 us almost none).  After anything
 * else, shorter.  A poll that outlasts the client's pause keeps the
 * daemon's CPU busy, and the scheduler then moves the client to the other
 * CPU, where every reply has to wake it (measured: sqlite's transactions
 * took 1.5x as long in half the runs with a 50 us poll); hence also the
 * score below, which stops polling after the kinds of request a client
 * pauses after.
 */
#define FS_SPIN_WRITE_NS	40000LL
#define FS_SPIN_NS		20000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Whether to poll after answering each kind of request: a score per
 * opcode, up by one when the next request came within the poll's length,
 * down by FS_SCORE_POLL when it came later (two misses in a row stop the
 * poll), no poll while it is below FS_SCORE_POLL.  A client that thinks
 * after a kind of request (sqlite after the UNLINK that ends a
 * transaction) is not polled for, while the requests of a burst are.
 */
#define FS_SCORE_MAX	8
#define FS_SCORE_POLL	4

/* The next request into buf: > 0, or 0 once the session has ended (the
 * kernel unmounted it, or a signal), or -errno.  *waited: how long it
 * took to come. */
static int receive(struct fuse_session *se, struct fuse_buf *buf, int fd,
		   long long spin, long long *waited)
{
	long long t0 = now_ns();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int res;

	while ((res = fuse_session_receive_buf(se, buf)) == -EAGAIN) {
		if (now_ns() < t0 + spin) {
			sched_yield();
			continue;
		}
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -errno;
		if (fuse_session_exited(se))	/* a signal */
			return 0;
	}
	*waited = now_ns() - t0;
	return res;
}

static long long poll_len(uint32_t opcode)
{
	return opcode == FUSE_WRITE ? FS_SPIN_WRITE_NS : FS_SPIN_NS;
}

/* The poll after a request of this opcode: its length, or 0. */
static long long poll_after(struct fs_server *srv, uint32_t opcode)
{
	if (opcode >= FS_OPCODES || srv->loop.score[opcode] < FS_SCORE_POLL)
		return 0;
	return poll_len(opcode);
}

/* After a request of this opcode, the next one came in waited ns; polled:
 * whether the loop polled for it.  Unpolled, the wait says nothing (it
 * includes the wake-up): the score creeps back up, so that a kind of
 * request is tried again now and then. */
static void learn(struct fs_server *srv, uint32_t opcode, long long waited,
		  int polled)
{
	unsigned char *score = &srv->loop.score[opcode];

	if (opcode >= FS_OPCODES)
		return;
	if (!polled || waited <= poll_len(opcode))
		*score += *score < FS_SCORE_MAX;
	else
		*score = *score > FS_SCORE_POLL ? *score - FS_SCORE_POLL : 0;
}

/*
 * The requests the kernel sent, by opcode (the last slot: opcodes past
 * the table, and requests spliced in whose header we do not see), printed
 * to stderr when the session ends if FUSE2FS_REQUESTS is set in the
 * environment: "fuse2fs: requests: OPCODE=COUNT ..." (the numbers of
 * <linux/fuse.h>; bench/realwork.sh names them).  One increment per
 * request, so it is always kept.
 */

static void print_counts(struct fs_server *srv)
{
	int i;

	if (!getenv("FUSE2FS_REQUESTS"))
		return;
	fputs("fuse2fs: requests:", stderr);
	for (i = 0; i < FS_OPCODES; i++)
		if (srv->loop.counts[i])
			fprintf(stderr, " %d=%lu", i, srv->loop.counts[i]);
	if (srv->loop.counts[FS_OPCODES])
		fprintf(stderr, " other=%lu", srv->loop.counts[FS_OPCODES]);
	fputc('\n', stderr);
}

int fs_loop(struct fs_server *srv)
{
	struct fuse_session *se = srv->se;
	struct fuse_buf buf;
	const struct fuse_in_header *h;
	int fd = fuse_session_fd(se), res = 0;
	long long spin = FS_SPIN_NS, waited = 0;
	uint32_t last = FS_OPCODES;	/* the request answered last */
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return fuse_session_loop(se);
	memset(srv->loop.score, FS_SCORE_MAX, sizeof(srv->loop.score));
	memset(&buf, 0, sizeof(buf));
	while (!fuse_session_exited(se)) {
		res = receive(se, &buf, fd, spin, &waited);
		if (res == -EINTR)
			continue;
		if (res <= 0)
			break;
		learn(srv, last, waited, spin > 0);
		h = buf.flags & FUSE_BUF_IS_FD ? NULL : buf.mem;
		last = h ? h->opcode : FS_OPCODES;
		spin = poll_after(srv, last);
		srv->loop.counts[last < FS_OPCODES ? last : FS_OPCODES]++;
		if (h)
			fs_errors_request(srv, FS_INO(h->nodeid));
		fuse_session_process_buf(se, &buf);
	}
	print_counts(srv);
	free(buf.mem);
	fuse_session_reset(se);
	return res < 0 ? -1 : 0;
}
