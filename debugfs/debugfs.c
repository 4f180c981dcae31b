/*
 * debugfs.c --- our debugfs is stock debugfs under the view.
 *
 * It execs the stock debugfs with the user's arguments, untouched, with
 * the view object preloaded in its debugfs mode (lib/view/view.c,
 * view_debugfs.c): a lazy_journal file system is read through the jmap
 * (every request is stock's own code and output, on the current
 * metadata), -w journals every write at request boundaries, and the
 * session gains jmap, jlookup and block_dump -H (lib/view/jmap_cmds.c).
 * Anything else -- no lazy_journal, not ext4, no device -- is plain stock
 * debugfs.
 *
 * Plain fast path: one request (-R) on a device whose primary superblock
 * has no lazy_journal needs nothing of the view -- it would pass the
 * device through untouched -- so stock debugfs runs without it (no
 * preload to load).  Not when the session could reach anything the view
 * changes: a request that opens another device (open, open_filesys), one
 * of ours (jmap, jlookup, block_dump -H), the request list (help, lr),
 * one that names features (feature, features, supported_features: the
 * view knows lazy_journal by name), a request file or stdin (-f, or
 * none: any request may come), -d, -V, an option stock would refuse, a
 * device name with io options ("?").  A
 * session, script or `open` of a lazy fs always has the view.
 *
 * Built on launch.h: no C library (misc/launch_raw.c) where it can be, so
 * this process costs next to nothing before stock starts.
 */
#include "launch.h"
#include "launch_front.h"

/* stock debugfs 1.47's getopt string */
#define DEBUGFS_OPTS "iwcR:f:b:s:Vd:Dnz:"

struct cmdline {
	const char *request;	/* the last -R, or NULL */
	const char *device;	/* the first operand, or NULL */
	int version, file, data_source, bad;
};

/* lf_opt_fn: note what plain_request needs of one option or operand. */
static void note(int opt, const char *val, void *arg)
{
	struct cmdline *c = arg;

	switch (opt) {
	case 0:
		if (!c->device)
			c->device = val;
		break;
	case '?':
		c->bad = 1;
		break;
	case 'V':
		c->version = 1;
		break;
	case 'R':
		c->request = val;
		break;
	case 'f':
		c->file = 1;
		break;
	case 'd':
		c->data_source = 1;
		break;
	}
}

static int word_is(const char *w, size_t n, const char *name)
{
	return lj_strlen(name) == n && !lj_strncmp(w, name, n);
}

/* Could the request see what the view changes (debugfs.c's comment)? */
static int request_needs_view(const char *r)
{
	static const char *const words[] = {
		"open", "open_filesys", "jmap", "jlookup", "help",
		"list_requests", "lr", "feature", "features",
		"supported_features", 0
	};
	const char *w, *p;
	size_t n;
	int i;

	while (*r == ' ' || *r == '\t')
		r++;
	for (w = r; (*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') ||
		    (*r >= '0' && *r <= '9') || *r == '_'; r++)
		;
	n = (size_t)(r - w);
	if (!n || (*r && *r != ' ' && *r != '\t'))
		return 1;	/* quotes, '!', '?': not ours to judge */
	for (i = 0; words[i]; i++)
		if (word_is(w, n, words[i]))
			return 1;
	if (word_is(w, n, "bd") || word_is(w, n, "block_dump"))
		for (p = r; *p; p++)
			if (*p == 'H')
				return 1;
	return 0;
}

static int plain_request(const struct cmdline *c)
{
	const char *p;

	if (c->bad || c->version || c->file || c->data_source ||
	    !c->request || !c->device || request_needs_view(c->request))
		return 0;
	for (p = c->device; *p; p++)
		if (*p == '?')
			return 0;
	return !lf_device_lazy(c->device);
}

int lj_launch_main(int argc, char **argv, char **envp)
{
	struct cmdline c = { 0, 0, 0, 0, 0, 0 };

	if (lf_getopt_walk(argc, argv, envp, DEBUGFS_OPTS, note, &c))
		c.bad = 1;
	if (c.version)
		lf_print_version();	/* then stock's own lines */
	if (plain_request(&c))
		return lf_exec_stock("debugfs", argv, envp);
	return lf_exec_view("debugfs", argv, envp, "debugfs");
}
