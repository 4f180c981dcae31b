/*
 * jbd2_format.h --- on-disk layout of the jbd2 journal, as documented in the
 * kernel's Documentation/filesystems/ext4/journal.rst.
 *
 * Everything in the journal is big-endian.  We never overlay structs on
 * journal buffers; fields are read with lj_be32()/lj_be16() at the offsets
 * below, which keeps us independent of structure padding.
 */
#ifndef LJ_JBD2_FORMAT_H
#define LJ_JBD2_FORMAT_H

#include <stdint.h>

#define LJ_JBD2_MAGIC		0xC03B3998U

/* Block header (12 bytes) at the start of every journal metadata block. */
#define LJ_HDR_MAGIC		0
#define LJ_HDR_BLOCKTYPE	4
#define LJ_HDR_SEQUENCE		8
#define LJ_HDR_SIZE		12

/* h_blocktype values */
#define LJ_BT_DESCRIPTOR	1
#define LJ_BT_COMMIT		2
#define LJ_BT_SUPERBLOCK_V1	3
#define LJ_BT_SUPERBLOCK_V2	4
#define LJ_BT_REVOKE		5
#define LJ_BT_FC		6	/* fast-commit area only */

/* Journal superblock field offsets. */
#define LJ_JSB_BLOCKSIZE	0x0C
#define LJ_JSB_MAXLEN		0x10
#define LJ_JSB_FIRST		0x14
#define LJ_JSB_SEQUENCE		0x18
#define LJ_JSB_START		0x1C
#define LJ_JSB_ERRNO		0x20
#define LJ_JSB_FEATURE_COMPAT	0x24
#define LJ_JSB_FEATURE_INCOMPAT	0x28
#define LJ_JSB_FEATURE_RO_COMPAT 0x2C
#define LJ_JSB_UUID		0x30	/* 16 bytes */
#define LJ_JSB_NR_USERS		0x40
#define LJ_JSB_CHECKSUM_TYPE	0x50	/* one byte */
#define LJ_JSB_NUM_FC_BLKS	0x54
#define LJ_JSB_CHECKSUM		0xFC
#define LJ_JSB_SIZE		1024	/* bytes covered by the sb checksum */

/* Feature bits */
#define LJ_FEATURE_COMPAT_CHECKSUM	0x00000001U	/* v1 commit crc32_be */
#define LJ_FEATURE_INCOMPAT_REVOKE	0x00000001U
#define LJ_FEATURE_INCOMPAT_64BIT	0x00000002U
#define LJ_FEATURE_INCOMPAT_ASYNC_COMMIT 0x00000004U
#define LJ_FEATURE_INCOMPAT_CSUM_V2	0x00000008U
#define LJ_FEATURE_INCOMPAT_CSUM_V3	0x00000010U
#define LJ_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020U
#define LJ_FEATURE_INCOMPAT_KNOWN	0x0000003FU

#define LJ_CSUM_TYPE_CRC32C	4	/* s_checksum_type for v2/v3 */
#define LJ_DEFAULT_FC_BLOCKS	256	/* when s_num_fc_blks is 0 */

/*
 * Block tags in a descriptor block.  Layout of one tag:
 *   csum v3:    be32 blocknr, be32 flags, be32 blocknr_high, be32 checksum
 *   otherwise:  be32 blocknr, be16 checksum, be16 flags,
 *               be32 blocknr_high (64bit only)
 * In both layouts the low 16 bits of the flags sit at byte offset 6
 * (big-endian), which is where jbd2 reads them.  csum v2 lengthens the
 * short tag by 2 bytes (a historical quirk of the format).  A tag without
 * SAME_UUID is followed by a 16-byte UUID.
 */
#define LJ_TAG_BLOCKNR		0
#define LJ_TAG_CSUM16		4
#define LJ_TAG_FLAGS16		6
#define LJ_TAG3_BLOCKNR_HIGH	8
#define LJ_TAG3_CSUM32		12
#define LJ_TAG_BLOCKNR_HIGH	8
#define LJ_TAG_UUID_SIZE	16

#define LJ_FLAG_ESCAPE		0x1
#define LJ_FLAG_SAME_UUID	0x2
#define LJ_FLAG_DELETED		0x4
#define LJ_FLAG_LAST_TAG	0x8

/* Descriptor and revoke blocks of csum v2/v3 journals end in this tail. */
#define LJ_BLOCK_TAIL_SIZE	4

/* Revoke block: header, be32 r_count (bytes used, header included). */
#define LJ_REVOKE_COUNT		12
#define LJ_REVOKE_HDR_SIZE	16

/* Commit block */
#define LJ_COMMIT_CSUM_TYPE	12	/* one byte */
#define LJ_COMMIT_CSUM_SIZE	13	/* one byte */
#define LJ_COMMIT_CSUM		16	/* be32 h_chksum[0] */
#define LJ_COMMIT_SEC		0x30	/* be64 */
#define LJ_COMMIT_NSEC		0x38	/* be32 */
#define LJ_CRC32_CHKSUM		1	/* v1 commit checksum type */
#define LJ_CRC32_CHKSUM_SIZE	4

static inline uint32_t lj_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint16_t lj_be16(const unsigned char *p)
{
	return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}

static inline uint64_t lj_be64(const unsigned char *p)
{
	return ((uint64_t)lj_be32(p) << 32) | lj_be32(p + 4);
}

static inline void lj_put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Transaction ids wrap: compare as jbd2 does. */
static inline int lj_tid_gt(uint32_t x, uint32_t y)
{
	return (int32_t)(x - y) > 0;
}

static inline int lj_tid_geq(uint32_t x, uint32_t y)
{
	return (int32_t)(x - y) >= 0;
}

#endif
