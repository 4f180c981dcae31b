/*
 * device_open.c --- devices opened through the library's base manager,
 * for front-ends that open a file system without the lazy channel (the
 * mount on a plain ext4), and the crash model's recorder switched on from
 * the environment (tests).
 */
#include <stdlib.h>

#include "lazy_journal.h"
#include "base_io.h"
#include "crash_io.h"

errcode_t lj_open_plain(const char *name, int flags, ext2_filsys *ret)
{
	*ret = NULL;
	return ext2fs_open2(name, NULL, flags | EXT2_FLAG_64BITS, 0, 0,
			    lj_io_base(), ret);
}

errcode_t lj_crash_record_env(const char *var)
{
	const char *path = getenv(var);
	errcode_t err;

	if (!path || !*path)
		return 0;
	err = lj_crash_stream(path);
	if (err)
		return err;
	lj_crash_set_real(unix_io_manager);
	lj_io_set_base(lj_crash_io_manager);
	unsetenv(var);
	return 0;
}
