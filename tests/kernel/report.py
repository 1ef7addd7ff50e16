#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Kernel harness, host side.

  report.py gen-batch OUTDIR [--quick]   tc batch of the configuration cases
  report.py report RUNDIR LOG            compare mainline and ours, print the
                                         summary, write LOG; exit 1 on failure
  report.py fuzz RUNDIR                  the netlink fuzzer's table (guest-fuzz.sh)

The configuration cases come from tests/vectors/params.vec (what stock tc
accepts): each as the root qdisc, some also changed in place and some as a
child of tbf and of htb. The guest runs the batch through `tc -d -force
-batch` (and again with -j) under each implementation; a marker qdisc on
another device (pfifo 77:) separates the cases' outputs, and tc's
"Command failed FILE:LINE" attributes errors to commands.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VEC = os.path.join(ROOT, "tests", "vectors", "params.vec")
MARK_TEXT = "qdisc pfifo 77:"

# ------------------------------------------------------------------ batch


def ok_vectors():
    out = []
    with open(VEC) as f:
        for line in f:
            if line.startswith("ok|"):
                parts = line.rstrip("\n").split("|")
                vals = [int(x) for x in parts[2].split()]
                out.append((parts[1], vals))
    return out


def gen_batch(outdir, quick):
    vecs = ok_vectors()
    lines, cases = [], []

    def add(cmd):
        lines.append(cmd)
        return len(lines)  # 1-based line number, as tc reports it

    prev = None
    for n, (words, vals) in enumerate(vecs, 1):
        if quick and n % 6 != 1:
            prev = words
            continue
        # root
        add("qdisc show dev mk0")
        ln = add("qdisc add dev cfg0 root handle 1: choke " + words)
        add("qdisc show dev cfg0")
        cases.append({"id": "root-%d" % n, "kind": "root", "words": words, "vals": vals, "line": ln})
        if n % 5 == 0 and prev is not None:
            add("qdisc show dev mk0")
            ln = add("qdisc change dev cfg0 root handle 1: choke " + prev)
            add("qdisc show dev cfg0")
            cases.append({"id": "change-%d" % n, "kind": "change", "words": prev, "line": ln})
        add("qdisc del dev cfg0 root")
        if n % 12 == 0:
            add("qdisc show dev mk0")
            setup = [add("qdisc add dev cfg0 root handle 1: tbf rate 10mbit burst 10kb latency 50ms")]
            ln = add("qdisc add dev cfg0 parent 1:1 handle 10: choke " + words)
            add("qdisc show dev cfg0")
            add("qdisc del dev cfg0 root")
            cases.append({"id": "tbf-%d" % n, "kind": "tbf", "words": words, "line": ln, "setup": setup})
            add("qdisc show dev mk0")
            setup = [add("qdisc add dev cfg0 root handle 1: htb default 10"),
                     add("class add dev cfg0 parent 1: classid 1:10 htb rate 10mbit")]
            ln = add("qdisc add dev cfg0 parent 1:10 handle 10: choke " + words)
            add("qdisc show dev cfg0")
            add("qdisc del dev cfg0 root")
            cases.append({"id": "htb-%d" % n, "kind": "htb", "words": words, "line": ln, "setup": setup})
        prev = words
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "config.batch"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(outdir, "config-cases.json"), "w") as f:
        json.dump(cases, f)
    print("gen-batch: %d cases, %d tc commands" % (len(cases), len(lines)))


# ------------------------------------------------------------------ parsing


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def errors_by_line(text):
    """tc -force -batch stderr: messages, then 'Command failed F:N'."""
    errs, pending = {}, []
    for line in text.splitlines():
        m = re.search(r"Command failed .*:(\d+)$", line)
        if m:
            errs[int(m.group(1))] = " / ".join(pending) or "failed"
            pending = []
        elif line.strip() and "WARNING" not in line:
            pending.append(line.strip())
    return errs


def split_blocks(lines, is_marker):
    blocks, cur = [], None
    for line in lines:
        if is_marker(line):
            if cur is not None:
                blocks.append(cur)
            cur = []
        elif cur is not None and line.strip():
            cur.append(line.rstrip())
    if cur is not None:
        blocks.append(cur)
    return blocks


def json_marker(line):
    try:
        v = json.loads(line)
    except ValueError:
        return False
    return isinstance(v, list) and len(v) == 1 and v[0].get("handle") == "77:"


def choke_objs(lines):
    out = []
    for line in lines:
        try:
            out += [q for q in json.loads(line) if q.get("kind") == "choke"]
        except ValueError:
            out.append(line)
    return out


def load_config(d, cases):
    text = split_blocks(read(os.path.join(d, "config.out")).splitlines(),
                        lambda l: l.startswith(MARK_TEXT))
    js = split_blocks(read(os.path.join(d, "config.json")).splitlines(), json_marker)
    errs = errors_by_line(read(os.path.join(d, "config.err")))
    res = {}
    for i, c in enumerate(cases):
        r = {"ok": c["line"] not in errs, "err": errs.get(c["line"], ""),
             "text": text[i] if i < len(text) else None,
             "json": js[i] if i < len(js) else None,
             # what is compared: the choke qdisc alone (a parent's own
             # counters, e.g. htb's direct_packets_stat, are not choke's)
             "choke_text": [l for l in text[i] if l.startswith("qdisc choke")] if i < len(text) else None,
             "choke_json": choke_objs(js[i]) if i < len(js) else None,
             "setup_failed": any(s in errs for s in c.get("setup", []))}
        res[c["id"]] = r
    return res, len(text), len(js)


def load_blocks(path):
    """=== name / key: value blocks (nl.txt)."""
    out, cur = {}, None
    for line in read(path).splitlines():
        if line.startswith("=== "):
            cur = {}
            out[line[4:].strip()] = cur
        elif cur is not None and ": " in line:
            k, v = line.split(": ", 1)
            cur[k] = v
    return out


def qstat_lines(path):
    """LABEL JSON lines (tc -s -j qdisc show)."""
    out = []
    for line in read(path).splitlines():
        if " [" in line and not line.startswith("step "):
            label, js = line.split(" ", 1)
            try:
                out.append((label, json.loads(js)))
            except ValueError:
                out.append((label, None))
    return out


def choke_of(qdiscs):
    if not qdiscs:
        return None
    for q in qdiscs:
        if q.get("kind") == "choke":
            return q
    return None


def xs(q, key):
    """A counter from tc -s -j output (xstats may be nested)."""
    if q is None:
        return None
    if key in q:
        return q[key]
    for sub in ("xstats", "options"):
        if isinstance(q.get(sub), dict) and key in q[sub]:
            return q[sub][key]
    return None


# ------------------------------------------------------------------ report

# netlink cases: (mainline accepts, ours accepts); ours refuses the second
# group on purpose (docs/kernel.md "Configuration").
NL_EXPECT = {
    "default": (1, 1), "no-opts": (0, 0), "no-parms": (0, 0), "no-stab": (0, 0),
    "limit-0": (1, 0), "limit-1": (1, 1), "limit-131071": (1, 1), "limit-131072": (0, 0),
    "max-below-min": (0, 0), "min-eq-max": (1, 1), "max-above-limit": (1, 0),
    "min-wlog-overflow": (0, 0), "max-wlog-overflow": (0, 0), "wlog-0": (1, 1),
    "scell-24": (1, 1), "scell-25": (1, 1), "scell-31": (1, 1), "scell-32": (0, 0),
    "stab-entry-31": (1, 1), "stab-entry-32": (0, 0), "plog-40": (1, 1),
    "maxp-0": (1, 1), "maxp-1": (1, 1), "maxp-max": (1, 1),
    "flags-ecn": (1, 1), "flags-harddrop": (1, 1), "flags-ecn-harddrop": (1, 1),
    "flags-adaptative": (1, 0), "flags-nodrop": (1, 0), "flags-0x10": (1, 0), "flags-0x80": (1, 0),
    "parms-short": (0, 0), "parms-long": (1, 0), "stab-short": (0, 0), "stab-long": (1, 0),
    "stab-empty": (0, 0), "maxp-short": (0, 0), "maxp-long": (1, 0),
    "change-refused": (0, 0), "change-refused-ours": (1, 0),
}


class Report:
    def __init__(self):
        self.lines, self.failures = [], []

    def p(self, s=""):
        self.lines.append(s)
        print(s)

    def fail(self, s):
        self.failures.append(s)
        self.p("FAIL: " + s)


def table(rep, head, rows):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    fmt = "  ".join("%%-%ds" % n for n in w)
    rep.p("  " + fmt % tuple(head))
    for r in rows:
        rep.p("  " + fmt % tuple(str(x) for x in r))


def report_config(rep, run, impls):
    cases = json.load(open(os.path.join(run, "config-cases.json")))
    res = {}
    for impl in impls:
        res[impl], nt, nj = load_config(os.path.join(run, impl), cases)
        if nt != len(cases) or nj != len(cases):
            rep.fail("%s: config output has %d text / %d json blocks for %d cases" % (impl, nt, nj, len(cases)))
    rep.p("Configuration (%d cases from tests/vectors/params.vec: root, change in place, under tbf, under htb)" % len(cases))
    rows = []
    for impl in impls:
        r = res[impl]
        acc = sum(1 for c in cases if r[c["id"]]["ok"])
        setup = sum(1 for c in cases if r[c["id"]]["setup_failed"])
        # dumps against the vector (root cases)
        vec_bad = 0
        for c in cases:
            if c["kind"] != "root" or not r[c["id"]]["ok"]:
                continue
            js = r[c["id"]]["json"]
            try:
                o = json.loads(js[0])[0]["options"]
                lim, mn, mx, wlog, plog, scell, flags, maxp = c["vals"]
                if maxp == 0:  # the kernel derives it from Plog and dumps that
                    maxp = ((0xffffffff >> plog) if plog < 32 else 0xffffffff) * max(mx - mn, 1) & 0xffffffff
                good = (o["limit"] == lim and o["min"] == mn and o["max"] == mx and o["ewma"] == wlog
                        and o["Scell_log"] == scell and bool(o.get("ecn")) == bool(flags & 1)
                        and abs(o["probability"] - maxp / 2.0 ** 32) <= 1e-6 + 1e-5 * maxp / 2.0 ** 32)
            except (TypeError, ValueError, KeyError, IndexError):
                good = False
            vec_bad += not good
        rows.append((impl, acc, len(cases) - acc, setup, vec_bad))
        if setup:
            rep.fail("%s: %d cases' tbf/htb setup failed" % (impl, setup))
        if vec_bad:
            rep.fail("%s: %d accepted root cases dump other values than tc sent" % (impl, vec_bad))
    table(rep, ("impl", "accepted", "refused", "setup-failed", "dump!=vector"), rows)
    if len(impls) == 2:
        a, b = impls
        diff_acc = [c for c in cases if res[a][c["id"]]["ok"] != res[b][c["id"]]["ok"]]
        diff_text = [c for c in cases if res[a][c["id"]]["choke_text"] != res[b][c["id"]]["choke_text"]]
        diff_json = [c for c in cases if res[a][c["id"]]["choke_json"] != res[b][c["id"]]["choke_json"]]
        diff_msg = [c for c in cases if res[a][c["id"]]["err"] != res[b][c["id"]]["err"]]
        kinds = {}
        for c in cases:
            kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
        rep.p("  kinds: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
        rep.p("  %s vs %s: acceptance differs in %d, `tc -d qdisc show` differs in %d, `-j` differs in %d, error text differs in %d"
              % (a, b, len(diff_acc), len(diff_text), len(diff_json), len(diff_msg)))
        for c in (diff_acc + diff_text + diff_json)[:8]:
            rep.p("    %s [%s]: %s=%s / %s=%s" % (c["id"], c["words"], a, res[a][c["id"]]["text"], b, res[b][c["id"]]["text"]))
        for c in diff_msg[:3]:
            rep.p("    message %s: %s=%r %s=%r" % (c["id"], a, res[a][c["id"]]["err"], b, res[b][c["id"]]["err"]))
        if diff_acc or diff_text or diff_json:
            rep.fail("configuration: mainline and ours differ on tc-generated configurations")


def nl_ok(r):
    return r.get("result", "").startswith("ok")


def report_nl(rep, run, impls):
    data = {i: load_blocks(os.path.join(run, i, "nl.txt")) for i in impls}
    rep.p("")
    rep.p("Netlink validation (choke-nl: what tc cannot send); E = expected")
    rows = []
    for name, (em, eo) in NL_EXPECT.items():
        key = "nl " + name
        row = [name]
        for impl, exp in zip(("mainline", "ours"), (em, eo)):
            if impl not in impls:
                row.append("-")
                continue
            r = data[impl].get(key)
            if r is None:
                row.append("missing")
                rep.fail("%s: netlink case %s missing" % (impl, name))
                continue
            got = nl_ok(r)
            mark = "ok" if got else "refused"
            if got != bool(exp):
                mark += " (E: %s)" % ("ok" if exp else "refused")
                if impl == "ours":
                    rep.fail("ours: netlink case %s: %s" % (name, r.get("result")))
                else:
                    rep.p("  note: mainline netlink case %s: %s" % (name, r.get("result")))
            row.append(mark)
        ours = data.get("ours", {}).get(key, {})
        msg = ours.get("result", "")
        row.append(msg.split(": ", 1)[1] if not nl_ok(ours) and ": " in msg else "")
        same = ""
        if len(impls) == 2 and em and eo:
            rm, ro = data["mainline"].get(key, {}), ours
            same = "same" if (rm.get("show"), rm.get("json")) == (ro.get("show"), ro.get("json")) else "DIFFERS"
            if same == "DIFFERS" and name not in ("change-refused-ours",):
                rep.fail("netlink case %s: dumps differ: %s | %s" % (name, rm.get("show"), ro.get("show")))
        row.append(same)
        rows.append(row)
    table(rep, ("case", "mainline", "ours", "ours' extack message", "dump"), rows)
    for impl in impls:
        r = data[impl].get("nl change-refused", {})
        if "limit 500p min 50p max 150p" not in r.get("show", ""):
            rep.fail("%s: a refused change altered the configuration: %s" % (impl, r.get("show")))


def iperf(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def report_b1(rep, run, impls):
    rep.p("")
    rep.p("Behaviour B1: tbf 4mbit > choke limit 400 bandwidth 4mbit ecn; 4 TCP flows (ECN) + 1 UDP flood at 8 Mbit/s")
    rows, share = [], {}
    for impl in impls:
        d = os.path.join(run, impl)
        t, u = iperf(os.path.join(d, "b1-tcp.json")), iperf(os.path.join(d, "b1-udp.json"))
        try:
            tcp_rx = t["end"]["sum_received"]["bytes"]
            udp = u["end"]["sum"]
            udp_rx = udp["bytes"] * (1 - udp["lost_percent"] / 100.0)
            secs = t["end"]["sum_received"]["seconds"]
        except (TypeError, KeyError):
            rep.fail("%s: B1 iperf3 results missing" % impl)
            continue
        q = None
        for label, js in qstat_lines(os.path.join(d, "b1.txt")):
            if label == "after":
                q = choke_of(js)
        if q is None:
            rep.fail("%s: B1 qdisc counters missing" % impl)
            continue
        sent, drops = xs(q, "packets"), xs(q, "drops")
        early, marked, pdrop, matched, other = (xs(q, k) for k in ("early", "marked", "pdrop", "matched", "other"))
        share[impl] = udp_rx / float(udp_rx + tcp_rx)
        consistent = drops == early + pdrop + 2 * matched + other
        rows.append((impl, "%.2f" % ((tcp_rx + udp_rx) * 8 / secs / 1e6), "%.3f" % share[impl], sent,
                     "%.3f" % (early / float(sent)), "%.3f" % (marked / float(sent)),
                     "%.3f" % (pdrop / float(sent)), "%.3f" % (matched / float(sent)), drops,
                     "yes" if consistent else "NO"))
        if not consistent:
            rep.fail("%s: B1 drops %s != early + pdrop + 2 matched + other" % (impl, drops))
        if matched == 0:
            rep.fail("%s: B1 no matched drops under a UDP flood" % impl)
    table(rep, ("impl", "Mbit/s", "UDP share", "sent", "early/sent", "marked/sent", "pdrop/sent",
                "matched/sent", "drops", "drops=e+p+2m+o"), rows)
    if len(share) == 2:
        d = abs(share["mainline"] - share["ours"])
        rep.p("  UDP share difference %.3f (tolerance 0.15: one 25 s run each; CHOKe's counters vary run to run)" % d)
        if d > 0.15:
            rep.fail("B1: UDP share differs by %.3f > 0.15" % d)


def stall_results(path):
    got = {}
    for line in read(path).splitlines():
        if line.startswith("RESULT "):
            kv = dict(w.split("=", 1) for w in line.split()[1:])
            got[kv["config"]] = kv
    return got


def report_stall(rep, run, impls):
    rep.p("")
    rep.p("Stall: tbf 2mbit > choke limit 1000 ... avpkt 1000 bandwidth 2Mbit probability 0.02 ecn, 30 ECT(0) UDP flows at 300 kbit/s")
    rows = []
    runs = [(i, os.path.join(run, i, "stall.txt")) for i in impls]
    if os.path.isdir(os.path.join(run, "ours-tcidle")):
        runs.append(("ours tc_idle_ticks=1", os.path.join(run, "ours-tcidle", "stall.txt")))
    for impl, path in runs:
        got = stall_results(path)
        for cfg, words in (("full", "min 800 max 900 burst 850"), ("reported", "min 100 max 300 burst 200")):
            kv = got.get(cfg)
            if kv is None:
                if not impl.startswith("ours tc"):
                    rep.fail("%s: stall run %s missing" % (impl, cfg))
                elif cfg == "reported":
                    rep.fail("ours with tc_idle_ticks=1: stall run missing")
                continue
            rows.append((impl, words, kv["verdict"], kv["frozen_at"], kv["sent"], kv["rate_kbit"],
                         kv["backlog_after"], kv["pdrop"], kv["matched"], kv["ping"]))
            if impl.startswith("ours") and (kv["verdict"] != "OK" or int(kv["rate_kbit"]) < 1800):
                rep.fail("%s: stall case %s: %s at %s kbit/s (tbf rate 2000)" % (impl, cfg, kv["verdict"], kv["rate_kbit"]))
            if impl == "mainline" and cfg == "reported" and kv["verdict"] == "OK":
                rep.p("  note: mainline did not wrap in the reported configuration this time")
            # the full configuration always breaks mainline: it wedges, or
            # (on a slow or loaded host, where the flood arrives unevenly)
            # the ring wraps short of a full queue and strands packets for
            # good; both are the bug upstream/linux/net/0001 fixes
            if impl == "mainline" and cfg == "full" and kv["verdict"] not in ("WEDGED", "STRANDED"):
                rep.fail("mainline: the wedge (%s) was not reproduced: %s" % (words, kv["verdict"]))
    table(rep, ("impl", "config", "verdict", "frozen at s", "sent pkt", "kbit/s", "backlog after", "pdrop",
                "matched", "pings after"), rows)
    rep.p("  kbit/s: Sent bytes while the flood ran (wall clock); tbf rate 2000. WEDGED: Sent frozen for 5 s under the flood;")
    rep.p("  STRANDED: kept sending, but packets stay queued for good after it (the ring wrapped short of a full queue). pings: 100 non-ECT pings once the flood is over and a healthy queue has drained.")


def report_reconfig(rep, run, impls):
    rep.p("")
    rep.p("Reconfiguration under load (30 UDP flows + 2 TCP): grow, shrink, ECN off/on, same-ring shrink, reset, delete/re-add, replace, htb")
    head = None
    table_rows = {}
    for impl in impls:
        path = os.path.join(run, impl, "reconfig.txt")
        steps = re.findall(r"^step (\S+) rc=(\d+)", read(path), re.M)
        for label, rc in steps:
            table_rows.setdefault(label, {})[impl] = "ok" if rc == "0" else "rc=" + rc
            if rc != "0":
                rep.fail("%s: reconfiguration step %s failed (rc %s)" % (impl, label, rc))
        qs = dict(qstat_lines(path))
        for label, js in qstat_lines(path):
            q = choke_of(js)
            if q is not None and label in table_rows:
                table_rows[label][impl] += " q=%s/%s" % (xs(q, "qlen"), xs(q, "limit") or "")
        dr = qs.get("drained")
        if not dr:
            rep.fail("%s: no counters after the reconfiguration run" % impl)
            continue
        for qd in dr:
            if qd.get("qlen") or qd.get("backlog"):
                msg = ("%s %s still holds qlen %s backlog %s after the traffic ended"
                       % (qd.get("kind"), qd.get("handle"), qd.get("qlen"), qd.get("backlog")))
                if impl == "ours":
                    rep.fail("ours: " + msg)
                else:
                    rep.p("  finding: mainline: " + msg + " (wedged)")
        q = choke_of(dr)
        if q is None:
            rep.fail("%s: no choke after the reconfiguration run" % impl)
            continue
        drops = xs(q, "drops")
        ident = xs(q, "early") + xs(q, "pdrop") + 2 * xs(q, "matched") + xs(q, "other")
        rep.p("  %s final choke: sent %s, dropped %s, early %s pdrop %s matched %s other %s: drops %s early+pdrop+2matched+other"
              % (impl, xs(q, "packets"), drops, xs(q, "early"), xs(q, "pdrop"), xs(q, "matched"), xs(q, "other"),
                 "=" if drops == ident else "!="))
        if impl == "ours" and drops != ident:
            rep.fail("ours: counters inconsistent after reconfiguration")
    rows = [(label,) + tuple(table_rows[label].get(i, "-") for i in impls) for label in table_rows]
    table(rep, ("step",) + tuple(impls), rows)


def report_health(rep, run, impls):
    rep.p("")
    rep.p("Kernel health (per implementation)")
    rows = []
    for impl in impls:
        d = os.path.join(run, impl)
        kv = {}
        for line in read(os.path.join(d, "leak.txt")).splitlines():
            parts = line.split(None, 1)
            if len(parts) == 2:
                kv[parts[0]] = parts[1]
        probs = [l for l in read(os.path.join(d, "dmesg-problems.txt")).splitlines() if l.strip()]
        try:
            skb_delta = int(kv.get("skbuff_head_cache_after", "0")) - int(kv.get("skbuff_head_cache_before", "0"))
            km_delta = int(kv.get("kmalloc_after", "0")) - int(kv.get("kmalloc_before", "0"))
        except ValueError:
            skb_delta = km_delta = None
        rows.append((impl, read(os.path.join(d, "load.txt")).splitlines()[0:1] and "ok", kv.get("refcnt", "?"),
                     kv.get("rmmod", "?"), skb_delta, km_delta, kv.get("kmemleak_objects", "n/a"),
                     kv.get("kmemleak_choke", "n/a"), len(probs)))
        if kv.get("rmmod") != "ok":
            rep.fail("%s: rmmod failed" % impl)
        if kv.get("refcnt") not in ("0",):
            rep.fail("%s: module refcount %s after every qdisc was deleted" % (impl, kv.get("refcnt")))
        if skb_delta is None or skb_delta > 256:
            if impl == "ours":
                rep.fail("ours: skbuff_head_cache grew by %s objects over the run" % skb_delta)
            else:
                # A wedged mainline ring reads as empty, so its reset and
                # destroy never free the packets still in it.
                rep.p("  finding: mainline leaked about %s sk_buffs (the packets of its wedged rings: reset sees head == tail and frees none of them)" % skb_delta)
        if impl == "ours" and kv.get("kmemleak_choke", "0") not in ("0", "n/a"):
            rep.fail("ours: kmemleak reports objects with choke in their backtrace")
        if probs:
            (rep.fail if impl == "ours" else rep.p)("%s: %d suspicious kernel log lines, first: %s" % (impl, len(probs), probs[0]))
    table(rep, ("impl", "load", "refcnt at end", "rmmod", "skb slab delta", "kmalloc delta",
                "kmemleak objects", "kmemleak w/ choke", "dmesg warnings"), rows)
    load = read(os.path.join(run, "mainline", "load.txt"))
    m = re.search(r"both-loaded (.*)", load)
    if m:
        rep.p("  loading ours while mainline is loaded: " + m.group(1)[:160])
        if "refused" not in m.group(1):
            rep.fail("ours loaded beside mainline")
    m = re.search(r"dmesg: (.*)", load)
    if m:
        rep.p("  its kernel log line: " + m.group(1)[:200])


def report_root(rep, run, impls):
    for impl in impls:
        txt = read(os.path.join(run, impl, "root.txt"))
        if "root-ping ok" not in txt:
            rep.fail("%s: traffic through a root choke failed" % impl)


def kv_file(path):
    kv = {}
    for line in read(path).splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            kv[parts[0]] = parts[1]
    return kv


def choke_json(text):
    """The choke object of a `tc -s -j qdisc show` line, or None."""
    try:
        return next((q for q in json.loads(text) if q.get("kind") == "choke"), None)
    except ValueError:
        return None


def report_upstream(rep, run):
    """The patch series' evidence: mainline's sch_choke.c unpatched and
    patched (out of tree), each through tdc, the selftest, the leak check
    and the IPv6 aliasing case (guest-upstream.sh)."""
    base = os.path.join(run, "upstream")
    rep.p("")
    rep.p("The patch series (upstream/linux/): mainline sch_choke.c unpatched and patched, out of tree")
    if not os.path.isdir(base):
        rep.fail("upstream: no results (guest-upstream.sh did not run)")
        return
    rows, alias_rows = [], []
    frac = {}
    for impl in ("unpatched", "patched", "net-next"):
        d = os.path.join(base, impl)
        load = kv_file(os.path.join(d, "load.txt"))
        if not os.path.isdir(d) or "load ok" not in read(os.path.join(d, "load.txt")):
            rep.fail("upstream %s: module not loaded" % impl)
            continue
        tdc = read(os.path.join(d, "tdc.txt"))
        t_ok = len(re.findall(r"^ok \d+", tdc, re.M))
        t_bad = len(re.findall(r"^not ok \d+", tdc, re.M))
        st = read(os.path.join(d, "selftest.txt"))
        st_kv = kv_file(os.path.join(d, "selftest.txt"))
        st_exit = st_kv.get("selftest-exit", "?")
        verdicts = "; ".join("%s %s" % (n.strip(), w) for n, w in
                             re.findall(r"^TEST: (.*?)\s+\[\s*(OK|FAIL|SKIP|XFAIL)\s*\]$", st, re.M))
        lk = kv_file(os.path.join(d, "leak.txt"))
        try:
            skb_st = int(st_kv["skb_after"]) - int(st_kv["skb_before"])
            held_r = int(lk["skb_loaded_reset"]) - int(lk["skb_base"])
            left_r = int(lk["skb_after_reset"]) - int(lk["skb_base"])
            held_d = int(lk["skb_loaded_destroy"]) - int(lk["skb_base"])
            left_d = int(lk["skb_after_destroy"]) - int(lk["skb_base"])
        except (KeyError, ValueError):
            rep.fail("upstream %s: leak results missing" % impl)
            continue
        qr = choke_json(lk.get("loaded_reset", "")) or {}
        probs = [l for l in read(os.path.join(d, "dmesg-problems.txt")).splitlines() if l.strip()]
        rows.append((impl, "%d/%d" % (t_ok, t_ok + t_bad), "exit %s: %s" % (st_exit, verdicts), skb_st,
                     "%s queued, %d held, %d left" % (qr.get("qlen", "?"), held_r, left_r),
                     "%d held, %d left" % (held_d, left_d), load.get("kmemleak_choke", "n/a"), len(probs)))
        for fam in ("4", "6"):
            q = choke_json(kv_file(os.path.join(d, "alias.txt")).get("alias" + fam, ""))
            if not q:
                rep.fail("upstream %s: alias IPv%s result missing" % (impl, fam))
                continue
            offered = q["packets"] + q["drops"] + q["qlen"]
            f = q["matched"] / float(offered) if offered else 0.0
            frac[(impl, fam)] = f
            alias_rows.append((impl, "IPv" + fam, offered, q["matched"], "%.3f" % f, q["early"], q["pdrop"]))
        if t_ok != 8 or t_bad:
            rep.fail("upstream %s: tdc choke.json %d ok, %d not ok (8 cases)" % (impl, t_ok, t_bad))
        if impl != "unpatched":  # patched: the net series; net-next: and the IPv6 one
            if st_exit != "0":
                rep.fail("upstream %s: the selftest failed: %s" % (impl, verdicts))
            if skb_st > 32 or left_r > 32 or left_d > 32:
                rep.fail("upstream %s: sk_buffs left behind: selftest %d, reset %d, destroy %d" % (impl, skb_st, left_r, left_d))
            if held_r < 500:
                rep.fail("upstream %s: the leak case did not load the qdisc (%d sk_buffs held)" % (impl, held_r))
            if load.get("kmemleak_choke", "0") not in ("0", "n/a", "-"):
                rep.fail("upstream %s: kmemleak reports objects with choke in their backtrace" % impl)
            if probs:
                rep.fail("upstream %s: %d suspicious kernel log lines, first: %s" % (impl, len(probs), probs[0]))
        else:
            if st_exit != "1" or not verdicts.endswith("FAIL"):
                rep.fail("upstream unpatched: the selftest did not catch the wedge (%s)" % verdicts)
            if left_r < 500:
                rep.fail("upstream unpatched: expected the wedged ring's packets to survive a reset, %d left" % left_r)
            if probs:
                rep.p("  unpatched: %d suspicious kernel log lines, first: %s" % (len(probs), probs[0]))
        if impl in ("patched", "net-next"):
            # net-next's selftest: its IPv6 case passes with the net-next
            # series and catches the aliasing with the net series alone
            sn = read(os.path.join(d, "selftest-next.txt"))
            sn_exit = kv_file(os.path.join(d, "selftest-next.txt")).get("selftest-exit", "?")
            sn_v = dict((n.strip(), w) for n, w in
                        re.findall(r"^TEST: (.*?)\s+\[\s*(OK|FAIL|SKIP|XFAIL)\s*\]$", sn, re.M))
            v6 = [w for n, w in sn_v.items() if "IPv6" in n]
            ring = [w for n, w in sn_v.items() if "ring" in n]
            rep.p("  %s, net-next's selftest: exit %s: %s" % (impl, sn_exit, "; ".join("%s %s" % kv for kv in sn_v.items())))
            if impl == "net-next" and (sn_exit != "0" or v6 != ["OK"] or ring != ["OK"]):
                rep.fail("upstream net-next: net-next's selftest failed (exit %s: %s)" % (sn_exit, sn_v))
            if impl == "patched" and (sn_exit != "1" or v6 != ["FAIL"] or ring != ["OK"]):
                rep.fail("upstream patched: net-next's selftest did not catch the IPv6 aliasing of the net series alone (exit %s: %s)" % (sn_exit, sn_v))
        if load.get("rmmod") != "ok":
            rep.fail("upstream %s: rmmod failed" % impl)
    table(rep, ("mainline", "tdc choke.json", "selftest sch_choke.sh", "skb delta",
                "reset of a loaded qdisc", "delete of a loaded qdisc", "kmemleak w/ choke", "dmesg warnings"), rows)
    rep.p("")
    rep.p("  8 UDP flows, equal ports, one source, 8 destinations (matched = arrivals dropped with a queued packet of 'their' flow):")
    table(rep, ("mainline", "family", "offered", "matched", "matched/offered", "early", "pdrop"), alias_rows)
    # the IPv6 fix is net-next's series: the net one (patched) still
    # aliases IPv6 flows as mainline does
    if len(frac) == 6:
        if frac[("unpatched", "6")] < 1.8 * frac[("unpatched", "4")]:
            rep.fail("upstream: unpatched IPv6 flows did not alias (%.3f vs IPv4 %.3f)" % (frac[("unpatched", "6")], frac[("unpatched", "4")]))
        r = frac[("net-next", "6")] / frac[("net-next", "4")] if frac[("net-next", "4")] else 0
        if not 0.7 <= r <= 1.4:
            rep.fail("upstream: net-next's IPv6 flows are not told apart like IPv4 ones (%.3f vs %.3f)" % (frac[("net-next", "6")], frac[("net-next", "4")]))


def report(run, logpath):
    rep = Report()
    impls = [i for i in ("mainline", "ours") if os.path.isdir(os.path.join(run, i))]
    rc = read(os.path.join(run, "guest.rc")).strip()
    if rc != "0":
        rep.fail("guest suite exit status %r (see %s/guest.log)" % (rc, run))
    if "ours" not in impls:
        rep.fail("no results for our module")
    for fn in (report_config, report_nl, report_b1, report_stall, report_reconfig, report_health):
        try:
            fn(rep, run, impls)
        except Exception as e:  # a broken result file must not hide the rest
            rep.fail("%s: %s: %s" % (fn.__name__, type(e).__name__, e))
    report_root(rep, run, impls)
    try:
        report_upstream(rep, run)
    except Exception as e:
        rep.fail("report_upstream: %s: %s" % (type(e).__name__, e))
    try:
        report_fuzz(rep, run)
    except Exception as e:
        rep.fail("report_fuzz: %s: %s" % (type(e).__name__, e))
    nm = read(os.path.join(run, "stall-nomodule.log"))
    rep.p("")
    rep.p("Reproducer without any choke qdisc: " + " | ".join(l.replace("mainline-stall: ", "") for l in nm.splitlines()))
    if "exit 2" not in nm:
        rep.fail("reproducer without a choke module should exit 2")
    sk_path = os.path.join(run, "selftest-nomodule.log")
    if os.path.isdir(os.path.join(run, "upstream")):
        sk = read(sk_path)
        rep.p("The selftest without any choke qdisc: " + " | ".join(l for l in sk.splitlines() if l.strip()))
        if "selftest-exit 4" not in sk:
            rep.fail("the selftest without a choke module should skip (exit 4): %s" % (sk.strip().splitlines() or ["no log"])[-1])
    rep.p("")
    if rep.failures:
        rep.p("check-kernel: %d FAILURE(S)" % len(rep.failures))
        for f in rep.failures:
            rep.p("  - " + f)
    else:
        rep.p("check-kernel: all kernel cases passed")
    with open(logpath, "a") as f:
        f.write("\n".join(rep.lines) + "\n")
    return 1 if rep.failures else 0


# ------------------------------------------------------------------ fuzz

FUZZ_KEYS = ("requests", "accepted", "refused", "accepted_against_model", "refused_against_model",
             "dump_differs", "dump_missing", "socket_failures")
DMESG_KEYS = ("dmesg_warn", "dmesg_bug", "dmesg_ubsan", "dmesg_lock", "dmesg_corruption")


def fuzz_results(run):
    base = os.path.join(run, "fuzz")
    out = []
    for impl in ("mainline", "ours"):
        path = os.path.join(base, impl, "result.txt")
        if os.path.exists(path):
            out.append((impl, kv_file(path), os.path.join(base, impl)))
    return out


def fuzz_table(rows):
    lines = ["| module | requests | accepted | refused (errno: count) | against the model | dumps differing | "
             "WARN / BUG / UBSAN / lockdep / corruption | netlink log warnings | sk_buffs before → after | "
             "kmemleak (with choke) | rmmod |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for impl, kv, _ in rows:
        errnos = ", ".join("%s: %s" % (k.split("_")[-1], v) for k, v in sorted(kv.items()) if k.startswith("refused_errno_"))
        lines.append("| %s | %s | %s | %s (%s) | %s accepted, %s refused | %s | %s | %s | %s → %s | %s (%s) | %s |" % (
            impl, kv.get("requests"), kv.get("accepted"), kv.get("refused"), errnos,
            kv.get("accepted_against_model"), kv.get("refused_against_model"), kv.get("dump_differs"),
            " / ".join(kv.get(k, "?") for k in DMESG_KEYS), kv.get("dmesg_netlink"),
            kv.get("skb_before"), kv.get("skb_after"), kv.get("kmemleak_objects", "n/a"),
            kv.get("kmemleak_choke", "n/a"), kv.get("rmmod")))
    return lines


def fuzz_check(rep, rows):
    for impl, kv, _ in rows:
        problems = []
        for k in ("accepted_against_model", "refused_against_model", "dump_differs", "dump_missing",
                  "socket_failures") + DMESG_KEYS:
            if kv.get(k, "0") != "0":
                problems.append("%s %s" % (k, kv.get(k)))
        if kv.get("rmmod") != "ok":
            problems.append("rmmod %s" % kv.get("rmmod"))
        if kv.get("kmemleak_choke", "0") not in ("0",):
            problems.append("kmemleak_choke %s" % kv.get("kmemleak_choke"))
        try:
            if int(kv.get("skb_after", "0")) - int(kv.get("skb_before", "0")) > 64:
                problems.append("sk_buffs %s -> %s" % (kv.get("skb_before"), kv.get("skb_after")))
        except ValueError:
            problems.append("no slab counts")
        if not kv.get("requests") or kv.get("requests") == "0":
            problems.append("no requests sent")
        if problems:
            (rep.fail if impl == "ours" else rep.p)("fuzz %s: %s" % (impl, ", ".join(problems)))


def report_fuzz(rep, run):
    rows = fuzz_results(run)
    rep.p("")
    rep.p("Netlink fuzzer (choke-nlfuzz, under load)")
    if not any(impl == "ours" for impl, _, _ in rows):
        rep.fail("fuzz: no results for our module")
        return
    for line in fuzz_table(rows):
        rep.p("  " + line)
    fuzz_check(rep, rows)


def fuzz(run):
    rep = Report()
    rows = fuzz_results(run)
    for line in fuzz_table(rows):
        rep.p(line)
    fuzz_check(rep, rows)
    if not any(impl == "ours" for impl, _, _ in rows):
        rep.fail("fuzz: no results for our module")
    return 1 if rep.failures else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "gen-batch":
        gen_batch(argv[1], "--quick" in argv)
        return 0
    if len(argv) == 3 and argv[0] == "report":
        return report(argv[1], argv[2])
    if len(argv) == 2 and argv[0] == "fuzz":
        return fuzz(argv[1])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
