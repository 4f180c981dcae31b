/*
 * readonly.h --- e2fsck -n on a lazy file system: check the current
 * metadata (through the jmap) without writing to the device.
 */
#ifndef LJ_E2FSCK_READONLY_H
#define LJ_E2FSCK_READONLY_H

/*
 * Build a sparse overlay of the current metadata in $TMPDIR, run the stock
 * e2fsck on it with the user's options (argv is the user's full argv, the
 * device last), print its output with the overlay's name replaced by the
 * device's, and return its exit status (8 when it cannot run).
 */
int lj_fsck_readonly(const char *device, int argc, char **argv);

#endif
