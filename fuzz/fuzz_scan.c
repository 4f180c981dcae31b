/*
 * fuzz_scan.c --- libFuzzer target: journal loader, log scanner and jmap
 * builder on a small image whose journal area is the fuzz input.
 *
 * The image lives in memory (fz_mem_io_manager); the file system is opened
 * once per template, and each input only replaces the journal blocks.  Each
 * input is scanned with and without LJ_SCAN_SALVAGE and the resulting log
 * and map are checked against the invariants the rest of the code relies
 * on (an invariant failure aborts, so libFuzzer keeps the input).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init();
	return 0;
}

static void check_log(const lj_log *log, const lj_journal *j)
{
	size_t i, tags = 0;
	uint32_t blocks = 0;

	FZ_CHECK(log->ntxn <= j->last - j->first);
	FZ_CHECK(log->ntags <= j->last - j->first);
	for (i = 0; i < log->ntxn; i++) {
		const struct lj_txn *t = &log->txn[i];

		FZ_CHECK(t->tid == log->start_tid + (uint32_t)i);
		FZ_CHECK(t->tag_first == tags);
		FZ_CHECK(t->first_block >= j->first && t->first_block < j->last);
		FZ_CHECK(t->commit_block >= j->first && t->commit_block < j->last);
		FZ_CHECK(t->nblocks >= 1 && t->nblocks <= j->last - j->first);
		FZ_CHECK(t->ntags < t->nblocks);
		FZ_CHECK(lj_log_txn_of_block(log, t->commit_block) == t);
		tags += t->ntags;
		blocks += t->nblocks;
	}
	FZ_CHECK(tags <= log->ntags);
	FZ_CHECK(blocks == log->log_blocks);
	FZ_CHECK(blocks <= j->last - j->first);
	for (i = 0; i < log->ntags; i++) {
		const struct lj_tag *t = &log->tags[i];

		FZ_CHECK(t->jblock >= j->first && t->jblock < j->last);
		FZ_CHECK(log->ntxn && lj_tid_geq(t->tid, log->start_tid) &&
			 lj_tid_gt(log->end_tid, t->tid));
	}
	for (i = 0; i < log->nrevokes; i++)
		FZ_CHECK(log->ntxn && lj_tid_geq(log->revokes[i].tid,
						 log->start_tid) &&
			 lj_tid_gt(log->end_tid, log->revokes[i].tid));
	FZ_CHECK(log->ntxn == (size_t)(log->end_tid - log->start_tid) ||
		 log->refused);
	FZ_CHECK(!log->salvaged || log->refused);
	FZ_CHECK(memchr(log->end_msg, 0, sizeof(log->end_msg)) != NULL);
}

static void check_jmap(const lj_jmap *m, const lj_journal *j, int kept)
{
	const lj_log *log = m->log;
	struct lj_jmap_stats st;
	size_t i, live = 0;
	uint32_t jb;

	for (i = 0; i < m->n; i++) {
		const struct lj_jmap_entry *e = &m->e[i];
		uint64_t home;
		uint32_t tid;

		FZ_CHECK(e->home < j->fs_blocks);
		FZ_CHECK(i == 0 || m->e[i - 1].home < e->home);
		FZ_CHECK(e->jblock >= j->first && e->jblock < j->last);
		FZ_CHECK(lj_tid_geq(e->tid, log->start_tid) &&
			 lj_tid_gt(log->end_tid, e->tid));
		FZ_CHECK(lj_jmap_lookup(m, e->home) == e);
		FZ_CHECK(lj_jmap_reverse(m, e->jblock, &home, &tid) ==
			 LJ_JB_LIVE && home == e->home && tid == e->tid);
		if (i)	/* two live copies never share a journal block */
			FZ_CHECK(m->e[m->by_jblock[i - 1]].jblock <
				 m->e[m->by_jblock[i]].jblock);
	}
	for (i = 0; i < log->ntxn; i++)
		live += log->txn[i].nlive;
	FZ_CHECK(live == m->n);
	for (i = 0; i < m->nescaped; i++) {
		FZ_CHECK(i == 0 || m->escaped[i - 1] <= m->escaped[i]);
		FZ_CHECK(lj_jmap_escaped(m, m->escaped[i]));
	}
	/* every journal block, and a few outside, answer without trouble */
	for (jb = 0; jb < j->maxlen + 2; jb++) {
		uint64_t home = 0;
		uint32_t tid = 0;
		enum lj_jblock_state s = lj_jmap_reverse(m, jb, &home, &tid);

		FZ_CHECK(s <= LJ_JB_META);
		if (s == LJ_JB_STALE)
			FZ_CHECK(kept);
	}
	lj_jmap_stats(m, &st);
	FZ_CHECK(st.live == m->n && st.txns == log->ntxn);
	(void)lj_jmap_lookup(m, 0);
	(void)lj_jmap_lookup(m, ~0ULL);
}

static void one_pass(struct fz_template *t, int scan_flags, int map_flags,
		     size_t *ntxn, int *refused)
{
	lj_journal *j = NULL;
	lj_log *log = NULL;
	lj_jmap *m = NULL;
	char buf[256];
	errcode_t err;

	*ntxn = 0;
	*refused = 0;
	err = lj_journal_open(t->fs, t->fs->io, &j);
	if (err) {
		FZ_CHECK(j == NULL);
		FZ_CHECK(error_message(err) != NULL);
		if (fz_verbose)
			fprintf(stderr, "lj_journal_open: %s\n",
				error_message(err));
		return;
	}
	FZ_CHECK(j->first >= 1 && j->first < j->last && j->last <= j->maxlen);
	FZ_CHECK(j->maxlen <= t->jblocks);
	lj_journal_features(j, buf, sizeof(buf));
	err = lj_log_scan(j, scan_flags, &log);
	if (err) {
		FZ_CHECK(log == NULL);
		goto out;
	}
	check_log(log, j);
	*ntxn = log->ntxn;
	*refused = log->refused;
	lj_log_describe_end(log, buf, sizeof(buf));
	if (fz_verbose)
		fprintf(stderr, "scan%s: %zu txns, %zu tags, %s\n",
			scan_flags ? " (salvage)" : "", log->ntxn, log->ntags,
			buf);
	(void)lj_log_clean_end(log);
	err = lj_jmap_build(log, map_flags, &m);	/* takes log */
	if (err) {
		FZ_CHECK(m == NULL);
		if (fz_verbose)
			fprintf(stderr, "jmap: %s\n", error_message(err));
		goto out;
	}
	if (fz_verbose)
		fprintf(stderr, "jmap: %zu entries\n", m->n);
	check_jmap(m, j, map_flags & LJ_JMAP_KEEP_TAGS);
	lj_jmap_free(m);
out:
	lj_journal_close(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_template *t = fz_pick(data, size);
	size_t n_plain, n_salv;
	int r_plain, r_salv;

	fz_load(t, data, size, 0);
	one_pass(t, 0, LJ_JMAP_KEEP_TAGS, &n_plain, &r_plain);
	one_pass(t, LJ_SCAN_SALVAGE, (size & 1) ? LJ_JMAP_KEEP_TAGS : 0,
		 &n_salv, &r_salv);
	/* salvage changes the answer only for a log recovery refuses */
	FZ_CHECK(r_plain == r_salv);
	if (r_plain)
		FZ_CHECK(n_plain == 0);
	else
		FZ_CHECK(n_plain == n_salv);
	return 0;
}
