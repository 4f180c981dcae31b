#!/bin/bash
# e2fsck_readonly.sh --- `e2fsck -fn` on a lazy file system, in the same
# run, on one large sparse image with many inodes in use:
#
#   view     our e2fsck -fn: stock e2fsck under the migrated view
#   stock    stock e2fsck -fn on a stock-replayed copy (the flag cleared)
#
# The image: SIZE (default 64G) sparse, 4 KiB blocks, FILES (default
# 200000) files in 400 directories copied in by stock mke2fs -d; then every
# inode-table block that holds used inodes is logged (a live log) with
# stock debugfs jo/jw/jc and lazy_journal set, so e2fsck reads them
# through the journal.
# Reported: medians of RUNS (default 5) runs of the wall clock and of the
# CPU time (user + system; the two ways interleaved, bench/interleave),
# the peak RSS (/usr/bin/time, one more run), the ratios, and whether the
# two outputs agree (device names masked).  Every run must exit 0 (a
# clean check): a run that fails, or outputs that differ, fail the
# script.
# Usage: bench/e2fsck_readonly.sh
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_test_lib
ours=$builddir/e2fsck/e2fsck
runs=${RUNS:-5}
size=${SIZE:-64G}
files=${FILES:-200000}

img=$tmp/big.img
echo "populating $files files..."
mkdir "$tmp/tree"
(cd "$tmp/tree" && for ((d = 0; d < 400; d++)); do
	mkdir "d$d"
	(cd "d$d" && seq -f "f%g" 1 $((files / 400)) | xargs touch)
done)
bench_stock_image "$img" "$size" -J size=1024 -d "$tmp/tree"
rm -rf "$tmp/tree"

# log the inode-table blocks that hold used inodes (their home copies:
# the metadata stays consistent, e2fsck reads them through the journal)
ipb=$(("$(img_bs "$img")" / $("$sbin/dumpe2fs" -h "$img" 2>/dev/null | awk -F: '/^Inode size/ {print $2+0}')))
used=$("$sbin/dumpe2fs" -h "$img" 2>/dev/null | awk -F: '/^Inode count/ {c=$2} /^Free inodes/ {f=$2} END {print c-f}')
ipg=$("$sbin/dumpe2fs" -h "$img" 2>/dev/null | awk -F: '/^Inodes per group/ {print $2+0}')
"$sbin/dumpe2fs" "$img" 2>/dev/null | awk -v ipg="$ipg" -v ipb="$ipb" '
	/^Group [0-9]+:/ { g = $2 + 0 }
	/Inode table at/ { split($4, a, "-"); it[g] = a[1] }
	/ free inodes,/ { split($0, x, ","); for (i in x) if (x[i] ~ /free inodes/) { fi[g] = x[i] + 0 } }
	END { for (g in it) { n = ipg - fi[g]; for (b = 0; b < (n + ipb - 1) / ipb; b++) print it[g] + b } }' \
	| sort -n >"$tmp/blocks"
nlog=$(wc -l <"$tmp/blocks")
perl -e '
	my ($img, $list, $dir) = @ARGV;
	open(my $fh, "<", $img) or die; open(my $l, "<", $list) or die;
	my @b = map { chomp; $_ } <$l>;
	open(my $c, ">", "$dir/cmds") or die;
	print $c "jo -c\n";
	for (my $t = 0; $t * 256 < @b; $t++) {
		my @s = @b[$t * 256 .. ($t * 256 + 255 < $#b ? $t * 256 + 255 : $#b)];
		open(my $d, ">", "$dir/d$t") or die;
		for my $x (@s) { sysseek($fh, $x * 4096, 0); sysread($fh, my $buf, 4096); print $d $buf }
		close $d;
		print $c "jw -b " . join(",", @s) . " $dir/d$t\n";
		print $c "jc\njo -c\n" if $t % 16 == 15;
	}
	print $c "jc\n";' "$img" "$tmp/blocks" "$tmp"
"$sbin/debugfs" -w -f "$tmp/cmds" "$img" >/dev/null 2>&1
rm -f "$tmp"/d[0-9]*
set_lazy "$img"
echo "image: $size sparse, $used inodes in use, $nlog inode-table blocks logged; $(lazy_status "$img")"
stock_copy "$img" "$tmp/rep.img"
bench_run 0 "$tmp/replay.out" "$sbin/e2fsck" -E journal_only -y "$tmp/rep.img"

# The two ways in rounds of rotated order (bench/interleave: medians of
# the wall clock and of the CPU time; a failing run fails the script),
# then one run each under /usr/bin/time for the peak RSS and the outputs.
sync
"$builddir/bench/interleave" "$runs" "$ours" -fn "$img" -- \
	"$sbin/e2fsck" -fn "$tmp/rep.img" >"$tmp/times" ||
	{ echo "bench: a timed e2fsck -fn run failed" >&2; exit 1; }
{ read -r tv cv; read -r ts cs; } <"$tmp/times"
bench_run 0 "$tmp/view.out" /usr/bin/time -f %M -o "$tmp/rss" "$ours" -fn "$img"
rv=$(tail -n 1 "$tmp/rss")
bench_run 0 "$tmp/stock.out" /usr/bin/time -f %M -o "$tmp/rss" "$sbin/e2fsck" -fn "$tmp/rep.img"
rs=$(tail -n 1 "$tmp/rss")
printf '%-8s %9s %9s %12s\n' way wall_ms cpu_ms peak_rss_kB
printf '%-8s %9.0f %9.0f %12s\n' view "$tv" "$cv" "$rv" stock "$ts" "$cs" "$rs"
awk -v v="$tv" -v s="$ts" -v cv="$cv" -v cs="$cs" 'BEGIN {printf "view/stock %.2f wall, %.2f cpu\n", v / s, cv / cs}'
for w in view stock; do
	grep -vE '^e2fsck [0-9]' "$tmp/$w.out" | sed -E 's#[^ ]*(big\.img|rep\.img)#IMG#g' >"$tmp/$w.norm"
done
if cmp -s "$tmp/view.norm" "$tmp/stock.norm"; then
	echo "view output = stock's on the replayed copy"
else
	echo "view output DIFFERS from stock's on the replayed copy"
	exit 1
fi
tail -n 1 "$tmp/view.norm"
