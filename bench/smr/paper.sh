#!/bin/bash
#
# paper.sh --- the FAST'17 ext4-lazy paper's eight microbenchmarks (issue
# 36) through real file systems, traced at the block layer the same way
# for each, and run through bench/smr/smr_model.py's DM-SMR and CMR disks.
#
# Usage (as root, from the build tree): bench/smr/paper.sh
# Environment:
#   DIRS        directories of MakeDirs (the paper: 800000)
#   FILES       4 KiB files of CreateFiles (the paper: 600000)
#   SIZE        the sparse image (the paper: 2T)
#   JOURNAL_MB  the journal (the paper: 10240)
#   SYSTEMS     any of "kernel lazy plain" (default: all three)
#   OUT         where the results go (default ./paper.out): the model's
#               trace and output, the per-phase figures, the report
#   BAND        the SMR band (default 30M), TMPDIR
#   BANDED=0    our systems not told of the bands (default: told, as an SMR
#               user tells them: the lazy file system made with mke2fs -E
#               smr_band=BAND, its journal starting on a band; our mounts,
#               lazy and plain, with -o smr_band=BAND, new file data
#               started on bands, fuse2fs/place.c)
#   PHASES      a subset of the phases below, in their order (default all)
#   KEEP=1      leave each system's final image in OUT (SYSTEM.img, sparse)
#   AGED=1      the aged run: before the phases, each system's file system
#               is aged through its own mount (paper_work.py age, untraced:
#               AGE_FILES files of 4 KiB-256 KiB made, half removed, half
#               as many made again, a third removed; default FILES/4)
#   HOLD_QOS=1  hold a PM QoS request for CPU wake-up latency 0 for the
#               whole run (/dev/cpu_dma_latency: what our daemon asks for
#               during its bursts, fuse2fs/latency.c), e.g. to time the
#               kernel's ext4 with the CPUs kept out of the halt as well
#
# The systems, each on a loop device over its own sparse image:
#   kernel  the kernel's ext4 (stock mke2fs; mount -o noinit_itable)
#   lazy    our fuse2fs on our mke2fs -O lazy_journal
#   plain   our fuse2fs on stock mke2fs's ext4
# The phases, in the paper's order, each from a cold cache (sync,
# drop_caches, a fresh mount) and ended by the umount (the writeback and
# our daemon's last commit are part of the phase): MakeDirs (DIRS
# directories, depth 10, fanout 4), ListDirs (ls -lR), TarDirs (tar of the
# tree into a pipe, i.e. to another file system), RemoveDirs (rm -rf),
# CreateFiles (FILES files of 4 KiB, depth 20), FindFiles (find),
# TarFiles, RemoveFiles.
#
# The recorder: tracefs' block:block_rq_issue on the loop device, i.e.
# every request the block layer issues to it, after the page cache's
# readahead and writeback and the request merging, for the kernel's ext4
# and for our daemon alike.  Each request is classified by
# bench/smr/paper_trace.py from the file system's own layout: the
# journal's extents (debugfs stat <8>), the metadata blocks before and
# after the phase (bench/smr/meta_blocks: descriptors, bitmaps, inode
# tables, directory, extent and xattr blocks; through the jmap on the
# lazy one), everything else file data.
#
# CPU: the client's user + system time (/usr/bin/time; for the kernel's
# ext4 that holds the file system's work done in the client's context,
# but not its kernel threads'), and our daemon's user + system time (its
# own /usr/bin/time, per mount: one mount per phase).  End to end is the
# larger of the wall time measured here and the modelled DM-SMR run time
# (I/O and CPU taken as overlapped: the bound a real disk could reach).
#
# Our daemon's own figures (FUSE2FS_REQUESTS=1: fuse2fs/waits.c), per
# phase: the longest any request took from the daemon's read of it to
# its answer, the longest of those the cleaner or a commit ran beside,
# the longest persistence point, the cleaner's runs and time, the
# requests by opcode (OUT/SYSTEM.PHASE.requests); on the lazy one the
# jmap's live mappings and transactions after the phase (our debugfs jmap
# -s).
#
# After each phase: e2fsck -fn (stock on kernel and plain, ours on lazy)
# must find the file system clean, and a copy of the lazy image is
# replayed by stock e2fsck (the flag cleared) and checked by stock e2fsck
# -fn.  The script stops on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
DIRS=${DIRS:-800000}
FILES=${FILES:-600000}
SIZE=${SIZE:-2T}
JOURNAL_MB=${JOURNAL_MB:-10240}
AGE_FILES=${AGE_FILES:-$((FILES / 4))}
SYSTEMS=${SYSTEMS:-kernel lazy plain}
OUT=$(realpath -m "${OUT:-paper.out}")
BAND=${BAND:-30M}
BANDED=${BANDED:-1}
lazy_e=lazy_itable_init=1,nodiscard
band_o=()
if [ "$BANDED" = 1 ]; then
	lazy_e=$lazy_e,smr_band=$BAND
	band_o=(-o "smr_band=$BAND")
fi
SBIN=$sbin
OUR=$builddir
ALL="makedirs listdirs tardirs removedirs createfiles findfiles tarfiles removefiles"
PHASES=${PHASES:-$ALL}
TRACEFS=/sys/kernel/tracing

fail() { echo "paper.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root (loop devices, tracefs, mounts)"
for t in /usr/bin/time losetup python3; do
	command -v "$t" >/dev/null || fail "$t is missing"
done
for p in $PHASES; do
	[[ " $ALL " == *" $p "* ]] || fail "unknown phase $p (phases: $ALL)"
done
mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" ||
	fail "no tracefs at $TRACEFS"
[ -d "$TRACEFS/events/block/block_rq_issue" ] || fail "no block_rq_issue tracepoint"

mkdir -p "$OUT"
bench_test_lib	# stock_copy, stock_replay, clear_compat_bits
w=$tmp		# bench/lib.sh's scratch directory
m=$w/m
mkdir "$m"
loop=
daemon=
tracer=
T=
cleanup() {
	local st=$?
	if [ -n "$tracer" ]; then kill "$tracer" 2>/dev/null; fi
	if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null; fi
	if mountpoint -q "$m"; then umount "$m" || umount -l "$m"; fi
	if [ -n "$loop" ]; then losetup -d "$loop"; fi
	rm -rf "$w"
	if [ -n "$T" ]; then rmdir "$T" 2>/dev/null; fi
	exit "$st"
}
trap cleanup EXIT
# a trace instance of our own: its buffer, events and marker are apart
# from the top level's and from another run's
T=$TRACEFS/instances/lj-paper.$$
mkdir "$T" || { T=; fail "cannot make the trace instance"; }
echo 262144 >"$T/buffer_size_kb"	# per CPU
if [ "${HOLD_QOS:-}" = 1 ]; then
	exec 9>/dev/cpu_dma_latency || fail "cannot open /dev/cpu_dma_latency"
	printf '\0\0\0\0' >&9	# latency 0, held until the script exits
fi

# layout DEV OUT: the file system's metadata blocks as "FIRST LAST" lines
# (bench/smr/meta_blocks: through the jmap on the lazy one)
layout() {
	"$OUR/bench/smr/meta_blocks" "$1" >"$2" || fail "$sys: meta_blocks $1 failed"
}

# journal_runs IMG OUT: the journal's extents as "FIRST LAST" lines
journal_runs() {
	local debugfs=$SBIN/debugfs
	[ "$sys" = lazy ] && debugfs=$OUR/debugfs/debugfs
	"$debugfs" -R "stat <8>" "$1" 2>/dev/null | tr ',' '\n' |
		sed -n 's/^ *([0-9]*-[0-9]*):\([0-9]*\)-\([0-9]*\)$/\1 \2/p' >"$2"
	[ -s "$2" ] || fail "$sys: no journal extents"
}

# jmap_size: the lazy log's live mappings and transactions, as
# "jmap_live=N jmap_txns=N" (our debugfs jmap -s)
jmap_size() {
	"$OUR/debugfs/debugfs" -R "jmap -s" "$loop" 2>/dev/null | awk '
		/^Live mappings:/ { live = $3 }
		/^Transactions in log:/ { txns = $4 }
		END { if (live == "" || txns == "") exit 1
		      printf "jmap_live=%s jmap_txns=%s\n", live, txns }' ||
		fail "lazy: debugfs jmap -s failed"
}

# replay_check IMG PHASE: a copy of the lazy image replayed by stock
# e2fsck, then stock e2fsck -fn clean.  The lazy flag is cleared before
# the replay and again after (the superblock in the log has it: the replay
# itself exits 12 on it).
replay_check() {
	local copy=$w/replay.img
	stock_copy "$1" "$copy"
	stock_replay "$copy" || :
	clear_compat_bits "$copy" 0x2000
	"$SBIN/e2fsck" -fn "$copy" >"$OUT/lazy.$2.replay" 2>&1 ||
		fail "lazy: stock e2fsck -fn after stock replay, after $2: exit $?"
	echo "lazy $2: stock replay, then stock e2fsck -fn: clean" | tee -a "$OUT/$sys.phases"
	rm -f "$copy"
}

check() {	# check PHASE: e2fsck -fn clean
	local fsck=$SBIN/e2fsck
	[ "$sys" = lazy ] && fsck=$OUR/e2fsck/e2fsck
	"$fsck" -fn "$loop" >"$OUT/$sys.$1.fsck" 2>&1 ||
		fail "$sys: e2fsck -fn after $1: exit $? (see $OUT/$sys.$1.fsck)"
}

mount_fs() {	# the phase's mount; our daemon under /usr/bin/time
	case $sys in
	kernel) mount -t ext4 -o noinit_itable "$loop" "$m" ;;
	*)
		FUSE2FS_REQUESTS=1 /usr/bin/time -f "%U %S %M" -o "$w/daemon.time" \
			"$OUR/fuse2fs/fuse2fs" "$loop" "$m" "${band_o[@]}" -f \
			>"$w/daemon.out" 2>&1 &
		daemon=$!
		for _ in $(seq 1 600); do
			mountpoint -q "$m" && break
			kill -0 "$daemon" 2>/dev/null || fail "$sys: fuse2fs exited: $(tail -n 1 "$w/daemon.out")"
			sleep 0.05
		done
		mountpoint -q "$m" || fail "$sys: not mounted"
		;;
	esac
}

umount_fs() {
	umount "$m"
	if [ -n "$daemon" ]; then
		wait "$daemon" || fail "$sys: fuse2fs exit $?"
		daemon=
	fi
}

# shellcheck disable=SC2016  # $1 is the inner shell's
client_cmd() {	# client_cmd PHASE: the phase's work in $m, as one command
	case $1 in
	makedirs) cmd=(python3 "$here/paper_work.py" makedirs "$m/dirs" "$DIRS") ;;
	listdirs) cmd=(sh -c 'ls -lR "$1" >/dev/null' - "$m/dirs") ;;
	tardirs) cmd=(sh -c 'tar -cf - -C "$1" dirs | cat >/dev/null' - "$m") ;;
	removedirs) cmd=(rm -rf "$m/dirs") ;;
	createfiles) cmd=(python3 "$here/paper_work.py" createfiles "$m/files" "$FILES") ;;
	findfiles) cmd=(sh -c 'find "$1" >/dev/null' - "$m/files") ;;
	tarfiles) cmd=(sh -c 'tar -cf - -C "$1" files | cat >/dev/null' - "$m") ;;
	removefiles) cmd=(rm -rf "$m/files") ;;
	esac
}

trace_start() {	# trace_start FILE: block_rq_issue of $loop into FILE
	local devt
	devt=$((0x$(stat -c %t "$loop") << 20 | 0x$(stat -c %T "$loop")))
	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo "dev == $devt" >"$T/events/block/block_rq_issue/filter"
	echo 1 >"$T/events/block/block_rq_issue/enable"
	cat "$T/trace_pipe" >"$1" &
	tracer=$!
	echo 1 >"$T/tracing_on"
}

trace_stop() {	# trace_stop FILE: the rest of the buffer too
	local i
	# The reader is stopped only once it has written a marker put after
	# the phase's last request: killed sooner it loses what it had read
	# from trace_pipe (gone from the buffer) and not yet written (the
	# likely cause of a CI run under load whose kernel trace lacked the
	# data written at umount).
	echo lj_trace_end >"$T/trace_marker"
	echo 0 >"$T/tracing_on"
	for i in $(seq 1 600); do
		grep -q lj_trace_end "$1" && break
		sleep 0.05
	done
	# (with tracing off, trace_pipe ends once read empty: it may be gone)
	kill "$tracer" 2>/dev/null || :
	wait "$tracer" 2>/dev/null || :
	tracer=
	grep -v '^#' "$T/trace" >>"$1" || :
	echo 0 >"$T/events/block/block_rq_issue/enable"
	[ "$(grep -c 'LOST' "$1")" = 0 ] || fail "$sys: the trace lost events"
}

# age_fs: the aged run's workload through the system's own mount,
# untraced; its time and what it left in $OUT/$sys.phases
age_fs() {
	local t0 t1
	mount_fs
	t0=$(date +%s.%N)
	python3 "$here/paper_work.py" age "$m/aged" "$AGE_FILES" >"$w/age.out" 2>&1 ||
		fail "$sys: the aging workload failed: $(tail -n 1 "$w/age.out")"
	umount_fs
	t1=$(date +%s.%N)
	echo "$sys aging wall=$(echo "$t1 - $t0" | bc) files=$AGE_FILES left=$(cut -d' ' -f2 "$w/age.out") used_kb=$(df_used)" |
		tee -a "$OUT/$sys.phases"
	check aging
}

# df_used: the blocks in use (KiB), as dumpe2fs -h counts them (ours on
# the lazy one: through the jmap)
df_used() {
	local dumpe2fs=$SBIN/dumpe2fs
	[ "$sys" = lazy ] && dumpe2fs=$OUR/misc/dumpe2fs
	"$dumpe2fs" -h "$loop" 2>/dev/null | awk -F: '
		/^Block count:/ { n = $2 } /^Free blocks:/ { f = $2 }
		/^Block size:/ { b = $2 }
		END { printf "%d\n", (n - f) * b / 1024 }'
}

run_system() {
	local img=$w/$sys.img p t0 t1 t2 cmd du ds drss dcpu ce cu cs
	rm -f "$img"
	case $sys in
	lazy) JSIZE=$JOURNAL_MB bench_lazy_image "$img" "$SIZE" "$lazy_e" ;;
	*) bench_stock_image "$img" "$SIZE" -J size="$JOURNAL_MB" ;;
	esac
	loop=$(losetup -f --show "$img")
	: >"$OUT/$sys.tr"
	: >"$OUT/$sys.phases"
	[ "${AGED:-}" = 1 ] && age_fs
	journal_runs "$loop" "$w/journal.runs"
	layout "$loop" "$w/after.meta"
	for p in $PHASES; do
		mv "$w/after.meta" "$w/before.meta"	# the last phase's end
		sync
		echo 3 >/proc/sys/vm/drop_caches
		trace_start "$w/$p.trace"
		t0=$(date +%s.%N)
		mount_fs
		stat "$m" >/dev/null
		echo lj_first_answer >"$T/trace_marker"
		t1=$(date +%s.%N)
		client_cmd "$p"
		/usr/bin/time -f "%e %U %S" -o "$w/client.time" "${cmd[@]}" >"$w/client.out" 2>&1 ||
			fail "$sys: $p failed: $(tail -n 1 "$w/client.out")"
		umount_fs
		t2=$(date +%s.%N)
		trace_stop "$w/$p.trace"
		layout "$loop" "$w/after.meta"
		python3 "$here/paper_trace.py" "$p" "$w/$p.trace" "$w/journal.runs" \
			"$w/before.meta" "$w/after.meta" >>"$OUT/$sys.tr" 2>"$w/stats" ||
			fail "$sys: paper_trace.py on $p failed"
		# system phase wall mount_s client_s client_cpu daemon_cpu
		# daemon_maxrss_kb stats... [the daemon's waits] [the jmap's size]
		dcpu=- drss=- waits= jmap=
		if [ "$sys" != kernel ]; then
			read -r du ds drss <"$w/daemon.time"
			dcpu=$(echo "$du + $ds" | bc)
			waits=$(sed -n 's/^fuse2fs: waits: //p' "$w/daemon.out")
			[ -n "$waits" ] || fail "$sys: no waits line from fuse2fs"
			# the requests by opcode (<linux/fuse.h>'s numbers)
			sed -n 's/^fuse2fs: requests: //p' "$w/daemon.out" \
				>"$OUT/$sys.$p.requests"
		fi
		[ "$sys" = lazy ] && jmap=$(jmap_size)
		read -r ce cu cs <"$w/client.time"
		echo "$sys $p wall=$(echo "$t2 - $t0" | bc) mount_s=$(echo "$t1 - $t0" | bc) client_s=$ce client_cpu=$(echo "$cu + $cs" | bc) daemon_cpu=$dcpu daemon_maxrss_kb=$drss $(cut -d' ' -f2- "$w/stats") $waits $jmap" |
			tee -a "$OUT/$sys.phases"
		check "$p"
		[ "$sys" = lazy ] && replay_check "$img" "$p"
	done
	losetup -d "$loop"
	loop=
	if [ "${KEEP:-}" = 1 ]; then
		mv "$img" "$OUT/$sys.img"
	else
		rm -f "$img"
	fi
	python3 "$here/smr_model.py" -p band="$(numfmt --from=iec "$BAND")" \
		"$OUT/$sys.tr" >"$OUT/$sys.model"
}

for sys in $SYSTEMS; do
	run_system
done
# shellcheck disable=SC2086  # one word per system
python3 "$here/paper_report.py" "$OUT" $SYSTEMS | tee "$OUT/report.md"
