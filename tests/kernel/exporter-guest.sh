#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# `choke exporter` against real kernel choke qdiscs, inside a User-Mode Linux
# guest booted by tests/kernel/exporter-uml.sh (through uml-boot.sh, with
# guest-init.sh as PID 1, which sends our output to $CHOKE_RUN/guest.log;
# booted as PID 1 itself it does the mounts and that redirection; the
# host's root is the guest's, through hostfs). For mainline's sch_choke.ko
# and then our sch_libchoke.ko: three choke qdiscs (under tbf, under htb, at
# the root of a veth) with UDP and TCP flows through them, and with ours two
# chokeplus qdiscs too (protect under tbf, with floods and TCP beside them;
# draws 3 under htb, with many UDP flows; their traffic after the first
# three's), then, with no traffic left,
# `tc -s -d -j qdisc show` before and after `choke exporter --once`, the
# exporter over HTTP (GET with Prometheus's scrape-timeout header, HEAD,
# the landing page, a 404), and optionally the raw netlink dumps for the
# unit tests' fixtures. The host compares (tests/kernel/exporter-check.py).
# Results only under $CHOKE_RUN.
#
# Kernel command line words (the kernel passes them as environment):
# CHOKE_ROOT (the repository), CHOKE_RUN (output folder), CHOKE_KDIR (the UML
# tree: mainline's net/sched/sch_choke.ko), CHOKE_KMOD (our module), CHOKE_BIN
# (the choke command), CHOKE_TC_LIB (the folder of q_chokeplus.so, for tc's
# chokeplus), CHOKE_RECORDER (exporter-tests, to record fixtures; optional),
# CHOKE_IMPLS (default mainline,ours).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LC_ALL=C
if [ $$ = 1 ]; then
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t tmpfs tmpfs /run
	mount -t tmpfs tmpfs /tmp
	mount -t tmpfs tmpfs /var/tmp
	mount -t devtmpfs dev /dev 2>/dev/null
	mkdir -p /run/netns
	hostname choke-uml
fi
RUN=${CHOKE_RUN:-}
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 ))s] $*"; }

finish() {
	echo "$1" > "$RUN/guest.rc"
	dmesg > "$RUN/dmesg.txt" 2>&1
	sync
	if [ $$ = 1 ]; then
		halt -f
		echo o > /proc/sysrq-trigger 2>/dev/null
		sleep 5
	fi
	exit "$1"
}

[ -n "$RUN" ] && [ -d "$RUN" ] || { echo "exporter-guest: no CHOKE_RUN" >&2; [ $$ = 1 ] && halt -f; exit 2; }
[ $$ = 1 ] && exec > "$RUN/guest.log" 2>&1
for v in CHOKE_KDIR CHOKE_KMOD CHOKE_BIN; do
	eval "x=\${$v:-}"
	[ -n "$x" ] && [ -e "$x" ] || { log "missing $v ($x)"; finish 2; }
done
log "guest up: $(uname -r), impls ${CHOKE_IMPLS:-mainline,ours}"
ip link set lo up
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null

C() { ip netns exec c "$@"; }
S() { ip netns exec s "$@"; }

net_up() { # IMPL
	ip netns add c; ip netns add s
	C ip link set lo up; S ip link set lo up
	n=2
	[ "$1" = ours ] && n=4
	for i in $(seq 0 $n); do
		ip -n c link add c$i type veth peer name s$i netns s
		C sysctl -qw net.ipv6.conf.c$i.disable_ipv6=1
		S sysctl -qw net.ipv6.conf.s$i.disable_ipv6=1
		C ip addr add 10.9.$i.1/24 dev c$i; S ip addr add 10.9.$i.2/24 dev s$i
		C ip link set c$i up; S ip link set s$i up
	done
	C sysctl -qw net.ipv4.tcp_ecn=1; S sysctl -qw net.ipv4.tcp_ecn=1
	C tc qdisc add dev c0 root handle 1: tbf rate 2mbit burst 5kb latency 100ms &&
	C tc qdisc add dev c0 parent 1:1 handle 10: choke limit 200 min 20 max 60 bandwidth 2mbit ecn &&
	C tc qdisc add dev c1 root handle 1: htb default 10 &&
	C tc class add dev c1 parent 1: classid 1:10 htb rate 3mbit &&
	C tc qdisc add dev c1 parent 1:10 handle 20: choke limit 300 bandwidth 3mbit &&
	C tc qdisc add dev c2 root handle 30: choke limit 100 bandwidth 100mbit probability 0.05 || return 1
	[ "$1" = ours ] || return 0
	# chokeplus (sch_libchoke's second id, through q_chokeplus.so)
	C tc qdisc add dev c3 root handle 1: tbf rate 2mbit burst 5kb latency 200ms &&
	C tc qdisc add dev c3 parent 1:1 handle 40: chokeplus limit 200 min 20 max 60 bandwidth 2mbit protect &&
	C tc qdisc add dev c4 root handle 1: htb default 10 &&
	C tc class add dev c4 parent 1: classid 1:10 htb rate 3mbit &&
	C tc qdisc add dev c4 parent 1:10 handle 50: chokeplus limit 300 draws 3 bandwidth 3mbit
}

net_down() {
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill "$p" 2>/dev/null; done
	sleep 1
	for p in $(ip netns pids s 2>/dev/null) $(ip netns pids c 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del c 2>/dev/null; ip netns del s 2>/dev/null
}

# GET/HEAD through python (urllib), into FILE; prints the status
http() { # METHOD URL FILE
	C python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
m, url, out = sys.argv[1:4]
# as Prometheus asks, with its scrape timeout
h = {"X-Prometheus-Scrape-Timeout-Seconds": "10"}
try:
    r = urllib.request.urlopen(urllib.request.Request(url, method=m, headers=h), timeout=20)
    st, body, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
except urllib.error.HTTPError as e:
    st, body, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
open(out, "wb").write(body)
print(st, ctype)
PY
}

run_impl() {
	impl=$1 d=$RUN/$1
	mkdir -p "$d"
	case $impl in
	mainline) insmod "$CHOKE_KDIR/net/sched/sch_choke.ko" ;;
	ours) insmod "$CHOKE_KMOD" ;;
	esac || { log "$impl: insmod failed"; return 1; }
	export TC_LIB_DIR="${CHOKE_TC_LIB:-}"
	if ! net_up "$impl"; then
		log "$impl: the qdiscs could not be set up"
		net_down
		return 1
	fi
	for p in 5201 5202 5203 5204 5205 5206 5207; do S iperf3 -s -1 -p $p >/dev/null 2>&1 & done
	sleep 1
	# c0 (ecn): 16 ECN-capable UDP flows, together three times the link, and
	# 2 ECN TCP flows: matches and marks; c1: 20 UDP flows, not ECN-capable,
	# at 2.7 times the link: matches and RED's drops; c2: a light flow
	C timeout 30 iperf3 -c 10.9.0.2 -p 5201 -u -b 400k -P 16 -l 1000 -S 2 -t 6 >/dev/null 2>&1 &
	c1=$!
	C timeout 30 iperf3 -c 10.9.0.2 -p 5202 -P 2 -t 6 >/dev/null 2>&1 &
	c2=$!
	C timeout 30 iperf3 -c 10.9.1.2 -p 5203 -u -b 400k -P 20 -l 1000 -t 6 >/dev/null 2>&1 &
	c3=$!
	C timeout 30 iperf3 -c 10.9.2.2 -p 5204 -u -b 1M -l 500 -t 6 >/dev/null 2>&1 &
	c4=$!
	wait $c1 $c2 $c3 $c4
	if [ "$impl" = ours ]; then
		# then (alone: a loaded host starves the guest of CPU) c3 (protect):
		# two UDP floods of 200-byte datagrams at 1.5 times the link each
		# beside two TCP flows, so that protect's windows (1024 departures)
		# turn several times and it drops the floods' excess; c4 (draws 3):
		# 20 UDP flows at 2.7 times the link: matches with several victims
		C timeout 30 iperf3 -c 10.9.3.2 -p 5205 -u -b 3M -P 2 -l 200 -t 6 >/dev/null 2>&1 &
		c5=$!
		C timeout 30 iperf3 -c 10.9.3.2 -p 5206 -P 2 -t 6 >/dev/null 2>&1 &
		c6=$!
		C timeout 30 iperf3 -c 10.9.4.2 -p 5207 -u -b 400k -P 20 -l 1000 -t 6 >/dev/null 2>&1 &
		c7=$!
		wait $c5 $c6 $c7
	fi
	# the queues drain; the last segments of closing TCP connections may
	# still pass: read again until tc says the same before and after
	for try in 1 2 3 4 5 6 7 8 9 10; do
		sleep 2
		C tc -s -d -j qdisc show > "$d/tc-before.json"
		C "$CHOKE_BIN" exporter --once --socket-dir /nonexistent > "$d/om.txt" 2> "$d/om.err"
		echo $? > "$d/om.rc"
		if [ -n "${CHOKE_RECORDER:-}" ]; then
			C "$CHOKE_RECORDER" --record "$d/dump.nlrec" > "$d/record.txt" 2>&1
			echo $? > "$d/record.rc"
		fi
		C tc -s -d -j qdisc show > "$d/tc-after.json"
		cmp -s "$d/tc-before.json" "$d/tc-after.json" && break
		log "$impl: the counters moved during reading $try; again"
	done
	# the server: a free port, GET, HEAD, another path; SIGTERM stops it
	# (not through C: $! must be the exporter, not a subshell)
	ip netns exec c "$CHOKE_BIN" exporter --listen 127.0.0.1:0 --socket-dir /nonexistent \
		2> "$d/server.log" &
	srv=$!
	port=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$d/server.log")
		[ -n "$port" ] && break
		sleep 0.5
	done
	if [ -n "$port" ]; then
		http GET "http://127.0.0.1:$port/metrics" "$d/http-get.txt" > "$d/http-get.status" 2>&1
		http HEAD "http://127.0.0.1:$port/metrics" "$d/http-head.txt" > "$d/http-head.status" 2>&1
		http GET "http://127.0.0.1:$port/" "$d/http-root.txt" > "$d/http-root.status" 2>&1
		http GET "http://127.0.0.1:$port/nope" "$d/http-404.txt" > "$d/http-404.status" 2>&1
	fi
	kill -TERM $srv 2>/dev/null
	wait $srv
	echo $? > "$d/server.rc"
	net_down
	# the namespaces' qdiscs go with them, a moment later: retry
	for try in 1 2 3 4 5 6 7 8 9 10; do
		case $impl in
		mainline) rmmod sch_choke ;;
		ours) rmmod sch_libchoke ;;
		esac 2>/dev/null && break
		sleep 1
	done
	log "$impl: done (port ${port:-none})"
}

rc=0
for impl in $(echo "${CHOKE_IMPLS:-mainline,ours}" | tr , ' '); do
	run_impl "$impl" || rc=1
done
finish $rc
