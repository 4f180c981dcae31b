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

#endif
