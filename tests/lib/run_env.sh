# shellcheck shell=bash
#
# run_env.sh --- the environment and the test list of a test run, shared
# by the runners (tests/run_tests.sh, tests/kernel/run.sh).  Sourced with
# SRCDIR's default as $1 (the source tree); sets and exports SRCDIR,
# BUILDDIR (default: the current directory if it has debugfs/debugfs, else
# SRCDIR), E2FSPROGS_SBIN (default /usr/sbin), TZ=GMT, LC_ALL=C, and
# E2FSCK_CONFIG=/dev/null (stock e2fsck never asks questions or reads a
# config file); MKE2FS_CONFIG is kept only when set and not empty.

SRCDIR=${SRCDIR:-$(cd "$1" && pwd)}
if [ -z "${BUILDDIR:-}" ]; then
	if [ -x "$PWD/debugfs/debugfs" ]; then
		BUILDDIR=$PWD
	else
		BUILDDIR=$SRCDIR
	fi
fi
BUILDDIR=$(cd "$BUILDDIR" && pwd)
E2FSPROGS_SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
TZ=GMT
LC_ALL=C
E2FSCK_CONFIG=/dev/null
MKE2FS_CONFIG=${MKE2FS_CONFIG:-}
export SRCDIR BUILDDIR E2FSPROGS_SBIN TZ LC_ALL E2FSCK_CONFIG MKE2FS_CONFIG
[ -z "$MKE2FS_CONFIG" ] && unset MKE2FS_CONFIG

# test_names DIR [NAME...]: the tests to run, one a line: the NAMEs (a
# trailing slash and leading directories dropped), else every
# subdirectory of DIR that has a script
test_names() {
	local dir=$1 t d
	shift
	if [ $# -gt 0 ]; then
		for t in "$@"; do
			t=${t%/}
			echo "${t##*/}"
		done
	else
		for d in "$dir"/*/; do
			d=${d%/}
			[ -f "$d/script" ] && echo "${d##*/}"
		done
	fi
	return 0
}
