/*
 * jmap_cmds.c --- our requests inside stock debugfs: jmap and jlookup
 * (block_dump -H is view_debugfs.c's: stock's request, read from home).  Built into the view object (lj_view.so) and installed by
 * view_debugfs.c into stock debugfs's request tables.
 *
 * Rows of `jmap` start with three decimal columns (home block, journal
 * block as logdump numbers it, transaction id) and the block's kind; every
 * other line starts with a letter, so scripts can pick rows by their first
 * character.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <unistd.h>

#include <et/com_err.h>

#include "view.h"
#include "view_requests.h"
#include "jbd2_format.h"

/* The session's file system, or NULL (said why). */
static ext2_filsys session_fs(const char *cmd)
{
	ext2_filsys fs = lj_view_fs();

	if (!fs) {
		/* After a failed open, its error line is the whole story. */
		if (!lj_view_open_failed())
			com_err(cmd, 0, "Filesystem not open");
		lj_view_failed();
	}
	return fs;
}

/* The temporary file system journal_state() opened (below), if any. */
static void state_done(ext2_filsys *tmp)
{
	if (*tmp)
		ext2fs_close_free(tmp);
}

/*
 * The lazy state of the session's file system: its own when it sits on a
 * lazy channel, else (a file system without lazy_journal, which stock
 * debugfs opened on the real unix channel) that of a read-only lazy
 * channel opened for this request into *tmp.  *fs gets the file system
 * the state belongs to.  NULL after an error.
 */
static lj_lazy_state *journal_state(const char *cmd, ext2_filsys *fs,
				    ext2_filsys *tmp)
{
	lj_lazy_state *st = NULL;
	errcode_t err;

	*tmp = NULL;
	*fs = session_fs(cmd);
	if (!*fs)
		return NULL;
	if (lj_lazy_get_state((*fs)->io, &st)) {
		err = lj_open_fs((*fs)->device_name, 0, tmp);
		if (err) {
			com_err(cmd, err, "while opening %s",
				(*fs)->device_name);
			lj_view_failed();
			return NULL;
		}
		*fs = *tmp;
		err = lj_lazy_get_state((*fs)->io, &st);
	} else {
		err = 0;
	}
	if (!err)
		err = st->journal_err;
	if (err) {
		com_err(cmd, err, "while reading the journal");
		lj_view_failed();
		state_done(tmp);
		return NULL;
	}
	return st;
}

/*
 * The options of a request that takes one flag (flag: its getopt string,
 * one letter): 1 if given, 0 if not, -1 for any other option.
 */
static int one_flag(int argc, const char *const *argv, const char *flag)
{
	int c, set = 0;

	optind = 0;
	while ((c = getopt(argc, (char **)argv, flag)) != EOF) {
		if (c != flag[0])
			return -1;
		set = 1;
	}
	return set;
}

static void usage(const char *cmd, const char *args)
{
	fprintf(stderr, "%s: Usage: %s\n", cmd, args);
	lj_view_failed();
}

static int parse_block(const char *cmd, const char *str, blk64_t *ret)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(str, &end, 0);
	if (!*str || *end || errno) {
		com_err(cmd, 0, "Bad block number - %s", str);
		return 1;
	}
	*ret = n;
	return 0;
}

/* As stock debugfs: a pager only on a terminal. */
static FILE *open_pager(void)
{
	const char *pager = getenv("DEBUGFS_PAGER");
	FILE *out;

	if (!pager)
		pager = getenv("PAGER");
	if (!isatty(1) || !pager || !*pager || !strcmp(pager, "__none__"))
		return stdout;
	out = popen(pager, "w");
	return out ? out : stdout;
}

static void close_pager(FILE *out)
{
	if (out && out != stdout)
		pclose(out);
}

static void print_summary(FILE *out, const lj_lazy_state *st,
			  const size_t *kinds)
{
	const lj_jmap *m = st->jmap;
	const lj_log *log = m->log;
	struct lj_jmap_stats s;
	char feat[80];
	int k;

	lj_jmap_stats(m, &s);
	if (st->journal) {
		lj_journal_features(st->journal, feat, sizeof(feat));
		fprintf(out, "Journal:              %u blocks (log area %u-%u), "
			"%s\n", st->journal->maxlen, st->journal->first,
			st->journal->last - 1, feat);
	} else {
		fprintf(out, "Journal:              none in use (%s)\n", st->note);
	}
	fprintf(out, "Lazy journaling:      %s\n", st->lazy ? "on" : "off");
	fprintf(out, "Live mappings:        %zu\n", s.live);
	if (s.txns)
		fprintf(out, "Transactions in log:  %zu (oldest tid %u, newest "
			"tid %u)\n", s.txns, s.oldest_tid, s.newest_tid);
	else
		fprintf(out, "Transactions in log:  0\n");
	fprintf(out, "Log blocks in use:    %u of %u (%.1f%%)\n", s.log_blocks,
		s.journal_blocks, s.journal_blocks ?
		100.0 * s.log_blocks / s.journal_blocks : 0.0);
	fprintf(out, "Live fraction:        %.1f%% of log blocks in use\n",
		s.log_blocks ? 100.0 * s.live / s.log_blocks : 0.0);
	fprintf(out, "Map memory:           %zu bytes\n", s.bytes);
	fprintf(out, "By kind:             ");
	for (k = 0; k < LJ_KIND_COUNT; k++)
		fprintf(out, " %s %zu%s", lj_kind_name(k), kinds[k],
			k + 1 < LJ_KIND_COUNT ? "," : "\n");
	if (!lj_log_clean_end(log))
		fprintf(out, "Log ends at journal block %u: %s\n",
			log->end_block, log->end_msg);
	else if (st->journal)
		fprintf(out, "Log end:              journal block %u (%s)\n",
			log->end_block, log->end_msg);
	if (log->refused)
		fprintf(out, "Recovery:             %s\n", log->salvaged ?
			"stock recovery refuses the whole log; lazy file "
			"system: the transactions before the bad one are kept" :
			"stock recovery refuses the whole log: nothing is "
			"replayed");
	if (m->bad_csums)
		fprintf(out, "Checksum errors:      %lu data block(s) skipped "
			"as replay does (first: %s)\n", m->bad_csums,
			m->bad_csum_msg);
}

void lj_do_jmap(int argc, const char *const *argv, int sci, void *infop)
{
	ext2_filsys fs, tmp;
	lj_lazy_state *st;
	lj_kind_map *km;
	size_t kinds[LJ_KIND_COUNT] = { 0 }, i;
	int summary_only = one_flag(argc, argv, "s");
	errcode_t err;
	FILE *out;

	(void)sci; (void)infop;
	if (summary_only < 0 || optind != argc) {
		usage(argv[0], "jmap [-s]");
		return;
	}
	st = journal_state(argv[0], &fs, &tmp);
	if (!st)
		return;
	err = lj_kind_map_build(fs, &km);
	if (err) {
		com_err(argv[0], err, "while reading the group descriptors");
		lj_view_failed();
		state_done(&tmp);
		return;
	}
	out = open_pager();
	if (!summary_only)
		fprintf(out, "Home block   Journal block  Transaction  Kind\n");
	for (i = 0; i < st->jmap->n; i++) {
		const struct lj_jmap_entry *e = &st->jmap->e[i];
		enum lj_block_kind k = lj_kind_of(km, e->home);

		kinds[k]++;
		if (!summary_only)
			fprintf(out, "%-12llu %-14u %-12u %s\n",
				(unsigned long long)e->home, e->jblock, e->tid,
				lj_kind_name(k));
	}
	print_summary(out, st, kinds);
	close_pager(out);
	lj_kind_map_free(km);
	state_done(&tmp);
}

static void lookup_home(ext2_filsys fs, const lj_lazy_state *st,
			const char *cmd, const char *arg)
{
	const struct lj_jmap_entry *e;
	blk64_t blk;

	if (parse_block(cmd, arg, &blk)) {
		lj_view_failed();
		return;
	}
	if (blk >= ext2fs_blocks_count(fs->super)) {
		com_err(cmd, 0, "block %llu is outside the file system",
			(unsigned long long)blk);
		lj_view_failed();
		return;
	}
	e = lj_jmap_lookup(st->jmap, blk);
	if (e)
		printf("block %llu: journal block %u (fs block %llu), "
		       "transaction %u\n", (unsigned long long)blk, e->jblock,
		       (unsigned long long)lj_journal_pblk(st->journal,
							   e->jblock), e->tid);
	else
		printf("block %llu: home\n", (unsigned long long)blk);
}

static void lookup_journal(const lj_lazy_state *st, const char *cmd,
			   const char *arg)
{
	uint64_t home = 0;
	uint32_t tid = 0;
	blk64_t jblk;

	if (parse_block(cmd, arg, &jblk)) {
		lj_view_failed();
		return;
	}
	if (!st->journal || jblk >= st->journal->maxlen) {
		com_err(cmd, 0, "journal block %llu is outside the journal",
			(unsigned long long)jblk);
		lj_view_failed();
		return;
	}
	switch (lj_jmap_reverse(st->jmap, (uint32_t)jblk, &home, &tid)) {
	case LJ_JB_LIVE:
		printf("journal block %llu: live copy of block %llu, "
		       "transaction %u\n", (unsigned long long)jblk,
		       (unsigned long long)home, tid);
		break;
	case LJ_JB_STALE:
		printf("journal block %llu: stale copy of block %llu, "
		       "transaction %u\n", (unsigned long long)jblk,
		       (unsigned long long)home, tid);
		break;
	case LJ_JB_META:
		printf("journal block %llu: descriptor, revoke or commit block "
		       "of transaction %u\n", (unsigned long long)jblk, tid);
		break;
	default:
		printf("journal block %llu: not in the log\n",
		       (unsigned long long)jblk);
	}
}

void lj_do_jlookup(int argc, const char *const *argv, int sci, void *infop)
{
	ext2_filsys fs, tmp;
	lj_lazy_state *st;
	int by_journal = one_flag(argc, argv, "j");

	(void)sci; (void)infop;
	if (by_journal < 0 || optind >= argc) {
		usage(argv[0], "jlookup [-j] block...");
		return;
	}
	st = journal_state(argv[0], &fs, &tmp);
	if (!st)
		return;
	for (; optind < argc; optind++) {
		if (by_journal)
			lookup_journal(st, argv[0], argv[optind]);
		else
			lookup_home(fs, st, argv[0], argv[optind]);
	}
	state_done(&tmp);
}
