#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
"""Test captures for choke replay, written the way capture tools write them
(tests/replay-captures.sh uses them).

usage: pcapgen.py links DIR    the same traffic on every link type replay reads
       pcapgen.py formats DIR  the Ethernet capture as pcap in both byte orders
                               and both time resolutions, pcap 2.3, Kuznetzov's
                               format, pcapng (ns and us)
       pcapgen.py time DIR     a gap of three days, two captures concatenated,
                               a capture in the order two CPUs wrote it, a step
                               back beyond the reorder window
       pcapgen.py seeds DIR    fuzz seeds: DIR/flow (a frame of every link type
                               variant) and DIR/replay (small captures)
       pcapgen.py all DIR      links, formats and time in DIR/links, ...; and
                               in DIR/cuts, four of the formats cut inside a
                               record's header and inside its data

The traffic (2 s): a UDP flood (10.0.0.1 -> 10.9.9.9, every 0.5 ms, ECT(0)),
six TCP flows (every 20 ms, ECT(0)), four UDP flows over IPv6 behind a
destination options header (every 25 ms, ECT(1)), ICMP echo (every 100 ms) and a non-IP frame of
the link (every 50 ms). Every record's original length is 1100 bytes (the
IP lengths are what the link header leaves) and only the headers are
captured, so that the link carries the same bytes whatever its header: a
replay of any of these captures must give the Ethernet capture's flows and
verdicts.
"""
import os
import struct
import sys

ORIGLEN = 1100
HEAVY, LIGHT_TCP, LIGHT_V6, PING, NONIP = range(5)


# ---- IP packets (headers and 16 bytes of payload; the IP length says more)

def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(src, dst, proto, l4, tos=0):
    total = ORIGLEN - 14
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, total, 0x1234, 0x4000, 64, proto, 0,
                    bytes(src), bytes(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + l4


def ipv6(src, dst, nh, l4, tclass=0):
    plen = ORIGLEN - 14 - 40
    dstopts = bytes([nh, 0]) + bytes([1, 4, 0, 0, 0, 0])  # PadN to 8 bytes
    h = struct.pack("!IHBB16s16s", 6 << 28 | tclass << 20, plen, 60, 64, bytes(src), bytes(dst))
    return h + dstopts + l4


def tcp(sport, dport):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x18, 65535, 0, 0) + b"p" * 16


def udp(sport, dport):
    return struct.pack("!HHHH", sport, dport, ORIGLEN - 14 - 20, 0) + b"u" * 16


def icmp_echo(ident):
    return struct.pack("!BBHHH", 8, 0, 0, ident, 1) + b"i" * 16


def traffic():
    """(time in ns, kind, IP packet or None) for 2 s, in order of time"""
    ev = []
    for i in range(4000):
        ev.append((i * 500000, HEAVY, ipv4([10, 0, 0, 1], [10, 9, 9, 9], 17, udp(9000, 5001), 2)))
    for f in range(6):
        for i in range(100):
            ev.append((f * 3000000 + i * 20000000 + 137000, LIGHT_TCP,
                       ipv4([192, 0, 2, 10 + f], [198, 51, 100, 1], 6, tcp(40000 + f, 443), 2)))
    for f in range(4):
        src = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [0x10 + f]
        dst = [0x20, 0x01, 0x0d, 0xb8, 0, 1] + [0] * 9 + [1]
        for i in range(80):
            ev.append((f * 5000000 + i * 25000000 + 251000, LIGHT_V6,
                       ipv6(src, dst, 17, udp(5000 + f, 53), 1)))
    for i in range(20):
        ev.append((i * 100000000 + 377000, PING, ipv4([10, 0, 0, 2], [10, 0, 0, 3], 1, icmp_echo(7))))
    for i in range(40):
        ev.append((i * 50000000 + 419000, NONIP, None))
    ev.sort(key=lambda e: e[0])
    return ev


# ---- link layers: each wraps an IP packet, or makes its non-IP frame n

def le32(v):
    return struct.pack("<I", v)


def be32(v):
    return struct.pack(">I", v)


ETH_HDR = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2])


def eth(ip, n=0):
    if ip is None:  # ARP
        return ETH_HDR + b"\x08\x06" + bytes(28)
    return ETH_HDR + (b"\x86\xdd" if ip[0] >> 4 == 6 else b"\x08\x00") + ip


def ethertype(ip):
    return 0x86DD if ip[0] >> 4 == 6 else 0x0800


def null_frame(pack, af6):
    def wrap(ip, n=0):
        if ip is None:
            return pack(7) + bytes(20)  # OSI
        return pack(af6 if ip[0] >> 4 == 6 else 2) + ip
    return wrap


def ppp_frame(addr_ctl, compressed):
    def wrap(ip, n=0):
        head = b"\xff\x03" if addr_ctl else b""
        if ip is None:
            return head + b"\xc0\x21" + bytes([1, 1, 0, 4])  # LCP
        proto = 0x57 if ip[0] >> 4 == 6 else 0x21
        return head + (bytes([proto]) if compressed else struct.pack("!H", proto)) + ip
    return wrap


def chdlc(ip, n=0):
    if ip is None:  # SLARP
        return b"\x8f\x00\x80\x35" + bytes(18)
    return b"\x0f\x00" + struct.pack("!H", ethertype(ip)) + ip


def wifi_data(ip, qos, four, pad=False):
    fc = bytes([0x88 if qos else 0x08, 0x03 if four else 0x01])
    hdr = fc + b"\x2c\x00" + bytes([0x11] * 18) + b"\x10\x00"
    if four:
        hdr += bytes([0x22] * 6)
    if qos:
        hdr += b"\x05\x00"
    if pad:
        hdr += bytes(-len(hdr) % 4)
    return hdr + b"\xaa\xaa\x03\x00\x00\x00" + struct.pack("!H", ethertype(ip)) + ip


def wifi_nonip(n):
    """a beacon, an ACK, a protected data frame, a null-data frame"""
    k = n % 4
    if k == 0:
        return b"\x80\x00\x00\x00" + b"\xff" * 6 + bytes([0x11] * 12) + b"\x00\x00" + bytes(12) + \
            b"\x64\x00\x11\x04" + b"\x00\x05choke"
    if k == 1:
        return b"\xd4\x00\x00\x00" + bytes([0x11] * 6)
    if k == 2:
        return b"\x08\x41\x2c\x00" + bytes([0x11] * 18) + b"\x20\x00" + bytes(8) + b"\x5a" * 40
    return b"\x48\x01\x2c\x00" + bytes([0x11] * 18) + b"\x30\x00"


def wifi(qos_every, four):
    def wrap(ip, n=0):
        if ip is None:
            return wifi_nonip(n)
        return wifi_data(ip, n % qos_every == 0 if qos_every else False, four)
    return wrap


def radiotap(ext):
    """TSFT, Flags (the data padded to 4 bytes), Rate, Channel; or an
    extended presence bitmap, Flags without padding"""
    def wrap(ip, n=0):
        if ext:
            rt = struct.pack("<BBHII", 0, 0, 14, 0x80000002, 0x20000000) + b"\x00\x00"
            pad = False
        else:
            rt = struct.pack("<BBHI", 0, 0, 24, 0x0000000f) + bytes(8) + \
                struct.pack("<BBHH", 0x20, 0x0c, 2437, 0x00a0) + bytes(2)
            pad = True
        if ip is None:
            return rt + wifi_nonip(n)
        return rt + wifi_data(ip, True, False, pad)
    return wrap


def nflog_tlv(t, v, order):
    out = struct.pack(order + "HH", 4 + len(v), t) + v
    return out + bytes(-len(out) % 4)


def nflog(order):
    def wrap(ip, n=0):
        fam = 10 if ip is not None and ip[0] >> 4 == 6 else 2
        head = bytes([fam, 0, 0, 5]) + nflog_tlv(1, b"\x08\x00\x03\x00", order) + \
            nflog_tlv(10, b"choke\0", order)
        if ip is None:  # no payload: a log record of its metadata alone
            return head + nflog_tlv(3, bytes(16), order)
        # the payload TLV as long as the whole packet (only its start captured)
        return head + struct.pack(order + "HH", 4 + iplen(ip), 9) + ip
    return wrap


def pktap(dlt, inner):
    def wrap(ip, n=0):
        h = le32(108) + le32(1) + le32(dlt) + b"en0".ljust(24, b"\0") + bytes(108 - 36)
        return h + inner(ip, n)
    return wrap


def sll(ip, n=0):
    proto = 0x0806 if ip is None else ethertype(ip)
    return struct.pack("!HHH8sH", 0, 1, 6, bytes(ETH_HDR[:8]), proto) + (bytes(28) if ip is None else ip)


def sll2(ip, n=0):
    proto = 0x0806 if ip is None else ethertype(ip)
    return struct.pack("!HHIHBB8s", proto, 0, 2, 1, 0, 6, bytes(ETH_HDR[:8])) + \
        (bytes(28) if ip is None else ip)


# name: (LINKTYPE, wrapper, byte order of the file)
LINKS = {
    "ethernet": (1, eth, "<"),
    "null-macos": (0, null_frame(le32, 30), "<"),
    "null-freebsd-be": (0, null_frame(be32, 28), ">"),
    "loop": (108, null_frame(be32, 24), "<"),
    "ppp": (9, ppp_frame(True, False), "<"),
    "ppp-compressed": (9, ppp_frame(False, True), "<"),
    "ppp-hdlc": (50, ppp_frame(True, False), "<"),
    "ppp-hdlc-cisco": (50, chdlc, "<"),
    "c-hdlc": (104, chdlc, ">"),
    "wifi": (105, wifi(3, False), "<"),
    "wifi-4addr": (105, wifi(2, True), "<"),
    "radiotap": (127, radiotap(False), "<"),
    "radiotap-ext": (127, radiotap(True), "<"),
    "nflog": (239, nflog("<"), "<"),
    "nflog-be": (239, nflog(">"), ">"),
    "pktap-ethernet": (258, pktap(1, eth), "<"),
    "pktap-null": (258, pktap(0, null_frame(le32, 30)), "<"),
    "sll": (113, sll, ">"),
    "sll2": (276, sll2, "<"),
}


# ---- files

def pcap_header(order, linktype, nano, version=(2, 4), magic=None, snaplen=65535):
    if magic is None:
        magic = 0xa1b23c4d if nano else 0xa1b2c3d4
    return struct.pack(order + "IHHiIII", magic, version[0], version[1], 0, 0, snaplen, linktype)


def pcap_record(order, t, frame, nano, kuznetzov=False):
    frac = t % 10**9 if nano else t % 10**9 // 1000
    rec = struct.pack(order + "IIII", t // 10**9, frac, len(frame), ORIGLEN)
    if kuznetzov:
        rec += struct.pack(order + "IHBB", 2, 0x0800, 0, 0)
    return rec + frame


def write_pcap(path, linktype, records, order="<", nano=True, **kw):
    """records: (time in ns, frame)"""
    kuz = kw.pop("kuznetzov", False)
    with open(path, "wb") as f:
        f.write(pcap_header(order, linktype, nano, magic=0xa1b2cd34 if kuz else None, **kw))
        for t, fr in records:
            f.write(pcap_record(order, t, fr, nano, kuz))


def pcapng_block(btype, body):
    body += bytes(-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def write_pcapng(path, linktype, records, nano=True):
    shb = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    opts = (struct.pack("<HHB", 9, 1, 9) + bytes(3)) if nano else b""
    idb = struct.pack("<HHI", linktype, 0, 65535) + opts + struct.pack("<HH", 0, 0)
    with open(path, "wb") as f:
        f.write(pcapng_block(0x0A0D0D0A, shb))
        f.write(pcapng_block(1, idb))
        for t, fr in records:
            ts = t if nano else t // 1000
            f.write(pcapng_block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(fr),
                                                ORIGLEN) + fr))


T0 = 1733400000 * 10**9  # 2024-12-05


def fit(ip, total):
    """the packet with the lengths of one of total bytes (the record's
    original length less the link header), its checksum right"""
    ip = bytearray(ip)
    if ip[0] >> 4 == 4:
        struct.pack_into("!H", ip, 2, total)
        if ip[9] == 17:
            struct.pack_into("!H", ip, 24, total - 20)
        struct.pack_into("!H", ip, 10, 0)
        struct.pack_into("!H", ip, 10, csum(bytes(ip[:20])))
    else:
        struct.pack_into("!H", ip, 4, total - 40)
        struct.pack_into("!H", ip, 52, total - 48)  # UDP after 8 bytes of options
    return bytes(ip)


def iplen(ip):
    return struct.unpack_from("!H", ip, 2)[0] if ip[0] >> 4 == 4 else \
        40 + struct.unpack_from("!H", ip, 4)[0]


def frames(wrap, ev, base=T0):
    """(time, frame) of every event, each record ORIGLEN bytes long on
    the wire: the IP lengths say what is left after the link header"""
    out = []
    for n, (t, kind, ip) in enumerate(ev):
        fr = wrap(ip, n)
        if ip is not None:
            fr = wrap(fit(ip, ORIGLEN - (len(fr) - len(ip))), n)
        out.append((base + t, fr))
    return out


def cmd_links(d):
    ev = traffic()
    for name, (lt, wrap, order) in LINKS.items():
        write_pcap(os.path.join(d, name + ".pcap"), lt, frames(wrap, ev), order=order)


def cmd_formats(d):
    recs = frames(eth, traffic())  # every time a whole microsecond
    for order, o in (("<", "le"), (">", "be")):
        for nano in (False, True):
            write_pcap(os.path.join(d, "%s-%s.pcap" % (o, "ns" if nano else "us")), 1, recs,
                       order=order, nano=nano)
    write_pcap(os.path.join(d, "v23.pcap"), 1, recs, version=(2, 3), nano=False)
    write_pcap(os.path.join(d, "kuznetzov.pcap"), 1, recs, nano=False, kuznetzov=True)
    write_pcapng(os.path.join(d, "ns.pcapng"), 1, recs, nano=True)
    write_pcapng(os.path.join(d, "us.pcapng"), 1, recs, nano=False)
    # the file header alone: no records
    write_pcap(os.path.join(d, "empty.pcap"), 1, [])


def light(ev):
    return [e for e in ev if e[1] != HEAVY]


def move_ports(recs, delta):
    """other flows: the source port (or echo identifier) of every IP frame
    of an Ethernet capture moved on by delta"""
    out = []
    for t, fr in recs:
        at = None
        if fr[12:14] == b"\x08\x00":
            at = 38 if fr[23] == 1 else 34
        elif fr[12:14] == b"\x86\xdd":
            at = 62  # after the destination options header
        if at is not None:
            port = (struct.unpack_from("!H", fr, at)[0] + delta) & 0xffff
            fr = fr[:at] + struct.pack("!H", port) + fr[at + 2:]
        out.append((t, fr))
    return out


def cmd_time(d):
    ev = traffic()
    # overload for 2 s, three days of nothing, then light traffic of other
    # flows
    day3 = 3 * 86400 * 10**9
    later = move_ports(frames(eth, light(ev), T0 + day3), 1000)
    write_pcap(os.path.join(d, "gap.pcap"), 1, frames(eth, ev) + later)
    write_pcap(os.path.join(d, "gap-second.pcap"), 1, later)
    # two captures concatenated (mergecap -a): the second, of other flows,
    # began an hour before the first
    a = frames(eth, light(ev), T0 + 3600 * 10**9)
    b = move_ports(frames(eth, light(ev)), 2000)
    write_pcap(os.path.join(d, "concatenated.pcap"), 1, a + b)
    write_pcap(os.path.join(d, "concatenated-second.pcap"), 1, b)
    # as two CPUs wrote it: records swapped with a neighbour up to 300 us
    # earlier (timestamps kept); and the same in order
    recs = frames(eth, ev)
    x, out, i = 12345, list(recs), 0
    while i + 1 < len(out):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        if x >> 62 == 0 and 0 < out[i + 1][0] - out[i][0] <= 300000:
            out[i], out[i + 1] = out[i + 1], out[i]
            i += 2
        else:
            i += 1
    write_pcap(os.path.join(d, "cpus.pcap"), 1, out)
    write_pcap(os.path.join(d, "cpus-sorted.pcap"), 1, recs)
    # 70000 records 1 us apart, then one 69 ms back: the window (65536
    # records) has released those it goes before
    fr = eth(ipv4([10, 0, 0, 1], [10, 9, 9, 9], 17, udp(9000, 5001)))
    many = [(T0 + i * 1000, fr) for i in range(70000)] + [(T0 + 1000000, fr)]
    write_pcap(os.path.join(d, "beyond-window.pcap"), 1, many)


def cmd_seeds(d):
    flow = os.path.join(d, "flow")
    replay = os.path.join(d, "replay")
    os.makedirs(flow, exist_ok=True)
    os.makedirs(replay, exist_ok=True)
    # fuzz_flow.c: byte 0 & 15 picks the link type
    index = {0: 7, 108: 8, 9: 9, 50: 10, 104: 11, 105: 12, 127: 13, 239: 14, 258: 15}
    ev = traffic()
    pick = [e for e in ev if e[1] == LIGHT_TCP][:1] + [e for e in ev if e[1] == LIGHT_V6][:1] + \
        [e for e in ev if e[1] == NONIP][:1]
    for name, (lt, wrap, order) in LINKS.items():
        if lt not in index:
            continue
        for n, (t, kind, ip) in enumerate(pick):
            with open(os.path.join(flow, "%s-%d" % (name, n)), "wb") as f:
                f.write(bytes([index[lt]]) + wrap(ip, n))
    small = [e for e in ev if e[1] != HEAVY][:40]
    for name in ("radiotap", "nflog", "pktap-ethernet", "null-freebsd-be", "wifi-4addr"):
        lt, wrap, order = LINKS[name]
        write_pcap(os.path.join(replay, name + ".pcap"), lt, frames(wrap, small), order=order)
    recs = frames(eth, small)
    write_pcap(os.path.join(replay, "be-us.pcap"), 1, recs, order=">", nano=False)
    recs[5], recs[6] = recs[6], recs[5]
    recs[20] = (recs[20][0] - 5 * 10**9, recs[20][1])
    recs[30] = (recs[30][0] + 2 * 86400 * 10**9, recs[30][1])
    write_pcap(os.path.join(replay, "time-steps.pcap"), 1, recs)
    path = os.path.join(replay, "cut.pcap")
    write_pcap(path, 1, frames(eth, small))
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 20)


def cmd_cuts(d, formats):
    """files of the formats cut inside record 1000's header and inside its
    data (cut0-, cut1-), and at its start (whole-); a pcap cut inside the
    file header"""
    for name in ("le-ns.pcap", "be-us.pcap", "v23.pcap", "ns.pcapng"):
        data = open(os.path.join(formats, name), "rb").read()
        starts = []
        if name.endswith("pcapng"):
            off = 0
            while off < len(data):
                btype, blen = struct.unpack_from("<II", data, off)
                if btype == 6:
                    starts.append(off)
                off += blen
            inside = (5, 40)
        else:
            order = ">" if name.startswith("be") else "<"
            off = 24
            while off < len(data):
                starts.append(off)
                off += 16 + struct.unpack_from(order + "I", data, off + 8)[0]
            inside = (7, 26)
        k = starts[999]
        with open(os.path.join(d, "whole-" + name), "wb") as f:
            f.write(data[:k])
        for i, cut in enumerate(inside):
            with open(os.path.join(d, "cut%d-%s" % (i, name)), "wb") as f:
                f.write(data[:k + cut])
    with open(os.path.join(d, "header.pcap"), "wb") as f:
        f.write(open(os.path.join(formats, "le-ns.pcap"), "rb").read()[:10])


def cmd_all(d):
    for what, fn in (("links", cmd_links), ("formats", cmd_formats), ("time", cmd_time)):
        os.makedirs(os.path.join(d, what), exist_ok=True)
        fn(os.path.join(d, what))
    os.makedirs(os.path.join(d, "cuts"), exist_ok=True)
    cmd_cuts(os.path.join(d, "cuts"), os.path.join(d, "formats"))


def main():
    cmds = {"links": cmd_links, "formats": cmd_formats, "time": cmd_time, "seeds": cmd_seeds,
            "all": cmd_all}
    if len(sys.argv) != 3 or sys.argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    os.makedirs(sys.argv[2], exist_ok=True)
    cmds[sys.argv[1]](sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
