#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The choke authors
# make ns3-latest NS3_SRC=/path/to/ns-3.48: the module in a source tree of a
# newer ns-3 release, the way a researcher (or bake, bakeconf.xml.in) puts
# it there, then its suites and examples run by ns-3's own tools.
#
#   1. libchoke from a tarball of this repository (CHOKE_TARBALL, what
#      `make dist` makes; made here from HEAD when absent), unpacked under
#      OUT/src and installed with `make install-lib` under OUT/prefix;
#   2. the tarball's ns3/ copied to NS3_SRC/contrib/choke (a contrib/choke
#      that this script did not put there is refused, not overwritten);
#   3. ./ns3 configure with tests and examples and the modules the module
#      and its examples need, libchoke found by pkg-config in OUT/prefix;
#      ./ns3 build (nice, NS3_JOBS jobs);
#   4. ./test.py runs the unit and the system suite, then every example of
#      contrib/choke/test/examples-to-run.py runs with ./ns3 run.
#
# Environment (the Makefile sets it): NS3_SRC, NS3_JOBS, CHOKE_TARBALL,
# CHOKE_VERSION, OUT. Exit status non-zero at the first failure.
set -eu
: "${NS3_SRC:?give NS3_SRC=/path/to/an/ns-3/source/tree}"
: "${CHOKE_VERSION:?}" "${CHOKE_TARBALL:?}" "${OUT:?}"
NS3_JOBS=${NS3_JOBS:-2}
top=$(cd "$(dirname "$0")/.." && pwd)
NS3_SRC=$(cd "$NS3_SRC" 2>/dev/null && pwd) ||
	{ echo "ns3-latest: $NS3_SRC: no such directory" >&2; exit 2; }
[ -x "$NS3_SRC/ns3" ] && [ -f "$NS3_SRC/test.py" ] && [ -d "$NS3_SRC/contrib" ] ||
	{ echo "ns3-latest: $NS3_SRC is not an ns-3 source tree (no ./ns3, test.py, contrib/)" >&2; exit 2; }
echo "ns3-latest: ns-3 $(cat "$NS3_SRC/VERSION" 2>/dev/null || echo '(no VERSION file)') in $NS3_SRC"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case $CHOKE_TARBALL in /*) ;; *) CHOKE_TARBALL=$top/$CHOKE_TARBALL ;; esac
if [ ! -f "$CHOKE_TARBALL" ]; then
	echo "ns3-latest: no $CHOKE_TARBALL; making it from HEAD (tools/dist.sh)"
	sh "$top/tools/dist.sh" HEAD "$(dirname "$CHOKE_TARBALL")" >/dev/null
fi
name=choke-$CHOKE_VERSION
[ -f "$CHOKE_TARBALL" ] || { echo "ns3-latest: $CHOKE_TARBALL was not made" >&2; exit 1; }

# 1. libchoke, as bake builds it
rm -rf "$OUT/src" "$OUT/prefix"
mkdir -p "$OUT/src"
tar -xzf "$CHOKE_TARBALL" -C "$OUT/src"
[ -d "$OUT/src/$name/ns3" ] || { echo "ns3-latest: $CHOKE_TARBALL holds no $name/ns3" >&2; exit 1; }
make -C "$OUT/src/$name" DEPS=no install-lib PREFIX="$OUT/prefix" LIBDIR="$OUT/prefix/lib"

# 2. the module as contrib/choke
dst=$NS3_SRC/contrib/choke
if [ -e "$dst" ] && [ ! -f "$dst/.from-choke-ns3-latest" ]; then
	echo "ns3-latest: $dst exists and was not put there by make ns3-latest; move it away first" >&2
	exit 2
fi
rm -rf "$dst"
cp -R "$OUT/src/$name/ns3" "$dst"
echo "$CHOKE_VERSION" >"$dst/.from-choke-ns3-latest"

# 3. configure and build
cd "$NS3_SRC"
export PKG_CONFIG_PATH="$OUT/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
./ns3 configure --enable-tests --enable-examples \
	--enable-modules="choke;traffic-control;internet;point-to-point;applications;flow-monitor"
nice ./ns3 build -j "$NS3_JOBS"

# 4. the suites, then the examples that test.py would run
./test.py --no-build --suite=choke-queue-disc --verbose
./test.py --no-build --suite=choke-queue-disc-system --verbose
python3 - "$dst/test/examples-to-run.py" <<'EOF' | while IFS= read -r ex; do
import sys
env = {}
exec(open(sys.argv[1]).read(), env)
for cmd, run, _ in env["cpp_examples"]:
    if eval(run):
        print(cmd)
EOF
	echo "ns3-latest: ./ns3 run --no-build \"$ex\""
	./ns3 run --no-build "$ex" >/dev/null
done
echo "ns3-latest: ok (ns-3 $(cat VERSION 2>/dev/null || echo '?'), choke $CHOKE_VERSION)"
