#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# PID 1 of the User-Mode Linux guest that uml-boot.sh boots with the host's
# root file system (hostfs); it runs $CHOKE_GUEST (default: guest-suite.sh).
# Everything the guest writes goes to tmpfs mounts or to $CHOKE_RUN (a
# scratch folder under build/). The kernel passes the CHOKE_* words of its
# command line to us as environment.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LC_ALL=C
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /var/tmp
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
