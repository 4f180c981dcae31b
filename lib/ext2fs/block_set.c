/*
 * block_set.c --- a set of block ranges: added in any order, merged and
 * sorted when first looked up after an addition.  The lazy channel keeps
 * the blocks freed since the last commit in one.
 */
#include <stdlib.h>

#include "lazy_journal.h"
#include "lj_private.h"

static int cmp_range(const void *a, const void *b)
{
	const struct lj_block_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

errcode_t lj_bset_add(struct lj_block_set *s, blk64_t start, blk64_t count)
{
	struct lj_block_range *last = s->n ? &s->r[s->n - 1] : NULL;
	errcode_t err;

	if (!count)
		return 0;
	if (last && last->start + last->count == start) {
		last->count += count;	/* the common case: runs in order */
		return 0;
	}
	err = lj_array_grow(&s->r, &s->cap, s->n + 1, sizeof(*s->r));
	if (err)
		return err;
	s->r[s->n].start = start;
	s->r[s->n].count = count;
	s->n++;
	s->sorted = 0;
	return 0;
}

/* Sort by start and merge overlapping or touching ranges. */
static void normalise(struct lj_block_set *s)
{
	size_t i, out = 0;

	qsort(s->r, s->n, sizeof(*s->r), cmp_range);
	for (i = 0; i < s->n; i++) {
		struct lj_block_range *o = &s->r[out - (out > 0)];

		if (out && s->r[i].start <= o->start + o->count) {
			blk64_t end = s->r[i].start + s->r[i].count;

			if (end > o->start + o->count)
				o->count = end - o->start;
		} else {
			s->r[out++] = s->r[i];
		}
	}
	s->n = out;
	s->sorted = 1;
}

int lj_bset_has(struct lj_block_set *s, blk64_t blk)
{
	size_t lo = 0, hi;

	if (!s->n)
		return 0;
	if (!s->sorted)
		normalise(s);
	hi = s->n;
	while (lo < hi) {	/* the first range starting after blk */
		size_t mid = (lo + hi) / 2;

		if (s->r[mid].start <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && blk < s->r[lo - 1].start + s->r[lo - 1].count;
}

void lj_bset_clear(struct lj_block_set *s)
{
	s->n = 0;
	s->sorted = 1;
}

void lj_bset_free(struct lj_block_set *s)
{
	ext2fs_free_mem(&s->r);
	s->n = s->cap = 0;
	s->sorted = 1;
}
