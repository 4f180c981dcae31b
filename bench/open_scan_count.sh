#!/bin/bash
# open_scan_count.sh --- how often each command opens the image and scans
# its log (the README table "Opens of the image and log scans per
# command").
#
# The image: 64 MiB, 4 KiB blocks, metadata_csum and 64bit, a live log of
# 3 transactions (with revokes) written with stock debugfs jo -c/jw/jc by
# tests/lib/jlog.sh mk_lazy_meta, lazy_journal set.  Each command runs on
# a fresh copy under `strace -f -y`:
#
#   opens  openat() of the image;
#   scans  reads (pread64) that start at the log's first block (journal
#          block s_start): every scan of the log starts there, and nothing
#          else reads it (journal superblock, copies and home blocks are
#          other blocks; a channel's cache lives as long as the channel).
#
# Counted apart for ours (our front-end and library) and stock (a stock
# binary run or exec'd under the view, from its execve on).  Needs strace.
# Usage: bench/open_scan_count.sh   (BUILDDIR: the build to measure)
# Last, the rows of a plain ext4 image, ours and the stock binary alone.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sbin=${E2FSPROGS_SBIN:-/usr/sbin}
builddir=${BUILDDIR:-$top}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lj-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v strace >/dev/null || { echo "strace is needed" >&2; exit 1; }
export E2FSPROGS_SBIN=$sbin SRCDIR=$top BUILDDIR=$builddir TMPD=$tmp
export E2FSCK_CONFIG=/dev/null TZ=GMT LC_ALL=C
# shellcheck source=tests/test_lib.sh
. "$top/tests/test_lib.sh"

printf 'mkdir a\nmkdir a/b\nwrite /dev/null a/f\n' >"$tmp/cmds"
img=$tmp/lazy.img
mk_lazy_meta "$img" 64 4096 "64bit,metadata_csum" "-c" "$tmp/cmds" \
	>/dev/null || { echo "could not make the image" >&2; exit 1; }
bs=$(img_bs "$img")
start=$("$sbin/dumpe2fs" "$img" 2>/dev/null | awk '/^Journal start:/ {print $3}')
scan_off=$(($(jblock_pblk "$img" "$start") * bs))

# row LABEL OK CMD...: run CMD on a fresh copy (the word IMG is the
# image); its exit status must be in the comma-separated list OK, else the
# script fails (a failing command's counts mean nothing)
row() {
	local label=$1 ok=$2 a args=() n rc=0
	shift 2
	cp --sparse=always "$img" "$tmp/run.img"
	for a in "$@"; do
		[ "$a" = IMG ] && a=$tmp/run.img
		args+=("$a")
	done
	strace -f -y -qq -o "$tmp/trace" -e trace=execve,openat,pread64 \
		"${args[@]}" </dev/null >"$tmp/out" 2>&1 || rc=$?
	case ",$ok," in
	*",$rc,"*) ;;
	*)	echo "open_scan_count: '$*' exited $rc (expected $ok):" >&2
		tail -n 20 "$tmp/out" >&2
		exit 1 ;;
	esac
	read -r -a n < <(count "$tmp/trace")
	printf '| %-32s | %s (%s) | %s (%s) |\n' "$label" \
		"${n[0]}" "${n[1]}" "${n[2]}" "${n[3]}"
}

# count LOG: "opens_ours opens_stock scans_ours scans_stock" of run.img
count() {
	perl -e '
		my ($log, $img, $off) = @ARGV;
		open(my $fh, "<", $log) or die;
		my (%stock, @n);
		@n = (0, 0, 0, 0);
		while (<$fh>) {
			next unless /^(\d+)\s+(\w+)\((.*)$/;
			my ($pid, $sc, $rest) = ($1, $2, $3);
			if ($sc eq "execve" && $rest =~ /^"([^"]*)"/ &&
			    index($1, "$ENV{BUILDDIR}/") != 0 && /= 0$/) {
				$stock{$pid} = 1;
			} elsif ($sc eq "openat" && index($rest, "\"$img\"") >= 0 &&
				 $rest =~ /= \d+/) {
				$n[$stock{$pid} ? 1 : 0]++;
			} elsif ($sc eq "pread64" && index($rest, "<$img>") >= 0 &&
				 $rest =~ /, (\d+)\)\s+= \d+$/ && $1 == $off) {
				$n[$stock{$pid} ? 3 : 2]++;
			}
		}
		print "@n\n";
	' "$1" "$tmp/run.img" "$scan_off"
}

echo "build: $builddir"
echo "| command | opens ours (stock) | scans ours (stock) |"
echo "| --- | --- | --- |"
row 'debugfs -w -R "mkdir x"' 0 "$builddir/debugfs/debugfs" -w -R "mkdir x" IMG
row 'debugfs -R "stat /"' 0 "$builddir/debugfs/debugfs" -R "stat /" IMG
row 'e2fsck -fy' 0 "$builddir/e2fsck/e2fsck" -fy IMG
row 'e2fsck -fn' 0 "$builddir/e2fsck/e2fsck" -fn IMG
row 'e2fsck -E journal_only -y' 0 "$builddir/e2fsck/e2fsck" -E journal_only -y IMG
row 'tune2fs -O ^lazy_journal' 0 "$builddir/misc/tune2fs" -O ^lazy_journal IMG
row 'tune2fs -l' 0 "$builddir/misc/tune2fs" -l IMG
row 'mke2fs -F -O lazy_journal' 0 "$builddir/misc/mke2fs" -F -O lazy_journal IMG

# Plain ext4 (no lazy_journal; scans do not apply): ours against the stock
# binary alone.
img=$tmp/plain.img
"$sbin/mke2fs" -q -F -t ext4 -b 4096 -O 64bit,metadata_csum \
	-E lazy_itable_init=1 "$img" 64M >/dev/null 2>&1
row 'plain: debugfs -R "stat /"' 0 "$builddir/debugfs/debugfs" -R "stat /" IMG
row 'plain: stock debugfs -R "stat /"' 0 "$sbin/debugfs" -R "stat /" IMG
row 'plain: dumpe2fs -h' 0 "$builddir/misc/dumpe2fs" -h IMG
row 'plain: stock dumpe2fs -h' 0 "$sbin/dumpe2fs" -h IMG
row 'plain: e2fsck -fn' 0 "$builddir/e2fsck/e2fsck" -fn IMG
row 'plain: stock e2fsck -fn' 0 "$sbin/e2fsck" -fn IMG
