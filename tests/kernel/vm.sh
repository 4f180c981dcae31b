# shellcheck shell=bash
#
# vm.sh --- boot the distribution kernel under qemu and run a shell script
# in the guest (tests/kernel/, `make check-kernel`).
#
# Sourced by tests/kernel/run.sh and the tests/kernel/*/script files.
#
#   vm_setup                 find the kernel, build the cache (once):
#                              $VM_CACHE/<version>/vmlinux   (extracted from
#                                the vmlinuz: booted through qemu's PVH entry)
#                              $VM_CACHE/<version>/initramfs.cpio  (busybox-
#                                static, the guest init, the kernel's own
#                                modules: ext4, jbd2, quota_v2,
#                                virtio-blk/pci, deps)
#   vm_run [-t SECS] [-m MB] GUEST_SCRIPT [DISK...]
#                            boot, attach each DISK (a raw image file) as a
#                            virtio disk (the guest sees $DISK0 = /dev/vda,
#                            $DISK1, ...), run GUEST_SCRIPT with busybox sh;
#                            print its stdout+stderr and return its exit
#                            status.  124: timeout; 125: the guest never
#                            reported (boot failure, panic); the last lines
#                            of the console are then printed on stderr.
#
# Environment:
#   VM_CACHE        cache directory (default $BUILDDIR/tests/kernel/cache)
#   VM_KERNEL       kernel version to boot (default: the newest one in /boot
#                   whose modules are installed)
#   VM_TIMEOUT      default per-run timeout in seconds (60)
#   VM_CONSOLE      if set, the kernel console of the last run is kept there
#   VM_ACCEL        force "kvm" or "tcg" (default: kvm only if the CPU shows
#                   vmx/svm and /dev/kvm is usable)
#   VM_QEMU_ARGS    extra qemu options, split on blanks (bench/smr/
#                   kernel_trace.sh: -trace events of the guest disks)
#   VM_FILES        programs for the guest, split on blanks: each goes to
#                   its /bin with the script of the run (static ones: the
#                   guest has busybox and no C library; k_mount:
#                   tests/progs/lj_getxattrs, k_quota: lj_setattrs)
#
# The guest's output travels on a dedicated virtio disk (serial "ljout"),
# written by the guest init after the script (or by lj_crash just before a
# crash), so the console can stay quiet and nothing is lost in a UART
# buffer.  The guest helpers are in guest_lib.sh.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_CACHE=${VM_CACHE:-${BUILDDIR:-$(cd "$VM_DIR/../.." && pwd)}/tests/kernel/cache}
VM_TIMEOUT=${VM_TIMEOUT:-60}
VM_QEMU=${VM_QEMU:-qemu-system-x86_64}
# the modules the guest needs; their dependencies come from modules.dep
# (quota_v2: ext4 mounts a file system with the quota feature read-write
# only with the quota format loaded, and the guest has no modprobe)
VM_MODULES="crc32c_generic crc16 mbcache jbd2 ext4 quota_v2 virtio_blk virtio_pci"

vm_die() {
	echo "vm: $*" >&2
	return 1
}

# vm_kernel_version: the kernel to boot
vm_kernel_version() {
	local v f
	if [ -n "${VM_KERNEL:-}" ]; then
		echo "$VM_KERNEL"
		return 0
	fi
	for f in /boot/vmlinuz-*; do
		[ -e "$f" ] || continue
		v=${f#/boot/vmlinuz-}
		[ -e "/lib/modules/$v/modules.dep" ] && echo "$v"
	done | sort -V | tail -n 1
}

# vm_extract_vmlinux VMLINUZ OUT: the uncompressed ELF kernel inside a
# bzImage (what the kernel's scripts/extract-vmlinux does): find each
# compression magic, decompress from there, keep the first ELF result.
vm_extract_vmlinux() {
	local img=$1 out=$2 magic cmd off
	local formats=(
		'\xfd7zXZ\x00|xz -dc|busybox unxz -c'
		'\x1f\x8b\x08|gzip -dc|busybox gunzip -c'
		'\x28\xb5\x2f\xfd|zstd -dcq|'
		'BZh|bzip2 -dc|busybox bunzip2 -c'
		'\x5d\x00\x00\x00|unlzma -c|busybox unlzma -c'
		'\x89LZO|lzop -dc|busybox lzop -dc'
		'\x02\x21\x4c\x18|lz4 -dc|'
	)
	local f c
	for f in "${formats[@]}"; do
		magic=${f%%|*}
		cmd=${f#*|}
		# shellcheck disable=SC2013  # offsets are words
		for off in $(LC_ALL=C grep -obUaP "$magic" "$img" 2>/dev/null | cut -d: -f1); do
			for c in "${cmd%%|*}" "${cmd#*|}"; do
				[ -n "$c" ] || continue
				command -v "${c%% *}" >/dev/null 2>&1 || continue
				# shellcheck disable=SC2086  # c is a command line
				tail -c +"$((off + 1))" "$img" | $c >"$out.tmp" 2>/dev/null
				if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
					mv "$out.tmp" "$out"
					return 0
				fi
			done
		done
	done
	rm -f "$out.tmp"
	vm_die "cannot extract an ELF vmlinux from $img"
}

# vm_module_order VERSION: relative paths of the modules to load, each
# after its dependencies (modules.dep, depth first).  Modules built into
# the kernel (modules.builtin) need nothing.
vm_module_order() {
	local v=$1
	awk -v want="$VM_MODULES" -v builtin="/lib/modules/$v/modules.builtin" '
		function base(p,    b) {
			b = p; sub(/.*\//, "", b); sub(/\.ko(\.[a-z0-9]+)?$/, "", b)
			gsub(/-/, "_", b); return b
		}
		function visit(m,    i, n, d) {
			if (m in done) return
			done[m] = 1
			n = split(deps[m], d, " ")
			# modules.dep lists the deepest dependency last
			for (i = n; i >= 1; i--) visit(base(d[i]))
			print path[m]
		}
		BEGIN {
			while ((getline l < builtin) > 0) isbuiltin[base(l)] = 1
		}
		{
			p = $1; sub(/:$/, "", p); m = base(p)
			path[m] = p
			$1 = ""; deps[m] = $0
		}
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) {
				m = w[i]; gsub(/-/, "_", m)
				if (m in path) visit(m)
				else if (!(m in isbuiltin)) {
					print "MISSING " m; exit 1
				}
			}
		}' "/lib/modules/$v/modules.dep"
}

# vm_build_initramfs VERSION OUT: newc cpio (uncompressed) with busybox,
# /init, /lib/lj_guest.sh and the modules (decompressed if need be)
vm_build_initramfs() {
	local v=$1 out=$2 root m bb
	bb=$(command -v busybox || true)
	[ -n "$bb" ] || { vm_die "busybox not found (install busybox-static)"; return 1; }
	if ldd "$bb" >/dev/null 2>&1; then
		vm_die "$bb is not statically linked (install busybox-static)"
		return 1
	fi
	command -v cpio >/dev/null || { vm_die "cpio not found"; return 1; }
	root=$(mktemp -d "${TMPDIR:-/tmp}/lj-initramfs.XXXXXX")
	mkdir -p "$root/bin" "$root/lib/modules" "$root/proc" "$root/sys" \
		"$root/dev" "$root/tmp" "$root/mnt"
	cp "$bb" "$root/bin/busybox"
	cp "$VM_DIR/guest_init" "$root/init"
	cp "$VM_DIR/guest_lib.sh" "$root/lib/lj_guest.sh"
	chmod 755 "$root/init" "$root/bin/busybox"
	: >"$root/lib/modules/load.order"
	if ! vm_module_order "$v" >"$root/.order" || grep -q '^MISSING' "$root/.order"; then
		vm_die "kernel $v: module not found: $(grep '^MISSING' "$root/.order")"
		rm -rf "$root"
		return 1
	fi
	while read -r m; do
		local name=${m##*/} src=/lib/modules/$v/$m
		case $name in
		*.ko.xz) xz -dc "$src" >"$root/lib/modules/${name%.xz}" ||
				busybox unxz -c "$src" >"$root/lib/modules/${name%.xz}" ;;
		*.ko.zst) zstd -dcq "$src" >"$root/lib/modules/${name%.zst}" ;;
		*.ko.gz) gzip -dc "$src" >"$root/lib/modules/${name%.gz}" ;;
		*) cp "$src" "$root/lib/modules/$name" ;;
		esac || { vm_die "cannot unpack $src"; rm -rf "$root"; return 1; }
		name=${name%.xz}; name=${name%.zst}; name=${name%.gz}
		echo "$name" >>"$root/lib/modules/load.order"
	done <"$root/.order"
	rm -f "$root/.order"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out.tmp" &&
		mv "$out.tmp" "$out"
	local rc=$?
	rm -rf "$root"
	return $rc
}

# vm_setup: make sure the cached vmlinux and initramfs exist for the kernel
vm_setup() {
	local v dir stamp want
	command -v "$VM_QEMU" >/dev/null ||
		{ vm_die "$VM_QEMU not found (install qemu-system-x86)"; return 1; }
	v=$(vm_kernel_version)
	[ -n "$v" ] || { vm_die "no kernel in /boot with modules in /lib/modules (install linux-image-amd64)"; return 1; }
	[ -r "/boot/vmlinuz-$v" ] || { vm_die "/boot/vmlinuz-$v not readable"; return 1; }
	dir=$VM_CACHE/$v
	mkdir -p "$dir" || return 1
	# rebuild when the kernel package, busybox or our guest files change
	want=$(cat "/boot/vmlinuz-$v" "/lib/modules/$v/modules.dep" \
		"$(command -v busybox)" "$VM_DIR/guest_init" "$VM_DIR/guest_lib.sh" \
		"$VM_DIR/vm.sh" 2>/dev/null | cksum)
	stamp=$dir/stamp
	if [ ! -s "$dir/vmlinux" ] || [ ! -s "$dir/initramfs.cpio" ] ||
	   [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		rm -f "$stamp"
		vm_extract_vmlinux "/boot/vmlinuz-$v" "$dir/vmlinux" || return 1
		vm_build_initramfs "$v" "$dir/initramfs.cpio" || return 1
		echo "$want" >"$stamp"
	fi
	VM_VERSION=$v
	VM_VMLINUX=$dir/vmlinux
	VM_INITRAMFS=$dir/initramfs.cpio
	export VM_VERSION VM_VMLINUX VM_INITRAMFS
}

# vm_accel_args: qemu accelerator options
vm_accel_args() {
	local a=${VM_ACCEL:-}
	if [ -z "$a" ]; then
		a=tcg
		if grep -qwE 'vmx|svm' /proc/cpuinfo 2>/dev/null &&
		   [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
			a=kvm
		fi
	fi
	if [ "$a" = kvm ]; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg -cpu max"
	fi
}

# vm_run [-t SECS] [-m MB] GUEST_SCRIPT [DISK...]
vm_run() {
	local timeout=$VM_TIMEOUT mem=256 opt
	OPTIND=1
	while getopts "t:m:" opt; do
		case $opt in
		t) timeout=$OPTARG ;;
		m) mem=$OPTARG ;;
		*) vm_die "vm_run: bad option"; return 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	local script=$1
	shift
	[ -n "${VM_VMLINUX:-}" ] || vm_setup || return 125
	local w i=0 d rc
	w=$(mktemp -d "${TMPDIR:-/tmp}/lj-vm.XXXXXX")
	# per-run cpio with the guest script (and VM_FILES in /bin),
	# appended to the cached one
	mkdir -p "$w/root/bin"
	cp "$script" "$w/root/guest.sh"
	echo guest.sh >"$w/list"
	for d in ${VM_FILES:-}; do
		cp "$d" "$w/root/bin/" || { vm_die "vm_run: cannot copy $d"; rm -rf "$w"; return 125; }
		echo "bin/${d##*/}" >>"$w/list"
	done
	(cd "$w/root" && cpio -o -H newc --quiet <"$w/list") >"$w/run.cpio"
	cat "$VM_INITRAMFS" "$w/run.cpio" >"$w/initrd"
	truncate -s 4M "$w/out.img"
	local args=()
	for d in "$@"; do
		[ -f "$d" ] || { vm_die "vm_run: no such image: $d"; rm -rf "$w"; return 125; }
		args+=(-drive "file=$d,format=raw,if=none,id=d$i,cache=writeback"
		       -device "virtio-blk-pci,drive=d$i,serial=lj$i")
		i=$((i + 1))
	done
	args+=(-drive "file=$w/out.img,format=raw,if=none,id=out"
	       -device "virtio-blk-pci,drive=out,serial=ljout")
	# shellcheck disable=SC2046,SC2086  # accel options, VM_QEMU_ARGS: word lists
	timeout -k 5 "$timeout" "$VM_QEMU" -nodefaults -no-user-config \
		-machine pc $(vm_accel_args) -smp 1 -m "$mem" \
		-display none -no-reboot \
		-serial "file:$w/console" \
		-kernel "$VM_VMLINUX" -initrd "$w/initrd" \
		-append "console=ttyS0 quiet panic=-1 mitigations=off tsc=reliable no_timer_check lj.disks=$i" \
		"${args[@]}" ${VM_QEMU_ARGS:-} </dev/null >"$w/qemu.out" 2>&1
	rc=$?
	[ -n "${VM_CONSOLE:-}" ] && cp "$w/console" "$VM_CONSOLE"
	# the output disk: text, then "@@lj-exit N@@", then zeros
	tr -d '\000' <"$w/out.img" >"$w/out.txt"
	local trailer
	trailer=$(grep -a '^@@lj-exit [0-9]*@@$' "$w/out.txt" | tail -n 1)
	if [ -z "$trailer" ]; then
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			echo "vm: guest timed out after ${timeout}s" >&2
			rc=124
		else
			echo "vm: guest did not report (qemu exit $rc)" >&2
			rc=125
		fi
		sed -n '1,20p' "$w/qemu.out" >&2
		echo "--- console (last 30 lines):" >&2
		tail -n 30 "$w/console" >&2
		rm -rf "$w"
		return $rc
	fi
	sed '/^@@lj-exit [0-9]*@@$/,$d' "$w/out.txt"
	rc=${trailer#@@lj-exit }
	rc=${rc%@@}
	rm -rf "$w"
	return "$rc"
}
