/*
 * lj_write.c --- test helper: append transactions with the lazy writer.
 *
 * Usage: lj_write [-s SEED] [-n NTXN] [-m MAXBLOCKS] [-b BIG] [-h NHOMES]
 *                 [-c] [-o] [-C] [-X LOG] IMAGE
 *
 * Opens IMAGE for writing through the lazy channel (lj_open_fs with
 * EXT2_FLAG_RW) and commits, through lj_writer_*:
 *   NTXN random transactions (default 0) of 1..MAXBLOCKS (default 12)
 *     blocks among NHOMES (default 64) home blocks, mostly the first 16
 *     (hot), now and then a revoke, or a revoke and a new copy of the same
 *     block in one transaction; one block in 13 starts with the jbd2 magic
 *     (stored escaped); with -o only the 16 hot homes;
 *   then, with -b, one transaction of the first BIG homes;
 *   then, with -C, a checkpoint (every live block home, the log emptied).
 * The homes are the NHOMES highest free blocks of the file system, so the
 * file system stays consistent whatever they hold.  Contents depend only
 * on SEED (default 1), the transaction number and the block: two runs with
 * the same arguments on the same image write the same bytes.  The cleaner
 * runs by itself when the log is full.
 *
 * Prints one line of the writer's statistics.  Exit 0, or 8 on error.
 * With -X LOG the device is written through lj_crash_io_manager and its
 * record of writes and flushes is saved to LOG (see lj_crash.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>
#include "lazy_journal.h"
#include "crash_io.h"
#include "test_progs.h"

static const char *prog = "lj_write";
static uint32_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245U + 12345U;
	return (rnd_state >> 8) & 0xFFFFFF;
}

static void fill(unsigned char *buf, unsigned int bs, uint64_t home,
		 uint32_t seed, uint32_t txn)
{
	lj_test_pattern(buf, bs, home, seed, txn);
	lj_put_be32(buf, 0x4C570000U | (txn & 0xFFFF));	/* "LW" */
}

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-s SEED] [-n NTXN] [-m MAXBLOCKS] [-b BIG] "
		"[-h NHOMES] [-c] [-o] [-C] [-X LOG] IMAGE\n", prog);
	exit(16);
}

static unsigned long num(const char *s)
{
	return lj_test_num(s, usage);
}

int main(int argc, char **argv)
{
	unsigned long ntxn = 0, maxb = 12, big = 0, nhomes = 64, seed = 1, t;
	int ckpt = 0, cold = 0, hot = 0, c, n = 0;
	const char *xlog = NULL;
	ext2_filsys fs = NULL;
	lj_lazy_state *st;
	const struct lj_writer_stats *s;
	lj_writer *w;
	uint64_t *home;
	unsigned char *buf;
	errcode_t err;
	blk64_t b;

	while ((c = getopt(argc, argv, "s:n:m:b:h:coCX:")) != EOF) {
		switch (c) {
		case 's': seed = num(optarg); break;
		case 'n': ntxn = num(optarg); break;
		case 'm': maxb = num(optarg); break;
		case 'b': big = num(optarg); break;
		case 'h': nhomes = num(optarg); break;
		case 'C': ckpt = 1; break;
		case 'c': cold = 1; break;
		case 'o': hot = 1; break;
		case 'X': xlog = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !maxb || nhomes < 17 || big > nhomes)
		usage();
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	rnd_state = (uint32_t)seed;
	if (xlog)
		lj_io_set_base(lj_crash_io_manager);

	err = lj_open_fs(argv[optind], EXT2_FLAG_RW, &fs);
	if (!err)
		err = lj_lazy_get_state(fs->io, &st);
	if (!err)
		err = ext2fs_read_block_bitmap(fs);
	if (err) {
		com_err(prog, err, "while opening %s", argv[optind]);
		return 8;
	}
	w = lj_lazy_writer(fs->io);
	home = calloc(nhomes, sizeof(*home));
	buf = malloc(fs->blocksize);
	if (!w || !home || !buf) {
		fprintf(stderr, "%s: no writer or out of memory\n", prog);
		return 8;
	}
	for (b = ext2fs_blocks_count(fs->super) - 1;
	     b > fs->super->s_first_data_block && (unsigned long)n < nhomes; b--)
		if (!ext2fs_test_block_bitmap2(fs->block_map, b))
			home[n++] = b;
	if ((unsigned long)n < nhomes) {
		fprintf(stderr, "%s: not enough free blocks\n", prog);
		return 8;
	}

	for (t = 16; cold && t < nhomes && !err; t++) {
		fill(buf, fs->blocksize, home[t], (uint32_t)seed + 3,
		     (uint32_t)t);
		err = lj_writer_add(w, home[t], buf);
		if (!err)
			err = lj_writer_commit(w);
	}
	for (t = 0; t < ntxn && !err; t++) {
		unsigned long k = 1 + rnd() % maxb, j;

		for (j = 0; j < k && !err; j++) {
			unsigned long i = rnd() % 4 || hot ? rnd() % 16 :
					  16 + rnd() % (nhomes - 16);

			fill(buf, fs->blocksize, home[i], (uint32_t)seed,
			     (uint32_t)t);
			if (rnd() % 13 == 0)
				lj_put_be32(buf, LJ_JBD2_MAGIC);
			err = lj_writer_add(w, home[i], buf);
		}
		if (!err && rnd() % 4 == 0)
			err = lj_writer_revoke(w, home[rnd() % 16]);
		if (!err && rnd() % 6 == 0) {
			unsigned long i = rnd() % 16;

			err = lj_writer_revoke(w, home[i]);
			fill(buf, fs->blocksize, home[i], (uint32_t)seed + 1,
			     (uint32_t)t);
			if (!err)
				err = lj_writer_add(w, home[i], buf);
		}
		if (!err)
			err = lj_writer_commit(w);
	}
	for (t = 0; t < big && !err; t++) {
		fill(buf, fs->blocksize, home[t], (uint32_t)seed + 2,
		     (uint32_t)(ntxn + t));
		if (t % 11 == 3)
			lj_put_be32(buf, LJ_JBD2_MAGIC);
		err = lj_writer_add(w, home[t], buf);
	}
	if (!err)
		err = lj_writer_commit(w);
	if (!err && ckpt)
		err = lj_writer_checkpoint(w);
	if (err) {
		com_err(prog, err, "while writing the log of %s", argv[optind]);
		return 8;
	}
	s = lj_writer_stats(w);
	printf("%s: %llu txns, %llu journal blocks written, %llu relogged, "
	       "%llu sent home, %llu tail moves, %zu live mappings\n", prog,
	       (unsigned long long)s->txns,
	       (unsigned long long)s->journal_blocks,
	       (unsigned long long)s->relogged,
	       (unsigned long long)s->sent_home,
	       (unsigned long long)s->tail_moves, st->jmap->n);
	err = ext2fs_close_free(&fs);
	if (err) {
		com_err(prog, err, "while closing %s", argv[optind]);
		return 8;
	}
	free(home);
	free(buf);
	if (xlog) {
		lj_io_set_base(NULL);
		err = lj_crash_save(xlog);
		if (err) {
			com_err(prog, err, "while writing %s", xlog);
			return 8;
		}
	}
	return 0;
}
