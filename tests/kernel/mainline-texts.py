#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Rebuild the mainline texts of net/sched/sch_choke.c the patch series in
upstream/linux/ is checked against, from Debian's linux-source-6.1 text and
the upstream commits known to have touched the file since, without network
access. Each step that upstream recorded as a blob id is checked with
`git hash-object`: a mismatch fails.

    mainline-texts.py SCH_CHOKE_C OUTDIR

writes OUTDIR/NAME/net/sched/sch_choke.c for every NAME below (a tree
`patch -p1` applies to) and prints one line per text: NAME, blob id,
verified or not, what it is.

The steps (facts about upstream history; the edits are ours). The blob
ids come from the "index" lines of upstream's and the stable trees' own
patch mails (a pair old..new per commit), so each step is checked against
the text upstream had:
  linux-6.1.y    Debian's 6.1.192 text as shipped (stable backports of
                 5eb7de8cd58e and d3aeb889dcbd included)
  v6.1           the same without those two backports        3ac3e5c80b6f
  v6.2           prandom_u32_max() -> get_random_u32_below()  19c851125901
  description    MODULE_DESCRIPTION() appended                ae1da08e268f
  alias          MODULE_ALIAS_NET_SCH("choke")                ea108030c6b4
  lockless-dump  choke_dump() with READ_ONCE(), WRITE_ONCE()
                 in choke_change() (7253c1d1e7a5)             91072010923d
  nla-default    nla_get_u32_default() for TCA_CHOKE_MAX_P    1e940ad0d2fa
  qlen-order     5eb7de8cd58e ("net: sched: fix ordering of
                 qlen adjustment", v6.13-rc3; 6.18.y until the
                 backport below)                              59e7bdf5063e
  linux-6.18.y   6.18.y: qlen-order + d3aeb889dcbd's backport
                 (the text of 6.18.44, read from its tree)    ea6ef76c2965
  kvzalloc       v7.0: kvcalloc() -> kvzalloc_objs()          94df8e741a97
  annotate       d3aeb889dcbd ("net/sched: sch_choke: annotate
                 data-races in choke_dump_stats()", net, April
                 2026: v7.1; 7.0.y by backport)               2875bcdb18a4
  current        v7.2-rc1 on, net and net-next: 863cd7865201 ("net/sched:
                 add qdisc_qlen_inc() and qdisc_qlen_dec()", net-next, May
                 2026) turns the four qlen updates into the helpers. NOT
                 verified by blob (no mail of it with an index line was
                 at hand); the text agrees with a derived copy of a 2026
                 tree's sch_choke.c.
"""
import os
import re
import subprocess
import sys

# name -> the blob upstream recorded for it (prefix), or None
STEPS = [
    ("linux-6.1.y", None, "Debian linux-source-6.1 (6.1.192)"),
    ("v6.1", "3ac3e5c80b6f", "mainline v6.1"),
    ("v6.2", "19c851125901", "mainline from v6.2 (get_random_u32_below)"),
    ("description", "ae1da08e268f", "+ MODULE_DESCRIPTION (2024)"),
    ("alias", "ea108030c6b4", "+ MODULE_ALIAS_NET_SCH (2024)"),
    ("lockless-dump", "91072010923d", "+ lockless choke_dump() (v6.10)"),
    ("nla-default", "1e940ad0d2fa", "+ nla_get_u32_default() (v6.13-rc1)"),
    ("qlen-order", "59e7bdf5063e", "+ 5eb7de8cd58e qlen ordering (v6.13-rc3; 6.18.y before d3aeb889dcbd)"),
    ("linux-6.18.y", "ea6ef76c2965", "6.18.y: qlen-order + d3aeb889dcbd backported (6.18.44)"),
    ("kvzalloc", "94df8e741a97", "qlen-order + kvzalloc_objs() (v7.0)"),
    ("annotate", "2875bcdb18a4", "+ d3aeb889dcbd counter annotations (v7.1, 7.0.y)"),
    ("current", None, "+ 863cd7865201 qdisc_qlen_inc/dec (v7.2-rc1 on, net, net-next)"),
]


class Text:
    def __init__(self, s):
        self.s = s

    def sub(self, old, new, count=1):
        n = self.s.count(old)
        if n != count:
            sys.exit("mainline-texts: expected %d of %r, found %d" % (count, old[:60], n))
        self.s = self.s.replace(old, new)

    def resub(self, pattern, repl, count):
        s, n = re.subn(pattern, repl, self.s)
        if n != count:
            sys.exit("mainline-texts: expected %d of /%s/, found %d" % (count, pattern, n))
        self.s = s


QLEN_BEFORE = ("\t--sch->q.qlen;\n\tqdisc_qstats_backlog_dec(sch, skb);\n"
               "\tqdisc_tree_reduce_backlog(sch, 1, qdisc_pkt_len(skb));\n"
               "\tqdisc_drop(skb, sch, to_free);\n}")
QLEN_AFTER = ("\tqdisc_qstats_backlog_dec(sch, skb);\n"
              "\tqdisc_tree_reduce_backlog(sch, 1, qdisc_pkt_len(skb));\n"
              "\tqdisc_drop(skb, sch, to_free);\n\t--sch->q.qlen;\n}")
STATS_PLAIN = ("\t\t.early\t= q->stats.prob_drop + q->stats.forced_drop,\n"
               "\t\t.marked\t= q->stats.prob_mark + q->stats.forced_mark,\n"
               "\t\t.pdrop\t= q->stats.pdrop,\n"
               "\t\t.matched = q->stats.matched,")
STATS_ONCE = ("\t\t.early\t= READ_ONCE(q->stats.prob_drop) +\n"
              "\t\t\t  READ_ONCE(q->stats.forced_drop),\n"
              "\t\t.marked\t= READ_ONCE(q->stats.prob_mark) +\n"
              "\t\t\t  READ_ONCE(q->stats.forced_mark),\n"
              "\t\t.pdrop\t= READ_ONCE(q->stats.pdrop),\n"
              "\t\t.matched = READ_ONCE(q->stats.matched),")


def unannotate(t):
    """d3aeb889dcbd undone: plain counter increments and reads."""
    t.resub(r"WRITE_ONCE\(q->stats\.(\w+),\s*q->stats\.\1 \+ 1\);", r"q->stats.\1++;", 6)
    t.sub(STATS_ONCE, STATS_PLAIN)


def annotate(t):
    """d3aeb889dcbd as 6.1.192 carries it."""
    for f in ("matched", "pdrop"):
        t.sub("q->stats.%s++;" % f, "WRITE_ONCE(q->stats.%s, q->stats.%s + 1);" % (f, f))
    # (the continuation lines' indentation as upstream has it: one of
    # them is spaces only)
    for f, ind, cont in (("forced_drop", "\t\t\t\t", "\t   "),
                         ("forced_mark", "\t\t\t", "\t   "),
                         ("prob_drop", "\t\t\t\t\t", " " * 11),
                         ("prob_mark", "\t\t\t\t", "\t   ")):
        t.sub("%sq->stats.%s++;" % (ind, f),
              "%sWRITE_ONCE(q->stats.%s,\n%s%sq->stats.%s + 1);" %
              (ind, f, ind, cont, f))
    t.sub(STATS_PLAIN, STATS_ONCE)


def texts(src):
    t = Text(src)
    yield "linux-6.1.y", t.s
    t.sub(QLEN_BEFORE, QLEN_AFTER)
    unannotate(t)
    yield "v6.1", t.s
    t.sub("prandom_u32_max(", "get_random_u32_below(")
    yield "v6.2", t.s
    t.s += 'MODULE_DESCRIPTION("Choose and keep responsive flows scheduler");\n'
    yield "description", t.s
    t.sub("\t.owner\t\t=\tTHIS_MODULE,\n};\n",
          "\t.owner\t\t=\tTHIS_MODULE,\n};\nMODULE_ALIAS_NET_SCH(\"choke\");\n")
    yield "alias", t.s
    t.sub("\tq->flags = ctl->flags;\n\tq->limit = ctl->limit;\n",
          "\tWRITE_ONCE(q->flags, ctl->flags);\n\tWRITE_ONCE(q->limit, ctl->limit);\n")
    t.sub("\tstruct choke_sched_data *q = qdisc_priv(sch);\n\tstruct nlattr *opts = NULL;\n",
          "\tstruct choke_sched_data *q = qdisc_priv(sch);\n\tu8 Wlog = READ_ONCE(q->parms.Wlog);\n"
          "\tstruct nlattr *opts = NULL;\n")
    for field, expr in (("limit\t\t", "q->limit"), ("flags\t\t", "q->flags"),
                        ("Plog\t\t", "q->parms.Plog"), ("Scell_log\t", "q->parms.Scell_log")):
        t.sub("\t\t.%s= %s,\n" % (field, expr), "\t\t.%s= READ_ONCE(%s),\n" % (field, expr))
    for th in ("qth_min", "qth_max"):
        t.sub("\t\t.%s\t= q->parms.%s >> q->parms.Wlog,\n" % (th, th),
              "\t\t.%s\t= READ_ONCE(q->parms.%s) >> Wlog,\n" % (th, th))
    t.sub("\t\t.Wlog\t\t= q->parms.Wlog,\n", "\t\t.Wlog\t\t= Wlog,\n")
    t.sub("nla_put_u32(skb, TCA_CHOKE_MAX_P, q->parms.max_P))",
          "nla_put_u32(skb, TCA_CHOKE_MAX_P, READ_ONCE(q->parms.max_P)))")
    yield "lockless-dump", t.s
    t.sub("max_P = tb[TCA_CHOKE_MAX_P] ? nla_get_u32(tb[TCA_CHOKE_MAX_P]) : 0;",
          "max_P = nla_get_u32_default(tb[TCA_CHOKE_MAX_P], 0);")
    yield "nla-default", t.s
    t.sub(QLEN_AFTER, QLEN_BEFORE)
    yield "qlen-order", t.s
    t618 = Text(t.s)
    annotate(t618)
    yield "linux-6.18.y", t618.s
    t.sub("ntab = kvcalloc(mask + 1, sizeof(struct sk_buff *), GFP_KERNEL);",
          "ntab = kvzalloc_objs(struct sk_buff *, mask + 1);")
    yield "kvzalloc", t.s
    annotate(t)
    yield "annotate", t.s
    t.sub("--sch->q.qlen;", "qdisc_qlen_dec(sch);", 3)
    t.sub("++sch->q.qlen;", "qdisc_qlen_inc(sch);")
    yield "current", t.s


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mainline-texts.py SCH_CHOKE_C OUTDIR")
    src = open(sys.argv[1]).read()
    out = sys.argv[2]
    want = {name: (blob, what) for name, blob, what in STEPS}
    for name, s in texts(src):
        d = os.path.join(out, name, "net", "sched")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "sch_choke.c")
        with open(path + ".tmp", "w") as f:
            f.write(s)
        os.replace(path + ".tmp", path)
        blob = subprocess.run(["git", "hash-object", path], check=True,
                              capture_output=True, text=True).stdout.strip()
        expect, what = want[name]
        if expect and not blob.startswith(expect):
            sys.exit("mainline-texts: %s: blob %s, upstream recorded %s" % (name, blob, expect))
        state = "verified" if expect else ("as-shipped" if name == "linux-6.1.y" else "unverified")
        print("%-14s %s %-10s %s" % (name, blob[:12], state, what))


if __name__ == "__main__":
    main()
