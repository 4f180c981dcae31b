/*
 * jmap.c --- the map home block -> live journal copy.
 *
 * Built from a scanned log by the jbd2 replay rule: replay writes every tag
 * of every committed transaction in log order, skipping a tag when a revoke
 * record of the same or a newer transaction names its block, or when its
 * data checksum (csum v2/v3) is bad.  The last write wins, so for each home
 * block we walk its tags newest first and take the first one that replay
 * would write.  Revocation is monotone in that walk: once a tag is revoked,
 * every older tag of the same block is too.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lazy_journal.h"
#include "jbd2_format.h"
#include "lj_private.h"

struct revoke_max {		/* newest revoke of one block */
	uint64_t home;
	uint32_t rel;		/* tid - start_tid */
};

struct tag_key {			/* a tag, by home block, newest first */
	uint64_t home;
	uint32_t idx;		/* index in lj_log.tags */
};

static int cmp_tag_key(const void *a, const void *b)
{
	const struct tag_key *ta = a, *tb = b;

	if (ta->home != tb->home)
		return ta->home < tb->home ? -1 : 1;
	return ta->idx < tb->idx ? 1 : (ta->idx > tb->idx ? -1 : 0);
}

static int cmp_revoke(const void *a, const void *b)
{
	const struct revoke_max *ra = a, *rb = b;

	if (ra->home != rb->home)
		return ra->home < rb->home ? -1 : 1;
	return ra->rel < rb->rel ? 1 : (ra->rel > rb->rel ? -1 : 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Newest revoke per block, sorted by block; *n in/out. */
static struct revoke_max *revoke_table(const lj_log *log, size_t *n)
{
	struct revoke_max *r;
	size_t i, out = 0;

	if (ext2fs_get_array(log->nrevokes ? log->nrevokes : 1, sizeof(*r), &r))
		return NULL;
	for (i = 0; i < log->nrevokes; i++) {
		r[i].home = log->revokes[i].home;
		r[i].rel = log->revokes[i].tid - log->start_tid;
	}
	qsort(r, log->nrevokes, sizeof(*r), cmp_revoke);
	for (i = 0; i < log->nrevokes; i++)	/* keep the first (newest) */
		if (i == 0 || r[i].home != r[i - 1].home)
			r[out++] = r[i];
	*n = out;
	return r;
}

static const struct revoke_max *find_revoke(const struct revoke_max *r,
					    size_t n, uint64_t home)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r[mid].home < home)
			lo = mid + 1;
		else if (r[mid].home > home)
			hi = mid;
		else
			return &r[mid];
	}
	return NULL;
}

/* Does the data block of tag t match its tag checksum (csum v2/v3)? */
static errcode_t tag_csum_ok(lj_jmap *m, const struct lj_tag *t,
			     unsigned char *buf, int *ok)
{
	lj_journal *j = m->log->j;
	unsigned char seq[4];
	uint32_t c;
	errcode_t err;

	*ok = 1;
	if (!lj_journal_csum_v23(j))
		return 0;
	err = lj_journal_read(j, t->jblock, 1, buf);
	if (err)
		return err;
	m->data_blocks_read++;
	lj_put_be32(seq, t->tid);
	c = ext2fs_crc32c_le(j->csum_seed, seq, sizeof(seq));
	c = ext2fs_crc32c_le(c, buf, j->blocksize);
	if (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3)
		*ok = c == t->csum;
	else
		*ok = (c & 0xFFFF) == t->csum;
	if (!*ok && !m->bad_csums++)
		snprintf(m->bad_csum_msg, sizeof(m->bad_csum_msg),
			 "invalid checksum of block %llu logged at journal "
			 "block %u in transaction %u", (unsigned long long)t->home,
			 t->jblock, t->tid);
	return 0;
}

/* Walk the tags of each block newest first; emit the copy replay keeps. */
static errcode_t pick_live(lj_jmap *m, const struct tag_key *key,
			   const struct revoke_max *rev, size_t nrev,
			   uint32_t *escaped_tags)
{
	const lj_log *log = m->log;
	unsigned char *buf = NULL;
	size_t i = 0;
	errcode_t err = 0;

	if (log->ntags && lj_journal_csum_v23(log->j)) {
		err = ext2fs_get_mem(log->j->blocksize, &buf);
		if (err)
			return err;
	}
	while (i < log->ntags) {
		uint64_t home = key[i].home;
		const struct revoke_max *r = find_revoke(rev, nrev, home);
		size_t k;

		for (k = i; k < log->ntags && key[k].home == home; k++) {
			const struct lj_tag *t = &log->tags[key[k].idx];
			int ok;

			if (r && t->tid - log->start_tid <= r->rel)
				break;		/* revoked, and so are older */
			err = tag_csum_ok(m, t, buf, &ok);
			if (err)
				goto out;
			if (!ok)
				continue;	/* replay skips it; older wins */
			m->e[m->n].home = home;
			m->e[m->n].jblock = t->jblock;
			m->e[m->n].tid = t->tid;
			if (t->flags & LJ_FLAG_ESCAPE)
				escaped_tags[m->nescaped++] = t->jblock;
			m->n++;
			break;
		}
		while (i < log->ntags && key[i].home == home)
			i++;
	}
out:
	ext2fs_free_mem(&buf);
	return err;
}

/* The reverse index from scratch: entries sorted by journal block. */
static errcode_t index_by_jblock(lj_jmap *m)
{
	uint64_t *key = NULL;
	size_t i;
	errcode_t err;

	err = ext2fs_get_array(m->n ? m->n : 1, sizeof(*key), &key);
	if (!err)
		err = lj_array_resize(&m->by_jblock, m->n, sizeof(uint32_t));
	if (err)
		goto out;
	for (i = 0; i < m->n; i++)
		key[i] = (uint64_t)m->e[i].jblock << 32 | i;
	qsort(key, m->n, sizeof(*key), cmp_u64);
	for (i = 0; i < m->n; i++)
		m->by_jblock[i] = (uint32_t)key[i];
out:
	ext2fs_free_mem(&key);
	return err;
}

errcode_t lj_jmap_build(lj_log *log, int flags, lj_jmap **ret)
{
	struct revoke_max *rev = NULL;
	struct tag_key *key = NULL;
	size_t nrev = 0, i, nt = log->ntags ? log->ntags : 1;
	lj_jmap *m;
	errcode_t err;

	*ret = NULL;
	err = ext2fs_get_memzero(sizeof(*m), &m);
	if (err) {
		lj_log_free(log);
		return err;
	}
	m->log = log;
	if (log->ntags > UINT32_MAX) {
		err = LJ_ET_JOURNAL_TOO_BIG;
		goto fail;
	}
	for (i = 0; i < log->ntags; i++)
		if (log->tags[i].home >= log->j->fs_blocks) {
			err = LJ_ET_TAG_OUT_OF_RANGE;
			goto fail;
		}

	err = ext2fs_get_array(nt, sizeof(*key), &key);
	if (!err)
		err = ext2fs_get_array(nt, sizeof(*m->e), &m->e);
	if (!err)
		err = ext2fs_get_array(nt, sizeof(uint32_t), &m->escaped);
	if (!err && !(rev = revoke_table(log, &nrev)))
		err = EXT2_ET_NO_MEMORY;
	if (err)
		goto fail;
	for (i = 0; i < log->ntags; i++) {
		key[i].home = log->tags[i].home;
		key[i].idx = (uint32_t)i;
	}
	qsort(key, log->ntags, sizeof(*key), cmp_tag_key);

	err = pick_live(m, key, rev, nrev, m->escaped);
	if (err)
		goto fail;
	ext2fs_free_mem(&key);
	ext2fs_free_mem(&rev);

	/* Shrink to what is live (a failure keeps the larger arrays). */
	if (m->n)
		(void)lj_array_resize(&m->e, m->n, sizeof(*m->e));
	if (m->nescaped)
		(void)lj_array_resize(&m->escaped, m->nescaped,
				      sizeof(uint32_t));
	qsort(m->escaped, m->nescaped, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < m->n; i++)
		log->txn[m->e[i].tid - log->start_tid].nlive++;
	err = index_by_jblock(m);
	if (err)
		goto fail;
	m->cap_txn = log->ntxn;
	m->cap_tags = log->ntags;

	if (!(flags & LJ_JMAP_KEEP_TAGS)) {
		ext2fs_free_mem(&log->tags);
		log->ntags = 0;
		m->cap_tags = 0;
	}
	*ret = m;
	return 0;
fail:
	ext2fs_free_mem(&key);
	ext2fs_free_mem(&rev);
	lj_jmap_free(m);
	return err;
}

void lj_jmap_free(lj_jmap *m)
{
	if (!m)
		return;
	lj_log_free(m->log);
	while (m->fix && m->nfix)
		free(m->fix[--m->nfix].data);
	free(m->fix);
	free(m->e);
	free(m->by_jblock);
	free(m->escaped);
	free(m);
}

const struct lj_jmap_entry *lj_jmap_lookup(const lj_jmap *m, uint64_t home)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->e[mid].home < home)
			lo = mid + 1;
		else if (m->e[mid].home > home)
			hi = mid;
		else
			return &m->e[mid];
	}
	return NULL;
}

int lj_jmap_escaped(const lj_jmap *m, uint32_t jblk)
{
	return m->nescaped &&
	       bsearch(&jblk, m->escaped, m->nescaped, sizeof(uint32_t),
		       cmp_u32) != NULL;
}

enum lj_jblock_state lj_jmap_reverse(const lj_jmap *m, uint32_t jblk,
				     uint64_t *home, uint32_t *tid)
{
	const lj_log *log = m->log;
	const struct lj_txn *t;
	size_t lo = 0, hi = m->n, i;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct lj_jmap_entry *e = &m->e[m->by_jblock[mid]];

		if (e->jblock < jblk) {
			lo = mid + 1;
		} else if (e->jblock > jblk) {
			hi = mid;
		} else {
			*home = e->home;
			*tid = e->tid;
			return LJ_JB_LIVE;
		}
	}
	t = lj_log_txn_of_block(log, jblk);
	if (!t)
		return LJ_JB_UNUSED;
	*tid = t->tid;
	for (i = t->tag_first; i < t->tag_first + t->ntags && i < log->ntags; i++)
		if (log->tags[i].jblock == jblk) {
			*home = log->tags[i].home;
			return LJ_JB_STALE;
		}
	return LJ_JB_META;
}

void lj_jmap_stats(const lj_jmap *m, struct lj_jmap_stats *st)
{
	const lj_log *log = m->log;

	memset(st, 0, sizeof(*st));
	st->live = m->n;
	st->txns = log->ntxn;
	st->log_blocks = log->log_blocks;
	st->journal_blocks = log->j ? log->j->last - log->j->first : 0;
	if (log->ntxn) {
		st->oldest_tid = log->txn[0].tid;
		st->newest_tid = log->txn[log->ntxn - 1].tid;
	}
	st->bytes = sizeof(*m) + m->n * (sizeof(*m->e) + sizeof(uint32_t)) +
		    m->nescaped * sizeof(uint32_t);
}

/* ------------------------------------------------------------------ */
/* Keeping the map current while we write the log (log_append.c,       */
/* cleaner.c): every change is merged into the sorted arrays, O(n) plus */
/* sorting what changed, never a re-sort of the whole map.             */

/* The transaction holding live entry e. */
static struct lj_txn *txn_of_entry(lj_jmap *m, const struct lj_jmap_entry *e)
{
	return &m->log->txn[e->tid - m->log->start_tid];
}

/* Sort and drop duplicates; returns the new count. */
static size_t sort_unique_u64(uint64_t *v, size_t n)
{
	size_t i, out = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
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
	qsort(addkey, nadd, sizeof(*addkey), cmp_u64);
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
	qsort(gone, ngone, sizeof(*gone), cmp_u32);
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
	struct tag_key *key = NULL;
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
	qsort(key, t->ntags, sizeof(*key), cmp_tag_key);
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
	qsort(esc, nesc, sizeof(*esc), cmp_u32);
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
