#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# PID 1 of the User-Mode Linux guest that uml-boot.sh boots with the host's
# root file system (hostfs); it runs $CHOKE_GUEST (default: guest-suite.sh).
# Everything the guest writes goes to tmpfs mounts or to $CHOKE_RUN (a
# scratch folder under build/), also when the checkout is under /tmp. The
# kernel passes the CHOKE_* words of its command line to us as environment.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LC_ALL=C
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
# /tmp and /var/tmp get a tmpfs each, so that the guest never writes into
# the host's; but a host folder the harness handed us (CHOKE_ROOT,
# CHOKE_RUN, CHOKE_KDIR, the modules: any /tmp/NAME or /var/tmp/NAME in a
# CHOKE_* value, e.g. a checkout under /tmp) is bound back into that tmpfs,
# so that it stays visible.
scratch() { # DIR
	keep=$(env | grep "^CHOKE_" | grep -oE "[=,: ]$1/[^/,:= ]*" | cut -c2- | sort -u)
	if [ -n "$keep" ]; then
		mkdir -p "/run/host$1"
		mount --bind "$1" "/run/host$1"
	fi
	mount -t tmpfs tmpfs "$1"
	for p in $keep; do
		mkdir -p "$p" && mount --bind "/run/host$p" "$p" ||
			echo "guest-init: could not keep $p visible" >&2
	done
}
scratch /tmp
scratch /var/tmp
mount -t devtmpfs dev /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /run/netns
hostname choke-uml

if [ -n "${CHOKE_RUN:-}" ] && [ -d "$CHOKE_RUN" ] && cd "${CHOKE_ROOT:-/nonexistent}"; then
	sh "${CHOKE_GUEST:-tests/kernel/guest-suite.sh}" >"$CHOKE_RUN/guest.log" 2>&1
	echo $? >"$CHOKE_RUN/guest.rc"
	dmesg >"$CHOKE_RUN/dmesg.txt" 2>&1
else
	echo "guest-init: CHOKE_RUN/CHOKE_ROOT not usable" >&2
fi
sync
halt -f
echo o >/proc/sysrq-trigger 2>/dev/null
sleep 5
