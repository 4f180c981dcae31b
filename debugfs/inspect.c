/*
 * inspect.c --- read-only inspection requests of our debugfs: stats, stat,
 * ls, cat, dump and block_dump.
 *
 * All of them work on current_fs through the public libext2fs/e2p API.  On a
 * lazy file system current_fs sits on the lazy io channel, so every metadata
 * block they read is the live copy (from the journal where the jmap says so);
 * "block_dump -H" is the one way to look at a block's home copy instead.
 *
 * The output is meant to be byte-for-byte what stock debugfs 1.47.0 prints
 * for the same request on the same image (stock is the oracle; the formats
 * below were reproduced from its output, including its quirks: octal offsets
 * in hex dumps, "BLOCKS:" followed by an empty line for inodes without
 * blocks, ls error messages attributed to argv[1], ...).  Known gaps:
 *   - GNU Hurd inodes (translator, fragment fields) are printed the Linux way;
 *   - "ls" without a path lists the root directory: this shell has no "cd";
 *   - a few messages for corrupt xattr blocks in "block_dump -x" (overruns)
 *     follow stock's wording as far as it could be observed;
 *   - "block_dump -H" is ours, so its usage line names -H.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include <sys/stat.h>

#include <et/com_err.h>
#include <e2p/e2p.h>

#include "debugfs.h"

#ifndef O_LARGEFILE
#define O_LARGEFILE 0
#endif

/* ------------------------------------------------------------------ */
/* shared helpers                                                      */

/* Rewind getopt for a new request (glibc: optind = 0 re-initialises). */
static void reset_getopt(void)
{
	optind = 0;
}

/*
 * Time as asctime() prints it (with its trailing newline).  Like stock,
 * TZ=GMT or TZ=GMT0 selects UTC explicitly; otherwise local time.
 */
static const char *time_str(long long t)
{
	static int use_gmt = -1;
	time_t tt = (time_t) t;
	struct tm *tm;
	const char *s;

	if (use_gmt < 0) {
		const char *tz = getenv("TZ");

		use_gmt = tz && (!strcmp(tz, "GMT") || !strcmp(tz, "GMT0"));
	}
	tm = use_gmt ? gmtime(&tt) : localtime(&tt);
	s = tm ? asctime(tm) : NULL;
	return s ? s : "(invalid time)\n";
}

/* An inode timestamp with its extra field: 32 signed bits + epoch bits. */
static const char *inode_time_str(__u32 xtime, __u32 extra)
{
	long long t = (__s32) xtime;

	t += (long long) (extra & EXT4_EPOCH_MASK) << 32;
	return time_str(t);
}

static int read_inode_full(const char *cmd, ext2_ino_t ino,
			   struct ext2_inode *inode, int size)
{
	errcode_t retval;

	retval = ext2fs_read_inode2(current_fs, ino, inode, size, 0);
	if (retval) {
		com_err(cmd, retval, "while reading inode %u", ino);
		return 1;
	}
	return 0;
}

static int read_inode(const char *cmd, ext2_ino_t ino,
		      struct ext2_inode *inode)
{
	return read_inode_full(cmd, ino, inode, sizeof(*inode));
}

/* "cmd <file>": usage check, open check and name lookup; 0 on success. */
static int one_inode_arg(int argc, char **argv, ext2_ino_t *ino)
{
	if (argc != 2) {
		com_err(argv[0], 0, "Usage: %s <file>", argv[0]);
		return 1;
	}
	if (check_fs_open(argv[0]))
		return 1;
	*ino = string_to_inode(argv[1]);
	return *ino == 0;
}

/*
 * Hex dump of a buffer, 16 bytes a line, offsets in octal; runs of lines
 * equal to the previous one collapse into a single "*".
 */
static void hexdump(FILE *out, const unsigned char *buf, size_t len)
{
	size_t off, i, n;
	long same_as = -1;	/* offset of the line a "*" run repeats */

	for (off = 0; off < len; off += 16) {
		n = len - off < 16 ? len - off : 16;
		if (same_as < 0) {
			if (off && !memcmp(buf + off, buf + off - n, n)) {
				same_as = off;
				fputs("*\n", out);
				continue;
			}
		} else {
			if (!memcmp(buf + off, buf + same_as, n))
				continue;
			same_as = -1;
		}
		fprintf(out, "%04o  ", (unsigned int) off);
		for (i = 0; i < 16; i++) {
			if (i < n)
				fprintf(out, "%02x", buf[off + i]);
			else
				fputs("  ", out);
			if (i & 1)
				fputc(' ', out);
		}
		fputc(' ', out);
		for (i = 0; i < n; i++)
			fputc(isprint(buf[off + i]) ? buf[off + i] : '.', out);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* ------------------------------------------------------------------ */
/* stats                                                               */

static void bg_flag(FILE *out, dgrp_t g, __u16 mask, const char *name,
		    int *first)
{
	if (!ext2fs_bg_flags_test(current_fs, g, mask))
		return;
	fputs(*first ? "           [" : ", ", out);
	fputs(name, out);
	*first = 0;
}

static void show_group(FILE *out, dgrp_t g, const char *units, int gdt_csum)
{
	ext2_filsys fs = current_fs;
	unsigned int nfree = ext2fs_bg_free_blocks_count(fs, g);
	unsigned int ifree = ext2fs_bg_free_inodes_count(fs, g);
	unsigned int dirs = ext2fs_bg_used_dirs_count(fs, g);
	int first = 1;

	fprintf(out, " Group %2u: block bitmap at %llu, inode bitmap at %llu, "
		"inode table at %llu\n",
		g, (unsigned long long) ext2fs_block_bitmap_loc(fs, g),
		(unsigned long long) ext2fs_inode_bitmap_loc(fs, g),
		(unsigned long long) ext2fs_inode_table_loc(fs, g));
	fprintf(out, "           %u free %s%s, %u free %s, %u used %s",
		nfree, units, nfree != 1 ? "s" : "",
		ifree, ifree != 1 ? "inodes" : "inode",
		dirs, dirs != 1 ? "directories" : "directory");
	if (gdt_csum) {
		unsigned int unused = ext2fs_bg_itable_unused(fs, g);

		fprintf(out, ", %u unused %s\n", unused,
			unused != 1 ? "inodes" : "inode");
	} else
		fputc('\n', out);

	bg_flag(out, g, EXT2_BG_INODE_UNINIT, "Inode not init", &first);
	bg_flag(out, g, EXT2_BG_BLOCK_UNINIT, "Block not init", &first);
	if (gdt_csum) {
		fprintf(out, "%sChecksum 0x%04x", first ? "           [" : ", ",
			ext2fs_bg_checksum(fs, g));
		first = 0;
	}
	if (!first)
		fputs("]\n", out);
}

void do_show_super_stats(int argc, char **argv,
			 int sci_idx EXT2FS_ATTR((unused)),
			 void *infop EXT2FS_ATTR((unused)))
{
	ext2_filsys fs;
	struct ext2_super_block *sb;
	const char *units;
	unsigned int ndirs = 0;
	int c, header_only = 0;
	dgrp_t g;
	FILE *out;

	if (lj_debugfs_forward_if_not_lazy(argc, argv))
		return;
	reset_getopt();
	while ((c = getopt(argc, argv, "h")) != EOF) {
		if (c != 'h')
			goto usage;
		header_only = 1;
	}
	if (optind != argc)
		goto usage;
	if (check_fs_open(argv[0]))
		return;
	fs = current_fs;
	sb = fs->super;
	units = ext2fs_has_feature_bigalloc(sb) ? "cluster" : "block";

	out = open_pager();
	list_super2(sb, out);
	if (ext2fs_has_feature_metadata_csum(sb) &&
	    !ext2fs_superblock_csum_verify(fs, sb)) {
		/* compute the right value in place, show it, put back */
		__u32 saved = sb->s_checksum;

		ext2fs_superblock_csum_set(fs, sb);
		fprintf(out, "Expected Checksum:        0x%08x\n",
			sb->s_checksum);
		sb->s_checksum = saved;
	}
	for (g = 0; g < fs->group_desc_count; g++)
		ndirs += ext2fs_bg_used_dirs_count(fs, g);
	fprintf(out, "Directories:              %u\n", ndirs);

	if (!header_only) {
		int gdt_csum = ext2fs_has_group_desc_csum(fs);

		for (g = 0; g < fs->group_desc_count; g++)
			show_group(out, g, units, gdt_csum);
	}
	close_pager(out);
	return;
usage:
	fprintf(stderr, "%s: Usage: show_super_stats [-h]\n", argv[0]);
}

/* ------------------------------------------------------------------ */
/* stat                                                                */

#define PRINT_HEX	0x1	/* bytes as "xx " */
#define PRINT_NOQUOTES	0x2

/* A string as C source would spell it (no quotes). */
static void print_c_escaped(FILE *out, const unsigned char *s, size_t len)
{
	static const char named[] = "\a\b\t\n\v\f";
	static const char letter[] = "abtnvf";
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = s[i];
		const char *p = ch ? strchr(named, ch) : NULL;

		if (p)
			fprintf(out, "\\%c", letter[p - named]);
		else if (ch == '\\' || ch == '"' || ch == '\'')
			fprintf(out, "\\%c", ch);
		else if (isprint(ch))
			fputc(ch, out);
		else
			fprintf(out, "\\%03o", ch);
	}
}

/*
 * An xattr name or value: quoted C string when it is printable enough
 * (more than 7/8 of the bytes), hex bytes otherwise.
 */
static void print_xattr_str(FILE *out, const char *str, size_t len, int flags)
{
	size_t i, printable = 0;

	for (i = 0; i < len; i++)
		if (isprint((unsigned char) str[i]))
			printable++;
	if (printable <= len * 7 / 8)
		flags |= PRINT_HEX;

	if (flags & PRINT_HEX) {
		for (i = 0; i < len; i++)
			fprintf(out, "%02x ", (unsigned char) str[i]);
		return;
	}
	if (!(flags & PRINT_NOQUOTES))
		fputc('"', out);
	print_c_escaped(out, (const unsigned char *) str, len);
	if (!(flags & PRINT_NOQUOTES))
		fputc('"', out);
}

/* One line of "Extended attributes:"; values of 40 bytes or more elided. */
static int stat_xattr(char *name, char *value, size_t value_len, void *data)
{
	FILE *out = data;

	fputs("  ", out);
	print_xattr_str(out, name, strlen(name), PRINT_NOQUOTES);
	fprintf(out, " (%zu)", value_len);
	/* inline data is shown elsewhere */
	if (value_len && value_len < 40 && strcmp(name, "system.data")) {
		fputs(" = ", out);
		print_xattr_str(out, value, value_len, 0);
	}
	fputc('\n', out);
	return 0;
}

static void stat_xattrs(FILE *out, ext2_ino_t ino)
{
	struct ext2_xattr_handle *h;
	size_t count;

	if (!ext2fs_has_feature_xattr(current_fs->super))
		return;
	if (ext2fs_xattrs_open(current_fs, ino, &h))
		return;
	if (!ext2fs_xattrs_read(h) && !ext2fs_xattrs_count(h, &count) &&
	    count) {
		fputs("Extended attributes:\n", out);
		ext2fs_xattrs_iterate(h, stat_xattr, out);
	}
	ext2fs_xattrs_close(&h);
}

static void stat_extents(FILE *out, ext2_ino_t ino)
{
	ext2_extent_handle_t handle;
	struct ext2fs_extent ext;
	struct ext2_extent_info info;
	int op = EXT2_EXTENT_ROOT;
	int printed = 0;

	if (ext2fs_extent_open(current_fs, ino, &handle))
		return;
	fputs("EXTENTS:\n", out);
	while (!ext2fs_extent_get(handle, op, &ext)) {
		const char *sep = printed ? ", " : "";

		op = EXT2_EXTENT_NEXT;
		if (ext.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			/* index node: the block holding the next level */
			if (ext2fs_extent_get_info(handle, &info))
				continue;
			fprintf(out, "%s(ETB%d):%llu", sep, info.curr_level,
				(unsigned long long) ext.e_pblk);
			printed = 1;
			continue;
		}
		if (ext.e_len == 0)
			continue;
		if (ext.e_len == 1)
			fprintf(out, "%s(%llu%s):%llu", sep,
				(unsigned long long) ext.e_lblk,
				ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT ?
				"[u]" : "", (unsigned long long) ext.e_pblk);
		else
			fprintf(out, "%s(%llu-%llu%s):%llu-%llu", sep,
				(unsigned long long) ext.e_lblk,
				(unsigned long long) ext.e_lblk + ext.e_len - 1,
				ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT ?
				"[u]" : "",
				(unsigned long long) ext.e_pblk,
				(unsigned long long) ext.e_pblk + ext.e_len - 1);
		printed = 1;
	}
	if (printed)
		fputc('\n', out);
	ext2fs_extent_free(handle);
}

/* Block-map listing: data blocks coalesced into runs, (IND) etc. alone. */
struct blocks_list {
	FILE *out;
	int first;		/* nothing printed yet */
	blk64_t total;
	blk64_t run_pblk, run_last;	/* run_pblk == 0: no open run */
	e2_blkcnt_t run_lblk, run_lend;
};

static void blocks_sep(struct blocks_list *bl)
{
	if (!bl->first)
		fputs(", ", bl->out);
	bl->first = 0;
}

static void blocks_flush(struct blocks_list *bl)
{
	if (!bl->run_pblk)
		return;
	blocks_sep(bl);
	if (bl->run_pblk == bl->run_last)
		fprintf(bl->out, "(%lld):%llu", (long long) bl->run_lblk,
			(unsigned long long) bl->run_pblk);
	else
		fprintf(bl->out, "(%lld-%lld):%llu-%llu",
			(long long) bl->run_lblk, (long long) bl->run_lend,
			(unsigned long long) bl->run_pblk,
			(unsigned long long) bl->run_last);
	bl->run_pblk = 0;
}

static int blocks_proc(ext2_filsys fs EXT2FS_ATTR((unused)), blk64_t *blk,
		       e2_blkcnt_t lblk, blk64_t ref EXT2FS_ATTR((unused)),
		       int ref_off EXT2FS_ATTR((unused)), void *priv)
{
	static const char *const meta[] = { "IND", "DIND", "TIND" };
	struct blocks_list *bl = priv;

	bl->total++;
	if (lblk >= 0) {
		if (bl->run_pblk && *blk == bl->run_last + 1 &&
		    lblk == bl->run_lend + 1) {
			bl->run_last = *blk;
			bl->run_lend = lblk;
			return 0;
		}
		blocks_flush(bl);
		bl->run_pblk = bl->run_last = *blk;
		bl->run_lblk = bl->run_lend = lblk;
		return 0;
	}
	blocks_flush(bl);
	blocks_sep(bl);
	if (lblk >= BLOCK_COUNT_TIND)
		fprintf(bl->out, "(%s):%llu", meta[-lblk - 1],
			(unsigned long long) *blk);
	return 0;
}

static void stat_blocks(FILE *out, ext2_ino_t ino)
{
	struct blocks_list bl;

	memset(&bl, 0, sizeof(bl));
	bl.out = out;
	bl.first = 1;
	fputs("BLOCKS:\n", out);
	ext2fs_block_iterate3(current_fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
			      blocks_proc, &bl);
	blocks_flush(&bl);
	if (bl.total)
		fprintf(out, "\nTOTAL: %llu\n", (unsigned long long) bl.total);
	fputc('\n', out);
}

static void stat_inline_symlink(FILE *out, ext2_ino_t ino,
				struct ext2_inode *inode)
{
	size_t size;
	char *buf;

	if (ext2fs_inline_data_size(current_fs, ino, &size))
		return;
	buf = calloc(1, size + 1);
	if (!buf)
		return;
	if (!ext2fs_inline_data_get(current_fs, ino, inode, buf, &size))
		fprintf(out, "Fast link dest: \"%.*s\"\n", (int) size, buf);
	free(buf);
}

static void stat_device(FILE *out, const struct ext2_inode *inode)
{
	unsigned int major, minor;
	const char *style = "";

	if (inode->i_block[0]) {	/* old 8:8 encoding */
		major = (inode->i_block[0] >> 8) & 0xff;
		minor = inode->i_block[0] & 0xff;
	} else {			/* new encoding in i_block[1] */
		major = (inode->i_block[1] & 0xfff00) >> 8;
		minor = (inode->i_block[1] & 0xff) |
			((inode->i_block[1] >> 12) & 0xfff00);
		style = "(New-style) ";
	}
	fprintf(out, "%sDevice major/minor number: %02d:%02d (hex %02x:%02x)\n",
		style, major, minor, major, minor);
}

static const char *inode_type(__u16 mode)
{
	if (LINUX_S_ISDIR(mode))
		return "directory";
	if (LINUX_S_ISREG(mode))
		return "regular";
	if (LINUX_S_ISLNK(mode))
		return "symlink";
	if (LINUX_S_ISBLK(mode))
		return "block special";
	if (LINUX_S_ISCHR(mode))
		return "character special";
	if (LINUX_S_ISFIFO(mode))
		return "FIFO";
	if (LINUX_S_ISSOCK(mode))
		return "socket";
	return "bad type";
}

static void stat_times(FILE *out, const struct ext2_inode_large *in, int large)
{
	if (large) {
		fprintf(out, " ctime: 0x%08x:%08x -- %s", in->i_ctime,
			in->i_ctime_extra,
			inode_time_str(in->i_ctime, in->i_ctime_extra));
		fprintf(out, " atime: 0x%08x:%08x -- %s", in->i_atime,
			in->i_atime_extra,
			inode_time_str(in->i_atime, in->i_atime_extra));
		fprintf(out, " mtime: 0x%08x:%08x -- %s", in->i_mtime,
			in->i_mtime_extra,
			inode_time_str(in->i_mtime, in->i_mtime_extra));
		fprintf(out, "crtime: 0x%08x:%08x -- %s", in->i_crtime,
			in->i_crtime_extra,
			inode_time_str(in->i_crtime, in->i_crtime_extra));
		/* dtime has no extra field; stock shows ctime's in parens */
		if (in->i_dtime)
			fprintf(out, " dtime: 0x%08x:(%08x) -- %s",
				in->i_dtime, in->i_ctime_extra,
				inode_time_str(in->i_dtime,
					       in->i_ctime_extra));
	} else {
		fprintf(out, "ctime: 0x%08x -- %s", in->i_ctime,
			time_str((__s32) in->i_ctime));
		fprintf(out, "atime: 0x%08x -- %s", in->i_atime,
			time_str((__s32) in->i_atime));
		fprintf(out, "mtime: 0x%08x -- %s", in->i_mtime,
			time_str((__s32) in->i_mtime));
		if (in->i_dtime)
			fprintf(out, "dtime: 0x%08x -- %s", in->i_dtime,
				time_str((__s32) in->i_dtime));
	}
}

static void stat_inode(FILE *out, ext2_ino_t ino, struct ext2_inode *inode)
{
	struct ext2_super_block *sb = current_fs->super;
	struct ext2_inode_large *in = (struct ext2_inode_large *) inode;
	int big = EXT2_INODE_SIZE(sb) > EXT2_GOOD_OLD_INODE_SIZE;
	unsigned int extra = big ? in->i_extra_isize : 0;
	__u16 mode = inode->i_mode;

	fprintf(out, "Inode: %u   Type: %s    ", ino, inode_type(mode));
	fprintf(out, "Mode:  0%03o   Flags: 0x%x\n", mode & 07777,
		inode->i_flags);
	if (extra >= 24)
		fprintf(out, "Generation: %u    Version: 0x%08x:%08x\n",
			inode->i_generation, in->i_version_hi,
			inode->osd1.linux1.l_i_version);
	else
		fprintf(out, "Generation: %u    Version: 0x%08x\n",
			inode->i_generation, inode->osd1.linux1.l_i_version);
	fprintf(out, "User: %5d   Group: %5d", inode_uid(*inode),
		inode_gid(*inode));
	if (extra >= 32)
		fprintf(out, "   Project: %5d", in->i_projid);
	/* only files and directories use i_size_high as size */
	if (LINUX_S_ISREG(mode) || LINUX_S_ISDIR(mode))
		fprintf(out, "   Size: %llu\n",
			(unsigned long long) EXT2_I_SIZE(inode));
	else
		fprintf(out, "   Size: %u\n", inode->i_size);
	fprintf(out, "File ACL: %llu\n", (unsigned long long) inode->i_file_acl |
		(unsigned long long) inode->osd2.linux2.l_i_file_acl_high << 32);
	fprintf(out, "Links: %u   Blockcount: %llu\n", inode->i_links_count,
		((unsigned long long) inode->osd2.linux2.l_i_blocks_hi << 32) +
		inode->i_blocks);
	fprintf(out, "Fragment:  Address: %u    Number: %u    Size: %u\n",
		inode->i_faddr, 0, 0);
	stat_times(out, in, extra >= 24);
	if (big) {
		fprintf(out, "Size of extra inode fields: %u\n", extra);
		if ((int) extra > EXT2_INODE_SIZE(sb) - EXT2_GOOD_OLD_INODE_SIZE)
			fprintf(stderr, "invalid inode->i_extra_isize (%u)\n",
				extra);
	}
	stat_xattrs(out, ino);
	if (ext2fs_has_feature_metadata_csum(sb)) {
		__u32 crc = inode->osd2.linux2.l_i_checksum_lo;

		/* i_checksum_hi ends 4 bytes into the extra fields */
		if (extra >= 4)
			crc |= (__u32) in->i_checksum_hi << 16;
		fprintf(out, "Inode checksum: 0x%08x\n", crc);
	}

	if (LINUX_S_ISLNK(mode) && ext2fs_is_fast_symlink(inode))
		fprintf(out, "Fast link dest: \"%.*s\"\n",
			(int) EXT2_I_SIZE(inode), (char *) inode->i_block);
	else if (LINUX_S_ISLNK(mode) && (inode->i_flags & EXT4_INLINE_DATA_FL))
		stat_inline_symlink(out, ino, inode);
	else if (LINUX_S_ISBLK(mode) || LINUX_S_ISCHR(mode))
		stat_device(out, inode);
	else if (inode->i_flags & EXT4_EXTENTS_FL)
		stat_extents(out, ino);
	else if (inode->i_flags & EXT4_INLINE_DATA_FL) {
		size_t size;

		if (!ext2fs_inline_data_size(current_fs, ino, &size))
			fprintf(out, "Size of inline data: %zu\n", size);
	} else
		stat_blocks(out, ino);
}

void do_stat(int argc, char **argv, int sci_idx EXT2FS_ATTR((unused)),
	     void *infop EXT2FS_ATTR((unused)))
{
	struct ext2_inode *inode;
	ext2_ino_t ino;
	int size;
	FILE *out;

	if (lj_debugfs_forward_if_not_lazy(argc, argv))
		return;
	if (check_fs_open(argv[0]))
		return;
	size = EXT2_INODE_SIZE(current_fs->super);
	/* at least a large inode, so the extra fields are always readable */
	inode = calloc(1, size > (int) sizeof(struct ext2_inode_large) ?
		       (size_t) size : sizeof(struct ext2_inode_large));
	if (!inode) {
		com_err(argv[0], EXT2_ET_NO_MEMORY, "while allocating inode");
		return;
	}
	if (!one_inode_arg(argc, argv, &ino) &&
	    !read_inode_full(argv[0], ino, inode, size)) {
		out = open_pager();
		stat_inode(out, ino, inode);
		close_pager(out);
	}
	free(inode);
}

/* ------------------------------------------------------------------ */
/* ls                                                                  */

#define LS_LONG		0x1
#define LS_PARSE	0x2
#define LS_RAW		0x4
#define LS_ENCRYPTED	0x8

struct ls_state {
	FILE *out;
	int col;		/* column of the short listing */
	int options;
	int seen;		/* entries seen; "." and ".." are never encrypted */
};

/* Print (out != NULL) or measure an entry name; returns its width. */
static int ls_name(FILE *out, const struct ext2_dir_entry *d, int options)
{
	int len = ext2fs_dirent_name_len(d);
	int i, width = 0;

	if ((options & LS_ENCRYPTED) && !(options & LS_RAW)) {
		char tmp[32];

		snprintf(tmp, sizeof(tmp), "<encrypted (%d)>", len);
		if (out)
			fputs(tmp, out);
		return strlen(tmp);
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = d->name[i];

		if (ch < 32 || ch >= 127 || ch == '\\') {
			if (out)
				fprintf(out, "\\x%02x", ch);
			width += 4;
		} else {
			if (out)
				fputc(ch, out);
			width++;
		}
	}
	return width;
}

static void ls_parse_line(struct ls_state *ls, ext2_ino_t ino,
			  const struct ext2_inode *inode,
			  const struct ext2_dir_entry *d)
{
	fprintf(ls->out, "/%u/%06o/%d/%d/%.*s/", ino, inode->i_mode,
		inode_uid(*inode), inode_gid(*inode),
		ext2fs_dirent_name_len(d), d->name);
	if (LINUX_S_ISDIR(inode->i_mode))
		fputs("/\n", ls->out);
	else
		fprintf(ls->out, "%llu/\n",
			(unsigned long long) EXT2_I_SIZE(inode));
}

static void ls_long_line(struct ls_state *ls, int entry, ext2_ino_t ino,
			 const struct ext2_inode *inode,
			 struct ext2_dir_entry *d, int options, char lbr,
			 char rbr)
{
	static const char *const mon[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
	};
	char date[64] = "                 ";	/* as wide as a date */

	if (ino) {
		time_t t = inode->i_mtime;
		struct tm *tm = localtime(&t);

		if (tm)
			snprintf(date, sizeof(date), "%2d-%s-%4d %02d:%02d",
				 tm->tm_mday, mon[tm->tm_mon],
				 1900 + tm->tm_year, tm->tm_hour, tm->tm_min);
	}
	fprintf(ls->out, "%c%6u%c %6o ", lbr, ino, rbr, inode->i_mode);
	if (entry == DIRENT_CHECKSUM) {
		struct ext2_dir_entry_tail *t = (void *) d;

		fprintf(ls->out, "(dirblock checksum: 0x%08x)\n",
			t->det_checksum);
		return;
	}
	fprintf(ls->out, "(%d)  %5d  %5d   %5llu %s ",
		ext2fs_dirent_file_type(d), inode_uid(*inode),
		inode_gid(*inode), (unsigned long long) EXT2_I_SIZE(inode),
		date);
	ls_name(ls->out, d, options);
	fputc('\n', ls->out);
}

/* Short listing: entries side by side, wrapped before column 80. */
static void ls_short_entry(struct ls_state *ls, int entry,
			   struct ext2_dir_entry *d, int options, char lbr,
			   char rbr)
{
	char tmp[EXT2_NAME_LEN + 64];
	unsigned int rec_len = d->rec_len;
	int width;

	if (entry == DIRENT_CHECKSUM) {
		struct ext2_dir_entry_tail *t = (void *) d;

		snprintf(tmp, sizeof(tmp),
			 "%c%u%c (dirblock checksum: 0x%08x)   ",
			 lbr, d->inode, rbr, t->det_checksum);
		width = strlen(tmp);
	} else {
		ext2fs_get_rec_len(current_fs, d, &rec_len);
		snprintf(tmp, sizeof(tmp), "%c%u%c (%u) ", lbr, d->inode, rbr,
			 rec_len);
		width = strlen(tmp) + ls_name(NULL, d, options) + 3;
	}
	if (ls->col + width > 80) {
		fputc('\n', ls->out);
		ls->col = 0;
	}
	fputs(tmp, ls->out);
	if (entry != DIRENT_CHECKSUM) {
		ls_name(ls->out, d, options);
		fputs("   ", ls->out);
	}
	ls->col += width;
}

static int ls_proc(ext2_ino_t dir EXT2FS_ATTR((unused)), int entry,
		   struct ext2_dir_entry *d, int offset EXT2FS_ATTR((unused)),
		   int blocksize EXT2FS_ATTR((unused)),
		   char *buf EXT2FS_ATTR((unused)), void *priv)
{
	struct ls_state *ls = priv;
	struct ext2_inode inode;
	int options = ls->options;
	ext2_ino_t ino = d->inode;
	char lbr = ' ', rbr = ' ';

	if (ls->seen < 2) {
		ls->seen++;
		options |= LS_RAW;
	}
	if (entry == DIRENT_DELETED_FILE) {
		/* a removed entry's inode number is stale: don't read it */
		lbr = '<';
		rbr = '>';
		ino = 0;
	}
	if (!(options & (LS_LONG | LS_PARSE))) {
		ls_short_entry(ls, entry, d, options, lbr, rbr);
		return 0;
	}
	memset(&inode, 0, sizeof(inode));
	if (ino && read_inode("ls", ino, &inode))
		return 0;
	if (options & LS_PARSE)
		ls_parse_line(ls, ino, &inode, d);
	else
		ls_long_line(ls, entry, ino, &inode, d, options, lbr, rbr);
	return 0;
}

void do_list_dir(int argc, char **argv, int sci_idx EXT2FS_ATTR((unused)),
		 void *infop EXT2FS_ATTR((unused)))
{
	struct ext2_inode inode;
	struct ls_state ls;
	int flags = DIRENT_FLAG_INCLUDE_EMPTY;
	errcode_t retval;
	ext2_ino_t ino;
	int c;

	if (lj_debugfs_forward_if_not_lazy(argc, argv))
		return;
	if (check_fs_open(argv[0]))
		return;
	memset(&ls, 0, sizeof(ls));
	reset_getopt();
	while ((c = getopt(argc, argv, "cdlpr")) != EOF) {
		switch (c) {
		case 'c':
			flags |= DIRENT_FLAG_INCLUDE_CSUM;
			break;
		case 'd':
			flags |= DIRENT_FLAG_INCLUDE_REMOVED;
			break;
		case 'l':
			ls.options |= LS_LONG;
			break;
		case 'p':
			ls.options |= LS_PARSE;
			break;
		case 'r':
			ls.options |= LS_RAW;
			break;
		default:
			goto usage;
		}
	}
	if (argc > optind + 1)
		goto usage;

	ino = argc == optind ? EXT2_ROOT_INO : string_to_inode(argv[optind]);
	if (!ino)
		return;
	ls.out = open_pager();
	if (read_inode(argv[0], ino, &inode)) {
		close_pager(ls.out);
		return;
	}
	if (inode.i_flags & EXT4_ENCRYPT_FL)
		ls.options |= LS_ENCRYPTED;

	retval = ext2fs_dir_iterate2(current_fs, ino, flags, NULL, ls_proc, &ls);
	fputc('\n', ls.out);
	close_pager(ls.out);
	/* stock names the first argument, even when it is an option */
	if (retval)
		com_err(argc > 1 ? argv[1] : NULL, retval, NULL);
	return;
usage:
	com_err(NULL, 0, "Usage: ls [-c] [-d] [-l] [-p] [-r] file");
}

/* ------------------------------------------------------------------ */
/* cat, dump                                                           */

/* Give the dumped file the inode's permissions, owner and times. */
static void copy_attrs(const char *cmd, const struct ext2_inode *inode,
		       int fd, const char *name)
{
	struct utimbuf ut;

	if (fchmod(fd, inode->i_mode & 07777) < 0)
		com_err(cmd, errno, "while setting permissions of %s", name);
	if (fchown(fd, inode_uid(*inode), inode_gid(*inode)) < 0)
		com_err(cmd, errno, "while changing ownership of %s", name);
	ut.actime = inode->i_atime;
	ut.modtime = inode->i_mtime;
	if (utime(name, &ut) < 0)
		com_err(cmd, errno, "while setting times of %s", name);
}

/* Copy the contents of inode ino to fd. */
static void dump_contents(const char *cmd, ext2_ino_t ino, int fd,
			  int preserve, const char *name)
{
	struct ext2_inode inode;
	ext2_file_t file;
	errcode_t retval;
	unsigned int got;
	char *buf;

	if (read_inode(cmd, ino, &inode))
		return;
	retval = ext2fs_file_open(current_fs, ino, 0, &file);
	if (retval) {
		com_err(cmd, retval, "while opening ext2 file");
		return;
	}
	buf = malloc(current_fs->blocksize);
	if (!buf) {
		com_err(cmd, EXT2_ET_NO_MEMORY, "while allocating memory");
		ext2fs_file_close(file);
		return;
	}
	for (;;) {
		retval = ext2fs_file_read(file, buf, current_fs->blocksize,
					  &got);
		if (retval) {
			com_err(cmd, retval, "while reading ext2 file");
			break;
		}
		if (got == 0)
			break;
		if (write(fd, buf, got) != (ssize_t) got) {
			com_err(cmd, errno, "while writing file");
			break;
		}
	}
	free(buf);
	retval = ext2fs_file_close(file);
	if (retval) {
		com_err(cmd, retval, "while closing ext2 file");
		return;
	}
	if (preserve)
		copy_attrs("dump_file", &inode, fd, name);
}

void do_cat(int argc, char **argv, int sci_idx EXT2FS_ATTR((unused)),
	    void *infop EXT2FS_ATTR((unused)))
{
	ext2_ino_t ino;

	if (lj_debugfs_forward_if_not_lazy(argc, argv))
		return;
	if (one_inode_arg(argc, argv, &ino))
		return;
	/* the contents go straight to fd 1: flush what stdio holds first */
	fflush(stdout);
	fflush(stderr);
	dump_contents(argv[0], ino, 1, 0, NULL);
}

void do_dump(int argc, char **argv, int sci_idx EXT2FS_ATTR((unused)),
	     void *infop EXT2FS_ATTR((unused)))
{
	const char *out_name;
	ext2_ino_t ino;
	int c, fd, preserve = 0;

	if (lj_debugfs_forward_if_not_lazy(argc, argv))
		return;
	reset_getopt();
	while ((c = getopt(argc, argv, "p")) != EOF) {
		if (c != 'p')
			goto usage;
		preserve = 1;
	}
	if (optind != argc - 2)
		goto usage;
	if (check_fs_open(argv[0]))
		return;
	ino = string_to_inode(argv[optind]);
	if (!ino)
		return;
	out_name = argv[optind + 1];
	fd = open(out_name, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, 0666);
	if (fd < 0) {
		com_err(argv[0], errno, "while opening %s for dump_inode",
			out_name);
		return;
	}
	dump_contents(argv[0], ino, fd, preserve, out_name);
	if (close(fd) < 0)
		com_err(argv[0], errno, "while closing %s for dump_inode",
			out_name);
	return;
usage:
	com_err(argv[0], 0, "Usage: dump_inode [-p] <file> <output_file>");
}

/* ------------------------------------------------------------------ */
/* block_dump                                                          */

/* Is a value text enough to print (at most 3 unprintable bytes)? */
static int mostly_printable(const unsigned char *s, size_t len)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++)
		if (!isprint(s[i]) && ++bad > 3)
			return 0;
	return 1;
}

/* Text with control bytes as ^X and high bytes as M-x, like cat -v. */
static void print_caret(FILE *out, const unsigned char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = s[i];

		if (ch > 128) {
			fputs("M-", out);
			ch -= 128;
		}
		if (ch < 32 || ch == 0x7f) {
			fputc('^', out);
			ch ^= 0x40;
		}
		fputc(ch, out);
	}
}

/* The entries of an xattr block (from offset start), one paragraph each. */
static void xattr_entries(FILE *out, const unsigned char *buf,
			  unsigned int start, unsigned int len)
{
	unsigned int off = start;

	while (off < len) {
		struct ext2_ext_attr_entry ent;
		unsigned int vstart;

		__u32 first_word = 0;

		if (off + 4 <= len)
			memcpy(&first_word, buf + off, 4);
		if (off + 4 <= len && !first_word) {
			fprintf(out, "last entry found at offset %u (%04o)\n",
				off, off);
			break;
		}
		if (off + sizeof(ent) >= len) {
			fprintf(out, "xattr buffer overrun at %u (len = %u)\n",
				off, len);
			break;
		}
		memcpy(&ent, buf + off, sizeof(ent));
		fprintf(out, "offset = %u (%04o), hash = %u, name_len = %u, "
			"name_index = %u\n", off, off, ent.e_hash,
			ent.e_name_len, ent.e_name_index);
		vstart = ent.e_value_offs;
		fprintf(out, "value_offset = %u (%04o), value_inum = %u, "
			"value_size = %u\n", ent.e_value_offs, vstart,
			ent.e_value_inum, ent.e_value_size);
		off += sizeof(ent);
		fputs("name = ", out);
		if (off + ent.e_name_len >= len)
			fputs("<runs off end>", out);
		else
			print_xattr_str(out, (const char *) buf + off,
					ent.e_name_len, PRINT_NOQUOTES);
		fputc('\n', out);
		if (ent.e_value_size) {
			fputs("value = ", out);
			if (ent.e_value_inum)
				fprintf(out, "<ino %u>", ent.e_value_inum);
			else if (ent.e_value_offs >= len ||
				 vstart + ent.e_value_size > len)
				fputs("<runs off end>", out);
			else if (mostly_printable(buf + vstart,
						  ent.e_value_size))
				print_caret(out, buf + vstart,
					    ent.e_value_size);
			else {
				fputs("<hexdump>\n", out);
				hexdump(out, buf + vstart, ent.e_value_size);
			}
			fputc('\n', out);
		}
		fputc('\n', out);
		off += (ent.e_name_len + 3) & ~3U;
	}
}

static void xattr_block_dump(FILE *out, const unsigned char *buf,
			     unsigned int len)
{
	struct ext2_ext_attr_header h;

	memcpy(&h, buf, sizeof(h));
	fprintf(out, "magic = %08x, length = %u\n", h.h_magic, len);
	if (h.h_magic != EXT2_EXT_ATTR_MAGIC)
		return;
	fprintf(out, "refcount = %u, blocks = %u\n", h.h_refcount,
		h.h_blocks);
	fprintf(out, "hash = %08x, checksum = %08x\n", h.h_hash, h.h_checksum);
	fprintf(out, "reserved: %08x %08x %08x\n\n", h.h_reserved[0],
		h.h_reserved[1], h.h_reserved[2]);
	xattr_entries(out, buf, sizeof(h), len);
}

/* A block number as stock parses it: any strtoull base, 0 allowed. */
static int parse_block(const char *cmd, const char *str, blk64_t *ret)
{
	char *end;

	*ret = strtoull(str, &end, 0);
	if (*end) {
		com_err(cmd, 0, "Bad block - %s", str);
		return 1;
	}
	return 0;
}

/* The home copy of a block on a lazy channel, else the block itself. */
static errcode_t read_home(blk64_t blk, void *buf)
{
	lj_lazy_state *st;

	if (lj_lazy_get_state(current_fs->io, &st))
		return io_channel_read_blk64(current_fs->io, blk, 1, buf);
	return lj_lazy_read_home(current_fs->io, blk, buf);
}

void do_block_dump(int argc, char **argv, int sci_idx EXT2FS_ATTR((unused)),
		   void *infop EXT2FS_ATTR((unused)))
{
	const char *file = NULL;
	int c, xattr = 0, home = 0;
	unsigned char *buf;
	errcode_t retval;
	blk64_t blk;

	if (!lj_debugfs_has_option(argc, argv, 'H') &&
	    lj_debugfs_forward_if_not_lazy(argc, argv))
		return;
	if (check_fs_open(argv[0]))
		return;
	reset_getopt();
	while ((c = getopt(argc, argv, "f:xH")) != EOF) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'x':
			xattr = 1;
			break;
		case 'H':
			home = 1;
			break;
		default:
			goto usage;
		}
	}
	if (argc != optind + 1)
		goto usage;
	if (parse_block(argv[0], argv[optind], &blk))
		return;
	if (file) {
		ext2_ino_t ino = string_to_inode(file);

		if (!ino)
			return;
		/* stock reports the (possibly clobbered) output block */
		retval = ext2fs_bmap2(current_fs, ino, NULL, NULL, 0, blk,
				      NULL, &blk);
		if (retval) {
			com_err(argv[0], retval,
				"while mapping logical block %llu\n",
				(unsigned long long) blk);
			return;
		}
	}

	buf = malloc(current_fs->blocksize);
	if (!buf) {
		com_err(argv[0], 0, "Couldn't allocate block buffer");
		return;
	}
	if (home)
		retval = read_home(blk, buf);
	else
		retval = io_channel_read_blk64(current_fs->io, blk, 1, buf);
	if (retval)
		com_err(argv[0], retval, "while reading block %llu\n",
			(unsigned long long) blk);
	else if (xattr)
		xattr_block_dump(stdout, buf, current_fs->blocksize);
	else
		hexdump(stdout, buf, current_fs->blocksize);
	free(buf);
	return;
usage:
	com_err(NULL, 0, "Usage: block_dump [-x] [-f inode] [-H] block_num");
}
