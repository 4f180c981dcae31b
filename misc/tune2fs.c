/*
 * tune2fs.c --- tune2fs with lazy_journal (doc/contract.md §7.2).
 *
 *   -O lazy_journal    unmounted, log empty; the journal grows to the §6
 *                      size (or is made at -J size=); the flag is set
 *   -O ^lazy_journal   every live block home, log emptied (lj_migrate_fs,
 *                      §3 order), the flag cleared
 *   -l                 the stock listing of the current superblock (read
 *                      through the jmap) plus the lazy lines
 *   anything else      on a lazy file system whose log is not empty, stock
 *                      tune2fs first rehearses it (rehearse()); if stock
 *                      accepts, the log is migrated home, then stock
 *                      tune2fs runs for real
 *
 * A file system without lazy_journal and without a lazy request goes to
 * the stock tune2fs with the untouched argv.  Stock tune2fs 1.47 accepts
 * the unknown COMPAT bit, so the flag need not be hidden from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <et/com_err.h>

#include "lazy_journal.h"
#include "stock.h"
#include "lazy_opts.h"
#include "tune2fs_check.h"
#include "version.h"

/* tune2fs 1.47 getopt string */
#define TUNE2FS_OPTS "c:e:fg:i:jlm:o:r:s:u:C:E:I:J:L:M:O:T:U:z:Q:"

static const char *prog = "tune2fs";
static const char *argv0 = "tune2fs";	/* stock names itself after it */

struct request {
	struct fe_args orig;	/* as given */
	struct fe_args args;	/* lazy parts taken out */
	struct fe_features feat;
	struct fe_jopts jopts;
	const char *device;	/* opens it (IMAGE?offset=N too) */
	char *name;		/* as stock names it: no io options */
	int list;		/* -l */
	int stock_ops;		/* something left for stock tune2fs to do */
};

struct fs_state {		/* from the home superblock */
	int lazy;
	int needs_recovery;
	int mounted;
	int busy;		/* held O_EXCL by someone (EXT2_MF_BUSY) */
	unsigned log_bs;	/* s_log_block_size */
};

static void fail(errcode_t err, const char *fmt, const char *arg)
{
	com_err(prog, err, fmt, arg);
	exit(FE_EXIT_USAGE);
}

static void nomem(void)
{
	fail(ENOMEM, "%s", "while parsing the command line");
}

static void parse(int argc, char **argv, struct request *rq)
{
	memset(rq, 0, sizeof(*rq));
	fe_features_init(&rq->feat);
	if (fe_args_parse(argc, argv, TUNE2FS_OPTS, &rq->args) < 0 ||
	    fe_args_parse(argc, argv, TUNE2FS_OPTS, &rq->orig) < 0 ||
	    fe_args_count(&rq->args, 'O') > 1 ||
	    fe_args_operand(&rq->args, 1) || !fe_args_operand(&rq->args, 0))
		exit(lj_stock_exec(prog, argv));	/* stock says why */
	if (fe_args_take_lazy_features(&rq->args, &rq->feat))
		nomem();
	rq->device = fe_args_operand(&rq->args, 0);
	rq->name = strndup(rq->device, strcspn(rq->device, "?"));
	if (!rq->name)
		nomem();
	fe_jopts_scan(&rq->args, &rq->jopts);
	rq->list = fe_args_count(&rq->args, 'l') > 0;
	if (rq->feat.lazy == 1)
		fe_args_remove(&rq->args, 'J');		/* ours */
	rq->stock_ops = fe_args_has_other(&rq->args, "fl");
}

/* 0, or the error of reading the home superblock. */
static errcode_t read_state(const char *device, struct fs_state *s)
{
	ext2_filsys fs;
	int mount_flags = 0;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	err = lj_open_super(device, 0, &fs);
	if (err)
		return err;
	s->lazy = lj_fs_is_lazy(fs->super);
	s->needs_recovery = ext2fs_has_feature_journal_needs_recovery(fs->super);
	s->log_bs = fs->super->s_log_block_size;
	ext2fs_close_free(&fs);
	if (lj_check_if_mounted(device, &mount_flags) == 0) {
		s->mounted = (mount_flags & EXT2_MF_MOUNTED) != 0;
		s->busy = (mount_flags & EXT2_MF_BUSY) != 0;
	}
	return 0;
}

/* The device operand's own string in argv (getopt, as stock finds it). */
static char *device_arg(int argc, char **argv)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	char *dev = NULL;

	if (!copy)
		return NULL;
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	opterr = 0;
	optind = 1;
	while (getopt(argc, copy, TUNE2FS_OPTS) != EOF)
		;
	if (optind == argc - 1)
		dev = copy[optind];
	free(copy);
	return dev;
}

/*
 * The whole command line as stock tune2fs would judge it (its message,
 * its exit status), before anything of ours is written.
 */
static void check_line(int argc, char **argv, const struct request *rq,
		       const struct fs_state *s)
{
	char *dev = device_arg(argc, argv);
	int rc = dev ? fe_tune2fs_stock_parse(argc, argv, dev) : -1;

	if (rc >= 0)
		exit(rc);
	if (fe_tune2fs_check_values(&rq->orig, argv0, s->log_bs))
		exit(FE_EXIT_USAGE);
}

/* Everything that is refused, before anything is written. */
static void validate(const struct request *rq, const struct fs_state *s)
{
	const char *why = NULL;
	ext2_filsys fs;
	errcode_t err;

	if (rq->feat.lazy == 1) {
		why = fe_lazy_refusal(&rq->feat, &rq->jopts);
		if (!why && rq->jopts.size_mib == -2)
			why = "bad journal size in -J size=";
	} else if (s->lazy && rq->feat.lazy != 0) {
		struct fe_features f = rq->feat;

		f.lazy = 1;
		why = fe_lazy_refusal(&f, &rq->jopts);
	}
	if (why)
		fail(0, "%s", why);
	if (rq->feat.lazy == FE_UNSET && !(rq->stock_ops))
		return;			/* listing only */
	if (s->mounted && rq->feat.lazy != FE_UNSET)
		fail(0, "%s is mounted; lazy_journal can only be changed on "
		     "an unmounted file system", rq->name);
	/* every write of ours (migration, flag, journal) opens O_EXCL */
	if (s->busy && (rq->feat.lazy != FE_UNSET ||
			(s->lazy && s->needs_recovery)))
		fail(EBUSY, "while trying to open %s", rq->name);
	if (rq->feat.lazy != 1)
		return;
	if (s->needs_recovery && !s->lazy)
		fail(0, "%s", "The needs_recovery flag is set.  Please run "
		     "e2fsck before setting lazy_journal.");
	err = lj_open_super(rq->device, 0, &fs);
	if (err)
		fail(err, "while trying to open %s", rq->name);
	why = fe_fs_refusal(fs, &rq->feat);
	ext2fs_close_free(&fs);
	if (why)
		fail(0, "%s", why);
}

/*
 * The file system opened (read-only) and its log scanned, for migrate().
 * A log that cannot be read completely is e2fsck's business (it saves
 * the raw journal first): refused here, before anything is written.
 */
static ext2_filsys open_log(const struct request *rq)
{
	lj_lazy_state *st;
	ext2_filsys fs;
	char why[400];
	errcode_t err;

	err = lj_open_fs(rq->device, 0, &fs);
	if (!err)
		err = lj_lazy_get_state(fs->io, &st);
	if (err)
		fail(err, "while writing the journaled metadata of %s home",
		     rq->name);
	if (lj_log_incomplete(st, why, sizeof(why))) {
		fprintf(stderr, "%s: lazy journal of %s: %s: run e2fsck; "
			"nothing written\n", prog, rq->name, why);
		exit(1);
	}
	return fs;
}

/* The live log home and the log emptied (doc/contract.md §3), on the log
 * open_log scanned; fs is closed. */
static void migrate(const struct request *rq, ext2_filsys fs)
{
	struct lj_migrate_stats ms;
	errcode_t err;

	err = lj_migrate_fs(fs, 0, NULL, NULL, &ms);
	ext2fs_close_free(&fs);
	if (err)
		fail(err, "while writing the journaled metadata of %s home",
		     rq->name);
	printf("Lazy journal: %llu blocks written home, log emptied\n",
	       (unsigned long long)ms.blocks);
}

/* Copy what f holds to out; close f. */
static void pass_on(FILE *f, FILE *out)
{
	char buf[4096];
	size_t n;

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	fflush(out);
}

/*
 * Stock tune2fs with argv v rehearsed before any write (doc/contract.md §7.2:
 * the whole command line validated before the first write): it runs on
 * the file system as our writes will leave it for the real run (the log
 * migrated, lazy_journal kept: LJ_VIEW=rehearse) with every write it
 * makes kept in memory, so it judges the line -- options, values, the
 * file system's state -- exactly as it will then, and writes nothing.
 * A refusal: its stdout and stderr passed on as it wrote them, its exit
 * status ours, nothing written.  Stock buffers stdout when it is not a
 * terminal (its messages on stderr come first then), so ours does too.
 */
static void rehearse(char **v)
{
	FILE *out, *err;
	int rc = lj_stock_capture_split_view(prog, v, "rehearse", &out, &err);

	if (rc == 0) {
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		return;
	}
	fflush(stdout);
	if (isatty(STDOUT_FILENO)) {
		pass_on(out, stdout);
		pass_on(err, stderr);
	} else {
		pass_on(err, stderr);
		pass_on(out, stdout);
	}
	exit(rc);
}

static void set_flag(const struct request *rq, int on)
{
	errcode_t err = lj_set_lazy_flag(rq->device, on);

	if (err)
		fail(err, on ? "while setting lazy_journal on %s" :
		     "while clearing lazy_journal on %s", rq->name);
}

/* -J location= as a first block (~0: stock placement). */
static blk64_t journal_goal(const struct request *rq, unsigned int bs)
{
	blk64_t goal;

	if (fe_journal_goal(&rq->jopts, bs, &goal))
		fail(0, "bad journal location %s", rq->jopts.location);
	return goal;
}

/* The journal at the lazy size (or -J size=): made or remade if needed. */
static void size_journal(const struct request *rq)
{
	struct lj_journal_fit fit;
	blk64_t start;
	errcode_t err;

	err = lj_journal_fit(rq->device, rq->jopts.size_mib > 0 ?
			     (unsigned long)rq->jopts.size_mib : 0, &fit);
	if (err)
		fail(err, "while trying to open %s", rq->name);
	if (fit.place_err)
		fail(fit.place_err, "while reading the journal inode of %s "
		     "(run e2fsck)", rq->name);
	if (fit.fits)
		return;
	printf("Lazy journal: %llu blocks (%lu MiB)\n",
	       (unsigned long long)fit.want, fit.want_mib);
	err = lj_make_journal(rq->device, fit.want,
			      journal_goal(rq, fit.blocksize), 0, 0, &start);
	if (err)
		fail(err, "while creating the journal of %s", rq->name);
}

/* What the lazy lines of -l say, from one open of the file system. */
struct lazy_info {
	errcode_t err;		/* of opening it */
	int lazy;
	errcode_t journal_err;
	struct lj_jmap_stats js;
};

static void read_lazy_info(const char *device, struct lazy_info *li)
{
	ext2_filsys fs;
	lj_lazy_state *st;

	memset(li, 0, sizeof(*li));
	li->err = lj_open_fs(device, 0, &fs);
	if (li->err)
		return;
	li->err = lj_lazy_get_state(fs->io, &st);
	if (!li->err) {
		lj_jmap_stats(st->jmap, &li->js);
		li->lazy = st->lazy;
		li->journal_err = st->journal_err;
	}
	ext2fs_close_free(&fs);
}

static void print_lazy_lines(const char *device, const struct lazy_info *li)
{
	if (li->err)
		fail(li->err, "while reading the lazy journal of %s", device);
	printf("Lazy journal:             %s\n", li->lazy ? "on" : "off");
	if (li->journal_err)
		printf("Lazy log:                 unreadable (%s)\n",
		       error_message(li->journal_err));
	printf("Lazy live mapped blocks:  %zu\n", li->js.live);
	printf("Lazy transactions in log: %zu\n", li->js.txns);
	printf("Lazy log use:             %.1f%%\n", li->js.journal_blocks ?
	       100.0 * li->js.log_blocks / li->js.journal_blocks : 0.0);
}

static void lazy_lines(const char *device)
{
	struct lazy_info li;

	read_lazy_info(device, &li);
	print_lazy_lines(device, &li);
}

/*
 * Stock tune2fs -l under the current view (its superblock read through the
 * jmap, lazy_journal named; no temporary file), then the lazy lines, read
 * before (-l writes nothing).  A log that cannot be read leaves the home
 * superblock, listed by plain stock (the lazy lines say why).
 */
static int list_fs(const char *device)
{
	char *v[] = { (char *)argv0, "-l", (char *)device, NULL };
	struct lazy_info li;
	int rc;

	read_lazy_info(device, &li);
	rc = !li.err && !(li.lazy && li.journal_err) ?
	     lj_stock_run_view(prog, v, "current") : lj_stock_run(prog, v);
	if (rc == 0)
		print_lazy_lines(device, &li);
	return rc;
}

/* What stock tune2fs is given: the line without our parts (-l only
 * with_list). */
static char **stock_argv(struct request *rq, int with_list)
{
	char **v;

	if (!with_list)
		fe_args_remove(&rq->args, 'l');
	v = fe_args_argv(&rq->args, argv0);
	if (!v)
		nomem();
	return v;
}

/* Stock tune2fs is e2label when its argv[0]'s base name is "e2label". */
static int is_e2label(const char *name)
{
	const char *base = strrchr(name, '/');

	return !strcmp(base ? base + 1 : name, "e2label");
}

/*
 * e2label DEVICE [LABEL], as stock (it is tune2fs -L).  On a lazy file
 * system with a live log: the label is read through the current view; a
 * new label is written after the log is migrated home (as tune2fs -L),
 * by stock e2label itself (same messages).
 */
static int e2label(int argc, char **argv)
{
	struct request rq;
	struct fs_state s;
	ext2_filsys fs;
	char *tv[5];

	if (argc < 2 || argc > 3 || read_state(argv[1], &s) || !s.lazy ||
	    s.mounted || !s.needs_recovery)
		return lj_stock_exec(prog, argv);	/* stock's own */
	if (argc == 2)
		return lj_stock_exec_view(prog, argv, "current");
	tv[0] = "tune2fs";
	tv[1] = "-L";
	tv[2] = argv[2];
	tv[3] = argv[1];
	tv[4] = NULL;
	parse(4, tv, &rq);
	validate(&rq, &s);
	fs = open_log(&rq);
	rehearse(argv);
	migrate(&rq, fs);
	fe_args_free(&rq.args);
	fe_args_free(&rq.orig);
	free(rq.name);
	return lj_stock_exec(prog, argv);
}

int main(int argc, char **argv)
{
	struct request rq;
	struct fs_state s;
	ext2_filsys fs = NULL;
	char **v = NULL;
	errcode_t err;
	int rc = 0, listed = 0;

	if (argc > 0)
		argv0 = argv[0];
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (argc > 0 && is_e2label(argv[0]))
		return e2label(argc, argv);
	if (argc == 2 && !strcmp(argv[1], "-V")) {
		/* stock tune2fs has no -V: ours, then its banner line */
		fe_print_versions(prog);
		return 0;
	}
	parse(argc, argv, &rq);
	err = read_state(rq.device, &s);
	if (err && rq.feat.lazy == FE_UNSET)
		return lj_stock_exec(prog, argv);	/* stock says why */
	if (err)
		fail(err, "while trying to open %s", rq.name);
	if (!s.lazy && rq.feat.lazy == FE_UNSET)
		return lj_stock_exec(prog, argv);	/* untouched */
	if (s.lazy && s.mounted && rq.feat.lazy == FE_UNSET)
		return lj_stock_exec(prog, argv);	/* the kernel's log */
	check_line(argc, argv, &rq, &s);
	validate(&rq, &s);
	if (s.lazy && s.needs_recovery &&
	    (rq.stock_ops || rq.feat.lazy != FE_UNSET))
		fs = open_log(&rq);
	if (rq.stock_ops) {
		listed = rq.list && rq.feat.lazy != 1;
		v = stock_argv(&rq, listed);
		/* ours would come first: stock's judgement before them */
		if (fs || (rq.feat.lazy == 0 && s.lazy))
			rehearse(v);
	}
	if (fs)
		migrate(&rq, fs);
	if (rq.feat.lazy == 0 && s.lazy)
		set_flag(&rq, 0);
	if (v) {
		rc = lj_stock_run(prog, v);
		fe_argv_free(v);
		if (rc)
			goto out;
	}
	if (rq.feat.lazy == 1) {
		size_journal(&rq);
		if (!s.lazy)
			set_flag(&rq, 1);
	}
	if (listed)
		lazy_lines(rq.device);
	else if (rq.list)
		rc = list_fs(rq.device);
out:
	fe_args_free(&rq.args);
	fe_args_free(&rq.orig);
	free(rq.name);
	return rc;
}
