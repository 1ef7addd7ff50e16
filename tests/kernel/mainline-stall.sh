#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# mainline-stall.sh: does this kernel's choke qdisc wedge?
#
# Mainline sch_choke (every kernel since 2011, Debian's 6.1 included) admits
# packets by count while the holes that matched drops leave behind also take
# ring slots; once packets plus holes fill the ring, the tail meets the head,
# the qdisc reads as empty while it is full, and it stops sending for good:
# every later packet through that interface is dropped. This script builds a
# private test network (two network namespaces joined by a veth pair; the
# host's own interfaces and qdiscs are not touched), puts the reported
# configuration on it (tbf 2mbit parent, choke child, 30 UDP flows of
# ECT(0) traffic at 300 kbit/s each from iperf3) and watches the counters.
#
#   sudo tests/kernel/mainline-stall.sh [--seconds N] [--config full|reported|both]
#                                       [--report FILE]
#
#   --config full      min 800 max 900 burst 850: the ring fills while the
#                      queue is full, which makes mainline's wedge certain
#   --config reported  min 100 max 300 burst 200, as first reported: mainline
#                      wedges, or strands ~990 packets and goes on with a
#                      queue of a few packets (both are detected)
#   --config both      (default) the two in turn
#   --seconds N        flood length per configuration (default 30)
#   --report FILE      also append one machine-readable line per run
#   --trace FILE       also append the per-second samples (seconds since the
#                      flood started, sent packets, queued packets, pdrop)
#
# Exit status: 0 the qdisc kept working; 1 it wedged or stranded packets;
# 2 nothing could be tested (no choke qdisc in this kernel, or a tool is
# missing); 3 usage.
# Needs root, ip, tc and iperf3, and the kernel's choke qdisc (sch_choke, or
# this project's sch_libchoke) loadable.
set -u

SECONDS_FLOOD=30
CONFIG=both
REPORT=
TRACE=
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) SECONDS_FLOOD=${2:-}; shift 2 ;;
	--config) CONFIG=${2:-}; shift 2 ;;
	--report) REPORT=${2:-}; shift 2 ;;
	--trace) TRACE=${2:-}; shift 2 ;;
	-h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "mainline-stall: unknown argument $1 (see --help)" >&2; exit 3 ;;
	esac
done
case $SECONDS_FLOOD in ''|*[!0-9]*) echo "mainline-stall: --seconds needs a number" >&2; exit 3 ;; esac
case $CONFIG in full|reported|both) ;; *) echo "mainline-stall: --config full|reported|both" >&2; exit 3 ;; esac

say() { echo "mainline-stall: $*"; }

[ "$(id -u)" = 0 ] || { say "needs root (network namespaces, tc)"; exit 2; }
for t in ip tc iperf3 ping timeout; do
	command -v $t >/dev/null 2>&1 || { say "missing tool: $t"; exit 2; }
done

NS_A=chokestall-$$-a
NS_B=chokestall-$$-b
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 3' INT TERM

A() { ip netns exec "$NS_A" "$@"; }
B() { ip netns exec "$NS_B" "$@"; }

ip netns add "$NS_A" && ip netns add "$NS_B" || { say "cannot create network namespaces"; exit 2; }
ip -n "$NS_A" link add va type veth peer name vb netns "$NS_B" || { say "cannot create a veth pair (veth module?)"; exit 2; }
ip -n "$NS_A" addr add 10.199.0.1/24 dev va
ip -n "$NS_B" addr add 10.199.0.2/24 dev vb
ip -n "$NS_A" link set va up; ip -n "$NS_A" link set lo up
ip -n "$NS_B" link set vb up; ip -n "$NS_B" link set lo up

# choke's counters: "SENT_PKTS SENT_BYTES BACKLOG_PKTS PDROP MATCHED DROPPED"
choke_counters() {
	A tc -s qdisc show dev va 2>/dev/null | awk '
		/^qdisc choke/ { c = 1; next }
		/^qdisc/ { c = 0 }
		c && /Sent/ { for (i = 1; i <= NF; i++) { if ($i == "Sent") b = $(i+1); if ($i == "pkt") p = $(i-1); if ($i == "(dropped") d = $(i+1) } }
		c && /backlog/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+p$/) q = $i }
		c && /pdrop/ { for (i = 1; i <= NF; i++) { if ($i == "pdrop") pd = $(i+1); if ($i == "matched") m = $(i+1) } }
		END { sub(/p$/, "", q); sub(/,$/, "", d); printf "%d %d %d %d %d %d\n", p, b, q, pd, m, d }'
}

# run_config NAME MIN MAX BURST: 0 ok, 1 wedged/stranded, 2 untestable
run_config() {
	name=$1 min=$2 max=$3 burst=$4
	A tc qdisc del dev va root 2>/dev/null
	if ! A tc qdisc add dev va root handle 1: tbf rate 2mbit burst 5kb latency 50ms; then
		say "cannot add tbf (sch_tbf missing?)"; return 2
	fi
	words="limit 1000 min $min max $max avpkt 1000 burst $burst bandwidth 2Mbit probability 0.02 ecn"
	if ! err=$(A tc qdisc add dev va parent 1:1 handle 10: choke $words 2>&1); then
		say "this kernel has no usable choke qdisc: tc said: $err"
		[ -e "/lib/modules/$(uname -r)/kernel/net/sched/sch_choke.ko" ] ||
		[ -e "/lib/modules/$(uname -r)/kernel/net/sched/sch_choke.ko.xz" ] ||
			say "(no sch_choke module under /lib/modules/$(uname -r); nothing to test)"
		return 2
	fi
	impl=unknown
	[ -d /sys/module/sch_choke ] && impl=sch_choke
	[ -d /sys/module/sch_libchoke ] && impl=sch_libchoke
	say "[$name] $(uname -r), qdisc from $impl: tbf 2mbit > choke $words"
	say "[$name] 30 UDP flows of ECT(0) traffic at 300 kbit/s each for ${SECONDS_FLOOD}s"

	port=$((port + 1))
	B iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	server=$!
	PIDS="$PIDS $server"
	sleep 1
	# A wedged link also blocks iperf3's own control connection: bound it.
	A timeout $((SECONDS_FLOOD + 10)) iperf3 -c 10.199.0.2 -p "$port" -u -b 300k -P 30 -S 2 \
		-l 1000 -t "$SECONDS_FLOOD" >/dev/null 2>&1 &
	flood=$!
	PIDS="$PIDS $flood"
	last_sent=-1 frozen_at= start_bytes= end_bytes=0 start_ms=0 end_ms=0
	flood_ms=$(date +%s%3N) changed_ms=$flood_ms
	flood_end_ms=$((flood_ms + SECONDS_FLOOD * 1000))
	# sample for the flood's length plus the 4 s a healthy full queue needs
	# to drain (by the clock: one sample can take more than a second)
	while [ $(( $(date +%s%3N) - flood_ms )) -lt $(( (SECONDS_FLOOD + 5) * 1000 )) ]; do
		sleep 1
		set -- $(choke_counters)
		s_pkts=$1 s_bytes=$2 qp=$3
		now_ms=$(date +%s%3N)
		# the rate: while the flood runs and packets are queued (the link
		# should be busy all along)
		if [ "$qp" -gt 0 ] && [ "$now_ms" -le "$flood_end_ms" ]; then
			if [ -z "$start_bytes" ]; then start_bytes=$s_bytes; start_ms=$now_ms; fi
			end_bytes=$s_bytes end_ms=$now_ms
		fi
		[ -z "$TRACE" ] || echo "$name $impl $(( (now_ms - flood_ms) / 1000 )).$(( (now_ms - flood_ms) % 1000 / 100 )) sent=$s_pkts queued=$qp pdrop=$4" >> "$TRACE"
		if [ "$s_pkts" != "$last_sent" ] || [ "$qp" -eq 0 ]; then
			changed_ms=$now_ms
		elif [ -z "$frozen_at" ] && [ $((now_ms - changed_ms)) -ge 5000 ] &&
		     [ "$now_ms" -le "$flood_end_ms" ]; then
			# Sent has not moved for 5 s with packets queued, under the flood
			frozen_at=$(( (changed_ms - flood_ms) / 1000 )) frozen_sent=$s_pkts frozen_q=$qp
		fi
		last_sent=$s_pkts
	done
	wait "$flood" 2>/dev/null
	kill "$server" 2>/dev/null
	# bits per millisecond = kbit/s, over the busy samples' wall-clock time
	rate_kbit=$(( (end_bytes - ${start_bytes:-0}) * 8 / ((end_ms - start_ms) > 0 ? (end_ms - start_ms) : 1) ))
	sleep 3
	set -- $(choke_counters)
	end_pkts=$1 end_q=$3 pdrop=$4 matched=$5 dropped=$6
	# Other traffic through the same interface. Non-ECT pings can be
	# dropped by a working RED/CHOKe for a while after a flood (the average
	# decays only as packets arrive, in the kernel's microsecond idle unit),
	# so send many and count the answers.
	ping_ok=$(A ping -c 100 -i 0.05 -W 1 -q 10.199.0.2 2>/dev/null | awk '/received/ { for (i = 1; i <= NF; i++) if ($i == "received," || $i == "received") print $(i-1) }')
	ping_ok="${ping_ok:-0}/100"

	if [ -n "$frozen_at" ]; then
		verdict=WEDGED
		say "[$name] WEDGED: Sent stopped at $frozen_sent packets ${frozen_at}s into the flood with $frozen_q packets queued;"
		say "[$name]   after the flood: $end_q packets still queued, $end_pkts sent, pings answered: $ping_ok"
	elif [ "$end_q" -gt 0 ]; then
		verdict=STRANDED
		say "[$name] STRANDED: the qdisc kept sending under the flood ($rate_kbit kbit/s) but $end_q packets never leave the queue"
		say "[$name]   (the ring wrapped before the queue was full; the usable queue is now about $((1000 - end_q)) packets); pings answered: $ping_ok"
	else
		verdict=OK
		say "[$name] OK: kept sending at $rate_kbit kbit/s under the flood and drained afterwards; pings answered afterwards: $ping_ok"
	fi
	say "[$name]   counters: sent $end_pkts pkt, dropped $dropped, pdrop $pdrop, matched $matched"
	[ -z "$REPORT" ] || echo "RESULT impl=$impl config=$name verdict=$verdict frozen_at=${frozen_at:--} sent=$end_pkts rate_kbit=$rate_kbit backlog_after=$end_q pdrop=$pdrop matched=$matched dropped=$dropped ping=$ping_ok" >> "$REPORT"
	A tc qdisc del dev va root 2>/dev/null
	[ "$verdict" = OK ]
}

status=0
port=5299
case $CONFIG in
full|reported) set -- "$CONFIG" ;;
both) set -- full reported ;;
esac
for c in "$@"; do
	case $c in
	full) run_config full 800 900 850 ;;
	reported) run_config reported 100 300 200 ;;
	esac
	r=$?
	[ $r -eq 2 ] && exit 2
	[ $r -ne 0 ] && status=1
done
if [ $status -eq 0 ]; then
	say "verdict: this kernel's choke did not wedge"
else
	say "verdict: this kernel's choke wedges (see above); use sch_libchoke (docs/kernel.md) or another qdisc"
fi
exit $status
