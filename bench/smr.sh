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
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
WL=$builddir/bench/workload
MODEL=$top/bench/smr/smr_model.py
SIZE=${SIZE:-64G}
N=${N:-10000}
OPS=${OPS:-100}
CKPT=${CKPT:-6}
BAND=${BAND:-30M}
MODEL_OPTS=${MODEL_OPTS:-}

band_bytes=$(numfmt --from=iec "$BAND")
e=lazy_itable_init=1,lazy_journal_init=1,nodiscard
bench_lazy_image "$tmp/aligned.img" "$SIZE" "$e,smr_band=$BAND"
bench_lazy_image "$tmp/stock.img" "$SIZE" "$e"
jinfo() {	# image: the journal's first block
	"$sbin/debugfs" -R "bmap <8> 0" "$1" 2>/dev/null
}
jblocks=$(bench_journal_blocks "$tmp/aligned.img")
ja=$(jinfo "$tmp/aligned.img")
js=$(jinfo "$tmp/stock.img")
echo "image $SIZE (sparse), 4 KiB blocks, journal $jblocks blocks ($((jblocks / 256)) MiB); N=$N, $OPS operations per transaction, baseline checkpoint every $CKPT transactions or at half a log"
echo "band $BAND: journal starts at block $ja with smr_band (band offset $(( ja * 4096 % band_bytes / 1024 )) KiB), at block $js without (band offset $(( js * 4096 % band_bytes / 1024 )) KiB)"
echo

run_mode() {	# mode, image, label
	local img=$tmp/$3.img
	cp --sparse=always "$2" "$img"
	"$WL" -m "$1" -t "$OPS" -c "$CKPT" -n "$N" -w makedirs,createfiles \
		-T "$tmp/$3.1.tr" "$img" >"$tmp/$3.wl"
	"$WL" -m "$1" -w listdirs,findfiles,tarfiles -T "$tmp/$3.2.tr" \
		"$img" >>"$tmp/$3.wl"
	"$WL" -m "$1" -t "$OPS" -c "$CKPT" -w removedirs,removefiles \
		-T "$tmp/$3.3.tr" "$img" >>"$tmp/$3.wl"
	rm -f "$img"
	cat "$tmp/$3.1.tr" "$tmp/$3.2.tr" "$tmp/$3.3.tr" >"$tmp/$3.tr"
	# (no pipe: a model that fails fails the script)
	# shellcheck disable=SC2086
	python3 "$MODEL" -p band="$band_bytes" $MODEL_OPTS "$tmp/$3.tr" \
		>"$tmp/$3.model"
	sed "s/^/mode=$3 /" "$tmp/$3.model" >>"$tmp/model.out"
}
run_mode baseline "$tmp/aligned.img" baseline
run_mode lazy "$tmp/aligned.img" lazy
run_mode lazy "$tmp/stock.img" lazy-unal
[ -z "${KEEP:-}" ] || cp "$tmp"/*.tr "$tmp"/*.wl "$tmp/model.out" "$KEEP"/

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
}' "$tmp/model.out"
