/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * A fixed two-second load for the bridge's data path, in 100 us steps: a
 * UDP flood (57.7 Mbit/s) and eight ECN-capable TCP-like flows into a
 * 20 Mbit/s queue, an IPv6 flow, an ARP frame, a frame whose checksum a
 * local sender left to offload, an oversize frame; and acknowledgements the
 * other way. The same steps drive every version of the data path, so their
 * counters and renderings can be compared byte for byte.
 */
#ifndef CHOKE_TEST_BRIDGE_SCENARIO_H
#define CHOKE_TEST_BRIDGE_SCENARIO_H

#include <linux/if_packet.h>

#include "../pktbuild.h"

#define SCEN_STEPS 20000u
#define SCEN_STEP_NS 100000ull
#define SCEN_T0 1000000000ull

/* The frames arriving in step s on direction dir (0: in -> out, 1: back);
 * returns how many were written to f[] (at most 4), with their statuses. */
static inline int scen_frames(uint32_t s, int dir, struct pb f[4], uint32_t st[4])
{
	char src[32];
	int n = 0;

	if (dir == 1) {
		if (s % 20 == 0) {
			pb_eth(&f[n], 0x0800);
			pb_ipv4(&f[n], 6, "10.0.0.2", "10.0.0.3", 0, 0, 0);
			pb_ports(&f[n], 80, (uint16_t)(7000 + s / 20 % 8), 20);
			pb_finish_ipv4(&f[n]);
			st[n++] = 0;
		}
		return n;
	}
	if (s % 2 == 0) { /* the flood */
		pb_eth(&f[n], 0x0800);
		pb_ipv4(&f[n], 17, "10.0.0.1", "10.0.0.2", 0, 0, 0);
		pb_ports(&f[n], 5000, 6000, 8);
		pb_bytes(&f[n], 1400, 0);
		pb_finish_ipv4(&f[n]);
		st[n++] = s == 7000 ? TP_STATUS_CSUMNOTREADY : 0;
	}
	if (s % 50 < 8) { /* eight flows, 1.6 Mbit/s each, ECT(0) */
		snprintf(src, sizeof(src), "10.0.0.%u", 3 + s % 50);
		pb_eth(&f[n], 0x0800);
		pb_ipv4(&f[n], 6, src, "10.0.0.2", 0, 0, 2);
		pb_ports(&f[n], (uint16_t)(7000 + s % 50), 80, 20);
		pb_bytes(&f[n], 960, 0);
		pb_finish_ipv4(&f[n]);
		st[n++] = 0;
	}
	if (s % 100 == 1) {
		pb_eth(&f[n], 0x86DD);
		pb_ipv6(&f[n], "2001:db8::1", "2001:db8::2", NULL, 0, 17, 0, 0);
		pb_ports(&f[n], 4000, 4001, 8);
		pb_bytes(&f[n], 500, 0);
		pb_finish_ipv6(&f[n]);
		st[n++] = 0;
	}
	if (s == 5) {
		pb_eth(&f[n], 0x0806);
		pb_bytes(&f[n], 28, 1);
		st[n++] = 0;
	}
	if (s == 9) { /* larger than the output's MTU allows */
		pb_eth(&f[n], 0x0800);
		pb_ipv4(&f[n], 17, "10.0.0.9", "10.0.0.2", 0, 0, 0);
		pb_ports(&f[n], 9, 9, 8);
		pb_bytes(&f[n], 1560, 0);
		pb_finish_ipv4(&f[n]);
		st[n++] = 0;
	}
	return n;
}

#endif
