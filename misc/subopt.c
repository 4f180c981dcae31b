/*
 * subopt.c --- comma-separated lists of the front-ends (subopt.h).
 */
#include <stdlib.h>
#include <string.h>

#include "subopt.h"

char *fe_list_filter(const char *list, const char *seps, fe_token_fn drop,
		     void *arg)
{
	char *out = malloc(strlen(list) + 1);
	const char *p = list;
	size_t k = 0;

	if (!out)
		return NULL;
	while (*p) {
		size_t len;

		p += strspn(p, seps);
		len = strcspn(p, seps);
		if (len && !drop(p, len, arg)) {
			if (k)
				out[k++] = ',';
			memcpy(out + k, p, len);
			k += len;
		}
		p += len;
	}
	out[k] = '\0';
	return out;
}

int fe_list_count(const char *list, const char *seps, fe_token_fn fn,
		  void *arg)
{
	const char *p = list;
	int n = 0;

	while (*p) {
		size_t len;

		p += strspn(p, seps);
		len = strcspn(p, seps);
		if (len && fn(p, len, arg))
			n++;
		p += len;
	}
	return n;
}

/* fe_token_fn: is the token word? */
static int same_word(const char *tok, size_t len, void *word)
{
	return len == strlen(word) && !strncmp(tok, word, len);
}

int fe_list_has(const char *list, const char *word)
{
	return fe_list_count(list, ",", same_word, (void *)word) > 0;
}

int fe_subopt_key(const char *tok, size_t len, const char *key,
		  const char **val_at)
{
	size_t kl = strlen(key);

	if (len < kl || strncmp(tok, key, kl) != 0)
		return 0;
	if (len == kl) {
		*val_at = NULL;
		return 1;
	}
	if (tok[kl] != '=')
		return 0;
	*val_at = tok + kl + 1;
	return 1;
}

struct lookup {
	const char *key;
	char *val;
	size_t len;
	int found;
};

/* fe_token_fn: note the value of key (the last one wins); never drops. */
static int note_value(const char *tok, size_t tl, void *arg)
{
	struct lookup *l = arg;
	const char *v;
	size_t vl;

	if (!fe_subopt_key(tok, tl, l->key, &v))
		return 0;
	l->found = 1;
	if (!l->val || !l->len)
		return 0;
	vl = v ? tl - (size_t)(v - tok) : 0;
	if (vl >= l->len)
		vl = l->len - 1;
	if (v)
		memcpy(l->val, v, vl);
	l->val[vl] = '\0';
	return 0;
}

int fe_subopt_get(const char *list, const char *key, char *val, size_t len)
{
	struct lookup l = { key, val, len, 0 };

	fe_list_count(list, ",", note_value, &l);
	return l.found;
}

/* fe_token_fn: is the token key[=value]? */
static int is_key(const char *tok, size_t len, void *key)
{
	const char *v;

	return fe_subopt_key(tok, len, key, &v);
}

char *fe_subopt_remove(const char *list, const char *key)
{
	return fe_list_filter(list, ",", is_key, (void *)key);
}
