#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# `choke exporter` with live bridges (root; part of `make check` as root):
# two bridges in a network namespace, pings through one of them, then
#   --once: every bridge's series with its bridge label, promtool, the same
#     series as `choke stats --format openmetrics` (with --penalised-flows;
#     without it no per-flow series), the dashboard's queries;
#   the server: GET/HEAD /metrics, the landing page at /, 404, 405, 400,
#     431, 505, a client that sends nothing (408 after 5 s, while the
#     others are served at once), one that hangs up, 503 beyond 16
#     connections at once; a bridge that stops answering (SIGSTOP: up 0
#     within the budget Prometheus's scrape-timeout header gives, logged
#     once, "answers again" after SIGCONT), bridges that never answer asked
#     in parallel (the scrape costs the budget once), several scrapes at
#     once, sd_notify READY/STOPPING, SIGTERM, a second exporter on the same
#     port;
#   permissions (a user who may not reach the sockets; one in the sockets'
#     group who may, as under systemd) and a stale socket.
# The kernel's choke qdiscs are tested in UML (tests/kernel/exporter-uml.sh).
# Needs root, iproute2, python3, promtool, setpriv. About 30 seconds.
# Usage: CHOKE=build/gcc/choke sh tests/exporter.sh
set -u
CHOKE=$(readlink -f "${CHOKE:-build/gcc/choke}")
A=chea$$ B=cheb$$ Z=chez$$
tmp=$(mktemp -d)
socks=$tmp/socks
fails=0
ok() { echo "ok   exporter/$1"; }
bad() { fails=$((fails + 1)); echo "FAIL exporter/$1: $2"; }
notifier=
cleanup() {
	[ -n "$notifier" ] && kill "$notifier" 2>/dev/null
	for ns in $A $B $Z; do
		for p in $(ip netns pids $ns 2>/dev/null); do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	done
	sleep 0.3
	for ns in $A $B $Z; do
		for p in $(ip netns pids $ns 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		ip netns del $ns 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$(id -u)" != 0 ] || ! command -v promtool >/dev/null || ! command -v setpriv >/dev/null ||
	! command -v python3 >/dev/null; then
	echo "FAIL exporter: needs root, promtool, setpriv and python3 (.ci/run installs them)"
	exit 1
fi
mkdir -m 700 "$socks"
Bx() { ip netns exec $B "$@"; }

# --- two bridges: A(xa) -- ba|bz -- xz(Z); ca|cz with peers in B ----------
for ns in $A $B $Z; do ip netns add $ns && ip -n $ns link set lo up || exit 1; done
ip -n $A link add xa type veth peer name ba netns $B
ip -n $Z link add xz type veth peer name bz netns $B
ip -n $B link add ca type veth peer name ya
ip -n $B link add cz type veth peer name yz
ip -n $B link add ga type veth peer name wa
ip -n $B link add gz type veth peer name wz
for x in "$A xa" "$Z xz" "$B ba" "$B bz" "$B ca" "$B cz" "$B ya" "$B yz" "$B ga" "$B gz" "$B wa" "$B wz"; do
	set -- $x
	ip netns exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1 2>/dev/null
	ip -n $1 link set $2 up
done
ip -n $A addr add 10.77.0.1/24 dev xa
ip -n $Z addr add 10.77.0.2/24 dev xz
Bx "$CHOKE" bridge --in ba --out bz --rate 10mbit --socket "$socks/bridge-ba.sock" \
	choke limit 100 >"$tmp/br-ba.out" 2>"$tmp/br-ba.err" &
Bx "$CHOKE" bridge --in ca --out cz --rate 20mbit --duplex --socket "$socks/bridge-ca.sock" \
	>"$tmp/br-ca.out" 2>"$tmp/br-ca.err" &
for i in $(seq 50); do
	[ -S "$socks/bridge-ba.sock" ] && [ -S "$socks/bridge-ca.sock" ] && break
	sleep 0.1
done
pid_ca=$(Bx "$CHOKE" stats --json --socket "$socks/bridge-ca.sock" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' 2>/dev/null)
if ! ip netns exec $A ping -q -c 20 -i 0.02 -W 2 10.77.0.2 >"$tmp/ping" 2>&1 || [ -z "$pid_ca" ]; then
	bad setup "bridges or ping: $(tail -2 "$tmp/ping") $(cat "$tmp/br-ba.err" "$tmp/br-ca.err")"
	exit 1
fi
ok "setup: two bridges, 20 pings through ba -> bz"

# --- --once --------------------------------------------------------------
Bx "$CHOKE" exporter --once --socket-dir "$socks" >"$tmp/once.txt" 2>"$tmp/once.err"
st=$?
promtool check metrics <"$tmp/once.txt" >"$tmp/promtool" 2>&1
pst=$?
sent=$(sed -n 's/^choke_bridge_sent_packets_total{bridge="ba",in="ba",out="bz"} \([0-9]*\)$/\1/p' "$tmp/once.txt")
if [ $st = 0 ] && [ $pst = 0 ] && [ ! -s "$tmp/once.err" ] && [ "${sent:-0}" -ge 20 ] &&
	grep -q '^choke_exporter_bridge_up{bridge="ba",socket="'"$socks"'/bridge-ba.sock"} 1$' "$tmp/once.txt" &&
	grep -q '^choke_exporter_bridge_up{bridge="ca",socket="'"$socks"'/bridge-ca.sock"} 1$' "$tmp/once.txt" &&
	grep -q '^choke_exporter_qdiscs_up 1$' "$tmp/once.txt"; then
	ok "once: both bridges up, ba sent $sent frames, promtool passes"
else
	bad once "exit $st, promtool $pst ($(head -3 "$tmp/promtool")), sent '$sent', $(head -3 "$tmp/once.err")"
fi
# the per-flow series (addresses and ports) only with --penalised-flows
if ! grep -q 'flow=' "$tmp/once.txt" && grep -q '^# TYPE choke_bridge_penalised_packets gauge$' "$tmp/once.txt"; then
	ok "no-flows: without --penalised-flows, the per-flow families are empty"
else
	bad no-flows "$(grep -m2 'flow=' "$tmp/once.txt")"
fi
# the same series as each bridge's own OpenMetrics, with the bridge label
Bx "$CHOKE" exporter --once --penalised-flows --socket-dir "$socks" >"$tmp/once-flows.txt" 2>/dev/null
for b in ba ca; do
	Bx "$CHOKE" stats --format openmetrics --socket "$socks/bridge-$b.sock" >"$tmp/stats-$b.txt"
done
python3 - "$tmp/once-flows.txt" "$tmp/stats-ba.txt" "$tmp/stats-ca.txt" <<'PY' >"$tmp/same" 2>&1
import re, sys
def series(path, add=None):
    out = set()
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        name, rest = re.match(r'([^{ ]+)(\{[^}]*\})?', line).group(1, 2)
        labels = rest[1:-1] if rest else ""
        if add:
            labels = add + ("," + labels if labels else "")
        out.add(name + "{" + labels + "}")
    return out
exp = {s for s in series(sys.argv[1]) if s.startswith("choke_bridge_")}
own = series(sys.argv[2], 'bridge="ba"') | series(sys.argv[3], 'bridge="ca"')
if exp != own:
    print("only in the exporter:", sorted(exp - own)[:5], "only in stats:", sorted(own - exp)[:5])
    sys.exit(1)
print(len(exp))
PY
if [ $? = 0 ]; then ok "once-same-series: the $(cat "$tmp/same") series of choke stats --format openmetrics, labelled (--penalised-flows)"
else bad once-same-series "$(cat "$tmp/same")"; fi
if python3 tests/exporter/dashboard-check.py contrib/grafana/choke.json "$tmp/once-flows.txt" >"$tmp/dash" 2>&1; then
	ok "dashboard: every metric the dashboard queries is a family of the live exposition"
else
	bad dashboard "$(cat "$tmp/dash")"
fi

# --- permissions, a stale socket ---------------------------------------------
chmod 755 "$tmp"
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$CHOKE" exporter --once --no-qdiscs --socket "$socks/bridge-ba.sock" >"$tmp/perm.txt" 2>"$tmp/perm.err"
st=$?
if [ $st = 1 ] && grep -q "permission denied: $socks/bridge-ba.sock" "$tmp/perm.err" &&
	grep -q '^choke_exporter_bridge_up{bridge="'"$socks"'/bridge-ba.sock",.*} 0$' "$tmp/perm.txt"; then
	ok "permission-socket: $(head -1 "$tmp/perm.err")"
else
	bad permission-socket "exit $st: $(cat "$tmp/perm.err")"
fi
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$CHOKE" exporter --once --no-qdiscs --socket-dir "$socks" >"$tmp/perm.txt" 2>"$tmp/perm.err"
st=$?
if [ $st = 1 ] && grep -q "permission denied: $socks (the bridges' sockets are for root and their group" "$tmp/perm.err" &&
	grep -q '^choke_exporter_bridge_scan_up{dir="'"$socks"'"} 0$' "$tmp/perm.txt"; then
	ok "permission-dir: $(head -1 "$tmp/perm.err")"
else
	bad permission-dir "exit $st: $(cat "$tmp/perm.err")"
fi
# as under systemd (Group=choke, UMask=0007, /run/choke in that group): a
# bridge's socket the exporter reaches through the group alone; a user
# outside the group does not
gsocks=$tmp/gsocks
mkdir "$gsocks" && chgrp nogroup "$gsocks" && chmod 2750 "$gsocks"
Bx sh -c 'umask 007; exec "$1" bridge --in ga --out gz --rate 10mbit --socket "$2"' sh "$CHOKE" \
	"$gsocks/bridge-ga.sock" >"$tmp/br-ga.out" 2>"$tmp/br-ga.err" &
for i in $(seq 50); do [ -S "$gsocks/bridge-ga.sock" ] && break; sleep 0.1; done
gmode=$(stat -c '%a %U %G' "$gsocks/bridge-ga.sock" 2>&1)
Bx setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$CHOKE" exporter --once --no-qdiscs --socket-dir "$gsocks" >"$tmp/grp.txt" 2>"$tmp/grp.err"
st=$?
Bx setpriv --reuid=nobody --regid=daemon --clear-groups \
	"$CHOKE" exporter --once --no-qdiscs --socket-dir "$gsocks" >"$tmp/nogrp.txt" 2>"$tmp/nogrp.err"
st2=$?
if [ "$gmode" = "660 root nogroup" ] && [ $st = 0 ] &&
	grep -q '^choke_exporter_bridge_up{bridge="ga",.*} 1$' "$tmp/grp.txt" &&
	grep -q '^choke_bridge_sent_packets_total{bridge="ga",' "$tmp/grp.txt" &&
	[ $st2 = 1 ] && grep -q "permission denied: $gsocks" "$tmp/nogrp.err"; then
	ok "group: the socket 0660 in the directory's group; a user in it reads the bridge, one outside is denied"
else
	bad group "socket $gmode; in the group: exit $st $(head -2 "$tmp/grp.err"); outside: exit $st2 $(head -1 "$tmp/nogrp.err")"
fi
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1])' \
	"$socks/bridge-stale.sock"
Bx "$CHOKE" exporter --once --no-qdiscs --socket-dir "$socks" >"$tmp/stale.txt" 2>"$tmp/stale.err"
st=$?
if [ $st = 1 ] && grep -q "no running bridge at $socks/bridge-stale.sock (a stale socket" "$tmp/stale.err" &&
	grep -q '^choke_exporter_bridge_up{bridge="stale",.*} 0$' "$tmp/stale.txt" &&
	grep -q '^choke_exporter_bridge_up{bridge="ba",.*} 1$' "$tmp/stale.txt"; then
	ok "stale-socket: up 0 for it, the others 1"
else
	bad stale-socket "exit $st: $(cat "$tmp/stale.err")"
fi
rm -f "$socks/bridge-stale.sock"

# --- the server ----------------------------------------------------------------
# sd_notify's datagrams, collected
python3 - "$tmp/notify.sock" "$tmp/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(120)
with open(sys.argv[2], "a") as log:
    while True:
        try:
            m = s.recv(4096).decode()
        except socket.timeout:
            break
        log.write(m.replace("\n", " ") + "\n")
        log.flush()
        if "STOPPING=1" in m:
            break
PY
notifier=$!
for i in $(seq 50); do [ -S "$tmp/notify.sock" ] && break; sleep 0.1; done
# (not through Bx: $! must be the exporter itself)
ip netns exec $B env NOTIFY_SOCKET="$tmp/notify.sock" "$CHOKE" exporter --listen 127.0.0.1:0 \
	--socket-dir "$socks" 2>"$tmp/server.log" &
server=$!
port=
for i in $(seq 50); do
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/server.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { bad server "did not start: $(cat "$tmp/server.log")"; exit 1; }
# raw HTTP through python: REQUEST (python bytes literal) -> status line, headers, body
http() {
	Bx python3 - "$port" "$1" "${2:-20}" <<'PY'
import socket, sys, time
port, req, wait = int(sys.argv[1]), eval(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=wait)
t = time.time()
if req:
    s.sendall(req)
data = b""
while True:
    try:
        b = s.recv(65536)
    except socket.timeout:
        print("TIMEOUT")
        sys.exit(1)
    if not b:
        break
    data += b
head, _, body = data.partition(b"\r\n\r\n")
print(head.decode().split("\r\n")[0])
for h in head.decode().split("\r\n")[1:]:
    print(h)
print("BODY %d" % len(body))
print("TOOK %.1f" % (time.time() - t))
sys.stdout.flush()
sys.stdout.buffer.write(body)
PY
}
http "b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'" >"$tmp/get"
sed -n '/^TOOK/,$p' "$tmp/get" | tail -n +2 >"$tmp/get.body"
if head -1 "$tmp/get" | grep -q '^HTTP/1.1 200 OK' &&
	grep -q '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$tmp/get" &&
	promtool check metrics <"$tmp/get.body" >/dev/null 2>&1 &&
	grep -q '^choke_exporter_bridge_up{bridge="ca",.*} 1$' "$tmp/get.body"; then
	ok "get: 200, Prometheus's text format, promtool passes"
else
	bad get "$(head -5 "$tmp/get")"
fi
check_status() { # NAME REQUEST STATUS [HEADER]
	http "$2" >"$tmp/resp"
	if head -1 "$tmp/resp" | grep -q "^HTTP/1.1 $3 " && { [ -z "${4:-}" ] || grep -q "^$4" "$tmp/resp"; }; then
		ok "$1: $(head -1 "$tmp/resp" | tr -d '\r')"
	else
		bad "$1" "$(head -3 "$tmp/resp")"
	fi
}
check_status head "b'HEAD /metrics HTTP/1.1\r\n\r\n'" 200 "BODY 0"
check_status landing "b'GET / HTTP/1.1\r\n\r\n'" 200 "Content-Type: text/html"
check_status not-found "b'GET /nope HTTP/1.1\r\n\r\n'" 404
check_status method "b'POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc'" 405 "Allow: GET, HEAD"
check_status garbage "b'\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03'" 400
check_status too-large "b'GET /metrics HTTP/1.1\r\nX-Pad: ' + b'a' * 9000 + b'\r\n\r\n'" 431
check_status version "b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'" 505
# a client that sends nothing holds only its own connection, for EXP_READ_MS
# (5 s): it gets 408 then, and a request made meanwhile is served at once
http "b''" 20 >"$tmp/silent" &
silent=$!
sleep 0.5
http "b'GET /metrics HTTP/1.0\r\n\r\n'" 20 >"$tmp/behind"
wait $silent
took=$(sed -n 's/^TOOK //p' "$tmp/silent")
took_behind=$(sed -n 's/^TOOK //p' "$tmp/behind")
if head -1 "$tmp/silent" | grep -q '^HTTP/1.1 408 ' && head -1 "$tmp/behind" | grep -q '^HTTP/1.1 200 ' &&
	python3 -c "import sys; sys.exit(not (4.5 <= float('$took') <= 7 and float('$took_behind') < 2))"; then
	ok "silent-client: 408 after ${took} s; a request made meanwhile served in ${took_behind} s"
else
	bad silent-client "$(head -1 "$tmp/silent") after '$took' s; behind: $(head -1 "$tmp/behind") in '$took_behind' s"
fi
# more than 16 connections at once: the 17th gets 503 at once; once they go, 200
Bx python3 - "$port" >"$tmp/busy" 2>&1 <<'PY'
import socket, sys, time
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
time.sleep(0.3)
def get():
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")
    d = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        d += b
    return d.split(b"\r\n")[0].decode()
t = time.time()
print(get(), "%.1f" % (time.time() - t))
for s in idle:
    s.close()
time.sleep(0.5)
print(get())
PY
if head -1 "$tmp/busy" | grep -q '^HTTP/1.1 503 Service Unavailable 0\.[0-9]$' &&
	sed -n 2p "$tmp/busy" | grep -q '^HTTP/1.1 200 OK$'; then
	ok "busy: with 16 idle connections the 17th gets $(head -1 "$tmp/busy" | cut -d' ' -f2-4) at once; then 200"
else
	bad busy "$(cat "$tmp/busy")"
fi
# a client that hangs up at once, then a normal one
Bx python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()"
check_status after-hangup "b'GET /metrics HTTP/1.1\r\n\r\n'" 200

# a bridge that stops answering: up 0 within the budget of Prometheus's
# scrape timeout (3 s: 2.5 s), logged once
GET3="b'GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 3\r\n\r\n'"
kill -STOP "$pid_ca"
http "$GET3" >"$tmp/stopped1"
http "$GET3" >"$tmp/stopped2"
kill -CONT "$pid_ca"
http "$GET3" >"$tmp/cont"
took=$(sed -n 's/^TOOK //p' "$tmp/stopped1")
nlog=$(grep -c "no answer from the bridge at $socks/bridge-ca.sock within the scrape's budget (2500 ms)" "$tmp/server.log")
if grep -q '^choke_exporter_bridge_up{bridge="ca",.*} 0$' "$tmp/stopped1" &&
	grep -q '^choke_exporter_bridge_up{bridge="ba",.*} 1$' "$tmp/stopped1" &&
	grep -q '^choke_exporter_scrape_budget_seconds 2.500$' "$tmp/stopped1" &&
	grep -q '^choke_exporter_bridge_up{bridge="ca",.*} 1$' "$tmp/cont" &&
	[ "$nlog" = 1 ] && grep -q "$socks/bridge-ca.sock: answers again" "$tmp/server.log" &&
	python3 -c "import sys; sys.exit(not 2.4 <= float('$took') <= 3)"; then
	ok "hung-bridge: up 0 after ${took} s (a 3 s scrape timeout: 2.5 s), logged once, answers again after SIGCONT"
else
	bad hung-bridge "took '$took', logged $nlog times: $(tail -3 "$tmp/server.log")"
fi
# three bridges that never answer (listening, never accepting) and the
# stopped one: asked at once, the scrape costs the budget once, not four
# times; five such scrapes at once all answer within it too (not through Bx:
# $! must be python itself; a path socket needs no namespace)
python3 - "$socks" 30 <<'PY' &
import os, socket, sys, time
socks = []
for n in ("silent1", "silent2", "silent3"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.bind(os.path.join(sys.argv[1], "bridge-%s.sock" % n))
    s.listen(8)
    socks.append(s)
time.sleep(float(sys.argv[2]))
PY
silents=$!
for i in $(seq 50); do [ -S "$socks/bridge-silent3.sock" ] && break; sleep 0.1; done
kill -STOP "$pid_ca"
http "$GET3" >"$tmp/par"
pids=
for i in 1 2 3 4 5; do
	http "$GET3" >"$tmp/par$i" &
	pids="$pids $!"
done
wait $pids
kill -CONT "$pid_ca"
kill $silents 2>/dev/null
wait $silents 2>/dev/null
rm -f "$socks"/bridge-silent*.sock
took=$(sed -n 's/^TOOK //p' "$tmp/par")
maxtook=$(cat "$tmp"/par[1-5] | sed -n 's/^TOOK //p' | sort -n | tail -1)
nok=$(grep -l '^choke_bridge_sent_packets_total{bridge="ba",' "$tmp"/par[1-5] | wc -l)
if grep -q '^choke_exporter_bridge_up{bridge="silent2",.*} 0$' "$tmp/par" &&
	grep -q '^choke_bridge_sent_packets_total{bridge="ba",' "$tmp/par" &&
	python3 -c "import sys; sys.exit(not (2.4 <= float('$took') <= 3.2 and float('${maxtook:-99}') <= 3.5))" &&
	[ "$nok" = 5 ]; then
	ok "parallel: 4 bridges silent, the scrape took ${took} s (budget 2.5 s); 5 scrapes at once, the slowest ${maxtook} s, each with ba's series"
else
	bad parallel "took '$took', 5 at once: slowest '$maxtook' s, $nok with ba's series"
fi

# a second exporter on the same port
Bx "$CHOKE" exporter --listen "127.0.0.1:$port" --socket-dir "$socks" >/dev/null 2>"$tmp/second.err"
st=$?
if [ $st = 1 ] && grep -q "cannot listen on 127.0.0.1:$port: Address already in use" "$tmp/second.err"; then
	ok "port-taken: $(cat "$tmp/second.err")"
else
	bad port-taken "exit $st: $(cat "$tmp/second.err")"
fi

# SIGTERM: STOPPING=1, exit 0
kill -TERM $server
wait $server
st=$?
wait $notifier 2>/dev/null
if [ $st = 0 ] && grep -q "choke: exporter: stopped" "$tmp/server.log" &&
	grep -q "^READY=1 STATUS=listening on 127.0.0.1:$port MAINPID=" "$tmp/notify.log" &&
	grep -q "^STOPPING=1" "$tmp/notify.log"; then
	ok "sigterm: READY=1 when listening, STOPPING=1, exit 0"
else
	bad sigterm "exit $st; notify: $(cat "$tmp/notify.log" 2>/dev/null); log: $(tail -2 "$tmp/server.log")"
fi
echo "exporter: $fails failed"
[ $fails = 0 ]
