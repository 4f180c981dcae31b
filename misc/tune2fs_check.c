/*
 * tune2fs_check.c --- the whole tune2fs command line checked before our
 * tune2fs writes anything, with stock tune2fs 1.47's messages and exit
 * status (learned by running stock on the same typos; tests/t_typo
 * compares the two).
 *
 * Stock checks part of its command line while parsing it (option letters,
 * missing arguments, -c -C -e -g -i -I -m -r -T -u -J -Q values): for
 * those stock itself is asked, on a device that cannot exist.  The rest it
 * checks only after opening the file system, on the way to writing (-o,
 * -O, -E, -U): those are checked here on their syntax, the way stock would
 * see it, on scratch copies.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <e2p/e2p.h>

#include "lazy_journal.h"
#include "stock.h"
#include "tune2fs_check.h"


int fe_tune2fs_stock_parse(int argc, char **argv, const char *device)
{
	return lj_stock_parse_probe("tune2fs", argc, argv, device);
}

/* ------------------------------------------------------------------ */
/* What stock checks after opening the file system                     */

/* Stock's banner (stdout) once, then the message on stderr. */
static void complain(const char *fmt, ...)
{
	static int banner_done;
	const char *ver, *date;
	va_list ap;

	if (!banner_done) {
		ext2fs_get_library_version(&ver, &date);
		printf("tune2fs %s (%s)\n", ver, date);
		fflush(stdout);
		banner_done = 1;
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* -o: e2p_edit_mntopts on a scratch word. */
static int check_mntopts(const char *list)
{
	char *copy = strdup(list);
	__u32 opts = 0;
	int bad;

	if (!copy)
		return 0;	/* let stock judge it */
	bad = e2p_edit_mntopts(copy, &opts, ~0U) != 0;
	free(copy);
	if (bad)
		complain("Invalid mount option set: %s\n", list);
	return bad;
}

/*
 * Stock tune2fs 1.47 refuses to set, or to clear, these (found by asking
 * it for each name e2p knows; tests/t_typo asks again).  Names e2p does
 * not know by name (FEATURE_Cn, ...) are refused both ways.
 */
static const char *const no_set[] = {
	"dir_prealloc", "imagic_inodes", "ext_attr", "resize_inode",
	"lazy_bg", "snapshot_bitmap", "sparse_super2", "compression",
	"needs_recovery", "journal_dev", "meta_bg", "dirdata", "inline_data",
	"bigalloc", "replica", "shared_blocks", "orphan_present", NULL
};
static const char *const no_clear[] = {
	"dir_prealloc", "imagic_inodes", "ext_attr", "lazy_bg",
	"snapshot_bitmap", "sparse_super2", "stable_inodes", "compression",
	"needs_recovery", "journal_dev", "meta_bg", "extent", "ea_inode",
	"dirdata", "large_dir", "inline_data", "encrypt", "sparse_super",
	"bigalloc", "replica", "shared_blocks", "verity", "orphan_present",
	NULL
};

/* Every feature bit e2p names, minus the refused ones. */
static void ok_mask(const char *const *refused, __u32 ok[3])
{
	int type, bit;

	for (type = 0; type < 3; type++) {
		ok[type] = 0;
		for (bit = 0; bit < 32; bit++) {
			const char *name = e2p_feature2string(type, 1U << bit);
			const char *const *r;

			if (!strncmp(name, "FEATURE_", 8))
				continue;
			for (r = refused; *r && strcmp(*r, name); r++)
				;
			if (!*r)
				ok[type] |= 1U << bit;
		}
	}
}

/* -O: e2p_edit_feature2 on scratch feature words, lazy tokens out. */
static int check_features(const char *list)
{
	struct fe_args one = { NULL, 0, 0 };
	struct fe_features f;
	__u32 words[3] = { 0, 0, 0 }, ok_set[3], ok_clear[3], mask = 0;
	int type = 0, rc;
	char *rest;

	fe_features_init(&f);
	if (fe_args_add(&one, 'O', list) || fe_args_take_lazy_features(&one, &f)) {
		fe_args_free(&one);
		return 0;	/* out of memory: let stock judge it */
	}
	rest = one.n ? one.a[0].val : NULL;
	if (!rest) {		/* only lazy tokens */
		fe_args_free(&one);
		return 0;
	}
	ok_mask(no_set, ok_set);
	ok_mask(no_clear, ok_clear);
	rc = e2p_edit_feature2(rest, words, ok_set, ok_clear, &type, &mask);
	fe_args_free(&one);
	if (!rc)
		return 0;
	if (!mask)
		complain("Invalid filesystem option set: %s\n", list);
	else if (type & E2P_FEATURE_NEGATE_FLAG)
		complain("Clearing filesystem feature '%s' not "
			"supported.\n", e2p_feature2string(
				type & E2P_FEATURE_TYPE_MASK, mask));
	else
		complain("Setting filesystem feature '%s' not "
			"supported.\n", e2p_feature2string(type, mask));
	return 1;
}

static const char extended_help[] =
	"\nBad options specified.\n\n"
	"Extended options are separated by commas, and may take an argument "
	"which\n"
	"\tis set off by an equals ('=') sign.\n\n"
	"Valid extended options are:\n"
	"\tclear_mmp\n"
	"\thash_alg=<hash algorithm>\n"
	"\tmount_opts=<extended default mount options>\n"
	"\tmmp_update_interval=<mmp update interval in seconds>\n"
	"\tstride=<RAID per-disk chunk size in blocks>\n"
	"\tstripe_width=<RAID stride*data disks in blocks>\n"
	"\tforce_fsck\n"
	"\ttest_fs\n"
	"\t^test_fs\n"
	"\tencoding=<encoding>\n"
	"\tencoding_flags=<flags>\n";

#define MMP_MAX_INTERVAL	300	/* seconds, stock's limit */

/* A whole unsigned number as strtoul(base 0) reads it ("" is 0). */
static int whole_number(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return *end == '\0';
}

/* orphan_file_size=: a number, optional K M G T or s (512 B), in blocks */
static int orphan_size_ok(const char *s, unsigned log_bs)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'T': case 't': v <<= 10; /* fall through */
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v >>= log_bs; break;
	case 's': v >>= 1 + log_bs; break;
	case '\0': break;
	default: return 0;
	}
	return (int)v >= 1;
}

/* One -E token; 1 if stock takes it.  Messages as stock prints them. */
static int extended_token(char *tok, const char **encoding,
			  const char **enc_flags, int *clear_mmp,
			  unsigned log_bs)
{
	char *arg = strchr(tok, '=');
	unsigned long v;

	if (arg)
		*arg++ = '\0';
	if (!strcmp(tok, "clear-mmp") || !strcmp(tok, "clear_mmp")) {
		*clear_mmp = 1;
		return 1;
	}
	if (!strcmp(tok, "force_fsck") || !strcmp(tok, "test_fs") ||
	    !strcmp(tok, "^test_fs"))
		return 1;
	if (!arg)
		return 0;	/* every other option needs its value */
	if (!strcmp(tok, "mmp_update_interval")) {
		if (!whole_number(arg, &v)) {
			complain("Invalid mmp_update_interval: %s\n",
				arg);
			return 0;
		}
		if (v > MMP_MAX_INTERVAL) {
			complain("mmp_update_interval too big: %lu\n",
				v);
			return 0;
		}
		return 1;
	}
	if (!strcmp(tok, "stride")) {
		if (whole_number(arg, &v))
			return 1;
		complain("Invalid RAID stride: %s\n", arg);
		return 0;
	}
	if (!strcmp(tok, "stripe-width") || !strcmp(tok, "stripe_width")) {
		if (whole_number(arg, &v))
			return 1;
		complain("Invalid RAID stripe-width: %s\n", arg);
		return 0;
	}
	if (!strcmp(tok, "hash_alg")) {
		if (e2p_string2hash(arg) >= 0)
			return 1;
		complain("Invalid hash algorithm: %s\n", arg);
		return 0;
	}
	if (!strcmp(tok, "mount_opts"))
		return 1;	/* too long: stock warns and goes on */
	if (!strcmp(tok, "encoding")) {
		if (e2p_str2encoding(arg) >= 0) {
			*encoding = arg;
			return 1;
		}
		complain("Invalid encoding: %s\n", arg);
		return 0;
	}
	if (!strcmp(tok, "encoding_flags")) {
		*enc_flags = arg;
		return 1;
	}
	if (!strcmp(tok, "orphan_file_size")) {
		if (orphan_size_ok(arg, log_bs))
			return 1;
		complain("Invalid size of orphan file %s\n", arg);
		return 0;
	}
	return 0;
}

/* -E: every token known to stock 1.47, with a value it reads. */
static int check_extended(const char *list, int force, unsigned log_bs)
{
	char *copy = strdup(list), *tok, *next;
	const char *encoding = NULL, *enc_flags = NULL;
	int bad = 0, clear_mmp = 0, printed;

	if (!copy)
		return 0;
	if (!*copy) {
		free(copy);
		return 0;
	}
	for (tok = copy; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		bad += !extended_token(tok, &encoding, &enc_flags, &clear_mmp,
				       log_bs);
	}
	if (enc_flags && !encoding) {
		complain("error: An encoding must be explicitly "
			"specified when passing encoding-flags\n");
		bad++;
	} else if (enc_flags) {
		__u16 flags = 0;

		if (e2p_str2encoding_flags(e2p_str2encoding(encoding),
					   (char *)enc_flags, &flags)) {
			complain("error: Invalid encoding flag: %s\n",
				enc_flags);
			bad++;
		}
	}
	printed = bad;
	if (bad)
		complain("%s", extended_help);
	else if (clear_mmp && !force) {
		complain("Error in using clear_mmp. It must be used "
			 "with -f\n");
		printed = 1;
	}
	free(copy);
	return printed != 0;
}

/* -U: clear, random, time, null, or a UUID in its 36-character form. */
static int check_uuid(const char *u, const char *argv0)
{
	size_t i;

	if (!strcasecmp(u, "null") || !strcasecmp(u, "clear") ||
	    !strcasecmp(u, "random") || !strcasecmp(u, "time"))
		return 0;
	for (i = 0; i < 36; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? u[i] != '-' : !strchr("0123456789abcdefABCDEF",
						  u[i]) || !u[i])
			break;
	}
	if (i == 36 && u[36] == '\0')
		return 0;
	complain("%s: Invalid UUID format\n\n", argv0);
	return 1;
}

/* The last argument of opt (stock keeps the last), or NULL. */
static const char *last_arg(const struct fe_args *args, int opt)
{
	const char *v = NULL;
	size_t i;

	for (i = 0; i < args->n; i++)
		if (args->a[i].opt == opt)
			v = args->a[i].val;
	return v;
}

int fe_tune2fs_check_values(const struct fe_args *orig, const char *argv0,
			    unsigned log_bs)
{
	const char *v;

	/* stock's order: mount options, features, extended, UUID */
	if ((v = last_arg(orig, 'o')) && check_mntopts(v))
		return 1;
	if ((v = last_arg(orig, 'O')) && check_features(v))
		return 1;
	if ((v = last_arg(orig, 'E')) &&
	    check_extended(v, fe_args_count(orig, 'f') > 0, log_bs))
		return 1;
	if ((v = last_arg(orig, 'U')) && check_uuid(v, argv0))
		return 1;
	return 0;
}
