/*
 * test_main.c --- Check runner over every unit-test suite of the lazy
 * journal library.  Exits non-zero when any test fails.
 */
#include <stdlib.h>

#include "unit.h"

int main(void)
{
	SRunner *sr;
	int failed;

	ut_global_setup();
	sr = srunner_create(journal_suite());
	srunner_add_suite(sr, scan_suite());
	srunner_add_suite(sr, jmap_suite());
	srunner_add_suite(sr, lazy_io_suite());
	srunner_add_suite(sr, migrate_suite());
	srunner_add_suite(sr, writer_suite());
	srunner_add_suite(sr, cleaner_suite());
	srunner_add_suite(sr, compact_suite());
	srunner_add_suite(sr, writer_crash_suite());
	srunner_add_suite(sr, super_features_suite());
	srunner_add_suite(sr, mount_channel_suite());
	srunner_add_suite(sr, overlay_suite());
	srunner_add_suite(sr, checkpoint_suite());
	srunner_add_suite(sr, bitmaps_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	ut_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
