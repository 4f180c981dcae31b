# shellcheck shell=bash
#
# hostile.sh --- every tool on a bad or corrupted image (tests/b_*, h_*):
# one line per run, exit status and whether the image changed.
# Sourced by test_lib.sh.

# bad_input LABEL IMG [REQUEST]: run our debugfs -R REQUEST (default jmap)
# on a bad image; print its output (version banner dropped), whether the
# exit status was nonzero, and whether the image stayed byte-identical.
bad_input() {
	local label=$1 img=$2 req=${3:-jmap} before after rc
	before=$(sha256sum <"$img")
	"$OUR_DEBUGFS" -R "$req" "$img" >"$TMPD/.bad.out" 2>&1
	rc=$?
	after=$(sha256sum <"$img")
	grep -v '^debugfs [0-9]' "$TMPD/.bad.out"
	if [ "$rc" -ne 0 ]; then
		echo "$label: exit status nonzero"
	else
		echo "$label: exit status 0"
	fi
	if [ "$before" = "$after" ]; then
		echo "$label: image unchanged"
	else
		echo "$label: IMAGE MODIFIED"
	fi
}

# img_state IMG [BYTES]: IMG's size and the sum of its first BYTES
# (default: all of it).  A replay of a tag beyond the file system (stock
# e2fsck's, after ours saved the journal) writes past its end: the size
# tells that, and the sparse tail (up to 4 GiB here) is not read.
img_state() {
	stat -c %s "$1"
	head -c "${2:-$(stat -c %s "$1")}" "$1" | sha256sum
}

# hostile_run LABEL NAME IMG WRITES CMD...: run CMD... IMG under
# `timeout 20`; one line: exit status, and whether IMG changed (WRITES=1:
# the command may write when it succeeds, i.e. exits below 4); then,
# indented, the first line of its stderr ("2>") and of its stdout ("1>"),
# version banners and empty lines dropped, IMG's path shown as IMG.
# Hangs, deaths by signal and sanitizer reports are named loudly.
hostile_run() {
	local label=$1 name=$2 img=$3 writes=$4 before after rc state fd l size
	shift 4
	size=$(stat -c %s "$img")
	before=$(img_state "$img")
	timeout 20 "$@" "$img" >"$TMPD/.h.1" 2>"$TMPD/.h.2"
	rc=$?
	after=$(img_state "$img" "$size")
	if [ "$before" = "$after" ]; then
		state="image unchanged"
	elif [ "$writes" = 1 ] && [ "$rc" -lt 4 ]; then
		state="image written"
	else
		state="IMAGE MODIFIED"
	fi
	if [ "$rc" -eq 124 ]; then
		state="$state, HANG (killed after 20 s)"
	elif [ "$rc" -ge 128 ]; then
		state="$state, CRASH (signal $((rc - 128)))"
	fi
	if cat "$TMPD/.h.1" "$TMPD/.h.2" | grep -qE 'Sanitizer|runtime error:'; then
		state="$state, SANITIZER REPORT"
	fi
	echo "$label: $name: exit $rc, $state"
	for fd in 2 1; do
		l=$(grep -vE '^(debugfs|e2fsck|tune2fs) [0-9]+\.[0-9]+' "$TMPD/.h.$fd" \
			| grep -v '^$' | head -n 1 | sed "s|$img|IMG|g" | mask_save \
			| sed -E 's|^[^ ]*/(e2fsck\|tune2fs\|debugfs): |\1: |')
		[ -n "$l" ] && echo "    $fd> $l"
	done
	return 0
}

# hostile_tools LABEL IMG [BLOCK]: every tool on a hostile image: our
# debugfs jmap / jlookup BLOCK / bd BLOCK, e2fsck -n, tune2fs -l, and last
# (each on a fresh copy, so later checks see the original) the writing
# ones: e2fsck -p, -E journal_only -y, -fy and tune2fs -O ^lazy_journal,
# which may write only when they succeed (exit below 4; README's policy
# for a log that cannot be read completely: -p never writes it, -y saves
# the raw journal first, tune2fs refuses).  BLOCK defaults to 3000.
hostile_tools() {
	local label=$1 img=$2 b=${3:-3000}
	hostile_run "$label" "debugfs jmap" "$img" 0 "$OUR_DEBUGFS" -R jmap
	hostile_run "$label" "debugfs jlookup $b" "$img" 0 "$OUR_DEBUGFS" -R "jlookup $b"
	hostile_run "$label" "debugfs jlookup -j 1" "$img" 0 "$OUR_DEBUGFS" -R "jlookup -j 1"
	hostile_run "$label" "debugfs bd $b" "$img" 0 "$OUR_DEBUGFS" -R "bd $b"
	hostile_run "$label" "e2fsck -n" "$img" 0 "$OUR_E2FSCK" -n
	hostile_run "$label" "tune2fs -l" "$img" 0 "$OUR_TUNE2FS" -l
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "e2fsck -p" "$TMPD/.H.img" 1 "$OUR_E2FSCK" -p
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "e2fsck -E journal_only -y" "$TMPD/.H.img" 1 \
		"$OUR_E2FSCK" -E journal_only -y
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "e2fsck -fy" "$TMPD/.H.img" 1 "$OUR_E2FSCK" -fy
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "tune2fs -O ^lazy_journal" "$TMPD/.H.img" 1 \
		"$OUR_TUNE2FS" -O ^lazy_journal
	rm -f "$TMPD"/e2fsck-lazy-.H.img-*.journal ./e2fsck-lazy-.H.img-*.journal
}
