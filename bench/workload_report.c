/*
 * workload_report.c --- the end of a phase of bench/workload: its line on
 * stdout (key=value), its -T trace and its -r record, from the events the
 * phase recorded and the writer's and channel's counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"
#include "lj_private.h"

/* How many different blocks v holds (sorts v). */
static blk64_t distinct(blk64_t *v, size_t n)
{
	blk64_t d = 0;
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), lj_cmp_u64);
	for (i = 0; i < n; i++)
		if (!i || v[i] != v[i - 1])
			d++;
	return d;
}

void wl_snap(struct wl_snap *s)
{
	s->ws = *lj_writer_stats(wl.w);
	s->reads_mapped = wl.st->reads_mapped;
	s->reads_home = wl.st->reads_home;
}

double wl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void wl_report(const struct wl_snap *a, const struct wl_snap *b, int sbflag,
		   double ms)
{
	blk64_t jblocks = 0, jsb = 0, meta = 0, data = 0, dd;
	blk64_t *homes = NULL;
	size_t i, nd = 0, caphomes = 0;

	if (wl.oom)
		wl_die(wl.oom, "while recording");
	if (wl.data_bad)
		wl_die(EXT2_ET_SHORT_WRITE, "a write in data mode was not the "
		    "file's data block, or data went home outside data mode");
	if (wl.trace_f)
		fprintf(wl.trace_f, "phase %s\n", wl.phase);
	for (i = 0; i < wl.nev; i++) {
		const struct ioev *e = &wl.ev[i];
		blk64_t k;

		if (wl.trace_f)
			wl_trace_event(e, wl.fs->blocksize);
		if (e->read)
			continue;
		switch (e->kind) {
		case LJ_IO_JOURNAL:
			jblocks += e->count;
			jsb += e->blk == wl.jsb_pblk;
			break;
		case LJ_IO_META_HOME:
			meta += e->count;
			if (lj_array_grow(&homes, &caphomes, nd + e->count,
					  sizeof(*homes)))
				wl_die(EXT2_ET_NO_MEMORY, "");
			for (k = 0; k < e->count; k++)
				homes[nd++] = e->blk + k;
			break;
		default:
			data += e->count;
		}
		if (wl.rec_f)
			fprintf(wl.rec_f, "%s %s %llu %llu\n", wl.phase,
				e->kind == LJ_IO_JOURNAL ? "journal" :
				e->kind == LJ_IO_META_HOME ? "meta_home" :
				"data", (unsigned long long)e->blk,
				(unsigned long long)e->count);
	}
	dd = distinct(homes, nd);
	ext2fs_free_mem(&homes);
	printf("phase=%s mode=%s ops=%lu txns=%lu commits=%llu journal=%llu "
	       "jsb=%llu meta_home=%llu meta_home_distinct=%llu data=%llu "
	       "reads_journal=%llu reads_home=%llu relogged=%llu "
	       "cleaner_home=%llu checkpoints=%lu sb_flag=%d ms=%.0f\n",
	       wl.phase, wl.baseline ? "baseline" : "lazy", wl.ops, wl.txns,
	       (unsigned long long)(b->ws.txns - a->ws.txns),
	       (unsigned long long)jblocks, (unsigned long long)jsb,
	       (unsigned long long)meta, (unsigned long long)dd,
	       (unsigned long long)data,
	       (unsigned long long)(b->reads_mapped - a->reads_mapped),
	       (unsigned long long)(b->reads_home - a->reads_home),
	       (unsigned long long)(b->ws.relogged - a->ws.relogged),
	       (unsigned long long)(wl.baseline ? 0 :
				    b->ws.sent_home - a->ws.sent_home),
	       wl.ckpts, sbflag, ms);
	fflush(stdout);
}

