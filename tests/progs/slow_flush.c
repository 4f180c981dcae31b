/*
 * tests/progs/slow_flush.c --- preloaded (LD_PRELOAD) into a daemon under
 * test: every fsync and fdatasync of the process takes LJ_SLOW_FLUSH_MS
 * milliseconds longer, as a disk's cache flushes take long, so that a
 * test sees what waits for a commit and what does not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void slow(void)
{
	const char *ms = getenv("LJ_SLOW_FLUSH_MS");
	long v = ms ? atol(ms) : 0;
	struct timespec ts = { v / 1000, (v % 1000) * 1000000L };

	if (v > 0)
		while (nanosleep(&ts, &ts))
			;
}

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	slow();
	return real(fd);
}

int fdatasync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");

	slow();
	return real(fd);
}
