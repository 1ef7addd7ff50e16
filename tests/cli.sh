#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# End-to-end tests of the `choke` command: output, JSON, errors, exit codes.
# Usage: CHOKE=build/gcc/choke sh tests/cli.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
VEC=tests/vectors/params.vec
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0

ok() { n=$((n + 1)); echo "ok   cli/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL cli/$1: $2"; }

# run CMD...: stdout to $tmp/out, stderr to $tmp/err; prints the exit status
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	echo $?
}

# 1. the human line, as tc prints it
st=$(run "$CHOKE" params limit 1000 min 100 max 300 avpkt 1000 burst 200 bandwidth 10Mbit probability 0.02)
if [ "$st" = 0 ] && [ "$(cat "$tmp/out")" = "limit 1000p min 100p max 300p ewma 7 probability 0.02 Scell_log 17" ]; then
	ok params-human-line
else
	bad params-human-line "status $st: $(cat "$tmp/out" "$tmp/err")"
fi

# 2. --json agrees with stock tc (numbers and the 256 table bytes) on
#    vector-file cases, through the command itself
python3 - "$CHOKE" "$VEC" <<'PY' >"$tmp/py" 2>&1
import json, subprocess, sys
choke, vec = sys.argv[1], sys.argv[2]
cases = [l.rstrip("\n").split("|") for l in open(vec) if l.startswith(("ok|", "err|"))]
checked = 0
for i, c in enumerate(cases):
    if i % 9:          # every 9th case keeps this quick; the C tests read all
        continue
    words = c[1].split(" ") if c[1] else []
    r = subprocess.run([choke, "params", "--json", "--strict"] + words,
                       capture_output=True, text=True)
    if c[0] == "err":
        if r.returncode != 1 or not r.stderr.strip():
            sys.exit("tc refuses %r; choke exit %d %r" % (c[1], r.returncode, r.stderr))
        checked += 1
        continue
    lim, qmin, qmax, wlog, plog, scell, flags, maxp = map(int, c[2].split())
    kernel_ok = (qmin.bit_length() + wlog < 32 and qmax.bit_length() + wlog < 32
                 and lim <= 131071)
    if not kernel_ok:
        if r.returncode != 1 or "kernel" not in r.stderr:
            sys.exit("kernel would refuse %r; choke exit %d" % (c[1], r.returncode))
        checked += 1
        continue
    if r.returncode != 0:
        sys.exit("tc accepts %r; choke: %s" % (c[1], r.stderr))
    j = json.loads(r.stdout)
    got = [j[k] for k in ("limit", "qth_min", "qth_max", "Wlog", "Plog", "Scell_log", "flags", "max_P")]
    if got != [lim, qmin, qmax, wlog, plog, scell, flags, maxp]:
        sys.exit("%r: tc %s, choke %s" % (c[1], c[2], got))
    if bytes(j["stab"]).hex() != c[3]:
        sys.exit("%r: stab differs" % c[1])
    checked += 1
print(checked)
PY
py=$?
if [ $py = 0 ]; then ok "params-json-matches-tc ($(cat "$tmp/py") cases)"; else bad params-json-matches-tc "$(cat "$tmp/py")"; fi

# 3. invalid input: a message naming the problem, exit status 1
st=$(run "$CHOKE" params limit 1000)
if [ "$st" = 1 ] && grep -q bandwidth "$tmp/err" && [ ! -s "$tmp/out" ]; then ok params-missing-bandwidth
else bad params-missing-bandwidth "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params limit 1000 bandwidth 10mbit min 300 max 200)
if [ "$st" = 1 ] && grep -q '"min" is not smaller' "$tmp/err"; then ok params-min-not-below-max
else bad params-min-not-below-max "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params limit 200000 bandwidth 10mbit)
if [ "$st" = 1 ] && grep -q 131071 "$tmp/err"; then ok params-kernel-limit-cap
else bad params-kernel-limit-cap "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params --strict limit 1000 bandwidth 10mbit harddrop)
if [ "$st" = 1 ] && grep -q harddrop "$tmp/err"; then ok params-strict-refuses-harddrop
else bad params-strict-refuses-harddrop "status $st"; fi
st=$(run "$CHOKE" params limit 300 min 25 max 50 bandwidth 1mbit protect 16)
if [ "$st" = 0 ] && grep -q 'max 50p protect 16 ewma' "$tmp/out"; then ok params-protect
else bad params-protect "status $st $(cat "$tmp/out" "$tmp/err")"; fi
st=$(run "$CHOKE" params --json limit 300 min 25 max 50 bandwidth 1mbit protect 32 geometric 4)
if [ "$st" = 0 ] && python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
assert d["protect"] == 32 and d["variant"] == "geometric" and d["draws"] == 4, d' "$tmp/out"
then ok params-json-protect; else bad params-json-protect "status $st $(cat "$tmp/out" "$tmp/err")"; fi
st=$(run "$CHOKE" params --json red limit 300 bandwidth 10% --link-mbit 100 adaptive nodrop ecn)
if [ "$st" = 0 ] && python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
assert d["flags"] == 13 and d["variant"] == "none", d
assert d["words"] == "red limit 300 min 25 max 75 burst 41 avpkt 1000 bandwidth 1250000Bps probability 0.02 ecn adaptive nodrop", d["words"]' "$tmp/out" &&
	"$CHOKE" params --json $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["words"])' "$tmp/out") >"$tmp/out2" 2>/dev/null &&
	python3 -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); assert a == b, (a, b)' "$tmp/out" "$tmp/out2"
then ok params-json-words-round-trip; else bad params-json-words-round-trip "status $st $(cat "$tmp/out" "$tmp/err")"; fi
st=$(run "$CHOKE" params --json limit 300 bandwidth 1mbit)
if [ "$st" = 0 ] && python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
assert d["protect"] == 0 and d["variant"] == "none", d' "$tmp/out"
then ok params-json-protect-off; else bad params-json-protect-off "status $st $(cat "$tmp/out" "$tmp/err")"; fi
st=$(run "$CHOKE" params limit 300 bandwidth 1mbit protect 6)
if [ "$st" = 1 ] && grep -q '8 to 256' "$tmp/err"; then ok params-protect-range
else bad params-protect-range "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params limit 1000 bandwidth 10mbit harddrop ecn)
if [ "$st" = 0 ] && grep -q 'ecn harddrop' "$tmp/out"; then ok params-harddrop
else bad params-harddrop "status $st $(cat "$tmp/out" "$tmp/err")"; fi
st=$(run "$CHOKE" params limit 1000 bandwidth 100gbit)
if [ "$st" = 0 ] && grep -q "32-bit" "$tmp/err"; then ok params-wide-bandwidth-warns
else bad params-wide-bandwidth-warns "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params limit 1000 bandwidth 10mbit probability 1)
if [ "$st" = 0 ] && grep -q "warning: probability 1" "$tmp/err"; then ok params-probability-warning
else bad params-probability-warning "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params --link-mbit 1000 limit 1000 bandwidth 10%)
"$CHOKE" params limit 1000 bandwidth 100mbit >"$tmp/ref" 2>/dev/null
if [ "$st" = 0 ] && cmp -s "$tmp/out" "$tmp/ref"; then ok params-percent-of-link
else bad params-percent-of-link "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" params --dev no-such-if0 limit 1000 bandwidth 10%)
if [ "$st" = 1 ] && grep -q "no-such-if0" "$tmp/err"; then ok params-missing-interface
else bad params-missing-interface "status $st"; fi
st=$(run "$CHOKE" params fifo limit 64)
if [ "$st" = 0 ] && [ "$(cat "$tmp/out")" = "limit 64p" ]; then ok params-fifo
else bad params-fifo "status $st $(cat "$tmp/out")"; fi

# 4. the open-loop demo (choke demo --open-loop; plain `choke demo` is the
#    simulator's comparison, tested in tests/sim.sh): CHOKe protects the
#    light flows; same seed, same output
st=$(run "$CHOKE" demo --open-loop --seconds 12 --json)
cp "$tmp/out" "$tmp/demo1"
python3 - "$tmp/demo1" <<'PY' >"$tmp/py" 2>&1
import json, sys
d = {x["discipline"]: x for x in json.load(open(sys.argv[1]))["disciplines"]}
light_loss = {k: sum(f["offered_pkts"] - f["delivered_pkts"] for f in v["flows"][1:]) /
                 sum(f["offered_pkts"] for f in v["flows"][1:]) for k, v in d.items()}
assert d["fifo"]["heavy_share"] > 0.85, d["fifo"]["heavy_share"]
assert d["choke"]["heavy_share"] < d["fifo"]["heavy_share"] - 0.2, d["choke"]["heavy_share"]
assert light_loss["choke"] < 0.1 < 0.5 < light_loss["fifo"], light_loss
assert d["choke"]["drops"]["matched"] > 0 and d["fifo"]["drops"]["matched"] == 0
assert all(v["utilization"] > 0.95 for v in d.values())
print("heavy share fifo %.3f red %.3f choke %.3f; light loss fifo %.3f choke %.3f" % (
    d["fifo"]["heavy_share"], d["red"]["heavy_share"], d["choke"]["heavy_share"],
    light_loss["fifo"], light_loss["choke"]))
PY
py=$?
if [ "$st" = 0 ] && [ $py = 0 ]; then ok "demo-choke-protects-light-flows: $(cat "$tmp/py")"
else bad demo-choke-protects-light-flows "status $st $(cat "$tmp/py" "$tmp/err")"; fi
"$CHOKE" demo --open-loop --seconds 12 --json >"$tmp/demo2" 2>&1
if cmp -s "$tmp/demo1" "$tmp/demo2"; then ok demo-deterministic; else bad demo-deterministic "outputs differ"; fi
st=$(run "$CHOKE" demo --open-loop)
if [ "$st" = 0 ] && grep -q "heavy flow's link share" "$tmp/out"; then ok demo-table
else bad demo-table "status $st"; fi
st=$(run "$CHOKE" demo --open-loop --seconds x)
if [ "$st" = 2 ] && grep -q -- '--seconds needs a number from 2 to 3600, not "x"' "$tmp/err"; then
	ok demo-bad-argument
else bad demo-bad-argument "status $st"; fi

# 6. usage errors
st=$(run "$CHOKE" frobnicate)
if [ "$st" = 2 ] && grep -q frobnicate "$tmp/err"; then ok unknown-command; else bad unknown-command "status $st"; fi
st=$(run "$CHOKE")
if [ "$st" = 2 ]; then ok no-command; else bad no-command "status $st"; fi
st=$(run "$CHOKE" params --bogus limit 1)
if [ "$st" = 2 ] && grep -q -- --bogus "$tmp/err"; then ok params-unknown-option; else bad params-unknown-option "status $st"; fi

echo "cli: $n tests, $fails failed"
[ $fails = 0 ]
