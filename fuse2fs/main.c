/*
 * fuse2fs/main.c --- our fuse2fs: the lazy mount, our own FUSE server
 * (fuse2fs/server.c and its files, libfuse 3's low-level API).  On
 * a lazy_journal file system it reads through the jmap, journals metadata
 * and commits between requests, sends file data home ahead of the commit
 * that makes it reachable, and keeps needs_recovery set.
 *
 * On a read-write mount:
 *  - a file system without lazy_journal whose journal needs recovery has
 *    its log migrated home first, as e2fsck -E journal_only does (stock
 *    1.47.0 replays it itself and then crashes);
 *  - a lazy fs whose log the writer would not append to (it ends on
 *    checksum trouble, cannot be read, or has homes inside the journal)
 *    is refused by the server's open in one line, exit 2 (stock's status
 *    for a file system it will not open), nothing written.
 * On plain ext4 with an internal journal a read-write mount journals as
 * the kernel's ext4 does (ordered data, commits, checkpoints home, the log
 * emptied at umount), unless -o nojournal: then it writes in place, as
 * stock does (refused on a lazy_journal file system).  -o commit=N
 * (seconds, as ext4's) and -o nojournal are ours and taken out of the
 * options libfuse sees.
 * A read-write mount of a file system with a feature the server does not
 * write as ext4 does (casefold, encrypt, verity, ea_inode) is refused in
 * one line, exit 32, nothing written (fuse2fs/formats.c); -o ro serves it.
 * So, with exit 2, is a journal with fast commits to replay, or inodes in
 * the orphan file: stock e2fsck -fy finishes those first.
 * The checks of the mount point, of a device already mounted and of what
 * a user mount needs, our --help lines and the line saying how a lazy
 * mount journals are fuse2fs/checks.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <et/com_err.h>

#include "lazy_journal.h"
#include "version.h"
#include "args.h"
#include "checks.h"
#include "exit.h"
#include "server.h"

/* The device as libext2fs names it, with -o offset= as "?offset=N". */
static const char *fs_name(const struct fe_mount_args *a)
{
	static char name[4096];

	if (!a->offset)
		return a->device;
	snprintf(name, sizeof(name), "%s?offset=%llu", a->device, a->offset);
	return name;
}

/* A plain ext4 whose journal needs recovery: its log home first. */
static int recover_plain(const struct fe_mount_args *a)
{
	struct lj_migrate_stats stats;
	struct stat st;
	errcode_t err;

	if (a->mountpoint && stat(a->mountpoint, &st)) {
		perror(a->mountpoint);
		return FE_EXIT_USAGE;
	}
	printf("%s: recovering journal\n", a->device);
	fflush(stdout);
	err = lj_migrate_home(fs_name(a), NULL, NULL, &stats);
	if (err) {
		com_err("fuse2fs", err, "while recovering the journal of %s "
			"(run e2fsck -fy %s)", a->device, a->device);
		return FE_EXIT_OPEN;
	}
	return 0;
}

/* Marker configure looks for to refuse our own build as "stock". */
extern const char lj_frontend_marker[];

/* The device made ready for the server (the command line is read): 0 or
 * the exit status; *p what its superblock says. */
static int ready_device(const struct fe_mount_args *a,
			struct fe_mount_probe *p)
{
	ext2_filsys fs;
	int lazy = 0, recover = 0, unserved = 0, ret;

	memset(p, 0, sizeof(*p));
	/* Anything we cannot open is the server's to report. */
	if (a->device && !lj_open_super(fs_name(a), 0, &fs)) {
		p->lazy = lazy = lj_fs_is_lazy(fs->super);
		p->journal = ext2fs_has_feature_journal(fs->super) &&
			     fs->super->s_journal_inum;
		p->recover = recover = ext2fs_has_feature_journal(fs->super) &&
			ext2fs_has_feature_journal_needs_recovery(fs->super);
		if (!a->ro)
			unserved = fe_mount_unserved(a->device, fs->super);
		if (!a->ro && !unserved &&
		    fe_mount_unrecovered(a->device, fs->super))
			unserved = FE_EXIT_OPEN;
		ext2fs_close_free(&fs);
	}
	if (unserved)
		return unserved;
	if (a->nojournal && lazy) {
		fprintf(stderr, "fuse2fs: -o nojournal: %s is a lazy_journal "
			"file system (its metadata live in the journal)\n",
			a->device);
		return FE_EXIT_USAGE;
	}
	if (!a->ro && !lazy && recover) {
		ret = recover_plain(a);
		if (ret)
			return ret;
		p->recover = 0;
	}
	return 0;
}

/* Everything after the command line is parsed: the exit status.  The
 * whole command line is read (libfuse's options too) before anything is
 * written or announced. */
static int mount_fs(const struct fe_mount_args *a)
{
	struct fe_mount_probe probe;
	struct fs_server *srv;
	int ret;

	if (a->version)
		fe_print_version();
	ret = fe_mount_precheck(a);
	if (ret)
		return ret;
	srv = fs_server_new();
	if (!srv) {
		com_err("fuse2fs", ENOMEM, "while starting the server");
		return FE_EXIT_OPEN;
	}
	ret = fs_session_prepare(srv, a);
	if (ret < 0) {		/* the command line is good: serve */
		ret = ready_device(a, &probe);
		if (!ret)
			ret = fs_serve(srv, fs_name(a), a, &probe);
	}
	fs_server_free(srv);
	return ret;
}

int main(int argc, char **argv)
{
	struct fe_mount_args a;
	int ret = FE_EXIT_USAGE;

	(void)lj_frontend_marker;
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (!fe_mount_args_parse(argc, argv, &a))
		ret = mount_fs(&a);
	fe_mount_args_free(&a);
	return ret;
}
