#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Check the patch series in upstream/linux/ without a kernel git tree:
#  1. scripts/checkpatch.pl --strict --max-line-length=80 (from the kernel
#     source tree; netdev's CI's line length) on every patch: no error,
#     warning or check. Without a kernel git history
#     checkpatch cannot look commit ids up and flags every one of them
#     (UNKNOWN_COMMIT_ID); that one check is left out here and replaced by
#     a check that each id cited is one of those confirmed in
#     upstream/linux/README.md (with where it was confirmed). With
#     KERNEL_GIT=/path/to/linux.git set, checkpatch runs there in full.
#  2. the form netdev expects: subject "net/sched: sch_choke: ...", a
#     Fixes: tag, a Signed-off-by: matching From:, and nothing touched
#     outside net/sched/sch_choke.c;
#  3. the series applies with `patch -p1` and no fuzz, and with
#     `git apply --check`, to Debian's linux-source-6.1 text and to every
#     mainline text tests/kernel/mainline-texts.py rebuilds and verifies by
#     blob id; the unverified best-effort "current" text is reported only;
#  4. the patched file builds as a module against every
#     /usr/src/linux-headers-*-amd64 (Debian's kernels);
#  5. the selftest as net/0002 creates it and as net-next/0003 extends it
#     (applied with git apply) has no shellcheck -x finding, with
#     tests/kernel/selftest-lib.sh as its lib.sh: netdev's CI checks
#     shell scripts with shellcheck and wants a new one clean (SKIPPED
#     when shellcheck is not installed).
#
#   tests/kernel/upstream-check.sh KERNEL_TREE OUT_DIR
#
# KERNEL_TREE: an extracted linux-source-6.1 (the UML tree will do). Exit
# status 0 when everything holds; every failure is named.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
KTREE=$1 OUT=$2
fail=0
say() { echo "upstream-check: $*"; }
bad() { echo "upstream-check: FAIL: $*"; fail=1; }

[ -f "$KTREE/scripts/checkpatch.pl" ] || { say "no scripts/checkpatch.pl in $KTREE"; exit 2; }
KTREE=$(cd "$KTREE" && pwd)
UP=$ROOT/upstream/linux
PATCHES=$(ls "$UP"/net/0*.patch "$UP"/net/6.1/0*.patch "$UP"/net-next/0*.patch 2>/dev/null | grep -v '/0000-cover-letter.patch$')
FIX=$(ls "$UP"/net/0001-*.patch 2>/dev/null)
FIX61=$(ls "$UP"/net/6.1/0001-*.patch 2>/dev/null)
[ -n "$PATCHES" ] && [ -n "$FIX" ] && [ -n "$FIX61" ] || { say "no net series (net/0001, net/6.1/0001) in upstream/linux"; exit 2; }
rm -rf "$OUT"; mkdir -p "$OUT"

# ---- 1, 2: checkpatch and the form of each patch
confirmed=$(sed -n 's/^| *`\([0-9a-f]\{12\}\)` *| *\(.*\) *|.*$/\1/p' upstream/linux/README.md)
for p in $PATCHES; do
	n=$(basename "$p")
	# A new selftest file draws "does MAINTAINERS need updating?": its
	# folder, tools/testing/selftests/net/, is already under NETWORKING
	# [GENERAL], so that one warning is not asked of selftest patches.
	ign=
	case $n in *-selftests-*) ign="--ignore FILE_PATH_CHANGES" ;; esac
	if [ -n "${KERNEL_GIT:-}" ]; then
		(cd "$KERNEL_GIT" && perl "$KTREE/scripts/checkpatch.pl" --strict \
			--max-line-length=80 $ign "$p") > "$OUT/$n.checkpatch" 2>&1
	else
		(cd "$OUT" && perl "$KTREE/scripts/checkpatch.pl" --strict --no-tree \
			--max-line-length=80 --ignore UNKNOWN_COMMIT_ID $ign "$p") \
			> "$OUT/$n.checkpatch" 2>&1
	fi
	if grep -q '^total: 0 errors, 0 warnings, 0 checks' "$OUT/$n.checkpatch"; then
		say "$n: checkpatch --strict: $(grep '^total:' "$OUT/$n.checkpatch")"
	else
		bad "$n: checkpatch: $(grep -E '^(ERROR|WARNING|CHECK|total)' "$OUT/$n.checkpatch" | tr '\n' ' ')"
	fi
	# the headers, unfolded, as git am reads them
	info=$(git mailinfo /dev/null /dev/null < "$p")
	subj=$(echo "$info" | sed -n 's/^Subject: //p')
	from="$(echo "$info" | sed -n 's/^Author: //p') <$(echo "$info" | sed -n 's/^Email: //p')>"
	case $subj in
	"net/sched: sch_choke: "* | "selftests: net: sch_choke: "* | "net: flow_dissector: "*) ;;
	*) bad "$n: subject is not net/sched: sch_choke:, selftests: net: sch_choke: or net: flow_dissector: ...: $subj" ;;
	esac
	grep -qxF "Signed-off-by: $from" "$p" || bad "$n: no Signed-off-by: matching From: $from"
	case $p in
	*/net/0001-* | */net/6.1/0001-*)
		fixes=$(grep -c '^Fixes: [0-9a-f]\{12\} ("[^"]*")$' "$p")
		[ "$fixes" -ge 1 ] || bad "$n: no Fixes: <12-char id> (\"subject\") tag" ;;
	esac
	for id in $(sed -n 's/^Fixes: \([0-9a-f]*\) .*/\1/p; s/.*commit \([0-9a-f]\{12\}\) ("[^"]*").*/\1/p' "$p"); do
		echo "$confirmed" | grep -qx "$id" || bad "$n: cites commit $id, which upstream/linux/README.md does not list as confirmed"
	done
	files=$(sed -n 's/^+++ b\///p' "$p" | sort -u | tr '\n' ' ')
	case $subj in
	"net/sched: sch_choke: "*)
		[ "$files" = "net/sched/sch_choke.c " ] || bad "$n: touches $files(only net/sched/sch_choke.c allowed)" ;;
	"selftests: net: "*)
		for f in $files; do
			case $f in tools/testing/selftests/*) ;; *) bad "$n: a selftest patch touches $f" ;; esac
		done ;;
	esac
done

# ---- 3: the texts the series must apply to
python3 tests/kernel/mainline-texts.py "$KTREE/net/sched/sch_choke.c" "$OUT/texts" > "$OUT/texts.txt" || bad "mainline texts could not be rebuilt"
# applies TREE PATCH: patch -p1 --fuzz=0 and git apply --check both take it
applies() {
	rm -rf "$1.try"; cp -r "$1" "$1.try"
	(cd "$1.try" && patch -p1 --fuzz=0 --quiet --no-backup-if-mismatch < "$2") >/dev/null 2>&1 || return 1
	rm -rf "$1.try"; cp -r "$1" "$1.try"
	(cd "$1.try" && git init -q . && git apply --check "$2") >/dev/null 2>&1
}
while read -r name blob state _; do
	t=$OUT/texts/$name
	if applies "$t" "$FIX"; then
		say "net/$(basename "$FIX") applies (patch -p1 --fuzz=0, git apply): $name, blob $blob ($state)"
	elif [ "$name" = current ]; then
		bad "net/$(basename "$FIX") does not apply to the newest text ($name, blob $blob)"
	elif applies "$t" "$FIX61"; then
		say "the 6.1 backport applies (patch -p1 --fuzz=0, git apply): $name, blob $blob ($state)"
	else
		bad "neither net/0001 nor its 6.1 backport applies to $name (blob $blob)"
	fi
done < "$OUT/texts.txt"

# ---- 4: the patched linux-source-6.1 text as a module for Debian's kernels
n=0
for h in /usr/src/linux-headers-*-amd64; do
	[ -f "$h/Makefile" ] || continue
	v=${h#/usr/src/linux-headers-}
	if sh tests/kernel/upstream-mods.sh "$KTREE" "$OUT/mod-$v" "" 0 "$h" > "$OUT/mod-$v.log" 2>&1; then
		say "patched sch_choke.ko builds against $v"
		n=$((n + 1))
	else
		bad "patched sch_choke.ko does not build against $v: $(tail -3 "$OUT/mod-$v.log" | tr '\n' ' ')"
	fi
done
[ $n -gt 0 ] || say "no /usr/src/linux-headers-*-amd64: distribution build SKIPPED"

# ---- 5: shellcheck of the selftest, after net/0002 and after net-next/0003
ST=$(ls "$UP"/net/0002-*.patch 2>/dev/null)
ST3=$(ls "$UP"/net-next/0003-*.patch 2>/dev/null)
if ! command -v shellcheck >/dev/null 2>&1; then
	say "shellcheck not installed: the selftest's shellcheck SKIPPED"
elif [ -z "$ST" ] || [ -z "$ST3" ]; then
	bad "no selftest patch (net/0002, net-next/0003) to shellcheck"
else
	t=$OUT/selftest-tree
	rm -rf "$t"; mkdir -p "$t"
	sd=tools/testing/selftests/net
	for stage in net net-next; do
		p=$ST; [ $stage = net ] || p=$ST3
		if ! (cd "$t" && git init -q . &&
		      git apply --include="$sd/sch_choke.sh" "$p") > "$OUT/selftest-$stage.apply" 2>&1; then
			bad "$(basename "$p") does not apply ($stage): $(tr '\n' ' ' < "$OUT/selftest-$stage.apply")"
			break
		fi
		cp tests/kernel/selftest-lib.sh "$t/$sd/lib.sh"
		if (cd "$t/$sd" && shellcheck -x sch_choke.sh) > "$OUT/selftest-$stage.shellcheck" 2>&1; then
			say "selftest after $stage/$(basename "$p" | cut -c1-4): shellcheck $(shellcheck --version | sed -n 's/^version: //p'): no finding"
		else
			bad "selftest after $stage/$(basename "$p" | cut -c1-4): shellcheck -x findings: $(grep -o 'SC[0-9]* (' "$OUT/selftest-$stage.shellcheck" | tr -d ' (' | sort | uniq -c | tr -s ' \n' ' ')(in $OUT/selftest-$stage.shellcheck)"
		fi
	done
fi
exit $fail
