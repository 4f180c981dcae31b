/*
 * mke2fs_launch.c --- our mke2fs (the program misc/mke2fs) as a launcher
 * (launch.h): no C library of its own before stock mke2fs starts.
 *
 *  - No lazy token in any -O list and no -E smr_band=: stock mke2fs with
 *    the untouched argv (the front-end would do no more).
 *  - A lazy token: stock mke2fs under the view in its mke2fs mode, told
 *    where the front-end is (LJ_MKE2FS_FRONT).  The view reads the line
 *    (misc/mke2fs_plan.c): the common lazy format it makes in that one
 *    stock run, with the line edited in place; anything else -- a
 *    refusal, -n, a file to create, a geometry only stock's dry run can
 *    tell -- it hands to the front-end, untouched.
 *  - -V, -E smr_band=, or a line getopt would refuse: the front-end
 *    (misc/mke2fs.c, the helper mke2fs-front), which prints our version
 *    line and does everything, as before the launcher existed.
 */
#include "launch.h"
#include "launch_front.h"
#include "mke2fs_opts.h"
#include "subopt.h"

#define PATH_MAX_	4096
#define FRONT		"mke2fs-front"
#define FRONT_ENV	"LJ_MKE2FS_FRONT="

struct cmdline {
	int lazy, band, version, bad;
};

static int is_sep(char c, const char *seps)
{
	for (; *seps; seps++)
		if (*seps == c)
			return 1;
	return 0;
}

/* Is fn true of a token of list (split at any byte of seps)? */
static int any_token(const char *list, const char *seps,
		     int (*fn)(const char *tok, size_t len))
{
	while (*list) {
		size_t len = 0;

		if (is_sep(*list, seps)) {
			list++;
			continue;
		}
		while (list[len] && !is_sep(list[len], seps))
			len++;
		if (fn(list, len))
			return 1;
		list += len;
	}
	return 0;
}

static int word_is(const char *tok, size_t len, const char *word)
{
	return lj_strlen(word) == len && !lf_strncasecmp(tok, word, len);
}

/* lazy_journal or its raw e2p name, set or cleared (lazy_opts.c's test) */
static int lazy_token(const char *tok, size_t len)
{
	if (*tok == '^' || *tok == '-' || *tok == '+') {
		tok++;
		len--;
	}
	return word_is(tok, len, "lazy_journal") ||
	       word_is(tok, len, "FEATURE_C13");
}

/* smr_band or smr_band=... (subopt.c's fe_subopt_key) */
static int band_token(const char *tok, size_t len)
{
	return len >= 8 && !lj_strncmp(tok, "smr_band", 8) &&
	       (len == 8 || tok[8] == '=');
}

static void note(int opt, const char *val, void *arg)
{
	struct cmdline *c = arg;

	if (opt == '?')
		c->bad = 1;
	else if (opt == 'V')
		c->version = 1;
	else if (opt == 'O')
		c->lazy |= any_token(val, FE_FEATURE_SEPS, lazy_token);
	else if (opt == 'E')
		c->band |= any_token(val, ",", band_token);
}

int lj_launch_main(int argc, char **argv, char **envp)
{
	struct cmdline c = { 0, 0, 0, 0 };
	size_t n = 0, k = 0;
	char **e;

	if (lf_getopt_walk(argc, argv, envp, MKE2FS_OPTS, note, &c) ||
	    c.bad || c.version || c.band)
		return lf_exec_helper("mke2fs", FRONT, argv, envp);
	if (!c.lazy)
		return lf_exec_stock("mke2fs", argv, envp);
	for (e = envp; e && *e; e++)
		n++;
	{
		char *env[n + 2];
		char front[sizeof(FRONT_ENV) + PATH_MAX_];
		size_t len = sizeof(FRONT_ENV) - 1;

		for (e = envp; e && *e; e++)
			if (lj_strncmp(*e, FRONT_ENV, len) &&
			    lj_strncmp(*e, "LJ_MKE2FS=", 10))
				env[k++] = *e;
		for (n = 0; n < len; n++)
			front[n] = FRONT_ENV[n];
		lf_helper_path(envp, FRONT, front + len, sizeof(front) - len);
		env[k++] = front;
		env[k] = 0;
		return lf_exec_view("mke2fs", argv, env, "mke2fs");
	}
}
