/*
 * journal_size.c --- doc/contract.md §6 sizing of a lazy journal (making it:
 * journal_create.c).
 */

#include "lazy_journal.h"

#define LJ_JOURNAL_MAX_BLOCKS	10240000ULL	/* stock -J size= limit */

blk64_t lj_lazy_journal_blocks(blk64_t nblocks)
{
	int d = ext2fs_default_journal_size(nblocks);
	blk64_t l, cap;

	if (d < 0)
		return 0;
	l = 4ULL * (blk64_t)d;
	if (nblocks / 1024 > l)
		l = nblocks / 1024;
	cap = nblocks / 16;
	if (cap > LJ_JOURNAL_MAX_BLOCKS)
		cap = LJ_JOURNAL_MAX_BLOCKS;
	if (l > cap)
		l = cap;
	if (l < (blk64_t)d)
		l = (blk64_t)d;
	return l;
}

unsigned long lj_blocks_to_mib(blk64_t blocks, unsigned int blocksize)
{
	unsigned long long bytes = (unsigned long long)blocks * blocksize;

	return (unsigned long)((bytes + (1ULL << 20) - 1) >> 20);
}

blk64_t lj_mib_to_blocks(unsigned long mib, unsigned int blocksize)
{
	return ((blk64_t)mib << 20) / blocksize;
}

const char lj_msg_too_small[] =
	"file system too small for a journal; lazy_journal needs one";

const char *lj_lazy_fs_refusal(ext2_filsys fs, int fast_commit_kept)
{
	struct ext2_super_block *sb = fs->super;

	if (ext2fs_has_feature_journal_dev(sb) ||
	    (ext2fs_has_feature_journal(sb) && !sb->s_journal_inum) ||
	    (ext2fs_has_feature_journal(sb) && sb->s_journal_dev))
		return "lazy_journal needs an internal journal; "
		       "this file system has an external one";
	if (ext2fs_has_feature_fast_commit(sb) && fast_commit_kept)
		return "lazy_journal cannot be combined with fast_commit";
	if (lj_lazy_journal_blocks(ext2fs_blocks_count(sb)) == 0)
		return lj_msg_too_small;
	return NULL;
}
