#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make eval-kernel-peers: protect in the kernel against the kernel's own
# schedulers (fq_codel, sfb, cake, pie, red, mainline choke) and our module
# plain, in User-Mode Linux: a 4 Mbit/s tbf, 8 TCP streams and 1 or 4 UDP
# floods of 8 Mbit/s in all (tests/kernel/guest-peers.sh). Not part of CI
# (about 25 minutes with the defaults); the table goes to stdout and to
# build/kernel/peers/table.md, for docs/results.md.
#
#   tests/kernel/eval-peers.sh [--repeats N] [--seconds S] [--only a,b,...]
#                              [--udp-len BYTES]
#
# --udp-len: the floods' datagram payload (default 1000; TCP's segments
# carry 1448, and the disciplines that count packets, choke and protect,
# hold a flood's packet rate, so its share in bytes scales with this).
#
# Runs on the bench kernel (tests/kernel/build-uml.sh --bench: the same
# options without the debugging ones, which would slow the guest's
# networking far more than any qdisc). Needs root (the guest's namespaces
# run as the host's root inside UML), gcc, make, python3, tc, ip, iperf3,
# linux-source-6.1.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/kernel
RUN=$OUT/peers
KDIR=$OUT/linux-bench-6.1
REPEATS=2
SECS=20
ONLY=
ULEN=1000
while [ $# -gt 0 ]; do
	case $1 in
	--repeats) REPEATS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--udp-len) ULEN=$2; shift 2 ;;
	*) echo "eval-peers: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $REPEATS$SECS$ULEN in *[!0-9]*|'') echo "eval-peers: --repeats, --seconds and --udp-len take whole numbers" >&2; exit 2 ;; esac
[ "$ULEN" -ge 100 ] && [ "$ULEN" -le 1472 ] || { echo "eval-peers: --udp-len must be 100 to 1472 bytes (one datagram per 1500-byte frame)" >&2; exit 2; }
case $ROOT in *[!A-Za-z0-9/._-]*) echo "eval-peers: the repository path must not contain spaces or special characters (it goes on the UML command line)" >&2; exit 2 ;; esac
for t in gcc make python3 tc ip iperf3 timeout; do
	command -v $t >/dev/null 2>&1 || { echo "eval-peers: missing $t" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "eval-peers: needs root (network namespaces in the guest)" >&2; exit 2; }

echo "eval-peers: the bench UML kernel (tests/kernel/build-uml.sh --bench; cached)"
tests/kernel/build-uml.sh --bench "$KDIR" >"$OUT/eval-peers-build.log" 2>&1 ||
	{ tail -20 "$OUT/eval-peers-build.log"; exit 1; }
echo "eval-peers: sch_libchoke.ko for it, and the tc plugin"
rm -rf "$OUT/mod-peers"
make -s -C kmod dkms-tree DESTDIR="$OUT/mod-peers"
make -s -C "$KDIR" ARCH=um M="$OUT/mod-peers/kmod" modules >>"$OUT/eval-peers-build.log" 2>&1 ||
	{ tail -20 "$OUT/eval-peers-build.log"; exit 1; }
make -s BUILD=build/peers build/peers/q_chokeplus.so
rm -rf "$RUN"; mkdir -p "$RUN"
n=$(( $(echo "${ONLY:-fq_codel,sfb,cake,pie,red,choke,libchoke,libchoke-protect}" | tr ',' '\n' | wc -l) * 2 * REPEATS ))
limit=$(( n * (SECS + 25) + 300 ))
echo "eval-peers: booting UML: $n runs of $SECS s (at most $limit s; guest log: $RUN/guest.log)"
set +e
sh tests/kernel/uml-boot.sh "$KDIR" "$RUN" $limit tests/kernel/guest-peers.sh \
	CHOKE_KMOD="$OUT/mod-peers/kmod/sch_libchoke.ko" CHOKE_TC_LIB="$ROOT/build/peers" \
	CHOKE_PEERS_SECONDS="$SECS" CHOKE_PEERS_REPEATS="$REPEATS" CHOKE_PEERS_UDP_LEN="$ULEN" \
	${ONLY:+CHOKE_PEERS_ONLY=$ONLY}
urc=$?
set -e
[ -f "$RUN/peers/runs.txt" ] || { echo "eval-peers: no results (UML exit $urc); see $RUN" >&2; exit 1; }
python3 - "$RUN/peers/runs.txt" "$SECS" "$REPEATS" "$ULEN" <<'PY' | tee "$RUN/table.md"
import sys
rows = {}
order = []
fails = []
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) < 4:
        continue
    label, k = w[0], w[1]
    if label not in order:
        order.append(label)
    if w[3] == "failed:":
        fails.append(line.strip())
        continue
    rows.setdefault((label, k), []).append([float(x) for x in w[3:6]])
names = {"fq_codel": "fq_codel", "sfb": "sfb", "cake": "cake (unlimited, under tbf)",
         "pie": "pie", "red": "red", "choke": "choke (mainline sch_choke)",
         "libchoke": "choke (sch_libchoke)", "libchoke-protect": "chokeplus ... protect (sch_libchoke)"}
def rng(xs, fmt):
    lo, hi = min(xs), max(xs)
    return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)
print("| discipline | 1 flood: share / fair (0.111) | Jain over TCP | utilisation "
      "| 4 floods: share / fair (0.333) | Jain over TCP | utilisation |")
print("|---|---|---|---|---|---|---|")
for label in order:
    cells = []
    for k in ("1", "4"):
        r = rows.get((label, k))
        if not r:
            cells += ["-", "-", "-"]
            continue
        fair = int(k) / (8 + int(k))
        cells += [rng([x[0] / fair for x in r], "%.2f"), rng([x[1] for x in r], "%.2f"),
                  rng([x[2] for x in r], "%.2f")]
    print("| %s | %s |" % (names.get(label, label), " | ".join(cells)))
print()
print("%s s of TCP per run, %s runs per cell (the range over them); the floods send "
      "%s-byte datagrams, TCP 1448-byte segments. The floods' "
      "share: their bytes over all bytes received while TCP ran; utilisation: what tbf "
      "sent then over 4 Mbit/s, by the guest kernel's clock (frames with their "
      "Ethernet headers)." % (sys.argv[2], sys.argv[3], sys.argv[4]))
for f in fails:
    print("failed run: %s" % f)
PY
