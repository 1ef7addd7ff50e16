#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make check-dkms-newest: the choke-dkms package against the newest kernel
# Debian 12 offers, bookworm-backports' linux-image-amd64 and
# linux-headers-amd64, as a user would get them: in a fresh Debian 12 root
# (tests/fresh.sh's image) with bookworm-backports added, apt installs the
# newest headers (and their kernel), then dpkg -i choke-dkms, and DKMS
# builds sch_libchoke for every kernel there; the module is checked with
# modinfo (its version and vermagic). Not in CI (it downloads about 150 MB);
# the result is recorded in docs/kernel.md ("Kernels").
#
#   sh tests/dkms-newest.sh        (root; after make deb)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ "$(id -u)" = 0 ] || { echo "dkms-newest: needs root (chroot)" >&2; exit 2; }
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=$(ls build/deb/choke-dkms_"$version"_all.deb 2>/dev/null)
[ -n "$deb" ] || { echo "dkms-newest: no build/deb/choke-dkms_${version}_all.deb: make deb first" >&2; exit 2; }
SUITE=${DKMS_SUITE:-bookworm-backports}
INCLUDE=gcc,make,git,python3,libc6-dev,ca-certificates
cache=${FRESH_CACHE:-${HOME:-/root}/.cache/choke-fresh}
base=$cache/bookworm-minbase-$(echo "$INCLUDE ${FRESH_MIRROR:-}" | cksum | cut -d' ' -f1).tar
if [ ! -s "$base" ]; then
	sh tests/fresh.sh true >/dev/null 2>&1 || { echo "dkms-newest: tests/fresh.sh could not make its image" >&2; exit 2; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/choke-dkms.XXXXXX") || exit 2
root=$work/root
mkdir "$root"
trap 'grep -q " $work/" /proc/mounts || rm -rf --one-file-system "$work"' EXIT
trap 'exit 130' INT TERM
log=$top/build/deb/dkms-newest.log
: >"$log"
fails=0
ok() { echo "ok   dkms-newest/$1" | tee -a "$log"; }
bad() { fails=$((fails + 1)); echo "FAIL dkms-newest/$1: $2" | tee -a "$log"; }
in_root() {
	unshare --mount --propagation private sh -c '
		r=$1; shift
		mount --bind "$r" "$r" && mount --rbind /dev "$r/dev" &&
			mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" || exit 2
		exec env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			chroot "$r" /bin/sh -c "$1"' sh "$root" "$1"
}
tar -C "$root" -xf "$base" || exit 2
cp /etc/resolv.conf "$root/etc/"
mirror=$(sed -n 's|^URIs: *||p; s|^deb \(http[^ ]*\) bookworm main.*|\1|p' "$root/etc/apt/sources.list" \
	"$root"/etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
echo "deb ${mirror:-http://deb.debian.org/debian} $SUITE main" >"$root/etc/apt/sources.list.d/newest.list"
cp "$deb" "$root/root/"
echo "dkms-newest: installing $SUITE's linux-headers-amd64 and choke-dkms in a fresh root (log: $log)"
if ! in_root "apt-get update -q && apt-get install -y -q --no-install-recommends dkms &&
	dpkg -i /root/$(basename "$deb") &&
	apt-get install -y -q --no-install-recommends -t $SUITE linux-headers-amd64" >>"$log" 2>&1; then
	tail -20 "$log"
	bad install "apt-get or dpkg failed (log: $log)"
	exit 1
fi
headers=$(in_root "dpkg-query -W -f '\${Version}' linux-headers-amd64")
kvers=$(ls "$root/lib/modules" | sort -V)
newest=$(echo "$kvers" | tail -1)
in_root "dkms status" >"$work/status" 2>>"$log"
cat "$work/status" >>"$log"
# (DKMS compresses the module as the kernel's own are: .ko.xz for 6.12)
ko=$(ls "$root/lib/modules/$newest/updates/dkms/"sch_libchoke.ko* 2>/dev/null | head -1)
if grep -qF "sch_libchoke/$version, $newest, " "$work/status" && grep -q ': installed' "$work/status" &&
	[ -n "$ko" ] &&
	[ "$(modinfo -F version "$ko")" = "$version" ] &&
	modinfo -F vermagic "$ko" | grep -q "^$newest "; then
	ok "built: sch_libchoke $version by DKMS for $newest (linux-headers-amd64 $headers from $SUITE; $(basename "$ko")): $(modinfo -F vermagic "$ko")"
else
	bad built "$(cat "$work/status"); $(ls "$root/lib/modules/$newest/updates/dkms/" 2>&1); $(grep -i -B2 -A8 'error' "$log" | tail -20)"
fi
# every kernel of the root: the older series' (if any) too
for k in $kvers; do
	[ "$k" = "$newest" ] && continue
	if grep -qF "sch_libchoke/$version, $k, " "$work/status"; then
		ok "also: $(grep -F "sch_libchoke/$version, $k, " "$work/status")"
	fi
done
echo "dkms-newest: $fails failed (log: $log)"
[ $fails = 0 ]
