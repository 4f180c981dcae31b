/*
 * stock.c --- run the stock e2fsprogs binary of the same name.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stock.h"

#ifndef E2FSPROGS_SBIN
#define E2FSPROGS_SBIN "/usr/sbin"
#endif

#define LJ_EXIT_ERROR 8		/* e2fsprogs: operational error */

/* Marker configure looks for to refuse our own build as "stock". */
const char lj_frontend_marker[] = "e2fsprogs-lazy-frontend";

const char *lj_stock_path(const char *prog)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", E2FSPROGS_SBIN, prog);
	return path;
}

/* Is path this very executable?  Running it would recurse forever. */
static int is_self(const char *path)
{
	char self[PATH_MAX], target[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || !realpath(path, target))
		return 0;
	self[n] = '\0';
	return strcmp(self, target) == 0;
}

/*
 * The stock tool names itself after argv[0] in its messages; the user's
 * argv[0] (how they called us) keeps those messages as stock would print
 * them.  Only an empty argv gets the stock path.
 */
static char **stock_argv(const char *path, char *const argv[])
{
	size_t n = 0;
	char **v;

	while (argv[n])
		n++;
	v = calloc(n + 1 + (n == 0), sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, argv, n * sizeof(*v));
	if (n == 0)
		v[0] = (char *)path;
	return v;
}

/* The stock binary of prog, or NULL (said why) if it is this program. */
static const char *stock_binary(const char *prog)
{
	const char *path = lj_stock_path(prog);

	(void)lj_frontend_marker;
	if (is_self(path)) {
		fprintf(stderr, "%s: %s is this program, not stock e2fsprogs\n",
			prog, path);
		return NULL;
	}
	return path;
}

int lj_stock_exec(const char *prog, char *const argv[])
{
	const char *path = stock_binary(prog);
	char **v;

	if (!path)
		return LJ_EXIT_ERROR;
	v = stock_argv(path, argv);
	if (!v)
		return LJ_EXIT_ERROR;
	fflush(NULL);
	execv(path, v);
	fprintf(stderr, "%s: cannot run %s: %s\n", prog, path, strerror(errno));
	free(v);
	return LJ_EXIT_ERROR;
}

/*
 * Start the stock prog (posix_spawn: no copy of this process to throw
 * away) with the file actions fa, and wait for it.
 */
static int spawn_wait(const char *prog, char *const argv[],
		      const posix_spawn_file_actions_t *fa)
{
	extern char **environ;
	const char *path = stock_binary(prog);
	char **v;
	pid_t pid;
	int status, err;

	if (!path)
		return LJ_EXIT_ERROR;
	v = stock_argv(path, argv);
	if (!v)
		return LJ_EXIT_ERROR;
	fflush(NULL);
	err = posix_spawn(&pid, path, fa, NULL, v, environ);
	free(v);
	if (err) {
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, path,
			strerror(err));
		return LJ_EXIT_ERROR;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return LJ_EXIT_ERROR;
	return WIFEXITED(status) ? WEXITSTATUS(status) : LJ_EXIT_ERROR;
}

int lj_stock_run(const char *prog, char *const argv[])
{
	return spawn_wait(prog, argv, NULL);
}

int lj_stock_capture(const char *prog, char *const argv[], FILE **out)
{
	posix_spawn_file_actions_t fa;
	FILE *f = tmpfile();
	int rc = LJ_EXIT_ERROR;

	*out = NULL;
	if (!f)
		return rc;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		if (!posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						      O_RDONLY, 0) &&
		    !posix_spawn_file_actions_adddup2(&fa, fileno(f), 1) &&
		    !posix_spawn_file_actions_adddup2(&fa, fileno(f), 2))
			rc = spawn_wait(prog, argv, &fa);
		posix_spawn_file_actions_destroy(&fa);
	}
	rewind(f);
	*out = f;
	return rc;
}
