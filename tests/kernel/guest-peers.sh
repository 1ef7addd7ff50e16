#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The comparison with the kernel's own schedulers, run inside the UML guest
# (tests/kernel/eval-peers.sh boots it; make eval-kernel-peers): a 4 Mbit/s
# tbf whose child is each discipline in turn, 8 iperf3 TCP streams and 1 or
# 4 UDP floods of 8 Mbit/s in all (twice the link) from namespace c to
# namespace s. Every traffic command is bounded by timeout.
#
# Environment: CHOKE_RUN (output folder), CHOKE_KDIR (the UML tree: its
# net/sched/*.ko), CHOKE_KMOD (sch_libchoke.ko), CHOKE_TC_LIB (the folder of
# q_chokeplus.so), CHOKE_PEERS_SECONDS (TCP test length, default 20),
# CHOKE_PEERS_REPEATS (default 2), CHOKE_PEERS_ONLY (a comma-separated
# list of the labels below; default all), CHOKE_PEERS_FLOODS (default "1 4"),
# CHOKE_PEERS_UDP_LEN (the floods' datagram payload, default 1000 bytes;
# TCP's segments carry 1448).
#
# Output: $CHOKE_RUN/peers/LABEL-K-R.{tcp,udp,qdisc} (iperf3's JSON, the
# qdiscs' counters) and one line per run in $CHOKE_RUN/peers/runs.txt:
# "LABEL K R udp_share jain_tcp utilisation" or "LABEL K R failed: ...".
#
# Measured with the guest's clocks as they are: under a loaded host, UML's
# monotonic clock (which tbf shapes by) and the time iperf3 reads can drift
# apart by tens of per cent, so rates from iperf3 are not used. The floods'
# share is their bytes over all the bytes received while the TCP test ran
# (iperf3's byte counts: the same clock for both sides of the ratio), Jain's
# index is over the TCP streams' bytes, and the utilisation is what tbf
# sent during the TCP test over 4 Mbit/s, both by the kernel's clock
# (/proc/uptime and tbf's byte counter read before and after).
set -u
RUN=$CHOKE_RUN
OUT=$RUN/peers
SECS=${CHOKE_PEERS_SECONDS:-20}
REPEATS=${CHOKE_PEERS_REPEATS:-2}
FLOODS=${CHOKE_PEERS_FLOODS:-1 4}
ULEN=${CHOKE_PEERS_UDP_LEN:-1000}
ONLY=$(echo "${CHOKE_PEERS_ONLY:-}" | tr , ' ')
KO=$CHOKE_KDIR/net/sched
export TC_LIB_DIR=$CHOKE_TC_LIB
T0=$(date +%s)
mkdir -p "$OUT"
: >"$OUT/runs.txt"

log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
log "guest up: $(uname -r), $(nproc) cpu; $SECS s per test, $REPEATS repeats, floods: $FLOODS of $ULEN-byte datagrams"
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null

# The disciplines: label | module to load first | the child qdisc's words.
# RED, choke and chokeplus get the same thresholds (25 and 50 packets of
# 1000 bytes, limit 300; RED counts bytes); the others run with their
# defaults, as people use them (cake without its own shaper: tbf shapes).
PEERS='
fq_codel|sch_fq_codel|fq_codel
sfb|sch_sfb|sfb
cake|sch_cake|cake unlimited
pie|sch_pie|pie
red|sch_red|red limit 300000 min 25000 max 50000 avpkt 1000 burst 35 bandwidth 4mbit probability 0.02
choke|sch_choke|choke limit 300 min 25 max 50 bandwidth 4mbit
libchoke|ours|choke limit 300 min 25 max 50 bandwidth 4mbit
libchoke-protect|ours|chokeplus limit 300 min 25 max 50 bandwidth 4mbit protect
'

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
	*)
		lsmod | grep -q "^$1 " || insmod "$KO/$1.ko" ;;
	esac
}

net_up() {
	ip netns add c; ip netns add s
	ip -n c link add c0 type veth peer name s0 netns s
	ip -n c addr add 10.9.0.1/24 dev c0; ip -n s addr add 10.9.0.2/24 dev s0
	ip -n c link set c0 up; ip -n c link set lo up
	ip -n s link set s0 up; ip -n s link set lo up
	for ns in c s; do
		ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
	done
}
net_down() {
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill "$p" 2>/dev/null; done
	sleep 1
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del c 2>/dev/null; ip netns del s 2>/dev/null
}
C() { ip netns exec c "$@"; }
S() { ip netns exec s "$@"; }

# "udp_share jain utilisation" over the TCP test's window (python3 from the
# host's root)
summary() { # tcp.json udp.json before after (the kernel's view: "uptime bytes")
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, sys
try:
    tcp = json.load(open(sys.argv[1]))
    u = json.load(open(sys.argv[2]))
    t0k, b0 = map(float, sys.argv[3].split())
    t1k, b1 = map(float, sys.argv[4].split())
except (OSError, ValueError) as e:
    print("failed: %s" % e)
    sys.exit(0)
streams = tcp.get("end", {}).get("streams", [])
if not streams:
    print("failed: %s" % tcp.get("error", "no TCP streams"))
    sys.exit(0)
secs = tcp["end"]["sum_received"]["seconds"]
got = [s["receiver"]["bytes"] for s in streams]
jain = sum(got) ** 2 / (len(got) * sum(r * r for r in got)) if sum(got) else 0
try:
    t0 = tcp["start"]["timestamp"]["timesecs"] - u["start"]["timestamp"]["timesecs"]
except KeyError:
    print("failed: no start time in iperf3's UDP report (%s)" % u.get("error", "-"))
    sys.exit(0)
srv = u.get("server_output_json", {}).get("intervals", [])
inside = [i["sum"] for i in srv if i["sum"]["start"] >= t0 - 0.5 and
          i["sum"]["end"] <= t0 + secs + 1.5]
if not inside:
    print("failed: no flood intervals from the server (%s)" % u.get("error", "-"))
    sys.exit(0)
# the floods' bytes over the TCP test's seconds (by iperf3's clock, as the
# TCP bytes)
udp = sum(i["bytes"] for i in inside) / sum(i["seconds"] for i in inside) * secs
util = (b1 - b0) * 8 / (4e6 * (t1k - t0k)) if t1k > t0k else 0
print("%.4f %.4f %.4f" % (udp / (udp + sum(got)), jain, util))
PY
}

# "uptime tbf-bytes": the kernel's clock and what tbf has sent
kview() {
	up=$(cut -d' ' -f1 /proc/uptime)
	b=$(C tc -s -j qdisc show dev c0 | python3 -c 'import json,sys; print([q for q in json.load(sys.stdin) if q["kind"] == "tbf"][0]["bytes"])' 2>/dev/null)
	echo "$up ${b:-0}"
}

run_one() { # label words k r
	label=$1 words=$2 k=$3 r=$4
	base=$OUT/$label-$k-$r
	net_up
	C tc qdisc add dev c0 root handle 1: tbf rate 4mbit burst 10kb latency 300ms
	# shellcheck disable=SC2086
	if ! C tc qdisc add dev c0 parent 1:1 handle 10: $words 2>"$base.err"; then
		echo "$label $k $r failed: tc: $(cat "$base.err")" >>"$OUT/runs.txt"
		net_down
		return
	fi
	S iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	S iperf3 -s -1 -p 5202 -J >/dev/null 2>&1 &
	sleep 1
	# the floods start 3 s before TCP and end after it
	C timeout $((SECS + 40)) iperf3 -c 10.9.0.2 -p 5202 -u -b $((8000 / k))k -P "$k" \
		-l "$ULEN" -w 2M -t $((SECS + 8)) -J --get-server-output >"$base.udp" 2>&1 &
	udp=$!
	sleep 3
	before=$(kview)
	C timeout $((SECS + 30)) iperf3 -c 10.9.0.2 -p 5201 -P 8 -t "$SECS" -J >"$base.tcp" 2>&1
	after=$(kview)
	wait $udp
	C tc -s -j qdisc show dev c0 >"$base.qdisc" 2>&1
	echo "$label $k $r $(summary "$base.tcp" "$base.udp" "$before" "$after")" >>"$OUT/runs.txt"
	log "$(tail -1 "$OUT/runs.txt")"
	net_down
}

echo "$PEERS" | while IFS='|' read -r label mod words; do
	[ -n "$label" ] || continue
	wanted "$label" || continue
	if ! load "$mod" 2>"$OUT/load.err"; then
		echo "$label - - failed: cannot load $mod: $(cat "$OUT/load.err")" >>"$OUT/runs.txt"
		continue
	fi
	for k in $FLOODS; do
		r=1
		while [ $r -le "$REPEATS" ]; do
			run_one "$label" "$words" "$k" "$r" </dev/null
			# iperf3 itself failing (a connection that timed out behind a
			# flood) says nothing yet: once more, then it is the result
			if tail -1 "$OUT/runs.txt" | grep -q "^$label $k $r failed: unable to connect"; then
				sed -i '$d' "$OUT/runs.txt"
				run_one "$label" "$words" "$k" "$r" </dev/null
			fi
			r=$((r + 1))
		done
	done
done
log "peers done"
