#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# `choke exporter` without root: its command line, --once against sockets
# that are not there, and the exposition it serves (exporter-tests
# --exposition: two bridges and recorded kernel qdiscs) through promtool and
# against the Grafana dashboard's queries (tests/exporter/dashboard-check.py).
# The live half (bridges, HTTP, permissions) is tests/exporter.sh (root).
# Usage: CHOKE=build/gcc/choke EXPORTER_TESTS=build/gcc/exporter-tests sh tests/exporter-cli.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
EXPORTER_TESTS=${EXPORTER_TESTS:-build/gcc/exporter-tests}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   exporter-cli/$1"; }
bad() { fails=$((fails + 1)); echo "FAIL exporter-cli/$1: $2"; }

# expect_status NAME STATUS PATTERN CMD...: exit status and a line of stderr
expect_status() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st = "$want" ] && grep -q -- "$pat" "$tmp/err"; then
		ok "$name"
	else
		bad "$name" "exit $st (want $want), stderr: $(head -3 "$tmp/err")"
	fi
}

"$CHOKE" exporter --help >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && grep -q '^usage: choke exporter' "$tmp/out" && [ ! -s "$tmp/err" ] &&
	grep -q -- '--listen ADDR:PORT' "$tmp/out"; then
	ok help
else
	bad help "$(head -3 "$tmp/err")"
fi
expect_status listen-bad 2 '--listen takes ADDR:PORT' "$CHOKE" exporter --listen localhost:9469
expect_status listen-port 2 'not "127.0.0.1:70000"' "$CHOKE" exporter --listen 127.0.0.1:70000
expect_status socket-twice 2 '--socket /x given twice' "$CHOKE" exporter --socket /x --socket /x
expect_status once-listen 2 'exclude each other' "$CHOKE" exporter --once --listen 127.0.0.1:1
expect_status socket-dir 2 'exclude each other' "$CHOKE" exporter --socket /x --socket-dir /y
expect_status positional 2 'choke exporter' "$CHOKE" exporter eth0
expect_status unknown 2 'unknown option --port' "$CHOKE" exporter --port 1

# --once: a socket that is not there is a failed source (exit 1, logged,
# bridge_up 0), the exposition still whole
"$CHOKE" exporter --once --no-qdiscs --socket "$tmp/bridge-x.sock" >"$tmp/once" 2>"$tmp/err"
st=$?
if [ $st = 1 ] && grep -q "no running bridge at $tmp/bridge-x.sock" "$tmp/err" &&
	grep -q "^choke_exporter_bridge_up{bridge=\"$tmp/bridge-x.sock\",socket=\"$tmp/bridge-x.sock\"} 0$" "$tmp/once" &&
	[ "$(tail -1 "$tmp/once")" = "# EOF" ] && ! grep -q choke_qdisc_ "$tmp/once" &&
	promtool check metrics <"$tmp/once" >/dev/null 2>&1; then
	ok once-no-bridge
else
	bad once-no-bridge "exit $st: $(head -2 "$tmp/err")"
fi
# nothing to find is not a failure
"$CHOKE" exporter --once --no-qdiscs --socket-dir "$tmp/none" >"$tmp/once" 2>"$tmp/err"
st=$?
if [ $st = 0 ] && [ ! -s "$tmp/err" ] &&
	grep -q "^choke_exporter_bridge_scan_up{dir=\"$tmp/none\"} 1$" "$tmp/once"; then
	ok once-nothing
else
	bad once-nothing "exit $st: $(head -2 "$tmp/err")"
fi
# a closed standard output is an error, not a silent success
"$CHOKE" exporter --once --no-qdiscs --socket-dir "$tmp/none" >/dev/full 2>"$tmp/err"
st=$?
if [ $st = 1 ] && grep -q 'write error' "$tmp/err"; then
	ok once-full
else
	bad once-full "exit $st: $(head -2 "$tmp/err")"
fi

# what the exporter serves, for made-up sources: promtool, the dashboard
if ! "$EXPORTER_TESTS" --exposition "$tmp/expo.txt" 2>"$tmp/err"; then
	bad exposition "$(head -3 "$tmp/err")"
else
	if promtool check metrics <"$tmp/expo.txt" >"$tmp/promtool" 2>&1; then
		ok "exposition-promtool: promtool check metrics passes ($(grep -vc '^#' "$tmp/expo.txt") samples)"
	else
		bad exposition-promtool "$(head -5 "$tmp/promtool")"
	fi
	if python3 tests/exporter/dashboard-check.py contrib/grafana/choke.json "$tmp/expo.txt" >"$tmp/dash" 2>&1; then
		ok "dashboard: $(tail -1 "$tmp/dash" | sed 's/^ok *dashboard: //')"
	else
		bad dashboard "$(cat "$tmp/dash")"
	fi
fi
echo "exporter-cli: $fails failed"
[ $fails = 0 ]
