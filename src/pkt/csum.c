// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/* TCP and UDP checksums over IPv4 and IPv6 (RFC 793, 768, 8200 section 8.1). */
#include "choke/pkt.h"

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The segment and the offset of its checksum field; 0 if not applicable. */
static size_t segment(const uint8_t *f, size_t caplen, const struct choke_pkt_info *info,
		      uint8_t proto, size_t *seglen, uint32_t *pseudo)
{
	size_t l3 = info->l3_off, l4 = info->l4_off, end, csum_at;

	if (!info->ip_version || !l4 || (info->flags & (CHOKE_FLOW_F_FRAGMENT | CHOKE_FLOW_F_L4_TRUNC)))
		return 0;
	if (proto == 6)
		csum_at = 16;
	else if (proto == 17)
		csum_at = 6;
	else
		return 0;
	if (info->ip_version == 4) {
		if (l3 + 20 > caplen)
			return 0;
		end = l3 + (size_t)((f[l3 + 2] << 8) | f[l3 + 3]);
		*pseudo = sum16(f + l3 + 12, 8, 0);
	} else {
		if (l3 + 40 > caplen)
			return 0;
		end = l3 + 40 + (size_t)((f[l3 + 4] << 8) | f[l3 + 5]);
		*pseudo = sum16(f + l3 + 8, 32, 0);
	}
	if (end > caplen || l4 + csum_at + 2 > end)
		return 0;
	*seglen = end - l4;
	*pseudo += proto + (uint32_t)(*seglen & 0xffff) + (uint32_t)(*seglen >> 16);
	return l4 + csum_at;
}

bool choke_pkt_l4_checksum_fill(uint8_t *frame, size_t caplen, const struct choke_pkt_info *info,
			  uint8_t proto)
{
	size_t seglen = 0;
	uint32_t pseudo = 0;
	size_t at = segment(frame, caplen, info, proto, &seglen, &pseudo);
	uint16_t c;

	if (!at)
		return false;
	frame[at] = frame[at + 1] = 0;
	c = (uint16_t)~fold(sum16(frame + info->l4_off, seglen, pseudo));
	if (c == 0 && proto != 6)
		c = 0xffff; /* UDP: 0 means "no checksum" */
	frame[at] = (uint8_t)(c >> 8);
	frame[at + 1] = (uint8_t)c;
	return true;
}

bool choke_pkt_l4_checksum_ok(const uint8_t *frame, size_t caplen,
			const struct choke_pkt_info *info, uint8_t proto)
{
	size_t seglen = 0;
	uint32_t pseudo = 0;

	if (!segment(frame, caplen, info, proto, &seglen, &pseudo))
		return false;
	return fold(sum16(frame + info->l4_off, seglen, pseudo)) == 0xffff;
}

bool choke_pkt_l4_checksum_partial(const uint8_t *frame, size_t caplen,
				   const struct choke_pkt_info *info, uint8_t proto)
{
	size_t seglen = 0;
	uint32_t pseudo = 0;
	size_t at = segment(frame, caplen, info, proto, &seglen, &pseudo);

	if (!at)
		return false;
	return (uint16_t)((frame[at] << 8) | frame[at + 1]) == fold(pseudo);
}
