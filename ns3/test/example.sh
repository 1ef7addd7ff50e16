#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The choke authors
# The choke-paper example end to end (make check-ns3): the issue's
# acceptance runs (CHOKe holds a 2c UDP flow to 0.15-0.35 of the link, FIFO
# gives it at least 0.9), the JSON's consistency, and bad input refused.
#   CHOKE_PAPER=build/ns3/choke-paper sh ns3/test/example.sh
set -eu
P=${CHOKE_PAPER:-build/ns3/choke-paper}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0 2>/dev/null || true
fail() { echo "example.sh: FAIL: $*" >&2; exit 1; }

"$P" --qdisc=choke --udpRate=2Mbps --duration=100 --seed=1 >"$tmp/choke.json"
"$P" --qdisc=fifo --udpRate=2Mbps --duration=100 --seed=1 >"$tmp/fifo.json"
"$P" --qdisc=fq_codel --udpRate=2Mbps --duration=30 --warmup=10 --seed=2 >"$tmp/fq.json"
"$P" --qdisc=red --udpRate=0.5Mbps --duration=30 --warmup=10 --seed=2 >"$tmp/red.json"
python3 - "$tmp" <<'PY' || fail "JSON checks"
import json, sys, os
d = sys.argv[1]
def load(n):
    with open(os.path.join(d, n)) as f:
        text = f.read()
    assert text.count("\n") == 1, "%s: not one line" % n
    return json.loads(text)
ok = True
def check(cond, what):
    global ok
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    ok = ok and cond
c, f, q, r = load("choke.json"), load("fifo.json"), load("fq.json"), load("red.json")
check(c["choke_version"] == open("VERSION").read().strip(), "version %s, the file VERSION's" % c["choke_version"])
check(0.15 <= c["udp_share"] <= 0.35, "choke at 2 Mbit/s: UDP share %.3f in 0.15..0.35" % c["udp_share"])
check(f["udp_share"] >= 0.9, "fifo at 2 Mbit/s: UDP share %.3f >= 0.9" % f["udp_share"])
for j in (c, f, q, r):
    n = j["qdisc"]
    check(abs(j["udp_share"] + j["tcp_share"] - 1) < 1e-6, n + ": shares add up")
    check(0.95 <= j["utilization"] <= 1.01, n + ": utilisation %.3f" % j["utilization"])
    check(0 < j["jain_tcp"] <= 1, n + ": Jain's index")
    dr = j["drops"]
    check(sum(dr["before_enqueue"].values()) + sum(dr["after_dequeue"].values()) == dr["total"],
          n + ": drops by reason add up to the total")
lc = c["libchoke"]
be, ad = c["drops"]["before_enqueue"], c["drops"]["after_dequeue"]
check(be.get("Match drop", 0) == lc["matched"] > 1000, "choke: arrivals dropped by matches = libchoke's matched")
check(ad.get("Match drop", 0) == lc["match_victims"], "choke: victims dropped after dequeue")
check(be.get("Unforced drop", 0) == lc["prob_drop"] and be.get("Forced drop", 0) == lc["forced_drop"]
      and be.get("Limit drop", 0) == lc["pdrop"], "choke: RED and limit drops")
check(c["config"] == "limit 300p min 100p max 200p ewma 9 probability 0.02 Scell_log 22",
      "choke: tc's view of the configuration (the simulator's words)")
sys.exit(0 if ok else 1)
PY

# bad input: a message naming the problem, a non-zero exit, nothing on stdout
bad() {
	want=$1; shift
	if "$P" "$@" >"$tmp/out" 2>"$tmp/err"; then fail "accepted: $*"; fi
	[ ! -s "$tmp/out" ] || fail "printed output for: $*"
	grep -q -- "$want" "$tmp/err" || { cat "$tmp/err" >&2; fail "no \"$want\" for: $*"; }
	echo "ok: refused $* ($want)"
}
bad 'qdisc must be' --qdisc=codel
bad 'udpRate' --udpRate=fast
bad 'warmup' --duration=10 --warmup=20
bad 'Invalid command-line argument' --nosuch=1
bad '"draws" needs a number' --ns3::ChokeQueueDisc::Draws=17 --duration=1 --warmup=0
bad 'alternatives' --ns3::ChokeQueueDisc::Draws=2 --ns3::ChokeQueueDisc::Adaptive=true --duration=1 --warmup=0
echo "example.sh: all passed"
