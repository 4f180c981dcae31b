/*
 * test_compact.c --- offline compaction (lj_compact): every live block
 * re-logged, or only the newest N transactions' blocks kept and the rest
 * sent home, and the superblock flags kept while the log holds
 * transactions.  Oracle and model: unit_writer.h.
 */
#include <stdlib.h>
#include <string.h>

#include "unit_writer.h"

/*
 * Keep everything: the stale copies dropped, every live block re-logged
 * in fewer journal blocks; a second pass, and the writer, go on after it.
 */
START_TEST(test_compact_keep_all)
{
	struct lj_compact_stats cs;
	lj_jmap *before, *after;
	uint32_t start;
	size_t i;
	wt t;

	wt_scene(&t, _i, 40);
	before = wt_fresh_jmap(t.img, NULL, NULL);
	ck_assert_int_eq(lj_compact(t.img->path, 0, &cs), 0);
	after = wt_fresh_jmap(t.img, &start, NULL);
	ck_assert_uint_eq(cs.kept, before->n);
	ck_assert_uint_eq(cs.sent_home, 0);
	ck_assert_uint_eq(cs.blocks_before, before->log->log_blocks);
	ck_assert_uint_eq(cs.blocks_after, after->log->log_blocks);
	ck_assert_uint_lt(cs.blocks_after, cs.blocks_before);
	ck_assert_uint_eq(after->n, before->n);
	for (i = 0; i < after->n; i++) {
		ck_assert_uint_eq(after->e[i].home, before->e[i].home);
		/* re-logged: newer than anything that was in the log */
		ck_assert(lj_tid_gt(after->e[i].tid,
			  before->log->txn[before->log->ntxn - 1].tid));
	}
	ck_assert(!after->log->refused && lj_log_clean_end(after->log));
	lj_jmap_free(before);
	lj_jmap_free(after);
	wt_check_contents(t.img, &t, "compacted");
	/* a second pass has nothing stale left to drop */
	ck_assert_int_eq(lj_compact(t.img->path, 0, &cs), 0);
	ck_assert_uint_le(cs.blocks_after, cs.blocks_before);
	wt_check_contents(t.img, &t, "compacted twice");
	/* and the writer goes on after it */
	wt_open(&t);
	wt_check(&t, "writer after compaction");
	wt_random_txn(&t, 10);
	wt_commit(&t, "commit after compaction");
	wt_free(&t);
}
END_TEST

/* Keep the newest N transactions: their blocks stay, the rest go home. */
START_TEST(test_compact_keep_n)
{
	static const uint32_t keeps[] = { 1, 5, 1000 };
	int kk;

	for (kk = 0; kk < 3; kk++) {
		struct lj_compact_stats cs;
		lj_jmap *before, *after;
		uint32_t newest, kept = 0;
		size_t i;
		wt t;

		wt_scene(&t, _i, 30);
		before = wt_fresh_jmap(t.img, NULL, NULL);
		newest = before->log->txn[before->log->ntxn - 1].tid;
		ck_assert_int_eq(lj_compact(t.img->path, keeps[kk], &cs), 0);
		after = wt_fresh_jmap(t.img, NULL, NULL);
		/* kept: exactly the blocks written by the newest N txns */
		for (i = 0; i < before->n; i++) {
			int young = newest - before->e[i].tid < keeps[kk];

			kept += young;
			ck_assert_msg(!!lj_jmap_lookup(after, before->e[i].home) ==
				      young, "keep %u: home %llu tid %u (newest %u)",
				      keeps[kk],
				      (unsigned long long)before->e[i].home,
				      before->e[i].tid, newest);
		}
		ck_assert_uint_eq(after->n, kept);
		ck_assert_uint_eq(cs.kept, kept);
		ck_assert_uint_eq(cs.sent_home, before->n - kept);
		ck_assert_uint_eq(cs.blocks_after, after->log->log_blocks);
		ck_assert_uint_lt(cs.blocks_after, cs.blocks_before);
		lj_jmap_free(before);
		lj_jmap_free(after);
		wt_check_contents(t.img, &t, "compacted keep N");
		/* the blocks sent home are home */
		{
			struct lj_migrate_stats ms;

			ck_assert_int_eq(lj_migrate_home(t.img->path, NULL, NULL,
							 &ms), 0);
			ck_assert_uint_eq(ms.blocks, kept);
			wt_check_home(t.img, &t, "keep N, migrated");
		}
		wt_free(&t);
	}
}
END_TEST

/*
 * A superblock copy logged without lazy_journal / needs_recovery (as stock
 * debugfs logs it) that compaction sends home: the home superblock keeps
 * both flags while the log holds transactions (doc/contract.md §3), or the
 * newer transactions would be lost to every later reader.
 */
START_TEST(test_compact_superblock_home)
{
	const struct ut_fmt *f = &ut_fmts[_i];
	struct lj_compact_stats cs;
	unsigned char *sb;
	uint64_t sbblk;
	unsigned int off;
	ext2_filsys fs;
	lj_jmap *m;
	wt t;

	wt_setup_img(&t, f, NULL, NULL, 5, 1);
	sbblk = t.bs == 1024 ? 1 : 0;
	off = t.bs == 1024 ? 0 : 1024;
	sb = wt_xmalloc(t.bs);
	ut_read_fsblock(t.img, sbblk, sb);
	/* the copy: both flags clear, checksum fixed */
	sb[off + 0x5C + 1] &= (unsigned char)~0x20;	/* COMPAT 0x2000 */
	sb[off + 0x60] &= (unsigned char)~0x04;	/* INCOMPAT 0x4 */
	if (sb[off + 0x64 + 1] & 0x04) {	/* metadata_csum (0x400) */
		uint32_t c = ext2fs_crc32c_le(~0U, sb + off, 1020);

		sb[off + 1020] = (unsigned char)c;
		sb[off + 1021] = (unsigned char)(c >> 8);
		sb[off + 1022] = (unsigned char)(c >> 16);
		sb[off + 1023] = (unsigned char)(c >> 24);
	}
	wt_log_one(&t, t.img->first, 5, sbblk, sb);
	wt_open(&t);
	wt_add(&t, 0, 0);
	wt_commit(&t, "newer");
	wt_close(&t);
	ck_assert_int_eq(lj_compact(t.img->path, 1, &cs), 0);
	ck_assert_uint_eq(cs.sent_home, 1);
	ck_assert_uint_eq(cs.kept, 1);
	ck_assert_int_eq(ext2fs_open2(t.img->path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	ck_assert_msg(ext2fs_has_feature_journal_needs_recovery(fs->super),
		      "needs_recovery cleared while the log holds a transaction");
	ck_assert_msg(lj_fs_is_lazy(fs->super), "lazy_journal cleared");
	ext2fs_close_free(&fs);
	m = wt_fresh_jmap(t.img, NULL, NULL);
	ck_assert_uint_eq(m->n, 1);
	lj_jmap_free(m);
	wt_check_contents(t.img, &t, "superblock home");
	free(sb);
	wt_free(&t);
}
END_TEST

Suite *compact_suite(void)
{
	const struct ut_test tests[] = {
		{ test_compact_keep_all, ut_nfmts },
		{ test_compact_keep_n, 2 },
		{ test_compact_superblock_home, 3 },
		{ NULL, 0 }
	};
	const struct ut_tcase tc = { "compact", 60, tests };

	return ut_suite("compact", &tc, 1);
}
