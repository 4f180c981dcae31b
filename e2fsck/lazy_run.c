/*
 * lazy_run.c --- our e2fsck on a lazy file system, writing modes.
 *
 *   -p, no -f  on a clean file system (superblock read through the jmap)
 *              print the stock "clean" line and write nothing (not with
 *              -E no_lazy_journal: that asks for the flag's write);
 *   -E lazy_compact[=N]  rewrite the log to hold only live blocks;
 *   otherwise  migrate the live blocks home and empty the log
 *              (lj_migrate_fs; doc/contract.md §3), and with -E journal_only
 *              clear lazy_journal and stop there; else run the stock e2fsck with lazy_journal
 *              hidden from it, and restore the flag after (unless
 *              -E no_lazy_journal).
 * A log that cannot be read completely follows doc/contract.md §5 (-p
 * writes nothing; the others save the raw journal first).  The file
 * system is opened and its log scanned once for all of it (the migration
 * works on that open); only the migration's writes, the compaction and
 * the flag changes open it again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>

#include "fsck_opts.h"
#include "stock.h"

/* The file system as the lazy run found it: opened once, read-only. */
struct lazy_fs {
	ext2_filsys fs;		/* NULL when the open failed (err) */
	lj_lazy_state *st;
	errcode_t err;
};

static void lazy_fs_close(struct lazy_fs *l)
{
	if (l->fs)
		ext2fs_close_free(&l->fs);
	l->st = NULL;
}

static void banner(void)
{
	const char *ver, *date;

	ext2fs_get_library_version(&ver, &date);
	fprintf(stderr, "%s %s (%s)\n", fe_prog, ver, date);
}

/* -C: e2fsck's progress protocol on fd > 0, a percentage on the tty for 0 */
static void progress(void *arg, blk64_t done, blk64_t total)
{
	const struct fe_fsck_options *o = arg;

	if (o->progress_fd > 0) {
		dprintf(o->progress_fd, "%d %llu %llu %s\n", 0,
			(unsigned long long)done, (unsigned long long)total,
			o->name);
	} else if (o->progress_fd == 0) {
		printf("\r%s: migrating journaled metadata: %3.0f%%", o->name,
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
static int preen_clean(const struct fe_fsck_options *o,
		       const struct lazy_fs *l)
{
	struct ext2_super_block *sb;

	/* A log we cannot read leaves the current metadata unknown. */
	if (!l->fs || l->st->journal_err || !is_clean(l->fs->super))
		return 0;
	sb = l->fs->super;
	banner();
	printf("%s: clean, %u/%u files, %llu/%llu blocks\n", o->name,
	       sb->s_inodes_count - sb->s_free_inodes_count,
	       sb->s_inodes_count,
	       (unsigned long long)(ext2fs_blocks_count(sb) -
				    ext2fs_free_blocks_count(sb)),
	       (unsigned long long)ext2fs_blocks_count(sb));
	return 1;
}

/* Where the raw journal goes: -E lazy_save=, or a name of its own. */
static void save_name(const struct fe_fsck_options *o, ext2_filsys fs,
		      char *path, size_t len)
{
	const char *base = strrchr(o->name, '/');
	const unsigned char *u = fs->super->s_uuid;
	char uuid[40];
	int i, n = 0;

	if (o->save_path) {
		snprintf(path, len, "%s", o->save_path);
		return;
	}
	for (i = 0; i < 16; i++)
		n += snprintf(uuid + n, sizeof(uuid) - n, "%s%02x",
			      (i == 4 || i == 6 || i == 8 || i == 10) ?
			      "-" : "", u[i]);
	snprintf(path, len, "e2fsck-lazy-%s-%s.journal",
		 base ? base + 1 : o->name, uuid);
}

/*
 * doc/contract.md §5 (salvage), for a log that cannot be read
 * completely: -p writes nothing (exit 4); -y, interactive and journal_only
 * first save the raw journal to a file, then migrate what is readable and
 * list what is dropped.  Returns -1 to go on, else an exit status.
 */
static int incomplete_log(const struct fe_fsck_options *o,
			  const struct lazy_fs *l, int *corrected)
{
	char why[400], path[4200];
	errcode_t err;

	if (!l->fs || !lj_log_incomplete(l->st, why, sizeof(why)))
		return -1;	/* migrate() says why it cannot open */
	if (o->preen) {
		printf("%s: lazy journal: %s: UNEXPECTED INCONSISTENCY; RUN "
		       "fsck MANUALLY.\n", o->name, why);
		return FSCK_UNCORRECTED;
	}
	save_name(o, l->fs, path, sizeof(path));
	printf("%s: lazy journal: %s\n", o->name, why);
	err = lj_journal_save(l->st, l->fs, path);
	if (!o->save_path) {	/* an earlier save is never overwritten */
		size_t n = strlen(path) - strlen(".journal");
		int i;

		for (i = 1; err == EEXIST && i < 1000; i++) {
			snprintf(path + n, sizeof(path) - n, "-%d.journal", i);
			err = lj_journal_save(l->st, l->fs, path);
		}
	}
	if (err) {
		com_err(fe_prog, err, "while saving the journal of %s to %s; "
			"nothing written%s", o->name, path,
			err == EEXIST || err == EACCES || err == ENOSPC ||
			err == EROFS || err == ENOENT ?
			" (-E lazy_save=PATH names another file)" : "");
		return FSCK_ERROR;
	}
	printf("%s: raw journal saved to %s\n", o->name, path);
	*corrected = 1 | (l->st->journal_err ? 2 : 0);
	return -1;
}

/* The log reported, the live blocks home, l closed. */
static int migrate(const struct fe_fsck_options *o, struct lazy_fs *l)
{
	struct lj_migrate_stats ms;
	errcode_t err;
	size_t live;

	if (!l->fs) {
		com_err(fe_prog, l->err, "while trying to open %s", o->name);
		return FSCK_ERROR;
	}
	if (l->st->journal_err) {
		com_err(fe_prog, l->st->journal_err, "while reading the "
			"journal of %s", o->name);
		lazy_fs_close(l);
		return -1;	/* the stock check decides what to do */
	}
	fe_report_log(o->name, l->st, 1);
	live = l->st->jmap->n;
	if (live)
		printf("%s: migrating %zu journaled metadata blocks home\n",
		       o->name, live);
	fflush(stdout);
	/* the log scanned at the open; incomplete_log() has saved it */
	err = lj_migrate_fs(l->fs, LJ_MIGRATE_SALVAGE,
			    o->progress_fd >= 0 ? progress : NULL, (void *)o,
			    &ms);
	lazy_fs_close(l);
	if (err) {
		com_err(fe_prog, err, "while migrating the journal of %s",
			o->name);
		return FSCK_ERROR;
	}
	return FSCK_OK;
}

/*
 * -E lazy_compact[=N]: rewrite the log to hold only live blocks (those not
 * written in the newest N transactions go home); the log stays in use.
 */
static int compact(const struct fe_fsck_options *o, struct lazy_fs *l)
{
	struct lj_compact_stats cs;
	errcode_t err = l->fs ? l->st->journal_err : l->err;
	size_t ntxn = err ? 0 : l->st->jmap->log->ntxn;

	banner();
	lazy_fs_close(l);
	if (err) {
		com_err(fe_prog, err, "while reading the journal of %s",
			o->name);
		return FSCK_ERROR;
	}
	if (!ntxn) {
		printf("%s: journal log is empty: nothing to compact\n",
		       o->name);
		return FSCK_OK;
	}
	err = lj_compact(o->device, (uint32_t)o->compact_keep, &cs);
	if (err) {
		com_err(fe_prog, err, "while compacting the journal of %s",
			o->name);
		return FSCK_ERROR;
	}
	printf("%s: journal compacted: %llu blocks kept, %llu sent home, "
	       "log %u -> %u blocks (%u freed)\n", o->name,
	       (unsigned long long)cs.kept, (unsigned long long)cs.sent_home,
	       cs.blocks_before, cs.blocks_after,
	       cs.blocks_before > cs.blocks_after ?
	       cs.blocks_before - cs.blocks_after : 0);
	return FSCK_OK;
}

/* Run stock e2fsck with lazy_journal hidden; restore it afterwards. */
static int stock_check(const struct fe_fsck_options *o)
{
	errcode_t err;
	int status;

	err = lj_set_lazy_flag(o->device, 0);
	if (err) {
		com_err(fe_prog, err, "while hiding lazy_journal on %s",
			o->name);
		return FSCK_ERROR;
	}
	status = lj_stock_run("e2fsck", o->stock_argv);
	if (!o->lazy_off) {
		err = lj_set_lazy_flag(o->device, 1);
		if (err) {
			com_err(fe_prog, err, "while restoring lazy_journal on "
				"%s", o->name);
			status |= FSCK_ERROR;
		}
	}
	return status;
}

/*
 * Stock e2fsck cleared a journal we could not read and made a new one of
 * its default size: give it the lazy size (doc/contract.md §6), as mke2fs and
 * tune2fs -O lazy_journal would.  The new log is empty.
 */
static void lazy_size_journal(const struct fe_fsck_options *o)
{
	struct lj_journal_fit fit;
	blk64_t start;
	errcode_t err;

	if (lj_journal_fit(o->device, 0, &fit) || fit.place_err ||
	    !fit.have || fit.fits)
		return;
	err = lj_make_journal(o->device, fit.want, ~0ULL, 0, 0, &start);
	if (err)
		com_err(fe_prog, err, "while giving the new journal of %s the "
			"lazy size", o->name);
	else
		printf("%s: new journal given the lazy size: %llu blocks "
		       "(%lu MiB)\n", o->name, (unsigned long long)fit.want,
		       fit.want_mib);
}

/* EXT2_MF_MOUNTED / EXT2_MF_BUSY (held O_EXCL by someone) of device */
static int mount_flags(const char *device)
{
	int flags = 0;

	return lj_check_if_mounted(device, &flags) ? 0 : flags;
}

/* Has the file system a journal?  (l, else its home superblock; -1: no
 * file system libext2fs opens) */
static int has_journal(const char *device, const struct lazy_fs *l)
{
	ext2_filsys fs;
	int has;

	if (l->fs)
		return ext2fs_has_feature_journal(l->fs->super);
	if (lj_open_super(device, EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs))
		return -1;
	has = ext2fs_has_feature_journal(fs->super);
	ext2fs_close_free(&fs);
	return has;
}

/*
 * lazy_journal without has_journal (stock tune2fs -O ^has_journal leaves
 * it): there is no log, so nothing can be lost; writing modes clear the
 * flag (making a journal would change the layout behind the user's back)
 * and run the stock check.  Returns -1 when the journal is there.
 */
static int lazy_without_journal(const struct fe_fsck_options *o,
				struct lazy_fs *l)
{
	errcode_t err;

	if (has_journal(o->device, l) != 0)
		return -1;
	lazy_fs_close(l);
	printf("%s: lazy_journal is set but the file system has no journal.  "
	       "Clear lazy_journal? yes\n\n", o->name);
	fflush(stdout);
	err = lj_set_lazy_flag(o->device, 0);
	if (err) {
		com_err(fe_prog, err, "while clearing lazy_journal on %s",
			o->name);
		return FSCK_ERROR;
	}
	if (o->journal_only)
		return FSCK_NONDESTRUCT;
	return lj_stock_run("e2fsck", o->stock_argv) | FSCK_NONDESTRUCT;
}

/*
 * -E journal_only, after the log went home (doc/contract.md §3, flushed): the
 * flag goes too, as the last write, so that every stock e2fsprogs and
 * every kernel accept the file system (stock e2fsck refuses an unknown
 * COMPAT bit).  A crash before it leaves an empty lazy log, which the
 * next run clears the same way.  One line says how to turn it back on.
 */
static int lazy_off_after_migrate(const struct fe_fsck_options *o)
{
	errcode_t err = lj_set_lazy_flag(o->device, 0);

	if (err) {
		com_err(fe_prog, err, "while clearing lazy_journal on %s "
			"(the log is home; tune2fs -O ^lazy_journal %s clears "
			"it)", o->name, o->name);
		return FSCK_ERROR;
	}
	printf("%s: lazy_journal cleared, stock e2fsprogs and any kernel "
	       "accept it; to journal lazily again: tune2fs -O lazy_journal "
	       "%s\n", o->name, o->name);
	return FSCK_OK;
}

/* The refusals before anything is opened; -1 to go on. */
static int refuse_device(const struct fe_fsck_options *o)
{
	/* stock's refusals of a device in use; the writers' exclusive
	 * opens (lj_open_fs, lj_open_super) hold the line after this */
	int mflags = mount_flags(o->device);

	if (mflags & (EXT2_MF_MOUNTED | EXT2_MF_BUSY)) {
		if (!o->preen)
			banner();
		fprintf(stderr, "%s is %s.\n%s: Cannot continue, "
			"aborting.\n\n\n", o->name,
			(mflags & EXT2_MF_MOUNTED) ? "mounted" : "in use",
			fe_prog);
		return FSCK_ERROR;
	}
	if (!o->preen && !o->yes && (!isatty(0) || !isatty(1))) {
		banner();
		fprintf(stderr, "%s: need terminal for interactive repairs\n",
			fe_prog);
		return FSCK_ERROR;
	}
	return -1;
}

/* Everything before the stock check; -1 to go on to it. */
static int lazy_part(struct fe_fsck_options *o, struct lazy_fs *l,
		     int *corrected)
{
	int status;

	l->err = lj_open_fs(o->device, 0, &l->fs);
	if (!l->err)
		l->err = lj_lazy_get_state(l->fs->io, &l->st);
	if (l->err)
		lazy_fs_close(l);
	status = lazy_without_journal(o, l);
	if (status >= 0)
		return status;
	if (!o->compact) {
		status = incomplete_log(o, l, corrected);
		if (status >= 0)
			return status;
	}
	if (o->preen && !o->force && !o->journal_only && !o->lazy_off &&
	    preen_clean(o, l))
		return FSCK_OK;
	if (o->compact)
		return compact(o, l);
	if (o->journal_only)	/* stock is not run: its banner is ours */
		banner();
	status = migrate(o, l);
	if (o->journal_only) {
		if (status < 0)
			status = FSCK_ERROR;
		if (status == FSCK_OK)
			status = lazy_off_after_migrate(o);
		return status == FSCK_OK && *corrected ? FSCK_NONDESTRUCT :
		       status;
	}
	return status > 0 ? status : -1;
}

int fe_fsck_lazy(struct fe_fsck_options *o, char **argv)
{
	struct lazy_fs l = { NULL, NULL, 0 };
	int status, corrected = 0;

	if (o->no)
		return fe_fsck_readonly(o, argv);
	status = refuse_device(o);
	if (status >= 0)
		return status;
	status = lazy_part(o, &l, &corrected);
	lazy_fs_close(&l);
	if (status >= 0)
		return status;
	status = stock_check(o);
	if ((corrected & 2) && status < FSCK_ERROR)
		lazy_size_journal(o);
	return corrected && status < FSCK_ERROR ? status | FSCK_NONDESTRUCT :
	       status;
}
