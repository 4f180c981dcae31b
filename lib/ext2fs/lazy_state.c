/*
 * lazy_state.c --- what the lazy channel finds at open (doc/contract.md §2.3):
 * the journal through inode 8, one scan of the log, the jmap; or an empty
 * map and the reason there is no log.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lazy_journal.h"
#include "lj_private.h"

static errcode_t empty_jmap(lj_jmap **ret)
{
	lj_log *log;
	errcode_t err = ext2fs_get_memzero(sizeof(*log), &log);

	if (err)
		return err;
	log->end = LJ_END_EMPTY;
	return lj_jmap_build(log, 0, ret);
}

/* The token of lj_lazy_verified_token for log on device, or "" (size
 * LJ_VERIFIED_TOKEN_SIZE). */
static void token_of(const char *device, const lj_log *log, char *buf)
{
	struct stat sb;

	buf[0] = '\0';
	if (!device || stat(device, &sb) || !log->j || !log->ntags ||
	    log->refused || log->salvaged)
		return;
	snprintf(buf, LJ_VERIFIED_TOKEN_SIZE, "lj1:%llu:%llu:%u:%u:%u:%u:%zu",
		 (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
		 log->j->start, log->start_tid, log->end_block, log->end_tid,
		 log->ntags);
}

void lj_lazy_state_token(const lj_lazy_state *st, const char *device,
			 char *buf, size_t size)
{
	const lj_jmap *m = st->jmap;

	if (!size)
		return;
	buf[0] = '\0';
	if (st->journal_err || !st->journal ||
	    !lj_journal_csum_v23(st->journal) || size < LJ_VERIFIED_TOKEN_SIZE)
		return;
	if (!m->bad_csums && m->log->ntags)
		token_of(device, m->log, buf);
}

/* Does the token handed to this open name log on this device? */
static int verified_here(const lj_lazy_state *st, ext2_filsys fs,
			 const lj_log *log)
{
	char mine[LJ_VERIFIED_TOKEN_SIZE];

	if (!st->verified || !*st->verified)
		return 0;
	token_of(fs->device_name, log, mine);
	return *mine && !strcmp(mine, st->verified);
}

/*
 * Find the log and build the jmap.  A journal we cannot read is not an
 * open failure: the state records why there is no log, and the tools
 * decide (debugfs reports it, e2fsck refuses to migrate).
 */
static errcode_t load_log(lj_lazy_state *st, ext2_filsys fs, io_channel home,
			  int rw)
{
	lj_log *log = NULL;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super)) {
		snprintf(st->note, sizeof(st->note), "no journal");
		return 0;
	}
	st->needs_recovery =
		ext2fs_has_feature_journal_needs_recovery(fs->super);
	if (!st->needs_recovery && !rw) {
		snprintf(st->note, sizeof(st->note),
			 "needs_recovery is clear: the log holds nothing live");
		return 0;
	}
	err = lj_journal_open(fs, home, &st->journal);
	if (!err)
		err = lj_log_scan(st->journal, st->lazy ? LJ_SCAN_SALVAGE : 0,
				  &log);
	if (!err && !st->needs_recovery) {
		/* Not live: the writer starts a new log past its end. */
		uint32_t seq = st->journal->start ? log->end_tid + 1 :
			       st->journal->sequence;

		lj_log_free(log);
		err = ext2fs_get_memzero(sizeof(*log), &log);
		if (err)
			return err;
		log->j = st->journal;
		log->end = LJ_END_EMPTY;
		log->start_tid = log->end_tid = seq;
		st->journal->start = 0;
		st->journal->sequence = seq;
		snprintf(log->end_msg, sizeof(log->end_msg), "log is empty");
	}
	if (!err) {
		lj_jmap_free(st->jmap);
		st->jmap = NULL;
		err = lj_jmap_build(log, LJ_JMAP_KEEP_TAGS |
				    (verified_here(st, fs, log) ?
				     LJ_JMAP_TAGS_CHECKED : 0), &st->jmap);
		if (!err)
			st->has_log = st->jmap->log->ntxn != 0;
		if (!err)
			err = lj_jmap_resolve_journal_homes(st->jmap);
	}
	if (err) {
		st->journal_err = err;
		snprintf(st->note, sizeof(st->note), "%s", error_message(err));
		if (!st->jmap)
			return empty_jmap(&st->jmap);
	}
	return 0;
}

errcode_t lj_lazy_state_load(lj_lazy_state *st, ext2_filsys fs,
			     io_channel home, int rw, int with_log)
{
	errcode_t err = empty_jmap(&st->jmap);

	if (!err && with_log)
		err = load_log(st, fs, home, rw);
	return err;
}
