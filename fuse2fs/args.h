/*
 * fuse2fs/args.h --- what our fuse2fs reads of the command line.
 */
#ifndef FE_FUSE2FS_ARGS_H
#define FE_FUSE2FS_ARGS_H

struct fe_mount_args {
	char **argv;		/* for libfuse: our options taken out */
	int argc;
	const char *device, *mountpoint;	/* NULL: not given */
	int ro;			/* -o ro or norecovery */
	unsigned long long offset;	/* -o offset= (bytes) */
	long commit;		/* -o commit= (seconds), -1: not given */
	int nojournal;		/* -o nojournal: plain ext4 in place */
	int nolatency_qos;	/* -o nolatency_qos (fuse2fs/latency.c) */
	unsigned long long smr_band;	/* -o smr_band= (bytes), 0: none */
	int sync, dirsync;	/* -o sync, -o dirsync (kept for libfuse) */
	double timeout;		/* -o attr_timeout=, entry_timeout=; -1 */
	char *errors;		/* -o errors= (its value), NULL: not given */
	int refused;		/* an option we cannot honour (said) */
	int info;		/* -h, --help, -V, --version */
	int version;		/* -V, --version */
	char **owned;		/* the -o lists we rewrote (argv holds them) */
	int nowned;
};

/* 0, or EINVAL (said on stderr) / ENOMEM.  a->argv points into argv
 * (and a->owned); fe_mount_args_free(a) in every case. */
int fe_mount_args_parse(int argc, char **argv, struct fe_mount_args *a);
void fe_mount_args_free(struct fe_mount_args *a);

#endif
