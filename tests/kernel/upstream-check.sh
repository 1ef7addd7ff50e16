#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Check the patch series in upstream/linux/ without a kernel git tree:
#  1. scripts/checkpatch.pl --strict (from the kernel source tree) on every
#     patch: no error, warning or check. Without a kernel git history
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
#     /usr/src/linux-headers-*-amd64 (Debian's kernels).
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
PATCHES=
for p in "$ROOT"/upstream/linux/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	PATCHES="$PATCHES $p"
done
[ -n "$PATCHES" ] || { say "no patches in upstream/linux"; exit 2; }
rm -rf "$OUT"; mkdir -p "$OUT"

# ---- 1, 2: checkpatch and the form of each patch
confirmed=$(sed -n 's/^| *`\([0-9a-f]\{12\}\)` *| *\(.*\) *|.*$/\1/p' upstream/linux/README.md)
for p in $PATCHES; do
	n=$(basename "$p")
	if [ -n "${KERNEL_GIT:-}" ]; then
		(cd "$KERNEL_GIT" && perl "$KTREE/scripts/checkpatch.pl" --strict "$p") > "$OUT/$n.checkpatch" 2>&1
	else
		(cd "$OUT" && perl "$KTREE/scripts/checkpatch.pl" --strict --no-tree \
			--ignore UNKNOWN_COMMIT_ID "$p") > "$OUT/$n.checkpatch" 2>&1
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
	case $subj in "net/sched: sch_choke: "*) ;; *) bad "$n: subject is not net/sched: sch_choke: ...: $subj" ;; esac
	grep -qxF "Signed-off-by: $from" "$p" || bad "$n: no Signed-off-by: matching From: $from"
	fixes=$(grep -c '^Fixes: [0-9a-f]\{12\} ("[^"]*")$' "$p")
	[ "$fixes" -ge 1 ] || bad "$n: no Fixes: <12-char id> (\"subject\") tag"
	for id in $(sed -n 's/^Fixes: \([0-9a-f]*\) .*/\1/p; s/.*commit \([0-9a-f]\{12\}\) ("[^"]*").*/\1/p' "$p"); do
		echo "$confirmed" | grep -qx "$id" || bad "$n: cites commit $id, which upstream/linux/README.md does not list as confirmed"
	done
	files=$(sed -n 's/^+++ b\///p' "$p" | sort -u | tr '\n' ' ')
	[ "$files" = "net/sched/sch_choke.c " ] || bad "$n: touches $files(only net/sched/sch_choke.c allowed)"
done

# ---- 3: the texts the series must apply to
python3 tests/kernel/mainline-texts.py "$KTREE/net/sched/sch_choke.c" "$OUT/texts" > "$OUT/texts.txt" || bad "mainline texts could not be rebuilt"
while read -r name blob state _; do
	t=$OUT/texts/$name
	cp -r "$t" "$t.fuzz0"
	ok=1
	for p in $PATCHES; do
		(cd "$t.fuzz0" && patch -p1 --fuzz=0 --quiet --no-backup-if-mismatch < "$p") >/dev/null 2>&1 || ok=0
	done
	gok=1
	(cd "$t" && git init -q . && git apply --check $PATCHES) >/dev/null 2>&1 || gok=0
	if [ $ok = 1 ] && [ $gok = 1 ]; then
		say "applies (patch -p1 --fuzz=0, git apply): $name, blob $blob ($state)"
	elif [ "$state" = unverified ] && [ "$name" = current ]; then
		cp -r "$OUT/texts/$name" "$t.fuzz"; rm -rf "$t.fuzz/.git"
		f=ok
		for p in $PATCHES; do
			(cd "$t.fuzz" && patch -p1 --no-backup-if-mismatch < "$p") >> "$t.fuzz.log" 2>&1 || f=FAILS
		done
		say "best-effort current text (blob $blob, unverified): no exact apply; with patch's default fuzz: $f ($(grep -o 'with fuzz [0-9]' "$t.fuzz.log" | sort -u | tr '\n' ' '))"
	else
		bad "does not apply to $name (blob $blob): patch -p1 --fuzz=0 $( [ $ok = 1 ] && echo ok || echo FAILS ), git apply $( [ $gok = 1 ] && echo ok || echo FAILS )"
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
exit $fail
