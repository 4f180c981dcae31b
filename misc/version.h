/*
 * version.h --- -V of our front-ends: our line next to stock's.
 */
#ifndef FE_VERSION_H
#define FE_VERSION_H

#ifndef LJ_VERSION
#define LJ_VERSION "0.1"
#endif
#define LJ_VERSION_DATE "23-Nov-2026"

/*
 * Does argv ask for -V?  Parsed with the stock tool's getopt string
 * (optstring), on a copy, so that "-V" as an option's value is not taken.
 */
int fe_wants_version(int argc, char **argv, const char *optstring);
/* Our line, in stock's style, on stderr: "e2fsprogs-lazy 0.1 (date)". */
void fe_print_version(void);
/* For a tool whose stock version has no -V: our line, then the stock
 * banner line "PROG 1.47.0 (5-Feb-2023)" of the library. */
void fe_print_versions(const char *prog);

#endif
