/*
 * launch.h --- the few system calls a launcher front-end needs.
 *
 * A launcher (debugfs/debugfs.c) decides from its command line and the
 * device's superblock which stock binary to exec, and how.  Every C
 * library start costs: glibc's, static or dynamic, asks the CPU for its
 * features and cache sizes (cpuid), which on a virtual machine traps to
 * the hypervisor each time, about 0.3 ms of a 1.5 ms debugfs run on the
 * development VM (doc/benchmarks.md).  So on x86_64 Linux a launcher is
 * built without any C library (launch_raw.c: _start and raw system
 * calls); elsewhere the same source runs on the C library
 * (launch_libc.c).  Either way the launcher's code sees only these calls
 * and lj_launch_main.
 */
#ifndef LJ_LAUNCH_H
#define LJ_LAUNCH_H

#include <stddef.h>

/* The launcher's entry: argv and envp NULL-terminated; returns the exit
 * status when it does not exec. */
int lj_launch_main(int argc, char **argv, char **envp);

/* System calls: the result, or -errno (never sets errno). */
long lj_sys_open(const char *path, int flags);
long lj_sys_close(int fd);
long lj_sys_pread(int fd, void *buf, size_t n, long long off);
long lj_sys_write(int fd, const void *buf, size_t n);
long lj_sys_readlink(const char *path, char *buf, size_t n);
long lj_sys_access(const char *path, int mode);
/* st_dev and st_ino of path (stat: links followed). */
long lj_sys_devino(const char *path, unsigned long long *dev,
		   unsigned long long *ino);
long lj_sys_execve(const char *path, char *const argv[], char *const envp[]);

/* What the launcher needs of string.h (no builtins without a libc). */
size_t lj_strlen(const char *s);
int lj_strcmp(const char *a, const char *b);
int lj_strncmp(const char *a, const char *b, size_t n);

#endif
