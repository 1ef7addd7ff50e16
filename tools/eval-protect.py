#!/usr/bin/env python3
"""Evaluate `protect` (docs/variants.md) in the simulator against plain CHOKe,
the other variants, RED and FIFO (docs/results.md, section 8).

Usage: python3 tools/eval-protect.py [--choke build/gcc/choke] [--seeds 5]
                                     [--jobs 2] [--plot docs/img/protect-2c.png]
                                     [--quick]
(`make eval-protect` runs it with the defaults and the plot.) Prints markdown
to stdout:
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
    return {"udp": j["share"]["udp"], "jain": j["jain_tcp"] or 0.0,
            "util": j["utilization"]}


class Runner:
    def __init__(self, choke, seeds, jobs):
        self.choke, self.seeds = choke, seeds
        # the work is in the simulator processes: threads suffice
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.pending = {}

    def submit(self, key, scenario, sets):
        self.pending[key] = [self.pool.submit(sim, (self.choke, scenario, sets, s))
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--choke", default="build/gcc/choke")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--plot", default="")
    ap.add_argument("--quick", action="store_true",
                    help="K = 1, 4, 8 at 2c only, 2 seeds (a smoke run)")
    a = ap.parse_args()
    seeds = list(range(1, (2 if a.quick else a.seeds) + 1))
    ks = (1, 4, 8) if a.quick else KS
    rates = ("2c",) if a.quick else RATES
    run = Runner(a.choke, seeds, a.jobs)

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
