/*
 * view_names.c --- the feature name lazy_journal in stock tools' output.
 *
 * Stock libe2p does not know compat bit 13 and prints it as FEATURE_C13
 * (tune2fs -l, dumpe2fs, debugfs stats).  The view object defines
 * e2p_feature2string and e2p_string2feature: the stock binaries and
 * libe2p itself (list_super2 calls it through the PLT) resolve them here
 * first.  lazy_journal is named here; every other feature is libe2p's
 * (dlsym RTLD_NEXT).  Inert processes (LJ_VIEW unset) get libe2p's names.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <strings.h>

#include "view.h"

#define LJ_FEATURE_NAME	"lazy_journal"
#define E2P_FEATURE_COMPAT	0	/* e2p.h */

typedef const char *(*feature2string_fn)(int, unsigned int);
typedef int (*string2feature_fn)(char *, int *, unsigned int *);

LJ_EXPORT const char *e2p_feature2string(int compat, unsigned int mask);
LJ_EXPORT int e2p_string2feature(char *string, int *compat_type,
				 unsigned int *mask);

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

const char *e2p_feature2string(int compat, unsigned int mask)
{
	feature2string_fn real = (feature2string_fn)next("e2p_feature2string");

	if (lj_view_mode != LJ_VIEW_INERT && compat == E2P_FEATURE_COMPAT &&
	    mask == LJ_FEATURE_COMPAT_LAZY_JOURNAL)
		return LJ_FEATURE_NAME;
	return real ? real(compat, mask) : "";
}

int e2p_string2feature(char *string, int *compat_type, unsigned int *mask)
{
	string2feature_fn real = (string2feature_fn)next("e2p_string2feature");

	if (lj_view_mode != LJ_VIEW_INERT &&
	    !strcasecmp(string, LJ_FEATURE_NAME)) {
		*compat_type = E2P_FEATURE_COMPAT;
		*mask = LJ_FEATURE_COMPAT_LAZY_JOURNAL;
		return 0;
	}
	return real ? real(string, compat_type, mask) : 1;
}
