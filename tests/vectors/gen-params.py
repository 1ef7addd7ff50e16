#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Generate tests/vectors/params.vec: what stock iproute2 `tc` sends the kernel
for `tc qdisc add dev X root choke WORDS...`.

Usage (as root, from the repo root):
    python3 tests/vectors/gen-params.py > tests/vectors/params.vec

The method is the one of the tc-oracle tool (path from env TC_ORACLE, default
../shared/tools/tc-oracle relative to the repo root): run tc under
`strace -e trace=sendmsg -s 4000 -xx` inside a private network namespace
holding a veth pair (o0/o1) and decode the TCA_OPTIONS attribute of the
RTM_NEWQDISC request.  The kernel need not know choke: tc has computed and
sent the request before the kernel answers.  This script does the strace
parsing itself (so it can also capture tc's warnings on success) and uses one
namespace for the whole run.  With --check N it also runs the oracle itself
on every N-th case and compares (to stderr).

Output lines (in case-list order), '#' lines are comments:
    ok|WORDS|limit qth_min qth_max Wlog Plog Scell_log flags max_P|STABHEX|WARNINGS
    err|WORDS|ERROR-TEXT
WORDS: the tc words joined by single spaces.  A trailing empty word shows up
as a trailing space (split the field on ' ', not on whitespace runs).
STABHEX: the 256 TCA_CHOKE_STAB bytes as 512 lowercase hex digits.
WARNINGS / ERROR-TEXT: tc's stderr lines (strace lines and the kernel's
netlink reply removed) joined with ' / '; empty if none.
A case where tc dies by a signal is recorded as `err|WORDS|tc crashed: ...`.
A `# --- TAG` comment line starts each group of cases of one category.
"""
import concurrent.futures
import datetime
import hashlib
import os
import re
import shlex
import struct
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.environ.get("TC_ORACLE",
                        os.path.join(REPO, "..", "shared", "tools", "tc-oracle"))
WORKERS = 8
NS = "tcvec%d" % os.getpid()
DEV = "o0"

# ---------------------------------------------------------------- cases


def build_cases():
    cases = []          # list of (tag, [words])
    seen = set()

    def add(tag, words):
        if isinstance(words, str):
            words = shlex.split(words)
        key = tuple(words)
        if key in seen:
            return
        assert all("|" not in w and " " not in w for w in words), words
        seen.add(key)
        cases.append((tag, list(words)))

    # worked examples
    add("example", "limit 1000 bandwidth 10Mbit avpkt 1000")
    add("example", "limit 1000 min 100 max 300 avpkt 1000 burst 200 "
                   "bandwidth 10Mbit probability 0.02")
    add("example", "limit 90 min 10 max 30 probability 0.05 bandwidth 10Mbit")

    # defaults: limit N bandwidth R
    limits = [1, 2, 3, 4, 5, 7, 10, 12, 15, 16, 20, 30, 50, 64, 90, 100, 127,
              128, 255, 256, 300, 500, 1000, 1023, 1024, 2000, 5000, 10000,
              65535, 100000, 131071, 131072, 200000, 1000000, 4294967295]
    for rate in ["10mbit", "1mbit", "1gbit"]:
        for n in limits:
            add("default", "limit %d bandwidth %s" % (n, rate))

    # every rate suffix, in several letter cases
    suffixes = ["bit", "kbit", "Kibit", "mbit", "Mibit", "gbit", "Gibit",
                "tbit", "Tibit", "bps", "Bps", "kbps", "KBps", "KiBps", "mbps",
                "MBps", "MiBps", "gbps", "GBps", "GiBps", "tbps", "TBps",
                "TiBps"]
    for s in suffixes:
        for v in (s, s.upper(), s.swapcase()):
            add("rate-suffix", "limit 1000 bandwidth 10%s" % v)
    for s in ["kbit", "Kibit", "mbit", "Mibit", "KBps", "KiBps", "MBps", "MiBps"]:
        add("rate-suffix", "limit 1000 bandwidth 1%s" % s)
    for s in ["mBiT", "KiBiT", "gBpS", "kibps", "KIBPS", "b", "k", "m", "kb",
              "mb", "bits", "kbits", "mbits", "Kbit/s", "bit/s", "ibit", "ibps",
              "kibi", "bpS", "BIT"]:
        add("rate-suffix", "limit 1000 bandwidth 10%s" % s)

    # rate number formats
    for r in ["1.5mbit", "0.5kbit", "12bit", "1bit", "7bit", "8bit", "9bit",
              "15bit", "16bit", "17bit", "0.125", "1e6", "1e6bit", "2.5e3kbit",
              "1e-3kbit", "8e-3kbit", "1E7", "0x10mbit", "0x10", "0X1p20bit",
              "0x1.8p3kbit", "010mbit", "08mbit", "+10mbit", "+0x10mbit",
              "-5mbit", "-8", "-0", "-0.5bit", "0", "0bit", "0mbit", "0.0",
              "10xbit", "mbit", "''", "10mbitx", "10mbit%", "inf", "infbit",
              "INF", "infinity", "-inf", "nan", "nanbit", "NaN", "nan(1)",
              "1e400", "1e-400", "1.000001mbit", "10,5mbit", "1_000bit",
              "50%", "100%", "1%", "0%", "0.5%", "150%", "200%", "10.5%",
              "%", "50%x", "x%", "1e1%", "-50%", "0.0001%", "50.0%", "100.1%",
              "1000%", "50%%", "50%mbit", "inf%", "nan%"]:
        add("rate-format", "limit 1000 bandwidth %s" % r)
    add("rate-format", "limit 1000 bandwidth ''")

    # extreme bandwidths
    bits = list(range(1, 18)) + [20, 24, 31, 32, 50, 64, 99, 100]
    for b in bits:
        add("rate-extreme", "limit 1000 bandwidth %dbit" % b)
    for r in ["1kbit", "8kbit", "64kbit", "1mbit", "34.359738mbit",
              "34359738360bit", "34359738367bit", "34359738368bit",
              "34359738375bit", "34359738376bit", "34359738383bit",
              "4294967295Bps", "4294967296Bps", "4294967295.9Bps",
              "4GiBps", "4GBps", "32Gibit", "34gbit", "34.35gbit",
              "34.36gbit", "35gbit", "40gbit", "100gbit", "1tbit", "1e20bit",
              "18446744073709551616bit"]:
        add("rate-extreme", "limit 1000 bandwidth %s" % r)
    for a in [64, 100, 1000, 1500, 9000, 65535]:
        for r in ["7gbit", "7.9gbit", "8gbit", "8.1gbit", "9gbit", "10gbit",
                  "16gbit", "25gbit", "32gbit"]:
            add("xmit-zero", "limit 1000 bandwidth %s avpkt %d" % (r, a))
    # xmit time rounding probes: bytes/s rates where size*1e6/rate has a
    # fractional part >= .5 (truncate vs round differ)
    for r in ["4.8gbit", "5gbit", "6gbit", "3gbit", "2.4gbit", "1.5gbit",
              "600000000Bps", "666666667Bps", "999999999Bps", "1000000001Bps",
              "3mbit", "7mbit", "13mbit", "130mbit"]:
        add("xmit-round", "limit 1000 bandwidth %s avpkt 1000" % r)
    for r, a in [("1gbit", 100), ("1gbit", 60), ("1gbit", 188), ("8gbit", 1500),
                 ("8gbit", 1499), ("8gbit", 1999), ("16gbit", 3000),
                 ("16gbit", 2999), ("2gbit", 375), ("2gbit", 374)]:
        add("xmit-round", "limit 1000 bandwidth %s avpkt %d" % (r, a))

    # low rates: large Scell_log, idle damping table failure
    for r in ["1kbit", "100bit", "10bit", "8bit", "16bit", "64bit", "800bit",
              "8000bit", "80kbit", "256kbit"]:
        for a in [1000, 9000, 65535]:
            add("scell", "limit 1000 bandwidth %s avpkt %d" % (r, a))
    for r in ["8bit", "100bit", "1kbit", "10kbit", "100kbit", "1mbit"]:
        for burst in [50, 200, 1000, 5000, 20000]:
            add("scell", "limit 1000 min 10 max 300 bandwidth %s burst %d"
                % (r, burst))
    for r in ["8bit", "1kbit", "1mbit"]:
        for a in [40, 64]:
            add("scell", "limit 1000 bandwidth %s avpkt %d" % (r, a))
    for r in ["8bit", "16bit", "100bit"]:
        add("scell", "limit 100000 min 10 max 100000 bandwidth %s avpkt 65535 "
            "burst 100000" % r)
        add("scell", "limit 100000 min 1 max 100000 bandwidth %s avpkt 9000 "
            "burst 50000" % r)

    # avpkt values and size suffixes
    for a in ["0", "1", "2", "40", "64", "100", "576", "1000", "1500", "9000",
              "65535", "65536", "1000000", "4294967295", "4294967296"]:
        add("avpkt", "limit 1000 bandwidth 10mbit avpkt %s" % a)
    add("avpkt", "limit 1000 bandwidth 10mbit avpkt 0 burst 200")
    add("avpkt", "limit 1000 min 0 max 300 bandwidth 10mbit avpkt 0")
    add("avpkt", "limit 3 bandwidth 10mbit avpkt 0")
    for s in ["1k", "1kb", "1K", "1KB", "1m", "1mb", "1M", "1MB", "1g", "1gb",
              "1G", "1gbit", "1mbit", "8kbit", "1kbit", "8bit", "1000b", "1B",
              "1kibit", "1Kb", "1Mbit", "1.5k", "1.5", "0.5k", "0.1", "1e3",
              "0x100", "010", "-1", "-1k", "+1k", "k", "1x", "1kx", "''",
              "inf", "nan", "5tb", "4096m", "4095m", "4gb"]:
        add("avpkt", "limit 1000 bandwidth 10mbit avpkt %s" % s)

    # limit / min / max
    for w in ["limit 1000 min 100 max 300 bandwidth 10mbit",
              "limit 1000 min 300 max 300 bandwidth 10mbit",
              "limit 1000 min 301 max 300 bandwidth 10mbit",
              "limit 1000 min 100 max 1001 bandwidth 10mbit",
              "limit 1000 min 100 max 1000 bandwidth 10mbit",
              "limit 1000 min 999 max 1000 bandwidth 10mbit",
              "limit 1000 min 0 max 300 bandwidth 10mbit",
              "limit 1000 min 100 max 0 bandwidth 10mbit",
              "limit 1000 min 250 max 0 bandwidth 10mbit",
              "limit 1000 min 249 max 0 bandwidth 10mbit",
              "limit 1000 min 0 max 0 bandwidth 10mbit",
              "limit 1000 min 1 max 2 bandwidth 10mbit",
              "limit 1000 min 1 max 1000 bandwidth 10mbit",
              "limit 1000 max 3 bandwidth 10mbit",
              "limit 1000 max 2 bandwidth 10mbit",
              "limit 1000 max 1 bandwidth 10mbit",
              "limit 1000 min 1 bandwidth 10mbit",
              "limit 1000 min 83 bandwidth 10mbit",
              "limit 1000 min 84 bandwidth 10mbit",
              "limit 1 min 0 max 1 bandwidth 10mbit",
              "limit 2 min 1 max 2 bandwidth 10mbit",
              "limit 3 min 1 max 3 bandwidth 10mbit",
              "limit 4 bandwidth 10mbit avpkt 1",
              "limit 8 bandwidth 10mbit",
              "limit 11 bandwidth 10mbit",
              "limit 12 bandwidth 10mbit avpkt 100",
              "limit 131071 min 1000 max 131071 bandwidth 10mbit",
              "limit 131072 min 1000 max 131072 bandwidth 10mbit",
              "limit 4294967295 min 1 max 4294967295 bandwidth 10mbit",
              "limit 4294967295 min 4294967294 max 4294967295 bandwidth 10mbit",
              "limit 4294967295 min 4294967294 max 4294967295 bandwidth 10mbit avpkt 1",
              "limit 4294967295 max 4294967295 bandwidth 10mbit avpkt 1",
              "limit 100000 min 1 max 100000 bandwidth 10mbit avpkt 1",
              "limit 100000 min 50000 max 100000 bandwidth 10mbit avpkt 1",
              "limit 100000 min 65536 max 100000 bandwidth 10mbit avpkt 1",
              "limit 100000 min 65535 max 65536 bandwidth 10mbit avpkt 1",
              "limit 100000 min 32768 max 65535 bandwidth 10mbit avpkt 1",
              "limit 100000 min 32767 max 65535 bandwidth 10mbit avpkt 1",
              "limit 100000 min 16384 max 32768 bandwidth 10mbit avpkt 1"]:
        add("thresholds", w)

    # number parsing (get_unsigned base 0), abbreviations, syntax
    for v in ["0x10", "0X10", "010", "08", "0x", "-1", "-0", "+5", "4294967296",
              "1e3", "1000.0", "1k", "0x100000000", "00", "0", "''", "1000x",
              "18446744073709551615", "18446744073709551616", "-4294967295",
              "-4294967296", "0xffffffff", "037777777777"]:
        add("parse-limit", "limit %s bandwidth 10mbit" % v)
    for v in ["0x10", "010", "08", "-1", "-0", "+5", "4294967296", "1e3", "''",
              "0xffffffff"]:
        add("parse-min", "limit 1000 min %s max 300 bandwidth 10mbit" % v)
        add("parse-max", "limit 1000 min 10 max %s bandwidth 10mbit" % v)
        add("parse-burst", "limit 1000 burst %s bandwidth 10mbit" % v)
    for w in ["limit", "limit 1000 bandwidth", "limit 1000 bandwidth 10mbit min",
              "limit 1000 bandwidth 10mbit max", "limit 1000 bandwidth 10mbit burst",
              "limit 1000 bandwidth 10mbit avpkt",
              "limit 1000 bandwidth 10mbit probability",
              "limit 1000 bandwidth 10mbit harddrop",
              "limit 1000 bandwidth 10mbit adaptive",
              "limit 1000 bandwidth 10mbit foo",
              "limit 1000 bandwidth 10mbit help", "help", "",
              "help limit 1000 bandwidth 10mbit",
              "limit 1000 bandwidth 10mbit ''",
              "limit 1000 bandwidth 10mbit LIMIT 5",
              "limit 1000 bandwidth 10mbit Ecn",
              "limit 1000 bandwidth 10mbit ecn ecn",
              "limit 1000 bandwidth 10mbit nodrop",
              "limit 1000 bandwidth 10mbit qevent early_drop block 10",
              "lim 1000 bandwidth 10mbit", "limit 1000 band 10mbit",
              "limit 1000 bw 10mbit", "limit 1000 rate 10mbit",
              "limit 1000 bandwidth 10mbit b 100",
              "limit 1000 bandwidth 10mbit bu 100",
              "limit 1000 bandwidth 10mbit av 100",
              "limit 1000 bandwidth 10mbit avp 100",
              "limit 1000 bandwidth 10mbit prob 0.1",
              "limit 1000 bandwidth 10mbit p 0.1",
              "limit 1000 bandwidth 10mbit mi 10 ma 20",
              "limit 1000 bandwidth 10mbit e",
              "limit 1000 bandwidth 10mbit limit 2000",
              "limit 1000 bandwidth 10mbit bandwidth 1mbit",
              "limit 1000 bandwidth 10mbit avpkt 500 avpkt 1500",
              "limit 1000 bandwidth 10mbit min 10 min 20 max 40",
              "limit 1000 bandwidth 10mbit max 400 max 200",
              "limit 1000 bandwidth 10mbit burst 10 burst 100",
              "limit 1000 bandwidth 10mbit probability 0.5 probability 0.1",
              "limit 1000 bandwidth 10mbit limit 0",
              "limit 1000 bandwidth 10mbit bandwidth 0",
              "limit 1000 bandwidth 10mbit bandwidth bad",
              "bandwidth 10mbit limit 1000",
              "avpkt 1500 probability 0.1 max 300 burst 150 min 100 "
              "bandwidth 10mbit ecn limit 1000",
              "ecn bandwidth 1mbit min 5 limit 100",
              "bandwidth 10mbit", "limit 1000", "limit 0 bandwidth 10mbit",
              "min 10 max 30 bandwidth 10mbit",
              "limit 1000 min 10 max 30",
              "limit 1000 bandwidth 10mbit min 10 max 30 burst 0",
              "limit 1000 bandwidth 10mbit burst 0"]:
        add("syntax", w)

    # bursts around "too small" (a = burst + 1 - min*avpkt/avpkt)
    for mn, a in [(100, 1000), (10, 1000), (83, 1000), (1, 1000), (100, 1500),
                  (100, 1), (1000, 64), (5, 7)]:
        for b in [mn + 1, mn, mn - 1, mn - 2]:
            if b >= 0:
                add("burst-edge", "limit 10000 min %d max %d avpkt %d burst %d "
                    "bandwidth 10mbit" % (mn, mn * 3, a, b))
    for b in [1, 2, 3, 5, 100, 500, 511, 512, 513, 1000, 1023, 1024, 1025, 2000,
              5000, 10000, 100000, 1000000, 4294967295]:
        add("burst", "limit 10000 min 1 max 3000 burst %d bandwidth 10mbit" % b)
    for b in [1000, 5000, 100000, 1000000]:
        add("burst", "limit 1000 min 100 max 300 burst %d bandwidth 10mbit" % b)
    for b in [1000000, 10000000, 100000000, 1000000000, 2000000000, 4294967295]:
        add("burst", "limit 131071 min 1 max 131071 burst %d bandwidth 10mbit "
            "avpkt 1" % b)

    # warning text prints burst with %d (negative for burst >= 2^31)
    add("burst", "limit 4294967295 min 2147482949 max 2147483000 burst 2147483648 "
        "avpkt 1 bandwidth 10mbit")
    add("burst", "limit 4294967295 min 4294966596 max 4294967295 burst 4294967295 "
        "avpkt 1 bandwidth 10mbit")

    # probabilities
    probs = ["0", "1e-9", "1e-7", "1e-6", "0.0001", "0.001", "0.01", "0.02",
             "0.05", "0.1", "0.25", "0.5", "0.9", "0.99", "0.999999", "1",
             "1.0", "1.5", "2", "-0.1", "inf", "nan", "1e-300", "0x0.1p0",
             "foo", "5%"]
    gaps = [("limit 1000 min 10 max 11", 1), ("limit 1000 min 10 max 12", 2),
            ("limit 1000 min 10 max 20", 10), ("limit 1000 min 100 max 300", 200),
            ("limit 200000 min 1000 max 101000 burst 1001 avpkt 1", 100000)]
    few = ["0", "1e-9", "1e-6", "0.001", "0.02", "0.5", "0.999999", "1", "1.5",
           "inf", "nan", "0x0.1p0", "5%"]
    for base, gap in gaps:
        for p in (few if gap in (2, 100000) else probs):
            add("prob", "%s probability %s bandwidth 10mbit" % (base, p))
    add("prob", "limit 200000 min 1000 max 101000 burst 1001 probability 0.02 "
        "bandwidth 10mbit")
    for p in ["0.5x", "''", "-0", "1e-10", "4.656612873077393e-10",
              "2.3283064365386963e-10", "0.9999999999", "0.99999999999",
              "-1", "-inf", "1e300", "0.3333333333333333", "0x1p-32", "0x1p-33",
              ".5", "5.", "+0.5"]:
        add("prob", "limit 1000 min 10 max 20 probability %s bandwidth 10mbit"
            % p)

    # Wlog from float rounding in tc_red_eval_ewma (a = burst+1-min close to burst)
    for b in [4, 6, 8, 9, 12, 16, 17, 24, 32, 33, 48, 64]:
        add("wlog", "limit 10000 min 1 max 3000 burst %d bandwidth 10mbit" % b)
    for mn, b in [(2, 3), (2, 4), (3, 5), (10, 11), (10, 12), (100, 102),
                  (100, 110), (100, 150), (100, 300), (100, 1000)]:
        add("wlog", "limit 10000 min %d max 3000 burst %d bandwidth 10mbit"
            % (mn, b))
    for b in [2, 3, 5, 9, 17]:
        add("wlog", "limit 10000 min 1 max 3000 burst %d bandwidth 1gbit avpkt 64"
            % b)

    # ecn
    for w in ["limit 1000 bandwidth 10mbit ecn",
              "ecn limit 1000 bandwidth 10mbit",
              "limit 1000 ecn bandwidth 10mbit avpkt 1500",
              "limit 1000 min 100 max 300 ecn probability 0.1 bandwidth 10mbit",
              "limit 90 min 10 max 30 probability 0.05 bandwidth 10Mbit ecn",
              "limit 1000 bandwidth 10mbit ecn ecn ecn",
              "limit 1000 bandwidth 1kbit ecn",
              "limit 1000 bandwidth 10mbit ecn foo",
              "limit 1000 bandwidth 10mbit ECN"]:
        add("ecn", w)

    # u32 product overflow in tc (qth_min*avpkt, qth_max*avpkt mod 2^32)
    for w in ["limit 4294967295 bandwidth 10mbit",
              "limit 100000 min 50000 max 100000 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 42950 max 100000 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 42949 max 100000 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 42949 max 42950 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 1 max 42950 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 1 max 85900 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 1 max 85899 avpkt 100000 bandwidth 10mbit",
              "limit 100000 min 1 max 4295 avpkt 1000000 bandwidth 10mbit",
              "limit 100000 min 4294 max 4295 avpkt 1000000 bandwidth 10mbit",
              "limit 100000 min 4295 max 8590 avpkt 1000000 bandwidth 10mbit",
              "limit 10000000 min 1000000 max 5000000 bandwidth 10mbit",
              "limit 10000000 min 4294967 max 4294968 bandwidth 10mbit",
              "limit 10000000 min 4294966 max 4294967 bandwidth 10mbit",
              "limit 10000000 bandwidth 10mbit",
              "limit 20000000 bandwidth 10mbit",
              "limit 17179872 bandwidth 10mbit",
              "limit 17179868 bandwidth 10mbit",
              "limit 65536 min 1 max 65536 avpkt 65536 bandwidth 10mbit",
              "limit 65536 min 2 max 65536 avpkt 65536 bandwidth 10mbit",
              "limit 65536 min 2 max 65536 avpkt 65536 burst 1 bandwidth 10mbit",
              "limit 4294967295 bandwidth 10mbit avpkt 4294967295",
              "limit 4294967295 min 1 max 2 bandwidth 10mbit avpkt 4294967295",
              "limit 1000 min 1 max 2 bandwidth 10mbit avpkt 2147483648",
              "limit 1000 min 1 max 3 bandwidth 10mbit avpkt 2147483648",
              "limit 1000 min 2 max 3 bandwidth 10mbit avpkt 2147483648"]:
        add("overflow", w)

    # kernel red_check_params boundaries accepted by tc
    for w in ["limit 131071 min 1 max 131071 bandwidth 10mbit burst 1000000 avpkt 1",
              "limit 100000 min 65535 max 100000 bandwidth 10mbit burst 70000 avpkt 1",
              "limit 1000 min 100 max 300 burst 1000000 bandwidth 10mbit",
              "limit 1000 min 1 max 300 burst 1000000 bandwidth 10mbit avpkt 1",
              "limit 1000 min 1 max 300 burst 100000000 bandwidth 10mbit avpkt 1",
              "limit 4294967295 min 4294967294 max 4294967295 burst 4294967295 "
              "bandwidth 10mbit avpkt 1"]:
        add("kernel-check", w)
    return cases

# ---------------------------------------------------------------- running


def run(*a):
    return subprocess.run(list(a), capture_output=True, text=True)


STRACE_PREFIX = ("sendmsg(", "+++ ", "--- ")
KERNEL_REPLY = ("Error: ", "RTNETLINK answers:", "We have an error talking")


def run_case(words):
    r = run("ip", "netns", "exec", NS, "strace", "-e", "trace=sendmsg",
            "-s", "4000", "-xx", "tc", "qdisc", "add", "dev", DEV, "root",
            "choke", *words)
    lines = r.stderr.splitlines()
    m = re.search(r'nla_type=TCA_OPTIONS\}, "((?:\\x[0-9a-f]{2})+)"', r.stderr)
    if not m:
        tail = [l.strip() for l in lines if not l.startswith(STRACE_PREFIX)]
        tail = [l for l in tail if l]
        sig = [l for l in lines if l.startswith("+++ killed by")
               or l.startswith("--- SIG")]
        if sig:
            return ("err", "tc crashed: " + " / ".join(sig + tail))
        return ("err", " / ".join(tail))
    warn = []
    for l in lines:
        if l.startswith("sendmsg(") and "TCA_OPTIONS" in l:
            break
        if not l.startswith(STRACE_PREFIX) and l.strip():
            warn.append(l.strip())
    b = bytes(int(h, 16) for h in m.group(1).split("\\x")[1:])
    attrs, off = {}, 0
    while off + 4 <= len(b):
        ln, ty = struct.unpack_from("<HH", b, off)
        attrs[ty] = b[off + 4: off + ln]
        off += (ln + 3) & ~3
    nums = struct.unpack_from("<IIIBBBB", attrs[1])
    maxp = str(struct.unpack("<I", attrs[3])[0]) if 3 in attrs else "-"
    stab = attrs[2].hex() if 2 in attrs else "-"
    return ("ok", " ".join(map(str, nums)) + " " + maxp, stab, " / ".join(warn))


def oracle(words):
    r = run(ORACLE, *words)
    return r.stdout.strip()


def same_as_oracle(res, words):
    o = oracle(words)
    if res[0] == "ok":
        stab = bytes.fromhex(res[2])
        want = res[1] + " " + hashlib.sha1(stab).hexdigest()[:12]
        return o == want, o
    if not o.startswith("tc-error:"):
        return False, o
    if res[1].startswith("tc crashed"):
        return True, o
    raw = o[len("tc-error: "):]
    parts = [x.strip() for x in raw.split(" | ")]
    if len(raw) >= 300:                 # the oracle cuts its text at 300 chars
        return res[1].startswith(" / ".join(parts[:-1])), o
    return res[1] == " / ".join(x for x in parts if x), o


def main():
    check = 0
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        check = int(sys.argv[2])
    cases = build_cases()
    run("ip", "netns", "add", NS)
    try:
        r = run("ip", "netns", "exec", NS, "ip", "link", "add", DEV, "type",
                "veth", "peer", "name", "o1")
        if r.returncode:
            sys.exit("cannot create veth: " + r.stderr)
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as ex:
            results = list(ex.map(lambda c: run_case(c[1]), cases))
    finally:
        run("ip", "netns", "del", NS)

    if check:
        bad = 0
        idx = list(range(0, len(cases), check))
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as ex:
            outs = list(ex.map(lambda i: same_as_oracle(results[i], cases[i][1]),
                               idx))
        for i, (good, o) in zip(idx, outs):
            if not good:
                bad += 1
                print("MISMATCH %r: %r vs oracle %r" % (cases[i][1], results[i], o),
                      file=sys.stderr)
        print("checked %d cases against the oracle, %d mismatches"
              % (len(idx), bad), file=sys.stderr)

    ver = run("tc", "-V").stdout.strip()
    out = sys.stdout
    out.write("# SPDX-" "License-Identifier: GPL-2.0-only OR BSD-3-Clause\n")
    out.write("# SPDX-" "FileCopyrightText: 2026 The choke authors\n")
    out.write("# CHOKe parameter vectors: what stock tc sends for\n")
    out.write("#   tc qdisc add dev X root choke WORDS...\n")
    out.write("# generated by tests/vectors/gen-params.py (tc under strace in a netns,\n")
    out.write("#   same method as tc-oracle): python3 tests/vectors/gen-params.py > tests/vectors/params.vec\n")
    out.write("# tc -V: %s\n" % ver)
    out.write("# date: %s\n" % datetime.datetime.now(datetime.timezone.utc)
              .strftime("%Y-%m-%d %H:%M:%S UTC"))
    out.write("# /proc/net/psched: %s\n" % open("/proc/net/psched").read().strip())
    out.write("# format: ok|WORDS|limit qth_min qth_max Wlog Plog Scell_log flags max_P|STABHEX|WARNINGS\n")
    out.write("#         err|WORDS|ERROR-TEXT   (stderr lines joined with ' / ')\n")
    out.write("# WORDS are split on single spaces; a trailing space means a trailing empty word.\n")
    nok = sum(1 for r in results if r[0] == "ok")
    out.write("# cases: %d (ok %d, err %d)\n" % (len(cases), nok, len(cases) - nok))
    last = None
    for (tag, words), res in zip(cases, results):
        if tag != last:
            out.write("# --- %s\n" % tag)
            last = tag
        w = " ".join(words)
        if res[0] == "ok":
            out.write("ok|%s|%s|%s|%s\n" % (w, res[1], res[2], res[3]))
        else:
            out.write("err|%s|%s\n" % (w, res[1]))


if __name__ == "__main__":
    main()
