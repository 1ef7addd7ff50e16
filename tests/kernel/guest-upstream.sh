#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The evidence for the patch series in upstream/linux/, run inside the UML
# guest: mainline's sch_choke.c built out of tree unpatched and patched
# (tests/kernel/upstream-mods.sh), each loaded in turn and put through
#   - tdc: tc-testing's choke cases (tc-tests/qdiscs/choke.json) with the
#     kernel tree's own tdc.py and nsPlugin (Python's standard library only);
#   - the selftest of upstream/linux/net/0002 (sch_choke.sh, with
#     tests/kernel/selftest-lib.sh as its lib.sh; upstream-mods.sh puts
#     both in CHOKE_UPSTREAM_MODS/selftest);
#   - leak: the sk_buffs alive before and after a reset (link down) and a
#     destroy (qdisc delete) of a loaded qdisc, and kmemleak;
#   - alias: 8 UDP flows with the same ports from one host to 8 addresses,
#     IPv4 then IPv6: the share of arrivals dropped as matches;
#   - the kernel log: warnings, BUGs, UBSAN, lockdep, list corruption.
# Raw results go to $CHOKE_RUN/upstream/<impl>/; report.py reads them.
#
# Environment: CHOKE_RUN, CHOKE_KDIR (the UML tree), CHOKE_UPSTREAM_MODS
# (the folder with unpatched/ and patched/), CHOKE_QUICK=1 (shorter runs).
# Sourced by guest-suite.sh, or run on its own (CHOKE_GUEST).
set -u
U_RUN=$CHOKE_RUN/upstream
U_MODS=${CHOKE_UPSTREAM_MODS:-}
U_QUICK=${CHOKE_QUICK:-0}
U_T0=$(date +%s)
ulog() { echo "[upstream $(( $(date +%s) - U_T0 ))s] $*"; }

u_slab() { awk '$1 == "skbuff_head_cache" { print $2 }' /proc/slabinfo; }
u_kmemleak_scan() { # -> number of unreferenced objects with choke in them
	[ -w /sys/kernel/debug/kmemleak ] || { echo -; return; }
	echo scan > /sys/kernel/debug/kmemleak; sleep 1; echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > "$1"
	grep -c 'unreferenced object' "$1"
}

# ---------------------------------------------------------------- helpers
U_NS=
u_net_up() { # a namespace with dummy0 (IPv4 and IPv6 addresses)
	U_NS=chokeup-$$
	ip netns add $U_NS
	ip -n $U_NS link add dummy0 type dummy
	ip -n $U_NS addr add 192.0.2.1/24 dev dummy0
	ip -n $U_NS addr add fd00::1/64 dev dummy0 nodad
	ip -n $U_NS link set dummy0 up
}
u_net_down() {
	ip netns exec $U_NS sh -c 'echo stop > /proc/net/pktgen/pgctrl' 2>/dev/null
	ip netns del $U_NS 2>/dev/null
	sleep 1
}
# u_pg FILE COMMAND...: pktgen commands to one of its files, in one process
u_pg() {
	ip netns exec $U_NS sh -c 'f=/proc/net/pktgen/$1; shift
		for c; do echo "$c" > "$f" || { echo "pktgen: $c: $(grep Result "$f")" >&2; exit 1; }; done' sh "$@"
}
# u_flows N PPS SIZE TOS FAMILY: N pktgen devices on dummy0, one flow each,
# all with UDP ports 10000 -> 9; FAMILY 4: destinations 198.51.100.1..N,
# 6: fd00:1::1..N from fd00::1; "same": one destination, source ports
# 10000..10000+N-1 (N flows from one pktgen device)
u_flows() {
	local n=$1 pps=$2 size=$3 tos=$4 fam=$5 devs k=0 dev
	u_pg kpktgend_0 rem_device_all
	if [ "$fam" = same ]; then
		devs=dummy0
	else
		devs=$(i=0; while [ $i -lt "$n" ]; do echo "dummy0@$i"; i=$((i + 1)); done)
	fi
	for dev in $devs; do
		k=$((k + 1))
		u_pg kpktgend_0 "add_device $dev"
		u_pg "$dev" "xmit_mode queue_xmit" "count 0" "pkt_size $size" \
			"dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" \
			"udp_src_min 10000" "tos $tos" "ratep $pps"
		case $fam in
		same) u_pg "$dev" "dst 192.0.2.2" "udp_src_max $((10000 + n - 1))" ;;
		4) u_pg "$dev" "dst 198.51.100.$k" "udp_src_max 10000" ;;
		6) u_pg "$dev" "dst6 fd00:1::$k" "src6 fd00::1" "udp_src_max 10000" ;;
		esac
	done
}
u_flood() { # SECONDS: run the configured flows, then stop them
	local fpid
	ip netns exec $U_NS sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	fpid=$!
	sleep "$1"
	u_pg pgctrl stop
	wait $fpid 2>/dev/null
}
u_tbf_choke() { # CHOKE_WORDS...: tbf 2mbit root with a choke child
	ip netns exec $U_NS tc qdisc del dev dummy0 root 2>/dev/null
	ip netns exec $U_NS tc qdisc add dev dummy0 root handle 1: tbf rate 2mbit burst 5kb latency 50ms &&
	ip netns exec $U_NS tc qdisc add dev dummy0 parent 1:1 handle 10: choke "$@"
}
u_choke_json() { ip netns exec $U_NS tc -s -j qdisc show dev dummy0 | tr -d '\n'; }

# ---------------------------------------------------------------- cases
u_tdc() { # OUT_DIR
	# the cases require nsPlugin, which tdc then loads from plugin-lib
	local src=$CHOKE_KDIR/tools/testing/selftests/tc-testing
	rm -rf "$1/tdc"; cp -r "$src" "$1/tdc"
	(cd "$1/tdc" && timeout 300 python3 tdc.py -f tc-tests/qdiscs/choke.json) > "$1/tdc.txt" 2>&1
	echo "tdc-exit $?" >> "$1/tdc.txt"
	ulog "tdc: $(grep -c '^ok ' "$1/tdc.txt") ok, $(grep -c '^not ok ' "$1/tdc.txt") not ok"
}

u_selftest() { # OUT_DIR [SELFTEST_DIR [FILE]]: the selftest (net/0002's by default)
	local before dir=${2:-$U_MODS/selftest} f=${3:-selftest.txt} t0
	before=$(u_slab)
	t0=$(date +%s)
	(cd "$dir" && timeout 120 bash ./sch_choke.sh) > "$1/$f" 2>&1
	echo "selftest-exit $?" >> "$1/$f"
	echo "selftest-seconds $(( $(date +%s) - t0 ))" >> "$1/$f"
	sleep 2
	echo "skb_before $before" >> "$1/$f"
	echo "skb_after $(u_slab)" >> "$1/$f"
	ulog "$f: $(tail -4 "$1/$f" | tr '\n' ' ')"
}

# A loaded qdisc reset by a link down, then refilled and deleted: the
# sk_buffs alive before, at the end of each flood, and after.
u_leak() { # OUT_DIR
	local out=$1/leak.txt secs base
	secs=$([ "$U_QUICK" = 1 ] && echo 6 || echo 8)
	u_net_up
	base=$(u_slab)
	echo "skb_base $base" > "$out"
	u_tbf_choke limit 1000 min 800 max 900 avpkt 1000 burst 850 bandwidth 2mbit probability 0.02 ecn
	u_flows 30 1125 1000 02 same
	u_flood "$secs"
	echo "loaded_reset $(u_choke_json)" >> "$out"
	echo "skb_loaded_reset $(u_slab)" >> "$out"
	ip -n $U_NS link set dummy0 down; sleep 1
	echo "skb_after_reset $(u_slab)" >> "$out"
	ip -n $U_NS link set dummy0 up
	u_flood "$secs"
	echo "loaded_destroy $(u_choke_json)" >> "$out"
	echo "skb_loaded_destroy $(u_slab)" >> "$out"
	ip netns exec $U_NS tc qdisc del dev dummy0 root; sleep 1
	echo "skb_after_destroy $(u_slab)" >> "$out"
	u_net_down
	ulog "leak: $(tr '\n' ' ' < "$out" | sed 's/{[^ ]*//g' | cut -c1-300)"
}

# 8 flows differing only in their destination address.
u_alias() { # OUT_DIR
	local out=$1/alias.txt secs fam
	: > "$out"
	secs=8
	for fam in 4 6; do
		u_net_up
		u_tbf_choke limit 1000 min 100 max 300 avpkt 200 burst 200 bandwidth 2mbit probability 0.02
		u_flows 8 500 200 00 $fam
		u_flood "$secs"
		echo "alias$fam $(u_choke_json)" >> "$out"
		u_net_down
	done
	ulog "alias: done"
}

u_problems() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|kernel BUG|corruption|refcount_t:|UBSAN|possible circular|inconsistent lock|Call Trace' || true
}

# ---------------------------------------------------------------- main
upstream_suite() {
	fails=0
	if [ -z "$U_MODS" ] || [ ! -f "$U_MODS/patched/sch_choke.ko" ]; then
		ulog "no out-of-tree modules (CHOKE_UPSTREAM_MODS); skipped"
		return 1
	fi
	lsmod | grep -q '^dummy ' || insmod "$CHOKE_KDIR/drivers/net/dummy.ko"
	lsmod | grep -q '^pktgen ' || insmod "$CHOKE_KDIR/net/core/pktgen.ko"
	# net-next: the net series and the IPv6 one (upstream-mods.sh)
	for impl in unpatched patched net-next; do
		d=$U_RUN/$impl
		rm -rf "$d"; mkdir -p "$d"
		ulog "===== mainline $impl"
		dmesg -C
		[ -w /sys/kernel/debug/kmemleak ] && echo clear > /sys/kernel/debug/kmemleak
		if ! insmod "$U_MODS/$impl/sch_choke.ko"; then
			echo "load FAIL" > "$d/load.txt"; fails=$((fails + 1)); continue
		fi
		echo "load ok" > "$d/load.txt"
		u_tdc "$d"
		u_selftest "$d"
		# net-next's selftest (the IPv6 case): it must pass on net-next's
		# module and catch the aliasing on the net series alone
		case $impl in
		patched | net-next) u_selftest "$d" "$U_MODS/selftest-next" selftest-next.txt ;;
		esac
		u_leak "$d"
		u_alias "$d"
		sleep 1
		echo "kmemleak_objects $(u_kmemleak_scan "$d/kmemleak.txt")" >> "$d/load.txt"
		echo "kmemleak_choke $(grep -c -i choke "$d/kmemleak.txt" 2>/dev/null)" >> "$d/load.txt"
		if rmmod sch_choke; then echo "rmmod ok" >> "$d/load.txt"; else echo "rmmod FAIL" >> "$d/load.txt"; fi
		dmesg > "$d/dmesg.txt"
		u_problems > "$d/dmesg-problems.txt"
		ulog "$impl: $(wc -l < "$d/dmesg-problems.txt") suspicious kernel log lines"
	done
	return $fails
}

if [ "${CHOKE_GUEST:-}" = tests/kernel/guest-upstream.sh ]; then
	sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null
	upstream_suite
	exit $?
fi
