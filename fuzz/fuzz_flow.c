/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: the flow dissector and ECN marking on arbitrary frames.
 * Byte 0 picks the link type (its low 4 bits: Ethernet, raw IP, cooked v1,
 * IPv4, IPv6, cooked v2, an unknown one, BSD loopback NULL and LOOP, PPP,
 * PPP in HDLC framing, Cisco HDLC, 802.11, radiotap, NFLOG, PKTAP), the
 * rest is the frame. Checks: never reads past the frame (ASan), marking
 * keeps the key, sets CE, and keeps a valid IPv4 header checksum valid. */
#include <stdlib.h>
#include <string.h>

#include "choke/pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int lts[16] = { 1, 101, 113, 228, 229, 276, 999, 0,
				     108, 9, 50, 104, 105, 127, 239, 258 };
	struct choke_flow_key k, k2;
	struct choke_pkt_info i, i2;
	uint8_t *f;
	size_t n;
	int lt, csum_ok = 0;

	if (size < 1)
		return 0;
	lt = lts[data[0] & 15];
	n = size - 1;
	f = malloc(n ? n : 1); /* exactly n bytes: any overread is caught */
	memcpy(f, data + 1, n);
	choke_flow_key_from_frame(f, n, lt, &k, &i);
	if (i.ip_version == 4) {
		size_t ihl = (size_t)(f[i.l3_off] & 15) * 4;

		csum_ok = i.l3_off + ihl <= n && choke_pkt_ipv4_checksum(f + i.l3_off, ihl) == 0;
	}
	if (choke_pkt_ecn_capable(&i)) {
		if (!choke_pkt_ecn_set_ce(f, n, &i))
			abort();
		choke_flow_key_from_frame(f, n, lt, &k2, &i2);
		if (!choke_flow_key_equal(&k, &k2) || i2.ecn != CHOKE_ECN_CE)
			abort();
		if (csum_ok &&
		    choke_pkt_ipv4_checksum(f + i.l3_off, (size_t)(f[i.l3_off] & 15) * 4) != 0)
			abort();
	} else if (choke_pkt_ecn_set_ce(f, n, &i)) {
		abort();
	}
	(void)choke_flow_key_hash(&k, 1);
	free(f);
	return 0;
}
