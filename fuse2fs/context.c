/*
 * fuse2fs/context.c --- the server's state, one struct that every file
 * of the server reads (server.h, struct fs_server): the open file
 * system, the lazy channel, the mount's options.  server.c fills it
 * before the session starts; it is defined here, below every file that
 * uses it, so that no request file calls up into the session.
 */
#include "server.h"

/* entry and attribute timeouts: a day (this server alone changes the
 * file system, and tells the kernel when an answer it holds changes) */
struct fs_server fs_srv = { .timeout = 86400.0, .commit_secs = 5 };
