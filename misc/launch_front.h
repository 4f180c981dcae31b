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

/* The value of name in envp, or NULL. */
const char *lf_getenv(char **envp, const char *name);
/* Our -V line on stderr, as fe_print_version prints it. */
void lf_print_version(void);
/* Exec the stock prog with argv and envp; returns 8 (said why) if not. */
int lf_exec_stock(const char *prog, char **argv, char **envp);
/* The same under the view object in mode (LD_PRELOAD, LJ_VIEW). */
int lf_exec_view(const char *prog, char **argv, char **envp,
		 const char *mode);
/* 1 if device's primary superblock carries lazy_journal, else 0. */
int lf_device_lazy(const char *device);

#endif
