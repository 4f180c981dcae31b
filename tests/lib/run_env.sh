# shellcheck shell=bash
#
# run_env.sh --- the environment and the test list of a test run, shared
# by the runners (tests/run_tests.sh, tests/kernel/run.sh).  Sourced with
# SRCDIR's default as $1 (the source tree); sets and exports SRCDIR,
# BUILDDIR (default: the current directory if it has debugfs/debugfs, else
# SRCDIR), E2FSPROGS_SBIN (default /usr/sbin), TZ=GMT, LC_ALL=C, and
# E2FSCK_CONFIG=/dev/null (stock e2fsck never asks questions or reads a
# config file); MKE2FS_CONFIG is kept only when set and not empty; PATH
# gets the directory of the interpreter a python3 shim would run.

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

# python3 found once: when the python3 in PATH is a version manager's shim
# (pyenv's, on these machines: a bash script running pyenv, 0.7 s a start
# against 0.1 s), the interpreter it runs goes first in PATH.  The tests
# start python3 thousands of times.
lj_py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) &&
	[ -x "$lj_py" ] &&
	[ "$(readlink -f "$lj_py")" != "$(readlink -f "$(command -v python3)")" ] &&
	PATH=${lj_py%/*}:$PATH
unset lj_py

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
