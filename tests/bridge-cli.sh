#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke bridge | stats | reconfigure without root or a running bridge: help,
# the options' ranges, the configuration file's errors and what `stats` says
# when no bridge answers. The live bridge is tests/bridge.sh (root); that
# the usage and the man page list the same options is tests/help.sh.
# Usage: CHOKE=build/gcc/choke sh tests/bridge-cli.sh
set -u
CHOKE=$(readlink -f "${CHOKE:-build/gcc/choke}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   bridge-cli/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL bridge-cli/$1: $2"; }

# a control socket that records every connection: help must make none
python3 - "$tmp/spy.sock" "$tmp/spy.log" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    msg = c.recv(8192)
    with open(sys.argv[2], "ab") as f:
        f.write(msg + b"\n")
    c.close()
PY
spy=$!
trap 'kill $spy 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$tmp/spy.sock" ] && break; sleep 0.1; done

# --- help: usage on stdout, exit 0, nothing sent ------------------------------
help_case() { # name, expected first words, args...
	name=$1 want=$2
	shift 2
	"$CHOKE" "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = 0 ] && head -1 "$tmp/o" | grep -q "^usage: choke $want" && [ ! -s "$tmp/e" ]; then
		ok "$name"
	else bad "$name" "exit $st, stdout [$(head -1 "$tmp/o")], stderr [$(head -2 "$tmp/e")]"; fi
}
help_case bridge-help bridge bridge --help
help_case bridge-h bridge bridge -h
help_case bridge-help-late bridge bridge --in a --out b --rate 1mbit --help
help_case bridge-help-after-bad-rate bridge bridge --in a/b --rate fast --help
help_case stats-help stats stats --help
help_case stats-h stats stats -h
help_case stats-help-socket stats stats --socket "$tmp/spy.sock" --help
help_case reconfigure-help reconfigure reconfigure --help
help_case reconfigure-h reconfigure reconfigure -h
help_case reconfigure-help-socket reconfigure reconfigure --socket "$tmp/spy.sock" --help
help_case reconfigure-help-after-words reconfigure reconfigure --socket "$tmp/spy.sock" \
	choke limit 10 --help
if [ ! -s "$tmp/spy.log" ]; then ok "help-contacts-no-bridge"
else bad help-contacts-no-bridge "the socket got: $(cat "$tmp/spy.log")"; fi

# --- refused, with the range: usage errors exit 2, the rest 1 ----------------
expect_status() { # status, name, pattern, args...
	want=$1 name=$2 pattern=$3
	shift 3
	"$CHOKE" "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = "$want" ] && grep -q -- "$pattern" "$tmp/e" && [ ! -s "$tmp/o" ]; then ok "$name"
	else bad "$name" "exit $st: $(head -3 "$tmp/e")"; fi
}
expect_fail() { expect_status 1 "$@"; }
expect_usage() { expect_status 2 "$@"; }
B="bridge --in nosuch0 --out nosuch1"
expect_usage burst-negative "choke bridge: --burst needs an integer from 1 to 1073741824, not \"-5\"" \
	$B --rate 10mbit --burst -5
expect_usage burst-zero "from 1 to 1073741824, not \"0\"" $B --rate 10mbit --burst 0
expect_usage burst-absurd "from 1 to 1073741824, not \"99999999999\"" $B --rate 10mbit --burst 99999999999
expect_usage burst-hex "from 1 to 1073741824, not \"0x10\"" $B --rate 10mbit --burst 0x10
expect_usage rate-negative "--rate needs .*64kbit to 1tbit.*not \"-5mbit\"" $B --rate -5mbit
expect_usage rate-tiny "64kbit to 1tbit" $B --rate 1bit
expect_usage rate-absurd "64kbit to 1tbit" $B --rate 5tbit
expect_usage rate-word "64kbit to 1tbit" $B --rate fast
expect_usage seed-negative "--seed needs an integer from 0 to 18446744073709551615, not \"-1\"" \
	$B --rate 10mbit --seed -1
expect_usage seed-hex "not \"0x10\"" $B --rate 10mbit --seed 0x10
expect_usage rx-ring "--rx-ring needs v2 or v3, not \"v4\"" $B --rate 10mbit --rx-ring v4
expect_usage backend "--backend needs afpacket or xdp, not \"dpdk\"" $B --rate 10mbit --backend dpdk
expect_usage busy-poll-zero "--busy-poll needs an integer from 1 to 10000, not \"0\"" \
	$B --rate 10mbit --backend xdp --busy-poll 0
expect_fail busy-poll-needs-xdp "--busy-poll needs --backend xdp" $B --rate 10mbit --busy-poll 50
expect_fail rx-ring-not-xdp "--rx-ring is AF_PACKET's; --backend xdp has no TPACKET ring" \
	$B --rate 10mbit --backend xdp --rx-ring v3
expect_fail xdp-missing-interface "no such interface: nosuch0" $B --rate 10mbit --backend xdp
expect_usage in-path "--in needs an interface name.*not \"../x\"" bridge --in ../x --out b --rate 10mbit
expect_usage unknown-option "unknown option --frobnicate" $B --rate 10mbit --frobnicate
expect_usage missing-value "--socket needs PATH" $B --rate 10mbit --socket
expect_usage given-twice "--rate given twice" $B --rate 10mbit --rate 20mbit
expect_fail required "--in, --out and --rate are required" bridge --in a
expect_fail bad-words "invalid choke parameters" $B --rate 10mbit choke limit 0
expect_usage stats-format "--format needs text, json or openmetrics, not \"xml\"" stats --format xml
expect_usage stats-watch "--watch needs a number from 0.1 to 3600, not \"0\"" stats --watch 0
expect_usage stats-json-format "--format and --json exclude each other" stats --format text --json
expect_usage stats-argument "unexpected argument \"now\"" stats now
expect_usage reconfigure-no-words "missing WORDS..." reconfigure --socket "$tmp/spy.sock"
expect_usage reconfigure-unknown "unknown option --frob" reconfigure --socket "$tmp/spy.sock" \
	--frob choke limit 10
expect_usage reconfigure-short-option "unknown option -s" reconfigure -s "$tmp/spy.sock" choke limit 10
expect_usage stats-unknown "unknown option --frob" stats --socket "$tmp/spy.sock" --frob
if [ ! -s "$tmp/spy.log" ]; then ok "usage-errors-contact-no-bridge"
else bad usage-errors-contact-no-bridge "the socket got: $(cat "$tmp/spy.log")"; fi

# --- the configuration file ---------------------------------------------------
cat >"$tmp/good.conf" <<'EOF'
# eth1 is the LAN, eth2 the uplink

in nosuch0      # a comment after an option
out nosuch1
rate 20mbit
	# an indented comment
choke limit 300 min 50 max 150 ecn
EOF
expect_fail config-good-reaches-interfaces "no such interface: nosuch0" bridge --config "$tmp/good.conf"
printf 'in nosuch0\nout nosuch1\n# fine so far\nrate 20mbit\nburst -1\n' >"$tmp/bad1.conf"
expect_fail config-bad-value "$tmp/bad1.conf:5: --burst needs an integer from 1 to 1073741824, not \"-1\"" \
	bridge --config "$tmp/bad1.conf"
printf 'in nosuch0\nout nosuch1\nrx-ring v9\n' >"$tmp/bad4.conf"
expect_fail config-bad-choice "$tmp/bad4.conf:3: --rx-ring needs v2 or v3, not \"v9\"" \
	bridge --config "$tmp/bad4.conf"
printf 'in nosuch0\nout nosuch1\nrate 20mbit\nbackend xdp\nbusy-poll 20\n' >"$tmp/xdp.conf"
expect_fail config-backend-xdp "no such interface: nosuch0" bridge --config "$tmp/xdp.conf"
printf 'in nosuch0\nout nosuch1\nrate 20mbit\nbackend xdp\nrx-ring v2\n' >"$tmp/bad6.conf"
expect_fail config-backend-rx-ring "--rx-ring is AF_PACKET's" bridge --config "$tmp/bad6.conf"
printf 'in nosuch0\nout nosuch1\nbackend af_xdp\n' >"$tmp/bad7.conf"
expect_fail config-bad-backend "$tmp/bad7.conf:3: --backend needs afpacket or xdp, not \"af_xdp\"" \
	bridge --config "$tmp/bad7.conf"
printf 'config other.conf\n' >"$tmp/bad5.conf"
expect_fail config-in-config "$tmp/bad5.conf:1: --config cannot be given in a configuration file" \
	bridge --config "$tmp/bad5.conf"
printf '# x\n\nrat 20mbit\n' >"$tmp/bad2.conf"
expect_fail config-unknown "$tmp/bad2.conf:3: unknown option \"rat\"" bridge --config "$tmp/bad2.conf"
printf 'rate 20mbit\nchoke limit 300 min 400\n' >"$tmp/bad3.conf"
expect_fail config-bad-words "$tmp/bad3.conf:2: invalid choke parameters" bridge --in a --out b --config "$tmp/bad3.conf"
expect_fail config-missing "cannot read the configuration $tmp/none.conf" bridge --config "$tmp/none.conf"

# --- stats and reconfigure when no bridge answers ----------------------------
expect_fail stats-no-socket "no running bridge at $tmp/none.sock" stats --socket "$tmp/none.sock"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1])' "$tmp/stale.sock"
expect_fail stats-stale-socket "no running bridge at $tmp/stale.sock (a stale socket" stats --socket "$tmp/stale.sock"
expect_fail reconfigure-no-bridge "no running bridge at $tmp/none.sock" reconfigure --socket "$tmp/none.sock" choke limit 100

# a bridge that accepts but never answers (stopped, wedged): bounded waits
python3 - "$tmp/silent.sock" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.listen(8)
time.sleep(60)
PY
silent=$!
for i in $(seq 1 100); do [ -S "$tmp/silent.sock" ] && break; sleep 0.1; done
t0=$(date +%s)
expect_fail stats-silent-bridge "no answer from the bridge at $tmp/silent.sock within 5000 ms" \
	stats --socket "$tmp/silent.sock"
expect_fail reconfigure-silent-bridge "no answer from the bridge at $tmp/silent.sock within 5000 ms" \
	reconfigure --socket "$tmp/silent.sock" choke limit 100
t1=$(date +%s)
kill $silent 2>/dev/null
if [ $((t1 - t0)) -le 14 ]; then ok "silent-bridge-bounded: $((t1 - t0)) s for both"
else bad silent-bridge-bounded "$((t1 - t0)) s"; fi

echo "bridge-cli: $n tests, $fails failed"
[ $fails = 0 ]
