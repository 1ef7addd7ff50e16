#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Host side of make bench-kernel: the tables of guest-bench.sh's results.

    bench-report.py RUN_DIR [--peer LABEL[,LABEL...]]

RUN_DIR holds bench.txt (the guest's lines), cpu.txt (bench-sampler.py's
CPU times at the marks), stats/ID.json (the qdiscs' counters after each
run) and mem/ (the kernel's memory counters around each memory step).

CPU: a run's cost is UML's CPU time between its marks divided by the
packets pktgen offered between them. Every run of a row other than the
reference (the first row) sits between two runs of the reference; its
ratio to the reference is taken to the mean of those two. The ratio to a
peer (--peer, default fq_codel,cake; the goals use the first) is, round
by round, the row's ratio to the reference over the peer's. Tables give the median and the range
(min-max) over the rounds.

Memory: per instance, the difference of the counters before and after
adding N instances, divided by N: slab (the sum over /proc/slabinfo's
caches of active objects times object size: every kmalloc and cache
object), vmalloc (/proc/meminfo's VmallocUsed), and MemFree's fall as a
cross-check; "left" is what had not come back after the instances were
deleted. The row "none" runs the same steps without adding anything: the
noise of the procedure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import read  # noqa: E402 (check-kernel's reader: a missing file reads as empty)

STATES = (
    ("short", "tbf 10gbit > the discipline: the queue stays short; 64 flows"),
    ("standing", "tbf 10mbit > the discipline: a standing queue, most arrivals dropped; 64 flows"),
    ("standing4", "tbf 10mbit > the discipline: a standing queue, 4 flows"),
    ("short6", "IPv6: tbf 10gbit > the discipline: the queue stays short; 64 flows by UDP port"),
    ("standing6", "IPv6: tbf 10mbit > the discipline: a standing queue; 64 flows by UDP port"),
    ("standing4v6", "IPv6: tbf 10mbit > the discipline: a standing queue; 4 flows by UDP port (most draws match)"),
    ("standing6d", "IPv6: tbf 10mbit > the discipline: a standing queue; 64 flows by destination address, equal ports"),
    ("htb-short", "htb, 1000 leaf classes each with the discipline, a flow hash filter, 4000 flows; rates 10gbit: short queues"),
    ("htb-standing", "the same tree at 10mbit: every leaf's queue standing (about 100 packets each)"),
)
CHOKE_KINDS = ("choke", "chokeplus")
ROOT_KINDS = ("tbf", "htb")


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def spread(v, fmt="%.2f"):
    if not v:
        return "-"
    return (fmt + " (" + fmt + "-" + fmt + ")") % (median(v), min(v), max(v))


def kv(line):
    """The key=value words of a line after its first word."""
    out = {}
    for w in line.split()[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = v
    return out


def qsum(path):
    """The counters of the disciplines under test in a `tc -s -j qdisc
    show` (the root tbf or htb left out), summed over their instances."""
    try:
        with open(path) as f:
            qs = json.load(f)
    except (OSError, ValueError):
        return None
    s = {"instances": 0}
    for q in qs:
        if q.get("kind") in ROOT_KINDS or q.get("root"):
            continue
        s["instances"] += 1
        s["kind"] = q.get("kind")
        for k in ("packets", "drops", "qlen", "backlog", "early", "matched", "pdrop", "protect",
                  "other", "marked", "memory_used"):
            if isinstance(q.get(k), int):
                s[k] = s.get(k, 0) + q[k]
    return s


def parse(run):
    cpu = {}
    for line in read(os.path.join(run, "cpu.txt")).splitlines():
        w = line.split()
        if len(w) == 3:
            cpu[(w[0], w[1])] = int(w[2])
    kinds = {}  # "single"/"htb" -> {"ref": label, "seq": [runs]}
    cur_kind, cur_round, problems = None, 0, []
    mems, floods = [], []
    for line in read(os.path.join(run, "bench.txt")).splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "ref" and len(w) == 3:
            kinds.setdefault(w[1], {"ref": w[2], "seq": []})
        elif w[0] == "round" and len(w) == 3:
            cur_kind, cur_round = w[1], int(w[2])
        elif w[0] == "run" and cur_kind in kinds:
            d = kv(line)
            try:
                offered = int(d["sofar"]) + int(d["errors"])
            except (KeyError, ValueError):
                problems.append(line)
                continue
            rid = d.get("id")
            if ("start", rid) not in cpu or ("stop", rid) not in cpu or offered <= 0:
                problems.append("no CPU time for run %s (%s %s)" % (rid, d.get("state"), d.get("impl")))
                continue
            spent = cpu[("stop", rid)] - cpu[("start", rid)]
            kinds[cur_kind]["seq"].append({
                "round": cur_round, "state": d["state"], "impl": d["impl"], "offered": offered,
                "total": int(d.get("total", offered) or offered), "ns": spent / float(offered),
                "wall": float(d.get("wall", "nan")), "q": qsum(os.path.join(run, "stats", rid + ".json")) or {}})
        elif w[0] == "mem":
            mems.append(kv(line))
        elif w[0] == "flood":
            floods.append(line)
        elif "FAIL" in line:
            problems.append(line)
    return kinds, mems, floods, problems


def ratios(kind):
    """Each run's ratio to the mean of the reference runs next to it."""
    seq, ref = kind["seq"], kind["ref"]
    for i, r in enumerate(seq):
        if r["impl"] == ref:
            r["ratio"] = 1.0
            continue
        near = [seq[j]["ns"] for j in (i - 1, i + 1)
                if 0 <= j < len(seq) and seq[j]["impl"] == ref and seq[j]["state"] == r["state"]]
        r["ratio"] = r["ns"] / (sum(near) / len(near)) if near else None


def cpu_tables(kind, peers):
    ratios(kind)
    ref = kind["ref"]
    seq = kind["seq"]
    impls = []
    for r in seq:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    nrounds = len(set(r["round"] for r in seq))
    out, summary = [], {}
    for state, what in STATES:
        runs = [r for r in seq if r["state"] == state]
        if not runs:
            continue
        out.append("")
        out.append("%s (%s):" % (state, what))
        out.append("")
        here = [p for p in peers if p != ref and any(r["impl"] == p for r in runs)]
        out.append("| qdisc | ns/packet | ratio to %s |%s Mpps | dropped / offered | queue at the end, per instance | matched / early / protect per offered |"
                   % (ref, "".join(" ratio to %s |" % p for p in here)))
        out.append("|---|---|---|%s---|---|---|---|" % ("---|" * len(here)))
        peer_ratio = {p: {r["round"]: r["ratio"] for r in runs if r["impl"] == p and r.get("ratio")} for p in here}
        for impl in impls:
            mine = [r for r in runs if r["impl"] == impl]
            if not mine:
                continue
            ns = [r["ns"] for r in mine]
            rr = [r["ratio"] for r in mine if r.get("ratio")] if impl != ref else []
            pr = {p: [r["ratio"] / peer_ratio[p][r["round"]] for r in mine
                      if r.get("ratio") and peer_ratio[p].get(r["round"])] for p in here}
            summary[(state, impl)] = {"ns": ns, "ref": rr, "peer": pr.get(peers[0], []), "peers": pr}
            tot = sum(r["total"] for r in mine)

            def per(key):
                return sum(r["q"].get(key, 0) for r in mine) / float(tot) if tot else 0.0
            drops = per("drops")
            inst = [r["q"].get("instances", 0) for r in mine if r["q"].get("instances")]
            qlen = median([r["q"].get("qlen", 0) / float(r["q"]["instances"]) for r in mine
                           if r["q"].get("instances")]) if inst else 0
            kinds = set(r["q"].get("kind") for r in mine)
            cho = "%.4f / %.4f / %.4f" % (per("matched"), per("early"), per("protect")) if kinds & set(CHOKE_KINDS) else "-"
            out.append("| %s | %s | %s |%s %.2f | %.3f | %.0f | %s |" % (
                impl, spread(ns, "%.0f"), spread(rr) if impl != ref else "1",
                "".join(" %s |" % (spread(pr[p]) if impl != p else "1") for p in here),
                1000.0 / median(ns), drops, qlen, cho))
    head = ("%d rounds; ns per offered packet: UML's CPU time between the marks over the packets pktgen offered between them, "
            "median (min-max) over the rounds; ratio to %s: to the mean of its runs just before and after; ratio to %s: "
            "round by round, the row's ratio over that discipline's; Mpps: what one core of this host would do at that cost"
            % (nrounds, ref, " and ".join(peers)))
    return [head] + out, summary


def slab_bytes(text):
    caches = {}
    for line in text.splitlines():
        if line.startswith(("slabinfo", "#")):
            continue
        w = line.split()
        if len(w) >= 4:
            try:
                caches[w[0]] = int(w[1]) * int(w[3])
            except ValueError:
                pass
    return caches


def meminfo(text):
    out = {}
    for line in text.splitlines():
        w = line.replace(":", " ").split()
        if len(w) >= 2 and w[1].isdigit():
            out[w[0]] = int(w[1]) * 1024
    return out


def mem_step(run, kind, impl):
    snaps = []
    for i in range(3):
        base = os.path.join(run, "mem", "%s-%s-%d" % (kind, impl, i))
        snaps.append((slab_bytes(read(base + ".slab")), meminfo(read(base + ".meminfo"))))
    return snaps


def mem_tables(run, mems):
    out, per = [], {}
    for kind, title in (("inst", "instances, each the root of a dummy device that is down"),
                        ("tree", "htb trees (root, one parent class, the leaf classes and their disciplines, the filter)")):
        rows = [m for m in mems if m.get("kind") == kind]
        if not rows:
            continue
        n = int(rows[0].get("n", 1))
        out.append("")
        unit = "instance" if kind == "inst" else "leaf"
        out.append("memory per %s, %d %s (bytes):" % (unit, n, title))
        out.append("")
        out.append("| qdisc | slab | vmalloc | slab + vmalloc | MemFree fell by | the larger | left after delete | largest slab caches (bytes per %s) |" % unit)
        out.append("|---|---|---|---|---|---|---|---|")
        for m in rows:
            impl = m["impl"]
            s = mem_step(run, kind, impl)
            if not s[0][0] or not s[1][0]:
                out.append("| %s | no snapshot | | | | | | |" % impl)
                continue
            names = set(s[0][0]) | set(s[1][0])
            d = {c: s[1][0].get(c, 0) - s[0][0].get(c, 0) for c in names}
            slab = sum(d.values()) / float(n)
            vm = (s[1][1].get("VmallocUsed", 0) - s[0][1].get("VmallocUsed", 0)) / float(n)
            free = (s[0][1].get("MemFree", 0) - s[1][1].get("MemFree", 0)) / float(n)
            left = (sum(s[2][0].values()) - sum(s[0][0].values()) + s[2][1].get("VmallocUsed", 0)
                    - s[0][1].get("VmallocUsed", 0)) / float(n)
            top = sorted(d.items(), key=lambda x: -x[1])[:3]
            # allocations beyond the kmalloc caches (kvmalloc's pages) show in
            # MemFree only: the larger of the two is the figure the goal uses
            per[(kind, impl)] = max(slab + vm, free)
            out.append("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |" % (
                impl, slab, vm, slab + vm, free, max(slab + vm, free), left,
                ", ".join("%s %.0f" % (c, b / float(n)) for c, b in top if b > 0) or "-"))
    return out, per


def goals(summary, mem, peer):
    """The issue's goals for chokeplus protect: per-packet CPU at most
    fq_codel's, memory per instance at most a tenth of cake's."""
    out = []
    me = "chokeplus-protect"
    for (state, impl), v in sorted(summary.items()):
        if impl != me or not v["peer"]:
            continue
        m = median(v["peer"])
        out.append("- %s: %s's CPU per packet is %s of %s's: %s" % (
            state, me, spread(v["peer"]), peer,
            "met" if m <= 1.0 else "missed by %.0f%% (median)" % ((m - 1.0) * 100)))
    for kind in ("inst", "tree"):
        if (kind, me) in mem and mem.get((kind, "cake")):
            r = mem[(kind, me)] / mem[(kind, "cake")]
            out.append("- memory per %s: %s %.0f bytes, cake %.0f: %.3f of cake's (goal at most 0.1): %s" % (
                "instance" if kind == "inst" else "leaf of the tree", me, mem[(kind, me)], mem[(kind, "cake")], r,
                "met" if r <= 0.1 else "missed by %.1fx" % (r / 0.1)))
    if out:
        out.insert(0, "")
        out.insert(1, "goals (issue 19):")
    return out


def floods_table(floods):
    if not floods:
        return []
    out = ["", "floods (4 UDP flows at full speed for 1 s, 4 times with 2 s pauses, one choke kept under tbf 10mbit, "
           "limit 1000 min 800 max 900, no ecn; counters after each flood):", "",
           "| qdisc | flood | sent | backlog | early | pdrop | matched |", "|---|---|---|---|---|---|---|"]
    for line in floods:
        d = kv(line.split(" stats=")[0])
        try:
            q = next((x for x in json.loads(line.split(" stats=", 1)[1]) if x.get("kind") in CHOKE_KINDS), {})
        except (IndexError, ValueError):
            q = {}
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (d.get("impl"), d.get("n"), q.get("packets"), q.get("qlen"),
                                                          q.get("early"), q.get("pdrop"), q.get("matched")))
    return out


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    run, peers = argv[0], ["fq_codel", "cake"]
    if len(argv) == 3 and argv[1] == "--peer":
        peers = [p for p in argv[2].split(",") if p]
    elif len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    if not os.path.exists(os.path.join(run, "bench.txt")):
        sys.stderr.write("bench-report: no %s/bench.txt\n" % run)
        return 1
    kinds, mems, floods, problems = parse(run)
    out, summary = [], {}
    for k in ("single", "htb"):
        if k in kinds and kinds[k]["seq"]:
            t, s = cpu_tables(kinds[k], peers)
            out += ([""] if out else []) + t
            summary.update(s)
    m, per = mem_tables(run, mems)
    out += m
    out += floods_table(floods)
    out += goals(summary, per, peers[0])
    if problems:
        out += ["", "problems:"] + ["- " + p for p in problems]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
