/*
 * view_requests.h --- our debugfs requests inside stock debugfs
 * (lib/view/jmap_cmds.c, built into the view object).
 */
#ifndef LJ_VIEW_REQUESTS_H
#define LJ_VIEW_REQUESTS_H

typedef void (*lj_ss_fn)(int argc, const char *const *argv, int sci,
			 void *info);

void lj_do_jmap(int argc, const char *const *argv, int sci, void *info);
void lj_do_jlookup(int argc, const char *const *argv, int sci, void *info);
/* block_dump -H: stock's block_dump with every read from home. */
void lj_do_block_dump_home(int argc, const char *const *argv, int sci,
			   void *info);
/* Run stock's handler of argv[0] (as a request of the session). */
void lj_run_stock(int argc, const char *const *argv, int sci, void *info);
/* Does the request's option list (before the first operand) hold -opt? */
int lj_has_option(int argc, const char *const *argv, char opt);

#endif
