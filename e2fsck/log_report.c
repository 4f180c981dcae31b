/*
 * log_report.c --- what our e2fsck says about a log that does not end the
 * ordinary way, in every mode (-n, -y, -p, journal_only): where and why it
 * ends, a log stock recovery would refuse, logged blocks skipped for a bad
 * checksum, and, when writing, every transaction a salvage drops (the
 * list walked by lj_log_dropped as stock logdump walks the log).
 */
#include <stdio.h>

#include <et/com_err.h>

#include "fsck_opts.h"

/* The fs blocks of t that are (revoked) or are not (!revoked) revokes. */
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

/* One line per transaction the salvage leaves out. */
static void report_dropped(const char *device, const lj_log *log)
{
	lj_dropped *d;
	errcode_t err = lj_log_dropped(log, &d);
	size_t i;

	if (err) {
		com_err(fe_prog, err, "while listing the dropped transactions "
			"of %s", device);
		return;
	}
	for (i = 0; i < d->ntxn; i++) {
		const struct lj_dropped_txn *t = &d->txn[i];
		size_t k, nrev = 0;

		for (k = t->block_first; k < t->block_first + t->nblocks; k++)
			nrev += d->blocks[k].revoked;
		printf("%s: dropped transaction %u (journal blocks %u-%u%s):",
		       device, t->tid, t->first_block, t->last_block,
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

void fe_report_log(const char *device, const lj_lazy_state *st, int writing)
{
	const lj_log *log = st->jmap->log;
	char why[200];

	if (lj_log_clean_end(log))
		return;
	lj_log_describe_end(log, why, sizeof(why));
	printf("%s: journal: %s\n", device, why);
	if (log->refused) {
		printf("%s: WARNING: stock journal recovery would refuse the "
		       "whole log; this lazy file system keeps the %zu "
		       "transactions before the bad one and leaves the rest "
		       "to the full check\n", device, log->ntxn);
		if (writing) {
			printf("%s: dropped: transaction %u and every later "
			       "one, from journal block %u on\n", device,
			       log->end_tid, log->end_block);
			report_dropped(device, log);
		}
	}
	if (st->jmap->bad_csums)
		printf("%s: journal: %lu logged block(s) skipped for a bad "
		       "checksum (first: %s)\n", device, st->jmap->bad_csums,
		       st->jmap->bad_csum_msg);
}
