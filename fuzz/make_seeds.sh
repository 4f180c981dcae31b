#!/bin/bash
# make_seeds.sh OUTDIR --- seed corpora for the fuzz targets:
# OUTDIR/journal/ for fuzz_scan and fuzz_lazyio, OUTDIR/writer/ for
# fuzz_writer (operation streams, see fuzz_writer.c).
#
# Builds logs on the fuzz templates (fuzz/mktemplate.sh) the way the test
# scenarios do (stock debugfs jo/jw/jc through tests/test_lib.sh, then the
# same corruptions and rotations), and writes each journal area, trailing
# all-zero blocks dropped, as one seed file OUTDIR/<kind>-<scenario>.
# Environment: E2FSPROGS_SBIN (stock binaries, default /usr/sbin).
set -u
out=${1:?usage: make_seeds.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$(cd "$here/.." && pwd)}
E2FSPROGS_SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/lj-seeds.XXXXXX")
export SRCDIR E2FSPROGS_SBIN TMPD
trap 'rm -rf "$TMPD"' EXIT
unset MKE2FS_CONFIG
export E2FSCK_CONFIG=/dev/null LC_ALL=C TZ=GMT
# shellcheck source=tests/test_lib.sh
. "$SRCDIR/tests/test_lib.sh"
mkdir -p "$out/journal" "$out/writer"
wout=$(cd "$out/writer" && pwd)
out=$(cd "$out/journal" && pwd)
cd "$TMPD" || exit 1

# extract IMG NAME: the journal area of IMG -> $out/$kind-NAME
extract() {
	local img=$1 name=$2 bs
	bs=$(img_bs "$img")
	journal_pblocks "$img" >.jp
	perl -e '
		my ($img, $bs, $listf, $dst) = @ARGV;
		open(my $lf, "<", $listf) or die; my @p = map { chomp; $_ } <$lf>;
		open(my $fh, "<", $img) or die; binmode $fh;
		my @b;
		for my $p (@p) { seek($fh, $p * $bs, 0); read($fh, my $x, $bs); push @b, $x; }
		pop @b while @b && $b[-1] =~ /^\0*$/;
		open(my $o, ">", $dst) or die; binmode $o; print $o join("", @b);' \
		"$img" "$bs" .jp "$out/$kind-$name"
}

# fresh: the template for $kind in img
fresh() {
	"$here/mktemplate.sh" img "$kind" || exit 1
}

n=0
for kind in 1k 4k; do
	bs=1024
	csum=(-c)	# 1k template: v1 COMPAT_CHECKSUM; 4k: csum v3
	[ "$kind" = 4k ] && bs=4096
	fresh; extract img empty
	fresh; write_txns img "" 3000,3001 3002/3001 3003,3000 >/dev/null
	extract img basic
	fresh; write_txns img "${csum[*]}" 3000,3001 3002/3001 3003,3000 >/dev/null
	extract img csum
	cp img csum.img
	if [ "$kind" = 4k ]; then
		fresh; write_txns img "-c -v 2" 3000,3001 3002/3001 3003,3000 >/dev/null
		extract img csum-v2
		# async_commit with bad commits (tests/j_async_commit)
		fresh; write_txns img -c 3000 3001,3000 3002,3001 3003,3002 >/dev/null
		jsb_set img incompat=$(( $(jsb_get img incompat) | 4 ))
		corrupt_jblock img 3 16
		corrupt_jblock img 11 16
		extract img async
		# bad descriptor / revoke / data checksums (tests/j_csum_*)
		cp csum.img img; corrupt_jblock img 5 4093; extract img bad-desc
		cp csum.img img; corrupt_jblock img 7 4093; extract img bad-revoke
		cp csum.img img; corrupt_jblock img 2 100; extract img bad-data
		cp csum.img img
		commit_set_time img 4 2000000000
		commit_set_time img 8 1000000000
		corrupt_jblock img 5 4093
		extract img stale-desc
	fi
	cp csum.img img; corrupt_jblock img 4 16; extract img bad-commit
	fresh; write_txns img "${csum[*]}" 3000,3001 3002! >/dev/null
	extract img uncommitted
	fresh; write_txns img "${csum[*]}" /3000,3001 3000 /3000 >/dev/null
	extract img revoke-only
	fresh; write_txns img "" 3000,3001 >/dev/null
	mkdata_magic magic "$bs"
	jlog_init cmd; jlog_txn cmd 3002 "" magic; jlog_run img cmd
	extract img escape
	fresh; jsb_set img sequence=4294967292
	write_txns img "${csum[*]}" 3000 3001,3002 3003,3004 3005,3000 3006 3007/3003 >/dev/null
	extract img tid-wrap
	if [ "$kind" = 1k ]; then	# a wrapped log spans the whole journal:
		# 1 MiB here (4 MiB for 4k, more than the fuzzers' -max_len)
		fresh; write_txns img "${csum[*]}" 3000,3001,3002 3003/3000 3001,3004 >/dev/null
		jrotate img 1015
		extract img wrap
	fi
	fresh
	specs=()
	for i in $(seq 1 24); do specs+=("$((3000 + i % 7)),$((3010 + i % 5))"); done
	write_txns img "${csum[*]}" "${specs[@]}" >/dev/null
	extract img many
	# real metadata changes (superblock, descriptors, bitmaps, inode
	# table, directories) logged as the kernel would log them
	fresh; cp img img.mod
	printf 'mkdir newdir\nmkdir newdir/sub\nsymlink newdir/l /d1/file\nrm d1/file\nrmdir d3\n' >m.cmds
	"$STOCK_DEBUGFS" -w -f m.cmds img.mod >/dev/null 2>&1
	journal_pblocks img >.jp
	cmp -l img img.mod | awk -v bs="$bs" '{print int(($1 - 1) / bs)}' \
		| uniq | grep -vxFf .jp >changed
	: >d
	while read -r b; do read_blk img.mod "$b" "$bs" >>d; done <changed
	sboff=1024; [ "$bs" = 1024 ] && sboff=0
	sbcopy_flags d "$sboff"
	jlog_init cmd "${csum[@]}"
	jlog_txn cmd "$(paste -sd, changed)" "" d
	jlog_run img cmd
	extract img metadata
done
# the fuzz targets recompute v2/v3 checksums when bit 0 of journal sb
# byte 0x3FF is set (fuzz_common.h): seeds that start on that path
for s in 4k-csum 4k-csum-v2 4k-async 4k-metadata; do
	[ -f "$out/$s" ] || continue
	cp "$out/$s" "$out/$s-fixup"
	poke "$out/$s-fixup" 1023 01
done
# writer: header byte (template, checksum format, 64bit), then ops
# "op b1 b2" (0-3 add, 4 revoke, 5 commit, 6 make room, 7 checkpoint)
wseed() {	# NAME HEADER OPS...
	local name=$1 hdr=$2
	shift 2
	perl -e 'print pack("C*", map { hex } @ARGV)' "$hdr" "$@" >"$wout/$name"
}
for hdr in 00 01 03 05 0b 0d; do
	wseed "basic-$hdr" "$hdr" 0 1 10  0 2 20  5 0 0  0 1 11  4 2 0  5 0 0
	wseed "escape-$hdr" "$hdr" 0 3 80  0 4 81  5 0 0  0 3 82  5 0 0
	wseed "revoke-add-$hdr" "$hdr" 0 5 1  5 0 0  4 5 0  0 5 2  5 0 0  4 6 0  5 0 0
	# shellcheck disable=SC2046  # the op list is a word list
	wseed "clean-$hdr" "$hdr" $(for i in $(seq 1 40); do printf '0 %x %x 5 0 0 ' $((i % 48)) "$i"; done) 6 ff 0  7 0 0  0 1 3
done
n=$(find "$out" "$wout" -type f | wc -l)
echo "make_seeds.sh: $n seeds in $out and $wout"
