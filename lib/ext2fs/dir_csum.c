/*
 * dir_csum.c --- the checksum of a directory leaf block (metadata_csum).
 *
 * A leaf ends in a 12-byte record that no name uses (inode 0, rec_len 12,
 * name_len 0, file type 0xde) and holds the checksum: crc32c, seeded with
 * the file system's checksum seed, of the directory's inode number and
 * generation (32 bits each, little-endian) and of the block up to that
 * record (kernel Documentation/filesystems/ext4/directory.rst).  The
 * index blocks of an htree (root and nodes) carry a different tail, and a
 * block without room for one carries none: both are left to libext2fs.
 *
 * libext2fs's ext2fs_dir_block_csum_set computes the same with its
 * table-driven crc32c and reads the inode again for the generation; the
 * mount sets a leaf's checksum for every name it adds or removes: with
 * libext2fs's, checksums were a quarter of its CPU time making
 * directories (perf, 5,000 mkdir).  lj_crc32c uses the CPU's instruction.
 */
#include <ext2fs/ext2fs.h>

#include "lazy_journal.h"
#include "lj_private.h"

unsigned int lj_dir_leaf_tail(ext2_filsys fs, const void *block)
{
	const unsigned char *b = block;
	const struct ext2_dir_entry_tail *t;
	unsigned int tail, off = 0, rec;

	if (!ext2fs_has_feature_metadata_csum(fs->super) ||
	    fs->blocksize < 2 * sizeof(*t))
		return 0;
	tail = fs->blocksize - sizeof(*t);
	while (off < tail) {	/* the records must end where the tail starts */
		if (ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)(b + off),
				       &rec) || rec < 8 || rec % 4)
			return 0;
		off += rec;
	}
	t = (const void *)(b + tail);
	if (off != tail || t->det_reserved_zero1 ||
	    ext2fs_le16_to_cpu(t->det_rec_len) != sizeof(*t) ||
	    ext2fs_le16_to_cpu(t->det_reserved_name_len) !=
	    EXT2_DIR_NAME_LEN_CSUM)
		return 0;
	return tail;
}

errcode_t lj_dir_leaf_csum_set(ext2_filsys fs, ext2_ino_t dir,
			       __u32 generation, void *block)
{
	struct ext2_dir_entry_tail *t;
	unsigned int tail;
	__u32 le_dir = ext2fs_cpu_to_le32(dir);
	__u32 le_gen = ext2fs_cpu_to_le32(generation);
	__u32 crc;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 0;
	tail = lj_dir_leaf_tail(fs, block);
	if (!tail)
		return EXT2_ET_DIR_NO_SPACE_FOR_CSUM;
	crc = lj_crc32c(fs->csum_seed, &le_dir, sizeof(le_dir));
	crc = lj_crc32c(crc, &le_gen, sizeof(le_gen));
	crc = lj_crc32c(crc, block, tail);
	t = (void *)((unsigned char *)block + tail);
	t->det_checksum = ext2fs_cpu_to_le32(crc);
	return 0;
}
