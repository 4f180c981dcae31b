/*
 * lj_private.h --- helpers shared inside the library, not part of its API.
 */
#ifndef LJ_PRIVATE_H
#define LJ_PRIVATE_H

#include <limits.h>
#include <stdint.h>

/* lazy_io.c, for the view: the next lazy open reads and writes through
 * dev, a channel on the same device opened with the same flags, instead
 * of opening the device itself; dev is the lazy channel's from then on,
 * even if the open fails. */
void lj_lazy_set_open_device(io_channel dev);
/* lazy_io.c: the name that opens the device of io, a lazy channel, where
 * io reads it: "NAME", or "NAME?offset=N" when the io option offset= was
 * set (ext2fs_open2 takes it so); freed with ext2fs_free_mem. */
errcode_t lj_lazy_device_name(io_channel io, char **ret);

/* overlay_io.c: a channel over below (opened read-only; NULL: an empty
 * file) that keeps every write in memory and reads them back over what
 * lies below; below is the overlay's from then on, even on failure. */
errcode_t lj_overlay_open(io_channel below, const char *name,
			  io_channel *ret);
/* Does io, an overlay, hold a write of any byte of [off, off + len)? */
int lj_overlay_holds(io_channel io, uint64_t off, uint64_t len);

/* ordered_io.c: a layer over lj_io_base() that starts the writeback of
 * each write as it is made (sync_file_range), so that writes through the
 * page cache reach the device in the order they are made. */
extern io_manager lj_ordered_io_manager;

/* super_features.c: in buf (n blocks from fs block first), give the
 * superblock the flags the home copy must carry while the log is in use
 * (doc/contract.md §2.1, §3). */
void lj_sb_keep_flags(unsigned char *buf, unsigned int bs, blk64_t first,
		      size_t n, int lazy);
/* Write the primary superblock sb (SUPERBLOCK_SIZE bytes) at byte 1024
 * through io, whose block size bs is restored after. */
errcode_t lj_sb_write_primary(io_channel io, unsigned int bs, const void *sb);
/* Redo the checksum of a superblock buffer (metadata_csum; as libext2fs'
 * ext2fs_superblock_csum_set, without a file-system handle). */
void lj_sb_csum_set(struct ext2_super_block *sb);

/* journal.c: recompute the v2/v3 checksum of a journal superblock buffer;
 * point it at a log starting at start with sequence seq (start 0: an
 * empty log), checksum included. */
void lj_jsb_csum_set(const lj_journal *j, unsigned char *sb);
void lj_jsb_set_log(const lj_journal *j, unsigned char *sb, uint32_t start,
		    uint32_t seq);

/* jmap.c: sort keys and comparators shared with jmap_update.c. */
struct lj_tag_key {		/* a tag, by home block, newest first */
	uint64_t home;
	uint32_t idx;		/* index in lj_log.tags */
};
int lj_cmp_tag_key(const void *a, const void *b);
int lj_cmp_u32(const void *a, const void *b);
int lj_cmp_u64(const void *a, const void *b);

/* jmap_update.c: remove the entries of these homes from the map (they went home). */
errcode_t lj_jmap_unmap(lj_jmap *m, const uint64_t *homes, size_t n);

/* migrate.c, doc/contract.md §3 step 1: the live copies of entries e[0..n) of
 * st's jmap (sorted by home) written home through rw, ascending, adjacent
 * homes in one write (superblock flags kept), then a flush.  Homes whose
 * live copy is their home copy are skipped.  stats counts (not reset). */
errcode_t lj_write_live_home(lj_lazy_state *st, io_channel rw,
			     const struct lj_jmap_entry *e, size_t n,
			     lj_progress_fn progress, void *arg,
			     struct lj_migrate_stats *stats);

/* lazy_state.c: fill st for the file system fs (home: a channel on its
 * device, block size set): an empty jmap, then, with_log, the journal,
 * the scan and the jmap (rw: the channel will write, so a log that is not
 * live is still loaded).  A journal that cannot be read is no error: st
 * says why (journal_err, note). */
errcode_t lj_lazy_state_load(lj_lazy_state *st, ext2_filsys fs,
			     io_channel home, int rw, int with_log);
/* lazy_state.c: lj_lazy_verified_token of st, the state of device. */
void lj_lazy_state_token(const lj_lazy_state *st, const char *device,
			 char *buf, size_t size);

/* lj_alloc.c: make room for need elements of size bytes in the array at
 * *(void **)arr of capacity *cap (doubling; ext2fs_resize_mem). */
errcode_t lj_array_grow(void *arr, size_t *cap, size_t need, size_t size);
/* Resize the array at *(void **)arr to count (0: 1) elements of size. */
errcode_t lj_array_resize(void *arr, size_t count, size_t size);

/* block_set.c: a set of block ranges (zeroed: empty). */
struct lj_block_range {
	blk64_t start, count;
};
struct lj_block_set {
	struct lj_block_range *r;	/* sorted by start, neither */
	size_t n, cap;			/* overlapping nor touching */
};
errcode_t lj_bset_add(struct lj_block_set *s, blk64_t start, blk64_t count);
int lj_bset_has(struct lj_block_set *s, blk64_t blk);
void lj_bset_clear(struct lj_block_set *s);
void lj_bset_free(struct lj_block_set *s);

/* block_cache.c: recent fs blocks' bytes (zeroed: no cache, every get
 * misses). */
struct lj_block_cache {
	unsigned int slots, bs;
	blk64_t *blk;		/* per slot: its block + 1, or 0 */
	unsigned char *data;	/* slots blocks of bs bytes */
};
errcode_t lj_bcache_init(struct lj_block_cache *c, unsigned int slots,
			 unsigned int bs);
int lj_bcache_has(const struct lj_block_cache *c, blk64_t blk);
/* 1 and blk's bytes into buf, or 0 (not cached). */
int lj_bcache_get(const struct lj_block_cache *c, blk64_t blk, void *buf);
void lj_bcache_put(struct lj_block_cache *c, blk64_t blk, const void *buf);
void lj_bcache_drop(struct lj_block_cache *c, blk64_t blk);
void lj_bcache_free(struct lj_block_cache *c);
/* The writer keeps c up to date: a block added cached with its bytes, a
 * revoked one dropped (writer.c). */
void lj_writer_set_cache(lj_writer *w, struct lj_block_cache *c);

#endif
