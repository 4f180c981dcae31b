/*
 * fuse2fs/crc.c --- libext2fs's checksums through the CPU's crc32
 * instruction, in the daemon.
 *
 * libext2fs 1.47 computes crc32c in software (about 1-2 GB/s) for every
 * checksum it sets or verifies on a metadata_csum file system: an inode's
 * at each read and write, a directory block's (4 KiB) each time
 * ext2fs_mkdir, ext2fs_link or a block read verifies or sets one, extent
 * and bitmap blocks.  A mkdir through the mount hashes about 12 KiB in
 * there: 5.6% of the daemon's samples at 50,000 directories on a 2 TB
 * lazy mount (perf), 1.3% through the instruction (doc/benchmarks.md).
 * The library calls its exported ext2fs_crc32c_le through the dynamic
 * linker, so the executable's definition below is the one every such
 * call reaches; it computes the same function (lj_crc32c, unit-tested
 * against libext2fs's), and on a CPU without the instruction hands the
 * call to the library's own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "server.h"

typedef __u32 (*crc_fn)(__u32, unsigned char const *, size_t);

__u32 ext2fs_crc32c_le(__u32 crc, unsigned char const *p, size_t len)
{
	static crc_fn lib;	/* a race stores the same pointer */

	if (lj_crc32c_fast())
		return lj_crc32c(crc, p, len);
	if (!lib)
		lib = (crc_fn)dlsym(RTLD_NEXT, "ext2fs_crc32c_le");
	return lib(crc, p, len);
}
