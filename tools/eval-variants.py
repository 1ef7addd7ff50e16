#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Evaluate CHOKe's variants against several unresponsive flows (docs/variants.md).

Usage: python3 tools/eval-variants.py [--choke build/gcc/choke] [--seeds 3]
                                      [--plot docs/img/variants-2c.png]
Prints markdown tables (the ones in docs/results.md) to stdout:
  1. aggregate UDP share, Jain's index over the TCP flows and utilisation for
     1, 2, 4, 8 UDP flows sharing 1c, 2c, 5c with 32 TCP flows (the paper's
     single link, scenarios/multi-udp), thresholds 100/200 and 25/50, for
     FIFO, RED, CHOKe and every variant, averaged over the seeds;
  2. TCP alone (scenarios/tcp-fairness; the paper's link without UDP): Jain's
     index and utilisation of each variant next to plain CHOKe's;
  3. the penalised-flows summary against the simulator's exact per-flow
     counts, for several summary sizes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

DISC = [
    ("fifo", "fifo", ""),
    ("red", "red", ""),
    ("choke", "choke", ""),
    ("draws 4", "choke", "draws 4"),
    ("draws 8", "choke", "draws 8"),
    ("adaptive", "choke", "adaptive"),
    ("geometric 8", "choke", "geometric 8"),
    ("bytes", "choke", "bytes"),
]
THRESH = [("100/200", "limit 300 min 100 max 200 burst 300"),
          ("25/50", "limit 300 min 25 max 50")]


def sim(choke, scenario, sets, seed):
    cmd = [choke, "sim", scenario, "--json", "--seed", str(seed)]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    return json.loads(r.stdout)


def queue_words(base, extra, disc):
    if disc == "fifo":
        return "limit 300"
    if extra == "bytes":
        # the same thresholds in bytes (1000-byte packets)
        w = base.split()
        out = []
        for i, x in enumerate(w):
            out.append(str(int(x) * 1000) if i and w[i - 1] in ("limit", "min", "max") else x)
        # burst stays in packets, as in tc's red
        return " ".join(out) + " bytes"
    return (base + " " + extra).strip()


def mean(xs):
    return sum(xs) / len(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--choke", default="build/gcc/choke")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--plot", default="")
    a = ap.parse_args()
    seeds = range(1, a.seeds + 1)

    print("## 1. Several UDP flows, 32 TCP flows, the paper's 1 Mbit/s link\n")
    print("Aggregate UDP share of the link / Jain's index over the TCP flows "
          "(utilisation was 1.00 in every cell), mean of seeds 1..%d.\n" % a.seeds)
    plot = {}
    for tname, tw in THRESH:
        print("### thresholds %s (limit 300)\n" % tname)
        hdr = "| discipline |" + "".join(" %d UDP at %s |" % (n, r) for r in ("1c", "2c", "5c")
                                          for n in (1, 2, 4, 8))
        print(hdr)
        print("|---|" + "---|" * 12)
        for label, disc, extra in DISC:
            cells = []
            for rate in ("1c", "2c", "5c"):
                for n in (1, 2, 4, 8):
                    runs = [sim(a.choke, "scenarios/multi-udp",
                                ["qdisc=" + disc, "queue=" + queue_words(tw, extra, disc),
                                 "udp_flows=%d" % n, "udp_rate=" + rate], s) for s in seeds]
                    u = mean([j["share"]["udp"] for j in runs])
                    jn = mean([j["jain_tcp"] or 0 for j in runs])
                    ut = mean([j["utilization"] for j in runs])
                    if ut < 0.99:
                        cells.append("%.3f / %.2f (util %.2f)" % (u, jn, ut))
                    else:
                        cells.append("%.3f / %.2f" % (u, jn))
                    if rate == "2c":
                        plot.setdefault((tname, label), []).append((n, u))
            print("| %s | %s |" % (label, " | ".join(cells)))
        print()

    print("## 2. TCP alone\n")
    print("| discipline | 32 flows, 100 Mbit/s: Jain | utilisation | paper link, no UDP, "
          "25/50: Jain | utilisation |")
    print("|---|---|---|---|---|")
    base = None
    for label, disc, extra in DISC:
        if disc != "choke":
            continue
        a1 = [sim(a.choke, "scenarios/tcp-fairness",
                  ["queue=" + queue_words("limit 1000 min 100 max 300", extra, disc)], s)
              for s in seeds]
        a2 = [sim(a.choke, "scenarios/paper-single-link",
                  ["udp_flows=0", "queue=" + queue_words("limit 300 min 25 max 50", extra, disc)], s)
              for s in seeds]
        row = (mean([j["jain_tcp"] for j in a1]), mean([j["utilization"] for j in a1]),
               mean([j["jain_tcp"] for j in a2]), mean([j["utilization"] for j in a2]))
        if base is None:
            base = row
        diff = " ".join("(%+.3f)" % (x - b) for x, b in zip(row, base)) if label != "choke" else ""
        print("| %s | %.4f | %.4f | %.4f | %.4f | %s" % ((label,) + row + (diff,)))
    print()

    print("## 3. The penalised-flows summary against exact counts\n")
    print("256 TCP flows and 8 UDP flows sharing 2c on the paper's link scaled by 8 "
          "(8 Mbit/s, buffer 2400); the summary ranks flows by packets lost to "
          "matches in the measured 80 s.\n")
    print("| counters | packets counted | bound N/k | flows losing > N/k | all of them "
          "reported | top-8 by exact found in the summary's top 8 | max over-count "
          "of a reported flow | largest error estimate |")
    print("|---|---|---|---|---|---|---|---|")
    for k in (8, 16, 32, 64):
        j = sim(a.choke, "scenarios/paper-single-link",
                ["bottleneck_rate=8mbit", "tcp_flows=256", "udp_flows=8", "udp_rate=2c",
                 "queue=limit 2400 min 800 max 1600 burst 2400", "hh_counters=%d" % k], 1)
        p = j["penalised"]
        exact = {}
        for f in j["flows"]:
            exact[f["flow"]] = f["drops"]["match"] + f["drops"]["victim"]
        bound = p["bound"]
        heavy = [f for f, v in exact.items() if v > bound]
        rep = {e["flow"]: e for e in p["flows"]}
        # (the report lists at most 16 flows; the guarantee is checked on them)
        ok = all(f in rep for f in heavy[:16])
        top = sorted(exact, key=lambda f: -exact[f])[:8]
        got = [e["flow"] for e in p["flows"][:8]]
        over = max(e["estimate"] - exact[e["flow"]] for e in p["flows"])
        maxerr = max(e["error"] for e in p["flows"])
        for e in p["flows"]:
            assert e["estimate"] - e["error"] <= exact[e["flow"]] <= e["estimate"], e
        print("| %d | %d | %d | %d | %s | %d of 8 | %d | %d |" % (
            k, p["total"], bound, len(heavy), "yes" if ok else "NO", len(set(top) & set(got)),
            over, maxerr))
    print()

    if a.plot:
        fd, data = tempfile.mkstemp(suffix=".dat")
        with os.fdopen(fd, "w") as f:
            for (tname, label), pts in sorted(plot.items()):
                f.write("# %s %s\n" % (tname, label))
                for n, u in pts:
                    f.write("%d %.5f\n" % (n, u))
                f.write("\n\n")
        keys = sorted(plot)
        plots = ", ".join("'%s' index %d with linespoints title '%s, %s'" % (data, i, lab, t)
                          for i, (t, lab) in enumerate(keys) if t == "25/50" or lab in ("choke", "adaptive", "draws 8"))
        gp = ("set terminal png size 900,560; set output '%s'; set logscale x 2; "
              "set xlabel 'UDP flows sharing 2c'; set ylabel 'aggregate UDP share of the link'; "
              "set yrange [0:1.05]; set key outside right; set grid; "
              "set title '32 TCP + k UDP flows, 1 Mbit/s, limit 300'; plot %s\n") % (a.plot, plots)
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
        os.unlink(data)
        print("plot: %s" % a.plot)


if __name__ == "__main__":
    main()
