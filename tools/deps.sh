#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The Debian 12 packages each make target needs, installed when missing.
#
#   tools/deps.sh TARGET...        check (and, as root, install) what TARGETs need
#   tools/deps.sh --list TARGET... print the packages, one line, and exit
#
# TARGETs: demo build check fuzz bench bench-fwd kmod check-kernel ns3 deb
# check-deb dist check-dist fresh ci (see `packages` below; ci = what .ci/run needs).
#
# With everything installed it only asks dpkg-query (a few milliseconds), so
# the Makefile calls it before every build. When packages are missing: as
# root it runs `apt-get update` once and `apt-get install` quietly and
# non-interactively; as anyone else it prints the apt-get line to run and
# exits 1. Without dpkg-query (not Debian) it says what it would need and
# exits 0: the build then tells what is missing. `make DEPS=no` skips it.
set -eu

# The packages of one target (Debian 12 names), on one line.
packages() {
	case $1 in
	demo)	# the simulator and libchoke: a C compiler and libc
		echo make gcc libc6-dev ;;
	build)	# make, make install: the library, choke (libpcap; libxdp and
		# libbpf for the bridge's AF_XDP backend, libxdp1 bringing the XSK
		# program it loads), choke-blast
		echo "$(packages demo) libpcap-dev libxdp-dev libbpf-dev" ;;
	check)	# make check: gcc, clang + sanitizers, valgrind, the tests' tools
		echo "$(packages build) clang libclang-rt-14-dev llvm valgrind binutils" \
			"pkg-config python3 libdpdk-dev iproute2 tcpdump iperf3 ethtool procps" \
			"iputils-ping gnuplot-nox prometheus strace reuse" ;;
	fuzz)	# make fuzz: libFuzzer
		echo "$(packages build) clang libclang-rt-14-dev llvm" ;;
	bench)	# make bench: choke-bench with DPDK's rte_red peer
		echo "$(packages build) pkg-config libdpdk-dev" ;;
	bench-fwd) # make bench-fwd: the bridge against the kernel's, in namespaces
		echo "$(packages build) iproute2 ethtool iputils-ping procps" ;;
	kmod)	# make kmod: against the distribution kernel's headers
		echo "make gcc linux-headers-$(dpkg --print-architecture 2>/dev/null || echo amd64)" ;;
	check-kernel) # make check-kernel: a UML kernel from linux-source-6.1, qemu;
		# shellcheck for the upstream selftest (tests/kernel/upstream-check.sh)
		echo "$(packages build) python3 iproute2 iperf3 linux-source-6.1" \
			"linux-headers-amd64 flex bison bc libelf-dev libssl-dev xz-utils kmod" \
			"iputils-ping qemu-system-x86 busybox-static cpio shellcheck" ;;
	ns3)	# ns3::ChokeQueueDisc (ns3/, make ns3 check-ns3) and tools/ns3
		echo "$(packages build) g++ pkg-config libns3-dev" ;;
	deb)	# make deb: dpkg-buildpackage, the dkms helper, lintian
		echo "$(packages build) debhelper dh-dkms dpkg-dev lintian dkms" ;;
	check-deb) # tests/deb.sh: the packages in a fresh root, booted by systemd-nspawn;
		# the boot's Prometheus is the host's binary, bound in
		echo "$(packages deb) $(packages fresh) systemd-container python3 prometheus" ;;
	dist)	# make dist: the tarball from git
		echo "git tar gzip coreutils" ;;
	check-dist) # tests/dist.sh: make dist twice, then make demo and the unit tests in it
		echo "$(packages dist) $(packages demo)" ;;
	fresh)	# tests/fresh.sh: a minimal Debian 12 root
		echo "mmdebstrap git ca-certificates util-linux" ;;
	ci)	# .ci/run
		echo "$(packages check) $(packages fuzz) $(packages check-kernel) $(packages fresh)" \
			"$(packages ns3)" "$(packages check-deb)" "$(packages check-dist)" ;;
	*)
		return 1 ;;
	esac
}

usage() {
	echo "usage: tools/deps.sh [--list] TARGET..." >&2
	echo "  TARGET: demo build check fuzz bench bench-fwd kmod check-kernel ns3 deb check-deb" \
		"dist check-dist fresh ci" >&2
	exit 2
}

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ $# -gt 0 ] || usage
want=
for t in "$@"; do
	p=$(packages "$t") || { echo "tools/deps.sh: unknown target \"$t\"" >&2; usage; }
	want="$want $p"
done
want=$(printf '%s\n' $want | sort -u | tr '\n' ' ' | sed 's/ $//')
if [ $list = 1 ]; then
	echo "$want"
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "tools/deps.sh: not a Debian system (no dpkg-query); $* needs: $want" >&2
	exit 0
fi

# what dpkg knows as installed ("ii"); everything else is missing
have=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $want 2>/dev/null |
	awk '$1 == "ii" { print $2 }')
have=" $(echo $have) "
missing=
for p in $want; do
	case $have in
	*" $p "*) ;;
	*) missing="$missing $p" ;;
	esac
done
missing=${missing# }
[ -n "$missing" ] || exit 0

if [ "$(id -u)" != 0 ]; then
	echo "tools/deps.sh: $* needs Debian packages that are not installed; as root, run:" >&2
	echo "  apt-get install -y --no-install-recommends $missing" >&2
	echo "(or run make as root, which installs them; make DEPS=no skips this check)" >&2
	exit 1
fi

log=$(mktemp "${TMPDIR:-/tmp}/choke-deps.XXXXXX")
trap 'rm -f "$log"' EXIT
echo "tools/deps.sh: installing for $*: $missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -q >"$log" 2>&1; then
	tail -5 "$log" >&2
	echo "tools/deps.sh: apt-get update failed" >&2
	exit 1
fi
if ! apt-get install -y -q --no-install-recommends $missing >>"$log" 2>&1; then
	tail -15 "$log" >&2
	echo "tools/deps.sh: apt-get install failed (packages: $missing)" >&2
	exit 1
fi
echo "tools/deps.sh: installed $(echo $missing | wc -w) packages" >&2
