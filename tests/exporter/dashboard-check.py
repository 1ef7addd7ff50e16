#!/usr/bin/env python3
"""contrib/grafana/choke.json against an exposition of `choke exporter`:
the dashboard is valid JSON with the parts Grafana needs (panels with unique
ids and a place on the grid, targets with unique refIds and an expression),
and every metric any query or variable names is a family of the exposition
(a summary's _sum and _count count as its family).

    dashboard-check.py DASHBOARD.json EXPOSITION.txt"""
import json
import re
import sys

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
for f in fails:
    print("FAIL dashboard: " + f)
print("%s dashboard: %d panels, %d queries, %d metrics, all in the exposition" %
      ("ok  " if not fails else "FAIL", len(ids), len(exprs), len(used)))
sys.exit(1 if fails else 0)
