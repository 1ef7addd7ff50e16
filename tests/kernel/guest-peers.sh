#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The comparison with the kernel's own schedulers, run inside the UML guest
# (tests/kernel/eval-peers.sh boots it; make eval-kernel-peers): a tbf at
# the rate given whose child is each discipline in turn, traffic from
# namespace c to namespace s through it, and a ping every 200 ms through the
# loaded bottleneck. Every traffic command is bounded by timeout. Workloads:
#
#   floods  8 iperf3 TCP streams (one client, -P 8) and K UDP floods of twice
#           the link in all (section 12 of docs/results.md)
#   rtt     16 TCP flows (iperf3 -P 16) with round-trip times spread evenly
#           from 4 to 220 ms (netem on the ACK path: an htb class per flow on
#           s0's egress, chosen by the client's port) and K UDP floods of
#           twice the link
#   hosts   4 hosts (source addresses 10.9.0.1, .11, .12, .13 on c0): the
#           first opens 16 TCP connections, the others 1 each; no flood
#
# Environment: CHOKE_RUN (output folder), CHOKE_KDIR (the UML tree: its
# net/sched/*.ko), CHOKE_KMOD (sch_libchoke.ko), CHOKE_TC_LIB (the folder of
# q_chokeplus.so), CHOKE_PEERS_TABLE (the disciplines: "LABEL|MODULE|tc
# words" lines, @RATE@ standing for the rate; eval-peers.sh writes it),
# CHOKE_PEERS_WORKLOAD (floods, rtt or hosts), CHOKE_PEERS_RATE (kbit/s,
# default 4000), CHOKE_PEERS_SECONDS (the measured window, default 20),
# CHOKE_PEERS_WARMUP (seconds of TCP before it, default 3), CHOKE_PEERS_REPEATS
# (default 2), CHOKE_PEERS_ONLY (a comma-separated list of labels; default
# all), CHOKE_PEERS_FLOODS (default "1,4"; "1" for rtt; none for hosts),
# CHOKE_PEERS_UDP_LEN (the floods' datagram payload, default 1000 bytes;
# TCP's segments carry 1448), CHOKE_PEERS_FLOOD_SRC (iperf3, the default,
# or batch: tests/kernel/udpflood.c, whose path is CHOKE_UDPFLOOD, for links
# faster than iperf3 can flood inside UML).
#
# Output: $CHOKE_RUN/peers/LABEL-K-R.* (iperf3's JSON, ping's output, the
# kernel's counters at both ends of the window) and one JSON object per run
# in $CHOKE_RUN/peers/runs.jsonl (tests/kernel/peers-summary.py computes it;
# tests/kernel/peers-table.py makes the tables).
#
# What is measured, and by which clock: everything comes from the guest
# kernel's own counters read at the two ends of a window that starts
# WARMUP seconds after TCP and lasts SECONDS by the kernel's clock
# (/proc/uptime, which tbf shapes by): the TCP flows' bytes from each
# receiving socket (tcp_info's bytes_received, `ss -ti` in s), the floods'
# from the receiver's UDP counters (datagrams times their payload), what
# tbf sent, and the ping's round trips inside the window. iperf3's own
# totals (the method of section 12 before issue 19) are kept beside them
# for comparison (peers-summary.py), and so is the ratio of the guest's
# wall clock to its kernel clock over the window (UML under a loaded host
# lets them drift apart).
set -u
RUN=$CHOKE_RUN
OUT=$RUN/peers
WL=${CHOKE_PEERS_WORKLOAD:-floods}
RATE=${CHOKE_PEERS_RATE:-4000}
SECS=${CHOKE_PEERS_SECONDS:-20}
WARM=${CHOKE_PEERS_WARMUP:-3}
REPEATS=${CHOKE_PEERS_REPEATS:-2}
case $WL in
floods) FLOODS=$(echo "${CHOKE_PEERS_FLOODS:-1 4}" | tr , ' ') ;;
rtt) FLOODS=$(echo "${CHOKE_PEERS_FLOODS:-1}" | tr , ' ') ;;
hosts) FLOODS=0 ;;
*) echo "guest-peers: unknown workload $WL" >&2; exit 2 ;;
esac
ULEN=${CHOKE_PEERS_UDP_LEN:-1000}
SRC=${CHOKE_PEERS_FLOOD_SRC:-iperf3}
case $SRC in
iperf3) ;;
batch) [ -x "${CHOKE_UDPFLOOD:-}" ] || { echo "guest-peers: batch floods need CHOKE_UDPFLOOD" >&2; exit 2; } ;;
*) echo "guest-peers: unknown flood source $SRC" >&2; exit 2 ;;
esac
ONLY=$(echo "${CHOKE_PEERS_ONLY:-}" | tr , ' ')
KO=$CHOKE_KDIR/net/sched
ROOT=$(pwd)
export TC_LIB_DIR=$CHOKE_TC_LIB
T0=$(date +%s)
mkdir -p "$OUT"
: >"$OUT/runs.jsonl"

log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
log "guest up: $(uname -r), $(nproc) cpu; workload $WL at $RATE kbit/s; a window of $SECS s after $WARM s of TCP, $REPEATS repeats, floods: $FLOODS of $ULEN-byte datagrams from $SRC"
sysctl -qw net.core.wmem_max=8388608 net.core.rmem_max=8388608 2>/dev/null
# the ACK path's netem holds the flows' ACKs for up to 216 ms
sysctl -qw net.ipv4.tcp_rmem="4096 131072 8388608" net.ipv4.tcp_wmem="4096 65536 8388608" 2>/dev/null

wanted() {
	[ -z "$ONLY" ] && return 0
	for w in $ONLY; do [ "$w" = "$1" ] && return 0; done
	return 1
}

load() { # module
	case $1 in
	ours)
		lsmod | grep -q '^sch_choke ' && rmmod sch_choke
		lsmod | grep -q '^sch_libchoke ' || insmod "$CHOKE_KMOD" ;;
	sch_choke)
		lsmod | grep -q '^sch_libchoke ' && rmmod sch_libchoke
		lsmod | grep -q '^sch_choke ' || insmod "$KO/sch_choke.ko" ;;
	-) ;;
	*)
		lsmod | grep -q "^$1 " || insmod "$KO/$1.ko" ;;
	esac
}
for m in sch_netem cls_u32; do
	[ -f "$KO/$m.ko" ] && { lsmod | grep -q "^$m " || insmod "$KO/$m.ko"; }
done

# tbf's bucket: 10 kB, or 4 ms of the rate when that is more (at 100 Mbit/s a
# 10 kB bucket would need a timer every 0.8 ms)
BURST=$(( RATE * 1000 / 8 / 250 ))
[ $BURST -lt 10000 ] && BURST=10000

# the flows: "client-address server-port client-port streams" per iperf3
# client, and the netem delay of each server port's ACKs (rtt)
case $WL in
floods) CLIENTS="10.9.0.1 5301 6001 8" ;;
rtt) CLIENTS="10.9.0.1 5301 6001 16" ;;
hosts) CLIENTS="10.9.0.1 5301 6001 16 10.9.0.11 5302 6101 1 10.9.0.12 5303 6201 1 10.9.0.13 5304 6301 1" ;;
esac
NCONN=0 NCLIENTS=0
set -- $CLIENTS
while [ $# -ge 4 ]; do NCONN=$((NCONN + $4)); NCLIENTS=$((NCLIENTS + 1)); shift 4; done
# the ping's source: a light host of its own in floods and rtt, the last
# host (one TCP connection besides) in hosts
PINGSRC=10.9.0.1
[ $WL = hosts ] && PINGSRC=10.9.0.13

net_up() {
	ip netns add c; ip netns add s
	ip -n c link add c0 type veth peer name s0 netns s
	ip -n c addr add 10.9.0.1/24 dev c0; ip -n s addr add 10.9.0.2/24 dev s0
	if [ $WL = hosts ]; then
		for a in 11 12 13; do ip -n c addr add 10.9.0.$a/24 dev c0; done
	fi
	ip -n c link set c0 up; ip -n c link set lo up
	ip -n s link set s0 up; ip -n s link set lo up
	for ns in c s; do
		ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
	done
	if [ $WL = rtt ]; then
		# RTTs from 4 to 220 ms: flow i's ACKs (to client port 6001+i)
		# wait 4 + 216 i / 15 ms in a netem of their own; the rest (the
		# ping's replies, iperf3's control) pass at once
		S tc qdisc add dev s0 root handle 1: htb default 1 r2q 100000
		S tc class add dev s0 parent 1: classid 1:1 htb rate 10gbit quantum 60000
		i=0
		while [ $i -lt 16 ]; do
			S tc class add dev s0 parent 1: classid 1:$((16 + i)) htb rate 10gbit quantum 60000
			S tc qdisc add dev s0 parent 1:$((16 + i)) netem \
				delay $((4000 + 216000 * i / 15))us limit 100000
			S tc filter add dev s0 parent 1: protocol ip prio 1 u32 \
				match ip dport $((6001 + i)) 0xffff flowid 1:$((16 + i))
			i=$((i + 1))
		done
	fi
}
net_down() {
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill "$p" 2>/dev/null; done
	sleep 1
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del c 2>/dev/null; ip netns del s 2>/dev/null
}
C() { ip netns exec c "$@"; }
S() { ip netns exec s "$@"; }

# The kernel's counters at one end of the window, into FILE and FILE.ss.
# UML starts a process slowly (tens to hundreds of ms), so the receiver's
# counters are read with the shell's builtins right after the clock
# (/proc/uptime, the kernel's clock that tbf shapes by), then the sockets
# (one netlink dump), then the clock again; tbf's counters, in the other
# namespace, between two readings of the clock of their own.
sample() { # file
	S sh -c '
		read up _ </proc/uptime; echo "uptime $up"
		echo "wall $(date +%s.%N)"
		read rx </sys/class/net/s0/statistics/rx_bytes; echo "rx $rx"
		while read -r name a b c d; do [ "$name" = Udp: ] && u="$a $b $c"; done </proc/net/snmp
		echo "udp $u"
		ss -tinH state established "( sport >= :5301 and sport <= :5399 )" >"$1.ss"
		read up _ </proc/uptime; echo "uptime_ss $up"' sh "$1" >"$1" 2>&1
	C sh -c '
		read up _ </proc/uptime; echo "uptime_tbf $up"
		while read -r name a b c d e f g; do [ "$name" = Udp: ] && u="$d $f"; done </proc/net/snmp
		echo "udp_out $u"
		echo "tbf $(tc -s -j qdisc show dev c0)"
		read up _ </proc/uptime; echo "uptime_tbf2 $up"' >>"$1" 2>&1
}

run_one() { # label words k r
	label=$1 words=$2 k=$3 r=$4
	base=$OUT/$label-$k-$r
	rm -f "$base".*
	net_up
	C tc qdisc add dev c0 root handle 1: tbf rate ${RATE}kbit burst $BURST latency 300ms
	# shellcheck disable=SC2086
	if ! C tc qdisc add dev c0 parent 1:1 handle 10: $words 2>"$base.err"; then
		echo "{\"label\": \"$label\", \"k\": $k, \"r\": $r, \"failed\": \"tc: $(tr -d '"\\' <"$base.err" | tr '\n' ' ')\"}" >>"$OUT/runs.jsonl"
		net_down
		return
	fi
	set -- $CLIENTS
	while [ $# -ge 4 ]; do
		S iperf3 -s -1 -p "$2" >/dev/null 2>&1 &
		shift 4
	done
	if [ "$k" -gt 0 ]; then
		if [ $SRC = batch ]; then
			S "$CHOKE_UDPFLOOD" sink 5202 >/dev/null 2>&1 &
		else
			S iperf3 -s -1 -p 5202 -J >/dev/null 2>&1 &
		fi
	fi
	sleep 1
	# TCP runs past the window's end by a margin for UML's slow process
	# starts (about a second for each client)
	tcp_t=$((WARM + SECS + 12 + 2 * NCLIENTS))
	if [ "$k" -gt 0 ]; then
		# the floods start 3 s before TCP and end after it (and after the
		# counters read when its clients have ended)
		if [ $SRC = batch ]; then
			C timeout $((tcp_t + 40)) "$CHOKE_UDPFLOOD" send 10.9.0.2 5202 --rate $((2 * RATE)) \
				--flows "$k" --len "$ULEN" --seconds $((tcp_t + 9)) >"$base.udp" 2>&1 &
		else
			C timeout $((tcp_t + 40)) iperf3 -c 10.9.0.2 -p 5202 -u -b $((2 * RATE / k))k -P "$k" \
				-l "$ULEN" -w 2M -t $((tcp_t + 9)) -J --get-server-output >"$base.udp" 2>&1 &
		fi
		udp=$!
		sleep 3
	fi
	sample "$base.c"
	pids=
	n=0
	set -- $CLIENTS
	while [ $# -ge 4 ]; do
		C timeout $((tcp_t + 30)) iperf3 -c 10.9.0.2 -B "$1" -p "$2" --cport "$3" -P "$4" \
			-t $tcp_t -J >"$base.tcp$n" 2>&1 &
		pids="$pids $!"
		n=$((n + 1))
		shift 4
	done
	# the warm-up counts from when every data connection is up (UML can
	# take seconds to start the clients)
	i=0
	while [ $i -lt 50 ] && [ "$(S ss -tnH state established '( sport >= :5301 and sport <= :5399 and dport >= :6001 and dport <= :6999 )' | wc -l)" -lt "$NCONN" ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep "$WARM"
	sample "$base.a"
	# a ping every 200 ms through the bottleneck for the window
	C timeout $((SECS + 10)) ping -n -I $PINGSRC -i 0.2 -W 2 -c $((SECS * 5)) 10.9.0.2 >"$base.ping" 2>&1 &
	sleep "$SECS"
	sample "$base.b"
	wait $pids
	sample "$base.d"
	[ "$k" -gt 0 ] && wait $udp
	C tc -s -j qdisc show dev c0 >"$base.qdisc" 2>&1
	python3 "$ROOT/tests/kernel/peers-summary.py" --workload "$WL" --label "$label" --k "$k" \
		--r "$r" --rate "$RATE" --udp-len "$ULEN" --warmup "$WARM" --seconds "$SECS" --flood-src "$SRC" \
		--base "$base" >>"$OUT/runs.jsonl"
	log "$(tail -1 "$OUT/runs.jsonl" | cut -c1-300)"
	net_down
}

while IFS='|' read -r label mod words; do
	[ -n "$label" ] || continue
	case $label in \#*) continue ;; esac
	wanted "$label" || continue
	words=$(echo "$words" | sed "s/@RATE@/${RATE}kbit/g")
	if ! load "$mod" 2>"$OUT/load.err"; then
		echo "{\"label\": \"$label\", \"failed\": \"cannot load $mod: $(tr -d '"\\' <"$OUT/load.err" | tr '\n' ' ')\"}" >>"$OUT/runs.jsonl"
		continue
	fi
	for k in $FLOODS; do
		r=1
		while [ $r -le "$REPEATS" ]; do
			run_one "$label" "$words" "$k" "$r" </dev/null
			# iperf3 itself failing (a connection that timed out behind a
			# flood) says nothing yet: once more, then it is the result
			if tail -1 "$OUT/runs.jsonl" | grep -q '"failed": "iperf3'; then
				sed -i '$d' "$OUT/runs.jsonl"
				run_one "$label" "$words" "$k" "$r" </dev/null
			fi
			r=$((r + 1))
		done
	done
done <"$CHOKE_PEERS_TABLE"
log "peers done"
