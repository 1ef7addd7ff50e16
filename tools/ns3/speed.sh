#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The simulator's speed against ns-3, both measured here and now: the
# speed-1000 scenario (1000 TCP NewReno flows and one UDP flow at a tenth of
# a 1 Gbit/s bottleneck, RED) for the same simulated seconds in ns-3
# (tools/ns3/paper.cc against Debian's libns3-dev) and in `choke sim`,
# REPEATS rounds, alternating. Each side reports the bottleneck packets
# (data and ACKs) it simulated and the CPU seconds of its event loop; the
# ratio is packets per CPU-second, choke sim over ns-3.
#
#   sh tools/ns3/build.sh && sh tools/ns3/speed.sh [CHOKE] [NS3]
#   make sim-vs-ns3                      (the same, building both first)
#
# Environment: DURATION (simulated seconds, default 2), WARMUP (0.5),
# REPEATS (3), SIM_RUNS (choke sim runs per round, their median counts;
# default 5: one run takes a few hundredths of a second). Prints one line
# per run, then the ranges, the ratio and the verdict against the goal of
# 1000x (issue 24): MET when the median round's ratio is at least 1000.
# Exit status: 0 (whether or not the goal is met), 1 if a side failed or
# the two sides simulated very different numbers of packets, 2 on usage.
set -eu
cd "$(dirname "$0")/../.."
CHOKE=${1:-build/gcc/choke}
NS3=${2:-build/ns3-paper}
DURATION=${DURATION:-2}
WARMUP=${WARMUP:-0.5}
REPEATS=${REPEATS:-3}
SIM_RUNS=${SIM_RUNS:-5}
for v in "$DURATION" "$WARMUP"; do
	case $v in
	'' | *[!0-9.]* | *.*.*) echo "speed.sh: DURATION and WARMUP are seconds (e.g. 2, 0.5), not '$v'" >&2; exit 2 ;;
	esac
done
for v in "$REPEATS" "$SIM_RUNS"; do
	case $v in
	'' | *[!0-9]* | 0*) echo "speed.sh: REPEATS and SIM_RUNS are positive whole numbers, not '$v'" >&2; exit 2 ;;
	esac
done
awk -v d="$DURATION" -v w="$WARMUP" 'BEGIN { exit !(d > w) }' ||
	{ echo "speed.sh: DURATION ($DURATION) must be longer than WARMUP ($WARMUP)" >&2; exit 2; }
[ -x "$CHOKE" ] || { echo "speed.sh: $CHOKE missing: make" >&2; exit 1; }
[ -x "$NS3" ] || { echo "speed.sh: $NS3 missing: sh tools/ns3/build.sh" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# scenarios/speed-1000 in ns-3's words (paper.cc's options)
ns3_args="--nTcp=1000 --nUdp=1 --udpRate=1e8 --btlRate=1e9 --btlDelayMs=5
	--accessRate=1e10 --udpAccessRate=1e10 --accessDelayMs=5 --queue=red --limit=5000
	--minTh=500 --maxTh=1500 --qw=0.001953125 --maxP=0.02 --minRto=0.2 --startSpread=1
	--duration=$DURATION --warmup=$WARMUP"

echo "speed.sh: speed-1000 under RED, $DURATION simulated seconds (warm-up $WARMUP), $REPEATS rounds"
echo "speed.sh: ns-3 $(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null || echo '?') ($NS3), choke $("$CHOKE" --version 2>/dev/null | head -1) ($CHOKE)"
r=1
while [ "$r" -le "$REPEATS" ]; do
	# shellcheck disable=SC2086 # the options are words
	"$NS3" $ns3_args >"$tmp/ns3-$r.json" 2>"$tmp/ns3-$r.err" ||
		{ echo "speed.sh: ns-3 failed:" >&2; cat "$tmp/ns3-$r.err" >&2; exit 1; }
	k=1
	while [ "$k" -le "$SIM_RUNS" ]; do
		"$CHOKE" sim speed-1000 --qdisc red --set "duration=${DURATION}s" \
			--set "warmup=${WARMUP}s" --speed --json >"$tmp/sim-$r-$k.json" 2>"$tmp/sim-$r-$k.err" ||
			{ echo "speed.sh: choke sim failed:" >&2; cat "$tmp/sim-$r-$k.err" >&2; exit 1; }
		k=$((k + 1))
	done
	r=$((r + 1))
done

python3 - "$tmp" "$REPEATS" "$SIM_RUNS" <<'PY'
import json, os, statistics, sys
d, rounds, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def load(name):
    with open(os.path.join(d, name)) as f:
        return json.load(f)
ratios, ns3_rates, sim_rates, pk = [], [], [], []
for r in range(1, rounds + 1):
    n = load("ns3-%d.json" % r)
    n_rate = n["bottleneck_pkts"] / n["cpu_s"]
    sims = []
    for k in range(1, runs + 1):
        s = load("sim-%d-%d.json" % (r, k))
        cpu = s["speed"]["loop_cpu_s"]
        sims.append((s["bottleneck_pkts"] / cpu, s["bottleneck_pkts"], cpu))
    sims.sort()
    s_rate, s_pk, s_cpu = sims[len(sims) // 2]
    ns3_rates.append(n_rate)
    sim_rates.append(s_rate)
    ratios.append(s_rate / n_rate)
    pk.append((n["bottleneck_pkts"], s_pk))
    print("round %d: ns-3 %d packets in %.2f CPU s (%.0f/s); choke sim %d packets in %.4f CPU s "
          "(%.3g/s, median of %d); ratio %.0fx" % (r, n["bottleneck_pkts"], n["cpu_s"], n_rate,
                                                  s_pk, s_cpu, s_rate, runs, s_rate / n_rate))
for a, b in pk:
    if not (0.8 < b / a < 1.25):
        print("speed.sh: the two sides simulated %d and %d bottleneck packets: not the same work"
              % (a, b), file=sys.stderr)
        sys.exit(1)
def rng(v, fmt):
    return (fmt % min(v)) + ".." + (fmt % max(v))
med = statistics.median(ratios)
print("ns-3 bottleneck packets per CPU-second:      %s" % rng(ns3_rates, "%.0f"))
print("choke sim bottleneck packets per CPU-second: %s" % rng(sim_rates, "%.3g"))
print("ratio choke sim / ns-3: %s, median %.0fx" % (rng(ratios, "%.0f"), med))
print("goal: choke sim >= 1000x ns-3 on this scenario: %s" %
      ("MET" if med >= 1000 else "NOT MET (%.2f of it)" % (med / 1000)))
PY
