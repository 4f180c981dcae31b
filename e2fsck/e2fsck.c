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
#include <errno.h>
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
#define FSCK_NONDESTRUCT 1
#define FSCK_UNCORRECTED 4
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
	const char *save_path;	/* -E lazy_save=PATH (NULL: default name) */
	char save_buf[4096];
	const char *evals[16];	/* every -E list, as given */
	int nevals;
	const char *device_arg;	/* the device operand's string in argv */
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

/* -E lazy_save=PATH (the path ends at the next comma) */
static void parse_save(const char *list, struct options *o)
{
	const char *p = strstr(list, "lazy_save=");
	size_t n;

	if (!p || (p != list && p[-1] != ','))
		return;
	p += 10;
	n = strcspn(p, ",");
	if (n >= sizeof(o->save_buf))
		n = sizeof(o->save_buf) - 1;
	memcpy(o->save_buf, p, n);
	o->save_buf[n] = '\0';
	o->save_path = o->save_buf;
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
		    !strncmp(tok, "lazy_compact", 12) ||
		    !strncmp(tok, "lazy_save=", 10))
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
	const char **evals = o->evals;
	int c, i, out = 0;

	memset(o, 0, sizeof(*o));
	evals = o->evals;
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
			parse_save(optarg, o);
			if (o->nevals < 16)
				evals[o->nevals++] = optarg;
			break;
		default: break;
		}
	}
	if (optind == argc - 1)
		o->device = o->device_arg = copy[optind];
	free(copy);

	for (i = 0; i < argc; i++) {
		char *arg = argv[i], *val = NULL, *keep;
		int k;

		for (k = 0; k < o->nevals; k++)
			if (evals[k] >= arg && evals[k] < arg + strlen(arg) + 1)
				val = (char *)evals[k];
		if (!val || !(has_word(val, "no_lazy_journal") ||
			      strstr(val, "lazy_compact") ||
			      strstr(val, "lazy_save="))) {
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

/* ------------------------------------------------------------------ */
/*
 * Our -E sub-options, checked before anything is opened: a word of ours
 * that is unknown, a malformed value, or words that contradict each other
 * get a message and the lazy options' usage, exit 16 (FSCK_USAGE).
 * Stock's own words are left to stock's parser (lj_stock_parse_probe).
 */
static const char lazy_usage[] =
	"\nLazy journal extended options (see lazy_journal(8)):\n"
	"\tjournal_only\t\tmigrate the log home, empty it, stop\n"
	"\tno_lazy_journal\t\tand clear lazy_journal\n"
	"\tlazy_compact[=<N>]\trewrite the log with only its live blocks\n"
	"\t\t\t\t(those of the newest N transactions)\n"
	"\tlazy_save=<path>\tsave the raw journal there before writing on\n"
	"\t\t\t\ta log that cannot be read completely\n";

/* Is tok a lazy word?  (Stock knows no word starting with "lazy_".) */
static int lazy_word(const char *tok, size_t len)
{
	return (len >= 5 && !strncmp(tok, "lazy_", 5)) ||
	       (len == 15 && !strncmp(tok, "no_lazy_journal", 15));
}

/* lazy_compact's N: decimal digits, at most 2^32 - 1 transactions. */
static int compact_value_ok(const char *v, size_t len)
{
	unsigned long long n = 0;
	size_t i;

	if (!len || len > 10)
		return 0;
	for (i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return 0;
		n = n * 10 + (unsigned)(v[i] - '0');
	}
	return n <= 0xFFFFFFFFULL;
}

/* One word of a -E list; a message on stderr and 0 if it is bad. */
static int lazy_token_ok(const char *tok, size_t len)
{
	if (!lazy_word(tok, len))
		return 1;
	if (len == 15 && !strncmp(tok, "no_lazy_journal", 15))
		return 1;
	if (len > 10 && !strncmp(tok, "lazy_save=", 10))
		return 1;
	if (len >= 12 && !strncmp(tok, "lazy_compact", 12)) {
		if (len == 12)
			return 1;
		if (tok[12] == '=') {
			if (compact_value_ok(tok + 13, len - 13))
				return 1;
			fprintf(stderr, "%s: invalid lazy_compact value '%.*s' "
				"(a number of transactions)\n", prog,
				(int)(len - 13), tok + 13);
			return 0;
		}
	}
	fprintf(stderr, "%s: unknown lazy extended option: %.*s\n", prog,
		(int)len, tok);
	return 0;
}

/* 0, or FSCK_USAGE after saying why. */
static int check_lazy_options(const struct options *o)
{
	const char *conflict = NULL;
	int i, bad = 0;

	for (i = 0; i < o->nevals; i++) {
		const char *p = o->evals[i];

		while (*p) {
			size_t len = strcspn(p, ",");

			if (len && !lazy_token_ok(p, len))
				bad = 1;
			p += len;
			p += *p == ',';
		}
	}
	if (!bad && o->compact) {
		if (o->journal_only)
			conflict = "lazy_compact and journal_only";
		else if (o->lazy_off)
			conflict = "lazy_compact and no_lazy_journal";
		else if (o->no)
			conflict = "-E lazy_compact (writes) and -n";
	}
	if (!bad && o->lazy_off && o->no)
		conflict = "-E no_lazy_journal (writes) and -n";
	if (conflict)
		fprintf(stderr, "%s: %s cannot be used together\n", prog,
			conflict);
	if (!bad && !conflict)
		return 0;
	fputs(lazy_usage, stderr);
	return FSCK_USAGE;
}

/* Any word of ours on the line (journal_only is stock's too)? */
static const char *lazy_option_given(const struct options *o)
{
	if (o->compact)
		return "lazy_compact";
	if (o->lazy_off)
		return "no_lazy_journal";
	return NULL;
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

/*
 * SPEC §2 "Salvage on a lazy file system", for a log that cannot be read
 * completely: -p writes nothing (exit 4); -y, interactive and journal_only
 * first save the raw journal to a file, then migrate what is readable and
 * list what is dropped.  Returns -1 to go on, else an exit status.
 */
static int incomplete_log(struct options *o, int *corrected)
{
	char why[400], path[4200];
	lj_lazy_state *st;
	ext2_filsys fs;
	errcode_t err;
	int unreadable;

	if (lj_open_fs(o->device, 0, &fs))
		return -1;	/* migrate() says why */
	if (lj_lazy_get_state(fs->io, &st) ||
	    !lj_log_incomplete(st, why, sizeof(why))) {
		ext2fs_close_free(&fs);
		return -1;
	}
	if (o->preen) {
		printf("%s: lazy journal: %s: UNEXPECTED INCONSISTENCY; RUN "
		       "fsck MANUALLY.\n", o->device, why);
		ext2fs_close_free(&fs);
		return FSCK_UNCORRECTED;
	}
	if (o->save_path) {
		snprintf(path, sizeof(path), "%s", o->save_path);
	} else {
		const char *base = strrchr(o->device, '/');
		const unsigned char *u = fs->super->s_uuid;
		char uuid[40];
		int i, n = 0;

		for (i = 0; i < 16; i++)
			n += snprintf(uuid + n, sizeof(uuid) - n, "%s%02x",
				      (i == 4 || i == 6 || i == 8 || i == 10) ?
				      "-" : "", u[i]);
		snprintf(path, sizeof(path), "e2fsck-lazy-%s-%s.journal",
			 base ? base + 1 : o->device, uuid);
	}
	printf("%s: lazy journal: %s\n", o->device, why);
	err = lj_journal_save(st, fs, path);
	if (!o->save_path) {	/* an earlier save is never overwritten */
		size_t n = strlen(path) - strlen(".journal");
		int i;

		for (i = 1; err == EEXIST && i < 1000; i++) {
			snprintf(path + n, sizeof(path) - n, "-%d.journal", i);
			err = lj_journal_save(st, fs, path);
		}
	}
	unreadable = st->journal_err != 0;	/* st goes with fs */
	ext2fs_close_free(&fs);
	if (err) {
		com_err(prog, err, "while saving the journal of %s to %s; "
			"nothing written%s", o->device, path,
			err == EEXIST || err == EACCES || err == ENOSPC ||
			err == EROFS || err == ENOENT ?
			" (-E lazy_save=PATH names another file)" : "");
		return FSCK_ERROR;
	}
	printf("%s: raw journal saved to %s\n", o->device, path);
	*corrected = 1 | (unreadable ? 2 : 0);
	return -1;
}

/* Every fs block of t that is (revoked) or is not (!revoked) a revoke. */
static void print_blocks(const lj_dropped *d, const struct lj_dropped_txn *t,
			 int revoked, const char *what)
{
	const char *sep = what;
	size_t i;

	for (i = t->block_first; i < t->block_first + t->nblocks; i++) {
		if (d->blocks[i].revoked != revoked)
			continue;
		printf("%s%llu", sep, (unsigned long long)d->blocks[i].home);
		sep = " ";
	}
}

/* One line per transaction the salvage leaves out: tid, journal blocks,
 * the fs blocks it logs and revokes (as stock logdump lists them). */
static void report_dropped(const struct options *o, const lj_log *log)
{
	lj_dropped *d;
	errcode_t err = lj_log_dropped(log, &d);
	size_t i;

	if (err) {
		com_err(prog, err, "while listing the dropped transactions of "
			"%s", o->device);
		return;
	}
	for (i = 0; i < d->ntxn; i++) {
		const struct lj_dropped_txn *t = &d->txn[i];
		size_t k, nrev = 0;

		for (k = t->block_first; k < t->block_first + t->nblocks; k++)
			nrev += d->blocks[k].revoked;
		printf("%s: dropped transaction %u (journal blocks %u-%u%s):",
		       o->device, t->tid, t->first_block, t->last_block,
		       t->committed ? "" : ", no commit block");
		if (t->nblocks > nrev)
			print_blocks(d, t, 0, " logged ");
		if (t->nblocks > nrev && nrev)
			putchar(';');
		if (nrev)
			print_blocks(d, t, 1, " revoked ");
		if (!t->nblocks)
			fputs(" no blocks", stdout);
		putchar('\n');
	}
	lj_dropped_free(d);
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
		       "to the full check\n%s: dropped: transaction %u and "
		       "every later one, from journal block %u on\n",
		       o->device, log->ntxn, o->device, log->end_tid,
		       log->end_block);
	if (log->refused)
		report_dropped(o, log);
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
	lj_lazy_state *st;
	ext2_filsys fs;
	size_t ntxn = 0;
	errcode_t err;

	banner();
	err = lj_open_fs(o->device, 0, &fs);
	if (!err) {
		err = lj_lazy_get_state(fs->io, &st);
		if (!err)
			err = st->journal_err;
		if (!err)
			ntxn = st->jmap->log->ntxn;
		ext2fs_close_free(&fs);
	}
	if (err) {
		com_err(prog, err, "while reading the journal of %s", o->device);
		return FSCK_ERROR;
	}
	if (!ntxn) {
		printf("%s: journal log is empty: nothing to compact\n",
		       o->device);
		return FSCK_OK;
	}
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

/*
 * Stock e2fsck cleared a journal we could not read and made a new one of
 * its own default size: give it the lazy size (SPEC §3), as mke2fs and
 * tune2fs -O lazy_journal would.  The new log is empty.
 */
static void lazy_size_journal(struct options *o)
{
	blk64_t start, have, want;
	ext2_filsys fs;
	unsigned int bs;
	errcode_t err;

	err = lj_open_super(o->device, 0, &fs);
	if (err)
		return;
	bs = fs->blocksize;
	want = lj_mib_to_blocks(lj_blocks_to_mib(
		lj_lazy_journal_blocks(ext2fs_blocks_count(fs->super)), bs), bs);
	ext2fs_close_free(&fs);
	err = lj_journal_place(o->device, &start, &have);
	if (err || !have || have >= want)
		return;
	err = lj_make_journal(o->device, want, ~0ULL, 0, 0, &start);
	if (err)
		com_err(prog, err, "while giving the new journal of %s the lazy "
			"size", o->device);
	else
		printf("%s: new journal given the lazy size: %llu blocks "
		       "(%lu MiB)\n", o->device, (unsigned long long)want,
		       lj_blocks_to_mib(want, bs));
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

/* Does device hold a file system libext2fs opens (superblock only)? */
static int is_ext4ish(const char *device)
{
	ext2_filsys fs;

	if (lj_open_super(device, EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs))
		return 0;
	ext2fs_close_free(&fs);
	return 1;
}

static int count_argv(char **v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}

/* EXT2_MF_MOUNTED / EXT2_MF_BUSY (held O_EXCL by someone) of device */
static int mount_flags(const char *device)
{
	int flags = 0;

	return ext2fs_check_if_mounted(device, &flags) ? 0 : flags;
}

/*
 * lazy_journal without has_journal (stock tune2fs -O ^has_journal leaves
 * it): there is no log, so nothing can be lost; writing modes clear the
 * flag (making a journal would change the layout behind the user's back)
 * and run the stock check.  Returns -1 when the journal is there.
 */
static int lazy_without_journal(struct options *o)
{
	ext2_filsys fs;
	errcode_t err;
	int has;

	if (lj_open_super(o->device, EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs))
		return -1;
	has = ext2fs_has_feature_journal(fs->super);
	ext2fs_close_free(&fs);
	if (has)
		return -1;
	printf("%s: lazy_journal is set but the file system has no journal.  "
	       "Clear lazy_journal? yes\n\n", o->device);
	fflush(stdout);
	err = lj_set_lazy_flag(o->device, 0);
	if (err) {
		com_err(prog, err, "while clearing lazy_journal on %s",
			o->device);
		return FSCK_ERROR;
	}
	if (o->journal_only)
		return FSCK_NONDESTRUCT;
	return lj_stock_run("e2fsck", o->stock_argv) | FSCK_NONDESTRUCT;
}

/* Everything main does on a lazy file system; returns the exit status. */
static int fsck_lazy(struct options *o, int argc, char **argv)
{
	ext2_filsys fs;
	int status, mflags, corrected = 0;

	if (o->no)
		return fe_fsck_readonly(o->device, argc, argv);
	/* stock's refusals of a device in use; the writers' exclusive
	 * opens (lj_open_fs, lj_open_super) hold the line after this */
	mflags = mount_flags(o->device);
	if (mflags & (EXT2_MF_MOUNTED | EXT2_MF_BUSY)) {
		if (!o->preen)
			banner();
		fprintf(stderr, "%s is %s.\n%s: Cannot continue, "
			"aborting.\n\n\n", o->device,
			(mflags & EXT2_MF_MOUNTED) ? "mounted" : "in use", prog);
		return FSCK_ERROR;
	}
	if (!o->preen && !o->yes && (!isatty(0) || !isatty(1))) {
		banner();
		fprintf(stderr, "%s: need terminal for interactive repairs\n",
			prog);
		return FSCK_ERROR;
	}
	status = lazy_without_journal(o);
	if (status >= 0)
		return status;
	if (!o->compact) {
		status = incomplete_log(o, &corrected);
		if (status >= 0)
			return status;
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
		return status == FSCK_OK && corrected ? FSCK_NONDESTRUCT :
		       status;
	}
	if (status > 0)
		return status;
	status = stock_check(o);
	if ((corrected & 2) && status < FSCK_ERROR)
		lazy_size_journal(o);
	return corrected && status < FSCK_ERROR ? status | FSCK_NONDESTRUCT :
	       status;
}

/* After a valid command line: stock, a refusal, or the lazy work. */
static int run(struct options *o, int argc, char **argv)
{
	int status;

	if (!o->device)
		return lj_stock_exec("e2fsck", argv);
	if (!home_is_lazy(o->device)) {
		const char *word = lazy_option_given(o);

		if (!word || !is_ext4ish(o->device))
			return lj_stock_exec("e2fsck", argv);
		fprintf(stderr, "%s: -E %s: %s does not have the lazy_journal "
			"feature\n", prog, word, o->device);
		return FSCK_USAGE;
	}
	/* stock's own words on the line: stock's parser, before any write */
	status = lj_stock_parse_probe("e2fsck", count_argv(o->stock_argv),
				      o->stock_argv, o->device_arg);
	if (status >= 0)
		return status;
	return fsck_lazy(o, argc, argv);
}

int main(int argc, char **argv)
{
	struct options o;
	int status;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (fe_wants_version(argc, argv, E2FSCK_OPTS))
		fe_print_version();	/* then stock's lines */
	if (parse_options(argc, argv, &o)) {
		com_err(prog, EXT2_ET_NO_MEMORY, "while parsing options");
		return FSCK_ERROR;
	}
	status = check_lazy_options(&o);
	if (!status)
		status = run(&o, argc, argv);
	free_options(&o);
	remove_error_table(&et_ljrn_error_table);
	remove_error_table(&et_ext2_error_table);
	return status;
}
