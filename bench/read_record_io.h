/*
 * read_record_io.h --- a pass-through io_manager that reports every device
 * read (bench/workload's block traces; the writes are reported by the lazy
 * channel's own record hook, with their kind).
 */
#ifndef READ_RECORD_IO_H
#define READ_RECORD_IO_H

#include "base_io.h"

/* offset and length in bytes */
typedef void (*rr_read_fn)(void *arg, uint64_t offset, uint64_t len);

extern io_manager rr_io_manager;
/* Channels opened from now on read through real (NULL: unix_io_manager). */
void rr_set_real(io_manager real);
/* Report reads to fn (NULL: stop). */
void rr_set_reader(rr_read_fn fn, void *arg);

#endif
