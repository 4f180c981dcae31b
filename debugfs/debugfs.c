/*
 * debugfs.c --- our debugfs is stock debugfs under the view.
 *
 * It execs the stock debugfs with the user's arguments, untouched, with
 * the view object preloaded in its debugfs mode (lib/ext2fs/view.c,
 * view_debugfs.c): a lazy_journal file system is read through the jmap
 * (every request is stock's own code and output, on the current
 * metadata), -w journals every write at request boundaries, and the
 * session gains jmap, jlookup and block_dump -H (debugfs/jmap_cmds.c).
 * Anything else -- no lazy_journal, not ext4, no device -- is plain stock
 * debugfs.
 */
#include "stock.h"
#include "version.h"

/* stock debugfs 1.47's getopt string (for -V only) */
#define DEBUGFS_OPTS "iwcR:f:b:s:Vd:Dnz:"

/* Marker configure looks for to refuse our own build as "stock". */
extern const char lj_frontend_marker[];

int main(int argc, char **argv)
{
	(void)lj_frontend_marker;
	if (fe_wants_version(argc, argv, DEBUGFS_OPTS))
		fe_print_version();	/* then stock's own lines */
	return lj_stock_exec_view("debugfs", argv, "debugfs");
}
