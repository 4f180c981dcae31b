/*
 * workload.h --- what the files of bench/workload share (private to it):
 * the run's state and the entry points of each part.
 *
 *   workload.c         the command: options, the phase loop, the close
 *   workload_txn.c     transactions and checkpoints (-t, -c, -m)
 *   workload_tree.c    making and removing the trees (write phases)
 *   workload_walk.c    directory listing; the read phases (ls -lR, find, tar)
 *   workload_events.c  the device I/O of a phase and its -T trace lines
 *   workload_report.c  a phase's line on stdout and its -r record
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdio.h>

#include "lazy_journal.h"

#define MAX_DEPTH	64

enum phase { P_MAKEDIRS, P_CREATEFILES, P_REMOVEDIRS, P_REMOVEFILES,
	     P_LISTDIRS, P_FINDFILES, P_TARFILES, P_NPHASES };

/* kind of a read in the trace (writes carry an enum lj_io_kind) */
enum { RK_META, RK_JOURNAL, RK_DATA };

/* One device request of the running phase. */
struct ioev {
	unsigned char kind;
	unsigned char read;	/* blk, count: bytes for a read */
	blk64_t blk;
	blk64_t count;
};

struct wl_state {
	ext2_filsys fs;
	lj_writer *w;
	lj_lazy_state *st;
	int baseline;
	unsigned ops_per_txn, ckpt_txns;
	unsigned depth, fanout, files;
	unsigned long count;
	FILE *rec_f, *paths_f, *trace_f;
	const char *prog;
	/* the running phase */
	const char *phase;
	struct ioev *ev;
	size_t nev, capev;
	unsigned ops_in_txn, txns_since_ckpt;
	unsigned long ops, txns, ckpts;
	blk64_t jsb_pblk;
	/* data-mode self-check */
	int in_data, in_read_data;
	const blk64_t *data_want;
	unsigned data_nwant, data_seen, data_bad;
	errcode_t oom;
};
extern struct wl_state wl;

/* workload.c: com_err, then exit(1). */
void wl_die(errcode_t err, const char *what);

/* workload_txn.c */
void wl_checkpoint(void);
void wl_end_txn(void);		/* commit the running transaction, if any */
void wl_op_done(void);		/* one operation; commit after every OPS */

/* workload_tree.c: under the root, top */
void wl_make_tree(const char *top, int files);
void wl_remove_top(const char *top);

/* workload_walk.c */
struct wl_dent {		/* a directory entry (but . and ..) */
	ext2_ino_t ino;
	int isdir;
	char name[EXT2_NAME_LEN + 1];
};
struct wl_dlist {
	struct wl_dent *d;
	size_t n, cap;
	errcode_t err;		/* of the listing callback */
};
/* The entries of dir into l (empty at first; free l->d after). */
errcode_t wl_list_dir(ext2_ino_t dir, struct wl_dlist *l);
enum wl_walk { W_LIST, W_FIND, W_TAR };
void wl_walk_top(const char *top, enum wl_walk how);

/* workload_events.c */
void wl_record_write(void *arg, enum lj_io_kind kind, blk64_t blk,
		     blk64_t count);
void wl_record_read(void *arg, uint64_t off, uint64_t len);
/* One -T line for e; bs: the file system's block size. */
void wl_trace_event(const struct ioev *e, unsigned int bs);

/* workload_report.c */
struct wl_snap {
	struct lj_writer_stats ws;
	blk64_t reads_mapped, reads_home;
};
void wl_snap(struct wl_snap *s);
double wl_now_ms(void);
/* The phase's line on stdout (and its -T trace, -r record) from the
 * events and the counters between a and b. */
void wl_report(const struct wl_snap *a, const struct wl_snap *b, int sbflag,
	       double ms);

#endif
