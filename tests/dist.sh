#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make check-dist: the release tarball (tools/dist.sh, make dist) of HEAD.
#
#   sh tests/dist.sh            (.ci/run runs it; about a minute)
#
# 1. Built twice, under another umask, time zone, locale and output
#    directory the second time: the same bytes, the same SHA-256, and the
#    .sha256 file checks with sha256sum -c.
# 2. What it holds: exactly the files of HEAD's tree under choke-VERSION/
#    (nothing of the working tree, no build/), each with its committed
#    executable bit, owner 0/0, every mtime the commit's date.
# 3. Unpacked in a directory of its own, away from the repository and
#    without .git: `make demo` prints the paper's comparison (CHOKe holds
#    the UDP flow near the fluid model's share), and the unit tests built
#    with gcc (choke-tests) pass. DEPS=no is passed on to make.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fails=0
ok() { echo "ok   dist/$1"; }
bad() { fails=$((fails + 1)); echo "FAIL dist/$1: $2"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/choke-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

v=$(git show HEAD:VERSION)
name=choke-$v
sh tools/dist.sh HEAD "$tmp/a" >"$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; bad build-a "tools/dist.sh failed"; exit 1; }
(umask 077; TZ=Pacific/Chatham LC_ALL=C.UTF-8 LANG=C.UTF-8 sh tools/dist.sh HEAD "$tmp/b") \
	>"$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; bad build-b "tools/dist.sh failed"; exit 1; }
tgz=$tmp/a/$name.tar.gz
if cmp -s "$tgz" "$tmp/b/$name.tar.gz" && cmp -s "$tgz.sha256" "$tmp/b/$name.tar.gz.sha256" &&
	(cd "$tmp/a" && sha256sum -c --quiet "$name.tar.gz.sha256") &&
	grep -q "^dist: sha256 $(cut -d' ' -f1 "$tgz.sha256")  $name.tar.gz" "$tmp/a.log"; then
	ok "reproducible: twice the same $(wc -c <"$tgz") bytes (umask 022 and 077, two time zones), sha256 $(cut -c1-16 "$tgz.sha256")..., printed and beside it"
else
	bad reproducible "the two tarballs or their sums differ: $(cat "$tgz.sha256" "$tmp/b/$name.tar.gz.sha256")"
fi

# what it holds, against HEAD's tree
epoch=$(git log -1 --format=%ct HEAD)
git ls-tree -r --format='%(objectmode) %(path)' HEAD 2>/dev/null >"$tmp/tree" ||
	git ls-tree -r HEAD | awk -F'\t' '{ split($1, m, " "); print m[1] " " $2 }' >"$tmp/tree"
sed "s|^100755 |x $name/|; s|^100644 |- $name/|; s|^120000 |l $name/|" "$tmp/tree" | sort >"$tmp/want"
tar --numeric-owner --full-time -tvzf "$tgz" >"$tmp/list"
awk '$1 !~ /^d/ { t = substr($1, 1, 1) == "l" ? "l" : (substr($1, 4, 1) == "x" ? "x" : "-");
	print t " " $6 }' "$tmp/list" | sort >"$tmp/got"
owners=$(awk '{ print $2 }' "$tmp/list" | sort -u)
times=$(awk '{ print $4 " " $5 }' "$tmp/list" | sort -u)
want_time=$(TZ= date -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
if cmp -s "$tmp/want" "$tmp/got" && [ "$owners" = 0/0 ] && [ "$times" = "$want_time" ] &&
	! tar -tzf "$tgz" | grep -q -e "^$name/build/" -e "^$name/.git/"; then
	ok "contents: the $(wc -l <"$tmp/want") files of HEAD, their executable bits, owner 0/0, all at $want_time"
else
	bad contents "$(diff "$tmp/want" "$tmp/got" | head -5) owners: $owners; times: $(echo $times | head -c 200)"
fi

# unpacked elsewhere, without git: make demo and the unit tests
mkdir "$tmp/elsewhere"
tar -C "$tmp/elsewhere" -xzf "$tgz"
src=$tmp/elsewhere/$name
if [ -e "$src/.git" ]; then
	bad unpack ".git in the tarball"
fi
if (cd "$src" && make ${DEPS:+DEPS=$DEPS} demo) >"$tmp/demo.out" 2>&1 &&
	share=$(sed -n 's/^UDP share of the link *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\)$/\3/p' "$tmp/demo.out") &&
	[ -n "$share" ] && awk -v s="$share" 'BEGIN { exit !(s >= 0.15 && s <= 0.35) }'; then
	ok "demo: make demo in the unpacked tarball: CHOKe's UDP share $share (fluid model 0.25)"
else
	bad demo "$(tail -5 "$tmp/demo.out")"
fi
if (cd "$src" && make ${DEPS:+DEPS=$DEPS} BUILD=build/gcc CC=gcc build/gcc/choke-tests &&
	./build/gcc/choke-tests) >"$tmp/unit.out" 2>&1; then
	ok "unit: gcc's choke-tests in the unpacked tarball: $(tail -1 "$tmp/unit.out")"
else
	bad unit "$(tail -5 "$tmp/unit.out")"
fi
echo "dist: $fails failed"
[ $fails = 0 ]
