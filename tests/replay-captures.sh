#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke replay on captures written the way other tools write them
# (tests/pcapgen.py): the same traffic on every link type it reads against
# the Ethernet capture (same flows, same verdicts, the same packets
# written), every file format against each other (its own reader and
# libpcap's), a gap of days, concatenated captures, the order two CPUs
# wrote, a step back beyond the window, and files cut inside a record.
# The replays run first, then one python process checks them all.
# Usage: CHOKE=build/gcc/choke sh tests/replay-captures.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   replay-captures/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL replay-captures/$1: $2"; }

python3 "$here/pcapgen.py" all "$tmp" || bad pcapgen "exit $?"
mkdir "$tmp/out"
# the bottleneck: 8 Mbit/s (1.1 ms a record), CHOKe with ECN (the flood
# loses to matches, the rest is marked now and then)
WORDS="choke limit 100 min 10 max 40 probability 0.5 ecn"

# replay NAME FILE [ARGS...]: the JSON report in out/NAME.json, the packets
# in out/NAME.pcap, standard error in out/NAME.err, the exit status in
# out/NAME.st
replay() {
	_out=$tmp/out/$1 _in=$2
	shift 2
	"$CHOKE" replay --json --top 0 --rate 8mbit --write "$_out.pcap" "$_in" "$@" \
		>"$_out.json" 2>"$_out.err"
	echo $? >"$_out.st"
}
# expect NAME STATUS [PATTERN]: NAME's exit status, and its standard error
# has a line matching PATTERN
expect() {
	if [ "$(cat "$tmp/out/$1.st")" = "$2" ] &&
		{ [ -z "${3:-}" ] || grep -q -- "$3" "$tmp/out/$1.err"; }; then ok "$1-exit-$2"
	else bad "$1-exit-$2" "exit $(cat "$tmp/out/$1.st"): $(cat "$tmp/out/$1.err")"; fi
}

# 1. every link type (links/NAME.pcap: the same packets as ethernet.pcap)
for f in "$tmp"/links/*.pcap; do
	replay "links-$(basename "$f" .pcap)" "$f" $WORDS
	expect "links-$(basename "$f" .pcap)" 0
done
# 2. every file format
for f in "$tmp"/formats/*; do
	replay "formats-$(basename "$f")" "$f" $WORDS
	expect "formats-$(basename "$f")" 0
done
# 3. time: gaps, steps back, reordering; --strict accepts what keeps the
#    capture's times (a gap, reordering put right), refuses what changes
#    one (a step back, a record held)
T=$tmp/time
replay gap "$T/gap.pcap" $WORDS
expect gap 0 "note: .*gap.pcap: 1 gaps of more than a day, replayed as idle time"
replay gap-second "$T/gap-second.pcap" $WORDS
replay concatenated "$T/concatenated.pcap" fifo limit 1000
expect concatenated 0 "warning: .*concatenated.pcap: 1 steps back of more than 1 s, each taken as the capture's clock stepping back"
replay concatenated-second "$T/concatenated-second.pcap" fifo limit 1000
replay cpus "$T/cpus.pcap" $WORDS
expect cpus 0 "warning: .*cpus.pcap: [0-9]* timestamps earlier than the record before them, put back in order of time"
replay cpus-sorted "$T/cpus-sorted.pcap" $WORDS
"$CHOKE" replay --json --rate 10gbit "$T/beyond-window.pcap" fifo limit 1000 \
	>"$tmp/out/beyond.json" 2>"$tmp/out/beyond.err"
echo $? >"$tmp/out/beyond.st"
expect beyond 0 "warning: .*: 1 timestamps earlier than records already replayed (beyond the window of 65536 records), each replayed at the time of the last of them"
strict() {
	name=$1 want=$2 msg=$3 file=$4
	"$CHOKE" replay --strict --rate 10gbit "$file" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = "$want" ] && { [ -z "$msg" ] || grep -q -- "$msg" "$tmp/e"; } &&
		{ [ "$want" = 0 ] || [ ! -s "$tmp/o" ]; }; then ok "strict-$name"
	else bad "strict-$name" "exit $st: $(cat "$tmp/e")"; fi
}
strict gap-accepted 0 "" "$T/gap.pcap"
strict reordering-accepted 0 "" "$T/cpus.pcap"
strict step-back-refused 1 "concatenated.pcap: record 981: timestamp is 3601.995000 s before the previous record's (more than 1 s: a step back of the capture's clock) (refused: --strict)" "$T/concatenated.pcap"
strict held-refused 1 "beyond-window.pcap: record 70001: timestamp is 0.003464 s before a record already replayed (the window holds 65536 records) (refused: --strict)" "$T/beyond-window.pcap"
# 4. cut files: the replay's own reader (both byte orders), libpcap's (pcap
#    2.3, pcapng); exit 3 and a warning naming the record
for name in le-ns.pcap be-us.pcap v23.pcap ns.pcapng; do
	replay "whole-$name" "$tmp/cuts/whole-$name" $WORDS
	expect "whole-$name" 0
	for i in 0 1; do
		replay "cut$i-$name" "$tmp/cuts/cut$i-$name" $WORDS
		expect "cut$i-$name" 3 "^choke: replay: warning: .*cut$i-$name is cut: the file ends inside record 1000.*; the 999 records before it are replayed and reported (exit status 3)\$"
		if cmp -s "$tmp/out/cut$i-$name.pcap" "$tmp/out/whole-$name.pcap"; then
			ok "cut$i-$name-writes-the-records-before-the-cut"
		else bad "cut$i-$name-writes-the-records-before-the-cut" "the --write output differs"; fi
	done
	strict "cut-$name-refused" 1 "cut0-$name: the file ends inside record 1000.*(refused: --strict)" "$tmp/cuts/cut0-$name"
done
"$CHOKE" replay --rate 8mbit "$tmp/cuts/header.pcap" >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -q "header.pcap: truncated dump file; tried to read 24 file header bytes" "$tmp/e"; then
	ok cut-in-file-header-refused
else bad cut-in-file-header-refused "exit $st: $(cat "$tmp/e")"; fi

# the reports and the packets written, all in one python
python3 - "$tmp" >"$tmp/py" 2>&1 <<'PY'
import json, os, struct, sys, traceback
d = sys.argv[1]
out = d + "/out/"

def records(path):
    data = open(path, "rb").read()
    magic, lt = struct.unpack_from("<I", data, 0)[0], struct.unpack_from("<I", data, 20)[0]
    assert magic == 0xa1b23c4d, hex(magic)
    recs, off = [], 24
    while off < len(data):
        sec, ns, cap, ln = struct.unpack_from("<IIII", data, off)
        recs.append((sec * 10**9 + ns, ln, data[off + 16:off + 16 + cap]))
        off += 16 + cap
    return lt, recs

def report(name, drop=("file",)):
    j = json.load(open(out + name + ".json"))
    for k in drop:
        j.pop(k, None)
    return j

def label(x):
    return "%s %s %s:%d>%s:%d" % (x["kind"], x["proto"], x["src"], x["sport"], x["dst"], x["dport"])

def flows(j):
    return {label(x): x for x in j["flows"]}

def check(name, fn, *args):
    try:
        note = fn(*args)
        print("ok   replay-captures/%s%s" % (name, " (%s)" % note if note else ""))
    except Exception:
        print("FAIL replay-captures/%s: %s" % (name, traceback.format_exc().strip().splitlines()[-1]))

# 1. the Ethernet capture's flows and verdicts; the one non-IP flow (ARP on
#    Ethernet; beacons, ACKs, LCP, SLARP... elsewhere) with the same counts;
#    the same packets written at the same times with the same ECN marks
#    (the IP lengths and checksum aside: the link header changes them), on
#    the input's link type
def link(name):
    ref, j = report("links-ethernet"), report("links-" + name)
    for k in ref:
        if k not in ("linktype", "flows"):
            assert j[k] == ref[k], (k, j[k], ref[k])
    rf, jf = flows(ref), flows(j)
    ip = lambda fl: {k: v for k, v in fl.items() if not k.startswith("non-ip")}
    assert ip(jf) == ip(rf), sorted(set(ip(jf)) ^ set(ip(rf)))
    rn = [v for k, v in rf.items() if k.startswith("non-ip")]
    jn = [v for k, v in jf.items() if k.startswith("non-ip")]
    assert len(rn) == 1 and len(jn) == 1 and rn[0]["offered_pkts"] == 40, (rn, jn)
    rn[0].pop("ethertype"), jn[0].pop("ethertype")
    assert rn[0] == jn[0], (rn, jn)
    head = open("%s/links/%s.pcap" % (d, name), "rb").read(24)
    lt_in, = struct.unpack_from("<I" if head[0] == 0x4d else ">I", head, 20)
    rlt, rrec = records(out + "links-ethernet.pcap")
    jlt, jrec = records(out + "links-%s.pcap" % name)
    assert jlt == lt_in and len(jrec) == len(rrec) == j["written"] > 0, (jlt, lt_in, len(jrec))
    marks = 0
    for (rt, rl, r), (jt, jl, x) in zip(rrec, jrec):
        assert rt == jt and rl == jl
        if r[12:14] not in (b"\x08\x00", b"\x86\xdd"):
            continue
        a, b = bytearray(r[14:]), bytearray(x[-(len(r) - 14):])
        if a[0] >> 4 == 4:
            s = sum(struct.unpack("!10H", bytes(b[:20])))
            while s >> 16:
                s = (s & 0xffff) + (s >> 16)
            assert s == 0xffff, "IPv4 checksum"
            marks += a[1] & 3 == 3
            fields = ((2, 4), (10, 12), (24, 26) if a[9] == 17 else (0, 0))
        else:
            marks += (a[1] >> 4) & 3 == 3
            fields = ((4, 6), (52, 54))
        for lo, hi in fields:
            a[lo:hi] = b[lo:hi] = bytes(hi - lo)
        assert a == b, rt
    assert marks > 0
    return "%d flows, %d delivered, %d matched, %d CE written" % (
        len(jf), j["totals"]["delivered_pkts"], j["totals"]["matched"], marks)

for f in sorted(os.listdir(d + "/links")):
    if f != "ethernet.pcap":
        check("link-" + f[:-5], link, f[:-5])

# 2. the same report and the same packets written from every format
def fmt(name):
    assert report("formats-" + name) == report("formats-le-ns.pcap")
    a = open(out + "formats-%s.pcap" % name, "rb").read()
    b = open(out + "formats-le-ns.pcap.pcap", "rb").read()
    if name == "kuznetzov.pcap":  # libpcap's snaplen for it is 14 bytes more
        a, b = a[:16] + a[20:], b[:16] + b[20:]
    assert a == b

for f in sorted(os.listdir(d + "/formats")):
    if f not in ("le-ns.pcap", "empty.pcap"):
        check("format-" + f, fmt, f)

def empty():
    j = report("formats-empty.pcap")
    assert j["packets_read"] == 0 and j["totals"]["offered_pkts"] == 0

check("format-no-records", empty)

# 3. a gap of three days: every record replayed; the gap is idle time (the
#    queue empty, RED's average decayed): the light traffic after it fares
#    exactly as it does alone
def gap():
    j, s = report("gap"), report("gap-second")
    assert j["packets_read"] == j["totals"]["offered_pkts"] == 4980 + s["packets_read"]
    assert sum(j["skipped"].values()) == 0
    assert j["time"] == {"sorted": 0, "held": 0, "steps_back": 0, "gaps_over_a_day": 1}, j["time"]
    assert abs(j["capture_seconds"] - (3 * 86400 + 1.99)) < 0.02, j["capture_seconds"]
    jf, sf = flows(j), flows(s)
    after = [k for k in sf if not k.startswith("non-ip")]
    assert len(after) == 11
    for k in after:
        jf[k].pop("share"), sf[k].pop("share")  # of what the whole replay delivered
        assert jf[k] == sf[k] and jf[k]["dropped_pkts"] == 0, (k, jf[k], sf[k])
    assert j["totals"]["drops"]["match_arrival"] > 0  # the first two seconds: overload
    return "%d records, %d flows after the gap as alone" % (j["packets_read"], len(after))

check("gap-is-idle-time", gap)

# two captures concatenated (mergecap -a), the second begun an hour before
# the first: one step back; the second follows on with its own spacing
def concatenated():
    j, s = report("concatenated"), report("concatenated-second")
    assert j["packets_read"] == j["totals"]["offered_pkts"] == 2 * s["packets_read"]
    assert j["time"] == {"sorted": 0, "held": 0, "steps_back": 1, "gaps_over_a_day": 0}, j["time"]
    assert j["reordered"] == 1 and j["totals"]["dropped_pkts"] == 0
    assert abs(j["capture_seconds"] - 2 * s["capture_seconds"]) < 0.001
    jf, sf = flows(j), flows(s)
    for k in sf:
        if not k.startswith("non-ip"):
            assert jf[k]["offered_pkts"] == jf[k]["delivered_pkts"] == sf[k]["offered_pkts"], k
    return "%.3f s replayed" % j["capture_seconds"]

check("concatenated-follows-on", concatenated)

# the order two CPUs wrote (neighbours up to 300 us apart swapped): put back
# in order, the replay is the sorted capture's, its output the same bytes
def cpus():
    data = open(d + "/time/cpus.pcap", "rb").read()
    off, latest, back = 24, 0, 0
    while off < len(data):
        sec, ns, cap, ln = struct.unpack_from("<IIII", data, off)
        t = sec * 10**9 + ns
        back += t < latest
        latest = max(latest, t)
        off += 16 + cap
    skip = ("file", "reordered", "time", "flows", "penalised")
    assert report("cpus", skip) == report("cpus-sorted", skip)
    j, s = report("cpus"), report("cpus-sorted")
    assert back > 100 and j["reordered"] == back, (back, j["reordered"])
    assert j["time"] == {"sorted": back, "held": 0, "steps_back": 0, "gaps_over_a_day": 0}
    assert flows(j) == flows(s)
    key = lambda e: (e["src"], e["sport"], e["estimate"])
    assert sorted(j["penalised"]["flows"], key=key) == sorted(s["penalised"]["flows"], key=key)
    assert open(out + "cpus.pcap", "rb").read() == open(out + "cpus-sorted.pcap", "rb").read()
    return "%d records put back in order" % back

check("two-cpus-put-in-order", cpus)

# a step back of 69 ms beyond what the window still holds (the 3.5 ms of
# records it goes before have left): held at the time of the last released
def beyond():
    j = report("beyond")
    assert j["packets_read"] == j["totals"]["offered_pkts"] == 70001, j["totals"]
    assert j["time"] == {"sorted": 0, "held": 1, "steps_back": 0, "gaps_over_a_day": 0}, j["time"]

check("held-beyond-window", beyond)

# 4. cut files: the records before the cut, reported as from the file cut
#    at the start of the record
def cut(i, name):
    a = report("cut%d-%s" % (i, name), ("file", "cut"))
    b = report("whole-" + name, ("file", "cut"))
    assert a == b and a["packets_read"] == 999
    msg = report("cut%d-%s" % (i, name), ())["cut"]
    assert msg.startswith("the file ends inside record 1000"), msg

for name in ("le-ns.pcap", "be-us.pcap", "v23.pcap", "ns.pcapng"):
    for i in (0, 1):
        check("cut%d-%s-reported-to-the-cut" % (i, name), cut, i, name)
PY
cat "$tmp/py"
n=$((n + $(grep -c "^ok\|^FAIL" "$tmp/py")))
fails=$((fails + $(grep -c "^FAIL" "$tmp/py")))
grep -q "^ok\|^FAIL" "$tmp/py" || { n=$((n + 1)); fails=$((fails + 1)); }

echo "replay-captures: $n tests, $fails failed"
[ $fails = 0 ]
