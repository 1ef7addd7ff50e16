#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# `make demo` runs choke-demo, `choke demo` alone built without libpcap:
# the same output as `choke demo`, byte for byte, and only libc and libm.
# Usage: DEMO=build/gcc/choke-demo CHOKE=build/gcc/choke sh tests/demo.sh
set -u
DEMO=${DEMO:-build/gcc/choke-demo}
CHOKE=${CHOKE:-build/gcc/choke}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   demo/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL demo/$1: $2"; }

# same NAME ARGS...: both programs, same arguments, same stdout, stderr, status
same() {
	name=$1
	shift
	"$DEMO" "$@" >"$tmp/a" 2>"$tmp/ae"; sa=$?
	"$CHOKE" demo "$@" >"$tmp/b" 2>"$tmp/be"; sb=$?
	if [ $sa = $sb ] && cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ae" "$tmp/be"; then
		ok "$name (status $sa, $(wc -c <"$tmp/a") bytes)"
	else
		bad "$name" "status $sa/$sb; $(diff "$tmp/a" "$tmp/b" | head -3)"
	fi
}
same default
same json --json
same seconds-seed --seconds 20 --seed 7 --csv
same open-loop --open-loop --seconds 5
same bad-option --frobnicate

# the comparison table is there
"$DEMO" >"$tmp/a" 2>&1
if grep -Eq "^ +fifo +red +choke$" "$tmp/a" && grep -q "^UDP share of the link " "$tmp/a"; then
	ok table
else
	bad table "$(head -5 "$tmp/a")"
fi

needed=$(readelf -d "$DEMO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')
case $needed in
*pcap*|*rte_*) bad needed "choke-demo needs $needed" ;;
*) ok "needed: $needed" ;;
esac

echo "demo: $n tests, $fails failed"
[ $fails = 0 ]
