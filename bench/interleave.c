/*
 * interleave.c --- time commands in rounds, each round in a rotated
 * order, so that a change of the machine's load meets them alike.
 *
 * Usage: interleave N CMD1 [ARG...] -- CMD2 [ARG...] [-- CMD3 ...]
 *   Leading NAME=VALUE words of a command go into its environment.
 *   Each command runs N times, stdin, stdout and stderr on /dev/null.
 *   Prints one line per command: "wall_ms cpu_ms" (medians: wall clock
 *   from fork to wait, and the user+system time of the command and its
 *   children).  A run that exits other than 0 fails the program (exit
 *   1, naming the command): a failing tool is never timed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCMD 8

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void child(char **cmd)
{
	int fd = open("/dev/null", O_RDWR);

	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	for (; *cmd && **cmd != '/' && strchr(*cmd, '='); cmd++)
		putenv(*cmd);
	execv(cmd[0], cmd);
	_exit(127);
}

int main(int argc, char **argv)
{
	char **cmds[MAXCMD];
	int n = argc > 2 ? atoi(argv[1]) : 0, nc = 0, i, r, k;
	double *wall, *cpu;

	if (n < 1) {
		fprintf(stderr, "usage: interleave N CMD [ARG...] [-- CMD ...]\n");
		return 2;
	}
	cmds[nc++] = argv + 2;
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--") && nc < MAXCMD) {
			argv[i] = NULL;
			cmds[nc++] = argv + i + 1;
		}
	wall = calloc((size_t)n * nc, sizeof(*wall));
	cpu = calloc((size_t)n * nc, sizeof(*cpu));
	if (!wall || !cpu)
		return 2;
	for (r = 0; r < n; r++)
		for (k = 0; k < nc; k++) {
			int j = (r + k) % nc, st;
			struct rusage ru;
			double t0 = now_ms();
			pid_t p = fork();

			if (p < 0)
				return 2;
			if (!p)
				child(cmds[j]);
			if (wait4(p, &st, 0, &ru) < 0)
				return 2;
			wall[j * n + r] = now_ms() - t0;
			cpu[j * n + r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
					 1e3 + (ru.ru_utime.tv_usec +
						ru.ru_stime.tv_usec) / 1e3;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				fprintf(stderr, "interleave: '%s' failed "
					"(status %d)\n", cmds[j][0], st);
				return 1;
			}
		}
	for (k = 0; k < nc; k++) {
		qsort(wall + k * n, n, sizeof(*wall), cmp);
		qsort(cpu + k * n, n, sizeof(*cpu), cmp);
		printf("%.3f %.3f\n", wall[k * n + n / 2], cpu[k * n + n / 2]);
	}
	return 0;
}
