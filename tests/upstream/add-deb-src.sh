#!/bin/bash
# add-deb-src.sh: make `apt-get source e2fsprogs` work the Debian way.
#
# When apt knows no source for the installed e2fsprogs version, write
# /etc/apt/sources.list.d/e2fsprogs-lazy-src.sources with a `Types:
# deb-src` copy of every Debian archive entry the machine already has
# (deb822 stanzas in sources.list.d/*.sources and one-line `deb` entries),
# so the sources come from the same suites as the binaries; then
# `apt-get update`.  Needs root.  Entries of other archives are left out.
set -euo pipefail

ver=$(dpkg-query -W -f='${source:Version}' e2fsprogs)
have_src() {
	apt-cache showsrc e2fsprogs 2>/dev/null |
		grep -qx "Version: $ver"
}
have_src && exit 0

out=/etc/apt/sources.list.d/e2fsprogs-lazy-src.sources
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# deb822 stanzas: blank-line separated; keep those with Types: deb and a
# debian.org URI, typed deb-src.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && [ "$f" != "$out" ] || continue
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	     /(^|\n)Types:[^\n]*[ \t]deb([ \t]|\n|$)/ &&
	     /(^|\n)URIs:[^\n]*debian\.org/ &&
	     !/(^|\n)Enabled:[ \t]*no/ {
		sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, "")
		print
	     }' "$f" >>"$tmp"
done
# One-line entries: deb [options] URI suite components...
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n 's/^[ \t]*deb\([ \t][^#]*debian\.org.*\)$/deb-src\1/p' "$f" |
	while read -r _ rest; do
		opts=""
		case $rest in \[*) opts=${rest%%]*}; rest=${rest#*] } ;; esac
		set -- $rest
		uri=$1 suite=$2; shift 2
		printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n' \
			"$uri" "$suite" "$*"
		case $opts in *signed-by=*)
			s=${opts#*signed-by=}; printf 'Signed-By: %s\n' "${s%% *}" ;;
		esac
		echo
	done >>"$tmp"
done
if [ ! -s "$tmp" ]; then
	echo "add-deb-src: no Debian archive entry in /etc/apt to copy" >&2
	exit 1
fi
install -m 644 "$tmp" "$out"
echo "add-deb-src: wrote $out"
apt-get update -qq
have_src || {
	echo "add-deb-src: apt still has no source for e2fsprogs $ver" >&2
	exit 1
}
