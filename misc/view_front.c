/*
 * view_front.c --- dumpe2fs, e2image, e2freefrag: stock under the view.
 *
 * Built once per tool (-DLJ_FRONT_PROG="dumpe2fs", ...).  The stock tool
 * of the same name runs with the user's arguments, untouched, under the
 * current view (README, "The view"): on a lazy_journal file system every
 * block it reads is the current one (mapped blocks from the journal), so
 * dumpe2fs prints, e2image copies and e2freefrag measures the current
 * metadata; anything else passes through to stock unchanged.  The view
 * never writes (e2image -I on a lazy fs is refused by it).
 *
 * -V: our version line, then stock's.  e2image and e2freefrag have no -V
 * in stock: a lone -V prints the stock line ourselves.
 */
#include <stdio.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "stock.h"
#include "version.h"

#ifndef LJ_FRONT_PROG
#error "LJ_FRONT_PROG must name the stock tool"
#endif
/* Stock option strings (1.47), to find -V as stock would. */
#define DUMPE2FS_OPTS	"bfghimxVo:"

int main(int argc, char **argv)
{
	const char *prog = LJ_FRONT_PROG;

	if (!strcmp(prog, "dumpe2fs")) {
		if (fe_wants_version(argc, argv, DUMPE2FS_OPTS))
			fe_print_version();
	} else if (argc == 2 && !strcmp(argv[1], "-V")) {
		fe_print_versions(prog);
		return 0;
	}
	return lj_stock_exec_view(prog, argv, "current");
}
