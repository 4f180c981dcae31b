/*
 * fsck_opts.h --- what the parts of our e2fsck share: the exit codes, the
 * parsed command line, and the jobs of each file:
 *
 *   e2fsck.c     main: stock e2fsck, a refusal, or the lazy run
 *   fsck_opts.c  the command line (stock's option string) and our -E words
 *   lazy_run.c   the lazy run of the writing modes (migrate, compact, the
 *                policy for a log that cannot be read, stock with the flag
 *                hidden)
 *   readonly.c   -n: the stock check under the migrated view
 *   log_report.c what the log looks like, in the words of every mode
 */
#ifndef FE_FSCK_OPTS_H
#define FE_FSCK_OPTS_H

#include "lazy_journal.h"

/* e2fsck exit codes */
#define FSCK_OK		0
#define FSCK_NONDESTRUCT 1
#define FSCK_UNCORRECTED 4
#define FSCK_ERROR	8
#define FSCK_USAGE	16

/* Every option of stock e2fsck 1.47, so we know which take an argument. */
#define E2FSCK_OPTS	"panyrcC:B:dE:fvtFVM:b:I:j:P:l:L:N:SsDkz:"

extern const char fe_prog[];	/* "e2fsck" */

struct fe_fsck_options {
	const char *device;	/* as given: opens it (IMAGE?offset=N too) */
	char *name;		/* as stock names it: without io options */
	int preen, yes, no, force;
	int progress_fd;	/* -C fd, or -1 */
	int journal_only;	/* -E journal_only */
	int lazy_off;		/* -E no_lazy_journal: leave the flag cleared */
	int compact;		/* -E lazy_compact[=N] */
	unsigned long compact_keep; /* N: keep blocks of the newest N txns */
	const char *save_path;	/* -E lazy_save=PATH (NULL: default name) */
	char save_buf[4096];
	const char **evals;	/* every -E list, as given (nevals) */
	int nevals;
	const char *device_arg;	/* the device operand's string in argv */
	char **stock_argv;	/* the user's argv minus our -E words */
	char **owned;		/* strings of stock_argv we allocated */
	int nowned;
};

/* fsck_opts.c */
/* Parse argv with stock's option string; -1 when out of memory. */
int fe_fsck_parse(int argc, char **argv, struct fe_fsck_options *o);
/* Our -E words valid and consistent?  0, or FSCK_USAGE after saying why. */
int fe_fsck_check_lazy_words(const struct fe_fsck_options *o);
/* A word of ours on the line (journal_only is stock's too), or NULL. */
const char *fe_fsck_lazy_word_given(const struct fe_fsck_options *o);
void fe_fsck_free(struct fe_fsck_options *o);

/* lazy_run.c: everything on a lazy file system; the exit status. */
int fe_fsck_lazy(struct fe_fsck_options *o, char **argv);

/* readonly.c: -n.  Report the log, then stock e2fsck under the migrated
 * view (exec: returns only when it cannot run, 8); a lazy fs whose log
 * cannot be read: stock on the home copies, exit status | 4. */
int fe_fsck_readonly(const struct fe_fsck_options *o, char **argv);
/* Does stock e2fsck's parser accept o's command line?  -1: yes; else
 * it has said why, and this is its exit status (lj_stock_parse_probe). */
int fe_fsck_parse_probe(const struct fe_fsck_options *o);

/* log_report.c: where and why the log ends when that is not the ordinary
 * end, the blocks skipped for bad checksums; writing (-y, journal_only):
 * also every transaction a salvaged log drops. */
void fe_report_log(const char *device, const lj_lazy_state *st, int writing);

#endif
