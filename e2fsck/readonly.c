/*
 * readonly.c --- e2fsck -n on a lazy file system.
 *
 * The stock e2fsck would check the stale home copies.  Instead it runs
 * (exec: no temporary file, no relay) under the *migrated* view (README,
 * "The view"): every block it reads is the current one, needs_recovery
 * and lazy_journal are clear and the log is shown empty, so it checks the
 * file system exactly as migration would leave it, and the view refuses
 * every write.  The log is reported first, in the words of the writing
 * modes (log_report.c).
 *
 * A lazy file system whose log cannot be read has no current metadata to
 * show: the migrated view then shows the home copies with only the flag
 * hidden (needs_recovery and the journal as they are, for stock to
 * report), and the exit status says an error was left uncorrected.
 *
 * Two costs kept off this path: stock's parser is asked first (the probe
 * run) only when there is something to report -- with a clean log
 * stock's own run judges the line and nothing of ours was said; and the
 * view in the stock process is handed this open's checked log
 * (LJ_VIEW_VERIFIED) instead of reading every logged block again.
 */
#include <stdio.h>
#include <stdlib.h>

#include <et/com_err.h>

#include "fsck_opts.h"
#include "stock.h"

/* Stock's parser on the line before we say anything: -1 to go on. */
static int parse_first(const struct fe_fsck_options *o, ext2_filsys *fs)
{
	int status = fe_fsck_parse_probe(o);

	if (status >= 0 && *fs)
		ext2fs_close_free(fs);
	return status;
}

int fe_fsck_readonly(const struct fe_fsck_options *o, char **argv)
{
	const char *device = o->device, *name = o->name;
	ext2_filsys fs = NULL;
	lj_lazy_state *st = NULL;
	errcode_t err;
	int unreadable, no_journal, status;
	char token[LJ_VERIFIED_TOKEN_SIZE];

	err = lj_open_fs(device, 0, &fs);
	if (!err)
		err = lj_lazy_get_state(fs->io, &st);
	if (err) {
		status = parse_first(o, &fs);
		if (status >= 0)
			return status;
		com_err(fe_prog, err, "while trying to open %s", name);
		if (fs)
			ext2fs_close_free(&fs);
		return FSCK_ERROR;
	}
	/* A lazy file system whose log cannot be read has metadata nobody
	 * can check: an error left uncorrected, whatever the home copies. */
	unreadable = st->lazy && (st->journal_err ||
				  st->jmap->log->refused);
	no_journal = st->lazy && !ext2fs_has_feature_journal(fs->super);
	/* A clean log has nothing to report: stock's parser is stock's own
	 * run; else it judges the line before we print a word. */
	if (unreadable || no_journal || st->journal_err ||
	    !lj_log_clean_end(st->jmap->log)) {
		status = parse_first(o, &fs);
		if (status >= 0)
			return status;
	}
	/* (a mounted device: stock itself warns, it opens the device) */
	if (st->journal_err)
		com_err(fe_prog, st->journal_err, "while reading the journal of "
			"%s; checking the home copies", name);
	else
		fe_report_log(name, st, 0);
	if (no_journal) {
		printf("%s: lazy_journal is set but the file system has no "
		       "journal.  Clear lazy_journal? no\n\n", name);
		unreadable = 1;
	}
	/* the view need not read the logged blocks again */
	lj_lazy_verified_token(fs->io, token, sizeof(token));
	ext2fs_close_free(&fs);
	fflush(NULL);
	if (*token)
		setenv(LJ_VIEW_VERIFIED_ENV, token, 1);
	if (unreadable)
		return lj_stock_run_view("e2fsck", argv, "migrated") |
		       FSCK_UNCORRECTED;
	return lj_stock_exec_view("e2fsck", argv, "migrated");
}
