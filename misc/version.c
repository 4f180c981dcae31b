/*
 * version.c --- -V of our front-ends (version.h).
 *
 * Stock prints "e2fsck 1.47.0 (5-Feb-2023)" and the library line; ours
 * prints its own line in the same style first, then execs stock, whose
 * lines name the stock version.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "version.h"

int fe_wants_version(int argc, char **argv, const char *optstring)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int c, found = 0, saved_opterr = opterr;

	if (!copy)
		return 0;
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	opterr = 0;
	optind = 0;	/* glibc: start afresh */
	while ((c = getopt(argc, copy, optstring)) != -1)
		if (c == 'V')
			found = 1;
	optind = 0;	/* glibc: start afresh */
	opterr = saved_opterr;
	free(copy);
	return found;
}

void fe_print_version(void)
{
	fprintf(stderr, "e2fsprogs-lazy %s (%s)\n", LJ_VERSION,
		LJ_VERSION_DATE);
	fflush(stderr);
}

void fe_print_versions(const char *prog)
{
	const char *ver, *date;

	fe_print_version();
	ext2fs_get_library_version(&ver, &date);
	fprintf(stderr, "%s %s (%s)\n", prog, ver, date);
}
