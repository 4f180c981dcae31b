/*
 * lj_apply.c --- test helper: write every live jmap entry to its home block.
 *
 * Usage: lj_apply IMAGE
 *
 * Opens IMAGE read-only through the lazy journal view, and for every entry
 * of the jmap (in ascending home-block order) reads the live copy through
 * the lazy channel (which serves it from the journal, escape restored) and
 * writes it to its home location through a separate O_RDWR descriptor.
 *
 * It deliberately does NOT reset the journal or touch needs_recovery: the
 * test suite compares the result with a stock e2fsck replay on every block
 * outside the journal, with the superblock's bookkeeping fields masked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>
#include "lazy_journal.h"

static const char *prog = "lj_apply";

int main(int argc, char **argv)
{
	ext2_filsys fs = NULL;
	lj_lazy_state *st = NULL;
	errcode_t err;
	unsigned char *buf;
	unsigned int bs;
	size_t i, n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s IMAGE\n", prog);
		return 16;
	}
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);

	err = lj_open_fs(argv[1], EXT2_FLAG_64BITS, &fs);
	if (err) {
		com_err(prog, err, "while opening %s", argv[1]);
		return 8;
	}
	err = lj_lazy_get_state(fs->io, &st);
	if (err) {
		com_err(prog, err, "while getting the lazy journal state");
		ext2fs_close_free(&fs);
		return 8;
	}
	bs = fs->blocksize;
	buf = malloc(bs);
	if (!buf) {
		com_err(prog, ENOMEM, "while allocating a block buffer");
		ext2fs_close_free(&fs);
		return 8;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		com_err(prog, errno, "while opening %s for writing", argv[1]);
		free(buf);
		ext2fs_close_free(&fs);
		return 8;
	}

	n = st->jmap ? st->jmap->n : 0;
	for (i = 0; i < n; i++) {
		blk64_t home = st->jmap->e[i].home;
		ssize_t w;

		/* A home inside the journal: the log is read from there,
		 * and stock replay's result is defined outside it only. */
		if (st->journal && lj_journal_lblk(st->journal, home, NULL))
			continue;

		err = io_channel_read_blk64(fs->io, home, 1, buf);
		if (err) {
			com_err(prog, err, "while reading block %llu",
				(unsigned long long)home);
			goto fail;
		}
		w = pwrite(fd, buf, bs, (off_t)home * bs);
		if (w != (ssize_t)bs) {
			com_err(prog, w < 0 ? errno : EIO,
				"while writing block %llu",
				(unsigned long long)home);
			goto fail;
		}
	}
	if (fsync(fd) < 0) {
		com_err(prog, errno, "while syncing %s", argv[1]);
		goto fail;
	}
	close(fd);
	free(buf);
	ext2fs_close_free(&fs);
	printf("%s: %zu blocks written home\n", prog, n);
	return 0;

fail:
	close(fd);
	free(buf);
	ext2fs_close_free(&fs);
	return 8;
}
