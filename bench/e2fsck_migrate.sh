#!/bin/bash
# e2fsck_migrate.sh --- our `e2fsck -E journal_only -y` (migrate the jmap
# home) against stock e2fsck 1.47 replay of the same log, in the same run,
# on identical copies of the image (the stock copy with lazy_journal
# cleared, as stock refuses the unknown COMPAT bit).
#
#   (a) 200 transactions that each log the same 16 (scattered) blocks
#   (b) a ~1 GiB log (sparse 16 GiB image, -J size=1200), 64-block
#       transactions drawn from a pool of unique blocks of ~10% of all
#       logged blocks
#
# Reported per tool: write calls to the image, bytes written, backward
# seeks between consecutive writes, wall time (best of RUNS runs without
# strace; the write figures come from one run under strace -f -y), and
# whether the two results are equal outside the journal.  Every run must
# exit 0 (a timed or traced run that fails fails the script), and the two
# results must be equal.
# Needs strace (apt-get install -y strace).  Usage:
#   bench/e2fsck_migrate.sh [a] [b]       (default: both)
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_test_lib		# stock_copy, cmp_outside_journal, set_lazy
ours=$builddir/e2fsck/e2fsck
runs=${RUNS:-3}
command -v strace >/dev/null || { echo "strace is needed" >&2; exit 1; }

# writes_of STRACE_LOG IMG: "calls bytes backward_seeks" for the writes to
# IMG (pwrite64/pwritev, and write after lseek), in the order issued
writes_of() {
	perl -e '
		my ($log, $img) = @ARGV;
		open(my $fh, "<", $log) or die;
		my (%pos, $calls, $bytes, $back, $last);
		($calls, $bytes, $back) = (0, 0, 0);
		while (<$fh>) {
			next unless /^(\d+)\s+(\w+)\((\d+)<([^>]*)>,\s*(.*)$/;
			my ($pid, $sc, $fd, $path, $rest) = ($1, $2, $3, $4, $5);
			next unless $path eq $img;
			my $key = "$pid/$fd";
			my ($off, $len);
			if ($sc eq "lseek" && $rest =~ /^(\d+), SEEK_SET\)\s+=\s+(\d+)/) {
				$pos{$key} = $2; next;
			} elsif ($sc eq "pwrite64" && $rest =~ /,\s*(\d+),\s*(\d+)\)\s+=\s+(\d+)$/) {
				($len, $off) = ($3, $2);
			} elsif ($sc =~ /^pwritev2?$/ && $rest =~ /,\s*\d+,\s*(\d+)(,\s*\w+)?\)\s+=\s+(\d+)$/) {
				($len, $off) = ($3, $1);
			} elsif ($sc eq "write" && $rest =~ /\)\s+=\s+(\d+)$/) {
				($len, $off) = ($1, $pos{$key} // 0);
				$pos{$key} = $off + $len;
			} else { next; }
			$calls++; $bytes += $len;
			$back++ if defined($last) && $off < $last;
			$last = $off;
		}
		print "$calls $bytes $back\n";' "$1" "$2"
}

# measure LABEL NAME TOOL IMG: one strace run on a copy, then the best wall
# time of $runs runs on fresh copies; prints a table row.  The copy made
# for the strace run is kept as $IMG.result.
measure() {
	local label=$1 name=$2 tool=$3 img=$4 w best=0 t0 t1 ms i
	cp --sparse=always "$img" "$img.run"
	bench_run 0 "$tmp/run.out" strace -f -y -qq \
		-e trace=pwrite64,pwritev,pwritev2,write,lseek \
		-o "$tmp/strace" "$tool" -E journal_only -y "$img.run"
	w=$(writes_of "$tmp/strace" "$(readlink -f "$img.run")")
	mv "$img.run" "$img.result"
	for ((i = 0; i < runs; i++)); do
		cp --sparse=always "$img" "$img.run"
		sync
		t0=$(bench_us)
		bench_run 0 "$tmp/run.out" "$tool" -E journal_only -y "$img.run"
		t1=$(bench_us)
		ms=$(((t1 - t0) / 1000))
		if [ "$best" -eq 0 ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
		rm -f "$img.run"
	done
	read -r calls bytes back <<<"$w"
	printf '%-28s %-7s %9s %13s %9s %9s\n' "$label" "$name" \
		"$calls" "$bytes" "$back" "$best"
}

# compare LABEL LAZY_IMG: run both tools and report
compare() {
	local label=$1 img=$2 live v
	# -c: case (b)'s random contents land on bitmaps too, which stock
	# debugfs would refuse to load; the jmap does not need them
	bench_run 0 "$tmp/jmap.out" "$OUR_DEBUGFS" -c -R "jmap -s" "$img"
	live=$(awk -F: '/^Live mappings/ {gsub(/ /, "", $2); print $2}' "$tmp/jmap.out")
	[ -n "$live" ] || { cat "$tmp/jmap.out" >&2; exit 1; }
	echo "$label: $live live blocks; $(grep -E '^(Transactions in log|Log blocks in use):' "$tmp/jmap.out" | tr -s ' ' | paste -sd ';')"
	stock_copy "$img" "$tmp/stock.img"
	printf '%-28s %-7s %9s %13s %9s %9s\n' case tool write_calls bytes_written back_seeks wall_ms
	measure "$label" stock "$sbin/e2fsck" "$tmp/stock.img"
	measure "$label" ours "$ours" "$img"
	v=$(cmp_outside_journal "$img.result" "$tmp/stock.img.result") || {
		echo "$label: ours vs stock after replay: $v"
		exit 1
	}
	echo "$label: ours vs stock after replay: $v"
	echo "$label: ours after: $(lazy_status "$img.result")"
	rm -f "$img.result" "$tmp/stock.img" "$tmp/stock.img.result"
	echo
}

case_a() {
	local img=$tmp/a.img i k l=""
	bench_stock_image "$img" 1G -J size=64
	for ((k = 0; k < 16; k++)); do
		l="$l${l:+,}$((100000 + 997 * k))"
	done
	head -c $((16 * 4096)) /dev/urandom >"$tmp/data"
	{
		echo "jo -c"
		for ((i = 0; i < 200; i++)); do
			echo "jw -b $l $tmp/data"
		done
		echo "jc"
	} >"$tmp/cmds"
	"$sbin/debugfs" -w -f "$tmp/cmds" "$img" >/dev/null 2>&1
	set_lazy "$img"
	compare "(a) 200 txns x same 16" "$img"
	rm -f "$img"
}

case_b() {
	local img=$tmp/b.img
	bench_stock_image "$img" 16G -J size=1200
	# ~1.1 GiB of logged copies
	bench_random_log "$img" "${LOGGED:-286720}" 1000000 3 "jo -c"
	set_lazy "$img"
	compare "(b) ~1 GiB log, 10% unique" "$img"
	rm -f "$img"
}

cases=${*:-a b}
for c in $cases; do
	"case_$c"
done
