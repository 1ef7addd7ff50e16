#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Build mainline's net/sched/sch_choke.c as out-of-tree modules against a
# kernel tree, each named sch_choke.ko as the in-tree module (they load one
# at a time):
#
#   unpatched/  the tree's own text
#   patched/    + the net fix: upstream/linux/net/0001, or its backport
#               upstream/linux/net/6.1/0001, whichever applies with
#               patch -p1 --fuzz=0 (patched/fix names it)
#   net-next/   patched + upstream/linux/net-next/0001 (choke's digest at an
#               aligned offset) and 0002. 0002 changes
#               make_flow_keys_digest() in net/core/flow_dissector.c, the
#               kernel proper; to load it into a running kernel the
#               function is lifted out of the tree's flow_dissector.c as
#               the patch leaves it (with its key and the struct it fills)
#               and compiled into the module in place of the kernel's
#   selftest/   the selftest of upstream/linux/net/0002 (sch_choke.sh) as
#               that patch creates it, beside tests/kernel/selftest-lib.sh
#               as its lib.sh: the guest runs it from there
#   selftest-next/  the same after upstream/linux/net-next/0003 (its IPv6
#               case added)
#   redissect/  with ALT=1 only: patched + the alternative IPv6 fix that
#               upstream/linux/net-next/alternative/ keeps for the cost
#               comparison (a second dissection on equal digests)
#
#   tests/kernel/upstream-mods.sh KDIR OUTDIR [ARCH [UBSAN [BUILD_KDIR]]]
#
# The texts come from KDIR; the modules build against BUILD_KDIR (default
# KDIR; e.g. Debian's headers). ARCH is passed to kbuild (um for the UML
# tree); UBSAN=1 instruments the modules with the tree's UBSAN
# (UBSAN_SANITIZE=y). Prints the paths of the modules.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
KDIR=$1 OUT=$2 ARCH=${3:-} UBSAN=${4:-0} BKDIR=${5:-$1}
UP=$ROOT/upstream/linux
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
for f in net/sched/sch_choke.c net/core/flow_dissector.c include/net/flow_dissector.h; do
	[ -f "$KDIR/$f" ] || { echo "upstream-mods: no $f in $KDIR" >&2; exit 1; }
done
die() { echo "upstream-mods: $*" >&2; exit 1; }
one() { # PATTERN: the one file that matches
	set -- $1
	[ $# = 1 ] && [ -f "$1" ] || die "expected one file, found: $*"
	echo "$1"
}
NEXT1=$(one "$UP/net-next/0001-*.patch")
NEXT=$(one "$UP/net-next/0002-*.patch")
ALTP=$(one "$UP/net-next/alternative/*.patch")

# apply DIR PATCH: patch -p1 --fuzz=0 in DIR
apply() {
	(cd "$1" && patch -p1 --fuzz=0 --quiet --no-backup-if-mismatch < "$2") >/dev/null 2>&1
}

# The make_flow_keys_digest() of a patched flow_dissector.c, as a header
# that replaces the kernel's for the module that includes it first.
lift() { # PATCHED_FLOW_DISSECTOR_C HEADER
	python3 - "$1" "$2" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
def take(start, end):
    i = src.index(start)
    return src[i:src.index(end, i) + len(end)]
parts = [
    take("static siphash_aligned_key_t hashrnd;", "\n"),
    take("static __always_inline void __flow_hash_secret_init(void)", "\n}\n"),
    take("struct _flow_keys_digest_data {", "\n};\n"),
    take("void make_flow_keys_digest(", "\n}\n"),
]
fn = parts[3].replace("void make_flow_keys_digest(", "static void lifted_make_flow_keys_digest(", 1)
out = ["/* make_flow_keys_digest() of %s, lifted by upstream-mods.sh */" % sys.argv[1],
       "#include <linux/net.h>", "#include <linux/siphash.h>", "#include <net/flow_dissector.h>",
       parts[0], parts[1], parts[2], fn,
       "#define make_flow_keys_digest lifted_make_flow_keys_digest", ""]
open(sys.argv[2], "w").write("\n".join(out))
EOF
}

ST=$(one "$UP/net/0002-*.patch")
rm -rf "$OUT/selftest"; mkdir -p "$OUT/selftest"
# the file the patch creates: its one hunk, every line added
awk '/^\+\+\+ b\/tools\/testing\/selftests\/net\/sch_choke\.sh$/ { on = 1; next }
	on && /^@@/ { next }
	on && /^\+/ { print substr($0, 2); n++; next }
	on { exit }
	END { if (!n) exit 1 }' "$ST" > "$OUT/selftest/sch_choke.sh" ||
	die "$(basename "$ST") does not create tools/testing/selftests/net/sch_choke.sh"
chmod +x "$OUT/selftest/sch_choke.sh"
cp "$ROOT/tests/kernel/selftest-lib.sh" "$OUT/selftest/lib.sh"
echo "$OUT/selftest/sch_choke.sh"
# and as net-next's selftest patch extends it (the IPv6 case)
STN=$(one "$UP/net-next/0003-*.patch")
rm -rf "$OUT/selftest-next"; mkdir -p "$OUT/selftest-next/t/tools/testing/selftests/net"
cp "$OUT/selftest/sch_choke.sh" "$OUT/selftest-next/t/tools/testing/selftests/net/"
apply "$OUT/selftest-next/t" "$STN" || die "$(basename "$STN") does not apply to net/0002's selftest"
mv "$OUT/selftest-next/t/tools/testing/selftests/net/sch_choke.sh" "$OUT/selftest-next/"
rm -rf "$OUT/selftest-next/t"
chmod +x "$OUT/selftest-next/sch_choke.sh"
cp "$ROOT/tests/kernel/selftest-lib.sh" "$OUT/selftest-next/lib.sh"
echo "$OUT/selftest-next/sch_choke.sh"

variants="unpatched patched net-next"
[ "${ALT:-0}" = 1 ] && variants="$variants redissect"
for v in $variants; do
	d=$OUT/$v
	rm -rf "$d"
	mkdir -p "$d/tree/net/sched" "$d/tree/net/core"
	cp "$KDIR/net/sched/sch_choke.c" "$d/tree/net/sched/"
	echo 'obj-m := sch_choke.o' > "$d/Kbuild"
	if [ $v != unpatched ]; then
		fix=
		for p in "$UP"/net/0001-*.patch "$UP"/net/6.1/0001-*.patch; do
			[ -f "$p" ] || continue
			if apply "$d/tree" "$p"; then fix=$p; break; fi
		done
		[ -n "$fix" ] || die "neither net/0001 nor its backport applies to $KDIR"
		echo "${fix#$ROOT/}" > "$d/fix"
	fi
	case $v in
	net-next)
		mkdir -p "$d/tree/include/net"
		cp "$KDIR/net/core/flow_dissector.c" "$d/tree/net/core/"
		cp "$KDIR/include/net/flow_dissector.h" "$d/tree/include/net/"
		apply "$d/tree" "$NEXT1" || die "$(basename "$NEXT1") does not apply to $KDIR"
		apply "$d/tree" "$NEXT" || die "$(basename "$NEXT") does not apply to $KDIR"
		lift "$d/tree/net/core/flow_dissector.c" "$d/lifted_digest.h"
		echo 'ccflags-y := -include $(src)/lifted_digest.h' >> "$d/Kbuild"
		;;
	redissect)
		apply "$d/tree" "$ALTP" || die "$(basename "$ALTP") does not apply over the fix to $KDIR"
		;;
	esac
	cp "$d/tree/net/sched/sch_choke.c" "$d/"
	make -s -C "$BKDIR" ${ARCH:+ARCH=$ARCH} M="$d" \
		$( [ "$UBSAN" = 1 ] && echo UBSAN_SANITIZE=y ) modules >"$d/build.log" 2>&1 ||
		{ cat "$d/build.log" >&2; die "$v sch_choke.ko does not build against $BKDIR"; }
	echo "$d/sch_choke.ko"
done
