#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""The layer rules of docs/architecture.md, checked on every #include "...".

Each file belongs to a room (its directory; the public headers to the
layer they declare). A room may include only the rooms listed for it in
ALLOWED; nothing outside src/cli includes src/cli; and the graph of
quoted includes has no cycle. Prints every violation and exits 1, or
prints a one-line summary and exits 0.

Usage: python3 tests/layers.py [--graph | --rules | --update-doc]
  --graph       the room graph as it is (who includes whom), as text
  --rules       the rules (ALLOWED) as the Markdown table docs/architecture.md
                carries between its layers:begin and layers:end markers
  --update-doc  rewrite that table in docs/architecture.md from ALLOWED
Without an option the check also fails when docs/architecture.md's table
is not the one ALLOWED gives, so the page and the check cannot drift.
"""
import os
import re
import sys

# what each room may include (besides itself)
ALLOWED = {
    "core": set(),
    "pkt": {"core"},
    "params": {"core"},
    "util": set(),
    "sim": {"core", "params", "util"},
    "replay": {"core", "params", "pkt", "util"},
    "bridge": {"core", "params", "pkt", "util"},
    # the exporter reads the module's chokeplus xstats from kmod/chokeplus.h
    "exporter": {"core", "params", "util", "bridge", "kmod"},
    "cli": {"core", "params", "pkt", "util", "sim", "replay", "bridge", "exporter"},
    "kmod": {"core"},
    # kmod/tc: the tc plugin of the module's chokeplus id, userspace: the
    # words of choke params and the module's netlink header
    "kmod/tc": {"core", "params", "kmod"},
    "bench": {"core", "params", "pkt", "util", "replay", "bridge", "sim"},
    "ns3": {"core", "params", "pkt"},
    # tests/tc-plugin.c checks the plugin's requests against kmod/chokeplus.h
    "tests": {"core", "params", "pkt", "util", "sim", "replay", "bridge", "exporter", "kmod"},
    "fuzz": {"core", "params", "pkt", "util", "sim", "replay", "bridge", "exporter"},
}
PUBLIC = {"core.h": "core", "hh.h": "core", "pkt.h": "pkt", "params.h": "params"}
SOURCE = (".c", ".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(path):
    parts = path.split("/")
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "choke":
        return PUBLIC.get(parts[2], "core")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "kmod" and len(parts) > 2 and parts[1] == "tc":
        return "kmod/tc"
    if parts[0] in ("kmod", "bench", "tests", "fuzz", "ns3"):
        return parts[0]
    return None


def resolve(src, inc, files):
    """The repository path an #include "inc" in src names, or None."""
    for base in (os.path.dirname(src), "include"):
        p = os.path.normpath(os.path.join(base, inc))
        if p in files:
            return p
    return None


def check(texts):
    """texts: {path: file text}. Returns (violations, room graph, edges)."""
    files = set(texts)
    edges, bad, rooms = {}, [], {}
    for f in sorted(files):
        edges[f] = []
        r = room_of(f)
        for inc in INCLUDE.findall(texts[f]):
            t = resolve(f, inc, files)
            if t is None:
                continue  # a system or generated header
            edges[f].append(t)
            tr = room_of(t)
            if r is None or tr is None or tr == r:
                continue
            rooms.setdefault(r, set()).add(tr)
            if tr == "cli":
                bad.append("%s includes %s: nothing outside src/cli includes the CLI" % (f, t))
            elif tr not in ALLOWED.get(r, set()):
                bad.append("%s (%s) includes %s (%s): %s may include only %s" % (
                    f, r, t, tr, r, ", ".join(sorted(ALLOWED.get(r, ()))) or "itself"))
    # cycles among files (iterative DFS, colours)
    colour, path = {}, []
    for start in sorted(edges):
        if colour.get(start):
            continue
        colour[start] = 1
        path.append(start)
        stack = [(start, iter(edges[start]))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
                path.pop()
            elif colour.get(nxt) == 1:
                bad.append("include cycle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            elif not colour.get(nxt):
                colour[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(edges[nxt])))
    return bad, rooms, edges


def self_test():
    """The checker finds what it must: a core file reaching up, a room
    including the CLI, a cycle; and passes a tree that keeps the rules."""
    good = {
        "include/choke/core.h": "",
        "src/core/choke.c": '#include "choke/core.h"\n',
        "src/sim/engine.c": '#include "choke/core.h"\n#include "../util/json.h"\n',
        "src/util/json.h": "",
        "src/cli/main.c": '#include "../sim/sim.h"\n',
        "src/sim/sim.h": "",
    }
    assert check(good)[0] == [], check(good)[0]
    cases = {
        "up": ({"src/core/x.c": '#include "../sim/sim.h"\n', "src/sim/sim.h": ""}, "may include only"),
        "cli": ({"src/sim/x.c": '#include "../cli/cli.h"\n', "src/cli/cli.h": ""}, "includes the CLI"),
        "cycle": ({"src/sim/a.h": '#include "b.h"\n', "src/sim/b.h": '#include "a.h"\n'}, "cycle"),
    }
    for name, (tree, want) in cases.items():
        bad = check(tree)[0]
        assert any(want in b for b in bad), (name, bad)
    print("ok   layers/self-test: a reach upwards, an include of the CLI and a cycle are found")


DOC = "docs/architecture.md"
BEGIN, END = "<!-- layers:begin (tests/layers.py --update-doc) -->", "<!-- layers:end -->"
WHAT = {
    "core": "src/core, include/choke/core.h, hh.h: the queue discipline (libchoke)",
    "pkt": "src/pkt, include/choke/pkt.h: flow keys, ECN marking, checksums",
    "params": "src/params, include/choke/params.h: tc's words to a configuration",
    "util": "src/util: JSON and OpenMetrics label escaping, safe output files, options and the command table's parser",
    "sim": "src/sim: the simulator, its runner, sweeps, reports and plots",
    "replay": "src/replay: the pcap what-if replayer",
    "bridge": "src/bridge: choke bridge, its data path, counters and control socket",
    "exporter": "src/exporter: choke exporter (rtnetlink, HTTP, OpenMetrics)",
    "cli": "src/cli: the choke command (one file per command) and choke-demo",
    "kmod": "kmod: sch_libchoke.ko, the kernel host",
    "kmod/tc": "kmod/tc: the tc plugin of the module's chokeplus id",
    "bench": "bench: choke-bench and choke-blast",
    "ns3": "ns3: ns3::ChokeQueueDisc",
    "tests": "tests: unit, differential and CLI tests",
    "fuzz": "fuzz: libFuzzer targets",
}


def rules_table():
    rows = ["| room | what it is | may include |", "|---|---|---|"]
    for r in ALLOWED:
        rows.append("| `%s` | %s | %s |" % (
            r, WHAT[r], ", ".join("`%s`" % x for x in sorted(ALLOWED[r])) or "nothing else"))
    return "\n".join(rows) + "\n"


def doc_block(text):
    """The table between the markers in text, or None."""
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        return None
    return text[i + len(BEGIN):j].strip("\n") + "\n"


def update_doc():
    text = open(DOC, encoding="utf-8").read()
    if doc_block(text) is None:
        print("layers: %s has no %s ... %s markers" % (DOC, BEGIN, END))
        return 1
    i, j = text.find(BEGIN), text.find(END)
    new = text[:i + len(BEGIN)] + "\n" + rules_table() + text[j:]
    tmp = DOC + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, DOC)
    print("layers: rewrote the rules table in " + DOC)
    return 0


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(top)
    if "--rules" in sys.argv:
        sys.stdout.write(rules_table())
        return 0
    if "--update-doc" in sys.argv:
        return update_doc()
    self_test()
    texts = {}
    for root in ("src", "include", "kmod", "bench", "tests", "fuzz", "ns3"):
        for d, _, names in os.walk(root):
            for n in names:
                if n.endswith(SOURCE):
                    p = os.path.join(d, n)
                    texts[p] = open(p, encoding="utf-8", errors="replace").read()
    bad, rooms, edges = check(texts)
    if "--graph" in sys.argv:
        for r in sorted(rooms):
            print("%-9s -> %s" % (r, ", ".join(sorted(rooms[r]))))
    try:
        block = doc_block(open(DOC, encoding="utf-8").read())
    except OSError as e:
        block = None
        bad.append("cannot read %s: %s" % (DOC, e.strerror))
    if block is not None and block != rules_table():
        bad.append("%s's rules table is not ALLOWED's: run python3 tests/layers.py "
                   "--update-doc (and say why the rules changed)" % DOC)
    elif block is None and not any(b.startswith("cannot read") for b in bad):
        bad.append("%s has no rules table between its layers markers" % DOC)
    for b in bad:
        print("FAIL layers: " + b)
    if bad:
        return 1
    print("ok   layers: %d files, %d quoted includes, no rule broken, no cycle" % (
        len(edges), sum(len(v) for v in edges.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
