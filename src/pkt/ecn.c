// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/* ECN: reading the field and setting CE, as the kernel's INET_ECN_set_ce(). */
#include "choke/pkt.h"

_Static_assert(sizeof(struct choke_flow_key) == 40, "flow_key must have no padding");

bool choke_pkt_ecn_capable(const struct choke_pkt_info *info)
{
	return info->ip_version && info->ecn != CHOKE_ECN_NOT_ECT;
}

uint16_t choke_pkt_ipv4_checksum(const uint8_t *hdr, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)((hdr[i] << 8) | hdr[i + 1]);
	if (len & 1)
		sum += (uint32_t)hdr[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * RFC 1624 eqn. 3: when a 16-bit word of the header changes from m to m',
 * the checksum HC becomes HC' = ~(~HC + ~m + m') in one's complement
 * arithmetic (end-around carry), which never yields the -0 that eqn. 2 can.
 */
static uint16_t csum_replace16(uint16_t hc, uint16_t m, uint16_t m_new)
{
	uint32_t sum = (uint32_t)(uint16_t)~hc + (uint16_t)~m + m_new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

bool choke_pkt_ecn_set_ce(uint8_t *frame, size_t caplen, struct choke_pkt_info *info)
{
	size_t off = info->l3_off;

	if (!info->ip_version || info->ecn == CHOKE_ECN_NOT_ECT)
		return false;
	if (info->ecn == CHOKE_ECN_CE)
		return true;
	if (info->ip_version == 4) {
		uint8_t *h = frame + off;
		uint16_t old, new_word, hc;

		if (off > caplen || caplen - off < 20)
			return false;
		old = (uint16_t)((h[0] << 8) | h[1]);
		new_word = (uint16_t)(old | CHOKE_ECN_CE);
		hc = (uint16_t)((h[10] << 8) | h[11]);
		hc = csum_replace16(hc, old, new_word);
		h[1] |= CHOKE_ECN_CE;
		h[10] = (uint8_t)(hc >> 8);
		h[11] = (uint8_t)hc;
	} else {
		if (off > caplen || caplen - off < 2)
			return false;
		/* traffic class straddles bytes 0 and 1; ECN is bits 4-5 of byte 1 */
		frame[off + 1] |= (uint8_t)(CHOKE_ECN_CE << 4);
	}
	info->ecn = CHOKE_ECN_CE;
	return true;
}
