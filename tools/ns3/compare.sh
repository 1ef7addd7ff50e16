#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The side-by-side of docs/results.md: FIFO and RED on the paper's single
# link in ns-3 (tools/ns3/paper.cc) and in `choke sim`, UDP share at 0.5, 1,
# 2, 5 and 10 Mbit/s and Jain's index without UDP, for seeds 1-3.
#   sh tools/ns3/build.sh && sh tools/ns3/compare.sh [CHOKE] [NS3]
# Prints a markdown table (min-max over the seeds) on standard output.
set -eu
cd "$(dirname "$0")/../.."
CHOKE=${1:-build/gcc/choke}
NS3=${2:-build/ns3-paper}
SEEDS=${SEEDS:-"1 2 3"}
[ -x "$NS3" ] || { echo "compare.sh: $NS3 missing: sh tools/ns3/build.sh" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for q in red fifo; do
	for r in 0.5 1 2 5 10; do
		for s in $SEEDS; do
			"$NS3" --queue=$q --udpRate=${r}e6 --seed=$s >>"$tmp/ns3-$q-$r"
			"$CHOKE" sim scenarios/paper-single-link --qdisc $q --set udp_rate=${r}mbit \
				--seed $s --json >>"$tmp/sim-$q-$r"
		done
	done
	for s in $SEEDS; do
		"$NS3" --queue=$q --nUdp=0 --seed=$s >>"$tmp/ns3-$q-none"
		"$CHOKE" sim scenarios/paper-single-link --qdisc $q --set udp_flows=0 --seed $s \
			--json >>"$tmp/sim-$q-none"
	done
done
python3 - "$tmp" <<'PY'
import json, sys, os
d = sys.argv[1]
def rng(name, key):
    vals = []
    for line in open(os.path.join(d, name)):
        j = json.loads(line)
        v = j
        for k in key:
            v = v[k]
        vals.append(v)
    lo, hi = min(vals), max(vals)
    return "%.2f" % lo if "%.2f" % lo == "%.2f" % hi else "%.2f–%.2f" % (lo, hi)
print("| | UDP 0.5 Mbit/s | 1 | 2 | 5 | 10 | Jain, no UDP |")
print("|---|---|---|---|---|---|---|")
for q in ("red", "fifo"):
    for eng in ("ns3", "sim"):
        cells = [rng("%s-%s-%s" % (eng, q, r), ("share", "udp")) for r in ("0.5", "1", "2", "5", "10")]
        cells.append(rng("%s-%s-none" % (eng, q), ("jain_tcp",)))
        label = "%s, %s" % (q.upper(), "ns-3 3.37" if eng == "ns3" else "choke sim")
        print("| %s | %s |" % (label, " | ".join(cells)))
PY
