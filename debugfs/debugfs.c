/*
 * debugfs.c --- our debugfs: a libss shell with the stock syntax.
 *
 * The file system is opened on the lazy io channel, so the requests we
 * implement (jmap, jlookup, stats, stat, ls, cat, dump, block_dump) see the
 * current metadata through the journal.  With -w a lazy file system is
 * opened on that channel for writing, and the write requests of modify.c
 * journal their changes (one transaction per request).  Every other request is handed to
 * the stock debugfs, one request at a time.  On a file system without
 * lazy_journal the inspection requests go to stock debugfs too, so there
 * behaviour is exactly the stock tool's; only jmap and jlookup are ours.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ss/ss.h>
#include <et/com_err.h>

#include "debugfs.h"
#include "stock.h"

extern ss_request_table debug_cmds;

ext2_filsys current_fs;
const char *debug_prog_name = "debugfs";

static char *device_name;	/* of the open file system */
static int open_rw;		/* -w: forwarded requests may write */
static int open_catastrophic;	/* -c */
static int open_flags;		/* -n: EXT2_FLAG_IGNORE_CSUM_ERRORS */
static int open_failed;		/* the last open failed (already said why) */
static int exit_status;
static int sci_idx;

int check_fs_open(const char *cmd)
{
	if (current_fs)
		return 0;
	com_err(cmd, 0, "Filesystem not open");
	return 1;
}

void lj_debugfs_failed(void)
{
	exit_status = 1;
}

ext2_ino_t string_to_inode(const char *str)
{
	size_t len = strlen(str);
	ext2_ino_t ino;
	errcode_t err;

	if (len > 2 && str[0] == '<' && str[len - 1] == '>') {
		char *end;
		unsigned long n = strtoul(str + 1, &end, 0);

		if (*end == '>' && n <= current_fs->super->s_inodes_count)
			return (ext2_ino_t)n;
	}
	err = ext2fs_namei(current_fs, EXT2_ROOT_INO, EXT2_ROOT_INO, str, &ino);
	if (err) {
		com_err(str, err, 0);
		return 0;
	}
	if (ino > current_fs->super->s_inodes_count) {
		com_err(str, 0, "resolves to an illegal inode number: %u\n",
			ino);
		return 0;
	}
	return ino;
}

int strtoblk(const char *cmd, const char *str, blk64_t *ret)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(str, &end, 0);
	if (!*str || *end || errno) {
		com_err(cmd, 0, "Bad block number - %s", str);
		return 1;
	}
	*ret = n;
	return 0;
}

FILE *open_pager(void)
{
	const char *pager = getenv("DEBUGFS_PAGER");
	FILE *out;

	if (!pager)
		pager = getenv("PAGER");
	if (!isatty(1) || !pager || !*pager || !strcmp(pager, "__none__"))
		return stdout;
	out = popen(pager, "w");
	return out ? out : stdout;
}

void close_pager(FILE *out)
{
	if (out && out != stdout)
		pclose(out);
}

static void close_filesystem(void)
{
	errcode_t err;

	if (current_fs) {
		err = ext2fs_close_free(&current_fs);
		if (err)
			com_err("ext2fs_close", err, 0);
	}
	free(device_name);
	device_name = NULL;
}

/*
 * A lazy file system whose log cannot be read has no knowable current
 * metadata: refuse to show stale home copies unless asked (-c).  Without
 * lazy_journal the log is only pending recovery, and stock tools ignore it.
 */
static errcode_t check_journal(void)
{
	lj_lazy_state *st;

	if (lj_lazy_get_state(current_fs->io, &st))
		return 0;
	if (st->journal_err && st->lazy) {
		if (!open_catastrophic)
			return st->journal_err;
		com_err(debug_prog_name, st->journal_err, "while reading the "
			"journal of %s; showing home copies (catastrophic "
			"mode)", device_name);
	} else if (st->jmap->log->refused && st->jmap->log->salvaged) {
		fprintf(stderr, "%s: %s: WARNING: journal recovery would refuse "
			"this log; lazy file system: showing the transactions "
			"before the bad one\n", debug_prog_name, device_name);
	}
	return 0;
}

/*
 * -w on a lazy file system: open it again on the lazy channel opened for
 * writing, so that the write requests of modify.c journal their changes
 * (each request one transaction; home copies untouched).  The bitmaps are
 * loaded as stock debugfs loads them.  When that fails (e.g. a log that
 * ends on checksum trouble: run e2fsck first) the read-only open stays.
 */
static void reopen_lazy_rw(const char *device)
{
	ext2_filsys fs = NULL;
	errcode_t err;

	err = lj_open_fs(device, open_flags | EXT2_FLAG_RW, &fs);
	if (!err) {
		err = ext2fs_read_bitmaps(fs);
		if (err) {
			com_err(device, err, "while reading allocation bitmaps");
			ext2fs_close_free(&fs);
			return;
		}
	}
	if (err) {
		com_err(debug_prog_name, err, "while opening %s for writing; "
			"opened read-only", device);
		return;
	}
	/* Like the kernel: the primary superblock and descriptors only
	 * (set_super_value writes the backups too). */
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_close_free(&current_fs);
	current_fs = fs;
}

/* The log of the open file system could not be read (check_journal says
 * why; there is nothing to append to). */
static int lazy_journal_err(void)
{
	lj_lazy_state *st;

	return !lj_lazy_get_state(current_fs->io, &st) && st->journal_err;
}

static void open_filesystem(const char *device)
{
	errcode_t err;

	if (current_fs)
		close_filesystem();
	open_failed = 0;
	err = lj_open_fs(device, open_flags, &current_fs);
	if (!err && open_rw && !open_catastrophic && lj_debugfs_is_lazy() &&
	    !lazy_journal_err())
		reopen_lazy_rw(device);
	if (!err) {
		device_name = strdup(device);
		err = device_name ? check_journal() : EXT2_ET_NO_MEMORY;
		if (err)
			close_filesystem();
	}
	if (err) {
		com_err(debug_prog_name, err, "while trying to open %s", device);
		current_fs = NULL;
		open_failed = 1;
	}
}

int lj_debugfs_open_failed(void)
{
	return open_failed;
}

void do_open_filesys(int argc, char **argv, int sci, void *infop)
{
	int c;

	(void)sci; (void)infop;
	optind = 0;	/* glibc: restart getopt for the request's argv */
	open_rw = 0;
	open_catastrophic = 0;
	while ((c = getopt(argc, argv, "wc")) != EOF) {
		if (c == 'w')
			open_rw = 1;
		else if (c == 'c')
			open_catastrophic = 1;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
	open_filesystem(argv[optind]);
	return;
usage:
	fprintf(stderr, "%s: Usage: open [-w] [-c] <device>\n", argv[0]);
}

void do_close_filesys(int argc, char **argv, int sci, void *infop)
{
	(void)sci; (void)infop;
	if (argc > 1) {
		fprintf(stderr, "%s: Usage: close_filesys\n", argv[0]);
		return;
	}
	if (check_fs_open(argv[0]))
		return;
	close_filesystem();
}

/* Is the open file system lazy with metadata newer in the journal? */
static size_t lazy_mapped(void)
{
	lj_lazy_state *st;

	if (!current_fs || lj_lazy_get_state(current_fs->io, &st) || !st->lazy)
		return 0;
	return st->jmap->n ? st->jmap->n : 0;
}

int lj_debugfs_is_lazy(void)
{
	lj_lazy_state *st;

	return current_fs && !lj_lazy_get_state(current_fs->io, &st) &&
	       st->lazy;
}

/* Join ss's argv back into one request line, quoting as ss parses it. */
static char *join_request(int argc, char **argv)
{
	size_t len = 1;
	char *line, *p;
	int i;

	for (i = 0; i < argc; i++)
		len += 2 * strlen(argv[i]) + 3;
	line = malloc(len);
	if (!line)
		return NULL;
	p = line;
	for (i = 0; i < argc; i++) {
		const char *s = argv[i];
		int quote = !*s || strpbrk(s, " \t\"") != NULL;

		if (i)
			*p++ = ' ';
		if (quote)
			*p++ = '"';
		for (; *s; s++) {
			if (*s == '"')
				*p++ = '"';	/* ss doubles quotes inside */
			*p++ = *s;
		}
		if (quote)
			*p++ = '"';
	}
	*p = '\0';
	return line;
}

/*
 * Run the stock debugfs on one request.  Its version banner on stderr is
 * dropped (we printed ours); everything else passes through.
 */
static int run_stock_request(const char *line)
{
	char *argv[8];
	int argc = 0, fds[2], status;
	pid_t pid;
	FILE *err;
	char buf[4096];
	int first = 1;

	argv[argc++] = (char *)"debugfs";
	if (open_rw && !lazy_mapped())
		argv[argc++] = (char *)"-w";
	if (open_catastrophic)
		argv[argc++] = (char *)"-c";
	argv[argc++] = (char *)"-R";
	argv[argc++] = (char *)line;
	if (device_name)
		argv[argc++] = device_name;
	argv[argc] = NULL;

	if (pipe(fds) < 0)
		return lj_stock_run("debugfs", argv);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return lj_stock_run("debugfs", argv);
	}
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		close(fds[1]);
		_exit(lj_stock_exec("debugfs", argv));
	}
	close(fds[1]);
	err = fdopen(fds[0], "r");
	while (err && fgets(buf, sizeof(buf), err)) {
		if (first && !strncmp(buf, "debugfs ", 8) && strchr(buf, '('))
			continue;
		first = 0;
		fputs(buf, stderr);
	}
	if (err)
		fclose(err);
	else
		close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 8;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 8;
}

static void forward_request(int argc, char **argv, int note)
{
	size_t mapped = lazy_mapped();
	char *line;
	char *dev;

	line = join_request(argc, argv);
	if (!line) {
		com_err(argv[0], EXT2_ET_NO_MEMORY, "while running request");
		return;
	}
	if (mapped && note)
		fprintf(stderr, "%s: %s runs in stock debugfs, which sees home "
			"copies (%zu metadata blocks are newer in the journal)%s\n",
			debug_prog_name, argv[0], mapped,
			open_rw ? "; opened read-only" : "");
	if (run_stock_request(line))
		exit_status = 1;
	free(line);
	/* A request that wrote may have changed what we have cached. */
	if (open_rw && device_name && !mapped) {
		dev = strdup(device_name);
		if (dev) {
			open_filesystem(dev);
			free(dev);
		}
	}
}

void do_forward(int argc, char **argv, int sci, void *infop)
{
	(void)sci; (void)infop;
	forward_request(argc, argv, 1);
}

void lj_debugfs_forward_quiet(int argc, char **argv)
{
	forward_request(argc, argv, 0);
}

int lj_debugfs_has_option(int argc, char **argv, char opt)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (strchr(argv[i] + 1, opt))
			return 1;
	}
	return 0;
}

/* On a non-lazy file system our inspection requests are the stock ones. */
int lj_debugfs_forward_if_not_lazy(int argc, char **argv)
{
	if (!current_fs || lj_debugfs_is_lazy())
		return 0;
	do_forward(argc, argv, 0, NULL);
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-b blocksize] [-s superblock] [-f cmd_file] "
		"[-R request] [-d data_source_device] [-i] [-n] [-D] [-V] ["
		"[-w] [-z undo_file] [-c] device]\n", debug_prog_name);
	exit(1);
}

static int execute_line(char *line)
{
	int ret = ss_execute_line(sci_idx, line);

	if (ret == SS_ET_COMMAND_NOT_FOUND) {
		char *cmd = strtok(line, " \t");

		com_err(debug_prog_name, 0, "Command not found %s",
			cmd ? cmd : line);
		exit_status = 1;
	} else if (ret) {
		ss_perror(sci_idx, ret, line);
		exit_status = 1;
	}
	return ret;
}

static void run_cmd_file(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char buf[BUFSIZ];

	if (!f) {
		perror(file);
		exit(1);
	}
	/* As stock debugfs: unbuffered, so that the echoed requests, their
	 * output and their errors interleave in order. */
	fflush(stdout);
	fflush(stderr);
	setbuf(stdout, NULL);
	setbuf(stderr, NULL);
	while (fgets(buf, sizeof(buf), f)) {
		char *cp = strchr(buf, '\n');

		if (cp)
			*cp = '\0';
		cp = strchr(buf, '\r');
		if (cp)
			*cp = '\0';
		if (buf[0] == '#')
			continue;	/* stock neither echoes nor runs these */
		printf("debugfs: %s\n", buf);
		if (buf[0])
			execute_line(buf);
	}
	if (f != stdin)
		fclose(f);
}

int main(int argc, char **argv)
{
	const char *request = NULL, *cmd_file = NULL;
	const char *lib_ver, *lib_date;
	int err, c;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);

	/* Options we do not implement natively: the stock tool does it all. */
	while ((c = getopt(argc, argv, "iwcR:f:b:s:Vd:Dnz:")) != EOF) {
		switch (c) {
		case 'w': open_rw = 1; break;
		case 'c': open_catastrophic = 1; break;
		case 'R': request = optarg; break;
		case 'f': cmd_file = optarg; break;
		case 'n': open_flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS; break;
		case 'i': case 'b': case 's': case 'V': case 'd': case 'D':
		case 'z':
			return lj_stock_exec("debugfs", argv);
		default:
			usage();
		}
	}
	if (optind < argc - 1)
		usage();

	ext2fs_get_library_version(&lib_ver, &lib_date);
	fprintf(stderr, "%s %s (%s)\n", debug_prog_name, lib_ver, lib_date);

	if (optind < argc)
		open_filesystem(argv[optind]);

	sci_idx = ss_create_invocation(debug_prog_name, "0.0", NULL,
				       &debug_cmds, &err);
	if (err) {
		ss_perror(sci_idx, err, "creating invocation");
		exit(1);
	}
	ss_get_readline(sci_idx);
	ss_add_request_table(sci_idx, &ss_std_requests, 1, &err);
	if (err) {
		ss_perror(sci_idx, err, "adding standard requests");
		exit(1);
	}

	if (request) {
		char *line = strdup(request);

		if (line) {
			execute_line(line);
			free(line);
		}
	} else if (cmd_file) {
		run_cmd_file(cmd_file);
	} else {
		ss_listen(sci_idx);
	}
	ss_delete_invocation(sci_idx);
	close_filesystem();
	remove_error_table(&et_ljrn_error_table);
	remove_error_table(&et_ext2_error_table);
	return exit_status;
}
