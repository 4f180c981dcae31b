/*
 * fuse2fs/latency.c --- the CPUs kept awake while requests come.
 *
 * A FUSE request is two wake-ups: the client's CPU goes idle while the
 * daemon serves it, and the reply has to wake it.  On a CPU that halts
 * when idle that wake-up is the exit from the idle state: on our virtual
 * machines (cpuidle haltpoll, guest_halt_poll_ns 0) tens of microseconds
 * per request, which made 100,000 mkdirs take 29.6 s through the mount
 * against 3.8 s with the CPUs kept out of the halt (bench/smr/paper.sh,
 * doc/smr.md); the kernel's ext4 does the same work in the client's own
 * context and never pays it.  So while requests come, the daemon asks
 * the kernel's PM QoS for a CPU wake-up latency of 0 (/dev/cpu_dma_latency:
 * idle CPUs poll instead of halting), and withdraws the request once no
 * request has come for FS_QOS_HOLD_NS: an idle mount costs nothing, a
 * busy one the polling of the idle CPUs during its bursts.  Root only
 * (the device is root's); -o nolatency_qos never asks.  The measure that
 * the other way out, polling in the daemon (loop.c), could not reach:
 * the client's CPU halts while the daemon works, whatever the daemon
 * does.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "server.h"

#define FS_QOS_DEVICE	"/dev/cpu_dma_latency"
#define FS_QOS_HOLD_NS	10000000LL	/* 10 ms after the last request */

/* The request is held as long as the device is open (closing it
 * withdraws it), so that a process's /proc/PID/fd shows it. */
void fs_latency_init(struct fs_server *srv)
{
	srv->loop.qos_fd = -1;
	srv->loop.qos_off = !srv->latency_qos;
}

static void set_hold(struct fs_server *srv, int hold)
{
	int32_t zero = 0;
	int fd;

	if (!hold) {
		if (srv->loop.qos_fd >= 0)
			close(srv->loop.qos_fd);
		srv->loop.qos_fd = -1;
		return;
	}
	if (srv->loop.qos_fd >= 0 || srv->loop.qos_off)
		return;
	fd = open(FS_QOS_DEVICE, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		srv->loop.qos_off = 1;	/* not root, or no PM QoS: never */
		return;
	}
	if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		close(fd);
		srv->loop.qos_off = 1;
		return;
	}
	srv->loop.qos_fd = fd;
}

void fs_latency_close(struct fs_server *srv)
{
	set_hold(srv, 0);
}

void fs_latency_request(struct fs_server *srv, long long now)
{
	srv->loop.qos_last = now;
	set_hold(srv, 1);
}

int fs_latency_timeout(struct fs_server *srv, int timeout, long long now)
{
	long long left;
	int ms;

	if (srv->loop.qos_fd < 0)
		return timeout;
	left = srv->loop.qos_last + FS_QOS_HOLD_NS - now;
	if (left <= 0) {
		set_hold(srv, 0);
		return timeout;
	}
	ms = (int)((left + 999999) / 1000000);
	return timeout < 0 || ms < timeout ? ms : timeout;
}
