/*
 * view_debugfs.c --- stock debugfs under the view (LJ_VIEW=debugfs).
 *
 * Stock debugfs links libss and libext2fs dynamically; this part of the
 * view object interposes a few of their entry points:
 *
 *  - ext2fs_open2 / ext2fs_close* / ext2fs_free: which file system the
 *    session has open (our requests and the request boundaries need it);
 *    in every mode, the io options of the name (IMAGE?offset=N), which
 *    the view must apply before it looks at the device;
 *    debugfs -c (EXT2_FLAG_IGNORE_SB_ERRORS) opens a lazy fs whose log
 *    cannot be read on its home copies, with a warning.
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
/* The open file system                                               */

static ext2_filsys open_fs;
static int open_failed;

ext2_filsys lj_view_fs(void)
{
	return open_fs;
}

int lj_view_open_failed(void)
{
	return open_failed;
}

typedef errcode_t (*open2_fn)(const char *, const char *, int, int,
			      unsigned int, io_manager, ext2_filsys *);

LJ_EXPORT errcode_t ext2fs_open2(const char *name, const char *io_options,
				 int flags, int superblock,
				 unsigned int block_size, io_manager manager,
				 ext2_filsys *ret_fs)
{
	static open2_fn real;
	const char *q = name ? strchr(name, '?') : NULL, *saved;
	errcode_t err;

	if (!real)
		real = (open2_fn)dlsym(RTLD_NEXT, "ext2fs_open2");
	if (!real)
		return EXT2_ET_UNIMPLEMENTED;
	/* the io options it applies after the open (as it reads them) */
	saved = lj_view_open_options(io_options ? io_options :
				     q ? q + 1 : NULL);
	if (lj_view_mode != LJ_VIEW_DEBUGFS || manager != &lj_view_manager) {
		err = real(name, io_options, flags, superblock, block_size,
			   manager, ret_fs);
		lj_view_open_options(saved);
		return err;
	}
	lj_view_tolerant = (flags & EXT2_FLAG_IGNORE_SB_ERRORS) != 0;
	err = real(name, io_options, flags, superblock, block_size, manager,
		   ret_fs);
	lj_view_open_options(saved);
	lj_view_tolerant = 0;
	open_failed = err != 0;
	if (!err)
		open_fs = *ret_fs;
	return err;
}

static void forget(ext2_filsys fs)
{
	if (fs && fs == open_fs)
		open_fs = NULL;
}

#define REAL(fn, type) \
	static type real; \
	if (!real) \
		real = (type)dlsym(RTLD_NEXT, #fn)

typedef errcode_t (*close2_fn)(ext2_filsys, int);
typedef errcode_t (*close_fn)(ext2_filsys);
typedef errcode_t (*close_free_fn)(ext2_filsys *);
typedef void (*free_fn)(ext2_filsys);

LJ_EXPORT errcode_t ext2fs_close2(ext2_filsys fs, int flags)
{
	REAL(ext2fs_close2, close2_fn);
	forget(fs);
	return real ? real(fs, flags) : EXT2_ET_UNIMPLEMENTED;
}

LJ_EXPORT errcode_t ext2fs_close(ext2_filsys fs)
{
	REAL(ext2fs_close, close_fn);
	forget(fs);
	return real ? real(fs) : EXT2_ET_UNIMPLEMENTED;
}

LJ_EXPORT errcode_t ext2fs_close_free(ext2_filsys *fs)
{
	REAL(ext2fs_close_free, close_free_fn);
	if (fs)
		forget(*fs);
	return real ? real(fs) : EXT2_ET_UNIMPLEMENTED;
}

LJ_EXPORT void ext2fs_free(ext2_filsys fs)
{
	REAL(ext2fs_free, free_fn);
	forget(fs);
	if (real)
		real(fs);
}

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

/* Our requests (debugfs/jmap_cmds.c), listed after stock's; block_dump
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
	REAL(ss_add_request_table, add_fn);
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
	REAL(ss_create_invocation, create_fn);
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

void lj_run_stock(int argc, const char *const *argv, int sci, void *info)
{
	const struct rq_entry *e = find_stock(argv[0]);
	lj_writer *w;
	errcode_t err;

	if (!e || !e->function)
		return;
	if (entry_named(e, "block_dump") && lj_has_option(argc, argv, 'H')) {
		lj_do_block_dump_home(argc, argv, sci, info);
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
	lj_run_stock(argc, argv, sci, info);
}
