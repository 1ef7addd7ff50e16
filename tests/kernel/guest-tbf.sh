#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Inside the UML guest, sourced by guest-chokeplus.sh and
# guest-target-idle.sh: two namespaces c (10.9.0.1) and s (10.9.0.2) joined
# by a veth c0-s0, and the helpers of their traffic cases. Needs $RUN (the
# run's folder) and $SECS (a flood's seconds).
ip netns add c; ip netns add s
ip -n c link add c0 type veth peer name s0 netns s
ip -n c addr add 10.9.0.1/24 dev c0; ip -n s addr add 10.9.0.2/24 dev s0
ip -n c link set c0 up; ip -n c link set lo up; ip -n s link set s0 up; ip -n s link set lo up
C() { ip netns exec c "$@"; }
S() { ip netns exec s "$@"; }
# quiet NS...: end what runs in the namespaces (servers and clients of the
# case before) and wait until it has gone, at most 5 s
quiet() {
	for q_ns; do for q_p in $(ip netns pids "$q_ns"); do kill "$q_p" 2>/dev/null; done; done
	q_i=0
	while [ $q_i -lt 50 ] && [ -n "$(for q_ns; do ip netns pids "$q_ns"; done)" ]; do
		sleep 0.1; q_i=$((q_i + 1))
	done
}
# serve PORT[:json]...: one-test iperf3 servers in s, waited for until they
# listen (at most 5 s each; a client that came too early failed the case)
serve() {
	for s_a; do
		case $s_a in
		*:json) S iperf3 -s -1 -p "${s_a%:json}" -J >/dev/null 2>&1 & ;;
		*) S iperf3 -s -1 -p "$s_a" >/dev/null 2>&1 & ;;
		esac
	done
	for s_a; do
		s_i=0
		while [ $s_i -lt 50 ] && ! S ss -ltnH "sport = :${s_a%:json}" | grep -q .; do
			sleep 0.1; s_i=$((s_i + 1))
		done
	done
}
# target_idle_run: `target` with one flood beside four light flows and
# nothing else (guest-chokeplus.sh's case target-idle; results.md 15.10).
# The light flows want a twentieth of the link, so the flood's cap (the
# equal split, a fifth) leaves the link idle until protect's room grows, and
# the room grows only with idle time measured. Under tbf nothing dequeues an
# empty child: the module starts the idle period at the dequeue that empties
# the queue (or at the first empty peek). Without either the flood had 0.21
# of the link from the third second on (a module with both removed); with
# them 0.71-0.79; since the link's rate is measured from the departures a
# packet waited for, 0.77-0.85, and since the room grows on the capacity
# left unused (not on the time the queue stood empty alone), 0.77-0.88
# (results.md 15.11; the ceiling is about 0.91: the light flows' twentieth
# and the headers). The verdict goes to $RUN/cp-target-idle.
# on_tbf WORDS...: the previous case's processes gone, a chokeplus with
# WORDS under a 4 Mbit/s tbf on c0
on_tbf() {
	quiet s c
	C tc qdisc del dev c0 root
	C tc qdisc add dev c0 root handle 1: tbf rate 4mbit burst 10kb latency 300ms
	C tc qdisc add dev c0 parent 1:1 handle 10: chokeplus "$@"
}
target_idle_run() {
	on_tbf limit 1000 bandwidth 4mbit protect target 5ms sparse
	serve 5202:json 5203
	C timeout $((SECS + 40)) iperf3 -c 10.9.0.2 -p 5203 -u -b 50k -P 4 -l 200 \
		-t $((SECS + 4)) >"$RUN/cp-light3.txt" 2>&1 &
	light=$!
	C timeout $((SECS + 40)) iperf3 -c 10.9.0.2 -p 5202 -u -b 8M -l 1000 -w 2M \
		-t "$SECS" -J --get-server-output >"$RUN/cp-udp3.json" 2>&1
	wait $light
	C tc -s -j qdisc show dev c0 >"$RUN/cp-stats3.json" 2>&1
	python3 - "$RUN/cp-udp3.json" "$RUN/cp-stats3.json" <<'PY' >"$RUN/cp-target-idle" 2>&1
import json, sys
u = json.load(open(sys.argv[1]))
iv = [i["sum"] for i in u["server_output_json"]["intervals"]]
late = [i for i in iv if i["start"] >= 2]
share = sum(i["bytes"] * 8 for i in late) / sum(i["seconds"] for i in late) / 4e6
q = [x for x in json.load(open(sys.argv[2])) if x["kind"] == "chokeplus"][0]
# the equal split would be 0.2; the light flows leave about 0.95
assert share >= 0.5, "the flood had %.3f of the link from the third second on" % share
assert q["protect"] > 0, q
print("the flood %.3f of the link from the third second on (equal split 0.2); protect %d;"
      " second by second %s" % (share, q["protect"], " ".join(
          "%.2f" % (i["bytes"] * 8 / i["seconds"] / 4e6) for i in iv)))
PY
}
