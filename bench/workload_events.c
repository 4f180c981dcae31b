/*
 * workload_events.c --- the device I/O of the running phase, as events:
 * writes from the lazy channel's record hook (with the data-mode
 * self-check: data goes home only in data mode, and only to the file's own
 * blocks), reads from the read-recording io_manager (read_record_io.c);
 * and the -T trace line of an event.
 */
#include <stdio.h>

#include "workload.h"
#include "lj_private.h"

static void add_event(unsigned char kind, unsigned char rd, blk64_t blk,
		      blk64_t count)
{
	if (lj_array_grow(&wl.ev, &wl.capev, wl.nev + 1, sizeof(*wl.ev))) {
		wl.oom = EXT2_ET_NO_MEMORY;
		return;
	}
	wl.ev[wl.nev].kind = kind;
	wl.ev[wl.nev].read = rd;
	wl.ev[wl.nev].blk = blk;
	wl.ev[wl.nev].count = count;
	wl.nev++;
}

/* A device read (read_record_io): what it read, by where it is. */
void wl_record_read(void *arg, uint64_t off, uint64_t len)
{
	const lj_journal *j = wl.st ? wl.st->journal : NULL;
	blk64_t blk = off / (wl.fs ? wl.fs->blocksize : 1024);
	unsigned char kind = wl.in_read_data ? RK_DATA : RK_META;
	size_t k;

	(void)arg;
	for (k = 0; j && k < j->n_ext; k++)
		if (blk >= j->ext[k].pblk && blk < j->ext[k].pblk + j->ext[k].len)
			kind = RK_JOURNAL;
	add_event(kind, 1, off, len);
}

/* A device write (lj_lazy_set_record). */
void wl_record_write(void *arg, enum lj_io_kind kind, blk64_t blk,
		     blk64_t count)
{
	(void)arg;
	if (wl.in_data) {
		unsigned k, ok = 0;

		for (k = 0; k < wl.data_nwant && kind == LJ_IO_DATA; k++)
			ok |= blk >= wl.data_want[k] &&
			      blk + count <= wl.data_want[k] + 1;
		if (ok)
			wl.data_seen += (unsigned)count;
		else
			wl.data_bad++;
	} else if (kind == LJ_IO_DATA) {
		wl.data_bad++;		/* data written outside data mode */
	}
	add_event((unsigned char)kind, 0, blk, count);
}

void wl_trace_event(const struct ioev *e, unsigned int bs)
{
	if (e->read)
		fprintf(wl.trace_f, "R %s %llu %llu\n",
			e->kind == RK_JOURNAL ? "journal" :
			e->kind == RK_DATA ? "data" : "meta",
			(unsigned long long)e->blk, (unsigned long long)e->count);
	else
		fprintf(wl.trace_f, "W %s %llu %llu\n",
			e->kind == LJ_IO_JOURNAL ? "journal" :
			e->kind == LJ_IO_DATA ? "data" :
			wl.baseline ? "meta_home" : "cleaner",
			(unsigned long long)(e->blk * bs),
			(unsigned long long)(e->count * bs));
}
