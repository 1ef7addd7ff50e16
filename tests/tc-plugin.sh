#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Stock tc (Debian's iproute2) finds q_chokeplus.so through TC_LIB_DIR and
# runs it: its usage for `help`, its messages for bad words, and for good
# words a request that reaches the kernel (which, without sch_libchoke
# loaded, does not know the kind: tests/kernel/ tests the module itself).
# In a network namespace of its own, so the host's qdiscs are untouched.
# Usage (root): TC_PLUGIN=build/gcc/q_chokeplus.so sh tests/tc-plugin.sh
set -u
SO=$(readlink -f "${TC_PLUGIN:-build/gcc/q_chokeplus.so}")
N=chtc$$
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   tc-plugin-real/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL tc-plugin-real/$1: $2"; }
if [ "$(id -u)" != 0 ] || ! command -v tc >/dev/null; then
	echo "FAIL tc-plugin-real: needs root and tc"
	exit 1
fi
[ -f "$SO" ] || { echo "FAIL tc-plugin-real: no $SO"; exit 1; }
tmp=$(mktemp -d)
trap 'ip netns del $N 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/lib" && cp "$SO" "$tmp/lib/q_chokeplus.so"
ip netns add $N || exit 1
T() { ip netns exec $N env TC_LIB_DIR="$tmp/lib" tc "$@"; }

T qdisc add dev lo root chokeplus help >"$tmp/o" 2>&1
if grep -q "^Usage: ... chokeplus limit PACKETS" "$tmp/o"; then ok "help: tc loaded the plugin"
else bad help "$(head -3 "$tmp/o")"; fi
T qdisc add dev lo root chokeplus limit 100 min 50 max 20 bandwidth 10mbit >"$tmp/o" 2>&1
st=$?
if [ $st != 0 ] && grep -q '^chokeplus: "min" is not smaller than "max"' "$tmp/o"; then ok "bad-words: $(head -1 "$tmp/o")"
else bad bad-words "exit $st: $(head -3 "$tmp/o")"; fi
T qdisc add dev lo root chokeplus limit 100 bandwidth 10mbit protect >"$tmp/o" 2>&1
st=$?
if [ $st = 0 ] || grep -q "Specified qdisc kind is unknown" "$tmp/o"; then
	ok "good-words: the request reached the kernel ($( [ $st = 0 ] && echo added || head -1 "$tmp/o"))"
else bad good-words "exit $st: $(head -3 "$tmp/o")"; fi
echo "tc-plugin-real: $n tests, $fails failed"
[ $fails = 0 ]
