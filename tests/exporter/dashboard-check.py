#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""contrib/grafana/choke.json against an exposition of `choke exporter`:
the dashboard is valid JSON with the parts Grafana needs (panels with unique
ids and a place on the grid, targets with unique refIds and an expression),
every metric any query or variable names is a family of the exposition
(a summary's _sum and _count count as its family), and every panel's query
parses as PromQL (promtool check rules, with Grafana's variables replaced
by values).

    dashboard-check.py DASHBOARD.json EXPOSITION.txt"""
import json
import os
import re
import subprocess
import sys
import tempfile

dash_path, expo_path = sys.argv[1], sys.argv[2]
fails = []
try:
    dash = json.load(open(dash_path))
except ValueError as e:
    print("FAIL dashboard: %s is not JSON: %s" % (dash_path, e))
    sys.exit(1)

families = {}
for line in open(expo_path):
    m = re.match(r"# TYPE (\S+) (\S+)$", line.rstrip("\n"))
    if m:
        families[m.group(1)] = m.group(2)


def known(name):
    if name in families:
        return True
    for suffix in ("_sum", "_count"):
        if name.endswith(suffix) and families.get(name[: -len(suffix)]) == "summary":
            return True
    return False


exprs = []
ids = set()


def walk(panels):
    for p in panels:
        if p.get("type") == "row":
            walk(p.get("panels", []))
            continue
        where = "panel %r" % p.get("title")
        if p.get("id") in ids or not isinstance(p.get("id"), int):
            fails.append("%s: id %r missing or repeated" % (where, p.get("id")))
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in ("h", "w", "x", "y")) or g["x"] + g["w"] > 24:
            fails.append("%s: gridPos %r" % (where, g))
        refs = [t.get("refId") for t in p.get("targets", [])]
        if not refs or len(set(refs)) != len(refs):
            fails.append("%s: no targets, or refIds repeated: %r" % (where, refs))
        for t in p.get("targets", []):
            if not t.get("expr"):
                fails.append("%s: a target without expr" % where)
            exprs.append((where, t.get("expr", "")))


walk(dash.get("panels", []))
for v in dash.get("templating", {}).get("list", []):
    if v.get("type") == "query":
        q = v.get("query")
        exprs.append(("variable %r" % v.get("name"), q.get("query") if isinstance(q, dict) else q))
if not dash.get("title") or not dash.get("uid") or len(ids) < 10:
    fails.append("title %r, uid %r, %d panels" % (dash.get("title"), dash.get("uid"), len(ids)))

used = set()
for where, e in exprs:
    for name in re.findall(r"\bchoke_[a-z0-9_]+\b", e):
        used.add(name)
        if not known(name):
            fails.append("%s queries %s, which the exposition does not have" % (where, name))
# each panel query as a recording rule, Grafana's variables given values
rules = ["groups:", "  - name: dashboard", "    rules:"]
n = 0
for where, e in exprs:
    if e.startswith("label_values("):
        continue
    e = e.replace("$__rate_interval", "5m")
    e = re.sub(r"\$\{?[a-z_]+\}?", ".*", e)
    n += 1
    rules.append("      - record: dashboard:query%d" % n)
    rules.append("        expr: %s" % json.dumps(e))
with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as t:
    t.write("\n".join(rules) + "\n")
try:
    p = subprocess.run(["promtool", "check", "rules", t.name], capture_output=True, text=True)
    if p.returncode != 0:
        fails.append("a query does not parse as PromQL: " + (p.stdout + p.stderr).strip()[-500:])
except FileNotFoundError:
    fails.append("promtool is missing (Debian: prometheus)")
finally:
    os.unlink(t.name)

for f in fails:
    print("FAIL dashboard: " + f)
print("%s dashboard: %d panels, %d queries (%d checked by promtool), %d metrics, all in the exposition" %
      ("ok  " if not fails else "FAIL", len(ids), len(exprs), n, len(used)))
sys.exit(1 if fails else 0)
