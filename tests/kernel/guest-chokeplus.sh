#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The qdisc id chokeplus of sch_libchoke.ko (kmod/chokeplus.h), inside the
# UML guest (check-kernel.sh boots it after the suite): stock tc with the
# plugin q_chokeplus.so adds it, shows it (text and JSON), changes it in
# place; the module refuses malformed options with a message each (sent
# by choke-nl, which tc's plugin never sends); floods under protect are
# held near their fair share and its drops are counted; a light flow's ping
# stays short under `target`, and a lone flood beside light flows gets the
# link they leave (the idle time the module measures under tbf); choke and
# chokeplus run side by side; mq with a chokeplus per transmit queue of a 4-queue
# veth (guest-mq.sh); the module unloads clean.
#
# Environment: CHOKE_RUN, CHOKE_KMOD (sch_libchoke.ko), CHOKE_TC_LIB (the
# folder of q_chokeplus.so), CHOKE_NL (choke-nl), CHOKE_QUICK=1 (a shorter
# flood). Prints "ok   chokeplus/NAME" or "FAIL chokeplus/NAME: why" per
# case and a summary line; exits 1 if any case failed.
set -u
RUN=$CHOKE_RUN
NL=$CHOKE_NL
export TC_LIB_DIR=$CHOKE_TC_LIB
SECS=$([ "${CHOKE_QUICK:-0}" = 1 ] && echo 8 || echo 15)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok   chokeplus/$1"; }
# a failure's reason on its one line (check-kernel shows only the ok and FAIL
# lines: a Python traceback's last lines would be lost)
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL chokeplus/$1: $(printf '%s' "$2" | tr '\n' ' ')"; }
tcb() { timeout 20 tc "$@"; }
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null

lsmod | grep -q '^sch_choke ' && rmmod sch_choke
if ! insmod "$CHOKE_KMOD" 2>"$RUN/cp-insmod.err"; then
	bad insmod "$(cat "$RUN/cp-insmod.err")"
	echo "chokeplus: $n tests, $fails failed"
	exit 1
fi

# --- configuration through stock tc and the plugin -------------------------
ip link add cp0 type veth peer name cp1
for l in cp0 cp1; do sysctl -qw net.ipv6.conf.$l.disable_ipv6=1; ip link set $l up; done
tcb qdisc add dev cp0 root handle 1: tbf rate 4mbit burst 10kb latency 100ms
if tcb qdisc add dev cp0 parent 1:1 handle 10: chokeplus limit 300 min 25 max 50 \
	bandwidth 4mbit protect 2>"$RUN/cp.err"; then
	s=$(tcb -d qdisc show dev cp0 | grep 'qdisc chokeplus')
	case $s in
	*"limit 300p min 25p max 50p protect 64 ewma "*"probability "*"Scell_log "*) ok "add: $s" ;;
	*) bad add "shown as: $s" ;;
	esac
else
	bad add "$(cat "$RUN/cp.err")"
fi
j=$(tcb -d -j qdisc show dev cp0 | python3 -c '
import json, sys
q = [x for x in json.load(sys.stdin) if x["kind"] == "chokeplus"][0]
o = q["options"]
print(o["limit"], o["min"], o["max"], o["protect"], o.get("ewma"), "probability" in o)' 2>&1)
if [ "$j" = "300 25 50 64 5 True" ] || echo "$j" | grep -q '^300 25 50 64 [0-9]* True$'; then ok "json: limit min max protect ewma: $j"
else bad json "$j"; fi
if tcb qdisc change dev cp0 parent 1:1 handle 10: chokeplus limit 500 min 50 max 150 \
	bandwidth 4mbit draws 4 protect 32 ecn 2>"$RUN/cp.err"; then
	s=$(tcb qdisc show dev cp0 | grep 'qdisc chokeplus')
	case $s in
	*"limit 500p min 50p max 150p draws 4 protect 32 ecn "*) ok "change: $s" ;;
	*) bad change "shown as: $s" ;;
	esac
else
	bad change "$(cat "$RUN/cp.err")"
fi
# a refused change leaves the configuration as it was
tcb qdisc change dev cp0 parent 1:1 handle 10: chokeplus limit 500 min 50 max 150 \
	bandwidth 4mbit protect 7 >"$RUN/cp.out" 2>&1
s=$(tcb qdisc show dev cp0 | grep 'qdisc chokeplus')
case $s in
*"draws 4 protect 32"*) ok "refused-change-keeps: $(head -1 "$RUN/cp.out")" ;;
*) bad refused-change-keeps "shown as: $s" ;;
esac
# back to plain CHOKe words: the variant goes
tcb qdisc change dev cp0 parent 1:1 handle 10: chokeplus limit 500 min 50 max 150 bandwidth 4mbit
s=$(tcb qdisc show dev cp0 | grep 'qdisc chokeplus')
case $s in
*"protect"*|*"draws"*) bad change-to-plain "shown as: $s" ;;
*) ok "change-to-plain: $s" ;;
esac
# protect's additions (issue 19): shown back in the same words, text and JSON
if tcb qdisc change dev cp0 parent 1:1 handle 10: chokeplus limit 1000 bandwidth 4mbit \
	protect srchost target 5ms sparse 2>"$RUN/cp.err"; then
	s=$(tcb qdisc show dev cp0 | grep 'qdisc chokeplus')
	case $s in
	*"protect 64 srchost target 5000us sparse "*) ok "additions: $s" ;;
	*) bad additions "shown as: $s" ;;
	esac
	j=$(tcb -j qdisc show dev cp0 | python3 -c '
import json, sys
o = [x for x in json.load(sys.stdin) if x["kind"] == "chokeplus"][0]["options"]
print(o.get("protect_by"), o.get("target_us"), o.get("sparse"))' 2>&1)
	if [ "$j" = "srchost 5000 True" ]; then ok "additions-json: $j"; else bad additions-json "$j"; fi
else
	bad additions "$(cat "$RUN/cp.err")"
fi
tcb qdisc change dev cp0 parent 1:1 handle 10: chokeplus limit 1000 bandwidth 4mbit \
	target 5ms >"$RUN/cp.out" 2>&1
case $(cat "$RUN/cp.out") in
*"goes with protect"*) ok "target-needs-protect: $(head -1 "$RUN/cp.out")" ;;
*) bad target-needs-protect "$(cat "$RUN/cp.out")" ;;
esac
tcb qdisc del dev cp0 root

# --- what only a hand-made request sends: the module's own checks -------------
nl_case() { # name, expected (ok or a piece of the message), choke-nl words...
	name=$1 want=$2
	shift 2
	tcb qdisc del dev cp0 root 2>/dev/null
	res=$(timeout 10 "$NL" cp0 add handle 1: kind chokeplus "$@" 2>&1)
	case $res in
	*"$want"*) ok "nl-$name: $res" ;;
	*) bad "nl-$name" "got \"$res\", want \"$want\"" ;;
	esac
}
nl_case plain ok
nl_case protect ok variant 0 0 64
nl_case draws ok variant 1 8 0
nl_case geometric ok variant 3 4 128
nl_case adaptive ok variant 2 0 0
nl_case protect-7 "8 to 256 entries" variant 0 0 7
nl_case protect-512 "8 to 256 entries" variant 0 0 512
nl_case variant-4 "unknown variant" variant 4 0 0
nl_case draws-1 "draws must be 2 to 16" variant 1 1 0
nl_case draws-17 "draws must be 2 to 16" variant 1 17 0
nl_case geometric-0 "cap must be 1 to 16" variant 3 0 0
nl_case stray-draws "without draws or geometric" variant 0 5 0
nl_case variant-v1 ok variant 0 0 64 variant-len 4
nl_case variant-short "12 bytes, or its first 4" variant 0 0 64 variant-len 3
nl_case variant-mid "12 bytes, or its first 4" variant 0 0 64 variant-len 8
nl_case variant-long "12 bytes, or its first 4" variant 0 0 64 variant-len 16
nl_case target-sparse-hosts ok variant 0 0 64 variant-more 1 1 5000
nl_case sparse-alone ok variant 0 0 0 variant-more 0 1 0
nl_case by-4 "flows, srchost, dsthost or hosts" variant 0 0 64 variant-more 4 0 0
nl_case by-without-protect "with protect" variant 0 0 0 variant-more 2 0 0
nl_case target-without-protect "target must be 1 us to 1 s" variant 0 0 0 variant-more 0 0 5000
nl_case target-2s "target must be 1 us to 1 s" variant 0 0 64 variant-more 0 0 2000000
nl_case sparse-2 "sparse is 0 or 1" variant 0 0 64 variant-more 0 2 0
nl_case pad "the padding 0" variant 0 0 64 variant-more 0 0 0 1
nl_case unknown-attr "err" extra-attr 5
nl_case no-stab "STAB" no-stab
# choke, the mainline-compatible id, knows no variant attribute
tcb qdisc del dev cp0 root 2>/dev/null
res=$(timeout 10 "$NL" cp0 add handle 1: kind choke variant 0 0 64 2>&1)
case $res in
err*) ok "choke-refuses-variant: $res" ;;
*) bad choke-refuses-variant "$res" ;;
esac
tcb qdisc del dev cp0 root 2>/dev/null
ip link del cp0

# --- traffic: 8 TCP streams and 4 floods at twice the link, protect --------
. tests/kernel/guest-tbf.sh
# twice NAME FUNCTION: a traffic case (FUNCTION writes its verdict to
# $RUN/cp-NAME and returns its status) run again once when it fails: the
# guest shares two CPUs with another UML in check-kernel, and iperf3 in it
# has failed now and then for reasons of its own. A second failure fails
# the case; a pass on the second run says what the first one said.
twice() {
	if "$2"; then ok "$1: $(cat "$RUN/cp-$1")"; return 0; fi
	first=$(tail -3 "$RUN/cp-$1" | tr '\n' ' ')
	cp "$RUN/cp-$1" "$RUN/cp-$1.first"
	if "$2"; then ok "$1: $(cat "$RUN/cp-$1") (on the second run; the first: $first)"
	else bad "$1" "$(tail -3 "$RUN/cp-$1") (and the first run: $first)"; return 1; fi
}
C tc qdisc add dev c0 root handle 1: tbf rate 4mbit burst 10kb latency 300ms
C tc qdisc add dev c0 parent 1:1 handle 10: chokeplus limit 300 min 25 max 50 bandwidth 4mbit protect
# and a plain choke beside it, on the way back: the two ids at once
S tc qdisc add dev s0 root handle 1: tbf rate 4mbit burst 10kb latency 300ms
S tc qdisc add dev s0 parent 1:1 handle 10: choke limit 300 min 25 max 50 bandwidth 4mbit
# floods JSON: the servers of a TCP and a flood case (5201, 5202), then 4 UDP
# floods at twice the link in all (1000-byte datagrams) in the background
# ($udp), their server's intervals to JSON; TCP starts 3 s later
floods() {
	quiet s c
	serve 5201 5202:json
	C timeout $((SECS + 40)) iperf3 -c 10.9.0.2 -p 5202 -u -b 2000k -P 4 -l 1000 -w 2M \
		-t $((SECS + 6)) -J --get-server-output >"$1" 2>&1 &
	udp=$!
	sleep 3
}
traffic_run() {
	floods "$RUN/cp-udp.json"
	C timeout $((SECS + 30)) iperf3 -c 10.9.0.2 -p 5201 -P 8 -t "$SECS" -J >"$RUN/cp-tcp.json" 2>&1
	wait $udp
	C tc -s -j qdisc show dev c0 >"$RUN/cp-stats.json" 2>&1
	C tc -s qdisc show dev c0 >"$RUN/cp-stats.txt" 2>&1
	S tc -s qdisc show dev s0 >"$RUN/cp-back.txt" 2>&1
	python3 - "$RUN/cp-tcp.json" "$RUN/cp-udp.json" "$RUN/cp-stats.json" <<'PY' >"$RUN/cp-traffic" 2>&1
import json, sys
tcp = json.load(open(sys.argv[1]))
u = json.load(open(sys.argv[2]))
secs = tcp["end"]["sum_received"]["seconds"]
tcp_bps = sum(s["receiver"]["bytes"] for s in tcp["end"]["streams"]) * 8 / secs
t0 = tcp["start"]["timestamp"]["timesecs"] - u["start"]["timestamp"]["timesecs"]
inside = [i["sum"] for i in u["server_output_json"]["intervals"]
          if i["sum"]["start"] >= t0 - 0.5 and i["sum"]["end"] <= t0 + secs + 1.5]
udp_bps = sum(i["bytes"] * 8 for i in inside) / sum(i["seconds"] for i in inside)
q = [x for x in json.load(open(sys.argv[3])) if x["kind"] == "chokeplus"][0]
x = q  # tc puts the xstats beside the generic counters
share = udp_bps / 4e6
# the floods at most 1.5x their fair share 4/12 here (a test, not the
# evaluation: make eval-kernel-peers has the figures); TCP takes the rest;
# protect's drops counted, and dropped = early + pdrop + 2 matched + other + protect
assert share <= 1.5 * 4 / 12, share
assert tcp_bps / 4e6 >= 0.4, tcp_bps
assert x["protect"] > 0, x
assert q["drops"] == x["early"] + x["pdrop"] + 2 * x["matched"] + x["other"] + x["protect"], (q["drops"], x)
print("floods %.3f of the link (%.2fx fair), TCP %.3f; protect dropped %d, matched %d, early %d" % (
    share, share / (4 / 12), tcp_bps / 4e6, x["protect"], x["matched"], x["early"]))
PY
}
twice traffic traffic_run
if grep -q "matched [0-9]* protect [1-9]" "$RUN/cp-stats.txt"; then ok "stats-text: $(grep -o 'marked.*' "$RUN/cp-stats.txt")"
else bad stats-text "$(cat "$RUN/cp-stats.txt")"; fi
if grep -q "qdisc choke 10:" "$RUN/cp-back.txt"; then ok "side-by-side: choke and chokeplus at once"
else bad side-by-side "$(cat "$RUN/cp-back.txt")"; fi
# --- traffic again, protect's short queue and the light lane: a ping every
# 200 ms through the loaded link stays short (the 25/50 thresholds above
# keep it at 60 ms and more); the floods still held, TCP still served
C tc qdisc change dev c0 parent 1:1 handle 10: chokeplus limit 1000 bandwidth 4mbit \
	protect target 5ms sparse
target_sparse_run() {
	floods "$RUN/cp-udp2.json"
	C timeout $((SECS + 10)) ping -n -i 0.2 -W 2 -c $((SECS * 5 - 5)) 10.9.0.2 >"$RUN/cp-ping.txt" 2>&1 &
	ping=$!
	C timeout $((SECS + 30)) iperf3 -c 10.9.0.2 -p 5201 -P 8 -t "$SECS" -J >"$RUN/cp-tcp2.json" 2>&1
	wait $udp
	wait $ping
	C tc -s -j qdisc show dev c0 >"$RUN/cp-stats2.json" 2>&1
	python3 - "$RUN/cp-tcp2.json" "$RUN/cp-ping.txt" "$RUN/cp-stats2.json" <<'PY' >"$RUN/cp-target-sparse" 2>&1
import json, re, sys
tcp = json.load(open(sys.argv[1]))
secs = tcp["end"]["sum_received"]["seconds"]
tcp_share = sum(s["receiver"]["bytes"] for s in tcp["end"]["streams"]) * 8 / secs / 4e6
rtts = sorted(float(m) for m in re.findall(r"time=([0-9.]+) ms", open(sys.argv[2]).read()))
q = [x for x in json.load(open(sys.argv[3])) if x["kind"] == "chokeplus"][0]
assert len(rtts) >= 10, "only %d ping replies" % len(rtts)
p50 = rtts[len(rtts) // 2]
# the light lane: the ping's median a few packet times, not the queue's
assert p50 < 20, (p50, rtts[-1])
# TCP keeps at least 40% (8 of 12 shares is 0.67); the lane was used
assert tcp_share >= 0.4, tcp_share
assert q.get("lane", 0) > 0 and q["protect"] > 0, q
print("ping p50 %.1f ms max %.1f ms over %d, TCP %.3f of the link; lane %d, protect %d" % (
    p50, rtts[-1], len(rtts), tcp_share, q["lane"], q["protect"]))
PY
}
twice target-sparse target_sparse_run
# --- the same words with one flood beside four light flows and nothing else
# (guest-tbf.sh: on_tbf, target_idle_run)
twice target-idle target_idle_run
# --- sparse at the limit: one flood at twice the link keeps a 30-packet
# queue full (protect admits it at 1.25 of the link while the delay, 60 ms,
# is under the goal of 1 s), and a ping's packets take the lane by pushing
# the queue's head out: 75 of 75 answered; refused at the limit (main's
# module before this case), 61 and 64 of 75.
push_out_run() {
	on_tbf limit 30 bandwidth 4mbit protect target 1s sparse
	serve 5202
	C timeout $((SECS + 40)) iperf3 -c 10.9.0.2 -p 5202 -u -b 8M -l 1000 -w 2M \
		-t $((SECS + 3)) >"$RUN/cp-udp4.txt" 2>&1 &
	udp=$!
	sleep 1
	C timeout $((SECS + 10)) ping -n -i 0.2 -W 2 -c $((SECS * 5)) 10.9.0.2 \
		>"$RUN/cp-ping4.txt" 2>&1
	C tc -s -j qdisc show dev c0 >"$RUN/cp-stats4.json" 2>&1
	wait $udp
	python3 - "$RUN/cp-ping4.txt" "$RUN/cp-stats4.json" $((SECS * 5)) <<'PY' >"$RUN/cp-push-out" 2>&1
import json, re, sys
rtts = sorted(float(m) for m in re.findall(r"time=([0-9.]+) ms", open(sys.argv[1]).read()))
sent = int(sys.argv[3])
q = [x for x in json.load(open(sys.argv[2])) if x["kind"] == "chokeplus"][0]
# the queue stood at its limit: arrivals were refused there
assert q["pdrop"] > 0, q
assert len(rtts) >= 0.9 * sent, "%d of %d pings answered" % (len(rtts), sent)
p50 = rtts[len(rtts) // 2]
assert p50 < 20, (p50, rtts[-1])
assert q["lane"] >= len(rtts), q
print("%d of %d pings answered, p50 %.1f ms max %.1f ms; lane %d, pdrop %d, drops %d" % (
    len(rtts), sent, p50, rtts[-1], q["lane"], q["pdrop"], q["drops"]))
PY
}
twice push-out push_out_run
# --- protect srchost over IPv6: host fd09::1 opens four TCP connections,
# one to each of four addresses of s, host fd09::3 one: each host is held
# at half the link. A module that keyed an IPv6 host by a hash of both its
# addresses (before 2026-12-07) gave the first host four shares of five and
# the second about a fifth. (TCP: with several addresses of one prefix on
# each side iperf3 3.12's UDP test does not start, with or without a
# chokeplus on the link; with one address each it does, through every
# word set.)
C ip -6 addr add fd09::1/64 dev c0 nodad; C ip -6 addr add fd09::3/64 dev c0 nodad
for a in 2 4 6 8; do S ip -6 addr add fd09::$a/64 dev s0 nodad; done
srchost6_run() {
	on_tbf limit 1000 bandwidth 4mbit protect srchost target 5ms sparse
	serve 5221 5222 5223 5224 5225
	h6=
	for a in 2 4 6 8; do
		C timeout $((SECS + 40)) iperf3 -6 -c fd09::$a -B fd09::1 -p $((5220 + a / 2)) \
			-t "$SECS" -J >"$RUN/cp-h6-$a.json" 2>&1 &
		h6="$h6 $!"
	done
	C timeout $((SECS + 40)) iperf3 -6 -c fd09::2 -B fd09::3 -p 5225 -t "$SECS" -J \
		>"$RUN/cp-h6-b.json" 2>&1
	wait $h6
	C tc -s -j qdisc show dev c0 >"$RUN/cp-stats6.json" 2>&1
	python3 - "$RUN" <<'PY' >"$RUN/cp-srchost6" 2>&1
import json, sys
run = sys.argv[1]
def rate(name):
    r = json.load(open("%s/cp-h6-%s.json" % (run, name)))["end"]["sum_received"]
    return r["bytes"] * 8 / r["seconds"] / 4e6
a = sum(rate(x) for x in ("2", "4", "6", "8"))
b = rate("b")
q = [x for x in json.load(open(run + "/cp-stats6.json")) if x["kind"] == "chokeplus"][0]
# each host half of the link; by the pairs of addresses, b would have a fifth
assert b >= 0.35 and a >= 0.35, (a, b)
assert q["protect"] > 0, q
print("fd09::1 (4 connections) %.3f of the link, fd09::3 (1) %.3f; protect %d" % (a, b, q["protect"]))
PY
}
twice srchost6 srchost6_run
quiet s c
ip netns del c; ip netns del s

# --- multi-queue: mq with a chokeplus per transmit queue (guest-mq.sh) --------
. tests/kernel/guest-mq.sh

# --- unload ----------------------------------------------------------------------
if rmmod sch_libchoke 2>"$RUN/cp-rmmod.err"; then ok "rmmod"
else bad rmmod "$(cat "$RUN/cp-rmmod.err")"; fi
echo "chokeplus: $n tests, $fails failed"
[ $fails = 0 ]
