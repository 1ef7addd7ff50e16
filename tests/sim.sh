#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# End-to-end tests of `choke sim` and `choke demo`: determinism, TCP-only
# fairness, CHOKe bounding UDP against FIFO, JSON and CSV, sweeps, plots,
# and clear errors (exit 1) for bad scenarios and values. Short runs.
# Usage: CHOKE=build/gcc/choke sh tests/sim.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
case $CHOKE in /*) ;; *) CHOKE=$(pwd)/$CHOKE ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   sim/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL sim/$1: $2"; }

run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	echo $?
}

# py NAME 'assertions on j (the JSON of $tmp/out)'
py() {
	python3 - "$tmp/out" "$2" >"$tmp/py" 2>&1 <<'PY'
import json, math, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[2])
PY
}

SHORT="--set duration=30s --set warmup=10s"

# 1. same seed, same output, bit for bit (also in parallel)
"$CHOKE" sim scenarios/paper-single-link $SHORT --json >"$tmp/a" 2>&1
"$CHOKE" sim scenarios/paper-single-link $SHORT --json >"$tmp/b" 2>&1
"$CHOKE" sim scenarios/paper-single-link $SHORT --json --seed 2 >"$tmp/c" 2>&1
if cmp -s "$tmp/a" "$tmp/b" && ! cmp -s "$tmp/a" "$tmp/c"; then ok deterministic
else bad deterministic "outputs differ (or the seed changes nothing)"; fi
"$CHOKE" sim scenarios/paper-single-link $SHORT --sweep udp_rate=0.5c,2c --csv >"$tmp/a" 2>&1
"$CHOKE" sim scenarios/paper-single-link $SHORT --sweep udp_rate=0.5c,2c --csv --jobs 2 >"$tmp/b" 2>&1
if cmp -s "$tmp/a" "$tmp/b"; then ok parallel-sweep-same-output
else bad parallel-sweep-same-output "--jobs 2 differs"; fi

# 2. the built-in paper scenario is scenarios/paper-single-link
(cd "$tmp" && "$CHOKE" sim paper-single-link $SHORT --json) >"$tmp/a" 2>"$tmp/err"
"$CHOKE" sim scenarios/paper-single-link $SHORT --json >"$tmp/b" 2>&1
if cmp -s "$tmp/a" "$tmp/b"; then ok builtin-paper-matches-file
else bad builtin-paper-matches-file "src/sim/paper_scenario.h differs from scenarios/paper-single-link"; fi

# 3. JSON: the documented keys, consistent numbers
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --json)
if [ "$st" = 0 ] && py json 'assert 0.98 < j["utilization"] <= 1.0001, j["utilization"]
assert abs(j["share"]["tcp"] + j["share"]["udp"] - 1) < 1e-4
assert 0 < j["jain_tcp"] <= 1
assert len(j["flows"]) == 33 and j["flows"][32]["kind"] == "udp"
assert len(j["queue"]["udp_by_position"]) == 10 and j["queue"]["samples"] > 0
assert j["drops"]["udp"]["match"] > 0 and j["core"]["matched"] > 0
assert abs(sum(f["link_share"] for f in j["flows"]) - 1) < 1e-3
assert j["analytic_udp_share"] is not None
assert j["discipline"] == "choke" and j["params"].startswith("limit 300p min 100p max 200p")
assert "speed" not in j'; then ok "json-keys"
else bad json-keys "status $st $(cat "$tmp/py" "$tmp/err")"; fi
# no key twice in any object (the discipline's line was a second "queue")
"$CHOKE" sim scenarios/paper-single-link $SHORT --json --compare --flows >"$tmp/out" 2>&1
if python3 - "$tmp/out" >"$tmp/py" 2>&1 <<'PY'
import json, sys
def once(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    return dict(pairs)
j = json.load(open(sys.argv[1]), object_pairs_hook=once)
assert [d["params"][:5] for d in j["disciplines"]] == ["limit"] * 3
PY
then ok json-no-duplicate-keys; else bad json-no-duplicate-keys "$(tail -2 "$tmp/py")"; fi

# 4. CSV: two tables (summary, flows) that parse
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --csv)
python3 - "$tmp/out" >"$tmp/py" 2>&1 <<'PY'
import csv, sys
text = open(sys.argv[1]).read().split("\n\n")
summary = list(csv.DictReader(text[0].splitlines()))
flows = list(csv.DictReader(text[1].splitlines()))
assert len(summary) == 1 and summary[0]["discipline"] == "choke", summary
assert float(summary[0]["share_udp"]) < 0.5
assert len(flows) == 33 and flows[0]["kind"] == "tcp" and flows[32]["kind"] == "udp"
assert all(len(r) == len(flows[0]) for r in flows)
PY
if [ "$st" = 0 ] && [ $? = 0 ]; then ok csv; else bad csv "status $st $(cat "$tmp/py")"; fi

# 5. CHOKe bounds the UDP flow's share where FIFO and RED do not (2c)
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --compare --json)
if [ "$st" = 0 ] && py compare 'd = {x["discipline"]: x for x in j["disciplines"]}
assert set(d) == {"fifo", "red", "choke"}
assert d["fifo"]["share"]["udp"] > 0.9 and d["red"]["share"]["udp"] > 0.9, d
assert d["choke"]["share"]["udp"] < 0.35, d["choke"]["share"]
assert d["choke"]["queue"]["udp_share"] > d["choke"]["share"]["udp"]
print("udp share fifo %.3f red %.3f choke %.3f" % tuple(d[k]["share"]["udp"] for k in ("fifo", "red", "choke")))'
then ok "choke-bounds-udp: $(cat "$tmp/py")"
else bad choke-bounds-udp "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 5b. --compare with --qdisc words: the three disciplines get the words
#     (they were silently replaced by the scenario's queue words)
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --compare --qdisc 'choke limit 300 min 25 max 50' --json)
if [ "$st" = 0 ] && python3 - "$tmp/out" >"$tmp/py" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
q = [d["params"] for d in j["disciplines"]]
assert q[0].startswith("limit 300p") and "min 25p max 50p" in q[1] and "min 25p max 50p" in q[2], q
PY
then ok compare-with-qdisc-words; else bad compare-with-qdisc-words "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 6. TCP only, room per flow: fair and full under every discipline
st=$(run "$CHOKE" sim scenarios/tcp-fairness --set duration=30s --set warmup=5s --compare --json)
if [ "$st" = 0 ] && py fair 'for x in j["disciplines"]:
    assert x["jain_tcp"] > 0.95 and x["utilization"] > 0.95, (x["discipline"], x["jain_tcp"], x["utilization"])
    assert x["udp_flows"] == 0 and x["share"]["udp"] == 0
print(" ".join("%s jain %.4f util %.4f" % (x["discipline"], x["jain_tcp"], x["utilization"]) for x in j["disciplines"]))'
then ok "tcp-fairness: $(cat "$tmp/py")"
else bad tcp-fairness "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 7. choke demo: the comparison at 2c, table and JSON
st=$(run "$CHOKE" demo --seconds 30)
if [ "$st" = 0 ] && grep -q "UDP share of the link" "$tmp/out" && grep -q "choke" "$tmp/out"; then
	ok demo-table
else bad demo-table "status $st $(cat "$tmp/err")"; fi
st=$(run "$CHOKE" demo --seconds 30 --json)
if [ "$st" = 0 ] && py demo 'd = {x["discipline"]: x for x in j["disciplines"]}
assert d["choke"]["udp_rate_c"] == 2 and d["choke"]["share"]["udp"] < d["fifo"]["share"]["udp"] - 0.5'
then ok demo-json; else bad demo-json "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 8. sweeps: three disciplines per point, or the one asked for
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --sweep udp_rate=0.5c..2c:3 --csv)
if [ "$st" = 0 ] && [ "$(wc -l <"$tmp/out")" = 10 ] && head -1 "$tmp/out" | grep -q '^udp_rate,discipline,' &&
	grep -q '^1.25c,choke,' "$tmp/out"; then ok sweep-csv
else bad sweep-csv "status $st $(cat "$tmp/out" "$tmp/err")"; fi
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --sweep tcp_flows=8..32:2:log --qdisc choke --json)
if [ "$st" = 0 ] && py sweep 'assert [p["value"] for p in j["points"]] == ["8", "32"]
assert all(len(p["runs"]) == 1 and p["runs"][0]["discipline"] == "choke" for p in j["points"])
assert [p["runs"][0]["tcp_flows"] for p in j["points"]] == [8, 32]'
then ok sweep-json-one-discipline; else bad sweep-json-one-discipline "status $st $(cat "$tmp/py" "$tmp/err")"; fi

# 8b. sweep points read back: printed without an exponent (an integer key
#     over a million was printed "2e+06" and refused), each point's value
#     given back with --set gives the point's row, and whole numbers written
#     with an exponent are accepted
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --sweep tcp_rwnd=10..2000000:3:log --qdisc choke --csv)
vals=$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')
if [ "$st" = 0 ] && [ "$vals" = "tcp_rwnd 10 4472 2000000 " ]; then
	rt=""
	for v in 10 4472 2000000; do
		"$CHOKE" sim scenarios/paper-single-link $SHORT --set tcp_rwnd=$v --qdisc choke --csv \
			2>&1 | sed -n 2p >"$tmp/row"
		grep -qxF "$v,$(cat "$tmp/row")" "$tmp/out" || rt="$rt $v"
	done
	if [ -z "$rt" ]; then ok sweep-values-round-trip
	else bad sweep-values-round-trip "--set gives another row for:$rt"; fi
else
	bad sweep-values-round-trip "status $st, values \"$vals\": $(cat "$tmp/err")"
fi
st=$(run "$CHOKE" sim scenarios/paper-single-link $SHORT --sweep udp_rate=1e5..2e6:2 --qdisc fifo --csv)
vals=$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')
if [ "$st" = 0 ] && [ "$vals" = "udp_rate 100000 2000000 " ]; then ok sweep-values-no-exponent
else bad sweep-values-no-exponent "status $st, values \"$vals\""; fi
"$CHOKE" sim scenarios/paper-single-link $SHORT --set tcp_flows=1e1 --json >"$tmp/a" 2>&1
"$CHOKE" sim scenarios/paper-single-link $SHORT --set tcp_flows=10 --json >"$tmp/b" 2>&1
if cmp -s "$tmp/a" "$tmp/b" && grep -q '"tcp_flows":10,' "$tmp/b"; then ok set-exponent-whole-number
else bad set-exponent-whole-number "$(head -c 300 "$tmp/a")"; fi

# 9. plots (when gnuplot is installed): the format from the name, the
#    script beside the image (it draws the same image again), checks before
#    the sweep, no file of the user's replaced unless the plot succeeded
PS="scenarios/paper-single-link --set duration=20s --set warmup=5s --sweep udp_rate=0.5c..4c:3:log"
# a sweep of 300 runs: minutes, so a refusal that comes at once came first
SLOW="scenarios/twl-many-tcp --sweep udp_rate=0.1c..10c:100:log"
if command -v gnuplot >/dev/null 2>&1; then
	mkdir "$tmp/plots"
	st=$(run "$CHOKE" sim $PS --plot "$tmp/plots/p.png")
	cp "$tmp/out" "$tmp/report"
	if [ "$st" = 0 ] && head -c 8 "$tmp/plots/p.png" | grep -q PNG && grep -q '^set output .p.png.$' "$tmp/plots/p.gp" &&
		grep -q '^\$data << EOD$' "$tmp/plots/p.gp" && [ "$(ls -A "$tmp/plots" | tr '\n' ' ')" = "p.gp p.png " ]; then
		cp "$tmp/plots/p.png" "$tmp/p0.png"
		if (cd "$tmp/plots" && gnuplot p.gp) && cmp -s "$tmp/plots/p.png" "$tmp/p0.png"; then ok plot-png-and-its-script
		else bad plot-png-and-its-script "gnuplot p.gp does not draw the same image"; fi
	else bad plot-png-and-its-script "status $st $(cat "$tmp/err"; ls -A "$tmp/plots")"; fi
	st=$(run "$CHOKE" sim $PS --plot "$tmp/plots/q.SVG")
	if [ "$st" = 0 ] && grep -q '<svg' "$tmp/plots/q.SVG" && grep -q '^set terminal svg ' "$tmp/plots/q.gp"; then ok plot-svg
	else bad plot-svg "status $st $(cat "$tmp/err")"; fi
	st=$(run "$CHOKE" sim $PS --plot "$tmp/plots/r.pdf")
	if [ "$st" = 0 ] && head -c 5 "$tmp/plots/r.pdf" | grep -q '%PDF'; then ok plot-pdf
	else bad plot-pdf "status $st $(cat "$tmp/err")"; fi
	# - : the PNG on standard output, the report on standard error
	"$CHOKE" sim $PS --plot - >"$tmp/out" 2>"$tmp/err"
	if head -c 8 "$tmp/out" | grep -q PNG && cmp -s "$tmp/err" "$tmp/report"; then ok plot-to-stdout
	else bad plot-to-stdout "$(head -c 100 "$tmp/err")"; fi
	# refused at once, before the sweep, with nothing written
	printf 'name = plotted\nduration = 20s\nwarmup = 5s\n' >"$tmp/plots/in.png"
	printf 'name = plotted\nduration = 20s\nwarmup = 5s\n' >"$tmp/plots/in2.gp"
	ln -s in.png "$tmp/plots/link.png"
	mkdir "$tmp/plots/dir.png"
	printf 'old' >"$tmp/plots/old.png"
	plotcase() {
		name=$1
		want=$2
		shift 2
		before=$(ls -A "$tmp/plots" | tr '\n' ' ')
		st=$(run timeout 10 "$CHOKE" sim "$@")
		if [ "$st" = 1 ] && grep -q -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ] &&
			[ "$(ls -A "$tmp/plots" | tr '\n' ' ')" = "$before" ]; then ok "plot-refused-$name"
		else bad "plot-refused-$name" "status $st: $(cat "$tmp/err")"; fi
	}
	plotcase jpg 'name the file .png, .svg or .pdf' $SLOW --plot "$tmp/plots/x.jpg"
	plotcase no-extension 'without an extension' $SLOW --plot "$tmp/plots/x"
	plotcase no-directory "no directory $tmp/plots/nowhere" $SLOW --plot "$tmp/plots/nowhere/x.png"
	plotcase unwritable "cannot write in /proc" $SLOW --plot /proc/x.png
	plotcase directory 'is not a regular file' $SLOW --plot "$tmp/plots/dir.png"
	plotcase input 'is the input' "$tmp/plots/in.png" --sweep udp_rate=1c,2c --plot "$tmp/plots/in.png"
	plotcase input-by-link 'is the input' "$tmp/plots/in.png" --sweep udp_rate=1c,2c --plot "$tmp/plots/link.png"
	plotcase input-script 'the gnuplot script) is the input' "$tmp/plots/in2.gp" --sweep udp_rate=1c,2c \
		--plot "$tmp/plots/in2.png"
	# gnuplot failing at the end leaves the old image as it was and no
	# temporary file (a gnuplot that has the terminal but cannot draw)
	mkdir "$tmp/fakebin"
	printf '#!/bin/sh\n[ "$1" = -e ] && exit 0\necho "\"$1\" line 3: no room" >&2\nexit 1\n' >"$tmp/fakebin/gnuplot"
	chmod +x "$tmp/fakebin/gnuplot"
	PATH="$tmp/fakebin:$PATH" "$CHOKE" sim $PS --plot "$tmp/plots/old.png" >/dev/null 2>"$tmp/err"
	st=$?
	if [ "$st" = 1 ] && grep -q 'gnuplot failed (status 1): line 3: no room' "$tmp/err" &&
		[ "$(cat "$tmp/plots/old.png")" = old ] && [ ! -e "$tmp/plots/old.gp" ] &&
		[ -z "$(ls -A "$tmp/plots" | grep '^\.')" ]; then ok plot-failure-keeps-old-file
	else bad plot-failure-keeps-old-file "status $st: $(cat "$tmp/err"; ls -A "$tmp/plots")"; fi
else
	echo "skip sim/plot: gnuplot not installed (apt-get install gnuplot-nox)"
fi
# without gnuplot: said before the sweep
mkdir -p "$tmp/nognuplot"
ln -s "$(command -v sh)" "$tmp/nognuplot/sh"
st=$(PATH="$tmp/nognuplot" run "$(command -v timeout)" 10 "$CHOKE" sim $SLOW --plot "$tmp/x.png")
if [ "$st" = 1 ] && grep -q 'apt-get install gnuplot-nox' "$tmp/err" && [ ! -s "$tmp/out" ]; then
	ok plot-no-gnuplot-said-first
else bad plot-no-gnuplot-said-first "status $st: $(cat "$tmp/err")"; fi

# 10. bad input: a message naming the problem, exit status 1, no crash
printf 'bottleneck_rate = 1mbit\nfrobnicate = 3\n' >"$tmp/unknown"
printf 'udp_rate 2c\n' >"$tmp/noeq"
printf 'queue = limit 300 min 200 max 100\n' >"$tmp/badq"
printf '\001\002\000\377' >"$tmp/binary"
errcase() {
	name=$1
	want=$2
	shift 2
	st=$(run "$CHOKE" "$@")
	if [ "$st" = 1 ] && grep -q -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok "error-$name"
	else bad "error-$name" "status $st: $(cat "$tmp/err")"; fi
}
# usage errors: exit 2, the message naming the option
usagecase() {
	name=$1
	want=$2
	shift 2
	st=$(run "$CHOKE" "$@")
	if [ "$st" = 2 ] && grep -q -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok "usage-$name"
	else bad "usage-$name" "status $st: $(cat "$tmp/err")"; fi
}
errcase missing-file "no-such-file" sim "$tmp/no-such-file"
errcase directory "directory" sim "$tmp"
errcase unknown-key ':2: unknown key "frobnicate"' sim "$tmp/unknown"
errcase no-equals ':1: expected key = value' sim "$tmp/noeq"
errcase bad-queue '"min" is not smaller' sim "$tmp/badq"
errcase binary-file "NUL" sim "$tmp/binary"
errcase set-bad-rate 'udp_rate = "fast"' sim scenarios/paper-single-link --set udp_rate=fast
errcase set-no-equals 'not key=value' sim scenarios/paper-single-link --set udp_rate
errcase set-unknown 'unknown key "nope"' sim scenarios/paper-single-link --set nope=1
errcase set-negative 'tcp_flows' sim scenarios/paper-single-link --set tcp_flows=-3
errcase warmup-too-long 'warmup' sim scenarios/paper-single-link --set warmup=200s
errcase qdisc-bad 'qdisc' sim scenarios/paper-single-link --qdisc sfq
errcase qdisc-words 'What is "frob"' sim scenarios/paper-single-link --qdisc 'choke limit 300 frob'
usagecase seed-bad '--seed needs an integer from 0 to 18446744073709551615, not "x"' \
	sim scenarios/paper-single-link --seed x
errcase sweep-bad 'expected KEY=A..B:N' sim scenarios/paper-single-link --sweep udp_rate=1c..2c
errcase sweep-units 'same unit' sim scenarios/paper-single-link --sweep udp_rate=1mbit..2c:3
errcase sweep-key 'unknown key' sim scenarios/paper-single-link --sweep nope=1..2:2
errcase sweep-value 'udp_rate' sim scenarios/paper-single-link --sweep udp_rate=1x,2x
usagecase plot-no-sweep 'give --sweep' sim scenarios/paper-single-link --plot "$tmp/x.png"
usagecase sweep-and-compare 'already compares' sim scenarios/paper-single-link --sweep udp_rate=1c,2c --compare
usagecase jobs-bad '--jobs needs an integer from 1 to 64, not "0"' sim scenarios/paper-single-link --jobs 0
usagecase json-and-csv '--json and --csv exclude each other' sim scenarios/paper-single-link --json --csv
usagecase no-scenario 'missing SCENARIO' sim
usagecase two-scenarios 'unexpected argument "b"' sim a b
usagecase unknown-option 'unknown option --frob' sim scenarios/paper-single-link --frob
usagecase demo-bad 'unknown option --frob' demo --frob
usagecase demo-word 'unexpected argument "frob"' demo frob
usagecase demo-seconds '--seconds needs a number from 2 to 3600, not "1"' demo --seconds 1
usagecase open-loop-only '--open-loop takes only --seconds, --seed and --json (not --csv)' demo --open-loop --csv

# --seed: 0 to 2^64 - 1 as documented (was refused above 18446744073709551609,
# and --open-loop above 2^32 - 1), the same in the error message
for c in "sim:sim scenarios/paper-single-link --set duration=2s --set warmup=1s --json" \
	"demo:demo --seconds 2 --json" "open-loop:demo --open-loop --seconds 2 --json"; do
	name=${c%%:*}
	c=${c#*:}
	st=$(run "$CHOKE" $c --seed 18446744073709551615)
	if [ "$st" = 0 ] && grep -q '"seed":18446744073709551615[,}]' "$tmp/out"; then
		st=$(run "$CHOKE" $c --seed 18446744073709551616)
		if [ "$st" = 2 ] && grep -q 'from 0 to 18446744073709551615, not "18446744073709551616"' "$tmp/err" &&
			[ ! -s "$tmp/out" ]; then
			ok "seed-range-$name"
		else bad "seed-range-$name" "2^64: status $st $(cat "$tmp/err")"; fi
	else bad "seed-range-$name" "2^64-1: status $st $(cat "$tmp/err")"; fi
done

# a simulation far over the event budget is refused at once, naming the
# estimate and --force (it ran for minutes without a word); --force runs it
st=$(run timeout 20 "$CHOKE" sim scenarios/paper-single-link --set udp_rate=10tbit --json)
if [ "$st" = 1 ] && grep -q 'about 2.5e+11 events' "$tmp/err" && grep -q -- '--force' "$tmp/err" &&
	[ ! -s "$tmp/out" ]; then ok budget-refused
else bad budget-refused "status $st: $(cat "$tmp/err")"; fi
st=$(run timeout 20 "$CHOKE" sim scenarios/paper-single-link --sweep udp_rate=1c,10tbit --csv)
if [ "$st" = 1 ] && grep -q 'udp_rate=10tbit, fifo: about' "$tmp/err" && [ ! -s "$tmp/out" ]; then
	ok budget-refused-sweep-names-the-run
else bad budget-refused-sweep-names-the-run "status $st: $(cat "$tmp/err")"; fi
st=$(run timeout 2 "$CHOKE" sim scenarios/paper-single-link --set udp_rate=10tbit --force)
if [ "$st" = 124 ]; then ok budget-force-runs
else bad budget-force-runs "status $st (want 124: still running after 2 s): $(cat "$tmp/err")"; fi

# progress and time left on standard error, never on standard output:
# with --progress a line at the start and one at the end; on a terminal
# (script(1) gives one) a line redrawn in place after half a second and
# erased at the end
TWL="scenarios/twl-many-tcp --set duration=30s --set warmup=10s --sweep udp_rate=0.5c,2c --csv"
"$CHOKE" sim $TWL >"$tmp/a" 2>/dev/null
st=$(run "$CHOKE" sim $TWL --progress --jobs 2)
if [ "$st" = 0 ] && cmp -s "$tmp/a" "$tmp/out" && grep -q '^choke: sim: 0/6 runs, 0%, 0:00 elapsed$' "$tmp/err" &&
	grep -q '^choke: sim: 6/6 runs, [0-9]*:[0-9][0-9]$' "$tmp/err"; then ok progress-on-stderr-only
else bad progress-on-stderr-only "status $st: $(cat "$tmp/err")"; fi
if command -v script >/dev/null 2>&1; then
	LONG="scenarios/speed-1000 --set duration=40s --set warmup=5s --qdisc choke --json"
	"$CHOKE" sim $LONG >"$tmp/a" 2>/dev/null
	script -qec "'$CHOKE' sim $LONG >'$tmp/out'" "$tmp/tty" >/dev/null 2>&1
	if cmp -s "$tmp/a" "$tmp/out" && grep -q "$(printf '\rchoke: sim: 0/1 run, [0-9]*%%, 0:0[0-9] elapsed, about [0-9:]* left\033\\[K')" "$tmp/tty" &&
		grep -q "$(printf '\r\033\\[K')\$" "$tmp/tty"; then ok progress-on-a-terminal
	else bad progress-on-a-terminal "$(od -c "$tmp/tty" | head -8)"; fi
else
	echo "skip sim/progress-on-a-terminal: no script(1)"
fi

# scenarios by name from anywhere: a copy of the binary run outside the
# source tree finds them in $CHOKE_SCENARIO_PATH (as an installed one finds
# share/choke/scenarios), with the same output; an unknown name lists the
# directories searched and the scenarios there
mkdir -p "$tmp/inst/bin" "$tmp/inst/share" "$tmp/elsewhere"
cp "$CHOKE" "$tmp/inst/bin/choke"
cp scenarios/* "$tmp/inst/share/"
"$CHOKE" sim scenarios/multi-udp --set duration=30s --set warmup=10s --json >"$tmp/a" 2>&1
(cd "$tmp/elsewhere" && CHOKE_SCENARIO_PATH="/nonexistent:$tmp/inst/share" "$tmp/inst/bin/choke" \
	sim multi-udp --set duration=30s --set warmup=10s --json) >"$tmp/out" 2>"$tmp/err"
if cmp -s "$tmp/a" "$tmp/out"; then ok scenario-by-name-outside-the-tree
else bad scenario-by-name-outside-the-tree "$(cat "$tmp/err")"; fi
(cd "$tmp/elsewhere" && CHOKE_SCENARIO_PATH="$tmp/inst/share" "$tmp/inst/bin/choke" sim no-such) \
	>"$tmp/out" 2>"$tmp/err"
st=$?
if [ "$st" = 1 ] && grep -q "no scenario \"no-such\" in $tmp/inst/share, ./scenarios, .*share/choke/scenarios or the current directory; scenarios there: multi-udp, paper-single-link, speed-1000, tcp-fairness, twl-many-tcp" "$tmp/err"; then
	ok scenario-unknown-lists-where-and-what
else bad scenario-unknown-lists-where-and-what "status $st: $(cat "$tmp/err")"; fi

# --help and -h: the usage on standard output, exit 0, nothing run
for c in "sim --help" "sim -h" "demo --help" "demo -h" "demo --open-loop --help" \
	"demo --open-loop -h" "sim scenarios/paper-single-link --json --help"; do
	st=$(run "$CHOKE" $c)
	if [ "$st" = 0 ] && grep -q '^usage: choke ' "$tmp/out" && [ ! -s "$tmp/err" ] &&
		! grep -q '^{' "$tmp/out"; then ok "help: $c"
	else bad "help: $c" "status $st: $(cat "$tmp/err")"; fi
done

st=$(run "$CHOKE" sim --keys)
if [ "$st" = 0 ] && grep -q '^udp_rate ' "$tmp/out" && grep -q '^tcp_min_rto ' "$tmp/out"; then ok keys
else bad keys "status $st"; fi

# variants: more draws bound several UDP flows that defeat one draw; the
# penalised-flows summary brackets the exact counts and names the floods
"$CHOKE" sim scenarios/multi-udp --set duration=40s --set warmup=10s --json >"$tmp/v1.json" 2>"$tmp/err" &&
"$CHOKE" sim scenarios/multi-udp --set duration=40s --set warmup=10s \
	--set "queue=limit 300 min 25 max 50 adaptive" --set hh_counters=8 --json >"$tmp/v2.json" 2>>"$tmp/err"
python3 - "$tmp/v1.json" "$tmp/v2.json" <<'PY' >"$tmp/py" 2>&1
import json, sys
plain, ada = (json.load(open(x)) for x in sys.argv[1:3])
assert plain["share"]["udp"] > 0.6, plain["share"]
assert ada["share"]["udp"] < 0.2, ada["share"]
p = ada["penalised"]
exact = {f["flow"]: f["drops"]["match"] + f["drops"]["victim"] for f in ada["flows"]}
for e in p["flows"]:
    assert e["estimate"] - e["error"] <= exact[e["flow"]] <= e["estimate"], e
assert sorted(e["kind"] for e in p["flows"][:4]) == ["udp"] * 4, p["flows"][:4]
print("4 UDP flows at 2c: plain %.3f, adaptive %.3f" % (plain["share"]["udp"], ada["share"]["udp"]))
PY
if [ $? = 0 ]; then ok "variants-and-penalised: $(cat "$tmp/py")"; else bad variants-and-penalised "$(tail -n 3 "$tmp/py" "$tmp/err")"; fi

# protect (docs/variants.md): 4 UDP floods totalling 2c held near their
# max-min fair share 4/36 of the link, TCP still fair among itself; the
# floods' drops are protect's own (CHOKE_DROP_PROTECT, shown as "limit"
# until the simulator names it)
"$CHOKE" sim scenarios/multi-udp --set duration=40s --set warmup=10s \
	--set "queue=limit 300 min 25 max 50 protect" --json >"$tmp/p1.json" 2>"$tmp/err"
python3 - "$tmp/p1.json" <<'PY' >"$tmp/py" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
fair = 4 / 36
x = j["share"]["udp"] / fair
assert 0.5 <= x <= 1.5, (j["share"], x)
assert j["jain_tcp"] >= 0.8, j["jain_tcp"]  # 30 s measured: noisier than 80 s
assert j["utilization"] >= 0.97, j["utilization"]
print("4 UDP flows at 2c: %.3f of the link, %.2f x fair, Jain over TCP %.3f" %
      (j["share"]["udp"], x, j["jain_tcp"]))
PY
if [ $? = 0 ]; then ok "protect: $(cat "$tmp/py")"; else bad protect "$(tail -n 3 "$tmp/py" "$tmp/err")"; fi
errcase protect-range '8 to 256' sim scenarios/multi-udp --qdisc 'choke limit 300 protect 5'

# light_rtt: alone on the link, a light flow's round trip is its flow's
# base RTT exactly (no queue); behind a standing queue it is longer by the
# queue's delay, and the median, p99 and max are ordered
run "$CHOKE" sim scenarios/multi-udp $SHORT --set tcp_flows=0 --set udp_flows=0 \
	--set light_flows=1 --set light_rate=40kbit --set light_rtt=1 --json >/dev/null
py light-rtt-empty '
r = j["groups"]["light"]["rtt_ms"]
base = j["flows"][0]["base_rtt_ms"]
assert r["n"] == 100, r   # 5 a second for 20 s
assert abs(r["median"] - base) < 1e-6 and abs(r["max"] - base) < 1e-6, (r, base)
print("%d pings, %.3f ms = the base RTT" % (r["n"], r["median"]))'
if [ $? = 0 ]; then ok "light-rtt-empty: $(cat "$tmp/py")"; else bad light-rtt-empty "$(tail -n 3 "$tmp/py" "$tmp/err")"; fi
run "$CHOKE" sim scenarios/multi-udp $SHORT --set light_flows=1 --set light_rate=40kbit \
	--set light_rtt=1 --qdisc 'fifo limit 100' --json >/dev/null
py light-rtt-queue '
r = j["groups"]["light"]["rtt_ms"]
base = j["flows"][-1]["base_rtt_ms"]
q = j["queue"]["delay_ms"]["udp"]
assert r["median"] <= r["p99"] <= r["max"], r
# FIFO at its limit of 100 packets of 8 ms: a standing queue of about 800 ms
assert abs(r["mean"] - base - q) < 0.1 * q, (r, base, q)
print("median %.1f ms, p99 %.1f ms; base %.1f + mean queueing %.1f" % (r["median"], r["p99"], base, q))'
if [ $? = 0 ]; then ok "light-rtt-queue: $(cat "$tmp/py")"; else bad light-rtt-queue "$(tail -n 3 "$tmp/py" "$tmp/err")"; fi
# tcp_hosts: each host's share; a host of 3 flows beside one of 1 under FIFO
run "$CHOKE" sim scenarios/multi-udp $SHORT --set tcp_flows=4 --set udp_flows=0 \
	--set tcp_hosts=3,1 --qdisc 'fifo limit 100' --json >/dev/null
py tcp-hosts '
h = j["hosts"]
assert [x["flows"] for x in h] == [3, 1], h
assert abs(sum(x["tcp_over_even"] for x in h) - 2) < 1e-4, h
assert abs(sum(x["link_share"] for x in h) - j["share"]["tcp"]) < 1e-4, h
assert h[0]["tcp_over_even"] > 1.2 > 0.8 > h[1]["tcp_over_even"], h
assert 0 < j["jain_hosts"] < 1, j["jain_hosts"]
print("3 flows: %.2f, 1 flow: %.2f of an even split" % (h[0]["tcp_over_even"], h[1]["tcp_over_even"]))'
if [ $? = 0 ]; then ok "tcp-hosts: $(cat "$tmp/py")"; else bad tcp-hosts "$(tail -n 3 "$tmp/py" "$tmp/err")"; fi
# protect srchost shares among the hosts: the host of 16 flows no longer
# takes 16 shares (by flows it gets about 3.4 times a quarter)
run "$CHOKE" sim scenarios/multi-udp $SHORT --set bottleneck_rate=10mbit --set tcp_flows=19 \
	--set tcp_hosts=16,1,1,1 --set udp_flows=0 --set tcp_access_rate=10c \
	--qdisc 'choke limit 300 min 25 max 50 protect srchost' --json >/dev/null
py protect-srchost '
h = [x["tcp_over_even"] for x in j["hosts"]]
assert all(0.6 <= x <= 1.5 for x in h), h
print("the hosts at " + ", ".join("%.2f" % x for x in h) + " of a quarter")'
if [ $? = 0 ]; then ok "protect-srchost: $(cat "$tmp/py")"; else bad protect-srchost "$(tail -n 3 "$tmp/py" "$tmp/err")"; fi
errcase tcp-hosts-sum 'summing to tcp_flows (32)' sim scenarios/multi-udp --set tcp_hosts=16,1,1,1
errcase tcp-hosts-syntax 'expected flows per host' sim scenarios/multi-udp --set tcp_flows=2 --set tcp_hosts=1,,1
errcase tcp-hosts-zero 'expected flows per host' sim scenarios/multi-udp --set tcp_flows=2 --set tcp_hosts=0,2
errcase light-rtt-bool 'light_rtt' sim scenarios/multi-udp --set light_rtt=maybe

# tools/ns3/speed.sh (make sim-vs-ns3) refuses bad settings before it runs
# anything: exit 2 and the reason
for bad_env in DURATION=x WARMUP=1..2 REPEATS=0 SIM_RUNS=-1 'DURATION=0.1 WARMUP=0.2'; do
	st=0
	env $bad_env sh "$(dirname "$0")/../tools/ns3/speed.sh" /nonexistent /nonexistent \
		>"$tmp/out" 2>"$tmp/err" || st=$?
	if [ $st = 2 ] && grep -q '^speed.sh: .*\(seconds\|whole numbers\|longer than\)' "$tmp/err" &&
		[ ! -s "$tmp/out" ]; then ok "speed-refuses $bad_env"
	else bad "speed-refuses $bad_env" "status $st: $(cat "$tmp/err")"; fi
done

# golden outputs: every scenario, seed, discipline and format byte for byte
# as recorded in tests/sim/golden/SHA256SUMS (tests/sim-golden.sh)
if CHOKE="$CHOKE" sh "$(dirname "$0")/sim-golden.sh" >"$tmp/golden" 2>&1; then
	ok "golden: $(grep -v '^ok' "$tmp/golden" | tail -1)"
else
	bad golden "$(grep -v '^ok' "$tmp/golden" | head -20)"
fi

echo "sim: $n tests, $fails failed"
[ $fails = 0 ]
