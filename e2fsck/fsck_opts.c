/*
 * fsck_opts.c --- our e2fsck's command line: stock e2fsck's options (we
 * note the ones that decide what we do) and our -E words, which are taken
 * out of the argv handed to stock e2fsck and checked before anything is
 * opened (fsck_opts.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_opts.h"
#include "subopt.h"

const char fe_prog[] = "e2fsck";

void fe_fsck_free(struct fe_fsck_options *o)
{
	while (o->nowned)
		free(o->owned[--o->nowned]);
	free(o->owned);
	free(o->stock_argv);
	free(o->evals);
	free(o->name);
	o->owned = o->stock_argv = NULL;
	o->evals = NULL;
	o->name = NULL;
}

/* Keep s in stock_argv and remember to free it (NULL: out of memory).
 * owned has room for two strings per argument. */
static char *own(struct fe_fsck_options *o, char *s)
{
	if (s)
		o->owned[o->nowned++] = s;
	return s;
}

/* Is tok a lazy word?  (Stock knows no word starting with "lazy_".) */
static int lazy_word(const char *tok, size_t len, void *unused)
{
	(void)unused;
	return (len >= 5 && !strncmp(tok, "lazy_", 5)) ||
	       (len == 15 && !strncmp(tok, "no_lazy_journal", 15));
}

/* Note what one -E list asks of us. */
static void note_extended(const char *list, struct fe_fsck_options *o)
{
	char val[32];

	if (fe_list_has(list, "journal_only"))
		o->journal_only = 1;
	if (fe_list_has(list, "no_lazy_journal"))
		o->lazy_off = 1;
	if (fe_subopt_get(list, "lazy_compact", val, sizeof(val))) {
		o->compact = 1;
		if (*val)
			o->compact_keep = strtoul(val, NULL, 0);
	}
	if (fe_subopt_get(list, "lazy_save", o->save_buf,
			  sizeof(o->save_buf)))
		o->save_path = o->save_buf;
}

/*
 * argv[i] as stock gets it: an -E value (val, inside arg) loses our words;
 * an -E left empty goes, with its "-E".  -1 when out of memory.
 */
static int stock_arg(struct fe_fsck_options *o, char *arg, char *val, int *out)
{
	char *keep = own(o, fe_list_filter(val, ",", lazy_word, NULL)), *s;

	if (!keep)
		return -1;
	if (*keep && val == arg) {		/* "-E" "value" */
		o->stock_argv[(*out)++] = keep;
	} else if (*keep) {			/* "-Evalue" */
		s = own(o, malloc((size_t)(val - arg) + strlen(keep) + 1));
		if (!s)
			return -1;
		memcpy(s, arg, (size_t)(val - arg));
		strcpy(s + (val - arg), keep);
		o->stock_argv[(*out)++] = s;
	} else if (val == arg) {		/* drop "-E" too */
		if (*out && !strcmp(o->stock_argv[*out - 1], "-E"))
			(*out)--;
	} else if (val - arg > 2) {		/* "-fE..." keeps "-f" */
		s = own(o, strndup(arg, (size_t)(val - arg - 1)));
		if (!s)
			return -1;
		o->stock_argv[(*out)++] = s;
	}
	return 0;
}

/*
 * getopt permutes the array it is given, so it works on a copy; its
 * optarg pointers point into the original strings, which is how -E values
 * are found again when the argv for stock is rebuilt.
 */
int fe_fsck_parse(int argc, char **argv, struct fe_fsck_options *o)
{
	char **copy = calloc((size_t)argc + 1, sizeof(char *));
	int c, i, out = 0;

	memset(o, 0, sizeof(*o));
	o->progress_fd = -1;
	o->stock_argv = calloc((size_t)argc + 1, sizeof(char *));
	o->owned = calloc(2 * (size_t)argc + 1, sizeof(char *));
	o->evals = calloc((size_t)argc + 1, sizeof(char *));
	if (!copy || !o->stock_argv || !o->owned || !o->evals) {
		free(copy);
		return -1;
	}
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
			note_extended(optarg, o);
			o->evals[o->nevals++] = optarg;
			break;
		default: break;
		}
	}
	if (optind == argc - 1) {
		o->device = o->device_arg = copy[optind];
		/* stock's name of it: the io options (after '?') cut */
		o->name = strndup(o->device, strcspn(o->device, "?"));
		if (!o->name) {
			free(copy);
			return -1;
		}
	}
	free(copy);

	for (i = 0; i < argc; i++) {
		char *arg = argv[i], *val = NULL;
		int k;

		for (k = 0; k < o->nevals; k++)
			if (o->evals[k] >= arg &&
			    o->evals[k] < arg + strlen(arg) + 1)
				val = (char *)o->evals[k];
		if (!val || !fe_list_count(val, ",", lazy_word, NULL))
			o->stock_argv[out++] = arg;
		else if (stock_arg(o, arg, val, &out))
			return -1;
	}
	o->stock_argv[out] = NULL;
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * Our -E words, checked before anything is opened: a word of ours that is
 * unknown, a malformed value, or words that contradict each other get a
 * message and the lazy options' usage, exit 16 (FSCK_USAGE).  Stock's own
 * words are left to stock's parser (lj_stock_parse_probe).
 */
static const char lazy_usage[] =
	"\nLazy journal extended options (see lazy_journal(8)):\n"
	"\tjournal_only\t\tmigrate the log home, empty it, clear\n"
	"\t\t\t\tlazy_journal, stop\n"
	"\tno_lazy_journal\t\twith -p, -y, -f: clear lazy_journal\n"
	"\tlazy_compact[=<N>]\trewrite the log with only its live blocks\n"
	"\t\t\t\t(those of the newest N transactions)\n"
	"\tlazy_save=<path>\tsave the raw journal there before writing on\n"
	"\t\t\t\ta log that cannot be read completely\n";

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

/* fe_token_fn: a bad word of ours (a message on stderr)? */
static int lazy_token_bad(const char *tok, size_t len, void *unused)
{
	const char *v;

	if (!lazy_word(tok, len, unused))
		return 0;
	if (len == 15 && !strncmp(tok, "no_lazy_journal", 15))
		return 0;
	if (fe_subopt_key(tok, len, "lazy_save", &v) && v && len > 10)
		return 0;
	if (fe_subopt_key(tok, len, "lazy_compact", &v)) {
		if (!v || compact_value_ok(v, len - 13))
			return 0;
		fprintf(stderr, "%s: invalid lazy_compact value '%.*s' "
			"(a number of transactions)\n", fe_prog,
			(int)(len - 13), v);
		return 1;
	}
	fprintf(stderr, "%s: unknown lazy extended option: %.*s\n", fe_prog,
		(int)len, tok);
	return 1;
}

int fe_fsck_check_lazy_words(const struct fe_fsck_options *o)
{
	const char *conflict = NULL;
	int i, bad = 0;

	for (i = 0; i < o->nevals; i++)
		bad |= fe_list_count(o->evals[i], ",", lazy_token_bad,
				     NULL) > 0;
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
		fprintf(stderr, "%s: %s cannot be used together\n", fe_prog,
			conflict);
	if (!bad && !conflict)
		return 0;
	fputs(lazy_usage, stderr);
	return FSCK_USAGE;
}

const char *fe_fsck_lazy_word_given(const struct fe_fsck_options *o)
{
	if (o->compact)
		return "lazy_compact";
	if (o->lazy_off)
		return "no_lazy_journal";
	return NULL;
}
