/*
 * view_mke2fs.c --- stock mke2fs under the view (LJ_VIEW=mke2fs): our
 * `mke2fs -O lazy_journal` in one pass over the device.
 *
 * Stock mke2fs makes the file system as asked; this part of the view
 * object sizes its journal and sets the flag inside that same run, so
 * nothing is opened, written or flushed after it (misc/mke2fs.c).  The
 * device is stock's alone: in this mode the real unix manager serves
 * every open (view.c).
 *
 *  - ext2fs_get_journal_params (stock's figure_journal_size asks it for
 *    the default journal): doc/contract.md §6's size for the block count of the
 *    file system being made, in whole MiB, as `-J size=` would give it;
 *    untouched when the command line gave -J size= (stock applies it).
 *  - the last close of the file system (view_fs.c calls in): unless
 *    lj_lazy_fs_refusal refuses what was made, lazy_journal goes into the
 *    superblock, and stock's own flush writes it to every copy.
 *  - at exit, after stock's last line: "Lazy journal: N blocks (M MiB)"
 *    (not with -q), or the refusal and exit status 1 (lazy_journal not
 *    set), as our mke2fs printed them after a separate pass.
 *
 * Two ways in, by the environment (read and removed at load):
 *
 *  - LJ_MKE2FS_FRONT=PATH: our launcher (misc/mke2fs_launch.c) ran stock
 *    mke2fs with the user's line.  At load the view reads it
 *    (misc/mke2fs_plan.c): a format it can make in this one run has its
 *    line edited in place (lazy tokens out, -j in); anything else is
 *    the front-end's, which is exec'd at PATH with the untouched line
 *    (it refuses, or does more than one pass).
 *  - LJ_MKE2FS=SIZE_MIB:QUIET: the front-end itself ran stock mke2fs
 *    with a line already edited (SIZE_MIB: -J size=, 0 if not given).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>

#include "view.h"
#include "mke2fs_plan.h"

#define LJ_MKE2FS_ENV	"LJ_MKE2FS"
#define LJ_FRONT_ENV	"LJ_MKE2FS_FRONT"
#define FC_RATIO	64	/* EXT2_JOURNAL_TO_FC_BLKS_RATIO */

static unsigned long size_mib;	/* -J size=, or 0 */
static int quiet;
static int closing;		/* the made fs is being closed */
static int closed;		/* ... and its close succeeded */
static const char *why;		/* refused: why */
static blk64_t jblocks;
static unsigned long jmib;

/* At exit: what our mke2fs says after stock's last line. */
static void mke2fs_exit(void)
{
	if (!closed)
		return;
	fflush(stdout);
	if (why) {
		com_err("mke2fs", 0, "%s (lazy_journal not set)", why);
		fflush(NULL);
		_exit(1);	/* FE_EXIT_USAGE */
	}
	if (!quiet)
		printf("Lazy journal: %llu blocks (%lu MiB)\n",
		       (unsigned long long)jblocks, jmib);
}

/*
 * The launcher's line: read it; a one-pass format goes on in this run
 * with the line edited, anything else execs the front-end.
 */
static void read_line(int argc, char **argv, const char *front)
{
	struct mk_request rq;
	struct mk_geometry g;
	int err = mk_parse(argc, argv, &rq);

	if (!err) {
		if (mk_one_pass(&rq, &g) && !mk_argv_to_journal(argc, argv)) {
			size_mib = rq.jopts.size_mib > 0 ?
				   (unsigned long)rq.jopts.size_mib : 0;
			quiet = rq.quiet;
			fe_args_free(&rq.args);
			return;
		}
		fe_args_free(&rq.args);
	}
	execv(front, argv);
	fprintf(stderr, "mke2fs: cannot run %s: %m\n", front);
	_exit(8);
}

void lj_view_mke2fs_setup(int argc, char **argv)
{
	const char *v = getenv(LJ_MKE2FS_ENV);
	char *front = getenv(LJ_FRONT_ENV);

	if (v)
		sscanf(v, "%lu:%d", &size_mib, &quiet);
	else if (front && (front = strdup(front))) {
		unsetenv(LJ_FRONT_ENV);
		read_line(argc, argv, front);
		free(front);
	}
	unsetenv(LJ_MKE2FS_ENV);
	unsetenv(LJ_FRONT_ENV);
	atexit(mke2fs_exit);
}

typedef errcode_t (*params_fn)(struct ext2fs_journal_params *, ext2_filsys);

LJ_EXPORT errcode_t ext2fs_get_journal_params(
	struct ext2fs_journal_params *params, ext2_filsys fs)
{
	unsigned long mib;
	blk64_t blocks;
	errcode_t err;
	LJ_REAL(ext2fs_get_journal_params, params_fn);

	if (!real)
		return EXT2_ET_UNIMPLEMENTED;
	err = real(params, fs);
	if (err || lj_view_mode != LJ_VIEW_MKE2FS || size_mib ||
	    ext2fs_has_feature_journal_dev(fs->super))
		return err;
	blocks = lj_lazy_journal_size(ext2fs_blocks_count(fs->super),
				      fs->blocksize, 0, &mib);
	if (blocks) {
		params->num_journal_blocks = (blk_t)blocks;
		if (params->num_fc_blocks)
			params->num_fc_blocks = (blk_t)(blocks / FC_RATIO);
	}
	return err;
}

void lj_view_mke2fs_closing(ext2_filsys fs)
{
	if (lj_view_mode != LJ_VIEW_MKE2FS || !fs || closing ||
	    !(fs->flags & EXT2_FLAG_RW))
		return;
	closing = 1;
	why = lj_lazy_fs_refusal(fs, 1);
	if (!why && !ext2fs_has_feature_journal(fs->super))
		why = "no journal was created; lazy_journal needs one";
	if (!why) {
		jblocks = lj_lazy_journal_size(ext2fs_blocks_count(fs->super),
					       fs->blocksize, size_mib, &jmib);
		fs->super->s_feature_compat |= LJ_FEATURE_COMPAT_LAZY_JOURNAL;
		ext2fs_mark_super_dirty(fs);
	}
}

void lj_view_mke2fs_closed(errcode_t err)
{
	if (closing == 1)
		closed = !err;
	closing += closing == 1;
}
