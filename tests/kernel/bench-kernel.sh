#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make bench-kernel: the per-packet cost of our module against mainline
# sch_choke, unpatched and patched, and pfifo, in the same UML kernel and
# the same run (tests/kernel/guest-bench.sh has the method). Prints the
# table docs/kernel.md records, with ratios to mainline taken round by
# round.
#
#   tests/kernel/bench-kernel.sh [--rounds N] [--seconds S] [--before REV]
#                                [--extra NAME=PATH.ko]... [--states "short standing standing4"]
#
# --before REV also measures our module as it was at git revision REV
# (e.g. the commit before a change), as "ours@REV"; --extra NAME=PATH.ko
# (repeatable) any other choke module built against build/kernel/linux-bench-6.1.
# Needs what check-kernel needs (linux-source-6.1, gcc, make, python3);
# builds its own UML kernel, without the debugging options of check-kernel's
# (tests/kernel/build-uml.sh --bench), if it is not cached. Results:
# build/kernel/bench/.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel/bench
KDIR=$ROOT/build/kernel/linux-bench-6.1
ROUNDS=6 SECS=2 BEFORE= EXTRA= STATES="short standing standing4"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--before) BEFORE=$2; shift 2 ;;
	--extra) EXTRA="$EXTRA $2"; shift 2 ;;
	--states) STATES=$2; shift 2 ;;
	*) echo "bench-kernel: unknown argument $1" >&2; exit 2 ;;
	esac
done
mkdir -p "$OUT"
echo "bench-kernel: UML kernel without debugging options (tests/kernel/build-uml.sh --bench; 7-10 minutes cold)"
sh tests/kernel/build-uml.sh --bench "$KDIR" > "$OUT/build-uml.log" 2>&1 || { tail "$OUT/build-uml.log"; exit 1; }

# Modules without UBSAN: what is measured is the code, not the checks.
echo "bench-kernel: modules"
sh tests/kernel/upstream-mods.sh "$KDIR" "$OUT/mainline" um 0 > /dev/null
rm -rf "$OUT/ours"
make -s -C kmod dkms-tree DESTDIR="$OUT/ours" > /dev/null
make -s -C "$KDIR" ARCH=um M="$OUT/ours/kmod" modules > "$OUT/ours.log" 2>&1 || { cat "$OUT/ours.log"; exit 1; }
IMPLS="mainline=$OUT/mainline/unpatched/sch_choke.ko patched=$OUT/mainline/patched/sch_choke.ko ours=$OUT/ours/kmod/sch_libchoke.ko"
if [ -n "$BEFORE" ]; then
	rev=$(git rev-parse --short "$BEFORE")
	b=$OUT/ours-$rev
	rm -rf "$b"; mkdir -p "$b/kmod" "$b/src/core" "$b/include/choke"
	for f in kmod/Kbuild kmod/qdisc.c kmod/core.c src/core/choke.c src/core/red.h include/choke/core.h; do
		git show "$rev:$f" > "$b/$f"
	done
	# (newer Kbuilds read the version from the top's VERSION)
	git show "$rev:VERSION" > "$b/VERSION" 2>/dev/null || rm -f "$b/VERSION"
	make -s -C "$KDIR" ARCH=um M="$b/kmod" modules > "$b.log" 2>&1 || { cat "$b.log"; exit 1; }
	IMPLS="$IMPLS ours@$rev=$b/kmod/sch_libchoke.ko"
fi
IMPLS="$IMPLS$EXTRA"
n_impls=$(echo "$IMPLS" | wc -w)

runs=$((ROUNDS * $(echo $STATES | wc -w) * (2 * n_impls + 1)))
echo "bench-kernel: UML, $ROUNDS rounds, $runs runs of ${SECS}s (about $((runs * (SECS + 5) / 60 + 1)) minutes)"
# UML and, beside it, the sampler of its CPU time (bench-sampler.py)
rm -rf "$OUT/run"; mkdir -p "$OUT/run"; : > "$OUT/run/marks"
sh tests/kernel/uml-boot.sh "$KDIR" "$OUT/run" $((runs * (SECS + 15) + 300)) tests/kernel/guest-bench.sh \
	CHOKE_BENCH_IMPLS="$(echo "$IMPLS" | tr ' ' ',')" CHOKE_BENCH_ROUNDS="$ROUNDS" CHOKE_BENCH_SECONDS="$SECS" \
	CHOKE_BENCH_STATES="$(echo $STATES | tr ' ' ',')" &
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
rc=0
if ! grep -q '^done' "$OUT/run/bench.txt" 2>/dev/null; then
	echo "bench-kernel: the guest did not finish (see $OUT/run/): the table below has the runs it completed" >&2
	rc=1
fi
python3 tests/kernel/report.py bench "$OUT/run/bench.txt" "$OUT/run/cpu.txt" | tee "$OUT/table.md"
exit $rc
