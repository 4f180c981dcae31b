# shellcheck shell=bash
# quota_ops DIR: the workload of u_mount_quota, on any mount
quota_ops() {
	local d=$1 long
	long=$(printf 'x%.0s' $(seq 1 200))
	mkdir "$d/a" "$d/b" "$d/c" &&
	echo hi >"$d/a/small" &&
	dd if=/dev/zero of="$d/a/f1" bs=4096 count=25 status=none &&
	dd if=/dev/zero of="$d/a/f1" bs=4096 count=3 seek=60 conv=notrunc status=none &&
	truncate -s 10000 "$d/a/f1" &&
	truncate -s 2M "$d/a/sparse" &&
	dd if=/dev/zero of="$d/a/sparse" bs=4096 count=5 seek=100 conv=notrunc status=none &&
	dd if=/dev/zero of="$d/a/big" bs=64k count=40 status=none &&
	dd if=/dev/zero of="$d/b/grow" bs=4096 count=4 status=none &&
	dd if=/dev/zero of="$d/b/grow" bs=4096 count=4 oflag=append conv=notrunc status=none &&
	chown 1000:2000 "$d/a/f1" "$d/a/sparse" &&
	chown -R 1001:2001 "$d/b" &&
	ln "$d/a/f1" "$d/b/hard" &&
	ln -s small "$d/a/sym" &&
	ln -s "$long" "$d/a/longsym" &&
	chown -h 1002:2002 "$d/a/longsym" &&
	setx "$d/a/small" user.big "$(printf 'v%.0s' $(seq 1 3000))" &&
	chown 1002 "$d/a/small" && chgrp 2003 "$d/a/small" &&
	mkfifo "$d/b/fifo" && chgrp 2005 "$d/b/fifo" &&
	mkdir "$d/linux" &&	# directories of one block each (see script)
	cp -a /usr/include/linux/netfilter /usr/include/linux/usb \
		/usr/include/linux/can /usr/include/linux/netfilter_ipv4 \
		/usr/include/linux/tc_act "$d/linux/" &&
	chown -R 1003:2003 "$d/linux/usb" &&
	chgrp -R 2006 "$d/linux/tc_act" &&
	rm -rf "$d/linux/netfilter_ipv4" "$d/linux/can" &&
	rm "$d/a/big" &&
	mkdir "$d/c/gone" && rmdir "$d/c/gone" &&
	chown 1004:2004 "$d/c" &&
	touch "$d/c/t1" "$d/c/t2" && chown 1004:2004 "$d/c/t1" &&
	python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
os.fchown(fd, 1005, 2005)
os.write(fd, b"z" * 50000)
os.unlink(sys.argv[1])
os.fsync(fd)
os.close(fd)' "$d/c/open-unlinked" &&
	rm "$d/c/t2" &&
	truncate -s 0 "$d/b/grow"
}
