/*
 * launch.c --- what a launcher front-end does before it execs a stock
 * binary (launch.h): the stock binary by path, the view object in the
 * environment, our -V line, a look at the device's primary superblock.
 * The same rules as lib/ext2fs/stock.c (the stock binary of the same
 * name, never this program itself; the view object at $LJ_VIEW_SO, in the
 * build tree when run from it, else installed) without a C library.
 */
#include "launch.h"
#include "launch_front.h"
#include "version.h"

#ifndef E2FSPROGS_SBIN
#define E2FSPROGS_SBIN "/usr/sbin"
#endif
#ifndef LJ_VIEW_BUILD_DIR
#define LJ_VIEW_BUILD_DIR ""
#endif
#ifndef LJ_VIEW_INSTALLED
#define LJ_VIEW_INSTALLED "/usr/local/lib/e2fsprogs-lazy/lj_view.so"
#endif

#define O_RDONLY_	0
#define R_OK_		4
#define EXIT_ERROR	8	/* e2fsprogs: operational error */
#define PATH_MAX_	4096

/* Marker configure looks for to refuse our own build as "stock". */
const char lj_frontend_marker[] = "e2fsprogs-lazy-frontend";

size_t lj_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int lj_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

int lj_strcmp(const char *a, const char *b)
{
	return lj_strncmp(a, b, (size_t)-1);
}

const char *lf_getenv(char **envp, const char *name)
{
	size_t n = lj_strlen(name);

	for (; envp && *envp; envp++)
		if (!lj_strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* Copy s to d (room for len more bytes); the end of d. */
static char *put(char *d, const char *s, size_t *room)
{
	while (*s && *room > 1) {
		*d++ = *s++;
		--*room;
	}
	*d = '\0';
	return d;
}

static void num(char *buf, unsigned long v)
{
	char tmp[24];
	int i = 0;

	do
		tmp[i++] = (char)('0' + v % 10);
	while ((v /= 10) && i < 23);
	while (i)
		*buf++ = tmp[--i];
	*buf = '\0';
}

/* strerror's text for what a launcher can meet (glibc's words). */
static const char *errtext(long e, char *buf)
{
	switch (e) {
	case 1: return "Operation not permitted";
	case 2: return "No such file or directory";
	case 5: return "Input/output error";
	case 7: return "Argument list too long";
	case 8: return "Exec format error";
	case 12: return "Cannot allocate memory";
	case 13: return "Permission denied";
	case 20: return "Not a directory";
	case 21: return "Is a directory";
	case 26: return "Text file busy";
	case 36: return "File name too long";
	case 40: return "Too many levels of symbolic links";
	}
	put(buf, "Unknown error ", &(size_t){ 16 });
	num(buf + 14, (unsigned long)e);
	return buf;
}

/* "prog: what path: strerror(err)\n" on stderr. */
static void say(const char *prog, const char *what, const char *path,
		long err)
{
	char line[PATH_MAX_ + 256], ebuf[40], *p = line;
	size_t room = sizeof(line);

	p = put(p, prog, &room);
	p = put(p, ": ", &room);
	p = put(p, what, &room);
	p = put(p, path, &room);
	p = put(p, ": ", &room);
	p = put(p, errtext(err, ebuf), &room);
	p = put(p, "\n", &room);
	lj_sys_write(2, line, (size_t)(p - line));
}

void lf_print_version(void)
{
	static const char line[] = "e2fsprogs-lazy " LJ_VERSION " ("
				   LJ_VERSION_DATE ")\n";

	lj_sys_write(2, line, sizeof(line) - 1);
}

/* The stock binary of prog in path[]; 0, or 1 (said why) if it is this
 * very program (running it would recurse forever). */
static int stock_path(const char *prog, char *path, size_t size)
{
	unsigned long long d1, i1, d2, i2;
	static const char msg[] = " is this program, not stock e2fsprogs\n";
	char line[PATH_MAX_ + 128], *p = line;
	size_t room = sizeof(line);

	put(put(put(path, E2FSPROGS_SBIN, &size), "/", &size), prog, &size);
	if (lj_sys_devino("/proc/self/exe", &d1, &i1) ||
	    lj_sys_devino(path, &d2, &i2) || d1 != d2 || i1 != i2)
		return 0;
	p = put(put(put(p, prog, &room), ": ", &room), path, &room);
	p = put(p, msg, &room);
	lj_sys_write(2, line, (size_t)(p - line));
	return 1;
}

int lf_exec_stock(const char *prog, char **argv, char **envp)
{
	char path[PATH_MAX_];
	char *fallback[2] = { path, 0 };
	long err;

	if (stock_path(prog, path, sizeof(path)))
		return EXIT_ERROR;
	err = lj_sys_execve(path, argv[0] ? argv : fallback, envp);
	say(prog, "cannot run ", path, -err);
	return EXIT_ERROR;
}

/* Does this program run from the build tree (LJ_VIEW_BUILD_DIR)? */
static int in_build_tree(void)
{
	char self[PATH_MAX_];
	size_t len = lj_strlen(LJ_VIEW_BUILD_DIR);
	long n = lj_sys_readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 || !len)
		return 0;
	self[n] = '\0';
	return !lj_strncmp(self, LJ_VIEW_BUILD_DIR, len) && self[len] == '/';
}

/* The view object's path in so[] (stock.c's lj_view_path). */
static void view_path(char **envp, char *so, size_t size)
{
	const char *env = lf_getenv(envp, "LJ_VIEW_SO");

	if (env && *env)
		put(so, env, &size);
	else if (in_build_tree())
		put(put(so, LJ_VIEW_BUILD_DIR, &size), "/lib/view/lj_view.so",
		    &size);
	else
		put(so, LJ_VIEW_INSTALLED, &size);
}

void lf_helper_path(char **envp, const char *name, char *path, size_t size)
{
	char *end, *slash = NULL;
	size_t room = size;

	if (in_build_tree()) {
		put(put(put(path, LJ_VIEW_BUILD_DIR, &room), "/misc/", &room),
		    name, &room);
		return;
	}
	view_path(envp, path, size);
	for (end = path; *end; end++)
		if (*end == '/')
			slash = end;
	room = size - (size_t)(slash ? slash + 1 - path : 0);
	put(slash ? slash + 1 : path, name, &room);
}

int lf_exec_helper(const char *prog, const char *name, char **argv,
		   char **envp)
{
	char path[PATH_MAX_];
	long err;

	lf_helper_path(envp, name, path, sizeof(path));
	err = lj_sys_execve(path, argv, envp);
	say(prog, "cannot run ", path, -err);
	return EXIT_ERROR;
}

int lf_strncasecmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		int x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a;
		int y = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;

		if (x != y)
			return x - y;
		if (!x)
			return 0;
	}
	return 0;
}

int lf_getopt_walk(int argc, char **argv, char **envp, const char *optstring,
		   lf_opt_fn fn, void *arg)
{
	int posix = lf_getenv(envp, "POSIXLY_CORRECT") != NULL;
	int i, operands_only = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (operands_only || a[0] != '-' || !a[1]) {
			fn(0, a, arg);
			operands_only |= posix;
			continue;
		}
		if (!lj_strcmp(a, "--")) {
			operands_only = 1;
			continue;
		}
		for (a++; *a; a++) {
			const char *o;

			for (o = optstring; *o && (*o != *a || *a == ':'); o++)
				;
			if (!*o) {
				fn('?', NULL, arg);
				continue;
			}
			if (o[1] != ':') {
				fn(*a, NULL, arg);
				continue;
			}
			if (a[1])
				fn(*a, a + 1, arg);
			else if (i + 1 < argc)
				fn(*a, argv[++i], arg);
			else
				return -1;
			break;
		}
	}
	return 0;
}

int lf_exec_view(const char *prog, char **argv, char **envp,
		 const char *mode)
{
	char so[PATH_MAX_];
	const char *old = lf_getenv(envp, "LD_PRELOAD");
	size_t n = 0, k = 0, room;
	long err;
	char **e;

	view_path(envp, so, sizeof(so));
	err = lj_sys_access(so, R_OK_);
	if (err) {
		say(prog, "cannot use the lazy journal view ", so, -err);
		return EXIT_ERROR;
	}
	for (e = envp; e && *e; e++)
		n++;
	{
		char *env[n + 3];
		char pre[sizeof("LD_PRELOAD=") + PATH_MAX_ +
			 (old ? lj_strlen(old) + 1 : 0)];
		char view[sizeof("LJ_VIEW=") + lj_strlen(mode)];
		char *p;

		room = sizeof(pre);
		p = put(put(pre, "LD_PRELOAD=", &room), so, &room);
		if (old)
			put(put(p, ":", &room), old, &room);
		room = sizeof(view);
		put(put(view, "LJ_VIEW=", &room), mode, &room);
		for (e = envp; e && *e; e++)
			if (lj_strncmp(*e, "LD_PRELOAD=", 11) &&
			    lj_strncmp(*e, "LJ_VIEW=", 8))
				env[k++] = *e;
		env[k++] = pre;
		env[k++] = view;
		env[k] = 0;
		return lf_exec_stock(prog, argv, env);
	}
}

/*
 * The primary superblock of device says lazy_journal: the view's own test
 * (lib/view/view.c, probe()): an e2image file (its magic at byte 0) is
 * never lazy, nor anything without the ext2 magic; anything that cannot
 * be read is not either (stock says why, in its own words).
 */
int lf_device_lazy(const char *device)
{
	unsigned char sb[1024];
	unsigned int magic;
	long fd = lj_sys_open(device, O_RDONLY_);
	int lazy = 0;

	if (fd < 0)
		return 0;
	if (lj_sys_pread((int)fd, &magic, 4, 0) == 4 &&
	    lf_le32((unsigned char *)&magic) != LF_E2IMAGE_MAGIC &&
	    lj_sys_pread((int)fd, sb, sizeof(sb), 1024) == sizeof(sb) &&
	    (sb[0x38] | sb[0x39] << 8) == 0xEF53 &&
	    (lf_le32(sb + 0x5C) & LF_COMPAT_LAZY_JOURNAL))
		lazy = 1;
	lj_sys_close((int)fd);
	return lazy;
}
