/*
 * mke2fs_plan.c --- our mke2fs's reading of its command line
 * (mke2fs_plan.h), for the front-end and for the view in stock mke2fs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "mke2fs_plan.h"

/* -E: take out smr_band=, note lazy_journal_init and offset=. */
static int scan_extended(struct mk_request *rq)
{
	char val[64];
	size_t i;
	int r = fe_args_take_subopt(&rq->args, 'E', "smr_band", val,
				    sizeof(val));

	if (r < 0)
		return ENOMEM;
	if (r > 0 && (fe_parse_size(val, &rq->band_bytes) || !rq->band_bytes))
		rq->band_bad = 1;
	for (i = 0; i < rq->args.n; i++) {
		const char *list = rq->args.a[i].val;

		if (rq->args.a[i].opt != 'E' && rq->args.a[i].opt != 'R')
			continue;
		if (fe_subopt_get(list, "lazy_journal_init", val, sizeof(val)))
			rq->lazy_journal_init = !*val || atoi(val) != 0;
		if (fe_subopt_get(list, "offset", val, sizeof(val)))
			snprintf(rq->devspec, sizeof(rq->devspec),
				 "%s?offset=%s", rq->device, val);
	}
	return 0;
}

int mk_parse(int argc, char **argv, struct mk_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	fe_features_init(&rq->feat);
	if (fe_args_parse(argc, argv, MKE2FS_OPTS, &rq->args) < 0)
		return -1;
	if (fe_args_take_lazy_features(&rq->args, &rq->feat)) {
		fe_args_free(&rq->args);
		return ENOMEM;
	}
	rq->device = fe_args_operand(&rq->args, 0);
	if (rq->device)
		snprintf(rq->devspec, sizeof(rq->devspec), "%s", rq->device);
	if (scan_extended(rq)) {
		fe_args_free(&rq->args);
		return ENOMEM;
	}
	fe_jopts_scan(&rq->args, &rq->jopts);
	rq->dry_run = fe_args_count(&rq->args, 'n') > 0;
	rq->quiet = fe_args_count(&rq->args, 'q') > 0;
	rq->version = fe_args_count(&rq->args, 'V') > 0;
	return 0;
}

/*
 * The block size of -b, or the one the stock mke2fs.conf gives ("small"
 * and "floppy" below 512 MiB: 1 KiB; otherwise 4 KiB).  It saves stock's
 * dry run, and only has to be right most of the time: the front-end
 * checks the file system made and remakes the journal when N turned out
 * different, and the view sizes the journal for the N stock makes.
 */
int mk_guess_geometry(const struct mk_request *rq, struct mk_geometry *g)
{
	blk64_t bytes;
	size_t i;

	if (getenv("MKE2FS_CONFIG") || rq->band_bytes ||
	    fe_args_count(&rq->args, 'T') || fe_args_operand(&rq->args, 1) ||
	    strcmp(rq->devspec, rq->device) ||		/* -E offset= */
	    ext2fs_get_device_size2(rq->device, 1, &bytes))
		return -1;
	g->blocksize = bytes < (512ULL << 20) ? 1024 : 4096;
	for (i = 0; i < rq->args.n; i++) {
		const char *b = rq->args.a[i].val;
		char *end;
		unsigned long v;

		if (rq->args.a[i].opt != 'b')
			continue;
		v = strtoul(b, &end, 10);
		if (*end || v < 1024 || v > 65536 || (v & (v - 1)))
			return -1;	/* suffixes, minimums: stock decides */
		g->blocksize = (unsigned int)v;
	}
	g->blocks = bytes / g->blocksize;
	return 0;
}

int mk_target_stock_refuses(const struct mk_request *rq,
			    const struct stat *st)
{
	return S_ISDIR(st->st_mode) ||
	       (S_ISREG(st->st_mode) && st->st_size == 0 &&
		!fe_args_operand(&rq->args, 1));
}

int mk_one_pass(const struct mk_request *rq, struct mk_geometry *g)
{
	struct stat st;
	unsigned long mib;

	return rq->feat.lazy == 1 && !rq->version && !rq->dry_run &&
	       !rq->band_bytes && !rq->band_bad &&
	       !fe_lazy_refusal(&rq->feat, &rq->jopts) &&
	       rq->jopts.size_mib != -2 && rq->device &&
	       !strchr(rq->device, '?') &&
	       !strcmp(rq->devspec, rq->device) &&
	       stat(rq->device, &st) == 0 &&
	       !mk_target_stock_refuses(rq, &st) &&
	       mk_guess_geometry(rq, g) == 0 &&
	       lj_lazy_journal_size(g->blocks, g->blocksize,
				    rq->jopts.size_mib > 0 ?
				    (unsigned long)rq->jopts.size_mib : 0,
				    &mib) != 0;
}

/*
 * The option cluster whose 'O' is at cluster[o], with -j before the 'O'
 * and the list rest after it (attached) or in the next element
 * (detached); no 'O' when rest is empty.  malloc'd.
 */
static char *edited_cluster(const char *cluster, size_t o, const char *rest,
			    int detached)
{
	char *c = malloc(o + strlen(rest) + 3);

	if (!c)
		return NULL;
	memcpy(c, cluster, o);
	strcpy(c + o, "j");
	if (*rest)
		strcat(strcat(c, "O"), detached ? "" : rest);
	return c;
}

int mk_argv_to_journal(int argc, char **argv)
{
	struct fe_args raw;
	struct fe_features f;
	char **next = calloc((size_t)argc, sizeof(*next));
	size_t i;
	int k, err = 0;

	if (!next)
		return ENOMEM;
	if (fe_args_parse(argc, argv, MKE2FS_OPTS, &raw)) {
		free(next);
		return EINVAL;
	}
	fe_features_init(&f);
	for (i = 0; i < raw.n && !err; i++) {
		const struct fe_arg *a = &raw.a[i];
		const char *cluster = argv[a->at];
		size_t o;	/* cluster[o] is the 'O' */
		char *rest;

		if (a->opt != 'O')
			continue;
		o = strlen(cluster) - 1 - (a->detached ? 0 : strlen(a->val));
		rest = fe_features_filter(a->val, &f);
		if (!rest) {
			err = ENOMEM;
			break;
		}
		if (strcmp(rest, a->val)) {
			next[a->at] = edited_cluster(cluster, o, rest,
						     a->detached);
			if (a->detached)
				next[a->at + 1] = strdup(*rest ? rest : "-j");
			if (!next[a->at] || (a->detached && !next[a->at + 1]))
				err = ENOMEM;
		}
		free(rest);
	}
	fe_args_free(&raw);
	for (k = 0; k < argc; k++) {
		if (next[k] && !err)
			argv[k] = next[k];
		else
			free(next[k]);
	}
	free(next);
	return err;
}
