#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Per-packet cost of the choke qdiscs, inside the UML guest (bench-kernel.sh
# boots it). pktgen injects 100-byte UDP frames of 64 flows (source ports
# 10000..10063) into the qdisc of a dummy device (xmit_mode queue_xmit: the
# whole dev_queue_xmit path, qdisc included; dummy frees what it is given)
# as fast as it can for $CHOKE_BENCH_SECONDS, and reports the packets it
# offered; the host reads UML's CPU time at marks written just before the
# start and after the stop (bench-sampler.py); cost = CPU time / offered
# (pktgen's own wall-clock time is kept too). The root is tbf with a
# child under test:
#   short     tbf 10gbit: the queue stays short (enqueue, dequeue at once)
#   standing  tbf 10mbit: a standing queue (most arrivals compared, dropped)
#   standing4 the same with 4 flows
# Children: pfifo limit 1000 (the floor), then each choke module given in
# CHOKE_BENCH_IMPLS (name=path.ko,...; the first is the reference) with the
# same words. Every round runs every state and child in turn, with a run of
# the reference before and after each other one; results, one line per
# run, go to $CHOKE_RUN/bench.txt.
set -u
OUT=$CHOKE_RUN/bench.txt
SECS=${CHOKE_BENCH_SECONDS:-3}
ROUNDS=${CHOKE_BENCH_ROUNDS:-5}
K=$CHOKE_KDIR
NS=chokebench-$$
WORDS="limit 1000 min 100 max 300 avpkt 100 burst 200 bandwidth 10gbit probability 0.02"
: > "$OUT"
MARKS=$CHOKE_RUN/marks
RUNID=0

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
	# the marks tell the host (bench-sampler.py) when to read UML's CPU
	# time; each is written by the process that starts or stops pktgen
	RUNID=$((RUNID + 1))
	ip netns exec $NS sh -c 'echo "start $1" >> "$2"; echo start > /proc/net/pktgen/pgctrl' sh $RUNID "$MARKS" &
	p=$!
	sleep "$SECS"
	ip netns exec $NS sh -c 'echo stop > /proc/net/pktgen/pgctrl; echo "stop $1" >> "$2"' sh $RUNID "$MARKS"
	wait $p
	r=$(ip netns exec $NS cat /proc/net/pktgen/dummy0)
	usec=$(echo "$r" | sed -n 's/.*Result: OK: \([0-9]*\)(.*/\1/p')
	sofar=$(echo "$r" | sed -n 's/.*Result: OK: [^,]*, \([0-9]*\) (.*/\1/p')
	errors=$(echo "$r" | sed -n 's/.*errors: \([0-9]*\).*/\1/p' | head -1)
	echo "run id=$RUNID state=$state impl=$name usec=$usec sofar=$sofar errors=$errors stats=$(ip netns exec $NS tc -s -j qdisc show dev dummy0 | tr -d '\n')" >> "$OUT"
	ip netns exec $NS tc qdisc del dev dummy0 root
}

# choke_run STATE NAME KO: one run of a choke module
choke_run() {
	insmod "$3" || { echo "insmod $2 FAIL" >> "$OUT"; return; }
	run "$1" "$2" choke $WORDS
	rmmod "$(basename "$3" .ko)"
}

# Every other run is the reference (the first module given, mainline), so
# that each run of another qdisc sits between two reference runs: the host
# is shared and its speed drifts.
set -- $(echo "$CHOKE_BENCH_IMPLS" | tr , " ")
ref=$1
shift
round=0
while [ $round -lt "$ROUNDS" ]; do
	round=$((round + 1))
	echo "round $round" >> "$OUT"
	for state in $(echo "${CHOKE_BENCH_STATES:-short,standing,standing4}" | tr , " "); do
		choke_run $state "${ref%%=*}" "${ref#*=}"
		run $state pfifo pfifo limit 1000
		choke_run $state "${ref%%=*}" "${ref#*=}"
		for spec in "$@"; do
			choke_run $state "${spec%%=*}" "${spec#*=}"
			choke_run $state "${ref%%=*}" "${ref#*=}"
		done
	done
done
# Floods with pauses: 4 UDP flows at full speed for 1 s, 4 times with 2 s
# between them, into one choke that is kept (not re-created) under tbf
# 10mbit, with thresholds near the limit (min 800 max 900, no ecn): the
# counters after each flood, for pdrop (tail drops at the limit) against
# the other drops. Once per module, after the cost rounds.
floods() { # NAME
	ip netns exec $NS tc qdisc add dev dummy0 root handle 1: tbf rate 10mbit burst 100kb latency 100ms
	ip netns exec $NS tc qdisc add dev dummy0 parent 1:1 handle 10: choke \
		limit 1000 min 800 max 900 avpkt 1000 burst 850 bandwidth 10mbit probability 0.02
	for f in 1 2 3 4; do
		pg kpktgend_0 rem_device_all "add_device dummy0"
		pg dummy0 "xmit_mode queue_xmit" "count 0" "delay 0" "pkt_size 100" \
			"dst 192.0.2.2" "dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" \
			"udp_src_min 10000" "udp_src_max 10003"
		ip netns exec $NS sh -c 'echo start > /proc/net/pktgen/pgctrl' &
		p=$!
		sleep 1
		pg pgctrl stop
		wait $p
		sleep 2
		echo "flood impl=$1 n=$f stats=$(ip netns exec $NS tc -s -j qdisc show dev dummy0 | tr -d '\n')" >> "$OUT"
	done
	ip netns exec $NS tc qdisc del dev dummy0 root
}
if [ "${CHOKE_BENCH_FLOODS:-1}" = 1 ]; then
	for spec in $(echo "$CHOKE_BENCH_IMPLS" | tr , " "); do
		insmod "${spec#*=}" || continue
		floods "${spec%%=*}"
		rmmod "$(basename "${spec#*=}" .ko)"
	done
fi
ip netns del $NS
echo "done" >> "$OUT"
