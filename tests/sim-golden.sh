#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Golden outputs of the simulator: `choke sim` on every shipped scenario,
# several seeds and each discipline (JSON, text, CSV), sweeps (also with
# --jobs), `choke demo` and `choke demo --open-loop`, compared byte for byte
# (SHA-256 of standard output and of standard error, and the exit status)
# with tests/sim/golden/SHA256SUMS. A refactor of src/sim or the commands
# must leave every line unchanged.
#
# Usage: CHOKE=build/gcc/choke sh tests/sim-golden.sh [--update | --save DIR]
#   --update   rewrite SHA256SUMS from this binary (only for a change of
#              output that is meant; say why in the commit)
#   --save DIR also keep every case's output in DIR (to diff two binaries)
#
# The sums are those of x86-64 (SSE2 double arithmetic, glibc's libm), where
# gcc, clang and the sanitizer build agree bit for bit; elsewhere the test
# says so and is skipped.
set -u
CHOKE=${CHOKE:-build/gcc/choke}
case $CHOKE in /*) ;; *) CHOKE=$(pwd)/$CHOKE ;; esac
cd "$(dirname "$0")/.." || exit 1
SUMS=tests/sim/golden/SHA256SUMS
mode=check
save=
case ${1:-} in
--update) mode=update ;;
--save) save=${2:?--save needs a directory}; mkdir -p "$save" || exit 1 ;;
"") ;;
*) echo "usage: $0 [--update | --save DIR]" >&2; exit 2 ;;
esac
arch=$(uname -m)
if [ "$arch" != x86_64 ] && [ $mode = check ]; then
	echo "skip sim-golden: the sums are for x86_64, this is $arch"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
: >"$tmp/sums"

# g NAME ARGS...: run `choke ARGS...`, record "NAME status sha(out) sha(err)"
g() {
	name=$1
	shift
	"$CHOKE" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	so=$(sha256sum <"$tmp/out" | cut -c1-64)
	se=$(sha256sum <"$tmp/err" | cut -c1-64)
	echo "$name $st $so $se" >>"$tmp/sums"
	if [ -n "$save" ]; then
		cp "$tmp/out" "$save/$name.out"
		cp "$tmp/err" "$save/$name.err"
	fi
}

# Every shipped scenario: seeds 1-3 compared (all three disciplines, JSON);
# seed 1 also as text and CSV, and each discipline alone in each format.
# The long ones are shortened; the others run their full duration.
for s in paper-single-link multi-udp twl-many-tcp tcp-fairness speed-1000; do
	case $s in
	tcp-fairness) short="--set duration=20s --set warmup=5s" ;;
	speed-1000) short="--set duration=2s --set warmup=1s" ;;
	*) short= ;;
	esac
	for seed in 1 2 3; do
		g "$s.seed$seed.compare.json" sim "scenarios/$s" $short --seed $seed --compare --json
	done
	g "$s.compare.txt" sim "scenarios/$s" $short --compare
	g "$s.compare.csv" sim "scenarios/$s" $short --compare --csv
	for q in fifo red choke; do
		g "$s.$q.json" sim "scenarios/$s" $short --qdisc $q --json
		g "$s.$q.txt" sim "scenarios/$s" $short --qdisc $q
		g "$s.$q.csv" sim "scenarios/$s" $short --qdisc $q --csv
	done
done
g twl-many-tcp.flows.txt sim scenarios/twl-many-tcp --flows
g speed-1000.seed2.choke.txt sim scenarios/speed-1000 --set duration=2s --set warmup=1s --seed 2
# by name (scenarios/NAME from the current directory) and seed given twice
g by-name.json sim paper-single-link --json
g set-seed.json sim scenarios/multi-udp --set seed=5 --json

# the model's options through --set and --qdisc words
P="scenarios/paper-single-link --set duration=30s --set warmup=10s"
g ecn.json sim $P --set tcp_ecn=1 --set udp_ecn=1 --qdisc 'choke limit 300 min 100 max 200 ecn' --json
g red-ecn.txt sim $P --set tcp_ecn=1 --qdisc 'red limit 300 min 100 max 200 ecn'
g poisson-jitter.json sim scenarios/multi-udp --set udp_kind=poisson --set udp_jitter=0.3 --json
g cbr-jitter.csv sim scenarios/multi-udp --set udp_jitter=0.5 --csv
g delack.json sim $P --set tcp_delack=1 --set tcp_delack_count=3 --json
g finite.json sim $P --set tcp_bytes=40k --set tcp_iw=2 --json
g finite.txt sim $P --set tcp_bytes=40k --set tcp_iw=2
g rtts.json sim $P --set tcp_access_delay=1ms..50ms --set tcp_start=0..5s --json
g access-limit.json sim $P --set tcp_access_limit=5 --set udp_access_limit=3 --set udp_access_rate=2c --json
g rwnd.csv sim $P --set tcp_rwnd=8 --set tcp_limited_transmit=0 --set tcp_dupthresh=4 --csv
g rto.json sim $P --set tcp_min_rto=200ms --set tcp_init_rto=3s --set tcp_max_rto=10s --set tcp_granularity=10ms --json
g sizes.json sim $P --set pkt_size=1500 --set ack_size=64 --set bottleneck_delay=20ms --json
g nosample.json sim $P --set sample_interval=0 --set hh_counters=4 --json
g draws.json sim scenarios/multi-udp --qdisc 'choke limit 300 min 25 max 50 draws 4' --json
g adaptive.txt sim scenarios/multi-udp --set 'queue=limit 300 min 25 max 50 adaptive' --set hh_counters=8
g geometric.json sim scenarios/multi-udp --qdisc 'choke limit 300 min 25 max 50 geometric 8' --json
g bytes.json sim $P --qdisc 'choke limit 300000 min 100000 max 200000 bytes' --json
g fifo-limit.json sim $P --qdisc 'fifo limit 50' --json
g udp-only.json sim $P --set tcp_flows=0 --set udp_flows=3 --json
g tcp-only.txt sim $P --set udp_flows=0

# beyond the classic two classes (docs/sim.md: groups): protect's drops
# apart, light UDP flows, floods on a schedule, short transfers, the series
M="scenarios/multi-udp --set duration=40s --set warmup=10s"
g protect.txt sim $M --set udp_flows=4 --qdisc 'choke limit 300 min 100 max 200 protect'
g protect.csv sim $M --set udp_flows=4 --qdisc 'choke limit 300 min 100 max 200 protect' --csv
g protect.sweep.csv sim $M --sweep udp_flows=1,4 --qdisc 'choke limit 300 min 25 max 50 protect 32' --csv
g light.json sim $M --set udp_flows=4 --set light_flows=2 --set light_kind=poisson --qdisc 'choke limit 300 min 100 max 200 protect' --json
g light.txt sim $M --set udp_flows=4 --set light_flows=1 --set light_rate=20kbit
g onoff.txt sim $M --set udp_schedule=15s..25s,30s..35s --set series_interval=2.5s
g onoff.json sim $M --set udp_flows=2 --set udp_schedule=5s..20s --set series_interval=1s --json
g web.json sim $M --set web_rate=2 --set web_size=30k --json
g web-pareto.txt sim $M --set tcp_flows=8 --set web_rate=4 --set web_size_dist=pareto --set tcp_access_delay=5ms..50ms
g web-exp.csv sim $M --set web_rate=3 --set web_size_dist=exp --csv
g series.json sim $P --set series_interval=7s --json
g light-rtt.json sim $M --set udp_flows=4 --set light_flows=1 --set light_rate=40kbit --set light_rtt=1 --qdisc 'choke limit 300 min 25 max 50 protect' --json
g light-rtt.txt sim $M --set udp_flows=1 --set light_flows=2 --set light_rtt=1 --set tcp_access_delay=1ms..100ms
g hosts.json sim $M --set tcp_flows=19 --set tcp_hosts=16,1,1,1 --set udp_flows=0 --qdisc 'choke limit 300 min 25 max 50 protect' --json
g hosts.txt sim $M --set tcp_flows=8 --set tcp_hosts=5,2,1 --set light_flows=1 --set light_rtt=1
g hosts-srchost.json sim $M --set tcp_flows=19 --set tcp_hosts=16,1,1,1 --set udp_flows=1 --qdisc 'choke limit 300 min 25 max 50 protect srchost' --json
g groups.sweep.json sim $M --set light_flows=1 --sweep udp_flows=1,4 --qdisc choke --json --jobs 2
# protect's short queue (docs/variants.md): target, the light lane, the
# room beside light flows, hosts with ECN, mixed round trips; sparse under
# RED's thresholds
T='choke limit 1000 protect target 5ms sparse'
g target.json sim $M --set udp_flows=4 --qdisc "$T" --json
g target-room.txt sim $M --set tcp_flows=0 --set udp_flows=1 --set udp_rate=1.6c --set light_flows=20 --set light_rate=200kbit --set light_kind=cbr --qdisc "$T"
g target-hosts-ecn.json sim $M --set tcp_flows=19 --set tcp_hosts=16,1,1,1 --set udp_flows=1 --set tcp_ecn=1 --set udp_ecn=1 --qdisc 'choke limit 1000 protect srchost target 5ms sparse ecn' --json
g target-rtt.csv sim $M --set bottleneck_rate=10mbit --set tcp_flows=16 --set tcp_access_delay=1ms..109ms --set udp_flows=1 --qdisc "$T" --csv
g sparse.txt sim $M --set udp_flows=2 --set light_flows=2 --qdisc 'choke limit 300 min 25 max 50 protect sparse'
g sparse-noprotect.txt sim $M --set udp_flows=2 --set light_flows=2 --qdisc 'choke limit 300 min 25 max 50 sparse'

# sweeps: log, linear, lists, an integer key, a time key, one discipline,
# and in parallel (the same output)
g sweep-log.json sim scenarios/paper-single-link --sweep udp_rate=0.1c..10c:15:log --json
g sweep-log.csv sim scenarios/paper-single-link --sweep udp_rate=0.1c..10c:15:log --csv
g sweep-log.txt sim scenarios/paper-single-link --sweep udp_rate=0.1c..10c:15:log
g sweep-log.jobs2.csv sim scenarios/paper-single-link --sweep udp_rate=0.1c..10c:15:log --csv --jobs 2
g sweep-log.jobs3.json sim scenarios/paper-single-link --sweep udp_rate=0.1c..10c:15:log --json --jobs 3
g sweep-lin.txt sim $P --sweep udp_rate=0.5c..2c:4
g sweep-list.json sim scenarios/multi-udp --sweep udp_flows=1,2,4,8 --json
g sweep-list.txt sim scenarios/multi-udp --sweep udp_flows=1,2,4,8
g sweep-uint.json sim $P --sweep tcp_flows=8..32:3 --qdisc choke --json
g sweep-time.csv sim $P --sweep bottleneck_delay=1ms..50ms:3 --csv
g sweep-words.txt sim scenarios/multi-udp --sweep udp_rate=1c..4c:3 --qdisc 'choke limit 300 min 25 max 50'
g sweep-mbit.csv sim $P --sweep udp_rate=0.5mbit..2mbit:3:log --csv
g sweep-twl.json sim scenarios/twl-many-tcp --set duration=30s --set warmup=10s --sweep udp_rate=0.5c,2c --json --jobs 2

# choke demo (the paper's comparison, built in) and the open-loop workload
g demo.txt demo
g demo.json demo --json
g demo.csv demo --csv
g demo.seconds.json demo --seconds 20 --seed 5 --json
g demo.set.txt demo --set udp_rate=5c --seconds 30
g demo.jobs.json demo --jobs 3 --json
g demo.open-loop.txt demo --open-loop
g demo.open-loop.json demo --open-loop --json
g demo.open-loop.seed.json demo --open-loop --seconds 10 --seed 3 --json
g demo.open-loop.seed.txt demo --open-loop --seconds 10 --seed 3

# the scenario keys and their defaults
g keys.txt sim --keys

if [ $mode = update ]; then
	mkdir -p "$(dirname "$SUMS")"
	{
		echo "# tests/sim-golden.sh: case, exit status, sha256 of stdout, of stderr"
		cat "$tmp/sums"
	} >"$SUMS.tmp" && mv "$SUMS.tmp" "$SUMS" || exit 1
	echo "sim-golden: wrote $(wc -l <"$tmp/sums") cases to $SUMS"
	exit 0
fi
if [ ! -f "$SUMS" ]; then
	echo "FAIL sim-golden: no $SUMS (make it with --update on the reference binary)"
	exit 1
fi
fails=0
n=0
while read -r name st so se; do
	n=$((n + 1))
	want=$(awk -v n="$name" '$1 == n { print; exit }' "$SUMS")
	if [ "$want" != "$name $st $so $se" ]; then
		fails=$((fails + 1))
		echo "FAIL sim-golden/$name: got \"$st $so $se\", want \"${want#"$name "}\""
	fi
done <"$tmp/sums"
# a case in the sums that this script no longer runs is a failure too
m=$(grep -vc '^#' "$SUMS")
if [ "$m" != "$n" ]; then
	fails=$((fails + 1))
	echo "FAIL sim-golden: $SUMS has $m cases, the script ran $n"
fi
[ $fails = 0 ] && echo "ok   sim-golden: $n cases byte-identical to $SUMS"
echo "sim-golden: $n cases, $fails failed"
[ $fails = 0 ]
