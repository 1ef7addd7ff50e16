#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke bridge on AF_XDP: one receive queue against four, the same
# generator, the same run. The bridge reads every queue's socket in its one
# poll loop; this measures what the queues cost it (frames delivered, its
# CPU, frames per CPU-second) and how evenly the NIC's hash spread the
# frames over them (frames per queue from choke stats).
#
# gen (vg) -- veth -- (ba) bridge (bz) -- veth -- (vs) sink, each veth with
# 1 or 4 queues; the generator (choke-blast, 64 UDP flows, one AF_PACKET
# ring through the stack's queue choice: each flow hashed to a transmit
# queue of vg, which is the same receive queue of ba) on CPU 0, the bridge
# on CPU 1; unshaped, fifo
# limit 1000, 64- and 1500-byte frames; REPEATS runs of each, alternating.
# Needs root, iproute2, ethtool.
# Usage: CHOKE=build/gcc/choke BLAST=build/gcc/choke-blast sh bench/xdp-queues.sh [SECONDS [REPEATS]]
set -u
CHOKE=$(readlink -f "${CHOKE:-build/gcc/choke}")
BLAST=$(readlink -f "${BLAST:-build/gcc/choke-blast}")
SECS=${1:-4}
REPEATS=${2:-3}
G=xqg$$ F=xqf$$ K=xqk$$
results=$(mktemp)
teardown() {
	for ns in $G $F $K; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
}
trap 'teardown; rm -f "$results"' EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] || { echo "xdp-queues.sh: needs root"; exit 1; }
sock=$(mktemp -u /tmp/xq-XXXXXX.sock)

topology() { # queues
	teardown
	for ns in $G $F $K; do ip netns add $ns; ip -n $ns link set lo up; done
	q="numtxqueues $1 numrxqueues $1"
	ip -n $G link add vg $q type veth peer name ba $q netns $F
	ip -n $K link add vs $q type veth peer name bz $q netns $F
	for x in "$G vg" "$F ba" "$F bz" "$K vs"; do
		set -- $x
		ip netns exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1 2>/dev/null
		ip netns exec $1 ethtool -K $2 tso off gso off gro off >/dev/null 2>&1
		ip -n $1 link set $2 up
	done
}
sink() { ip netns exec $K cat /sys/class/net/vs/statistics/rx_packets; }

for r in $(seq $REPEATS); do
	for nq in 1 4; do
		topology $nq
		mac=$(ip -n $K link show vs | awk '/ether/{print $2}')
		ip netns exec $F taskset -c 1 "$CHOKE" bridge --backend xdp --in ba --out bz \
			--rate unlimited --socket $sock fifo limit 1000 >/dev/null 2>"$results.err" &
		sleep 1.5
		pid=$(ip netns pids $F | head -1)
		[ -n "$pid" ] || { echo "xdp-queues.sh: the bridge did not start: $(cat "$results.err")"; exit 1; }
		for size in 64 1500; do
			t0=$(awk '{print $14 + $15}' /proc/$pid/stat)
			a=$(sink)
			sent=$(ip netns exec $G taskset -c 0 "$BLAST" vg $size $SECS $mac 64 hash)
			sleep 0.3
			b=$(sink)
			t1=$(awk '{print $14 + $15}' /proc/$pid/stat)
			echo "$nq $size $sent $((b - a)) $((t1 - t0))" >>"$results"
		done
		ip netns exec $F "$CHOKE" stats --socket $sock --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["directions"][0]
print("q%d %s" % (len(d["rx_queues"]), " ".join(str(x) for x in d["rx_queues"])))' >>"$results"
		kill $pid
		wait 2>/dev/null
	done
done
rm -f "$results.err"

python3 - "$results" "$SECS" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import sys
rows, spread = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0].startswith("q"):
        spread.setdefault(f[0], []).append([int(x) for x in f[1:]])
        continue
    nq, size, sent, got, ticks = (int(x) for x in f)
    rows.setdefault((nq, size), []).append((sent, got, ticks))
secs = float(sys.argv[2])
print("choke bridge --backend xdp, unshaped, %g s per run, %d runs each; load average %s at the end"
      % (secs, len(rows[(1, 64)]), sys.argv[3]))
print("%6s %5s %22s %22s %24s" % ("queues", "bytes", "delivered pps", "bridge CPU s",
                                  "delivered per CPU-s"))
def rng(v, fmt):
    return (fmt + ".." + fmt) % (min(v), max(v))
for size in (64, 1500):
    per = {}
    for nq in (1, 4):
        rs = rows[(nq, size)]
        pps = [g / secs for s, g, t in rs]
        cpu = [t / 100.0 for s, g, t in rs]
        eff = [g / (t / 100.0) for s, g, t in rs if t]
        per[nq] = eff
        print("%6d %5d %22s %22s %24s" % (nq, size, rng(pps, "%.0f"), rng(cpu, "%.2f"),
                                          rng(eff, "%.0f")))
    ratios = [b / a for a in per[1] for b in per[4]]
    print("%6s %5d   4 queues / 1 queue, frames per CPU-second: %.2f..%.2f" % (
        "", size, min(ratios), max(ratios)))
for q in sorted(spread):
    for s in spread[q]:
        tot = sum(s) or 1
        print("frames per receive queue (%s): %s (shares %s)" % (q, s, " ".join(
            "%.2f" % (x / tot) for x in s)))
PY
