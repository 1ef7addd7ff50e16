#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke replay on hand-built captures with known flows: exact predicted
# counts, every link type and format, ECN rewriting, bad files.
# Usage: CHOKE=build/gcc/choke MKPCAP=build/gcc/mkpcap sh tests/replay.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
MKPCAP=${MKPCAP:-build/gcc/mkpcap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   replay/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL replay/$1: $2"; }

for s in burst paced many mixed snap64 pcapng badlink truncated reorder heavy zipf \
	hugelen shortlen capover timejump timewrap badfrac bigcap v6cut55 v6cut62; do
	"$MKPCAP" $s "$tmp/$s.pcap" || { bad mkpcap "$s"; }
done

# check NAME PYTHON-ASSERTIONS CHOKE-ARGS...: run replay --json, then the
# assertions with j = the JSON, f = {label: flow}
check() {
	name=$1
	asserts=$2
	shift 2
	if ! "$CHOKE" replay --json --top 0 "$@" >"$tmp/out.json" 2>"$tmp/err"; then
		bad "$name" "exit $?: $(cat "$tmp/err")"
		return
	fi
	if python3 - "$tmp/out.json" "$asserts" >"$tmp/py" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = {}
for x in j["flows"]:
    f["%s %s:%d>%s:%d" % (x["proto"], x["src"], x["sport"], x["dst"], x["dport"])] = x
t = j["totals"]
# conservation, per flow and in total, always
for x in j["flows"]:
    d = x["drops"]
    assert x["offered_pkts"] == x["delivered_pkts"] + d["early"] + d["forced"] + \
        d["limit"] + d["protect"] + d["match_arrival"] + d["match_victim"], x
    assert x["dropped_pkts"] == sum(d.values()), x
assert t["offered_pkts"] == t["delivered_pkts"] + t["dropped_pkts"], t
assert t["dropped_pkts"] == sum(t["drops"].values()), t
# one arrival per match, one victim or more (the variants take several)
assert t["drops"]["match_arrival"] == t["matched"] <= t["drops"]["match_victim"], t
if j["flows"] and len(j["flows"]) == len(f):
    for k in t["drops"]:
        assert t["drops"][k] == sum(x["drops"][k] for x in j["flows"]), k
exec(sys.argv[2])
PY
	then ok "$name"; else bad "$name" "$(tail -3 "$tmp/py")"; fi
}

# 1. a burst of 10 at t = 0 into an idle 8 Mbit/s link (1 ms per frame),
#    fifo limit 5: one goes straight to the link, 5 wait, 4 are dropped
check burst-fifo-exact '
assert t["delivered_pkts"] == 6 and t["drops"]["limit"] == 4, t
assert abs(j["delay_ms"]["max"] - 6.0) < 1e-6 and abs(j["delay_ms"]["mean"] - 3.5) < 1e-6
assert j["queue"]["max_pkts"] == 5
' --rate 8mbit "$tmp/burst.pcap" fifo limit 5

# 2. two flows alternating every 0.5 ms at exactly the link rate: nothing
#    waits, nothing is lost, every delay is one transmission time
check paced-at-capacity '
assert t["delivered_pkts"] == 200 and t["dropped_pkts"] == 0
assert j["queue"]["max_pkts"] == 0
assert abs(j["delay_ms"]["p50"] - 0.5) < 0.005 and abs(j["delay_ms"]["max"] - 0.5) < 1e-6
assert len(f) == 2 and f["udp 10.0.0.1:10000>10.9.9.9:5001"]["delivered_pkts"] == 100
' --rate 16mbit "$tmp/paced.pcap"

# 3. the same at half the rate through fifo limit 10: predicted by an
#    independent event-by-event computation
cat >"$tmp/predict.py" <<'PY'
import sys
# arrivals every 0.5 ms (A, B alternating), 1 ms per frame, fifo limit 10
limit, tx = 10, 1.0
queue, link_free, on_link = [], 0.0, None
deliv = {0: 0, 1: 0}; drop = {0: 0, 1: 0}
for i in range(200):
    t = i * 0.5
    while on_link is not None and link_free <= t:
        deliv[on_link] += 1
        on_link = None
        if queue:
            on_link = queue.pop(0); link_free += tx
    if len(queue) < limit: queue.append(i % 2)
    else: drop[i % 2] += 1
    if on_link is None and queue:
        on_link = queue.pop(0); link_free = t + tx
while on_link is not None:
    deliv[on_link] += 1; on_link = queue.pop(0) if queue else None
print(deliv[0], deliv[1], drop[0], drop[1])
PY
pred=$(python3 "$tmp/predict.py")
check paced-overload-fifo-exact "
a, b, da, db = map(int, '$pred'.split())
A, B = f['udp 10.0.0.1:10000>10.9.9.9:5001'], f['udp 10.0.0.2:10001>10.9.9.9:5001']
assert (A['delivered_pkts'], B['delivered_pkts'], A['drops']['limit'], B['drops']['limit']) == (a, b, da, db), (A, B, '$pred')
" --rate 8mbit "$tmp/paced.pcap" fifo limit 10

# 4. CHOKe whose average stays below the minimum (a large burst gives a
#    slow average) behaves exactly as the FIFO: no draws, tail drops only
check burst-choke-below-min '
assert t["delivered_pkts"] == 6 and t["drops"]["limit"] == 4 and t["matched"] == 0, t
' --rate 8mbit "$tmp/burst.pcap" choke limit 5 min 4 max 5 burst 1000

# 5. snaplen 64: the link still carries the original 1000 bytes
check snaplen-uses-original-length "
a, b, da, db = map(int, '$pred'.split())
assert j['truncated_records'] == 200
assert t['delivered_bytes'] == (a + b) * 1000 and len(f) == 2
" --rate 8mbit "$tmp/snap64.pcap" fifo limit 10

# 6. pcapng with nanosecond timestamps
check pcapng-burst '
assert t["delivered_pkts"] == 6 and t["drops"]["limit"] == 4 and j["packets_read"] == 10
' --rate 8mbit "$tmp/pcapng.pcap" fifo limit 5

# 7. every kind of frame is its own flow, as docs/flows.md says
check mixed-flows '
want = ["tcp 192.0.2.1:33000>192.0.2.2:443", "udp 2001:db8::10:4000>2001:db8::20:4001",
        "udp 198.51.100.1:53>198.51.100.2:53", "tcp 2001:db8::10:5555>2001:db8::20:80",
        "icmp 192.0.2.1:42>192.0.2.2:0", "- -:0>-:0"]
assert sorted(f) == sorted(want), sorted(f)
assert all(x["offered_pkts"] == 20 and x["delivered_pkts"] == 20 for x in j["flows"])
assert [x for x in j["flows"] if x["kind"] == "non-ip"][0]["ethertype"] == 0x0806
' --rate 1gbit "$tmp/mixed.pcap"

# 8. --top
"$CHOKE" replay --json --top 2 --rate 1gbit "$tmp/mixed.pcap" >"$tmp/top.json" 2>"$tmp/err"
if python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["flows"]) == 2' "$tmp/top.json"; then ok top-n; else bad top-n "$(cat "$tmp/err")"; fi

# 9. CHOKe punishes the heavy flow that FIFO and RED let take the link
check heavy-fifo '
assert f["udp 10.0.0.1:10000>10.9.9.9:5001"]["share"] > 0.85
' --rate 10mbit "$tmp/heavy.pcap" fifo limit 300
check heavy-choke '
h = f["udp 10.0.0.1:10000>10.9.9.9:5001"]
assert h["share"] < 0.7 and h["drops"]["match_arrival"] > 1000, h
light = [x for k, x in f.items() if not k.startswith("udp 10.0.0.1:")]
assert len(light) == 20 and all(x["delivered_pkts"] >= 0.9 * x["offered_pkts"] for x in light)
' --rate 10mbit "$tmp/heavy.pcap" choke limit 300 min 100 max 200

# 9b. protect and a draw variant: every drop accounted for by reason, per
#     flow and in total; protect holds the heavy flow near its max-min fair
#     share (the 20 light flows take 4 of the 10 Mbit/s), draws 4 takes
#     several victims per match
check heavy-protect-draws '
h = f["udp 10.0.0.1:10000>10.9.9.9:5001"]
assert 0.5 < h["share"] < 0.7 and h["drops"]["protect"] > 5000, h
assert t["drops"]["protect"] == h["drops"]["protect"], t
assert t["drops"]["match_victim"] > t["drops"]["match_arrival"] > 0, t
light = [x for k, x in f.items() if not k.startswith("udp 10.0.0.1:")]
assert all(x["drops"]["protect"] == 0 for x in light)
' --rate 10mbit "$tmp/heavy.pcap" choke limit 300 min 100 max 200 draws 4 protect 16
# 9c. sparse at the limit: a 30-packet queue the heavy flow keeps full
#     (target 1s is never reached: no draws, no matches); the light flows'
#     packets take the lane and push the queue's head out, which is the
#     heavy flow's: every light packet delivered (without sparse 885 of
#     their 5000 met the limit), the heads counted as the heavy flow's
#     limit drops, not as match victims (1491 of them; 2768 before protect
#     took a share from its first step, 2026-12-07)
check heavy-sparse-push-out '
h = f["udp 10.0.0.1:10000>10.9.9.9:5001"]
assert t["drops"]["match_victim"] == 0 and t["drops"]["match_arrival"] == 0, t
assert t["drops"]["limit"] == h["drops"]["limit"] > 1000, t
light = [x for k, x in f.items() if not k.startswith("udp 10.0.0.1:")]
assert len(light) == 20 and all(x["delivered_pkts"] == x["offered_pkts"] for x in light), light
' --rate 10mbit "$tmp/heavy.pcap" choke limit 30 protect target 1s sparse
if "$CHOKE" replay --rate 10mbit "$tmp/heavy.pcap" choke limit 300 min 100 max 200 draws 4 \
	protect 16 >"$tmp/o" 2>"$tmp/e" && grep -q "^drops:  .* protect [1-9][0-9]*, matched [0-9]* ([0-9]* arrivals + [0-9]* queued victims)" "$tmp/o" &&
	grep -q "limit protect   m-arr" "$tmp/o"; then ok heavy-protect-text
else bad heavy-protect-text "$(head -8 "$tmp/o") $(cat "$tmp/e")"; fi

# 10. ECN: marks applied in --write output, checksums right, departures
#     one transmission time apart or more, in order
if "$CHOKE" replay --json --rate 8mbit --write "$tmp/w.pcap" "$tmp/many.pcap" \
	choke limit 100 min 10 max 20 ecn >"$tmp/out.json" 2>"$tmp/err"; then
	if python3 - "$tmp/out.json" "$tmp/w.pcap" >"$tmp/py" 2>&1 <<'PY'
import json, struct, sys
j = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read()
magic, = struct.unpack_from("<I", data, 0)
assert magic == 0xa1b23c4d, hex(magic)          # nanosecond pcap
off, n, ce, last = 24, 0, 0, None
while off < len(data):
    sec, nsec, cap, ln = struct.unpack_from("<IIII", data, off)
    pkt = data[off + 16: off + 16 + cap]
    off += 16 + cap
    t = sec * 10**9 + nsec
    if last is not None:
        assert t - last >= 1000000, (t, last)    # 1000 bytes at 8 Mbit/s
    last = t
    ip = pkt[14:34]
    s = sum(struct.unpack("!10H", ip))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    assert s == 0xffff, "bad checksum"
    ce += (ip[1] & 3) == 3
    assert ip[1] & 3 in (2, 3)                  # sent ECT(0), marked CE
    n += 1
t = j["totals"]
assert n == t["delivered_pkts"] == j["written"], (n, t)
assert 0 < ce <= t["marked_pkts"], (ce, t["marked_pkts"])
print(n, ce)
PY
	then ok "ecn-write ($(cat "$tmp/py") delivered, CE)"; else bad ecn-write "$(tail -3 "$tmp/py")"; fi
else bad ecn-write "exit: $(cat "$tmp/err")"; fi

# 10b. who is penalised: 500 Zipf flows into 64 counters; every estimate
#      brackets the exact count, every flow above the bound is reported
check penalised-space-saving '
p = j["penalised"]
exact = {}
for x in j["flows"]:
    exact[(x["src"], x["sport"])] = x["drops"]["match_arrival"] + x["drops"]["match_victim"]
assert p["counters"] == 64 and p["total"] == 2 * t["matched"], p
reported = set()
for e in p["flows"]:
    true = exact[(e["src"], e["sport"])]
    assert e["estimate"] - e["error"] <= true <= e["estimate"], e
    assert e["error"] <= p["bound"], e
    reported.add((e["src"], e["sport"]))
heavy = [k for k, v in exact.items() if v > p["bound"]]
assert heavy and all(k in reported for k in heavy), (len(heavy), p["bound"])
top10 = sorted(exact, key=lambda k: -exact[k])[:10]
got10 = [(e["src"], e["sport"]) for e in p["flows"][:10]]
print("%d flows above the bound, all reported; top-10 overlap %d" % (len(heavy), len(set(top10) & set(got10))))
' --rate 10mbit "$tmp/zipf.pcap" choke limit 300 min 50 max 150

# 11. a timestamp going backwards (49.5 ms) is put back in order, counted
check reordered-timestamps '
assert j["reordered"] == 1 and t["offered_pkts"] == 200
assert j["time"] == {"sorted": 1, "held": 0, "steps_back": 0, "gaps_over_a_day": 0}, j["time"]
' --rate 16mbit "$tmp/reorder.pcap"

# 12. bad files: a clear error, exit 1, no report
expect_fail() {
	name=$1; pattern=$2; shift 2
	"$CHOKE" replay --rate 10mbit "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -qi -- "$pattern" "$tmp/e"; then ok "$name"
	else bad "$name" "exit $st, stdout $(wc -c <"$tmp/o") bytes, stderr: $(cat "$tmp/e")"; fi
}
expect_fail unknown-link-type "link type 189 (USB_LINUX) is not supported" "$tmp/badlink.pcap"
head -c 5000 /dev/urandom >"$tmp/garbage.pcap"
expect_fail garbage-file "replay" "$tmp/garbage.pcap"
: >"$tmp/empty.pcap"
expect_fail empty-file "replay" "$tmp/empty.pcap"
expect_fail missing-file "No such file" "$tmp/nope.pcap"
expect_fail bad-words "What is" "$tmp/burst.pcap" choke limit 10 frob
# a capture cut inside record 51 (what a killed tcpdump leaves): the 50
# records before it are replayed and reported as if the file ended there
# (the same report and --write output as the file cut at that record's
# start), a warning names the record and the bytes, exit status 3;
# --strict refuses it
head -c $((24 + 50 * 1016)) "$tmp/truncated.pcap" >"$tmp/first50.pcap"
"$CHOKE" replay --json --top 0 --rate 8mbit --write "$tmp/cut-w.pcap" "$tmp/truncated.pcap" \
	fifo limit 10 >"$tmp/cut.json" 2>"$tmp/e"
st=$?
"$CHOKE" replay --json --top 0 --rate 8mbit --write "$tmp/first50-w.pcap" "$tmp/first50.pcap" \
	fifo limit 10 >"$tmp/first50.json" 2>>"$tmp/e"
st2=$?
if [ $st = 3 ] && [ $st2 = 0 ] && grep -q "^choke: replay: warning: $tmp/truncated.pcap is cut: the file ends inside record 51, after 300 of its 1000 captured bytes (at byte 50824); the 50 records before it are replayed and reported (exit status 3)\$" "$tmp/e" &&
	cmp -s "$tmp/cut-w.pcap" "$tmp/first50-w.pcap" && python3 - "$tmp/cut.json" "$tmp/first50.json" <<'PY'
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:3])
assert a["packets_read"] == 50 and a["totals"]["offered_pkts"] == 50, a["totals"]
assert a["cut"].startswith("the file ends inside record 51") and b["cut"] is None
for k in ("file", "cut"):
    del a[k], b[k]
assert a == b
PY
then ok cut-capture-replayed-to-the-cut
else bad cut-capture-replayed-to-the-cut "exit $st/$st2: $(cat "$tmp/e")"; fi
"$CHOKE" replay --strict --rate 8mbit "$tmp/truncated.pcap" >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -q "truncated.pcap: the file ends inside record 51, after 300 of its 1000 captured bytes (at byte 50824) (refused: --strict)" "$tmp/e"; then
	ok strict-cut-capture
else bad strict-cut-capture "exit $st: $(cat "$tmp/e")"; fi
# usage errors (tests/help.sh has more): exit 2, a message naming the option
expect_usage() {
	name=$1; pattern=$2; shift 2
	"$CHOKE" replay "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = 2 ] && [ ! -s "$tmp/o" ] && grep -q -- "$pattern" "$tmp/e"; then ok "$name"
	else bad "$name" "exit $st, stdout $(wc -c <"$tmp/o") bytes, stderr: $(cat "$tmp/e")"; fi
}
expect_usage bad-rate "--rate needs a rate in tc's syntax from 8bit to 10tbit, e.g. 10mbit, not \"10xbit\"" \
	--rate 10xbit "$tmp/burst.pcap"
expect_usage fifo-needs-rate "fifo needs --rate" "$tmp/burst.pcap" fifo
# a failed run leaves no partial output file
"$CHOKE" replay --rate 10mbit --write "$tmp/partial.pcap" "$tmp/bigcap.pcap" >/dev/null 2>&1
if [ ! -e "$tmp/partial.pcap" ]; then ok no-partial-output; else bad no-partial-output "file left"; fi

# 14. nonsense in a capture (docs/inputs.md): record 4 of 10 (1 ms apart,
#     1000 bytes) is broken; it is skipped and counted, the other nine are
#     replayed, a warning names the record; --strict refuses the file
nonsense() {
	what=$1 file=$2 key=$3 msg=$4
	check "skip-$what" "
assert j['packets_read'] == 10 and j['skipped']['$key'] == 1, (j['packets_read'], j['skipped'])
assert sum(j['skipped'].values()) == 1, j['skipped']
assert t['offered_pkts'] == 9 and t['offered_bytes'] == 9000, t
assert abs(j['capture_seconds'] - 0.009) < 1e-9, j['capture_seconds']
" --rate 8mbit "$tmp/$file.pcap" fifo limit 5
	if grep -q "warning: .*1 of 10 records skipped (first: record 4: $msg" "$tmp/err"; then
		ok "skip-$what-warning"
	else bad "skip-$what-warning" "$(cat "$tmp/err")"; fi
	"$CHOKE" replay --strict --rate 8mbit "$tmp/$file.pcap" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -q "record 4: $msg.*--strict" "$tmp/e"; then
		ok "strict-$what"
	else bad "strict-$what" "exit $st: $(cat "$tmp/e")"; fi
}
nonsense huge-original-length hugelen bad_length "original length 4294967295 is above 262144 bytes"
nonsense original-below-captured shortlen bad_length "original length 500 is below the captured length 1000"
nonsense caplen-over-snaplen capover caplen_over_snaplen "captured length 1000 is above the file's snaplen 128"
nonsense time-fraction badfrac bad_time "timestamp 100.1999999999 s is not a time"
# a captured length above 256 KiB: no record can be found after it; refused, named
expect_fail captured-length-over-256k "record 4: captured length 300000 is above 262144 bytes" "$tmp/bigcap.pcap"
# a wild timestamp (34 or 68 years on; the seconds field is unsigned) is a
# gap, the return a step back of the capture's clock: nothing is skipped,
# the records after it follow on; --strict refuses the step back
for w in timejump:1073741824 timewrap:2147483648; do
	f=${w%%:*} gap=${w#*:}
	check "gap-and-step-back-$f" "
assert j['packets_read'] == 10 and t['offered_pkts'] == 10 and sum(j['skipped'].values()) == 0, j
assert j['time'] == {'sorted': 0, 'held': 0, 'steps_back': 1, 'gaps_over_a_day': 1}, j['time']
assert j['reordered'] == 1
assert abs(j['capture_seconds'] - ($gap + 0.008)) < 1e-6, j['capture_seconds']
" --rate 8mbit "$tmp/$f.pcap" fifo limit 5
	"$CHOKE" replay --strict --rate 8mbit "$tmp/$f.pcap" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -q "record 5: timestamp is .* s before the previous record's (more than 1 s: a step back of the capture's clock) (refused: --strict)" "$tmp/e"; then
		ok "strict-step-back-$f"
	else bad "strict-step-back-$f" "exit $st: $(cat "$tmp/e")"; fi
done
# timestamps going backwards: held, counted, and said on stderr
"$CHOKE" replay --rate 16mbit "$tmp/reorder.pcap" >"$tmp/o" 2>"$tmp/e"
if grep -q "warning: .*1 timestamps earlier than the record before them" "$tmp/e" &&
	grep -q "1 timestamps out of order" "$tmp/o"; then ok backwards-reported
else bad backwards-reported "$(cat "$tmp/e")"; fi
# IPv6 cut inside its extension headers: the header where it ends, by name
check ipv6-cut-hop-by-hop '
assert sorted(f) == ["hopopt 2001:db8::10:0>2001:db8::20:0"], sorted(f)
' --rate 8mbit "$tmp/v6cut55.pcap"
check ipv6-cut-destination-options '
assert sorted(f) == ["ipv6-opts 2001:db8::10:0>2001:db8::20:0"], sorted(f)
' --rate 8mbit "$tmp/v6cut62.pcap"

# 15. never destroy a file: --write goes through a temporary renamed into
#     place on success; never onto the input, by any path to it
cp "$tmp/paced.pcap" "$tmp/in.pcap"
cp "$tmp/in.pcap" "$tmp/in.orig"
mkdir "$tmp/w" "$tmp/sub"
ln -s "$tmp/in.pcap" "$tmp/link.pcap"
ln "$tmp/in.pcap" "$tmp/hard.pcap"
same_input() {
	name=$1; shift
	"$CHOKE" replay --rate 8mbit "$@" >"$tmp/o" 2>"$tmp/e"
	st=$?
	if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -q "is the file being read" "$tmp/e" &&
		cmp -s "$tmp/in.pcap" "$tmp/in.orig"; then ok "$name"
	else bad "$name" "exit $st, input $(cmp -s "$tmp/in.pcap" "$tmp/in.orig" && echo intact || echo CHANGED): $(cat "$tmp/e")"
	fi
}
same_input write-onto-input --write "$tmp/in.pcap" "$tmp/in.pcap"
same_input write-onto-input-symlink --write "$tmp/link.pcap" "$tmp/in.pcap"
same_input read-symlink-write-input --write "$tmp/in.pcap" "$tmp/link.pcap"
same_input write-onto-input-hardlink --write "$tmp/hard.pcap" "$tmp/in.pcap"
same_input write-onto-input-other-path --write "$tmp/sub/../in.pcap" "$tmp/in.pcap"
same_input write-onto-stdin --write "$tmp/in.pcap" - <"$tmp/in.pcap"
# a failed replay leaves an existing output as it was, and no temporary
echo precious >"$tmp/w/out.pcap"
chmod 640 "$tmp/w/out.pcap"
"$CHOKE" replay --rate 10mbit --write "$tmp/w/out.pcap" "$tmp/bigcap.pcap" >/dev/null 2>&1
st=$?
if [ $st = 1 ] && [ "$(cat "$tmp/w/out.pcap")" = precious ] && [ "$(ls -A "$tmp/w")" = out.pcap ]; then
	ok failed-replay-keeps-output
else bad failed-replay-keeps-output "exit $st, dir: $(ls -A "$tmp/w"), out: $(head -c 20 "$tmp/w/out.pcap")"; fi
"$CHOKE" replay --strict --rate 10mbit --write "$tmp/w/out.pcap" "$tmp/hugelen.pcap" >/dev/null 2>&1
if [ "$(cat "$tmp/w/out.pcap")" = precious ] && [ "$(ls -A "$tmp/w")" = out.pcap ]; then
	ok strict-refusal-keeps-output
else bad strict-refusal-keeps-output "dir: $(ls -A "$tmp/w")"; fi
# a successful one replaces it, keeping its mode; through a link, the
# file it names is replaced and the link stays
"$CHOKE" replay --rate 8mbit --write "$tmp/w/out.pcap" "$tmp/paced.pcap" >/dev/null 2>&1
if [ "$(od -An -tx1 -N4 "$tmp/w/out.pcap" | tr -d ' ')" = 4d3cb2a1 ] &&
	[ "$(stat -c %a "$tmp/w/out.pcap")" = 640 ] && [ "$(ls -A "$tmp/w")" = out.pcap ]; then
	ok write-replaces-keeps-mode
else bad write-replaces-keeps-mode "mode $(stat -c %a "$tmp/w/out.pcap"), dir: $(ls -A "$tmp/w")"; fi
ln -s out.pcap "$tmp/w/outlink.pcap"
"$CHOKE" replay --rate 16mbit --write "$tmp/w/outlink.pcap" "$tmp/burst.pcap" >/dev/null 2>&1
if [ -L "$tmp/w/outlink.pcap" ] && [ "$(stat -c %s "$tmp/w/out.pcap")" -lt 20000 ]; then
	ok write-through-symlink
else bad write-through-symlink "$(ls -l "$tmp/w")"; fi
# - is standard output (the report then goes to standard error), the same
# bytes as a file; FILE - is standard input
"$CHOKE" replay --rate 8mbit --write "$tmp/w/a.pcap" "$tmp/many.pcap" >"$tmp/rep1" 2>/dev/null
"$CHOKE" replay --rate 8mbit --write - "$tmp/many.pcap" >"$tmp/w/b.pcap" 2>"$tmp/rep2"
if cmp -s "$tmp/w/a.pcap" "$tmp/w/b.pcap" && cmp -s "$tmp/rep1" "$tmp/rep2"; then ok write-stdout
else bad write-stdout "$(cmp "$tmp/w/a.pcap" "$tmp/w/b.pcap") $(head -3 "$tmp/rep2")"; fi
"$CHOKE" replay --json --rate 8mbit - fifo limit 5 <"$tmp/burst.pcap" >"$tmp/o1" 2>"$tmp/e"
"$CHOKE" replay --json --rate 8mbit "$tmp/burst.pcap" fifo limit 5 >"$tmp/o2" 2>>"$tmp/e"
if python3 - "$tmp/o1" "$tmp/o2" <<'PY'
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:3])
assert a["file"] == "-" and a["totals"] == b["totals"] and a["flows"] == b["flows"]
PY
then ok read-stdin; else bad read-stdin "$(cat "$tmp/e")"; fi
# not a regular file: written in place, never replaced (/dev/null stays)
if "$CHOKE" replay --rate 8mbit --write /dev/null "$tmp/burst.pcap" >/dev/null 2>"$tmp/e" &&
	[ -c /dev/null ]; then ok write-dev-null
else bad write-dev-null "$(cat "$tmp/e"); $(ls -l /dev/null)"; fi
"$CHOKE" replay --rate 8mbit --write "$tmp/w" "$tmp/burst.pcap" >/dev/null 2>"$tmp/e"
if [ $? = 1 ] && grep -q "is a directory" "$tmp/e"; then ok write-directory
else bad write-directory "$(cat "$tmp/e")"; fi
# a signal stops it: no report, no output file, no temporary
mkfifo "$tmp/fifo"
head -c $((24 + 20 * 1016)) "$tmp/paced.pcap" >"$tmp/part"
"$CHOKE" replay --rate 8mbit --write "$tmp/w/sig.pcap" "$tmp/fifo" >"$tmp/o" 2>"$tmp/e" &
pid=$!
exec 3>"$tmp/fifo"
cat "$tmp/part" >&3
sleep 0.5
kill -INT $pid
wait $pid
st=$?
exec 3>&-
if [ $st = 1 ] && [ ! -s "$tmp/o" ] && grep -q "interrupted by signal 2" "$tmp/e" &&
	[ ! -e "$tmp/w/sig.pcap" ] && ! ls -A "$tmp/w" | grep -q sig; then ok signal-no-output
else bad signal-no-output "exit $st: $(cat "$tmp/e"); $(ls -A "$tmp/w")"; fi

# 16. usage
"$CHOKE" replay --help >"$tmp/o" 2>"$tmp/e"
st=$?
if [ $st = 0 ] && grep -q "^usage: choke replay" "$tmp/o" && [ ! -s "$tmp/e" ]; then ok help
else bad help "exit $st"; fi
"$CHOKE" replay -h >"$tmp/o" 2>&1
if [ $? = 0 ] && grep -q "^usage: choke replay" "$tmp/o"; then ok help-short; else bad help-short "-h"; fi
expect_usage seed-negative "--seed needs an integer from 0 to 18446744073709551615, not \"-1\"" \
	--seed -1 "$tmp/burst.pcap"
expect_usage seed-hex "--seed needs an integer from 0 to 18446744073709551615, not \"0x10\"" \
	--seed 0x10 "$tmp/burst.pcap"
expect_usage top-too-big "--top needs an integer from 0 to 4294967295, not \"99999999999\"" \
	--top 99999999999 "$tmp/burst.pcap"
expect_usage rate-too-high "from 8bit to 10tbit, e.g. 10mbit, not \"20tbit\"" --rate 20tbit "$tmp/burst.pcap"
"$CHOKE" replay "$tmp/burst.pcap" choke limit 100 min 10 max 30 burst 20 bandwidth 20tbit >"$tmp/o" 2>"$tmp/e"
if [ $? = 1 ] && grep -q "from 8bit to 10tbit to be the link's rate" "$tmp/e"; then
	ok bandwidth-as-rate-range; else bad bandwidth-as-rate-range "$(cat "$tmp/e")"; fi
expect_fail too-many-words "too many words" "$tmp/burst.pcap" choke $(seq 1 71)
expect_usage unknown-option "unknown option --frob" --frob "$tmp/burst.pcap"
expect_usage option-needs-value "--seed needs N" "$tmp/burst.pcap" --seed
expect_usage no-file "missing FILE" --rate 10mbit
expect_usage rate-twice "--rate given twice" --rate 10mbit --rate 20mbit "$tmp/burst.pcap"
expect_usage no-words-no-rate "--rate is required without discipline words" "$tmp/burst.pcap"
expect_usage words-no-bandwidth "give --rate or a bandwidth" "$tmp/burst.pcap" choke limit 100
ln -s "$tmp/nothing" "$tmp/w/dangling.pcap"
expect_fail write-dangling-link "symbolic link to a missing file" --write "$tmp/w/dangling.pcap" "$tmp/burst.pcap"
cp "$tmp/burst.pcap" "$tmp/b2.pcap"
"$CHOKE" replay --rate 8mbit --write - "$tmp/b2.pcap" >>"$tmp/b2.pcap" 2>"$tmp/e"
if [ $? = 1 ] && grep -q "standard output is the file being read" "$tmp/e" &&
	cmp -s "$tmp/b2.pcap" "$tmp/burst.pcap"; then ok write-stdout-onto-input
else bad write-stdout-onto-input "$(cat "$tmp/e")"; fi

# 13. the human report
if "$CHOKE" replay --rate 10mbit "$tmp/heavy.pcap" >"$tmp/o" 2>"$tmp/e" &&
	grep -q "flows by offered bytes" "$tmp/o" && grep -q "p99" "$tmp/o"; then ok text-report
else bad text-report "$(cat "$tmp/e")"; fi

echo "replay: $n tests, $fails failed"
[ $fails = 0 ]
