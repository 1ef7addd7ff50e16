#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# A new user's machine: a minimal Debian 12 root (mmdebstrap --variant=minbase
# plus gcc, make, git, python3, libc6-dev and ca-certificates, what a C
# developer's new machine has), a clean clone of the committed HEAD, and
# `make demo` run there as root with no other step. It must print the
# comparison, install no package (the demo needs no libpcap) and build a
# program that needs only libc and libm.
#
#   sh tests/fresh.sh            # the check above (.ci/run runs it)
#   sh tests/fresh.sh 'CMD'      # any command in a fresh root, e.g. 'make check';
#                                # exit status: the command's
#
# Root only (mmdebstrap, chroot, mounts in a private mount namespace). The
# image is built once and kept in $FRESH_CACHE (default ~/.cache/choke-fresh),
# named after its package list; FRESH_MIRROR picks the Debian mirror.
set -u
cmd=${1:-}
top=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "fresh: run it inside the repository" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fresh: needs root (mmdebstrap, chroot, mount)" >&2; exit 2; }
commit=$(git -C "$top" rev-parse HEAD) || exit 2
INCLUDE=gcc,make,git,python3,libc6-dev,ca-certificates
cache=${FRESH_CACHE:-${HOME:-/root}/.cache/choke-fresh}
img=$cache/bookworm-minbase-$(echo "$INCLUDE ${FRESH_MIRROR:-}" | cksum | cut -d' ' -f1).tar
t0=$(date +%s)
say() { echo "fresh: [$(( $(date +%s) - t0 ))s] $*" >&2; }

if [ ! -s "$img" ]; then
	command -v mmdebstrap >/dev/null 2>&1 || sh "$top/tools/deps.sh" fresh || exit 2
	mkdir -p "$cache"
	say "building the image (once): mmdebstrap --variant=minbase --include=$INCLUDE bookworm"
	# (the .tar ending tells mmdebstrap to write a tarball)
	if ! mmdebstrap --variant=minbase --include="$INCLUDE" bookworm "$cache/partial.$$.tar" \
		${FRESH_MIRROR:+"$FRESH_MIRROR"} >"$cache/build.log" 2>&1; then
		tail -5 "$cache/build.log" >&2
		rm -f "$cache/partial.$$.tar"
		echo "fresh: could not build the image (log: $cache/build.log)" >&2
		exit 2
	fi
	mv "$cache/partial.$$.tar" "$img"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/choke-fresh.XXXXXX") || exit 2
root=$work/root
out=$work/out
mkdir "$root"
cleanup() {
	# the mounts lived in the namespace of `unshare`, gone with it; never
	# remove a tree that still has something mounted under it
	if grep -q " $work/" /proc/mounts; then
		echo "fresh: $work still has mounts; left in place" >&2
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tar -C "$root" -xf "$img" || { echo "fresh: cannot unpack $img" >&2; exit 2; }
git clone -q "$top" "$root/root/src" && git -C "$root/root/src" checkout -q "$commit" ||
	{ echo "fresh: cannot clone $top" >&2; exit 2; }
cp /etc/resolv.conf "$root/etc/" 2>/dev/null

# in_root CMD: CMD in the root, clean environment, the host's network
in_root() {
	unshare --mount --propagation private sh -c '
		r=$1; shift
		# the root a mount point of its own, as on a machine (ip netns
		# remounts / ); then the kernel file systems
		mount --bind "$r" "$r" && mount --rbind /dev "$r/dev" &&
			mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" || exit 2
		exec env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			chroot "$r" /bin/sh -c "cd /root/src && $1"' sh "$root" "$1"
}

if [ -n "$cmd" ]; then
	say "running '$cmd' in a fresh Debian 12 root (clone of $(echo "$commit" | cut -c1-7))"
	in_root "$cmd"
	rc=$?
	say "exit status $rc"
	exit $rc
fi

fails=0
bad() { fails=$((fails + 1)); echo "FAIL fresh/$1: $2"; }
in_root 'dpkg-query -W' >"$work/before" 2>&1
say "make demo in a fresh Debian 12 root (clone of $(echo "$commit" | cut -c1-7))"
in_root 'make demo' >"$out" 2>&1
rc=$?
say "make demo: exit status $rc"
if [ $rc != 0 ]; then
	tail -20 "$out"
	bad make-demo "exit status $rc"
elif grep -Eq "^ +fifo +red +choke$" "$out" && grep -q "^UDP share of the link " "$out"; then
	echo "ok   fresh/make-demo: $(grep "^UDP share of the link " "$out" | tr -s ' ')"
else
	tail -20 "$out"
	bad make-demo "no comparison table"
fi
in_root 'dpkg-query -W' >"$work/after" 2>&1
if cmp -s "$work/before" "$work/after"; then
	echo "ok   fresh/no-packages: make demo installed nothing"
else
	bad no-packages "make demo installed: $(diff "$work/before" "$work/after" | grep '^>' | tr '\n' ' ')"
fi
needed=$(in_root 'readelf -d build/choke-demo' | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
case "$needed" in
"libc.so.6 libm.so.6 ") echo "ok   fresh/needed: choke-demo needs $needed" ;;
*) bad needed "choke-demo needs: $needed" ;;
esac
say "$fails failed"
[ $fails = 0 ]
