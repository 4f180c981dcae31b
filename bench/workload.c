/*
 * workload.c --- small versions of the ext4-lazy paper's metadata
 * workloads, run on an image through the library's lazy writer.
 *
 *   workload [-m lazy|baseline] [-w LIST] [-n COUNT] [-t OPS] [-c TXNS]
 *            [-d DEPTH] [-f FANOUT] [-F FILES] [-r RECORD] [-T TRACE]
 *            [-l PATHS] IMAGE
 *
 * -w   comma list of phases, run in order on the same open file system:
 *      makedirs     COUNT directories in a tree of depth DEPTH (default 10)
 *                   under /makedirs; every directory has FANOUT children
 *      createfiles  COUNT 4 KiB files in a tree of depth DEPTH (default 20)
 *                   under /createfiles: directories on levels 1..DEPTH-1
 *                   (FANOUT each), FILES files in each directory of level
 *                   DEPTH-1
 *      removedirs   rm -r /makedirs, post-order, one operation per rmdir
 *      removefiles  rm -r /createfiles, one operation per unlink / rmdir
 *      listdirs     ls -lR /makedirs: every directory read, every entry's
 *                   inode read (tar of the empty directories reads the same)
 *      findfiles    find /createfiles: every directory read, no inode of a
 *                   file (the entry's file type says what it is)
 *      tarfiles     tar of /createfiles: every directory read, every
 *                   entry's inode and every file's data read
 *      Trees are made depth-first (the first path reaches full depth).
 *      The read phases write nothing (no transaction, no checkpoint); run
 *      them in a process of their own for a cold cache (a remount).
 * -t   operations per transaction: ext2fs_flush (= one commit) after every
 *      OPS operations (default 10).
 * -m   lazy: metadata is journaled only; the writer's cleaner runs by
 *      itself when the log is full.  baseline: the same journal, plus a
 *      checkpoint (every live block written home, log emptied) after every
 *      TXNS transactions (-c, default 6: jbd2 commits every 5 s, dirty
 *      metadata is written back after ~30 s) or when the log is more than
 *      half full, and at the end of each phase (unmount).
 * -r   write the device I/O record of every phase: one line per write,
 *      "PHASE KIND BLOCK COUNT" with KIND journal / meta_home / data.
 * -T   write the block trace of every phase for bench/smr/smr_model.py:
 *      "phase NAME", then one line per device request in issue order,
 *      "W KIND OFFSET LENGTH" (bytes; KIND journal, meta_home in baseline
 *      mode = checkpoint, cleaner in lazy mode = the cleaner sending a block
 *      home, data) or "R KIND OFFSET LENGTH" (KIND journal when the block
 *      is in the journal, data for file data of tarfiles, else meta).
 *      Reads are taken below the library by a read-recording io_manager
 *      (read_record_io.c), so they include every re-read libext2fs makes
 *      (the model's page cache drops those).
 * -l   write the paths of the directories and files made, one a line
 *      ("d PATH" or "f PATH"), for tests.
 *
 * Data blocks of files are written home under lj_lazy_set_data_mode (the
 * ordered-mode data path); everything else goes through the lazy channel
 * and is journaled.  Only the primary superblock and descriptors are
 * written at a flush (EXT2_FLAG_MASTER_SB_ONLY), as the kernel does.
 *
 * One line per phase, key=value: operations, transactions, blocks written
 * to the journal (jsb: journal superblock updates, included), metadata
 * written home (blocks, distinct locations), data written home, metadata
 * blocks read (from the journal / from home), cleaner work, checkpoints,
 * needs_recovery set in the home superblock (one write, not counted in
 * meta_home; it happens once, when the first transaction goes into an
 * empty log), and the phase's wall time in ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

#include "lazy_journal.h"
#include "read_record_io.h"

#define MAX_DEPTH	64

enum phase { P_MAKEDIRS, P_CREATEFILES, P_REMOVEDIRS, P_REMOVEFILES,
	     P_LISTDIRS, P_FINDFILES, P_TARFILES, P_NPHASES };
static const char *phase_name[] = {
	"makedirs", "createfiles", "removedirs", "removefiles",
	"listdirs", "findfiles", "tarfiles"
};

/* kind of a read in the trace (writes carry an enum lj_io_kind) */
enum { RK_META, RK_JOURNAL, RK_DATA };

struct ioev {
	unsigned char kind;
	unsigned char read;	/* blk, count: bytes for a read */
	blk64_t blk;
	blk64_t count;
};

static struct {
	ext2_filsys fs;
	lj_writer *w;
	lj_lazy_state *st;
	int baseline;
	unsigned ops_per_txn, ckpt_txns;
	unsigned depth, fanout, files;
	unsigned long count;
	FILE *rec_f, *paths_f, *trace_f;
	const char *prog;
	/* the running phase */
	const char *phase;
	struct ioev *ev;
	size_t nev, capev;
	unsigned ops_in_txn, txns_since_ckpt;
	unsigned long ops, txns, ckpts;
	blk64_t jsb_pblk;
	/* data-mode self-check */
	int in_data, in_read_data;
	const blk64_t *data_want;
	unsigned data_nwant, data_seen, data_bad;
	errcode_t oom;
} g;

static void add_event(unsigned char kind, unsigned char rd, blk64_t blk,
		      blk64_t count)
{
	if (g.nev == g.capev) {
		size_t n = g.capev ? 2 * g.capev : 4096;
		struct ioev *ev = realloc(g.ev, n * sizeof(*ev));

		if (!ev) {
			g.oom = EXT2_ET_NO_MEMORY;
			return;
		}
		g.ev = ev;
		g.capev = n;
	}
	g.ev[g.nev].kind = kind;
	g.ev[g.nev].read = rd;
	g.ev[g.nev].blk = blk;
	g.ev[g.nev].count = count;
	g.nev++;
}

/* A device read (read_record_io): what it read, by where it is. */
static void record_read(void *arg, uint64_t off, uint64_t len)
{
	const lj_journal *j = g.st ? g.st->journal : NULL;
	blk64_t blk = off / (g.fs ? g.fs->blocksize : 1024);
	unsigned char kind = g.in_read_data ? RK_DATA : RK_META;
	size_t k;

	(void)arg;
	for (k = 0; j && k < j->n_ext; k++)
		if (blk >= j->ext[k].pblk && blk < j->ext[k].pblk + j->ext[k].len)
			kind = RK_JOURNAL;
	add_event(kind, 1, off, len);
}

static void record(void *arg, enum lj_io_kind kind, blk64_t blk,
		   blk64_t count)
{
	(void)arg;
	if (g.in_data) {
		unsigned k, ok = 0;

		for (k = 0; k < g.data_nwant && kind == LJ_IO_DATA; k++)
			ok |= blk >= g.data_want[k] &&
			      blk + count <= g.data_want[k] + 1;
		if (ok)
			g.data_seen += (unsigned)count;
		else
			g.data_bad++;
	} else if (kind == LJ_IO_DATA) {
		g.data_bad++;		/* data written outside data mode */
	}
	add_event((unsigned char)kind, 0, blk, count);
}

static void die(errcode_t err, const char *what)
{
	com_err(g.prog, err, "%s", what);
	exit(1);
}

/* ------------------------------------------------------------------ */
/* transactions                                                        */

static void checkpoint(void)
{
	errcode_t err = lj_writer_checkpoint(g.w);

	if (err)
		die(err, "while checkpointing");
	g.ckpts++;
	g.txns_since_ckpt = 0;
}

static void end_txn(void)
{
	errcode_t err;

	if (!g.ops_in_txn)
		return;
	/* ext2fs_flush syncs before and after the primary superblock (two
	 * commits); as one transaction, like a jbd2 commit: */
	err = ext2fs_flush2(g.fs, EXT2_FLAG_FLUSH_NO_SYNC);
	if (!err)
		err = io_channel_flush(g.fs->io);
	if (err)
		die(err, "while committing a transaction");
	g.ops_in_txn = 0;
	g.txns++;
	g.txns_since_ckpt++;
	if (g.baseline) {
		uint32_t size = g.st->journal->last - g.st->journal->first;

		if (g.txns_since_ckpt >= g.ckpt_txns ||
		    lj_writer_free_blocks(g.w) < size / 2)
			checkpoint();
	}
}

static void op_done(void)
{
	g.ops++;
	if (++g.ops_in_txn >= g.ops_per_txn)
		end_txn();
}

/* ------------------------------------------------------------------ */
/* making and removing                                                 */

static errcode_t make_dir(ext2_ino_t parent, const char *name,
			  ext2_ino_t *ino)
{
	errcode_t err;

	err = ext2fs_new_inode(g.fs, parent, LINUX_S_IFDIR | 0755, 0, ino);
	if (err)
		return err;
	err = ext2fs_mkdir(g.fs, parent, *ino, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(g.fs, parent);
		if (!err)
			err = ext2fs_mkdir(g.fs, parent, *ino, name);
	}
	return err;
}

static errcode_t link_retry(ext2_ino_t parent, const char *name,
			    ext2_ino_t ino, int ft)
{
	errcode_t err = ext2fs_link(g.fs, parent, name, ino, ft);

	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(g.fs, parent);
		if (!err)
			err = ext2fs_link(g.fs, parent, name, ino, ft);
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
	unsigned int nblk = (FILE_SIZE + g.fs->blocksize - 1) / g.fs->blocksize;
	unsigned int got, i, n;
	char *buf;
	errcode_t err;

	err = ext2fs_new_inode(g.fs, parent, LINUX_S_IFREG | 0644, 0, &ino);
	if (!err)
		err = link_retry(parent, name, ino, EXT2_FT_REG_FILE);
	if (err)
		return err;
	ext2fs_inode_alloc_stats2(g.fs, ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_atime = inode.i_ctime = inode.i_mtime =
		g.fs->now ? g.fs->now : time(NULL);
	inode.i_size = FILE_SIZE;
	if (ext2fs_has_feature_extents(g.fs->super)) {
		inode.i_flags |= EXT4_EXTENTS_FL;
		err = ext2fs_extent_open2(g.fs, ino, &inode, &h);
		if (err)
			return err;
		ext2fs_extent_free(h);
	}
	err = ext2fs_write_new_inode(g.fs, ino, &inode);
	if (err)
		return err;
	/* Allocate and map the blocks as metadata: no zeroing write (which
	 * ext2fs_bmap2's BMAP_ALLOC would journal). */
	goal = ext2fs_find_inode_goal(g.fs, ino, &inode, 0);
	for (i = 0; i < nblk && !err; i++) {
		err = ext2fs_new_block2(g.fs, goal, NULL, &blk[i]);
		if (err)
			break;
		ext2fs_block_alloc_stats2(g.fs, blk[i], +1);
		goal = blk[i] + 1;
		err = ext2fs_bmap2(g.fs, ino, &inode, NULL, BMAP_SET, i, NULL,
				   &blk[i]);
	}
	if (!err)
		err = ext2fs_iblk_set(g.fs, &inode, nblk);
	if (!err)
		err = ext2fs_write_inode(g.fs, ino, &inode);
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
	err = ext2fs_file_open2(g.fs, ino, &inode, EXT2_FILE_WRITE, &file);
	if (err) {
		free(buf);
		return err;
	}
	g.in_data = 1;
	g.data_want = blk;
	g.data_nwant = nblk;
	g.data_seen = 0;
	lj_lazy_set_data_mode(g.fs->io, 1);
	err = ext2fs_file_write(file, buf, FILE_SIZE, &got);
	if (!err)
		err = ext2fs_file_flush(file);
	lj_lazy_set_data_mode(g.fs->io, 0);
	g.in_data = 0;
	/* Every data block went home, or into the transaction when its old
	 * journaled copy (freed metadata) was still live. */
	for (i = 0; i < nblk && !err; i++) {
		const unsigned char *d;

		if (lj_writer_lookup(lj_lazy_writer(g.fs->io), blk[i], &d) > 0)
			g.data_seen++;
	}
	if (!err && (got != FILE_SIZE || g.data_seen != nblk))
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

	err = ext2fs_read_inode(g.fs, ino, &inode);
	if (!err)
		err = ext2fs_unlink(g.fs, parent, name, ino, 0);
	if (err)
		return err;
	isdir = LINUX_S_ISDIR(inode.i_mode);
	if (isdir) {
		err = ext2fs_read_inode(g.fs, parent, &pinode);
		if (!err && pinode.i_links_count > 1) {
			pinode.i_links_count--;
			err = ext2fs_write_inode(g.fs, parent, &pinode);
		}
		if (err)
			return err;
	}
	if (ext2fs_inode_has_valid_blocks2(g.fs, &inode)) {
		err = ext2fs_punch(g.fs, ino, &inode, NULL, 0, ~0ULL);
		if (err)
			return err;
	}
	inode.i_links_count = 0;
	inode.i_size = 0;
	inode.i_size_high = 0;
	inode.i_dtime = g.fs->now ? g.fs->now : time(NULL);
	err = ext2fs_write_inode(g.fs, ino, &inode);
	if (!err)
		ext2fs_inode_alloc_stats2(g.fs, ino, -1, isdir);
	return err;
}

/* The entries of a directory (but . and ..). */
struct dent {
	ext2_ino_t ino;
	int isdir;
	char name[EXT2_NAME_LEN + 1];
};
struct dlist {
	struct dent *d;
	size_t n, cap;
	errcode_t err;
};

static int collect(struct ext2_dir_entry *de, int offset, int blocksize,
		   char *buf, void *priv)
{
	struct dlist *l = priv;
	int len = ext2fs_dirent_name_len(de);

	(void)offset; (void)blocksize; (void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (l->n == l->cap) {
		size_t n = l->cap ? 2 * l->cap : 16;
		struct dent *d = realloc(l->d, n * sizeof(*d));

		if (!d) {
			l->err = EXT2_ET_NO_MEMORY;
			return DIRENT_ABORT;
		}
		l->d = d;
		l->cap = n;
	}
	l->d[l->n].ino = de->inode;
	l->d[l->n].isdir = ext2fs_dirent_file_type(de) == EXT2_FT_DIR;
	memcpy(l->d[l->n].name, de->name, len);
	l->d[l->n].name[len] = 0;
	l->n++;
	return 0;
}

/* rm -r of name (ino) in parent, post-order: one operation per inode. */
static errcode_t remove_tree(ext2_ino_t parent, const char *name,
			     ext2_ino_t ino, int isdir)
{
	struct dlist l = { NULL, 0, 0, 0 };
	errcode_t err = 0;
	size_t i;

	if (isdir) {
		err = ext2fs_dir_iterate(g.fs, ino, 0, NULL, collect, &l);
		if (!err)
			err = l.err;
		for (i = 0; i < l.n && !err; i++)
			err = remove_tree(ino, l.d[i].name, l.d[i].ino,
					  l.d[i].isdir);
		free(l.d);
		if (err)
			return err;
	}
	err = remove_inode(parent, name, ino);
	if (!err)
		op_done();
	return err;
}

/* Depth-first tree: level 0 is the phase's top directory. */
static void make_tree(const char *top, int files)
{
	ext2_ino_t ino[MAX_DEPTH + 1];
	unsigned nchild[MAX_DEPTH + 1];
	char path[MAX_DEPTH * 12 + 64];
	size_t plen[MAX_DEPTH + 1];
	unsigned level = 0, depth = g.depth;
	unsigned long made = 0;
	errcode_t err;

	err = make_dir(EXT2_ROOT_INO, top, &ino[0]);
	if (err)
		die(err, "while making the top directory");
	op_done();
	nchild[0] = 0;
	plen[0] = (size_t)snprintf(path, sizeof(path), "/%s", top);
	if (g.paths_f)
		fprintf(g.paths_f, "d %s\n", path);
	while (made < g.count) {
		unsigned cap;
		int leaf, isfile;
		char name[16];

		/* the deepest directory with room for a child */
		for (;;) {
			cap = level + 1 < depth || !files ? g.fanout : g.files;
			if (nchild[level] < cap)
				break;
			if (!level)
				die(EXT2_ET_TOOSMALL, "the tree is full: raise -f");
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
				die(err, "while making a file");
			made++;
		} else {
			ext2_ino_t child;

			err = make_dir(ino[level], name, &child);
			if (err)
				die(err, "while making a directory");
			if (!files)
				made++;
			if (!leaf) {
				level++;
				ino[level] = child;
				nchild[level] = 0;
				plen[level] = strlen(path);
			}
		}
		if (g.paths_f)
			fprintf(g.paths_f, "%c %s\n", isfile ? 'f' : 'd', path);
		op_done();
	}
}

static void remove_top(const char *top)
{
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_lookup(g.fs, EXT2_ROOT_INO, top, strlen(top), NULL, &ino);
	if (err)
		die(err, top);
	err = remove_tree(EXT2_ROOT_INO, top, ino, 1);
	if (err)
		die(err, "while removing");
}

/* ------------------------------------------------------------------ */
/* reading (ls -lR, find, tar)                                         */

enum walk { W_LIST, W_FIND, W_TAR };

static errcode_t read_file_data(ext2_ino_t ino)
{
	ext2_file_t file;
	char buf[65536];
	unsigned int got;
	errcode_t err = ext2fs_file_open(g.fs, ino, 0, &file);

	if (err)
		return err;
	g.in_read_data = 1;
	do
		err = ext2fs_file_read(file, buf, sizeof(buf), &got);
	while (!err && got);
	g.in_read_data = 0;
	if (err) {
		ext2fs_file_close(file);
		return err;
	}
	return ext2fs_file_close(file);
}

/* Pre-order walk below dir: one operation per entry. */
static errcode_t walk(ext2_ino_t dir, enum walk how)
{
	struct dlist l = { NULL, 0, 0, 0 };
	struct ext2_inode inode;
	errcode_t err;
	size_t i;

	err = ext2fs_dir_iterate(g.fs, dir, 0, NULL, collect, &l);
	if (!err)
		err = l.err;
	for (i = 0; i < l.n && !err; i++) {
		if (how != W_FIND)
			err = ext2fs_read_inode(g.fs, l.d[i].ino, &inode);
		if (!err && how == W_TAR && !l.d[i].isdir &&
		    LINUX_S_ISREG(inode.i_mode))
			err = read_file_data(l.d[i].ino);
		g.ops++;
		if (!err && l.d[i].isdir)
			err = walk(l.d[i].ino, how);
	}
	free(l.d);
	return err;
}

static void walk_top(const char *top, enum walk how)
{
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_lookup(g.fs, EXT2_ROOT_INO, top, strlen(top), NULL, &ino);
	if (!err)
		err = walk(ino, how);
	if (err)
		die(err, top);
}

/* ------------------------------------------------------------------ */
/* the report                                                          */

/* One trace line (-T) for an event; bs: the fs block size. */
static void trace_event(const struct ioev *e, unsigned int bs)
{
	if (e->read)
		fprintf(g.trace_f, "R %s %llu %llu\n",
			e->kind == RK_JOURNAL ? "journal" :
			e->kind == RK_DATA ? "data" : "meta",
			(unsigned long long)e->blk, (unsigned long long)e->count);
	else
		fprintf(g.trace_f, "W %s %llu %llu\n",
			e->kind == LJ_IO_JOURNAL ? "journal" :
			e->kind == LJ_IO_DATA ? "data" :
			g.baseline ? "meta_home" : "cleaner",
			(unsigned long long)(e->blk * bs),
			(unsigned long long)(e->count * bs));
}

static int cmp_blk(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

static blk64_t distinct(blk64_t *v, size_t n)
{
	blk64_t d = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_blk);
	for (i = 0; i < n; i++)
		if (!i || v[i] != v[i - 1])
			d++;
	return d;
}

struct snap {
	struct lj_writer_stats ws;
	blk64_t reads_mapped, reads_home;
};

static void snap(struct snap *s)
{
	s->ws = *lj_writer_stats(g.w);
	s->reads_mapped = g.st->reads_mapped;
	s->reads_home = g.st->reads_home;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void report(const struct snap *a, const struct snap *b, int sbflag,
		   double ms)
{
	blk64_t jblocks = 0, jsb = 0, meta = 0, data = 0, nd = 0, dd;
	blk64_t *homes = NULL;
	size_t i;

	if (g.oom)
		die(g.oom, "while recording");
	if (g.data_bad)
		die(EXT2_ET_SHORT_WRITE, "a write in data mode was not the "
		    "file's data block, or data went home outside data mode");
	homes = malloc((g.nev ? g.nev : 1) * sizeof(*homes));
	if (!homes)
		die(EXT2_ET_NO_MEMORY, "");
	if (g.trace_f)
		fprintf(g.trace_f, "phase %s\n", g.phase);
	for (i = 0; i < g.nev; i++) {
		const struct ioev *e = &g.ev[i];
		blk64_t k;

		if (g.trace_f)
			trace_event(e, g.fs->blocksize);
		if (e->read)
			continue;
		switch (e->kind) {
		case LJ_IO_JOURNAL:
			jblocks += e->count;
			jsb += e->blk == g.jsb_pblk;
			break;
		case LJ_IO_META_HOME:
			meta += e->count;
			for (k = 0; k < e->count; k++) {
				homes = realloc(homes, (nd + e->count + 1) *
						sizeof(*homes));
				if (!homes)
					die(EXT2_ET_NO_MEMORY, "");
				homes[nd++] = e->blk + k;
			}
			break;
		default:
			data += e->count;
		}
		if (g.rec_f)
			fprintf(g.rec_f, "%s %s %llu %llu\n", g.phase,
				e->kind == LJ_IO_JOURNAL ? "journal" :
				e->kind == LJ_IO_META_HOME ? "meta_home" :
				"data", (unsigned long long)e->blk,
				(unsigned long long)e->count);
	}
	dd = distinct(homes, nd);
	free(homes);
	printf("phase=%s mode=%s ops=%lu txns=%lu commits=%llu journal=%llu "
	       "jsb=%llu meta_home=%llu meta_home_distinct=%llu data=%llu "
	       "reads_journal=%llu reads_home=%llu relogged=%llu "
	       "cleaner_home=%llu checkpoints=%lu sb_flag=%d ms=%.0f\n",
	       g.phase, g.baseline ? "baseline" : "lazy", g.ops, g.txns,
	       (unsigned long long)(b->ws.txns - a->ws.txns),
	       (unsigned long long)jblocks, (unsigned long long)jsb,
	       (unsigned long long)meta, (unsigned long long)dd,
	       (unsigned long long)data,
	       (unsigned long long)(b->reads_mapped - a->reads_mapped),
	       (unsigned long long)(b->reads_home - a->reads_home),
	       (unsigned long long)(b->ws.relogged - a->ws.relogged),
	       (unsigned long long)(g.baseline ? 0 :
				    b->ws.sent_home - a->ws.sent_home),
	       g.ckpts, sbflag, ms);
	fflush(stdout);
}

static void run_phase(enum phase ph)
{
	struct snap a, b;
	int nr_before = g.st->needs_recovery, sbflag;
	int reading = ph >= P_LISTDIRS;
	double t0 = now_ms();

	g.phase = phase_name[ph];
	g.nev = 0;
	g.ops = g.txns = g.ckpts = 0;
	g.ops_in_txn = g.txns_since_ckpt = 0;
	snap(&a);
	if (g.trace_f)
		rr_set_reader(record_read, NULL);
	switch (ph) {
	case P_MAKEDIRS:
		make_tree("makedirs", 0);
		break;
	case P_CREATEFILES:
		make_tree("createfiles", 1);
		break;
	case P_REMOVEDIRS:
		remove_top("makedirs");
		break;
	case P_REMOVEFILES:
		remove_top("createfiles");
		break;
	case P_LISTDIRS:
		walk_top("makedirs", W_LIST);
		break;
	case P_FINDFILES:
		walk_top("createfiles", W_FIND);
		break;
	case P_TARFILES:
		walk_top("createfiles", W_TAR);
		break;
	default:
		break;
	}
	if (!reading) {
		end_txn();
		if (g.baseline)
			checkpoint();	/* unmount: everything home */
	}
	rr_set_reader(NULL, NULL);
	snap(&b);
	/* The writer sets needs_recovery at home before the first
	 * transaction of a log that had none. */
	sbflag = !nr_before && b.ws.txns != a.ws.txns;
	if (sbflag)
		g.st->needs_recovery = 1;
	report(&a, &b, sbflag, now_ms() - t0);
}

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-m lazy|baseline] [-w makedirs,createfiles,"
		"removedirs,removefiles,listdirs,findfiles,tarfiles] "
		"[-n COUNT] [-t OPS_PER_TXN] "
		"[-c CKPT_TXNS] [-d DEPTH] [-f FANOUT] [-F FILES_PER_DIR] "
		"[-r RECORD] [-T TRACE] [-l PATHS] IMAGE\n", g.prog);
	exit(1);
}

static unsigned long num(const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad number: %s\n", g.prog, s);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	enum phase phases[16];
	int nph = 0, c, i, depth = 0;
	unsigned int bs;
	char *list = NULL, *tok, *save = NULL;
	const char *rec = NULL, *paths = NULL, *trace = NULL;
	errcode_t err;

	g.prog = argv[0];
	g.ops_per_txn = 10;
	g.ckpt_txns = 6;
	g.fanout = 4;
	g.files = 32;
	g.count = 1000;
	while ((c = getopt(argc, argv, "m:w:n:t:c:d:f:F:r:T:l:")) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "lazy"))
				g.baseline = 0;
			else if (!strcmp(optarg, "baseline"))
				g.baseline = 1;
			else
				usage();
			break;
		case 'w': list = optarg; break;
		case 'n': g.count = num(optarg, 1, 100000000); break;
		case 't': g.ops_per_txn = num(optarg, 1, 1000000); break;
		case 'c': g.ckpt_txns = num(optarg, 1, 1000000); break;
		case 'd': depth = (int)num(optarg, 1, MAX_DEPTH); break;
		case 'f': g.fanout = num(optarg, 1, 100000); break;
		case 'F': g.files = num(optarg, 1, 100000); break;
		case 'r': rec = optarg; break;
		case 'T': trace = optarg; break;
		case 'l': paths = optarg; break;
		default: usage();
		}
	}
	if (optind + 1 != argc)
		usage();
	for (tok = strtok_r(list ? list : "makedirs", ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int k, found = 0;

		for (k = 0; k < P_NPHASES; k++)
			if (!strcmp(tok, phase_name[k])) {
				found = 1;
				break;
			}
		if (!found || nph == 16)
			usage();
		phases[nph++] = (enum phase)k;
	}
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (rec && !(g.rec_f = fopen(rec, "w")))
		die(errno, rec);
	if (paths && !(g.paths_f = fopen(paths, "w")))
		die(errno, paths);
	if (trace) {
		if (!(g.trace_f = fopen(trace, "w")))
			die(errno, trace);
		lj_io_set_base(rr_io_manager);	/* reads are recorded below */
	}

	err = lj_open_fs(argv[optind], EXT2_FLAG_RW, &g.fs);
	if (err)
		die(err, argv[optind]);
	g.fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	g.w = lj_lazy_writer(g.fs->io);
	err = lj_lazy_get_state(g.fs->io, &g.st);
	if (!err && !g.w)
		err = EXT2_ET_RO_FILSYS;
	if (!err)
		err = lj_lazy_set_record(g.fs->io, record, NULL);
	if (!err)
		err = ext2fs_read_bitmaps(g.fs);
	if (err)
		die(err, "while opening the lazy writer");
	g.jsb_pblk = lj_journal_pblk(g.st->journal, 0);

	for (i = 0; i < nph; i++) {
		g.depth = depth ? (unsigned)depth :
			  phases[i] == P_CREATEFILES ? 20 : 10;
		run_phase(phases[i]);
	}
	/* The writes of the close (its commit) belong to the trace: the next
	 * run's log continues after them.  Reads are not recorded (the lazy
	 * state goes away during the close). */
	bs = g.fs->blocksize;
	g.nev = 0;
	if (!g.trace_f)
		lj_lazy_set_record(g.fs->io, NULL, NULL);
	err = ext2fs_close_free(&g.fs);
	if (err)
		die(err, "while closing");
	g.st = NULL;
	for (i = 0; g.trace_f && i < (int)g.nev; i++)
		trace_event(&g.ev[i], bs);
	if (g.oom)
		die(g.oom, "while recording");
	if (g.rec_f && fclose(g.rec_f))
		die(errno, rec);
	if (g.paths_f && fclose(g.paths_f))
		die(errno, paths);
	if (g.trace_f && fclose(g.trace_f))
		die(errno, trace);
	return 0;
}
