#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Per-packet cost and memory of queueing disciplines, inside the UML guest
# (bench-kernel.sh boots it and has the tables). pktgen injects 100-byte UDP
# frames (xmit_mode queue_xmit: the whole dev_queue_xmit path, qdisc
# included) into a dummy device, which frees what it is given, as fast as
# it can; after a warm-up (the queues reach their steady state) the host
# reads UML's CPU time at two marks this script writes (bench-sampler.py),
# and the packets pktgen offered between them are read from its counters:
# cost = CPU time / offered. States:
#   short         root tbf 10gbit > the discipline: the queue stays short
#   standing      root tbf 10mbit > the discipline: a standing queue (most
#                 arrivals dropped), 64 flows
#   standing4     the same with 4 flows
#   short6, standing6   short and standing over IPv6 (64 flows by port)
#   standing6d    standing over IPv6, 64 flows by destination address
#   standing4v6   standing over IPv6, 4 flows by port (most draws match)
#   htb-short     the operator's tree: htb, one parent class, LEAVES leaf
#                 classes each with the discipline, a cls_flow hash filter
#                 spreading 4000 flows over the leaves; rates 10gbit
#   htb-standing  the same tree with the parent at 10mbit: every leaf has a
#                 standing queue
# Environment:
#   CHOKE_BENCH_ROWS       a file of rows "LABEL|MODULES|WORDS" (MODULES: .ko
#                          paths separated by commas, or -; WORDS: the child
#                          qdisc's tc words); the first row is the reference:
#                          every run of another row sits between two of its
#                          runs (the host's speed drifts)
#   CHOKE_BENCH_STATES     comma-separated (short,standing,standing4)
#   CHOKE_BENCH_HTB_ROWS   rows "LABEL|MODULES|SHORT WORDS|STANDING WORDS" for
#                          the htb states (optional; first row the reference)
#   CHOKE_BENCH_HTB_STATES comma-separated (htb-short,htb-standing)
#   CHOKE_BENCH_HTB_LEAVES leaf classes (1000)
#   CHOKE_BENCH_ROUNDS, CHOKE_BENCH_HTB_ROUNDS, CHOKE_BENCH_SECONDS,
#   CHOKE_BENCH_WARMUP, CHOKE_BENCH_HTB_WARMUP
#                          rounds, measured seconds, warm-up seconds
#   CHOKE_BENCH_MEM        N: memory per instance of every row with N
#                          instances, and of every htb row's tree (0: none)
#   CHOKE_BENCH_FLOODS     1: the pdrop floods for the rows whose words start
#                          with choke (make bench-kernel --suite choke)
#   CHOKE_TC_LIB           the folder of q_chokeplus.so (tc's plugin)
# Output: $CHOKE_RUN/bench.txt (one line per run, memory and flood), the
# qdiscs' counters after each run in $CHOKE_RUN/stats/ID.json, the memory
# snapshots in $CHOKE_RUN/mem/.
set -u
OUT=$CHOKE_RUN/bench.txt
SECS=${CHOKE_BENCH_SECONDS:-2}
WARM=${CHOKE_BENCH_WARMUP:-0.5}
HWARM=${CHOKE_BENCH_HTB_WARMUP:-1}
ROUNDS=${CHOKE_BENCH_ROUNDS:-5}
HROUNDS=${CHOKE_BENCH_HTB_ROUNDS:-$ROUNDS}
LEAVES=${CHOKE_BENCH_HTB_LEAVES:-1000}
MEMN=${CHOKE_BENCH_MEM:-0}
K=$CHOKE_KDIR
[ -n "${CHOKE_TC_LIB:-}" ] && export TC_LIB_DIR=$CHOKE_TC_LIB
: > "$OUT"
MARKS=$CHOKE_RUN/marks
STATS=$CHOKE_RUN/stats
MEM=$CHOKE_RUN/mem
mkdir -p "$STATS" "$MEM"
RUNID=0
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }

insmod "$K/drivers/net/dummy.ko" 2>/dev/null
insmod "$K/net/core/pktgen.ko" 2>/dev/null
# The guest runs nothing else: the devices live in its first network
# namespace (a command through `ip netns exec` costs a second on a loaded
# host, and a run takes dozens).
ip link add dummy0 type dummy
ip addr add 192.0.2.1/24 dev dummy0
ip link set dummy0 up
ip link set dummy0 txqueuelen 1000
log "guest up: $(uname -r), $(nproc) cpu, $(sed -n 's/MemTotal: *//p' /proc/meminfo)"

pg() { # FILE COMMAND...
	sh -c 'f=/proc/net/pktgen/$1; shift
		for c; do echo "$c" > "$f" || { echo "pktgen: $c: $(grep Result "$f")" >&2; exit 1; }; done' sh "$@"
}

# Modules of a row: loaded before its qdisc is set up, unloaded after it
# is deleted (mainline's sch_choke and ours register the same id).
LOADED=
load() { # MODULES
	LOADED=
	[ "$1" = - ] && return 0
	for ko in $(echo "$1" | tr , ' '); do
		m=$(basename "$ko" .ko)
		lsmod | grep -q "^$m " && continue
		insmod "$ko" || return 1
		LOADED="$m $LOADED"
	done
}
unload() {
	for m in $LOADED; do rmmod "$m"; done
	LOADED=
}

# measure STATE LABEL FLOWS WARMUP: pktgen's flood, the marks, one result line
# (states ending in 6: IPv6 from fd00::1, the flows told apart by their
# UDP source port as in the IPv4 states; ending in 6d: to FLOWS random
# destinations in fd00:1::/122 with equal ports, flows that differ in the
# destination address only)
measure() {
	state=$1 name=$2 flows=$3 warm=$4
	pg kpktgend_0 rem_device_all "add_device dummy0"
	case $state in
	*6) set -- "src6 fd00::1" "dst6 fd00:1::2" \
		"udp_src_min 10000" "udp_src_max $((10000 + flows - 1))" ;;
	*6d) set -- "src6 fd00::1" "dst6_min fd00:1::" "dst6_max fd00:1::$(printf %x $((flows - 1)))" \
		"udp_src_min 10000" "udp_src_max 10000" ;;
	*) set -- "dst 192.0.2.2" "udp_src_min 10000" "udp_src_max $((10000 + flows - 1))" ;;
	esac
	pg dummy0 "xmit_mode queue_xmit" "count 0" "delay 0" "pkt_size 100" \
		"dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" "$@"
	RUNID=$((RUNID + 1))
	log "run $RUNID: $state $name"
	# One shell at real-time priority starts pktgen, waits the warm-up,
	# writes the marks and stops pktgen: pktgen's thread takes all the CPU
	# it gets, and an ordinary process would wake up (or even start) long
	# after its time, seconds late on a loaded host. Each mark is written
	# by the process that reads pktgen's counters right after (start) or
	# right before (stop) it: the packets counted are those offered
	# between the marks. (pgctrl's start returns when pktgen stops.)
	pgab=$(chrt -f 50 sh -c '(echo start > /proc/net/pktgen/pgctrl) &
		sleep "$3"
		echo "start $1" >> "$2"; cat /proc/uptime /proc/net/pktgen/dummy0
		echo ===
		sleep "$4"
		cat /proc/uptime /proc/net/pktgen/dummy0; echo "stop $1" >> "$2"
		echo stop > /proc/net/pktgen/pgctrl
		wait' sh $RUNID "$MARKS" "$warm" "$SECS")
	pga=$(echo "$pgab" | sed '/^===$/,$d')
	pgb=$(echo "$pgab" | sed '1,/^===$/d')
	cnt() { echo "$1" | sed -n "s/.*$2: *\([0-9]*\).*/\1/p" | head -1; }
	up() { echo "$1" | head -1 | cut -d' ' -f1; }
	pgr=$(cat /proc/net/pktgen/dummy0)
	total=$(( $(cnt "$pgr" pkts-sofar) + $(cnt "$pgr" errors) ))
	tc -s -j qdisc show dev dummy0 > "$STATS/$RUNID.json" 2>&1
	echo "run id=$RUNID state=$state impl=$name sofar=$(( $(cnt "$pgb" pkts-sofar) - $(cnt "$pga" pkts-sofar) ))" \
		"errors=$(( $(cnt "$pgb" errors) - $(cnt "$pga" errors) )) total=$total" \
		"wall=$(echo "$(up "$pgb") $(up "$pga")" | awk '{printf "%.2f", $1 - $2}')" >> "$OUT"
}

# run STATE LABEL MODULES WORDS...: the discipline as tbf's child
run() {
	state=$1 name=$2 mods=$3
	shift 3
	case $state in
	short | short6) rate=10gbit flows=64 ;;
	standing | standing6 | standing6d) rate=10mbit flows=64 ;;
	standing4 | standing4v6) rate=10mbit flows=4 ;;
	esac
	tc qdisc del dev dummy0 root 2>/dev/null
	if ! load "$mods"; then echo "insmod $name FAIL" >> "$OUT"; return; fi
	if tc qdisc add dev dummy0 root handle 1: tbf rate $rate burst 100kb latency 100ms \
		2>"$CHOKE_RUN/setup.err" &&
	   tc qdisc add dev dummy0 parent 1:1 handle 10: "$@" 2>>"$CHOKE_RUN/setup.err"; then
		measure "$state" "$name" "$flows" "$WARM"
	else
		echo "setup $state $name FAIL: $(head -3 "$CHOKE_RUN/setup.err" | tr '\n' ' ')" >> "$OUT"
	fi
	tc qdisc del dev dummy0 root 2>/dev/null
	unload
}

# The operator's tree on DEV: htb, parent class 1:1 at RATE, LEAVES leaf
# classes 1:1000.. (hex) at RATE/LEAVES each, borrowing up to RATE, each
# leaf with WORDS; a cls_flow filter hashes each packet's 5-tuple onto
# the leaves. Through one tc batch.
htb_tree() { # DEV RATE_MBIT WORDS...
	dev=$1 mbit=$2
	shift 2
	b=$CHOKE_RUN/htb.batch
	{
		echo "qdisc add dev $dev root handle 1: htb"
		echo "class add dev $dev parent 1: classid 1:1 htb rate ${mbit}mbit quantum 1514"
		i=0
		while [ $i -lt "$LEAVES" ]; do
			c=$(printf %x $((0x1000 + i)))
			echo "class add dev $dev parent 1:1 classid 1:$c htb rate $((mbit * 1000 / LEAVES))kbit ceil ${mbit}mbit quantum 1514"
			echo "qdisc add dev $dev parent 1:$c handle $c: $*"
			i=$((i + 1))
		done
		echo "filter add dev $dev parent 1: protocol ip prio 1 handle 1 flow hash keys src,dst,proto,proto-src,proto-dst divisor $LEAVES baseclass 1:1000"
	} > "$b"
	tc -batch "$b"
}

# htb_run STATE LABEL MODULES WORDS...: the tree for STATE is built once
# (with the first row's leaves); each run puts its own leaves in (tc qdisc
# replace with fresh handles: building 1000 classes takes longer than a
# run), measures, and leaves the tree for the next run.
HTB_STATE=
HTB_GEN=0
htb_run() {
	state=$1 name=$2 mods=$3
	shift 3
	case $state in
	htb-short) mbit=10000 ;;
	htb-standing) mbit=10 ;;
	esac
	if ! load "$mods"; then echo "insmod $name FAIL" >> "$OUT"; return; fi
	ok=1
	if [ "$HTB_STATE" != "$state" ]; then
		tc qdisc del dev dummy0 root 2>/dev/null
		HTB_STATE=$state HTB_GEN=0
		htb_tree dummy0 $mbit "$@" > "$CHOKE_RUN/htb.err" 2>&1 || ok=0
	else
		# the previous leaves' handles are 1000..; 5000.. (by parity) now
		HTB_GEN=$((HTB_GEN + 1))
		base=$((0x1000 + 0x4000 * (HTB_GEN % 2)))
		b=$CHOKE_RUN/htb-leaves.batch
		i=0
		while [ $i -lt "$LEAVES" ]; do
			echo "qdisc replace dev dummy0 parent 1:$(printf %x $((0x1000 + i))) handle $(printf %x $((base + i))): $*"
			i=$((i + 1))
		done > "$b"
		tc -batch "$b" > "$CHOKE_RUN/htb.err" 2>&1 || ok=0
	fi
	# the modules of the previous run's leaves, gone with them
	if [ -n "${HTB_PREV_LOADED:-}" ]; then
		for m in $HTB_PREV_LOADED; do rmmod "$m" 2>/dev/null; done
	fi
	if [ $ok = 1 ]; then
		measure "$state" "$name" 4000 "$HWARM"
	else
		echo "setup $state $name FAIL: $(head -3 "$CHOKE_RUN/htb.err" | tr '\n' ' ')" >> "$OUT"
		tc qdisc del dev dummy0 root 2>/dev/null
		HTB_STATE=
	fi
	HTB_PREV_LOADED=$LOADED
	LOADED=
}
htb_done() {
	tc qdisc del dev dummy0 root 2>/dev/null
	for m in ${HTB_PREV_LOADED:-}; do rmmod "$m" 2>/dev/null; done
	HTB_STATE= HTB_PREV_LOADED=
}

# ---- memory -----------------------------------------------------------------
# The kernel's own counters before and after: /proc/slabinfo (every
# kmalloc and kmem_cache object; this kernel uses SLAB, whose kmalloc
# caches go up to 4 MiB, so kvmalloc's kmalloc attempts land there),
# /proc/vmallocinfo (kvmalloc's fallback) and /proc/meminfo. The host
# takes the differences (report.py).
snap() { # NAME
	cat /proc/slabinfo > "$MEM/$1.slab"
	cat /proc/vmallocinfo > "$MEM/$1.vmalloc" 2>/dev/null
	cat /proc/meminfo > "$MEM/$1.meminfo"
}
# mem_instances STATE(unused) LABEL MODULES WORDS...: MEMN dummy devices
# (down: no default qdisc is attached to a device that is down), then the
# discipline as the root of each, then deleted again. LABEL "none" runs
# the same steps with a batch that only shows (the noise of the procedure).
mem_instances() {
	name=$2 mods=$3
	shift 3
	load "$mods" || { echo "insmod $name FAIL" >> "$OUT"; return; }
	b=$CHOKE_RUN/mem.batch d=$CHOKE_RUN/mem-del.batch l=$CHOKE_RUN/mem-links.batch
	: > "$b"; : > "$d"; : > "$l"
	i=0
	while [ $i -lt "$MEMN" ]; do
		echo "link add mem$i type dummy" >> "$l"
		if [ "$name" = none ]; then
			echo "qdisc show dev mem$i" >> "$b"; echo "qdisc show dev mem$i" >> "$d"
		else
			echo "qdisc add dev mem$i root handle 1: $*" >> "$b"
			echo "qdisc del dev mem$i root" >> "$d"
		fi
		i=$((i + 1))
	done
	ip -batch "$l"
	sleep 1
	snap "inst-$name-0"
	tc -batch "$b" > "$CHOKE_RUN/mem.err" 2>&1 || echo "mem $name FAIL: $(head -2 "$CHOKE_RUN/mem.err" | tr '\n' ' ')" >> "$OUT"
	sleep 1
	snap "inst-$name-1"
	tc -batch "$d" > /dev/null 2>&1
	sleep 1
	snap "inst-$name-2"
	echo "mem kind=inst impl=$name n=$MEMN" >> "$OUT"
	sed 's/ add / del /; s/ type dummy//' "$l" > "$l.del"
	ip -batch "$l.del"
	unload
}
# mem_tree STATE(unused) LABEL MODULES WORDS...: the htb tree of LEAVES
# leaves on a device that is down, its memory, then deleted.
mem_tree() {
	name=$2 mods=$3
	shift 3
	load "$mods" || { echo "insmod $name FAIL" >> "$OUT"; return; }
	ip link add memt type dummy
	sleep 1
	snap "tree-$name-0"
	htb_tree memt 10000 "$@" > "$CHOKE_RUN/mem.err" 2>&1 || echo "mem tree $name FAIL: $(head -2 "$CHOKE_RUN/mem.err" | tr '\n' ' ')" >> "$OUT"
	sleep 1
	snap "tree-$name-1"
	tc qdisc del dev memt root
	sleep 1
	snap "tree-$name-2"
	echo "mem kind=tree impl=$name n=$LEAVES" >> "$OUT"
	ip link del memt
	unload
}

# ---- the rounds -------------------------------------------------------------
# rows FILE: the "LABEL|MODULES|WORDS..." lines of FILE, without comments
# and blank lines, into $CHOKE_RUN/rows.tmp (read on fd 3 in the current
# shell, not a pipe's subshell: RUNID must count on, and the commands in
# the loop must not read the rows)
rows() { grep -v -e '^#' -e '^[[:space:]]*$' "$1" > "$CHOKE_RUN/rows.tmp"; }
# each_run FUNC STATE FIELD LINE: FUNC STATE LABEL MODULES WORDS, the
# words from the FIELDth |-separated field after the modules
each_run() {
	f=$1 st=$2 fld=$3 line=$4
	label=${line%%|*}; rest=${line#*|}
	mods=${rest%%|*}; rest=${rest#*|}
	words=$(echo "$rest" | cut -d'|' -f"$fld")
	# shellcheck disable=SC2086 # the words are tc's, split on purpose
	$f "$st" "$label" "$mods" $words
}
each_row() { # FUNC ROWS_FILE: FUNC for every row (field 1)
	rows "$2"
	cp "$CHOKE_RUN/rows.tmp" "$CHOKE_RUN/rows.each"
	while IFS= read -r line <&3; do each_run "$1" "" 1 "$line"; done 3< "$CHOKE_RUN/rows.each"
}
rounds() { # FUNC ROWS STATES ROUNDS KIND
	func=$1 rowsf=$2 states=$3 nr=$4 kind=$5
	rows "$rowsf"
	ref=$(head -1 "$CHOKE_RUN/rows.tmp")
	tail -n +2 "$CHOKE_RUN/rows.tmp" > "$CHOKE_RUN/rows.others"
	echo "ref $kind ${ref%%|*}" >> "$OUT"
	rnd=0
	while [ $rnd -lt "$nr" ]; do
		rnd=$((rnd + 1))
		echo "round $kind $rnd" >> "$OUT"
		for state in $(echo "$states" | tr , ' '); do
			fld=1
			[ "$state" = htb-standing ] && fld=2
			log "$kind round $rnd $state"
			each_run "$func" "$state" "$fld" "$ref"
			while IFS= read -r line <&3; do
				each_run "$func" "$state" "$fld" "$line"
				each_run "$func" "$state" "$fld" "$ref"
			done 3< "$CHOKE_RUN/rows.others"
		done
	done
}
if [ -n "${CHOKE_BENCH_ROWS:-}" ] && [ "$ROUNDS" -gt 0 ]; then
	rounds run "$CHOKE_BENCH_ROWS" "${CHOKE_BENCH_STATES:-short,standing,standing4}" "$ROUNDS" single
fi
if [ -n "${CHOKE_BENCH_HTB_ROWS:-}" ] && [ "$HROUNDS" -gt 0 ]; then
	insmod "$K/net/sched/cls_flow.ko" 2>/dev/null
	rounds htb_run "$CHOKE_BENCH_HTB_ROWS" "${CHOKE_BENCH_HTB_STATES:-htb-short,htb-standing}" "$HROUNDS" htb
	htb_done
fi
if [ "$MEMN" -gt 0 ]; then
	log "memory: $MEMN instances of each row"
	insmod "$K/net/sched/cls_flow.ko" 2>/dev/null
	mem_instances "" none -
	[ -n "${CHOKE_BENCH_ROWS:-}" ] && each_row mem_instances "$CHOKE_BENCH_ROWS"
	if [ -n "${CHOKE_BENCH_HTB_ROWS:-}" ]; then
		log "memory: htb trees of $LEAVES leaves"
		each_row mem_tree "$CHOKE_BENCH_HTB_ROWS"
	fi
fi

# Floods with pauses (--suite choke): 4 UDP flows at full speed for 1 s, 4
# times with 2 s between them, into one choke that is kept (not
# re-created) under tbf 10mbit, with thresholds near the limit (min 800
# max 900, no ecn): the counters after each flood, for pdrop (tail drops
# at the limit) against the other drops. Once per choke row.
floods() { # STATE(unused) LABEL MODULES WORDS...
	name=$2 mods=$3
	case $4 in choke) ;; *) return ;; esac
	load "$mods" || return
	tc qdisc add dev dummy0 root handle 1: tbf rate 10mbit burst 100kb latency 100ms
	tc qdisc add dev dummy0 parent 1:1 handle 10: choke \
		limit 1000 min 800 max 900 avpkt 1000 burst 850 bandwidth 10mbit probability 0.02
	for f in 1 2 3 4; do
		pg kpktgend_0 rem_device_all "add_device dummy0"
		pg dummy0 "xmit_mode queue_xmit" "count 0" "delay 0" "pkt_size 100" \
			"dst 192.0.2.2" "dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" \
			"udp_src_min 10000" "udp_src_max 10003"
		sh -c 'echo start > /proc/net/pktgen/pgctrl' &
		p=$!
		sleep 1
		pg pgctrl stop
		wait $p
		sleep 2
		echo "flood impl=$name n=$f stats=$(tc -s -j qdisc show dev dummy0 | tr -d '\n')" >> "$OUT"
	done
	tc qdisc del dev dummy0 root
	unload
}
if [ "${CHOKE_BENCH_FLOODS:-0}" = 1 ] && [ -n "${CHOKE_BENCH_ROWS:-}" ]; then
	each_row floods "$CHOKE_BENCH_ROWS"
fi
ip link del dummy0
log "done"
echo "done" >> "$OUT"
