/*
 * test_progs.h --- small helpers shared by the test programs in
 * tests/progs/ and the Check unit tests (tests/unit/unit_image.c).
 */
#ifndef LJ_TEST_PROGS_H
#define LJ_TEST_PROGS_H

#include <stdint.h>
#include <stdlib.h>

/*
 * A deterministic block: an LCG stream seeded by (home, a, b), as
 * big-endian words; the caller then marks the first word (never the jbd2
 * magic, recognisable in a hex dump).
 */
static inline void lj_test_pattern(unsigned char *buf, unsigned int bs,
				   uint64_t home, uint32_t a, uint32_t b)
{
	uint32_t x = (uint32_t)(home * 2654435761U) ^ (a * 40503U) ^
		     (b * 2246822519U);
	unsigned int i;

	for (i = 0; i < bs; i += 4) {
		x = x * 1664525U + 1013904223U;
		buf[i] = (unsigned char)(x >> 24);
		buf[i + 1] = (unsigned char)(x >> 16);
		buf[i + 2] = (unsigned char)(x >> 8);
		buf[i + 3] = (unsigned char)x;
	}
}

/* A whole unsigned number (strtoul base 0), else usage() (no return). */
static inline unsigned long lj_test_num(const char *s, void (*usage)(void))
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

#endif
