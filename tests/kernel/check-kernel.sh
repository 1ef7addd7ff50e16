#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make check-kernel: the kernel module side by side with mainline sch_choke
# in User-Mode Linux, plus a compile check against Debian's amd64 headers.
#
#   tests/kernel/check-kernel.sh [--quick] [--impls mainline,ours]
#
# Steps: build (once, cached) a UML kernel from Debian's linux-source-6.1;
# build sch_libchoke.ko against it and against /usr/src/linux-headers-*-amd64;
# boot UML with the host's root as hostfs and run tests/kernel/guest-suite.sh
# (the same cases against mainline's module, then ours); compare on the host
# (report.py); then boot tests/kernel/guest-chokeplus.sh (the second id,
# chokeplus, through stock tc and the plugin q_chokeplus.so). Summary on stdout and in build/kernel/check-kernel.log; raw
# results in build/kernel/run/. When qemu-system-x86, busybox-static and
# cpio are installed it also boots Debian's amd64 kernel under qemu and
# smoke-tests the module there (tests/kernel/qemu-smoke.sh). Needs root (UML itself does not, but the
# guest's network namespaces run as the host's root user inside UML), gcc,
# make, python3, tc, ip, iperf3, and linux-source-6.1.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel
RUN=$OUT/run
LOG=$OUT/check-kernel.log
KDIR=$OUT/linux-source-6.1
QUICK=0
IMPLS=mainline,ours
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--impls) IMPLS=$2; shift 2 ;;
	*) echo "check-kernel: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $ROOT in *[!A-Za-z0-9/._-]*) echo "check-kernel: the repository path must not contain spaces or special characters (it goes on the UML command line)" >&2; exit 2 ;; esac

mkdir -p "$OUT"
: > "$LOG"
t_start=$(date +%s)
step() { echo "check-kernel: [$(( $(date +%s) - t_start ))s] $*" | tee -a "$LOG"; }

for t in gcc make python3 tc ip iperf3 timeout; do
	command -v $t >/dev/null 2>&1 || { echo "check-kernel: missing $t (.ci/run installs what is needed)" >&2; exit 2; }
done

step "UML kernel (tests/kernel/build-uml.sh; cold about 6-13 minutes on 2 cores)"
if ! tests/kernel/build-uml.sh "$KDIR" >>"$LOG" 2>&1; then
	tail -30 "$LOG"; echo "check-kernel: UML build failed (see $LOG)" >&2; exit 1
fi
grep '^build-uml:' "$LOG" | tail -1
[ -x "$KDIR/linux" ] || { echo "check-kernel: no $KDIR/linux" >&2; exit 1; }

step "sch_libchoke.ko for UML (the dkms source tree, built with ARCH=um, UBSAN)"
rm -rf "$OUT/mod-um"
make -s -C kmod dkms-tree DESTDIR="$OUT/mod-um" >>"$LOG" 2>&1
make -C "$KDIR" ARCH=um M="$OUT/mod-um/kmod" UBSAN_SANITIZE=y modules >>"$LOG" 2>&1 ||
	{ tail -30 "$LOG"; echo "check-kernel: module build (UML) failed" >&2; exit 1; }

step "mainline sch_choke.c unpatched and patched (upstream/linux/) as out-of-tree modules for UML (UBSAN)"
sh tests/kernel/upstream-mods.sh "$KDIR" "$OUT/upstream-mods" um 1 >>"$LOG" 2>&1 ||
	{ tail -30 "$LOG"; echo "check-kernel: the patch series does not apply or build (see $LOG)" >&2; exit 1; }

step "the patch series: checkpatch, form, applies to 6.1 and mainline texts, builds for Debian (tests/kernel/upstream-check.sh)"
up_fail=0
sh tests/kernel/upstream-check.sh "$KDIR" "$OUT/upstream-check" 2>&1 | tee -a "$LOG" | sed 's/^/  /'
[ -z "$(grep '^upstream-check: FAIL' "$LOG")" ] || up_fail=1

step "compile check against Debian's distribution headers"
hdr_fail=0 hdr_done=0
for h in /usr/src/linux-headers-*-amd64; do
	[ -f "$h/Makefile" ] || continue
	v=${h#/usr/src/linux-headers-}
	rm -rf "$OUT/mod-$v"
	make -s -C kmod dkms-tree DESTDIR="$OUT/mod-$v" >>"$LOG" 2>&1
	if make -C "$h" M="$OUT/mod-$v/kmod" modules >>"$LOG" 2>&1; then
		step "  $v: built $(modinfo -F vermagic "$OUT/mod-$v/kmod/sch_libchoke.ko" 2>/dev/null)"
		hdr_done=$((hdr_done + 1))
	else
		step "  $v: FAILED (see $LOG)"
		hdr_fail=1
	fi
done
[ $hdr_done -gt 0 ] || step "  no /usr/src/linux-headers-*-amd64 (apt-get install linux-headers-amd64): compile check SKIPPED"

step "tools for the guest"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$OUT/choke-nl" tests/kernel/choke-nl.c
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-o "$OUT/choke-nlfuzz" tests/kernel/choke-nlfuzz.c
rm -rf "$RUN"; mkdir -p "$RUN"
python3 tests/kernel/report.py gen-batch "$RUN" $( [ $QUICK = 1 ] && echo --quick ) | tee -a "$LOG"

limit=$([ $QUICK = 1 ] && echo 1200 || echo 2400)
# boot_suite RUN_DIR IMPLS [KEY=VALUE...]: guest-suite.sh in a UML of its own
boot_suite() {
	d=$1 impls=$2; shift 2
	sh tests/kernel/uml-boot.sh "$KDIR" "$d" $limit tests/kernel/guest-suite.sh \
		CHOKE_KMOD="$OUT/mod-um/kmod/sch_libchoke.ko" CHOKE_NL="$OUT/choke-nl" \
		CHOKE_BATCH="$RUN/config.batch" CHOKE_QUICK=$QUICK CHOKE_IMPLS=$impls "$@"
}
# uml_finished RUN_DIR UML_EXIT: a line for the log; when UML was killed,
# where its guest had got to (the last lines of its log and console)
uml_finished() {
	if [ $2 -eq 124 ] || [ $2 -eq 137 ]; then
		step "UML did not finish within $limit s (killed); the last lines of $1/guest.log:"
		tail -8 "$1/guest.log" 2>/dev/null | sed 's/^/    /' | tee -a "$LOG"
		echo "  and of its console:" | tee -a "$LOG"
		tail -8 "$1/console.log" 2>/dev/null | sed 's/^/    /' | tee -a "$LOG"
	fi
	step "guest finished (UML exit $2; log: $1/guest.log)"
}
# Two UML guests at once where there are two CPUs (each UML runs on one):
# mainline's module and the patch series in one; ours and the fuzzer, then
# the chokeplus boot and the qemu smoke test, beside it. CHOKE_SERIAL=1, one CPU
# or a single --impls runs the one guest as before.
parallel=0
if [ "$IMPLS" = mainline,ours ] && [ "$(nproc)" -ge 2 ] && [ "${CHOKE_SERIAL:-0}" != 1 ]; then
	parallel=1
fi
set +e
if [ $parallel = 1 ]; then
	step "booting UML: mainline and the patch series (guest log: $RUN/guest.log) beside ours and the fuzzer ($RUN/ours-guest/guest.log)"
	boot_suite "$RUN" mainline CHOKE_UPSTREAM_MODS="$OUT/upstream-mods" &
	upid=$!
	boot_suite "$RUN/ours-guest" ours CHOKE_FUZZ="$OUT/choke-nlfuzz" \
		CHOKE_FUZZ_MAINLINE="$OUT/upstream-mods/unpatched/sch_choke.ko"
	urc_b=$?
	uml_finished "$RUN/ours-guest" $urc_b
	for d in ours ours-tcidle fuzz; do
		[ -d "$RUN/ours-guest/$d" ] && mv "$RUN/ours-guest/$d" "$RUN/$d"
	done
else
	step "booting UML (guest log: $RUN/guest.log)"
	boot_suite "$RUN" $IMPLS CHOKE_UPSTREAM_MODS="$OUT/upstream-mods" CHOKE_FUZZ="$OUT/choke-nlfuzz"
	urc=$?
	uml_finished "$RUN" $urc
fi
set -e
rc=0
# The second id, chokeplus (kmod/chokeplus.h): stock tc with the plugin
# q_chokeplus.so built for the host (the guest runs the host's root file
# system), in a boot of its own (tests/kernel/guest-chokeplus.sh; about a
# minute: CHOKE_QUICK shortens its flood).
step "chokeplus: q_chokeplus.so for the host, then tests/kernel/guest-chokeplus.sh in UML"
CPRUN=$OUT/run-chokeplus
rm -rf "$CPRUN"; mkdir -p "$CPRUN"
if make -s BUILD=build/gcc CC=gcc build/gcc/q_chokeplus.so >>"$LOG" 2>&1; then
	set +e
	sh tests/kernel/uml-boot.sh "$KDIR" "$CPRUN" 600 tests/kernel/guest-chokeplus.sh \
		CHOKE_KMOD="$OUT/mod-um/kmod/sch_libchoke.ko" CHOKE_NL="$OUT/choke-nl" \
		CHOKE_TC_LIB="$ROOT/build/gcc" CHOKE_QUICK=$QUICK
	curc=$?
	set -e
	grep -E '^(ok|FAIL) |^chokeplus: ' "$CPRUN/guest.log" 2>/dev/null | sed 's/^/  /' | tee -a "$LOG"
	# what the kernel said after the module loaded (the boot's own lockdep
	# notes come before it)
	sed -n '/sch_libchoke: qdiscs/,$p' "$CPRUN/dmesg.txt" 2>/dev/null |
		grep -E 'UBSAN|BUG:|WARNING:|kmemleak:.*new suspected|list_(add|del) corruption' \
		>"$CPRUN/dmesg-problems.txt" || true
	if [ "$(cat "$CPRUN/guest.rc" 2>/dev/null)" != 0 ] || [ $curc -ne 0 ] ||
	   ! grep -q '^chokeplus: [0-9]* tests, 0 failed' "$CPRUN/guest.log" 2>/dev/null; then
		echo "check-kernel: FAIL: chokeplus in UML (UML exit $curc; see $CPRUN/guest.log)" | tee -a "$LOG"
		rc=1
	elif [ -s "$CPRUN/dmesg-problems.txt" ]; then
		sed 's/^/  /' "$CPRUN/dmesg-problems.txt" | tee -a "$LOG"
		echo "check-kernel: FAIL: chokeplus: the kernel warned (see $CPRUN/dmesg.txt)" | tee -a "$LOG"
		rc=1
	else
		step "chokeplus passed"
	fi
else
	tail -20 "$LOG"
	echo "check-kernel: FAIL: the tc plugin q_chokeplus.so does not build" | tee -a "$LOG"
	rc=1
fi

# Bonus: Debian's own amd64 kernel under qemu (TCG), with our module built
# against its headers and the kernel's own sch_choke beside it.
if command -v qemu-system-x86_64 >/dev/null 2>&1 && command -v busybox >/dev/null 2>&1 &&
   command -v cpio >/dev/null 2>&1 && [ $hdr_done -gt 0 ]; then
	step "qemu: Debian's amd64 kernel (tests/kernel/qemu-smoke.sh)"
	if sh tests/kernel/qemu-smoke.sh >>"$LOG" 2>&1; then
		sed 's/^/  /' "$OUT/qemu/summary.txt" | grep -v 'counters:' | tee -a "$LOG"
		step "qemu smoke test passed"
	else
		sed 's/^/  /' "$OUT/qemu/summary.txt" 2>/dev/null
		echo "check-kernel: FAIL: qemu smoke test on Debian's kernel (see $OUT/qemu/console.log)" | tee -a "$LOG"
		rc=1
	fi
else
	step "qemu smoke test SKIPPED (needs qemu-system-x86, busybox-static, cpio, linux-headers-amd64)"
fi
if [ $parallel = 1 ]; then
	set +e
	wait $upid
	urc=$?
	set -e
	uml_finished "$RUN" $urc
	# one exit status for the report: the first guest's, or the second's
	# when the first passed
	rc_a=$(cat "$RUN/guest.rc" 2>/dev/null) rc_b=$(cat "$RUN/ours-guest/guest.rc" 2>/dev/null)
	if [ "$rc_a" = 0 ] && [ "$rc_b" != 0 ]; then
		echo "$rc_b" > "$RUN/guest.rc"
		echo "check-kernel: FAIL: the guest for ours exited '$rc_b' (see $RUN/ours-guest/guest.log)" | tee -a "$LOG"
		rc=1
	fi
fi
step "comparing (report.py)"
echo >> "$LOG"
set +e
python3 tests/kernel/report.py report "$RUN" "$LOG"
[ $? -eq 0 ] || rc=1
set -e
if [ $up_fail -ne 0 ]; then
	echo "check-kernel: FAIL: the patch series' checks (upstream-check above)" | tee -a "$LOG"
	rc=1
fi
if [ $hdr_fail -ne 0 ]; then
	echo "check-kernel: FAIL: the module does not build against Debian's headers" | tee -a "$LOG"
	rc=1
fi
step "done in $(( $(date +%s) - t_start )) s; log: $LOG"
exit $rc
