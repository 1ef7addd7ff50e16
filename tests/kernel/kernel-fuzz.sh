#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make kernel-fuzz: the netlink fuzzer (tests/kernel/choke-nlfuzz.c) against
# mainline sch_choke and our module in UML, under load, with UBSAN,
# kmemleak, lockdep and list debugging on (tests/kernel/guest-fuzz.sh).
#
#   tests/kernel/kernel-fuzz.sh [--count N] [--seed S]   default 100000, 1
#
# Prints the table docs/kernel.md records; exit 1 when our module
# disagrees with the model, a dump differs, or the kernel complains.
# Results: build/kernel/fuzz/.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel/fuzz
KDIR=$ROOT/build/kernel/linux-source-6.1
COUNT=100000 SEED=1
while [ $# -gt 0 ]; do
	case $1 in
	--count) COUNT=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	*) echo "kernel-fuzz: unknown argument $1" >&2; exit 2 ;;
	esac
done
mkdir -p "$OUT"
echo "kernel-fuzz: UML kernel (tests/kernel/build-uml.sh)"
sh tests/kernel/build-uml.sh "$KDIR" > "$OUT/build-uml.log" 2>&1 || { tail "$OUT/build-uml.log"; exit 1; }
echo "kernel-fuzz: modules (UBSAN) and the fuzzer"
sh tests/kernel/upstream-mods.sh "$KDIR" "$OUT/mainline" um 1 > /dev/null
rm -rf "$OUT/ours"
make -s -C kmod dkms-tree DESTDIR="$OUT/ours" > /dev/null
make -s -C "$KDIR" ARCH=um M="$OUT/ours/kmod" UBSAN_SANITIZE=y modules > "$OUT/ours.log" 2>&1 || { cat "$OUT/ours.log"; exit 1; }
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$OUT/choke-nlfuzz" tests/kernel/choke-nlfuzz.c
rm -rf "$OUT/run"
echo "kernel-fuzz: $COUNT requests per module, seed $SEED (1000-1500 requests/s here: a few minutes)"
sh tests/kernel/uml-boot.sh "$KDIR" "$OUT/run" $((COUNT / 50 + 600)) tests/kernel/guest-fuzz.sh \
	CHOKE_FUZZ="$OUT/choke-nlfuzz" CHOKE_FUZZ_COUNT="$COUNT" CHOKE_FUZZ_SEED="$SEED" \
	CHOKE_FUZZ_IMPLS="mainline=$OUT/mainline/unpatched/sch_choke.ko,ours=$OUT/ours/kmod/sch_libchoke.ko" || true
[ -f "$OUT/run/fuzz/done" ] || { echo "kernel-fuzz: the guest did not finish (see $OUT/run/)" >&2; exit 1; }
python3 tests/kernel/report.py fuzz "$OUT/run" | tee "$OUT/table.md"
