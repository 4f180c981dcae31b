/*
 * lazy_opts.h --- what misc/mke2fs and misc/tune2fs share: command-line
 * scanning (stock getopt syntax), -O feature lists with lazy_journal taken
 * out, -J and -E sub-options (the lists themselves: subopt.h), and the
 * refusals.  Sizing and making the journal are the library's
 * (journal_size.c, journal_create.c).
 */
#ifndef FE_LAZY_OPTS_H
#define FE_LAZY_OPTS_H

#include <stdio.h>
#include <ext2fs/ext2fs.h>
#include "subopt.h"

#define FE_EXIT_USAGE	1	/* mke2fs/tune2fs: bad usage or refusal */

/* ------------------------------------------------------------------ */
/* Command line: stock getopt syntax, kept in order                    */

struct fe_arg {
	int opt;		/* option letter, 0 for an operand */
	char *val;		/* its argument / the operand; NULL for a flag */
	int at;			/* argv index of its option cluster or operand,
				   -1 when added */
	int detached;		/* the value is argv[at + 1] */
};

struct fe_args {
	struct fe_arg *a;
	size_t n, cap;
};

/*
 * Split argv as getopt(optstring) would (clusters, attached arguments,
 * "--", operands anywhere).  Returns 0, or -1 when the line is not one
 * the stock tool would accept (unknown option, missing argument): the
 * caller then hands the untouched argv to the stock tool.
 */
int fe_args_parse(int argc, char **argv, const char *optstring,
		  struct fe_args *out);
void fe_args_free(struct fe_args *args);
int fe_args_add(struct fe_args *args, int opt, const char *val);
size_t fe_args_count(const struct fe_args *args, int opt);
/* Remove every occurrence of option opt. */
void fe_args_remove(struct fe_args *args, int opt);
/* The nth operand (0-based) or NULL. */
const char *fe_args_operand(const struct fe_args *args, size_t nth);
/* Does the line hold any option other than those in keep? */
int fe_args_has_other(const struct fe_args *args, const char *keep);
/* NULL-terminated argv (argv[0] = argv0) for the stock tool. */
char **fe_args_argv(const struct fe_args *args, const char *argv0);
void fe_argv_free(char **v);

/* ------------------------------------------------------------------ */
/* -O feature lists                                                    */

#define FE_UNSET	(-1)

struct fe_features {
	int lazy;		/* FE_UNSET, 0 (^lazy_journal), 1 */
	int has_journal;	/* as given in the lists, last wins */
	int fast_commit;
	int cleared;		/* "none"/"clear" seen */
};

void fe_features_init(struct fe_features *f);
/* list without its lazy tokens, noted in f (malloc'd; NULL on ENOMEM). */
char *fe_features_filter(const char *list, struct fe_features *f);
/*
 * Take lazy_journal / ^lazy_journal (and FEATURE_C13, its raw e2p name)
 * out of every -O list, in order (last wins), and note what the lists say
 * about has_journal and fast_commit.  A list left empty loses its -O.
 * Returns 0 or ENOMEM.
 */
errcode_t fe_args_take_lazy_features(struct fe_args *args,
				     struct fe_features *f);

/* ------------------------------------------------------------------ */
/* Sub-option lists (-J, -E): "a=1,b,c=2"                              */

/* (one list: subopt.h) */
/*
 * For every argument of option opt: take key out (value of the last one
 * into val), dropping arguments left empty.  Returns 1 if key was found,
 * 0 if not, -1 on ENOMEM.
 */
int fe_args_take_subopt(struct fe_args *args, int opt, const char *key,
			char *val, size_t len);
/* Append ",item" to the last argument of opt (or add "-opt item"). */
int fe_args_append_subopt(struct fe_args *args, int opt, const char *item);

struct fe_jopts {
	long size_mib;		/* size=, FE_UNSET if not given, -2 if bad */
	int device;		/* device= given */
	int fast_commit;	/* fast_commit_size= given */
	char location[64];	/* location= (last), "" if not given */
};
/* Scan every -J argument of args. */
void fe_jopts_scan(const struct fe_args *args, struct fe_jopts *j);

/*
 * -J location= as the journal's first block: a block number, or a size
 * with a k/M/G/T suffix (bytes into the file system).  ~0 when not given
 * (stock placement: the middle).  -1 when it does not parse.
 */
int fe_journal_goal(const struct fe_jopts *j, unsigned int bs, blk64_t *goal);

/* "256M", "1g", "4096", "64k": bytes (binary suffixes k M G T). */
int fe_parse_size(const char *s, unsigned long long *bytes);

/* ------------------------------------------------------------------ */
/* The refusals                                                        */

/* Why a lazy request with these options is refused, or NULL. */
const char *fe_lazy_refusal(const struct fe_features *f,
			    const struct fe_jopts *j);
/* Why the file system fs cannot become lazy, or NULL. */
const char *fe_fs_refusal(ext2_filsys fs, const struct fe_features *f);

#define fe_msg_too_small lj_msg_too_small	/* lazy_journal.h */

#endif
