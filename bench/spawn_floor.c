/*
 * spawn_floor.c --- the least a front-end that hands the work to a stock
 * e2fsprogs tool can cost: start it the way ours do (lj_stock_run), wait,
 * exit.  bench/mke2fs.sh runs it with stock mke2fs's arguments to show
 * how much of our mke2fs's overhead is the extra process itself.
 *
 * Usage: spawn_floor PROG [ARG...]   (PROG: mke2fs, tune2fs, ...)
 */
#include <stdio.h>

#include "stock.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: spawn_floor PROG [ARG...]\n");
		return 1;
	}
	return lj_stock_run(argv[1], argv + 1);
}
