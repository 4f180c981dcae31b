/*
 * lazy_opts.c --- shared by misc/mke2fs and misc/tune2fs: the command line
 * in stock getopt syntax, -O/-J/-E handling, SPEC §3 sizing, refusals,
 * and making the internal journal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lazy_journal.h"
#include "lazy_opts.h"

/* ------------------------------------------------------------------ */
/* Command line                                                        */

int lj_args_add(struct lj_args *args, int opt, const char *val)
{
	char *copy = NULL;

	if (args->n == args->cap) {
		size_t cap = args->cap ? 2 * args->cap : 16;
		struct lj_arg *a = realloc(args->a, cap * sizeof(*a));

		if (!a)
			return -1;
		args->a = a;
		args->cap = cap;
	}
	if (val && !(copy = strdup(val)))
		return -1;
	args->a[args->n].opt = opt;
	args->a[args->n].val = copy;
	args->n++;
	return 0;
}

void lj_args_free(struct lj_args *args)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		free(args->a[i].val);
	free(args->a);
	memset(args, 0, sizeof(*args));
}

/* Split one "-abc" cluster; *i advances past a detached argument. */
static int parse_cluster(int argc, char **argv, int *i, const char *optstring,
			 struct lj_args *out)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		const char *o = (*p == ':') ? NULL : strchr(optstring, *p);

		if (!o)
			return -1;
		if (o[1] != ':') {
			if (lj_args_add(out, *p, NULL))
				return -1;
			continue;
		}
		if (p[1])
			return lj_args_add(out, *p, p + 1);
		if (*i + 1 >= argc)
			return -1;
		(*i)++;
		return lj_args_add(out, *p, argv[*i]);
	}
	return 0;
}

int lj_args_parse(int argc, char **argv, const char *optstring,
		  struct lj_args *out)
{
	int i, only_operands = 0;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		int err;

		if (!only_operands && strcmp(s, "--") == 0) {
			only_operands = 1;
			continue;
		}
		if (only_operands || s[0] != '-' || s[1] == '\0')
			err = lj_args_add(out, 0, s);
		else
			err = parse_cluster(argc, argv, &i, optstring, out);
		if (err) {
			lj_args_free(out);
			return -1;
		}
	}
	return 0;
}

size_t lj_args_count(const struct lj_args *args, int opt)
{
	size_t i, n = 0;

	for (i = 0; i < args->n; i++)
		n += args->a[i].opt == opt;
	return n;
}

static void remove_at(struct lj_args *args, size_t i)
{
	free(args->a[i].val);
	memmove(&args->a[i], &args->a[i + 1],
		(args->n - i - 1) * sizeof(args->a[0]));
	args->n--;
}

void lj_args_remove(struct lj_args *args, int opt)
{
	size_t i = 0;

	while (i < args->n)
		if (args->a[i].opt == opt)
			remove_at(args, i);
		else
			i++;
}

const char *lj_args_operand(const struct lj_args *args, size_t nth)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (args->a[i].opt == 0 && nth-- == 0)
			return args->a[i].val;
	return NULL;
}

int lj_args_has_other(const struct lj_args *args, const char *keep)
{
	size_t i;

	for (i = 0; i < args->n; i++)
		if (args->a[i].opt && !strchr(keep, args->a[i].opt))
			return 1;
	return 0;
}

/* "-X" for option letter X, static. */
static char *flag_string(int opt)
{
	static char flags[128][3];
	char *f = flags[opt & 127];

	f[0] = '-';
	f[1] = (char)opt;
	f[2] = '\0';
	return f;
}

/* Options first ("-X" "value"), then the operands (after "--" if needed). */
char **lj_args_argv(const struct lj_args *args, const char *argv0)
{
	char **v = calloc(2 * args->n + 3, sizeof(*v));
	size_t i, k = 0;
	int dashdash = 0;

	if (!v)
		return NULL;
	v[k++] = (char *)argv0;
	for (i = 0; i < args->n; i++) {
		const struct lj_arg *a = &args->a[i];

		if (!a->opt) {
			dashdash |= a->val[0] == '-' && a->val[1];
			continue;
		}
		v[k++] = flag_string(a->opt);
		if (a->val)
			v[k++] = a->val;
	}
	if (dashdash)
		v[k++] = "--";
	for (i = 0; i < args->n; i++)
		if (!args->a[i].opt)
			v[k++] = args->a[i].val;
	v[k] = NULL;
	return v;
}

void lj_argv_free(char **v)
{
	free(v);	/* the strings belong to the lj_args or are static */
}

/* ------------------------------------------------------------------ */
/* -O feature lists                                                    */

void lj_features_init(struct lj_features *f)
{
	f->lazy = f->has_journal = f->fast_commit = LJ_UNSET;
	f->cleared = 0;
}

#define FEATURE_SEPS ", \t"

/* Note one token; 1 if it is lazy_journal (to be taken out). */
static int note_feature(const char *tok, size_t len, struct lj_features *f)
{
	int on = 1;
	char name[64];

	if (*tok == '^' || *tok == '-' || *tok == '+') {
		on = *tok == '+';
		tok++;
		len--;
	}
	if (len >= sizeof(name))
		return 0;
	memcpy(name, tok, len);
	name[len] = '\0';
	if (!strcasecmp(name, "lazy_journal") ||
	    !strcasecmp(name, "FEATURE_C13")) {
		f->lazy = on;
		return 1;
	}
	if (!strcasecmp(name, "has_journal"))
		f->has_journal = on;
	else if (!strcasecmp(name, "fast_commit"))
		f->fast_commit = on;
	else if (!strcasecmp(name, "none") || !strcasecmp(name, "clear")) {
		f->cleared = 1;
		f->lazy = f->has_journal = f->fast_commit = 0;
	}
	return 0;
}

/* The list without its lazy tokens; NULL on ENOMEM. */
static char *strip_lazy(const char *list, struct lj_features *f)
{
	char *out = malloc(strlen(list) + 1);
	const char *p = list;
	size_t k = 0;

	if (!out)
		return NULL;
	while (*p) {
		size_t len;

		p += strspn(p, FEATURE_SEPS);
		len = strcspn(p, FEATURE_SEPS);
		if (len && !note_feature(p, len, f)) {
			if (k)
				out[k++] = ',';
			memcpy(out + k, p, len);
			k += len;
		}
		p += len;
	}
	out[k] = '\0';
	return out;
}

errcode_t lj_args_take_lazy_features(struct lj_args *args,
				     struct lj_features *f)
{
	size_t i = 0;

	while (i < args->n) {
		struct lj_arg *a = &args->a[i];
		char *rest;

		if (a->opt != 'O') {
			i++;
			continue;
		}
		rest = strip_lazy(a->val, f);
		if (!rest)
			return ENOMEM;
		if (strcmp(rest, a->val) == 0) {	/* untouched */
			free(rest);
			i++;
		} else if (!*rest) {
			free(rest);
			remove_at(args, i);
		} else {
			free(a->val);
			a->val = rest;
			i++;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sub-option lists                                                    */

/* Does token tok (len bytes) name key?  *val_at gets its value or NULL. */
static int is_key(const char *tok, size_t len, const char *key,
		  const char **val_at)
{
	size_t kl = strlen(key);

	if (len < kl || strncmp(tok, key, kl) != 0)
		return 0;
	if (len == kl) {
		*val_at = NULL;
		return 1;
	}
	if (tok[kl] != '=')
		return 0;
	*val_at = tok + kl + 1;
	return 1;
}

int lj_subopt_get(const char *list, const char *key, char *val, size_t len)
{
	const char *p = list;
	int found = 0;

	while (*p) {
		size_t tl = strcspn(p, ",");
		const char *v;

		if (is_key(p, tl, key, &v)) {
			size_t vl = v ? tl - (size_t)(v - p) : 0;

			found = 1;
			if (vl >= len)
				vl = len - 1;
			if (v)
				memcpy(val, v, vl);
			val[vl] = '\0';
		}
		p += tl;
		p += *p == ',';
	}
	return found;
}

char *lj_subopt_remove(const char *list, const char *key)
{
	char *out = malloc(strlen(list) + 1);
	const char *p = list;
	size_t k = 0;

	if (!out)
		return NULL;
	while (*p) {
		size_t tl = strcspn(p, ",");
		const char *v;

		if (tl && !is_key(p, tl, key, &v)) {
			if (k)
				out[k++] = ',';
			memcpy(out + k, p, tl);
			k += tl;
		}
		p += tl;
		p += *p == ',';
	}
	out[k] = '\0';
	return out;
}

int lj_args_take_subopt(struct lj_args *args, int opt, const char *key,
			char *val, size_t len)
{
	size_t i = 0;
	int found = 0;

	while (i < args->n) {
		struct lj_arg *a = &args->a[i];
		char *rest;

		if (a->opt != opt || !lj_subopt_get(a->val, key, val, len)) {
			i++;
			continue;
		}
		found = 1;
		rest = lj_subopt_remove(a->val, key);
		if (!rest)
			return -1;
		free(a->val);
		a->val = rest;
		if (*rest)
			i++;
		else
			remove_at(args, i);
	}
	return found;
}

int lj_args_append_subopt(struct lj_args *args, int opt, const char *item)
{
	size_t i = args->n;
	char *s;

	while (i-- > 0) {
		struct lj_arg *a = &args->a[i];

		if (a->opt != opt)
			continue;
		s = malloc(strlen(a->val) + strlen(item) + 2);
		if (!s)
			return -1;
		sprintf(s, "%s,%s", a->val, item);
		free(a->val);
		a->val = s;
		return 0;
	}
	return lj_args_add(args, opt, item);
}

void lj_jopts_scan(const struct lj_args *args, struct lj_jopts *j)
{
	char val[64];
	size_t i;

	memset(j, 0, sizeof(*j));
	j->size_mib = LJ_UNSET;
	for (i = 0; i < args->n; i++) {
		const char *list = args->a[i].val;

		if (args->a[i].opt != 'J')
			continue;
		if (lj_subopt_get(list, "size", val, sizeof(val))) {
			char *end;
			long v = strtol(val, &end, 10);

			j->size_mib = (*val && !*end && v > 0) ? v : -2;
		}
		j->device |= lj_subopt_get(list, "device", val, sizeof(val));
		j->fast_commit |= lj_subopt_get(list, "fast_commit_size", val,
						sizeof(val));
		lj_subopt_get(list, "location", j->location,
			      sizeof(j->location));
	}
}

int lj_parse_size(const char *s, unsigned long long *bytes)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'T': case 't': shift = 40; break;
	case 'G': case 'g': shift = 30; break;
	case 'M': case 'm': shift = 20; break;
	case 'K': case 'k': shift = 10; break;
	case '\0': break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	if (shift && v > (~0ULL >> shift))
		return -1;
	*bytes = v << shift;
	return 0;
}

int lj_journal_goal(const struct lj_jopts *j, unsigned int bs, blk64_t *goal)
{
	unsigned long long v;
	size_t len = strlen(j->location);

	*goal = ~0ULL;
	if (!len)
		return 0;
	if (lj_parse_size(j->location, &v))
		return -1;
	*goal = (j->location[len - 1] >= '0' && j->location[len - 1] <= '9') ?
		v : v / bs;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sizing and refusals                                                 */

#define LJ_JOURNAL_MAX_BLOCKS	10240000ULL	/* stock -J size= limit */

blk64_t lj_lazy_journal_blocks(blk64_t nblocks)
{
	int d = ext2fs_default_journal_size(nblocks);
	blk64_t l, cap;

	if (d < 0)
		return 0;
	l = 4ULL * (blk64_t)d;
	if (nblocks / 1024 > l)
		l = nblocks / 1024;
	cap = nblocks / 16;
	if (cap > LJ_JOURNAL_MAX_BLOCKS)
		cap = LJ_JOURNAL_MAX_BLOCKS;
	if (l > cap)
		l = cap;
	if (l < (blk64_t)d)
		l = (blk64_t)d;
	return l;
}

unsigned long lj_blocks_to_mib(blk64_t blocks, unsigned int blocksize)
{
	unsigned long long bytes = (unsigned long long)blocks * blocksize;

	return (unsigned long)((bytes + (1ULL << 20) - 1) >> 20);
}

blk64_t lj_mib_to_blocks(unsigned long mib, unsigned int blocksize)
{
	return ((blk64_t)mib << 20) / blocksize;
}

const char lj_msg_too_small[] =
	"file system too small for a journal; lazy_journal needs one";

const char *lj_lazy_refusal(const struct lj_features *f,
			    const struct lj_jopts *j)
{
	if (j->device)
		return "lazy_journal needs an internal journal: "
		       "-J device= cannot be used with it";
	if (f->fast_commit == 1 || j->fast_commit)
		return "lazy_journal cannot be combined with fast_commit";
	if (f->has_journal == 0)
		return "lazy_journal needs a journal: "
		       "^has_journal cannot be used with it";
	return NULL;
}

const char *lj_fs_refusal(ext2_filsys fs, const struct lj_features *f)
{
	struct ext2_super_block *sb = fs->super;

	if (ext2fs_has_feature_journal_dev(sb) ||
	    (ext2fs_has_feature_journal(sb) && !sb->s_journal_inum) ||
	    (ext2fs_has_feature_journal(sb) && sb->s_journal_dev))
		return "lazy_journal needs an internal journal; "
		       "this file system has an external one";
	if (ext2fs_has_feature_fast_commit(sb) && f->fast_commit != 0)
		return "lazy_journal cannot be combined with fast_commit";
	if (lj_lazy_journal_blocks(ext2fs_blocks_count(sb)) == 0)
		return lj_msg_too_small;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The journal                                                         */

errcode_t lj_journal_place(const char *device, blk64_t *start,
			   blk64_t *blocks)
{
	ext2_filsys fs;
	struct ext2_inode inode;
	errcode_t err;

	*start = *blocks = 0;
	err = ext2fs_open2(device, NULL, EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &fs);
	if (err)
		return err;
	if (ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum) {
		err = ext2fs_read_inode(fs, fs->super->s_journal_inum, &inode);
		if (!err)
			err = ext2fs_bmap2(fs, fs->super->s_journal_inum,
					   &inode, NULL, 0, 0, NULL, start);
		if (!err)
			*blocks = EXT2_I_SIZE(&inode) / fs->blocksize;
	}
	ext2fs_close_free(&fs);
	return err;
}

/* Free the blocks of the (empty) journal inode, as tune2fs -O ^has_journal */
static errcode_t remove_journal(ext2_filsys fs)
{
	ext2_ino_t ino = fs->super->s_journal_inum;
	struct ext2_inode inode;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super) || !ino)
		return 0;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (!err)
		err = ext2fs_punch(fs, ino, &inode, NULL, 0, ~0ULL);
	if (err)
		return err;
	memset(&inode, 0, sizeof(inode));
	err = ext2fs_write_inode(fs, ino, &inode);
	if (err)
		return err;
	fs->super->s_journal_inum = 0;
	memset(fs->super->s_jnl_blocks, 0, sizeof(fs->super->s_jnl_blocks));
	fs->super->s_jnl_backup_type = 0;
	ext2fs_clear_feature_journal(fs->super);
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/*
 * The band boundary nearest the middle of the file system whose first
 * band (or the whole journal, if shorter) is free; ~0 if none.
 */
static blk64_t band_goal(ext2_filsys fs, blk64_t nblocks, blk64_t band)
{
	blk64_t n = ext2fs_blocks_count(fs->super);
	blk64_t first = fs->super->s_first_data_block;
	blk64_t run = nblocks < band ? nblocks : band;
	blk64_t k0 = (n / 2 + band - 1) / band, d;

	for (d = 0; d <= n / band + 1; d++) {
		blk64_t k[2] = { k0 + d, k0 - d };
		int s;

		for (s = 0; s < 2; s++) {
			blk64_t b = k[s] * band;

			if ((s && d > k0) || b < first || b + nblocks > n)
				continue;
			if (ext2fs_test_block_bitmap_range2(fs->block_map,
							    b, (unsigned)run))
				return b;
		}
	}
	return ~0ULL;
}

errcode_t lj_make_journal(const char *device, blk64_t nblocks, blk64_t goal,
			  blk64_t band, int lazyinit, blk64_t *start)
{
	struct ext2fs_journal_params params;
	ext2_filsys fs;
	errcode_t err;

	*start = 0;
	err = ext2fs_open2(device, NULL, EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE |
			   EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (err)
		return err;
	err = ext2fs_read_bitmaps(fs);
	if (!err)
		err = remove_journal(fs);
	if (!err && band)
		goal = band_goal(fs, nblocks, band);
	if (!err)
		err = ext2fs_get_journal_params(&params, fs);
	if (!err) {
		params.num_journal_blocks = (blk_t)nblocks;
		params.num_fc_blocks = 0;
		err = ext2fs_add_journal_inode3(fs, &params, goal,
			EXT2_MKJOURNAL_NO_MNT_CHECK |
			(lazyinit ? EXT2_MKJOURNAL_LAZYINIT : 0));
	}
	if (err) {
		ext2fs_close_free(&fs);
		return err;
	}
	err = ext2fs_close_free(&fs);
	if (!err) {
		blk64_t len;

		err = lj_journal_place(device, start, &len);
	}
	return err;
}
