#!/usr/bin/env python3
"""The layer rules of docs/architecture.md, checked on every #include "...".

Each file belongs to a room (its directory; the public headers to the
layer they declare). A room may include only the rooms listed for it in
ALLOWED; nothing outside src/cli includes src/cli; and the graph of
quoted includes has no cycle. Prints every violation and exits 1, or
prints a one-line summary and exits 0.

Usage: python3 tests/layers.py [--graph]   (--graph: the room graph as text)
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
    "exporter": {"core", "params", "util", "bridge"},
    "cli": {"core", "params", "pkt", "util", "sim", "replay", "bridge", "exporter"},
    "kmod": {"core", "pkt"},
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


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(top)
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
    for b in bad:
        print("FAIL layers: " + b)
    if bad:
        return 1
    print("ok   layers: %d files, %d quoted includes, no rule broken, no cycle" % (
        len(edges), sum(len(v) for v in edges.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
