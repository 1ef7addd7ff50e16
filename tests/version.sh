#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The one version (docs/release.md): the file VERSION, and everything that
# takes it from there or must agree with it, in a built tree (make check):
# NEWS's newest entry, debian/changelog, `choke version`, choke.pc (through
# pkg-config), the man page's footer, the dkms tree's dkms.conf and
# VERSION, the kernel module's MODULE_VERSION (built against the running
# kernel's headers, or the newest installed; KO=FILE checks a module built
# elsewhere instead), and no other file of the repository spelling the
# version out (it would drift). The packages are checked the same way once
# installed (tests/deb-root.sh: "versions").
#
#   BUILD=build/gcc sh tests/version.sh
set -u
BUILD=${BUILD:-build/gcc}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
ok() { echo "ok   version/$1"; }
bad() { fails=$((fails + 1)); echo "FAIL version/$1: $2"; }
# same NAME GOT: GOT is the version
same() {
	if [ "$2" = "$v" ]; then ok "$1: $v"; else bad "$1" "'$2', the file VERSION says $v"; fi
}

v=$(cat VERSION)
if [ "$(wc -l <VERSION)" = 1 ] && echo "$v" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$'; then
	ok "VERSION: $v (one line, MAJOR.MINOR.PATCH)"
else
	bad VERSION "'$v' is not one line MAJOR.MINOR.PATCH"
fi

# NEWS: "Version X.Y.Z (YYYY-MM-DD)" lines, newest first, each once
sed -n 's/^Version \([^ ]*\) (\([0-9-]*\))$/\1 \2/p' NEWS >"$tmp/news"
same NEWS "$(head -1 "$tmp/news" | cut -d' ' -f1)"
if [ "$(grep -c '^Version ' NEWS)" = "$(wc -l <"$tmp/news")" ] &&
	[ "$(cut -d' ' -f1 "$tmp/news" | sort -urV)" = "$(cut -d' ' -f1 "$tmp/news")" ] &&
	[ "$(cut -d' ' -f2 "$tmp/news" | sort -r)" = "$(cut -d' ' -f2 "$tmp/news")" ] &&
	! cut -d' ' -f2 "$tmp/news" | grep -qvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'; then
	ok "NEWS-order: $(wc -l <"$tmp/news") versions, newest first, each with its date"
else
	bad NEWS-order "$(grep '^Version ' NEWS | tr '\n' ';')"
fi

# debian/changelog (a native package: the same version)
if command -v dpkg-parsechangelog >/dev/null 2>&1; then
	same changelog "$(dpkg-parsechangelog -l debian/changelog -S Version)"
else
	same changelog "$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)"
fi

# the built command, choke.pc, the man page
same choke-version "$("$BUILD/choke" version | sed 's/^choke //')"
same pkg-config "$(PKG_CONFIG_PATH=$BUILD pkg-config --modversion choke 2>&1)"
make -s BUILD="$BUILD" "$BUILD/choke.1" >/dev/null 2>&1
same man-page "$(sed -n 's/^\.TH [^"]*"[^"]*" "choke \([^"]*\)".*/\1/p' "$BUILD/choke.1")"

# the dkms tree and the module
make -s -C kmod dkms-tree DESTDIR="$tmp/dkms" >/dev/null 2>&1
same dkms.conf "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$tmp/dkms/dkms.conf" 2>/dev/null)"
same dkms-VERSION "$(cat "$tmp/dkms/VERSION" 2>/dev/null)"
ko=${KO:-}
# the running kernel's headers, else the newest installed (Debian's
# linux-headers-amd64, which check-kernel's packages bring)
kdir=/lib/modules/$(uname -r)/build
[ -f "$kdir/Makefile" ] ||
	kdir=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -1)
kdir=${kdir:-/lib/modules/$(uname -r)/build}
if [ -z "$ko" ] && [ -f "$kdir/Makefile" ]; then
	if make -s -C "$kdir" M="$tmp/dkms/kmod" modules >"$tmp/kmod.log" 2>&1; then
		ko=$tmp/dkms/kmod/sch_libchoke.ko
	else
		bad module "the dkms tree does not build against $kdir: $(tail -3 "$tmp/kmod.log")"
	fi
fi
if [ -n "$ko" ]; then
	same modinfo "$(modinfo -F version "$ko" 2>&1)"
else
	echo "SKIP version/modinfo: no headers at $kdir (KO=FILE checks a built module; check-deb checks DKMS's)"
fi

# nobody else spells it out: what takes the version must take it from VERSION
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files >"$tmp/files"
else
	find . -path ./build -prune -o -type f -print | sed 's|^\./||' >"$tmp/files"
fi
grep -v -x -e VERSION -e NEWS -e debian/changelog -e debian/libchoke0.symbols \
	-e 'LICENSES/.*' "$tmp/files" | tr '\n' '\0' |
	xargs -0 grep -nE -- "(^|[^0-9.])$(echo "$v" | sed 's/\./\\./g')([^0-9.]|\$)" 2>/dev/null >"$tmp/spelled"
if [ ! -s "$tmp/spelled" ]; then
	ok "spelled-once: no file but VERSION, NEWS, debian/changelog and the symbols file names $v"
else
	bad spelled-once "$(head -5 "$tmp/spelled")"
fi
echo "version: $fails failed"
[ $fails = 0 ]
