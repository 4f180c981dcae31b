/*
 * overlay_build.c --- bench helper: the sparse metadata overlay that
 * `e2fsck -n` used before the migrated view (lib/ext2fs/overlay.c).
 *
 * Usage: overlay_build IMAGE OVERLAY
 *
 * Writes OVERLAY (a sparse copy of IMAGE's current metadata, as migration
 * would leave it) and prints the number of blocks written.  The bench
 * (bench/e2fsck_readonly.sh) times this plus stock e2fsck -fn on OVERLAY
 * against stock e2fsck -fn under the migrated view.
 */
#include <stdio.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>
#include "lazy_journal.h"

int main(int argc, char **argv)
{
	ext2_filsys fs;
	blk64_t written;
	errcode_t err;

	if (argc != 3) {
		fprintf(stderr, "usage: overlay_build IMAGE OVERLAY\n");
		return 2;
	}
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	err = lj_open_fs(argv[1], 0, &fs);
	if (!err) {
		err = lj_overlay_build(fs, argv[2], &written);
		ext2fs_close_free(&fs);
	}
	if (err) {
		com_err("overlay_build", err, "while building the overlay of %s",
			argv[1]);
		return 1;
	}
	printf("%llu\n", (unsigned long long)written);
	return 0;
}
