/*
 * fuse2fs/args.c --- the command line of fuse2fs as stock and libfuse read
 * it: "fuse2fs DEVICE MOUNTPOINT [-o opt[,opt...]] [-f] [-d] [-s] ...".
 * The one pass over the -o lists: ours (commit=N, seconds between
 * commits as ext4's; nojournal, plain ext4 written in place as stock
 * fuse2fs writes it; nolatency_qos, no PM QoS request while requests
 * come; smr_band=SIZE, new file data started on the bands of a
 * drive-managed SMR disk, fuse2fs/place.c), stock fuse2fs's that we honour (ro, norecovery,
 * offset=, errors=, attr_timeout=, entry_timeout=) or ignore, and those
 * we refuse are taken out; sync and dirsync are read and kept; the rest
 * is libfuse 3's, passed on in order (fuse2fs/server.c hands it over),
 * and -o default_permissions added.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "lazy_opts.h"	/* fe_parse_size */

/* A -o option libfuse must not see: stock fuse2fs's and libfuse 2's that
 * we honour by ourselves, ignore, or refuse (said; a->refused).  1: taken
 * here, 0: libfuse's. */
static int take_option(struct fe_mount_args *a, const char *o)
{
	static const char *const ignored[] = {
		"kernel", "no_default_opts", "use_ino", "readdir_ino",
		"kernel_cache", "auto_cache", "big_writes", "hard_remove",
		"debug", NULL };
	/* they would change what we show */
	static const char *const refused[] = {
		"fakeroot", "minixdf", "direct_io", "umask=", "uid=", "gid=",
		NULL };
	char *end;
	int i;

	if (!strcmp(o, "ro") || !strcmp(o, "norecovery")) {
		a->ro = 1;	/* the server adds ro for libfuse */
		return 1;
	}
	if (!strcmp(o, "rw")) {
		a->ro = 0;
		return 1;
	}
	if (!strncmp(o, "offset=", 7)) {
		a->offset = strtoull(o + 7, NULL, 0);
		return 1;
	}
	if (!strncmp(o, "cache_size=", 11))
		return 1;
	/* the kernel's mount flags, for libfuse too: the server acts on
	 * them (the kernel sends no FSYNC for them but after a write) */
	if (!strcmp(o, "sync"))
		a->sync = 1;
	if (!strcmp(o, "dirsync"))
		a->dirsync = 1;
	for (i = 0; ignored[i]; i++)
		if (!strcmp(o, ignored[i]))
			return 1;
	for (i = 0; refused[i]; i++) {
		size_t n = strlen(refused[i]);

		if (refused[i][n - 1] == '=' ? !strncmp(o, refused[i], n) :
		    !strcmp(o, refused[i])) {
			fprintf(stderr, "fuse2fs: option %s is not supported\n",
				o);
			a->refused = 1;
			return 1;
		}
	}
	if (!strncmp(o, "errors=", 7)) {
		free(a->errors);
		a->errors = strdup(o + 7);
		if (!a->errors)
			a->refused = 1;
		return 1;
	}
	if (!strncmp(o, "attr_timeout=", 13) ||
	    !strncmp(o, "entry_timeout=", 14)) {
		double t = strtod(strchr(o, '=') + 1, &end);

		if (*end || t < 0) {
			fprintf(stderr, "fuse2fs: invalid option %s\n", o);
			a->refused = 1;
		} else {
			a->timeout = t;
		}
		return 1;
	}
	return 0;
}

/* One -o list: what we read in it, the rest into *kept (NULL: nothing). */
static int take_options(struct fe_mount_args *a, const char *list,
			char **kept)
{
	char *copy = strdup(list), *save = NULL, *tok, *out;
	size_t used = 0;

	out = calloc(1, strlen(list) + 1);
	if (!copy || !out) {
		free(copy);
		free(out);
		return ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;

		if (!strncmp(tok, "commit=", 7)) {
			errno = 0;
			a->commit = strtol(tok + 7, &end, 10);
			if (errno || end == tok + 7 || *end ||
			    a->commit < 0 || a->commit > 86400) {
				fprintf(stderr, "fuse2fs: invalid commit "
					"interval '%s' (seconds, 0 to 86400)\n",
					tok + 7);
				goto invalid;
			}
			continue;	/* ours: not for libfuse */
		}
		if (!strncmp(tok, "smr_band=", 9)) {
			if (fe_parse_size(tok + 9, &a->smr_band) ||
			    !a->smr_band) {
				fprintf(stderr, "fuse2fs: invalid SMR band size "
					"'%s' (bytes, k/M/G/T suffixes)\n",
					tok + 9);
				goto invalid;
			}
			continue;	/* ours: not for libfuse */
		}
		if (!strcmp(tok, "nojournal")) {
			a->nojournal = 1;
			continue;	/* ours: not for libfuse */
		}
		if (!strcmp(tok, "nolatency_qos")) {
			a->nolatency_qos = 1;
			continue;	/* ours: not for libfuse */
		}
		if (take_option(a, tok))
			continue;
		used += (size_t)sprintf(out + used, "%s%s", used ? "," : "",
					tok);
	}
	free(copy);
	if (used)
		*kept = out;
	else {
		free(out);
		*kept = NULL;
	}
	return 0;
invalid:
	free(copy);
	free(out);
	return EINVAL;
}

int fe_mount_args_parse(int argc, char **argv, struct fe_mount_args *a)
{
	int i, operands = 0, dashdash = 0, err;

	memset(a, 0, sizeof(*a));
	a->commit = -1;
	a->timeout = -1;
	a->argv = calloc((size_t)argc + 3, sizeof(*a->argv));
	a->owned = calloc((size_t)argc, sizeof(*a->owned));
	if (!a->argv || !a->owned)
		return ENOMEM;
	a->argv[a->argc++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		char *kept;

		if (!dashdash && !strcmp(arg, "--")) {
			dashdash = 1;
		} else if (!dashdash && !strncmp(arg, "-o", 2)) {
			const char *list = arg[2] ? arg + 2 : argv[i + 1];

			if (!list) {	/* libfuse says it */
				a->argv[a->argc++] = argv[i];
				continue;
			}
			if (!arg[2])
				i++;
			err = take_options(a, list, &kept);
			if (err)
				return err;
			if (kept) {
				a->owned[a->nowned++] = kept;
				a->argv[a->argc++] = "-o";
				a->argv[a->argc++] = kept;
			}
			continue;
		} else if (!dashdash && arg[0] == '-') {
			if (!strcmp(arg, "-h") || !strcmp(arg, "--help") ||
			    !strcmp(arg, "-ho") || !strcmp(arg, "-V") ||
			    !strcmp(arg, "--version"))
				a->info = 1;
			if (!strcmp(arg, "-V") || !strcmp(arg, "--version"))
				a->version = 1;
		} else if (operands++ == 0) {
			a->device = arg;
		} else if (operands == 2) {
			a->mountpoint = arg;
		}
		a->argv[a->argc++] = argv[i];
	}
	/* The kernel makes the access checks it makes for ext4; the
	 * server does what the VFS leaves to the file system. */
	if (!a->info) {
		a->argv[a->argc++] = "-o";
		a->argv[a->argc++] = "default_permissions";
	}
	return 0;
}

void fe_mount_args_free(struct fe_mount_args *a)
{
	while (a->nowned > 0)
		free(a->owned[--a->nowned]);
	free(a->owned);
	free(a->argv);
	free(a->errors);
	a->owned = a->argv = NULL;
	a->errors = NULL;
}
