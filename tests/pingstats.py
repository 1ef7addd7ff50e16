# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""The round trips in the output of iputils' ping (-n), for the evaluations
(tests/kernel/peers-summary.py, tests/bridge-protect.sh)."""
import re


def pct(xs, p):
    """The p-th percentile of xs by nearest rank (None for no values)."""
    xs = sorted(xs)
    if not xs:
        return None
    return xs[max(0, min(len(xs) - 1, -(-p * len(xs) // 100) - 1))]


def ping(path):
    """{n: pings sent, p50, p99, mean: ms of those answered (None if none),
    loss: the share not answered (None if none was sent)}"""
    rtt = []
    sent = got = 0
    for line in open(path, errors="replace"):
        m = re.search(r"time=([0-9.]+) ms", line)
        if m:
            rtt.append(float(m.group(1)))
        m = re.search(r"(\d+) packets transmitted, (\d+) received", line)
        if m:
            sent, got = int(m.group(1)), int(m.group(2))
    if not sent:
        sent, got = len(rtt), len(rtt)
    return {"n": sent, "p50": pct(rtt, 50), "p99": pct(rtt, 99),
            "mean": sum(rtt) / len(rtt) if rtt else None,
            "loss": 1 - got / sent if sent else None}
