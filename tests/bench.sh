#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# choke-bench, quickly: every discipline reported with its ratios, the flow
# key and replay rows, the usage, and `choke` no longer carrying the
# benchmarks. Usage: BENCH=build/gcc/choke-bench CHOKE=build/gcc/choke sh tests/bench.sh
set -u
BENCH=${BENCH:-build/gcc/choke-bench}
CHOKE=${CHOKE:-build/gcc/choke}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   bench/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL bench/$1: $2"; }
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	echo $?
}

# 1. the core: every discipline reported, with ratios
st=$(run "$BENCH" --quick --json)
python3 - "$tmp/out" <<'PY' >"$tmp/py" 2>&1
import json, sys
rows = json.load(open(sys.argv[1]))
kinds = {r["discipline"] for r in rows}
assert {"fifo", "red", "choke"} <= kinds, kinds
for r in rows:
    assert "queue" in r and "flows" in r, r
    if r.get("available", True) is False:
        assert r["discipline"] in ("dpdk_red", "dpdk_red_burst"), r   # only the peers may be missing
        continue
    assert r["ns_per_pkt"] > 0 and r["ratio_to_fifo"] > 0, r
    if r["discipline"] == "fifo":
        assert abs(r["ratio_to_fifo"] - 1) < 1e-9
    if r["discipline"] == "choke_protect":
        assert r["ratio_to_choke"] > 0 and 0 <= r["protect_drop_frac"] < 1, r
assert "choke_protect" in kinds, kinds
# the burst path's rows, CHOKe's with its ratio to single-packet CHOKe
assert {"fifo_burst", "red_burst", "choke_burst", "choke_batch"} <= kinds, kinds
for r in rows:
    if r["discipline"] in ("choke_burst", "choke_batch"):
        assert r["ratio_to_choke"] > 0 and 0 < r["match_frac"] < 1, r
print("%d rows, %s" % (len(rows), ",".join(sorted(kinds))))
PY
py=$?
if [ "$st" = 0 ] && [ $py = 0 ]; then ok "core-json: $(cat "$tmp/py")"
else bad core-json "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 2. pkt: the three frames against their floor, the replay against libpcap
st=$(run "$BENCH" pkt --quick --json)
python3 - "$tmp/out" <<'PY' >"$tmp/py" 2>&1
import json, sys
rows = json.load(open(sys.argv[1]))
keys = [r for r in rows if r["bench"] == "flow_key"]
rep = [r for r in rows if r["bench"] == "replay"]
goals = [r for r in rows if r["bench"] == "goals"]
assert len(keys) == 4 and len(rep) == 1 and len(goals) == 1, rows
assert all(r["ns_per_frame"] > 0 and r["ratio_to_floor"] > 0 for r in keys), keys
assert rep[0]["packets"] == 100000 and rep[0]["mpps"] > 0, rep
g = goals[0]
assert g["key_ns_worst"] == max(r["ns_per_frame"] for r in keys[:3]), g
assert g["key_met"] == (g["key_ns_worst"] <= g["key_ns_goal"] == 10), g
assert g["replay_met"] == (g["replay_mpps"] >= g["replay_mpps_goal"] == 10), g
print("%d rows" % len(rows))
PY
py=$?
if [ "$st" = 0 ] && [ $py = 0 ]; then ok "pkt-json: $(cat "$tmp/py")"
else bad pkt-json "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 3. usage: --help on stdout with status 0, a bad option status 2
st=$(run "$BENCH" --help)
if [ "$st" = 0 ] && grep -q "usage: choke-bench" "$tmp/out"; then ok help; else bad help "status $st"; fi
st=$(run "$BENCH" pkt -h)
if [ "$st" = 0 ] && grep -q "usage: choke-bench pkt" "$tmp/out"; then ok pkt-help; else bad pkt-help "status $st"; fi
st=$(run "$BENCH" --frob)
if [ "$st" = 2 ] && grep -q -- "--frob" "$tmp/err"; then ok bad-option; else bad bad-option "status $st"; fi
st=$(run "$BENCH" pkt --frob)
if [ "$st" = 2 ] && grep -q -- "--frob" "$tmp/err"; then ok pkt-bad-option; else bad pkt-bad-option "status $st"; fi
# a list of rows longer than the parser's buffer is refused, not cut short
# (it once ran the rows that fitted and dropped the rest unsaid)
long=choke,dpdk_red,choke_burst,dpdk_red_burst,fifo,fifo_burst,choke_batch,red,red_burst,choke_protect
long=$long,$long,$long
st=$(run "$BENCH" --quick --only "$long")
if [ "$st" = 2 ] && grep -q -- "--only" "$tmp/err"; then ok only-too-long; else bad only-too-long "status $st"; fi

# 4. the burst path's verdict against rte_red on the same floor (issue 24):
# the summary's MET / NOT MET agrees with the ratios in the JSON
# (choke_burst's, and batched CHOKe's)
st=$(run "$BENCH" --quick --queue 1000 --flows 1 --only choke_burst,dpdk_red_burst,choke_batch --json)
python3 - "$tmp/out" "$tmp/err" <<'PY' >"$tmp/py" 2>&1
import json, re, sys
rows = json.load(open(sys.argv[1]))
summary = open(sys.argv[2]).read()
peer = [r for r in rows if r["discipline"] == "dpdk_red_burst"]
assert len(peer) == 1, rows
said = []
for disc in ("choke_burst", "choke_batch"):
    cb = [r for r in rows if r["discipline"] == disc]
    assert len(cb) == 1, rows
    if peer[0]["available"] is False:
        assert disc + " <= 1.25x dpdk_red_burst: not evaluated (built without DPDK)" in summary, summary
        said.append(disc + " not evaluated (built without DPDK)")
        continue
    ratio = cb[0]["ratio_to_dpdk_red_burst"]
    m = re.search(disc + r" <= 1\.25x dpdk_red_burst: (MET|NOT MET), "
                  r"<= 1\.0x \(goal\): (MET|NOT MET) \(([0-9.]+)x at 1 flow\)", summary)
    assert m, summary
    assert (m.group(1) == "MET") == (ratio <= 1.25), (ratio, m.group(0))
    assert (m.group(2) == "MET") == (ratio <= 1.0), (ratio, m.group(0))
    assert abs(float(m.group(3)) - ratio) < 0.006, (ratio, m.group(0))
    said.append("%s %.2fx: %s" % (disc, ratio, m.group(1)))
print(", ".join(said))
PY
py=$?
if [ "$st" = 0 ] && [ $py = 0 ]; then ok "burst-peer-verdict: $(cat "$tmp/py")"
else bad burst-peer-verdict "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 5. the benchmarks live here only: `choke bench` is an unknown command
st=$(run "$CHOKE" bench --quick)
if [ "$st" = 2 ] && grep -q 'unknown command "bench"' "$tmp/err"; then ok not-in-choke
else bad not-in-choke "choke bench: status $st"; fi

# tests/bridge-protect.sh's table (make eval-bridge) refuses a bad rate or
# repeat count before it sets anything up: exit 2 and the reason, nothing
# on standard output
for bad_args in "BRIDGE_RATE_MBIT=x --table 1" "BRIDGE_RATE_MBIT=0 --table 1" \
	"BRIDGE_RATE_MBIT=1001 --table 1" "BRIDGE_RATE_MBIT=20 --table 0" "BRIDGE_RATE_MBIT=20 --table x"; do
	set -- $bad_args
	st=0
	env "$1" sh "$(dirname "$0")/bridge-protect.sh" "$2" "$3" >"$tmp/out" 2>"$tmp/err" || st=$?
	if [ $st = 2 ] && grep -q '^bridge-protect: .*\(BRIDGE_RATE_MBIT\|REPEATS\)' "$tmp/err" &&
		[ ! -s "$tmp/out" ]; then ok "bridge-protect-refuses $bad_args"
	else bad "bridge-protect-refuses $bad_args" "status $st: $(cat "$tmp/err")"; fi
done

# bench/ir_path.c (bench/ir-path.sh counts its instructions): builds
# against this build's library and passes every packet of a short queue
# (nothing queues), refuses bad words and a bad count
lib=$(dirname "$BENCH")/libchoke.a
src=$(dirname "$0")/../bench/ir_path.c
inc=$(dirname "$0")/../include
if ${CC:-cc} -std=gnu11 -O2 -I"$inc" -o "$tmp/ir_path" "$src" "$lib" -lm 2>"$tmp/err" ||
	${CC:-cc} -std=gnu11 -O2 -fsanitize=address,undefined -I"$inc" -o "$tmp/ir_path" "$src" "$lib" -lm 2>"$tmp/err"; then
	for w in "limit 1000 protect target 5ms sparse bandwidth 10gbit" \
		"limit 1000 min 100 max 300 avpkt 100 burst 200 bandwidth 10gbit probability 0.02 protect"; do
		st=$(run "$tmp/ir_path" "$w" 5000)
		if [ "$st" = 0 ] && [ "$(cat "$tmp/out")" = "5000 of 5000 sent" ]; then ok "ir-path $w"
		else bad "ir-path $w" "status $st: $(cat "$tmp/out" "$tmp/err")"; fi
	done
	for args in "limit 1000 frobnicate|10" "limit 1000|0" "limit 1000|x" "limit 1000|10x" \
		"$(printf 'limit 1000%.0s ' $(seq 40))|10"; do
		st=$(run "$tmp/ir_path" "${args%|*}" "${args#*|}")
		if [ "$st" = 2 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ]; then ok "ir-path-refuses $args"
		else bad "ir-path-refuses $args" "status $st: $(cat "$tmp/out" "$tmp/err")"; fi
	done
else
	bad ir-path-builds "$(tail -3 "$tmp/err")"
fi

echo "bench: $n tests, $fails failed"
[ $fails = 0 ]
