/*
 * fuse2fs/checks.c --- what our fuse2fs checks before it mounts, so that
 * no mount that did not happen exits 0 and every refusal is one line with
 * the cause and what to do next (never "run e2fsck" on a mounted file
 * system).  Exit statuses: 32 (mount(8)'s "mount failure") for the mount
 * point, a device already mounted and what a user mount needs; 2 (as
 * stock for a file system it cannot open) for a device the user may not
 * open.
 *
 * "Already mounted" is read from /proc/self/mountinfo: a source that is
 * the same file or block device as ours, or a loop device whose backing
 * file is ours (/sys/block/loopN/loop/backing_file); a "fuse.*" type is
 * a fuse2fs mount, anything else the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"

/* Same file (regular) or same device (block) as *dev? */
static int same_object(const struct stat *dev, const struct stat *st)
{
	if (S_ISBLK(dev->st_mode))
		return S_ISBLK(st->st_mode) && st->st_rdev == dev->st_rdev;
	return st->st_dev == dev->st_dev && st->st_ino == dev->st_ino;
}

/* /dev/loopN over our file? */
static int loop_over(const char *source, const struct stat *dev)
{
	char path[PATH_MAX], back[PATH_MAX];
	struct stat st;
	FILE *f;
	int same = 0;

	if (S_ISBLK(dev->st_mode) || strncmp(source, "/dev/loop", 9))
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
		 source + 5);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(back, sizeof(back), f)) {
		back[strcspn(back, "\n")] = 0;
		same = !stat(back, &st) && same_object(dev, &st);
	}
	fclose(f);
	return same;
}

/* mountinfo escapes blanks as \040 etc.: undo it in place */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/*
 * Is the device mounted?  1 with its mount point in mtpt and fuse set
 * when a fuse mount (ours or stock's fuse2fs) holds it; 0 if not.
 */
static int mounted_on(const char *device, char *mtpt, size_t len, int *fuse)
{
	struct stat dev, st;
	char line[3 * PATH_MAX], *f[12], *sep, *save;
	FILE *mi;
	int n, found = 0;

	if (stat(device, &dev))
		return 0;	/* stock says why it cannot open it */
	mi = fopen("/proc/self/mountinfo", "r");
	if (!mi)
		return 0;
	while (!found && fgets(line, sizeof(line), mi)) {
		/* id parent maj:min root MOUNTPOINT opts [tags] - TYPE SOURCE */
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = 0;
		n = 0;
		for (f[n] = strtok_r(line, " ", &save); f[n] && n < 5;
		     f[n] = strtok_r(NULL, " ", &save))
			n++;
		if (n < 5)
			continue;
		f[6] = strtok_r(sep + 3, " ", &save);
		f[7] = f[6] ? strtok_r(NULL, " \n", &save) : NULL;
		if (!f[6] || !f[7])
			continue;
		unescape(f[7]);
		if ((!stat(f[7], &st) && same_object(&dev, &st)) ||
		    loop_over(f[7], &dev)) {
			unescape(f[4]);
			snprintf(mtpt, len, "%s", f[4]);
			*fuse = !strncmp(f[6], "fuse", 4);
			found = 1;
		}
	}
	fclose(mi);
	return found;
}

/* A setuid-root fusermount3 (libfuse 3) or fusermount (libfuse 2)? */
static int have_fusermount(void)
{
	static const char *const where[] = {
		"/bin/fusermount3", "/usr/bin/fusermount3",
		"/bin/fusermount", "/usr/bin/fusermount", NULL
	};
	struct stat st;
	int i;

	for (i = 0; where[i]; i++)
		if (!stat(where[i], &st) && st.st_uid == 0 &&
		    (st.st_mode & S_ISUID) && (st.st_mode & S_IXOTH))
			return 1;
	return 0;
}

/* What a mount by a user (not root) needs; 0 or the exit status. */
static int user_checks(const struct fe_mount_args *a)
{
	if (access("/dev/fuse", R_OK | W_OK)) {
		fprintf(stderr, "fuse2fs: /dev/fuse: %s: a mount by a user "
			"needs it open to all (mode 0666, as udev makes it) "
			"and a setuid fusermount3; or mount as root\n",
			strerror(errno));
		return FE_EXIT_MOUNT;
	}
	if (!have_fusermount()) {
		fprintf(stderr, "fuse2fs: no setuid-root fusermount3: a mount "
			"by a user needs it (apt-get install fuse3); or mount "
			"as root\n");
		return FE_EXIT_MOUNT;
	}
	if (access(a->mountpoint, W_OK)) {
		fprintf(stderr, "fuse2fs: mount point %s: %s: a mount by a "
			"user needs a mount point the user may write "
			"(fusermount3's rule); use a directory of your own\n",
			a->mountpoint, strerror(errno));
		return FE_EXIT_MOUNT;
	}
	if (access(a->device, a->ro ? R_OK : R_OK | W_OK)) {
		fprintf(stderr, "fuse2fs: %s: %s: a %s mount needs %s access "
			"to it%s\n", a->device, strerror(errno),
			a->ro ? "read-only" : "read-write",
			a->ro ? "read" : "read and write",
			a->ro ? "" : " (-o ro for a read-only mount)");
		return FE_EXIT_OPEN;
	}
	return 0;
}

int fe_mount_precheck(const struct fe_mount_args *a)
{
	char mtpt[PATH_MAX];
	struct stat st;
	int fuse = 0;

	if (a->info || !a->device || !a->mountpoint)
		return 0;	/* stock's usage answers these */
	if (stat(a->mountpoint, &st)) {
		if (errno == ENOENT)
			fprintf(stderr, "fuse2fs: mount point %s does not "
				"exist; create it (mkdir %s) or name another\n",
				a->mountpoint, a->mountpoint);
		else
			fprintf(stderr, "fuse2fs: mount point %s: %s\n",
				a->mountpoint, strerror(errno));
		return FE_EXIT_MOUNT;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fuse2fs: mount point %s is not a directory; "
			"name a directory\n", a->mountpoint);
		return FE_EXIT_MOUNT;
	}
	/* with -o offset= the same file may hold several file systems */
	if (!a->offset && mounted_on(a->device, mtpt, sizeof(mtpt), &fuse)) {
		fprintf(stderr, "fuse2fs: %s is already mounted on %s (by %s); "
			"unmount it first (umount %s)\n", a->device, mtpt,
			fuse ? "a FUSE server" : "the kernel", mtpt);
		return FE_EXIT_MOUNT;
	}
	return getuid() ? user_checks(a) : 0;
}

void fe_mount_help(FILE *f)
{
	fprintf(f,
		"e2fsprogs-lazy options (lazy_journal(8), FUSE2FS):\n"
		"    -o commit=<seconds>    commit the journal at least "
		"this often\n"
		"                           (default 5; 0: the default), as "
		"ext4's commit=\n"
		"    -o nojournal           plain ext4: write in place, "
		"without the journal\n"
		"    -o errors=continue|remount-ro|panic\n"
		"                           on damage or an I/O error, as "
		"ext4's (default:\n"
		"                           the superblock's, tune2fs -e)\n"
		"    -o nolatency_qos       do not keep the CPUs out of deep "
		"idle while\n"
		"                           requests come (PM QoS, root "
		"only)\n"
		"    -o smr_band=<size>     a drive-managed SMR disk of "
		"bands of <size>\n"
		"                           (k/M/G/T): new file data started "
		"on a band\n"
		"    -o attr_timeout=<s>, -o entry_timeout=<s>\n"
		"                           how long the kernel may cache "
		"answers (default\n"
		"                           86400: the device is ours alone)\n"
		"\n"
		"fuse2fs options (as stock fuse2fs):\n"
		"    -o ro                  read-only mount\n"
		"    -o norecovery          do not replay the journal (implies "
		"ro)\n"
		"    -o offset=<bytes>      the file system starts at <bytes> "
		"into the device\n"
		"\n");
}

void fe_mount_journal_line(const struct fe_mount_args *a, int lazy)
{
	if (a->info || !a->device || a->ro)
		return;
	if (lazy)
		printf("%s: lazy journal: metadata goes only to the log, "
		       "committed every %ld s (-o commit=), on fsync and at "
		       "umount\n", a->device, a->commit > 0 ? a->commit : 5L);
	else
		printf("%s: journaled as the kernel's ext4 does (ordered "
		       "data)\n", a->device);
	fflush(stdout);
}
