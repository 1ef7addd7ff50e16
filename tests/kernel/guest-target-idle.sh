#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# SPDX-FileCopyrightText: 2026 The choke authors
# Inside the UML guest: check-kernel's case target-idle (guest-tbf.sh's
# target_idle_run: under a 4 Mbit/s tbf, chokeplus with `protect target 5ms
# sparse`, one flood at twice the link beside four light flows) N times in a
# row, each verdict on a line of its own: how much of the link the flood
# gets from the third second on, and second by second. For results.md
# 15.10; not part of CI. From the repository's root on the host:
#
#   sh tests/kernel/uml-boot.sh build/kernel/linux-source-6.1 RUNDIR 900 \
#       tests/kernel/guest-target-idle.sh CHOKE_KMOD=.../sch_libchoke.ko \
#       CHOKE_TC_LIB=build/gcc CHOKE_REPEATS=3
#
# Environment: CHOKE_RUN, CHOKE_KMOD, CHOKE_TC_LIB (the folder of
# q_chokeplus.so), CHOKE_REPEATS (default 3), CHOKE_SECS (default 15).
set -u
RUN=$CHOKE_RUN
export TC_LIB_DIR=$CHOKE_TC_LIB
SECS=${CHOKE_SECS:-15}
case ${CHOKE_REPEATS:-3} in
'' | *[!0-9]*) echo "guest-target-idle: CHOKE_REPEATS must be a number" >&2; exit 2 ;;
esac
sysctl -qw net.core.wmem_max=4194304 net.core.rmem_max=4194304 2>/dev/null
lsmod | grep -q '^sch_choke ' && rmmod sch_choke
if ! insmod "$CHOKE_KMOD"; then
	echo "guest-target-idle: insmod $CHOKE_KMOD failed" >&2
	exit 1
fi
. tests/kernel/guest-tbf.sh
fails=0
i=0
while [ "$i" -lt "${CHOKE_REPEATS:-3}" ]; do
	i=$((i + 1))
	if target_idle_run; then echo "run $i: $(cat "$RUN/cp-target-idle")"
	else echo "run $i FAILED: $(tail -3 "$RUN/cp-target-idle" | tr '\n' ' ')"; fails=$((fails + 1)); fi
done
quiet s c
exit $((fails != 0))
