/*
 * view_debugfs.c --- stock debugfs under the view (LJ_VIEW=debugfs).
 *
 * Stock debugfs links libss and libext2fs dynamically; this part of the
 * view object interposes a few of their entry points:
 *
 *  - (view_fs.c tells which file system the session has open.)
 *  - ss_create_invocation / ss_add_request_table: every request table
 *    stock installs is replaced by a copy whose handlers all go through
 *    dispatch(), and our table (jmap, jlookup, block_dump) goes first.
 *
 * dispatch() runs the stock handler.  On a lazy fs opened for writing it
 * first refuses the requests whose semantics a lazy log with our writer
 * cannot give (stock's own journal writer, MMP writes that bypass the io
 * channel, init_filesys), and afterwards commits what the request wrote as
 * one transaction.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ss/ss.h>
#include <et/com_err.h>

#include "view.h"
#include "view_requests.h"

/* ------------------------------------------------------------------ */
/* Request tables                                                     */

/* ss_request_entry / ss_request_table without the const qualifiers. */
struct rq_entry {
	const char *const *names;
	lj_ss_fn function;
	const char *info;
	int flags;
};
struct rq_table {
	int version;
	struct rq_entry *requests;
};

#define MAX_TABLES 16
static struct wrapped {
	const struct rq_table *orig;
	struct rq_table copy;
} tables[MAX_TABLES];
static int ntables;

static void dispatch(int argc, const char *const *argv, int sci, void *info);

static int entry_named(const struct rq_entry *e, const char *name)
{
	const char *const *n;

	for (n = e->names; n && *n; n++)
		if (!strcmp(*n, name))
			return 1;
	return 0;
}

/* The stock entry of request name, or NULL. */
static const struct rq_entry *find_stock(const char *name)
{
	int t;
	const struct rq_entry *e;

	for (t = 0; t < ntables; t++)
		for (e = tables[t].orig->requests; e->names; e++)
			if (entry_named(e, name))
				return e;
	return NULL;
}

/* A copy of t whose handlers are dispatch(); t itself when we cannot. */
static ss_request_table *wrap(ss_request_table *t)
{
	const struct rq_table *orig = (const struct rq_table *)t;
	struct rq_entry *e;
	size_t n = 0, i;

	if (lj_view_mode != LJ_VIEW_DEBUGFS || !t || ntables == MAX_TABLES)
		return t;
	for (i = 0; ntables && i < (size_t)ntables; i++)
		if (tables[i].orig == orig)
			return (ss_request_table *)&tables[i].copy;
	while (orig->requests[n].names)
		n++;
	e = calloc(n + 1, sizeof(*e));
	if (!e)
		return t;
	memcpy(e, orig->requests, (n + 1) * sizeof(*e));
	for (i = 0; i < n; i++)
		e[i].function = dispatch;
	tables[ntables].orig = orig;
	tables[ntables].copy.version = orig->version;
	tables[ntables].copy.requests = e;
	return (ss_request_table *)&tables[ntables++].copy;
}

/* Our requests (lib/view/jmap_cmds.c), listed after stock's; block_dump
 * -H is ours too (dispatch). */
static const char *const jmap_names[] = { "jmap", NULL };
static const char *const jlookup_names[] = { "jlookup", NULL };
static struct rq_entry our_entries[] = {
	{ jmap_names, lj_do_jmap,
	  "Dump the lazy journal map (home block -> journal block)", 0 },
	{ jlookup_names, lj_do_jlookup, "Look up blocks through the journal",
	  0 },
	{ NULL, NULL, NULL, 0 }
};
static struct rq_table our_table = { SS_RQT_TBL_V2, our_entries };

typedef int (*create_fn)(const char *, const char *, void *,
			 ss_request_table *, int *);
typedef void (*add_fn)(int, ss_request_table *, int, int *);

LJ_EXPORT void ss_add_request_table(int sci, ss_request_table *t, int pos,
				    int *code)
{
	LJ_REAL(ss_add_request_table, add_fn);
	if (!real) {
		*code = ENOSYS;
		return;
	}
	real(sci, wrap(t), pos, code);
}

LJ_EXPORT int ss_create_invocation(const char *subsystem, const char *version,
				   void *info, ss_request_table *t, int *code)
{
	int sci;
	LJ_REAL(ss_create_invocation, create_fn);
	static add_fn add;

	if (!real) {
		*code = ENOSYS;
		return 0;
	}
	sci = real(subsystem, version, info, wrap(t), code);
	if (*code || lj_view_mode != LJ_VIEW_DEBUGFS)
		return sci;
	if (!add)
		add = (add_fn)dlsym(RTLD_NEXT, "ss_add_request_table");
	if (add) {
		int err = 0;

		add(sci, (ss_request_table *)&our_table, 1000, &err);
		if (err)
			com_err(subsystem, err, "while adding the lazy journal "
				"requests");
	}
	return sci;
}

/* ------------------------------------------------------------------ */
/* Running a request                                                  */

/* The writer of the open file system if it is lazy and open for writing. */
static lj_writer *session_writer(void)
{
	ext2_filsys fs = lj_view_fs();

	return fs ? lj_lazy_writer(fs->io) : NULL;
}

/*
 * Requests refused on a lazy fs opened for writing, by any of their names:
 * stock's journal writer would write a log of its own (and journal_run
 * replay it home), MMP writes bypass the io channel, init_filesys would
 * journal a whole new file system over the old one.
 */
static const char *const refused[] = {
	"journal_open", "journal_close", "journal_write", "journal_run",
	"set_mmp_value", "init_filesys", NULL
};

static const char *refusal(const struct rq_entry *e)
{
	int i;

	for (i = 0; refused[i]; i++)
		if (entry_named(e, refused[i]))
			return refused[i];
	return NULL;
}

static void block_dump_home(int argc, const char *const *argv, int sci,
			    void *info);

/* Does the request's option list (before the first operand) hold -opt? */
static int has_option(int argc, const char *const *argv, char opt)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (strchr(argv[i] + 1, opt))
			return 1;
	}
	return 0;
}

static void run_stock(int argc, const char *const *argv, int sci, void *info)
{
	const struct rq_entry *e = find_stock(argv[0]);
	lj_writer *w;
	errcode_t err;

	if (!e || !e->function)
		return;
	if (entry_named(e, "block_dump") && has_option(argc, argv, 'H')) {
		block_dump_home(argc, argv, sci, info);
		return;
	}
	if (session_writer() && refusal(e)) {
		fprintf(stderr, "%s: refused on a lazy_journal file system "
			"opened for writing: its log is written by the lazy "
			"journal writer\n", argv[0]);
		lj_view_failed();
		return;
	}
	e->function(argc, argv, sci, info);
	/* What the request wrote becomes one transaction. */
	w = session_writer();
	if (w) {
		err = lj_writer_commit(w);
		if (err) {
			com_err(argv[0], err, "while committing to the journal");
			lj_view_failed();
		}
	}
}

static void dispatch(int argc, const char *const *argv, int sci, void *info)
{
	run_stock(argc, argv, sci, info);
}

/*
 * block_dump -H ...: stock's block_dump without -H, every read served from
 * home while it runs (with -f, the file's mapping is read from home too).
 * Without lazy_journal home is the only copy: plain stock block_dump.
 */
static void block_dump_home(int argc, const char *const *argv, int sci,
			    void *info)
{
	ext2_filsys fs = lj_view_fs();
	const char **v = calloc((size_t)argc + 1, sizeof(*v));
	char **opts = calloc((size_t)argc + 1, sizeof(*opts));
	int i, n = 0, lazy, opts_done = 0;

	if (!v || !opts) {
		com_err(argv[0], EXT2_ET_NO_MEMORY, "while dumping a block");
		free(v);
		free(opts);
		return;
	}
	v[n++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && !strcmp(a, "--"))
			opts_done = 1;
		else if (!opts_done && a[0] == '-' && a[1] && strchr(a, 'H')) {
			char *o = malloc(strlen(a) + 1), *d = o;
			const char *c;

			if (!o)
				continue;
			for (c = a; *c; c++)
				if (*c != 'H')
					*d++ = *c;
			*d = '\0';
			opts[i] = o;
			if (!strcmp(o, "-"))
				continue;
			a = o;
		} else if (a[0] != '-') {
			opts_done = 1;
		}
		v[n++] = a;
	}
	lazy = fs && !lj_lazy_set_mode(fs->io, LJ_LAZY_HOME_VIEW, 1);
	run_stock(n, v, sci, info);
	if (lazy && lj_view_fs() == fs)
		lj_lazy_set_mode(fs->io, LJ_LAZY_HOME_VIEW, 0);
	for (i = 0; i < argc; i++)
		free(opts[i]);
	free(opts);
	free(v);
}
