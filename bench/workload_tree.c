/*
 * workload_tree.c --- the write phases of bench/workload: a tree of
 * directories (makedirs) or of directories and 4 KiB files (createfiles)
 * made depth-first under a top directory, and rm -r of a top directory
 * (removedirs, removefiles), one operation per inode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload.h"

static errcode_t make_dir(ext2_ino_t parent, const char *name,
			  ext2_ino_t *ino)
{
	errcode_t err;

	err = ext2fs_new_inode(wl.fs, parent, LINUX_S_IFDIR | 0755, 0, ino);
	if (err)
		return err;
	err = ext2fs_mkdir(wl.fs, parent, *ino, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(wl.fs, parent);
		if (!err)
			err = ext2fs_mkdir(wl.fs, parent, *ino, name);
	}
	return err;
}

static errcode_t link_retry(ext2_ino_t parent, const char *name,
			    ext2_ino_t ino, int ft)
{
	errcode_t err = ext2fs_link(wl.fs, parent, name, ino, ft);

	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(wl.fs, parent);
		if (!err)
			err = ext2fs_link(wl.fs, parent, name, ino, ft);
	}
	return err;
}

/* A 4 KiB regular file: inode, block map and directory entry are
 * metadata; the data blocks go home in data mode. */
#define FILE_SIZE	4096
#define MAX_FBLOCKS	(FILE_SIZE / 1024)

static errcode_t make_file(ext2_ino_t parent, const char *name,
			   const char *path)
{
	struct ext2_inode inode;
	ext2_extent_handle_t h;
	ext2_file_t file;
	ext2_ino_t ino;
	blk64_t blk[MAX_FBLOCKS], goal;
	unsigned int nblk = (FILE_SIZE + wl.fs->blocksize - 1) / wl.fs->blocksize;
	unsigned int got, i, n;
	char *buf;
	errcode_t err;

	err = ext2fs_new_inode(wl.fs, parent, LINUX_S_IFREG | 0644, 0, &ino);
	if (!err)
		err = link_retry(parent, name, ino, EXT2_FT_REG_FILE);
	if (err)
		return err;
	ext2fs_inode_alloc_stats2(wl.fs, ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_atime = inode.i_ctime = inode.i_mtime =
		wl.fs->now ? wl.fs->now : time(NULL);
	inode.i_size = FILE_SIZE;
	if (ext2fs_has_feature_extents(wl.fs->super)) {
		inode.i_flags |= EXT4_EXTENTS_FL;
		err = ext2fs_extent_open2(wl.fs, ino, &inode, &h);
		if (err)
			return err;
		ext2fs_extent_free(h);
	}
	err = ext2fs_write_new_inode(wl.fs, ino, &inode);
	if (err)
		return err;
	/* Allocate and map the blocks as metadata: no zeroing write (which
	 * ext2fs_bmap2's BMAP_ALLOC would journal). */
	goal = ext2fs_find_inode_goal(wl.fs, ino, &inode, 0);
	for (i = 0; i < nblk && !err; i++) {
		err = ext2fs_new_block2(wl.fs, goal, NULL, &blk[i]);
		if (err)
			break;
		ext2fs_block_alloc_stats2(wl.fs, blk[i], +1);
		goal = blk[i] + 1;
		err = ext2fs_bmap2(wl.fs, ino, &inode, NULL, BMAP_SET, i, NULL,
				   &blk[i]);
	}
	if (!err)
		err = ext2fs_iblk_set(wl.fs, &inode, nblk);
	if (!err)
		err = ext2fs_write_inode(wl.fs, ino, &inode);
	if (err)
		return err;

	/* The data, home, through ext2fs_file_write in data mode. */
	buf = malloc(FILE_SIZE);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	n = (unsigned)snprintf(buf, FILE_SIZE, "workload file %u %s\n", ino,
			       path);
	for (i = n; i < FILE_SIZE; i++)
		buf[i] = buf[i % n];
	err = ext2fs_file_open2(wl.fs, ino, &inode, EXT2_FILE_WRITE, &file);
	if (err) {
		free(buf);
		return err;
	}
	wl.in_data = 1;
	wl.data_want = blk;
	wl.data_nwant = nblk;
	wl.data_seen = 0;
	lj_lazy_set_mode(wl.fs->io, LJ_LAZY_DATA_HOME, 1);
	err = ext2fs_file_write(file, buf, FILE_SIZE, &got);
	if (!err)
		err = ext2fs_file_flush(file);
	lj_lazy_set_mode(wl.fs->io, LJ_LAZY_DATA_HOME, 0);
	wl.in_data = 0;
	/* Every data block went home, or into the transaction when its old
	 * journaled copy (freed metadata) was still live. */
	for (i = 0; i < nblk && !err; i++) {
		const unsigned char *d;

		if (lj_writer_lookup(lj_lazy_writer(wl.fs->io), blk[i], &d) > 0)
			wl.data_seen++;
	}
	if (!err && (got != FILE_SIZE || wl.data_seen != nblk))
		err = EXT2_ET_SHORT_WRITE;
	if (!err)
		err = ext2fs_file_close(file);
	else
		ext2fs_file_close(file);
	free(buf);
	return err;
}

/* Remove ino (name in parent); directories must be empty. */
static errcode_t remove_inode(ext2_ino_t parent, const char *name,
			      ext2_ino_t ino)
{
	struct ext2_inode inode, pinode;
	int isdir;
	errcode_t err;

	err = ext2fs_read_inode(wl.fs, ino, &inode);
	if (!err)
		err = ext2fs_unlink(wl.fs, parent, name, ino, 0);
	if (err)
		return err;
	isdir = LINUX_S_ISDIR(inode.i_mode);
	if (isdir) {
		err = ext2fs_read_inode(wl.fs, parent, &pinode);
		if (!err && pinode.i_links_count > 1) {
			pinode.i_links_count--;
			err = ext2fs_write_inode(wl.fs, parent, &pinode);
		}
		if (err)
			return err;
	}
	if (ext2fs_inode_has_valid_blocks2(wl.fs, &inode)) {
		err = ext2fs_punch(wl.fs, ino, &inode, NULL, 0, ~0ULL);
		if (err)
			return err;
	}
	inode.i_links_count = 0;
	inode.i_size = 0;
	inode.i_size_high = 0;
	inode.i_dtime = wl.fs->now ? wl.fs->now : time(NULL);
	err = ext2fs_write_inode(wl.fs, ino, &inode);
	if (!err)
		ext2fs_inode_alloc_stats2(wl.fs, ino, -1, isdir);
	return err;
}

/* rm -r of name (ino) in parent, post-order: one operation per inode. */
static errcode_t remove_tree(ext2_ino_t parent, const char *name,
			     ext2_ino_t ino, int isdir)
{
	struct wl_dlist l = { NULL, 0, 0, 0 };
	errcode_t err = 0;
	size_t i;

	if (isdir) {
		err = wl_list_dir(ino, &l);
		for (i = 0; i < l.n && !err; i++)
			err = remove_tree(ino, l.d[i].name, l.d[i].ino,
					  l.d[i].isdir);
		ext2fs_free_mem(&l.d);
		if (err)
			return err;
	}
	err = remove_inode(parent, name, ino);
	if (!err)
		wl_op_done();
	return err;
}

/* Depth-first tree: level 0 is the phase's top directory. */
void wl_make_tree(const char *top, int files)
{
	ext2_ino_t ino[MAX_DEPTH + 1];
	unsigned nchild[MAX_DEPTH + 1];
	char path[MAX_DEPTH * 12 + 64];
	size_t plen[MAX_DEPTH + 1];
	unsigned level = 0, depth = wl.depth;
	unsigned long made = 0;
	errcode_t err;

	err = make_dir(EXT2_ROOT_INO, top, &ino[0]);
	if (err)
		wl_die(err, "while making the top directory");
	wl_op_done();
	nchild[0] = 0;
	plen[0] = (size_t)snprintf(path, sizeof(path), "/%s", top);
	if (wl.paths_f)
		fprintf(wl.paths_f, "d %s\n", path);
	while (made < wl.count) {
		unsigned cap;
		int leaf, isfile;
		char name[16];

		/* the deepest directory with room for a child */
		for (;;) {
			cap = level + 1 < depth || !files ? wl.fanout : wl.files;
			if (nchild[level] < cap)
				break;
			if (!level)
				wl_die(EXT2_ET_TOOSMALL, "the tree is full: raise -f");
			level--;
		}
		leaf = level + 1 == depth;
		isfile = leaf && files;
		snprintf(name, sizeof(name), "%c%u", isfile ? 'f' : 'd',
			 nchild[level]++);
		snprintf(path + plen[level], sizeof(path) - plen[level], "/%s",
			 name);
		if (isfile) {
			err = make_file(ino[level], name, path);
			if (err)
				wl_die(err, "while making a file");
			made++;
		} else {
			ext2_ino_t child;

			err = make_dir(ino[level], name, &child);
			if (err)
				wl_die(err, "while making a directory");
			if (!files)
				made++;
			if (!leaf) {
				level++;
				ino[level] = child;
				nchild[level] = 0;
				plen[level] = strlen(path);
			}
		}
		if (wl.paths_f)
			fprintf(wl.paths_f, "%c %s\n", isfile ? 'f' : 'd', path);
		wl_op_done();
	}
}

void wl_remove_top(const char *top)
{
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_lookup(wl.fs, EXT2_ROOT_INO, top, strlen(top), NULL, &ino);
	if (err)
		wl_die(err, top);
	err = remove_tree(EXT2_ROOT_INO, top, ino, 1);
	if (err)
		wl_die(err, "while removing");
}

