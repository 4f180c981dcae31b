/*
 * journal.c --- load and validate the internal jbd2 journal (inode 8).
 *
 * The journal is addressed by logical journal block numbers (0 is the
 * journal superblock, as logdump numbers them).  We walk the inode's block
 * map once and keep it as a sorted list of physical runs, so reading the log
 * never calls bmap per block.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "lazy_journal.h"
#include "jbd2_format.h"
#include "lj_private.h"

#define LJ_MIN_JOURNAL_BLOCKS	1024	/* jbd2's lower limit */

struct extent_walk {
	lj_journal *j;
	size_t cap;
	blk64_t expect;		/* next logical block we expect */
	errcode_t err;
};

static int add_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref_blk, int ref_offset, void *priv)
{
	struct extent_walk *w = priv;
	lj_journal *j = w->j;
	struct lj_extent *last;

	(void)fs; (void)ref_blk; (void)ref_offset;
	if (blockcnt < 0)
		return 0;
	if ((blk64_t)blockcnt >= j->maxlen)
		return BLOCK_ABORT;	/* beyond the part the journal uses */
	if ((blk64_t)blockcnt != w->expect) {
		w->err = LJ_ET_JOURNAL_INODE_HOLE;
		return BLOCK_ABORT;
	}
	if (*blocknr == 0 || *blocknr >= j->fs_blocks) {
		w->err = LJ_ET_JOURNAL_INODE_BAD;
		return BLOCK_ABORT;
	}
	w->expect++;
	last = j->n_ext ? &j->ext[j->n_ext - 1] : NULL;
	if (last && last->pblk + last->len == *blocknr) {
		last->len++;
		return 0;
	}
	w->err = lj_array_grow(&j->ext, &w->cap, j->n_ext + 1, sizeof(*j->ext));
	if (w->err)
		return BLOCK_ABORT;
	j->ext[j->n_ext].lblk = (uint32_t)blockcnt;
	j->ext[j->n_ext].len = 1;
	j->ext[j->n_ext].pblk = *blocknr;
	j->n_ext++;
	return 0;
}

blk64_t lj_journal_pblk(const lj_journal *j, uint32_t jblk)
{
	size_t lo = 0, hi = j->n_ext;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct lj_extent *e = &j->ext[mid];

		if (jblk < e->lblk)
			hi = mid;
		else if (jblk >= e->lblk + e->len)
			lo = mid + 1;
		else
			return e->pblk + (jblk - e->lblk);
	}
	return 0;
}

errcode_t lj_journal_read(lj_journal *j, uint32_t jblk, unsigned int count,
			  void *buf)
{
	unsigned char *p = buf;

	if ((uint64_t)jblk + count > j->maxlen)
		return EXT2_ET_BAD_BLOCK_NUM;
	while (count) {
		blk64_t pblk = lj_journal_pblk(j, jblk);
		unsigned int run = 1;
		errcode_t err;

		if (!pblk)
			return EXT2_ET_BAD_BLOCK_NUM;
		while (run < count &&
		       lj_journal_pblk(j, jblk + run) == pblk + run)
			run++;
		err = io_channel_read_blk64(j->io, pblk, (int)run, p);
		if (err)
			return err;
		p += (size_t)run * j->blocksize;
		jblk += run;
		count -= run;
	}
	return 0;
}

/* Check the journal superblock the way jbd2's journal_load does. */
static errcode_t validate_sb(lj_journal *j, uint32_t inode_blocks)
{
	const unsigned char *sb = j->sb;
	uint32_t type = lj_be32(sb + LJ_HDR_BLOCKTYPE);

	if (lj_be32(sb + LJ_HDR_MAGIC) != LJ_JBD2_MAGIC)
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	if (type != LJ_BT_SUPERBLOCK_V1 && type != LJ_BT_SUPERBLOCK_V2)
		return EXT2_ET_JOURNAL_UNSUPP_VERSION;
	if (lj_be32(sb + LJ_JSB_BLOCKSIZE) != j->blocksize)
		return EXT2_ET_CORRUPT_JOURNAL_SB;

	j->maxlen = lj_be32(sb + LJ_JSB_MAXLEN);
	j->first = lj_be32(sb + LJ_JSB_FIRST);
	j->sequence = lj_be32(sb + LJ_JSB_SEQUENCE);
	j->start = lj_be32(sb + LJ_JSB_START);
	if (type == LJ_BT_SUPERBLOCK_V2) {	/* v1 has no feature fields */
		j->compat = lj_be32(sb + LJ_JSB_FEATURE_COMPAT);
		j->incompat = lj_be32(sb + LJ_JSB_FEATURE_INCOMPAT);
		j->ro_compat = lj_be32(sb + LJ_JSB_FEATURE_RO_COMPAT);
	}
	if (j->maxlen > inode_blocks)
		return LJ_ET_JOURNAL_INODE_SHORT;
	if (j->maxlen < LJ_MIN_JOURNAL_BLOCKS)
		return EXT2_ET_JOURNAL_TOO_SMALL;
	if (j->first == 0 || j->first >= j->maxlen)
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	if (j->incompat & ~LJ_FEATURE_INCOMPAT_KNOWN)
		return EXT2_ET_UNSUPP_FEATURE;
	if (j->ro_compat)
		return EXT2_ET_RO_UNSUPP_FEATURE;
	if ((j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V2) &&
	    (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3))
		return EXT2_ET_CORRUPT_JOURNAL_SB;

	memcpy(j->uuid, sb + LJ_JSB_UUID, sizeof(j->uuid));
	if (lj_journal_csum_v23(j)) {
		unsigned char copy[LJ_JSB_SIZE];

		if (sb[LJ_JSB_CHECKSUM_TYPE] != LJ_CSUM_TYPE_CRC32C)
			return EXT2_ET_UNKNOWN_CSUM;
		memcpy(copy, sb, sizeof(copy));
		memset(copy + LJ_JSB_CHECKSUM, 0, 4);
		if (ext2fs_crc32c_le(~0U, copy, sizeof(copy)) !=
		    lj_be32(sb + LJ_JSB_CHECKSUM))
			return LJ_ET_JSB_CSUM;
		j->csum_seed = ext2fs_crc32c_le(~0U, j->uuid, sizeof(j->uuid));
		j->tail_bytes = LJ_BLOCK_TAIL_SIZE;
	}

	/* The fast-commit area at the end of the journal is not log. */
	j->last = j->maxlen;
	if (j->incompat & LJ_FEATURE_INCOMPAT_FAST_COMMIT) {
		uint32_t nfc = lj_be32(sb + LJ_JSB_NUM_FC_BLKS);

		if (!nfc)
			nfc = LJ_DEFAULT_FC_BLOCKS;
		if (j->maxlen > nfc &&
		    j->maxlen - nfc >= LJ_MIN_JOURNAL_BLOCKS)
			j->last = j->maxlen - nfc;
	}
	if (j->first >= j->last)
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	if (j->start && (j->start < j->first || j->start >= j->last))
		return EXT2_ET_CORRUPT_JOURNAL_SB;

	if (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3)
		j->tag_bytes = 16;
	else
		j->tag_bytes = 8 +
			((j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 4 : 0) +
			((j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V2) ? 2 : 0);
	return 0;
}

errcode_t lj_journal_map(ext2_filsys fs, io_channel io, lj_journal **ret)
{
	struct ext2_inode inode;
	struct extent_walk w;
	lj_journal *j;
	uint64_t size;
	errcode_t err;

	*ret = NULL;
	if (!ext2fs_has_feature_journal(fs->super))
		return EXT2_ET_NO_JOURNAL;
	if (fs->super->s_journal_inum == 0)
		return LJ_ET_EXTERNAL_JOURNAL;
	err = ext2fs_read_inode(fs, fs->super->s_journal_inum, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISREG(inode.i_mode) || inode.i_links_count == 0)
		return LJ_ET_JOURNAL_INODE_BAD;
	size = EXT2_I_SIZE(&inode) / fs->blocksize;
	if (size < LJ_MIN_JOURNAL_BLOCKS)
		return EXT2_ET_JOURNAL_TOO_SMALL;
	if (size > UINT32_MAX)
		return LJ_ET_JOURNAL_TOO_BIG;

	err = ext2fs_get_memzero(sizeof(*j), &j);
	if (err)
		return err;
	j->io = io;
	j->blocksize = fs->blocksize;
	j->fs_blocks = ext2fs_blocks_count(fs->super);
	j->maxlen = (uint32_t)size;	/* the whole inode */
	memset(&w, 0, sizeof(w));
	w.j = j;
	err = ext2fs_block_iterate3(fs, fs->super->s_journal_inum,
				    BLOCK_FLAG_DATA_ONLY | BLOCK_FLAG_READ_ONLY,
				    NULL, add_block, &w);
	if (!err)
		err = w.err;
	if (!err && w.expect < j->maxlen)
		err = LJ_ET_JOURNAL_INODE_HOLE;
	if (err) {
		lj_journal_close(j);
		return err;
	}
	*ret = j;
	return 0;
}

errcode_t lj_journal_open(ext2_filsys fs, io_channel io, lj_journal **ret)
{
	lj_journal *j;
	errcode_t err;

	*ret = NULL;
	/* Map the whole inode first; validate_sb() then trims to s_maxlen. */
	err = lj_journal_map(fs, io, &j);
	if (err)
		return err;
	err = ext2fs_get_mem(fs->blocksize, &j->sb);
	if (!err)
		err = io_channel_set_blksize(io, (int)fs->blocksize);
	if (!err)
		err = lj_journal_read(j, 0, 1, j->sb);
	if (!err)
		err = validate_sb(j, j->maxlen);
	if (err) {
		lj_journal_close(j);
		return err;
	}
	*ret = j;
	return 0;
}

void lj_journal_close(lj_journal *j)
{
	if (!j)
		return;
	ext2fs_free_mem(&j->ext);
	ext2fs_free_mem(&j->sb);
	ext2fs_free_mem(&j);
}

void lj_journal_features(const lj_journal *j, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s",
		 (j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? "64bit" : "32bit",
		 (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3) ? " csum_v3" : "",
		 (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V2) ? " csum_v2" : "",
		 (j->compat & LJ_FEATURE_COMPAT_CHECKSUM) ? " checksum_v1" : "",
		 (j->incompat & LJ_FEATURE_INCOMPAT_ASYNC_COMMIT) ?
			" async_commit" : "",
		 (j->incompat & LJ_FEATURE_INCOMPAT_FAST_COMMIT) ?
			" fast_commit" : "");
}

int lj_journal_lblk(const lj_journal *j, blk64_t pblk, uint32_t *jblk)
{
	size_t i;

	for (i = 0; i < j->n_ext; i++) {
		const struct lj_extent *e = &j->ext[i];

		if (pblk >= e->pblk && pblk < e->pblk + e->len) {
			if (jblk)
				*jblk = e->lblk + (uint32_t)(pblk - e->pblk);
			return 1;
		}
	}
	return 0;
}

void lj_jsb_csum_set(const lj_journal *j, unsigned char *sb)
{
	if (!lj_journal_csum_v23(j))
		return;
	lj_put_be32(sb + LJ_JSB_CHECKSUM, 0);
	lj_put_be32(sb + LJ_JSB_CHECKSUM,
		    ext2fs_crc32c_le(~0U, sb, LJ_JSB_SIZE));
}

void lj_jsb_set_log(const lj_journal *j, unsigned char *sb, uint32_t start,
		    uint32_t seq)
{
	lj_put_be32(sb + LJ_JSB_START, start);
	lj_put_be32(sb + LJ_JSB_SEQUENCE, seq);
	lj_jsb_csum_set(j, sb);
}
