#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""One run of tests/kernel/guest-peers.sh, summarised as a JSON line.

Reads BASE.a and BASE.b (the guest kernel's counters at the two ends of the
measured window, and BASE.a.ss / BASE.b.ss: `ss -ti` in the receiving
namespace), BASE.c and BASE.d (the same just before the TCP clients started
and just after they ended), BASE.ping, BASE.tcpN (iperf3's JSON per client)
and BASE.udp (the floods' iperf3 JSON with the server's output, or with
--flood-src batch the report of tests/kernel/udpflood.c, which has no
intervals: the iperf3 totals' share is then left out).

The figures (all over the window, by the kernel's clock):
  share    the floods' payload bytes (the receiver's UDP datagrams times their
           payload) over all payload bytes received (TCP: tcp_info's
           bytes_received of each data connection)
  jain     Jain's index over the TCP data connections' bytes
  hosts    (hosts) each source address's TCP bytes over a quarter of all
  util     what tbf sent over the rate (frames with their Ethernet headers);
           util_rx the same from the receiving veth's counter; util_start
           what tbf sent from just before the TCP clients started to the
           window's start
  ping     the round trips of the pings answered inside the window: median,
           99th percentile (nearest rank), the share lost
  drift    the guest's wall clock over its kernel clock across the window
  offered  the floods' datagrams the sender's kernel took in the window (UDP
           OutDatagrams and SndbufErrors in the sending namespace: a datagram
           the qdisc dropped counts in the second) times their payload, over
           the twice the link asked: below 1, the source could not keep up
and, for comparison, section 12's method before issue 19 (`iperf3`):
iperf3's receiver totals over its whole test (slow start included) for the
TCP streams, the floods' bytes from the server's intervals inside it, and
tbf's bytes from just before the TCP clients started to just after they
ended (the seconds when no TCP flow was sending yet or any more included);
and Jain's index from iperf3's per-second intervals over about the window
(`jain_intervals`: a third count of the same thing).
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pingstats import ping  # noqa: E402  (tests/pingstats.py)


def counters(path):
    d = {}
    for line in open(path):
        key, _, rest = line.partition(" ")
        d[key] = rest.strip()
    tbf = [q for q in json.loads(d["tbf"]) if q["kind"] == "tbf"][0]
    udp = d["udp"].split()  # InDatagrams NoPorts InErrors
    return {"up": float(d["uptime"]), "wall": float(d["wall"]), "rx": int(d["rx"]),
            "udp": int(udp[0]) + int(udp[2]),
            "up_tbf": (float(d["uptime_tbf"]) + float(d["uptime_tbf2"])) / 2,
            "tbf": tbf["bytes"],
            # OutDatagrams SndbufErrors in the sending namespace (runs
            # before 2026-12-07 did not read them)
            "udp_out": sum(int(x) for x in d["udp_out"].split()) if "udp_out" in d else None}


def sockets(path):
    """(peer address, peer port) -> bytes_received, from `ss -tinH`."""
    out = {}
    peer = None
    for line in open(path):
        if not line.strip():
            continue
        if not line[0].isspace():
            w = line.split()
            addr, _, port = w[3].rpartition(":")
            addr = addr.strip("[]").replace("::ffff:", "")
            peer = (addr, int(port))
            out[peer] = 0
        elif peer is not None:
            m = re.search(r"\bbytes_received:(\d+)", line)
            out[peer] = int(m.group(1)) if m else 0
    return out


def jain(xs):
    s = sum(xs)
    return s * s / (len(xs) * sum(x * x for x in xs)) if s else 0.0


def iperf3_method(tcp_files, udp_file, k, rate_bps, c, d, warm, window, flood_src):
    """Section 12's figures as computed before issue 19, and Jain's index
    from iperf3's own per-second intervals (the senders' bytes) over about
    the window, from WARM seconds after its start for WINDOW seconds."""
    streams = []
    inwin = {}
    secs = None
    t_start = None
    for f in tcp_files:
        j = json.load(open(f))
        st = j.get("end", {}).get("streams", [])
        if not st:
            return {"failed": "iperf3: %s" % j.get("error", "no TCP streams")}
        streams += [s["receiver"]["bytes"] for s in st]
        secs = j["end"]["sum_received"]["seconds"]
        t_start = j["start"]["timestamp"]["timesecs"]
        for iv in j.get("intervals", []):
            for s in iv["streams"]:
                if s["start"] >= warm - 0.01 and s["end"] <= warm + window + 0.01:
                    key = (f, s["socket"])
                    inwin[key] = inwin.get(key, 0) + s["bytes"]
    out = {"jain": jain(streams), "jain_intervals": jain(list(inwin.values())),
           "util": (d["tbf"] - c["tbf"]) * 8 / (rate_bps * (d["up_tbf"] - c["up_tbf"]))}
    if k and flood_src == "iperf3":
        try:
            u = json.load(open(udp_file))
            t0 = t_start - u["start"]["timestamp"]["timesecs"]
        except (OSError, ValueError, KeyError) as e:
            return {"failed": "iperf3: floods: %s" % e}
        srv = u.get("server_output_json", {}).get("intervals", [])
        inside = [i["sum"] for i in srv if i["sum"]["start"] >= t0 - 0.5 and
                  i["sum"]["end"] <= t0 + secs + 1.5]
        if inside:
            udp = sum(i["bytes"] for i in inside) / sum(i["seconds"] for i in inside) * secs
            out["share"] = udp / (udp + sum(streams))
    return out


def main():
    ap = argparse.ArgumentParser()
    for o in ("workload", "label", "base"):
        ap.add_argument("--" + o, required=True)
    for o in ("k", "r", "rate", "udp-len"):
        ap.add_argument("--" + o, type=int, required=True)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--flood-src", default="iperf3", choices=("iperf3", "batch"))
    a = ap.parse_args()
    res = {"label": a.label, "k": a.k, "r": a.r, "workload": a.workload,
           "rate_kbit": a.rate, "udp_len": a.udp_len, "flood_src": a.flood_src}
    b = a.base
    tcp_files = []
    i = 0
    while True:
        try:
            open("%s.tcp%d" % (b, i)).close()
        except OSError:
            break
        tcp_files.append("%s.tcp%d" % (b, i))
        i += 1
    try:
        ca, cb = counters(b + ".a"), counters(b + ".b")
        sa, sb = sockets(b + ".a.ss"), sockets(b + ".b.ss")
        cc, cd = counters(b + ".c"), counters(b + ".d")
        old = iperf3_method(tcp_files, b + ".udp", a.k, a.rate * 1000.0, cc, cd, a.warmup,
                            a.seconds, a.flood_src)
    except (OSError, ValueError, KeyError, IndexError) as e:
        res["failed"] = "counters: %s" % e
        print(json.dumps(res))
        return
    if "failed" in old:
        res["failed"] = old["failed"]
        print(json.dumps(res))
        return
    dt = cb["up"] - ca["up"]
    # the data connections: those of the clients' fixed ports (iperf3's
    # control connections have ephemeral ports)
    flows = {}
    for key, v in sb.items():
        if 6001 <= key[1] <= 6999:
            flows[key] = v - sa.get(key, 0)
    tcp = [flows[key] for key in sorted(flows)]
    udp = (cb["udp"] - ca["udp"]) * a.udp_len
    ntcp = len(tcp)
    res.update({
        "seconds": round(dt, 3),
        "drift": round((cb["wall"] - ca["wall"]) / dt, 4) if dt > 0 else None,
        "tcp_flows": ntcp,
        "tcp_bytes": tcp,
        "udp_bytes": udp,
        "share": udp / (udp + sum(tcp)) if udp + sum(tcp) else 0.0,
        "fair": a.k / (ntcp + a.k) if a.k else None,
        "jain": jain(tcp) if tcp else 0.0,
        "util": (cb["tbf"] - ca["tbf"]) * 8 / (a.rate * 1000.0 * (cb["up_tbf"] - ca["up_tbf"])),
        "util_rx": (cb["rx"] - ca["rx"]) * 8 / (a.rate * 1000.0 * dt) if dt > 0 else 0.0,
        # from just before the TCP clients started to the window's start:
        # their start-up (seconds in UML) and first seconds
        "util_start": (ca["tbf"] - cc["tbf"]) * 8 / (a.rate * 1000.0 * (ca["up_tbf"] - cc["up_tbf"])),
        "offered": ((cb["udp_out"] - ca["udp_out"]) * a.udp_len * 8 /
                    (2 * a.rate * 1000.0 * (cb["up_tbf"] - ca["up_tbf"])))
        if a.k and ca["udp_out"] is not None and cb["udp_out"] is not None else None,
        "ping": ping(b + ".ping"),
        "iperf3": old,
    })
    if a.workload == "hosts":
        hosts = {}
        for (addr, _), v in flows.items():
            hosts[addr] = hosts.get(addr, 0) + v
        tot = sum(hosts.values())
        res["hosts"] = {h: (4 * v / tot if tot else 0.0) for h, v in sorted(hosts.items())}
        res["conns"] = {h: sum(1 for (x, _) in flows if x == h) for h in hosts}
        res["jain_hosts"] = jain(list(hosts.values()))
    if ntcp == 0:
        # iperf3's test ended before the window did (UML was slow to start
        # the clients or to read the counters): measured once more
        res["failed"] = "iperf3: no TCP data connections at the window's end"
    print(json.dumps(res))


if __name__ == "__main__":
    sys.exit(main())
