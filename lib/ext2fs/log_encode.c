/*
 * log_encode.c --- the blocks of a transaction in the journal's format,
 * the mirror of log_scan.c: descriptor blocks and their tags, escaped
 * copies, revoke blocks and the commit block, for the journal's tag size
 * and checksum version (none, v1 commit crc32, v2/v3 crc32c).  Only
 * bytes: writing them is log_append.c's job.
 */
#include <string.h>

#include "writer_private.h"
#include "lj_private.h"

size_t lj_enc_tags_per_desc(const lj_journal *j)
{
	size_t room = j->blocksize - LJ_HDR_SIZE - j->tail_bytes;

	return 1 + (room - j->tag_bytes - LJ_TAG_UUID_SIZE) / j->tag_bytes;
}

static size_t revoke_record_size(const lj_journal *j)
{
	return (j->incompat & LJ_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
}

uint32_t lj_enc_txn_blocks(const lj_journal *j, size_t n, size_t r)
{
	size_t per_desc = lj_enc_tags_per_desc(j);
	size_t per_rev = (j->blocksize - LJ_REVOKE_HDR_SIZE - j->tail_bytes) /
			 revoke_record_size(j);

	return (uint32_t)((n + per_desc - 1) / per_desc + n +
			  (r + per_rev - 1) / per_rev + 1);
}

static void put_header(unsigned char *b, uint32_t type, uint32_t tid)
{
	lj_put_be32(b + LJ_HDR_MAGIC, LJ_JBD2_MAGIC);
	lj_put_be32(b + LJ_HDR_BLOCKTYPE, type);
	lj_put_be32(b + LJ_HDR_SEQUENCE, tid);
}

void lj_enc_block_tail(const lj_journal *j, unsigned char *b)
{
	unsigned char *tail = b + j->blocksize - LJ_BLOCK_TAIL_SIZE;

	if (!lj_journal_csum_v23(j))
		return;
	lj_put_be32(tail, 0);
	lj_put_be32(tail, lj_crc32c(j->csum_seed, b, j->blocksize));
}

uint16_t lj_enc_escape(const lj_journal *j, unsigned char *out,
		       const unsigned char *in)
{
	memcpy(out, in, j->blocksize);
	if (lj_be32(out) != LJ_JBD2_MAGIC)
		return 0;
	lj_put_be32(out, 0);	/* recovery puts the magic back */
	return LJ_FLAG_ESCAPE;
}

size_t lj_enc_desc_start(const lj_journal *j, unsigned char *desc,
			 uint32_t tid)
{
	memset(desc, 0, j->blocksize);
	put_header(desc, LJ_BT_DESCRIPTOR, tid);
	return LJ_HDR_SIZE;
}

/* One tag at b for a copy of home with these flags and checksum. */
static void put_tag(const lj_journal *j, unsigned char *b, uint64_t home,
		    uint16_t flags, uint32_t csum)
{
	lj_put_be32(b + LJ_TAG_BLOCKNR, (uint32_t)home);
	if (j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3) {
		lj_put_be32(b + 4, flags);
		lj_put_be32(b + LJ_TAG3_BLOCKNR_HIGH, (uint32_t)(home >> 32));
		lj_put_be32(b + LJ_TAG3_CSUM32, csum);
		return;
	}
	b[LJ_TAG_CSUM16] = (unsigned char)(csum >> 8);
	b[LJ_TAG_CSUM16 + 1] = (unsigned char)csum;
	b[LJ_TAG_FLAGS16] = (unsigned char)(flags >> 8);
	b[LJ_TAG_FLAGS16 + 1] = (unsigned char)flags;
	if (j->incompat & LJ_FEATURE_INCOMPAT_64BIT)
		lj_put_be32(b + LJ_TAG_BLOCKNR_HIGH, (uint32_t)(home >> 32));
}

size_t lj_enc_desc_tag(const lj_journal *j, unsigned char *desc, size_t off,
		       uint32_t tid, uint64_t home, const unsigned char *copy,
		       uint16_t escape, size_t i, size_t n, struct lj_tag *tag)
{
	uint16_t flags = escape;
	uint32_t csum = 0;

	if (lj_journal_csum_v23(j)) {
		unsigned char seq[4];

		lj_put_be32(seq, tid);
		csum = lj_crc32c(j->csum_seed, seq, 4);
		csum = lj_crc32c(csum, copy, j->blocksize);
		if (!(j->incompat & LJ_FEATURE_INCOMPAT_CSUM_V3))
			csum &= 0xFFFF;
	}
	if (i)
		flags |= LJ_FLAG_SAME_UUID;
	if (i + 1 == n)
		flags |= LJ_FLAG_LAST_TAG;
	put_tag(j, desc + off, home, flags, csum);
	off += j->tag_bytes;
	if (!i) {	/* the first tag carries the journal's UUID */
		memcpy(desc + off, j->uuid, LJ_TAG_UUID_SIZE);
		off += LJ_TAG_UUID_SIZE;
	}
	tag->home = home;
	tag->tid = tid;
	tag->csum = csum;
	tag->flags = flags;
	tag->pad = 0;
	return off;
}

size_t lj_enc_revoke(const lj_journal *j, unsigned char *b, uint32_t tid,
		     const uint64_t *rev, size_t nrev)
{
	size_t rec = revoke_record_size(j), off = LJ_REVOKE_HDR_SIZE, i;

	memset(b, 0, j->blocksize);
	put_header(b, LJ_BT_REVOKE, tid);
	for (i = 0; i < nrev && off + rec <= j->blocksize - j->tail_bytes;
	     i++, off += rec) {
		if (rec == 8) {
			lj_put_be32(b + off, (uint32_t)(rev[i] >> 32));
			lj_put_be32(b + off + 4, (uint32_t)rev[i]);
		} else {
			lj_put_be32(b + off, (uint32_t)rev[i]);
		}
	}
	lj_put_be32(b + LJ_REVOKE_COUNT, (uint32_t)off);
	lj_enc_block_tail(j, b);
	return i;
}

void lj_enc_commit(const lj_journal *j, unsigned char *b, uint32_t tid,
		   uint64_t sec, uint32_t nsec, uint32_t crc32_sum)
{
	memset(b, 0, j->blocksize);
	put_header(b, LJ_BT_COMMIT, tid);
	lj_put_be32(b + LJ_COMMIT_SEC, (uint32_t)(sec >> 32));
	lj_put_be32(b + LJ_COMMIT_SEC + 4, (uint32_t)sec);
	lj_put_be32(b + LJ_COMMIT_NSEC, nsec);
	if (j->compat & LJ_FEATURE_COMPAT_CHECKSUM) {
		b[LJ_COMMIT_CSUM_TYPE] = LJ_CRC32_CHKSUM;
		b[LJ_COMMIT_CSUM_SIZE] = LJ_CRC32_CHKSUM_SIZE;
		lj_put_be32(b + LJ_COMMIT_CSUM, crc32_sum);
	} else if (lj_journal_csum_v23(j)) {
		lj_put_be32(b + LJ_COMMIT_CSUM,
			    lj_crc32c(j->csum_seed, b, j->blocksize));
	}
}
