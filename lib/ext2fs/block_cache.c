/*
 * block_cache.c --- the latest bytes of fs blocks the lazy channel read
 * or wrote lately, so that libext2fs re-reading a bitmap, an inode table
 * or a directory block does not go to the device each time (the home
 * channel below runs with no cache: journal writes must reach the device
 * when they are made).  Direct-mapped by block number.
 *
 * The cache is only a copy: the writer stores in it every block it adds
 * to the running transaction, as it keeps it, and drops every block it
 * revokes (the channel writes it home as data next); the cleaner and the
 * checkpoints move bytes without changing them.  So an entry is never
 * older than what the running transaction, the log and home together
 * hold.  Blocks of the journal itself, which the writer writes below the
 * channel, are never cached.
 */
#include <string.h>

#include "lazy_journal.h"
#include "lj_private.h"

errcode_t lj_bcache_init(struct lj_block_cache *c, unsigned int slots,
			 unsigned int bs)
{
	errcode_t err;

	memset(c, 0, sizeof(*c));
	err = ext2fs_get_arrayzero(slots, sizeof(*c->blk), &c->blk);
	if (!err)
		err = ext2fs_get_array(slots, bs, &c->data);
	if (err) {
		lj_bcache_free(c);
		return err;
	}
	c->slots = slots;
	c->bs = bs;
	return 0;
}

/* An entry holds block blk[i] - 1; 0 is an empty slot. */
static unsigned int slot(const struct lj_block_cache *c, blk64_t blk)
{
	return (unsigned int)(blk % c->slots);
}

int lj_bcache_has(const struct lj_block_cache *c, blk64_t blk)
{
	return c->slots && c->blk[slot(c, blk)] == blk + 1;
}

int lj_bcache_get(const struct lj_block_cache *c, blk64_t blk, void *buf)
{
	if (!lj_bcache_has(c, blk))
		return 0;
	memcpy(buf, c->data + (size_t)slot(c, blk) * c->bs, c->bs);
	return 1;
}

void lj_bcache_put(struct lj_block_cache *c, blk64_t blk, const void *buf)
{
	unsigned int i;

	if (!c->slots)
		return;
	i = slot(c, blk);
	c->blk[i] = blk + 1;
	memcpy(c->data + (size_t)i * c->bs, buf, c->bs);
}

void lj_bcache_drop(struct lj_block_cache *c, blk64_t blk)
{
	if (lj_bcache_has(c, blk))
		c->blk[slot(c, blk)] = 0;
}

void lj_bcache_free(struct lj_block_cache *c)
{
	ext2fs_free_mem(&c->blk);
	ext2fs_free_mem(&c->data);
	memset(c, 0, sizeof(*c));
}
