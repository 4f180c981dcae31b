# shellcheck shell=bash
#
# perl.sh --- calling the Perl module tests/lib/LJ.pm (core Perl only).
# Sourced by test_lib.sh.

LJ_PERLDIR=$TESTLIB_DIR/lib

# lj_perl COMMAND ARGS...: run LJ::COMMAND(ARGS) (stdin, stdout and the
# exit status are the command's)
lj_perl() {
	perl -I"$LJ_PERLDIR" -MLJ -e 'LJ::main(@ARGV)' -- "$@"
}

# lj_perl_journal IMG COMMAND ARGS...: lj_perl COMMAND BS JPBLOCKS ARGS...
# with IMG's block size and the file of its journal's fs blocks
# ($TMPD/.jpblocks, from journal_pblocks)
lj_perl_journal() {
	local img=$1 cmd=$2 bs
	shift 2
	bs=$(img_bs "$img")
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	lj_perl "$cmd" "$bs" "$TMPD/.jpblocks" "$@"
}

# For scripts with their own inline Perl: `perl -e "$PERL_JLIB"'...'`
# gets crc32c (raw, as jbd2 uses it), rd, wr and jsb_fix_csum;
# `perl -e "$LJ_SB_PERL"'...'` gets norm (superblock with the bookkeeping
# fields masked) and is_backup.
# shellcheck disable=SC2034  # used by the scripts
PERL_JLIB="use lib '$LJ_PERLDIR'; use LJ qw(:jlib);
"
# shellcheck disable=SC2034  # used by the scripts
LJ_SB_PERL="use lib '$LJ_PERLDIR'; use LJ qw(:sb);
"
