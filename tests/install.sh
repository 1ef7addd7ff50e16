#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make install into a staging directory, then check what a user gets: the
# files, the soname, a `choke` that needs only libc, libm, libpcap, libxdp and libbpf (no
# DPDK), the scenarios, `choke sim` by scenario name from another directory
# (the search itself is src/sim's),
# and README.md's library example compiled as printed against the staged
# install through pkg-config (shared and static).
set -eu
BUILD=${BUILD:-build/gcc}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT INT TERM
fail() { echo "FAIL install: $*"; exit 1; }
make -s install BUILD="$BUILD" CC=gcc PREFIX=/usr DESTDIR="$d" >/dev/null
v=$(cat VERSION)
for f in usr/lib/libchoke.a usr/lib/libchoke.so.$v usr/lib/libchoke.so.0 \
	usr/lib/libchoke.so usr/include/choke/core.h usr/include/choke/params.h \
	usr/include/choke/pkt.h usr/lib/pkgconfig/choke.pc usr/bin/choke \
	usr/share/man/man1/choke.1; do
	[ -e "$d/$f" ] || fail "$f missing"
done
soname=$(readelf -d "$d/usr/lib/libchoke.so.$v" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libchoke.so.0 ] || fail "soname is '$soname'"

# the installed command links libc, libm, libpcap, libxdp and libbpf (the
# bridge's AF_XDP backend), nothing else
needed=$(readelf -d "$d/usr/bin/choke" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')
for lib in $needed; do
	case $lib in
	libc.so.*|libm.so.*|libpcap.so.*|libxdp.so.*|libbpf.so.*) ;;
	*) fail "the installed choke needs $lib (NEEDED: $needed)" ;;
	esac
done
if ldd "$d/usr/bin/choke" | grep -i -e rte_ -e dpdk; then
	fail "the installed choke loads DPDK"
fi

# the scenarios, each as shipped
n=0
for s in scenarios/*; do
	cmp -s "$s" "$d/usr/share/choke/scenarios/${s#scenarios/}" || fail "scenario $s not installed"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no scenarios in the source tree?"

# README.md's library example, as printed
export PKG_CONFIG_PATH="$d/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d"
awk '/^## Using the library/ { s = 1; next } s && /^## / { exit }
	s && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' README.md >"$d/example.c"
[ -s "$d/example.c" ] || fail "no \`\`\`c block under README.md's \"## Using the library\""
gcc -std=c11 -Wall -Wextra -Werror "$d/example.c" -o "$d/example-shared" \
	$(pkg-config --cflags --libs choke) || fail "README's example does not compile"
gcc -std=c11 -Wall -Wextra -Werror "$d/example.c" -o "$d/example-static" \
	$(pkg-config --cflags choke) "$d/usr/lib/libchoke.a" -lm ||
	fail "README's example does not link statically"
out=$(LD_LIBRARY_PATH="$d/usr/lib" "$d/example-shared") || fail "README's example exits $?"
# every packet is sent or dropped; twice the link rate: some are dropped
echo "$out" | awk '$1 == "sent" && $2 + 0 + $4 == 2000 && $4 > 0 { ok = 1 } END { exit !ok }' ||
	fail "README's example printed \"$out\""
[ "$("$d/example-static")" = "$out" ] || fail "static and shared examples differ"

# the staged command, from another directory; scenarios by name: the staged
# copy through $CHOKE_SCENARIO_PATH (the directory compiled in is the final
# PREFIX's, /usr/share/choke/scenarios, which must be in the binary)
(cd "$d" && "$d/usr/bin/choke" params limit 100 bandwidth 10mbit >/dev/null) ||
	fail "choke params from the staged install"
sim=$(cd "$d" && CHOKE_SCENARIO_PATH="$d/usr/share/choke/scenarios" \
	"$d/usr/bin/choke" sim multi-udp --set duration=5s --set warmup=1s 2>&1) ||
	fail "choke sim multi-udp from $d: $sim"
echo "$sim" | grep -q "multi-udp" || fail "choke sim multi-udp printed: $sim"
strings "$d/usr/bin/choke" | grep -Fqx /usr/share/choke/scenarios ||
	fail "the installed choke does not know /usr/share/choke/scenarios (CHOKE_SCENARIO_DIR)"
echo "ok   install: files, soname, NEEDED ($needed), $n scenarios found from elsewhere, README's example ($out)"
