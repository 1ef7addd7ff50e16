#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The core must stay freestanding (it is built into a kernel module too):
# no library calls but the compiler's own memset/memcpy/memmove, and no
# floating-point or vector registers.
set -eu
status=0
for obj in "$@"; do
	undef=$(nm -u "$obj" | awk '{print $2}' | grep -vE '^(memset|memcpy|memmove)$' || true)
	if [ -n "$undef" ]; then
		echo "FAIL freestanding: $obj calls outside the core: $undef"
		status=1
	fi
	fp=$(objdump -d --no-show-raw-insn "$obj" | grep -cE '%(x|y|z)mm[0-9]|%st|\bf(ld|st|add|mul|div)' || true)
	if [ "$fp" != 0 ]; then
		echo "FAIL freestanding: $obj uses floating-point/vector registers ($fp instructions)"
		status=1
	fi
	[ $status = 0 ] && echo "ok   freestanding: $obj"
done
exit $status
