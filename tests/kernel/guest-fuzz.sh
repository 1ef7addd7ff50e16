#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The netlink fuzzer (choke-nlfuzz) against each choke implementation in the
# UML guest, under load: a dummy device with tbf rate 2mbit at its root,
# the choke at 1:1 (handle 10:) that the fuzzer adds, changes, replaces and
# deletes, and pktgen offering 64 UDP flows at 5000 packets/s (4 Mbit/s)
# all along. Not faster: the guest has one CPU and no preemption, and
# pktgen busy-waits between packets less than 100 us apart, which starves
# the fuzzer on a slower host. The fuzzer is bounded to 10 minutes.
# Afterwards: the sk_buffs alive before and after, kmemleak, the module's
# refcount and rmmod, and the kernel log (WARN splats, BUGs, UBSAN, lockdep,
# list corruption; netlink's own warnings about malformed attributes are
# counted apart). Raw results: $CHOKE_RUN/fuzz/<impl>/.
#
# Environment: CHOKE_RUN, CHOKE_KDIR, CHOKE_FUZZ (the fuzzer),
# CHOKE_FUZZ_IMPLS (name=path.ko,... with name mainline or ours...),
# CHOKE_FUZZ_COUNT (requests per implementation), CHOKE_FUZZ_SEED.
# Sourced by guest-suite.sh (fuzz_suite), or run on its own (CHOKE_GUEST).
set -u
F_T0=$(date +%s)
flog() { echo "[fuzz $(( $(date +%s) - F_T0 ))s] $*"; }

fuzz_one() { # NAME KO OUT_DIR
	local name=$1 ko=$2 d=$3 ns=chokefuzz-$$ kind before after p
	kind=ours
	case $name in mainline*|patched*|unpatched*) kind=mainline ;; esac
	rm -rf "$d"; mkdir -p "$d"
	dmesg -C
	[ -w /sys/kernel/debug/kmemleak ] && echo clear > /sys/kernel/debug/kmemleak
	insmod "$ko" || { echo "load FAIL" > "$d/result.txt"; return 1; }
	before=$(awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo)
	ip netns add $ns
	ip -n $ns link add dummy0 type dummy
	ip -n $ns addr add 192.0.2.1/24 dev dummy0
	ip -n $ns link set dummy0 up
	ip netns exec $ns tc qdisc add dev dummy0 root handle 1: tbf rate 2mbit burst 20kb latency 200ms
	ip netns exec $ns sh -c 'f=/proc/net/pktgen; echo rem_device_all > $f/kpktgend_0
		echo "add_device dummy0" > $f/kpktgend_0
		for c in "xmit_mode queue_xmit" "count 0" "ratep 5000" "pkt_size 100" "dst 192.0.2.2" \
			"dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" "udp_src_min 10000" \
			"udp_src_max 10063" "tos 02"; do echo "$c" > $f/dummy0; done'
	ip netns exec $ns sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	p=$!
	ip netns exec $ns timeout 600 "$CHOKE_FUZZ" dummy0 --impl $kind --count "${CHOKE_FUZZ_COUNT:-1000}" \
		--seed "${CHOKE_FUZZ_SEED:-1}" --log "$d/fuzz.log" > "$d/result.txt" 2>&1
	echo "fuzz-exit $?" >> "$d/result.txt"
	ip netns exec $ns sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	wait $p
	echo "final $(ip netns exec $ns tc -s -j qdisc show dev dummy0 | tr -d '\n')" >> "$d/result.txt"
	ip netns del $ns
	sleep 2
	after=$(awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo)
	echo "skb_before $before" >> "$d/result.txt"
	echo "skb_after $after" >> "$d/result.txt"
	echo "refcnt $(cat /sys/module/$(basename "$ko" .ko)/refcnt 2>/dev/null)" >> "$d/result.txt"
	if rmmod "$(basename "$ko" .ko)"; then echo "rmmod ok" >> "$d/result.txt"; else echo "rmmod FAIL" >> "$d/result.txt"; fi
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan > /sys/kernel/debug/kmemleak; sleep 1; echo scan > /sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak > "$d/kmemleak.txt"
		echo "kmemleak_objects $(grep -c 'unreferenced object' "$d/kmemleak.txt")" >> "$d/result.txt"
		echo "kmemleak_choke $(grep -c -i choke "$d/kmemleak.txt")" >> "$d/result.txt"
	fi
	dmesg > "$d/dmesg.txt"
	echo "dmesg_warn $(grep -c 'WARNING:' "$d/dmesg.txt")" >> "$d/result.txt"
	echo "dmesg_bug $(grep -c -E 'BUG:|Oops|general protection|kernel BUG' "$d/dmesg.txt")" >> "$d/result.txt"
	echo "dmesg_ubsan $(grep -c 'UBSAN' "$d/dmesg.txt")" >> "$d/result.txt"
	echo "dmesg_lock $(grep -c -E 'possible circular|inconsistent lock|lock held|deadlock' "$d/dmesg.txt")" >> "$d/result.txt"
	echo "dmesg_corruption $(grep -c -E 'corruption|refcount_t:' "$d/dmesg.txt")" >> "$d/result.txt"
	echo "dmesg_netlink $(grep -c -E 'netlink: .*(leftover|invalid length)' "$d/dmesg.txt")" >> "$d/result.txt"
	flog "$name: $(grep -E '^(requests|accepted|refused|accepted_against_model|refused_against_model|dump_differs|fuzz-exit|skb_before|skb_after|dmesg_[a-z]+) ' "$d/result.txt" | tr '\n' ' ')"
}

fuzz_suite() {
	lsmod | grep -q '^dummy ' || insmod "$CHOKE_KDIR/drivers/net/dummy.ko"
	lsmod | grep -q '^pktgen ' || insmod "$CHOKE_KDIR/net/core/pktgen.ko"
	for spec in $(echo "$CHOKE_FUZZ_IMPLS" | tr , ' '); do
		fuzz_one "${spec%%=*}" "${spec#*=}" "$CHOKE_RUN/fuzz/${spec%%=*}"
	done
}

if [ "${CHOKE_GUEST:-}" = tests/kernel/guest-fuzz.sh ]; then
	fuzz_suite
	echo done > "$CHOKE_RUN/fuzz/done"
fi
