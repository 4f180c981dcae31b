/*
 * lj_getxattrs.c --- the user.* extended attributes of files, for the
 * kernel test guest (tests/kernel/k_mount), whose busybox has no
 * getfattr.  Built static: the guest has no C library.
 *
 * Usage: lj_getxattrs PATH...
 * For each PATH (a symbolic link itself, not its target), one line per
 * user.* attribute, in the order the kernel lists them:
 *   X|PATH|NAME|HEX
 * with the value in lowercase hex (tests/progs/manifest.py --guest turns
 * the lines into its own xattr field).  Exit 0; 1 if a list or a value
 * could not be read (said on stderr), 2 on usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

static int one(const char *path)
{
	char names[65536], value[65536];
	ssize_t n = llistxattr(path, names, sizeof(names)), v, i;
	const char *name;
	int bad = 0;

	if (n < 0) {
		if (errno == ENOTSUP)
			return 0;
		perror(path);
		return 1;
	}
	for (name = names; name < names + n; name += strlen(name) + 1) {
		if (strncmp(name, "user.", 5))
			continue;
		v = lgetxattr(path, name, value, sizeof(value));
		if (v < 0) {
			perror(path);
			bad = 1;
			continue;
		}
		printf("X|%s|%s|", path, name);
		for (i = 0; i < v; i++)
			printf("%02x", (unsigned char)value[i]);
		putchar('\n');
	}
	return bad;
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "Usage: lj_getxattrs PATH...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		bad |= one(argv[i]);
	return fflush(stdout) ? 1 : bad;
}
