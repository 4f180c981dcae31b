/*
 * crash_io.h --- a crash model of the device, for tests.
 *
 * Not part of the tools' interface: the crash tests (tests/progs/lj_crash,
 * lj_write, the unit tests) open devices through lj_crash_io_manager by
 * making it the library's base manager (lj_io_set_base in base_io.h); the
 * lazy mount does so when its environment has LJ_CRASH_RECORD
 * (lj_crash_record_env, fuse2fs/server.c).
 */
#ifndef LJ_CRASH_IO_H
#define LJ_CRASH_IO_H

#include "base_io.h"

/*
 * lj_crash_io_manager passes reads through to a real manager
 * (lj_crash_set_real; default unix_io_manager) and records every write,
 * one record per channel block, and every flush (a record with len 0),
 * in issue order, for all its channels together.  A crash state is the
 * device as of the last completed flush plus any subset of the writes
 * issued after it (tests/progs/lj_crash.c builds them).
 */
struct lj_crash_rec {
	uint64_t offset;	/* bytes */
	uint32_t len;		/* 0: a flush */
	unsigned char *data;
};
extern io_manager lj_crash_io_manager;
void lj_crash_set_real(io_manager real);
size_t lj_crash_count(void);
const struct lj_crash_rec *lj_crash_get(size_t i);
/* Forget the record (and end a stream). */
void lj_crash_reset(void);
/* Write the record to a file (see crash_io.c for the format). */
errcode_t lj_crash_save(const char *path);
/* From now on append each record to path (created or truncated) as it is
 * made, in lj_crash_save's format, instead of keeping it in memory
 * (lj_crash_get then has nothing; lj_crash_count still counts).  The lazy
 * mount streams its record so (LJ_CRASH_RECORD, lj_crash_record_env).
 * While a file named path + ".fail" exists, writes and flushes fail (EIO). */
errcode_t lj_crash_stream(const char *path);

#endif
