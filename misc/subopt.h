/*
 * subopt.h --- comma-separated lists of the front-ends: -O feature lists,
 * -J and -E sub-options ("a=1,b,c=2").  One way to walk them, for
 * mke2fs, tune2fs and e2fsck.
 */
#ifndef FE_SUBOPT_H
#define FE_SUBOPT_H

#include <stddef.h>

/* What separates the features of an -O list (e2p's blanks and commas). */
#define FE_FEATURE_SEPS	", \t"

/* Decides about one token (len bytes, not terminated). */
typedef int (*fe_token_fn)(const char *tok, size_t len, void *arg);

/*
 * The tokens of list (split at any byte of seps; empty tokens skipped)
 * for which drop returns 0, joined with ','.  malloc'd; NULL on ENOMEM.
 */
char *fe_list_filter(const char *list, const char *seps, fe_token_fn drop,
		     void *arg);
/* Call fn on every token of list; how many returned non-zero. */
int fe_list_count(const char *list, const char *seps, fe_token_fn fn,
		  void *arg);
/* Is word one of the comma-separated tokens of list (exactly)? */
int fe_list_has(const char *list, const char *word);

/* Is token tok (len bytes) key or key=value?  *val_at: value or NULL. */
int fe_subopt_key(const char *tok, size_t len, const char *key,
		  const char **val_at);
/*
 * Is key[=value] in list?  The value of the last one goes to val (len
 * bytes, truncated; "" without a value); val may be NULL.
 */
int fe_subopt_get(const char *list, const char *key, char *val, size_t len);
/* list without any key[=value] token (malloc'd), NULL on ENOMEM. */
char *fe_subopt_remove(const char *list, const char *key);

#endif
