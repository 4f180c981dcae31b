/*
 * replay_homes.c --- tags whose home block lies inside the journal.
 *
 * Stock recovery (jbd2's replay pass) walks the log in order and, for each
 * tag that is neither revoked nor bad, reads the journal copy and writes it
 * home at once.  When a home is itself a block of the journal, the write
 * changes a journal block that a later tag may still read: the later home
 * then gets the bytes of the earlier write (or, with csum v2/v3, nothing,
 * because the copy no longer matches its tag checksum).  The jmap alone
 * cannot say that, so for such logs we replay the walk in memory.
 *
 * The state of each jmap home during the walk: not written yet, the
 * on-disk journal copy at some journal block (never changed by us), or
 * bytes held in memory.  A journal block's current contents are those of
 * the home it is (if written), else its on-disk bytes.  At the end, every
 * home outside the journal whose final state is not its jmap copy gets a
 * fix; homes inside the journal are left as they are (the log is emptied
 * after migration, so their bytes do not matter, and not writing them
 * keeps the log readable until then: crash safety).
 *
 * Replay re-reads descriptor, revoke and commit blocks as it goes; a home
 * write that lands on one still ahead makes stock stop part-way with an
 * error.  We do not imitate that half-replay: it is LJ_ET_LOG_SELF_OVERWRITE.
 */
#include <stdlib.h>
#include <string.h>

#include "lazy_journal.h"
#include "jbd2_format.h"
#include "lj_private.h"

struct rev {			/* newest revoke of one block */
	uint64_t home;
	uint32_t rel;		/* tid - start_tid */
};

enum { ST_NONE, ST_DISK, ST_MEM };

struct sim {
	lj_jmap *m;
	lj_journal *j;
	struct rev *rev;
	size_t nrev;
	unsigned char *kind;	/* per jmap entry: ST_* */
	uint32_t *jblk;		/* ST_DISK: journal block */
	unsigned char **mem;	/* ST_MEM: one block */
	unsigned char *buf;	/* scratch block */
};

static int cmp_rev(const void *a, const void *b)
{
	const struct rev *x = a, *y = b;

	if (x->home != y->home)
		return x->home < y->home ? -1 : 1;
	return x->rel < y->rel ? 1 : (x->rel > y->rel ? -1 : 0);
}

static errcode_t build_revokes(struct sim *s)
{
	const lj_log *log = s->m->log;
	size_t i, out = 0;
	errcode_t err = ext2fs_get_array(log->nrevokes ? log->nrevokes : 1,
					 sizeof(*s->rev), &s->rev);

	if (err)
		return err;
	for (i = 0; i < log->nrevokes; i++) {
		s->rev[i].home = log->revokes[i].home;
		s->rev[i].rel = log->revokes[i].tid - log->start_tid;
	}
	qsort(s->rev, log->nrevokes, sizeof(*s->rev), cmp_rev);
	for (i = 0; i < log->nrevokes; i++)
		if (i == 0 || s->rev[i].home != s->rev[i - 1].home)
			s->rev[out++] = s->rev[i];
	s->nrev = out;
	return 0;
}

/* Revoked by a record of the same or a newer transaction? */
static int revoked(const struct sim *s, const struct lj_tag *t)
{
	size_t lo = 0, hi = s->nrev;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->rev[mid].home < t->home)
			lo = mid + 1;
		else if (s->rev[mid].home > t->home)
			hi = mid;
		else
			return t->tid - s->m->log->start_tid <= s->rev[mid].rel;
	}
	return 0;
}

/* Position of journal block b in the log, counted from s_start. */
static uint32_t log_pos(const lj_journal *j, uint32_t b)
{
	return b >= j->start ? b - j->start : (j->last - j->start) +
					      (b - j->first);
}

static long entry_of(const lj_jmap *m, uint64_t home)
{
	const struct lj_jmap_entry *e = lj_jmap_lookup(m, home);

	return e ? (long)(e - m->e) : -1;
}

/* Current bytes of journal block jb into s->buf (as replay would read):
 * a home inside the journal is always held in memory once written. */
static errcode_t read_current(struct sim *s, uint32_t jb)
{
	long i = entry_of(s->m, lj_journal_pblk(s->j, jb));

	if (i >= 0 && s->kind[i] == ST_MEM) {
		memcpy(s->buf, s->mem[i], s->j->blocksize);
		return 0;
	}
	return lj_journal_read(s->j, jb, 1, s->buf);
}

static int csum_ok(const struct sim *s, const struct lj_tag *t)
{
	const lj_journal *j = s->j;
	unsigned char seq[4];
	uint32_t c;

	if (!lj_journal_csum_v23(j))
		return 1;
	lj_put_be32(seq, t->tid);
	c = lj_crc32c(j->csum_seed, seq, sizeof(seq));
	c = lj_crc32c(c, s->buf, j->blocksize);
	if (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3)
		return c == t->csum;
	return (c & 0xFFFF) == t->csum;
}

/* Does writing home h (a journal block) hit a block replay reads later? */
static int hits_meta_ahead(const struct sim *s, const struct lj_tag *t,
			   uint64_t h)
{
	uint32_t jb, tid;
	uint64_t home;

	if (!lj_journal_lblk(s->j, h, &jb) || jb < s->j->first ||
	    jb >= s->j->last)
		return 0;
	if (lj_jmap_reverse(s->m, jb, &home, &tid) != LJ_JB_META)
		return 0;
	return log_pos(s->j, jb) > log_pos(s->j, t->jblock);
}

static errcode_t step(struct sim *s, const struct lj_tag *t)
{
	long i, src;
	int in_j, clobbered;
	errcode_t err;

	if (revoked(s, t))
		return 0;
	i = entry_of(s->m, t->home);
	if (i < 0)
		return 0;	/* every copy bad on disk: replay skips them */
	in_j = lj_journal_lblk(s->j, t->home, NULL);
	src = entry_of(s->m, lj_journal_pblk(s->j, t->jblock));
	clobbered = src >= 0 && s->kind[src] != ST_NONE;
	if (in_j && hits_meta_ahead(s, t, t->home))
		return LJ_ET_LOG_SELF_OVERWRITE;
	err = read_current(s, t->jblock);
	if (err)
		return err;
	if (!csum_ok(s, t))
		return 0;	/* replay skips it: the older write stays */
	if (t->flags & LJ_FLAG_ESCAPE)
		lj_put_be32(s->buf, LJ_JBD2_MAGIC);
	if (!clobbered && !in_j) {
		ext2fs_free_mem(&s->mem[i]);
		s->kind[i] = ST_DISK;
		s->jblk[i] = t->jblock;
		return 0;
	}
	if (!s->mem[i]) {
		err = ext2fs_get_mem(s->j->blocksize, &s->mem[i]);
		if (err)
			return err;
	}
	memcpy(s->mem[i], s->buf, s->j->blocksize);
	s->kind[i] = ST_MEM;
	return 0;
}

static int any_home_in_journal(const lj_jmap *m)
{
	const lj_log *log = m->log;
	size_t i;

	for (i = 0; i < log->ntags; i++)
		if (lj_journal_lblk(log->j, log->tags[i].home, NULL))
			return 1;
	return 0;
}

/* Homes outside the journal whose final state is not their jmap copy. */
static errcode_t collect_fixes(struct sim *s)
{
	lj_jmap *m = s->m;
	size_t i;
	errcode_t err = ext2fs_get_arrayzero(m->n ? m->n : 1,
					     sizeof(*m->fix), &m->fix);

	if (err)
		return err;
	for (i = 0; i < m->n; i++) {
		struct lj_jmap_fix *f = &m->fix[m->nfix];

		if (lj_journal_lblk(s->j, m->e[i].home, NULL)) {
			m->in_journal++;
			continue;
		}
		if (s->kind[i] == ST_DISK && s->jblk[i] == m->e[i].jblock)
			continue;
		f->home = m->e[i].home;
		if (s->kind[i] == ST_MEM) {
			f->data = s->mem[i];
			s->mem[i] = NULL;
		} else if (s->kind[i] == ST_DISK) {
			err = ext2fs_get_mem(s->j->blocksize, &f->data);
			if (err)
				return err;
			err = lj_journal_read(s->j, s->jblk[i], 1, f->data);
			if (err) {
				ext2fs_free_mem(&f->data);
				return err;
			}
			if (lj_jmap_escaped(m, s->jblk[i]))
				lj_put_be32(f->data, LJ_JBD2_MAGIC);
		}
		m->nfix++;
	}
	return 0;
}

errcode_t lj_jmap_resolve_journal_homes(lj_jmap *m)
{
	struct sim s;
	size_t i;
	errcode_t err;

	if (!m->log->j || !m->n || !any_home_in_journal(m))
		return 0;
	memset(&s, 0, sizeof(s));
	s.m = m;
	s.j = m->log->j;
	err = ext2fs_get_arrayzero(m->n, sizeof(*s.kind), &s.kind);
	if (!err)
		err = ext2fs_get_arrayzero(m->n, sizeof(*s.jblk), &s.jblk);
	if (!err)
		err = ext2fs_get_arrayzero(m->n, sizeof(*s.mem), &s.mem);
	if (!err)
		err = ext2fs_get_mem(s.j->blocksize, &s.buf);
	if (!err)
		err = build_revokes(&s);
	for (i = 0; !err && i < m->log->ntags; i++)
		err = step(&s, &m->log->tags[i]);
	if (!err)
		err = collect_fixes(&s);
	for (i = 0; s.mem && i < m->n; i++)
		ext2fs_free_mem(&s.mem[i]);
	ext2fs_free_mem(&s.mem);
	ext2fs_free_mem(&s.kind);
	ext2fs_free_mem(&s.jblk);
	ext2fs_free_mem(&s.buf);
	ext2fs_free_mem(&s.rev);
	return err;
}

enum lj_live_src lj_jmap_live(const lj_jmap *m, uint64_t home,
			      const struct lj_jmap_entry **e,
			      const unsigned char **data)
{
	*e = NULL;
	*data = NULL;
	if (m->in_journal || m->nfix) {
		size_t lo = 0, hi = m->nfix;

		if (lj_journal_lblk(m->log->j, home, NULL))
			return LJ_LIVE_HOME;	/* the journal as it stands */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (m->fix[mid].home < home) {
				lo = mid + 1;
			} else if (m->fix[mid].home > home) {
				hi = mid;
			} else {
				*data = m->fix[mid].data;
				return *data ? LJ_LIVE_DATA : LJ_LIVE_HOME;
			}
		}
	}
	*e = lj_jmap_lookup(m, home);
	return *e ? LJ_LIVE_JOURNAL : LJ_LIVE_HOME;
}
