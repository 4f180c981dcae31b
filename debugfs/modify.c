/*
 * modify.c --- debugfs -w requests that change a lazy file system.
 *
 * On a lazy_journal file system opened with -w, current_fs sits on the
 * lazy io channel opened for writing: every metadata write libext2fs makes
 * (inode table, directory and extent blocks, bitmaps, group descriptors,
 * the superblock) is collected into the running transaction, and reads
 * see it.  Each request here ends with a commit (lj_debugfs_commit): the
 * transaction goes to the head of the log and the home copies are never
 * written.  File data (write) goes home, in data mode, before the commit
 * that makes it reachable (ordered mode), exactly like the ext4-lazy
 * kernel.
 *
 * Syntax, checks and messages follow stock debugfs 1.47.  On a file
 * system without lazy_journal every request here is handed to stock
 * debugfs unchanged; the field listings (`ssv -l`, ...) always are.
 */
#define _GNU_SOURCE	/* strptime, timegm */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sys/random.h>

#include <et/com_err.h>
#include <e2p/e2p.h>

#include "debugfs.h"

/* ------------------------------------------------------------------ */
/* Request plumbing                                                    */

/*
 * The stock common_args_process, for a request we may run natively.
 * Returns 0 to run it here; nonzero when it was handled already: handed
 * to stock debugfs (no file system, or not lazy) or refused with the
 * stock message.
 */
static int lazy_args(int argc, char **argv, int min, int max,
		     const char *cmd, const char *usage)
{
	if (current_fs && !lj_debugfs_is_lazy()) {
		do_forward(argc, argv, 0, NULL);
		return 1;
	}
	if (argc < min || argc > max) {
		com_err(argv[0], 0, "Usage: %s %s", cmd, usage);
		return 1;
	}
	if (check_fs_open(argv[0]))
		return 1;
	if (!(current_fs->flags & EXT2_FLAG_RW)) {
		com_err(argv[0], 0, "Filesystem opened read/only");
		return 1;
	}
	return 0;
}

static int check_bitmaps(const char *cmd)
{
	if (!current_fs->block_map || !current_fs->inode_map) {
		com_err(cmd, 0, "Filesystem bitmaps not loaded");
		return 1;
	}
	return 0;
}

/* A listing request (`ssv -l`): stock debugfs prints it. */
static int forward_listing(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		lj_debugfs_forward_quiet(argc, argv);
		return 1;
	}
	return 0;
}

errcode_t lj_debugfs_commit(const char *cmd)
{
	io_stats stats = NULL;
	errcode_t err;

	if (!current_fs || !(current_fs->flags & EXT2_FLAG_RW))
		return 0;
	/*
	 * ext2fs_flush would flush the channel (= commit) before writing the
	 * primary superblock and again after it: two transactions.  Without
	 * its syncs everything goes into the running transaction, which
	 * the channel flush then commits as one.
	 */
	err = 0;
	if (current_fs->flags & EXT2_FLAG_DIRTY)
		err = ext2fs_flush2(current_fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err)
		err = io_channel_flush(current_fs->io);
	/*
	 * The journaled bytes are not the device's lifetime writes; and
	 * without this, closing would log one more superblock-only
	 * transaction to account for them.
	 */
	if (current_fs->io->manager->get_stats &&
	    !current_fs->io->manager->get_stats(current_fs->io, &stats) &&
	    stats)
		stats->bytes_written = 0;
	if (err) {
		com_err(cmd, err, "while committing the transaction to the "
			"journal");
		lj_debugfs_failed();
	}
	return err;
}

static int read_inode(ext2_ino_t ino, struct ext2_inode *inode,
		      const char *cmd)
{
	errcode_t err = ext2fs_read_inode(current_fs, ino, inode);

	if (err) {
		com_err(cmd, err, "while reading inode %u", ino);
		return 1;
	}
	return 0;
}

/* Look up name (from the root) and read its inode; 1 after an error. */
static int resolve_file(const char *cmd, const char *name, ext2_ino_t *ino,
			struct ext2_inode *inode)
{
	errcode_t err = ext2fs_namei(current_fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				     name, ino);

	if (err) {
		com_err(cmd, err, "while trying to resolve filename");
		return 1;
	}
	return read_inode(*ino, inode, cmd);
}

static int write_inode(ext2_ino_t ino, struct ext2_inode *inode,
		       const char *cmd)
{
	errcode_t err = ext2fs_write_inode(current_fs, ino, inode);

	if (err) {
		com_err(cmd, err, "while writing inode %u", ino);
		return 1;
	}
	return 0;
}

/* The directory-entry file type of a mode (debugfs's ext2_file_type). */
static int file_type(unsigned int mode)
{
	if (LINUX_S_ISREG(mode))
		return EXT2_FT_REG_FILE;
	if (LINUX_S_ISDIR(mode))
		return EXT2_FT_DIR;
	if (LINUX_S_ISCHR(mode))
		return EXT2_FT_CHRDEV;
	if (LINUX_S_ISBLK(mode))
		return EXT2_FT_BLKDEV;
	if (LINUX_S_ISLNK(mode))
		return EXT2_FT_SYMLINK;
	if (LINUX_S_ISFIFO(mode))
		return EXT2_FT_FIFO;
	if (LINUX_S_ISSOCK(mode))
		return EXT2_FT_SOCK;
	return 0;
}

/* uuid_parse without libuuid: 8-4-4-4-12 hex digits; 0 when good. */
static int parse_uuid_str(const char *s, unsigned char *out)
{
	int i, n = 0;

	if (strlen(s) != 36)
		return -1;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			continue;
		}
		if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return -1;
	}
	for (i = 0; i < 36; i += 2) {
		unsigned int b;

		if (s[i] == '-')
			i++;
		sscanf(s + i, "%2x", &b);
		out[n++] = (unsigned char)b;
	}
	return 0;
}

/* A random (version 4) UUID; "time" gets one too (no libuuid here). */
static void random_uuid(unsigned char *out)
{
	size_t got = 0;
	ssize_t r;

	while (got < 16) {
		r = getrandom(out + got, 16 - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	for (; got < 16; got++)
		out[got] = (unsigned char)rand();
	out[6] = (out[6] & 0x0F) | 0x40;
	out[8] = (out[8] & 0x3F) | 0x80;
}

static time_t fs_now(void)
{
	return current_fs->now ? current_fs->now : time(NULL);
}

/* ------------------------------------------------------------------ */
/* mkdir                                                               */

void do_mkdir(int argc, char **argv, int sci, void *infop)
{
	ext2_ino_t parent = EXT2_ROOT_INO, ino;
	char *name, *cp;
	errcode_t err;

	(void)sci; (void)infop;
	if (lazy_args(argc, argv, 2, 2, "mkdir", "<filename>"))
		return;
	name = argv[1];
	cp = strrchr(name, '/');
	if (cp) {
		*cp = '\0';
		err = ext2fs_namei(current_fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				   name, &parent);
		if (err) {
			com_err(name, err, "while looking up \"%s\"", name);
			goto fail;
		}
		name = cp + 1;
	}
	/*
	 * libext2fs 1.47.0's ext2fs_mkdir allocates and links the new
	 * inode's parent count before it finds the name taken, leaving an
	 * unconnected directory behind (stock debugfs does the same).  Same
	 * message, nothing leaked.
	 */
	if (!ext2fs_lookup(current_fs, parent, name, (int)strlen(name), NULL,
			   &ino))
		err = EXT2_ET_DIR_EXISTS;
	else
		err = ext2fs_mkdir(current_fs, parent, 0, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(current_fs, parent);
		if (err) {
			com_err("do_mkdir_internal", err,
				"while expanding directory");
			goto fail;
		}
		err = ext2fs_mkdir(current_fs, parent, 0, name);
	}
	if (err) {
		com_err("ext2fs_mkdir", err, "while creating directory \"%s\"",
			name);
		goto fail;
	}
	lj_debugfs_commit(argv[0]);
	return;
fail:
	com_err(argv[0], err, 0);
	lj_debugfs_commit(argv[0]);	/* whatever was changed on the way */
}

/* ------------------------------------------------------------------ */
/* write                                                               */

static int all_zero(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/*
 * Copy the file's bytes: allocate each non-zero block (metadata: extent
 * tree, inode; journaled), then write the block's data home in data
 * mode.  All-zero blocks stay holes, as stock debugfs leaves them.
 */
static errcode_t copy_blocks(int fd, ext2_ino_t ino, struct ext2_inode *inode)
{
	ext2_filsys fs = current_fs;
	unsigned int bs = fs->blocksize;
	unsigned char *buf;
	blk64_t lblk = 0, pblk;
	errcode_t err = 0;
	ssize_t got;

	buf = malloc(bs);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	for (;; lblk++) {
		size_t have = 0;

		while (have < bs) {
			got = read(fd, buf + have, bs - have);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0) {
				err = errno;
				goto out;
			}
			if (!got)
				break;
			have += (size_t)got;
		}
		if (!have)
			break;
		memset(buf + have, 0, bs - have);
		if (!all_zero(buf, bs)) {
			pblk = 0;
			err = ext2fs_bmap2(fs, ino, inode, NULL, BMAP_ALLOC,
					   lblk, NULL, &pblk);
			if (err)
				goto out;
			err = lj_lazy_set_data_mode(fs->io, 1);
			if (!err)
				err = io_channel_write_blk64(fs->io, pblk, 1,
							     buf);
			lj_lazy_set_data_mode(fs->io, 0);
			if (err)
				goto out;
		}
		if (have < bs)
			break;
	}
out:
	free(buf);
	return err;
}

/* Small files on an inline_data file system live in the inode. */
static errcode_t copy_inline(int fd, ext2_ino_t ino)
{
	char buf[EXT4_MIN_INLINE_DATA_SIZE];
	ext2_file_t e2_file;
	ssize_t got;
	errcode_t err, err2;

	got = read(fd, buf, sizeof(buf));
	if (got < 0)
		return errno;
	err = ext2fs_file_open(current_fs, ino, EXT2_FILE_WRITE, &e2_file);
	if (err)
		return err;
	err = got ? ext2fs_file_write(e2_file, buf, (unsigned int)got, NULL)
		  : 0;
	err2 = ext2fs_file_close(e2_file);
	return err ? err : err2;
}

static errcode_t write_internal(const char *src, char *dest)
{
	ext2_filsys fs = current_fs;
	struct ext2_inode inode;
	ext2_ino_t parent = EXT2_ROOT_INO, ino;
	struct stat st;
	errcode_t err;
	char *cp;
	int fd, inline_data;

	fd = open(src, O_RDONLY);
	if (fd < 0) {
		err = errno;
		com_err("do_write_internal", err, "while opening \"%s\" to copy",
			src);
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		goto out;
	}
	cp = strrchr(dest, '/');
	if (cp) {
		*cp = '\0';
		err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, dest,
				   &parent);
		if (err) {
			com_err(dest, err, "while looking up \"%s\"", dest);
			goto out;
		}
		dest = cp + 1;
	}
	err = ext2fs_namei(fs, EXT2_ROOT_INO, parent, dest, &ino);
	if (!err) {
		err = EXT2_ET_FILE_EXISTS;
		goto out;
	}
	err = ext2fs_new_inode(fs, parent, 010755, 0, &ino);
	if (err)
		goto out;
	printf("Allocated inode: %u\n", ino);
	err = ext2fs_link(fs, parent, dest, ino, EXT2_FT_REG_FILE);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(fs, parent);
		if (!err)
			err = ext2fs_link(fs, parent, dest, ino,
					  EXT2_FT_REG_FILE);
	}
	if (err)
		goto out;
	if (ext2fs_test_inode_bitmap2(fs->inode_map, ino))
		com_err("do_write_internal", 0, "Warning: inode already set");
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);

	memset(&inode, 0, sizeof(inode));
	inode.i_mode = (st.st_mode & ~S_IFMT) | LINUX_S_IFREG;
	inode.i_atime = inode.i_ctime = inode.i_mtime = (__u32)fs_now();
	inode.i_links_count = 1;
	err = ext2fs_inode_size_set(fs, &inode, st.st_size);
	if (err)
		goto out;
	inline_data = ext2fs_has_feature_inline_data(fs->super) &&
		      st.st_size <= (off_t)EXT4_MIN_INLINE_DATA_SIZE;
	if (inline_data) {
		inode.i_flags |= EXT4_INLINE_DATA_FL;
	} else if (ext2fs_has_feature_extents(fs->super)) {
		ext2_extent_handle_t handle;

		inode.i_flags &= ~EXT4_EXTENTS_FL;
		err = ext2fs_extent_open2(fs, ino, &inode, &handle);
		if (err)
			goto out;
		ext2fs_extent_free(handle);
	}
	err = ext2fs_write_new_inode(fs, ino, &inode);
	if (err)
		goto out;
	if (inline_data) {
		err = ext2fs_inline_data_init(fs, ino);
		if (!err)
			err = copy_inline(fd, ino);
	} else {
		err = copy_blocks(fd, ino, &inode);
	}
out:
	close(fd);
	return err;
}

void do_write(int argc, char **argv, int sci, void *infop)
{
	errcode_t err;

	(void)sci; (void)infop;
	if (lazy_args(argc, argv, 3, 3, "write", "<native file> <new file>"))
		return;
	err = write_internal(argv[1], argv[2]);
	if (err)
		com_err(argv[0], err, 0);
	lj_debugfs_commit(argv[0]);
}

/* ------------------------------------------------------------------ */
/* link, unlink, rm, kill_file, rmdir                                  */

void do_link(int argc, char **argv, int sci, void *infop)
{
	struct ext2_inode inode;
	ext2_ino_t ino, dir;
	char *src, *destname, *base, *dest, *cp;
	errcode_t err;

	(void)sci; (void)infop;
	if (lazy_args(argc, argv, 3, 3, "link", "<source file> <dest_name>"))
		return;
	src = argv[1];
	destname = argv[2];
	ino = string_to_inode(src);
	if (!ino)
		return;
	base = strrchr(src, '/');
	base = base ? base + 1 : src;
	/* An existing destination is a directory to link into. */
	if (!ext2fs_namei(current_fs, EXT2_ROOT_INO, EXT2_ROOT_INO, destname,
			  &dir)) {
		dest = base;
	} else {
		cp = strrchr(destname, '/');
		if (cp) {
			*cp = '\0';
			dir = string_to_inode(destname);
			if (!dir)
				return;
			dest = cp + 1;
		} else {
			dir = EXT2_ROOT_INO;
			dest = destname;
		}
	}
	if (read_inode(ino, &inode, src))
		return;
	err = ext2fs_link(current_fs, dir, dest, ino,
			  file_type(inode.i_mode));
	if (err)
		com_err("make_link", err, 0);
	lj_debugfs_commit(argv[0]);
}

static void unlink_by_name(char *filename)
{
	ext2_ino_t dir;
	char *base;
	errcode_t err;

	base = strrchr(filename, '/');
	if (base) {
		*base++ = '\0';
		dir = string_to_inode(filename);
		if (!dir)
			return;
	} else {
		dir = EXT2_ROOT_INO;
		base = filename;
	}
	err = ext2fs_unlink(current_fs, dir, base, 0, 0);
	if (err)
		com_err("unlink_file_by_name", err, 0);
}

void do_unlink(int argc, char **argv, int sci, void *infop)
{
	(void)sci; (void)infop;
	/* "link": stock debugfs 1.47 names it so in the usage line */
	if (lazy_args(argc, argv, 2, 2, "link", "<pathname>"))
		return;
	unlink_by_name(argv[1]);
	lj_debugfs_commit(argv[0]);
}

static int release_block(ext2_filsys fs, blk64_t *blocknr,
			 e2_blkcnt_t blockcnt, blk64_t ref_block,
			 int ref_offset, void *priv)
{
	blk64_t *last_cluster = priv;
	blk64_t cluster = EXT2FS_B2C(fs, *blocknr);

	(void)blockcnt; (void)ref_block; (void)ref_offset;
	if (last_cluster) {
		if (cluster == *last_cluster)
			return 0;
		*last_cluster = cluster;
	}
	ext2fs_block_alloc_stats2(fs, *blocknr, -1);
	return 0;
}

static void kill_file_by_inode(ext2_ino_t ino)
{
	struct ext2_inode inode;
	blk64_t last_cluster = 0;

	if (read_inode(ino, &inode, 0))
		return;
	inode.i_dtime = (__u32)fs_now();
	if (write_inode(ino, &inode, 0))
		return;
	if (ext2fs_inode_has_valid_blocks2(current_fs, &inode))
		ext2fs_block_iterate3(current_fs, ino, BLOCK_FLAG_READ_ONLY,
				      NULL, release_block,
				      ext2fs_has_feature_bigalloc(current_fs->super)
				      ? &last_cluster : NULL);
	printf("\n");
	ext2fs_inode_alloc_stats2(current_fs, ino, -1,
				  LINUX_S_ISDIR(inode.i_mode));
}

void do_rm(int argc, char **argv, int sci, void *infop)
{
	struct ext2_inode inode;
	ext2_ino_t ino;

	(void)sci; (void)infop;
	if (lazy_args(argc, argv, 2, 2, "rm", "<filename>"))
		return;
	if (resolve_file(argv[0], argv[1], &ino, &inode))
		return;
	if (LINUX_S_ISDIR(inode.i_mode)) {
		com_err(argv[0], 0, "file is a directory");
		return;
	}
	--inode.i_links_count;
	if (write_inode(ino, &inode, argv[0]))
		goto out;
	unlink_by_name(argv[1]);
	if (inode.i_links_count == 0)
		kill_file_by_inode(ino);
out:
	lj_debugfs_commit(argv[0]);
}

void do_kill_file(int argc, char **argv, int sci, void *infop)
{
	ext2_ino_t ino;

	(void)sci; (void)infop;
	if (lazy_args(argc, argv, 2, 2, argv[0], "<file>"))
		return;
	if (check_bitmaps(argv[0]))
		return;
	ino = string_to_inode(argv[1]);
	if (!ino)
		return;
	kill_file_by_inode(ino);
	lj_debugfs_commit(argv[0]);
}

struct rd_struct {
	ext2_ino_t parent;
	int empty;
};

static int rmdir_proc(ext2_ino_t dir, int entry, struct ext2_dir_entry *d,
		      int offset, int blocksize, char *buf, void *priv)
{
	struct rd_struct *rds = priv;
	int len = ext2fs_dirent_name_len(d);

	(void)dir; (void)offset; (void)blocksize; (void)buf;
	if (d->inode == 0)
		return 0;
	if (len == 1 && d->name[0] == '.')
		return 0;
	if (len == 2 && d->name[0] == '.' && d->name[1] == '.') {
		rds->parent = d->inode;
		return 0;
	}
	(void)entry;
	rds->empty = 0;
	return 0;
}

void do_rmdir(int argc, char **argv, int sci, void *infop)
{
	struct ext2_inode inode;
	struct rd_struct rds;
	ext2_ino_t ino;
	errcode_t err;

	(void)sci; (void)infop;
	if (lazy_args(argc, argv, 2, 2, "rmdir", "<filename>"))
		return;
	if (resolve_file(argv[0], argv[1], &ino, &inode))
		return;
	if (!LINUX_S_ISDIR(inode.i_mode)) {
		com_err(argv[0], 0, "file is not a directory");
		return;
	}
	rds.parent = 0;
	rds.empty = 1;
	err = ext2fs_dir_iterate2(current_fs, ino, 0, 0, rmdir_proc, &rds);
	if (err) {
		com_err(argv[0], err, "while iterating over directory");
		return;
	}
	if (!rds.empty) {
		com_err(argv[0], 0, "directory not empty");
		return;
	}
	inode.i_links_count = 0;
	if (write_inode(ino, &inode, argv[0]))
		goto out;
	unlink_by_name(argv[1]);
	kill_file_by_inode(ino);
	if (rds.parent) {
		if (read_inode(rds.parent, &inode, argv[0]))
			goto out;
		if (inode.i_links_count > 1)
			inode.i_links_count--;
		write_inode(rds.parent, &inode, argv[0]);
	}
out:
	lj_debugfs_commit(argv[0]);
}

/* ------------------------------------------------------------------ */
/* set_super_value, set_inode_field, set_block_group                   */

static struct ext2_super_block set_sb;
static struct ext2_inode_large set_inode;
static unsigned char set_gd[EXT2_MAX_DESC_SIZE];
static ext2_ino_t set_ino;
static dgrp_t set_bg;
static int array_idx;

enum ftype { F_UINT, F_INT, F_STRING, F_UUID, F_TIME, F_HASHALG, F_BMAP,
	     F_GD_CSUM, F_INODE_CSUM };

#define F_ARRAY	0x1

struct field {
	const char *name;
	size_t off;		/* offset in the structure */
	ssize_t off2;		/* high part, -1 if none */
	unsigned int size;	/* 6: 4 bytes low + 2 bytes high */
	enum ftype type;
	int flags;
	int max_idx;
};

#define SB(f)	offsetof(struct ext2_super_block, f)
#define IN(f)	offsetof(struct ext2_inode_large, f)
#define G4(f)	offsetof(struct ext4_group_desc, f)

static const struct field super_fields[] = {
	{ "inodes_count", SB(s_inodes_count), -1, 4, F_UINT, 0, 0 },
	{ "blocks_count", SB(s_blocks_count), SB(s_blocks_count_hi), 4, F_UINT, 0, 0 },
	{ "r_blocks_count", SB(s_r_blocks_count), SB(s_r_blocks_count_hi), 4, F_UINT, 0, 0 },
	{ "free_blocks_count", SB(s_free_blocks_count), SB(s_free_blocks_hi), 4, F_UINT, 0, 0 },
	{ "free_inodes_count", SB(s_free_inodes_count), -1, 4, F_UINT, 0, 0 },
	{ "first_data_block", SB(s_first_data_block), -1, 4, F_UINT, 0, 0 },
	{ "log_block_size", SB(s_log_block_size), -1, 4, F_UINT, 0, 0 },
	{ "log_cluster_size", SB(s_log_cluster_size), -1, 4, F_INT, 0, 0 },
	{ "blocks_per_group", SB(s_blocks_per_group), -1, 4, F_UINT, 0, 0 },
	{ "clusters_per_group", SB(s_clusters_per_group), -1, 4, F_UINT, 0, 0 },
	{ "inodes_per_group", SB(s_inodes_per_group), -1, 4, F_UINT, 0, 0 },
	{ "mtime", SB(s_mtime), -1, 4, F_TIME, 0, 0 },
	{ "wtime", SB(s_wtime), -1, 4, F_TIME, 0, 0 },
	{ "mnt_count", SB(s_mnt_count), -1, 2, F_UINT, 0, 0 },
	{ "max_mnt_count", SB(s_max_mnt_count), -1, 2, F_INT, 0, 0 },
	{ "state", SB(s_state), -1, 2, F_UINT, 0, 0 },
	{ "errors", SB(s_errors), -1, 2, F_UINT, 0, 0 },
	{ "minor_rev_level", SB(s_minor_rev_level), -1, 2, F_UINT, 0, 0 },
	{ "lastcheck", SB(s_lastcheck), -1, 4, F_TIME, 0, 0 },
	{ "checkinterval", SB(s_checkinterval), -1, 4, F_UINT, 0, 0 },
	{ "creator_os", SB(s_creator_os), -1, 4, F_UINT, 0, 0 },
	{ "rev_level", SB(s_rev_level), -1, 4, F_UINT, 0, 0 },
	{ "def_resuid", SB(s_def_resuid), -1, 2, F_UINT, 0, 0 },
	{ "def_resgid", SB(s_def_resgid), -1, 2, F_UINT, 0, 0 },
	{ "first_ino", SB(s_first_ino), -1, 4, F_UINT, 0, 0 },
	{ "inode_size", SB(s_inode_size), -1, 2, F_UINT, 0, 0 },
	{ "block_group_nr", SB(s_block_group_nr), -1, 2, F_UINT, 0, 0 },
	{ "feature_compat", SB(s_feature_compat), -1, 4, F_UINT, 0, 0 },
	{ "feature_incompat", SB(s_feature_incompat), -1, 4, F_UINT, 0, 0 },
	{ "feature_ro_compat", SB(s_feature_ro_compat), -1, 4, F_UINT, 0, 0 },
	{ "uuid", SB(s_uuid), -1, 16, F_UUID, 0, 0 },
	{ "volume_name", SB(s_volume_name), -1, 16, F_STRING, 0, 0 },
	{ "last_mounted", SB(s_last_mounted), -1, 64, F_STRING, 0, 0 },
	{ "algorithm_usage_bitmap", SB(s_algorithm_usage_bitmap), -1, 4, F_UINT, 0, 0 },
	{ "prealloc_blocks", SB(s_prealloc_blocks), -1, 1, F_UINT, 0, 0 },
	{ "prealloc_dir_blocks", SB(s_prealloc_dir_blocks), -1, 1, F_UINT, 0, 0 },
	{ "reserved_gdt_blocks", SB(s_reserved_gdt_blocks), -1, 2, F_UINT, 0, 0 },
	{ "journal_uuid", SB(s_journal_uuid), -1, 16, F_UUID, 0, 0 },
	{ "journal_inum", SB(s_journal_inum), -1, 4, F_UINT, 0, 0 },
	{ "journal_dev", SB(s_journal_dev), -1, 4, F_UINT, 0, 0 },
	{ "last_orphan", SB(s_last_orphan), -1, 4, F_UINT, 0, 0 },
	{ "hash_seed", SB(s_hash_seed), -1, 16, F_UUID, 0, 0 },
	{ "def_hash_version", SB(s_def_hash_version), -1, 1, F_HASHALG, 0, 0 },
	{ "jnl_backup_type", SB(s_jnl_backup_type), -1, 1, F_UINT, 0, 0 },
	{ "desc_size", SB(s_desc_size), -1, 2, F_UINT, 0, 0 },
	{ "default_mount_opts", SB(s_default_mount_opts), -1, 4, F_UINT, 0, 0 },
	{ "first_meta_bg", SB(s_first_meta_bg), -1, 4, F_UINT, 0, 0 },
	{ "mkfs_time", SB(s_mkfs_time), -1, 4, F_TIME, 0, 0 },
	{ "jnl_blocks", SB(s_jnl_blocks), -1, 4, F_UINT, F_ARRAY, 17 },
	{ "min_extra_isize", SB(s_min_extra_isize), -1, 2, F_UINT, 0, 0 },
	{ "want_extra_isize", SB(s_want_extra_isize), -1, 2, F_UINT, 0, 0 },
	{ "flags", SB(s_flags), -1, 4, F_UINT, 0, 0 },
	{ "raid_stride", SB(s_raid_stride), -1, 2, F_UINT, 0, 0 },
	{ "mmp_interval", SB(s_mmp_update_interval), -1, 2, F_UINT, 0, 0 },
	{ "mmp_block", SB(s_mmp_block), -1, 8, F_UINT, 0, 0 },
	{ "raid_stripe_width", SB(s_raid_stripe_width), -1, 4, F_UINT, 0, 0 },
	{ "log_groups_per_flex", SB(s_log_groups_per_flex), -1, 1, F_UINT, 0, 0 },
	{ "kbytes_written", SB(s_kbytes_written), -1, 8, F_UINT, 0, 0 },
	{ "mount_opts", SB(s_mount_opts), -1, 64, F_STRING, 0, 0 },
	{ "usr_quota_inum", SB(s_usr_quota_inum), -1, 4, F_UINT, 0, 0 },
	{ "grp_quota_inum", SB(s_grp_quota_inum), -1, 4, F_UINT, 0, 0 },
	{ "prj_quota_inum", SB(s_prj_quota_inum), -1, 4, F_UINT, 0, 0 },
	{ "overhead_clusters", SB(s_overhead_clusters), -1, 4, F_UINT, 0, 0 },
	{ "backup_bgs", SB(s_backup_bgs), -1, 4, F_UINT, F_ARRAY, 2 },
	{ "checksum", SB(s_checksum), -1, 4, F_UINT, 0, 0 },
	{ "checksum_type", SB(s_checksum_type), -1, 1, F_UINT, 0, 0 },
	{ "error_count", SB(s_error_count), -1, 4, F_UINT, 0, 0 },
	{ "first_error_time", SB(s_first_error_time), -1, 4, F_TIME, 0, 0 },
	{ "first_error_ino", SB(s_first_error_ino), -1, 4, F_UINT, 0, 0 },
	{ "first_error_block", SB(s_first_error_block), -1, 8, F_UINT, 0, 0 },
	{ "first_error_func", SB(s_first_error_func), -1, 32, F_STRING, 0, 0 },
	{ "first_error_line", SB(s_first_error_line), -1, 4, F_UINT, 0, 0 },
	{ "last_error_time", SB(s_last_error_time), -1, 4, F_TIME, 0, 0 },
	{ "last_error_ino", SB(s_last_error_ino), -1, 4, F_UINT, 0, 0 },
	{ "last_error_block", SB(s_last_error_block), -1, 8, F_UINT, 0, 0 },
	{ "last_error_func", SB(s_last_error_func), -1, 32, F_STRING, 0, 0 },
	{ "last_error_line", SB(s_last_error_line), -1, 4, F_UINT, 0, 0 },
	{ "lpf_ino", SB(s_lpf_ino), -1, 4, F_UINT, 0, 0 },
	{ "checksum_seed", SB(s_checksum_seed), -1, 4, F_UINT, 0, 0 },
	{ "orphan_file_inum", SB(s_orphan_file_inum), -1, 4, F_UINT, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0 }
};

static const struct field inode_fields[] = {
	{ "mode", IN(i_mode), -1, 2, F_UINT, 0, 0 },
	{ "uid", IN(i_uid), IN(osd2.linux2.l_i_uid_high), 2, F_UINT, 0, 0 },
	{ "size", IN(i_size), IN(i_size_high), 4, F_UINT, 0, 0 },
	{ "atime", IN(i_atime), IN(i_atime_extra), 4, F_TIME, 0, 0 },
	{ "ctime", IN(i_ctime), IN(i_ctime_extra), 4, F_TIME, 0, 0 },
	{ "mtime", IN(i_mtime), IN(i_mtime_extra), 4, F_TIME, 0, 0 },
	{ "dtime", IN(i_dtime), -1, 4, F_TIME, 0, 0 },
	{ "gid", IN(i_gid), IN(osd2.linux2.l_i_gid_high), 2, F_UINT, 0, 0 },
	{ "links_count", IN(i_links_count), -1, 2, F_UINT, 0, 0 },
	{ "blocks", IN(i_blocks), IN(osd2.linux2.l_i_blocks_hi), 6, F_UINT, 0, 0 },
	{ "flags", IN(i_flags), -1, 4, F_UINT, 0, 0 },
	{ "version", IN(osd1.linux1.l_i_version), IN(i_version_hi), 4, F_UINT, 0, 0 },
	{ "translator", IN(osd1.hurd1.h_i_translator), -1, 4, F_UINT, 0, 0 },
	{ "block", IN(i_block), -1, 4, F_UINT, F_ARRAY, EXT2_NDIR_BLOCKS },
	{ "block[IND]", IN(i_block[EXT2_IND_BLOCK]), -1, 4, F_UINT, 0, 0 },
	{ "block[DIND]", IN(i_block[EXT2_DIND_BLOCK]), -1, 4, F_UINT, 0, 0 },
	{ "block[TIND]", IN(i_block[EXT2_TIND_BLOCK]), -1, 4, F_UINT, 0, 0 },
	{ "generation", IN(i_generation), -1, 4, F_UINT, 0, 0 },
	{ "file_acl", IN(i_file_acl), IN(osd2.linux2.l_i_file_acl_high), 6, F_UINT, 0, 0 },
	{ "faddr", IN(i_faddr), -1, 4, F_UINT, 0, 0 },
	{ "frag", IN(osd2.hurd2.h_i_frag), -1, 1, F_UINT, 0, 0 },
	{ "fsize", IN(osd2.hurd2.h_i_fsize), -1, 1, F_UINT, 0, 0 },
	{ "checksum", IN(osd2.linux2.l_i_checksum_lo), IN(i_checksum_hi), 2, F_INODE_CSUM, 0, 0 },
	{ "author", IN(osd2.hurd2.h_i_author), -1, 4, F_UINT, 0, 0 },
	{ "extra_isize", IN(i_extra_isize), -1, 2, F_UINT, 0, 0 },
	{ "ctime_extra", IN(i_ctime_extra), -1, 4, F_UINT, 0, 0 },
	{ "mtime_extra", IN(i_mtime_extra), -1, 4, F_UINT, 0, 0 },
	{ "atime_extra", IN(i_atime_extra), -1, 4, F_UINT, 0, 0 },
	{ "crtime", IN(i_crtime), IN(i_crtime_extra), 4, F_TIME, 0, 0 },
	{ "crtime_extra", IN(i_crtime_extra), -1, 4, F_UINT, 0, 0 },
	{ "projid", IN(i_projid), -1, 4, F_UINT, 0, 0 },
	{ "bmap", 0, -1, 4, F_BMAP, F_ARRAY, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0 }
};

/* Offsets are the same in ext2_group_desc for the low halves. */
static const struct field ext2_bg_fields[] = {
	{ "block_bitmap", G4(bg_block_bitmap), -1, 4, F_UINT, 0, 0 },
	{ "inode_bitmap", G4(bg_inode_bitmap), -1, 4, F_UINT, 0, 0 },
	{ "inode_table", G4(bg_inode_table), -1, 4, F_UINT, 0, 0 },
	{ "free_blocks_count", G4(bg_free_blocks_count), -1, 2, F_UINT, 0, 0 },
	{ "free_inodes_count", G4(bg_free_inodes_count), -1, 2, F_UINT, 0, 0 },
	{ "used_dirs_count", G4(bg_used_dirs_count), -1, 2, F_UINT, 0, 0 },
	{ "flags", G4(bg_flags), -1, 2, F_UINT, 0, 0 },
	{ "itable_unused", G4(bg_itable_unused), -1, 2, F_UINT, 0, 0 },
	{ "checksum", G4(bg_checksum), -1, 2, F_GD_CSUM, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0 }
};

static const struct field ext4_bg_fields[] = {
	{ "block_bitmap", G4(bg_block_bitmap), G4(bg_block_bitmap_hi), 4, F_UINT, 0, 0 },
	{ "inode_bitmap", G4(bg_inode_bitmap), G4(bg_inode_bitmap_hi), 4, F_UINT, 0, 0 },
	{ "inode_table", G4(bg_inode_table), G4(bg_inode_table_hi), 4, F_UINT, 0, 0 },
	{ "free_blocks_count", G4(bg_free_blocks_count), G4(bg_free_blocks_count_hi), 2, F_UINT, 0, 0 },
	{ "free_inodes_count", G4(bg_free_inodes_count), G4(bg_free_inodes_count_hi), 2, F_UINT, 0, 0 },
	{ "used_dirs_count", G4(bg_used_dirs_count), G4(bg_used_dirs_count_hi), 2, F_UINT, 0, 0 },
	{ "flags", G4(bg_flags), -1, 2, F_UINT, 0, 0 },
	{ "exclude_bitmap", G4(bg_exclude_bitmap_lo), G4(bg_exclude_bitmap_hi), 4, F_UINT, 0, 0 },
	{ "block_bitmap_csum", G4(bg_block_bitmap_csum_lo), G4(bg_block_bitmap_csum_hi), 2, F_UINT, 0, 0 },
	{ "inode_bitmap_csum", G4(bg_inode_bitmap_csum_lo), G4(bg_inode_bitmap_csum_hi), 2, F_UINT, 0, 0 },
	{ "itable_unused", G4(bg_itable_unused), G4(bg_itable_unused_hi), 2, F_UINT, 0, 0 },
	{ "checksum", G4(bg_checksum), -1, 2, F_GD_CSUM, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0 }
};

/* "_lo" -> 1, "_hi" -> 2, else 0 */
static int check_suffix(const char *field)
{
	size_t len = strlen(field);

	if (len <= 3)
		return 0;
	if (!strcmp(field + len - 3, "_lo"))
		return 1;
	if (!strcmp(field + len - 3, "_hi"))
		return 2;
	return 0;
}

static const struct field *find_field(const struct field *fields,
				      const char *prefix, const char *field)
{
	const struct field *f;
	char *arg, *idx, *delim = NULL, *tmp;
	int suffix;

	if (!strncmp(field, prefix, strlen(prefix)))
		field += strlen(prefix);
	arg = strdup(field);
	if (!arg)
		return NULL;
	idx = strchr(arg, '[');
	if (idx) {
		*idx++ = '\0';
		delim = idx + strlen(idx) - 1;
		if (!*idx || *delim != ']')
			idx = NULL;
		else
			*delim = '\0';
	}
	if (idx) {
		array_idx = (int)strtol(idx, &tmp, 0);
		if (*tmp) {	/* not a number: "block[IND]" */
			*(--idx) = '[';
			*delim = ']';
			idx = NULL;
		}
	}
	suffix = check_suffix(arg);
	if (suffix)
		arg[strlen(arg) - 3] = '\0';
	for (f = fields; f->name; f++) {
		if (suffix && f->off2 < 0)
			continue;
		if (f->flags & F_ARRAY) {
			if (!idx || strcmp(f->name, arg))
				continue;
			if (f->max_idx > 0 && array_idx >= f->max_idx)
				continue;
		} else if (strcmp(f->name, arg)) {
			continue;
		}
		free(arg);
		return f;
	}
	free(arg);
	return NULL;
}

static void put_uint(unsigned char *p, unsigned int size,
		     unsigned long long v)
{
	switch (size) {
	case 8: { __u64 x = v; memcpy(p, &x, 8); break; }
	case 4: { __u32 x = (__u32)v; memcpy(p, &x, 4); break; }
	case 2: { __u16 x = (__u16)v; memcpy(p, &x, 2); break; }
	case 1: *p = (unsigned char)v; break;
	}
}

static errcode_t parse_uint(unsigned char *base, const struct field *f,
			    const char *field, const char *arg)
{
	unsigned long long num, mask, limit;
	int suffix = check_suffix(field);
	ssize_t off1 = (ssize_t)f->off, off2 = f->off2;
	unsigned int size = f->size == 6 ? 4 : f->size;
	char *tmp;

	if (suffix == 1)
		off2 = -1;
	if (suffix == 2) {
		off1 = off2;
		off2 = -1;
	}
	if (f->flags & F_ARRAY)
		off1 += array_idx * (ssize_t)f->size;
	errno = 0;
	num = strtoull(arg, &tmp, 0);
	if (*tmp || errno) {
		fprintf(stderr, "Couldn't parse '%s' for field %s.\n", arg,
			f->name);
		return EINVAL;
	}
	mask = ~0ULL >> ((8 - size) * 8);
	limit = ~0ULL >> ((8 - f->size) * 8);
	if (off2 >= 0 && f->size != 6)
		limit = ~0ULL >> ((8 - f->size * 2) * 8);
	if (num > limit) {
		fprintf(stderr, "Value '%s' exceeds field %s maximum %llu.\n",
			arg, f->name, limit);
		return EINVAL;
	}
	put_uint(base + off1, size, num & mask);
	if (off2 < 0)
		return 0;
	put_uint(base + off2, f->size == 6 ? 2 : size,
		 size == 8 ? 0 : num >> (size * 8));
	return 0;
}

static errcode_t parse_int(unsigned char *base, const struct field *f,
			   const char *arg)
{
	char *tmp;
	long num = strtol(arg, &tmp, 0);

	if (*tmp) {
		fprintf(stderr, "Couldn't parse '%s' for field %s.\n", arg,
			f->name);
		return EINVAL;
	}
	put_uint(base + f->off, f->size, (unsigned long long)num);
	return 0;
}

/* debugfs's string_to_time: "now", "@N", YYYYMMDD[HHMM[SS]] (UTC), N */
static long long string_to_time(const char *arg)
{
	struct tm ts;
	char *tmp;
	long long ret;

	if (!strcmp(arg, "now"))
		return (long long)time(NULL);
	if (arg[0] == '@') {
		arg++;
		goto number;
	}
	memset(&ts, 0, sizeof(ts));
	tmp = strptime(arg, "%Y%m%d%H%M%S", &ts);
	if (!tmp)
		tmp = strptime(arg, "%Y%m%d%H%M", &ts);
	if (!tmp)
		goto number;
	return (long long)timegm(&ts);
number:
	ret = strtoll(arg, &tmp, 0);
	return *tmp ? -1 : ret;
}

static errcode_t parse_time(unsigned char *base, const struct field *f,
			    const char *field, const char *arg)
{
	long long t;
	__u32 lo, hi;

	if (check_suffix(field))
		return parse_uint(base, f, field, arg);
	t = string_to_time(arg);
	if (t == -1) {
		fprintf(stderr, "Couldn't parse '%s' for field %s.\n", arg,
			f->name);
		return EINVAL;
	}
	lo = (__u32)t;
	memcpy(base + f->off, &lo, 4);
	if (f->off2 >= 0) {
		memcpy(&hi, base + f->off2, 4);
		hi = (hi & ~EXT4_EPOCH_MASK) |
		     ((__u32)((t - (__s32)t) >> 32) & EXT4_EPOCH_MASK);
		memcpy(base + f->off2, &hi, 4);
	}
	return 0;
}

static errcode_t parse_field(unsigned char *base, const struct field *f,
			     const char *field, const char *arg)
{
	unsigned char *p = base + f->off;
	errcode_t err;
	int v;

	switch (f->type) {
	case F_UINT:
		return parse_uint(base, f, field, arg);
	case F_INT:
		return parse_int(base, f, arg);
	case F_TIME:
		return parse_time(base, f, field, arg);
	case F_STRING:
		if (strlen(arg) >= f->size) {
			fprintf(stderr, "Error maximum size for %s is %d.\n",
				f->name, f->size);
			return EINVAL;
		}
		strcpy((char *)p, arg);	/* as stock: the tail stays */
		return 0;
	case F_UUID:
		if (!strcasecmp(arg, "null") || !strcasecmp(arg, "clear"))
			memset(p, 0, 16);
		else if (!strcasecmp(arg, "time") ||
			 !strcasecmp(arg, "random"))
			random_uuid(p);
		else if (parse_uuid_str(arg, p)) {
			fprintf(stderr, "Invalid UUID format: %s\n", arg);
			return EINVAL;
		}
		return 0;
	case F_HASHALG:
		v = e2p_string2hash((char *)arg);
		if (v < 0) {
			fprintf(stderr, "Invalid hash algorithm: %s\n", arg);
			return EINVAL;
		}
		*p = (unsigned char)v;
		return 0;
	case F_BMAP: {
		blk64_t blk;
		char *tmp;

		blk = strtoull(arg, &tmp, 0);
		if (*tmp) {
			fprintf(stderr, "Couldn't parse '%s' for field %s.\n",
				arg, f->name);
			return EINVAL;
		}
		err = ext2fs_bmap2(current_fs, set_ino,
				   (struct ext2_inode *)&set_inode, NULL,
				   BMAP_ALLOC | BMAP_SET, (blk64_t)array_idx,
				   NULL, &blk);
		if (err)
			com_err("set_inode", err, "while setting block map");
		return err;
	}
	case F_GD_CSUM:
		if (!strcmp(arg, "calc")) {
			__u16 c = ext2fs_group_desc_csum(current_fs, set_bg);

			memcpy(p, &c, 2);
			printf("Checksum set to 0x%04x\n", c);
			return 0;
		}
		return parse_uint(base, f, field, arg);
	case F_INODE_CSUM:
		if (!strcmp(arg, "calc")) {
			size_t sz = EXT2_INODE_SIZE(current_fs->super);
			struct ext2_inode_large *tmp = calloc(1, sz);
			__u32 crc;

			if (!tmp)
				return EXT2_ET_NO_MEMORY;
			err = ext2fs_read_inode_full(current_fs, set_ino,
						     (struct ext2_inode *)tmp,
						     (int)sz);
			if (!err)
				err = ext2fs_inode_csum_set(current_fs, set_ino,
							    tmp);
			if (!err) {
				crc = set_inode.i_checksum_lo =
					tmp->i_checksum_lo;
				if (sz > EXT2_GOOD_OLD_INODE_SIZE &&
				    set_inode.i_extra_isize >=
				    offsetof(struct ext2_inode_large,
					     i_checksum_hi) -
				    EXT2_GOOD_OLD_INODE_SIZE) {
					set_inode.i_checksum_hi =
						tmp->i_checksum_hi;
					crc |= (__u32)set_inode.i_checksum_hi
					       << 16;
				}
				printf("Checksum set to 0x%08x\n", crc);
			}
			free(tmp);
			return err;
		}
		return parse_uint(base, f, field, arg);
	}
	return EINVAL;
}

void do_set_super(int argc, char **argv, int sci, void *infop)
{
	const struct field *f;

	(void)sci; (void)infop;
	if (forward_listing(argc, argv))
		return;
	if (lazy_args(argc, argv, 3, 3, "set_super_value", "<field> <value>\n"
		      "\t\"set_super_value -l\" will list the names of "
		      "superblock fields\n\twhich can be set."))
		return;
	f = find_field(super_fields, "s_", argv[1]);
	if (!f) {
		com_err(argv[0], 0, "invalid field specifier: %s", argv[1]);
		return;
	}
	set_sb = *current_fs->super;
	if (parse_field((unsigned char *)&set_sb, f, argv[1], argv[2]))
		return;
	*current_fs->super = set_sb;
	ext2fs_mark_super_dirty(current_fs);
	/* As stock debugfs does at close, the backups get the change too. */
	current_fs->flags &= ~EXT2_FLAG_MASTER_SB_ONLY;
	lj_debugfs_commit(argv[0]);
	current_fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
}

void do_set_inode(int argc, char **argv, int sci, void *infop)
{
	const struct field *f;
	errcode_t err;
	int csum;

	(void)sci; (void)infop;
	if (forward_listing(argc, argv))
		return;
	if (lazy_args(argc, argv, 4, 4, "set_inode", "<inode> <field> <value>\n"
		      "\t\"set_inode_field -l\" will list the names of "
		      "the fields in an ext2 inode\n\twhich can be set."))
		return;
	f = find_field(inode_fields, "i_", argv[2]);
	if (!f) {
		com_err(argv[0], 0, "invalid field specifier: %s", argv[2]);
		return;
	}
	set_ino = string_to_inode(argv[1]);
	if (!set_ino)
		return;
	csum = f->type == F_INODE_CSUM;
	memset(&set_inode, 0, sizeof(set_inode));
	err = ext2fs_read_inode2(current_fs, set_ino,
				 (struct ext2_inode *)&set_inode,
				 sizeof(set_inode), csum ? READ_INODE_NOCSUM : 0);
	if (err) {
		com_err(argv[1], err, "while reading inode %u", set_ino);
		return;
	}
	if (parse_field((unsigned char *)&set_inode, f, argv[2], argv[3]))
		goto out;
	err = ext2fs_write_inode2(current_fs, set_ino,
				  (struct ext2_inode *)&set_inode,
				  sizeof(set_inode),
				  csum ? WRITE_INODE_NOCSUM : 0);
	if (err)
		com_err(argv[1], err, "while writing inode %u", set_ino);
out:
	lj_debugfs_commit(argv[0]);	/* bmap may have allocated */
}

void do_set_block_group(int argc, char **argv, int sci, void *infop)
{
	const struct field *table = ext2_bg_fields, *f;
	size_t size = sizeof(struct ext2_group_desc);
	void *target;
	char *end;

	(void)sci; (void)infop;
	if (forward_listing(argc, argv))
		return;
	if (lazy_args(argc, argv, 4, 4, "set_block_group",
		      "<bg number> <field> <value>\n"
		      "\t\"set_block_group -l\" will list the names of "
		      "the fields in a block group descriptor\n\twhich can be "
		      "set."))
		return;
	if (EXT2_DESC_SIZE(current_fs->super) >= EXT2_MIN_DESC_SIZE_64BIT) {
		table = ext4_bg_fields;
		size = sizeof(struct ext4_group_desc);
	}
	set_bg = (dgrp_t)strtoul(argv[1], &end, 0);
	if (*end) {
		com_err(argv[0], 0, "invalid block group number: %s", argv[1]);
		return;
	}
	if (set_bg >= current_fs->group_desc_count) {
		com_err(argv[0], 0, "block group number too big: %d", set_bg);
		return;
	}
	f = find_field(table, "bg_", argv[2]);
	if (!f) {
		com_err(argv[0], 0, "invalid field specifier: %s", argv[2]);
		return;
	}
	target = ext2fs_group_desc(current_fs, current_fs->group_desc, set_bg);
	memcpy(set_gd, target, size);
	if (parse_field(set_gd, f, argv[2], argv[3]))
		return;
	memcpy(target, set_gd, size);
	/*
	 * Stock debugfs leaves the descriptor checksum to be recomputed when
	 * the bitmaps are written at close, i.e. only when the session
	 * changed an allocation.  Each request here is committed on its own,
	 * so do it now: valid unless the checksum itself was set.
	 */
	if (f->type != F_GD_CSUM)
		ext2fs_group_desc_csum_set(current_fs, set_bg);
	ext2fs_mark_super_dirty(current_fs);
	lj_debugfs_commit(argv[0]);
}
