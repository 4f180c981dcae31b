/*
 * jmap_cmds.c --- the journal requests of our debugfs: jmap and jlookup.
 *
 * Rows of `jmap` start with three decimal columns (home block, journal
 * block as logdump numbers it, transaction id) and the block's kind; every
 * other line starts with a letter, so scripts can pick rows by their first
 * character.
 */
#include <stdio.h>
#include <string.h>
#include <getopt.h>
#include <unistd.h>

#include <et/com_err.h>

#include "debugfs.h"
#include "jbd2_format.h"

/* The lazy state of the open file system, or NULL after an error. */
static lj_lazy_state *journal_state(const char *cmd)
{
	lj_lazy_state *st;
	errcode_t err;

	if (!current_fs) {
		/* After a failed open, its error line is the whole story. */
		if (!lj_debugfs_open_failed())
			check_fs_open(cmd);
		lj_debugfs_failed();
		return NULL;
	}
	err = lj_lazy_get_state(current_fs->io, &st);
	if (!err)
		err = st->journal_err;
	if (err) {
		com_err(cmd, err, "while reading the journal");
		lj_debugfs_failed();
		return NULL;
	}
	return st;
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

void do_jmap(int argc, char **argv, int sci, void *infop)
{
	lj_lazy_state *st;
	lj_kind_map *km;
	size_t kinds[LJ_KIND_COUNT] = { 0 }, i;
	int summary_only = 0, c;
	errcode_t err;
	FILE *out;

	(void)sci; (void)infop;
	optind = 0;
	while ((c = getopt(argc, argv, "s")) != EOF) {
		if (c != 's')
			goto usage;
		summary_only = 1;
	}
	if (optind != argc)
		goto usage;
	st = journal_state(argv[0]);
	if (!st)
		return;
	err = lj_kind_map_build(current_fs, &km);
	if (err) {
		com_err(argv[0], err, "while reading the group descriptors");
		lj_debugfs_failed();
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
	return;
usage:
	fprintf(stderr, "%s: Usage: jmap [-s]\n", argv[0]);
	lj_debugfs_failed();
}

static void lookup_home(const lj_lazy_state *st, const char *cmd,
			const char *arg)
{
	const struct lj_jmap_entry *e;
	blk64_t blk;

	if (strtoblk(cmd, arg, &blk)) {
		lj_debugfs_failed();
		return;
	}
	if (blk >= ext2fs_blocks_count(current_fs->super)) {
		com_err(cmd, 0, "block %llu is outside the file system",
			(unsigned long long)blk);
		lj_debugfs_failed();
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

	if (strtoblk(cmd, arg, &jblk)) {
		lj_debugfs_failed();
		return;
	}
	if (!st->journal || jblk >= st->journal->maxlen) {
		com_err(cmd, 0, "journal block %llu is outside the journal",
			(unsigned long long)jblk);
		lj_debugfs_failed();
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

void do_jlookup(int argc, char **argv, int sci, void *infop)
{
	lj_lazy_state *st;
	int by_journal = 0, c;

	(void)sci; (void)infop;
	optind = 0;
	while ((c = getopt(argc, argv, "j")) != EOF) {
		if (c != 'j')
			goto usage;
		by_journal = 1;
	}
	if (optind >= argc)
		goto usage;
	st = journal_state(argv[0]);
	if (!st)
		return;
	for (; optind < argc; optind++) {
		if (by_journal)
			lookup_journal(st, argv[0], argv[optind]);
		else
			lookup_home(st, argv[0], argv[optind]);
	}
	return;
usage:
	fprintf(stderr, "%s: Usage: jlookup [-j] block...\n", argv[0]);
	lj_debugfs_failed();
}
