#!/bin/bash
#
# mount.sh --- the lazy mount against stock fuse2fs (issue 21 item 4): the
# FAST'17 paper's metadata workloads (MakeDirs, CreateFiles, ListDirs,
# ReadFiles, RemoveFiles, RemoveDirs; bench/mount_work.py, bench/workload's
# tree shapes) on stock fuse2fs over a plain ext4 image and on our
# fuse2fs/fuse2fs over a lazy_journal image of the same size, in one run.
# Each phase is one mount (cold FUSE and daemon caches): mount, the work,
# umount, the daemon gone.  Run from the build tree; needs root, /dev/fuse,
# strace, gnuplot (pngcairo) and python3.
#
#  * Wall time: REPS runs (default 3) of the six phases, stock and lazy
#    interleaved, no tracing; the median per phase.
#  * Device I/O: one more run of each under strace (-ff, every pread64/
#    pwrite64/read/write/lseek/fsync on the image, by every thread of the
#    daemon and by our front-end before it execs stock), converted by
#    bench/mount_trace.py into block traces: each request cut into journal
#    (the journal inode's blocks, debugfs "blocks <8>"), data (the data
#    blocks of the files the run made, debugfs "blocks PATH" after each
#    phase) and metadata home.  The stock trace is rewritten as stock ext4
#    with jbd2 would issue it (metadata journaled at each 5 s commit and at
#    flushes, written home at checkpoints; blocks whose bytes the phase
#    left as they were, compared with a copy of the image taken before
#    it, are not written at all: see mount_trace.py).
#  * The traces go through the DM-SMR/CMR model (bench/smr/smr_model.py,
#    its defaults; MODEL_OPTS adds "-p NAME=VALUE").
#  * Tables on stdout (bench/mount_report.py) and the paper's Figure 6
#    from these traces (disk offset over the model's DM-SMR time: reads,
#    data and metadata home writes, log writes; ext4 above, lazy below)
#    as OUT/fig6.png, drawn by gnuplot.
#
# Environment: SIZE (images, sparse, default 8G), N (directories for
# MakeDirs, files for CreateFiles, default 2000: about 6 minutes on 2 busy
# cores, most of it the stock daemon under strace), REPS (default 3), BAND
# (the lazy image's -E smr_band=, default 30M: the journal on a band
# boundary, as on an SMR disk), OUT (output directory, default
# ./mount-bench.out: the report, the PNG, the traces), MODEL_OPTS, TMPDIR.
# Any failing tool, mount, phase or check fails the script.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

SIZE=${SIZE:-8G}
N=${N:-2000}
REPS=${REPS:-3}
BAND=${BAND:-30M}
OUT=${OUT:-mount-bench.out}
MODEL_OPTS=${MODEL_OPTS:-}
STOCK_FUSE2FS=${STOCK_FUSE2FS:-$(command -v fuse2fs || echo /usr/bin/fuse2fs)}
OUR_FUSE2FS=$builddir/fuse2fs/fuse2fs
WORK=$top/bench/mount_work.py
phases="makedirs createfiles listdirs readfiles removefiles removedirs"

for t in strace gnuplot python3 /usr/bin/time "$STOCK_FUSE2FS"; do
	command -v "$t" >/dev/null || { echo "mount.sh: $t is missing" >&2; exit 1; }
done
if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "mount.sh: needs root and /dev/fuse" >&2
	exit 1
fi
mkdir -p "$OUT"
m=$tmp/m
mkdir -p "$m"
cleanup() {
	if mountpoint -q "$m"; then umount "$m"; fi
	if [ -n "${daemon_pid:-}" ]; then wait "$daemon_pid" || :; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "mount.sh: $*" >&2
	exit 1
}

# new_image KIND IMG: a fresh sparse image; stock mke2fs for stock, ours
# with -O lazy_journal (lazy journal size, journal on a band boundary).
new_image() {
	rm -f "$2"
	if [ "$1" = stock ]; then
		bench_stock_image "$2" "$SIZE"
	else
		bench_lazy_image "$2" "$SIZE" \
			"lazy_itable_init=1,nodiscard,smr_band=$BAND"
	fi
}

prog_of() {
	if [ "$1" = stock ]; then echo "$STOCK_FUSE2FS"; else echo "$OUR_FUSE2FS"; fi
}

# fs_mount KIND IMG [STRACE_PREFIX]: mount IMG on $m, wait until mounted.
# The daemon runs in the foreground (-f) as our child, $daemon_pid: under
# /usr/bin/time (its CPU time into $tmp/cpu), or traced under strace.
daemon_pid=
fs_mount() {
	local prog i
	prog=$(prog_of "$1")
	if [ -z "${3:-}" ]; then
		/usr/bin/time -f "%U %S" -o "$tmp/cpu" \
			"$prog" "$2" "$m" -f >"$tmp/mount.out" 2>&1 &
	else
		strace -ff -ttt -y -s 0 --seccomp-bpf -P "$2" \
			-e trace=pread64,pwrite64,preadv,pwritev,preadv2,pwritev2,read,write,lseek,fsync,fdatasync,openat,close \
			-o "$3" "$prog" "$2" "$m" -f >"$tmp/mount.out" 2>&1 &
	fi
	daemon_pid=$!
	for i in $(seq 1 3000); do
		mountpoint -q "$m" && return 0
		kill -0 "$daemon_pid" 2>/dev/null ||
			fail "mount of $2 by $prog failed: $(tail -n 1 "$tmp/mount.out")"
		sleep 0.005
	done
	fail "mount of $2 by $prog: not mounted after 15 s"
}

# fs_umount IMG: umount, then wait for the daemon to exit (it commits its
# last transaction after the kernel lets go); its exit status must be 0.
fs_umount() {
	local st=0
	umount "$m"
	wait "$daemon_pid" || st=$?
	daemon_pid=
	[ "$st" = 0 ] ||
		fail "fuse2fs on $1 exited with $st: $(tail -n 1 "$tmp/mount.out")"
}

# fsck_clean KIND IMG: stock e2fsck -fn (plain) or ours (lazy, through
# the jmap) finds nothing to repair.
fsck_clean() {
	local fsck=$sbin/e2fsck
	[ "$1" = lazy ] && fsck=$builddir/e2fsck/e2fsck
	"$fsck" -fn "$2" >"$tmp/fsck.out" 2>&1 ||
		{ cat "$tmp/fsck.out" >&2; fail "$fsck -fn $2 is not clean"; }
}

# work PHASE [EXTRA...]: the phase on $m; prints "ops=N secs=S".
work() {
	local ph=$1
	shift
	python3 "$WORK" "$ph" "$m" -n "$N" "$@"
}

# timed_run KIND REP: the six phases, untraced; one line per phase into
# $tmp/times: KIND PHASE REP MOUNT_US WORK_US UMOUNT_US OPS CPU_US (the
# daemon's user + system time, mount to exit).
timed_run() {
	local kind=$1 img=$tmp/$1.img ph t0 t1 t2 t3 r ops secs cu cs
	new_image "$kind" "$img"
	for ph in $phases; do
		t0=$(bench_us)
		fs_mount "$kind" "$img"
		t1=$(bench_us)
		r=$(work "$ph")
		ops=${r#ops=}; ops=${ops%% *}
		secs=${r#*secs=}
		t2=$(bench_us)
		fs_umount "$img"
		t3=$(bench_us)
		read -r cu cs <"$tmp/cpu"
		echo "$kind $ph $2 $((t1 - t0)) $(awk -v s="$secs" 'BEGIN { printf "%d", s * 1e6 }') $((t3 - t2)) $ops $(awk -v u="$cu" -v s="$cs" 'BEGIN { printf "%d", (u + s) * 1e6 }')" >>"$tmp/times"
	done
	fsck_clean "$kind" "$img"
	rm -f "$img"
}

# data_blocks KIND IMG LIST: the data blocks of the files in LIST (paths
# under $m), by debugfs (stock's on plain ext4, ours through the jmap).
data_blocks() {
	local dbg=$sbin/debugfs n got
	[ "$1" = lazy ] && dbg=$builddir/debugfs/debugfs
	sed "s|^$m|blocks |" "$3" >"$tmp/blocks.cmd"
	"$dbg" -f "$tmp/blocks.cmd" "$2" 2>"$tmp/blocks.err" |
		grep -E '^[0-9 ]+$' >"$tmp/blocks.out" || true
	n=$(wc -l <"$3")
	got=$(wc -l <"$tmp/blocks.out")
	[ "$n" = "$got" ] ||
		fail "$dbg: blocks of $got files of $n: $(head -n 1 "$tmp/blocks.err")"
	cat "$tmp/blocks.out"
}

# traced_run KIND: the six phases under strace; per phase the model trace
# $OUT/KIND.PHASE.tr, the summary and the operation count.
traced_run() {
	local kind=$1 img mode=lazy ph r pre list='' t0 t1 before
	img=$(readlink -f "$tmp")/$1.img
	[ "$kind" = stock ] && mode=baseline
	new_image "$kind" "$img"
	"$sbin/debugfs" -R "blocks <8>" "$img" >"$tmp/$kind.journal" 2>/dev/null
	: >"$tmp/$kind.data"
	for ph in $phases; do
		pre=$tmp/st.$kind.$ph
		before=()
		if [ "$kind" = stock ]; then	# what the phase did not change
			cp --sparse=always "$img" "$tmp/before.img"
			before=(--before "$tmp/before.img")
		fi
		t0=$(bench_us)
		fs_mount "$kind" "$img" "$pre"
		if [ "$ph" = createfiles ]; then
			list=$tmp/$kind.files
			r=$(work "$ph" -l "$list")
		else
			r=$(work "$ph")
		fi
		fs_umount "$img"
		t1=$(bench_us)
		r=${r#ops=}
		echo "${r%% *}" >"$OUT/$kind.$ph.ops"
		if [ -n "$list" ] && [ "$ph" = createfiles ]; then
			data_blocks "$kind" "$img" "$list" >>"$tmp/$kind.data"
		fi
		python3 "$top/bench/mount_trace.py" --img "$img" \
			--journal "$tmp/$kind.journal" --data "$tmp/$kind.data" \
			--phase "$ph" --mode "$mode" --summary "$OUT/$kind.$ph.sum" \
			"${before[@]}" "$pre".* >"$OUT/$kind.$ph.tr"
		rm -f "$pre".* "$tmp/before.img"
		echo "$kind $ph $((t1 - t0)) $(($(bench_us) - t1))" >>"$tmp/traced"
	done
	if [ "$kind" = lazy ]; then
		"$builddir/debugfs/debugfs" -R "jmap -s" "$img" \
			>"$OUT/lazy.jmap" 2>/dev/null
	fi
	fsck_clean "$kind" "$img"
	rm -f "$img"
	# shellcheck disable=SC2086
	for ph in $phases; do cat "$OUT/$kind.$ph.tr"; done |
		python3 "$top/bench/smr/smr_model.py" \
			-p band="$(numfmt --from=iec "$BAND")" $MODEL_OPTS \
			--timeline "$OUT/$kind.timeline" - >"$OUT/$kind.model"
}

t_start=$(bench_us)
: >"$tmp/times"
for r in $(seq 1 "$REPS"); do
	timed_run stock "$r"
	timed_run lazy "$r"
done
traced_run stock
traced_run lazy
cp "$tmp/times" "$OUT/times"

{
	echo "## bench/mount.sh (SIZE=$SIZE sparse, N=$N, REPS=$REPS, BAND=$BAND; $(nproc) CPUs; $(date -u +%Y-%m-%d))"
	echo
	echo "Journals: plain ext4 (stock mke2fs) $(wc -w <"$tmp/stock.journal") blocks, lazy (mke2fs -O lazy_journal -E smr_band=$BAND) $(wc -w <"$tmp/lazy.journal") blocks, 4 KiB each."
	echo
	python3 "$top/bench/mount_report.py" "$OUT" "$OUT/fig6.png"
	echo "Lazy log after the traced run (debugfs jmap -s):"
	echo
	sed 's/^/    /' "$OUT/lazy.jmap"
	echo
	awk -v all="$((($(bench_us) - t_start) / 1000000))" '
		{ run += $3; conv += $4 }
		END { printf "Elapsed: %d s, of which the traced runs %.0f s under strace and %.0f s classifying and converting their traces.\n", all, run / 1e6, conv / 1e6 }' "$tmp/traced"
} >"$OUT/report.md"
gnuplot "$OUT/fig6.gp"
cat "$OUT/report.md"
echo "Figure 6: $OUT/fig6.png"
