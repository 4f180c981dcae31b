/*
 * lazy_opts.c --- shared by misc/mke2fs and misc/tune2fs: the command line
 * in stock getopt syntax, -O/-J/-E handling and the refusals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lazy_journal.h"
#include "lazy_opts.h"
#include "subopt.h"

/* ------------------------------------------------------------------ */
/* Command line                                                        */

static int add_at(struct fe_args *args, int opt, const char *val, int at,
		  int detached)
{
	char *copy = NULL;

	if (args->n == args->cap) {
		size_t cap = args->cap ? 2 * args->cap : 16;

		if (ext2fs_resize_array(sizeof(*args->a), args->cap, cap,
					&args->a))
			return -1;
		args->cap = cap;
	}
	if (val && !(copy = strdup(val)))
		return -1;
	args->a[args->n].opt = opt;
	args->a[args->n].val = copy;
	args->a[args->n].at = at;
	args->a[args->n].detached = detached;
	args->n++;
	return 0;
}

int fe_args_add(struct fe_args *args, int opt, const char *val)
{
	return add_at(args, opt, val, -1, 0);
}

void fe_args_free(struct fe_args *args)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		free(args->a[i].val);
	free(args->a);
	memset(args, 0, sizeof(*args));
}

/* Split one "-abc" cluster; *i advances past a detached argument. */
static int parse_cluster(int argc, char **argv, int *i, const char *optstring,
			 struct fe_args *out)
{
	const char *p = argv[*i] + 1;
	int at = *i;

	for (; *p; p++) {
		const char *o = (*p == ':') ? NULL : strchr(optstring, *p);

		if (!o)
			return -1;
		if (o[1] != ':') {
			if (add_at(out, *p, NULL, at, 0))
				return -1;
			continue;
		}
		if (p[1])
			return add_at(out, *p, p + 1, at, 0);
		if (*i + 1 >= argc)
			return -1;
		(*i)++;
		return add_at(out, *p, argv[*i], at, 1);
	}
	return 0;
}

int fe_args_parse(int argc, char **argv, const char *optstring,
		  struct fe_args *out)
{
	int i, only_operands = 0;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		int err;

		if (!only_operands && strcmp(s, "--") == 0) {
			only_operands = 1;
			continue;
		}
		if (only_operands || s[0] != '-' || s[1] == '\0')
			err = add_at(out, 0, s, i, 0);
		else
			err = parse_cluster(argc, argv, &i, optstring, out);
		if (err) {
			fe_args_free(out);
			return -1;
		}
	}
	return 0;
}

size_t fe_args_count(const struct fe_args *args, int opt)
{
	size_t i, n = 0;

	for (i = 0; i < args->n; i++)
		n += args->a[i].opt == opt;
	return n;
}

static void remove_at(struct fe_args *args, size_t i)
{
	free(args->a[i].val);
	memmove(&args->a[i], &args->a[i + 1],
		(args->n - i - 1) * sizeof(args->a[0]));
	args->n--;
}

void fe_args_remove(struct fe_args *args, int opt)
{
	size_t i = 0;

	while (i < args->n)
		if (args->a[i].opt == opt)
			remove_at(args, i);
		else
			i++;
}

const char *fe_args_operand(const struct fe_args *args, size_t nth)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (args->a[i].opt == 0 && nth-- == 0)
			return args->a[i].val;
	return NULL;
}

int fe_args_has_other(const struct fe_args *args, const char *keep)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (args->a[i].opt && !strchr(keep, args->a[i].opt))
			return 1;
	return 0;
}

/* "-X" for option letter X, static. */
static char *flag_string(int opt)
{
	static char flags[128][3];
	char *f = flags[opt & 127];

	f[0] = '-';
	f[1] = (char)opt;
	f[2] = '\0';
	return f;
}

/* Options first ("-X" "value"), then the operands (after "--" if needed). */
char **fe_args_argv(const struct fe_args *args, const char *argv0)
{
	char **v = calloc(2 * args->n + 3, sizeof(*v));
	size_t i, k = 0;
	int dashdash = 0;

	if (!v)
		return NULL;
	v[k++] = (char *)argv0;
	for (i = 0; i < args->n; i++) {
		const struct fe_arg *a = &args->a[i];

		if (!a->opt) {
			dashdash |= a->val[0] == '-' && a->val[1];
			continue;
		}
		v[k++] = flag_string(a->opt);
		if (a->val)
			v[k++] = a->val;
	}
	if (dashdash)
		v[k++] = "--";
	for (i = 0; i < args->n; i++)
		if (!args->a[i].opt)
			v[k++] = args->a[i].val;
	v[k] = NULL;
	return v;
}

void fe_argv_free(char **v)
{
	free(v);	/* the strings belong to the fe_args or are static */
}

/* ------------------------------------------------------------------ */
/* -O feature lists                                                    */

void fe_features_init(struct fe_features *f)
{
	f->lazy = f->has_journal = f->fast_commit = FE_UNSET;
	f->cleared = 0;
}

/* Note one token; 1 if it is lazy_journal (to be taken out). */
static int note_feature(const char *tok, size_t len, void *arg)
{
	struct fe_features *f = arg;
	int on = 1;
	char name[64];

	if (*tok == '^' || *tok == '-' || *tok == '+') {
		on = *tok == '+';
		tok++;
		len--;
	}
	if (len >= sizeof(name))
		return 0;
	memcpy(name, tok, len);
	name[len] = '\0';
	if (!strcasecmp(name, "lazy_journal") ||
	    !strcasecmp(name, "FEATURE_C13")) {
		f->lazy = on;
		return 1;
	}
	if (!strcasecmp(name, "has_journal"))
		f->has_journal = on;
	else if (!strcasecmp(name, "fast_commit"))
		f->fast_commit = on;
	else if (!strcasecmp(name, "none") || !strcasecmp(name, "clear")) {
		f->cleared = 1;
		f->lazy = f->has_journal = f->fast_commit = 0;
	}
	return 0;
}

char *fe_features_filter(const char *list, struct fe_features *f)
{
	return fe_list_filter(list, FE_FEATURE_SEPS, note_feature, f);
}

errcode_t fe_args_take_lazy_features(struct fe_args *args,
				     struct fe_features *f)
{
	size_t i = 0;

	while (i < args->n) {
		struct fe_arg *a = &args->a[i];
		char *rest;

		if (a->opt != 'O') {
			i++;
			continue;
		}
		rest = fe_features_filter(a->val, f);
		if (!rest)
			return ENOMEM;
		if (strcmp(rest, a->val) == 0) {	/* untouched */
			free(rest);
			i++;
		} else if (!*rest) {
			free(rest);
			remove_at(args, i);
		} else {
			free(a->val);
			a->val = rest;
			i++;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sub-option lists                                                    */

int fe_args_take_subopt(struct fe_args *args, int opt, const char *key,
			char *val, size_t len)
{
	size_t i = 0;
	int found = 0;

	while (i < args->n) {
		struct fe_arg *a = &args->a[i];
		char *rest;

		if (a->opt != opt || !fe_subopt_get(a->val, key, val, len)) {
			i++;
			continue;
		}
		found = 1;
		rest = fe_subopt_remove(a->val, key);
		if (!rest)
			return -1;
		free(a->val);
		a->val = rest;
		if (*rest)
			i++;
		else
			remove_at(args, i);
	}
	return found;
}

int fe_args_append_subopt(struct fe_args *args, int opt, const char *item)
{
	size_t i = args->n;
	char *s;

	while (i-- > 0) {
		struct fe_arg *a = &args->a[i];

		if (a->opt != opt)
			continue;
		s = malloc(strlen(a->val) + strlen(item) + 2);
		if (!s)
			return -1;
		sprintf(s, "%s,%s", a->val, item);
		free(a->val);
		a->val = s;
		return 0;
	}
	return fe_args_add(args, opt, item);
}

void fe_jopts_scan(const struct fe_args *args, struct fe_jopts *j)
{
	char val[64];
	size_t i;

	memset(j, 0, sizeof(*j));
	j->size_mib = FE_UNSET;
	for (i = 0; i < args->n; i++) {
		const char *list = args->a[i].val;

		if (args->a[i].opt != 'J')
			continue;
		if (fe_subopt_get(list, "size", val, sizeof(val))) {
			char *end;
			long v = strtol(val, &end, 10);

			j->size_mib = (*val && !*end && v > 0) ? v : -2;
		}
		j->device |= fe_subopt_get(list, "device", val, sizeof(val));
		j->fast_commit |= fe_subopt_get(list, "fast_commit_size", val,
						sizeof(val));
		fe_subopt_get(list, "location", j->location,
			      sizeof(j->location));
	}
}

int fe_parse_size(const char *s, unsigned long long *bytes)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'T': case 't': shift = 40; break;
	case 'G': case 'g': shift = 30; break;
	case 'M': case 'm': shift = 20; break;
	case 'K': case 'k': shift = 10; break;
	case '\0': break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	if (shift && v > (~0ULL >> shift))
		return -1;
	*bytes = v << shift;
	return 0;
}

int fe_journal_goal(const struct fe_jopts *j, unsigned int bs, blk64_t *goal)
{
	unsigned long long v;
	size_t len = strlen(j->location);

	*goal = ~0ULL;
	if (!len)
		return 0;
	if (fe_parse_size(j->location, &v))
		return -1;
	*goal = (j->location[len - 1] >= '0' && j->location[len - 1] <= '9') ?
		v : v / bs;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Refusals                                                            */

const char *fe_lazy_refusal(const struct fe_features *f,
			    const struct fe_jopts *j)
{
	if (j->device)
		return "lazy_journal needs an internal journal: "
		       "-J device= cannot be used with it";
	if (f->fast_commit == 1 || j->fast_commit)
		return "lazy_journal cannot be combined with fast_commit";
	if (f->has_journal == 0)
		return "lazy_journal needs a journal: "
		       "^has_journal cannot be used with it";
	return NULL;
}

const char *fe_fs_refusal(ext2_filsys fs, const struct fe_features *f)
{
	return lj_lazy_fs_refusal(fs, f->fast_commit != 0);
}
