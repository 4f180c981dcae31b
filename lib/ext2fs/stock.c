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

#ifdef STOCK_FUSE2FS
	/* fuse2fs is packaged apart, in another directory (configure) */
	if (!strcmp(prog, "fuse2fs"))
		return STOCK_FUSE2FS;
#endif
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

/* The path (*path) and argument vector of the stock prog, our output
 * flushed before it starts; NULL (said why) when there is none. */
static char **stock_command(const char *prog, char *const argv[],
			    const char **path)
{
	char **v;

	*path = stock_binary(prog);
	if (!*path)
		return NULL;
	v = stock_argv(*path, argv);
	if (v)
		fflush(NULL);
	return v;
}

int lj_stock_exec(const char *prog, char *const argv[])
{
	const char *path;
	char **v = stock_command(prog, argv, &path);

	if (!v)
		return LJ_EXIT_ERROR;
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
	const char *path;
	char **v = stock_command(prog, argv, &path);
	pid_t pid;
	int status, err;

	if (!v)
		return LJ_EXIT_ERROR;
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

int lj_stock_capture_split(const char *prog, char *const argv[], FILE **out,
			   FILE **err)
{
	posix_spawn_file_actions_t fa;
	FILE *o = tmpfile(), *e = tmpfile();
	int rc = LJ_EXIT_ERROR;

	*out = *err = NULL;
	if (!o || !e) {
		if (o)
			fclose(o);
		if (e)
			fclose(e);
		return rc;
	}
	if (posix_spawn_file_actions_init(&fa) == 0) {
		if (!posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						      O_RDONLY, 0) &&
		    !posix_spawn_file_actions_adddup2(&fa, fileno(o), 1) &&
		    !posix_spawn_file_actions_adddup2(&fa, fileno(e), 2))
			rc = spawn_wait(prog, argv, &fa);
		posix_spawn_file_actions_destroy(&fa);
	}
	rewind(o);
	rewind(e);
	*out = o;
	*err = e;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Stock tools under the view object (lib/view/view.c)               */

#ifndef LJ_VIEW_BUILD_DIR
#define LJ_VIEW_BUILD_DIR ""
#endif
#ifndef LJ_VIEW_INSTALLED
#define LJ_VIEW_INSTALLED "/usr/local/lib/e2fsprogs-lazy/lj_view.so"
#endif

const char *lj_view_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv(LJ_VIEW_SO_ENV);
	char self[PATH_MAX];
	ssize_t n;
	size_t len = strlen(LJ_VIEW_BUILD_DIR);

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = '\0';
	if (n > 0 && len && !strncmp(self, LJ_VIEW_BUILD_DIR, len) &&
	    self[len] == '/') {
		snprintf(path, sizeof(path), "%s/lib/view/lj_view.so",
			 LJ_VIEW_BUILD_DIR);
		return path;
	}
	return LJ_VIEW_INSTALLED;
}

/* Saved environment around a spawn under the view. */
struct view_env {
	char *preload;		/* LD_PRELOAD before, or NULL */
	char *mode;		/* LJ_VIEW before, or NULL */
};

static char *dup_env(const char *name)
{
	const char *v = getenv(name);

	return v ? strdup(v) : NULL;
}

/* Put the view into the environment; 0, or nonzero (said why). */
static int view_env_set(const char *prog, const char *mode,
			struct view_env *saved)
{
	const char *so = lj_view_path();
	char *pre;
	size_t len;

	saved->preload = dup_env("LD_PRELOAD");
	saved->mode = dup_env(LJ_VIEW_ENV);
	if (access(so, R_OK) != 0) {
		fprintf(stderr, "%s: cannot use the lazy journal view %s: "
			"%s\n", prog, so, strerror(errno));
		return 1;
	}
	len = strlen(so) + (saved->preload ? strlen(saved->preload) + 1 : 0);
	pre = malloc(len + 1);
	if (!pre)
		return 1;
	snprintf(pre, len + 1, "%s%s%s", so, saved->preload ? ":" : "",
		 saved->preload ? saved->preload : "");
	setenv("LD_PRELOAD", pre, 1);
	setenv(LJ_VIEW_ENV, mode, 1);
	free(pre);
	return 0;
}

static void view_env_restore(struct view_env *saved)
{
	if (saved->preload)
		setenv("LD_PRELOAD", saved->preload, 1);
	else
		unsetenv("LD_PRELOAD");
	if (saved->mode)
		setenv(LJ_VIEW_ENV, saved->mode, 1);
	else
		unsetenv(LJ_VIEW_ENV);
	free(saved->preload);
	free(saved->mode);
}

int lj_stock_exec_view(const char *prog, char *const argv[], const char *mode)
{
	struct view_env saved;
	int rc;

	if (view_env_set(prog, mode, &saved)) {
		view_env_restore(&saved);
		return LJ_EXIT_ERROR;
	}
	rc = lj_stock_exec(prog, argv);
	view_env_restore(&saved);
	return rc;
}

int lj_stock_run_view(const char *prog, char *const argv[], const char *mode)
{
	struct view_env saved;
	int rc = LJ_EXIT_ERROR;

	if (!view_env_set(prog, mode, &saved))
		rc = lj_stock_run(prog, argv);
	view_env_restore(&saved);
	return rc;
}

int lj_stock_capture_split_view(const char *prog, char *const argv[],
				const char *mode, FILE **out, FILE **err)
{
	struct view_env saved;
	int rc = LJ_EXIT_ERROR;

	*out = *err = NULL;
	if (!view_env_set(prog, mode, &saved))
		rc = lj_stock_capture_split(prog, argv, out, err);
	view_env_restore(&saved);
	return rc;
}
