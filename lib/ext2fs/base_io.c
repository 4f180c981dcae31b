/*
 * base_io.c --- the io_manager our library opens devices with.
 *
 * Normally the unix manager of libext2fs.  Inside the view object
 * (view.c), which a stock binary preloads and whose unix_io_manager is our
 * own view manager, the view points this at the real unix manager so that
 * the library never opens a device through itself.
 */
#include "lazy_journal.h"

static io_manager base_manager;

io_manager lj_io_base(void)
{
	return base_manager ? base_manager : unix_io_manager;
}

void lj_io_set_base(io_manager m)
{
	base_manager = m;
}
