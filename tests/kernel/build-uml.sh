#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Build (once) a User-Mode Linux kernel from Debian's linux-source-6.1 with
# what the kernel harness needs: the qdiscs (mainline sch_choke as a module,
# the reference), tbf/htb parents, veth, network namespaces, hostfs and the
# memory/locking debug options that make leaks and misuse visible (UML has
# no preemption, so no DEBUG_ATOMIC_SLEEP; its defconfig uses SLAB).
#
#   tests/kernel/build-uml.sh [KDIR]          default KDIR: build/kernel/linux-source-6.1
#   tests/kernel/build-uml.sh --bench [KDIR]  default KDIR: build/kernel/linux-bench-6.1
#
# --bench builds a second kernel for measurements (make bench-kernel): the
# same options without the debugging ones (lock proving, slab debugging,
# kmemleak, list debugging, UBSAN), which cost far more per packet than any
# qdisc and would drown what is measured, and compiled for speed (-O2,
# CC_OPTIMIZE_FOR_PERFORMANCE) as Debian's amd64 kernel is: UML's defconfig
# optimises for size (-Os), which leaves small inline functions out of line
# in every module and measured a kernel no operator runs (results.md 14.1).
#
# The tree is cached: a stamp records the option list; a rerun with the same
# options and an existing ./linux and sch_choke.ko does nothing.
set -eu
cd "$(dirname "$0")/../.."
PROFILE=debug
if [ "${1:-}" = --bench ]; then PROFILE=bench; shift; fi
if [ $PROFILE = bench ]; then
	KDIR=${1:-build/kernel/linux-bench-6.1}
else
	KDIR=${1:-build/kernel/linux-source-6.1}
fi
TARBALL=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${JOBS:-$(nproc)}

# Options: =y built in, =m module, =n off. Keep this list sorted by purpose.
# VMAP_STACK=n: with kernel stacks in vmalloc space (6.1's UML default), a
# lazy purge of vmap areas (vfree, e.g. rmmod freeing a module) can flush
# a range that holds the running task's stack; UML's
# flush_tlb_kernel_range() then maps that stack page with no access and
# the kernel faults on its own stack for ever (seen: rmmod of
# sch_libchoke at 100% CPU in flush_tlb_kernel_range_common <-
# __purge_vmap_area_lazy <- free_module, the guest never finishing).
OPTS="
MODULES=y MODULE_UNLOAD=y VMAP_STACK=n
NET=y INET=y IPV6=y NET_NS=y UNIX=y PACKET=y VETH=y
NET_SCHED=y NET_SCH_CHOKE=m NET_SCH_TBF=y NET_SCH_HTB=y NET_SCH_FIFO=y
NET_CLS=y NET_CLS_ACT=y NET_SCH_INGRESS=y
NET_SCH_RED=m NET_SCH_SFB=m NET_SCH_PIE=m NET_SCH_FQ_CODEL=m NET_SCH_CAKE=m
NET_SCH_SFQ=m NET_SCH_FQ=m NET_SCH_PRIO=m NET_SCH_MQPRIO=m NET_SCH_NETEM=m
NET_CLS_U32=m NET_CLS_FLOW=m NET_CLS_FW=m
DUMMY=m NET_PKTGEN=m
HOSTFS=y TMPFS=y PROC_FS=y SYSFS=y DEBUG_FS=y
DEBUG_SLAB=y DEBUG_KMEMLEAK=y DEBUG_KMEMLEAK_DEFAULT_OFF=n DEBUG_KMEMLEAK_AUTO_SCAN=n
DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
PROVE_LOCKING=y DEBUG_LIST=y BUG_ON_DATA_CORRUPTION=y
UBSAN=y UBSAN_SHIFT=y UBSAN_BOUNDS=y
"
if [ $PROFILE = bench ]; then
	OPTS="$(printf '%s\n' $OPTS | grep -v -e '^DEBUG_SLAB' -e '^DEBUG_KMEMLEAK' -e '^PROVE_LOCKING' \
		-e '^DEBUG_LIST' -e '^BUG_ON_DATA_CORRUPTION' -e '^UBSAN')
DEBUG_SLAB=n DEBUG_KMEMLEAK=n PROVE_LOCKING=n DEBUG_LIST=n UBSAN=n
CC_OPTIMIZE_FOR_PERFORMANCE=y CC_OPTIMIZE_FOR_SIZE=n"
fi
STAMP_WANT=$(printf '%s\n' "$OPTS" | tr ' ' '\n' | sed '/^$/d' | sort | cksum | cut -d' ' -f1)

if [ -x "$KDIR/linux" ] && [ -f "$KDIR/net/sched/sch_choke.ko" ] &&
   [ "$(cat "$KDIR/.choke-stamp" 2>/dev/null)" = "$STAMP_WANT" ]; then
	echo "build-uml: cached $KDIR/linux"
	exit 0
fi

if [ ! -f "$KDIR/Makefile" ]; then
	[ -f "$TARBALL" ] || { echo "build-uml: $TARBALL missing (apt-get install linux-source-6.1)" >&2; exit 1; }
	mkdir -p "$(dirname "$KDIR")"
	echo "build-uml: extracting $TARBALL"
	x=$(dirname "$KDIR")/.extract-$$
	rm -rf "$x"; mkdir "$x"
	tar -C "$x" -xf "$TARBALL"
	rm -rf "$KDIR"
	mv "$x"/linux-source-* "$KDIR"
	rmdir "$x"
fi

cd "$KDIR"
echo "build-uml: configuring ARCH=um"
make -s ARCH=um defconfig
for o in $OPTS; do
	name=${o%%=*}; val=${o#*=}
	case $val in
	y) ./scripts/config --enable "$name" ;;
	m) ./scripts/config --module "$name" ;;
	n) ./scripts/config --disable "$name" ;;
	*) ./scripts/config --set-val "$name" "$val" ;;
	esac
done
make -s ARCH=um olddefconfig
# olddefconfig silently drops what a dependency refuses: check the result.
bad=
for o in $OPTS; do
	name=${o%%=*}; val=${o#*=}
	case $val in
	y|m) grep -q "^CONFIG_$name=$val\$" .config || bad="$bad $name=$val" ;;
	n) ! grep -q "^CONFIG_$name=y" .config || bad="$bad $name=n" ;;
	esac
done
[ -z "$bad" ] || { echo "build-uml: options not taken:$bad" >&2; exit 1; }

echo "build-uml: building (make -j$JOBS ARCH=um; about 6 minutes on 2 cores)"
start=$(date +%s)
make -s -j"$JOBS" ARCH=um all
make -s -j"$JOBS" ARCH=um modules
echo "$STAMP_WANT" > .choke-stamp
echo "build-uml: built $KDIR/linux in $(( $(date +%s) - start )) s"
