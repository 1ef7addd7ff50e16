#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Evaluate `protect` (docs/variants.md) in the simulator against plain CHOKe,
the other variants, RED and FIFO (docs/results.md, section 8).

Usage: python3 tools/eval-protect.py [--choke build/gcc/choke] [--seeds 5]
                                     [--jobs 2] [--plot docs/img/protect-2c.png]
                                     [--quick] [--part criteria|more|latency|rtt|hosts]
                                     [--words 'LABEL=WORDS;...'] [--set KEY=VALUE ...]
(`make eval-protect` runs it with the defaults and the plot; `make
eval-protect-more` runs --part more.) Prints markdown to stdout. --part
criteria (the default):
  1. K = 1, 2, 4, 8, 16 CBR UDP floods sharing 1c, 2c, 5c, 10c beside 32 TCP
     NewReno flows (scenarios/multi-udp: the CHOKe paper's 1 Mbit/s link,
     limit 300), thresholds 100/200 and 25/50: per cell the aggregate UDP share
     over the max-min fair share K/(32+K), Jain's index over the TCP flows and
     the utilisation, the mean over the seeds, for every discipline;
  2. the same with mixed round-trip times (TCP access delays 10..200 ms);
  3. TCP alone (scenarios/tcp-fairness, and the paper's link without UDP at
     both threshold pairs): Jain's index and utilisation against plain CHOKe;
  4. beyond the criteria: many short transfers beside a flood, many flows;
  5. the issue's done-criteria for protect, each MET or NOT MET, with the
     worst cell over the seeds.
--part more (docs/results.md, section 10), every discipline again:
  1. a light UDP flow at 0.02c beside K = 1, 2, 4, 8 floods at 2c and 5c: its
     loss against the TCP flows' loss, and Jain's index over all flows;
  2. floods that switch on at 50 s and off at 150 s of 200 s: the time until
     the floods' share settles within 0.8-1.2x of fair (seed-averaged shares
     over 5-s windows, which must stay in the band until the floods stop), the
     share once settled, and the link's use in the 10 s after they stop
     (--plot-onoff draws the floods' share over time);
  3. web-like short TCP transfers (Poisson, Pareto sizes of mean 20 kB, about
     a third of the link) beside 32 long TCP flows and 0, 1 or 4 floods: a
     flood's share against a long TCP flow's, the transfers' completion times,
     Jain's index over the long flows and the utilisation.
--part latency, rtt and hosts (docs/results.md, section 13: the
simulator's side of the kernel's tables, tests/kernel/eval-peers.sh) run
FIFO, RED and plain CHOKe (limit 300, thresholds 25/50) beside each
candidate of protect's words from tests/protect-words (or PROTECT_WORDS /
--words 'LABEL=WORDS;...', which replace them), each with a ping: a light
flow of one packet every 200 ms whose round trips through the queue are
reported (light_rtt), median and 99th percentile; each cell the range over
the seeds:
  latency  8 TCP flows and K = 1, 4 floods of 2c in all at 4 Mbit/s
           (section 12's workload): the floods' share over K/(8+K), Jain's
           index over TCP, utilisation, the ping;
  rtt      16 TCP flows with round-trip times spread evenly from 4 to 220 ms
           (tcp_access_delay 1..109 ms, bottleneck delay 1 ms) and one flood
           of 2c, at 10 and 100 Mbit/s: the flood's share over 1/17, Jain's
           index over TCP, utilisation, the mean queueing delay, the ping;
           and the same without the flood (Jain, utilisation);
  hosts    4 hosts at 10 Mbit/s (tcp_hosts 16,1,1,1: one host of 16 TCP
           flows, three of one): each host's share over a quarter, Jain's
           index over the hosts, the ping (protect's `srchost` shares among
           the hosts: the simulator hands the core each flow's host).
The exit status is 0 whether or not the criteria are met (it is an
evaluation, not a test); a failed simulation exits 1.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

DISC = [
    ("fifo", "fifo", ""),
    ("red", "red", ""),
    ("choke", "choke", ""),
    ("draws 8", "choke", "draws 8"),
    ("adaptive", "choke", "adaptive"),
    ("geometric 8", "choke", "geometric 8"),
    ("bytes", "choke", "bytes"),
    ("protect", "choke", "protect"),
]
THRESH = [("100/200", "limit 300 min 100 max 200 burst 300"),
          ("25/50", "limit 300 min 25 max 50")]
KS = (1, 2, 4, 8, 16)
RATES = ("1c", "2c", "5c", "10c")
MIXED = "tcp_access_delay=10ms..200ms"


def queue_words(base, extra, disc):
    if disc == "fifo":
        return "limit 300"
    if extra == "bytes":
        # the same thresholds in bytes (1000-byte packets); burst in packets
        w = base.split()
        out = [str(int(x) * 1000) if i and w[i - 1] in ("limit", "min", "max") else x
               for i, x in enumerate(w)]
        return " ".join(out) + " bytes"
    return (base + " " + extra).strip()


def sim(job):
    choke, scenario, sets, seed = job
    cmd = [choke, "sim", scenario, "--json", "--seed", str(seed)]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    j = json.loads(r.stdout)
    out = {"udp": j["share"]["udp"], "jain": j["jain_tcp"] or 0.0,
           "util": j["utilization"]}
    if "hosts" in j:
        out["hosts"] = j["hosts"]
        out["jain_hosts"] = j["jain_hosts"]
    if "groups" in j and "rtt_ms" in j["groups"]["light"]:
        out["rtt"] = j["groups"]["light"]["rtt_ms"]
        out["qdelay"] = j["queue"]["delay_ms"]["tcp"]
        out["flows"] = [(f["group"], f["link_share"]) for f in j["flows"]]
        out["groups"] = j["groups"]
        return out
    if "groups" in j:
        # the runs of --part more: by group, the transfers, the series
        out["groups"] = j["groups"]
        out["jain_all"] = j["jain_all"] or 0.0
        out["web"] = j.get("web")
        out["series"] = j.get("series")
        out["flows"] = [(f["group"], f["link_share"]) for f in j["flows"]]
    return out


class Runner:
    def __init__(self, choke, seeds, jobs, extra=()):
        self.choke, self.seeds, self.extra = choke, seeds, list(extra)
        # the work is in the simulator processes: threads suffice
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.pending = {}

    def submit(self, key, scenario, sets):
        self.pending[key] = [self.pool.submit(sim, (self.choke, scenario, sets + self.extra, s))
                             for s in self.seeds]

    def results(self):
        out = {}
        for key, futs in self.pending.items():
            try:
                out[key] = [f.result() for f in futs]
            except RuntimeError as e:
                sys.exit(str(e))
        self.pending = {}
        return out


def mean(xs):
    return sum(xs) / len(xs)


def flood_grid(run, label, extra_sets, ks, rates):
    for tname, tw in THRESH:
        for dl, disc, extra in DISC:
            for rate in rates:
                for k in ks:
                    run.submit((label, tname, dl, rate, k), "scenarios/multi-udp",
                               extra_sets + ["qdisc=" + disc,
                                             "queue=" + queue_words(tw, extra, disc),
                                             "udp_flows=%d" % k, "udp_rate=" + rate])


def print_grid(res, label, ks, rates, title):
    print(title + "\n")
    print("Each cell: aggregate UDP share of the link / the max-min fair share "
          "K/(32+K), then Jain's index over the 32 TCP flows; utilisation is shown "
          "where it is below 0.99. Mean of %d seeds.\n" % len(next(iter(res.values()))))
    for tname, _ in THRESH:
        print("### thresholds %s (limit 300)\n" % tname)
        cols = [(r, k) for r in rates for k in ks]
        print("| discipline |" + "".join(" %d at %s |" % (k, r) for r, k in cols))
        print("|---|" + "---|" * len(cols))
        for dl, _, _ in DISC:
            cells = []
            for r, k in cols:
                runs = res[(label, tname, dl, r, k)]
                fair = k / (32 + k)
                x = mean([j["udp"] for j in runs]) / fair
                jn = mean([j["jain"] for j in runs])
                ut = mean([j["util"] for j in runs])
                cell = "%.2f / %.2f" % (x, jn)
                if ut < 0.99:
                    cell += " (u %.2f)" % ut
                cells.append("**%s**" % cell if dl == "protect" else cell)
            print("| %s | %s |" % (dl, " | ".join(cells)))
        print()


MORE_DISC = [d for d in DISC if d[0] != "bytes"]  # every packet has 1000 bytes
ON, OFF, LONG = 50, 150, 200  # the on/off floods: on at 50 s, off at 150 s of 200 s
SETTLE_W = 5                  # seconds per window of the settling measure


def more_submit(run, ks_light, rates_light, ks_onoff, ks_web):
    for tname, tw in THRESH:
        for dl, disc, extra in MORE_DISC:
            q = ["qdisc=" + disc, "queue=" + queue_words(tw, extra, disc)]
            for rate in rates_light:
                for k in ks_light:
                    run.submit(("light", tname, dl, rate, k), "scenarios/multi-udp",
                               q + ["udp_flows=%d" % k, "udp_rate=" + rate, "light_flows=1",
                                    "light_rate=0.02c"])
            for k in ks_onoff:
                run.submit(("onoff", tname, dl, k), "scenarios/multi-udp",
                           q + ["udp_flows=%d" % k, "udp_rate=2c", "duration=%ds" % LONG,
                                "udp_schedule=%ds..%ds" % (ON, OFF), "series_interval=1s"])
            for k in ks_web:
                run.submit(("web", tname, dl, k), "scenarios/multi-udp",
                           q + ["udp_flows=%d" % k, "udp_rate=2c", "web_rate=2",
                                "web_size=20k", "web_size_dist=pareto"])


def settle(runs, k):
    """Seed-averaged floods' share per second, over the fair share."""
    fair = k / (32 + k)
    n = len(runs[0]["series"]["link_pkts"]["flood"])
    fl = [0.0] * n
    tot = [0.0] * n
    for j in runs:
        lp = j["series"]["link_pkts"]
        for i in range(n):
            fl[i] += lp["flood"][i]
            tot[i] += sum(lp[g][i] for g in lp)
    ratio = [fl[i] / tot[i] / fair if tot[i] else 0 for i in range(n)]
    win = [sum(fl[t:t + SETTLE_W]) / max(1, sum(tot[t:t + SETTLE_W])) / fair
           for t in range(ON, OFF - SETTLE_W + 1)]
    conv = None
    for i in range(len(win)):
        if all(0.8 <= x <= 1.2 for x in win[i:]):
            conv = i
            break
    steady = sum(fl[ON + 50:OFF]) / max(1, sum(tot[ON + 50:OFF])) / fair
    # the link's use in the 10 s after the floods stop: packets sent over
    # what 1 Mbit/s carries (125 per second), seed-averaged
    after = sum(tot[OFF:OFF + 10]) / len(runs) / (125.0 * 10)
    return conv, steady, after, ratio


def more_report(res, seeds, ks_light, rates_light, ks_onoff, ks_web, plot):
    print("## 10.1. A light UDP flow (0.02c) beside the floods\n")
    print("32 TCP flows, K floods sharing the rate given, and one light CBR flow at "
          "0.02c (below its fair share, which is at least 1/49 of the link). Each cell: "
          "the light flow's loss / the TCP flows' loss (the fraction of their packets "
          "reaching the queue that it dropped), then Jain's index over all flows (TCP, "
          "floods and the light one); the floods' share over their max-min share "
          "0.98 K/(32+K) is in the last row of each table for protect. "
          "Mean of %d seeds.\n" % len(seeds))
    crit = {"cells": 0, "met": 0, "worst": None}
    for tname, _ in THRESH:
        print("### thresholds %s (limit 300)\n" % tname)
        cols = [(r, k) for r in rates_light for k in ks_light]
        print("| discipline |" + "".join(" %d at %s |" % (k, r) for r, k in cols))
        print("|---|" + "---|" * len(cols))
        for dl, _, _ in MORE_DISC:
            cells = []
            for r, k in cols:
                runs = res[("light", tname, dl, r, k)]
                ll = mean([j["groups"]["light"]["loss"] or 0 for j in runs])
                tl = mean([j["groups"]["tcp"]["loss"] or 0 for j in runs])
                ja = mean([j["jain_all"] for j in runs])
                cell = "%.3f / %.3f, %.2f" % (ll, tl, ja)
                if dl == "protect":
                    crit["cells"] += 1
                    crit["met"] += ll <= tl
                    d = ll - tl
                    if crit["worst"] is None or d > crit["worst"][0]:
                        crit["worst"] = (d, "%d at %s, %s: %.3f / %.3f" % (k, r, tname, ll, tl))
                    cell = "**%s**" % cell
                cells.append(cell)
            print("| %s | %s |" % (dl, " | ".join(cells)))
        cells = []
        for r, k in cols:
            runs = res[("light", tname, "protect", r, k)]
            fair = 0.98 * k / (32 + k)
            cells.append("%.2f" % (mean([j["groups"]["flood"]["link_share"] for j in runs]) / fair))
        print("| protect: floods' share / fair | %s |" % " | ".join(cells))
        print()
    print("protect: the light flow loses no larger a fraction than the TCP flows in "
          "%d of %d cells (%s); the closest: %s.\n" % (
              crit["met"], crit["cells"], "MET" if crit["met"] == crit["cells"] else "NOT MET",
              crit["worst"][1]))

    print("## 10.2. Floods that come and go\n")
    print("32 TCP flows; K floods at 2c in all switch on at %d s and off at %d s of a "
          "%d s run (scenarios/multi-udp, udp_schedule). Each cell: the time until the "
          "floods' share settles within 0.8-1.2x of their fair share K/(32+K) (the share, "
          "averaged over the seeds, in %d-s windows that all stay in the band until the "
          "floods stop; `never` if it does not), the floods' share over fair in the last "
          "50 s of the on period, and the link's use in the 10 s after the floods stop. "
          "Mean of %d seeds.\n" % (ON, OFF, LONG, SETTLE_W, len(seeds)))
    traces = {}
    for tname, _ in THRESH:
        print("### thresholds %s (limit 300)\n" % tname)
        print("| discipline |" + "".join(" %d flood%s |" % (k, "s" if k > 1 else "")
                                        for k in ks_onoff))
        print("|---|" + "---|" * len(ks_onoff))
        for dl, _, _ in MORE_DISC:
            cells = []
            for k in ks_onoff:
                conv, steady, after, ratio = settle(res[("onoff", tname, dl, k)], k)
                traces[(tname, dl, k)] = ratio
                cell = "%s / %.2f / %.2f" % ("never" if conv is None else "%d s" % conv,
                                             steady, after)
                cells.append("**%s**" % cell if dl == "protect" else cell)
            print("| %s | %s |" % (dl, " | ".join(cells)))
        print()

    print("## 10.3. Short transfers beside long flows\n")
    print("32 long TCP flows, short TCP transfers arriving at 2 per second (Poisson) "
          "with Pareto sizes (shape 1.2, mean 20 kB: about 0.32 of the link offered), and "
          "0, 1 or 4 floods at 2c in all. Each cell: a flood's share of the link over a "
          "long TCP flow's (1.00: the flood gets what a long flow gets), the transfers' "
          "median / 95th-percentile completion time in seconds (of those that started in "
          "the measured period and completed; the share completed is shown where it is "
          "below 95%%), then Jain's index over the long flows; "
          "utilisation was at least 0.99 except where shown. Mean of %d seeds.\n" % len(seeds))
    for tname, _ in THRESH:
        print("### thresholds %s (limit 300)\n" % tname)
        print("| discipline |" + "".join(" %d flood%s |" % (k, "" if k == 1 else "s")
                                        for k in ks_web))
        print("|---|" + "---|" * len(ks_web))
        for dl, _, _ in MORE_DISC:
            cells = []
            for k in ks_web:
                runs = res[("web", tname, dl, k)]
                med = mean([(j["web"]["fct_s"] or {"median": 0})["median"] for j in runs])
                p95 = mean([(j["web"]["fct_s"] or {"p95": 0})["p95"] for j in runs])
                jt = mean([j["jain"] for j in runs])
                ut = mean([j["util"] for j in runs])
                done = mean([j["web"]["completed"] / max(1, j["web"]["measured"]) for j in runs])
                cell = "%.2f / %.2f s, %.2f" % (med, p95, jt)
                if done < 0.95:
                    cell = "%.2f / %.2f s (%.0f%% done), %.2f" % (med, p95, 100 * done, jt)
                if k:
                    ratios = []
                    for j in runs:
                        tcp = [x for g, x in j["flows"] if g == "tcp"]
                        fl = [x for g, x in j["flows"] if g == "flood"]
                        ratios.append(mean(fl) / mean(tcp) if mean(tcp) else 0)
                    cell = "%.3g; %s" % (mean(ratios), cell)
                if ut < 0.99:
                    cell += " (u %.2f)" % ut
                cells.append("**%s**" % cell if dl == "protect" else cell)
            print("| %s | %s |" % (dl, " | ".join(cells)))
        print()

    if plot:
        fd, data = tempfile.mkstemp(suffix=".dat")
        names = []
        with os.fdopen(fd, "w") as f:
            for tname, _ in THRESH:
                for dl in ("choke", "adaptive", "draws 8", "protect"):
                    r = traces[(tname, dl, 4)]
                    f.write("# %s %s\n" % (tname, dl))
                    for i, x in enumerate(r):
                        f.write("%d %.4f\n" % (i + 1, x))
                    f.write("\n\n")
                    names.append("%s, %s" % (dl, tname))
        plots = ", ".join("'%s' index %d with lines title '%s'" % (data, i, n)
                          for i, n in enumerate(names))
        gp = ("set terminal png size 900,560; set output '%s'; set xlabel 'seconds'; "
              "set ylabel 'floods share / fair share (per second)'; set yrange [0:10]; "
              "set xrange [30:180]; "
              "set key outside right; set grid; "
              "set arrow from 0,1 to %d,1 nohead dt 2; "
              "set title '32 TCP + 4 floods at 2c on from %d to %d s, mean of %d seeds'; "
              "plot %s\n") % (plot, LONG, ON, OFF, len(seeds), plots)
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
        os.unlink(data)
        print("plot: %s" % plot)


# --- section 13: beside the kernel's tables ------------------------------------

PEERS = [("fifo", "fifo", "limit 300"), ("red", "red", "limit 300 min 25 max 50"),
         ("choke", "choke", "limit 300 min 25 max 50")]


def candidates(spec):
    """protect's candidate words: tests/protect-words, or spec / PROTECT_WORDS
    ('LABEL=WORDS;...'), read by tests/protect-words.sh."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["sh", os.path.join(here, "..", "tests", "protect-words.sh"), spec],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stderr.strip() or "protect-words failed")
    rows = [line.split("|", 1) for line in r.stdout.splitlines() if line]
    for lab, _ in rows:
        if lab in [p[0] for p in PEERS]:
            sys.exit("eval-protect: the candidate's label %s is a peer's" % lab)
    return [(lab, "choke", w) for lab, w in rows]


def rng(xs, fmt):
    lo, hi = min(xs), max(xs)
    return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)


def ping_cell(runs):
    """median / p99 of the pings answered, and the share lost when 0.5% or more"""
    got = [j for j in runs if j["rtt"]["n"]]
    loss = [j["groups"]["light"]["loss"] or 0 for j in runs]
    if not got:
        return "all lost"
    cell = "%s / %s" % (rng([j["rtt"]["median"] for j in got], "%.1f"),
                        rng([j["rtt"]["p99"] for j in got], "%.0f"))
    if max(loss) >= 0.005:
        cell += " (lost %s)" % rng([100 * x for x in loss], "%.1f%%")
    return cell


# a ping: one light flow, one packet of pkt_size (1000 bytes) every 200 ms
PING = ["light_flows=1", "light_rate=40kbit", "light_kind=cbr", "light_rtt=1"]
RTT_BASE = ["tcp_flows=16", "bottleneck_delay=1ms", "tcp_access_delay=1ms..109ms",
            "tcp_access_rate=10c", "udp_access_rate=10c"]


def k19_submit(run, part, discs, quick):
    for dl, disc, words in discs:
        q = ["qdisc=" + disc, "queue=" + words]
        if part == "latency":
            for k in (1, 4):
                run.submit(("latency", dl, k), "scenarios/multi-udp",
                           q + PING + ["bottleneck_rate=4mbit", "tcp_flows=8",
                                       "udp_flows=%d" % k, "udp_rate=2c",
                                       "tcp_access_rate=10c", "udp_access_rate=10c"])
        elif part == "rtt":
            for rate in ("10mbit",) if quick else ("10mbit", "100mbit"):
                for k in (1, 0):
                    run.submit(("rtt", dl, rate, k), "scenarios/multi-udp",
                               q + PING + RTT_BASE + ["bottleneck_rate=" + rate,
                                                      "udp_flows=%d" % k, "udp_rate=2c"])
        else:
            run.submit(("hosts", dl), "scenarios/multi-udp",
                       q + PING + ["bottleneck_rate=10mbit", "tcp_flows=19",
                                   "tcp_hosts=16,1,1,1", "udp_flows=0",
                                   "tcp_access_rate=10c"])


def k19_report(res, part, discs, seeds, quick):
    names = {d[0]: d[0] for d in PEERS}
    for dl, _, w in discs:
        names.setdefault(dl, "`%s` (`%s`)" % (dl, w))
    n = len(seeds)
    if part == "latency":
        print("### The simulator: 8 TCP flows and K floods at 4 Mbit/s, with a ping\n")
        print("| discipline | 1 flood: share / fair (0.111) | Jain over TCP | utilisation "
              "| ping p50 / p99 (ms) | 4 floods: share / fair (0.333) | Jain over TCP "
              "| utilisation | ping p50 / p99 (ms) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for dl, _, _ in discs:
            cells = []
            for k in (1, 4):
                runs = res[("latency", dl, k)]
                fair = 0.99 * k / (8 + k)  # the ping takes 1% of 4 Mbit/s
                cells += [rng([j["groups"]["flood"]["link_share"] / fair for j in runs], "%.2f"),
                          rng([j["jain"] for j in runs], "%.3f"),
                          rng([j["util"] for j in runs], "%.3f"), ping_cell(runs)]
            print("| %s | %s |" % (names[dl], " | ".join(cells)))
        print("\n`scenarios/multi-udp` at 4 Mbit/s: 8 TCP NewReno flows (RTT about 4.5 ms), "
              "K CBR floods of 8 Mbit/s in all, and a ping (one 1000-byte packet every "
              "200 ms: light_flows=1, light_rate=40kbit, light_rtt=1); 100 s of which 80 "
              "measured; seeds 1 to %d, each cell the range over them. Share: the floods' "
              "bytes through the bottleneck over 0.99 K/(8+K) (the ping takes 1%% of the "
              "link).\n" % n)
    elif part == "rtt":
        rates = ("10mbit",) if quick else ("10mbit", "100mbit")
        head = "| discipline |"
        for rate in rates:
            head += (" %s: flood's share / fair (1/17) | Jain over TCP | utilisation | mean "
                     "queueing delay (ms) | ping p50 / p99 (ms) | no flood: Jain, utilisation |"
                     % rate.replace("mbit", " Mbit/s"))
        print("### The simulator: 16 TCP flows with RTTs from 4 to 220 ms and a flood\n")
        print(head)
        print("|---|" + "---|---|---|---|---|---|" * len(rates))
        for dl, _, _ in discs:
            cells = []
            for rate in rates:
                runs = res[("rtt", dl, rate, 1)]
                alone = res[("rtt", dl, rate, 0)]
                fair = 0.996 / 17 if rate == "10mbit" else 0.9996 / 17
                cells += [rng([j["groups"]["flood"]["link_share"] / fair for j in runs], "%.2f"),
                          rng([j["jain"] for j in runs], "%.3f"),
                          rng([j["util"] for j in runs], "%.3f"),
                          rng([j["qdelay"] for j in runs], "%.1f"), ping_cell(runs),
                          "%s, %s" % (rng([j["jain"] for j in alone], "%.3f"),
                                      rng([j["util"] for j in alone], "%.3f"))]
            print("| %s | %s |" % (names[dl], " | ".join(cells)))
        print("\n`scenarios/multi-udp` with 16 TCP NewReno flows whose access delays are "
              "spread evenly from 1 to 109 ms each way (round trips 4 to 220 ms with the "
              "bottleneck's 1 ms), one CBR flood at twice the link, and a ping (one "
              "1000-byte packet every 200 ms); 100 s of which 80 measured; seeds 1 to %d, "
              "each cell the range over them. The flood's share: its bytes through the "
              "bottleneck over its max-min share, 1/17 of what the ping leaves.\n" % n)
    else:
        print("### The simulator: 4 hosts, one of 16 TCP flows and three of one\n")
        print("| discipline | host of 16 flows: share / a quarter | hosts of 1 flow: share "
              "/ a quarter | Jain over the hosts | utilisation | ping p50 / p99 (ms) |")
        print("|---|---|---|---|---|---|")
        for dl, _, _ in discs:
            runs = res[("hosts", dl)]
            big = [j["hosts"][0]["tcp_over_even"] for j in runs]
            small = [h["tcp_over_even"] for j in runs for h in j["hosts"][1:]]
            print("| %s | %s | %s | %s | %s | %s |" % (
                names[dl], rng(big, "%.2f"), rng(small, "%.2f"),
                rng([j["jain_hosts"] for j in runs], "%.3f"),
                rng([j["util"] for j in runs], "%.3f"), ping_cell(runs)))
        print("\n`scenarios/multi-udp` at 10 Mbit/s: 19 TCP NewReno flows on 4 hosts "
              "(tcp_hosts=16,1,1,1), no flood, and a ping; 100 s of which 80 measured; "
              "seeds 1 to %d, each cell the range over them. A host's share: its flows' "
              "bytes through the bottleneck over a quarter of all the TCP flows' bytes.\n" % n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--choke", default="build/gcc/choke")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--plot", default="")
    ap.add_argument("--quick", action="store_true",
                    help="K = 1, 4, 8 at 2c only, 2 seeds (a smoke run)")
    ap.add_argument("--part", choices=("criteria", "more", "latency", "rtt", "hosts"),
                    default="criteria")
    ap.add_argument("--words", default=os.environ.get("PROTECT_WORDS", ""),
                    help="--part latency, rtt, hosts: protect's candidates "
                         "'LABEL=WORDS;...' (default: tests/protect-words)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a scenario setting added to every run, after the part's own "
                         "(e.g. tcp_timestamps=1); repeatable")
    ap.add_argument("--plot-onoff", default="",
                    help="--part more: the floods' share over time (PNG)")
    a = ap.parse_args()
    seeds = list(range(1, (2 if a.quick else a.seeds) + 1))
    ks = (1, 4, 8) if a.quick else KS
    rates = ("2c",) if a.quick else RATES
    for kv in a.set:
        if "=" not in kv:
            ap.error("--set takes KEY=VALUE, not %r" % kv)
    run = Runner(a.choke, seeds, a.jobs, a.set)
    if a.part in ("latency", "rtt", "hosts"):
        discs = PEERS + candidates(a.words)
        k19_submit(run, a.part, discs, a.quick)
        res = run.results()
        run.pool.shutdown()
        k19_report(res, a.part, discs, seeds, a.quick)
        if a.set:
            print("Every run with %s.\n" % ", ".join("`%s`" % kv for kv in a.set))
        return
    if a.part == "more":
        args = (((1, 8) if a.quick else (1, 2, 4, 8)), (("2c",) if a.quick else ("2c", "5c")),
                ((4,) if a.quick else (1, 4, 8)), ((0, 4) if a.quick else (0, 1, 4)))
        more_submit(run, *args)
        res = run.results()
        run.pool.shutdown()
        more_report(res, seeds, *args, a.plot_onoff)
        return

    flood_grid(run, "flat", [], ks, rates)
    flood_grid(run, "mixed", [MIXED], (1, 4, 8) if a.quick else (1, 2, 4, 8, 16),
               ("2c",) if a.quick else ("2c", "5c"))
    for dl, disc, extra in DISC:
        if disc != "choke":
            continue
        run.submit(("tcp", "fairness", dl), "scenarios/tcp-fairness",
                   ["queue=" + queue_words("limit 1000 min 100 max 300", extra, disc)])
        for tname, tw in THRESH:
            run.submit(("tcp", tname, dl), "scenarios/paper-single-link",
                       ["udp_flows=0", "queue=" + queue_words(tw, extra, disc)])
    # beyond the criteria: 400 short transfers (20 packets each, starting
    # over the 100 s) beside one flood at 2c, and 256 TCP + 4 floods at 8 Mbit/s
    for dl, disc, extra in DISC:
        run.submit(("mice", dl), "scenarios/multi-udp",
                   ["tcp_flows=400", "tcp_bytes=20000", "tcp_start=0..100s",
                    "udp_flows=1", "qdisc=" + disc,
                    "queue=" + queue_words("limit 300 min 100 max 200 burst 300", extra, disc)])
        run.submit(("many", dl), "scenarios/multi-udp",
                   ["tcp_flows=256", "udp_flows=4", "bottleneck_rate=8mbit",
                    "tcp_access_rate=80mbit", "qdisc=" + disc,
                    "queue=" + queue_words("limit 2400 min 800 max 1600", extra, disc)])
    res = run.results()
    run.pool.shutdown()

    print_grid(res, "flat", ks, rates,
               "## 1. K UDP floods beside 32 TCP flows, equal round-trip times")
    mixed_ks = (1, 4, 8) if a.quick else (1, 2, 4, 8, 16)
    mixed_rates = ("2c",) if a.quick else ("2c", "5c")
    print_grid(res, "mixed", mixed_ks, mixed_rates,
               "## 2. The same with mixed round-trip times (TCP access delays "
               "spread from 10 to 200 ms each way)")

    print("## 3. TCP alone\n")
    print("| discipline | 32 flows, 100 Mbit/s: Jain | utilisation | paper link, "
          "100/200: Jain | utilisation | paper link, 25/50: Jain | utilisation |")
    print("|---|---|---|---|---|---|---|")
    tcp = {}
    for dl, disc, _ in DISC:
        if disc != "choke":
            continue
        row = []
        for key in ("fairness", "100/200", "25/50"):
            runs = res[("tcp", key, dl)]
            row += [mean([j["jain"] for j in runs]), mean([j["util"] for j in runs])]
        tcp[dl] = row
        print("| %s | %s |" % (dl, " | ".join("%.4f" % x for x in row)))
    print()

    print("## 4. Beyond the criteria\n")
    print("| discipline | 400 short transfers + 1 flood at 2c: flood's share "
          "(max-min about 0.36) | utilisation | 256 TCP + 4 floods at 2c, 8 Mbit/s: "
          "UDP share / fair | Jain over TCP |")
    print("|---|---|---|---|---|")
    for dl, _, _ in DISC:
        m, n = res[("mice", dl)], res[("many", dl)]
        print("| %s | %.3f | %.3f | %.2f | %.3f |" % (
            dl, mean([j["udp"] for j in m]), mean([j["util"] for j in m]),
            mean([j["udp"] for j in n]) / (4 / 260), mean([j["jain"] for j in n])))
    print()

    print("## 5. The done-criteria for protect\n")
    crit_ks = [k for k in (1, 2, 4, 8) if k in ks]
    crit_rates = [r for r in ("2c", "5c") if r in rates]
    worst = {"share": (1.0, "-"), "jain": (2.0, "-"), "util": (2.0, "-")}
    band_in, goal_in, cells = 0, 0, 0
    for tname, _ in THRESH:
        for r in crit_rates:
            for k in crit_ks:
                runs = res[("flat", tname, "protect", r, k)]
                fair = k / (32 + k)
                x = mean([j["udp"] for j in runs]) / fair
                cells += 1
                band_in += 0.5 <= x <= 1.5
                goal_in += 0.8 <= x <= 1.2
                where = "%d at %s, %s" % (k, r, tname)
                if abs(x - 1) > abs(worst["share"][0] - 1):
                    worst["share"] = (x, where)
                jn = mean([j["jain"] for j in runs])
                ut = mean([j["util"] for j in runs])
                if jn < worst["jain"][0]:
                    worst["jain"] = (jn, where)
                if ut < worst["util"][0]:
                    worst["util"] = (ut, where)
    print("| criterion | result | worst cell |")
    print("|---|---|---|")
    print("| UDP share within [0.5, 1.5] x fair (K = %s at %s, both pairs) | %s (%d of %d) "
          "| %.2f x (%s) |" % (",".join(map(str, crit_ks)), ",".join(crit_rates),
                               "MET" if band_in == cells else "NOT MET", band_in, cells,
                               worst["share"][0], worst["share"][1]))
    print("| goal: within [0.8, 1.2] x fair | %s (%d of %d) | |" % (
        "MET" if goal_in == cells else "NOT MET", goal_in, cells))
    print("| Jain over TCP >= 0.95 | %s | %.3f (%s) |" % (
        "MET" if worst["jain"][0] >= 0.95 else "NOT MET", worst["jain"][0], worst["jain"][1]))
    print("| utilisation >= 0.97 | %s | %.3f (%s) |" % (
        "MET" if worst["util"][0] >= 0.97 else "NOT MET", worst["util"][0], worst["util"][1]))
    d = [p - c for p, c in zip(tcp["protect"], tcp["choke"])]
    print("| TCP alone: Jain and utilisation within 0.02 of plain CHOKe | %s | %s |" % (
        "MET" if all(x >= -0.02 for x in d) else "NOT MET",
        " ".join("%+.3f" % x for x in d)))
    print()

    if a.plot:
        fd, data = tempfile.mkstemp(suffix=".dat")
        with os.fdopen(fd, "w") as f:
            for tname, _ in THRESH:
                for dl, _, _ in DISC:
                    f.write("# %s %s\n" % (tname, dl))
                    for k in ks:
                        runs = res[("flat", tname, dl, "2c", k)]
                        f.write("%d %.5f\n" % (k, mean([j["udp"] for j in runs]) / (k / (32 + k))))
                    f.write("\n\n")
        plots = []
        i = 0
        for tname, _ in THRESH:
            for dl, _, _ in DISC:
                if dl in ("choke", "adaptive", "draws 8", "protect") or tname == "25/50" and dl == "red":
                    plots.append("'%s' index %d with linespoints title '%s, %s'" % (data, i, dl, tname))
                i += 1
        gp = ("set terminal png size 900,560; set output '%s'; set logscale x 2; "
              "set logscale y; set xlabel 'UDP floods sharing 2c'; "
              "set ylabel 'aggregate UDP share / fair share K/(32+K)'; "
              "set yrange [0.01:40]; set key outside right; set grid; "
              "set arrow from 1,1 to 16,1 nohead dt 2; "
              "set title '32 TCP + K UDP floods, 1 Mbit/s, limit 300, mean of %d seeds'; "
              "plot %s\n") % (a.plot, len(seeds), ", ".join(plots))
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
        os.unlink(data)
        print("plot: %s" % a.plot)


if __name__ == "__main__":
    main()
