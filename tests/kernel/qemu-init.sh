#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# /init of the qemu smoke test (tests/kernel/qemu-smoke.sh): busybox, the
# host's ip, tc, iperf3 and ping, Debian's modules and ours. Lines starting
# with SMOKE are the result.
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp; mkdir -p /run/netns
say() { echo "SMOKE $*"; }
# busybox sh prefers its own applets: the real tools by full path
ip() { /bin/ip "$@"; }
tc() { /bin/tc "$@"; }
say "kernel $(cat /proc/sys/kernel/osrelease)"
insmod /lib/modules/veth.ko; insmod /lib/modules/sch_tbf.ko

counters() { # sent-packets backlog-packets of the choke qdisc
	ip netns exec a tc -s qdisc show dev va | awk '
		/^qdisc choke/ { c = 1; next } /^qdisc/ { c = 0 }
		c && /Sent/ { for (i = 1; i <= NF; i++) if ($i == "pkt") p = $(i-1) }
		c && /backlog/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+p$/) { q = $i; sub(/p$/, "", q) } }
		END { print p + 0, q + 0 }'
}

run() { # NAME MODULE
	name=$1 mod=$2
	if ! insmod "$mod"; then say "FAIL $name: insmod"; return; fi
	ip netns add a; ip netns add b
	ip -n a link add va type veth peer name vb netns b
	ip -n a addr add 10.199.0.1/24 dev va; ip -n b addr add 10.199.0.2/24 dev vb
	for x in "a va" "a lo" "b vb" "b lo"; do set -- $x; ip -n $1 link set $2 up; done
	ip netns exec a tc qdisc add dev va root handle 1: tbf rate 2mbit burst 5kb latency 50ms
	if ! ip netns exec a tc qdisc add dev va parent 1:1 handle 10: choke limit 1000 min 800 max 900 \
		avpkt 1000 burst 850 bandwidth 2Mbit probability 0.02 ecn; then
		say "FAIL $name: tc qdisc add choke"
	fi
	say "$name configured: $(ip netns exec a tc -d qdisc show dev va | grep choke)"
	ip netns exec b iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
	sleep 1
	ip netns exec a timeout 40 iperf3 -c 10.199.0.2 -p 5299 -u -b 300k -P 30 -S 2 -l 1000 -t 16 >/dev/null 2>&1 &
	fl=$!
	sleep 6; set -- $(counters); s1=$1
	sleep 8; set -- $(counters); s2=$1 q2=$2
	wait $fl
	sleep 6; set -- $(counters); q3=$2
	if ip netns exec a ping -c 20 -i 0.2 -W 1 10.199.0.2 >/dev/null 2>&1; then p=yes; else p=no; fi
	say "$name flood: sent $s1 -> $s2 packets over 8 s ($(( (s2 - s1) * 1042 * 8 / 8000 )) kbit/s), queued $q2; 6 s after: queued $q3; ping: $p"
	say "$name counters: $(ip netns exec a tc -s qdisc show dev va | grep -A3 'qdisc choke' | tr '\n' ' ')"
	case $name in
	ours) if [ $((s2 - s1)) -lt 1500 ] || [ "$q3" -ne 0 ] || [ $p != yes ]; then say "FAIL ours: did not keep sending"; fi ;;
	mainline) if [ $((s2 - s1)) -eq 0 ]; then say "mainline WEDGED (as on UML)"; else say "mainline did not wedge in this run"; fi ;;
	esac
	# delete the qdiscs first: a wedged mainline ring never frees its
	# packets, which pin their sockets and so the namespace (and the qdisc
	# with it) if only the namespace is deleted
	ip netns exec a tc qdisc del dev va root
	ip netns del a; ip netns del b
	# network namespaces are torn down asynchronously: retry for a while
	n=0
	until rmmod "$(basename "$mod" .ko)" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 30 ] || {
			say "FAIL $name: rmmod (refcnt $(cat /sys/module/$(basename "$mod" .ko)/refcnt))"
			dmesg | tail -5 | sed 's/^/SMOKE   /'
			break
		}
		sleep 1
	done
}
run ours /lib/modules/sch_libchoke.ko
run mainline /lib/modules/sch_choke.ko
if dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace' | grep -v 'module verification failed'; then say "FAIL kernel log warnings"; fi
say "$(dmesg | grep -m1 sch_libchoke)"
say done
poweroff -f
