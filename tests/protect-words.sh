#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# The candidate words of `protect` the evaluations measure (tests/protect-words,
# or PROTECT_WORDS='LABEL=WORDS;...' instead, or the argument in that form),
# printed as "LABEL|WORDS" lines; refuses a malformed row with a message and
# exit status 2. Used by tests/kernel/eval-peers.sh and tests/bridge-protect.sh
# (tools/eval-protect.py reads the same table itself).
#
#   sh tests/protect-words.sh ['LABEL=WORDS;LABEL2=WORDS2']
set -u
here=$(dirname "$0")
spec=${1:-${PROTECT_WORDS:-}}
if [ -n "$spec" ]; then
	printf '%s\n' "$spec" | tr ';' '\n'
else
	sed -e 's/#.*//' -e 's/[ 	]*|[ 	]*/=/' "$here/protect-words"
fi | awk '
	/^[ \t]*$/ { next }
	{
		i = index($0, "=")
		label = substr($0, 1, i - 1); words = substr($0, i + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", label); gsub(/^[ \t]+|[ \t]+$/, "", words)
		if (i == 0 || label == "" || words == "" || label !~ /^[A-Za-z0-9][A-Za-z0-9._+-]*$/) {
			printf "protect-words: expected LABEL=WORDS (LABEL of letters, digits, . _ + -), not \"%s\"\n", $0 > "/dev/stderr"
			bad = 1; exit 2
		}
		if (words ~ /[|;=]/) {
			printf "protect-words: the words of %s must not contain | ; or =\n", label > "/dev/stderr"
			bad = 1; exit 2
		}
		if (label in seen) {
			printf "protect-words: the label %s is given twice\n", label > "/dev/stderr"
			bad = 1; exit 2
		}
		seen[label] = 1; n++
		print label "|" words
	}
	END { if (!bad && n == 0) { print "protect-words: no words given" > "/dev/stderr"; exit 2 } }'
