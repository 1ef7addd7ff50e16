#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Boot the harness's User-Mode Linux kernel with the host's root file system
# (hostfs) and run one guest script in it as root (tests/kernel/guest-init.sh
# is PID 1: tmpfs on /run, /tmp and /var/tmp, then the script, then halt).
#
#   tests/kernel/uml-boot.sh KDIR RUN_DIR SECONDS GUEST_SCRIPT [KEY=VALUE...]
#
# GUEST_SCRIPT is a path relative to the repository; its output goes to
# RUN_DIR/guest.log, its exit status to RUN_DIR/guest.rc, the kernel log to
# RUN_DIR/dmesg.txt and the console to RUN_DIR/console.log. KEY=VALUE words
# reach the script as environment (no spaces in values). The whole boot is
# bounded by SECONDS. The guest's memory is CHOKE_UML_MEM from the
# environment (default 768M; make bench-kernel's htb trees of cake leaves
# need more). Exit status: UML's (124 or 137 when it was killed).
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
KDIR=$1 RUN=$2 LIMIT=$3 GUEST=$4
MEM=${CHOKE_UML_MEM:-768M}
case $MEM in *[!0-9MG]*|'') echo "uml-boot: CHOKE_UML_MEM must be a size such as 768M or 3G" >&2; exit 2 ;; esac
shift 4
case $ROOT$RUN in *[!A-Za-z0-9/._-]*) echo "uml-boot: paths must not contain spaces or special characters (they go on the UML command line)" >&2; exit 2 ;; esac
[ -x "$KDIR/linux" ] || { echo "uml-boot: no $KDIR/linux (tests/kernel/build-uml.sh)" >&2; exit 2; }
mkdir -p "$RUN"
rm -f "$RUN/guest.rc"
cd "$RUN" && timeout -k 20 "$LIMIT" "$KDIR/linux" mem=$MEM rootfstype=hostfs rootflags=/ rw \
	init="$ROOT/tests/kernel/guest-init.sh" con0=fd:0,fd:1 con=null quiet \
	CHOKE_ROOT="$ROOT" CHOKE_RUN="$RUN" CHOKE_KDIR="$KDIR" CHOKE_GUEST="$GUEST" "$@" \
	</dev/null >"$RUN/console.log" 2>&1
