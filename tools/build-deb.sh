#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make deb: the Debian packages (debian/) built with `dpkg-buildpackage -b
# -us -uc` in a copy of the working tree (never in the tree itself: a
# package build cleans), then lintian over them. Everything lands in
# build/deb/: the .deb files, the .changes and .buildinfo, the source
# package (.dsc, .tar.xz: for lintian's source checks), build.log and
# lintian.log. Fails when debian/changelog's version is not the file
# VERSION's (the one version: docs/release.md), when the build fails, or when lintian reports
# an error or a warning (the overrides in debian/*.lintian-overrides carry
# their reasons).
#
#   sh tools/build-deb.sh                    what `make deb` runs
#   sh tools/build-deb.sh --update-symbols   rewrite debian/libchoke0.symbols
#                                            from the library just built
set -eu
update_symbols=0
[ "${1:-}" = --update-symbols ] && update_symbols=1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
cd "$top"

for t in dpkg-buildpackage dpkg-parsechangelog lintian dh_dkms; do
	command -v $t >/dev/null 2>&1 ||
		{ echo "build-deb: missing $t (tools/deps.sh deb installs it)" >&2; exit 2; }
done
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
upstream=$(cat VERSION)
# a native package: its version is the upstream one (a Debian revision
# would be VERSION-N)
if [ "${version%-*}" != "$upstream" ]; then
	echo "build-deb: debian/changelog says $version, the file VERSION $upstream" \
		"(docs/release.md: the changelog follows VERSION)" >&2
	exit 1
fi

rm -rf "$out"
src=$out/choke-$version
mkdir -p "$src"
# the working tree as it is (committed or not), without build/ and .git
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$src" -xf -
else
	tar --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
fi

# the source package too, for lintian's source checks (debian/copyright,
# Standards-Version, the source's layout); not kept for anything else
if [ $update_symbols = 0 ] && ! (cd "$out" && dpkg-source -b "choke-$version") >"$out/source.log" 2>&1; then
	tail -10 "$out/source.log"
	echo "build-deb: dpkg-source -b failed (log: $out/source.log)" >&2
	exit 1
fi
echo "build-deb: dpkg-buildpackage -b -us -uc in $src (log: $out/build.log)"
[ $update_symbols = 1 ] && export DPKG_GENSYMBOLS_CHECK_LEVEL=0
if ! (cd "$src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -40 "$out/build.log"
	echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
rm -rf "$src"
if [ $update_symbols = 1 ]; then
	# the exports of the library just built, each at this version
	x=$out/symbols.tmp
	rm -rf "$x"
	mkdir -p "$x/debian"
	dpkg-deb -x "$out"/libchoke0_"$version"_*.deb "$x/p"
	cp debian/control debian/changelog "$x/debian/"
	lib=$(ls "$x"/p/usr/lib/*/libchoke.so.*.*.*)
	(cd "$x" && dpkg-gensymbols -plibchoke0 -Pp -v"$version" -e"$lib" -O 2>/dev/null) |
		sed -n '/^ .*@Base /p' >"$x/list"
	# (its licence lines first: tools/licences.py)
	{ sed -n '1,2{/SPDX-/p}' debian/libchoke0.symbols
	  echo "libchoke.so.0 libchoke0 #MINVER#"; echo "* Build-Depends-Package: libchoke-dev"
	  cat "$x/list"; } >debian/libchoke0.symbols.tmp
	mv debian/libchoke0.symbols.tmp debian/libchoke0.symbols
	rm -rf "$x"
	echo "build-deb: debian/libchoke0.symbols: $(grep -c '@Base' debian/libchoke0.symbols) symbols"
	exit 0
fi
changes=$(ls "$out"/choke_"$version"_*.changes)
ls "$out"/*.deb | sed 's|^|build-deb: built |'

# lintian, the binary packages and the source: errors and warnings fail
# (info tags are shown; overrides carry their reasons)
dsc=$out/choke_$version.dsc
echo "build-deb: lintian $(basename "$changes") $(basename "$dsc") (log: $out/lintian.log)"
set +e
lintian --fail-on error,warning --display-info --tag-display-limit 0 "$changes" "$dsc" \
	>"$out/lintian.log" 2>&1
rc=$?
set -e
grep -v '^N: \|running with root privileges' "$out/lintian.log" || true
if [ $rc != 0 ]; then
	echo "build-deb: lintian reports errors or warnings (exit $rc)" >&2
	exit 1
fi
echo "build-deb: lintian: no error, no warning"
