/*
 * test_overlay.c --- the metadata overlay behind e2fsck -n: a lazy image
 * whose journal holds real metadata (a copy changed by stock debugfs, every
 * changed block logged into the original) gives an overlay that holds the
 * journal copies of every kind of metadata block, no file data, an empty
 * log and cleared flags, and that stock e2fsck judges like the changed copy.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#define V3 (LJ_FEATURE_INCOMPAT_REVOKE | LJ_FEATURE_INCOMPAT_64BIT | \
	    LJ_FEATURE_INCOMPAT_CSUM_V3)

static const struct {
	const char *mkfs, *size;
	uint32_t incompat;	/* log format */
	int indirect;		/* no extents: files use indirect blocks */
} geo[] = {
	{ "-b 4096 -O quota,orphan_file", "16M", V3, 0 },
	{ "-b 1024 -O ^extent,^64bit,^metadata_csum", "8M",
	  LJ_FEATURE_INCOMPAT_REVOKE, 1 },
	{ "-b 1024 -O meta_bg,^resize_inode", "8M", V3, 0 },
};

struct lazy_img {
	ut_img *img;
	char mod[700];		/* the changed copy: what the overlay must show */
	char ovl[700];		/* the overlay */
	unsigned char *is_journal; /* fs block -> lies in the journal */
	size_t nlogged;
};

static const char *sbin(void)
{
	const char *s = getenv("E2FSPROGS_SBIN");

	return s && *s ? s : E2FSPROGS_SBIN;
}

/* Run a shell command; its exit status (-1 when it did not exit). */
static int run(const char *fmt, ...)
{
	char cmd[2500];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void read_file_block(const char *path, unsigned int bs, uint64_t blk,
			    unsigned char *buf)
{
	FILE *f = fopen(path, "rb");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseeko(f, (off_t)(blk * bs), SEEK_SET), 0);
	if (fread(buf, 1, bs, f) != bs)
		memset(buf, 0, bs);	/* past the end of a sparse file */
	fclose(f);
}

/* Sparse source with 8 separate one-block runs: a file with an extent
 * tree of depth 1 (or, without extents, an indirect block). */
static void make_sparse_source(const char *path, unsigned int bs)
{
	FILE *f = fopen(path, "wb");
	unsigned char *b = malloc(bs);
	int i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 8; i++) {
		ut_fill(b, bs, (uint64_t)i, 1, 3);
		ck_assert_int_eq(fseeko(f, (off_t)(2 * i + 1) * bs, SEEK_SET),
				 0);
		ck_assert_uint_eq(fwrite(b, 1, bs, f), bs);
	}
	ck_assert_int_eq(fclose(f), 0);
	free(b);
}

/*
 * The lazy image: change a copy with stock debugfs, then log every block
 * that changed (outside the journal) into the original's journal, in two
 * transactions (tids 1 and 2), so the original's home copies are stale.
 */
static void make_lazy(struct lazy_img *li, int g)
{
	ut_img *img = ut_img_create(geo[g].mkfs, geo[g].size, 1);
	unsigned int bs = img->bs;
	unsigned char *home = malloc(bs), *mod = malloc(bs);
	unsigned char *copies;
	char src[700], cmds[700], sp[700], ea[700];
	ut_block *b;
	ut_txn t[2];
	ut_writer w;
	uint64_t blk;
	uint32_t i;
	FILE *f;

	memset(li, 0, sizeof(*li));
	li->img = img;
	snprintf(li->mod, sizeof(li->mod), "%s/mod", img->dir);
	snprintf(li->ovl, sizeof(li->ovl), "%s/overlay", img->dir);
	snprintf(src, sizeof(src), "%s/src", img->dir);
	snprintf(sp, sizeof(sp), "%s/sparse", img->dir);
	snprintf(ea, sizeof(ea), "%s/ea", img->dir);
	snprintf(cmds, sizeof(cmds), "%s/cmds", img->dir);
	li->is_journal = calloc(img->fs_blocks, 1);
	ck_assert_ptr_nonnull(li->is_journal);
	for (i = 0; i < img->maxlen; i++)
		li->is_journal[img->pblk[i]] = 1;

	f = fopen(src, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 300; i++)	/* 3000 bytes: 3 blocks on 1k */
		fputs("lazy data\n", f);
	fclose(f);
	f = fopen(ea, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 60; i++)	/* 600 bytes: in an xattr block */
		fputs("lazy xattr", f);
	fclose(f);
	make_sparse_source(sp, bs);
	f = fopen(cmds, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "mkdir d1\nmkdir d1/d2\nwrite %s d1/file\nwrite %s top\n"
		"write %s frag\nsymlink d1/sl /%0100d/target\n"
		"ea_set -f %s top user.big\nset_inode_field top uid 1234\n",
		src, src, sp, 7, ea);
	fclose(f);
	ck_assert_int_eq(run("cp '%s' '%s'", img->path, li->mod), 0);
	ck_assert_int_eq(run("'%s/debugfs' -w -f '%s' '%s' >/dev/null 2>&1",
			     sbin(), cmds, li->mod), 0);

	copies = malloc((size_t)img->fs_blocks * bs);
	b = calloc(img->fs_blocks, sizeof(*b));
	ck_assert_ptr_nonnull(copies);
	ck_assert_ptr_nonnull(b);
	for (blk = 0; blk < img->fs_blocks; blk++) {
		if (li->is_journal[blk])
			continue;
		ut_read_fsblock(img, blk, home);
		read_file_block(li->mod, bs, blk, mod);
		if (!memcmp(home, mod, bs))
			continue;
		memcpy(copies + li->nlogged * bs, mod, bs);
		b[li->nlogged].home = blk;
		b[li->nlogged].data = copies + li->nlogged * bs;
		li->nlogged++;
	}
	ck_assert_uint_ge(li->nlogged, 10);
	memset(t, 0, sizeof(t));
	t[0].blocks = b;
	t[0].nblocks = li->nlogged / 2;
	t[0].commit_sec = 10;
	t[1].blocks = b + t[0].nblocks;
	t[1].nblocks = li->nlogged - t[0].nblocks;
	t[1].commit_sec = 11;
	ut_log_init(&w, img, 0, geo[g].incompat, img->first, 1);
	ut_log_txn(&w, &t[0]);
	ut_log_txn(&w, &t[1]);
	free(copies);
	free(b);
	free(home);
	free(mod);
}

static void free_lazy(struct lazy_img *li)
{
	free(li->is_journal);
	ut_img_free(li->img);
}

static blk64_t build(struct lazy_img *li, blk64_t *estimate)
{
	ext2_filsys fs;
	blk64_t written = 0;
	lj_lazy_state *st;
	errcode_t err;

	err = lj_open_fs(li->img->path, 0, &fs);
	ck_assert_msg(err == 0, "lj_open_fs: %s", error_message(err));
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	ck_assert_uint_eq(st->jmap->n, li->nlogged);
	err = lj_overlay_estimate(fs, estimate);
	ck_assert_msg(err == 0, "estimate: %s", error_message(err));
	err = lj_overlay_build(fs, li->ovl, &written);
	ck_assert_msg(err == 0, "build: %s", error_message(err));
	ck_assert_int_eq(ext2fs_close_free(&fs), 0);
	return written;
}

/* Superblock copies differ in the flags (and so checksum) only. */
static void mask_super(unsigned char *blk, unsigned int off)
{
	memset(blk + off + 0x5C, 0, 8);		/* compat, incompat */
	memset(blk + off + 0x3FC, 0, 4);	/* s_checksum */
}

/* Every block in the overlay is the changed copy's (outside the journal). */
static void check_blocks_match(struct lazy_img *li, ext2_filsys mfs,
			       blk64_t *nonzero)
{
	unsigned int bs = li->img->bs;
	unsigned char *o = malloc(bs), *m = malloc(bs), *zero = calloc(1, bs);
	uint64_t blk;

	*nonzero = 0;
	for (blk = 0; blk < li->img->fs_blocks; blk++) {
		dgrp_t g = ext2fs_group_of_blk2(mfs, blk);

		read_file_block(li->ovl, bs, blk, o);
		if (!memcmp(o, zero, bs))
			continue;
		++*nonzero;
		if (li->is_journal[blk])
			continue;
		read_file_block(li->mod, bs, blk, m);
		if (blk == 0 && bs > 1024) {
			mask_super(o, 1024);
			mask_super(m, 1024);
		} else if (blk == ext2fs_group_first_block2(mfs, g) &&
			   ext2fs_bg_has_super(mfs, g)) {
			mask_super(o, 0);
			mask_super(m, 0);
		}
		ck_assert_msg(!memcmp(o, m, bs), "overlay block %llu differs",
			      (unsigned long long)blk);
	}
	free(o);
	free(m);
	free(zero);
}

/* blk is in the overlay, as in the changed copy, and not zero. */
static void check_present(struct lazy_img *li, blk64_t blk, const char *what)
{
	unsigned int bs = li->img->bs;
	unsigned char *o = malloc(bs), *m = malloc(bs), *zero = calloc(1, bs);

	ck_assert_msg(blk != 0, "%s: no block", what);
	read_file_block(li->ovl, bs, blk, o);
	read_file_block(li->mod, bs, blk, m);
	ck_assert_msg(memcmp(m, zero, bs) != 0, "%s: block %llu empty", what,
		      (unsigned long long)blk);
	ck_assert_msg(!memcmp(o, m, bs), "%s: block %llu not in the overlay",
		      what, (unsigned long long)blk);
	free(o);
	free(m);
	free(zero);
}

static blk64_t block_of(ext2_filsys fs, const char *path, blk64_t lblk)
{
	ext2_ino_t ino;
	blk64_t pblk = 0;

	ck_assert_msg(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path,
				   &ino) == 0, "namei %s", path);
	ck_assert_int_eq(ext2fs_bmap2(fs, ino, NULL, NULL, 0, lblk, NULL,
				      &pblk), 0);
	return pblk;
}

static void read_inode_of(ext2_filsys fs, const char *path,
			  struct ext2_inode *inode)
{
	ext2_ino_t ino;

	ck_assert_int_eq(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path,
				      &ino), 0);
	ck_assert_int_eq(ext2fs_read_inode(fs, ino, inode), 0);
}

/* First tree block of an extent-mapped inode (its root is an index). */
static blk64_t extent_tree_block(ext2_filsys fs, const char *path)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ex;
	ext2_ino_t ino;

	ck_assert_int_eq(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path,
				      &ino), 0);
	ck_assert_int_eq(ext2fs_extent_open(fs, ino, &h), 0);
	ck_assert_int_eq(ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &ex), 0);
	ext2fs_extent_free(h);
	ck_assert_msg(!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF),
		      "%s: extent tree of depth 0", path);
	return ex.e_pblk;
}

static void check_kinds(struct lazy_img *li, ext2_filsys m, int g)
{
	struct ext2_inode inode;
	ext2_ino_t root_off = (EXT2_ROOT_INO - 1) * EXT2_INODE_SIZE(m->super);
	blk64_t blk;

	check_present(li, ext2fs_descriptor_block_loc2(m,
		m->super->s_first_data_block, 0), "group descriptors");
	check_present(li, ext2fs_block_bitmap_loc(m, 0), "block bitmap");
	check_present(li, ext2fs_inode_bitmap_loc(m, 0), "inode bitmap");
	check_present(li, ext2fs_inode_table_loc(m, 0) +
		      root_off / m->blocksize, "inode table");
	check_present(li, block_of(m, "/", 0), "root directory");
	check_present(li, block_of(m, "/d1/d2", 0), "directory");
	check_present(li, block_of(m, "/d1/sl", 0), "slow symlink");
	read_inode_of(m, "/top", &inode);
	check_present(li, ext2fs_file_acl_block(m, &inode), "xattr block");
	if (geo[g].indirect) {
		read_inode_of(m, "/frag", &inode);
		check_present(li, inode.i_block[EXT2_IND_BLOCK],
			      "indirect block");
	} else {
		check_present(li, extent_tree_block(m, "/frag"),
			      "extent tree block");
	}
	if (ext2fs_has_feature_resize_inode(m->super)) {
		ck_assert_int_eq(ext2fs_read_inode(m, EXT2_RESIZE_INO, &inode),
				 0);
		check_present(li, inode.i_block[EXT2_DIND_BLOCK],
			      "resize inode");
	}
	if (m->super->s_usr_quota_inum) {
		ck_assert_int_eq(ext2fs_bmap2(m, m->super->s_usr_quota_inum,
				 NULL, NULL, 0, 0, NULL, &blk), 0);
		check_present(li, blk, "quota file");
	}
	if (m->super->s_orphan_file_inum) {
		ck_assert_int_eq(ext2fs_bmap2(m, m->super->s_orphan_file_inum,
				 NULL, NULL, 0, 0, NULL, &blk), 0);
		check_present(li, blk, "orphan file");
	}
}

/* Regular-file data is not copied. */
static void check_no_data(struct lazy_img *li, ext2_filsys m)
{
	unsigned int bs = li->img->bs;
	unsigned char *o = malloc(bs), *zero = calloc(1, bs);
	blk64_t blk = block_of(m, "/top", 0);

	read_file_block(li->ovl, bs, blk, o);
	ck_assert_msg(!memcmp(o, zero, bs), "file data block %llu copied",
		      (unsigned long long)blk);
	free(o);
	free(zero);
}

/* Log empty (s_sequence as jbd2 recovery leaves it), flags clear. */
static void check_journal_and_flags(struct lazy_img *li)
{
	ext2_filsys fs;
	lj_journal *j;
	errcode_t err;

	/* No EXT2_FLAG_IGNORE_CSUM_ERRORS: the superblock checksum is right */
	err = ext2fs_open2(li->ovl, NULL, EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &fs);
	ck_assert_msg(err == 0, "open overlay: %s", error_message(err));
	ck_assert(!ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert(!lj_fs_is_lazy(fs->super));
	err = lj_journal_open(fs, fs->io, &j);
	ck_assert_msg(err == 0, "journal of the overlay: %s",
		      error_message(err));
	ck_assert_uint_eq(j->start, 0);
	ck_assert_uint_eq(j->sequence, 4);	/* tids 1, 2: as jbd2 leaves it */
	lj_journal_close(j);
	ext2fs_close_free(&fs);
}

/* Stock e2fsck -fn says the same of the overlay as of the changed copy. */
static void check_stock_agrees(struct lazy_img *li)
{
	char m2[720];
	int rc_mod, rc_ovl;
	ext2_filsys fs;

	snprintf(m2, sizeof(m2), "%s.noflags", li->mod);
	ck_assert_int_eq(run("cp '%s' '%s'", li->mod, m2), 0);
	ck_assert_int_eq(ext2fs_open2(m2, NULL, EXT2_FLAG_RW |
				      EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
				      &fs), 0);
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	fs->super->s_feature_compat &= ~LJ_FEATURE_COMPAT_LAZY_JOURNAL;
	ext2fs_mark_super_dirty(fs);
	ck_assert_int_eq(ext2fs_close_free(&fs), 0);
	rc_mod = run("E2FSCK_CONFIG=/dev/null '%s/e2fsck' -fn '%s' >'%s.out' "
		     "2>&1", sbin(), m2, m2);
	rc_ovl = run("E2FSCK_CONFIG=/dev/null '%s/e2fsck' -fn '%s' >'%s.out' "
		     "2>&1", sbin(), li->ovl, li->ovl);
	ck_assert_int_eq(rc_ovl, rc_mod);
	ck_assert_int_eq(run("sed -i 's|%s|X|g' '%s.out'", m2, m2), 0);
	ck_assert_int_eq(run("sed -i 's|%s|X|g' '%s.out'", li->ovl, li->ovl),
			 0);
	ck_assert_msg(run("cmp -s '%s.out' '%s.out'", m2, li->ovl) == 0,
		      "stock e2fsck -fn: overlay and changed copy differ");
}

START_TEST(test_overlay_contents)
{
	struct lazy_img li;
	blk64_t estimate, written, nonzero;
	ext2_filsys m;

	make_lazy(&li, _i);
	written = build(&li, &estimate);
	ck_assert_uint_gt(written, 0);
	ck_assert_uint_ge(estimate, written);
	/* The overlay is sparse: holes for everything not written. */
	ck_assert_int_eq(ext2fs_open2(li.mod, NULL, EXT2_FLAG_64BITS |
				      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
				      unix_io_manager, &m), 0);
	check_blocks_match(&li, m, &nonzero);
	ck_assert_uint_eq(nonzero, written);
	check_kinds(&li, m, _i);
	check_no_data(&li, m);
	ext2fs_close_free(&m);
	check_journal_and_flags(&li);
	check_stock_agrees(&li);
	free_lazy(&li);
}
END_TEST

/* The device is never written; an existing overlay path is refused. */
START_TEST(test_overlay_readonly)
{
	struct lazy_img li;
	blk64_t estimate, written;
	ext2_filsys fs;
	char sum1[64] = "", sum2[64] = "", cmd[800];
	FILE *p;

	make_lazy(&li, 0);
	snprintf(cmd, sizeof(cmd), "sha256sum < '%s'", li.img->path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(sum1, sizeof(sum1), p));
	pclose(p);
	written = build(&li, &estimate);
	ck_assert_uint_gt(written, 0);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(sum2, sizeof(sum2), p));
	pclose(p);
	ck_assert_str_eq(sum1, sum2);

	ck_assert_int_eq(lj_open_fs(li.img->path, 0, &fs), 0);
	ck_assert_int_eq(lj_overlay_build(fs, li.ovl, &written), EEXIST);
	ck_assert_int_eq(access(li.ovl, F_OK), 0);	/* not removed */
	ext2fs_close_free(&fs);
	free_lazy(&li);
}
END_TEST

/*
 * A journaled inode-table block full of garbage: the walk must neither
 * fail nor wander, and the garbage is what the overlay shows e2fsck.
 */
START_TEST(test_overlay_garbage_itable)
{
	ut_img *img = ut_img_create("-b 4096", "16M", 1);
	unsigned int bs = img->bs;
	unsigned char *junk = malloc(bs), *got = malloc(bs);
	ut_block b = { .data = junk };
	ut_txn t = { .blocks = &b, .nblocks = 1, .commit_sec = 5 };
	blk64_t estimate, written;
	char ovl[700];
	ext2_filsys fs;
	ut_writer w;
	FILE *f;

	ck_assert_int_eq(lj_open_fs(img->path, 0, &fs), 0);
	b.home = ext2fs_inode_table_loc(fs, 0);
	ext2fs_close_free(&fs);
	ut_fill(junk, bs, b.home, 1, 42);
	ut_log_init(&w, img, 0, V3, img->first, 1);
	ut_log_txn(&w, &t);

	snprintf(ovl, sizeof(ovl), "%s/overlay", img->dir);
	ck_assert_int_eq(lj_open_fs(img->path, 0, &fs), 0);
	ck_assert_int_eq(lj_overlay_estimate(fs, &estimate), 0);
	ck_assert_int_eq(lj_overlay_build(fs, ovl, &written), 0);
	ck_assert_uint_ge(estimate, written);
	ext2fs_close_free(&fs);
	f = fopen(ovl, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseeko(f, (off_t)(b.home * bs), SEEK_SET), 0);
	ck_assert_uint_eq(fread(got, 1, bs, f), bs);
	fclose(f);
	ck_assert_mem_eq(got, junk, bs);
	free(junk);
	free(got);
	ut_img_free(img);
}
END_TEST

/*
 * A journal that cannot be read (garbage journal superblock): the overlay
 * shows the home copies and keeps needs_recovery and the journal
 * superblock as they are, for e2fsck to report.
 */
START_TEST(test_overlay_bad_journal)
{
	ut_img *img = ut_img_create("-b 1024", "8M", 1);
	unsigned int bs = img->bs;
	unsigned char *junk = malloc(bs), *got = malloc(bs);
	blk64_t written;
	lj_lazy_state *st;
	char ovl[700];
	ext2_filsys fs;
	FILE *f;

	ut_fill(junk, bs, 0, 0, 9);
	ut_write_jblock(img, 0, junk);
	snprintf(ovl, sizeof(ovl), "%s/overlay", img->dir);
	ck_assert_int_eq(lj_open_fs(img->path, 0, &fs), 0);
	ck_assert_int_eq(lj_lazy_get_state(fs->io, &st), 0);
	ck_assert_int_ne(st->journal_err, 0);
	ck_assert_int_eq(lj_overlay_build(fs, ovl, &written), 0);
	ext2fs_close_free(&fs);

	ck_assert_int_eq(ext2fs_open2(ovl, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	ck_assert(ext2fs_has_feature_journal_needs_recovery(fs->super));
	ck_assert(!lj_fs_is_lazy(fs->super));
	ext2fs_close_free(&fs);
	f = fopen(ovl, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseeko(f, (off_t)(img->pblk[0] * bs), SEEK_SET), 0);
	ck_assert_uint_eq(fread(got, 1, bs, f), bs);
	fclose(f);
	ck_assert_mem_eq(got, junk, bs);
	free(junk);
	free(got);
	ut_img_free(img);
}
END_TEST

Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("overlay");
	int ngeo = (int)(sizeof(geo) / sizeof(geo[0]));

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_overlay_contents, 0, ngeo);
	tcase_add_test(tc, test_overlay_readonly);
	tcase_add_test(tc, test_overlay_garbage_itable);
	tcase_add_test(tc, test_overlay_bad_journal);
	suite_add_tcase(s, tc);
	return s;
}
