/*
 * view.c --- the lazy channel as a stock binary's unix_io_manager.
 *
 * Built into lj_view.so and preloaded (LD_PRELOAD) into a stock e2fsprogs
 * binary.  Debian's binaries reference libext2fs's exported variable
 * unix_io_manager through a copy relocation, so the definition below wins
 * and every device the stock tool opens comes to view_open.  The real unix
 * manager is libext2fs's own definition (dlsym RTLD_NEXT); the library
 * opens devices only through it (lj_io_base), never through us.
 *
 * Environment contract (read once in the constructor, then the variables
 * are removed from the environment, so that any child of the tool -- the
 * pager debugfs starts, a shell escape -- runs without the view):
 *
 *   LD_PRELOAD=.../lj_view.so   (other preloads in the list are kept)
 *   LJ_VIEW=current    mapped blocks from the journal, the rest from home,
 *                      the journal itself as it is; read-only
 *   LJ_VIEW=migrated   current, and the file system as migration leaves
 *                      it: needs_recovery and lazy_journal clear in the
 *                      primary superblock, the journal an empty log
 *                      (what stock e2fsck -n should check); read-only
 *   LJ_VIEW=debugfs    current for read-only opens; a lazy fs opened for
 *                      writing is opened exclusively and every write is
 *                      journaled (view_debugfs.c adds our requests)
 *   LJ_VIEW=rehearse   migrated, but lazy_journal kept (the fs as tune2fs
 *                      finds it after migrating), and every file opened
 *                      (read-only below) takes writes into memory
 *                      (overlay_io.c): the stock tool runs to its end and
 *                      writes nothing (view_rehearse.c: undo files)
 *   LJ_VIEW=mke2fs     stock mke2fs: the real unix_io_manager; the
 *                      lazy journal's size and flag (view_mke2fs.c)
 *   LJ_VIEW unset or empty: inert, the process's unix_io_manager is the
 *                      real one again.
 *
 * A device that is not a lazy_journal file system (not ext2/3/4 at all,
 * or without the flag) gets the real unix channel, untouched: the tool is
 * stock.  So does a lazy fs whose log is empty (needs_recovery clear) in
 * the current view.  A lazy fs whose log cannot be read fails to open
 * with the journal's error (never stale metadata silently).  In a
 * read-only view writes fail with LJ_ET_WRITE_REFUSED.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>

#include "view.h"
#include "base_io.h"
#include "lj_private.h"

#define LJ_VIEW_ENV	"LJ_VIEW"

struct struct_io_manager lj_view_manager;
static io_manager real_unix;
/* The front-end's checked log (LJ_VIEW_VERIFIED, lazy_journal.h). */
static char verified[LJ_VERIFIED_TOKEN_SIZE];

/* What the stock binary sees as unix_io_manager. */
LJ_EXPORT io_manager unix_io_manager = &lj_view_manager;

enum probe { NOT_LAZY, LAZY_EMPTY, LAZY_LOG };

/*
 * What the primary superblock says, read through io.  An e2image file
 * (its header's magic at byte 0; stock opens one with
 * EXT2_FLAG_IMAGE_FILE: e2image -I, dumpe2fs -i) is never lazy: it holds
 * no log, only metadata as they were taken, though its superblock may
 * carry the flags of the lazy file system they came from.
 */
static enum probe probe(io_channel io)
{
	struct ext2_super_block sb;
	__u32 magic;

	if (io_channel_set_blksize(io, SUPERBLOCK_OFFSET) ||
	    io_channel_read_blk64(io, 0, -(int)sizeof(magic), &magic) ||
	    ext2fs_le32_to_cpu(magic) == EXT2_ET_MAGIC_E2IMAGE ||
	    io_channel_read_blk64(io, 1, -(int)sizeof(sb), &sb) ||
	    ext2fs_le16_to_cpu(sb.s_magic) != EXT2_SUPER_MAGIC ||
	    !(ext2fs_le32_to_cpu(sb.s_feature_compat) &
	      LJ_FEATURE_COMPAT_LAZY_JOURNAL))
		return NOT_LAZY;	/* stock says why, in its own words */
	return (ext2fs_le32_to_cpu(sb.s_feature_incompat) &
		EXT3_FEATURE_INCOMPAT_RECOVER) ? LAZY_LOG : LAZY_EMPTY;
}

/* A lazy channel whose log could not be read: fail, or warn (-c). */
static errcode_t check_log(io_channel io, const char *name)
{
	lj_lazy_state *st;

	if (lj_lazy_get_state(io, &st))
		return 0;
	if (st->journal_err && st->lazy) {
		/* migrated: e2fsck -n checks the home copies (our e2fsck
		 * has said why); lazy_io.c hides only the flag then */
		if (lj_view_mode == LJ_VIEW_MIGRATED)
			return 0;
		if (!lj_view_tolerant)
			return st->journal_err;
		com_err(program_invocation_short_name, st->journal_err,
			"while reading the journal of %s; showing home copies",
			name);
	} else if (st->jmap->log->refused && st->jmap->log->salvaged &&
		   lj_view_mode != LJ_VIEW_MIGRATED) {	/* e2fsck said it */
		fprintf(stderr, "%s: %s: WARNING: journal recovery would "
			"refuse this log; lazy file system: showing the "
			"transactions before the bad one\n",
			program_invocation_short_name, name);
	}
	return 0;
}

static errcode_t open_view(const char *name, int flags, const char *opts,
			   io_channel *ret)
{
	io_channel io;
	enum probe kind;
	int io_flags = flags, lflags = 0, mount_flags = 0;
	errcode_t err;

	/* Opened as stock asks: a file system shown as stored keeps this
	 * channel (one open, as with stock).  Should that open fail, a lazy
	 * fs may still open read-only below, so the probe opens it so, on
	 * the library's base manager: the real unix one. */
	err = lj_io_base()->open(name, flags, &io);
	if (err) {
		io_flags = 0;
		if (lj_io_base()->open(name, io_flags, &io))
			return err;
	}
	/* options stock cannot set are its to report: shown as stored */
	kind = opts && io_channel_set_options(io, opts) ? NOT_LAZY : probe(io);
	if (kind == NOT_LAZY ||
	    (kind == LAZY_EMPTY && (lj_view_mode == LJ_VIEW_CURRENT ||
				    lj_view_mode == LJ_VIEW_REHEARSE))) {
		if (err)
			io_channel_close(io);
		else
			*ret = io;
		return err;
	}

	if (lj_view_mode == LJ_VIEW_MIGRATED)
		lflags |= LJ_OPEN_MIGRATED;
	if (lj_view_mode == LJ_VIEW_REHEARSE)
		lflags |= LJ_OPEN_MIGRATED | LJ_OPEN_KEEP_LAZY;
	if (lj_view_mode == LJ_VIEW_DEBUGFS && (flags & IO_FLAG_RW)) {
		/* Writing: exclusively, never under a mounted fs. */
		if (!ext2fs_check_if_mounted(name, &mount_flags) &&
		    (mount_flags & EXT2_MF_MOUNTED)) {
			io_channel_close(io);
			return LJ_ET_MOUNTED;
		}
		flags |= IO_FLAG_EXCLUSIVE;
	} else {
		flags &= ~(IO_FLAG_RW | IO_FLAG_EXCLUSIVE);
	}
	/* The lazy channel reads through the probe's channel when that was
	 * opened as it would open the device itself. */
	if (io_flags == flags)
		lj_lazy_set_open_device(io);
	else
		io_channel_close(io);
	lj_lazy_set_open_flags(lflags);
	lj_lazy_set_open_verified(verified);
	err = lj_lazy_io_manager->open(name, flags, ret);
	if (!err && opts)
		err = io_channel_set_options(*ret, opts);
	if (!err) {
		err = check_log(*ret, name);
		if (err) {
			io_channel_close(*ret);
			*ret = NULL;
		}
	}
	return err;
}

static errcode_t view_open(const char *name, int flags, io_channel *ret)
{
	const char *opts = lj_view_open_options(NULL);	/* this open's */
	errcode_t err;

	if (lj_view_mode == LJ_VIEW_INERT || !name)
		return real_unix->open(name, flags, ret);
	if (lj_view_mode != LJ_VIEW_REHEARSE)
		return open_view(name, flags, opts, ret);
	/* Rehearsing: opened read-only, every write kept in memory. */
	if (lj_view_rehearse_new_file(name))
		return lj_overlay_open(NULL, name, ret);
	err = open_view(name, flags & ~(IO_FLAG_RW | IO_FLAG_EXCLUSIVE), opts,
			ret);
	if (!err)
		err = lj_overlay_open(*ret, name, ret);
	if (err)
		*ret = NULL;
	return err;
}

/* Drop our object from LD_PRELOAD (keeping any other) and LJ_VIEW. */
static void scrub_environment(void)
{
	const char *pre = getenv("LD_PRELOAD");
	char self[PATH_MAX], tok_real[PATH_MAX];
	Dl_info info;
	char *copy, *out, *tok, *save = NULL;
	int have_self;

	unsetenv(LJ_VIEW_ENV);
	if (!pre)
		return;
	have_self = dladdr((void *)scrub_environment, &info) &&
		    info.dli_fname;
	if (have_self && !strcmp(pre, info.dli_fname)) {
		/* the front-ends' LD_PRELOAD: us alone, by the name the
		 * loader used (no path walk: this runs in every tool) */
		unsetenv("LD_PRELOAD");
		return;
	}
	have_self = have_self && realpath(info.dli_fname, self);
	copy = strdup(pre);
	out = calloc(1, strlen(pre) + 1);
	if (!copy || !out || !have_self) {
		free(copy);
		free(out);
		unsetenv("LD_PRELOAD");
		return;
	}
	for (tok = strtok_r(copy, ": \t", &save); tok;
	     tok = strtok_r(NULL, ": \t", &save)) {
		if (realpath(tok, tok_real) && !strcmp(tok_real, self))
			continue;
		if (*out)
			strcat(out, ":");
		strcat(out, tok);
	}
	if (*out)
		setenv("LD_PRELOAD", out, 1);
	else
		unsetenv("LD_PRELOAD");
	free(copy);
	free(out);
}

/* glibc calls constructors with main's arguments. */
__attribute__((constructor)) static void view_init(int argc, char **argv)
{
	const char *mode = getenv(LJ_VIEW_ENV);
	const char *token = getenv(LJ_VIEW_VERIFIED_ENV);
	io_manager *real = dlsym(RTLD_NEXT, "unix_io_manager");
	io_manager *seen;

	if (token)
		snprintf(verified, sizeof(verified), "%s", token);
	unsetenv(LJ_VIEW_VERIFIED_ENV);
	scrub_environment();
	if (!real || !*real) {
		fprintf(stderr, "lj_view: libext2fs's unix_io_manager not "
			"found; the view is off\n");
		return;
	}
	real_unix = *real;
	lj_view_manager = *real_unix;	/* every entry but open is the real */
	lj_view_manager.open = view_open;
	lj_io_set_base(real_unix);

	if (!mode || !*mode)
		lj_view_mode = LJ_VIEW_INERT;
	else if (!strcmp(mode, "current"))
		lj_view_mode = LJ_VIEW_CURRENT;
	else if (!strcmp(mode, "migrated"))
		lj_view_mode = LJ_VIEW_MIGRATED;
	else if (!strcmp(mode, "debugfs"))
		lj_view_mode = LJ_VIEW_DEBUGFS;
	else if (!strcmp(mode, "rehearse"))
		lj_view_mode = LJ_VIEW_REHEARSE;
	else if (!strcmp(mode, "mke2fs"))
		lj_view_mode = LJ_VIEW_MKE2FS;
	else
		fprintf(stderr, "lj_view: unknown %s=%s; the view is off\n",
			LJ_VIEW_ENV, mode);

	if (lj_view_mode == LJ_VIEW_MKE2FS)
		lj_view_mke2fs_setup(argc, argv);
	if (lj_view_mode == LJ_VIEW_INERT || lj_view_mode == LJ_VIEW_MKE2FS) {
		/* The process's own copy of the variable: the real again. */
		seen = dlsym(RTLD_DEFAULT, "unix_io_manager");
		if (seen)
			*seen = real_unix;
		return;
	}
	add_error_table(&et_ljrn_error_table);
	atexit(lj_view_exit);
}
