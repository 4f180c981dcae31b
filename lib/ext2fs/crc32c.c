/*
 * crc32c.c --- crc32c as libext2fs's ext2fs_crc32c_le computes it (no
 * inversion in or out: the caller seeds), with the SSE4.2 crc32
 * instruction where the CPU has it.
 *
 * Checking a logged block's tag checksum (csum v2/v3) hashes the whole
 * block: building the jmap of a log of N live blocks hashes N blocks, as
 * stock recovery does.  libext2fs's table-driven crc32c does about 1-2
 * GB/s; the instruction several times that.  The CPU is asked once, at
 * the first checksum (cpuid traps to the hypervisor on a VM: never at
 * load, where every process preloading the view would pay it).
 */
#include <stdint.h>
#include <string.h>

#include "lazy_journal.h"
#include "lj_private.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <pthread.h>

/*
 * Three streams at once (the instruction's latency is three cycles, its
 * throughput one a cycle), joined by shifting a stream's crc over the
 * bytes after it: crc(A B) = shift(crc(A), |B|) ^ crc0(B) -- the method of
 * Mark Adler's crc32c.c.  shift by a fixed length is a linear map of the
 * 32-bit crc, kept as four 256-entry tables (one per crc byte).
 */
#define CRC32C_POLY	0x82f63b78U	/* reflected */
#define LONG_RUN	8192
#define SHORT_RUN	256

static uint32_t shift_long[4][256], shift_short[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	for (; vec; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

static void gf2_square(uint32_t *square, const uint32_t *mat)
{
	int n;

	for (n = 0; n < 32; n++)
		square[n] = gf2_times(mat, mat[n]);
}

/* The tables of the map "len zero bytes after" (len a power of two). */
static void shift_tables(uint32_t t[4][256], size_t len)
{
	uint32_t odd[32], even[32], *op = even;
	int n, k;

	odd[0] = CRC32C_POLY;		/* one zero bit */
	for (n = 1; n < 32; n++)
		odd[n] = 1U << (n - 1);
	gf2_square(even, odd);		/* two */
	gf2_square(odd, even);		/* four */
	for (;;) {			/* eight, sixteen, ... */
		gf2_square(even, odd);
		op = even;
		len >>= 1;
		if (!len)
			break;
		gf2_square(odd, even);
		op = odd;
		len >>= 1;
		if (!len)
			break;
	}
	for (k = 0; k < 4; k++) {	/* linear: from the basis vectors */
		t[k][0] = 0;
		for (n = 1; n < 256; n++)
			t[k][n] = (n & (n - 1)) ? t[k][n & (n - 1)] ^
				  t[k][n & -n] : op[8 * k + __builtin_ctz(n)];
	}
}

static void shift_init(void)
{
	shift_tables(shift_long, LONG_RUN);
	shift_tables(shift_short, SHORT_RUN);
}

static uint64_t shift(uint32_t t[4][256], uint64_t crc)
{
	return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^
	       t[2][(crc >> 16) & 0xff] ^ t[3][(crc >> 24) & 0xff];
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc, c1, c2, v, w, x;
	size_t i;
	int r;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	if (len >= 3 * SHORT_RUN)
		pthread_once(&shift_once, shift_init);
	for (r = 0; r < 2; r++) {
		size_t run = r ? SHORT_RUN : LONG_RUN;
		uint32_t (*t)[256] = r ? shift_short : shift_long;

		while (len >= 3 * run) {
			c1 = c2 = 0;
			for (i = 0; i < run; i += 8) {
				memcpy(&v, p + i, 8);
				memcpy(&w, p + run + i, 8);
				memcpy(&x, p + 2 * run + i, 8);
				c = __builtin_ia32_crc32di(c, v);
				c1 = __builtin_ia32_crc32di(c1, w);
				c2 = __builtin_ia32_crc32di(c2, x);
			}
			c = shift(t, c) ^ c1;
			c = shift(t, c) ^ c2;
			p += 3 * run;
			len -= 3 * run;
		}
	}
	while (len >= 8) {
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

static int have_sse42 = -1;	/* unknown until the first checksum (a
				   race stores the same answer) */

static int sse42(void)
{
	unsigned int a, b, c, d;

	if (have_sse42 < 0)
		have_sse42 = __get_cpuid(1, &a, &b, &c, &d) &&
			     (c & bit_SSE4_2) != 0;
	return have_sse42;
}
#endif

int lj_crc32c_fast(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	return sse42();
#else
	return 0;
#endif
}

uint32_t lj_crc32c(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (sse42())
		return crc32c_hw(crc, buf, len);
#endif
	return ext2fs_crc32c_le(crc, buf, len);
}
