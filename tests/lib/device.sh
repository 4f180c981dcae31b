# shellcheck shell=bash
#
# device.sh --- tests on a real block device (tests/x_busy_device,
# tests/x_mounted_device): a loop device over an image, mounted by the
# host kernel or held open O_EXCL, and the refusals of our writers on it.
# Source after test_lib.sh.  Where the host cannot attach a loop device or
# mount, dev_attach / dev_mount exit 77 (run_tests.sh: SKIPPED) with the
# reason on stderr.
#
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

dev_cleanup() {
	[ -n "$DEV_FROZEN" ] && fsfreeze --unfreeze "$DEV_MNT" 2>/dev/null
	[ -n "$DEV_MNT" ] && umount "$DEV_MNT" 2>/dev/null
	[ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null
	DEV=
}

dev_attach() {
	if ! command -v losetup >/dev/null || [ ! -e /dev/loop-control ]; then
		echo "no losetup or /dev/loop-control" >&2
		exit 77
	fi
	DEV=$(losetup -f --show "$1" 2>/dev/null) ||
		{ echo "cannot attach a loop device" >&2; exit 77; }
	trap dev_cleanup EXIT
}

dev_mount() {
	mkdir -p "$TMPD/mnt"
	mount -t ext4 -o "$1" "$DEV" "$TMPD/mnt" 2>"$TMPD/.mount.err" || {
		echo "cannot mount ext4 here: $(head -n 1 "$TMPD/.mount.err")" >&2
		exit 77
	}
	DEV_MNT=$TMPD/mnt
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
