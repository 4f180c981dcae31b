/*
 * lj_private.h --- helpers shared inside the library, not part of its API.
 */
#ifndef LJ_PRIVATE_H
#define LJ_PRIVATE_H

/* In buf (n blocks from fs block first), give the superblock the flags the
 * home copy must carry while the log is in use (SPEC §2). */
void lj_sb_keep_flags(unsigned char *buf, unsigned int bs, blk64_t first,
		      size_t n, int lazy);

/* Recompute the v2/v3 checksum of a journal superblock buffer. */
void lj_jsb_csum_set(const lj_journal *j, unsigned char *sb);

/* Remove the entries of these homes from the map (they went home). */
errcode_t lj_jmap_unmap(lj_jmap *m, const uint64_t *homes, size_t n);

#endif
