/*
 * fuse2fs/loop.c --- the request loop: threads taking turns at reading
 * requests, polling a moment before they sleep.
 *
 * One thread at a time has the turn: it reads the next request and
 * serves it itself, and the next after it, so that one client's requests
 * one after another cost no hand-over between threads.  A thread about
 * to wait for a commit (commit.c) hands the turn to an idle thread,
 * starting one if none is idle (at most FS_MAX_THREADS), so that the
 * other clients' requests are served while it waits; once it has
 * answered it waits idle for the turn.  Every request is served under
 * the request lock (commit.c); what a thread reads of a request before
 * taking the lock (its inode, a WRITE's kill flag) is kept in its own
 * fs_thread and handed to the server's cur by fs_begin.
 *
 * A FUSE request is a round trip between two processes.  When the
 * daemon sleeps in read(2) on /dev/fuse between two requests, the next
 * request has to wake it; on a virtual machine whose idle CPUs halt
 * (cpuidle haltpoll with no guest polling, as on our machines) waking a
 * halted CPU costs tens of microseconds, several times what the request
 * itself takes, and a client that issues requests one after another
 * (small writes, a stat per file) pays it on every call.  So after each
 * request the reading thread keeps reading the device without blocking
 * for a short while and only then sleeps in poll(2).
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * took to come; *at: when it came.  The signals that end the session
 * reach the first thread only (the others block them), which may be
 * waiting for a commit or the turn: with other threads about, the sleep
 * is cut to a second so that the session's end is seen. */
static int receive(struct fs_server *srv, struct fuse_buf *buf, int fd,
		   int timeout, long long *waited, long long *at)
{
	struct fuse_session *se = srv->se;
	long long t0 = fs_clock_ns(), now;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int res;

	while ((res = fuse_session_receive_buf(se, buf)) == -EAGAIN) {
		now = fs_clock_ns();
		if (now < t0 + srv->loop.spin) {
			sched_yield();
			continue;
		}
		if (poll(&p, 1, fs_latency_timeout(srv, timeout, now)) < 0 &&
		    errno != EINTR)
			return -errno;
		if (fuse_session_exited(se))	/* a signal */
			return 0;
	}
	now = fs_clock_ns();
	*waited = now - t0;
	*at = now;
	if (res > 0)
		fs_latency_request(srv, now);
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
	fs_waits_print(srv);
}

/* ------------------------------------------------------------------ */
/* Threads and the turn                                                 */

struct fs_thread *fs_loop_self(struct fs_server *srv)
{
	return srv->loop.threaded ? pthread_getspecific(srv->loop.key) : NULL;
}

void fs_loop_enter(struct fs_server *srv)
{
	struct fs_thread *t = fs_loop_self(srv);

	if (!t || t->serial == srv->cur.serial)
		return;
	srv->cur.serial = t->serial;
	srv->cur.write_kill = t->write_kill;
	srv->cur.ino = t->ino;	/* errors.c records it */
	srv->cur.told = 0;
}

/* Wait for the turn (or keep it): 0 once the session has ended. */
static int take_turn(struct fs_server *srv, struct fs_thread *t)
{
	int ok;

	pthread_mutex_lock(&srv->loop.turn_lock);
	while (!srv->loop.exiting && srv->loop.reader &&
	       srv->loop.reader != t) {
		srv->loop.idle++;
		pthread_cond_wait(&srv->loop.turn_free, &srv->loop.turn_lock);
		srv->loop.idle--;
	}
	ok = !srv->loop.exiting;
	if (ok)
		srv->loop.reader = t;
	pthread_mutex_unlock(&srv->loop.turn_lock);
	return ok;
}

static void end_turns(struct fs_server *srv, int result)
{
	pthread_mutex_lock(&srv->loop.turn_lock);
	srv->loop.exiting = 1;
	srv->loop.result = result;
	pthread_cond_broadcast(&srv->loop.turn_free);
	pthread_mutex_unlock(&srv->loop.turn_lock);
}

static void serve(struct fs_thread *t);

static void *thread_main(void *arg)
{
	serve(arg);
	return NULL;
}

/* One more serving thread (turn_lock held), the session's signals
 * blocked in it: 0 or an errno. */
static int start_thread(struct fs_server *srv)
{
	struct fs_thread *t = &srv->loop.thr[srv->loop.nthr];
	sigset_t all, old;
	int err;

	memset(t, 0, sizeof(*t));
	t->srv = srv;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&t->id, NULL, thread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err)
		srv->loop.nthr++;
	return err;
}

void fs_loop_hand_off(struct fs_server *srv)
{
	struct fs_thread *t = fs_loop_self(srv);

	if (!t)
		return;
	pthread_mutex_lock(&srv->loop.turn_lock);
	if (srv->loop.reader == t && !srv->loop.exiting) {
		srv->loop.reader = NULL;
		if (srv->loop.idle)
			pthread_cond_signal(&srv->loop.turn_free);
		else if (srv->loop.nthr >= FS_MAX_THREADS ||
			 start_thread(srv))
			srv->loop.reader = t;	/* no one to take it */
	}
	pthread_mutex_unlock(&srv->loop.turn_lock);
}

void fs_loop_wait(struct fs_server *srv, pthread_cond_t *cond)
{
	fs_loop_hand_off(srv);
	pthread_cond_wait(cond, &srv->commit.lock);
}

/* Read and serve requests while this thread has the turn. */
static void serve(struct fs_thread *t)
{
	struct fs_server *srv = t->srv;
	struct fuse_session *se = srv->se;
	const struct fuse_in_header *h;
	int fd = fuse_session_fd(se), res;
	long long waited = 0, at = 0;

	pthread_setspecific(srv->loop.key, t);
	while (take_turn(srv, t)) {
		if (fuse_session_exited(se)) {
			end_turns(srv, 0);
			break;
		}
		res = receive(srv, &t->buf, fd, srv->loop.nthr ? 1000 : -1,
			      &waited, &at);
		if (res == -EINTR)
			continue;
		if (res <= 0) {
			end_turns(srv, res);
			break;
		}
		learn(srv, srv->loop.last, waited, srv->loop.spin > 0);
		h = t->buf.flags & FUSE_BUF_IS_FD ? NULL : t->buf.mem;
		srv->loop.last = h ? h->opcode : FS_OPCODES;
		srv->loop.spin = poll_after(srv, srv->loop.last);
		srv->loop.counts[srv->loop.last < FS_OPCODES ?
				 srv->loop.last : FS_OPCODES]++;
		fs_waits_read(srv, t, at);
		t->serial = ++srv->loop.serial;
		t->ino = h ? FS_INO(h->nodeid) : 0;
		fuse_session_process_buf(se, &t->buf);
	}
}

int fs_loop(struct fs_server *srv)
{
	struct fuse_session *se = srv->se;
	struct fs_thread main_thread;
	int fd = fuse_session_fd(se), i;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    pthread_key_create(&srv->loop.key, NULL))
		return fuse_session_loop(se);
	memset(srv->loop.score, FS_SCORE_MAX, sizeof(srv->loop.score));
	srv->loop.spin = FS_SPIN_NS;
	srv->loop.last = FS_OPCODES;
	memset(&main_thread, 0, sizeof(main_thread));
	main_thread.srv = srv;
	srv->loop.threaded = 1;
	fs_latency_init(srv);
	serve(&main_thread);
	for (i = 0; i < srv->loop.nthr; i++) {
		pthread_join(srv->loop.thr[i].id, NULL);
		free(srv->loop.thr[i].buf.mem);
	}
	fs_latency_close(srv);
	srv->loop.threaded = 0;
	srv->loop.reader = NULL;	/* main_thread was on this stack */
	pthread_key_delete(srv->loop.key);
	print_counts(srv);
	free(main_thread.buf.mem);
	fuse_session_reset(se);
	return srv->loop.result < 0 ? -1 : 0;
}
