/*
 * block_set.c --- a set of block ranges, kept sorted by start with no two
 * ranges overlapping or touching: an addition is merged into its place
 * (a lookup between additions, as the lazy channel makes one per block
 * written, never sorts the whole set).  The lazy channel keeps the blocks
 * allocated and those freed since the last commit in such sets.
 */
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "lj_private.h"

/* The number of ranges that start at or before blk. */
static size_t upto(const struct lj_block_set *s, blk64_t blk)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].start <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static blk64_t range_end(const struct lj_block_range *r)
{
	return r->start + r->count;
}

errcode_t lj_bset_add(struct lj_block_set *s, blk64_t start, blk64_t count)
{
	blk64_t end = start + count;
	size_t i, j;
	errcode_t err;

	if (!count)
		return 0;
	i = upto(s, start);
	if (i && range_end(&s->r[i - 1]) >= start) {
		i--;		/* it joins the range before it */
		start = s->r[i].start;
		if (range_end(&s->r[i]) > end)
			end = range_end(&s->r[i]);
	} else {
		/* a new range at i */
		err = lj_array_grow(&s->r, &s->cap, s->n + 1, sizeof(*s->r));
		if (err)
			return err;
		memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(*s->r));
		s->n++;
	}
	/* and swallows the ranges after it that it reaches */
	for (j = i + 1; j < s->n && s->r[j].start <= end; j++)
		if (range_end(&s->r[j]) > end)
			end = range_end(&s->r[j]);
	s->r[i].start = start;
	s->r[i].count = end - start;
	memmove(&s->r[i + 1], &s->r[j], (s->n - j) * sizeof(*s->r));
	s->n -= j - (i + 1);
	return 0;
}

int lj_bset_has(struct lj_block_set *s, blk64_t blk)
{
	size_t i = upto(s, blk);

	return i && blk < range_end(&s->r[i - 1]);
}

void lj_bset_clear(struct lj_block_set *s)
{
	s->n = 0;
}

void lj_bset_free(struct lj_block_set *s)
{
	ext2fs_free_mem(&s->r);
	s->n = s->cap = 0;
}
