# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Multi-queue: mq with one chokeplus per transmit queue of a 4-queue veth,
# inside the UML guest. Sourced by guest-chokeplus.sh (its ok/bad, $RUN,
# tc's plugin and the module loaded), so its cases count with the
# others.
#
# The veth has no ndo_select_queue and this kernel no XPS (UML has one
# CPU), so each socket's packets go to the queue its flow hash picks
# (skb_tx_hash; a socket's hash is random, kept for the connection): many
# flows spread over the 4 queues, and which flow lands where is chance.
#   1. mq with chokeplus children on 1:1..1:4, each with its own limit:
#      each shown with its parent and words, changed alone; 64 UDP flows
#      without a bottleneck: every child sends, mq's counters are the
#      children's sums, each child's drops add up.
#   2. a standing queue per transmit queue: mq, tbf 2mbit on each of
#      1:1..1:4, chokeplus protect under each tbf; 16 TCP streams and 32
#      UDP floods of 500 kbit/s (16 Mbit/s in all, twice the 4 x 2 Mbit/s):
#      every child sends, protect drops in every child whose queue was
#      flooded (a tenth of its arrivals or more dropped: a loaded host's
#      UML sends less than the 16 Mbit/s asked), each child's
#      drops add up, every queue drains, TCP keeps a share of the link.
MQ_C=mqc-$$ MQ_S=mqs-$$
# 8 s of load whatever the suite's $SECS (its added time stays under 30 s);
# iperf3 -w 2M needs the socket buffers allowed
MQ_SECS=8
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null
MC() { ip netns exec $MQ_C "$@"; }
MS() { ip netns exec $MQ_S "$@"; }
ip netns add $MQ_C; ip netns add $MQ_S
ip -n $MQ_C link add q0 numtxqueues 4 numrxqueues 4 type veth peer name q1 numtxqueues 4 numrxqueues 4 netns $MQ_S
ip -n $MQ_C addr add 10.11.0.1/24 dev q0; ip -n $MQ_S addr add 10.11.0.2/24 dev q1
ip -n $MQ_C link set q0 up; ip -n $MQ_C link set lo up
ip -n $MQ_S link set q1 up; ip -n $MQ_S link set lo up
# the qdiscs of q0 as JSON, and a check over them (python3, the JSON on stdin)
mq_json() { MC tc -s -j qdisc show dev q0; }
mq_check() { # NAME PYTHON (asserts on q: the list of qdiscs; prints a summary)
	name=$1
	mq_json > "$RUN/mq-$name.json" 2>&1
	if python3 -c "import json, sys
q = json.load(open(sys.argv[1]))
kids = sorted((x for x in q if x['kind'] == 'chokeplus'), key=lambda x: x['parent'])
mq = [x for x in q if x['kind'] == 'mq']
def ident(x):
    return x['drops'] == x['early'] + x['pdrop'] + 2 * x['matched'] + x['other'] + x['protect']
$2" "$RUN/mq-$name.json" > "$RUN/mq-$name.out" 2>&1; then
		ok "mq-$name: $(tail -1 "$RUN/mq-$name.out")"
	else
		bad "mq-$name" "$(tail -3 "$RUN/mq-$name.out" | tr '\n' ' ')"
	fi
}

# --- 1. chokeplus directly under mq -------------------------------------------
if MC tc qdisc add dev q0 root handle 1: mq 2>"$RUN/mq.err"; then
	for i in 1 2 3 4; do
		MC tc qdisc add dev q0 parent 1:$i handle 1$i: chokeplus limit $((200 + i)) min 20 max 60 \
			bandwidth 100mbit protect 2>>"$RUN/mq.err"
	done
fi
s=$(MC tc qdisc show dev q0)
echo "$s" > "$RUN/mq-show.txt"
# (mq_set, not n: this file is sourced by guest-chokeplus.sh, whose n
# counts its tests)
mq_set=0
for i in 1 2 3 4; do
	echo "$s" | grep -q "qdisc chokeplus 1$i: parent 1:$i limit $((200 + i))p min 20p max 60p protect 64" && mq_set=$((mq_set + 1))
done
if [ $mq_set = 4 ] && echo "$s" | grep -q "qdisc mq 1: root"; then ok "mq-children: mq 1: and 4 chokeplus on 1:1..1:4, each its own limit"
else bad mq-children "$(cat "$RUN/mq.err") $(echo "$s" | tr '\n' ' ')"; fi
# one child changed alone
MC tc qdisc change dev q0 parent 1:3 handle 13: chokeplus limit 500 min 50 max 150 bandwidth 100mbit protect 32 2>"$RUN/mq.err"
s=$(MC tc qdisc show dev q0)
if echo "$s" | grep -q "qdisc chokeplus 13: parent 1:3 limit 500p min 50p max 150p protect 32" &&
   echo "$s" | grep -q "qdisc chokeplus 12: parent 1:2 limit 202p min 20p max 60p protect 64"; then ok "mq-change-one: 1:3 changed, 1:2 as it was"
else bad mq-change-one "$(cat "$RUN/mq.err") $(echo "$s" | tr '\n' ' ')"; fi
MS iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
sleep 1
MC timeout 30 iperf3 -c 10.11.0.2 -p 5301 -u -b 100k -P 64 -l 500 -t 3 >"$RUN/mq-spread.txt" 2>&1
sleep 1
mq_check spread "
assert len(kids) == 4 and len(mq) == 1, (len(kids), len(mq))
for k in kids:
    assert k['packets'] > 0, ('a child sent nothing', k['parent'], [x['packets'] for x in kids])
    assert ident(k), ('drops do not add up', k)
    assert k['qlen'] == 0, ('not drained', k)
assert mq[0]['packets'] == sum(k['packets'] for k in kids), ('mq is not the sum', mq[0]['packets'])
assert mq[0]['bytes'] == sum(k['bytes'] for k in kids)
print('packets per child %s, mq %d' % ([k['packets'] for k in kids], mq[0]['packets']))"
MC tc qdisc del dev q0 root

# --- 2. a standing queue on each transmit queue: tbf, chokeplus protect --------
MC tc qdisc add dev q0 root handle 1: mq
for i in 1 2 3 4; do
	MC tc qdisc add dev q0 parent 1:$i handle 2$i: tbf rate 2mbit burst 10kb latency 300ms
	MC tc qdisc add dev q0 parent 2$i:1 handle 3$i: chokeplus limit 300 min 25 max 50 bandwidth 2mbit protect
done
MS iperf3 -s -1 -p 5302 >/dev/null 2>&1 &
MS iperf3 -s -1 -p 5303 -J >/dev/null 2>&1 &
sleep 1
MC timeout $((MQ_SECS + 40)) iperf3 -c 10.11.0.2 -p 5303 -u -b 500k -P 32 -l 1000 -w 2M \
	-t $((MQ_SECS + 4)) >"$RUN/mq-udp.txt" 2>&1 &
udp=$!
sleep 2
MC timeout $((MQ_SECS + 30)) iperf3 -c 10.11.0.2 -p 5302 -P 16 -t "$MQ_SECS" -J >"$RUN/mq-tcp.json" 2>&1
wait $udp
mq_json > "$RUN/mq-loaded.json" 2>&1
sleep 3
mq_check protect "
loaded = {x['parent']: x for x in json.load(open('$RUN/mq-loaded.json')) if x['kind'] == 'chokeplus'}
tcp = json.load(open('$RUN/mq-tcp.json'))
secs = tcp['end']['sum_received']['seconds']
tcp_share = tcp['end']['sum_received']['bytes'] * 8 / secs / 8e6
assert len(kids) == 4, len(kids)
flooded = 0
rows = []
for k in kids:
    x = loaded[k['parent']]
    arrivals = x['packets'] + x['drops']
    assert x['packets'] > 0, ('a child sent nothing', x['parent'])
    assert ident(x), ('drops do not add up', x)
    if x['drops'] >= 0.1 * arrivals:
        flooded += 1
        assert x['protect'] > 0, ('a flooded child without protect drops', x)
    assert k['qlen'] == 0 and k['backlog'] == 0, ('not drained', k)
    rows.append('%s sent %d, dropped %d (protect %d)' % (x['parent'], x['packets'], x['drops'], x['protect']))
assert flooded >= 1, 'no child was flooded'
assert tcp_share >= 0.15, ('TCP kept too little of the link', tcp_share)
print('%d of 4 flooded; TCP %.2f of the 8 Mbit/s; %s' % (flooded, tcp_share, '; '.join(rows)))"
for p in $(ip netns pids $MQ_S) $(ip netns pids $MQ_C); do kill "$p" 2>/dev/null; done
sleep 1
ip netns del $MQ_C; ip netns del $MQ_S
