#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke replay on real traffic: Linux TCP (4 iperf3 streams) and a UDP flood
# between two network namespaces, captured with tcpdump, then replayed
# through a 20 Mbit/s bottleneck. Needs root, ip, tcpdump, iperf3, ethtool.
# Usage: CHOKE=build/gcc/choke sh tests/replay-real.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
if [ "$(id -u)" != 0 ] || ! command -v tcpdump >/dev/null || ! command -v iperf3 >/dev/null; then
	echo "FAIL replay-real: needs root, tcpdump and iperf3 (.ci/run installs them)"
	exit 1
fi
tmp=$(mktemp -d)
A=chk-a-$$
B=chk-b-$$
cleanup() {
	ip netns pids $A 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids $B 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL replay-real: $*"; exit 1; }

ip netns add $A && ip netns add $B || fail "cannot create network namespaces"
ip -n $A link add va type veth peer name vb netns $B || fail "veth"
ip -n $A addr add 10.77.0.1/24 dev va
ip -n $B addr add 10.77.0.2/24 dev vb
ip -n $A link set va up
ip -n $B link set vb up
ip -n $A link set lo up
ip -n $B link set lo up
# MTU-sized packets on the wire, as a bottleneck queue would see them
ip netns exec $A ethtool -K va tso off gso off gro off >/dev/null 2>&1
ip netns exec $B ethtool -K vb tso off gso off gro off >/dev/null 2>&1

ip netns exec $B iperf3 -s -p 5201 -1 >/dev/null 2>&1 &
ip netns exec $B iperf3 -s -p 5202 -1 >/dev/null 2>&1 &
sleep 1
ip netns exec $A timeout 20 tcpdump -i va -s 128 -U -w "$tmp/real.pcap" \
	"src host 10.77.0.1" >/dev/null 2>"$tmp/tcpdump.err" &
tcpdump_pid=$!
sleep 1
ip netns exec $A timeout 15 iperf3 -c 10.77.0.2 -p 5201 -t 4 -P 4 -b 8M >"$tmp/tcp.out" 2>&1 &
ip netns exec $A timeout 15 iperf3 -c 10.77.0.2 -p 5202 -u -b 40M -l 1400 -t 4 >"$tmp/udp.out" 2>&1
wait_ok=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	if ! pgrep -f "iperf3 -c 10.77.0.2 -p 5201" >/dev/null; then wait_ok=1; break; fi
	sleep 1
done
[ $wait_ok = 1 ] || fail "iperf3 TCP did not finish"
sleep 1
kill -INT $tcpdump_pid 2>/dev/null
wait $tcpdump_pid 2>/dev/null
[ -s "$tmp/real.pcap" ] || fail "no capture: $(cat "$tmp/tcpdump.err")"

for q in "fifo limit 300" "choke limit 300 min 100 max 200"; do
	name=$(echo "$q" | cut -d' ' -f1)
	# shellcheck disable=SC2086
	"$CHOKE" replay --json --top 0 --rate 20mbit "$tmp/real.pcap" $q \
		>"$tmp/$name.json" 2>"$tmp/$name.err" || fail "replay $name: $(cat "$tmp/$name.err")"
done
python3 - "$tmp/fifo.json" "$tmp/choke.json" <<'PY' || fail "results (above)"
import json, sys
fifo, choke = (json.load(open(p)) for p in sys.argv[1:3])
def udp_share(j):
    return sum(x["share"] for x in j["flows"] if x["proto"] == "udp" and x["dport"] == 5202)
def tcp_data(j):
    return [x for x in j["flows"] if x["proto"] == "tcp" and x["dport"] == 5201
            and x["offered_bytes"] > 100000]
for j in (fifo, choke):
    t = j["totals"]
    assert t["offered_pkts"] == j["packets_read"] > 1000, t
    assert t["offered_pkts"] == t["delivered_pkts"] + t["dropped_pkts"]
    assert j["truncated_records"] > 0          # snaplen 128 on 1400-byte packets
    assert len(tcp_data(j)) == 4, [x["sport"] for x in tcp_data(j)]
print("replay-real: %d packets, %d flows; UDP share of 20 Mbit/s: fifo %.3f, choke %.3f;"
      " CHOKe matched %d" % (fifo["packets_read"], len(fifo["flows"]), udp_share(fifo),
      udp_share(choke), choke["totals"]["matched"]))
assert udp_share(fifo) > 0.6, udp_share(fifo)
assert udp_share(choke) < udp_share(fifo) - 0.1
assert choke["totals"]["matched"] > 0
PY
echo "ok   replay-real: live TCP + UDP capture replayed through fifo and choke"
