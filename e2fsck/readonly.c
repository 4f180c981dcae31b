/*
 * readonly.c --- e2fsck -n on a lazy file system.
 *
 * The stock e2fsck would check the stale home copies.  Instead we copy the
 * current metadata (read through the jmap) into a sparse overlay file in a
 * temporary directory (lj_overlay_build), run the stock e2fsck with the
 * user's options on the overlay, and relay its output with the overlay's
 * name replaced by the device's.  The device is only ever opened
 * read-only (lj_open_fs refuses anything else).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <et/com_err.h>

#include "lazy_journal.h"
#include "stock.h"
#include "readonly.h"

#define FSCK_UNCORRECTED 4
#define FSCK_ERROR	8
#define MiB		(1024ULL * 1024ULL)
#define RELAY_BUF	8192

static const char prog[] = "e2fsck";

/* What a signal handler must remove (async-signal-safe: plain arrays). */
static char tmp_dir[PATH_MAX - 16];
static char overlay_path[PATH_MAX];

static void remove_overlay(void)
{
	if (overlay_path[0])
		unlink(overlay_path);
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

static void on_signal(int sig)
{
	remove_overlay();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int cleanup_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
#define NSIGNALS (sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))

static void catch_signals(struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSIGNALS; i++)
		sigaction(cleanup_signals[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < NSIGNALS; i++)
		sigaction(cleanup_signals[i], &old[i], NULL);
}

/* ------------------------------------------------------------------ */
/* Reporting the journal                                                */

/* The same words as the writing modes use (e2fsck.c). */
static void report_log(const char *device, const lj_lazy_state *st)
{
	const lj_log *log = st->jmap->log;
	char why[200];

	if (st->journal_err) {
		com_err(prog, st->journal_err, "while reading the journal of "
			"%s; checking the home copies", device);
		return;
	}
	if (lj_log_clean_end(log))
		return;
	lj_log_describe_end(log, why, sizeof(why));
	printf("%s: journal: %s\n", device, why);
	if (log->refused)
		printf("%s: WARNING: stock journal recovery would refuse the "
		       "whole log; this lazy file system keeps the %zu "
		       "transactions before the bad one and leaves the rest "
		       "to the full check\n", device, log->ntxn);
	if (st->jmap->bad_csums)
		printf("%s: journal: %lu logged block(s) skipped for a bad "
		       "checksum (first: %s)\n", device, st->jmap->bad_csums,
		       st->jmap->bad_csum_msg);
}

/* ------------------------------------------------------------------ */
/* The overlay                                                          */

static const char *tmp_base(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* Is there room for blocks of bs bytes in base?  Says so when not. */
static int check_room(const char *base, blk64_t blocks, unsigned int bs)
{
	unsigned long long need = (unsigned long long)blocks * bs, have;
	struct statvfs sv;

	if (statvfs(base, &sv) < 0) {
		com_err(prog, errno, "while checking the room for the metadata "
			"overlay in %s (set TMPDIR)", base);
		return 0;
	}
	have = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (need <= have)
		return 1;
	fprintf(stderr, "%s: not enough room for the metadata overlay in %s: "
		"need %llu MiB, have %llu MiB (set TMPDIR)\n", prog, base,
		(need + MiB - 1) / MiB, have / MiB);
	return 0;
}

/* Make the temporary directory and the overlay in it; 0 or exit status. */
static int make_overlay(ext2_filsys fs, const char *device)
{
	const char *base = tmp_base();
	blk64_t estimate, written;
	errcode_t err;

	err = lj_overlay_estimate(fs, &estimate);
	if (err) {
		com_err(prog, err, "while reading the metadata of %s", device);
		return FSCK_ERROR;
	}
	if (!check_room(base, estimate, fs->blocksize))
		return FSCK_ERROR;
	if (snprintf(tmp_dir, sizeof(tmp_dir), "%s/e2fsck-lazy.XXXXXX",
		     base) >= (int)sizeof(tmp_dir) || !mkdtemp(tmp_dir)) {
		com_err(prog, errno ? errno : ENAMETOOLONG, "while making a "
			"temporary directory in %s (set TMPDIR)", base);
		tmp_dir[0] = '\0';
		return FSCK_ERROR;
	}
	snprintf(overlay_path, sizeof(overlay_path), "%s/overlay", tmp_dir);
	err = lj_overlay_build(fs, overlay_path, &written);
	if (err) {
		com_err(prog, err, "while building the metadata overlay of %s "
			"in %s", device, tmp_dir);
		overlay_path[0] = '\0';	/* lj_overlay_build removed it */
		return FSCK_ERROR;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Running the stock e2fsck and relaying its output                     */

struct relay {
	int in;			/* read end of the child's stdout/stderr */
	int out;		/* our fd 1 or 2 */
	const char *from, *to;	/* overlay path -> device name */
	size_t from_len, to_len;
	size_t len;		/* bytes pending in buf */
	char buf[RELAY_BUF + PATH_MAX];
};

static void write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;		/* nowhere to report it */
		p += n;
		len -= (size_t)n;
	}
}

/* Longest suffix of p[0..len) that is a proper prefix of r->from. */
static size_t partial_match(const struct relay *r, const char *p, size_t len)
{
	size_t k = len < r->from_len - 1 ? len : r->from_len - 1;

	for (; k > 0; k--)
		if (memcmp(p + len - k, r->from, k) == 0)
			break;
	return k;
}

/*
 * Write out what is pending with every occurrence of the overlay path
 * replaced.  Unless at_eof, a tail that may be the start of the path is
 * kept for the next read; everything else goes out at once, so progress
 * output (-C 0, no newlines) is not held back.
 */
static void relay_flush(struct relay *r, int at_eof)
{
	char *p = r->buf, *end = r->buf + r->len, *m;
	size_t keep;

	while ((m = memmem(p, (size_t)(end - p), r->from, r->from_len))) {
		write_all(r->out, p, (size_t)(m - p));
		write_all(r->out, r->to, r->to_len);
		p = m + r->from_len;
	}
	keep = at_eof ? 0 : partial_match(r, p, (size_t)(end - p));
	write_all(r->out, p, (size_t)(end - p) - keep);
	memmove(r->buf, end - keep, keep);
	r->len = keep;
}

/* Read once from r->in; 0 at end of file. */
static int relay_read(struct relay *r)
{
	ssize_t n;

	do
		n = read(r->in, r->buf + r->len, RELAY_BUF);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		relay_flush(r, 1);
		return 0;
	}
	r->len += (size_t)n;
	relay_flush(r, 0);
	return 1;
}

static void relay_until_eof(struct relay *r, size_t n)
{
	struct pollfd pfd[2];
	size_t i, open = n;

	for (i = 0; i < n; i++) {
		pfd[i].fd = r[i].in;
		pfd[i].events = POLLIN;
	}
	while (open) {
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (!relay_read(&r[i])) {
				pfd[i].fd = -1;
				open--;
			}
		}
	}
}

static void relay_init(struct relay *r, int in, int out, const char *from,
		       const char *to)
{
	r->in = in;
	r->out = out;
	r->from = from;
	r->to = to;
	r->from_len = strlen(from);
	r->to_len = strlen(to);
	r->len = 0;
}

/* Run stock e2fsck with argv; its output relayed with from -> to. */
static int run_stock(char **argv, const char *from, const char *to)
{
	static struct relay r[2];	/* large buffers: not on the stack */
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, status;
	pid_t pid;

	if (pipe(out) < 0 || pipe(err) < 0) {
		com_err(prog, errno, "while making pipes for %s",
			lj_stock_path("e2fsck"));
		return FSCK_ERROR;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		com_err(prog, errno, "while starting %s",
			lj_stock_path("e2fsck"));
		return FSCK_ERROR;
	}
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		close(out[0]); close(out[1]);
		close(err[0]); close(err[1]);
		_exit(lj_stock_exec("e2fsck", argv));
	}
	close(out[1]);
	close(err[1]);
	relay_init(&r[0], out[0], STDOUT_FILENO, from, to);
	relay_init(&r[1], err[0], STDERR_FILENO, from, to);
	relay_until_eof(r, 2);
	close(out[0]);
	close(err[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return FSCK_ERROR;
	return WIFEXITED(status) ? WEXITSTATUS(status) : FSCK_ERROR;
}

/* The user's argv with the device argument (the last one) replaced. */
static char **stock_argv(int argc, char **argv, const char *device,
			 const char *overlay)
{
	char **v;
	int i, dev = -1;

	for (i = argc - 1; i > 0 && dev < 0; i--)
		if (strcmp(argv[i], device) == 0)
			dev = i;
	if (dev < 0)
		return NULL;
	v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < argc; i++)
		v[i] = argv[i];
	v[dev] = (char *)overlay;
	return v;
}

static void warn_if_mounted(const char *device)
{
	int flags = 0;

	/* stock e2fsck -n goes on after this warning */
	if (!ext2fs_check_if_mounted(device, &flags) &&
	    (flags & EXT2_MF_MOUNTED))
		printf("Warning!  %s is mounted.\n", device);
}

int lj_fsck_readonly(const char *device, int argc, char **argv)
{
	struct sigaction old[NSIGNALS];
	lj_lazy_state *st;
	ext2_filsys fs;
	char **v = NULL;
	errcode_t err;
	int status, unreadable;

	err = lj_open_fs(device, 0, &fs);
	if (err) {
		com_err(prog, err, "while trying to open %s", device);
		return FSCK_ERROR;
	}
	err = lj_lazy_get_state(fs->io, &st);
	if (err) {
		com_err(prog, err, "while trying to open %s", device);
		ext2fs_close_free(&fs);
		return FSCK_ERROR;
	}
	warn_if_mounted(device);
	report_log(device, st);
	/* A lazy file system whose log cannot be read has metadata nobody
	 * can check: an error left uncorrected, whatever the home copies. */
	unreadable = st->lazy && (st->journal_err ||
				  st->jmap->log->refused);
	if (st->lazy && !ext2fs_has_feature_journal(fs->super)) {
		printf("%s: lazy_journal is set but the file system has no "
		       "journal.  Clear lazy_journal? no\n\n", device);
		unreadable = 1;
	}
	catch_signals(old);
	status = make_overlay(fs, device);
	ext2fs_close_free(&fs);
	if (!status) {
		v = stock_argv(argc, argv, device, overlay_path);
		if (!v) {
			com_err(prog, EXT2_ET_NO_MEMORY, "while preparing the "
				"arguments of %s", lj_stock_path("e2fsck"));
			status = FSCK_ERROR;
		}
	}
	if (!status)
		status = run_stock(v, overlay_path, device);
	if (unreadable)
		status |= FSCK_UNCORRECTED;
	free(v);
	remove_overlay();
	restore_signals(old);
	overlay_path[0] = tmp_dir[0] = '\0';
	return status;
}
