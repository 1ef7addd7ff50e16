#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The choke authors
#
# sch_choke must keep sending under unresponsive load.
#
# choke queues packets in a ring of slots. A packet dropped because an
# arriving packet of the same flow drew it leaves a hole in the ring; if the
# admission test counts packets only, packets plus holes can fill the ring,
# the tail then meets the head, the ring reads as empty while it holds a
# full queue, and the qdisc never sends again.
#
# pktgen offers 30 UDP flows of ECT(0) traffic (1000-byte frames, 9 Mbit/s
# in all) to a dummy device whose root is tbf rate 2mbit with a choke child
# using ecn: marking keeps the queue at its limit while matches keep making
# holes. Two choke configurations are tried in turn. A case fails if the
# qdisc stops sending for 5 s with packets queued during the flood, if
# packets are still queued once the flood is over and the queue has had
# time to drain, or if ECT(0) packets sent afterwards do not get through.
#
# Needs root, ip, tc, the dummy device, tbf, choke and pktgen (modules are
# loaded with modprobe when missing). FLOOD_SECONDS (default 20) sets the
# length of each flood.

ksft_skip=4

FLOOD_SECONDS=${FLOOD_SECONDS:-20}
NS="choke-wedge-$$"
DEV=dummy0
FLOWS=30
FLOOD_PPS=1125		# 30 flows of 300 kbit/s in 1000-byte frames
PROBE_PKTS=100
PROBE_PPS=100		# below tbf's 250 packets/s: no queue builds up
ret=0

log() { echo "sch_choke_wedge: $*"; }

cleanup() {
	ip netns pids "$NS" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}

skip() {
	log "SKIP: $*"
	cleanup
	exit $ksft_skip
}

in_ns() { ip netns exec "$NS" "$@"; }

# pg FILE COMMAND: one pktgen command, inside the namespace
pg() {
	in_ns sh -c "echo '$2' > /proc/net/pktgen/$1" ||
		{ log "pktgen refused '$2' ($(in_ns cat /proc/net/pktgen/"$1" 2>/dev/null | grep -m1 Result))"; return 1; }
}

# counters: "SENT_PKTS BACKLOG_PKTS PDROP MATCHED" of the choke qdisc
counters() {
	in_ns tc -s qdisc show dev $DEV | awk '
		/^qdisc choke/ { c = 1; next }
		/^qdisc/ { c = 0 }
		c && /Sent/ { for (i = 1; i <= NF; i++) if ($i == "pkt") p = $(i - 1) }
		c && /backlog/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+p$/) q = $i }
		c && /pdrop/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "pdrop") d = $(i + 1)
				if ($i == "matched") m = $(i + 1)
			}
		}
		END { sub(/p$/, "", q); printf "%d %d %d %d\n", p, q, d, m }'
}

# pktgen_setup TOS PPS: the flows, not started
pktgen_setup() {
	pg kpktgend_0 "rem_device_all" &&
	pg kpktgend_0 "add_device $DEV" &&
	pg $DEV "xmit_mode queue_xmit" &&
	pg $DEV "count 0" &&
	pg $DEV "pkt_size 1000" &&
	pg $DEV "ratep $2" &&
	pg $DEV "dst 192.0.2.2" &&
	pg $DEV "dst_mac 02:00:00:00:00:02" &&
	pg $DEV "udp_dst_min 9" &&
	pg $DEV "udp_dst_max 9" &&
	pg $DEV "udp_src_min 10000" &&
	pg $DEV "udp_src_max $((10000 + FLOWS - 1))" &&
	pg $DEV "tos $1"
}

# run_case NAME CHOKE_WORDS...
run_case() {
	local name=$1 last=-1 still=0 t=0 wedged= pid
	shift

	in_ns tc qdisc del dev $DEV root 2>/dev/null
	in_ns tc qdisc add dev $DEV root handle 1: tbf rate 2mbit burst 5kb latency 50ms ||
		skip "tbf is not available"
	in_ns tc qdisc add dev $DEV parent 1:1 handle 10: choke "$@" ||
		skip "choke is not available"
	pktgen_setup 02 $FLOOD_PPS || skip "pktgen does not take the flows"

	in_ns sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pid=$!
	while [ $t -lt "$FLOOD_SECONDS" ]; do
		sleep 1
		t=$((t + 1))
		set -- $(counters)
		if [ "$1" = "$last" ] && [ "$2" -gt 0 ]; then
			still=$((still + 1))
		else
			still=0
		fi
		last=$1
		if [ $still -ge 5 ] && [ -z "$wedged" ]; then
			wedged="Sent stuck at $1 packets with $2 queued, ${t}s into the flood"
		fi
	done
	pg pgctrl stop
	wait $pid 2>/dev/null

	# a full queue of 1000 packets drains in 4 s at 2 Mbit/s
	sleep 6
	set -- $(counters)
	local sent=$1 queued=$2 pdrop=$3 matched=$4

	# pktgen counts sent packets only: a wedged qdisc would keep it
	# going, so stop it once the probe has had its time
	pktgen_setup 02 $PROBE_PPS && pg $DEV "count $PROBE_PKTS" ||
		skip "pktgen does not take the probe"
	in_ns sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pid=$!
	sleep $((PROBE_PKTS / PROBE_PPS + 2))
	pg pgctrl stop
	wait $pid 2>/dev/null
	set -- $(counters)
	local probed=$(($1 - sent))

	log "[$name] sent $sent, queued after the flood $queued, pdrop $pdrop, matched $matched; probes sent $probed/$PROBE_PKTS"
	if [ -n "$wedged" ]; then
		log "[$name] FAIL: the qdisc stopped sending: $wedged"
		ret=1
	elif [ "$queued" -gt 0 ]; then
		log "[$name] FAIL: $queued packets stay queued after the flood"
		ret=1
	elif [ $((probed * 10)) -lt $((PROBE_PKTS * 9)) ]; then
		log "[$name] FAIL: only $probed of $PROBE_PKTS packets sent after the flood got through"
		ret=1
	else
		log "[$name] PASS"
	fi
	in_ns tc qdisc del dev $DEV root
}

[ "$(id -u)" -eq 0 ] || skip "needs root"
for tool in ip tc awk; do
	command -v $tool >/dev/null || skip "$tool is missing"
done
trap cleanup EXIT

ip netns add "$NS" || skip "cannot create a network namespace"
in_ns ip link add $DEV type dummy 2>/dev/null ||
	{ modprobe -q dummy; in_ns ip link add $DEV type dummy; } ||
	skip "no dummy device"
in_ns ip addr add 192.0.2.1/24 dev $DEV
in_ns ip link set $DEV up
[ -e /proc/net/pktgen/pgctrl ] || modprobe -q pktgen
in_ns test -e /proc/net/pktgen/kpktgend_0 || skip "pktgen is not available"

# The deterministic case: the thresholds are close to the limit, so the
# queue is full while matches make holes.
run_case full limit 1000 min 800 max 900 avpkt 1000 burst 850 \
	bandwidth 2mbit probability 0.02 ecn
# The configuration the wedge was first seen with.
run_case reported limit 1000 min 100 max 300 avpkt 1000 burst 200 \
	bandwidth 2mbit probability 0.02 ecn

exit $ret
