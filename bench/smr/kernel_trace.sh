#!/bin/bash
#
# kernel_trace.sh --- the real kernel's I/O for the shape of bench/workload's
# phases on stock ext4 (the baseline), captured under the qemu harness of
# tests/kernel (vm.sh) with qemu's block trace events, converted to the
# disk model's trace format and run through bench/smr/smr_model.py: an
# outside anchor for the baseline pattern of bench/smr.sh (issue 14).
#
# Usage (from the build tree): bench/smr/kernel_trace.sh [OUT_TRACE]
# Prints the model's key=value lines, then the same as a table.
# Environment: N (directories for makedirs, files for createfiles; default
# 2000), SIZE (image, default 16G, sparse), BAND (default 30M), VM_TIMEOUT
# (default 1800: the guest runs under TCG when there is no KVM), the
# tests/kernel/vm.sh variables, TMPDIR.
#
# The guest (Debian's kernel, busybox) runs each phase in a mount of its
# own, in order: makedirs (N directories, depth 10, fanout 4, depth-first,
# as bench/workload), createfiles (N 4 KiB files, depth 20, 32 files per
# deepest directory), listdirs (ls -lR), findfiles (find), tarfiles (tar of
# the files to a pipe), removedirs, removefiles (rm -r).  Before each phase
# it drops the caches and reads one marker block near the end of the disk
# (block LAST-k for phase k): the trace is cut there.  qemu's events
# blk_co_preadv / blk_co_pwritev (the block backend of each guest disk; the
# disk is the backend that read the markers).  Writes in the
# journal's blocks are "journal", every other write "any" (metadata home;
# data too in createfiles), reads "meta".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$(cd "$here/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$PWD}
[ -x "$BUILDDIR/bench/workload" ] || BUILDDIR=$SRCDIR
export SRCDIR BUILDDIR
N=${N:-2000}
SIZE=${SIZE:-16G}
BAND=${BAND:-30M}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
out=${1:-}
# shellcheck source=tests/kernel/vm.sh
. "$SRCDIR/tests/kernel/vm.sh"

w=$(mktemp -d "${TMPDIR:-/tmp}/smr-kernel.XXXXXX")
trap 'rm -rf "$w"' EXIT
img=$w/disk.img
truncate -s "$SIZE" "$img"
"$SBIN/mke2fs" -q -F -t ext4 -b 4096 -E lazy_itable_init=1,nodiscard "$img"
bytes=$(stat -c %s "$img")
last=$((bytes / 4096 - 1))
# the journal's blocks: "start length" runs, from stock debugfs
"$SBIN/debugfs" -R "stat <8>" "$img" 2>/dev/null |
	tr ',' '\n' | sed -n 's/^ *([0-9]*-[0-9]*):\([0-9]*\)-\([0-9]*\)$/\1 \2/p' \
	>"$w/journal.runs"
[ -s "$w/journal.runs" ] || { echo "kernel_trace: no journal extents" >&2; exit 1; }

cat >"$w/guest.sh" <<EOF
set -e
N=$N
LAST=$last
# the kernel's default writeback (guest_init turns periodic writeback off)
echo 500 >/proc/sys/vm/dirty_writeback_centisecs
mark() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	dd if="\$DISK0" of=/dev/null bs=4096 count=1 skip=\$((LAST - \$1)) 2>/dev/null
}
made=0
mkdirs() {	# DIR LEVEL: depth-first, fanout 4, depth 10
	local i=0
	while [ \$i -lt 4 ] && [ \$made -lt \$N ]; do
		mkdir "\$1/d\$i"
		made=\$((made + 1))
		[ \$((\$2 + 1)) -lt 10 ] && mkdirs "\$1/d\$i" \$((\$2 + 1))
		i=\$((i + 1))
	done
}
mkfiles() {	# DIR LEVEL: directories to depth 19 (fanout 4), 32 files each
	local i=0
	if [ \$((\$2 + 1)) -eq 20 ]; then
		while [ \$i -lt 32 ] && [ \$made -lt \$N ]; do
			dd if=/dev/zero of="\$1/f\$i" bs=4096 count=1 2>/dev/null
			made=\$((made + 1))
			i=\$((i + 1))
		done
		return 0
	fi
	while [ \$i -lt 4 ] && [ \$made -lt \$N ]; do
		mkdir "\$1/d\$i"
		mkfiles "\$1/d\$i" \$((\$2 + 1))
		i=\$((i + 1))
	done
}
phase() {	# K: marker, then mount
	mark \$1
	lj_mount "\$DISK0" /mnt noinit_itable
}
phase 0; mkdir /mnt/makedirs; mkdirs /mnt/makedirs 0; umount /mnt
made=0
phase 1; mkdir /mnt/createfiles; mkfiles /mnt/createfiles 0; umount /mnt
phase 2; ls -lR /mnt/makedirs >/dev/null; umount /mnt
phase 3; find /mnt/createfiles >/dev/null; umount /mnt
phase 4; tar cf - /mnt/createfiles 2>/dev/null | cat >/dev/null; umount /mnt
phase 5; rm -r /mnt/makedirs; umount /mnt
phase 6; rm -r /mnt/createfiles; umount /mnt
mark 7
echo "guest: phases done"
EOF

printf 'blk_co_preadv\nblk_co_pwritev\n' >"$w/events"	# one -trace: one enable=
VM_QEMU_ARGS="-trace events=$w/events,file=$w/qemu.trace"
export VM_QEMU_ARGS
vm_run -t "$VM_TIMEOUT" -m 512 "$w/guest.sh" "$img" >"$w/guest.out" 2>&1 || {
	echo "kernel_trace: the guest failed:" >&2
	cat "$w/guest.out" >&2
	exit 1
}
grep -q 'guest: phases done' "$w/guest.out" || { cat "$w/guest.out" >&2; exit 1; }

# qemu's lines: ... blk_co_pwritev blk 0x.. bs 0x.. offset BYTES bytes LEN ...
python3 - "$w/qemu.trace" "$w/journal.runs" "$last" >"$w/kernel.tr" <<'EOF'
import re, sys
trace, runs, last = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = ["makedirs", "createfiles", "listdirs", "findfiles", "tarfiles",
         "removedirs", "removefiles"]
jr = [tuple(map(int, l.split())) for l in open(runs)]
pat = re.compile(r"blk_co_p(read|write)v blk (0x[0-9a-f]+) "
                 r"bs 0x[0-9a-f]+ offset (\d+) bytes (\d+)")
ev = [(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)))
      for m in map(pat.search, open(trace, errors="replace")) if m]
marks = {(last - k) * 4096: k for k in range(len(names) + 1)}
disk = next(v for op, v, s, n in ev if op == "read" and s in marks)
phase = None
for op, v, s, n in ev:
    if v != disk:
        continue
    if op == "read" and s in marks:
        k = marks[s]
        phase = names[k] if k < len(names) else None
        if phase:
            print("phase", phase)
        continue
    if phase is None:
        continue
    blk = s // 4096
    if op == "write":
        kind = "journal" if any(a <= blk <= b for a, b in jr) else "any"
        print("W", kind, s, n)
    else:
        print("R meta", s, n)
EOF
[ -n "$out" ] && cp "$w/kernel.tr" "$out"
band_bytes=$(numfmt --from=iec "$BAND")
echo "kernel: ${VM_VERSION:-?} under qemu ($(vm_accel_args | awk '{print $2}')), stock ext4 on a $SIZE image, N=$N"
python3 "$here/smr_model.py" -p band="$band_bytes" "$w/kernel.tr" >"$w/model.out"
cat "$w/model.out"
# the same, as the table of doc/smr.md (MiB = 2^20 bytes)
echo
echo "| workload | kernel: journal / other writes (MiB) | requests | band RMWs | cleaning (s) | DM-SMR run (s) | CMR run (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
awk '{
	delete v
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	printf "| %s | %.1f / %.1f | %d | %d | %.1f | %.2f | %.2f |\n", v["phase"],
		v["w_journal"] / 1048576, v["w_any"] / 1048576, v["reqs"],
		v["rmw_forced"] + v["rmw_idle"], v["clean_s"], v["smr_run_s"],
		v["cmr_run_s"]
}' "$w/model.out"
