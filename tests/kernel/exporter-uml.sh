#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# `choke exporter` against real kernel choke qdiscs: mainline's sch_choke and
# our sch_libchoke (its choke and chokeplus ids) in a User-Mode Linux guest
# (tests/kernel/exporter-guest.sh), compared on the host with what tc printed
# (tests/kernel/exporter-check.py).
#
#   sh tests/kernel/exporter-uml.sh [--kdir DIR] [--kmod FILE] [--record]
#
# --kdir DIR   a UML tree built by tests/kernel/build-uml.sh (default
#              build/kernel/linux-source-6.1, built there when missing:
#              6-13 minutes cold, nothing when cached)
# --kmod FILE  sch_libchoke.ko built for that tree (default: built here from
#              the dkms tree, as check-kernel does)
# --record     also record the raw netlink dumps as the unit tests' fixtures
#              (tests/exporter/uml-6.1-IMPL.nlrec and .expect; commit them)
#
# CHOKE and EXPORTER_TESTS name the binaries (default build/gcc/...; built
# when missing). Needs root (the guest's network namespaces), iperf3,
# python3 and promtool. Results in build/kernel/exporter/; about a minute.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel/exporter
RUN=$OUT/run
KDIR=
KMOD=
RECORD=0
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) KDIR=$2; shift 2 ;;
	--kmod) KMOD=$2; shift 2 ;;
	--record) RECORD=1; shift ;;
	*) echo "exporter-uml: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $ROOT in *[!A-Za-z0-9/._-]*) echo "exporter-uml: the repository path must not contain spaces or special characters (it goes on the UML command line)" >&2; exit 2 ;; esac
for t in gcc make python3 tc ip iperf3 timeout promtool; do
	command -v $t >/dev/null 2>&1 || { echo "exporter-uml: missing $t (.ci/run installs what is needed)" >&2; exit 2; }
done
t0=$(date +%s)
step() { echo "exporter-uml: [$(( $(date +%s) - t0 ))s] $*"; }
mkdir -p "$OUT"

CHOKE=${CHOKE:-build/gcc/choke}
EXPORTER_TESTS=${EXPORTER_TESTS:-build/gcc/exporter-tests}
if [ ! -x "$CHOKE" ] || [ ! -x "$EXPORTER_TESTS" ]; then
	step "building $CHOKE and $EXPORTER_TESTS"
	make -s BUILD=build/gcc CC=gcc build/gcc/choke build/gcc/exporter-tests >"$OUT/build.log" 2>&1 ||
		{ tail -20 "$OUT/build.log"; exit 1; }
fi
CHOKE=$(readlink -f "$CHOKE")
EXPORTER_TESTS=$(readlink -f "$EXPORTER_TESTS")
# tc's chokeplus: the plugin built for the host (the guest runs the host's
# root file system), found through TC_LIB_DIR
step "q_chokeplus.so for the guest's tc"
make -s BUILD=build/gcc CC=gcc build/gcc/q_chokeplus.so >>"$OUT/build.log" 2>&1 ||
	{ tail -20 "$OUT/build.log"; exit 1; }
TC_LIB=$(readlink -f build/gcc)

if [ -z "$KDIR" ]; then
	KDIR=$ROOT/build/kernel/linux-source-6.1
	step "UML kernel (tests/kernel/build-uml.sh; cold 6-13 minutes)"
	tests/kernel/build-uml.sh "$KDIR" >"$OUT/build-uml.log" 2>&1 ||
		{ tail -30 "$OUT/build-uml.log"; echo "exporter-uml: UML build failed" >&2; exit 1; }
fi
KDIR=$(readlink -f "$KDIR")
[ -x "$KDIR/linux" ] && [ -f "$KDIR/net/sched/sch_choke.ko" ] ||
	{ echo "exporter-uml: $KDIR has no linux or net/sched/sch_choke.ko" >&2; exit 1; }
if [ -z "$KMOD" ]; then
	step "sch_libchoke.ko for UML (the dkms tree, ARCH=um)"
	rm -rf "$OUT/mod-um"
	make -s -C kmod dkms-tree DESTDIR="$OUT/mod-um" >"$OUT/kmod.log" 2>&1
	make -C "$KDIR" ARCH=um M="$OUT/mod-um/kmod" modules >>"$OUT/kmod.log" 2>&1 ||
		{ tail -30 "$OUT/kmod.log"; echo "exporter-uml: module build failed" >&2; exit 1; }
	KMOD=$OUT/mod-um/kmod/sch_libchoke.ko
fi
KMOD=$(readlink -f "$KMOD")

rm -rf "$RUN"
mkdir -p "$RUN"
step "booting UML (guest log: $RUN/guest.log)"
set +e
# through guest-init.sh (uml-boot.sh), which keeps a checkout under /tmp
# visible in the guest
CHOKE_UML_MEM=512M sh tests/kernel/uml-boot.sh "$KDIR" "$RUN" 600 tests/kernel/exporter-guest.sh \
	CHOKE_KMOD="$KMOD" CHOKE_BIN="$CHOKE" CHOKE_TC_LIB="$TC_LIB" \
	$( [ $RECORD = 1 ] && echo CHOKE_RECORDER="$EXPORTER_TESTS" )
urc=$?
set -e
[ $urc -eq 124 ] || [ $urc -eq 137 ] && step "UML did not finish within 600 s (killed)"
step "guest finished (UML exit $urc); comparing"
set +e
python3 tests/kernel/exporter-check.py "$RUN" $( [ $RECORD = 1 ] && echo --record-to "$ROOT/tests/exporter" )
rc=$?
set -e
step "done: $( [ $rc = 0 ] && echo passed || echo FAILED )"
exit $rc
