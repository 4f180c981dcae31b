/*
 * view_state.c --- what every file of the view reads and sets: the mode
 * the constructor chose (view.c), whether a request of ours failed, and
 * the io options of the open in progress.
 */
#include <stdio.h>
#include <unistd.h>

#include "view.h"

enum lj_view_mode lj_view_mode;
int lj_view_tolerant;
static int view_failed;

void lj_view_failed(void)
{
	view_failed = 1;
}

/* exit() runs this last (registered first): a failed request of ours
 * (jmap, jlookup, a commit) makes the exit status nonzero even where the
 * stock tool would exit 0. */
void lj_view_exit(void)
{
	if (view_failed) {
		fflush(NULL);
		_exit(1);
	}
}

/*
 * ext2fs_open2 applies the io options of a name (IMAGE?offset=N: a file
 * system inside a larger file) only after the manager's open; the view
 * must look at the device through them, so they come from its caller.
 */
static const char *open_options;

const char *lj_view_open_options(const char *opts)
{
	const char *before = open_options;

	open_options = opts;
	return before;
}
