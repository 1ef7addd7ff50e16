#!/bin/sh
# Forwarding benchmark of choke bridge against the kernel's bridge device,
# same veths, same generator, same run. Needs root, iproute2, ethtool, ping.
# Usage: CHOKE=build/gcc/choke BLAST=build/gcc/choke-blast sh bench/fwd.sh [SECONDS]
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
for ring in v2 v3; do
	ip netns exec $F taskset -c 1 "$CHOKE" bridge --in ba --out bz --rate unlimited \
		--rx-ring $ring --socket /tmp/fwd-$$.sock fifo limit 1000 >/dev/null 2>&1 &
	sleep 1
	pid=$(ip netns pids $F | head -1)
	for size in 64 1500; do
		echo "choke-$ring $size $(measure $size $pid)" >>"$results"
	done
	echo "lat-choke-$ring $(latency)" >>"$results"
	kill $pid
	wait 2>/dev/null
done
ip -n $F link add br0 type bridge
ip -n $F link set ba master br0
ip -n $F link set bz master br0
ip -n $F link set br0 up
sleep 2
for size in 64 1500; do
	echo "kernel $size $(measure $size)" >>"$results"
done
echo "lat-kernel $(latency)" >>"$results"

python3 - "$results" "$SECS" <<'PY'
import sys
rows, lat = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0].startswith("lat-"):
        lat[f[0][4:]] = (float(f[1]), float(f[2]))
    else:
        rows[(f[0], int(f[1]))] = tuple(int(x) for x in f[2:5])
secs = float(sys.argv[2])
print("forwarding without shaping, %g s per run, generator on CPU 0, bridge on CPU 1" % secs)
print("%-10s %5s %10s %11s %10s %12s %10s" % ("path", "bytes", "sent pps", "delivered", "vs kernel",
                                            "bridge CPU", "pps/CPU-s"))
for size in (64, 1500):
    k = rows[("kernel", size)][1] / secs
    for name in ("choke-v2", "choke-v3", "kernel"):
        sent, got, ticks = rows[(name, size)]
        cpu = ticks / 100.0
        per_cpu = "%10.0f" % (got / cpu) if ticks else "%10s" % "-"
        print("%-10s %5d %10.0f %11.0f %10.2f %11.2fs %s" % (name, size, sent / secs, got / secs,
              got / secs / k, cpu, per_cpu))
print("\nround-trip time at 100 pings/s (ms): p50 p99, and what the bridge adds over the kernel's")
for name in ("choke-v2", "choke-v3", "kernel"):
    p50, p99 = lat[name]
    add = "" if name == "kernel" else "   adds %.3f / %.3f" % (p50 - lat["kernel"][0], p99 - lat["kernel"][1])
    print("%-10s %7.3f %7.3f%s" % (name, p50, p99, add))
PY
rm -f "$results"
