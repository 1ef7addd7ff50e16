#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Build mainline's net/sched/sch_choke.c as out-of-tree modules against a
# kernel tree: "unpatched" (the tree's own text) and "patched" (the same with
# upstream/linux/0*.patch applied by patch -p1, no fuzz). Both are named
# sch_choke.ko, as the in-tree module, so they load one at a time.
#
#   tests/kernel/upstream-mods.sh KDIR OUTDIR [ARCH [UBSAN [BUILD_KDIR]]]
#
# The text comes from KDIR; the modules build against BUILD_KDIR (default
# KDIR; e.g. Debian's headers). ARCH is passed to kbuild (um for the UML
# tree); UBSAN=1 instruments the modules with the tree's UBSAN
# (UBSAN_SANITIZE=y). Prints the two paths.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
KDIR=$1 OUT=$2 ARCH=${3:-} UBSAN=${4:-0} BKDIR=${5:-$1}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
[ -f "$KDIR/net/sched/sch_choke.c" ] || { echo "upstream-mods: no net/sched/sch_choke.c in $KDIR" >&2; exit 1; }
set --
for p in "$ROOT"/upstream/linux/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	[ -f "$p" ] && set -- "$@" "$p"
done
[ $# -gt 0 ] || { echo "upstream-mods: no patches in upstream/linux" >&2; exit 1; }

for v in unpatched patched; do
	d=$OUT/$v
	rm -rf "$d"
	mkdir -p "$d/tree/net/sched"
	cp "$KDIR/net/sched/sch_choke.c" "$d/tree/net/sched/"
	if [ $v = patched ]; then
		for p in "$@"; do
			(cd "$d/tree" && patch -p1 --fuzz=0 --quiet --no-backup-if-mismatch < "$p") ||
				{ echo "upstream-mods: $(basename "$p") does not apply to $KDIR" >&2; exit 1; }
		done
	fi
	cp "$d/tree/net/sched/sch_choke.c" "$d/"
	echo 'obj-m := sch_choke.o' > "$d/Kbuild"
	make -s -C "$BKDIR" ${ARCH:+ARCH=$ARCH} M="$d" \
		$( [ "$UBSAN" = 1 ] && echo UBSAN_SANITIZE=y ) modules >"$d/build.log" 2>&1 ||
		{ cat "$d/build.log" >&2; echo "upstream-mods: $v sch_choke.ko does not build against $BKDIR" >&2; exit 1; }
	echo "$d/sch_choke.ko"
done
