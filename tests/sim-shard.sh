#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Sweeps across machines: a small sweep run whole, then as 3 shards in 3
# processes merged with `choke sim --merge`; every output (text, JSON, CSV,
# and with gnuplot the SVG and its script) compared byte for byte; and the
# refusals: bad --shard values, shards of another sweep, of another split,
# given twice, missing, truncated, not shard files.
# Usage: CHOKE=build/gcc/choke sh tests/sim-shard.sh
set -u
CHOKE=${CHOKE:-build/gcc/choke}
case $CHOKE in /*) ;; *) CHOKE=$(pwd)/$CHOKE ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   sim-shard/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL sim-shard/$1: $2"; }

SC=$(pwd)/scenarios/paper-single-link
set -- --set duration=6s --set warmup=2s --set seed=7 --sweep udp_rate=0.5c..4c:4
mkdir "$tmp/whole" "$tmp/merged"

# the whole sweep, and its three shards at the same time
"$CHOKE" sim $SC "$@" >"$tmp/whole/out.txt" 2>"$tmp/err" &&
	"$CHOKE" sim $SC "$@" --json >"$tmp/whole/out.json" &&
	"$CHOKE" sim $SC "$@" --csv >"$tmp/whole/out.csv" || bad whole "$(cat "$tmp/err")"
for k in 1 2 3; do
	"$CHOKE" sim $SC "$@" --shard $k/3 >"$tmp/s$k" 2>"$tmp/e$k" &
done
wait
st=0
for k in 1 2 3; do [ -s "$tmp/s$k" ] && [ ! -s "$tmp/e$k" ] || st=1; done
[ $st = 0 ] && ok three-shards || bad three-shards "$(cat "$tmp"/e?)"
S="$tmp/s1 $tmp/s2 $tmp/s3"
for f in txt:"" json:--json csv:--csv; do
	ext=${f%%:*}
	opt=${f#*:}
	# the files in any order give the same
	"$CHOKE" sim --merge $opt $tmp/s3 $tmp/s1 $tmp/s2 >"$tmp/merged/out.$ext" 2>"$tmp/err"
	if cmp "$tmp/whole/out.$ext" "$tmp/merged/out.$ext"; then ok "merge-$ext"
	else bad "merge-$ext" "$(cat "$tmp/err")"; fi
done

if command -v gnuplot >/dev/null 2>&1; then
	(cd "$tmp/whole" && "$CHOKE" sim $SC "$@" --plot p.svg >/dev/null 2>"$tmp/err") &&
		(cd "$tmp/merged" && "$CHOKE" sim --merge $S --plot p.svg >/dev/null 2>>"$tmp/err")
	if cmp "$tmp/whole/p.svg" "$tmp/merged/p.svg" && cmp "$tmp/whole/p.gp" "$tmp/merged/p.gp"; then
		ok merge-plot
	else
		bad merge-plot "$(cat "$tmp/err")"
	fi
else
	echo "skip sim-shard/merge-plot (no gnuplot)"
fi

# refused: exit status and the message
refuse() {
	name=$1 want=$2 code=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" = "$code" ] && grep -q -- "$want" "$tmp/err"; then ok "$name"
	else bad "$name" "exit $st, $(cat "$tmp/err")"; fi
}
for v in 0/3 4/3 1/0 a/3 1/b 1 /3 1/ -1/3 1/3x; do
	refuse "shard-$v" "--shard needs K/N with 1 <= K <= N" 2 "$CHOKE" sim $SC "$@" --shard "$v"
done
refuse shard-no-sweep "give --sweep too" 2 "$CHOKE" sim $SC --shard 1/2
refuse shard-json "give --json, --csv, --plot, --flows to the merge" 2 \
	"$CHOKE" sim $SC "$@" --shard 1/2 --json
refuse merge-set "--merge takes only" 2 "$CHOKE" sim --merge --set seed=1 $S
refuse merge-none "--merge needs the shard files" 2 "$CHOKE" sim --merge
refuse merge-missing "shard 2/3 is missing" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/s3
refuse merge-twice "are both shard 1/3" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/s1 $tmp/s2 $tmp/s3
"$CHOKE" sim $SC "$@" --set seed=8 --shard 2/3 >"$tmp/other" 2>/dev/null
refuse merge-other-sweep "shards of different sweeps" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/other $tmp/s3
"$CHOKE" sim $SC "$@" --shard 2/2 >"$tmp/half" 2>/dev/null
refuse merge-other-split "is shard 2/2 but" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/half
head -c 3000 "$tmp/s2" >"$tmp/cut"
refuse merge-truncated "truncated" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/cut $tmp/s3
refuse merge-not-shard "not a shard file" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/whole/out.json
refuse merge-no-file "No such file" 1 "$CHOKE" sim --merge $tmp/s1 $tmp/nope
# a scenario edited after the shards ran is not silently merged
cp $SC "$tmp/sc"
"$CHOKE" sim "$tmp/sc" "$@" --shard 1/1 >"$tmp/one" 2>/dev/null
echo "# edited" >>"$tmp/sc"
refuse merge-scenario-changed "not the file the shards ran" 1 "$CHOKE" sim --merge $tmp/one

echo "sim-shard: $((n - fails))/$n passed"
[ "$fails" = 0 ]
