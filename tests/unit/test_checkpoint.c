/*
 * test_checkpoint.c --- the writer on a plain ext4 (no lazy_journal):
 * committed blocks checkpointed home as the log fills (checkpoint.c), and
 * the log emptied at umount (lj_writer_checkpoint_all).  Oracles: the
 * model of unit_writer.h (a fresh scan gives the writer's map back, every
 * block reads as written last, home copies equal the model) and stock
 * e2fsck: its replay of the log left mid-way gives the model at home, and
 * once the log is emptied it finds a clean file system with nothing to
 * recover, its journal_only run changing no byte.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit_writer.h"

/* Exit status of stock e2fsck OPTS on path. */
static int stock_e2fsck(const char *opts, const char *path)
{
	char cmd[1500];
	int rc;

	snprintf(cmd, sizeof(cmd), "'%s/e2fsck' %s '%s' >/dev/null 2>&1",
		 ut_sbin_dir(), opts, path);
	rc = system(cmd);
	ck_assert_msg(rc != -1 && WIFEXITED(rc), "cannot run %s", cmd);
	return WEXITSTATUS(rc);
}

/* Home blocks of the model in the image file path equal the model. */
static void check_home_of(const char *path, const wt *t, const char *when)
{
	unsigned char *buf = wt_xmalloc(t->bs);
	int fd = open(path, O_RDONLY), i;

	ck_assert_int_ge(fd, 0);
	for (i = 0; i < NH; i++) {
		ck_assert_int_eq(pread(fd, buf, t->bs,
				       (off_t)(t->home[i] * t->bs)),
				 (ssize_t)t->bs);
		ck_assert_msg(!memcmp(buf, t->model[i], t->bs),
			      "%s: block %llu not as committed", when,
			      (unsigned long long)t->home[i]);
	}
	close(fd);
	free(buf);
}

/* The home superblock's needs_recovery. */
static int needs_recovery(ut_img *img)
{
	struct ext2_super_block sb;

	ck_assert_int_eq(pread(img->fd, &sb, sizeof(sb), SUPERBLOCK_OFFSET),
			 (ssize_t)sizeof(sb));
	return ext2fs_has_feature_journal_needs_recovery(&sb);
}

static int same_file(const char *a, const char *b)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

START_TEST(test_plain_checkpoint)
{
	const struct lj_writer_stats *s;
	unsigned char *jsb;
	char copy[700];
	uint32_t seq;
	wt t;

	wt_setup_plain(&t, _i);
	ck_assert(!t.st->lazy);
	s = lj_writer_stats(t.w);
	jsb = wt_xmalloc(t.bs);
	snprintf(copy, sizeof(copy), "%s.copy", t.img->path);

	/* the log wraps three times: checkpoints make the room */
	wt_wrap_log(&t, 3, "plain");
	ck_assert_uint_gt(s->sent_home, 0);
	ck_assert_uint_gt(s->tail_moves, 3);
	ck_assert(needs_recovery(t.img));

	/* mid-way: home plus stock replay of the log is the model */
	ck_assert_int_eq(ut_copy_file(t.img->path, copy), 0);
	ck_assert_int_le(stock_e2fsck("-fy", copy), 1);
	check_home_of(copy, &t, "stock replay");
	unlink(copy);

	/* umount: everything home, the log empty, needs_recovery clear */
	wt_random_txn(&t, 12);
	ck_assert_int_eq(lj_writer_checkpoint_all(t.w), 0);
	wt_apply(&t);
	wt_check(&t, "checkpoint_all");
	wt_check_home(t.img, &t, "checkpoint_all");
	ut_read_fsblock(t.img, t.img->pblk[0], jsb);
	ck_assert_uint_eq(lj_be32(jsb + LJ_JSB_START), 0);
	seq = lj_be32(jsb + LJ_JSB_SEQUENCE);
	ck_assert_uint_eq(seq, 1000 + s->txns);
	ck_assert(!needs_recovery(t.img));
	ck_assert_int_eq(stock_e2fsck("-fn", t.img->path), 0);
	ck_assert_int_eq(ut_copy_file(t.img->path, copy), 0);
	ck_assert_int_eq(stock_e2fsck("-E journal_only -y", copy), 0);
	ck_assert_msg(same_file(t.img->path, copy),
		      "stock journal_only changed the emptied image");
	unlink(copy);

	/* the writer goes on: needs_recovery again before the log is used */
	wt_random_txn(&t, 12);
	wt_commit(&t, "after checkpoint_all");
	ck_assert(needs_recovery(t.img));
	free(jsb);
	wt_free(&t);
}
END_TEST

Suite *checkpoint_suite(void)
{
	const struct ut_test tests[] = {
		{ test_plain_checkpoint, ut_nfmts },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "checkpoint", 120, tests };

	return ut_suite("checkpoint", &tc, 1);
}
