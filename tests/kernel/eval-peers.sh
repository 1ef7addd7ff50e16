#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make eval-kernel-peers (and eval-kernel-rtt, eval-kernel-hosts): protect in
# the kernel against the kernel's own schedulers (fq_codel, sfb, cake, pie,
# red, mainline choke) and our module plain, in User-Mode Linux, under a tbf
# at the rate given, with a ping every 200 ms through the loaded bottleneck
# (tests/kernel/guest-peers.sh runs it; the workloads are described there).
# Not part of CI; the tables go to stdout and to OUT/table.md, for
# docs/results.md (sections 12 and 13).
#
#   tests/kernel/eval-peers.sh [--workload floods|rtt|hosts] [--rate RATE]
#        [--repeats N] [--seconds S] [--warmup S] [--only a,b,...]
#        [--floods "1 4"] [--udp-len BYTES] [--words 'LABEL=WORDS;...']
#        [--flood-src auto|iperf3|batch] [--out DIR]
#
# --rate: the tbf's rate in tc's syntax with kbit or mbit (default 4mbit).
# --seconds: the measured window (default 20); --warmup: the seconds of TCP
# before it (default 3, 5 for rtt). --udp-len: the floods' datagram payload
# (default 1000; TCP's segments carry 1448: disciplines that count packets
# hold a flood's packet rate, so its share in bytes scales with this).
# --words (or PROTECT_WORDS in the environment): the chokeplus candidates,
# replacing tests/protect-words; each runs as `chokeplus WORDS bandwidth
# RATE` (bandwidth only when the words lack it). --only: the labels to run
# (the peers' below, the candidates' own). --out: the run's folder (default
# build/kernel/peers/WORKLOAD-RATE-ULEN). --flood-src: what sends the floods:
# iperf3 (one datagram per system call; inside UML it cannot send more than
# 5-18 Mbit/s), batch (tests/kernel/udpflood.c: a sendmmsg per millisecond of
# each flood's rate), or auto (the default): iperf3 up to 20 Mbit/s, where
# every earlier table was taken with it, batch above.
#
# Runs on the bench kernel (tests/kernel/build-uml.sh --bench: the same
# options without the debugging ones, which would slow the guest's
# networking far more than any qdisc). Needs root (the guest's namespaces
# run as the host's root inside UML), gcc, make, python3, tc, ip, iperf3,
# ping, linux-source-6.1.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel
KDIR=$OUT/linux-bench-6.1
WL=floods
RATE=4mbit
REPEATS=2
SECS=20
WARM=
ONLY=
ULEN=1000
FLOODS=
WORDS=${PROTECT_WORDS:-}
RUN=
SRC=auto
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { echo "eval-peers: $1 needs a value" >&2; exit 2; }
	case $1 in
	--workload) WL=$2 ;;
	--rate) RATE=$2 ;;
	--repeats) REPEATS=$2 ;;
	--seconds) SECS=$2 ;;
	--warmup) WARM=$2 ;;
	--only) ONLY=$2 ;;
	--floods) FLOODS=$2 ;;
	--udp-len) ULEN=$2 ;;
	--words) WORDS=$2 ;;
	--out) RUN=$2 ;;
	--flood-src) SRC=$2 ;;
	*) echo "eval-peers: unknown argument $1" >&2; exit 2 ;;
	esac
	shift 2
done
case $WL in
floods|rtt|hosts) ;;
*) echo "eval-peers: --workload is floods, rtt or hosts, not \"$WL\"" >&2; exit 2 ;;
esac
[ -n "$WARM" ] || { [ $WL = rtt ] && WARM=5 || WARM=3; }
case $REPEATS$SECS$ULEN$WARM in *[!0-9]*|'') echo "eval-peers: --repeats, --seconds, --warmup and --udp-len take whole numbers" >&2; exit 2 ;; esac
[ "$REPEATS" -ge 1 ] && [ "$SECS" -ge 5 ] || { echo "eval-peers: at least 1 repeat and 5 seconds" >&2; exit 2; }
[ "$ULEN" -ge 100 ] && [ "$ULEN" -le 1472 ] || { echo "eval-peers: --udp-len must be 100 to 1472 bytes (one datagram per 1500-byte frame)" >&2; exit 2; }
case $RATE in
*[!0-9]*kbit|kbit|*[!0-9]*mbit|mbit) echo "eval-peers: --rate takes a whole number of kbit or mbit, e.g. 4mbit, not \"$RATE\"" >&2; exit 2 ;;
*kbit) KBIT=${RATE%kbit} ;;
*mbit) KBIT=$(( ${RATE%mbit} * 1000 )) ;;
*) echo "eval-peers: --rate takes a whole number of kbit or mbit, e.g. 4mbit, not \"$RATE\"" >&2; exit 2 ;;
esac
[ "$KBIT" -ge 100 ] && [ "$KBIT" -le 1000000 ] || { echo "eval-peers: --rate must be 100kbit to 1000mbit" >&2; exit 2; }
case $SRC in
auto) [ "$KBIT" -le 20000 ] && SRC=iperf3 || SRC=batch ;;
iperf3|batch) ;;
*) echo "eval-peers: --flood-src is auto, iperf3 or batch, not \"$SRC\"" >&2; exit 2 ;;
esac
if [ -n "$FLOODS" ]; then
	case $FLOODS in *[!0-9\ ]*) echo "eval-peers: --floods takes numbers of floods, e.g. \"1 4\"" >&2; exit 2 ;; esac
	[ $WL = hosts ] && { echo "eval-peers: the hosts workload has no floods" >&2; exit 2; }
fi
[ -n "$RUN" ] || RUN=$OUT/peers/$WL-${KBIT}kbit-$ULEN
case $ROOT$RUN in *[!A-Za-z0-9/._-]*) echo "eval-peers: the repository and --out paths must not contain spaces or special characters (they go on the UML command line)" >&2; exit 2 ;; esac
for t in gcc make python3 tc ip iperf3 ping timeout; do
	command -v $t >/dev/null 2>&1 || { echo "eval-peers: missing $t" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "eval-peers: needs root (network namespaces in the guest)" >&2; exit 2; }

# The disciplines: label | module to load first | the child qdisc's words
# (@RATE@: the tbf's rate). RED, choke and chokeplus get the same thresholds
# (25 and 50 packets of 1000 bytes, limit 300; RED counts bytes); the others
# run with their defaults, as people use them (cake without its own shaper:
# tbf shapes). The chokeplus rows come from tests/protect-words (or --words).
PEERS='fq_codel|sch_fq_codel|fq_codel
sfb|sch_sfb|sfb
cake|sch_cake|cake unlimited
pie|sch_pie|pie
red|sch_red|red limit 300000 min 25000 max 50000 avpkt 1000 burst 35 bandwidth @RATE@ probability 0.02
choke|sch_choke|choke limit 300 min 25 max 50 bandwidth @RATE@
libchoke|ours|choke limit 300 min 25 max 50 bandwidth @RATE@'
# the hosts workload adds cake's own host fairness (per source address) as
# the reference for a host identity
[ $WL = hosts ] && PEERS="$PEERS
cake-srchost|sch_cake|cake unlimited dual-srchost"
rm -rf "$RUN"
mkdir -p "$RUN"
sh tests/protect-words.sh "$WORDS" >"$RUN/words" || exit 2
{
	echo "$PEERS"
	while IFS='|' read -r label words; do
		if echo "$PEERS" | cut -d'|' -f1 | grep -qx "$label"; then
			echo "eval-peers: the candidate's label \"$label\" is a peer's" >&2
			exit 2
		fi
		case " $words " in
		*" bandwidth "*) echo "$label|ours|chokeplus $words" ;;
		*) echo "$label|ours|chokeplus $words bandwidth @RATE@" ;;
		esac
	done <"$RUN/words"
} >"$RUN/disciplines" || exit 2
labels=$(cut -d'|' -f1 "$RUN/disciplines")
for w in $(echo "$ONLY" | tr , ' '); do
	echo "$labels" | grep -qx "$w" || { echo "eval-peers: --only: no discipline \"$w\" (there are: $(echo $labels))" >&2; exit 2; }
done

echo "eval-peers: the bench UML kernel (tests/kernel/build-uml.sh --bench; cached)"
tests/kernel/build-uml.sh --bench "$KDIR" >"$RUN/build.log" 2>&1 ||
	{ tail -20 "$RUN/build.log"; exit 1; }
echo "eval-peers: sch_libchoke.ko for it, and the tc plugin"
rm -rf "$OUT/mod-peers"
make -s -C kmod dkms-tree DESTDIR="$OUT/mod-peers"
make -s -C "$KDIR" ARCH=um M="$OUT/mod-peers/kmod" modules >>"$RUN/build.log" 2>&1 ||
	{ tail -20 "$RUN/build.log"; exit 1; }
make -s BUILD=build/peers build/peers/q_chokeplus.so
gcc -O2 -Wall -Wextra -Werror -o "$OUT/udpflood" tests/kernel/udpflood.c
nd=$(if [ -n "$ONLY" ]; then echo "$ONLY" | tr ',' '\n' | wc -l; else wc -l <"$RUN/disciplines"; fi)
nk=$(case $WL in floods) set -- ${FLOODS:-1 4}; echo $# ;; rtt) set -- ${FLOODS:-1}; echo $# ;; *) echo 1 ;; esac)
n=$(( nd * nk * REPEATS ))
# a run takes about 3 (SECS + WARM) + 30 s on a loaded host (TCP runs 12 s
# past the window, the floods 3 s before and after it, UML starts processes
# slowly); a retried run counts twice
limit=$(( n * (4 * (SECS + WARM) + 90) + 300 ))
echo "eval-peers: booting UML: $WL at $RATE (floods from $SRC), $n runs of $SECS s (at most $limit s; guest log: $RUN/guest.log)"
set +e
sh tests/kernel/uml-boot.sh "$KDIR" "$RUN" $limit tests/kernel/guest-peers.sh \
	CHOKE_KMOD="$OUT/mod-peers/kmod/sch_libchoke.ko" CHOKE_TC_LIB="$ROOT/build/peers" \
	CHOKE_PEERS_TABLE="$RUN/disciplines" CHOKE_PEERS_WORKLOAD="$WL" CHOKE_PEERS_RATE="$KBIT" \
	CHOKE_PEERS_SECONDS="$SECS" CHOKE_PEERS_WARMUP="$WARM" CHOKE_PEERS_REPEATS="$REPEATS" \
	CHOKE_PEERS_UDP_LEN="$ULEN" CHOKE_PEERS_FLOOD_SRC="$SRC" CHOKE_UDPFLOOD="$OUT/udpflood" \
	${ONLY:+CHOKE_PEERS_ONLY=$ONLY} \
	${FLOODS:+CHOKE_PEERS_FLOODS=$(echo $FLOODS | tr ' ' ,)}
urc=$?
set -e
[ -s "$RUN/peers/runs.jsonl" ] || { echo "eval-peers: no results (UML exit $urc); see $RUN" >&2; exit 1; }
python3 tests/kernel/peers-table.py "$RUN/peers/runs.jsonl" --disciplines "$RUN/disciplines" \
	--rate "$RATE" --udp-len "$ULEN" --seconds "$SECS" --warmup "$WARM" | tee "$RUN/table.md.tmp"
mv "$RUN/table.md.tmp" "$RUN/table.md"
echo "eval-peers: $RUN/table.md"
