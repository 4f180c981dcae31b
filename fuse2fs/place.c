/*
 * fuse2fs/place.c --- where new file data goes: windows of free blocks
 * kept for the writers, as ext4's multiblock allocator keeps them.
 *
 * Without them each new run of a file is searched from the block after
 * its last one (data.c's goal).  Two files written at once then take
 * turns at the same free blocks and both end up in pieces (four tar -xf
 * at once left 23% of the files non-contiguous, one tar 0.1%; every
 * write of a file in five or more pieces then reads and checksums an
 * extent block), and the small files of a tree, each searched from its
 * own inode's group, are scattered over the disk, filling every
 * one-block hole a removed tree left (the paper's CreateFiles: small
 * writes all over a drive-managed SMR disk, where the kernel's ext4
 * writes them in a row).
 *
 * ext4 answers both with preallocation (mballoc), and so does this file,
 * with windows kept in memory only: nothing is reserved on disk, so a
 * crash leaks nothing, and a window is only a goal for ext2fs_new_range
 * (which still answers free blocks only: a block someone else took in a
 * window is passed over).
 *   - A file of less than s_mb_stream_request (16) blocks takes its
 *     blocks from a window of 512 blocks shared by the small files (the
 *     locality group), one file after another.  One written again after
 *     another file took the block it would go on in gets the rest of its
 *     first 16 blocks cut from there for itself (ext4 knows a file's size
 *     before it allocates, by delayed allocation; a server answering
 *     each write at once does not).
 *   - A larger file takes a window of its own, a free run FS_PLACE_GROW
 *     times its size rounded up to a power of two (at most 8 MiB), that
 *     its next writes continue; a small file grown large right where the
 *     small files' window goes on takes the rest of that window (a tar's
 *     file written 10 KiB at a time), and gives back what it left unused
 *     when it is closed, if the small files have not gone on since (else
 *     they would go on past a hole).
 *   - A new window is a free run of its whole length (lj_bitmaps_find_run)
 *     from the file's goal (the small files': from the end of their last
 *     window), past the windows other writers hold.
 *   - The blocks libext2fs takes for itself (directory, extent-tree,
 *     indirect and xattr blocks) are searched past the windows too, as
 *     ext4 keeps preallocated blocks from every other allocation (else a
 *     tree of small files has a directory block in every 33rd block of
 *     its data).  One found outside the groups kept for directories
 *     (data_goal: the first of each flex group), among the data -- an
 *     extent block, or a directory's once that group is full -- comes
 *     from a window of its own, FS_PLACE_META blocks opened there:
 *     otherwise each reopened window of the small files' stream starts
 *     past the directory blocks made meanwhile, and the stream of data
 *     written home has a hole every FS_PLACE_STREAM blocks (on a lazy
 *     file system those blocks are never written home: a drive-managed
 *     SMR disk caches each piece after a hole, doc/smr.md).
 * A file's window is given up when it is closed for the last time (as
 * ext4 discards an inode's preallocation), or the least recently used
 * when FS_PLACE_WINDOWS are held.  Bigalloc file systems keep the plain
 * goal (their runs are whole clusters; data.c), and so do file systems
 * without extents (block-mapped files: with the first version of the
 * windows a lazy image's indirect blocks ended up home in
 * tests/u_mount_indirect; the cause is not found, doc/mount.md).
 *
 * Bands (-o smr_band=SIZE): a drive-managed SMR disk writes a band in
 * place only from the band's first block on, or right where its last
 * write there ended; any other write goes to the drive's persistent cache
 * and costs the band a read-modify-write later (doc/smr.md).  ext4 and
 * the windows above know nothing of bands: a new window starts wherever a
 * free run does, after a backup superblock in mid-band, after the blocks
 * of the metadata window (on a lazy file system never written home), at a
 * mount's first file past where the last mount's data stopped.  So on a
 * banded mount a new data window starts only at a band's first block, or
 * where data written in this mount stopped: the writer's own (a file
 * going on, the small files' stream reopened) or that of a window given
 * up (FS_PLACE_STOPS kept: the next file of a tar goes on where the last
 * one ended); else the search goes on from the next band's start, for up
 * to FS_PLACE_HOPS bands, and after that anywhere.
 */
#include "server.h"

#define FS_PLACE_SMALL		16	/* s_mb_stream_request, blocks */
#define FS_PLACE_STREAM		512	/* s_mb_group_prealloc, blocks */
#define FS_PLACE_MAX_BYTES	(8 << 20)	/* a file's largest window */
#define FS_PLACE_GROW		4	/* a file's window: its size times */
#define FS_PLACE_META		2048	/* libext2fs's blocks among the data */
#define FS_PLACE_HOPS		64	/* bands tried for a window's start */

/* The window w covers [w->next, w->end) (empty when equal); a file's
 * window continues the file at logical block w->lblk. */
static int holds(const struct fs_window *w, blk64_t p, blk64_t n)
{
	return p < w->end && p + n > w->next;
}

/* Bands: is p a band's first block; the first block of the band after
 * p's. */
static int band_start(const struct fs_server *srv, blk64_t p)
{
	return (p + srv->place.band_skew) % srv->place.band == 0;
}

static blk64_t band_after(const struct fs_server *srv, blk64_t p)
{
	return p + srv->place.band -
	       (p + srv->place.band_skew) % srv->place.band;
}

/* The window w given up.  A file's cut from the small files' window
 * right before where that goes on gives its rest back to it (else the
 * small files go on past a hole); on a banded mount where a file's data
 * stopped is kept, as a place where a new window may start (the small
 * files' own stop is their next window's cont). */
static void give_up(struct fs_server *srv, struct fs_window *w)
{
	struct fs_window *s = &srv->place.stream;

	if (w->end && w != s && w != &srv->place.meta) {
		if (s->end && w->end == s->next)
			s->next = w->next;
		else if (srv->place.band)
			srv->place.stops[srv->place.nstops++ %
					 FS_PLACE_STOPS] = w->next;
	}
	w->next = w->end = 0;
}

/* May a data window start at p: a band's first block, where the writer's
 * own data stopped (cont), or where a given-up window's did? */
static int stream_point(const struct fs_server *srv, blk64_t p, blk64_t cont)
{
	int i;

	if (band_start(srv, p) || p == cont)
		return 1;
	for (i = 0; i < FS_PLACE_STOPS; i++)
		if (srv->place.stops[i] == p)
			return 1;
	return 0;
}

/* The window of ino, or NULL. */
static struct fs_window *window_of(struct fs_server *srv, ext2_ino_t ino)
{
	int i;

	for (i = 0; i < FS_PLACE_WINDOWS; i++)
		if (srv->place.w[i].ino == ino && srv->place.w[i].end)
			return &srv->place.w[i];
	return NULL;
}

/* A slot for ino's new window: its old one, a free one, or the least
 * recently used. */
static struct fs_window *slot_for(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_window *w = window_of(srv, ino), *old = NULL;
	int i;

	for (i = 0; !w && i < FS_PLACE_WINDOWS; i++) {
		struct fs_window *s = &srv->place.w[i];

		if (!s->end)
			w = s;
		else if (!old || s->used < old->used)
			old = s;
	}
	if (!w)
		give_up(srv, w = old);
	return w;
}

/* The window another writer holds that [p, p+n) meets (not mine), or
 * NULL. */
static struct fs_window *taken(struct fs_server *srv,
			       const struct fs_window *mine,
			       blk64_t p, blk64_t n)
{
	int i;

	if (&srv->place.stream != mine && holds(&srv->place.stream, p, n))
		return &srv->place.stream;
	if (&srv->place.meta != mine && holds(&srv->place.meta, p, n))
		return &srv->place.meta;
	for (i = 0; i < FS_PLACE_WINDOWS; i++)
		if (&srv->place.w[i] != mine && holds(&srv->place.w[i], p, n))
			return &srv->place.w[i];
	return NULL;
}

/* The first free run of len blocks at or after goal, past the other
 * writers' windows, and when banded starting where a data window may
 * (stream_point): 0 and *start, or nonzero when there is no such run. */
static errcode_t find_window(struct fs_server *srv, struct fs_window *mine,
			     blk64_t goal, blk64_t len, blk64_t cont,
			     int banded, blk64_t *start)
{
	struct fs_window *other;
	errcode_t err;
	int tries = 0, hops = 0;

	while (tries <= FS_PLACE_WINDOWS + 1) {
		err = lj_bitmaps_find_run(srv->bitmaps, goal, len, start);
		if (err)
			return err;
		other = taken(srv, mine, *start, len);
		if (other) {
			goal = other->end;
			tries++;
		} else if (!banded || stream_point(srv, *start, cont)) {
			return 0;
		} else if (++hops > FS_PLACE_HOPS) {
			break;
		} else {
			goal = band_after(srv, *start);
		}
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

/* A window of len blocks made mine (find_window; a data window banded
 * on a banded mount, or anywhere when no band near has room; cont: where
 * the writer's own data stopped, or 0): 0, or nonzero when there is no
 * free run. */
static errcode_t open_window(struct fs_server *srv, struct fs_window *mine,
			     blk64_t goal, blk64_t len, blk64_t cont)
{
	int banded = srv->place.band && mine != &srv->place.meta;
	blk64_t start;
	errcode_t err;

	give_up(srv, mine);
	err = find_window(srv, mine, goal, len, cont, banded, &start);
	if (err && banded)
		err = find_window(srv, mine, goal, len, cont, 0, &start);
	if (err)
		return err;
	mine->next = start;
	mine->end = start + len;
	return 0;
}

/* Windows are kept on file systems of extents without bigalloc (above). */
static int windows_on(ext2_filsys fs)
{
	return EXT2FS_CLUSTER_RATIO(fs) == 1 &&
	       ext2fs_has_feature_extents(fs->super);
}

/* The smallest power of two blocks at least n, within [FS_PLACE_SMALL,
 * the largest window]. */
static blk64_t window_len(ext2_filsys fs, blk64_t n)
{
	blk64_t len = FS_PLACE_SMALL, max = FS_PLACE_MAX_BYTES / fs->blocksize;

	while (len < n && len < max)
		len <<= 1;
	return len;
}

/* The small files' window with room for n more blocks (reopened where
 * its data stopped, or from goal the first time): 0, or nonzero with
 * none. */
static errcode_t stream_room(struct fs_server *srv, blk64_t goal, blk64_t n)
{
	struct fs_window *s = &srv->place.stream;
	blk64_t stop = s->end ? s->next : 0;

	if (s->next + n <= s->end)
		return 0;
	return open_window(srv, s, stop ? stop : goal, FS_PLACE_STREAM, stop);
}

/* A small file written again after another file took the block it would
 * go on in: its next k blocks kept for it, cut from the small files'
 * window (else each write of it would start a new piece). */
static struct fs_window *cut_window(struct fs_server *srv, ext2_ino_t ino,
				    blk64_t lblk, blk64_t goal, blk64_t k)
{
	struct fs_window *s = &srv->place.stream, *w;

	if (stream_room(srv, goal, k))
		return NULL;
	w = slot_for(srv, ino);
	w->ino = ino;
	w->lblk = lblk;
	w->used = ++srv->place.tick;
	w->next = s->next;
	w->end = s->next += k;
	return w;
}

blk64_t fs_place_goal(struct fs_server *srv, ext2_ino_t ino, blk64_t lblk,
		      blk64_t n, blk64_t goal)
{
	ext2_filsys fs = srv->fs;
	struct fs_window *w = window_of(srv, ino);

	srv->place.cur = NULL;
	if (!windows_on(fs))
		return goal;
	if (w && w->lblk == lblk && w->next + n <= w->end) {
		/* its own window goes on */
	} else if (lblk + n <= FS_PLACE_SMALL) {
		w = &srv->place.stream;
		if (lblk && goal != w->next)
			w = cut_window(srv, ino, lblk, goal,
				       FS_PLACE_SMALL - lblk);
		else if (stream_room(srv, goal, n))
			w = NULL;
	} else if (goal == srv->place.stream.next &&
		   goal + n <= srv->place.stream.end) {
		/* a small file grown large where the small files' window
		 * goes on: the rest of that window is its own */
		w = cut_window(srv, ino, lblk, goal,
			       srv->place.stream.end - goal);
	} else {
		w = slot_for(srv, ino);
		w->ino = ino;
		w->lblk = lblk;
		w->used = ++srv->place.tick;
		/* past block 0, goal is where the file's data goes on */
		if (open_window(srv, w, goal,
				window_len(fs, FS_PLACE_GROW * (lblk + n)),
				lblk ? goal : 0))
			w = NULL;
	}
	if (!w)
		return goal;
	srv->place.cur = w;
	return w->next;
}

void fs_place_took(struct fs_server *srv, blk64_t lblk, blk64_t p,
		   blk64_t len)
{
	struct fs_window *w = srv->place.cur;

	srv->place.cur = NULL;
	if (!w)
		return;
	if (p >= w->next && p + len <= w->end) {
		w->next = p + len;	/* what lay between was taken */
		w->lblk = lblk + len;
		w->used = ++srv->place.tick;
	} else if (w == &srv->place.stream) {
		w->next = w->end;	/* used up: the next from its end */
	} else {
		give_up(srv, w);	/* it went elsewhere */
	}
}

/* Is there no group kept for directories (data_goal), or is blk in one? */
static int in_dirs_group(ext2_filsys fs, blk64_t blk)
{
	unsigned int log_flex = fs->super->s_log_groups_per_flex;

	if (!ext2fs_has_feature_flex_bg(fs->super) || log_flex < 2)
		return 1;
	return !(ext2fs_group_of_blk2(fs, blk) & ((1U << log_flex) - 1));
}

static dgrp_t flex_of(ext2_filsys fs, blk64_t blk)
{
	return ext2fs_group_of_blk2(fs, blk) >> fs->super->s_log_groups_per_flex;
}

/* A free block of the metadata window, opened from goal when it has none
 * left or lies in another flex group (an extent block stays in its
 * data's): 0, or nonzero when goal's flex group has no free run of its
 * length from goal on. */
static errcode_t meta_window_block(struct fs_server *srv, blk64_t goal,
				   blk64_t *ret)
{
	struct fs_window *m = &srv->place.meta;
	blk64_t b;

	if (m->next < m->end &&
	    flex_of(srv->fs, m->next) == flex_of(srv->fs, goal) &&
	    !lj_bitmaps_new_block(srv->bitmaps, m->next, &b) && b < m->end) {
		m->next = b + 1;
		*ret = b;
		return 0;
	}
	if (open_window(srv, m, goal, FS_PLACE_META, 0) ||
	    flex_of(srv->fs, m->next) != flex_of(srv->fs, goal)) {
		m->next = m->end = 0;	/* none near: goal's own block */
		return EXT2_ET_BLOCK_ALLOC_FAIL;
	}
	*ret = m->next++;	/* the run is free */
	return 0;
}

errcode_t fs_place_meta_block(struct fs_server *srv, blk64_t goal,
			       blk64_t *ret)
{
	const struct fs_window *w;
	errcode_t err;
	int tries;

	for (tries = 0; tries <= FS_PLACE_WINDOWS + 1; tries++) {
		err = lj_bitmaps_new_block(srv->bitmaps, goal, ret);
		if (err)
			return err;
		w = taken(srv, &srv->place.meta, *ret, 1);
		if (!w)
			break;
		goal = w->end;
	}
	/* after so many windows, the last block found */
	if (!windows_on(srv->fs) || in_dirs_group(srv->fs, *ret))
		return 0;
	(void)meta_window_block(srv, *ret, ret);	/* else *ret stays */
	return 0;
}

void fs_place_forget(struct fs_server *srv, ext2_ino_t ino)
{
	struct fs_window *w = window_of(srv, ino);

	if (w)
		give_up(srv, w);
}

int fs_place_bands(struct fs_server *srv, unsigned long long band,
		   unsigned long long offset)
{
	unsigned int bs = srv->fs->blocksize;

	if (!band)
		return 0;
	if (band % bs) {
		fprintf(stderr, "fuse2fs: smr_band=%llu is not a multiple of "
			"the block size (%u)\n", band, bs);
		return -1;
	}
	if (offset % bs) {
		fprintf(stderr, "fuse2fs: offset=%llu is not a multiple of the "
			"block size (%u), as smr_band= needs\n", offset, bs);
		return -1;
	}
	srv->place.band = band / bs;
	srv->place.band_skew = offset / bs % srv->place.band;
	return 0;
}
