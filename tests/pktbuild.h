/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Building frames for tests: Ethernet (with tags), IPv4 (options,
 * fragments), IPv6 (extension headers), transport headers. */
#ifndef CHOKE_TEST_PKTBUILD_H
#define CHOKE_TEST_PKTBUILD_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "choke/pkt.h"

struct pb {
	uint8_t d[4096];
	size_t len, l3;
};

static inline void pb_put16(struct pb *b, size_t at, uint16_t v)
{
	b->d[at] = (uint8_t)(v >> 8);
	b->d[at + 1] = (uint8_t)v;
}

static inline void pb_put16_raw(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pb_bytes(struct pb *b, size_t n, uint8_t v)
{
	memset(b->d + b->len, v, n);
	b->len += n;
}

/* Ethernet II with ntags VLAN tags (outer 802.1ad when ntags >= 2) */
static inline void pb_eth_tags(struct pb *b, int ntags, uint16_t type)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
	int t;

	memset(b, 0, sizeof(*b));
	memcpy(b->d, macs, 12);
	b->len = 12;
	for (t = 0; t < ntags; t++) {
		pb_put16(b, b->len, (uint16_t)(t == 0 && ntags >= 2 ? 0x88A8 : 0x8100));
		pb_put16(b, b->len + 2, (uint16_t)(100 + t));
		b->len += 4;
	}
	pb_put16(b, b->len, type);
	b->len += 2;
	b->l3 = b->len;
}

static inline void pb_eth(struct pb *b, uint16_t type)
{
	pb_eth_tags(b, 0, type);
}

/* IPv4 header with optlen bytes of NOP options (optlen a multiple of 4) */
static inline void pb_ipv4_full(struct pb *b, uint8_t proto, const char *src,
				const char *dst, int optlen, int mf,
				uint16_t frag8, uint8_t tos)
{
	uint8_t *h = b->d + b->len;

	b->l3 = b->len;
	h[0] = (uint8_t)(0x40 | (5 + optlen / 4));
	h[1] = tos;
	pb_put16(b, b->len + 6, (uint16_t)((mf ? 0x2000 : 0) | frag8));
	h[8] = 64;
	h[9] = proto;
	inet_pton(AF_INET, src, h + 12);
	inet_pton(AF_INET, dst, h + 16);
	memset(h + 20, 1, (size_t)optlen); /* NOP */
	b->len += 20 + (size_t)optlen;
}

static inline void pb_ipv4(struct pb *b, uint8_t proto, const char *src,
			   const char *dst, int mf, uint16_t frag8, uint8_t ecn)
{
	pb_ipv4_full(b, proto, src, dst, 0, mf, frag8, ecn);
}

static inline void pb_ipv4_opts(struct pb *b, uint8_t proto, const char *src,
				const char *dst, int optlen)
{
	pb_ipv4_full(b, proto, src, dst, optlen, 0, 0, 0);
}

static inline void pb_finish_ipv4(struct pb *b)
{
	uint8_t *h = b->d + b->l3;
	size_t ihl = (size_t)(h[0] & 15) * 4;
	uint16_t c;

	pb_put16(b, b->l3 + 2, (uint16_t)(b->len - b->l3));
	h[10] = h[11] = 0;
	c = choke_pkt_ipv4_checksum(h, ihl);
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
}

/* IPv6 header followed by the extension headers in chain[] (8 bytes each;
 * a fragment header gets offset frag8), ending with next header proto */
static inline void pb_ipv6(struct pb *b, const char *src, const char *dst,
			   const uint8_t *chain, int nchain, uint8_t proto,
			   uint16_t frag8, uint8_t tclass)
{
	uint8_t *h = b->d + b->len;
	int i;

	b->l3 = b->len;
	h[0] = (uint8_t)(0x60 | (tclass >> 4));
	h[1] = (uint8_t)(tclass << 4);
	h[6] = nchain ? chain[0] : proto;
	h[7] = 64;
	inet_pton(AF_INET6, src, h + 8);
	inet_pton(AF_INET6, dst, h + 24);
	b->len += 40;
	for (i = 0; i < nchain; i++) {
		uint8_t *e = b->d + b->len;

		memset(e, 0, 8);
		e[0] = i + 1 < nchain ? chain[i + 1] : proto;
		if (chain[i] == 44)
			pb_put16(b, b->len + 2, (uint16_t)(frag8 << 3));
		else
			e[1] = 0; /* (0 + 1) * 8 bytes */
		b->len += 8;
	}
}

static inline void pb_finish_ipv6(struct pb *b)
{
	pb_put16(b, b->l3 + 4, (uint16_t)(b->len - b->l3 - 40));
}

/* transport header of hdrlen bytes beginning with the two ports */
static inline void pb_ports(struct pb *b, uint16_t sport, uint16_t dport,
			    size_t hdrlen)
{
	memset(b->d + b->len, 0, hdrlen);
	pb_put16(b, b->len, sport);
	pb_put16(b, b->len + 2, dport);
	b->len += hdrlen;
}

static inline void pb_icmp_echo(struct pb *b, uint8_t type, uint16_t id)
{
	memset(b->d + b->len, 0, 8);
	b->d[b->len] = type;
	pb_put16(b, b->len + 4, id);
	b->len += 8;
}

#endif
