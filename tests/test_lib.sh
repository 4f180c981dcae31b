# shellcheck shell=bash
#
# test_lib.sh --- helpers shared by the scenario scripts in tests/*/script.
#
# Sourced by each script; run_tests.sh exports TMPD (a fresh scratch
# directory), SRCDIR, BUILDDIR and E2FSPROGS_SBIN.  Everything a script
# prints to stdout is compared with its expect file, so helpers print only
# deterministic text (no times, UUIDs or temporary paths).
#
# The helpers live in small files under tests/lib/, one job each; their
# byte-level work is in the Perl module tests/lib/LJ.pm (core Perl only):
#   perl.sh      calling LJ.pm (lj_perl); PERL_JLIB, LJ_SB_PERL for scripts
#   images.sh    images by stock mke2fs, geometry, deterministic contents
#   jlog.sh      journals written with stock debugfs jo/jw/jc, lazy images
#   blocks.sh    raw bytes of an image and of its journal blocks
#   jsb.sh       journal superblock and commit blocks
#   sb.sh        file-system superblock: feature bits, fields, checksums
#   oracle.sh    our jmap / log end / jlookup against the logdump oracle
#   replay.sh    stock e2fsck replay as referee (compared outside the journal)
#   fsck.sh      e2fsck runs made deterministic, the lazy state
#   hostile.sh   every tool on a bad or corrupted image
#   workload.sh  the workload generator and its checks
#   home.sh      debugfs -w: blocks changed at home, views through the jmap
#   writer.sh    the lazy writer's log judged by stock e2fsprogs
#   crash.sh     the crash model
# A new helper goes into the file of its job (or a new file sourced by the
# scripts that need it).

SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
STOCK_DEBUGFS=$SBIN/debugfs
STOCK_E2FSCK=$SBIN/e2fsck
STOCK_DUMPE2FS=$SBIN/dumpe2fs
BUILDDIR=${BUILDDIR:-${SRCDIR:-.}}
SRCDIR=${SRCDIR:-.}
# shellcheck disable=SC2034  # used by the scripts and the files below
{
STOCK_MKE2FS=$SBIN/mke2fs
OUR_DEBUGFS=$BUILDDIR/debugfs/debugfs
OUR_E2FSCK=$BUILDDIR/e2fsck/e2fsck
OUR_TUNE2FS=$BUILDDIR/misc/tune2fs
OUR_MKE2FS=$BUILDDIR/misc/mke2fs
LJ_APPLY=$BUILDDIR/tests/progs/lj_apply
LJ_WRITE=$BUILDDIR/tests/progs/lj_write
WORKLOAD=$BUILDDIR/bench/workload
}
TESTLIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034  # used by oracle.sh and tests/kernel/klib.sh
ORACLE_AWK=$TESTLIB_DIR/oracle_jmap.awk

# shellcheck source=tests/lib/perl.sh
. "$TESTLIB_DIR/lib/perl.sh"
# shellcheck source=tests/lib/images.sh
. "$TESTLIB_DIR/lib/images.sh"
# shellcheck source=tests/lib/jlog.sh
. "$TESTLIB_DIR/lib/jlog.sh"
# shellcheck source=tests/lib/blocks.sh
. "$TESTLIB_DIR/lib/blocks.sh"
# shellcheck source=tests/lib/jsb.sh
. "$TESTLIB_DIR/lib/jsb.sh"
# shellcheck source=tests/lib/sb.sh
. "$TESTLIB_DIR/lib/sb.sh"
# shellcheck source=tests/lib/oracle.sh
. "$TESTLIB_DIR/lib/oracle.sh"
# shellcheck source=tests/lib/replay.sh
. "$TESTLIB_DIR/lib/replay.sh"
# shellcheck source=tests/lib/fsck.sh
. "$TESTLIB_DIR/lib/fsck.sh"
# shellcheck source=tests/lib/hostile.sh
. "$TESTLIB_DIR/lib/hostile.sh"
# shellcheck source=tests/lib/workload.sh
. "$TESTLIB_DIR/lib/workload.sh"
# shellcheck source=tests/lib/home.sh
. "$TESTLIB_DIR/lib/home.sh"
# shellcheck source=tests/lib/writer.sh
. "$TESTLIB_DIR/lib/writer.sh"
# shellcheck source=tests/lib/crash.sh
. "$TESTLIB_DIR/lib/crash.sh"
