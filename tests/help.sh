#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Help that matches the code. For every command of the table (src/cli/main.c):
# --help and -h print its usage on standard output with status 0 and nothing
# on standard error; `choke help --options` (the options declared in the
# code) is compared with the command's synopsis and section in the man page
# and with README's usage block, both ways; every option with a value is
# refused out of its declared range with status 2 and a message naming it;
# docs/inputs.md's generated tables are `choke help --inputs`.
# Usage: CHOKE=build/gcc/choke sh tests/help.sh
#        sh tests/help.sh --update-inputs   (rewrite docs/inputs.md's tables)
set -u
CHOKE=${CHOKE:-build/gcc/choke}
MAN=${MAN:-man/choke.1}
README=${README:-README.md}
INPUTS=${INPUTS:-docs/inputs.md}
BEGIN='<!-- generated: choke help --inputs (tests/help.sh --update-inputs) -->'
END='<!-- end of generated -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
n=0
ok() { n=$((n + 1)); echo "ok   help/$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL help/$1: $2"; }

# docs/inputs.md with its generated part replaced by $1's content
splice_inputs() {
	awk -v b="$BEGIN" -v e="$END" -v gen="$1" '
		$0 == b { print; while ((getline l < gen) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$INPUTS"
}

if [ "${1:-}" = --update-inputs ]; then
	"$CHOKE" help --inputs >"$tmp/gen" || exit 1
	grep -qxF "$BEGIN" "$INPUTS" && grep -qxF "$END" "$INPUTS" ||
		{ echo "$INPUTS: no markers" >&2; exit 1; }
	splice_inputs "$tmp/gen" >"$tmp/new" && cat "$tmp/new" >"$INPUTS" && echo "updated $INPUTS"
	exit
fi

# run ARGS...: stdout to $tmp/out, stderr to $tmp/err; prints the status
run() {
	"$CHOKE" "$@" >"$tmp/out" 2>"$tmp/err"
	echo $?
}

# --- the commands, from the table ------------------------------------------
st=$(run help)
cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/out" | awk '$1 != "commands:" && $1 != "help" &&
	$1 != "version" && NF { print $1 }')
if [ "$st" = 0 ] && [ -n "$cmds" ] && [ ! -s "$tmp/err" ]; then ok "commands: $(echo $cmds)"
else bad commands "status $st: $(cat "$tmp/err")"; fi
for a in --help -h; do
	st=$(run $a)
	if [ "$st" = 0 ] && head -1 "$tmp/out" | grep -q '^usage: choke COMMAND' && [ ! -s "$tmp/err" ]
	then ok "choke $a"; else bad "choke $a" "status $st"; fi
done
st=$(run)
if [ "$st" = 2 ] && grep -q '^usage: choke COMMAND' "$tmp/err"; then ok no-command
else bad no-command "status $st"; fi
st=$(run frobnicate)
if [ "$st" = 2 ] && grep -q 'unknown command "frobnicate"' "$tmp/err"; then ok unknown-command
else bad unknown-command "status $st"; fi
st=$(run help frobnicate)
if [ "$st" = 2 ] && grep -q 'unknown command "frobnicate"' "$tmp/err"; then ok help-unknown-command
else bad help-unknown-command "status $st"; fi
st=$(run version)
if [ "$st" = 0 ] && grep -q '^choke [0-9]' "$tmp/out"; then ok version; else bad version "status $st"; fi

# --- --help and -h: usage on stdout, status 0, no side effect ----------------
# (run from an empty directory with an empty PATH: nothing may be written,
# nothing run; tests/bridge-cli.sh checks that no bridge is contacted)
mkdir "$tmp/empty"
CHOKE_ABS=$(cd "$(dirname "$CHOKE")" && pwd)/$(basename "$CHOKE")
for c in $cmds; do
	for h in --help -h; do
		(cd "$tmp/empty" && PATH=/nonexistent "$CHOKE_ABS" $c $h >"$tmp/out" 2>"$tmp/err")
		st=$?
		if [ $st = 0 ] && head -1 "$tmp/out" | grep -q "^usage: choke $c\\b" && [ ! -s "$tmp/err" ] &&
			grep -q '^  -h, --help ' "$tmp/out" && [ -z "$(ls -A "$tmp/empty")" ]; then
			ok "$c $h"
		else bad "$c $h" "status $st, stdout [$(head -1 "$tmp/out")], stderr [$(head -2 "$tmp/err")]"; fi
	done
	"$CHOKE" help $c >"$tmp/a" 2>&1
	"$CHOKE" $c --help >"$tmp/b" 2>&1
	if cmp -s "$tmp/a" "$tmp/b"; then ok "help $c"; else bad "help $c" "differs from $c --help"; fi
done

# no system call with an effect: no socket (so no bridge contacted, none
# opened), no file created, changed or opened for writing, no process
# started (so no simulation run), whatever else the command line holds
if command -v strace >/dev/null 2>&1; then
	for a in "params --dev eth0 limit 10 bandwidth 10% --help" "demo -h" "demo --open-loop --help" \
		"sim scenarios/paper-single-link --jobs 4 --plot $tmp/p.png --sweep udp_rate=1c,2c -h" \
		"replay --write $tmp/w.pcap --rate 1mbit $tmp/none.pcap --help" \
		"bridge --in lo --out lo --rate 10mbit --socket $tmp/b.sock --config $tmp/c -h" \
		"stats --socket $tmp/s.sock --watch --help" "reconfigure --socket $tmp/s.sock choke limit 10 -h"
	do
		# (LeakSanitizer's exit-time thread cannot run under strace)
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -o "$tmp/trace" -e trace=socket,connect,bind,open,openat,creat,mkdir,unlink,unlinkat,rename,renameat,renameat2,clone,clone3,fork,vfork,execve,kill \
			"$CHOKE" $a >"$tmp/out" 2>"$tmp/err"
		st=$?
		# the program's own start (execve, its libraries read-only) is allowed
		sed -e '1{/execve(/d}' "$tmp/trace" | grep -v 'O_RDONLY|O_CLOEXEC) = \|O_RDONLY) = ' |
			grep -v '^[0-9]* +++ exited' >"$tmp/effects"
		if [ $st = 0 ] && grep -q '^usage: choke ' "$tmp/out" && [ ! -s "$tmp/effects" ]; then
			ok "no-side-effect: $(echo "$a" | sed "s|$tmp/||g")"
		else bad "no-side-effect: $a" "status $st; system calls: $(head -5 "$tmp/effects")"; fi
	done
else
	echo "skip help/no-side-effect: no strace (tools/deps.sh check installs it)"
fi

# --- the options in the code against the man page and README ----------------
"$CHOKE" help --options >"$tmp/options"
# every line is "COMMAND --name[ METAVAR]" for a command of the table
if [ -s "$tmp/options" ] && awk -v c=" $(echo $cmds) " 'index(c, " " $1 " ") == 0 ||
	$2 !~ /^--[a-z][a-z0-9-]*$/ || NF > 3 { bad = 1 } END { exit bad }' "$tmp/options"; then
	ok "options: $(wc -l <"$tmp/options") in $(echo $cmds | wc -w) commands"
else bad options "$(head -3 "$tmp/options")"; fi

# man page: the command's synopsis (".B choke CMD" up to ".br") and its
# ".SS CMD" section, "\-" read as "-"; --help is every command's
man_part() { # cmd, synopsis|section
	awk -v c="$1" -v part="$2" '
		/^\.SH/ { syn = ($2 == "SYNOPSIS"); sec = 0; on = 0 }
		syn && /^\.B choke / { on = (part == "synopsis" && $3 == c) }
		syn && /^\.br/ { on = 0 }
		/^\.SS / { sec = 1; on = (part == "section" && $2 == c) }
		on' "$MAN" | sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u
}
# README: the usage block under "## The `choke` command", a command's lines
# from "    choke CMD" to the next "    choke"
readme_part() { # cmd
	awk -v c="$1" '
		/^## / { blk = ($0 == "## The `choke` command"); next }
		blk && /^[^ ]/ && seen { blk = 0 }
		blk && /^    choke / { on = ($2 == c); seen = 1 }
		blk && on' "$README" | grep -o -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u
}
differ() { # name, code-file, doc-file, where: both ways
	missing=$(comm -23 "$2" "$3" | tr '\n' ' ')
	extra=$(comm -13 "$2" "$3" | tr '\n' ' ')
	if [ -s "$2" ] && [ -z "$missing$extra" ]; then ok "$1"
	else bad "$1" "in the code, not in $4: [$missing]; in $4, not in the code: [$extra]"; fi
}
for c in $cmds; do
	awk -v c="$c" '$1 == c { print $2 }' "$tmp/options" | sort -u >"$tmp/code.$c"
	man_part "$c" synopsis >"$tmp/syn.$c"
	man_part "$c" section >"$tmp/sec.$c"
	readme_part "$c" >"$tmp/readme.$c"
	differ "man-synopsis-$c" "$tmp/code.$c" "$tmp/syn.$c" "the man page's synopsis"
	differ "man-section-$c" "$tmp/code.$c" "$tmp/sec.$c" "the man page's section $c"
	differ "readme-$c" "$tmp/code.$c" "$tmp/readme.$c" "README's usage block"
done
# and no section or synopsis line in the man page for a command that is not there
for c in $(grep -E '^\.SS [a-z]+$|^\.B choke [a-z]+' "$MAN" | awk '{ print $NF == "choke" ? "" : ($1 == ".SS" ? $2 : $3) }' | sort -u); do
	case " $(echo $cmds) help version " in
	*" $c "*) ;;
	*) [ "$c" = Variants ] || bad "man-$c" "the man page documents a command \"$c\" the code lacks" ;;
	esac
done

# --- usage errors: status 2, a message naming the option --------------------
# every option with a value, out of its declared range (from --inputs)
"$CHOKE" help --inputs >"$tmp/inputs"
python3 - "$tmp/inputs" >"$tmp/cases" <<'PY'
import re, sys
cmd = None
for line in open(sys.argv[1]):
    m = re.match(r"### choke (\S+)", line)
    if m:
        cmd = m.group(1)
        continue
    m = re.match(r"\| `--([a-z0-9-]+)( \[?[^`]*)?` \| (.*?) \| (.*) \|$", line)
    if not m:
        continue
    name, acc, notes = m.group(1), m.group(3).replace("\\|", "|"), m.group(4)
    opt = "--%s=" % name   # an optional value is taken only after "="
    bad = []
    r = re.match(r"an integer from (-?\d+) to (\d+)$", acc)
    if r:
        lo, hi = int(r.group(1)), int(r.group(2))
        bad = ["x", str(hi + 1), "1.5"] + ([str(lo - 1)] if lo > 0 or lo < 0 else ["-1"])
    r = re.match(r"a number from (\S+) to (\S+)$", acc)
    if r:
        bad = ["x", "nan", "inf", repr(float(r.group(2)) * 2)]
        if float(r.group(1)) > 0:
            bad.append(repr(float(r.group(1)) / 2))
    if re.match(r"\w+(, \w+)* or \w+$", acc):
        bad = ["bogus", ""]
    if acc.startswith("a non-empty") or acc.startswith("a ") or acc.startswith("an "):
        bad = bad or [""]
    if acc == "no value":
        bad = ["1"]
    for b in bad:
        print("%s\t%s%s\t--%s" % (cmd, opt, b, name))
PY
nbad=0
while IFS='	' read -r c arg name; do
	st=$(run "$c" "$arg")
	if [ "$st" = 2 ] && grep -q -- "^choke $c: $name " "$tmp/err" && [ ! -s "$tmp/out" ]; then
		nbad=$((nbad + 1))
	else bad "refused: $c $arg" "status $st: $(head -1 "$tmp/err")"; fi
done <"$tmp/cases"
[ "$nbad" -gt 0 ] && ok "refused out of range: $nbad values of $(cut -f3 "$tmp/cases" | sort -u | wc -l) options"

usage() { # name, pattern, args...
	name=$1 pattern=$2
	shift 2
	st=$(run "$@")
	if [ "$st" = 2 ] && grep -q -- "$pattern" "$tmp/err" && [ ! -s "$tmp/out" ] &&
		grep -q -- "(choke $1 --help lists the options)" "$tmp/err"; then ok "usage-$name"
	else bad "usage-$name" "status $st: $(cat "$tmp/err")"; fi
}
for c in $cmds; do
	usage "$c-unknown" "^choke $c: unknown option --frobnicate\$" $c --frobnicate
	usage "$c-unknown-short" "^choke $c: unknown option -q\$" $c -q
done
usage params-missing-words "missing WORDS..." params --json
usage params-dev-and-link "--dev and --link-mbit exclude each other" params --dev lo --link-mbit 10 limit 1
usage params-dev-path "--dev needs an interface name.*not \"../x\"" params --dev ../x limit 1 bandwidth 1%
usage params-link-missing "--link-mbit needs N" params limit 1 --link-mbit
usage demo-twice "--seed given twice" demo --seed 1 --seed 2
usage demo-json-csv "--json and --csv exclude each other" demo --json --csv
usage sim-missing "missing SCENARIO" sim --json
usage sim-value-missing "--qdisc needs Q" sim x --qdisc
usage replay-missing "missing FILE" replay --rate 1mbit
usage replay-rate "--rate needs a rate in tc's syntax" replay --rate 1xbit x.pcap
usage bridge-rate "--rate needs a rate in tc's syntax from 64kbit to 1tbit" bridge --rate 1kbit
usage bridge-in "--in needs an interface name" bridge --in a/b
usage bridge-flag-value "--duplex takes no value" bridge --duplex=yes
usage stats-extra 'unexpected argument "x"' stats x
usage reconfigure-missing "missing WORDS..." reconfigure
usage reconfigure-socket "--socket needs PATH" reconfigure limit 10 --socket

# --- docs/inputs.md: its option tables are `choke help --inputs` -------------
if grep -qxF "$BEGIN" "$INPUTS" && grep -qxF "$END" "$INPUTS"; then
	splice_inputs "$tmp/inputs" >"$tmp/inputs.md"
	if cmp -s "$tmp/inputs.md" "$INPUTS"; then ok "inputs.md: the tables are choke help --inputs"
	else bad inputs.md "differs from choke help --inputs (sh tests/help.sh --update-inputs): $(diff "$INPUTS" "$tmp/inputs.md" | head -5)"; fi
else bad inputs.md "no generated part between \"$BEGIN\" and \"$END\""; fi

# --- docs/inputs.md: the words' examples give the messages shown ----------
python3 - "$INPUTS" >"$tmp/words" <<'PY'
import re, sys
on = False
for line in open(sys.argv[1]):
    if line.startswith("## "):
        on = line.strip() == "## Words of a discipline"
    m = on and re.match(r"\|.*\| `([^`]*)`: `([^`]*)` \|$", line.rstrip("\n"))
    if m:
        print("%s\t%s" % (m.group(1), m.group(2)))
PY
nw=0
while IFS='	' read -r words msg; do
	st=$(run params $words)
	if [ "$st" = 1 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -s "$tmp/out" ]; then nw=$((nw + 1))
	else bad "inputs.md-words: $words" "status $st: $(cat "$tmp/err") (the table says \"$msg\")"; fi
done <"$tmp/words"
[ "$nw" -gt 10 ] && ok "inputs.md-words: $nw examples give their messages" ||
	bad inputs.md-words "only $nw examples found"

echo "help: $n tests, $fails failed"
[ $fails = 0 ]
