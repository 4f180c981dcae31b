#!/bin/bash
# mktemplate.sh IMG 1k|4k --- the small template images the fuzz targets
# and the seed generator share.  Deterministic (fixed UUID, hash seed and
# time), made by stock mke2fs and populated by stock debugfs:
#   1k: 8 MiB, 1 KiB blocks, ^64bit,^metadata_csum, 1024-block journal
#   4k: 16 MiB, 4 KiB blocks, 64bit,metadata_csum, 1024-block journal
# Both get a few directories, a file and a symlink; lazy_journal and
# needs_recovery are NOT set here (the targets set them in memory).
set -eu
img=$1 kind=$2
sbin=${E2FSPROGS_SBIN:-/usr/sbin}
export E2FSPROGS_FAKE_TIME=1700000000
unset MKE2FS_CONFIG
case $kind in
1k) size=8M bs=1024 feat=^64bit,^metadata_csum jsize=1 ;;
4k) size=16M bs=4096 feat=64bit,metadata_csum jsize=4 ;;
*) echo "mktemplate.sh: kind must be 1k or 4k" >&2; exit 2 ;;
esac
rm -f "$img"
truncate -s "$size" "$img"
"$sbin/mke2fs" -q -F -t ext4 -b "$bs" -O "$feat" -J "size=$jsize" \
	-U 6c617a79-6675-7a7a-0000-000000000001 \
	-E lazy_itable_init=1,nodiscard,hash_seed=6c617a79-6675-7a7a-0000-000000000002 \
	"$img" >/dev/null
data=$img.data
perl -e 'print substr(("fuzz template file;" x 400), 0, 5000)' >"$data"
cmds=$img.cmds
cat >"$cmds" <<EOC
mkdir d1
mkdir d1/d2
mkdir d3
write $data d1/file
symlink d3/link /d1/file
symlink d3/longlink /$(printf 'x%.0s' $(seq 1 90))
EOC
"$sbin/debugfs" -w -f "$cmds" "$img" >/dev/null 2>&1
rm -f "$data" "$cmds"
