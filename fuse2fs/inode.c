/*
 * fuse2fs/inode.c --- inodes as the kernel's ext4 keeps them: read and
 * written whole (the quota usage follows every write), owner, times with
 * nanoseconds clamped as ext4 stores them, stat, the largest size, the
 * caller's groups.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <sys/sysmacros.h>

#include "server.h"

#define TIME_MIN	((int64_t)INT32_MIN)
#define TIME_MAX	((int64_t)INT32_MAX + (3LL << 32))	/* 2446 */

int fs_read_inode(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	int size = EXT2_INODE_SIZE(fs->super);

	memset(in, 0, sizeof(*in));
	if (size > (int)sizeof(*in))
		size = sizeof(*in);
	if (ino < 1 || ino > fs->super->s_inodes_count)
		return -ENOENT;
	fs_errors_inode(srv, ino);
	return -fs_errno(srv, ext2fs_read_inode_full(fs, ino, FS_I(in), size));
}

int fs_write_inode(struct fs_server *srv, ext2_ino_t ino, struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	int size = EXT2_INODE_SIZE(fs->super);

	errcode_t err;

	if (size > (int)sizeof(*in))
		size = sizeof(*in);
	fs_quota_whole(srv, FS_I(in));
	err = ext2fs_write_inode_full(fs, ino, FS_I(in), size);
	fs_quota_whole(srv, NULL);
	return -fs_errno(srv, err);
}

/*
 * Does writing in over ino's inode change only its times (and the
 * version and checksum that follow every write)?  What an fdatasync need
 * not make durable, as ext4 leaves a time update out of i_datasync_tid.
 * The first 128 bytes: the rest holds times, the project id, and
 * in-inode xattrs, where inline data may live (then never).
 */
static int times_only(ext2_filsys fs, ext2_ino_t ino,
		      const struct ext2_inode *in)
{
	struct ext2_inode old, new = *in;

	if ((in->i_flags & EXT4_INLINE_DATA_FL) ||
	    ext2fs_read_inode(fs, ino, &old))
		return 0;
	new.i_atime = old.i_atime;
	new.i_ctime = old.i_ctime;
	new.i_mtime = old.i_mtime;
	new.osd1.linux1.l_i_version = old.osd1.linux1.l_i_version;
	new.osd2.linux2.l_i_checksum_lo = old.osd2.linux2.l_i_checksum_lo;
	return !memcmp(&old, &new, sizeof(old));
}

/*
 * libext2fs's write_inode hook, before every inode write, ours and its
 * own (extent roots, inline data, in-inode xattrs): its change is in the
 * running transaction (an fsync of it needs a commit: commit.c's
 * fs_commit_changed; an fdatasync too unless only its times changed),
 * then the quota usage follows.  Every change ext4 makes durable at an
 * fsync passes here: each one rewrites the inode, its ctime at least, as
 * ext4's do.  Mappings changed below the inode (an extent leaf) are told
 * by data.c and fallocate.
 */
static errcode_t inode_written(ext2_filsys fs, ext2_ino_t ino,
			       struct ext2_inode *in)
{
	struct fs_server *srv = fs->priv_data;

	fs_commit_changed(srv, ino, fs_commit_wants_data(srv, ino) &&
			  !times_only(fs, ino, in));
	return fs_quota_written(srv, ino, in);
}

void fs_inode_hook(struct fs_server *srv)
{
	srv->fs->write_inode = inode_written;
}

/*
 * A new inode alone in its inode-table block (every other inode there free
 * by the bitmap): the block starts zeroed in the running transaction and
 * is never read from the device, as the kernel's ext4 starts the only
 * valid inode of a block (__ext4_get_inode_loc).  Free inodes' bytes are
 * nobody's (if libext2fs's one-block inode buffer still holds the block,
 * it writes those old bytes back with the new inode: as good).  Through
 * the lazy channel only: a plain device would read it back.  Without it,
 * making directories read one inode-table block per 16 new inodes.
 */
void fs_inode_block_fresh(struct fs_server *srv, ext2_ino_t ino)
{
	ext2_filsys fs = srv->fs;
	unsigned int per = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	__u32 idx = (ino - 1) % EXT2_INODES_PER_GROUP(fs->super);
	blk64_t blk = ext2fs_inode_table_loc(
		fs, (ino - 1) / EXT2_INODES_PER_GROUP(fs->super));
	ext2_ino_t first = ino - idx % per, i;
	char *zero;

	if (!srv->lazy || !blk)
		return;
	for (i = first; i < first + per; i++)
		if (i != ino && ext2fs_test_inode_bitmap2(fs->inode_map, i))
			return;
	blk += idx / per;
	if (ext2fs_get_memzero(fs->blocksize, &zero))
		return;		/* read as any other */
	if (!lj_lazy_note_allocated(fs->io, blk, 1))
		(void)io_channel_write_blk64(fs->io, blk, 1, zero);
	ext2fs_free_mem(&zero);
}

uid_t fs_uid(const struct fs_inode *in)
{
	return in->i.i_uid | (uid_t)in->i.osd2.linux2.l_i_uid_high << 16;
}

gid_t fs_gid(const struct fs_inode *in)
{
	return in->i.i_gid | (gid_t)in->i.osd2.linux2.l_i_gid_high << 16;
}

void fs_set_owner(struct fs_inode *in, uid_t uid, gid_t gid)
{
	in->i.i_uid = (__u16)uid;
	in->i.osd2.linux2.l_i_uid_high = (__u16)(uid >> 16);
	in->i.i_gid = (__u16)gid;
	in->i.osd2.linux2.l_i_gid_high = (__u16)(gid >> 16);
}

/* Is the extra field at offset off (4 bytes) in the inode? */
static int has_extra(struct fs_server *srv, const struct fs_inode *in,
		     size_t off)
{
	ext2_filsys fs = srv->fs;

	if (EXT2_INODE_SIZE(fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		return 0;
	return (size_t)EXT2_GOOD_OLD_INODE_SIZE + in->i.i_extra_isize >= off + 4;
}

#define HAS_X(in, f) has_extra(srv, in, offsetof(struct ext2_inode_large, f))

static void get_time(const struct fs_inode *in, __u32 lo, __u32 extra,
		     int has, struct timespec *ts)
{
	ts->tv_sec = (__s32)lo;
	ts->tv_nsec = 0;
	if (has) {
		ts->tv_sec += (time_t)(extra & 3) << 32;
		ts->tv_nsec = (long)(extra >> 2);
	}
	(void)in;
}

static void put_time(const struct timespec *ts, __u32 *lo, __u32 *extra,
		     int has)
{
	int64_t s = ts->tv_sec;
	long ns = ts->tv_nsec;

	/* ext4's range (32-bit seconds without the extra field): a time
	 * outside is clamped, and one at either end has no nanoseconds */
	if (!has) {
		*lo = (__u32)(s < INT32_MIN ? INT32_MIN :
			      s > INT32_MAX ? INT32_MAX : s);
		return;
	}
	if (s <= TIME_MIN || s >= TIME_MAX) {
		s = s < TIME_MIN ? TIME_MIN : s > TIME_MAX ? TIME_MAX : s;
		ns = 0;
	}
	*lo = (__u32)s;
	*extra = (__u32)(((s - (int32_t)(__u32)s) >> 32) & 3) |
		 ((__u32)ns << 2);
}

void fs_set_times(struct fs_server *srv, struct fs_inode *in, int which,
		  const struct timespec *ts)
{
	struct timespec now;

	if (!ts) {
		clock_gettime(CLOCK_REALTIME, &now);
		ts = &now;
	}
	if (which & FS_T_A)
		put_time(ts, &in->i.i_atime, &in->i.i_atime_extra,
			 HAS_X(in, i_atime_extra));
	if (which & FS_T_M)
		put_time(ts, &in->i.i_mtime, &in->i.i_mtime_extra,
			 HAS_X(in, i_mtime_extra));
	if (which & FS_T_C)
		put_time(ts, &in->i.i_ctime, &in->i.i_ctime_extra,
			 HAS_X(in, i_ctime_extra));
	if ((which & FS_T_CR) && HAS_X(in, i_crtime_extra))
		put_time(ts, &in->i.i_crtime, &in->i.i_crtime_extra, 1);
}

int fs_touch(struct fs_server *srv, ext2_ino_t ino, int which)
{
	struct fs_inode in;
	int ret = fs_read_inode(srv, ino, &in);

	if (!ret) {
		fs_set_times(srv, &in, which, NULL);
		ret = fs_write_inode(srv, ino, &in);
	}
	return ret;
}

void fs_stat(struct fs_server *srv, ext2_ino_t ino, const struct fs_inode *in,
	     struct stat *st)
{
	ext2_filsys fs = srv->fs;
	const struct ext2_inode *i = (const struct ext2_inode *)&in->i;

	memset(st, 0, sizeof(*st));
	st->st_dev = 0;
	st->st_ino = ino;
	st->st_mode = in->i.i_mode;
	st->st_nlink = in->i.i_links_count;
	st->st_uid = fs_uid(in);
	st->st_gid = fs_gid(in);
	st->st_size = (off_t)EXT2_I_SIZE(i);
	st->st_blksize = (blksize_t)fs->blocksize;
	st->st_blocks = (blkcnt_t)ext2fs_get_stat_i_blocks(fs,
				(struct ext2_inode *)i);
	if (LINUX_S_ISCHR(in->i.i_mode) || LINUX_S_ISBLK(in->i.i_mode)) {
		if (in->i.i_block[0])
			st->st_rdev = makedev((in->i.i_block[0] >> 8) & 255,
					      in->i.i_block[0] & 255);
		else
			st->st_rdev = makedev((in->i.i_block[1] & 0xfff00) >> 8,
					      (in->i.i_block[1] & 0xff) |
					      ((in->i.i_block[1] >> 12) &
					       0xfff00));
	}
	get_time(in, in->i.i_atime, in->i.i_atime_extra,
		 HAS_X(in, i_atime_extra), &st->st_atim);
	get_time(in, in->i.i_mtime, in->i.i_mtime_extra,
		 HAS_X(in, i_mtime_extra), &st->st_mtim);
	get_time(in, in->i.i_ctime, in->i.i_ctime_extra,
		 HAS_X(in, i_ctime_extra), &st->st_ctim);
}

/* Indirect blocks a block-mapped file of n blocks needs (n past the
 * direct and the indirect block's: ext4's count for s_bitmap_maxbytes). */
static uint64_t ind_blocks(uint64_t n, uint64_t a)
{
	uint64_t meta = 1;

	n -= EXT2_NDIR_BLOCKS + a;
	if (n < a * a)
		return meta + 1 + (n + a - 1) / a;
	meta += 1 + a;
	n -= a * a;
	return meta + 1 + (n + a - 1) / a + (n + a * a - 1) / (a * a);
}

/* The largest size ext4 gives the inode (s_maxbytes for extent-mapped
 * files, s_bitmap_maxbytes for block-mapped ones).  i_blocks counts
 * 2^32 - 1 sectors (2^48 - 1 with huge_file), indirect blocks included:
 * a block-mapped file has the blocks its map addresses, or as many as
 * i_blocks counts less the indirect blocks that many need. */
uint64_t fs_max_size(struct fs_server *srv, const struct fs_inode *in)
{
	ext2_filsys fs = srv->fs;
	int bits = EXT2_BLOCK_SIZE_BITS(fs->super);
	int huge = ext2fs_has_feature_huge_file(fs->super);
	uint64_t a = fs->blocksize / 4, blocks, limit = UINT64_MAX;

	if (in->i.i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) {
		if (!huge)	/* i_blocks: 2^32 sectors */
			limit = (((1ULL << 32) - 1) >> (bits - 9)) << bits;
		blocks = (1ULL << 32) - 1;
	} else {
		uint64_t tree = EXT2_NDIR_BLOCKS + a + a * a + a * a * a;
		uint64_t cap = ((huge ? 1ULL << 48 : 1ULL << 32) - 1) >>
			       (bits - 9);

		if (tree + 1 + (1 + a) + (1 + a + a * a) <= cap)
			blocks = tree;
		else
			blocks = cap - ind_blocks(cap, a);
		if (blocks > (1ULL << 32) - 1)
			blocks = (1ULL << 32) - 1;
	}
	if ((blocks << bits) < limit)
		limit = blocks << bits;
	return limit;
}

int fs_in_group(fuse_req_t req, gid_t g)
{
	const struct fuse_ctx *c = fuse_req_ctx(req);
	gid_t list[256];
	int i, n;

	if (c->uid == 0 || c->gid == g)
		return 1;
	n = fuse_req_getgroups(req, 256, list);
	for (i = 0; i < n && i < 256; i++)
		if (list[i] == g)
			return 1;
	return 0;
}
