/*
 * stock_probe.c --- ask a stock tool whether its own option parser
 * accepts a command line, without letting it near the device.
 *
 * The stock tool is run with the device operand replaced by a path that
 * cannot exist (PROBE_DEVICE: below /dev/null, so ENOTDIR).  A command
 * line its parser refuses ends with its usage message and status before
 * any open; one it accepts ends at the open of PROBE_DEVICE, which its
 * message names.  Either way nothing is written anywhere.  Our front-ends
 * use it to refuse a typo with stock's own words before they write
 * (migration, flag changes) and before stock would have seen the line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stock.h"

#define PROBE_DEVICE	"/dev/null/lj-stock-probe"

/* ------------------------------------------------------------------ */
/* stdout and stderr of a stock run                                                   */

struct sink {
	int fd;			/* read end */
	char *buf;
	size_t n;
};

static int drain(struct sink *s)
{
	char chunk[4096];
	ssize_t r = read(s->fd, chunk, sizeof(chunk));
	char *b;

	if (r < 0 && errno == EINTR)
		return 1;
	if (r <= 0) {
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	b = realloc(s->buf, s->n + (size_t)r + 1);
	if (!b)
		return 0;
	memcpy(b + s->n, chunk, (size_t)r);
	s->buf = b;
	s->n += (size_t)r;
	s->buf[s->n] = '\0';
	return 1;
}

/* Run stock with argv, its stdout and stderr read into out[0], out[1]. */
static int run_captured(const char *prog, char **argv, struct sink out[2])
{
	extern char **environ;
	posix_spawn_file_actions_t fa;
	int p[2][2] = { { -1, -1 }, { -1, -1 } }, i, status, err;
	pid_t pid;

	for (i = 0; i < 2; i++)
		if (pipe(p[i]))
			return -1;
	if (posix_spawn_file_actions_init(&fa))
		return -1;
	err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
					       0) ||
	      posix_spawn_file_actions_adddup2(&fa, p[0][1], 1) ||
	      posix_spawn_file_actions_adddup2(&fa, p[1][1], 2) ||
	      posix_spawn_file_actions_addclose(&fa, p[0][0]) ||
	      posix_spawn_file_actions_addclose(&fa, p[1][0]);
	fflush(NULL);
	if (!err)
		err = posix_spawn(&pid, lj_stock_path(prog), &fa, NULL,
				  argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	for (i = 0; i < 2; i++) {
		close(p[i][1]);
		out[i].fd = p[i][0];
	}
	if (err) {
		close(p[0][0]);
		close(p[1][0]);
		return -1;
	}
	while (out[0].fd >= 0 || out[1].fd >= 0) {
		struct pollfd pf[2] = { { out[0].fd, POLLIN, 0 },
					{ out[1].fd, POLLIN, 0 } };

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++)
			if (out[i].fd >= 0 && pf[i].revents)
				drain(&out[i]);
	}
	for (i = 0; i < 2; i++)
		if (out[i].fd >= 0)
			close(out[i].fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int lj_stock_parse_probe(const char *prog, int argc, char **argv,
			 const char *device)
{
	struct sink out[2] = { { -1, NULL, 0 }, { -1, NULL, 0 } };
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	int i, rc = -1, passed;

	if (!v)
		return -1;
	/* The device operand (the same string, wherever it stands) only. */
	for (i = 0; i < argc; i++)
		v[i] = (i > 0 && argv[i] == device) ? (char *)PROBE_DEVICE :
						      argv[i];
	rc = run_captured(prog, v, out);
	free(v);
	passed = rc < 0 || (out[1].buf && strstr(out[1].buf, PROBE_DEVICE));
	if (!passed) {
		if (out[0].n)
			fwrite(out[0].buf, 1, out[0].n, stdout);
		fflush(stdout);
		if (out[1].n)
			fwrite(out[1].buf, 1, out[1].n, stderr);
	}
	free(out[0].buf);
	free(out[1].buf);
	return passed ? -1 : (rc ? rc : 1);
}

