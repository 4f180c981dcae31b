/*
 * launch_libc.c --- launch.h on the C library, where launch_raw.c does
 * not apply (configure: not x86_64 Linux, or no freestanding static link).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch.h"

static long ret(long r)
{
	return r < 0 ? -errno : r;
}

long lj_sys_open(const char *path, int flags)
{
	return ret(open(path, flags));
}

long lj_sys_close(int fd)
{
	return ret(close(fd));
}

long lj_sys_pread(int fd, void *buf, size_t n, long long off)
{
	return ret(pread(fd, buf, n, (off_t)off));
}

long lj_sys_write(int fd, const void *buf, size_t n)
{
	return ret(write(fd, buf, n));
}

long lj_sys_readlink(const char *path, char *buf, size_t n)
{
	return ret(readlink(path, buf, n));
}

long lj_sys_access(const char *path, int mode)
{
	return ret(access(path, mode));
}

long lj_sys_devino(const char *path, unsigned long long *dev,
		   unsigned long long *ino)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

long lj_sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return ret(execve(path, argv, envp));
}

int main(int argc, char **argv)
{
	extern char **environ;

	return lj_launch_main(argc, argv, environ);
}
