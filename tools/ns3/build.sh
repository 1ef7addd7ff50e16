#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Build the ns-3 comparison program (tools/ns3/paper.cc) against Debian's
# packaged ns-3 (apt-get install libns3-dev: ns-3.37). Not part of `make`:
# ns-3 is a comparison tool, not a dependency.
#   sh tools/ns3/build.sh [OUT]      (default build/ns3-paper)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build/ns3-paper}
mods="core network internet point-to-point applications traffic-control nix-vector-routing"
libs=""
for m in $mods; do libs="$libs -lns3-$m"; done
if [ ! -e /usr/include/ns3/core-module.h ]; then
	echo "build.sh: ns-3 headers not found; on Debian: apt-get install libns3-dev" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
${CXX:-g++} -std=c++17 -O2 -DNS3_LOG_ENABLE=0 -I/usr/include -o "$out" tools/ns3/paper.cc $libs
echo "built $out"
