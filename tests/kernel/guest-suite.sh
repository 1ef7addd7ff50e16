#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The kernel cases, run inside the UML guest (guest-init.sh) once against
# mainline's sch_choke.ko and once against our sch_libchoke.ko, with the
# same commands. Raw results go to $CHOKE_RUN/<impl>/; report.py compares
# them on the host. Every traffic command is bounded by timeout.
#
# Environment: CHOKE_RUN (output folder), CHOKE_KDIR (the UML tree, for
# mainline's module), CHOKE_KMOD (our module), CHOKE_NL (choke-nl),
# CHOKE_BATCH (the configuration cases, from report.py gen-batch),
# CHOKE_QUICK=1 (shorter floods),
# CHOKE_IMPLS (default "mainline,ours").
set -u
RUN=$CHOKE_RUN
QUICK=${CHOKE_QUICK:-0}
IMPLS=$(echo "${CHOKE_IMPLS:-mainline,ours}" | tr , " ")
MAINLINE_KO=$CHOKE_KDIR/net/sched/sch_choke.ko
OURS_KO=$CHOKE_KMOD
NL=$CHOKE_NL
T0=$(date +%s)

log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
# Bounded tc: a kernel that hangs a netlink request fails the case instead
# of the run.
tcb() { timeout 20 tc "$@"; }

log "guest up: $(uname -r), $(nproc) cpu, impls: $IMPLS, quick=$QUICK"
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] && log "kmemleak available" || log "kmemleak not available"

slab_active() { # active objects of a slab cache
	awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo
}

load_impl() {
	case $1 in
	mainline) insmod "$MAINLINE_KO" ;;
	ours) insmod "$OURS_KO" ;;
	esac
}
unload_impl() {
	case $1 in
	mainline) rmmod sch_choke ;;
	ours) rmmod sch_libchoke ;;
	esac
}
modname() { [ "$1" = mainline ] && echo sch_choke || echo sch_libchoke; }

# ---------------------------------------------------------------- config
# The tc vectors: report.py gen-batch wrote them as one tc batch
# ($CHOKE_BATCH), run twice (text and JSON); UML starts a process in about
# 0.1 s, so one tc per command would take minutes.
show_block() { # DEV -> the choke line(s) of tc -d qdisc show, and JSON
	echo "show: $(tcb -d qdisc show dev "$1" | grep 'qdisc choke' | tr '\n' ' ')"
	echo "json: $(tcb -d -j qdisc show dev "$1" | tr -d '\n')"
}

config_cases() {
	d=$1
	ip link add cfg0 type veth peer name cfg1
	ip link add mk0 type veth peer name mk1
	# no IPv6 on them: nothing but tc's commands touches these qdiscs
	for l in cfg0 cfg1 mk0 mk1; do
		sysctl -qw net.ipv6.conf.$l.disable_ipv6=1; ip link set $l up
	done
	# the marker between cases (report.py splits the output on it)
	tc qdisc add dev mk0 root handle 77: pfifo limit 77
	timeout 900 tc -d -force -batch "$CHOKE_BATCH" > "$d/config.out" 2> "$d/config.err"
	echo "text $?" > "$d/config.rc"
	tc qdisc del dev cfg0 root 2>/dev/null
	timeout 900 tc -d -j -force -batch "$CHOKE_BATCH" > "$d/config.json" 2> /dev/null
	echo "json $?" >> "$d/config.rc"
	ip link del cfg0; ip link del mk0
	log "config: $(grep -c '^qdisc show dev mk0' "$CHOKE_BATCH") cases through tc -batch"
}

# Hand-made netlink requests (choke-nl) for what tc cannot send.
NL_CASES='
default|
no-opts|no-opts
no-parms|no-parms
no-stab|no-stab
limit-0|limit 0 min 0 max 0
limit-1|limit 1 min 0 max 1 wlog 1
limit-131071|limit 131071 min 100 max 300
limit-131072|limit 131072 min 100 max 300
max-below-min|min 300 max 100
min-eq-max|min 200 max 200
max-above-limit|limit 100 min 10 max 200
min-wlog-overflow|min 100 max 300 wlog 25
max-wlog-overflow|min 1 max 300 wlog 23
wlog-0|wlog 0
scell-24|scell 24
scell-25|scell 25
scell-31|scell 31
scell-32|scell 32
stab-entry-31|stab-set 7 31
stab-entry-32|stab-set 7 32
plog-40|plog 40
maxp-0|maxp 0
maxp-1|maxp 1
maxp-max|maxp 0xffffffff
flags-ecn|flags 1
flags-harddrop|flags 2
flags-ecn-harddrop|flags 3
flags-adaptative|flags 4
flags-nodrop|flags 8
flags-0x10|flags 0x10
flags-0x80|flags 0x80
parms-short|parms-len 15
parms-long|parms-len 20
stab-short|stab-len 255
stab-long|stab-len 300
stab-empty|stab-len 0
maxp-short|maxp-len 2
maxp-long|maxp-len 8
'

nl_cases() {
	out=$1
	ip link add nl0 type veth peer name nl1
	sysctl -qw net.ipv6.conf.nl0.disable_ipv6=1
	ip link set nl0 up
	echo "$NL_CASES" | while IFS='|' read -r name args; do
		[ -n "$name" ] || continue
		set -f
		res=$(timeout 10 "$NL" nl0 add handle 1: $args 2>&1)
		set +f
		echo "=== nl $name"
		echo "args: $args"
		echo "result: $res"
		show_block nl0
		tcb qdisc del dev nl0 root 2>/dev/null
	done >> "$out"
	# A refused change leaves the configuration as it was.
	{
		echo "=== nl change-refused"
		"$NL" nl0 add handle 1: limit 500 min 50 max 150 >/dev/null
		res=$(timeout 10 "$NL" nl0 change min 300 max 100 2>&1)
		echo "args: add limit 500 min 50 max 150; change min 300 max 100"
		echo "result: $res"
		show_block nl0
		echo "=== nl change-refused-ours"
		res=$(timeout 10 "$NL" nl0 change limit 500 min 50 max 150 flags 0x10 2>&1)
		echo "args: change flags 0x10"
		echo "result: $res"
		show_block nl0
		tcb qdisc del dev nl0 root 2>/dev/null
	} >> "$out"
	ip link del nl0
	log "netlink cases done"
}

# ---------------------------------------------------------------- traffic
net_up() { # namespaces c (sender, qdisc on c0) and s (receiver)
	ip netns add c; ip netns add s
	ip -n c link add c0 type veth peer name s0 netns s
	ip -n c addr add 10.9.0.1/24 dev c0; ip -n s addr add 10.9.0.2/24 dev s0
	ip -n c link set c0 up; ip -n c link set lo up
	ip -n s link set s0 up; ip -n s link set lo up
	for ns in c s; do
		ip netns exec $ns sysctl -qw net.ipv4.tcp_ecn=1
	done
}
net_down() {
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill "$p" 2>/dev/null; done
	sleep 1
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del c 2>/dev/null; ip netns del s 2>/dev/null
}
C() { ip netns exec c "$@"; }
S() { ip netns exec s "$@"; }

qstats() { # LABEL: one line of the qdiscs' counters on c0 (JSON)
	echo "$1 $(C tc -s -j qdisc show dev c0 | tr -d '\n')"
}

# B1: 4 TCP flows (ECN) + one UDP flood at twice the link, tbf 4mbit.
behaviour() {
	out=$1 secs=$2
	net_up
	C tc qdisc add dev c0 root handle 1: tbf rate 4mbit burst 10kb latency 100ms
	C tc qdisc add dev c0 parent 1:1 handle 10: choke limit 400 bandwidth 4mbit ecn
	S iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	S iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
	sleep 1
	C timeout $((secs + 20)) iperf3 -c 10.9.0.2 -p 5201 -P 4 -t "$secs" -J > "$RUN/$impl/b1-tcp.json" 2>&1 &
	tcp=$!
	C timeout $((secs + 20)) iperf3 -c 10.9.0.2 -p 5202 -u -b 8M -l 1000 -w 2M -t "$secs" -J > "$RUN/$impl/b1-udp.json" 2>&1 &
	udp=$!
	wait $tcp; wait $udp
	sleep 3
	qstats "after" >> "$out"
	net_down
	log "behaviour (B1) done"
}

# R: reconfiguration, reset and deletion under load.
reconfig() {
	out=$1
	net_up
	C tc qdisc add dev c0 root handle 1: tbf rate 2mbit burst 5kb latency 50ms
	C tc qdisc add dev c0 parent 1:1 handle 10: choke limit 1000 bandwidth 2mbit ecn
	flood() { # PORT SECONDS: 30 ECT(0) UDP flows + 2 TCP flows
		S iperf3 -s -1 -p $1 >/dev/null 2>&1 &
		S iperf3 -s -1 -p $(($1 + 1)) >/dev/null 2>&1 &
		sleep 1
		C timeout $(($2 + 20)) iperf3 -c 10.9.0.2 -p $1 -u -b 300k -P 30 -S 2 -l 1000 -t $2 >/dev/null 2>&1 &
		f1=$!
		C timeout $(($2 + 20)) iperf3 -c 10.9.0.2 -p $(($1 + 1)) -P 2 -t $2 >/dev/null 2>&1 &
		f2=$!
	}
	step() { # SECONDS LABEL COMMAND...
		sleep "$1"; shift; label=$1; shift
		if "$@" 2>>"$out.err"; then r=0; else r=$?; fi
		echo "step $label rc=$r" >> "$out"
		qstats "$label" >> "$out"
	}
	flood 5301 45
	step 3 grow        C tc qdisc change dev c0 parent 1:1 handle 10: choke limit 4000 bandwidth 2mbit ecn
	step 2 shrink      C tc qdisc change dev c0 parent 1:1 handle 10: choke limit 200 bandwidth 2mbit ecn
	step 2 ecn-off     C tc qdisc change dev c0 parent 1:1 handle 10: choke limit 200 bandwidth 2mbit
	step 2 ecn-on      C tc qdisc change dev c0 parent 1:1 handle 10: choke limit 1000 bandwidth 2mbit ecn
	step 3 same-ring-shrink C tc qdisc change dev c0 parent 1:1 handle 10: choke limit 600 min 100 max 300 burst 200 bandwidth 2mbit ecn
	step 2 delete-child C tc qdisc del dev c0 parent 1:1 handle 10:
	step 1 readd-child C tc qdisc add dev c0 parent 1:1 handle 10: choke limit 1000 bandwidth 2mbit ecn
	step 3 replace-child C tc qdisc replace dev c0 parent 1:1 handle 10: choke limit 300 bandwidth 2mbit
	# a link down resets the qdiscs (and ends the flows: the route goes)
	step 3 reset       sh -c 'ip netns exec c ip link set c0 down && ip netns exec c ip link set c0 up'
	kill $f1 $f2 2>/dev/null; wait $f1; wait $f2
	flood 5311 24
	step 3 delete-root C tc qdisc del dev c0 root
	step 1 readd-root  sh -c 'ip netns exec c tc qdisc add dev c0 root handle 1: htb default 10 &&
		ip netns exec c tc class add dev c0 parent 1: classid 1:10 htb rate 2mbit &&
		ip netns exec c tc qdisc add dev c0 parent 1:10 handle 10: choke limit 1000 bandwidth 2mbit ecn'
	step 4 htb-shrink  C tc qdisc change dev c0 parent 1:10 handle 10: choke limit 100 bandwidth 2mbit ecn
	step 4 htb-grow    C tc qdisc change dev c0 parent 1:10 handle 10: choke limit 2000 bandwidth 2mbit
	step 4 loaded      true
	wait $f1; wait $f2
	sleep 6
	qstats "drained" >> "$out"
	C tc -s class show dev c0 | tr '\n' ' ' | sed 's/^/classes /' >> "$out"; echo >> "$out"
	C tc qdisc del dev c0 root
	net_down
	log "reconfiguration under load done"
}

# A root choke (no parent): packets go straight through.
root_smoke() {
	out=$1
	net_up
	C tc qdisc add dev c0 root handle 1: choke limit 100 bandwidth 10mbit
	if C ping -c 5 -i 0.2 -W 2 10.9.0.2 >/dev/null 2>&1; then echo "root-ping ok" >> "$out"; else echo "root-ping FAIL" >> "$out"; fi
	qstats "root" >> "$out"
	net_down
}

dmesg_problems() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|kernel BUG|corruption|refcount_t:|UBSAN|possible circular|inconsistent lock|unreferenced object|Call Trace' || true
}

# ---------------------------------------------------------------- main
fails=0
for impl in $IMPLS; do
	d=$RUN/$impl
	rm -rf "$d"; mkdir -p "$d"
	log "===== $impl"
	dmesg -C
	[ -w $KMEMLEAK ] && echo clear > $KMEMLEAK
	echo "skbuff_head_cache_before $(slab_active skbuff_head_cache)" > "$d/leak.txt"
	echo "kmalloc_before $(awk '$1 ~ /^(kmalloc|size)-/ { s += $2 } END { print s }' /proc/slabinfo)" >> "$d/leak.txt"
	if ! load_impl $impl; then
		log "cannot load $impl"; echo "load FAIL" > "$d/load.txt"; fails=$((fails + 1)); continue
	fi
	echo "load ok" > "$d/load.txt"
	if [ $impl = mainline ] && [ -f "$OURS_KO" ]; then
		# both at once must fail, clearly
		if insmod "$OURS_KO" 2>"$d/both.err"; then
			echo "both-loaded UNEXPECTED" >> "$d/load.txt"; rmmod sch_libchoke
		else
			echo "both-loaded refused: $(tr '\n' ' ' < "$d/both.err")" >> "$d/load.txt"
			echo "dmesg: $(dmesg | grep sch_libchoke | tail -1)" >> "$d/load.txt"
		fi
	fi
	config_cases "$d"
	nl_cases "$d/nl.txt"
	root_smoke "$d/root.txt"
	if [ "$QUICK" = 1 ]; then secs=12; stall=12; else secs=25; stall=20; fi
	behaviour "$d/b1.txt" $secs
	timeout $((4 * stall + 120)) sh tests/kernel/mainline-stall.sh --config both --seconds $stall \
		--report "$d/stall.txt" --trace "$d/stall-trace.txt" > "$d/stall.log" 2>&1
	echo "stall-exit $?" >> "$d/stall.txt"
	reconfig "$d/reconfig.txt"
	echo "refcnt $(cat /sys/module/$(modname $impl)/refcnt 2>/dev/null)" >> "$d/leak.txt"
	sleep 2
	if unload_impl $impl; then echo "rmmod ok" >> "$d/leak.txt"; else echo "rmmod FAIL" >> "$d/leak.txt"; fi
	echo "skbuff_head_cache_after $(slab_active skbuff_head_cache)" >> "$d/leak.txt"
	echo "kmalloc_after $(awk '$1 ~ /^(kmalloc|size)-/ { s += $2 } END { print s }' /proc/slabinfo)" >> "$d/leak.txt"
	if [ -w $KMEMLEAK ]; then
		echo scan > $KMEMLEAK; sleep 2; echo scan > $KMEMLEAK
		cat $KMEMLEAK > "$d/kmemleak.txt"
		echo "kmemleak_objects $(grep -c 'unreferenced object' "$d/kmemleak.txt")" >> "$d/leak.txt"
		echo "kmemleak_choke $(grep -c -i 'choke' "$d/kmemleak.txt")" >> "$d/leak.txt"
	fi
	dmesg > "$d/dmesg.txt"
	dmesg_problems > "$d/dmesg-problems.txt"
	log "$impl: $(wc -l < "$d/dmesg-problems.txt") suspicious kernel log lines"
done

# Our module with tc's idle unit: after a flood the average decays as tc
# designed, so other (non-ECT) traffic is not dropped by a stale average.
if [ -f "$OURS_KO" ] && echo "$IMPLS" | grep -q ours; then
	log "===== ours with tc_idle_ticks=1"
	mkdir -p "$RUN/ours-tcidle"
	if insmod "$OURS_KO" tc_idle_ticks=1; then
		echo "param $(cat /sys/module/sch_libchoke/parameters/tc_idle_ticks)" > "$RUN/ours-tcidle/stall.txt"
		timeout 200 sh tests/kernel/mainline-stall.sh --config reported --seconds 15 \
			--report "$RUN/ours-tcidle/stall.txt" > "$RUN/ours-tcidle/stall.log" 2>&1
		echo "stall-exit $?" >> "$RUN/ours-tcidle/stall.txt"
		rmmod sch_libchoke || fails=$((fails + 1))
	else
		fails=$((fails + 1))
	fi
fi

# The patch series: mainline's sch_choke.c unpatched and patched.
if [ -n "${CHOKE_UPSTREAM_MODS:-}" ]; then
	log "===== the patch series (guest-upstream.sh)"
	# in a process of its own, bounded: a part that hangs must not take
	# the whole boot's limit (about 5 minutes when all is well)
	CHOKE_GUEST=tests/kernel/guest-upstream.sh timeout -k 10 1200 sh tests/kernel/guest-upstream.sh
	r=$?
	if [ $r -ne 0 ]; then
		log "the patch series' part exited $r$( [ $r -ge 124 ] && echo ' (timed out after 1200 s)')"
		fails=$((fails + 1))
	fi
fi

# The netlink fuzzer, a short run against mainline and ours (make
# kernel-fuzz runs 10^5 requests each).
# The mainline module it runs against: CHOKE_FUZZ_MAINLINE, or the
# unpatched one of the patch series' modules.
FUZZ_MAINLINE=${CHOKE_FUZZ_MAINLINE:-${CHOKE_UPSTREAM_MODS:+$CHOKE_UPSTREAM_MODS/unpatched/sch_choke.ko}}
if [ -n "${CHOKE_FUZZ:-}" ] && [ -n "$FUZZ_MAINLINE" ]; then
	log "===== netlink fuzzer smoke (guest-fuzz.sh)"
	CHOKE_GUEST=tests/kernel/guest-fuzz.sh \
	CHOKE_FUZZ_IMPLS="mainline=$FUZZ_MAINLINE,ours=$OURS_KO" \
	CHOKE_FUZZ_COUNT=$([ "$QUICK" = 1 ] && echo 1000 || echo 3000) \
		timeout -k 10 900 sh tests/kernel/guest-fuzz.sh
	r=$?
	[ $r -eq 0 ] || log "the fuzzer's part exited $r$( [ $r -ge 124 ] && echo ' (timed out after 900 s)')"
fi

# The user reproducer once more with no choke qdisc available at all.
log "===== reproducer without any choke module"
timeout 60 sh tests/kernel/mainline-stall.sh --config full --seconds 5 > "$RUN/stall-nomodule.log" 2>&1
echo "exit $?" >> "$RUN/stall-nomodule.log"
# and the patch series' selftest, which must skip (exit 4), not fail
if [ -n "${CHOKE_UPSTREAM_MODS:-}" ] && [ -f "$CHOKE_UPSTREAM_MODS/selftest/sch_choke.sh" ]; then
	(cd "$CHOKE_UPSTREAM_MODS/selftest" && timeout 60 bash ./sch_choke.sh) > "$RUN/selftest-nomodule.log" 2>&1
	echo "selftest-exit $?" >> "$RUN/selftest-nomodule.log"
	log "selftest without a choke module: $(tail -2 "$RUN/selftest-nomodule.log" | tr '\n' ' ')"
fi
log "guest suite finished"
exit $fails
