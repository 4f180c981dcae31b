/*
 * fuse2fs_loop.c --- the request loop, polling a moment before it sleeps.
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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/fuse.h>

#include "fuse2fs_server.h"

/*
 * How long to poll.  After a WRITE, long enough for a writer's next write
 * from the other CPU (fio's 4 KiB writes come 10-30 us after the reply: a
 * 20 us poll misses a third of them, 40 us almost none).  After anything
 * else, shorter: a poll that outlasts the client's pause keeps the
 * daemon's CPU busy, and the scheduler then moves the client to the other
 * CPU, where every reply has to wake it (measured: sqlite's transactions
 * took 1.5x as long in half the runs with a 50 us poll, never with 20 us).
 */
#define FS_SPIN_WRITE_NS	40000LL
#define FS_SPIN_NS		20000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The next request into buf: > 0, or 0 once the session has ended (the
 * kernel unmounted it, or a signal), or -errno. */
static int receive(struct fuse_session *se, struct fuse_buf *buf, int fd,
		   long long spin)
{
	long long until = now_ns() + spin;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int res;

	while ((res = fuse_session_receive_buf(se, buf)) == -EAGAIN) {
		if (now_ns() < until) {
			sched_yield();
			continue;
		}
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -errno;
		if (fuse_session_exited(se))	/* a signal */
			return 0;
	}
	return res;
}

int fs_loop(struct fuse_session *se)
{
	struct fuse_buf buf;
	int fd = fuse_session_fd(se), res = 0;
	long long spin = FS_SPIN_NS;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return fuse_session_loop(se);
	memset(&buf, 0, sizeof(buf));
	while (!fuse_session_exited(se)) {
		res = receive(se, &buf, fd, spin);
		if (res == -EINTR)
			continue;
		if (res <= 0)
			break;
		spin = !(buf.flags & FUSE_BUF_IS_FD) &&
		       ((const struct fuse_in_header *)buf.mem)->opcode ==
		       FUSE_WRITE ? FS_SPIN_WRITE_NS : FS_SPIN_NS;
		fuse_session_process_buf(se, &buf);
	}
	free(buf.mem);
	fuse_session_reset(se);
	return res < 0 ? -1 : 0;
}
