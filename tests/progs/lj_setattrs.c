/*
 * lj_setattrs.c --- the calls of the quota workload (tests/kernel/k_quota)
 * that busybox has no applet for.  The same binary runs in the kernel test
 * guest (busybox, no C library: built static) and on the host on our
 * mount, so both sides make the very same calls.
 *
 * Usage:
 *   lj_setattrs xattr PATH NAME SIZE
 *       set the extended attribute NAME of PATH (not following a symbolic
 *       link) to SIZE bytes of 'v'
 *   lj_setattrs rmxattr PATH NAME
 *       remove the extended attribute NAME of PATH
 *   lj_setattrs rename OLD NEW
 *       rename(2) (NEW may be an empty directory, replaced)
 *   lj_setattrs open-unlinked PATH UID GID SIZE
 *       create PATH (0644), fchown the open file to UID:GID, write SIZE
 *       bytes of 'z', unlink it, fsync, close
 *   lj_setattrs punch PATH OFFSET LENGTH
 *       punch a hole (the size kept)
 *   lj_setattrs projinherit DIR
 *       add the project-inherit flag (FS_IOC_SETFLAGS)
 *   lj_setattrs exchange PATH1 PATH2
 *       swap the two names (renameat2 RENAME_EXCHANGE)
 *   lj_setattrs projid PATH...
 *       print "PATH PROJID" (FS_IOC_FSGETXATTR) for each PATH
 * Exit 0; 1 when a call fails (said on stderr), 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "lj_setattrs: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

/* a decimal number, or -1 */
static long long num(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	return v;
}

static int set_xattr(const char *path, const char *name, long long size)
{
	char *v = malloc(size ? (size_t)size : 1);
	int rc;

	if (!v)
		return fail("malloc for", path);
	memset(v, 'v', (size_t)size);
	rc = lsetxattr(path, name, v, (size_t)size, 0);
	free(v);
	return rc ? fail("lsetxattr", path) : 0;
}

static int rm_xattr(const char *path, const char *name)
{
	return lremovexattr(path, name) ? fail("lremovexattr", path) : 0;
}

static int open_unlinked(const char *path, long long uid, long long gid,
			 long long size)
{
	char buf[4096];
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);

	if (fd < 0)
		return fail("open", path);
	if (fchown(fd, (uid_t)uid, (gid_t)gid))
		return fail("fchown", path);
	memset(buf, 'z', sizeof(buf));
	while (size > 0) {
		size_t n = size < (long long)sizeof(buf) ? (size_t)size :
							  sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w <= 0)
			return fail("write", path);
		size -= w;
	}
	if (unlink(path))
		return fail("unlink", path);
	if (fsync(fd))
		return fail("fsync", path);
	return close(fd) ? fail("close", path) : 0;
}

static int punch(const char *path, long long off, long long len)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return fail("open", path);
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)off, (off_t)len))
		return fail("fallocate (punch hole)", path);
	return close(fd) ? fail("close", path) : 0;
}

static int projinherit(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY), flags;

	if (fd < 0)
		return fail("open", path);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return fail("FS_IOC_GETFLAGS", path);
	flags |= FS_PROJINHERIT_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		return fail("FS_IOC_SETFLAGS", path);
	return close(fd) ? fail("close", path) : 0;
}

static int do_rename(const char *a, const char *b)
{
	return rename(a, b) ? fail("rename", a) : 0;
}

static int exchange(const char *a, const char *b)
{
	if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE))
		return fail("renameat2 (exchange)", a);
	return 0;
}

static int projid(const char *path)
{
	struct fsxattr x;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return fail("open", path);
	if (ioctl(fd, FS_IOC_FSGETXATTR, &x))
		return fail("FS_IOC_FSGETXATTR", path);
	printf("%s %u\n", path, x.fsx_projid);
	return close(fd) ? fail("close", path) : 0;
}

static int usage(void)
{
	fprintf(stderr,
		"Usage: lj_setattrs xattr PATH NAME SIZE\n"
		"       lj_setattrs rmxattr PATH NAME\n"
		"       lj_setattrs rename OLD NEW\n"
		"       lj_setattrs open-unlinked PATH UID GID SIZE\n"
		"       lj_setattrs punch PATH OFFSET LENGTH\n"
		"       lj_setattrs projinherit DIR\n"
		"       lj_setattrs exchange PATH1 PATH2\n"
		"       lj_setattrs projid PATH...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	long long a, b, c;
	int i, bad = 0;

	if (!strcmp(cmd, "xattr") && argc == 5) {
		if ((a = num(argv[4])) < 0)
			return usage();
		bad = set_xattr(argv[2], argv[3], a);
	} else if (!strcmp(cmd, "rmxattr") && argc == 4) {
		bad = rm_xattr(argv[2], argv[3]);
	} else if (!strcmp(cmd, "rename") && argc == 4) {
		bad = do_rename(argv[2], argv[3]);
	} else if (!strcmp(cmd, "open-unlinked") && argc == 6) {
		a = num(argv[3]);
		b = num(argv[4]);
		c = num(argv[5]);
		if (a < 0 || b < 0 || c < 0)
			return usage();
		bad = open_unlinked(argv[2], a, b, c);
	} else if (!strcmp(cmd, "punch") && argc == 5) {
		a = num(argv[3]);
		b = num(argv[4]);
		if (a < 0 || b <= 0)
			return usage();
		bad = punch(argv[2], a, b);
	} else if (!strcmp(cmd, "projinherit") && argc == 3) {
		bad = projinherit(argv[2]);
	} else if (!strcmp(cmd, "exchange") && argc == 4) {
		bad = exchange(argv[2], argv[3]);
	} else if (!strcmp(cmd, "projid") && argc > 2) {
		for (i = 2; i < argc; i++)
			bad |= projid(argv[i]);
	} else {
		return usage();
	}
	return fflush(stdout) ? 1 : bad;
}
