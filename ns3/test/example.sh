#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The choke authors
# The examples end to end (make check-ns3). choke-paper: CHOKe holds a 2c
# UDP flow to 0.15-0.35 of the link, FIFO gives it at least 0.9, the JSON
# is consistent, ns-3's RngRun decides the run, --pcap writes a capture, bad
# input is refused. choke-red-swap: a RED script (Gentle, Wait, LinkDelay,
# ARED, ...) runs with RedQueueDisc and with ChokeQueueDisc swapped in, and
# a value libchoke does not have is refused when it is set.
#   CHOKE_PAPER=build/ns3/choke-paper CHOKE_RED_SWAP=build/ns3/choke-red-swap \
#     sh ns3/test/example.sh
set -eu
P=${CHOKE_PAPER:-build/ns3/choke-paper}
S=${CHOKE_RED_SWAP:-build/ns3/choke-red-swap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0 2>/dev/null || true
fail() { echo "example.sh: FAIL: $*" >&2; exit 1; }

"$P" --qdisc=choke --udpRate=2Mbps --duration=100 --RngRun=1 >"$tmp/choke.json"
"$P" --qdisc=fifo --udpRate=2Mbps --duration=100 --RngRun=1 >"$tmp/fifo.json"
"$P" --qdisc=fq_codel --udpRate=2Mbps --duration=30 --warmup=10 --RngRun=2 >"$tmp/fq.json"
"$P" --qdisc=red --udpRate=0.5Mbps --duration=30 --warmup=10 --RngRun=2 >"$tmp/red.json"
# ns-3's own seed handling: the same run twice is the same, another run differs
"$P" --qdisc=choke --duration=12 --warmup=2 --RngRun=5 --pcap="$tmp/btl.pcap" >"$tmp/r5a.json"
"$P" --qdisc=choke --duration=12 --warmup=2 --RngRun=5 >"$tmp/r5b.json"
"$P" --qdisc=choke --duration=12 --warmup=2 --RngRun=6 >"$tmp/r6.json"
"$P" --qdisc=choke --duration=12 --warmup=2 --RngSeed=3 --RngRun=5 >"$tmp/s3.json"
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
      and be.get("Dropped by internal queue", 0) == lc["pdrop"], "choke: RED and limit drops")
check(c["tcp_flows_seen"] == 32, "choke: FlowMonitor saw the 32 TCP data flows")
check(c["rng_seed"] == 1 and c["rng_run"] == 1, "choke: ns-3's RngSeed and RngRun reported")
def same_run(a, b):
    return all(a[k] == b[k] for k in a if k not in ("wall_s", "cpu_s", "rng_seed", "rng_run"))
a, b, r6, s3 = load("r5a.json"), load("r5b.json"), load("r6.json"), load("s3.json")
check(same_run(a, b), "RngRun 5 twice (one with --pcap): the same run")
check(not same_run(a, r6) and r6["rng_run"] == 6, "RngRun 6: another run")
check(not same_run(a, s3) and s3["rng_seed"] == 3, "RngSeed 3: another run")
check(c["config"] == "limit 300p min 100p max 200p ewma 9 probability 0.02 Scell_log 22",
      "choke: tc's view of the configuration (the simulator's words)")
sys.exit(0 if ok else 1)
PY
pcap=$tmp/btl.pcap
[ "$(od -An -tx1 -N4 "$pcap" | tr -d ' ')" = d4c3b2a1 ] && [ "$(wc -c <"$pcap")" -gt 100000 ] ||
	fail "--pcap wrote no capture of the bottleneck"
echo "ok: --pcap wrote a capture of the bottleneck ($(wc -c <"$pcap") bytes)"

# A RED script with ChokeQueueDisc swapped in: every mode runs with both
# queue discs, ARED moves ChokeQueueDisc's probability, ECN marks
for qd in RedQueueDisc ChokeQueueDisc; do
	for m in red gentle ared ared-ecn adapt; do
		"$S" --queueDisc=$qd --mode=$m --duration=10 >"$tmp/swap" 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; fail "choke-red-swap $qd $m"; }
		grep -q "^$qd $m: utilization 0\.9" "$tmp/swap" || { cat "$tmp/swap"; fail "$qd $m: utilisation"; }
		echo "ok: $(cut -c1-100 "$tmp/swap")..."
		if [ $qd = ChokeQueueDisc ]; then
			case $m in
			ared*) grep -q 'ared .*probability 0.1 .*maxP 0\.0[0-9]' "$tmp/swap" ||
				fail "ChokeQueueDisc $m: ARED did not move the probability from 0.1" ;;
			gentle) grep -q 'config "limit 25p min 5p max 15p gentle wait' "$tmp/swap" ||
				fail "ChokeQueueDisc gentle: not gentle and wait" ;;
			esac
			[ $m != ared-ecn ] || grep -q '"Unforced mark"=[1-9]' "$tmp/swap" ||
				fail "ChokeQueueDisc ared-ecn: no marks"
		fi
	done
done

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
bad 'Draws: 17 refused: 1 to 16' --ns3::ChokeQueueDisc::Draws=17 --duration=1 --warmup=0
bad 'alternatives' --ns3::ChokeQueueDisc::Draws=2 --ns3::ChokeQueueDisc::AdaptiveDraws=true \
	--duration=1 --warmup=0
bad 'renamed AdaptiveDraws' --ns3::ChokeQueueDisc::Adaptive=true --duration=1 --warmup=0
bad 'Invalid command-line argument' --seed=1
bad 'cannot write' --pcap="$tmp/no/such/dir/x.pcap"
P=$S
bad 'Top: 0.6 refused' --queueDisc=ChokeQueueDisc --ns3::ChokeQueueDisc::Top=0.6
bad 'FengAdaptive: true refused' --queueDisc=ChokeQueueDisc --ns3::ChokeQueueDisc::FengAdaptive=true
bad 'MinTh: 2.5 refused' --queueDisc=ChokeQueueDisc --ns3::ChokeQueueDisc::MinTh=2.5
echo "example.sh: all passed"
