/*
 * workload_walk.c --- the read phases of bench/workload, which write
 * nothing: ls -lR (listdirs), find (findfiles), tar (tarfiles) of a top
 * directory; and the directory listing the removal shares.
 */
#include <string.h>

#include "workload.h"
#include "lj_private.h"

static int collect(struct ext2_dir_entry *de, int offset, int blocksize,
		   char *buf, void *priv)
{
	struct wl_dlist *l = priv;
	int len = ext2fs_dirent_name_len(de);

	(void)offset; (void)blocksize; (void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	l->err = lj_array_grow(&l->d, &l->cap, l->n + 1, sizeof(*l->d));
	if (l->err)
		return DIRENT_ABORT;
	l->d[l->n].ino = de->inode;
	l->d[l->n].isdir = ext2fs_dirent_file_type(de) == EXT2_FT_DIR;
	memcpy(l->d[l->n].name, de->name, len);
	l->d[l->n].name[len] = 0;
	l->n++;
	return 0;
}

errcode_t wl_list_dir(ext2_ino_t dir, struct wl_dlist *l)
{
	errcode_t err = ext2fs_dir_iterate(wl.fs, dir, 0, NULL, collect, l);

	return err ? err : l->err;
}

/* tar reads every file's data (trace kind "data"). */
static errcode_t read_file_data(ext2_ino_t ino)
{
	ext2_file_t file;
	char buf[65536];
	unsigned int got;
	errcode_t err = ext2fs_file_open(wl.fs, ino, 0, &file);

	if (err)
		return err;
	wl.in_read_data = 1;
	do
		err = ext2fs_file_read(file, buf, sizeof(buf), &got);
	while (!err && got);
	wl.in_read_data = 0;
	if (err) {
		ext2fs_file_close(file);
		return err;
	}
	return ext2fs_file_close(file);
}

/* Pre-order walk below dir: one operation per entry. */
static errcode_t walk(ext2_ino_t dir, enum wl_walk how)
{
	struct wl_dlist l = { NULL, 0, 0, 0 };
	struct ext2_inode inode;
	errcode_t err;
	size_t i;

	err = wl_list_dir(dir, &l);
	for (i = 0; i < l.n && !err; i++) {
		if (how != W_FIND)
			err = ext2fs_read_inode(wl.fs, l.d[i].ino, &inode);
		if (!err && how == W_TAR && !l.d[i].isdir &&
		    LINUX_S_ISREG(inode.i_mode))
			err = read_file_data(l.d[i].ino);
		wl.ops++;
		if (!err && l.d[i].isdir)
			err = walk(l.d[i].ino, how);
	}
	ext2fs_free_mem(&l.d);
	return err;
}

void wl_walk_top(const char *top, enum wl_walk how)
{
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_lookup(wl.fs, EXT2_ROOT_INO, top, strlen(top), NULL, &ino);
	if (!err)
		err = walk(ino, how);
	if (err)
		wl_die(err, top);
}

