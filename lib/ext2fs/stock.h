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

#endif
