/*
 * running_txn.c --- the running transaction: the copies it holds, sorted
 * by home block, and its revoke records, sorted too (a transaction that
 * reuses freed metadata blocks for data revokes thousands: each lookup
 * is a binary search).  Plain bookkeeping; what the
 * copies and revokes mean to the log is the writer's business.
 */
#include <string.h>

#include "writer_private.h"
#include "lj_private.h"

struct lj_pending *lj_run_find(const struct lj_running *r, uint64_t home,
			       size_t *slot)
{
	size_t lo = 0, hi = r->np;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->p[mid].home < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (slot)
		*slot = lo;
	return lo < r->np && r->p[lo].home == home ? &r->p[lo] : NULL;
}

errcode_t lj_run_add(struct lj_running *r, uint64_t home, const void *data,
		     unsigned char **copy)
{
	struct lj_pending *p;
	size_t i;
	errcode_t err;

	p = lj_run_find(r, home, &i);
	if (!p) {
		err = lj_array_grow(&r->p, &r->capp, r->np + 1, sizeof(*r->p));
		if (err)
			return err;
		p = &r->p[i];
		memmove(p + 1, p, (r->np - i) * sizeof(*p));
		p->home = home;
		err = ext2fs_get_mem(r->bs, &p->data);
		if (err) {
			memmove(p, p + 1, (r->np - i) * sizeof(*p));
			return err;
		}
		r->np++;
	}
	memcpy(p->data, data, r->bs);
	*copy = p->data;
	return 0;
}

void lj_run_drop(struct lj_running *r, uint64_t home)
{
	size_t i;
	struct lj_pending *p = lj_run_find(r, home, &i);

	if (!p)
		return;
	ext2fs_free_mem(&p->data);
	memmove(p, p + 1, (r->np - i - 1) * sizeof(*p));
	r->np--;
}

/* Where home is in the revoke records (sorted), or would go. */
static size_t rev_slot(const struct lj_running *r, uint64_t home)
{
	size_t lo = 0, hi = r->nrev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->rev[mid] < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int lj_run_revoked(const struct lj_running *r, uint64_t home)
{
	size_t i = rev_slot(r, home);

	return i < r->nrev && r->rev[i] == home;
}

errcode_t lj_run_revoke(struct lj_running *r, uint64_t home)
{
	size_t i = rev_slot(r, home);
	errcode_t err;

	if (i < r->nrev && r->rev[i] == home)
		return 0;
	err = lj_array_grow(&r->rev, &r->caprev, r->nrev + 1, sizeof(*r->rev));
	if (err)
		return err;
	memmove(&r->rev[i + 1], &r->rev[i], (r->nrev - i) * sizeof(*r->rev));
	r->rev[i] = home;
	r->nrev++;
	return 0;
}

void lj_run_unrevoke(struct lj_running *r, uint64_t home)
{
	size_t i = rev_slot(r, home);

	if (i < r->nrev && r->rev[i] == home) {
		memmove(&r->rev[i], &r->rev[i + 1],
			(r->nrev - i - 1) * sizeof(*r->rev));
		r->nrev--;
	}
}

void lj_run_clear(struct lj_running *r)
{
	size_t i;

	for (i = 0; i < r->np; i++)
		ext2fs_free_mem(&r->p[i].data);
	r->np = 0;
	r->nrev = 0;
}

void lj_run_free(struct lj_running *r)
{
	lj_run_clear(r);
	ext2fs_free_mem(&r->p);
	ext2fs_free_mem(&r->rev);
	r->capp = r->caprev = 0;
}
