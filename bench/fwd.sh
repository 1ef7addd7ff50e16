#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Forwarding benchmark of choke bridge against the kernel's bridge device,
# same veths, same generator, same run. Needs root, iproute2, ethtool, ping.
# Usage: CHOKE=build/gcc/choke BLAST=build/gcc/choke-blast sh bench/fwd.sh [SECONDS]
#
# Paths: choke bridge on AF_PACKET (V2 and V3 receive rings) and on AF_XDP
# (copy mode on veth; also with --busy-poll 50), a FIFO of 1000 frames and
# no shaping; the kernel's bridge as it is (veth: no qdisc), with a tbf
# (10gbit, so it never shapes) over a pfifo of 1000 on the output, and with
# the kernel's own choke qdisc where sch_choke can be loaded (else the row
# says so).
#
# gen (vg) -- veth -- (ba) fwd (bz) -- veth -- (vs) sink
# The generator (choke-blast, one AF_PACKET transmit ring) runs on CPU 0,
# the bridge process on CPU 1. Delivered = frames counted by the sink veth.
set -u
CHOKE=$(readlink -f "${CHOKE:-build/gcc/choke}")
BLAST=$(readlink -f "${BLAST:-build/gcc/choke-blast}")
SECS=${1:-4}
G=fwdg$$ F=fwdf$$ K=fwdk$$
cleanup() {
	for ns in $G $F $K; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
}
trap cleanup EXIT INT TERM
[ "$(id -u)" = 0 ] || { echo "fwd.sh: needs root"; exit 1; }
for ns in $G $F $K; do ip netns add $ns; ip -n $ns link set lo up; done
ip -n $G link add vg type veth peer name ba netns $F
ip -n $K link add vs type veth peer name bz netns $F
for x in "$G vg" "$F ba" "$F bz" "$K vs"; do
	set -- $x
	ip netns exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1 2>/dev/null
	ip netns exec $1 ethtool -K $2 tso off gso off gro off >/dev/null 2>&1
	ip -n $1 link set $2 up
done
ip -n $G addr add 10.44.0.1/24 dev vg
ip -n $K addr add 10.44.0.2/24 dev vs
MAC=$(ip -n $K link show vs | awk '/ether/{print $2}')
sink() { ip netns exec $K cat /sys/class/net/vs/statistics/rx_packets; }

# one measurement: SIZE -> "sent delivered cpu_ticks"
measure() {
	size=$1 pid=${2:-}
	t0=0
	[ -n "$pid" ] && t0=$(awk '{print $14 + $15}' /proc/$pid/stat)
	a=$(sink)
	sent=$(ip netns exec $G taskset -c 0 "$BLAST" vg $size $SECS $MAC)
	sleep 0.3
	b=$(sink)
	t1=0
	[ -n "$pid" ] && t1=$(awk '{print $14 + $15}' /proc/$pid/stat)
	echo "$sent $((b - a)) $((t1 - t0))"
}

# RTT percentiles at low load (100 pings per second)
latency() {
	ip netns exec $G ping -c 300 -i 0.01 -q -n 10.44.0.2 >/dev/null 2>&1 # warm up ARP
	ip netns exec $G ping -c 400 -i 0.01 -n 10.44.0.2 2>/dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -n |
		awk '{v[NR] = $1} END {printf "%.3f %.3f\n", v[int(NR * 0.5)], v[int(NR * 0.99)]}'
}

results=$(mktemp)
sock=$(mktemp -u /tmp/fwd-XXXXXX.sock)
for run in "choke-v2 --rx-ring v2" "choke-v3 --rx-ring v3" "choke-xdp --backend xdp" \
	"xdp-bpoll --backend xdp --busy-poll 50"; do
	set -- $run
	name=$1
	shift
	ip netns exec $F taskset -c 1 "$CHOKE" bridge --in ba --out bz --rate unlimited \
		"$@" --socket $sock fifo limit 1000 >/dev/null 2>"$results.err" &
	sleep 1
	pid=$(ip netns pids $F | head -1)
	if [ -z "$pid" ]; then
		echo "fwd.sh: $name did not start: $(cat "$results.err")" >&2
		exit 1
	fi
	mode=$(ip netns exec $F "$CHOKE" stats --socket $sock 2>/dev/null |
		sed -n 's/^ backend //p' | head -1)
	[ -n "$mode" ] && echo "mode-$name $mode" >>"$results"
	for size in 64 1500; do
		echo "$name $size $(measure $size $pid)" >>"$results"
	done
	echo "lat-$name $(latency)" >>"$results"
	kill $pid
	wait 2>/dev/null
done
rm -f "$results.err"
ip -n $F link add br0 type bridge
ip -n $F link set ba master br0
ip -n $F link set bz master br0
ip -n $F link set br0 up
sleep 2
kernel_run() { # name
	for size in 64 1500; do
		echo "$1 $size $(measure $size)" >>"$results"
	done
	echo "lat-$1 $(latency)" >>"$results"
}
kernel_run kernel
ip -n $F link set bz txqueuelen 1000
ip netns exec $F tc qdisc add dev bz root handle 1: tbf rate 10gbit burst 1mb latency 50ms &&
	ip netns exec $F tc qdisc add dev bz parent 1:1 pfifo limit 1000 &&
	kernel_run kernel-tbf
ip netns exec $F tc qdisc del dev bz root 2>/dev/null
if ip netns exec $F tc qdisc add dev bz root choke limit 1000 min 83 max 250 avpkt 1000 \
	burst 200 bandwidth 10gbit probability 0.02 2>"$results.err"; then
	kernel_run kernel-choke
	ip netns exec $F tc qdisc del dev bz root 2>/dev/null
else
	echo "na-kernel-choke $(head -1 "$results.err")" >>"$results"
fi
rm -f "$results.err"

python3 - "$results" "$SECS" <<'PY'
import sys
rows, lat, mode, na = {}, {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0].startswith("lat-"):
        lat[f[0][4:]] = (float(f[1]), float(f[2]))
    elif f[0].startswith("mode-"):
        mode[f[0][5:]] = " ".join(f[1:])
    elif f[0].startswith("na-"):
        na[f[0][3:]] = " ".join(f[1:])
    else:
        rows[(f[0], int(f[1]))] = tuple(int(x) for x in f[2:5])
secs = float(sys.argv[2])
names = ["choke-v2", "choke-v3", "choke-xdp", "xdp-bpoll", "kernel", "kernel-tbf",
         "kernel-choke"]
print("forwarding without shaping, %g s per run, generator on CPU 0, bridge on CPU 1" % secs)
for n in names:
    if n in mode:
        print("  %s: backend %s" % (n, mode[n]))
print("%-12s %5s %10s %11s %10s %12s %10s" % ("path", "bytes", "sent pps", "delivered",
                                              "vs kernel", "bridge CPU", "pps/CPU-s"))
for size in (64, 1500):
    k = rows[("kernel", size)][1] / secs
    for name in names:
        if (name, size) not in rows:
            if name in na:
                print("%-12s %5d   not loadable here (%s)" % (name, size, na[name][:60]))
            continue
        sent, got, ticks = rows[(name, size)]
        cpu = ticks / 100.0
        per_cpu = "%10.0f" % (got / cpu) if ticks else "%10s" % "-"
        print("%-12s %5d %10.0f %11.0f %10.2f %11.2fs %s" % (name, size, sent / secs,
              got / secs, got / secs / k, cpu, per_cpu))
print("\nround-trip time at 100 pings/s (ms): p50 p99, and what the path adds over the "
      "kernel bridge's")
for name in names:
    if name not in lat:
        continue
    p50, p99 = lat[name]
    add = "" if name == "kernel" else "   adds %+.3f / %+.3f" % (
        p50 - lat["kernel"][0], p99 - lat["kernel"][1])
    print("%-12s %7.3f %7.3f%s" % (name, p50, p99, add))
PY
rm -f "$results"
