#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Instructions per packet of the core's path at a short queue, by function:
# bench/ir_path.c built against build/libchoke.a (make all first), run
# under callgrind for 200000 and 1200000 packets; the difference over a
# million packets leaves the setup out. Each WORDS is one configuration
# (the library's words). Needs valgrind and python3.
#
#   sh bench/ir-path.sh ['WORDS'...]
#
# CHOKE_IR_DEFER=1: the arrivals' times deferred where the core allows it,
# as the kernel module passes them (CHOKE_TIME_DEFERRED, `target` only).
# Default: the short words of the kernel benchmark (chokeplus-short),
# protect under RED's thresholds (chokeplus-protect) and plain CHOKe with
# the same thresholds (choke). docs/performance.md has the figures.
set -eu
cd "$(dirname "$0")/.."
LIB=${CHOKE_LIB:-build/libchoke.a}
[ -f "$LIB" ] || { echo "ir-path: no $LIB (make all first)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "ir-path: needs valgrind" >&2; exit 2; }
CW="limit 1000 min 100 max 300 avpkt 100 burst 200 bandwidth 10gbit probability 0.02"
[ $# -gt 0 ] || set -- "limit 1000 protect target 5ms sparse bandwidth 10gbit" "$CW protect" "$CW"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -std=gnu11 -O2 -Iinclude -o "$tmp/ir_path" bench/ir_path.c "$LIB" -lm
for w in "$@"; do
	for n in 200000 1200000; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$tmp/ir_path" "$w" $n \
			${CHOKE_IR_DEFER:+defer} \
			>"$tmp/out.$n" 2>"$tmp/err.$n" || { cat "$tmp/err.$n" >&2; exit 1; }
		callgrind_annotate --inclusive=no "$tmp/cg.$n" >"$tmp/ann.$n" 2>/dev/null
	done
	python3 - "$w" "$tmp/ann.200000" "$tmp/ann.1200000" <<'PY'
import re, sys
def parse(path):
    fns, total = {}, 0
    for line in open(path):
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S+)", line)
        if not m:
            continue
        v = int(m.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = v
        elif ":" in m.group(2):
            name = m.group(2).rsplit(":", 1)[1]
            fns[name] = fns.get(name, 0) + v
    return fns, total
a, ta = parse(sys.argv[2])
b, tb = parse(sys.argv[3])
print("%s: %.1f instructions per packet" % (sys.argv[1], (tb - ta) / 1e6))
top = sorted(b, key=lambda k: -(b[k] - a.get(k, 0)))
print("  " + ", ".join("%s %.1f" % (k, (b[k] - a.get(k, 0)) / 1e6) for k in top[:8]
                       if (b[k] - a.get(k, 0)) / 1e6 >= 1))
PY
done
