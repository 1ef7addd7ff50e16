#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""The tables of tests/kernel/eval-peers.sh from its runs.jsonl (one line
per run, tests/kernel/peers-summary.py): markdown on stdout, each cell the
range over the runs.

    python3 tests/kernel/peers-table.py RUNS.jsonl --disciplines FILE
            [--rate 4mbit] [--udp-len 1000] [--seconds 20] [--warmup 3]
"""
import argparse
import json
import sys

NAMES = {"fq_codel": "fq_codel", "sfb": "sfb", "cake": "cake (unlimited, under tbf)",
         "pie": "pie", "red": "red", "choke": "choke (mainline sch_choke)",
         "libchoke": "choke (sch_libchoke)", "cake-srchost": "cake dual-srchost"}


def rng(xs, fmt):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    lo, hi = min(xs), max(xs)
    return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)


def ping_cell(runs):
    p50 = rng([r["ping"]["p50"] for r in runs], "%.1f")
    p99 = rng([r["ping"]["p99"] for r in runs], "%.0f")
    loss = [r["ping"]["loss"] or 0 for r in runs]
    cell = "%s / %s" % (p50, p99)
    if max(loss) >= 0.005:
        cell += " (lost %s)" % rng([100 * x for x in loss], "%.1f%%")
    return cell


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs")
    ap.add_argument("--disciplines", required=True)
    ap.add_argument("--rate", default="4mbit")
    ap.add_argument("--udp-len", default="1000")
    ap.add_argument("--seconds", default="20")
    ap.add_argument("--warmup", default="3")
    a = ap.parse_args()
    order, words = [], {}
    for line in open(a.disciplines):
        w = line.rstrip("\n").split("|")
        if len(w) == 3 and w[0]:
            order.append(w[0])
            words[w[0]] = w[2]
    names = dict(NAMES)
    plus = [lab for lab in order if lab not in NAMES]
    for lab in plus:
        names[lab] = "chokeplus %s" % lab
    runs, fails = {}, []
    wl = None
    srcs = set()
    for line in open(a.runs):
        line = line.strip()
        if not line:
            continue
        try:
            r = json.loads(line)
        except ValueError:
            fails.append(line[:200])
            continue
        if "failed" in r:
            fails.append("%s %s %s: %s" % (r.get("label"), r.get("k", "-"), r.get("r", "-"),
                                           r["failed"]))
            continue
        wl = r["workload"]
        srcs.add(r.get("flood_src", "iperf3"))
        runs.setdefault((r["label"], r["k"]), []).append(r)
    ks = sorted({k for _, k in runs})
    labels = [lab for lab in order if any((lab, k) in runs for k in ks)]
    reps = max((len(v) for v in runs.values()), default=0)

    if wl in ("floods", "rtt"):
        ntcp = 8 if wl == "floods" else 16
        head = "| discipline |"
        for k in ks:
            fl = "%d flood%s" % (k, "s" if k > 1 else "")
            head += (" %s: share / fair (%.3f) | Jain over TCP | utilisation "
                     "| ping p50 / p99 (ms) |" % (fl, k / (ntcp + k)))
        print(head)
        print("|---|" + "---|---|---|---|" * len(ks))
        for lab in labels:
            cells = []
            for k in ks:
                rs = runs.get((lab, k))
                if not rs:
                    cells += ["-"] * 4
                    continue
                cells += [rng([r["share"] / r["fair"] for r in rs], "%.2f"),
                          rng([r["jain"] for r in rs], "%.2f"),
                          rng([r["util"] for r in rs], "%.2f"), ping_cell(rs)]
            print("| %s | %s |" % (names[lab], " | ".join(cells)))
    elif wl == "hosts":
        print("| discipline | host of 16 connections: share / a quarter | hosts of 1 "
              "connection: share / a quarter | Jain over the hosts | utilisation "
              "| ping p50 / p99 (ms) |")
        print("|---|---|---|---|---|---|")
        for lab in labels:
            rs = runs[(lab, 0)]
            big = [max(r["hosts"].items(), key=lambda h: r["conns"][h[0]])[1] for r in rs]
            small = [v for r in rs for h, v in r["hosts"].items() if r["conns"][h] == 1]
            print("| %s | %s | %s | %s | %s | %s |" % (
                names[lab], rng(big, "%.2f"), rng(small, "%.2f"),
                rng([r["jain_hosts"] for r in rs], "%.2f"),
                rng([r["util"] for r in rs], "%.2f"), ping_cell(rs)))
    print()
    what = {"floods": "8 TCP streams (iperf3 -P 8) and K UDP floods of twice the link",
            "rtt": "16 TCP flows with round-trip times from 4 to 220 ms (netem on the ACK "
                   "path) and K UDP floods of twice the link",
            "hosts": "4 hosts: one with 16 TCP connections, three with 1 each"}.get(wl, wl)
    print("%s at %s under tbf; a window of %s s by the guest kernel's clock, %s s after "
          "TCP started; %d run%s per cell (the range over them). The floods send %s-byte "
          "datagrams, TCP 1448-byte segments. Share: payload bytes received in the window "
          "(the receiver's sockets and UDP counters); Jain over the TCP connections' bytes; "
          "utilisation: what tbf sent in the window over the rate (frames with their "
          "Ethernet headers); ping: round trips of a ping every 200 ms inside the window "
          "(median / 99th percentile)." % (
              what, a.rate, a.seconds, a.warmup, reps, "" if reps == 1 else "s", a.udp_len))
    if wl in ("floods", "rtt"):
        src = {"iperf3": "iperf3 (one datagram per system call, paced every ms)",
               "batch": "tests/kernel/udpflood.c (one sendmmsg per ms of each flood's rate)"}
        print("The floods' source: %s." % " and ".join(src[x] for x in sorted(srcs)))
    for lab in plus:
        print("`%s`: `%s`" % (names[lab], words[lab].replace("@RATE@", a.rate)))
    print()
    # the same runs measured as section 12 did before issue 19 (the
    # reconciliation of results.md section 13)
    if wl in ("floods", "rtt"):
        print("| discipline | floods | share / fair: window, iperf3 totals | Jain: window, "
              "iperf3's intervals in the window, iperf3 totals | utilisation: window, "
              "receiver's count, TCP's start-up | floods offered / asked | wall clock / kernel clock |")
        print("|---|---|---|---|---|---|---|")
        for lab in labels:
            for k in ks:
                rs = runs.get((lab, k))
                if not rs:
                    continue
                print("| %s | %d | %s, %s | %s, %s, %s | %s, %s, %s | %s | %s |" % (
                    names[lab], k, rng([r["share"] / r["fair"] for r in rs], "%.2f"),
                    rng([r["iperf3"]["share"] / r["fair"] if "share" in r["iperf3"] else None
                         for r in rs], "%.2f"),
                    rng([r["jain"] for r in rs], "%.3f"),
                    rng([r["iperf3"].get("jain_intervals") for r in rs], "%.3f"),
                    rng([r["iperf3"]["jain"] for r in rs], "%.3f"),
                    rng([r["util"] for r in rs], "%.3f"),
                    rng([r["util_rx"] for r in rs], "%.3f"),
                    rng([r.get("util_start") for r in rs], "%.3f"),
                    rng([r.get("offered") for r in rs], "%.2f"),
                    rng([r["drift"] for r in rs], "%.3f")))
        print()
    for f in fails:
        print("failed run: %s" % f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
