#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# tests/kernel/udpflood.c, the peers evaluation's flood source for fast links
# (make check; loopback, no root): it sends at the rate asked over several
# flows, the sink receives what was sent, and bad arguments exit 2 with a
# message.
set -u
U=${UDPFLOOD:?UDPFLOOD=path of the built udpflood}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
no() { echo "udpflood.sh: FAIL: $*"; fail=1; }

# a free port: the sink binds it or says why not
port=$((20000 + $$ % 20000))
"$U" sink $port --seconds 4 >"$T/sink" 2>"$T/sink.err" &
sp=$!
sleep 0.5
"$U" send 127.0.0.1 $port --rate 80000 --flows 3 --len 1200 --seconds 2 >"$T/send" 2>"$T/send.err" ||
	no "send exited $? ($(cat "$T/send.err"))"
wait $sp || no "sink exited non-zero ($(cat "$T/sink.err"))"
python3 - "$T/send" "$T/sink" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
ok = True
# 80 Mbit/s of 1200-byte payloads for 2 s: 16,667 datagrams
if not (0.85 * 80000 <= s["rate_kbit"] <= 1.05 * 80000):
    print("udpflood.sh: FAIL: sent at %s kbit/s, asked 80000" % s["rate_kbit"]); ok = False
if s["flows"] != 3 or s["bytes"] != 1200 * s["datagrams"]:
    print("udpflood.sh: FAIL: report %s" % s); ok = False
# loopback loses nothing unless the sink's buffer overflows: most arrive
if not (0.95 * s["datagrams"] <= r["datagrams"] <= s["datagrams"]):
    print("udpflood.sh: FAIL: sink got %d of %d" % (r["datagrams"], s["datagrams"])); ok = False
print("udpflood.sh: sent %d datagrams at %s kbit/s, the sink got %d" % (
    s["datagrams"], s["rate_kbit"], r["datagrams"]))
sys.exit(0 if ok else 1)
PY

# a slow flood's last interval ends at the end: 8 kbit/s of 1000-byte
# datagrams for 2 s is one datagram a second, 2 in all (not a burst to
# fill the rest of the time)
"$U" send 127.0.0.1 $port --rate 8 --len 1000 --seconds 2 >"$T/slow" 2>&1 ||
	no "slow send exited $?"
grep -q '"datagrams": 2,' "$T/slow" || no "slow send: $(cat "$T/slow")"

for args in "send 10.0.0.1 5000" "send 10.0.0 5000 --rate 10" "send 10.0.0.1 0 --rate 10" \
	"send 10.0.0.1 5000 --rate 10 --flows 65" "send 10.0.0.1 5000 --rate 10 --len" \
	"send 10.0.0.1 5000 --rate 10 --bogus 1" "sink" "sink 70000" "sink 5000 --seconds x" "frobnicate"; do
	# shellcheck disable=SC2086
	"$U" $args >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 2 ] || no "udpflood $args: exit $rc, not 2"
	[ -s "$T/err" ] || no "udpflood $args: no message"
done
[ $fail = 0 ] && echo "udpflood.sh: ok"
exit $fail
