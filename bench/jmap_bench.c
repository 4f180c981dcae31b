/*
 * jmap_bench.c --- measure building the jmap of an image's journal.
 *
 *   jmap_bench IMAGE
 *
 * Prints one line: live entries, transactions, log blocks, build time
 * (journal load + scan + map), bytes read from the device during the build
 * (rchar of /proc/self/io), peak RSS, and bytes the map holds per entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "lazy_journal.h"

static unsigned long long rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	unsigned long long v = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %llu", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	ext2_filsys fs;
	io_channel io;
	lj_journal *j;
	lj_log *log;
	lj_jmap *m;
	struct lj_jmap_stats st;
	struct rusage ru;
	unsigned long long r0;
	double t0, t1;
	errcode_t err;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s IMAGE\n", argv[0]);
		return 1;
	}
	add_error_table(&et_ljrn_error_table);
	err = ext2fs_open2(argv[1], NULL, EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &fs);
	if (!err)
		err = unix_io_manager->open(argv[1], 0, &io);
	if (err) {
		com_err(argv[0], err, "while opening %s", argv[1]);
		return 1;
	}
	r0 = rchar();
	t0 = now();
	err = lj_journal_open(fs, io, &j);
	if (!err)
		err = lj_log_scan(j, 0, &log);
	if (!err)
		err = lj_jmap_build(log, 0, &m);
	t1 = now();
	if (err) {
		com_err(argv[0], err, "while building the jmap of %s", argv[1]);
		return 1;
	}
	lj_jmap_stats(m, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("entries %zu txns %zu log_blocks %u build_ms %.1f "
	       "read_mib %.2f peak_rss_mib %.1f bytes_per_entry %.1f\n",
	       st.live, st.txns, st.log_blocks, (t1 - t0) * 1e3,
	       (rchar() - r0) / 1048576.0, ru.ru_maxrss / 1024.0,
	       st.live ? (double)st.bytes / st.live : 0.0);
	lj_jmap_free(m);
	lj_journal_close(j);
	io_channel_close(io);
	ext2fs_close_free(&fs);
	return 0;
}
