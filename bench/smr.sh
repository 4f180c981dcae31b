#!/bin/bash
#
# smr.sh --- what lazy journaling buys on a drive-managed SMR disk (issue
# 14): the paper's metadata workloads run by bench/workload (baseline and
# lazy) on fresh copies of one sparse image, their block traces (-T) run
# through the disk model bench/smr/smr_model.py, one table per run, next to
# the FAST'17 paper's figures.  Run from the build tree.
#
# Per mode, three processes (each one a mount, cold cache):
#   makedirs,createfiles | listdirs,findfiles,tarfiles | removedirs,removefiles
# Modes: baseline (jbd2-like checkpoints) and lazy on an image made with
# mke2fs -O lazy_journal -E smr_band=BAND (journal on a band boundary);
# "lazy-unal": lazy on the same image made without smr_band (the journal
# where stock mke2fs puts it), to show what the alignment changes.
#
# Environment: SIZE (image, default 64G, sparse), N (directories for
# MakeDirs, files for CreateFiles; default 10000), OPS (operations per
# transaction, default 100), CKPT (baseline checkpoint every CKPT
# transactions, default 6), BAND (default 30M), JSIZE (journal MiB; default
# the lazy size), MODEL_OPTS (extra "-p NAME=VALUE" for the model),
# KEEP (a directory to keep the traces and results in), TMPDIR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILDDIR=${BUILDDIR:-$PWD}
[ -x "$BUILDDIR/bench/workload" ] || BUILDDIR=$(cd "$here/.." && pwd)
WL=$BUILDDIR/bench/workload
MKE2FS=$BUILDDIR/misc/mke2fs
MODEL=$here/smr/smr_model.py
SIZE=${SIZE:-64G}
N=${N:-10000}
OPS=${OPS:-100}
CKPT=${CKPT:-6}
BAND=${BAND:-30M}
JSIZE=${JSIZE:-}
MODEL_OPTS=${MODEL_OPTS:-}
dir=$(mktemp -d "${TMPDIR:-/tmp}/smr.XXXXXX")
trap 'rm -rf "$dir"' EXIT

band_bytes=$(numfmt --from=iec "$BAND")
jopt=()
[ -n "$JSIZE" ] && jopt=(-J "size=$JSIZE")
mkimg() {	# image, extra -E options
	truncate -s "$SIZE" "$1"
	"$MKE2FS" -q -F -t ext4 -b 4096 -O lazy_journal "${jopt[@]}" \
		-E "lazy_itable_init=1,lazy_journal_init=1,nodiscard$2" "$1" \
		>"$dir/mke2fs.out" 2>&1 || { cat "$dir/mke2fs.out" >&2; exit 1; }
}
mkimg "$dir/aligned.img" ",smr_band=$BAND"
mkimg "$dir/stock.img" ""
jinfo() {	# image: the journal's first block
	"${E2FSPROGS_SBIN:-/usr/sbin}/debugfs" -R "bmap <8> 0" "$1" 2>/dev/null
}
jblocks=$("${E2FSPROGS_SBIN:-/usr/sbin}/dumpe2fs" -h "$dir/aligned.img" 2>/dev/null |
	awk '/^Total journal blocks:/ {print $4}')
ja=$(jinfo "$dir/aligned.img")
js=$(jinfo "$dir/stock.img")
echo "image $SIZE (sparse), 4 KiB blocks, journal $jblocks blocks ($((jblocks / 256)) MiB); N=$N, $OPS operations per transaction, baseline checkpoint every $CKPT transactions or at half a log"
echo "band $BAND: journal starts at block $ja with smr_band (band offset $(( ja * 4096 % band_bytes / 1024 )) KiB), at block $js without (band offset $(( js * 4096 % band_bytes / 1024 )) KiB)"
echo

run_mode() {	# mode, image, label
	local img=$dir/$3.img
	cp --sparse=always "$2" "$img"
	"$WL" -m "$1" -t "$OPS" -c "$CKPT" -n "$N" -w makedirs,createfiles \
		-T "$dir/$3.1.tr" "$img" >"$dir/$3.wl"
	"$WL" -m "$1" -w listdirs,findfiles,tarfiles -T "$dir/$3.2.tr" \
		"$img" >>"$dir/$3.wl"
	"$WL" -m "$1" -t "$OPS" -c "$CKPT" -w removedirs,removefiles \
		-T "$dir/$3.3.tr" "$img" >>"$dir/$3.wl"
	rm -f "$img"
	# shellcheck disable=SC2086
	cat "$dir/$3.1.tr" "$dir/$3.2.tr" "$dir/$3.3.tr" |
		python3 "$MODEL" -p band="$band_bytes" $MODEL_OPTS - |
		sed "s/^/mode=$3 /" >>"$dir/model.out"
}
run_mode baseline "$dir/aligned.img" baseline
run_mode lazy "$dir/aligned.img" lazy
run_mode lazy "$dir/stock.img" lazy-unal
[ -n "${KEEP:-}" ] && cp "$dir"/*.tr "$dir"/*.wl "$dir/model.out" "$KEEP"/

awk '
function mib(b) { return sprintf("%.1f", b / 1048576) }
{
	delete v
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	k = v["phase"] SUBSEP v["mode"]
	home[k] = v["w_meta_home"] + v["w_cleaner"]
	jw[k] = v["w_journal"]; rd[k] = v["r_bytes"]
	rmw[k] = v["rmw_forced"] + v["rmw_idle"]; forced[k] = v["rmw_forced"]
	cl[k] = v["clean_s"]; smr[k] = v["smr_run_s"]; cmr[k] = v["cmr_run_s"]
}
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
END {
	split("makedirs createfiles listdirs findfiles tarfiles removedirs removefiles", ph, " ")
	split("baseline lazy lazy-unal", md, " ")
	paper["makedirs"] = "cleaning 846 s vs 0 s; metadata home 4,631 MiB vs 0, journal ~4,700 MiB both; 1.5-2.5x faster"
	paper["createfiles"] = "1.5-2.5x faster"
	paper["listdirs"] = "13x faster on SMR, 5x on CMR"
	paper["findfiles"] = "(2-13x range of the metadata benchmarks)"
	paper["tarfiles"] = "(2-13x range of the metadata benchmarks)"
	paper["removedirs"] = "cleaning 590 s vs 10 s"
	paper["removefiles"] = "cleaning 366 s vs 20 s"
	print "| workload | mode | metadata home (MiB) | journal (MiB) | reads (MiB) | band RMWs (forced) | cleaning (s) | DM-SMR run (s) | CMR run (s) | lazy/baseline SMR run, CMR run, cleaning | paper (ext4 vs ext4-lazy) |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (p = 1; p <= 7; p++) for (m = 1; m <= 3; m++) {
		k = ph[p] SUBSEP md[m]; b = ph[p] SUBSEP "baseline"
		if (!(k in smr)) continue
		r = md[m] == "baseline" ? "" : ratio(smr[k], smr[b]) ", " ratio(cmr[k], cmr[b]) ", " ratio(cl[k], cl[b])
		printf "| %s | %s | %s | %s | %s | %d (%d) | %.1f | %.2f | %.2f | %s | %s |\n",
			ph[p], md[m], mib(home[k]), mib(jw[k]), mib(rd[k]), rmw[k], forced[k],
			cl[k], smr[k], cmr[k], r, md[m] == "baseline" ? paper[ph[p]] : ""
	}
}' "$dir/model.out"
