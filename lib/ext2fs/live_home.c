/*
 * live_home.c --- write the live copies of jmap entries home: step 1 of
 * doc/contract.md §3's order, for migration (migrate.c) and for the mount's
 * checkpoint on a file system without lazy_journal (checkpoint.c).
 *
 * Entries are taken in the order given (ascending homes), adjacent homes
 * in one write, the journal copies read in runs; then one flush.  It
 * reads the journal and the jmap only, never the lazy channel.
 */
#include <string.h>

#include "lazy_journal.h"
#include "lj_private.h"

#define MAX_RUN_BLOCKS	256	/* largest single home write */

/* Step 1's writer: the live copies of some entries of st's jmap. */
struct home_run {
	lj_lazy_state *st;
	io_channel rw;
	unsigned int bs;
	unsigned char *buf;	/* MAX_RUN_BLOCKS blocks */
	struct lj_migrate_stats *stats;
};

/*
 * Read the live copies of entries e[0..n) (consecutive homes) into buf:
 * the journal copy, or the bytes replay_homes.c worked out for a log
 * that writes inside the journal.
 */
static errcode_t read_run(struct home_run *mg, const struct lj_jmap_entry *e,
			  size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t k = 1, b;
		const struct lj_jmap_entry *le;
		const unsigned char *data;
		errcode_t err;

		if (lj_jmap_live(mg->st->jmap, e[i].home, &le, &data) ==
		    LJ_LIVE_DATA) {
			memcpy(mg->buf + i * mg->bs, data, mg->bs);
			i++;
			continue;
		}
		while (i + k < n && e[i + k].jblock == e[i].jblock + k &&
		       !mg->st->jmap->nfix)
			k++;	/* journal copies contiguous too: one read */
		err = lj_journal_read(mg->st->journal, e[i].jblock,
				      (unsigned int)k, mg->buf + i * mg->bs);
		if (err)
			return err;
		for (b = i; b < i + k; b++)
			if (lj_jmap_escaped(mg->st->jmap, e[b].jblock))
				lj_put_be32(mg->buf + b * mg->bs,
					    LJ_JBD2_MAGIC);
		i += k;
	}
	return 0;
}

static errcode_t write_runs(struct home_run *mg,
			    const struct lj_jmap_entry *e, size_t count,
			    lj_progress_fn progress, void *arg)
{
	const lj_jmap *m = mg->st->jmap;
	size_t i = 0;
	errcode_t err;

	while (i < count) {
		size_t n = 1;
		const struct lj_jmap_entry *le;
		const unsigned char *data;

		/* Homes inside the journal stay (doc/contract.md §4.3: only
		 * blocks outside the journal must match stock replay; writing
		 * them would destroy copies still to be read), and so do
		 * homes whose replayed bytes are their current home copy. */
		if (lj_jmap_live(m, e[i].home, &le, &data) == LJ_LIVE_HOME) {
			i++;
			continue;
		}
		while (i + n < count && n < MAX_RUN_BLOCKS &&
		       e[i + n].home == e[i].home + n &&
		       lj_jmap_live(m, e[i + n].home, &le, &data) !=
		       LJ_LIVE_HOME)
			n++;
		err = read_run(mg, &e[i], n);
		if (!err)
			lj_sb_keep_flags(mg->buf, mg->bs, e[i].home, n,
					 mg->st->lazy);
		if (!err)
			err = io_channel_write_blk64(mg->rw, e[i].home,
						     (int)n, mg->buf);
		if (err)
			return err;
		mg->stats->writes++;
		mg->stats->blocks += n;
		mg->stats->bytes += (blk64_t)n * mg->bs;
		i += n;
		if (progress)
			progress(arg, i, count);
	}
	return io_channel_flush(mg->rw);
}

errcode_t lj_write_live_home(lj_lazy_state *st, io_channel rw,
			     const struct lj_jmap_entry *e, size_t n,
			     lj_progress_fn progress, void *arg,
			     struct lj_migrate_stats *stats)
{
	struct home_run hr = { 0 };
	errcode_t err;

	hr.st = st;
	hr.rw = rw;
	hr.bs = st->journal->blocksize;
	hr.stats = stats;
	err = ext2fs_get_array(MAX_RUN_BLOCKS, hr.bs, &hr.buf);
	if (!err)
		err = write_runs(&hr, e, n, progress, arg);
	ext2fs_free_mem(&hr.buf);
	return err;
}
