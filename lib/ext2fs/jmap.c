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

static const lj_log *sort_log;	/* qsort has no context argument */

/* Tags by home block, newest (latest in the log) first. */
static int cmp_tag_idx(const void *a, const void *b)
{
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct lj_tag *ta = &sort_log->tags[ia], *tb = &sort_log->tags[ib];

	if (ta->home != tb->home)
		return ta->home < tb->home ? -1 : 1;
	return ia < ib ? 1 : (ia > ib ? -1 : 0);
}

static int cmp_revoke(const void *a, const void *b)
{
	const struct revoke_max *ra = a, *rb = b;

	if (ra->home != rb->home)
		return ra->home < rb->home ? -1 : 1;
	return ra->rel < rb->rel ? 1 : (ra->rel > rb->rel ? -1 : 0);
}

static const struct lj_jmap_entry *entries_sort_base;

static int cmp_by_jblock(const void *a, const void *b)
{
	uint32_t ja = entries_sort_base[*(const uint32_t *)a].jblock;
	uint32_t jb = entries_sort_base[*(const uint32_t *)b].jblock;

	return ja < jb ? -1 : (ja > jb ? 1 : 0);
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

	r = malloc((log->nrevokes ? log->nrevokes : 1) * sizeof(*r));
	if (!r)
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
static errcode_t pick_live(lj_jmap *m, const uint32_t *idx,
			   const struct revoke_max *rev, size_t nrev,
			   uint32_t *escaped_tags)
{
	const lj_log *log = m->log;
	unsigned char *buf = NULL;
	size_t i = 0;
	errcode_t err = 0;

	if (log->ntags && lj_journal_csum_v23(log->j)) {
		buf = malloc(log->j->blocksize);
		if (!buf)
			return EXT2_ET_NO_MEMORY;
	}
	while (i < log->ntags) {
		uint64_t home = log->tags[idx[i]].home;
		const struct revoke_max *r = find_revoke(rev, nrev, home);
		size_t k;

		for (k = i; k < log->ntags && log->tags[idx[k]].home == home; k++) {
			const struct lj_tag *t = &log->tags[idx[k]];
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
		while (i < log->ntags && log->tags[idx[i]].home == home)
			i++;
	}
out:
	free(buf);
	return err;
}

errcode_t lj_jmap_build(lj_log *log, int flags, lj_jmap **ret)
{
	struct revoke_max *rev = NULL;
	uint32_t *idx = NULL;
	size_t nrev = 0, i;
	lj_jmap *m;
	errcode_t err;

	*ret = NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		lj_log_free(log);
		return EXT2_ET_NO_MEMORY;
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

	err = EXT2_ET_NO_MEMORY;
	idx = malloc((log->ntags ? log->ntags : 1) * sizeof(*idx));
	rev = revoke_table(log, &nrev);
	m->e = malloc((log->ntags ? log->ntags : 1) * sizeof(*m->e));
	m->escaped = malloc((log->ntags ? log->ntags : 1) * sizeof(uint32_t));
	if (!idx || !rev || !m->e || !m->escaped)
		goto fail;
	for (i = 0; i < log->ntags; i++)
		idx[i] = (uint32_t)i;
	sort_log = log;
	qsort(idx, log->ntags, sizeof(*idx), cmp_tag_idx);
	sort_log = NULL;

	err = pick_live(m, idx, rev, nrev, m->escaped);
	if (err)
		goto fail;
	free(idx);
	free(rev);
	idx = NULL;
	rev = NULL;

	/* Shrink to what is live; add the reverse index. */
	if (m->n) {
		struct lj_jmap_entry *e = realloc(m->e, m->n * sizeof(*e));

		if (e)
			m->e = e;
	}
	if (m->nescaped) {
		uint32_t *e = realloc(m->escaped, m->nescaped * sizeof(*e));

		if (e)
			m->escaped = e;
	}
	qsort(m->escaped, m->nescaped, sizeof(uint32_t), cmp_u32);
	m->by_jblock = malloc((m->n ? m->n : 1) * sizeof(uint32_t));
	if (!m->by_jblock) {
		err = EXT2_ET_NO_MEMORY;
		goto fail;
	}
	for (i = 0; i < m->n; i++) {
		m->by_jblock[i] = (uint32_t)i;
		log->txn[m->e[i].tid - log->start_tid].nlive++;
	}
	entries_sort_base = m->e;
	qsort(m->by_jblock, m->n, sizeof(uint32_t), cmp_by_jblock);
	entries_sort_base = NULL;

	if (!(flags & LJ_JMAP_KEEP_TAGS)) {
		free(log->tags);
		log->tags = NULL;
		log->ntags = 0;
	}
	*ret = m;
	return 0;
fail:
	free(idx);
	free(rev);
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
/* Keeping the map current while we write the log (writer.c)           */

static int cmp_tag_home(const void *a, const void *b)
{
	const struct lj_tag *x = a, *y = b;

	return x->home < y->home ? -1 : (x->home > y->home ? 1 : 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

static int grow_array(void **arr, size_t n, size_t add, size_t size)
{
	void *p = realloc(*arr, (n + add ? n + add : 1) * size);

	if (!p)
		return -1;
	*arr = p;
	return 0;
}

/* Rebuild the reverse index after the entries changed. */
static errcode_t reindex(lj_jmap *m)
{
	uint32_t *idx = realloc(m->by_jblock, (m->n ? m->n : 1) * sizeof(*idx));
	size_t i;

	if (!idx)
		return EXT2_ET_NO_MEMORY;
	m->by_jblock = idx;
	for (i = 0; i < m->n; i++)
		idx[i] = (uint32_t)i;
	entries_sort_base = m->e;
	qsort(idx, m->n, sizeof(*idx), cmp_by_jblock);
	entries_sort_base = NULL;
	return 0;
}

/* The transaction holding live entry e. */
static struct lj_txn *txn_of_entry(lj_jmap *m, const struct lj_jmap_entry *e)
{
	return &m->log->txn[e->tid - m->log->start_tid];
}

errcode_t lj_jmap_add_txn(lj_jmap *m, const struct lj_txn *t,
			  const struct lj_tag *tags, const uint64_t *revokes,
			  size_t nrevokes)
{
	lj_log *log = m->log;
	struct lj_tag *nt = NULL;
	uint64_t *rv = NULL;
	struct lj_jmap_entry *ne = NULL;
	uint32_t *nesc = NULL;
	size_t i = 0, k = 0, r = 0, out = 0, nesc_n = 0;
	errcode_t err = EXT2_ET_NO_MEMORY;

	if (log->ntxn == 0)
		log->start_tid = t->tid;
	if (grow_array((void **)&log->txn, log->ntxn, 1, sizeof(*log->txn)) ||
	    grow_array((void **)&log->tags, log->ntags, t->ntags,
			sizeof(*log->tags)))
		return EXT2_ET_NO_MEMORY;
	log->txn[log->ntxn] = *t;
	log->txn[log->ntxn].tag_first = log->ntags;
	log->txn[log->ntxn].nlive = 0;
	log->ntxn++;
	memcpy(log->tags + log->ntags, tags, t->ntags * sizeof(*tags));
	log->ntags += t->ntags;
	log->log_blocks += t->nblocks;
	log->end_tid = t->tid + 1;

	nt = malloc((t->ntags ? t->ntags : 1) * sizeof(*nt));
	rv = malloc((nrevokes ? nrevokes : 1) * sizeof(*rv));
	ne = malloc((m->n + t->ntags + 1) * sizeof(*ne));
	nesc = malloc((m->nescaped + t->ntags + 1) * sizeof(*nesc));
	if (!nt || !rv || !ne || !nesc)
		goto out;
	memcpy(nt, tags, t->ntags * sizeof(*nt));
	qsort(nt, t->ntags, sizeof(*nt), cmp_tag_home);
	if (nrevokes)	/* revokes may be NULL then (memcpy: UB) */
		memcpy(rv, revokes, nrevokes * sizeof(*rv));
	qsort(rv, nrevokes, sizeof(*rv), cmp_u64);

	/* Merge: old entries, new tags; a revoke of this transaction also
	 * cancels its own tags (revoke tid >= tag tid). */
	while (i < m->n || k < t->ntags) {
		uint64_t home = (k == t->ntags || (i < m->n &&
				 m->e[i].home < nt[k].home)) ?
				m->e[i].home : nt[k].home;
		int old = i < m->n && m->e[i].home == home;
		int new = k < t->ntags && nt[k].home == home;
		int revoked;

		while (r < nrevokes && rv[r] < home)
			r++;
		revoked = r < nrevokes && rv[r] == home;
		if (old && (new || revoked))
			txn_of_entry(m, &m->e[i])->nlive--;
		if (old && !new && !revoked) {
			ne[out++] = m->e[i];
			if (lj_jmap_escaped(m, m->e[i].jblock))
				nesc[nesc_n++] = m->e[i].jblock;
		} else if (new && !revoked) {
			ne[out].home = home;
			ne[out].jblock = nt[k].jblock;
			ne[out].tid = t->tid;
			if (nt[k].flags & LJ_FLAG_ESCAPE)
				nesc[nesc_n++] = nt[k].jblock;
			out++;
			log->txn[log->ntxn - 1].nlive++;
		}
		if (old)
			i++;
		while (k < t->ntags && nt[k].home == home)
			k++;	/* the last copy of a home in a txn wins */
	}
	free(m->e);
	m->e = ne;
	ne = NULL;
	m->n = out;
	free(m->escaped);
	qsort(nesc, nesc_n, sizeof(*nesc), cmp_u32);
	m->escaped = nesc;
	nesc = NULL;
	m->nescaped = nesc_n;
	err = reindex(m);
out:
	free(nt);
	free(rv);
	free(ne);
	free(nesc);
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
	size_t i, out = 0, k, esc = 0;

	for (i = 0; i < m->n; i++) {
		int gone = 0;

		for (k = 0; k < n && !gone; k++)
			gone = m->e[i].home == homes[k];
		if (gone) {
			txn_of_entry(m, &m->e[i])->nlive--;
			continue;
		}
		m->e[out++] = m->e[i];
	}
	m->n = out;
	/* Escaped copies that are no longer live leave the set. */
	for (i = 0; i < m->nescaped; i++) {
		int live = 0;

		for (k = 0; k < m->n && !live; k++)
			live = m->e[k].jblock == m->escaped[i];
		if (live)
			m->escaped[esc++] = m->escaped[i];
	}
	m->nescaped = esc;
	return reindex(m);
}
