# shellcheck shell=bash
#
# device.sh --- tests on a real block device (tests/x_busy_device,
# tests/x_mounted_device): a loop device over an image, mounted by the
# host kernel or held open O_EXCL, and the refusals of our writers on it.
# Source after test_lib.sh.
#
# Skip or fail: a test calls dev_probe first, before any check.  Where the
# host cannot attach a loop device (or mount ext4 on one, with `mount`),
# dev_probe exits 77 (run_tests.sh: SKIPPED) with the reason on stderr.
# After it, what the probe found is part of the test: a later dev_attach
# or dev_mount that cannot attach or mount makes the test FAIL (exit 1,
# the reason on stdout and stderr), never skip, so a half-run test's
# output is not thrown away.
#
#   dev_probe loop|mount  can this host attach a loop device (and, with
#                         mount, mount ext4 on it read-write and -o
#                         ro,noload)?  exit 77 if not; from here on, no
#                         skip
#   dev_attach IMG        DEV <- a loop device over IMG; detached (and
#                         unmounted, unfrozen) at exit
#   dev_mount OPTS        mount DEV on $TMPD/mnt (-t ext4 -o OPTS)
#   dev_umount            unmount it
#   dev_freeze            fsfreeze the mount: the kernel writes nothing
#                         more until dev_umount
#   dev_refuse LABEL STOCK|- CMD...
#                         run CMD... DEV; one line: its exit status, and
#                         with STOCK (a stock program name) also stock's
#                         same command line and whether the output is
#                         stock's; whether DEV's bytes stayed as they were
#                         at the last dev_snapshot (without STOCK, the
#                         output first, version banners dropped)
#   dev_snapshot          remember DEV's bytes (sha256)

DEV=
DEV_MNT=
DEV_FROZEN=
DEV_SUM=
DEV_PROBED=

# dev_unavailable REASON: exit 77 before dev_probe has passed, else fail
dev_unavailable() {
	if [ -z "$DEV_PROBED" ]; then
		echo "$1" >&2
		exit 77
	fi
	echo "FAILED: $1 (the host could at the start of the test)" | tee /dev/stderr
	exit 1
}

dev_cleanup() {
	[ -n "$DEV_FROZEN" ] && fsfreeze --unfreeze "$DEV_MNT" 2>/dev/null
	[ -n "$DEV_MNT" ] && umount "$DEV_MNT" 2>/dev/null
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	DEV=
}

dev_attach() {
	if ! command -v losetup >/dev/null || [ ! -e /dev/loop-control ]; then
		dev_unavailable "no losetup or /dev/loop-control"
	fi
	DEV=$(losetup -f --show "$1" 2>"$TMPD/.losetup.err") ||
		dev_unavailable "cannot attach a loop device: $(head -n 1 "$TMPD/.losetup.err")"
	trap dev_cleanup EXIT
}

dev_mount() {
	mkdir -p "$TMPD/mnt"
	if ! command -v mount >/dev/null; then
		dev_unavailable "no mount"
	fi
	mount -t ext4 -o "$1" "$DEV" "$TMPD/mnt" 2>"$TMPD/.mount.err" ||
		dev_unavailable "cannot mount ext4 -o $1 here: $(head -n 1 "$TMPD/.mount.err")"
	DEV_MNT=$TMPD/mnt
}

dev_probe() {
	local img=$TMPD/.probe.img o
	[ -z "$DEV_PROBED" ] || { echo "dev_probe: called twice"; exit 1; }
	mkimg "$img" 8 1024 "^64bit" >/dev/null ||
		{ echo "dev_probe: mke2fs failed"; exit 1; }
	dev_attach "$img"
	if [ "$1" = mount ]; then
		for o in rw ro,noload; do
			dev_mount "$o"
			umount "$DEV_MNT" ||
				{ echo "dev_probe: cannot unmount the probe"; exit 1; }
			DEV_MNT=
		done
	fi
	dev_cleanup
	rm -f "$img"
	trap - EXIT
	DEV_PROBED=1
}

dev_umount() {
	if [ -n "$DEV_FROZEN" ]; then
		fsfreeze --unfreeze "$DEV_MNT"
		DEV_FROZEN=
	fi
	umount "$DEV_MNT" && DEV_MNT=
}

dev_freeze() {
	fsfreeze --freeze "$DEV_MNT" && DEV_FROZEN=1
}

dev_snapshot() {
	DEV_SUM=$(sha256sum <"$DEV")
}

dev_refuse() {
	local label=$1 stock=$2 rc src same
	shift 2
	"$@" "$DEV" >"$TMPD/.dev.us" 2>&1 </dev/null
	rc=$?
	sed -i -e "s|$DEV|DEV|g" -e "s|$BUILDDIR/[a-z0-9]*/||" "$TMPD/.dev.us"
	same=unchanged
	[ "$(sha256sum <"$DEV")" = "$DEV_SUM" ] || same=MODIFIED
	if [ "$stock" != - ]; then
		"$SBIN/$stock" "${@:2}" "$DEV" >"$TMPD/.dev.st" 2>&1 </dev/null
		src=$?
		sed -i -e "s|$DEV|DEV|g" -e "s|$SBIN/||" "$TMPD/.dev.st"
		[ "$(sha256sum <"$DEV")" = "$DEV_SUM" ] || [ "$same" = MODIFIED ] ||
			{ echo "$label: STOCK wrote to the device"; same=MODIFIED; }
		echo "$label: exit $rc (stock $src), output $(cmp -s "$TMPD/.dev.st" "$TMPD/.dev.us" && echo as stock || echo DIFFERS), device $same"
		cmp -s "$TMPD/.dev.st" "$TMPD/.dev.us" || diff "$TMPD/.dev.st" "$TMPD/.dev.us" | head -n 6
	else
		grep -vE '^(tune2fs|e2fsck|mke2fs|debugfs) [0-9]' "$TMPD/.dev.us"
		echo "$label: exit $rc, device $same"
	fi
	# a write makes the next lines meaningless: take the new bytes
	[ "$same" = unchanged ] || dev_snapshot
}
