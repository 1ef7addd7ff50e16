#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""The host's half of tests/kernel/exporter-uml.sh: what `choke exporter`
said about each kernel choke and chokeplus qdisc in the UML guest, against
what `tc -s -d -j qdisc show` said at the same moment (no traffic left, the
two tc readings identical), per implementation (mainline's sch_choke, our
sch_libchoke with its second id, chokeplus).

    exporter-check.py RUN [--record-to DIR]

--record-to DIR copies the guest's raw netlink dumps to
DIR/uml-6.1-IMPL.nlrec and writes what tc printed as DIR/uml-6.1-IMPL.expect
(the unit tests' fixtures: tests/exporter/test_exporter.c)."""
import json
import os
import re
import shutil
import subprocess
import sys

run = sys.argv[1]
record_to = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--record-to" else None
fails = 0


def ok(name, msg):
    print("ok   exporter-uml/%s: %s" % (name, msg))


def bad(name, msg):
    global fails
    fails += 1
    print("FAIL exporter-uml/%s: %s" % (name, msg))


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def samples(text):
    """{(name, frozenset(labels)): value}"""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError("not a sample: " + line)
        labels = frozenset(LABEL.findall(m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def promtool(path):
    p = subprocess.run(["promtool", "check", "metrics"], stdin=open(path),
                       capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def chokes(tc):
    for q in tc:
        if q.get("kind") in ("choke", "chokeplus"):
            yield q


def variant(o):
    """tc's words of a chokeplus variant: (variant, draws, protect) as
    struct tc_chokeplus_variant holds them"""
    if "draws" in o:
        v, d = 1, o["draws"]
    elif o.get("adaptive"):
        v, d = 2, 0
    elif "geometric" in o:
        v, d = 3, o["geometric"]
    else:
        v, d = 0, 0
    return v, d, o.get("protect", 0)


def reasons(q):
    """the drops by reason the exporter must give, from tc's counters"""
    if q["kind"] == "chokeplus":
        r = {"early": q["early"], "limit": q["pdrop"], "protect": q["protect"],
             "other": q["other"]}
        r["match"] = q["drops"] - sum(r.values())
    else:
        r = {"early": q["early"], "limit": q["pdrop"], "match": 2 * q["matched"]}
        r["other"] = q["drops"] - sum(r.values())
    return r


def parent(q):
    return "root" if q.get("root") else q.get("parent", "none")


guest_rc = read(os.path.join(run, "guest.rc"), "").strip()
if guest_rc == "0":
    ok("guest", "the guest ran every case")
else:
    bad("guest", "guest.rc %r; see %s/guest.log and console.log" % (guest_rc, run))
impls = [d for d in ("mainline", "ours") if os.path.isdir(os.path.join(run, d))]
if len(impls) != 2:
    bad("impls", "results for %s only" % impls)

for impl in impls:
    d = os.path.join(run, impl)
    before, after = read(os.path.join(d, "tc-before.json")), read(os.path.join(d, "tc-after.json"))
    if not before or before != after:
        bad(impl + "/static", "the counters moved while the exporter read them (or tc failed)")
        continue
    tc = json.loads(after)
    qs = list(chokes(tc))
    rc = read(os.path.join(d, "om.rc"), "").strip()
    if rc != "0":
        bad(impl + "/once", "choke exporter --once exit %r: %s" % (rc, read(os.path.join(d, "om.err"))))
        continue
    prc, pout = promtool(os.path.join(d, "om.txt"))
    if prc == 0:
        ok(impl + "/promtool", "promtool check metrics passes")
    else:
        bad(impl + "/promtool", pout)
    om = samples(read(os.path.join(d, "om.txt")))
    if om.get(("choke_exporter_qdiscs_up", frozenset())) == 1:
        ok(impl + "/up", "choke_exporter_qdiscs_up 1")
    else:
        bad(impl + "/up", "choke_exporter_qdiscs_up is not 1")
    infos = [k for k in om if k[0] == "choke_qdisc_info"]
    nplus = sum(1 for q in qs if q["kind"] == "chokeplus")
    want_n, want_plus = (5, 2) if impl == "ours" else (3, 0)
    if len(qs) == want_n and len(infos) == want_n and nplus == want_plus:
        ok(impl + "/count", "%d qdiscs in tc (%d chokeplus), %d in the exposition" %
           (len(qs), nplus, len(infos)))
    else:
        bad(impl + "/count", "%d qdiscs in tc (%d chokeplus), %d in the exposition" %
            (len(qs), nplus, len(infos)))
    wrong = []
    for q in qs:
        lab = {("device", q["dev"]), ("handle", q["handle"]), ("parent", parent(q))}

        def get(name, extra=()):
            return om.get((name, frozenset(lab | set(extra))))

        o = q["options"]
        want = {
            "choke_qdisc_sent_bytes_total": q["bytes"],
            "choke_qdisc_sent_packets_total": q["packets"],
            "choke_qdisc_overlimits_total": q["overlimits"],
            "choke_qdisc_requeues_total": q["requeues"],
            "choke_qdisc_matched_packets_total": q["matched"],
            "choke_qdisc_marked_packets_total": q["marked"],
            "choke_qdisc_queue_packets": q["qlen"],
            "choke_qdisc_queue_bytes": q["backlog"],
            "choke_qdisc_queue_limit_packets": o["limit"],
            "choke_qdisc_min_threshold_packets": o["min"],
            "choke_qdisc_max_threshold_packets": o["max"],
        }
        for name, v in want.items():
            if get(name) != v:
                wrong.append("%s %s: %s, tc %s" % (q["dev"], name, get(name), v))
        want_r = reasons(q)
        for r, v in want_r.items():
            g = get("choke_qdisc_dropped_packets_total", [("reason", r)])
            if g != v:
                wrong.append("%s dropped{reason=%s}: %s, tc %s" % (q["dev"], r, g, v))
        given = {dict(k[1]).get("reason") for k in om
                 if k[0] == "choke_qdisc_dropped_packets_total" and lab <= set(k[1])}
        if given != set(want_r):
            wrong.append("%s: reasons %s, not %s" % (q["dev"], sorted(given), sorted(want_r)))
        total = sum(get("choke_qdisc_dropped_packets_total", [("reason", r)]) or 0 for r in want_r)
        if total != q["drops"]:
            wrong.append("%s: the reasons add up to %s, tc's dropped %s" % (q["dev"], total, q["drops"]))
        info = next((k for k in infos if lab <= set(k[1])), ("", frozenset()))
        words = [v for (k, v) in info[1] if k == "params"]
        kind = [v for (k, v) in info[1] if k == "kind"]
        w = words[0] if words else ""
        head = "limit %dp min %dp max %dp " % (o["limit"], o["min"], o["max"])
        vk, vd, vp = variant(o) if q["kind"] == "chokeplus" else (0, 0, 0)
        var = {1: "draws %d " % vd, 2: "adaptive ", 3: "geometric %d " % vd}.get(vk, "") + \
            ("protect %d " % vp if vp else "")
        if not w.startswith(head + var) or ((" ecn " in " " + w + " ") != bool(o.get("ecn"))) or \
                ("ewma %d " % o["ewma"]) not in w or ("Scell_log %d" % o["Scell_log"]) not in w or \
                kind != [q["kind"]]:
            wrong.append("%s info kind %s params %r, tc %s %r" % (q["dev"], kind, w, q["kind"], o))
    if wrong:
        bad(impl + "/values", "; ".join(wrong))
    else:
        ok(impl + "/values", "every counter, gauge and parameter equals tc's (%s)" %
           ", ".join("%s: sent %d, dropped %d (matched %d, early %d), marked %d" %
                     (q["dev"], q["packets"], q["drops"], q["matched"], q["early"], q["marked"])
                     for q in qs))
    # what the traffic must have caused (the scenario forces it)
    by = {q["dev"]: q for q in qs}
    need = []
    if by.get("c0", {}).get("matched", 0) <= 0 or by.get("c0", {}).get("marked", 0) <= 0:
        need.append("c0 (ecn, 16 ECT UDP flows + TCP): matches and marks")
    if by.get("c1", {}).get("matched", 0) <= 0 or by.get("c1", {}).get("early", 0) <= 0:
        need.append("c1 (20 UDP flows): matches and early drops")
    if by.get("c2", {}).get("packets", 0) <= 0:
        need.append("c2: packets sent")
    if impl == "ours":
        if by.get("c3", {}).get("protect", 0) <= 0:
            need.append("c3 (chokeplus protect, 2 floods + TCP): protect's drops")
        c4 = by.get("c4")
        if not c4 or c4["matched"] <= 0 or reasons(c4)["match"] <= 2 * c4["matched"]:
            need.append("c4 (chokeplus draws 3, 20 UDP flows): matches with more than one "
                        "victim each")
    if need:
        bad(impl + "/traffic", "missing: " + "; ".join(need))
    else:
        ok(impl + "/traffic", "matches, marks and early drops happened where forced%s" %
           ("; protect's drops (%d) and matches of several victims (%d drops for %d matches)" %
            (by["c3"]["protect"], reasons(by["c4"])["match"], by["c4"]["matched"])
            if impl == "ours" else ""))

    # the server
    get_st = read(os.path.join(d, "http-get.status"), "").strip()
    if get_st == "200 text/plain; version=0.0.4; charset=utf-8":
        # the same series (a closing TCP connection may still move a counter)
        http = samples(read(os.path.join(d, "http-get.txt"), ""))
        same = set(http) == set(om)
        prc, pout = promtool(os.path.join(d, "http-get.txt"))
        if same and prc == 0:
            ok(impl + "/http-get", "GET /metrics: 200, the same series, promtool passes")
        else:
            bad(impl + "/http-get", "differs from --once (%s) or promtool: %s" % (not same, pout))
    else:
        bad(impl + "/http-get", "GET /metrics: %r" % get_st)
    head_st = read(os.path.join(d, "http-head.status"), "").strip()
    if head_st.startswith("200 ") and read(os.path.join(d, "http-head.txt")) == "":
        ok(impl + "/http-head", "HEAD /metrics: 200, no body")
    else:
        bad(impl + "/http-head", "HEAD: %r" % head_st)
    st404 = read(os.path.join(d, "http-404.status"), "").strip()
    if st404.startswith("404 "):
        ok(impl + "/http-404", "GET /nope: 404")
    else:
        bad(impl + "/http-404", "GET /nope: %r" % st404)
    root_st = read(os.path.join(d, "http-root.status"), "").strip()
    if root_st.startswith("200 text/html") and 'href="/metrics"' in read(
            os.path.join(d, "http-root.txt"), ""):
        ok(impl + "/http-root", "GET /: the landing page, linking /metrics")
    else:
        bad(impl + "/http-root", "GET /: %r" % root_st)
    budget = samples(read(os.path.join(d, "http-get.txt"), "")).get(
        ("choke_exporter_scrape_budget_seconds", frozenset()))
    if budget == 9.5:
        ok(impl + "/scrape-timeout", "X-Prometheus-Scrape-Timeout-Seconds: 10 gives a 9.5 s budget")
    else:
        bad(impl + "/scrape-timeout", "budget %r for a 10 s scrape timeout" % budget)
    if read(os.path.join(d, "server.rc"), "").strip() == "0" and \
            "choke: exporter: stopped" in read(os.path.join(d, "server.log"), ""):
        ok(impl + "/sigterm", "SIGTERM: stopped, exit 0")
    else:
        bad(impl + "/sigterm", "server exit %r: %s" % (read(os.path.join(d, "server.rc")),
                                                       read(os.path.join(d, "server.log"))))

    if record_to:
        if read(os.path.join(d, "record.rc"), "").strip() != "0":
            bad(impl + "/record", read(os.path.join(d, "record.txt")))
            continue
        # as exporter-tests' print_qdiscs writes them
        expect = "".join("%s %s %s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d%s\n" % (
            q["dev"], q["handle"], parent(q), q["bytes"], q["packets"], q["drops"],
            q["overlimits"], q["requeues"], q["qlen"], q["backlog"], q["early"], q["pdrop"],
            q["other"], q["marked"], q["matched"], q["options"]["limit"], q["options"]["min"],
            q["options"]["max"],
            " chokeplus %d %d %d protect %d" % (variant(q["options"]) + (q["protect"],))
            if q["kind"] == "chokeplus" else "") for q in qs)
        base = os.path.join(record_to, "uml-6.1-" + impl)
        shutil.copyfile(os.path.join(d, "dump.nlrec"), base + ".nlrec")
        with open(base + ".expect", "w") as f:
            f.write(expect)
        ok(impl + "/record", "%s.nlrec and .expect written" % base)

print("exporter-uml: %d failed" % fails)
sys.exit(1 if fails else 0)
