/*
 * stock.h --- running the stock e2fsprogs binaries.
 *
 * Our front-ends do the lazy part themselves and hand everything else to
 * the stock tool of the same name, found by configure (E2FSPROGS_SBIN).
 */
#ifndef LJ_STOCK_H
#define LJ_STOCK_H

#include <stdio.h>

/* Full path of the stock binary prog ("debugfs", "e2fsck", ...). */
const char *lj_stock_path(const char *prog);
/*
 * Run the stock prog with argv (argv[0] kept: stock names itself after it)
 * and wait;
 * returns its exit status, or 8 (e2fsprogs' operational error) when it
 * cannot be run.  Refuses to run our own executable.
 */
int lj_stock_run(const char *prog, char *const argv[]);
/*
 * lj_stock_run with stdin from /dev/null and stdout and stderr into *out
 * (a temporary file, rewound).
 */
int lj_stock_capture(const char *prog, char *const argv[], FILE **out);
/* The same with stdout into *out and stderr into *err, two temporary
 * files (rewound); on failure to start either may be NULL. */
int lj_stock_capture_split(const char *prog, char *const argv[], FILE **out,
			   FILE **err);
/* Replace this process by the stock prog; returns only on failure (8). */
int lj_stock_exec(const char *prog, char *const argv[]);
/*
 * Does stock prog's option parser accept argv?  prog runs with device
 * (the operand's own string in argv, compared by address) replaced by a
 * path that cannot be opened, stdin from /dev/null.  -1: accepted (its
 * output is dropped).  Otherwise its stdout and stderr are passed on and
 * its exit status returned.  Nothing is opened for writing.
 */
int lj_stock_parse_probe(const char *prog, int argc, char **argv,
			 const char *device);


/*
 * The stock tools under the view object (lj_view.so, lib/view/view.c):
 * LD_PRELOAD gets the object (in front of any preload already there) and
 * LJ_VIEW the mode, "current", "migrated", "debugfs" or "rehearse" (every
 * write kept in memory: the device is never written); the object removes
 * both from the stock process's environment as it starts.  The object is
 * found at $LJ_VIEW_SO when set, in the build tree when this program runs
 * from the build tree, else at $(libdir)/e2fsprogs-lazy/lj_view.so.
 * Same return values as lj_stock_exec / lj_stock_run / lj_stock_capture;
 * a missing view object is said in one line and gives 8.
 */
#define LJ_VIEW_ENV	"LJ_VIEW"
#define LJ_VIEW_SO_ENV	"LJ_VIEW_SO"
const char *lj_view_path(void);
int lj_stock_exec_view(const char *prog, char *const argv[], const char *mode);
int lj_stock_run_view(const char *prog, char *const argv[], const char *mode);
int lj_stock_capture_split_view(const char *prog, char *const argv[],
				const char *mode, FILE **out, FILE **err);

#endif
