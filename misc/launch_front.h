/*
 * launch_front.h --- the launcher's steps (misc/launch.c), for a
 * front-end built on launch.h (debugfs/debugfs.c).
 */
#ifndef LJ_LAUNCH_FRONT_H
#define LJ_LAUNCH_FRONT_H

#include "launch.h"

#define LF_E2IMAGE_MAGIC	2133571344U	/* EXT2_ET_MAGIC_E2IMAGE */
#define LF_COMPAT_LAZY_JOURNAL	0x2000U

static inline unsigned int lf_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (unsigned int)p[3] << 24;
}

/*
 * Walk argv as glibc's getopt(optstring) reads it, without changing it:
 * clusters, attached and detached values, "--", operands anywhere (all
 * after the first with POSIXLY_CORRECT in envp).  fn gets every option
 * letter with its value (NULL for a flag), '?' for a letter not in
 * optstring, and 0 with each operand.  -1 (after the options before it)
 * when the last option lacks its value, as getopt fails; else 0.
 */
typedef void (*lf_opt_fn)(int opt, const char *val, void *arg);
int lf_getopt_walk(int argc, char **argv, char **envp, const char *optstring,
		   lf_opt_fn fn, void *arg);
/* Case-blind string compare of n bytes (ASCII). */
int lf_strncasecmp(const char *a, const char *b, size_t n);
/* The value of name in envp, or NULL. */
const char *lf_getenv(char **envp, const char *name);
/* Our -V line on stderr, as fe_print_version prints it. */
void lf_print_version(void);
/* Exec the stock prog with argv and envp; returns 8 (said why) if not. */
int lf_exec_stock(const char *prog, char **argv, char **envp);
/* The same under the view object in mode (LD_PRELOAD, LJ_VIEW). */
int lf_exec_view(const char *prog, char **argv, char **envp,
		 const char *mode);
/*
 * Exec our helper program name -- the rest of a front-end that needs the
 * C library -- with argv and envp: from the build tree when this program
 * runs from it, else next to the view object (lf_exec_view's: the
 * directory of $LJ_VIEW_SO, or where it is installed).  Returns 8 (said
 * why) if not.
 */
int lf_exec_helper(const char *prog, const char *name, char **argv,
		   char **envp);
/* The helper's path in path[] (size bytes), as lf_exec_helper finds it. */
void lf_helper_path(char **envp, const char *name, char *path, size_t size);
/* 1 if device's primary superblock carries lazy_journal, else 0. */
int lf_device_lazy(const char *device);

#endif
