#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make check-deb: the packages of `make deb` on a fresh Debian 12 machine.
#
#   sh tests/deb.sh            (root; after make deb; .ci/run runs it)
#
# 1. A root: tests/fresh.sh's minimal image (mmdebstrap minbase plus gcc,
#    make, git, python3, libc6-dev) with what our packages depend on and
#    what the checks use (man-db, pkg-config, systemd, iproute2, and
#    linux-headers-amd64 for DKMS unless DEB_TEST_HEADERS=no), cached
#    beside it (named after that package list).
# 2. In it (chroot, tests/deb-root.sh): the file list, `dpkg -i` of the five
#    packages (choke-dkms builds sch_libchoke for the headers' kernel, as
#    Debian's DKMS packages do; without headers it is only added), then
#    choke demo and choke sim from /usr/bin, README's program built with
#    pkg-config (shared and static), man choke, the units through
#    systemd-analyze verify, the module built by DKMS, tc loading the
#    chokeplus plugin, the exporter's user and group, every version.
# 3. The same root booted with systemd-nspawn (systemd as PID 1, writes
#    discarded; tests/deb-boot.sh): choke-bridge@.service started, reloaded,
#    refused, crashed and restarted, stopped; choke-exporter.service as its
#    own user serving the bridge beside one that never answers, scraped by
#    Prometheus with a 10 s timeout; systemd-analyze security of both.
# 4. `dpkg --purge` of the five, and the file list again: nothing left.
#
# Results on stdout and in build/deb/check-deb.log (the booted root's
# outputs, systemd-analyze security among them, in build/deb/boot/); about
# 40 seconds with the image cached, a minute more to build it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=$top/build/deb/check-deb.log
[ "$(id -u)" = 0 ] || { echo "check-deb: needs root (chroot, mounts, systemd-nspawn)" >&2; exit 2; }
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
debs=
for p in libchoke0 libchoke-dev choke choke-dkms tc-chokeplus; do
	f=$(ls build/deb/${p}_${version}_*.deb 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "check-deb: no build/deb/${p}_${version}_*.deb: run make deb first" >&2; exit 2; }
	debs="$debs $f"
done
for t in mmdebstrap systemd-nspawn unshare; do
	command -v $t >/dev/null 2>&1 || { echo "check-deb: missing $t (tools/deps.sh check-deb)" >&2; exit 2; }
done
t0=$(date +%s)
mkdir -p build/deb
: >"$log"
say() { echo "check-deb: [$(( $(date +%s) - t0 ))s] $*" | tee -a "$log" >&2; }
fails=0
ok() { echo "ok   deb/$1" | tee -a "$log"; }
bad() { fails=$((fails + 1)); echo "FAIL deb/$1: $2" | tee -a "$log"; }

# --- the image ---------------------------------------------------------------
# tests/fresh.sh's, found the way it names it (and built by it when missing)
INCLUDE=gcc,make,git,python3,libc6-dev,ca-certificates
cache=${FRESH_CACHE:-${HOME:-/root}/.cache/choke-fresh}
base=$cache/bookworm-minbase-$(echo "$INCLUDE ${FRESH_MIRROR:-}" | cksum | cut -d' ' -f1).tar
if [ ! -s "$base" ]; then
	say "building the fresh image (tests/fresh.sh)"
	sh tests/fresh.sh true >>"$log" 2>&1 || { echo "check-deb: tests/fresh.sh could not make its image" >&2; exit 2; }
fi
# what our packages depend on (first alternatives, versions dropped), and
# what the checks use
deps=$(for f in $debs; do dpkg-deb -f "$f" Depends; done | tr ',' '\n' |
	sed 's/|.*//; s/(.*)//; s/:any//; s/ //g' | grep -v -x -e '' -e libchoke0 -e libchoke-dev \
	-e choke -e choke-dkms -e tc-chokeplus | sort -u | tr '\n' ' ')
extra="man-db pkg-config systemd iproute2"
[ "${DEB_TEST_HEADERS:-yes}" = no ] || extra="$extra linux-headers-amd64"
want=$(echo $deps $extra | tr ' ' '\n' | sort -u | tr '\n' ' ')
img=$cache/bookworm-deb-$(echo "$(basename "$base") $want" | cksum | cut -d' ' -f1).tar

work=$(mktemp -d "${TMPDIR:-/tmp}/choke-deb.XXXXXX") || exit 2
root=$work/root
mkdir "$root" "$work/out"
cleanup() {
	if grep -q " $work/" /proc/mounts; then
		echo "check-deb: $work still has mounts; left in place" >&2
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# in_root CMD: CMD in the root (a private mount namespace, the host's network)
in_root() {
	unshare --mount --propagation private sh -c '
		r=$1; shift
		mount --bind "$r" "$r" && mount --rbind /dev "$r/dev" &&
			mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" || exit 2
		exec env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			chroot "$r" /bin/sh -c "$1"' sh "$root" "$1"
}

if [ ! -s "$img" ]; then
	say "building the packages' image (once): $want"
	tar -C "$root" -xf "$base" || exit 2
	cp /etc/resolv.conf "$root/etc/"
	if ! in_root "apt-get update -q && apt-get install -y -q --no-install-recommends $want &&
		apt-get clean && rm -rf /var/lib/apt/lists/*" >>"$log" 2>&1; then
		tail -15 "$log"
		echo "check-deb: could not install $want in the image" >&2
		exit 2
	fi
	tar -C "$root" -cf "$img.partial.$$" . && mv "$img.partial.$$" "$img" || exit 2
	# the images of other package lists are stale (about 600 MB each)
	for old in "$cache"/bookworm-deb-*.tar; do
		[ "$old" = "$img" ] || rm -f "$old"
	done
	rm -rf --one-file-system "$root" && mkdir "$root"
fi
say "unpacking $(basename "$img")"
tar -C "$root" -xf "$img" || exit 2
cp /etc/resolv.conf "$root/etc/"
mkdir -p "$root/root/debs"
cp $debs "$root/root/debs/"
cp tests/deb-root.sh "$root/root/deb-root.sh"
echo "$version" >"$root/root/version"
mkdir -p "$root/root/example"
# README's program, as tests/install.sh takes it
sed -n '/^```c$/,/^```$/p' README.md | sed '1d;$d' >"$root/root/example/prog.c"

# --- install, use ----------------------------------------------------------------
say "installing the packages in the root (tests/deb-root.sh install)"
in_root "sh /root/deb-root.sh snapshot /root/before && sh /root/deb-root.sh install" \
	>"$work/install.out" 2>&1
st=$?
cat "$work/install.out" >>"$log"
grep -E '^(ok|FAIL) ' "$work/install.out" | sed 's/^\(ok  \|FAIL\) /&deb\//'
fails=$((fails + $(grep -c '^FAIL ' "$work/install.out")))
[ $st = 0 ] || bad install "tests/deb-root.sh install exit $st (see $log)"

# --- boot ------------------------------------------------------------------------
say "booting the root with systemd-nspawn (tests/deb-boot.sh)"
cat >"$work/choke-test.service" <<'EOF'
[Unit]
Description=choke package test (tests/deb-boot.sh)
After=basic.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/sh /choke-boot.sh /out
StandardOutput=file:/out/boot.log
StandardError=inherit
TimeoutStartSec=240
EOF
# (CAP_IPC_LOCK and bpf(), which nspawn does not give by default and
# choke-bridge-xdp@ needs: its UMEM is locked memory, libxdp loads its XSK
# program)
# Prometheus for the boot's scrape: the host's (a static Go program but for
# libc; tools/deps.sh check-deb installs it)
prom=
[ -x /usr/bin/prometheus ] && prom=--bind-ro=/usr/bin/prometheus:/usr/local/bin/prometheus
timeout -k 10 300 systemd-nspawn -q --register=no --keep-unit --volatile=overlay --private-network \
	--capability=CAP_IPC_LOCK --system-call-filter=bpf -D "$root" --bind="$work/out:/out" --bind-ro="$top/tests/deb-boot.sh:/choke-boot.sh" $prom \
	--bind-ro="$work/choke-test.service:/etc/systemd/system/choke-test.service" \
	-b -- systemd.unit=choke-test.service >"$work/console.log" 2>&1
st=$?
cat "$work/console.log" >>"$log"
cat "$work/out/boot.log" >>"$log" 2>/dev/null
rm -rf build/deb/boot
cp -r "$work/out" build/deb/boot 2>/dev/null
if [ -s "$work/out/results" ]; then
	sed 's/^\(ok  \|FAIL\) /&deb\/boot-/' "$work/out/results"
	fails=$((fails + $(grep -c '^FAIL ' "$work/out/results")))
	[ -f "$work/out/done" ] || bad boot "the boot test did not finish (nspawn exit $st; see $log)"
else
	bad boot "no results from the booted root (nspawn exit $st): $(tail -5 "$work/console.log")"
fi

# --- purge ---------------------------------------------------------------------
say "purging the packages"
in_root "sh /root/deb-root.sh purge && sh /root/deb-root.sh snapshot /root/after &&
	diff /root/before /root/after" >"$work/purge.out" 2>&1
st=$?
cat "$work/purge.out" >>"$log"
grep -E '^(ok|FAIL) ' "$work/purge.out" | sed 's/^\(ok  \|FAIL\) /&deb\//'
fails=$((fails + $(grep -c '^FAIL ' "$work/purge.out")))
if [ $st = 0 ]; then
	ok "purge-clean: after dpkg --purge, the file list equals the one before dpkg -i ($(wc -l <"$root/root/before") paths)"
else
	bad purge-clean "left behind or missing: $(grep '^[<>]' "$work/purge.out" | head -10 | tr '\n' ' ')"
fi
say "$fails failed (log: $log)"
[ $fails = 0 ]
