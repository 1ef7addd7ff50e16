#!/bin/sh
# Per-packet cost of the choke qdiscs, inside the UML guest (bench-kernel.sh
# boots it). pktgen injects 100-byte UDP frames of 64 flows (source ports
# 10000..10063) into the qdisc of a dummy device (xmit_mode queue_xmit: the
# whole dev_queue_xmit path, qdisc included; dummy frees what it is given)
# as fast as it can for $CHOKE_BENCH_SECONDS, and reports the time it ran
# and the packets it offered; cost = time / offered. The root is tbf with a
# child under test:
#   short     tbf 10gbit: the queue stays short (enqueue, dequeue at once)
#   standing  tbf 10mbit: a standing queue (most arrivals compared, dropped)
#   standing4 the same with 4 flows
# Children: pfifo limit 1000 (the floor), then each choke module given in
# CHOKE_BENCH_IMPLS (name=path.ko ...) with the same words. Every round
# runs every state and child in turn; results, one line per run, go to
# $CHOKE_RUN/bench.txt.
set -u
OUT=$CHOKE_RUN/bench.txt
SECS=${CHOKE_BENCH_SECONDS:-3}
ROUNDS=${CHOKE_BENCH_ROUNDS:-5}
K=$CHOKE_KDIR
NS=chokebench-$$
WORDS="limit 1000 min 100 max 300 avpkt 100 burst 200 bandwidth 10gbit probability 0.02"
: > "$OUT"

insmod "$K/drivers/net/dummy.ko" 2>/dev/null
insmod "$K/net/core/pktgen.ko" 2>/dev/null
ip netns add $NS
ip -n $NS link add dummy0 type dummy
ip -n $NS addr add 192.0.2.1/24 dev dummy0
ip -n $NS link set dummy0 up
ip -n $NS link set dummy0 txqueuelen 1000

pg() { # FILE COMMAND...
	ip netns exec $NS sh -c 'f=/proc/net/pktgen/$1; shift
		for c; do echo "$c" > "$f" || { echo "pktgen: $c: $(grep Result "$f")" >&2; exit 1; }; done' sh "$@"
}

# run STATE CHILD_NAME CHILD_KIND WORDS...
run() {
	state=$1 name=$2
	shift 2
	case $state in
	short) rate=10gbit flows=64 ;;
	standing) rate=10mbit flows=64 ;;
	standing4) rate=10mbit flows=4 ;;
	esac
	ip netns exec $NS tc qdisc del dev dummy0 root 2>/dev/null
	ip netns exec $NS tc qdisc add dev dummy0 root handle 1: tbf rate $rate burst 100kb latency 100ms &&
	ip netns exec $NS tc qdisc add dev dummy0 parent 1:1 handle 10: "$@" || { echo "setup $state $name FAIL" >> "$OUT"; return; }
	pg kpktgend_0 rem_device_all "add_device dummy0"
	pg dummy0 "xmit_mode queue_xmit" "count 0" "delay 0" "pkt_size 100" \
		"dst 192.0.2.2" "dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" \
		"udp_src_min 10000" "udp_src_max $((10000 + flows - 1))"
	ip netns exec $NS sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	p=$!
	sleep "$SECS"
	pg pgctrl stop
	wait $p
	r=$(ip netns exec $NS cat /proc/net/pktgen/dummy0)
	usec=$(echo "$r" | sed -n 's/.*Result: OK: \([0-9]*\)(.*/\1/p')
	sofar=$(echo "$r" | sed -n 's/.*Result: OK: [^,]*, \([0-9]*\) (.*/\1/p')
	errors=$(echo "$r" | sed -n 's/.*errors: \([0-9]*\).*/\1/p' | head -1)
	echo "run state=$state impl=$name usec=$usec sofar=$sofar errors=$errors stats=$(ip netns exec $NS tc -s -j qdisc show dev dummy0 | tr -d '\n')" >> "$OUT"
	ip netns exec $NS tc qdisc del dev dummy0 root
}

round=0
while [ $round -lt "$ROUNDS" ]; do
	round=$((round + 1))
	echo "round $round" >> "$OUT"
	for state in short standing standing4; do
		run $state pfifo pfifo limit 1000
		for spec in $(echo "$CHOKE_BENCH_IMPLS" | tr , " "); do
			name=${spec%%=*} ko=${spec#*=}
			insmod "$ko" || { echo "insmod $name FAIL" >> "$OUT"; continue; }
			run $state "$name" choke $WORDS
			rmmod "$(basename "$ko" .ko)"
		done
	done
done
ip netns del $NS
echo "done" >> "$OUT"
