/*
 * mke2fs_plan.h --- our mke2fs's reading of its command line, shared by
 * the front-end (misc/mke2fs.c, the program misc/mke2fs-front) and the
 * view inside stock mke2fs (lib/view/view_mke2fs.c), which makes the
 * common lazy format without the front-end's own process: the request
 * (lazy parts taken out), the geometry stock will pick when the device
 * size alone decides it, whether that format can be made in one pass
 * with the command line edited in place.
 */
#ifndef MK_PLAN_H
#define MK_PLAN_H

#include <sys/stat.h>
#include "lazy_opts.h"
#include "mke2fs_opts.h"

struct mk_request {
	struct fe_args args;	/* the command line, lazy parts taken out */
	struct fe_features feat;
	struct fe_jopts jopts;
	const char *device;
	char devspec[4200];	/* device for libext2fs ("dev?offset=N") */
	unsigned long long band_bytes;	/* -E smr_band=, 0 = none */
	int band_bad;		/* -E smr_band= given, not a size */
	int lazy_journal_init;	/* -E lazy_journal_init given */
	int dry_run, quiet, version;
};

struct mk_geometry {
	blk64_t blocks;		/* N */
	unsigned int blocksize;
};

/*
 * Read argv into rq.  0; -1 when getopt(MKE2FS_OPTS) would refuse the
 * line (stock says why: hand it the untouched argv); ENOMEM.  Free with
 * fe_args_free(&rq->args) after 0.
 */
int mk_parse(int argc, char **argv, struct mk_request *rq);

/*
 * The geometry stock mke2fs will pick from the device size alone, when
 * the command line leaves it nothing else to go by; -1: ask stock.
 */
int mk_guess_geometry(const struct mk_request *rq, struct mk_geometry *g);

/*
 * Is the target stat says st (the device exists) one stock mke2fs
 * refuses before sizing anything -- a directory, or an empty file
 * without a size operand?  Then stock must say so.
 */
int mk_target_stock_refuses(const struct mk_request *rq,
			    const struct stat *st);

/*
 * Can stock mke2fs make this lazy format in one pass under the view with
 * nothing else to do: lazy_journal asked, no refusal, no -V, -n or
 * -E smr_band=, an existing target stock will format, the geometry known
 * from the device size (g) and a journal for it?  Everything else goes
 * to the front-end, which says why or does more.
 */
int mk_one_pass(const struct mk_request *rq, struct mk_geometry *g);

/*
 * The command line of a one-pass format, edited in place for stock
 * mke2fs: every -O list loses its lazy tokens, and each option cluster
 * that held one gains -j (a journal, as the front-end's -j or -J size=
 * asks; harmless with -J size=).  An -O argument left empty becomes -j.
 * argc cannot change, so every element keeps its place.  0 or ENOMEM
 * (argv untouched).
 */
int mk_argv_to_journal(int argc, char **argv);

#endif
