#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make bench-kernel: the per-packet CPU cost and the memory of queueing
# disciplines in the same UML kernel and the same run
# (tests/kernel/guest-bench.sh has the method; bench-report.py the tables).
#
#   tests/kernel/bench-kernel.sh [--suite cost|choke|ipv6] [--rounds N] [--seconds S]
#       [--states "short standing"] [--only LABEL,...] [--row 'LABEL|MODULES|WORDS']...
#       [--htb-rounds N] [--htb-states "htb-short htb-standing"] [--leaves N]
#       [--htb-row 'LABEL|MODULES|SHORT WORDS|STANDING WORDS']... [--mem N]
#       [--before REV] [--extra NAME=PATH.ko]...
#
# --suite cost (the default): our chokeplus with and without protect
# (flows, and srchost: the source host's share),
# choke (ours and mainline's), fq_codel, cake, sfq, fq, pie and pfifo, each
# as the child of a tbf (short and standing queue), ratios to pfifo and
# fq_codel measured in the same round; the operator's tree (htb, 1000 leaf
# classes, a flow hash filter) with pfifo, fq_codel, cake and chokeplus
# protect leaves; memory per instance (100 of each) and per tree. The
# disciplines are the tables COST_ROWS and HTB_ROWS below: one line each.
# --suite choke: our choke against mainline sch_choke.c, unpatched and
# patched, and pfifo (the ratios to unpatched mainline), the three states
# short, standing, standing4 and the pdrop floods; --before REV adds our
# module as it was at git revision REV ("ours@REV"), --extra NAME=PATH.ko
# any other choke module built against build/kernel/linux-bench-6.1.
# --suite ipv6: the cost of the IPv6 flow comparison proposed for
# net-next (upstream/linux/net-next/: a keyed siphash of both addresses in
# make_flow_keys_digest()) against the alternative kept beside it (a second
# dissection of both packets when their digests are equal), each on top of
# the net fix, with the net fix alone (which compares IPv6 flows by 8
# bytes of the source only: the reference) and pfifo; IPv6 traffic
# (guest-bench.sh's states short6, standing6: 64 flows by port;
# standing4v6: 4 flows by port, so that most draws match; standing6d: 64
# flows by destination address, equal ports).
# --only keeps the rows named (the first, the reference, always); --row and
# --htb-row add rows; --mem 0 leaves the memory out, --rounds 0 or
# --htb-rounds 0 the CPU rounds.
#
# Needs what check-kernel needs (linux-source-6.1, gcc, make, python3, tc,
# ip) and root; builds its own UML kernel, without the debugging options of
# check-kernel's (tests/kernel/build-uml.sh --bench), if it is not cached.
# Results: build/kernel/bench/ (table.md).
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel/bench
KDIR=$ROOT/build/kernel/linux-bench-6.1
KO=$KDIR/net/sched
SUITE=cost ROUNDS= HROUNDS=3 SECS=2 BEFORE= EXTRA= STATES= HSTATES="htb-short htb-standing"
LEAVES=1000 MEMN=100 ONLY= ADD_ROWS= ADD_HTB=
nl='
'
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { echo "bench-kernel: $1 needs a value" >&2; exit 2; }
	case $1 in
	--suite) SUITE=$2 ;;
	--rounds) ROUNDS=$2 ;;
	--htb-rounds) HROUNDS=$2 ;;
	--seconds) SECS=$2 ;;
	--states) STATES=$2 ;;
	--htb-states) HSTATES=$2 ;;
	--leaves) LEAVES=$2 ;;
	--mem) MEMN=$2 ;;
	--only) ONLY=$2 ;;
	--row) ADD_ROWS="$ADD_ROWS$2$nl" ;;
	--htb-row) ADD_HTB="$ADD_HTB$2$nl" ;;
	--before) BEFORE=$2 ;;
	--extra) EXTRA="$EXTRA $2" ;;
	*) echo "bench-kernel: unknown argument $1" >&2; exit 2 ;;
	esac
	shift 2
done
case $SUITE in
cost) ROUNDS=${ROUNDS:-5} STATES=${STATES:-short standing} ;;
choke) ROUNDS=${ROUNDS:-6} STATES=${STATES:-short standing standing4} ;;
ipv6) ROUNDS=${ROUNDS:-6} STATES=${STATES:-short6 standing6 standing4v6 standing6d} ;;
*) echo "bench-kernel: --suite is cost, choke or ipv6" >&2; exit 2 ;;
esac
case $ROUNDS$HROUNDS$SECS$LEAVES$MEMN in *[!0-9]*) echo "bench-kernel: --rounds, --htb-rounds, --seconds, --leaves and --mem take whole numbers" >&2; exit 2 ;; esac
[ "$SECS" -ge 1 ] || { echo "bench-kernel: --seconds must be at least 1" >&2; exit 2; }
[ "$LEAVES" -ge 1 ] && [ "$LEAVES" -le 4000 ] || { echo "bench-kernel: --leaves must be 1 to 4000 (class ids 1:1000 to 1:1fff)" >&2; exit 2; }
for s in $STATES; do case $s in short|standing|standing4|short6|standing6|standing6d|standing4v6) ;; *) echo "bench-kernel: unknown state $s (short, standing, standing4, short6, standing6, standing6d, standing4v6)" >&2; exit 2 ;; esac; done
for s in $HSTATES; do case $s in htb-short|htb-standing) ;; *) echo "bench-kernel: unknown htb state $s (htb-short, htb-standing)" >&2; exit 2 ;; esac; done
case $ROOT in *[!A-Za-z0-9/._-]*) echo "bench-kernel: the repository path must not contain spaces or special characters (it goes on the UML command line)" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "bench-kernel: needs root (network namespaces in the guest)" >&2; exit 2; }

mkdir -p "$OUT"
echo "bench-kernel: UML kernel without debugging options (tests/kernel/build-uml.sh --bench; 7-10 minutes cold)"
sh tests/kernel/build-uml.sh --bench "$KDIR" > "$OUT/build-uml.log" 2>&1 || { tail "$OUT/build-uml.log"; exit 1; }

# Modules without UBSAN: what is measured is the code, not the checks.
echo "bench-kernel: modules and the tc plugin"
rm -rf "$OUT/ours"
make -s -C kmod dkms-tree DESTDIR="$OUT/ours" > /dev/null
make -s -C "$KDIR" ARCH=um M="$OUT/ours/kmod" modules > "$OUT/ours.log" 2>&1 || { cat "$OUT/ours.log"; exit 1; }
make -s BUILD=build/bench build/bench/q_chokeplus.so
OURS=$OUT/ours/kmod/sch_libchoke.ko

# The disciplines. A row: LABEL | the modules to load (.ko paths, commas
# between them; - for none) | the child qdisc's words. The first row is the
# reference every other run is sandwiched between. Adding a discipline is
# one line.
#
# choke and chokeplus: limit 1000 packets (pfifo's, pie's and the device's
# 1000) and the thresholds of make bench-kernel since 2026-12-04; protect's
# table at its default size (64); chokeplus-short: the short-queue words of
# docs/results.md section 15 (no RED, no draw: protect's target law and
# the light lane). The others with their defaults, as
# people run them (cake without its own shaper: tbf shapes).
CW="limit 1000 min 100 max 300 avpkt 100 burst 200 bandwidth 10gbit probability 0.02"
COST_ROWS="
pfifo|-|pfifo limit 1000
fq_codel|$KO/sch_fq_codel.ko|fq_codel
cake|$KO/sch_cake.ko|cake unlimited
sfq|$KO/sch_sfq.ko|sfq
fq|$KO/sch_fq.ko|fq
pie|$KO/sch_pie.ko|pie
choke-mainline|$KO/sch_choke.ko|choke $CW
choke|$OURS|choke $CW
chokeplus|$OURS|chokeplus $CW
chokeplus-protect|$OURS|chokeplus $CW protect
chokeplus-srchost|$OURS|chokeplus $CW protect srchost
chokeplus-short|$OURS|chokeplus limit 1000 protect target 5ms sparse bandwidth 10gbit
"
# The operator's tree: LABEL | modules | leaf words with short queues |
# leaf words with standing queues. In the standing state every one of the
# 1000 leaves is full, so each leaf's queue is held to about 100 packets
# of the 100-byte frames (1000 leaves of fq_codel's default 10240 packets
# would need 8 GB): pfifo and fq_codel `limit 100`, cake `memlimit 76800`
# (bytes of buffer; these frames take 768 each), chokeplus limit 100 with
# thresholds 10 and 30. Memory is measured with the short words (the
# defaults).
CWL="limit 1000 min 100 max 300 avpkt 100 burst 200 bandwidth 10mbit probability 0.02"
CWS="limit 100 min 10 max 30 avpkt 100 burst 20 bandwidth 10kbit probability 0.02"
HTB_ROWS="
pfifo|-|pfifo limit 1000|pfifo limit 100
fq_codel|$KO/sch_fq_codel.ko|fq_codel|fq_codel limit 100
cake|$KO/sch_cake.ko|cake unlimited|cake unlimited memlimit 76800
chokeplus-protect|$OURS|chokeplus $CWL protect|chokeplus $CWS protect
"
if [ $SUITE = choke ]; then
	echo "bench-kernel: mainline sch_choke.c unpatched and patched, out of tree"
	sh tests/kernel/upstream-mods.sh "$KDIR" "$OUT/mainline" um 0 > /dev/null
	COST_ROWS="
mainline|$OUT/mainline/unpatched/sch_choke.ko|choke $CW
pfifo|-|pfifo limit 1000
patched|$OUT/mainline/patched/sch_choke.ko|choke $CW
ours|$OURS|choke $CW
"
	if [ -n "$BEFORE" ]; then
		rev=$(git rev-parse --short "$BEFORE")
		b=$OUT/ours-$rev
		rm -rf "$b"; mkdir -p "$b/kmod" "$b/src/core" "$b/include/choke"
		for f in kmod/Kbuild kmod/qdisc.c kmod/core.c src/core/choke.c src/core/red.h include/choke/core.h; do
			git show "$rev:$f" > "$b/$f"
		done
		# files that later revisions added
		for f in kmod/chokeplus.h src/core/protect.h src/core/hh.c; do git show "$rev:$f" > "$b/$f" 2>/dev/null || rm -f "$b/$f"; done
		# (newer Kbuilds read the version from the top's VERSION)
		git show "$rev:VERSION" > "$b/VERSION" 2>/dev/null || rm -f "$b/VERSION"
		make -s -C "$KDIR" ARCH=um M="$b/kmod" modules > "$b.log" 2>&1 || { cat "$b.log"; exit 1; }
		COST_ROWS="${COST_ROWS}ours@$rev|$b/kmod/sch_libchoke.ko|choke $CW$nl"
	fi
	for e in $EXTRA; do COST_ROWS="${COST_ROWS}${e%%=*}|${e#*=}|choke $CW$nl"; done
	HTB_ROWS= HROUNDS=0 MEMN=0
fi
if [ $SUITE = ipv6 ]; then
	echo "bench-kernel: mainline sch_choke.c with the net fix, and with each IPv6 comparison, out of tree"
	ALT=1 sh tests/kernel/upstream-mods.sh "$KDIR" "$OUT/mainline" um 0 > /dev/null
	COST_ROWS="
net|$OUT/mainline/patched/sch_choke.ko|choke $CW
pfifo|-|pfifo limit 1000
net-next|$OUT/mainline/net-next/sch_choke.ko|choke $CW
redissect|$OUT/mainline/redissect/sch_choke.ko|choke $CW
"
	HTB_ROWS= HROUNDS=0 MEMN=0
fi
COST_ROWS="$COST_ROWS$ADD_ROWS"
HTB_ROWS="$HTB_ROWS$ADD_HTB"
# --only: the reference and the rows named
keep() { # ROWS
	printf '%s\n' "$1" | awk -F'|' -v only=",$ONLY," 'NF < 3 { next }
		!seen++ || only == ",," || index(only, "," $1 ",") { print }'
}
rm -rf "$OUT/run"; mkdir -p "$OUT/run"; : > "$OUT/run/marks"
keep "$COST_ROWS" > "$OUT/run/rows.txt"
keep "$HTB_ROWS" > "$OUT/run/htb-rows.txt"
nrows=$(wc -l < "$OUT/run/rows.txt")
nhtb=$(wc -l < "$OUT/run/htb-rows.txt")
[ "$nhtb" -gt 0 ] || HROUNDS=0

# time: a run is about SECS + 6 s (setup, warm-up, teardown) on an idle
# host; an htb run 30 s more (its leaves); a memory step about 15 s
runs=$((ROUNDS * $(echo $STATES | wc -w) * (2 * nrows - 1)))
hruns=$((HROUNDS * $(echo $HSTATES | wc -w) * (2 * nhtb - 1)))
est=$((runs * (SECS + 6) + hruns * (SECS + 36) + (MEMN > 0) * (nrows + 1 + nhtb * 4) * 15))
echo "bench-kernel: UML, suite $SUITE: $runs runs of ${SECS}s in $ROUNDS rounds, $hruns htb runs in $HROUNDS rounds," \
	"memory of $MEMN instances (about $((est / 60 + 1)) minutes on an idle host; several times that on a loaded one)"
[ "$(nproc)" -gt 0 ] && echo "bench-kernel: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# UML and, beside it, the sampler of its CPU time (bench-sampler.py); the
# guest's memory: 3 GB, for 1000 cake leaves (about 1 GB)
CHOKE_UML_MEM=3G sh tests/kernel/uml-boot.sh "$KDIR" "$OUT/run" $((est * 4 + 600)) tests/kernel/guest-bench.sh \
	CHOKE_BENCH_ROWS="$OUT/run/rows.txt" CHOKE_BENCH_ROUNDS="$ROUNDS" CHOKE_BENCH_SECONDS="$SECS" \
	CHOKE_BENCH_STATES="$(echo $STATES | tr ' ' ',')" \
	CHOKE_BENCH_HTB_ROWS="$OUT/run/htb-rows.txt" CHOKE_BENCH_HTB_ROUNDS="$HROUNDS" \
	CHOKE_BENCH_HTB_STATES="$(echo $HSTATES | tr ' ' ',')" CHOKE_BENCH_HTB_LEAVES="$LEAVES" \
	CHOKE_BENCH_MEM="$MEMN" CHOKE_BENCH_FLOODS="$([ $SUITE = choke ] && echo 1 || echo 0)" \
	CHOKE_TC_LIB="$ROOT/build/bench" &
boot=$!
uml=
for i in $(seq 100); do
	for c in $(pgrep -P "$boot" timeout 2>/dev/null); do uml=$(pgrep -P "$c" | head -1); done
	[ -n "$uml" ] && break
	sleep 0.1
done
[ -n "$uml" ] || { echo "bench-kernel: UML did not start" >&2; wait $boot; exit 1; }
python3 tests/kernel/bench-sampler.py "$uml" "$OUT/run/marks" "$OUT/run/cpu.txt" &
sampler=$!
wait $boot || true
wait $sampler || true
echo "bench-kernel: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
if ! grep -q '^done' "$OUT/run/bench.txt" 2>/dev/null; then
	echo "bench-kernel: the guest did not finish (see $OUT/run/): the tables below have the runs it completed" >&2
	rc=1
fi
python3 tests/kernel/bench-report.py "$OUT/run" | tee "$OUT/table.md"
exit $rc
