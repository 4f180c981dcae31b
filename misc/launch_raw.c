/*
 * launch_raw.c --- launch.h on raw x86_64 Linux system calls, no C
 * library: the process starts at _start and execs (launch.h says why).
 * Built with -ffreestanding -nostdlib -static (Makefile.in, configure).
 */
#include <stddef.h>

#include "launch.h"

#define SYS_write	1
#define SYS_close	3
#define SYS_pread64	17
#define SYS_execve	59
#define SYS_exit_group	231
#define SYS_openat	257
#define SYS_newfstatat	262
#define SYS_readlinkat	267
#define SYS_faccessat	269
#define AT_FDCWD_	(-100)

static long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c)
			  : "rcx", "r11", "memory");
	return r;
}

static long sys4(long n, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;

	__asm__ volatile ("syscall" : "=a"(r)
			  : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			  : "rcx", "r11", "memory");
	return r;
}

long lj_sys_open(const char *path, int flags)
{
	return sys4(SYS_openat, AT_FDCWD_, (long)path, flags, 0);
}

long lj_sys_close(int fd)
{
	return sys3(SYS_close, fd, 0, 0);
}

long lj_sys_pread(int fd, void *buf, size_t n, long long off)
{
	return sys4(SYS_pread64, fd, (long)buf, (long)n, (long)off);
}

long lj_sys_write(int fd, const void *buf, size_t n)
{
	return sys3(SYS_write, fd, (long)buf, (long)n);
}

long lj_sys_readlink(const char *path, char *buf, size_t n)
{
	return sys4(SYS_readlinkat, AT_FDCWD_, (long)path, (long)buf, (long)n);
}

long lj_sys_access(const char *path, int mode)
{
	return sys4(SYS_faccessat, AT_FDCWD_, (long)path, mode, 0);
}

/* struct stat of x86_64 Linux: st_dev, then st_ino; 144 bytes. */
long lj_sys_devino(const char *path, unsigned long long *dev,
		   unsigned long long *ino)
{
	unsigned long long st[18];
	long r = sys4(SYS_newfstatat, AT_FDCWD_, (long)path, (long)st, 0);

	if (r == 0) {
		*dev = st[0];
		*ino = st[1];
	}
	return r;
}

long lj_sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return sys3(SYS_execve, (long)path, (long)argv, (long)envp);
}

/* The compiler may call these for copies and fills of its own. */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *a = d;
	const unsigned char *b = s;

	while (n--)
		*a++ = *b++;
	return d;
}

void *memset(void *d, int c, size_t n)
{
	unsigned char *a = d;

	while (n--)
		*a++ = (unsigned char)c;
	return d;
}

void lj_launch_start(long *sp);

/* The kernel's initial stack: argc, argv[], NULL, envp[], NULL, auxv. */
__attribute__((used, noreturn)) void lj_launch_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;

	sys3(SYS_exit_group, lj_launch_main(argc, argv, envp), 0, 0);
	for (;;)
		;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call lj_launch_start\n"
	"	hlt\n");
