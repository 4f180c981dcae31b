/*
 * mke2fs_opts.h --- mke2fs's command line as both our launcher
 * (mke2fs_launch.c, no C library) and the rest of our mke2fs
 * (mke2fs_plan.h) read it.
 */
#ifndef MK_OPTS_H
#define MK_OPTS_H

/* mke2fs 1.47 getopt string */
#define MKE2FS_OPTS "b:cd:e:g:i:jl:m:no:qr:s:t:vC:DE:FG:I:J:KL:M:N:O:R:ST:U:Vz:"

#endif
