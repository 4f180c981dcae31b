/*
 * workload.c --- small versions of the ext4-lazy paper's metadata
 * workloads, run on an image through the library's lazy writer.
 *
 *   workload [-m lazy|baseline] [-w LIST] [-n COUNT] [-t OPS] [-c TXNS]
 *            [-d DEPTH] [-f FANOUT] [-F FILES] [-r RECORD] [-T TRACE]
 *            [-l PATHS] IMAGE
 *
 * -w   comma list of phases, run in order on the same open file system:
 *      makedirs     COUNT directories in a tree of depth DEPTH (default 10)
 *                   under /makedirs; every directory has FANOUT children
 *      createfiles  COUNT 4 KiB files in a tree of depth DEPTH (default 20)
 *                   under /createfiles: directories on levels 1..DEPTH-1
 *                   (FANOUT each), FILES files in each directory of level
 *                   DEPTH-1
 *      removedirs   rm -r /makedirs, post-order, one operation per rmdir
 *      removefiles  rm -r /createfiles, one operation per unlink / rmdir
 *      listdirs     ls -lR /makedirs: every directory read, every entry's
 *                   inode read (tar of the empty directories reads the same)
 *      findfiles    find /createfiles: every directory read, no inode of a
 *                   file (the entry's file type says what it is)
 *      tarfiles     tar of /createfiles: every directory read, every
 *                   entry's inode and every file's data read
 *      Trees are made depth-first (the first path reaches full depth).
 *      The read phases write nothing (no transaction, no checkpoint); run
 *      them in a process of their own for a cold cache (a remount).
 * -t   operations per transaction: ext2fs_flush (= one commit) after every
 *      OPS operations (default 10).
 * -m   lazy: metadata is journaled only; the writer's cleaner runs by
 *      itself when the log is full.  baseline: the same journal, plus a
 *      checkpoint (every live block written home, log emptied) after every
 *      TXNS transactions (-c, default 6: jbd2 commits every 5 s, dirty
 *      metadata is written back after ~30 s) or when the log is more than
 *      half full, and at the end of each phase (unmount).
 * -r   write the device I/O record of every phase: one line per write,
 *      "PHASE KIND BLOCK COUNT" with KIND journal / meta_home / data.
 * -T   write the block trace of every phase for bench/smr/smr_model.py:
 *      "phase NAME", then one line per device request in issue order,
 *      "W KIND OFFSET LENGTH" (bytes; KIND journal, meta_home in baseline
 *      mode = checkpoint, cleaner in lazy mode = the cleaner sending a block
 *      home, data) or "R KIND OFFSET LENGTH" (KIND journal when the block
 *      is in the journal, data for file data of tarfiles, else meta).
 *      Reads are taken below the library by a read-recording io_manager
 *      (read_record_io.c), so they include every re-read libext2fs makes
 *      (the model's page cache drops those).
 * -l   write the paths of the directories and files made, one a line
 *      ("d PATH" or "f PATH"), for tests.
 *
 * Data blocks of files are written home under LJ_LAZY_DATA_HOME (the
 * ordered-mode data path); everything else goes through the lazy channel
 * and is journaled.  Only the primary superblock and descriptors are
 * written at a flush (EXT2_FLAG_MASTER_SB_ONLY), as the kernel does.
 *
 * One line per phase, key=value: operations, transactions, blocks written
 * to the journal (jsb: journal superblock updates, included), metadata
 * written home (blocks, distinct locations), data written home, metadata
 * blocks read (from the journal / from home), cleaner work, checkpoints,
 * needs_recovery set in the home superblock (one write, not counted in
 * meta_home; it happens once, when the first transaction goes into an
 * empty log), and the phase's wall time in ms.
 *
 * The parts (workload.h): this file (options, the phase loop, the close),
 * workload_txn.c, workload_tree.c, workload_walk.c, workload_events.c,
 * workload_report.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "workload.h"
#include "read_record_io.h"

static const char *phase_name[] = {
	"makedirs", "createfiles", "removedirs", "removefiles",
	"listdirs", "findfiles", "tarfiles"
};

struct wl_state wl;

void wl_die(errcode_t err, const char *what)
{
	com_err(wl.prog, err, "%s", what);
	exit(1);
}

static void run_phase(enum phase ph)
{
	struct wl_snap a, b;
	int nr_before = wl.st->needs_recovery, sbflag;
	int reading = ph >= P_LISTDIRS;
	double t0 = wl_now_ms();

	wl.phase = phase_name[ph];
	wl.nev = 0;
	wl.ops = wl.txns = wl.ckpts = 0;
	wl.ops_in_txn = wl.txns_since_ckpt = 0;
	wl_snap(&a);
	if (wl.trace_f)
		rr_set_reader(wl_record_read, NULL);
	switch (ph) {
	case P_MAKEDIRS:
		wl_make_tree("makedirs", 0);
		break;
	case P_CREATEFILES:
		wl_make_tree("createfiles", 1);
		break;
	case P_REMOVEDIRS:
		wl_remove_top("makedirs");
		break;
	case P_REMOVEFILES:
		wl_remove_top("createfiles");
		break;
	case P_LISTDIRS:
		wl_walk_top("makedirs", W_LIST);
		break;
	case P_FINDFILES:
		wl_walk_top("createfiles", W_FIND);
		break;
	case P_TARFILES:
		wl_walk_top("createfiles", W_TAR);
		break;
	default:
		break;
	}
	if (!reading) {
		wl_end_txn();
		if (wl.baseline)
			wl_checkpoint();	/* unmount: everything home */
	}
	rr_set_reader(NULL, NULL);
	wl_snap(&b);
	/* The writer sets needs_recovery at home before the first
	 * transaction of a log that had none. */
	sbflag = !nr_before && b.ws.txns != a.ws.txns;
	if (sbflag)
		wl.st->needs_recovery = 1;
	wl_report(&a, &b, sbflag, wl_now_ms() - t0);
}

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-m lazy|baseline] [-w makedirs,createfiles,"
		"removedirs,removefiles,listdirs,findfiles,tarfiles] "
		"[-n COUNT] [-t OPS_PER_TXN] "
		"[-c CKPT_TXNS] [-d DEPTH] [-f FANOUT] [-F FILES_PER_DIR] "
		"[-r RECORD] [-T TRACE] [-l PATHS] IMAGE\n", wl.prog);
	exit(1);
}

static unsigned long num(const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad number: %s\n", wl.prog, s);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	enum phase phases[16];
	int nph = 0, c, i, depth = 0;
	unsigned int bs;
	char *list = NULL, *tok, *save = NULL;
	const char *rec = NULL, *paths = NULL, *trace = NULL;
	errcode_t err;

	wl.prog = argv[0];
	wl.ops_per_txn = 10;
	wl.ckpt_txns = 6;
	wl.fanout = 4;
	wl.files = 32;
	wl.count = 1000;
	while ((c = getopt(argc, argv, "m:w:n:t:c:d:f:F:r:T:l:")) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "lazy"))
				wl.baseline = 0;
			else if (!strcmp(optarg, "baseline"))
				wl.baseline = 1;
			else
				usage();
			break;
		case 'w': list = optarg; break;
		case 'n': wl.count = num(optarg, 1, 100000000); break;
		case 't': wl.ops_per_txn = num(optarg, 1, 1000000); break;
		case 'c': wl.ckpt_txns = num(optarg, 1, 1000000); break;
		case 'd': depth = (int)num(optarg, 1, MAX_DEPTH); break;
		case 'f': wl.fanout = num(optarg, 1, 100000); break;
		case 'F': wl.files = num(optarg, 1, 100000); break;
		case 'r': rec = optarg; break;
		case 'T': trace = optarg; break;
		case 'l': paths = optarg; break;
		default: usage();
		}
	}
	if (optind + 1 != argc)
		usage();
	for (tok = strtok_r(list ? list : "makedirs", ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int k, found = 0;

		for (k = 0; k < P_NPHASES; k++)
			if (!strcmp(tok, phase_name[k])) {
				found = 1;
				break;
			}
		if (!found || nph == 16)
			usage();
		phases[nph++] = (enum phase)k;
	}
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (rec && !(wl.rec_f = fopen(rec, "w")))
		wl_die(errno, rec);
	if (paths && !(wl.paths_f = fopen(paths, "w")))
		wl_die(errno, paths);
	if (trace) {
		if (!(wl.trace_f = fopen(trace, "w")))
			wl_die(errno, trace);
		lj_io_set_base(rr_io_manager);	/* reads are recorded below */
	}

	err = lj_open_fs(argv[optind], EXT2_FLAG_RW, &wl.fs);
	if (err)
		wl_die(err, argv[optind]);
	wl.fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	wl.w = lj_lazy_writer(wl.fs->io);
	err = lj_lazy_get_state(wl.fs->io, &wl.st);
	if (!err && !wl.w)
		err = EXT2_ET_RO_FILSYS;
	if (!err)
		err = lj_lazy_set_record(wl.fs->io, wl_record_write, NULL);
	if (!err)
		err = ext2fs_read_bitmaps(wl.fs);
	if (err)
		wl_die(err, "while opening the lazy writer");
	wl.jsb_pblk = lj_journal_pblk(wl.st->journal, 0);

	for (i = 0; i < nph; i++) {
		wl.depth = depth ? (unsigned)depth :
			  phases[i] == P_CREATEFILES ? 20 : 10;
		run_phase(phases[i]);
	}
	/* The writes of the close (its commit) belong to the trace: the next
	 * run's log continues after them.  Reads are not recorded (the lazy
	 * state goes away during the close). */
	bs = wl.fs->blocksize;
	wl.nev = 0;
	if (!wl.trace_f)
		lj_lazy_set_record(wl.fs->io, NULL, NULL);
	err = ext2fs_close_free(&wl.fs);
	if (err)
		wl_die(err, "while closing");
	wl.st = NULL;
	for (i = 0; wl.trace_f && i < (int)wl.nev; i++)
		wl_trace_event(&wl.ev[i], bs);
	if (wl.oom)
		wl_die(wl.oom, "while recording");
	if (wl.rec_f && fclose(wl.rec_f))
		wl_die(errno, rec);
	if (wl.paths_f && fclose(wl.paths_f))
		wl_die(errno, paths);
	if (wl.trace_f && fclose(wl.trace_f))
		wl_die(errno, trace);
	return 0;
}
