/*
 * e2fsck.c --- our e2fsck: the lazy part natively, the check by stock e2fsck.
 *
 * Without lazy_journal this is the stock e2fsck (exec, same arguments).
 * On a lazy file system:
 *   -n         check the current metadata through the jmap (readonly.c);
 *   -p, no -f  on a clean file system (superblock read through the jmap)
 *              print the stock "clean" line and write nothing;
 *   -E lazy_compact[=N]  rewrite the log to hold only live blocks;
 *   otherwise  scan the log as jbd2 recovery would, migrate the live blocks
 *              home and empty the log (lj_migrate_home, SPEC §2 order), and
 *              with -E journal_only stop there; else run the stock e2fsck
 *              with lazy_journal hidden from it, and restore the flag after
 *              (unless -E no_lazy_journal).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>

#include "lazy_journal.h"
#include "stock.h"
#include "readonly.h"
#include "version.h"

/* e2fsck exit codes */
#define FSCK_OK		0
#define FSCK_ERROR	8
#define FSCK_USAGE	16

/* Every option of stock e2fsck 1.47, so we know which take an argument. */
#define E2FSCK_OPTS	"panyrcC:B:dE:fvtFVM:b:I:j:P:l:L:N:SsDkz:"

static const char *prog = "e2fsck";

struct options {
	const char *device;
	int preen, yes, no, force;
	int progress_fd;	/* -C fd, or -1 */
	int journal_only;	/* -E journal_only */
	int lazy_off;		/* -E no_lazy_journal: leave the flag cleared */
	int compact;		/* -E lazy_compact[=N] */
	unsigned long compact_keep; /* N: keep blocks of the newest N txns */
	char **stock_argv;	/* the user's argv minus our -E words */
	char *owned[8];		/* strings of stock_argv we allocated */
	int nowned;
};

static void free_options(struct options *o)
{
	while (o->nowned)
		free(o->owned[--o->nowned]);
	free(o->stock_argv);
	o->stock_argv = NULL;
}

/* Keep s in stock_argv and remember to free it (NULL: out of memory). */
static char *own(struct options *o, char *s)
{
	if (!s || o->nowned == (int)(sizeof(o->owned) / sizeof(o->owned[0]))) {
		free(s);
		return NULL;
	}
	return o->owned[o->nowned++] = s;
}

/* Is word in the comma-separated list? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* -E lazy_compact or lazy_compact=N */
static void parse_compact(const char *list, struct options *o)
{
	const char *p = strstr(list, "lazy_compact");

	if (!p || (p != list && p[-1] != ','))
		return;
	o->compact = 1;
	if (p[12] == '=')
		o->compact_keep = strtoul(p + 13, NULL, 0);
}

/* list without our own words (stock does not know them) */
static char *strip_ours(const char *list)
{
	char *out = malloc(strlen(list) + 1), *copy = strdup(list), *tok, *save;

	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	*out = '\0';
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "no_lazy_journal") ||
		    !strncmp(tok, "lazy_compact", 12))
			continue;
		if (*out)
			strcat(out, ",");
		strcat(out, tok);
	}
	free(copy);
	return out;
}

/*
 * Parse the user's options with stock e2fsck's option string.  getopt
 * permutes the array it is given, so it works on a copy; its optarg
 * pointers point into the original strings, which is how -E values are
 * found again when the argv for stock is rebuilt.
 */
static int parse_options(int argc, char **argv, struct options *o)
{
	char **copy = calloc((size_t)argc + 1, sizeof(char *));
	const char *evals[16];
	int nevals = 0, c, i, out = 0;

	memset(o, 0, sizeof(*o));
	o->progress_fd = -1;
	o->stock_argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!copy || !o->stock_argv)
		return -1;
	memcpy(copy, argv, (size_t)argc * sizeof(char *));
	opterr = 0;
	while ((c = getopt(argc, copy, E2FSCK_OPTS)) != EOF) {
		switch (c) {
		case 'p': case 'a': o->preen = 1; break;
		case 'y': o->yes = 1; break;
		case 'n': o->no = 1; break;
		case 'f': o->force = 1; break;
		case 'C': o->progress_fd = atoi(optarg); break;
		case 'E':
			if (has_word(optarg, "journal_only"))
				o->journal_only = 1;
			if (has_word(optarg, "no_lazy_journal"))
				o->lazy_off = 1;
			parse_compact(optarg, o);
			if (nevals < 16)
				evals[nevals++] = optarg;
			break;
		default: break;
		}
	}
	if (optind == argc - 1)
		o->device = copy[optind];
	free(copy);

	for (i = 0; i < argc; i++) {
		char *arg = argv[i], *val = NULL, *keep;
		int k;

		for (k = 0; k < nevals; k++)
			if (evals[k] >= arg && evals[k] < arg + strlen(arg) + 1)
				val = (char *)evals[k];
		if (!val || !(has_word(val, "no_lazy_journal") ||
			      strstr(val, "lazy_compact"))) {
			o->stock_argv[out++] = arg;
			continue;
		}
		keep = own(o, strip_ours(val));
		if (!keep)
			return -1;
		if (*keep && val == arg) {		/* "-E" "value" */
			o->stock_argv[out++] = keep;
		} else if (*keep) {			/* "-Evalue" */
			char *s = own(o, malloc((size_t)(val - arg) +
						 strlen(keep) + 1));

			if (!s)
				return -1;
			memcpy(s, arg, (size_t)(val - arg));
			strcpy(s + (val - arg), keep);
			o->stock_argv[out++] = s;
		} else if (val == arg) {		/* drop "-E" too */
			if (out && !strcmp(o->stock_argv[out - 1], "-E"))
				out--;
		} else if (val - arg > 2) {		/* "-fE..." keeps "-f" */
			char *s = own(o, strndup(arg, (size_t)(val - arg - 1)));

			if (!s)
				return -1;
			o->stock_argv[out++] = s;
		}
	}
	o->stock_argv[out] = NULL;
	return 0;
}

static void banner(void)
{
	const char *ver, *date;

	ext2fs_get_library_version(&ver, &date);
	fprintf(stderr, "%s %s (%s)\n", prog, ver, date);
}

/* -C: e2fsck's progress protocol on fd > 0, a percentage on the tty for 0 */
static void progress(void *arg, blk64_t done, blk64_t total)
{
	const struct options *o = arg;

	if (o->progress_fd > 0) {
		dprintf(o->progress_fd, "%d %llu %llu %s\n", 0,
			(unsigned long long)done, (unsigned long long)total,
			o->device);
	} else if (o->progress_fd == 0) {
		printf("\r%s: migrating journaled metadata: %3.0f%%", o->device,
		       total ? 100.0 * done / total : 100.0);
		if (done == total)
			putchar('\n');
		fflush(stdout);
	}
}

/* The stock "clean" verdict of preen mode, from the current superblock. */
static int is_clean(struct ext2_super_block *sb)
{
	time_t now = time(NULL);

	if (!(sb->s_state & EXT2_VALID_FS) || (sb->s_state & EXT2_ERROR_FS))
		return 0;
	if (sb->s_max_mnt_count > 0 &&
	    sb->s_mnt_count >= (unsigned)sb->s_max_mnt_count)
		return 0;
	if (sb->s_checkinterval &&
	    (time_t)sb->s_lastcheck + (time_t)sb->s_checkinterval <= now)
		return 0;
	if (sb->s_last_orphan || ext2fs_has_feature_orphan_present(sb))
		return 0;
	return 1;
}

/* -p without -f: a clean lazy file system is left alone. */
static int preen_clean(const struct options *o, ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	lj_lazy_state *st;

	/* A log we cannot read leaves the current metadata unknown. */
	if (lj_lazy_get_state(fs->io, &st) || st->journal_err || !is_clean(sb))
		return 0;
	banner();
	printf("%s: clean, %u/%u files, %llu/%llu blocks\n", o->device,
	       sb->s_inodes_count - sb->s_free_inodes_count,
	       sb->s_inodes_count,
	       (unsigned long long)(ext2fs_blocks_count(sb) -
				    ext2fs_free_blocks_count(sb)),
	       (unsigned long long)ext2fs_blocks_count(sb));
	return 1;
}

/* Say where and why the log ends when that is not the ordinary end. */
static void report_log(const struct options *o, const lj_lazy_state *st)
{
	const lj_log *log = st->jmap->log;
	char why[200];

	if (lj_log_clean_end(log))
		return;
	lj_log_describe_end(log, why, sizeof(why));
	printf("%s: journal: %s\n", o->device, why);
	if (log->refused)
		printf("%s: WARNING: stock journal recovery would refuse the "
		       "whole log; this lazy file system keeps the %zu "
		       "transactions before the bad one and leaves the rest "
		       "to the full check\n", o->device, log->ntxn);
	if (st->jmap->bad_csums)
		printf("%s: journal: %lu logged block(s) skipped for a bad "
		       "checksum (first: %s)\n", o->device, st->jmap->bad_csums,
		       st->jmap->bad_csum_msg);
}

static int migrate(struct options *o)
{
	struct lj_migrate_stats ms;
	lj_lazy_state *st;
	ext2_filsys fs;
	errcode_t err;
	size_t live;

	err = lj_open_fs(o->device, 0, &fs);
	if (err) {
		com_err(prog, err, "while trying to open %s", o->device);
		return FSCK_ERROR;
	}
	lj_lazy_get_state(fs->io, &st);
	if (st->journal_err) {
		com_err(prog, st->journal_err, "while reading the journal of %s",
			o->device);
		ext2fs_close_free(&fs);
		return -1;	/* the stock check decides what to do */
	}
	report_log(o, st);
	live = st->jmap->n;
	ext2fs_close_free(&fs);
	if (live)
		printf("%s: migrating %zu journaled metadata blocks home\n",
		       o->device, live);
	fflush(stdout);
	err = lj_migrate_home(o->device, o->progress_fd >= 0 ? progress : NULL,
			      o, &ms);
	if (err) {
		com_err(prog, err, "while migrating the journal of %s",
			o->device);
		return FSCK_ERROR;
	}
	return FSCK_OK;
}

/*
 * -E lazy_compact[=N]: rewrite the log to hold only live blocks (those not
 * written in the newest N transactions go home); the log stays in use.
 */
static int compact(struct options *o)
{
	struct lj_compact_stats cs;
	errcode_t err;

	banner();
	err = lj_compact(o->device, (uint32_t)o->compact_keep, &cs);
	if (err) {
		com_err(prog, err, "while compacting the journal of %s",
			o->device);
		return FSCK_ERROR;
	}
	printf("%s: journal compacted: %llu blocks kept, %llu sent home, "
	       "log %u -> %u blocks (%u freed)\n", o->device,
	       (unsigned long long)cs.kept, (unsigned long long)cs.sent_home,
	       cs.blocks_before, cs.blocks_after,
	       cs.blocks_before > cs.blocks_after ?
	       cs.blocks_before - cs.blocks_after : 0);
	return FSCK_OK;
}

/* Run stock e2fsck with lazy_journal hidden; restore it afterwards. */
static int stock_check(struct options *o)
{
	errcode_t err;
	int status;

	err = lj_set_lazy_flag(o->device, 0);
	if (err) {
		com_err(prog, err, "while hiding lazy_journal on %s", o->device);
		return FSCK_ERROR;
	}
	status = lj_stock_run("e2fsck", o->stock_argv);
	if (!o->lazy_off) {
		err = lj_set_lazy_flag(o->device, 1);
		if (err) {
			com_err(prog, err, "while restoring lazy_journal on %s",
				o->device);
			status |= FSCK_ERROR;
		}
	}
	return status;
}

/* Home superblock says lazy?  (Anything odd: let stock e2fsck handle it.) */
static int home_is_lazy(const char *device)
{
	ext2_filsys fs;
	int lazy;

	if (lj_open_super(device, EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs))
		return 0;
	lazy = lj_fs_is_lazy(fs->super);
	ext2fs_close_free(&fs);
	return lazy;
}

static int is_mounted(const char *device)
{
	int flags = 0;

	return !ext2fs_check_if_mounted(device, &flags) &&
	       (flags & EXT2_MF_MOUNTED);
}

/* Everything main does on a lazy file system; returns the exit status. */
static int fsck_lazy(struct options *o, int argc, char **argv)
{
	ext2_filsys fs;
	int status;

	if (o->no)
		return lj_fsck_readonly(o->device, argc, argv);
	if (is_mounted(o->device)) {
		banner();
		fprintf(stderr, "%s is mounted.\n%s: Cannot continue, "
			"aborting.\n\n", o->device, prog);
		return FSCK_ERROR;
	}
	if (!o->preen && !o->yes && (!isatty(0) || !isatty(1))) {
		banner();
		fprintf(stderr, "%s: need terminal for interactive repairs\n",
			prog);
		return FSCK_ERROR;
	}
	if (o->preen && !o->force && !o->journal_only &&
	    !lj_open_fs(o->device, 0, &fs)) {
		int clean = preen_clean(o, fs);

		ext2fs_close_free(&fs);
		if (clean)
			return FSCK_OK;
	}

	if (o->compact)
		return compact(o);
	if (o->journal_only)	/* stock is not run: its banner is ours */
		banner();
	status = migrate(o);
	if (o->journal_only) {
		if (status < 0)
			status = FSCK_ERROR;
		if (status == FSCK_OK && o->lazy_off &&
		    lj_set_lazy_flag(o->device, 0))
			status = FSCK_ERROR;
		return status;
	}
	if (status > 0)
		return status;
	return stock_check(o);
}

int main(int argc, char **argv)
{
	struct options o;
	int status;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (lj_wants_version(argc, argv, E2FSCK_OPTS))
		lj_print_version();	/* then stock's lines */
	if (parse_options(argc, argv, &o)) {
		com_err(prog, EXT2_ET_NO_MEMORY, "while parsing options");
		return FSCK_ERROR;
	}
	if (!o.device || !home_is_lazy(o.device))
		return lj_stock_exec("e2fsck", argv);
	status = fsck_lazy(&o, argc, argv);
	free_options(&o);
	remove_error_table(&et_ljrn_error_table);
	remove_error_table(&et_ext2_error_table);
	return status;
}
