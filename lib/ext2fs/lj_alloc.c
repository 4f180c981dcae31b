/*
 * lj_alloc.c --- allocation helpers shared by the library: a growable
 * array on ext2fs_resize_mem with checked size products.  (Not
 * ext2fs_resize_array: its prototype and inline definition disagree on
 * the argument order in 1.47.0.)
 */
#include "lazy_journal.h"
#include "lj_private.h"

errcode_t lj_array_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return EXT2_ET_NO_MEMORY;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size || ncap * size > ULONG_MAX)
		return EXT2_ET_NO_MEMORY;
	if (ext2fs_resize_mem((unsigned long)(*cap * size),
			      (unsigned long)(ncap * size), arr))
		return EXT2_ET_NO_MEMORY;
	*cap = ncap;
	return 0;
}

errcode_t lj_array_resize(void *arr, size_t count, size_t size)
{
	if (!count)
		count = 1;
	if (count > SIZE_MAX / size || count * size > ULONG_MAX)
		return EXT2_ET_NO_MEMORY;
	return ext2fs_resize_mem(0, (unsigned long)(count * size), arr);
}
