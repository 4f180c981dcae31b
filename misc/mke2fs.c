/*
 * mke2fs.c --- the rest of our mke2fs (doc/contract.md §6, §7.1): the helper
 * mke2fs-front, on the C library.
 *
 * The program users run is the launcher (mke2fs_launch.c): without a
 * lazy request it execs stock mke2fs, and the common lazy format is made
 * by stock mke2fs under the view, the line read and edited there
 * (mke2fs_plan.c, lib/view/view_mke2fs.c).  What reaches this program:
 * -V, -E smr_band=, a line getopt refuses, and whatever the view would
 * not make in one pass.
 *
 * The stock mke2fs does the format.  With lazy_journal we take the lazy
 * tokens out of the -O lists and refuse what cannot be lazy (a block
 * count N too small for a journal: from the device size, or stock's dry
 * run).  Then stock mke2fs runs under the view in its mke2fs mode, which
 * sizes the journal by doc/contract.md §6 for stock's N (unless -J size= is
 * given), sets the flag before stock's own last flush, and says what we
 * would say: one pass over the device.  With -n or -E smr_band= the old
 * two passes remain: format with -J size=<MiB>, check what was made (the
 * journal is remade if N was not what we thought) and set the flag in
 * the superblock and its backups.  -E smr_band=SIZE (ours, taken out
 * before stock sees it) moves the fresh, empty journal so that it starts
 * on a band boundary.  Without a lazy request the stock mke2fs runs with
 * the untouched argv.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <et/com_err.h>

#include "lazy_journal.h"
#include "stock.h"
#include "mke2fs_plan.h"
#include "version.h"

static const char *prog = "mke2fs";
static const char *argv0 = "mke2fs";	/* stock names itself after it */

static void refuse(const char *msg)
{
	com_err(prog, 0, "%s", msg);
	exit(FE_EXIT_USAGE);
}

static void nomem(void)
{
	com_err(prog, ENOMEM, "while parsing the command line");
	exit(FE_EXIT_USAGE);
}

static void parse(int argc, char **argv, struct mk_request *rq)
{
	int err = mk_parse(argc, argv, rq);

	if (err < 0)
		exit(lj_stock_exec(prog, argv));	/* stock says why */
	if (err)
		nomem();
	if (rq->band_bad)
		refuse("bad SMR band size in -E smr_band= "
		       "(a size such as 256M)");
}

static int run_stock(struct fe_args *args)
{
	char **v = fe_args_argv(args, argv0);
	int rc;

	if (!v)
		nomem();
	rc = lj_stock_run(prog, v);
	fe_argv_free(v);
	return rc;
}

static void copy_out(FILE *from, FILE *to)
{
	char buf[4096];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

/* "Creating filesystem with 65536 1k blocks and 16384 inodes" */
static int parse_geometry(FILE *f, struct mk_geometry *g)
{
	char line[512];
	unsigned long long n;
	unsigned int k;

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Creating filesystem with %llu %uk blocks",
			   &n, &k) == 2) {
			g->blocks = n;
			g->blocksize = k * 1024;
			return 0;
		}
	return -1;
}

/*
 * The block count and block size stock mke2fs will use: its own dry run
 * with the same options (quiet/verbose off, -F so it never asks).
 */
static void stock_geometry(const struct mk_request *rq,
			   struct mk_geometry *g)
{
	struct fe_args a = { NULL, 0, 0 };
	size_t i;
	char **v;
	FILE *out;
	int rc;

	for (i = 0; i < rq->args.n; i++) {
		const struct fe_arg *x = &rq->args.a[i];

		if (x->opt != 'q' && x->opt != 'v' && fe_args_add(&a, x->opt, x->val))
			nomem();
	}
	if (fe_args_add(&a, 'n', NULL) || fe_args_add(&a, 'F', NULL) ||
	    !(v = fe_args_argv(&a, argv0)))
		nomem();
	rc = lj_stock_capture(prog, v, &out);
	fe_argv_free(v);
	if (rc == 0 && out && parse_geometry(out, g) == 0) {
		fclose(out);
		fe_args_free(&a);
		return;
	}
	if (out) {
		rewind(out);
		copy_out(out, stderr);
		fclose(out);
	}
	if (rc == 0)
		com_err(prog, 0, "cannot tell the block count stock mke2fs "
			"would use");
	exit(rc ? rc : FE_EXIT_USAGE);
}

/* Journal size in blocks: -J size= (whole MiB) or doc/contract.md §6. */
static blk64_t journal_blocks(const struct mk_request *rq,
			      const struct mk_geometry *g, unsigned long *mib)
{
	blk64_t l = lj_lazy_journal_size(g->blocks, g->blocksize,
					 rq->jopts.size_mib > 0 ?
					 (unsigned long)rq->jopts.size_mib : 0,
					 mib);

	if (!l)
		refuse(fe_msg_too_small);
	return l;
}

static void print_size(const struct mk_request *rq, blk64_t jblocks,
		       unsigned long mib)
{
	if (!rq->quiet || rq->dry_run)
		printf("Lazy journal: %llu blocks (%lu MiB)\n",
		       (unsigned long long)jblocks, mib);
}

/*
 * -E smr_band=: stock formatted with lazy_journal_init=1, so the fresh,
 * empty journal is made again here, starting on a free band boundary near
 * the middle, and zeroed unless the user asked for lazy_journal_init.
 */
static void align_journal(const struct mk_request *rq, unsigned int bs)
{
	blk64_t band = rq->band_bytes / bs, start, len;
	errcode_t err;

	err = lj_journal_place(rq->devspec, &start, &len);
	if (!err && !len) {
		fprintf(stderr, "%s: no journal: -E smr_band= ignored\n", prog);
		return;
	}
	if (!err)
		err = lj_make_journal(rq->devspec, len, ~0ULL, band,
				      rq->lazy_journal_init, &start);
	if (err) {
		com_err(prog, err, "while placing the journal on an SMR band");
		exit(FE_EXIT_USAGE);
	}
	if (start % band)
		fprintf(stderr, "%s: warning: no free band boundary for the "
			"journal; it starts at block %llu\n", prog,
			(unsigned long long)start);
	else if (!rq->quiet)
		printf("Journal on SMR band %llu: starts at block %llu\n",
		       (unsigned long long)(start / band),
		       (unsigned long long)start);
}

/* The band must be whole blocks; stock formats with lazy_journal_init. */
static void prepare_band(struct mk_request *rq, unsigned int bs)
{
	if (!rq->band_bytes)
		return;
	if (rq->band_bytes % bs)
		refuse("-E smr_band= must be a multiple of the block size");
	if (!rq->dry_run &&
	    fe_args_append_subopt(&rq->args, 'E', "lazy_journal_init=1"))
		nomem();
}

/* The file system stock made, superblock only: one lazy_journal can go on. */
static ext2_filsys open_made(const struct mk_request *rq)
{
	ext2_filsys fs;
	const char *why;
	errcode_t err = lj_open_super(rq->devspec, EXT2_FLAG_RW, &fs);

	if (err) {
		com_err(prog, err, "while reopening %s", rq->device);
		exit(FE_EXIT_USAGE);
	}
	/* mke2fs.conf may add what the command line did not ask for */
	why = fe_fs_refusal(fs, &rq->feat);
	if (!why && !ext2fs_has_feature_journal(fs->super))
		why = "no journal was created; lazy_journal needs one";
	if (why) {
		ext2fs_close_free(&fs);
		com_err(prog, 0, "%s (lazy_journal not set)", why);
		exit(FE_EXIT_USAGE);
	}
	return fs;
}

/*
 * Stock made the journal for another N than its own (we guessed N): the
 * fresh, empty journal again, at the size N calls for, where -J location=
 * (or stock, the middle) puts it.
 */
static void remake_journal(const struct mk_request *rq, blk64_t jblocks,
			   unsigned int bs)
{
	blk64_t goal, start;
	errcode_t err;

	if (fe_journal_goal(&rq->jopts, bs, &goal)) {
		com_err(prog, 0, "cannot read -J location=%s to remake the "
			"journal (lazy_journal not set)", rq->jopts.location);
		exit(FE_EXIT_USAGE);
	}
	err = lj_make_journal(rq->devspec, jblocks, goal, 0,
			      rq->lazy_journal_init, &start);
	if (err) {
		com_err(prog, err, "while making the journal of %s", rq->device);
		exit(FE_EXIT_USAGE);
	}
}

/*
 * After the format: the journal at the size N calls for, on its SMR band
 * if asked, then the flag in the primary superblock and every backup.
 */
static int finish(const struct mk_request *rq, unsigned long mib_asked)
{
	ext2_filsys fs = open_made(rq);
	struct mk_geometry g = { ext2fs_blocks_count(fs->super),
				 fs->blocksize };
	unsigned long mib;
	blk64_t jblocks = journal_blocks(rq, &g, &mib);
	errcode_t err;

	if (mib != mib_asked || rq->band_bytes) {
		ext2fs_close_free(&fs);
		if (mib != mib_asked)
			remake_journal(rq, jblocks, g.blocksize);
		if (rq->band_bytes)
			align_journal(rq, g.blocksize);
		fs = open_made(rq);
	}
	err = lj_change_features_close(&fs, 1, LJ_FEATURE_COMPAT_LAZY_JOURNAL,
				       0, 0, 0);
	if (err) {
		com_err(prog, err, "while setting lazy_journal on %s",
			rq->device);
		return FE_EXIT_USAGE;
	}
	print_size(rq, jblocks, mib);
	return 0;
}

/*
 * The target as stock mke2fs treats it before sizing anything: a file
 * that does not exist yet is created when a size is given (stock's line,
 * mode 0666 & ~umask); a directory, an empty file without a size, or a
 * missing file without one are stock's to refuse, with its message and
 * status (*rc).  1: done (*rc set); 0: go on.
 */
static int stock_target(struct mk_request *rq, int *rc)
{
	struct stat st;
	int fd, has_size = fe_args_operand(&rq->args, 1) != NULL;

	if (strcmp(rq->devspec, rq->device))	/* -E offset=: stock's */
		return 0;
	if (stat(rq->device, &st) == 0) {
		if (mk_target_stock_refuses(rq, &st)) {
			*rc = run_stock(&rq->args);
			return 1;
		}
		return 0;
	}
	if (errno != ENOENT || !has_size || rq->dry_run) {
		*rc = run_stock(&rq->args);
		return 1;
	}
	fd = open(rq->device, O_CREAT | O_EXCL | O_WRONLY, 0666);
	if (fd < 0) {
		*rc = run_stock(&rq->args);	/* stock says why */
		return 1;
	}
	close(fd);
	printf("Creating regular file %s\n", rq->device);
	return 0;
}

/*
 * The format in one pass: stock mke2fs under the view in its mke2fs mode
 * (lib/view/view_mke2fs.c) sizes the journal for the block count it
 * makes (doc/contract.md §6, or -J size=), sets lazy_journal before its last
 * flush, and says what finish() would say.  Nothing is opened after it.
 */
static int exec_lazy(struct mk_request *rq)
{
	char env[64], **v;
	int rc;

	/* a journal, as the -J size= of the second pass implied one */
	if (rq->jopts.size_mib <= 0 && fe_args_add(&rq->args, 'j', NULL))
		nomem();
	v = fe_args_argv(&rq->args, argv0);
	if (!v)
		nomem();
	snprintf(env, sizeof(env), "%lu:%d", rq->jopts.size_mib > 0 ?
		 (unsigned long)rq->jopts.size_mib : 0UL, rq->quiet);
	setenv("LJ_MKE2FS", env, 1);
	rc = lj_stock_exec_view(prog, v, "mke2fs");
	unsetenv("LJ_MKE2FS");
	fe_argv_free(v);
	return rc;
}

static int make_lazy(struct mk_request *rq)
{
	const char *why = fe_lazy_refusal(&rq->feat, &rq->jopts);
	struct mk_geometry g;
	blk64_t jblocks;
	unsigned long mib;
	char size[48];
	int rc;

	if (why)
		refuse(why);
	if (rq->jopts.size_mib == -2)
		refuse("bad journal size in -J size=");
	if (!rq->device)
		return run_stock(&rq->args);	/* stock prints the usage */
	/* stock mke2fs formats a file of that very name; every other tool,
	 * and the library we write the flag and the journal with, read it
	 * as IMAGE?offset=N: they would miss it, and might write IMAGE */
	if (strchr(rq->device, '?'))
		refuse("a device name with '?' is a file system inside a "
		       "larger file to the other tools (use -E offset=)");
	if (stock_target(rq, &rc))
		return rc;
	if (rq->dry_run || mk_guess_geometry(rq, &g))
		stock_geometry(rq, &g);
	jblocks = journal_blocks(rq, &g, &mib);
	if (!rq->band_bytes && !rq->dry_run)
		return exec_lazy(rq);
	if (rq->jopts.size_mib == FE_UNSET) {
		snprintf(size, sizeof(size), "size=%lu", mib);
		if (fe_args_add(&rq->args, 'J', size))
			nomem();
	}
	prepare_band(rq, g.blocksize);
	rc = run_stock(&rq->args);
	if (rc)
		return rc;
	if (rq->dry_run) {
		print_size(rq, jblocks, mib);
		return 0;
	}
	return finish(rq, mib);
}

/* -E smr_band= on a non-lazy format. */
static int make_aligned(struct mk_request *rq)
{
	struct mk_geometry g;
	int rc;

	if (!rq->device)
		return run_stock(&rq->args);
	stock_geometry(rq, &g);
	prepare_band(rq, g.blocksize);
	rc = run_stock(&rq->args);
	if (rc || rq->dry_run)
		return rc;
	align_journal(rq, g.blocksize);
	return 0;
}

int main(int argc, char **argv)
{
	struct mk_request rq;
	int rc;

	if (argc > 0)
		argv0 = argv[0];
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (fe_wants_version(argc, argv, MKE2FS_OPTS))
		fe_print_version();	/* then stock's lines */
	parse(argc, argv, &rq);
	if (rq.feat.lazy == FE_UNSET && !rq.band_bytes)
		rc = lj_stock_exec(prog, argv);		/* untouched */
	else if (rq.feat.lazy == 1)
		rc = make_lazy(&rq);
	else if (rq.band_bytes)
		rc = make_aligned(&rq);
	else
		rc = run_stock(&rq.args);  /* ^lazy_journal: the tokens out */
	fe_args_free(&rq.args);
	return rc;
}
