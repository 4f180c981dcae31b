/*
 * log_policy.c --- is the log of a lazy file system readable completely?
 *
 * doc/contract.md §5 (salvage): when the journal cannot be
 * read (garbage journal superblock, unusable journal inode, a log whose
 * replay would overwrite itself) or stock recovery would refuse the log
 * (we keep the transactions before the bad one), writing is never
 * silent.  The tools ask here, and say why in the words given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lazy_journal.h"

int lj_log_incomplete(const lj_lazy_state *st, char *why, size_t len)
{
	const lj_log *log = st->jmap ? st->jmap->log : NULL;
	char end[200];

	if (st->journal_err) {
		snprintf(why, len, "the journal cannot be read: %s",
			 error_message(st->journal_err));
		return 1;
	}
	if (log && log->refused) {
		lj_log_describe_end(log, end, sizeof(end));
		snprintf(why, len, "stock recovery would refuse the log (%s); "
			 "only the %zu transactions before it are readable",
			 end, log->ntxn);
		return 1;
	}
	if (len)
		why[0] = '\0';
	return 0;
}

errcode_t lj_journal_save(const lj_lazy_state *st, ext2_filsys fs,
			  const char *path)
{
	ext2_ino_t ino = fs->super->s_journal_inum ? fs->super->s_journal_inum :
			 EXT2_JOURNAL_INO;
	unsigned char *buf;
	struct ext2_inode inode;
	blk64_t lblk, nblocks, pblk;
	errcode_t err;
	FILE *f;

	(void)st;
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		goto out_free;
	nblocks = EXT2_I_SIZE(&inode) / fs->blocksize;
	f = fopen(path, "wx");
	if (!f) {
		err = errno;
		goto out_free;
	}
	for (lblk = 0; lblk < nblocks && !err; lblk++) {
		pblk = 0;
		err = ext2fs_bmap2(fs, ino, &inode, NULL, 0, lblk, NULL, &pblk);
		if (!err && pblk && pblk < ext2fs_blocks_count(fs->super))
			err = io_channel_read_blk64(fs->io, pblk, 1, buf);
		else if (!err)
			memset(buf, 0, fs->blocksize);	/* a hole */
		if (!err && fwrite(buf, fs->blocksize, 1, f) != 1)
			err = errno ? errno : EIO;
	}
	if (fflush(f) || fsync(fileno(f)))
		err = err ? err : errno;
	if (fclose(f) && !err)
		err = errno;
	if (err)
		unlink(path);
out_free:
	ext2fs_free_mem(&buf);
	return err;
}
