/*
 * jmap_update.c --- keeping the map current while the writer appends to
 * the log (log_append.c) and the cleaner sends blocks home (cleaner.c).
 *
 * Every change is merged into the sorted arrays of the map (entries by
 * home, the reverse index by journal block, the escaped set): O(n) plus
 * sorting what changed, never a re-sort of the whole map.  The result is
 * the map lj_jmap_build would make from a fresh scan of the new log.
 */
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "lj_private.h"

/* The transaction holding live entry e. */
static struct lj_txn *txn_of_entry(lj_jmap *m, const struct lj_jmap_entry *e)
{
	return &m->log->txn[e->tid - m->log->start_tid];
}

/* Sort and drop duplicates; returns the new count. */
static size_t sort_unique_u64(uint64_t *v, size_t n)
{
	size_t i, out = 0;

	qsort(v, n, sizeof(*v), lj_cmp_u64);
	for (i = 0; i < n; i++)
		if (!out || v[out - 1] != v[i])
			v[out++] = v[i];
	return out;
}

/* Sorted escaped set: drop the sorted gone[], merge in the sorted add[]. */
static errcode_t merge_escaped(lj_jmap *m, const uint32_t *gone, size_t ngone,
			       const uint32_t *add, size_t nadd)
{
	uint32_t *ne;
	size_t i = 0, g = 0, a = 0, out = 0;
	errcode_t err;

	err = ext2fs_get_array(m->nescaped + nadd + 1, sizeof(*ne), &ne);
	if (err)
		return err;
	while (i < m->nescaped || a < nadd) {
		if (a == nadd || (i < m->nescaped && m->escaped[i] < add[a])) {
			uint32_t jb = m->escaped[i++];

			while (g < ngone && gone[g] < jb)
				g++;
			if (g == ngone || gone[g] != jb)
				ne[out++] = jb;
		} else {
			ne[out++] = add[a++];
		}
	}
	ext2fs_free_mem(&m->escaped);
	m->escaped = ne;
	m->nescaped = out;
	return 0;
}

/*
 * Change the map: the entries of the homes in del[] (sorted, unique)
 * leave it, add[] (sorted by home, unique, none of them left in the map)
 * joins it; esc[] lists the journal blocks of add[] stored escaped
 * (sorted).  Entries, reverse index and escaped set are merged.
 */
static errcode_t change_map(lj_jmap *m, const uint64_t *del, size_t ndel,
			    const struct lj_jmap_entry *add, size_t nadd,
			    const uint32_t *esc, size_t nesc)
{
	struct lj_jmap_entry *ne = NULL;
	uint32_t *newidx = NULL, *gone = NULL, *nby = NULL, *addpos = NULL;
	uint64_t *addkey = NULL;
	size_t i = 0, d = 0, a = 0, out = 0, ngone = 0, k, b;
	errcode_t err;

	err = ext2fs_get_array(m->n + nadd + 1, sizeof(*ne), &ne);
	if (!err)
		err = ext2fs_get_array(m->n + nadd + 1, sizeof(*nby), &nby);
	if (!err)
		err = ext2fs_get_array(m->n + 1, sizeof(*newidx), &newidx);
	if (!err)
		err = ext2fs_get_array(m->n + 1, sizeof(*gone), &gone);
	if (!err)
		err = ext2fs_get_array(nadd + 1, sizeof(*addpos), &addpos);
	if (!err)
		err = ext2fs_get_array(nadd + 1, sizeof(*addkey), &addkey);
	if (err)
		goto out;
	/* Entries: one merge of the old ones, del and add, all by home. */
	while (i < m->n || a < nadd) {
		if (a < nadd && (i == m->n || add[a].home < m->e[i].home)) {
			addpos[a] = (uint32_t)out;
			ne[out++] = add[a++];
			continue;
		}
		while (d < ndel && del[d] < m->e[i].home)
			d++;
		if (d < ndel && del[d] == m->e[i].home) {
			txn_of_entry(m, &m->e[i])->nlive--;
			gone[ngone++] = m->e[i].jblock;
			newidx[i++] = UINT32_MAX;
		} else {
			newidx[i] = (uint32_t)out;
			ne[out++] = m->e[i++];
		}
	}
	/* Reverse index: the old order without the gone, renumbered,
	 * merged with the new entries sorted by journal block. */
	for (a = 0; a < nadd; a++)
		addkey[a] = (uint64_t)add[a].jblock << 32 | addpos[a];
	qsort(addkey, nadd, sizeof(*addkey), lj_cmp_u64);
	for (k = 0, a = 0, b = 0; k < m->n || a < nadd;) {
		uint32_t old = k < m->n ? newidx[m->by_jblock[k]] : UINT32_MAX;

		if (k < m->n && old == UINT32_MAX) {
			k++;
		} else if (a < nadd && (k == m->n ||
			   (uint32_t)(addkey[a] >> 32) < ne[old].jblock)) {
			nby[b++] = (uint32_t)addkey[a++];
		} else {
			nby[b++] = old;
			k++;
		}
	}
	qsort(gone, ngone, sizeof(*gone), lj_cmp_u32);
	err = merge_escaped(m, gone, ngone, esc, nesc);
	if (err)
		goto out;
	ext2fs_free_mem(&m->e);
	m->e = ne;
	ne = NULL;
	ext2fs_free_mem(&m->by_jblock);
	m->by_jblock = nby;
	nby = NULL;
	m->n = out;
out:
	ext2fs_free_mem(&ne);
	ext2fs_free_mem(&nby);
	ext2fs_free_mem(&newidx);
	ext2fs_free_mem(&gone);
	ext2fs_free_mem(&addpos);
	ext2fs_free_mem(&addkey);
	return err;
}

/* Append transaction t and its tags to the log's lists. */
static errcode_t log_append_txn(lj_jmap *m, const struct lj_txn *t,
				const struct lj_tag *tags)
{
	lj_log *log = m->log;
	struct lj_txn *nt;
	errcode_t err;

	err = lj_array_grow(&log->txn, &m->cap_txn, log->ntxn + 1,
			    sizeof(*log->txn));
	if (!err)
		err = lj_array_grow(&log->tags, &m->cap_tags,
				    log->ntags + t->ntags, sizeof(*log->tags));
	if (err)
		return err;
	if (log->ntxn == 0)
		log->start_tid = t->tid;
	nt = &log->txn[log->ntxn++];
	*nt = *t;
	nt->tag_first = log->ntags;
	nt->nlive = 0;
	if (t->ntags)
		memcpy(log->tags + log->ntags, tags, t->ntags * sizeof(*tags));
	log->ntags += t->ntags;
	log->log_blocks += t->nblocks;
	log->end_tid = t->tid + 1;
	return 0;
}

errcode_t lj_jmap_add_txn(lj_jmap *m, const struct lj_txn *t,
			  const struct lj_tag *tags, const uint64_t *revokes,
			  size_t nrevokes)
{
	struct lj_tag_key *key = NULL;
	struct lj_jmap_entry *add = NULL;
	uint64_t *del = NULL;
	uint32_t *esc = NULL;
	size_t ndel = 0, nadd = 0, nesc = 0, nrev, i, r = 0;
	errcode_t err;

	err = log_append_txn(m, t, tags);
	if (!err)
		err = ext2fs_get_array(t->ntags + 1, sizeof(*key), &key);
	if (!err)
		err = ext2fs_get_array(t->ntags + 1, sizeof(*add), &add);
	if (!err)
		err = ext2fs_get_array(t->ntags + 1, sizeof(*esc), &esc);
	if (!err)
		err = ext2fs_get_array(t->ntags + nrevokes + 1, sizeof(*del),
				       &del);
	if (err)
		goto out;
	/* Revoke records, sorted: they go first in del. */
	if (nrevokes)	/* revokes may be NULL then (memcpy: UB) */
		memcpy(del, revokes, nrevokes * sizeof(*del));
	nrev = sort_unique_u64(del, nrevokes);
	for (i = 0; i < t->ntags; i++) {
		key[i].home = tags[i].home;
		key[i].idx = (uint32_t)i;
	}
	qsort(key, t->ntags, sizeof(*key), lj_cmp_tag_key);
	/* Per home the newest tag (first in key order); a revoke of this
	 * transaction also cancels its own tags (revoke tid >= tag tid). */
	for (i = 0; i < t->ntags; i++) {
		const struct lj_tag *tg = &tags[key[i].idx];

		if (i && key[i - 1].home == key[i].home)
			continue;
		while (r < nrev && del[r] < tg->home)
			r++;
		if (r < nrev && del[r] == tg->home)
			continue;
		add[nadd].home = tg->home;
		add[nadd].jblock = tg->jblock;
		add[nadd].tid = t->tid;
		if (tg->flags & LJ_FLAG_ESCAPE)
			esc[nesc++] = tg->jblock;
		nadd++;
	}
	/* Old entries of the new homes leave too. */
	for (i = 0; i < nadd; i++)
		del[nrev + i] = add[i].home;
	ndel = sort_unique_u64(del, nrev + nadd);
	qsort(esc, nesc, sizeof(*esc), lj_cmp_u32);
	err = change_map(m, del, ndel, add, nadd, esc, nesc);
	if (!err)
		m->log->txn[m->log->ntxn - 1].nlive = (uint32_t)nadd;
out:
	ext2fs_free_mem(&key);
	ext2fs_free_mem(&add);
	ext2fs_free_mem(&esc);
	ext2fs_free_mem(&del);
	return err;
}

void lj_jmap_drop_oldest(lj_jmap *m)
{
	lj_log *log = m->log;
	const struct lj_txn *t;
	size_t i, ntags;

	if (!log->ntxn)
		return;
	t = &log->txn[0];
	ntags = t->ntags;
	log->log_blocks -= t->nblocks;
	if (log->tags && ntags <= log->ntags) {
		memmove(log->tags, log->tags + ntags,
			(log->ntags - ntags) * sizeof(*log->tags));
		log->ntags -= ntags;
	}
	memmove(log->txn, log->txn + 1, (log->ntxn - 1) * sizeof(*log->txn));
	log->ntxn--;
	for (i = 0; i < log->ntxn; i++)
		log->txn[i].tag_first -= ntags;
	log->start_tid++;
}

errcode_t lj_jmap_unmap(lj_jmap *m, const uint64_t *homes, size_t n)
{
	uint64_t *del;
	errcode_t err;

	err = ext2fs_get_array(n + 1, sizeof(*del), &del);
	if (err)
		return err;
	if (n)
		memcpy(del, homes, n * sizeof(*del));
	n = sort_unique_u64(del, n);
	err = change_map(m, del, n, NULL, 0, NULL, 0);
	ext2fs_free_mem(&del);
	return err;
}
