// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * Flow keys from raw frames. Every read goes through need(), which checks
 * the offset against the end of the captured (or, for IP, the declared)
 * data first. docs/flows.md is the definition this code implements.
 */
#include "choke/core.h"
#include "choke/pkt.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8
#define ETH_P_QINQ1 0x9100 /* pre-standard QinQ */
#define MAX_VLAN_TAGS 4
#define MAX_IPV6_EXT 8

struct cursor {
	const uint8_t *p;
	size_t end; /* bytes readable from p */
};

static inline bool need(const struct cursor *c, size_t off, size_t n)
{
	return off <= c->end && n <= c->end - off;
}

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* Fixed-size copies and clears: the compiler turns __builtin_memcpy of a
 * constant size into plain moves (no library call, kernel-safe). */
static inline void key_clear(struct choke_flow_key *k)
{
	static const struct choke_flow_key zero;

	__builtin_memcpy(k, &zero, sizeof(*k));
}

static inline void info_clear(struct choke_pkt_info *i)
{
	static const struct choke_pkt_info zero;

	*i = zero;
}

bool choke_pkt_linktype_supported(int linktype)
{
	switch (linktype) {
	case CHOKE_LINK_ETHERNET:
	case CHOKE_LINK_RAW:
	case CHOKE_LINK_LINUX_SLL:
	case CHOKE_LINK_IPV4:
	case CHOKE_LINK_IPV6:
	case CHOKE_LINK_LINUX_SLL2:
		return true;
	}
	return false;
}

/* Transport ports (or the ICMP echo identifier) at l4, bounded by c. */
static void parse_l4(const struct cursor *c, size_t l4, struct choke_flow_key *k,
		     struct choke_pkt_info *info, int ipv6)
{
	info->l4_off = (uint32_t)l4;
	switch (k->proto) {
	case 6:   /* TCP */
	case 17:  /* UDP */
	case 33:  /* DCCP */
	case 132: /* SCTP */
	case 136: /* UDP-Lite */
		if (!need(c, l4, 4)) {
			info->flags |= CHOKE_FLOW_F_L4_TRUNC;
			return;
		}
		k->sport = be16(c->p + l4);
		k->dport = be16(c->p + l4 + 2);
		return;
	case 1:  /* ICMP */
	case 58: /* ICMPv6 */
		if ((k->proto == 58) != (ipv6 != 0))
			return; /* ICMP inside IPv6 or ICMPv6 inside IPv4 */
		if (!need(c, l4, 1)) {
			info->flags |= CHOKE_FLOW_F_L4_TRUNC;
			return;
		}
		/* echo request/reply: the identifier tells pings apart */
		if ((!ipv6 && (c->p[l4] == 8 || c->p[l4] == 0)) ||
		    (ipv6 && (c->p[l4] == 128 || c->p[l4] == 129))) {
			if (!need(c, l4, 8)) {
				info->flags |= CHOKE_FLOW_F_L4_TRUNC;
				return;
			}
			k->sport = be16(c->p + l4 + 4);
		}
		return;
	}
}

static int malformed(struct choke_flow_key *k)
{
	uint16_t et = k->ethertype;

	key_clear(k);
	k->ethertype = et;
	k->kind = CHOKE_FLOW_KIND_MALFORMED;
	return CHOKE_FLOW_KIND_MALFORMED;
}

static int parse_ipv4(struct cursor c, size_t off, struct choke_flow_key *k,
		      struct choke_pkt_info *info)
{
	const uint8_t *h;
	size_t ihl, tot;
	uint16_t frag;

	if (!need(&c, off, 20))
		return malformed(k);
	h = c.p + off;
	if ((h[0] >> 4) != 4)
		return malformed(k);
	ihl = (size_t)(h[0] & 15) * 4;
	tot = be16(h + 2);
	if (ihl < 20 || tot < ihl)
		return malformed(k);
	/* the datagram ends at its total length (link padding follows) */
	if (off + tot < c.end)
		c.end = off + tot;
	k->kind = CHOKE_FLOW_KIND_IPV4;
	k->proto = h[9];
	__builtin_memcpy(k->src, h + 12, 4);
	__builtin_memcpy(k->dst, h + 16, 4);
	info->ip_version = 4;
	info->l3_off = (uint32_t)off;
	info->ecn = h[1] & 3;
	frag = be16(h + 6);
	if (frag & 0x3fff) {
		info->flags |= CHOKE_FLOW_F_FRAGMENT;
		if (frag & 0x1fff) {
			info->flags |= CHOKE_FLOW_F_LATER_FRAG;
			return CHOKE_FLOW_KIND_IPV4;
		}
	}
	if (!need(&c, off, ihl)) {
		info->flags |= CHOKE_FLOW_F_L4_TRUNC;
		return CHOKE_FLOW_KIND_IPV4;
	}
	parse_l4(&c, off + ihl, k, info, 0);
	return CHOKE_FLOW_KIND_IPV4;
}

static int parse_ipv6(struct cursor c, size_t off, struct choke_flow_key *k,
		      struct choke_pkt_info *info)
{
	const uint8_t *h;
	size_t pos, plen;
	uint8_t nh;
	int n;

	if (!need(&c, off, 40))
		return malformed(k);
	h = c.p + off;
	if ((h[0] >> 4) != 6)
		return malformed(k);
	plen = be16(h + 4);
	if (plen && off + 40 + plen < c.end) /* 0: jumbogram, use the capture */
		c.end = off + 40 + plen;
	k->kind = CHOKE_FLOW_KIND_IPV6;
	__builtin_memcpy(k->src, h + 8, 16);
	__builtin_memcpy(k->dst, h + 24, 16);
	info->ip_version = 6;
	info->l3_off = (uint32_t)off;
	info->ecn = (h[1] >> 4) & 3;
	nh = h[6];
	pos = off + 40;
	for (n = 0;; n++) {
		size_t len;

		switch (nh) {
		case 0:   /* hop-by-hop options */
		case 43:  /* routing */
		case 60:  /* destination options */
		case 135: /* mobility */
		case 139: /* HIP */
		case 140: /* shim6 */
			if (!need(&c, pos, 2))
				goto truncated;
			len = ((size_t)c.p[pos + 1] + 1) * 8;
			break;
		case 51: /* authentication header */
			if (!need(&c, pos, 2))
				goto truncated;
			len = ((size_t)c.p[pos + 1] + 2) * 4;
			break;
		case 44: /* fragment */
			if (!need(&c, pos, 8))
				goto truncated;
			info->flags |= CHOKE_FLOW_F_FRAGMENT;
			if (be16(c.p + pos + 2) & 0xfff8) {
				k->proto = c.p[pos];
				info->flags |= CHOKE_FLOW_F_LATER_FRAG;
				return CHOKE_FLOW_KIND_IPV6;
			}
			len = 8;
			break;
		default:
			k->proto = nh;
			parse_l4(&c, pos, k, info, 1);
			return CHOKE_FLOW_KIND_IPV6;
		}
		if (n >= MAX_IPV6_EXT) {
			k->proto = nh;
			info->flags |= CHOKE_FLOW_F_EXT_LIMIT;
			return CHOKE_FLOW_KIND_IPV6;
		}
		nh = c.p[pos];
		pos += len;
	}
truncated:
	k->proto = nh;
	info->flags |= CHOKE_FLOW_F_L4_TRUNC;
	return CHOKE_FLOW_KIND_IPV6;
}

/* From an ethertype at off on. */
static int parse_ethertype(struct cursor c, size_t off, uint16_t et,
			   struct choke_flow_key *k, struct choke_pkt_info *info)
{
	while ((et == ETH_P_8021Q || et == ETH_P_8021AD || et == ETH_P_QINQ1) &&
	       info->vlan_tags < MAX_VLAN_TAGS) {
		if (!need(&c, off, 4)) {
			k->ethertype = et;
			k->kind = CHOKE_FLOW_KIND_TRUNCATED;
			return CHOKE_FLOW_KIND_TRUNCATED;
		}
		et = be16(c.p + off + 2);
		off += 4;
		info->vlan_tags++;
	}
	k->ethertype = et;
	if (et == ETH_P_IP)
		return parse_ipv4(c, off, k, info);
	if (et == ETH_P_IPV6)
		return parse_ipv6(c, off, k, info);
	k->kind = CHOKE_FLOW_KIND_NONIP;
	return CHOKE_FLOW_KIND_NONIP;
}

int choke_flow_key_from_frame(const uint8_t *frame, size_t caplen, int linktype,
			struct choke_flow_key *key, struct choke_pkt_info *info)
{
	struct choke_pkt_info dummy;
	struct cursor c = { frame, caplen };

	if (!info)
		info = &dummy;
	key_clear(key);
	info_clear(info);
	if (!frame)
		c.end = 0;
	switch (linktype) {
	case CHOKE_LINK_ETHERNET: {
		uint16_t et;

		if (!need(&c, 0, 14)) {
			key->kind = CHOKE_FLOW_KIND_TRUNCATED;
			return CHOKE_FLOW_KIND_TRUNCATED;
		}
		et = be16(frame + 12);
		if (et < 0x0600) { /* an 802.3 length: LLC/SNAP, not Ethernet II */
			key->kind = CHOKE_FLOW_KIND_NONIP;
			return CHOKE_FLOW_KIND_NONIP;
		}
		return parse_ethertype(c, 14, et, key, info);
	}
	case CHOKE_LINK_LINUX_SLL:
		if (!need(&c, 0, 16)) {
			key->kind = CHOKE_FLOW_KIND_TRUNCATED;
			return CHOKE_FLOW_KIND_TRUNCATED;
		}
		return parse_ethertype(c, 16, be16(frame + 14), key, info);
	case CHOKE_LINK_LINUX_SLL2:
		if (!need(&c, 0, 20)) {
			key->kind = CHOKE_FLOW_KIND_TRUNCATED;
			return CHOKE_FLOW_KIND_TRUNCATED;
		}
		return parse_ethertype(c, 20, be16(frame), key, info);
	case CHOKE_LINK_RAW:
	case CHOKE_LINK_IPV4:
	case CHOKE_LINK_IPV6: {
		int v = need(&c, 0, 1) ? frame[0] >> 4 : 0;

		if ((linktype == CHOKE_LINK_IPV4 && v != 4) ||
		    (linktype == CHOKE_LINK_IPV6 && v != 6) || (v != 4 && v != 6)) {
			key->kind = CHOKE_FLOW_KIND_MALFORMED;
			return CHOKE_FLOW_KIND_MALFORMED;
		}
		key->ethertype = v == 4 ? ETH_P_IP : ETH_P_IPV6;
		return v == 4 ? parse_ipv4(c, 0, key, info) : parse_ipv6(c, 0, key, info);
	}
	}
	/* unknown link type: one flow for all its frames */
	key->kind = CHOKE_FLOW_KIND_NONIP;
	return CHOKE_FLOW_KIND_NONIP;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, 8); /* host byte order: the hash is per host */
	return v;
}

bool choke_flow_key_equal(const struct choke_flow_key *a, const struct choke_flow_key *b)
{
	const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
	uint64_t diff = 0;
	int i;

	for (i = 0; i < 40; i += 8)
		diff |= load64(x + i) ^ load64(y + i);
	return diff == 0;
}

/* ---- hash ---- */

/* 64x64 -> 128 multiply, folded */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint32_t choke_flow_key_hash(const struct choke_flow_key *k, uint64_t seed)
{
	const uint8_t *b = (const uint8_t *)k;
	uint64_t h = seed ^ 0xa0761d6478bd642full;

	h = mum(load64(b) ^ h, load64(b + 8) ^ 0xe7037ed1a0b428dbull);
	h = mum(load64(b + 16) ^ h, load64(b + 24) ^ 0x8ebc6af09c88c6e3ull);
	h = mum(load64(b + 32) ^ h, seed ^ 0x589965cc75374cc3ull);
	h = mum(h, 0x1d8e4e27c47d124full);
	return (uint32_t)(h ^ (h >> 32));
}

uint32_t choke_flow_identity(const struct choke_flow_key *k, int by, uint64_t seed)
{
	struct choke_flow_key h;

	if (by != CHOKE_PROTECT_BY_SRCHOST && by != CHOKE_PROTECT_BY_DSTHOST &&
	    by != CHOKE_PROTECT_BY_HOSTS)
		return choke_flow_key_hash(k, seed);
	h = *k;
	h.sport = h.dport = 0;
	h.proto = (uint8_t)(0xf0 | by); /* a host's value is not a flow's */
	if (by == CHOKE_PROTECT_BY_DSTHOST)
		__builtin_memset(h.src, 0, sizeof(h.src));
	if (by == CHOKE_PROTECT_BY_SRCHOST)
		__builtin_memset(h.dst, 0, sizeof(h.dst));
	return choke_flow_key_hash(&h, seed);
}
