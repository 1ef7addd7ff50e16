#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The choke authors
"""The ns-3 comparison of docs/results.md (section 9): the CHOKe paper's
single link in ns-3 with ns3::ChokeQueueDisc, ns-3's RED, FQ-CoDel and FIFO
(build/ns3/choke-paper), against `choke sim paper-single-link` with CHOKe,
at UDP rates of 0.5c to 10c over several seeds. Prints markdown tables
(UDP share of the link, min-max over the seeds; Jain's index over the TCP
flows; wall time per run of each program, process start included).

    make ns3-compare        # = python3 ns3/compare.py --ns3 build/ns3/choke-paper --choke build/choke

Not part of CI: about 60 ns-3 runs of 100 simulated seconds (a few minutes).
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("compare.py: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout), wall


def span(vals, fmt="%.3f"):
    lo, hi = fmt % min(vals), fmt % max(vals)
    return lo if lo == hi else "%s–%s" % (lo, hi)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns3", default="build/ns3/choke-paper")
    ap.add_argument("--choke", default="build/choke")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--rates", default="0.5,1,2,5,10", help="UDP rates in Mbit/s (c = 1 Mbit/s)")
    ap.add_argument("--duration", type=float, default=100)
    ap.add_argument("--qdiscs", default="choke,red,fq_codel,fifo", help="ns-3 queue discs")
    ap.add_argument("--no-red", action="store_true",
                    help="skip the RED runs (Linux RED through ChokeQueueDisc against `choke sim`)")
    ap.add_argument("--json", action="store_true", help="print every run as a JSON line too")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    rates = a.rates.split(",")
    qdiscs = a.qdiscs.split(",")
    warmup = a.duration / 5

    res = {}  # (engine, rate) -> list of (json, wall)
    for r in rates:
        for s in seeds:
            for q in qdiscs:
                j, w = run([a.ns3, "--qdisc=" + q, "--udpRate=%sMbps" % r,
                            "--duration=%g" % a.duration, "--warmup=%g" % warmup, "--RngRun=%d" % s])
                res.setdefault(("ns-3 " + q, r), []).append((j, w))
                if a.json:
                    print(json.dumps(j), flush=True)
            j, w = run([a.choke, "sim", "paper-single-link", "--qdisc", "choke",
                        "--set", "udp_rate=%smbit" % r, "--set", "duration=%gs" % a.duration,
                        "--set", "warmup=%gs" % warmup, "--seed", str(s), "--json"])
            res.setdefault(("choke sim", r), []).append((j, w))
            if a.json:
                print(json.dumps(j), flush=True)

    # The same RED arithmetic in both engines: ChokeQueueDisc's Discipline=Red
    # (libchoke's sch_red decisions) against `choke sim --qdisc red`, with
    # and without UDP ("none").
    if not a.no_red:
        for r in rates + ["none"]:
            for s in seeds:
                udp = ["--nUdp=0"] if r == "none" else ["--udpRate=%sMbps" % r]
                j, w = run([a.ns3, "--qdisc=choke", "--ns3::ChokeQueueDisc::Discipline=Red"] + udp +
                           ["--duration=%g" % a.duration, "--warmup=%g" % warmup, "--RngRun=%d" % s])
                res.setdefault(("ns-3 linux red", r), []).append((j, w))
                udp = ["--set", "udp_flows=0"] if r == "none" else ["--set", "udp_rate=%smbit" % r]
                j, w = run([a.choke, "sim", "paper-single-link", "--qdisc", "red"] + udp +
                           ["--set", "duration=%gs" % a.duration, "--set", "warmup=%gs" % warmup,
                            "--seed", str(s), "--json"])
                res.setdefault(("sim red", r), []).append((j, w))
                if a.json:
                    for e in ("ns-3 linux red", "sim red"):
                        print(json.dumps(res[(e, r)][-1][0]), flush=True)

    def share(eng, r):
        return [j["udp_share"] if "udp_share" in j else j["share"]["udp"] for j, _ in res[(eng, r)]]

    def jain(eng, r):
        return [j["jain_tcp"] for j, _ in res[(eng, r)]]

    engines = ["ns-3 choke", "choke sim"] + ["ns-3 " + q for q in qdiscs if q != "choke"]
    label = {"ns-3 choke": "ns-3, ChokeQueueDisc", "choke sim": "`choke sim`, CHOKe",
             "ns-3 red": "ns-3, RedQueueDisc", "ns-3 fq_codel": "ns-3, FqCoDelQueueDisc",
             "ns-3 fifo": "ns-3, FifoQueueDisc"}
    head = " | ".join("%s Mbit/s" % r if i == 0 else r for i, r in enumerate(rates))
    print("UDP share of the link (seeds %s, %g s, the first %g s not measured):\n"
          % (a.seeds, a.duration, warmup))
    print("| | UDP %s | wall time per run |" % head)
    print("|---|" + "---|" * len(rates) + "---|")
    for e in engines:
        walls = [w for r in rates for _, w in res[(e, r)]]
        print("| %s | %s | %.2f s (%.2f–%.2f) |" % (
            label.get(e, e), " | ".join(span(share(e, r)) for r in rates),
            statistics.mean(walls), min(walls), max(walls)))
    if "choke" in qdiscs:
        diffs = [statistics.mean(share("ns-3 choke", r)) - statistics.mean(share("choke sim", r))
                 for r in rates]
        print("| ns-3 − sim, mean over seeds | %s | |" % " | ".join("%+.3f" % d for d in diffs))
    print("\nJain's index over the 32 TCP flows:\n")
    print("| | UDP %s |" % head)
    print("|---|" + "---|" * len(rates))
    for e in engines:
        print("| %s | %s |" % (label.get(e, e), " | ".join(span(jain(e, r), "%.2f") for r in rates)))
    if "choke" in qdiscs:
        print("\nCHOKe's drops in the measured %g s, mean over seeds (ns-3 / sim): "
              "arrivals dropped by matches, RED early and forced drops, tail drops:\n"
              % (a.duration - warmup))
        print("| UDP rate | matched, ns-3 | sim | early, ns-3 | sim | forced, ns-3 | sim | tail, ns-3 | sim |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rates:
            n = [j["libchoke"] for j, _ in res[("ns-3 choke", r)]]
            m = [j["core"] for j, _ in res[("choke sim", r)]]
            print("| %s Mbit/s | %s |" % (r, " | ".join(
                "%.0f" % statistics.mean(x[k] for x in src)
                for k in ("matched", "prob_drop", "forced_drop", "pdrop") for src in (n, m))))

    if not a.no_red:
        print("\nLinux RED (the core's sch_red decisions) in both engines: UDP share of the link; "
              "without UDP, Jain's index and the drops in the measured period (mean over seeds):\n")
        print("| | UDP %s | Jain, no UDP | early | forced | tail |" % head)
        print("|---|" + "---|" * len(rates) + "---|---|---|---|")
        for e, lab, key in (("ns-3 linux red", "ns-3, ChokeQueueDisc `Discipline=Red`", "libchoke"),
                            ("sim red", "`choke sim`, RED", "core")):
            none = [j[key] for j, _ in res[(e, "none")]]
            print("| %s | %s | %s | %.0f | %.0f | %.0f |" % (
                lab, " | ".join(span(share(e, r)) for r in rates), span(jain(e, "none"), "%.2f"),
                statistics.mean(x["prob_drop"] for x in none),
                statistics.mean(x["forced_drop"] for x in none),
                statistics.mean(x["pdrop"] for x in none)))


if __name__ == "__main__":
    main()
