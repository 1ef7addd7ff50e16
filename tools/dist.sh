#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# make dist: the source tarball of a commit, reproducibly.
#
#   sh tools/dist.sh [REV] [OUTDIR]    (default HEAD, build/dist)
#
# Writes OUTDIR/choke-V.tar.gz (V: the file VERSION at REV), every file of
# REV's tree under choke-V/, and OUTDIR/choke-V.tar.gz.sha256 ("HASH  NAME",
# for sha256sum -c), and prints the hash. The same commit gives the same
# bytes on any machine, whatever the umask, time zone, user or locale: the
# files come from git (committed content only: never the working tree's
# changes, never build/), names sorted bytewise, every mtime the commit's
# date, owner and group 0 without names, modes 0644 or 0755 (the executable
# bit as committed) and 0755 for directories, POSIX pax headers without
# access or change times, gzip -n (no name, no time in its header).
# tests/dist.sh builds it twice and checks what the tarball holds and
# builds. docs/release.md is the procedure it belongs to.
set -eu
rev=${1:-HEAD}
top=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$top/build/dist}
cd "$top"
export LC_ALL=C TZ=UTC
for t in git tar gzip sha256sum; do
	command -v $t >/dev/null 2>&1 || { echo "dist: missing $t" >&2; exit 2; }
done
git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "dist: not a git checkout (a tarball is made from a commit)" >&2; exit 2; }
commit=$(git rev-parse --verify --quiet "$rev^{commit}") ||
	{ echo "dist: $rev is not a commit" >&2; exit 2; }
v=$(git show "$commit:VERSION" 2>/dev/null | head -1)
echo "$v" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' ||
	{ echo "dist: $rev has no VERSION (or not MAJOR.MINOR.PATCH: '$v')" >&2; exit 2; }
name=choke-$v
epoch=$(git log -1 --format=%ct "$commit")
if [ "$rev" = HEAD ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "dist: note: the working tree has uncommitted changes; the tarball is HEAD's" \
		"($(git rev-parse --short HEAD)) without them" >&2
fi

mkdir -p "$out"
tmp=$(mktemp -d "$out/.dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/tree"
git archive --format=tar --prefix="$name/" "$commit" | tar -C "$tmp/tree" -xf -
# (a symbolic link in the tree would keep its own target; there is none
# today, and tar stores links as links)
tar -C "$tmp/tree" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	--mode='u=rwX,go=rX' --format=pax \
	--pax-option='exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime' \
	-cf "$tmp/$name.tar" "$name"
gzip -9 -n <"$tmp/$name.tar" >"$tmp/$name.tar.gz"
(cd "$tmp" && sha256sum "$name.tar.gz") >"$tmp/$name.tar.gz.sha256"
mv "$tmp/$name.tar.gz" "$out/$name.tar.gz"
mv "$tmp/$name.tar.gz.sha256" "$out/$name.tar.gz.sha256"
n=$(tar -tzf "$out/$name.tar.gz" | grep -vc '/$')
echo "dist: $out/$name.tar.gz: $n files of $(git rev-parse --short "$commit")" \
	"($(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S UTC')), $(wc -c <"$out/$name.tar.gz") bytes"
echo "dist: sha256 $(cut -d' ' -f1 "$out/$name.tar.gz.sha256")  $name.tar.gz" \
	"(also in $out/$name.tar.gz.sha256)"
