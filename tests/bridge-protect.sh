#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# protect through `choke bridge` with real Linux TCP: 8 TCP streams and K
# UDP floods totalling 40 Mbit/s (twice the 20 Mbit/s bottleneck) from a
# client namespace through the bridge's namespace to a server namespace
# (veth pairs, TSO, GSO, GRO off), as in tests/bridge.sh. The floods' max-min
# fair share of the link is K/(8+K).
#
#   CHOKE=build/gcc/choke sh tests/bridge-protect.sh
#       the test (make check, root; about a minute): with
#       `limit 300 min 25 max 50 protect`, 1 flood and 4 floods keep at most
#       1.2x their fair share, TCP keeps the rest of the link, and the
#       bridge's counters name protect's drops (stats JSON and OpenMetrics)
#   CHOKE=build/gcc/choke sh tests/bridge-protect.sh --table [REPEATS]
#       the evaluation (make eval-bridge; about 12 minutes with 2 repeats):
#       plain CHOKe, draws 8, adaptive, protect, RED and FIFO with the same
#       words, 1 and 4 floods, each repeated, with a ping every 200 ms
#       through the bridge while TCP runs; a markdown table on stdout
#       (docs/results.md, section 11). The protect rows are the candidates
#       of tests/protect-words (PROTECT_WORDS='LABEL=WORDS;...' replaces
#       them), run as `choke WORDS`.
#
# Needs root, iproute2, iperf3, ethtool, python3. BRIDGE_TEST_SECONDS sets
# the length of each TCP test (default 12). In the table only:
# BRIDGE_RATE_MBIT the bridge's rate in Mbit/s (default 20; the floods send
# twice it in all), BRIDGE_ONLY='label,...' the rows to run (the labels
# of the table's first column).
set -u
CHOKE=$(readlink -f "${CHOKE:-build/gcc/choke}")
HERE=$(cd "$(dirname "$0")" && pwd)
T=${BRIDGE_TEST_SECONDS:-12}
RATE=20
ONLY=
WORDS="limit 300 min 25 max 50"
mode=test
repeats=2
case ${1:-} in
--table) mode=table; repeats=${2:-2} ;;
"") ;;
*) echo "usage: $0 [--table [REPEATS]]" >&2; exit 2 ;;
esac
case $repeats in ''|*[!0-9]*|0) echo "bridge-protect: REPEATS is a whole number from 1, not \"$repeats\"" >&2; exit 2 ;; esac
if [ $mode = table ]; then
	RATE=${BRIDGE_RATE_MBIT:-20}
	ONLY=${BRIDGE_ONLY:-}
	case $RATE in ''|*[!0-9]*) echo "bridge-protect: BRIDGE_RATE_MBIT is a whole number of Mbit/s, not \"$RATE\"" >&2; exit 2 ;; esac
	[ "$RATE" -ge 1 ] && [ "$RATE" -le 1000 ] || { echo "bridge-protect: BRIDGE_RATE_MBIT must be 1 to 1000" >&2; exit 2; }
fi
C=chpc$$ B=chpb$$ S=chps$$
tmp=$(mktemp -d)
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   bridge-protect/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL bridge-protect/$1: $2"; }
cleanup() {
	[ -n "${bpid:-}" ] && kill -TERM "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null
	for ns in $C $B $S; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
if [ "$(id -u)" != 0 ] || ! command -v iperf3 >/dev/null || ! command -v ethtool >/dev/null; then
	echo "FAIL bridge-protect: needs root, iperf3 and ethtool (.ci/run installs them)"
	exit 1
fi

for ns in $C $B $S; do ip netns add $ns && ip -n $ns link set lo up || exit 1; done
ip -n $C link add vc type veth peer name ba netns $B
ip -n $S link add vs type veth peer name bz netns $B
for x in "$C vc" "$B ba" "$B bz" "$S vs"; do
	set -- $x
	ip netns exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1 2>/dev/null
	ip netns exec $1 ethtool -K $2 tso off gso off gro off >/dev/null 2>&1
	ip -n $1 link set $2 up
done
ip -n $C addr add 10.56.0.1/24 dev vc
ip -n $S addr add 10.56.0.2/24 dev vs
ip netns exec $S iperf3 -s -p 5201 -D -I "$tmp/s1.pid" >/dev/null 2>&1
ip netns exec $S iperf3 -s -p 5202 -J -D -I "$tmp/s2.pid" >/dev/null 2>&1
sleep 0.5

start_bridge() { # name, discipline and words
	name=$1
	shift
	ip netns exec $B "$CHOKE" bridge --in ba --out bz --rate ${RATE}mbit \
		--socket "$tmp/ctl.sock" "$@" >"$tmp/$name.final" 2>"$tmp/$name.log" &
	bpid=$!
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		grep -q "control socket" "$tmp/$name.log" 2>/dev/null && return 0
		sleep 0.2
	done
	bad "$name" "bridge did not start: $(cat "$tmp/$name.log")"
	return 1
}
stop_bridge() {
	kill -TERM $bpid 2>/dev/null
	wait $bpid
	bpid=
	rm -f "$tmp/ctl.sock"
}

# K floods of 40/K Mbit/s start 2 s before 8 TCP streams and end after them;
# in the table, a ping every 200 ms through the bridge while TCP runs
traffic() { # name, K
	ip netns exec $C timeout $((T + 25)) iperf3 -c 10.56.0.2 -p 5202 -u \
		-b $((2000 * RATE / $2))K -P $2 -l 1400 -t $((T + 8)) -J --get-server-output \
		>"$tmp/$1.udp" 2>&1 &
	upid=$!
	sleep 2
	: >"$tmp/$1.ping"
	ppid=
	if [ $mode = table ]; then
		ip netns exec $C timeout $((T + 10)) ping -n -i 0.2 -W 2 -c $((T * 5)) 10.56.0.2 \
			>"$tmp/$1.ping" 2>&1 &
		ppid=$!
	fi
	ip netns exec $C timeout $((T + 15)) iperf3 -c 10.56.0.2 -p 5201 -P 8 -t $T \
		-J >"$tmp/$1.tcp" 2>&1
	wait $upid
	[ -n "$ppid" ] && wait $ppid
	return 0
}

# "tcp udp jain K p50 p99 loss": the goodput shares of the link while the
# TCP test ran (TCP from its server's byte counts, UDP from the flood
# server's intervals inside the TCP test), Jain's index over the TCP
# streams, the ping's median and 99th-percentile round trip in ms and the
# share of pings lost ("- - -" without a ping); or a line saying iperf3 failed
summary() { # name, K
	python3 - "$tmp/$1.tcp" "$tmp/$1.udp" "$2" "$tmp/$1.ping" "$HERE" "$RATE" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[5])
from pingstats import ping as pingstats
p = pingstats(sys.argv[4])
ping = "%.3f %.3f %.4f" % (p["p50"], p["p99"], p["loss"]) if p["p50"] is not None else \
    ("- - 1" if p["n"] else "- - -")
try:
    tcp = json.load(open(sys.argv[1]))
    u = json.load(open(sys.argv[2]))
except (OSError, ValueError) as e:
    print("failed: %s" % e)
    sys.exit(0)
streams = tcp.get("end", {}).get("streams", [])
if not streams:
    print("failed: %s" % tcp.get("error", "no TCP streams"))
    sys.exit(0)
secs = tcp["end"]["sum_received"]["seconds"]
rates = [s["receiver"]["bytes"] * 8 / secs for s in streams]
jain = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)) if sum(rates) else 0
t0 = tcp["start"]["timestamp"]["timesecs"] - u["start"]["timestamp"]["timesecs"]
srv = u.get("server_output_json", {}).get("intervals", [])
inside = [i["sum"] for i in srv if i["sum"]["start"] >= t0 - 0.5 and
          i["sum"]["end"] <= t0 + secs + 1.5]
if not inside:
    print("failed: no flood intervals from the server (%s)" % u.get("error", "-"))
    sys.exit(0)
udp = sum(i["bytes"] * 8 for i in inside) / sum(i["seconds"] for i in inside)
link = float(sys.argv[6]) * 1e6
print("%.4f %.4f %.4f %s %s" % (sum(rates) / link, udp / link, jain, sys.argv[3], ping))
PY
}

# one measurement, once more if iperf3 itself failed (that says nothing about
# the bridge); sets $res to "tcp udp jain K" or "failed: ..."
measure() { # name, K, discipline and words...
	name=$1 k=$2
	shift 2
	for attempt in 1 2; do
		start_bridge $name "$@" || { res="failed: no bridge"; return; }
		traffic $name $k
		ip netns exec $B "$CHOKE" stats --socket "$tmp/ctl.sock" --json >"$tmp/$name.stats" 2>&1
		ip netns exec $B "$CHOKE" stats --socket "$tmp/ctl.sock" --format openmetrics \
			>"$tmp/$name.om" 2>&1
		stop_bridge
		res=$(summary $name $k)
		case $res in failed*) echo "     ($name: iperf3 $res; once more)" >&2; sleep 2 ;; *) return ;; esac
	done
}

if [ $mode = test ]; then
	for k in 1 4; do
		fair=$(python3 -c "print('%.3f' % ($k / (8 + $k)))")
		# the floods within 1.2x their share, and TCP takes the rest: the
		# goodputs (headers not counted: about 4% of a frame) nearly fill
		# the link: at least 0.80 (0.94-0.95 on a quiet machine,
		# docs/results.md section 11; 0.83 was seen with the 2 cores shared
		# by other builds, which starve iperf3 and the bridge alike). A run
		# that misses is measured once more, since one slow run says
		# little; both must miss to fail.
		for run in 1 2; do
			measure protect$k $k choke $WORDS protect
			set -- $res
			[ "$1" = failed: ] && break
			python3 -c "import sys; t, u, k = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); sys.exit(not (u <= 1.2 * k / (8 + k) and t + u >= 0.80))" $1 $2 $k && break
			[ $run = 1 ] && echo "     (protect$k: UDP $2, TCP $1 of the link; measured once more)"
		done
		if [ "$1" = failed: ]; then bad "floods-$k" "$res"; continue; fi
		if python3 -c "import sys; t, u, k = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); sys.exit(not (u <= 1.2 * k / (8 + k) and t + u >= 0.80))" $1 $2 $k; then
			ok "floods-$k: UDP $2 of the link ($(python3 -c "print('%.2f' % ($2 / $fair))")x the fair share $fair), TCP $1, Jain over TCP $3"
		else bad "floods-$k" "UDP $2 of the link (fair $fair, at most $(python3 -c "print('%.3f' % (1.2 * $fair))")), TCP $1, Jain $3"; fi
		# the bridge names protect's drops: stats JSON and OpenMetrics
		python3 - "$tmp/protect$k.stats" "$tmp/protect$k.om" <<'PY' >"$tmp/cnt" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))["directions"][0]
p = d["qdisc"]["protect"]
assert p > 0, d["qdisc"]
assert "protect 64" in d["params"], d["params"]
om = {}
for l in open(sys.argv[2]).read().splitlines():
    if not l.startswith("#"):
        k, v = l.rsplit(" ", 1)
        om[k] = float(v)
key = 'choke_bridge_dropped_packets_total{in="ba",out="bz",reason="protect"}'
assert om[key] >= p, (om[key], p)  # taken just after the JSON
print("protect drops %d (OpenMetrics %d)" % (p, om[key]))
PY
		if [ $? = 0 ]; then ok "counters-$k: $(cat "$tmp/cnt")"; else bad "counters-$k" "$(tail -3 "$tmp/cnt")"; fi
	done
	echo "bridge-protect: $n tests, $fails failed"
	[ $fails = 0 ]
	exit
fi

# --- the table ----------------------------------------------------------------
sh "$HERE/protect-words.sh" >"$tmp/words" || exit 2
echo "| discipline | 1 flood: UDP share / fair (0.111) | TCP | Jain over TCP | ping p50 / p99 (ms) | 4 floods: UDP share / fair (0.333) | TCP | Jain over TCP | ping p50 / p99 (ms) |"
echo "|---|---|---|---|---|---|---|---|---|"
{
	echo "choke:choke $WORDS"
	echo "draws 8:choke $WORDS draws 8"
	echo "adaptive:choke $WORDS adaptive"
	sed 's/|/:choke /' "$tmp/words"
	echo "red:red $WORDS"
	echo "fifo:fifo limit 300"
} >"$tmp/discs"
if [ -n "$ONLY" ]; then
	for l in $(echo "$ONLY" | tr ',' ' '); do
		grep -q "^$l:" "$tmp/discs" || { echo "bridge-protect: BRIDGE_ONLY: no row \"$l\" (the rows: $(cut -d: -f1 "$tmp/discs" | tr '\n' ' '))" >&2; exit 2; }
	done
	awk -F: -v only=",$ONLY," 'index(only, "," $1 ",")' "$tmp/discs" >"$tmp/discs.only"
	mv "$tmp/discs.only" "$tmp/discs"
fi
while read -r d; do
	label=${d%%:*}
	words=${d#*:}
	row="| $label |"
	for k in 1 4; do
		: >"$tmp/rows"
		r=0
		while [ $r -lt $repeats ]; do
			measure run $k $words </dev/null
			echo "$res" >>"$tmp/rows"
			echo "     $label, $k flood(s), run $((r + 1)): $res" >&2
			r=$((r + 1))
		done
		row="$row $(python3 - "$tmp/rows" $k <<'PY'
import sys
k = int(sys.argv[2])
fair = k / (8 + k)
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("failed")]
if not rows:
    print("failed | | |")
    sys.exit(0)
def rng(xs, fmt):
    lo, hi = min(xs), max(xs)
    return (fmt % lo) if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)
udp = [float(r[1]) / fair for r in rows]
got = [r for r in rows if r[4] != "-"]
ping = "%s / %s" % (rng([float(r[4]) for r in got], "%.1f"),
                    rng([float(r[5]) for r in got], "%.0f")) if got else "all lost"
loss = [float(r[6]) for r in rows if r[6] != "-"]
if loss and max(loss) >= 0.005 and got:
    ping += " (lost %s)" % rng([100 * x for x in loss], "%.1f%%")
print("%s | %s | %s | %s |" % (rng(udp, "%.2f"), rng([float(r[0]) for r in rows], "%.3f"),
                               rng([float(r[2]) for r in rows], "%.2f"), ping))
PY
)"
	done
	echo "$row"
done <"$tmp/discs"
grep -v '^protect|' "$tmp/words" | sed 's/^\([^|]*\)|\(.*\)/`\1`: `choke \2`/'
echo "The bridge at $RATE Mbit/s (\`choke bridge --rate ${RATE}mbit\`), the floods $((2 * RATE)) Mbit/s in all; $repeats run(s) per cell."
exit 0
