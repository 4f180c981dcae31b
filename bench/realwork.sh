#!/bin/bash
#
# realwork.sh --- the mount on real work (issue 29 item 4): copying
# /usr/include, unpacking /usr/share/doc, sqlite commits, git, ls -lR,
# rm -rf, streaming a 1 GiB file out and back, 4 KiB random writes with
# an fsync every 100, on four targets interleaved in one run:
#
#   lazy    the build's fuse2fs/fuse2fs on a lazy image (its misc/mke2fs
#           -O lazy_journal)
#   plain   the build's fuse2fs/fuse2fs on a plain ext4 image (stock mke2fs)
#   stock   Debian's fuse2fs ($STOCK_FUSE2FS) on a plain ext4 image
#   kernel  the kernel's ext4 on a loop device over a plain ext4 image
#           (the referee)
#
# Whatever fuse2fs/fuse2fs the build tree holds is what runs as "ours".
#
# Usage: bench/realwork.sh [BUILDDIR]     (root, /dev/fuse, loop devices)
#
# Each round makes four fresh sparse images (SIZE, truncate -s; 4 KiB
# blocks, -E lazy_itable_init=1,nodiscard) in a mktemp -d directory and
# runs the phases in order; each phase is one mount per target, the
# targets in the round's order (rotated by one each round): mount, the
# phase, umount, the FUSE daemon waited for until it exits (its status
# must be 0).  A phase's time is its work plus that umount (the daemon
# commits and writes back after the kernel lets go; the kernel's ext4
# writes back its dirty pages at umount).  Before ls and read, every
# target's mount starts after `sync; echo 3 > /proc/sys/vm/drop_caches`
# (cold reads; before read, touch_memory, below); before cp and tar the source is read once, untimed (warm
# source).  The FUSE daemons run in the foreground (-f) under
# /usr/bin/time: their user + system time per phase.
#
# Phases (PHASES selects some, in this order):
#   cp      cp -a /usr/include into the mount
#   tar     tar -xf of a tarball of /usr/share/doc (made once, outside)
#   sqlite  sqlite3 CLI: TXNS (300) INSERTs of 1 KiB, each its own
#           committed transaction (journal_mode left at its default)
#   git     git init; git add -A; git commit -q, in the copied include tree
#   ls      ls -lR of the mount, cold
#   rm      rm -rf of everything the phases made
#   write   dd if=/dev/zero bs=1M count=STREAM_MIB conv=fsync
#   read    dd of that file to /dev/null, cold
#   random  fio: 4 KiB random writes (psync, seed 42) over a RAND_MIB file
#           (written beforehand in the same mount, untimed), one each
#           4 KiB on average, fsync after every 100; a python loop when
#           fio is missing
#   both    two clients at once (issue 37): the tar -xf and the sqlite
#           transactions above started together on one mount, against
#           each alone; three mounts per target (tar alone, sqlite alone,
#           both), each into its own directory / database
#   tar4    four tar -xf into four directories at once, against one
#           alone; two mounts per target
#
# both and tar4 time each client from the common start to its exit (its
# own wall time, without the umount: what a user waits for), into
# OUT/clients: TARGET PHASE ROUND STEP CLIENT WORK_US UMOUNT_US CPU_US;
# their line in OUT/times is the step with the clients together (its
# work: until the last client exits).  They are reported in their own
# tables, not in the nine phases' tables and totals.
#
# Our daemons run with FUSE2FS_REQUESTS=1: at exit they print how many
# requests of each opcode the kernel sent (fuse2fs/loop.c), into
# OUT/requests: TARGET PHASE ROUND OPCODE=COUNT...; the report tables
# them per phase beside its time and the daemon's CPU.
#
# Environment: REPS (rounds, default 3), STAT (best or median over the
# rounds, default best), SIZE (images, default 4G), PHASES, TARGETS
# (default "lazy plain stock kernel"), QUICK=1 (a smoke run: FILES (300)
# files of /usr/include and of /usr/share/doc, TXNS 30, STREAM_MIB 16,
# RAND_MIB 16), TXNS, STREAM_MIB (1024), RAND_MIB (256), FILES,
# FUSE_OPTS (extra -o for both fuse2fs), STOCK_FUSE2FS, OUT (default
# ./realwork.out: report.md, the raw times), TMPDIR.  The report
# (bench/realwork_report.py) goes to stdout and OUT/report.md.  Any
# failing tool, mount, phase or daemon fails the script.
set -eu
if [ $# -gt 0 ]; then
	BUILDDIR=$(cd "$1" && pwd)
	export BUILDDIR
fi
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

QUICK=${QUICK:-}
REPS=${REPS:-3}
STAT=${STAT:-best}
SIZE=${SIZE:-4G}
TARGETS=${TARGETS:-lazy plain stock kernel}
PHASES=${PHASES:-cp tar sqlite git ls rm write read random both tar4}
if [ -n "$QUICK" ]; then
	FILES=${FILES:-300}
	TXNS=${TXNS:-30}
	STREAM_MIB=${STREAM_MIB:-16}
	RAND_MIB=${RAND_MIB:-16}
else
	FILES=${FILES:-}
	TXNS=${TXNS:-300}
	STREAM_MIB=${STREAM_MIB:-1024}
	RAND_MIB=${RAND_MIB:-256}
fi
FUSE_OPTS=${FUSE_OPTS:-}
OUT=${OUT:-realwork.out}
STOCK_FUSE2FS=${STOCK_FUSE2FS:-$(command -v fuse2fs || echo /usr/bin/fuse2fs)}
OUR_FUSE2FS=$builddir/fuse2fs/fuse2fs

fail() {
	echo "realwork.sh: $*" >&2
	exit 1
}

for t in python3 sqlite3 git tar dd losetup /usr/bin/time \
	"$OUR_FUSE2FS" "$builddir/misc/mke2fs" "$STOCK_FUSE2FS"; do
	command -v "$t" >/dev/null || fail "$t is missing"
done
if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	fail "needs root and /dev/fuse"
fi
case $STAT in best | median) ;; *) fail "STAT=$STAT: best or median" ;; esac
for p in $PHASES; do
	case $p in
	cp | tar | sqlite | git | ls | rm | write | read | random | both | tar4) ;;
	*) fail "PHASES: no phase '$p'" ;;
	esac
done
for k in $TARGETS; do
	case $k in lazy | plain | stock | kernel) ;;
	*) fail "TARGETS: no target '$k'" ;; esac
done
FIO=$(command -v fio || :)

mkdir -p "$OUT"
m=$tmp/m
mkdir -p "$m"
daemon_pid=
loops=()
# mounted: $m is in the mount table (mountpoint(1) cannot stat a FUSE
# mount whose daemon died: ENOTCONN)
mounted() {
	awk -v m="$m" '$2 == m { f = 1 } END { exit !f }' /proc/mounts
}
cleanup() {
	local d st=$?
	if mounted; then umount "$m" || umount -l "$m" || :; fi
	if [ -n "$daemon_pid" ]; then wait "$daemon_pid" || :; fi
	for d in "${loops[@]}"; do losetup -d "$d" || :; done
	if mounted; then
		echo "realwork.sh: $m still mounted; $tmp left" >&2
	else
		rm -rf "$tmp"
	fi
	exit "$st"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The sources, made once: the include tree and the doc tarball (QUICK:
# the first FILES files of each, sorted), the sqlite script.
if [ -n "$FILES" ]; then
	mkdir -p "$tmp/src"
	for d in /usr/include /usr/share/doc; do
		find "$d" -type f | sort | head -n "$FILES" |
			(cd / && sed 's|^/||' | xargs cp -a --parents -t "$tmp/src")
	done
	SRC_INC=$tmp/src/usr/include
	DOC_DIR=$tmp/src/usr/share
else
	SRC_INC=/usr/include
	DOC_DIR=/usr/share
fi
tar -cf "$tmp/doc.tar" -C "$DOC_DIR" doc
awk -v n="$TXNS" 'BEGIN {
	print "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);"
	s = ""; for (i = 0; i < 1000; i++) s = s substr("abcdefghijklmnopqrstuvwxyz", i % 26 + 1, 1)
	for (i = 1; i <= n; i++) printf "INSERT INTO t (v) VALUES (\x27%06d%s\x27);\n", i, s
}' >"$tmp/txns.sql"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
	GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost \
	GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost

# new_image TARGET: a fresh sparse image $tmp/TARGET.img; for kernel a
# loop device over it, $tmp/kernel.dev.
new_image() {
	local img=$tmp/$1.img dev
	rm -f "$img"
	if [ "$1" = lazy ]; then
		bench_lazy_image "$img" "$SIZE" lazy_itable_init=1,nodiscard
	else
		bench_stock_image "$img" "$SIZE" >"$tmp/mke2fs.out" 2>&1 ||
			{ cat "$tmp/mke2fs.out" >&2; fail "stock mke2fs failed"; }
	fi
	if [ "$1" = kernel ]; then
		dev=$(losetup -f --show "$img") || fail "losetup of $img failed"
		loops+=("$dev")
		echo "$dev" >"$tmp/kernel.dev"
	fi
}

drop_image() {
	local dev i
	if [ "$1" = kernel ]; then
		dev=$(cat "$tmp/kernel.dev")
		losetup -d "$dev"
		for i in "${!loops[@]}"; do
			[ "${loops[$i]}" = "$dev" ] && unset "loops[$i]"
		done
	fi
	rm -f "$tmp/$1.img"
}

# mnt_up TARGET: mount its image on $m; a FUSE daemon in the foreground,
# our child $daemon_pid under /usr/bin/time (CPU into $tmp/cpu).
mnt_up() {
	local prog=$OUR_FUSE2FS opts=() i
	if [ "$1" = kernel ]; then
		mount -t ext4 "$(cat "$tmp/kernel.dev")" "$m" ||
			fail "kernel mount of $tmp/kernel.img failed"
		return 0
	fi
	[ "$1" = stock ] && prog=$STOCK_FUSE2FS
	[ -n "$FUSE_OPTS" ] && opts=(-o "$FUSE_OPTS")
	FUSE2FS_REQUESTS=1 /usr/bin/time -f "%U %S" -o "$tmp/cpu" \
		"$prog" "$tmp/$1.img" "$m" -f "${opts[@]}" \
		>"$tmp/daemon.out" 2>&1 &
	daemon_pid=$!
	for i in $(seq 1 3000); do
		mountpoint -q "$m" && return 0
		kill -0 "$daemon_pid" 2>/dev/null ||
			fail "mount by $prog failed: $(tail -n 1 "$tmp/daemon.out")"
		sleep 0.005
	done
	fail "mount by $prog: not mounted after 15 s"
}

# mnt_down TARGET: umount; a FUSE daemon must exit with status 0.  A
# mount still busy for a moment (a process of the phase closing its last
# file) is tried again for up to 5 s.
mnt_down() {
	local st=0 try
	for try in $(seq 50); do
		umount "$m" 2>"$tmp/umount.err" && break
		grep -q busy "$tmp/umount.err" && [ "$try" -lt 50 ] ||
			fail "umount of $1 failed: $(head -n 1 "$tmp/umount.err")"
		sleep 0.1
	done
	[ "$1" = kernel ] && return 0
	wait "$daemon_pid" || st=$?
	daemon_pid=
	[ "$st" = 0 ] ||
		fail "fuse2fs ($1) exited with $st: $(tail -n 1 "$tmp/daemon.out")"
}

# random_writes FILE MIB: 4 KiB random writes, fsync every 100; prints IOPS.
random_writes() {
	if [ -n "$FIO" ]; then
		"$FIO" --name=random --filename="$1" --size="${2}M" \
			--rw=randwrite --bs=4k --ioengine=psync --fsync=100 \
			--randrepeat=0 --randseed=42 --output-format=json \
			--output="$tmp/fio.json" >/dev/null || return 1
		python3 -c 'import json, sys
print("%.0f" % json.load(open(sys.argv[1]))["jobs"][0]["write"]["iops"])' \
			"$tmp/fio.json"
	else
		python3 - "$1" "$2" <<'PY'
import os, random, sys, time
path, mib = sys.argv[1], int(sys.argv[2])
n = mib * 256
rnd = random.Random(42)
fd = os.open(path, os.O_WRONLY)
buf = bytes(range(256)) * 16
t0 = time.monotonic()
for i in range(n):
    os.pwrite(fd, buf, rnd.randrange(n) * 4096)
    if i % 100 == 99:
        os.fsync(fd)
os.close(fd)
print("%.0f" % (n / (time.monotonic() - t0)))
PY
	fi
}

# prepare PHASE TARGET: untimed work before the mount (caches).
prepare() {
	case $1 in
	cp) tar -cf - -C "$(dirname "$SRC_INC")" include | cat >/dev/null ;;
	tar | both | tar4) cat "$tmp/doc.tar" >/dev/null ;;
	ls) sync; echo 3 >/proc/sys/vm/drop_caches ;;
	read) sync; echo 3 >/proc/sys/vm/drop_caches; touch_memory ;;
	esac
}

# touch_memory: as much memory as a cold read fills (the image's or
# backing file's pages and the mount's: twice the file), written once and
# given back, just before the mount.  A VM whose balloon reports free
# pages to its host (virtio free page reporting) has the host back such
# a page again at its first touch, and the page cache of a cold read
# mostly takes pages freed by drop_caches seconds before: measured on
# our VMs, the same cold read of 1 GiB through our mount cost 0.4-2.5 s
# of the daemon's system time from one run to the next (doc/benchmarks.md).
# Pages just written and freed are backed again, for every target alike.
touch_memory() {
	python3 -c "b'\\1' * (($STREAM_MIB * 2 + 64) << 20)"
}

# setup PHASE: untimed work in the mount before the timer starts.
setup() {
	case $1 in
	random)
		dd if=/dev/zero of="$m/rand" bs=1M count="$RAND_MIB" \
			conv=fsync status=none ;;
	esac
}

# work PHASE: the timed work; its figure (random: the IOPS) or - into
# $tmp/figure.  Its status is the work's.
work() {
	echo - >"$tmp/figure"
	case $1 in
	cp) cp -a "$SRC_INC" "$m/include" ;;
	tar) tar -xf "$tmp/doc.tar" -C "$m" ;;
	sqlite) sqlite3 "$m/db.sqlite" <"$tmp/txns.sql" ;;
	git) (cd "$m/include" && git init -q && git add -A &&
		git -c gc.auto=0 commit -q -m tree) ;;
	ls) ls -lR "$m" >/dev/null ;;
	rm) rm -rf "$m/include" "$m/doc" "$m/db.sqlite" ;;
	write) dd if=/dev/zero of="$m/big" bs=1M count="$STREAM_MIB" \
		conv=fsync status=none ;;
	read) dd if="$m/big" of=/dev/null bs=1M status=none ;;
	random) random_writes "$m/rand" "$RAND_MIB" >"$tmp/figure" ;;
	esac
}

# daemon_cpu TARGET: the daemon's user + system time in us, - for the
# kernel.
daemon_cpu() {
	local cu cs
	if [ "$1" = kernel ]; then
		echo -
		return 0
	fi
	read -r cu cs <"$tmp/cpu"
	awk -v u="$cu" -v s="$cs" 'BEGIN { printf "%d\n", (u + s) * 1e6 }'
}

# requests TARGET PHASE ROUND: our daemon's request counts into
# $OUT/requests.
requests() {
	case $1 in lazy | plain) ;; *) return 0 ;; esac
	sed -n "s/^fuse2fs: requests: /$1 $2 $3 /p" "$tmp/daemon.out" |
		grep . >>"$OUT/requests" ||
		fail "fuse2fs ($1) printed no request counts in phase $2"
}

# phase PHASE TARGET ROUND: one timed phase; a line into $OUT/times:
# TARGET PHASE ROUND WORK_US UMOUNT_US CPU_US FIGURE (CPU_US: the
# daemon's user + system time, - for the kernel).
phase() {
	local t0 t1 t2
	case $1 in both | tar4) clients_phase "$@"; return 0 ;; esac
	prepare "$1" "$2"
	mnt_up "$2"
	setup "$1"
	t0=$(bench_us)
	work "$1" >"$tmp/work.out" 2>&1 ||
		{ cat "$tmp/work.out" >&2; fail "phase $1 on $2 failed"; }
	t1=$(bench_us)
	mnt_down "$2"
	t2=$(bench_us)
	echo "$2 $1 $3 $((t1 - t0)) $((t2 - t1)) $(daemon_cpu "$2")" \
		"$(cat "$tmp/figure")" >>"$OUT/times"
	requests "$2" "$1" "$3"
}

# client NAME DIR: one client of both / tar4 in its directory DIR (made
# beforehand): tar (tar -xf) or sqlite (the transactions, DIR/db.sqlite).
client() {
	case $1 in
	tar) tar -xf "$tmp/doc.tar" -C "$2" ;;
	sqlite) sqlite3 "$2/db.sqlite" <"$tmp/txns.sql" ;;
	esac
}

# step PHASE TARGET ROUND STEP CLIENT...: one mount; the CLIENTs (tar,
# sqlite; a tar may be tar1, tar2, ...) started together, each timed
# from the common start to its own exit; umount.  Lines into
# $OUT/clients; the step's whole (until the last exits) into $tmp/step.
step() {
	local ph=$1 k=$2 r=$3 st=$4 c c1 t0 t1 t2 end=0 cpu pids=() rc
	shift 4
	prepare "$ph" "$k"
	mnt_up "$k"
	for c in "$@"; do mkdir "$m/$ph.$st.$c"; done
	t0=$(bench_us)
	for c in "$@"; do
		(client "${c%[0-9]}" "$m/$ph.$st.$c" >"$tmp/client.$c" 2>&1 &&
			bench_us >"$tmp/end.$c") &
		pids+=($!)
	done
	rc=0
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	if [ "$rc" != 0 ]; then
		cat "$tmp"/client.* >&2
		fail "phase $ph ($st) on $k failed"
	fi
	t1=$(bench_us)
	mnt_down "$k"
	t2=$(bench_us)
	cpu=$(daemon_cpu "$k")
	for c in "$@"; do
		read -r c1 <"$tmp/end.$c"
		[ "$c1" -gt "$end" ] && end=$c1
		echo "$k $ph $r $st $c $((c1 - t0)) $((t2 - t1)) $cpu" \
			>>"$OUT/clients"
	done
	rm -f "$tmp"/client.* "$tmp"/end.*
	echo "$((end - t0)) $((t2 - t1)) $cpu" >"$tmp/step"
}

# clients_phase PHASE TARGET ROUND: both or tar4, its steps; the line of
# the step with the clients together into $OUT/times.
clients_phase() {
	case $1 in
	both)
		step "$1" "$2" "$3" alone tar
		step "$1" "$2" "$3" alone sqlite
		step "$1" "$2" "$3" together tar sqlite ;;
	tar4)
		step "$1" "$2" "$3" alone tar
		step "$1" "$2" "$3" together tar1 tar2 tar3 tar4 ;;
	esac
	echo "$2 $1 $3 $(cat "$tmp/step") -" >>"$OUT/times"
	requests "$2" "$1" "$3"
}

read -r -a tlist <<<"$TARGETS"
nt=${#tlist[@]}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rep0=$(bench_reported_kib)
t_start=$(bench_us)
: >"$OUT/times"
: >"$OUT/clients"
: >"$OUT/requests"
for r in $(seq 1 "$REPS"); do
	order=()
	for i in $(seq 0 $((nt - 1))); do
		order+=("${tlist[$(((i + r - 1) % nt))]}")
	done
	for k in "${order[@]}"; do new_image "$k"; done
	for p in $PHASES; do
		for k in "${order[@]}"; do phase "$p" "$k" "$r"; done
	done
	for k in "${order[@]}"; do drop_image "$k"; done
done
elapsed=$((($(bench_us) - t_start) / 1000000))
load1=$(cut -d' ' -f1-3 /proc/loadavg)
rep1=$(bench_reported_kib)
if [ "$rep0" = - ] || [ "$rep1" = - ]; then
	reported="no free page reporting"
else
	reported="memory reported free to the host during the run (free page reporting): $(((rep1 - rep0) / 1024)) MiB"
fi

{
	echo "## bench/realwork.sh (REPS=$REPS, $STAT of the rounds; SIZE=$SIZE sparse; PHASES=$PHASES; $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M') UTC)"
	echo
	echo "Ours: $OUR_FUSE2FS; stock: $STOCK_FUSE2FS ($(dpkg-query -W -f '${Version}' fuse2fs 2>/dev/null || echo '?')); kernel: $(uname -r)."
	echo "Sources: ${FILES:+the first $FILES files of }/usr/include ($(find "$SRC_INC" -type f | wc -l) files), /usr/share/doc as a tarball of $(du -m "$tmp/doc.tar" | cut -f1) MiB; sqlite $TXNS transactions; write/read $STREAM_MIB MiB; random writes over $RAND_MIB MiB ($( [ -n "$FIO" ] && echo fio || echo 'a python loop'))."
	echo "Load average (/proc/loadavg): $load0 at the start, $load1 at the end; elapsed $elapsed s; $reported."
	echo
	python3 "$top/bench/realwork_report.py" --stat "$STAT" \
		--stream-mib "$STREAM_MIB" --targets "$TARGETS" \
		--phases "$PHASES" --clients "$OUT/clients" \
		--requests "$OUT/requests" "$OUT/times"
} >"$OUT/report.md"
cat "$OUT/report.md"
