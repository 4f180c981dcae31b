/*
 * fuse2fs/args.c --- the command line of fuse2fs as stock and libfuse read
 * it: "fuse2fs DEVICE MOUNTPOINT [-o opt[,opt...]] [-f] [-d] [-s] ...".
 * Of the -o options we need ro, norecovery (implies ro) and offset=; our
 * own commit=N (seconds between commits, as ext4's) and nojournal (plain
 * ext4 written in place, as stock fuse2fs writes it) are taken out.  The
 * rest is passed on in order to the server (fuse2fs/server.c, which
 * takes stock's own and hands libfuse 3 its), and -o default_permissions
 * added.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

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
				free(copy);
				free(out);
				return EINVAL;
			}
			continue;	/* ours: not for libfuse */
		}
		if (!strcmp(tok, "nojournal")) {
			a->nojournal = 1;
			continue;	/* ours: not for libfuse */
		}
		if (!strcmp(tok, "ro") || !strcmp(tok, "norecovery"))
			a->ro = 1;
		else if (!strcmp(tok, "rw"))
			a->ro = 0;
		else if (!strncmp(tok, "offset=", 7))
			a->offset = strtoull(tok + 7, NULL, 0);
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
}

int fe_mount_args_parse(int argc, char **argv, struct fe_mount_args *a)
{
	int i, operands = 0, dashdash = 0, err;

	memset(a, 0, sizeof(*a));
	a->commit = -1;
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
	a->owned = a->argv = NULL;
}
