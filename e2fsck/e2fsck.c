/*
 * e2fsck.c --- our e2fsck: the lazy part natively, the check by stock e2fsck.
 *
 * Without lazy_journal this is the stock e2fsck (exec, same arguments).
 * On a lazy file system the lazy run (lazy_run.c; -n: readonly.c) does
 * its part and hands the check to stock e2fsck.  The command line is
 * fsck_opts.c's; the jobs of the files are listed in fsck_opts.h.
 */
#include <stdio.h>

#include <et/com_err.h>

#include "fsck_opts.h"
#include "stock.h"
#include "version.h"

/*
 * The home superblock: 1 lazy, 0 not lazy, -1 no file system libext2fs
 * opens (anything odd: stock e2fsck handles it).
 */
static int home_lazy(const char *device)
{
	ext2_filsys fs;
	int lazy;

	if (lj_open_super(device, EXT2_FLAG_IGNORE_CSUM_ERRORS, &fs))
		return -1;
	lazy = lj_fs_is_lazy(fs->super);
	ext2fs_close_free(&fs);
	return lazy;
}

static int count_argv(char **v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}

int fe_fsck_parse_probe(const struct fe_fsck_options *o)
{
	return lj_stock_parse_probe("e2fsck", count_argv(o->stock_argv),
				    o->stock_argv, o->device_arg);
}

/* After a valid command line: stock, a refusal, or the lazy run. */
static int run(struct fe_fsck_options *o, char **argv)
{
	int status, lazy;

	if (!o->device)
		return lj_stock_exec("e2fsck", argv);
	lazy = home_lazy(o->device);
	if (lazy <= 0) {
		const char *word = fe_fsck_lazy_word_given(o);

		if (!word || lazy < 0)
			return lj_stock_exec("e2fsck", argv);
		fprintf(stderr, "%s: -E %s: %s does not have the lazy_journal "
			"feature\n", fe_prog, word, o->name);
		return FSCK_USAGE;
	}
	/* stock's own words on the line: stock's parser, before any write
	 * (-n writes nothing: readonly.c asks only before saying anything) */
	if (!o->no) {
		status = fe_fsck_parse_probe(o);
		if (status >= 0)
			return status;
	}
	return fe_fsck_lazy(o, argv);
}

int main(int argc, char **argv)
{
	struct fe_fsck_options o;
	int status;

	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ljrn_error_table);
	if (fe_wants_version(argc, argv, E2FSCK_OPTS))
		fe_print_version();	/* then stock's lines */
	if (fe_fsck_parse(argc, argv, &o)) {
		fe_fsck_free(&o);
		com_err(fe_prog, EXT2_ET_NO_MEMORY, "while parsing options");
		return FSCK_ERROR;
	}
	status = fe_fsck_check_lazy_words(&o);
	if (!status)
		status = run(&o, argv);
	fe_fsck_free(&o);
	remove_error_table(&et_ljrn_error_table);
	remove_error_table(&et_ext2_error_table);
	return status;
}
