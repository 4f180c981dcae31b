/*
 * lj_viewread.c --- a minimal libext2fs client for testing the view.
 *
 * It opens a device through unix_io_manager, as every stock e2fsprogs
 * tool does, so under LD_PRELOAD=lj_view.so it gets whatever the view
 * gives.  Built without sanitizers (it hosts the uninstrumented view).
 *
 *   lj_viewread read DEVICE OUT   every fs block as the channel shows it
 *                                 into OUT (all-zero blocks left holes)
 *   lj_viewread write DEVICE      write block 0 back: prints the result
 *   lj_viewread env               the view's variables here and in a child
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>
#include <et/com_err.h>

static int usage(void)
{
	fprintf(stderr, "usage: lj_viewread read DEVICE OUT | write DEVICE | env\n");
	return 2;
}

static io_channel open_dev(const char *dev, int flags, unsigned int *bs,
			   blk64_t *blocks)
{
	struct ext2_super_block sb;
	io_channel io;
	errcode_t err;

	err = unix_io_manager->open(dev, flags, &io);
	if (!err)
		err = io_channel_set_blksize(io, SUPERBLOCK_OFFSET);
	if (!err)
		err = io_channel_read_blk64(io, 1, -(int)sizeof(sb), &sb);
	if (err) {
		com_err("lj_viewread", err, "while opening %s", dev);
		exit(1);
	}
	*bs = EXT2_MIN_BLOCK_SIZE << sb.s_log_block_size;
	*blocks = sb.s_blocks_count |
		  ((sb.s_feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) ?
		   (blk64_t)sb.s_blocks_count_hi << 32 : 0);
	io_channel_set_blksize(io, (int)*bs);
	return io;
}

static int do_read(const char *dev, const char *out)
{
	unsigned int bs;
	blk64_t blocks, b;
	io_channel io = open_dev(dev, 0, &bs, &blocks);
	unsigned char *buf = malloc(bs), *zero = calloc(1, bs);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	errcode_t err;

	if (!buf || !zero || fd < 0) {
		perror(out);
		return 1;
	}
	for (b = 0; b < blocks; b++) {
		err = io_channel_read_blk64(io, b, 1, buf);
		if (err) {
			com_err("lj_viewread", err, "while reading block %llu",
				(unsigned long long)b);
			return 1;
		}
		if (memcmp(buf, zero, bs) &&
		    pwrite(fd, buf, bs, (off_t)(b * bs)) != (ssize_t)bs) {
			perror(out);
			return 1;
		}
	}
	if (ftruncate(fd, (off_t)(blocks * bs)) || close(fd)) {
		perror(out);
		return 1;
	}
	io_channel_close(io);
	printf("read %llu blocks of %u bytes\n", (unsigned long long)blocks, bs);
	return 0;
}

static int do_write(const char *dev)
{
	unsigned int bs;
	blk64_t blocks;
	io_channel io = open_dev(dev, IO_FLAG_RW, &bs, &blocks);
	unsigned char *buf = malloc(bs);
	errcode_t err;

	if (!buf)
		return 1;
	err = io_channel_read_blk64(io, 0, 1, buf);
	if (!err)
		err = io_channel_write_blk64(io, 0, 1, buf);
	if (!err)
		err = io_channel_flush(io);
	io_channel_close(io);
	printf("write: %s\n", err ? error_message(err) : "done");
	return err ? 1 : 0;
}

static int do_env(void)
{
	const char *v = getenv("LJ_VIEW"), *p = getenv("LD_PRELOAD");

	printf("here: LJ_VIEW %s, LD_PRELOAD %s\n", v ? v : "unset",
	       p && strstr(p, "lj_view") ? "has the view" : "without the view");
	fflush(stdout);
	return system("echo \"child: LJ_VIEW ${LJ_VIEW:-unset}, LD_PRELOAD "
		      "$(case \"$LD_PRELOAD\" in *lj_view*) echo has the view;; "
		      "*) echo without the view;; esac)\"") ? 1 : 0;
}

int main(int argc, char **argv)
{
	add_error_table(&et_ext2_error_table);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return do_read(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "write"))
		return do_write(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "env"))
		return do_env();
	return usage();
}
