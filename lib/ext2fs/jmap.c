/*
 * jmap.c --- the map home block -> live journal copy.
 *
 * Built from a scanned log by the jbd2 replay rule: replay writes every tag
 * of every committed transaction in log order, skipping a tag when a revoke
 * record of the same or a newer transaction names its block, or when its
 * data checksum (csum v2/v3) is bad.  The last write wins, so for each home
 * block we walk its tags newest first and take the first one that replay
 * would write.  Revocation is monotone in that walk: once a tag is revoked,
 * every older tag of the same block is too.  Keeping a map current while
 * the writer appends is jmap_update.c's job.
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

int lj_cmp_tag_key(const void *a, const void *b)
{
	const struct lj_tag_key *ta = a, *tb = b;

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

int lj_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

int lj_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Newest revoke per block, sorted by block, in *ret; *n of them. */
static errcode_t revoke_table(const lj_log *log, struct revoke_max **ret,
			      size_t *n)
{
	struct revoke_max *r;
	size_t i, out = 0;
	errcode_t err;

	err = ext2fs_get_array(log->nrevokes ? log->nrevokes : 1, sizeof(*r),
			       &r);
	if (err)
		return err;
	for (i = 0; i < log->nrevokes; i++) {
		r[i].home = log->revokes[i].home;
		r[i].rel = log->revokes[i].tid - log->start_tid;
	}
	qsort(r, log->nrevokes, sizeof(*r), cmp_revoke);
	for (i = 0; i < log->nrevokes; i++)	/* keep the first (newest) */
		if (i == 0 || r[i].home != r[i - 1].home)
			r[out++] = r[i];
	*n = out;
	*ret = r;
	return 0;
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

/* Does buf, the data block of tag t as logged, match t's checksum? */
static int tag_csum_ok(const lj_journal *j, const struct lj_tag *t,
		       const unsigned char *buf)
{
	unsigned char seq[4];
	uint32_t c;

	lj_put_be32(seq, t->tid);
	c = lj_crc32c(j->csum_seed, seq, sizeof(seq));
	c = lj_crc32c(c, buf, j->blocksize);
	if (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3)
		return c == t->csum;
	return (c & 0xFFFF) == t->csum;
}

/* Tag checks of pick_live, by position in the sorted keys. */
enum { CK_TODO, CK_OK, CK_BAD };

struct ck_item {		/* a tag to check, in journal order */
	uint32_t jblock;
	uint32_t kpos;		/* its position in the sorted keys */
};

static int cmp_ck_item(const void *a, const void *b)
{
	const struct ck_item *x = a, *y = b;

	return x->jblock < y->jblock ? -1 : (x->jblock > y->jblock);
}

/* The first tag of the block at key[*k] that replay may write (newest
 * first, not revoked) with no verdict yet, or no more tags of the block
 * to try: key position in *k, 1; 0 when the block is done. */
static int next_candidate(const lj_log *log, const struct lj_tag_key *key,
			  const unsigned char *ck, size_t *k,
			  const struct revoke_max *r)
{
	uint64_t home = key[*k].home;

	for (; *k < log->ntags && key[*k].home == home; ++*k) {
		const struct lj_tag *t = &log->tags[key[*k].idx];

		if (r && t->tid - log->start_tid <= r->rel)
			return 0;	/* revoked, and so are older */
		if (ck[*k] != CK_BAD)
			return ck[*k] == CK_TODO;
	}
	return 0;
}

/*
 * The verdicts (ck[]) of every tag checksum replay's rule needs: per home
 * block, newest first, until one is good.  The data blocks are read in
 * journal order, runs of consecutive journal blocks at once, one round
 * per depth of bad copies (in practice one round).
 */
static errcode_t check_tags(lj_jmap *m, const struct lj_tag_key *key,
			    const struct revoke_max *rev, size_t nrev,
			    unsigned char *ck)
{
	const lj_log *log = m->log;
	lj_journal *j = log->j;
	size_t cap = (1U << 20) / j->blocksize, n, i, k;
	struct ck_item *todo = NULL;
	unsigned char *buf = NULL;
	errcode_t err;

	if (!cap)
		cap = 1;
	err = ext2fs_get_array(log->ntags, sizeof(*todo), &todo);
	if (!err)
		err = ext2fs_get_array(cap, j->blocksize, &buf);
	for (;;) {
		if (err)
			break;
		for (i = 0, n = 0; i < log->ntags; ) {
			const struct revoke_max *r =
				find_revoke(rev, nrev, key[i].home);
			uint64_t home = key[i].home;

			k = i;
			if (next_candidate(log, key, ck, &k, r)) {
				todo[n].jblock = log->tags[key[k].idx].jblock;
				todo[n++].kpos = (uint32_t)k;
			}
			while (i < log->ntags && key[i].home == home)
				i++;
		}
		if (!n)
			break;
		qsort(todo, n, sizeof(*todo), cmp_ck_item);
		for (i = 0; i < n && !err; i += k) {
			for (k = 1; i + k < n && k < cap &&
			     todo[i + k].jblock == todo[i].jblock + k; k++)
				;
			err = lj_journal_read(j, todo[i].jblock, (unsigned)k,
					      buf);
			for (size_t x = 0; !err && x < k; x++) {
				const struct lj_tag *t =
					&log->tags[key[todo[i + x].kpos].idx];

				ck[todo[i + x].kpos] = tag_csum_ok(j, t,
					buf + x * j->blocksize) ? CK_OK : CK_BAD;
				m->data_blocks_read++;
			}
		}
	}
	ext2fs_free_mem(&todo);
	ext2fs_free_mem(&buf);
	return err;
}

/* Walk the tags of each block newest first; emit the copy replay keeps. */
static errcode_t pick_live(lj_jmap *m, const struct lj_tag_key *key,
			   const struct revoke_max *rev, size_t nrev,
			   uint32_t *escaped_tags, int flags)
{
	const lj_log *log = m->log;
	unsigned char *ck = NULL;
	int csum = log->ntags && lj_journal_csum_v23(log->j) &&
		   !(flags & LJ_JMAP_TAGS_CHECKED);
	size_t i = 0;
	errcode_t err = 0;

	if (csum) {
		err = ext2fs_get_memzero(log->ntags, &ck);
		if (!err)
			err = check_tags(m, key, rev, nrev, ck);
		if (err)
			goto out;
	}
	while (i < log->ntags) {
		uint64_t home = key[i].home;
		const struct revoke_max *r = find_revoke(rev, nrev, home);
		size_t k;

		for (k = i; k < log->ntags && key[k].home == home; k++) {
			const struct lj_tag *t = &log->tags[key[k].idx];

			if (r && t->tid - log->start_tid <= r->rel)
				break;		/* revoked, and so are older */
			if (csum && ck[k] == CK_BAD) {
				if (!m->bad_csums++)
					snprintf(m->bad_csum_msg,
						 sizeof(m->bad_csum_msg),
						 "invalid checksum of block "
						 "%llu logged at journal block "
						 "%u in transaction %u",
						 (unsigned long long)t->home,
						 t->jblock, t->tid);
				continue;	/* replay skips it; older wins */
			}
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
	ext2fs_free_mem(&ck);
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
	qsort(key, m->n, sizeof(*key), lj_cmp_u64);
	for (i = 0; i < m->n; i++)
		m->by_jblock[i] = (uint32_t)key[i];
out:
	ext2fs_free_mem(&key);
	return err;
}

errcode_t lj_jmap_build(lj_log *log, int flags, lj_jmap **ret)
{
	struct revoke_max *rev = NULL;
	struct lj_tag_key *key = NULL;
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
	if (!err)
		err = revoke_table(log, &rev, &nrev);
	if (err)
		goto fail;
	for (i = 0; i < log->ntags; i++) {
		key[i].home = log->tags[i].home;
		key[i].idx = (uint32_t)i;
	}
	qsort(key, log->ntags, sizeof(*key), lj_cmp_tag_key);

	err = pick_live(m, key, rev, nrev, m->escaped, flags);
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
	qsort(m->escaped, m->nescaped, sizeof(uint32_t), lj_cmp_u32);
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
		ext2fs_free_mem(&m->fix[--m->nfix].data);
	ext2fs_free_mem(&m->fix);
	ext2fs_free_mem(&m->e);
	ext2fs_free_mem(&m->by_jblock);
	ext2fs_free_mem(&m->escaped);
	ext2fs_free_mem(&m);
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
		       lj_cmp_u32) != NULL;
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
