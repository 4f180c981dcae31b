/*
 * readonly.h --- e2fsck -n on a lazy file system: check the current
 * metadata (through the jmap) without writing to the device.
 */
#ifndef FE_E2FSCK_READONLY_H
#define FE_E2FSCK_READONLY_H

/*
 * Report the log, then run the stock e2fsck with the user's argv under the
 * migrated view (exec: returns only when it cannot run, 8); a lazy fs
 * whose log cannot be read: stock on the home copies, exit status | 4.
 */
int fe_fsck_readonly(const char *device, int argc, char **argv);

#endif
