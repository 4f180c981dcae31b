/*
 * roundtrip.c --- what one system call costs where another process
 * answers it: the floor under every request through a FUSE mount
 * (bench/roundtrip.sh puts it beside the kernel's ext4).
 *
 * Usage: roundtrip pipe N          N one-byte round trips between this
 *                                  process and a child, over two pipes
 *        roundtrip pipe-poll N     the same, the child polling its pipe
 *                                  without sleeping (as fuse2fs's loop
 *                                  polls /dev/fuse while requests come)
 *        roundtrip miss DIR N      lstat of N names DIR does not hold
 *                                  (each one LOOKUP through FUSE)
 *        roundtrip create DIR N    N new empty files in DIR (open with
 *                                  O_CREAT|O_EXCL, close)
 *        roundtrip stat DIR N      lstat of the N files create made
 * Prints the microseconds per call (wall clock over the N calls).  Any
 * call that fails ends the program (exit 1, naming it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "roundtrip: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The child's side: answer each byte from in on out; poll: without
 * sleeping in read (in is non-blocking). */
static void echo_child(int in, int out, int poll)
{
	char c;
	ssize_t r;

	if (poll && fcntl(in, F_SETFL, O_NONBLOCK) < 0)
		_exit(1);
	for (;;) {
		r = read(in, &c, 1);
		if (r == 1) {
			if (write(out, &c, 1) != 1)
				_exit(1);
		} else if (r == 0) {
			_exit(0);
		} else if (errno != EAGAIN && errno != EINTR) {
			_exit(1);
		}
	}
}

static double pipes(long n, int poll)
{
	int to[2], from[2];
	double t0, t;
	pid_t pid;
	char c = 'x';
	long i;

	if (pipe(to) < 0 || pipe(from) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		echo_child(to[0], from[1], poll);
	}
	close(to[0]);
	close(from[1]);
	t0 = now_us();
	for (i = 0; i < n; i++)
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			die("pipe round trip");
	t = now_us() - t0;
	close(to[1]);
	waitpid(pid, NULL, 0);
	return t;
}

static double names(const char *mode, const char *dir, long n)
{
	char path[4096];
	struct stat st;
	double t0;
	long i;
	int fd;

	t0 = now_us();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s_%07ld", dir,
			 strcmp(mode, "miss") ? "file" : "none", i);
		if (!strcmp(mode, "create")) {
			fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0 || close(fd) < 0)
				die(path);
		} else if (lstat(path, &st) == 0) {
			if (!strcmp(mode, "miss")) {
				errno = EEXIST;
				die(path);
			}
		} else if (!strcmp(mode, "stat") || errno != ENOENT) {
			die(path);
		}
	}
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	long n;
	double t;

	if (argc == 3 && (!strcmp(argv[1], "pipe") ||
			  !strcmp(argv[1], "pipe-poll"))) {
		n = atol(argv[2]);
		if (n <= 0)
			goto usage;
		t = pipes(n, !strcmp(argv[1], "pipe-poll"));
	} else if (argc == 4 && (!strcmp(argv[1], "miss") ||
				 !strcmp(argv[1], "create") ||
				 !strcmp(argv[1], "stat"))) {
		n = atol(argv[3]);
		if (n <= 0)
			goto usage;
		t = names(argv[1], argv[2], n);
	} else {
		goto usage;
	}
	printf("%.1f\n", t / n);
	return 0;
usage:
	fprintf(stderr, "usage: roundtrip pipe|pipe-poll N\n"
		"       roundtrip miss|create|stat DIR N\n");
	return 1;
}
