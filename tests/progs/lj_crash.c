/*
 * lj_crash.c --- test helper: run a library operation on the crash
 * model, and build its crash states.
 *
 * Usage:
 *   lj_crash record LOG IMAGE OP [ARG]
 *       Run OP on IMAGE with lj_crash_io_manager as the library's device
 *       manager (lj_io_set_base); every write and flush goes to LOG.
 *       OPs (the library calls of the tools):
 *         migrate        lj_migrate_home (e2fsck -E journal_only, -fy,
 *                        tune2fs -O ^lazy_journal)
 *         compact K      lj_compact (e2fsck -E lazy_compact[=K])
 *         flag-on        lj_set_lazy_flag(1) (tune2fs -O lazy_journal,
 *                        the e2fsck front-end restoring the flag)
 *         flag-off       lj_set_lazy_flag(0) (hiding it)
 *         hide-restore   flag-off then flag-on (e2fsck around stock)
 *         mke2fs-flag    lj_open_super + lj_change_features_close with
 *                        the backups, as mke2fs -O lazy_journal does
 *         data           the lazy channel in data mode (on only around
 *                        the data, as debugfs -w write has it): new
 *                        contents for 8 free blocks (home writes) and for
 *                        the 8 highest free blocks (journaled where the log
 *                        maps them), committed at close with the
 *                        superblock ext2fs_close writes; prints the blocks
 *                        that went home, one a line
 *       The writer's own paths (commit, cleaner, checkpoint) are recorded
 *       by lj_write -X LOG.
 *   lj_crash states LOG NRAND SEED
 *       One line per crash state: "ID KIND EPOCH WHAT".  The writes
 *       between two flushes form an epoch; for each epoch with writes, the
 *       states hold every write of the epochs before it and: each prefix of
 *       its writes, each single write dropped, and NRAND seeded random
 *       subsets.  KIND is "mid" for an epoch ended by a flush, "tail" for
 *       the writes after the last flush (the operation had returned: these
 *       must already be durable), "final" for the state with every write.
 *   lj_crash apply LOG ID NRAND SEED IMAGE
 *       Write crash state ID onto IMAGE (a copy of the image before OP).
 *   lj_crash sample LOG NRAND SEED
 *   lj_crash sample-apply LOG ID NRAND SEED IMAGE
 *       The same for a long record (a mount workload, LJ_CRASH_RECORD in
 *       lib/view/view.c), with fewer states: for each epoch with
 *       writes, the state with none of its writes and, if it has more
 *       than one, the state with all but its first (what a flush is
 *       for: the write right after it, a commit block or a new tail, must
 *       not be the one lost) and NRAND seeded ones, in turn a random
 *       subset, all but one random write, a random prefix; then
 *       "final".  One line per state: "ID KIND EPOCH CUT
 *       WHAT", where CUT is the byte offset in LOG up to which the
 *       device was certainly written when the crash came: the end of the
 *       last write the state holds (or of the flush before its epoch).
 *       Whatever a program saw completed while LOG was no longer than
 *       CUT (an fsync that had returned) must be in the state.
 *   lj_crash unlazy IMAGE
 *       Clear lazy_journal (COMPAT 0x2000) in the primary superblock, raw,
 *       its crc32c redone under metadata_csum: what stock e2fsck needs to
 *       accept the image (as test_lib's clear_compat_bits, without a
 *       debugfs run per crash state).
 *
 * A write is recorded per channel block, so a multi-block write may land
 * in part.  Exit 0, 1 on a failed operation, 16 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <stddef.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>
#include "lazy_journal.h"
#include "crash_io.h"
#include "test_progs.h"

static const char *prog = "lj_crash";

static void usage(void)
{
	fprintf(stderr, "Usage: %s record LOG IMAGE OP [ARG]\n"
		"       %s states|sample LOG NRAND SEED\n"
		"       %s apply|sample-apply LOG ID NRAND SEED IMAGE\n",
		prog, prog, prog);
	exit(16);
}

static unsigned long num(const char *s)
{
	return lj_test_num(s, usage);
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */

static errcode_t op_data(const char *image)
{
	ext2_filsys fs = NULL;
	lj_lazy_state *st;
	unsigned char *buf;
	blk64_t b, homes[16];
	int n = 0, i;
	errcode_t err;

	err = lj_open_fs(image, EXT2_FLAG_RW, &fs);
	if (!err)
		err = lj_lazy_get_state(fs->io, &st);
	if (!err)
		err = ext2fs_read_block_bitmap(fs);
	if (err)
		goto out;
	/* the 8 highest free blocks (where lj_write writes first), and 8
	 * free blocks further down that no transaction logs */
	for (b = ext2fs_blocks_count(fs->super) - 1;
	     b > fs->super->s_first_data_block && n < 16; b--) {
		if (ext2fs_test_block_bitmap2(fs->block_map, b))
			continue;
		if (n < 8 || (b % 3 == 0 && !lj_jmap_lookup(st->jmap, b)))
			homes[n++] = b;
	}
	buf = malloc(fs->blocksize);
	if (!buf) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	/* data mode only around the data, as debugfs -w write does */
	err = lj_lazy_set_mode(fs->io, LJ_LAZY_DATA_HOME, 1);
	for (i = 0; i < n && !err; i++) {
		int home = !lj_jmap_lookup(st->jmap, homes[i]);

		memset(buf, 0xD0 + i, fs->blocksize);
		err = io_channel_write_blk64(fs->io, homes[i], 1, buf);
		if (!err && home)
			printf("%llu\n", (unsigned long long)homes[i]);
	}
	lj_lazy_set_mode(fs->io, LJ_LAZY_DATA_HOME, 0);
	free(buf);
out:
	if (fs) {
		errcode_t e = ext2fs_close_free(&fs);

		if (!err)
			err = e;
	}
	return err;
}

static errcode_t op_mke2fs_flag(const char *image)
{
	ext2_filsys fs;
	errcode_t err = lj_open_super(image, EXT2_FLAG_RW, &fs);

	if (err)
		return err;
	return lj_change_features_close(&fs, 1, LJ_FEATURE_COMPAT_LAZY_JOURNAL,
					0, 0, 0);
}

static int record(int argc, char **argv)
{
	const char *log = argv[0], *image = argv[1], *op = argv[2];
	struct lj_migrate_stats ms;
	struct lj_compact_stats cs;
	errcode_t err;

	lj_io_set_base(lj_crash_io_manager);
	if (!strcmp(op, "migrate") && argc == 3)
		err = lj_migrate_home(image, NULL, NULL, &ms);
	else if (!strcmp(op, "compact") && argc == 4)
		err = lj_compact(image, (uint32_t)num(argv[3]), &cs);
	else if (!strcmp(op, "flag-on") && argc == 3)
		err = lj_set_lazy_flag(image, 1);
	else if (!strcmp(op, "flag-off") && argc == 3)
		err = lj_set_lazy_flag(image, 0);
	else if (!strcmp(op, "hide-restore") && argc == 3) {
		err = lj_set_lazy_flag(image, 0);
		if (!err)
			err = lj_set_lazy_flag(image, 1);
	} else if (!strcmp(op, "mke2fs-flag") && argc == 3)
		err = op_mke2fs_flag(image);
	else if (!strcmp(op, "data") && argc == 3)
		err = op_data(image);
	else
		usage();
	lj_io_set_base(NULL);
	if (err) {
		com_err(prog, err, "while running %s on %s", op, image);
		return 1;
	}
	err = lj_crash_save(log);
	if (err) {
		com_err(prog, err, "while writing %s", log);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Crash states                                                         */

struct rec {
	uint64_t off;
	uint32_t len;		/* 0: flush */
	long data;		/* file offset of the data (its end: + len) */
};

static struct rec *recs;
static size_t nrec;

static void load(const char *path, FILE **fp)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[12];
	size_t cap = 0;

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fread(h, 1, sizeof(h), f) == sizeof(h)) {
		struct rec r = { 0, 0, 0 };
		int k;

		for (k = 7; k >= 0; k--)
			r.off = (r.off << 8) | h[k];
		for (k = 3; k >= 0; k--)
			r.len = (r.len << 8) | h[8 + k];
		r.data = ftell(f);
		if (r.len && fseek(f, r.len, SEEK_CUR)) {
			fprintf(stderr, "%s: %s: truncated\n", prog, path);
			exit(1);
		}
		if (nrec == cap) {
			cap = cap ? 2 * cap : 256;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs) {
				perror(prog);
				exit(1);
			}
		}
		recs[nrec++] = r;
	}
	*fp = f;
}

static uint64_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 11);
}

/*
 * Walk the crash states in their fixed order; fn(arg, id, kind, epoch,
 * what, upto, first, keep) for each: every write before index first,
 * and of [first, upto) those with keep[i - first] set.
 */
typedef void (*state_fn)(void *arg, unsigned long id, const char *kind,
			 unsigned long epoch, const char *what, size_t upto,
			 size_t first, const unsigned char *keep);

static void rnd_seed(unsigned long seed, unsigned long epoch, size_t j)
{
	int i;

	rnd_state = (seed * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)epoch << 20) ^
		    (j + 1);
	for (i = 0; i < 4; i++)
		rnd();
}

/* sample: the states of an epoch of k writes from s (see the usage). */
static unsigned long sample_epoch(unsigned long nrand, unsigned long seed,
				  state_fn fn, void *arg, unsigned long id,
				  const char *kind, unsigned long epoch,
				  size_t s, size_t t, unsigned char *keep)
{
	size_t k = t - s, i, j, x;
	char what[64];

	memset(keep, 0, k);
	snprintf(what, sizeof(what), "prefix 0/%zu", k);
	fn(arg, id++, kind, epoch, what, t, s, keep);
	/* one write: with it, the state is the next epoch's first one */
	if (k > 1) {	/* the write right after the flush lost, the rest not */
		for (i = 0; i < k; i++)
			keep[i] = i != 0;
		snprintf(what, sizeof(what), "without 0/%zu", k);
		fn(arg, id++, kind, epoch, what, t, s, keep);
	}
	for (j = 0; k > 1 && j < nrand; j++) {
		rnd_seed(seed, epoch, j);
		x = rnd() % k;
		switch (j % 3) {
		case 0:
			for (i = 0; i < k; i++)
				keep[i] = rnd() & 1;
			snprintf(what, sizeof(what), "random %zu (seed %lu)",
				 j, seed);
			break;
		case 1:
			for (i = 0; i < k; i++)
				keep[i] = i != x;
			snprintf(what, sizeof(what), "without %zu/%zu", x, k);
			break;
		default:
			x = x ? x : 1;
			for (i = 0; i < k; i++)
				keep[i] = i < x;
			snprintf(what, sizeof(what), "prefix %zu/%zu", x, k);
			break;
		}
		fn(arg, id++, kind, epoch, what, t, s, keep);
	}
	return id;
}

static void walk(int sample, unsigned long nrand, unsigned long seed,
		 state_fn fn, void *arg)
{
	unsigned char *keep = malloc(nrec + 1);
	unsigned long id = 0, epoch = 0;
	size_t s = 0;
	char what[64];

	if (!keep) {
		perror(prog);
		exit(1);
	}
	while (s < nrec) {
		size_t t = s, k, j, i;
		const char *kind;

		while (t < nrec && recs[t].len)
			t++;
		k = t - s;
		kind = t < nrec ? "mid" : "tail";
		if (sample && k) {
			id = sample_epoch(nrand, seed, fn, arg, id, kind,
					  epoch++, s, t, keep);
			s = t < nrec ? t + 1 : t;
			continue;
		}
		for (j = 0; j < k; j++) {	/* prefixes */
			for (i = 0; i < k; i++)
				keep[i] = i < j;
			snprintf(what, sizeof(what), "prefix %zu/%zu", j, k);
			fn(arg, id++, kind, epoch, what, t, s, keep);
		}
		for (j = 0; k > 1 && j + 1 < k; j++) {	/* one dropped (the
							 * last: a prefix) */
			for (i = 0; i < k; i++)
				keep[i] = i != j;
			snprintf(what, sizeof(what), "without %zu/%zu", j, k);
			fn(arg, id++, kind, epoch, what, t, s, keep);
		}
		for (j = 0; k > 2 && j < nrand; j++) {	/* random subsets */
			rnd_seed(seed, epoch, j);
			for (i = 0; i < k; i++)
				keep[i] = rnd() & 1;
			snprintf(what, sizeof(what), "random %zu (seed %lu)", j,
				 seed);
			fn(arg, id++, kind, epoch, what, t, s, keep);
		}
		if (k)
			epoch++;
		s = t < nrec ? t + 1 : t;
	}
	for (s = 0; s < nrec; s++)
		keep[s] = 1;
	fn(arg, id, "final", epoch, "every write", nrec, 0, keep);
	free(keep);
}

static void print_state(void *arg EXT2FS_ATTR((unused)), unsigned long id,
			const char *kind, unsigned long epoch, const char *what,
			size_t upto EXT2FS_ATTR((unused)),
			size_t first EXT2FS_ATTR((unused)),
			const unsigned char *keep EXT2FS_ATTR((unused)))
{
	printf("%lu %s %lu %s\n", id, kind, epoch, what);
}

/* The byte offset in the log where the last record the state holds ends
 * (the flush before its epoch, if it holds none of the epoch's writes). */
static long state_cut(size_t upto, size_t first, const unsigned char *keep)
{
	size_t i;

	for (i = upto; i > first; i--)
		if (keep[i - 1 - first])
			return recs[i - 1].data + (long)recs[i - 1].len;
	return first ? recs[first - 1].data + (long)recs[first - 1].len : 0;
}

static void print_sample(void *arg EXT2FS_ATTR((unused)), unsigned long id,
			 const char *kind, unsigned long epoch,
			 const char *what, size_t upto, size_t first,
			 const unsigned char *keep)
{
	printf("%lu %s %lu %ld %s\n", id, kind, epoch,
	       state_cut(upto, first, keep), what);
}

struct apply {
	unsigned long want;
	FILE *log;
	int fd;
	int done;
};

static void put(struct apply *a, const struct rec *r)
{
	unsigned char *buf;

	if (!r->len)
		return;
	buf = malloc(r->len);
	if (!buf || fseek(a->log, r->data, SEEK_SET) ||
	    fread(buf, 1, r->len, a->log) != r->len ||
	    pwrite(a->fd, buf, r->len, (off_t)r->off) != (ssize_t)r->len) {
		perror(prog);
		exit(1);
	}
	free(buf);
}

static void apply_state(void *arg, unsigned long id,
			const char *kind EXT2FS_ATTR((unused)),
			unsigned long epoch EXT2FS_ATTR((unused)),
			const char *what EXT2FS_ATTR((unused)), size_t upto,
			size_t first, const unsigned char *keep)
{
	struct apply *a = arg;
	size_t i;

	if (id != a->want)
		return;
	for (i = 0; i < upto; i++)
		if (i < first || keep[i - first])
			put(a, &recs[i]);
	a->done = 1;
}

static int unlazy(const char *image)
{
	struct ext2_super_block sb;
	int fd = open(image, O_RDWR);

	if (fd < 0 || pread(fd, &sb, sizeof(sb), SUPERBLOCK_OFFSET) !=
		      (ssize_t)sizeof(sb)) {
		perror(image);
		return 1;
	}
	sb.s_feature_compat &= ~ext2fs_cpu_to_le32(LJ_FEATURE_COMPAT_LAZY_JOURNAL);
	if (sb.s_feature_ro_compat &
	    ext2fs_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		sb.s_checksum = ext2fs_cpu_to_le32(ext2fs_crc32c_le(~0U,
			(unsigned char *)&sb,
			offsetof(struct ext2_super_block, s_checksum)));
	if (pwrite(fd, &sb, sizeof(sb), SUPERBLOCK_OFFSET) !=
	    (ssize_t)sizeof(sb) || close(fd)) {
		perror(image);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	FILE *log;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (argc >= 5 && !strcmp(argv[1], "record"))
		return record(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "unlazy"))
		return unlazy(argv[2]);
	if (argc == 5 && (!strcmp(argv[1], "states") ||
			  !strcmp(argv[1], "sample"))) {
		unsigned long nrand = num(argv[3]), seed = num(argv[4]);
		int sample = !strcmp(argv[1], "sample");

		load(argv[2], &log);
		walk(sample, nrand, seed, sample ? print_sample : print_state,
		     NULL);
		fclose(log);
		return 0;
	}
	if (argc == 7 && (!strcmp(argv[1], "apply") ||
			  !strcmp(argv[1], "sample-apply"))) {
		struct apply a;

		a.want = num(argv[3]);
		a.done = 0;
		load(argv[2], &log);
		a.log = log;
		a.fd = open(argv[6], O_WRONLY);
		if (a.fd < 0) {
			perror(argv[6]);
			return 1;
		}
		walk(!strcmp(argv[1], "sample-apply"), num(argv[4]),
		     num(argv[5]), apply_state, &a);
		if (close(a.fd) || !a.done) {
			fprintf(stderr, "%s: no state %lu\n", prog, a.want);
			return 1;
		}
		fclose(log);
		return 0;
	}
	usage();
	return 16;
}
