/*
 * readonly.c --- e2fsck -n on a lazy file system.
 *
 * The stock e2fsck would check the stale home copies.  Instead it runs
 * (exec: no temporary file, no relay) under the *migrated* view (README,
 * "The view"): every block it reads is the current one, needs_recovery
 * and lazy_journal are clear and the log is shown empty, so it checks the
 * file system exactly as migration would leave it, and the view refuses
 * every write.  The log is reported first, in the words of the writing
 * modes.
 *
 * A lazy file system whose log cannot be read has no current metadata to
 * show: the migrated view then shows the home copies with only the flag
 * hidden (needs_recovery and the journal as they are, for stock to
 * report), and the exit status says an error was left uncorrected.
 */
#include <stdio.h>
#include <string.h>

#include <et/com_err.h>

#include "lazy_journal.h"
#include "stock.h"
#include "readonly.h"

#define FSCK_UNCORRECTED 4
#define FSCK_ERROR	8

static const char prog[] = "e2fsck";

/* The same words as the writing modes use (e2fsck.c). */
static void report_log(const char *device, const lj_lazy_state *st)
{
	const lj_log *log = st->jmap->log;
	char why[200];

	if (st->journal_err) {
		com_err(prog, st->journal_err, "while reading the journal of "
			"%s; checking the home copies", device);
		return;
	}
	if (lj_log_clean_end(log))
		return;
	lj_log_describe_end(log, why, sizeof(why));
	printf("%s: journal: %s\n", device, why);
	if (log->refused)
		printf("%s: WARNING: stock journal recovery would refuse the "
		       "whole log; this lazy file system keeps the %zu "
		       "transactions before the bad one and leaves the rest "
		       "to the full check\n", device, log->ntxn);
	if (st->jmap->bad_csums)
		printf("%s: journal: %lu logged block(s) skipped for a bad "
		       "checksum (first: %s)\n", device, st->jmap->bad_csums,
		       st->jmap->bad_csum_msg);
}

int fe_fsck_readonly(const char *device, int argc, char **argv)
{
	lj_lazy_state *st;
	ext2_filsys fs;
	errcode_t err;
	int unreadable;

	(void)argc;
	err = lj_open_fs(device, 0, &fs);
	if (err) {
		com_err(prog, err, "while trying to open %s", device);
		return FSCK_ERROR;
	}
	err = lj_lazy_get_state(fs->io, &st);
	if (err) {
		com_err(prog, err, "while trying to open %s", device);
		ext2fs_close_free(&fs);
		return FSCK_ERROR;
	}
	/* (a mounted device: stock itself warns, it opens the device) */
	report_log(device, st);
	/* A lazy file system whose log cannot be read has metadata nobody
	 * can check: an error left uncorrected, whatever the home copies. */
	unreadable = st->lazy && (st->journal_err ||
				  st->jmap->log->refused);
	if (st->lazy && !ext2fs_has_feature_journal(fs->super)) {
		printf("%s: lazy_journal is set but the file system has no "
		       "journal.  Clear lazy_journal? no\n\n", device);
		unreadable = 1;
	}
	ext2fs_close_free(&fs);
	fflush(NULL);
	if (unreadable)
		return lj_stock_run_view("e2fsck", argv, "migrated") |
		       FSCK_UNCORRECTED;
	return lj_stock_exec_view("e2fsck", argv, "migrated");
}
