#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# libchoke.so's exports and debian/libchoke0.symbols name the same
# functions: dpkg-gensymbols (make deb) fails on any difference, and twice
# a new export reached CI that way. Usage: BUILD=build/gcc sh tests/symbols.sh
set -u
BUILD=${BUILD:-build/gcc}
so=$BUILD/libchoke.so
[ -f "$so" ] || { echo "symbols: $so not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
awk '/^ [^ ]+@Base/ { sub(/@Base.*/, "", $1); print $1 }' debian/libchoke0.symbols | sort -u >"$tmp/listed"
if cmp -s "$tmp/exported" "$tmp/listed"; then
	echo "ok   symbols: the $(wc -l <"$tmp/exported") exports of $so are the symbols file's"
	exit 0
fi
echo "FAIL symbols: $so's exports and debian/libchoke0.symbols differ (+ exported only, - listed only):"
diff "$tmp/listed" "$tmp/exported" | sed -n 's/^> /  + /p; s/^< /  - /p'
exit 1
