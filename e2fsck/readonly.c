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
 */
#include <stdio.h>

#include <et/com_err.h>

#include "fsck_opts.h"
#include "stock.h"

int fe_fsck_readonly(const char *device, const char *name, char **argv)
{
	ext2_filsys fs = NULL;
	lj_lazy_state *st;
	errcode_t err;
	int unreadable;

	err = lj_open_fs(device, 0, &fs);
	if (!err)
		err = lj_lazy_get_state(fs->io, &st);
	if (err) {
		com_err(fe_prog, err, "while trying to open %s", name);
		if (fs)
			ext2fs_close_free(&fs);
		return FSCK_ERROR;
	}
	/* (a mounted device: stock itself warns, it opens the device) */
	if (st->journal_err)
		com_err(fe_prog, st->journal_err, "while reading the journal of "
			"%s; checking the home copies", name);
	else
		fe_report_log(name, st, 0);
	/* A lazy file system whose log cannot be read has metadata nobody
	 * can check: an error left uncorrected, whatever the home copies. */
	unreadable = st->lazy && (st->journal_err ||
				  st->jmap->log->refused);
	if (st->lazy && !ext2fs_has_feature_journal(fs->super)) {
		printf("%s: lazy_journal is set but the file system has no "
		       "journal.  Clear lazy_journal? no\n\n", name);
		unreadable = 1;
	}
	ext2fs_close_free(&fs);
	fflush(NULL);
	if (unreadable)
		return lj_stock_run_view("e2fsck", argv, "migrated") |
		       FSCK_UNCORRECTED;
	return lj_stock_exec_view("e2fsck", argv, "migrated");
}
