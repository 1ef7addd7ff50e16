/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* pkt/: flow keys from constructed frames of every kind, truncation at every
 * length, random garbage, ECN marking against a full checksum. */
#include <stdlib.h>
#include <string.h>

#include "choke/core.h"
#include "choke/pkt.h"
#include "pktbuild.h"
#include "testlib.h"

/* Parse a copy of exactly len bytes on the heap, so that ASan and valgrind
 * see any read past the end. */
static int parse_exact(const uint8_t *f, size_t len, int lt, struct choke_flow_key *k,
		       struct choke_pkt_info *i)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, f, len);
	r = choke_flow_key_from_frame(copy, len, lt, k, i);
	free(copy);
	return r;
}

static void test_ipv4_tcp(void)
{
	struct pb b;
	struct choke_flow_key k;
	struct choke_pkt_info i;

	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 6, "10.0.0.1", "10.0.0.2", 0, 0, 2);
	pb_ports(&b, 40000, 80, 20);
	pb_finish_ipv4(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK_EQ(k.proto, 6);
	CHECK_EQ(k.sport, 40000);
	CHECK_EQ(k.dport, 80);
	CHECK_EQ(k.ethertype, 0x0800);
	CHECK(k.src[0] == 10 && k.src[3] == 1 && k.dst[3] == 2 && k.src[4] == 0);
	CHECK_EQ(i.l3_off, 14);
	CHECK_EQ(i.l4_off, 34);
	CHECK_EQ(i.ecn, 2);
	CHECK_EQ(i.flags, 0);
}

static void test_vlan_and_qinq(void)
{
	struct pb b;
	struct choke_flow_key k, k0;
	struct choke_pkt_info i;

	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 17, "192.168.1.1", "192.168.1.2", 0, 0, 0);
	pb_ports(&b, 5000, 53, 8);
	pb_finish_ipv4(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k0, &i);

	pb_eth_tags(&b, 2, 0x0800); /* 802.1ad outer, 802.1Q inner */
	pb_ipv4(&b, 17, "192.168.1.1", "192.168.1.2", 0, 0, 0);
	pb_ports(&b, 5000, 53, 8);
	pb_finish_ipv4(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK_EQ(i.vlan_tags, 2);
	CHECK_EQ(i.l3_off, 22);
	/* the tags are not part of the flow */
	CHECK(choke_flow_key_equal(&k, &k0));
	pb_eth_tags(&b, 1, 0x0800);
	pb_ipv4(&b, 17, "192.168.1.1", "192.168.1.2", 0, 0, 0);
	pb_ports(&b, 5000, 53, 8);
	pb_finish_ipv4(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK_EQ(i.vlan_tags, 1);
	CHECK(choke_flow_key_equal(&k, &k0));
}

static void test_ipv4_options_and_fragments(void)
{
	struct pb b;
	struct choke_flow_key k;
	struct choke_pkt_info i;

	/* IHL 8: 12 bytes of options before the ports */
	pb_eth(&b, 0x0800);
	pb_ipv4_opts(&b, 17, "1.2.3.4", "5.6.7.8", 12);
	pb_ports(&b, 1111, 2222, 8);
	pb_finish_ipv4(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK_EQ(i.l4_off, 14 + 32);
	CHECK_EQ(k.sport, 1111);
	CHECK_EQ(k.dport, 2222);
	/* first fragment (MF, offset 0): ports */
	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 17, "1.2.3.4", "5.6.7.8", 1, 0, 0);
	pb_ports(&b, 1111, 2222, 8);
	pb_finish_ipv4(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
	CHECK_EQ(k.sport, 1111);
	CHECK_EQ(i.flags, CHOKE_FLOW_F_FRAGMENT);
	/* a later fragment: no ports, even if bytes follow */
	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 17, "1.2.3.4", "5.6.7.8", 0, 185, 0);
	pb_ports(&b, 1111, 2222, 8);
	pb_finish_ipv4(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK_EQ(k.sport, 0);
	CHECK_EQ(k.dport, 0);
	CHECK_EQ(k.proto, 17);
	CHECK_EQ(i.flags, CHOKE_FLOW_F_FRAGMENT | CHOKE_FLOW_F_LATER_FRAG);
}

static void test_ipv6_extension_headers(void)
{
	struct pb b;
	struct choke_flow_key k;
	struct choke_pkt_info i;
	static const uint8_t chain[] = { 0, 43, 60, 44 };

	/* HBH, routing, dstopts, fragment (first), then UDP */
	pb_eth(&b, 0x86DD);
	pb_ipv6(&b, "2001:db8::1", "2001:db8::2", chain, 4, 17, 0, 0);
	pb_ports(&b, 7000, 7001, 8);
	pb_finish_ipv6(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV6);
	CHECK_EQ(k.proto, 17);
	CHECK_EQ(k.sport, 7000);
	CHECK_EQ(k.dport, 7001);
	CHECK_EQ(i.flags, CHOKE_FLOW_F_FRAGMENT);
	CHECK(k.src[0] == 0x20 && k.src[1] == 0x01 && k.src[15] == 1 && k.dst[15] == 2);
	/* later fragment */
	pb_eth(&b, 0x86DD);
	pb_ipv6(&b, "2001:db8::1", "2001:db8::2", chain, 4, 17, 100, 0);
	pb_ports(&b, 7000, 7001, 8);
	pb_finish_ipv6(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
	CHECK_EQ(k.sport, 0);
	CHECK_EQ(k.proto, 17);
	CHECK(i.flags & CHOKE_FLOW_F_LATER_FRAG);
	/* UDP-Lite, SCTP, and the same addresses with another source
	 * differing only in the last byte of the 16 (mainline would alias) */
	pb_eth(&b, 0x86DD);
	pb_ipv6(&b, "2001:db8::1", "2001:db8::3", NULL, 0, 136, 0, 0);
	pb_ports(&b, 9, 10, 8);
	pb_finish_ipv6(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
	CHECK_EQ(k.proto, 136);
	CHECK_EQ(k.sport, 9);
	CHECK_EQ(k.dst[15], 3);
	pb_eth(&b, 0x86DD);
	pb_ipv6(&b, "2001:db8::1", "2001:db8::3", NULL, 0, 132, 0, 0);
	pb_ports(&b, 36412, 36412, 12);
	pb_finish_ipv6(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
	CHECK_EQ(k.proto, 132);
	CHECK_EQ(k.sport, 36412);
}

static void test_ipv6_extension_loop_bounded(void)
{
	struct pb b;
	struct choke_flow_key k;
	struct choke_pkt_info i;
	uint8_t chain[40];

	memset(chain, 60, sizeof(chain)); /* 40 destination-options headers */
	pb_eth(&b, 0x86DD);
	pb_ipv6(&b, "fe80::1", "fe80::2", chain, 40, 6, 0, 0);
	pb_ports(&b, 1, 2, 20);
	pb_finish_ipv6(&b);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV6);
	CHECK(i.flags & CHOKE_FLOW_F_EXT_LIMIT);
	CHECK_EQ(k.proto, 60);
	CHECK_EQ(k.sport, 0);
}

static void test_icmp_echo(void)
{
	struct pb b;
	struct choke_flow_key k1, k2;
	struct choke_pkt_info i;

	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 1, "10.0.0.1", "10.0.0.2", 0, 0, 0);
	pb_icmp_echo(&b, 8, 0x1234);
	pb_finish_ipv4(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k1, &i);
	CHECK_EQ(k1.proto, 1);
	CHECK_EQ(k1.sport, 0x1234);
	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 1, "10.0.0.1", "10.0.0.2", 0, 0, 0);
	pb_icmp_echo(&b, 8, 0x4321);
	pb_finish_ipv4(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k2, &i);
	CHECK(!choke_flow_key_equal(&k1, &k2));
	/* ICMPv6 echo request */
	pb_eth(&b, 0x86DD);
	pb_ipv6(&b, "::1", "::2", NULL, 0, 58, 0, 0);
	pb_icmp_echo(&b, 128, 77);
	pb_finish_ipv6(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k1, &i);
	CHECK_EQ(k1.proto, 58);
	CHECK_EQ(k1.sport, 77);
}

static void test_link_types(void)
{
	struct pb b;
	struct choke_flow_key ke, k;
	struct choke_pkt_info i;
	uint8_t sll[2048];

	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 6, "10.1.1.1", "10.1.1.2", 0, 0, 0);
	pb_ports(&b, 1000, 2000, 20);
	pb_finish_ipv4(&b);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &ke, &i);
	/* raw IP (LINKTYPE_RAW and LINKTYPE_IPV4) */
	CHECK_EQ(parse_exact(b.d + 14, b.len - 14, CHOKE_LINK_RAW, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK(choke_flow_key_equal(&k, &ke));
	CHECK_EQ(i.l3_off, 0);
	CHECK_EQ(parse_exact(b.d + 14, b.len - 14, CHOKE_LINK_IPV4, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK(choke_flow_key_equal(&k, &ke));
	CHECK_EQ(parse_exact(b.d + 14, b.len - 14, CHOKE_LINK_IPV6, &k, &i),
		 CHOKE_FLOW_KIND_MALFORMED);
	/* Linux cooked v1: 16-byte header, protocol at 14 */
	memset(sll, 0, 16);
	sll[14] = 0x08;
	memcpy(sll + 16, b.d + 14, b.len - 14);
	CHECK_EQ(parse_exact(sll, b.len + 2, CHOKE_LINK_LINUX_SLL, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK(choke_flow_key_equal(&k, &ke));
	/* cooked v2: 20-byte header, protocol at 0 */
	memset(sll, 0, 20);
	sll[0] = 0x08;
	memcpy(sll + 20, b.d + 14, b.len - 14);
	CHECK_EQ(parse_exact(sll, b.len + 6, CHOKE_LINK_LINUX_SLL2, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK(choke_flow_key_equal(&k, &ke));
	CHECK(choke_pkt_linktype_supported(CHOKE_LINK_LINUX_SLL2));
	CHECK(!choke_pkt_linktype_supported(119)); /* Prism */
}

/*
 * Sample frames: QinQ-tagged IPv4 TCP with options, IPv6 UDP behind
 * hop-by-hop, routing and fragment headers, an IPv4 ICMP echo with ECT(0),
 * an ICMPv6 echo reply, ARP, and IPv6 UDP-Lite behind four tags and two
 * extension headers. All but ARP (SAMPLE_ARP) are IP.
 */
#define NSAMPLES 6
#define SAMPLE_ARP 4
static void sample_frames(struct pb *frames)
{
	static const uint8_t chain[] = { 0, 43, 44 };

	pb_eth_tags(&frames[0], 2, 0x0800);
	pb_ipv4_opts(&frames[0], 6, "1.1.1.1", "2.2.2.2", 8);
	pb_ports(&frames[0], 1, 2, 20);
	pb_finish_ipv4(&frames[0]);
	pb_eth(&frames[1], 0x86DD);
	pb_ipv6(&frames[1], "1::1", "2::2", chain, 3, 17, 0, 0);
	pb_ports(&frames[1], 3, 4, 8);
	pb_finish_ipv6(&frames[1]);
	pb_eth(&frames[2], 0x0800);
	pb_ipv4(&frames[2], 1, "1.1.1.1", "2.2.2.2", 0, 0, 2);
	pb_icmp_echo(&frames[2], 0, 5);
	pb_finish_ipv4(&frames[2]);
	pb_eth(&frames[3], 0x86DD);
	pb_ipv6(&frames[3], "1::1", "2::2", NULL, 0, 58, 0, 0);
	pb_icmp_echo(&frames[3], 129, 5);
	pb_finish_ipv6(&frames[3]);
	pb_eth(&frames[4], 0x0806);
	pb_bytes(&frames[4], 28, 1);
	pb_eth_tags(&frames[5], 4, 0x86DD);
	pb_ipv6(&frames[5], "1::1", "2::2", chain, 2, 136, 0, 0);
	pb_ports(&frames[5], 3, 4, 8);
	pb_finish_ipv6(&frames[5]);
}

/*
 * The other link types: the IP packet of an Ethernet frame wrapped in each
 * (every variant of its header, docs/flows.md), as the frame out. Returns
 * the frame's length, 0 when the link type has no such variant.
 */
enum { W_NVARIANTS = 8 };

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* an NFLOG TLV's header: length and type in host order, or swapped */
static void nflog_tlv_hdr(uint8_t *p, uint16_t type, size_t n, int swap)
{
	uint16_t len = (uint16_t)(4 + n), t = type;

	if (swap) {
		len = (uint16_t)(len >> 8 | len << 8);
		t = (uint16_t)(t >> 8 | t << 8);
	}
	memcpy(p, &len, 2);
	memcpy(p + 2, &t, 2);
}

/* a whole TLV with its padding; returns the bytes written */
static size_t nflog_tlv(uint8_t *p, uint16_t type, const uint8_t *v, size_t n, int swap)
{
	nflog_tlv_hdr(p, type, n, swap);
	memcpy(p + 4, v, n);
	memset(p + 4 + n, 0, (4 - n % 4) % 4);
	return 4 + ((n + 3) & ~(size_t)3);
}

/* an 802.11 data frame's header and LLC/SNAP: variant v (0 plain data to
 * the AP, 1 QoS data, 2 QoS with four addresses and +HTC, 3 A-MSDU, 4 the
 * 802.1H OUI); pad: to a multiple of 4 (radiotap's flag) */
static size_t wifi_hdr(uint8_t *f, int v, int pad, uint16_t et)
{
	size_t n;

	memset(f, 0, 64);
	f[0] = v == 0 || v == 4 ? 0x08 : 0x88; /* data, QoS data */
	f[1] = v == 2 ? 0x83 : 0x01;           /* to DS (and from DS, +HTC) */
	memset(f + 4, 0x11, 18);               /* addresses */
	n = v == 2 ? 30 : 24;
	if (f[0] == 0x88) {
		f[n] = v == 3 ? 0x80 : 0x05; /* A-MSDU present, or TID 5 */
		n += v == 2 ? 6 : 2;
	}
	if (pad)
		n = (n + 3) & ~(size_t)3;
	if (v == 3)
		n += 14; /* the subframe's DA, SA, length */
	f[n] = 0xaa;
	f[n + 1] = 0xaa;
	f[n + 2] = 0x03;
	f[n + 5] = v == 4 ? 0xf8 : 0;
	pb_put16_raw(f + n + 6, et);
	return n + 8;
}

static size_t wrap(const struct pb *b, int lt, int v, uint8_t *f)
{
	const uint8_t *ip = b->d + b->l3;
	size_t iplen = b->len - b->l3, n = 0;
	int v6 = ip[0] >> 4 == 6, swap;
	uint16_t et = v6 ? 0x86DD : 0x0800;

	switch (lt) {
	case CHOKE_LINK_NULL:
	case CHOKE_LINK_LOOP: {
		static const uint32_t af6[4] = { 30, 24, 28, 30 };
		uint32_t af = v6 ? af6[v & 3] : 2;

		if (v >= 4)
			return 0;
		if ((lt == CHOKE_LINK_LOOP) != (v >= 2)) /* its own order, or the other */
			put_be32(f, af);
		else
			put_le32(f, af);
		n = 4;
		break;
	}
	case CHOKE_LINK_PPP:
	case CHOKE_LINK_PPP_HDLC:
		if (v >= (lt == CHOKE_LINK_PPP ? 4 : 2))
			return 0;
		if (lt == CHOKE_LINK_PPP_HDLC && v == 1) { /* Cisco HDLC framing */
			f[0] = 0x8f;
			f[1] = 0;
			pb_put16_raw(f + 2, et);
			n = 4;
			break;
		}
		if (v != 1 && v != 2) { /* address and control */
			f[n++] = 0xff;
			f[n++] = 0x03;
		}
		if (v != 2 && v != 3) /* not compressed: two bytes */
			f[n++] = 0;
		f[n++] = v6 ? 0x57 : 0x21;
		break;
	case CHOKE_LINK_C_HDLC:
		if (v >= 2)
			return 0;
		f[0] = v ? 0x8f : 0x0f;
		f[1] = 0;
		pb_put16_raw(f + 2, et);
		n = 4;
		break;
	case CHOKE_LINK_IEEE802_11:
		if (v >= 5)
			return 0;
		n = wifi_hdr(f, v, 0, et);
		break;
	case CHOKE_LINK_IEEE802_11_RADIO:
		/* 0: no fields; 1: TSFT and Flags with the padding flag; 2: an
		 * extended presence bitmap, then Flags without it */
		if (v >= 3)
			return 0;
		memset(f, 0, 32);
		if (v == 0) {
			n = 8;
		} else if (v == 1) {
			put_le32(f + 4, 3);
			f[16] = 0x20; /* padding after the 802.11 header */
			n = 18;
		} else {
			put_le32(f + 4, 0x80000002u);
			put_le32(f + 8, 0x20000000u);
			f[12] = 0x10; /* FCS at the end: no padding */
			n = 13;
		}
		put_le16(f + 2, (uint16_t)n);
		n += wifi_hdr(f + n, 1, v == 1, et);
		break;
	case CHOKE_LINK_NFLOG: {
		static const uint8_t hdr[4] = { 0x08, 0x00, 0x03, 0x00 };
		static const uint8_t prefix[] = "choke";

		if (v >= 2)
			return 0;
		swap = v;
		f[0] = v6 ? 10 : 2;
		f[1] = 0;
		f[2] = 0;
		f[3] = 5;
		n = 4;
		n += nflog_tlv(f + n, 1, hdr, 4, swap);                  /* packet header */
		n += nflog_tlv(f + n, 10, prefix, sizeof(prefix), swap); /* prefix */
		/* the payload's header; the packet follows, unpadded at the end */
		nflog_tlv_hdr(f + n, 9, iplen, swap);
		n += 4;
		break;
	}
	case CHOKE_LINK_PKTAP: {
		/* an inner Ethernet frame, BSD loopback, or raw IP (DLT 12) */
		static const uint32_t dlt[3] = { 1, 0, 12 };

		if (v >= 3)
			return 0;
		memset(f, 0, 108);
		put_le32(f, 108);
		put_le32(f + 4, 1);
		put_le32(f + 8, dlt[v]);
		memcpy(f + 12, "en0", 3);
		n = 108;
		if (v == 0) {
			memcpy(f + n, b->d, b->l3);
			n += b->l3;
		} else if (v == 1) {
			put_le32(f + n, v6 ? 30 : 2);
			n += 4;
		}
		break;
	}
	default:
		return 0;
	}
	memcpy(f + n, ip, iplen);
	return n + iplen;
}

static const int other_links[] = { CHOKE_LINK_NULL, CHOKE_LINK_LOOP, CHOKE_LINK_PPP,
				   CHOKE_LINK_PPP_HDLC, CHOKE_LINK_C_HDLC,
				   CHOKE_LINK_IEEE802_11, CHOKE_LINK_IEEE802_11_RADIO,
				   CHOKE_LINK_NFLOG, CHOKE_LINK_PKTAP };
#define NOTHER (sizeof(other_links) / sizeof(other_links[0]))

static void test_other_link_types(void)
{
	struct pb b[NSAMPLES];
	uint8_t f[2048];
	size_t t, l, n;
	int v, variants = 0;

	sample_frames(b);
	for (t = 0; t < NSAMPLES; t++) {
		struct choke_flow_key ke, k;
		struct choke_pkt_info ie, i;

		if (t == SAMPLE_ARP)
			continue;
		parse_exact(b[t].d, b[t].len, CHOKE_LINK_ETHERNET, &ke, &ie);
		for (l = 0; l < NOTHER; l++) {
			CHECK(choke_pkt_linktype_supported(other_links[l]));
			for (v = 0; v < W_NVARIANTS; v++) {
				n = wrap(&b[t], other_links[l], v, f);
				if (!n)
					continue;
				variants++;
				CHECK_EQ(parse_exact(f, n, other_links[l], &k, &i), ke.kind);
				if (!choke_flow_key_equal(&k, &ke)) {
					CHECK(!"the key is the Ethernet frame's");
					printf("    link type %d variant %d frame %zu\n", other_links[l], v, t);
				}
				CHECK_EQ(i.ecn, ie.ecn);
				CHECK_EQ(i.l4_off - i.l3_off, ie.l4_off - ie.l3_off);
				CHECK(memcmp(f + i.l3_off, b[t].d + b[t].l3, 20) == 0);
				/* ECN marking finds the packet through the link header */
				if (choke_pkt_ecn_capable(&i)) {
					CHECK(choke_pkt_ecn_set_ce(f, n, &i));
					CHECK_EQ(f[i.l3_off + 1] & 3, 3);
					CHECK_EQ(choke_pkt_ipv4_checksum(f + i.l3_off, 20), 0);
				}
			}
		}
	}
	CHECK_EQ(variants, (NSAMPLES - 1) * 29);
}

/* what is not IP on the other links: a wrapped frame with a few bytes
 * changed (or cut), and the kind and ethertype it gets */
static const struct {
	const char *what;
	int lt, frame, variant; /* wrap(sample frame, lt, variant) */
	size_t len;             /* cut to this length (0: as it is) */
	struct {
		int at;         /* -1: the end of the list */
		uint8_t val;
	} e[4];
	int kind;
	uint16_t et;
} other_non_ip[] = {
#define E(...) { __VA_ARGS__, { -1, 0 } }
	{ "NULL: OSI", CHOKE_LINK_NULL, 2, 0, 0, E({ 0, 7 }), CHOKE_FLOW_KIND_NONIP, 0 },
	{ "LOOP: IPX", CHOKE_LINK_LOOP, 2, 0, 0, E({ 3, 23 }), CHOKE_FLOW_KIND_NONIP, 0 },
	{ "NULL: AF_INET, an IPv6 packet", CHOKE_LINK_NULL, 3, 0, 0, E({ 0, 2 }),
	  CHOKE_FLOW_KIND_MALFORMED, 0x0800 },
	{ "PPP: LCP", CHOKE_LINK_PPP, 2, 0, 0, E({ 2, 0xc0 }), CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PPP in HDLC: IPCP", CHOKE_LINK_PPP_HDLC, 2, 0, 0, E({ 2, 0x80 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PPP: an odd compressed protocol", CHOKE_LINK_PPP, 2, 2, 0, E({ 0, 0x23 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PPP in HDLC: neither PPP nor Cisco", CHOKE_LINK_PPP_HDLC, 2, 0, 0, E({ 0, 0x42 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "Cisco HDLC: SLARP", CHOKE_LINK_C_HDLC, 2, 0, 0, E({ 2, 0x80 }, { 3, 0x35 }),
	  CHOKE_FLOW_KIND_NONIP, 0x8035 },
	{ "802.11: a beacon", CHOKE_LINK_IEEE802_11, 2, 0, 0, E({ 0, 0x80 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "802.11: an ACK", CHOKE_LINK_IEEE802_11, 2, 0, 10, E({ 0, 0xd4 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "802.11: null data", CHOKE_LINK_IEEE802_11, 2, 0, 0, E({ 0, 0x48 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "802.11: protected", CHOKE_LINK_IEEE802_11, 2, 0, 0, E({ 1, 0x41 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "802.11: LLC, not SNAP", CHOKE_LINK_IEEE802_11, 2, 0, 0, E({ 24, 0x42 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "802.11: SNAP with Cisco's OUI", CHOKE_LINK_IEEE802_11, 2, 0, 0, E({ 29, 0x0c }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "802.11: ARP", CHOKE_LINK_IEEE802_11, 2, 1, 0, E({ 32, 0x08 }, { 33, 0x06 }),
	  CHOKE_FLOW_KIND_NONIP, 0x0806 },
	{ "radiotap: a beacon", CHOKE_LINK_IEEE802_11_RADIO, 2, 1, 0, E({ 18, 0x80 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "radiotap: version 1", CHOKE_LINK_IEEE802_11_RADIO, 2, 1, 0, E({ 0, 1 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "NFLOG: family 7", CHOKE_LINK_NFLOG, 2, 0, 0, E({ 0, 7 }), CHOKE_FLOW_KIND_NONIP, 0 },
	{ "NFLOG: version 1", CHOKE_LINK_NFLOG, 2, 0, 0, E({ 1, 1 }), CHOKE_FLOW_KIND_NONIP, 0 },
	{ "NFLOG: no payload", CHOKE_LINK_NFLOG, 2, 0, 4 + 8 + 12, E({ -1, 0 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "NFLOG: a first TLV of length 0", CHOKE_LINK_NFLOG, 2, 0, 0, E({ 4, 0 }, { 5, 0 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PKTAP: not a packet", CHOKE_LINK_PKTAP, 2, 0, 0, E({ 4, 0 }), CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PKTAP: in PKTAP", CHOKE_LINK_PKTAP, 2, 0, 0, E({ 8, 2 }, { 9, 1 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PKTAP: an unknown DLT", CHOKE_LINK_PKTAP, 2, 0, 0, E({ 8, 147 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PKTAP: a header of 40 bytes", CHOKE_LINK_PKTAP, 2, 0, 0, E({ 0, 40 }),
	  CHOKE_FLOW_KIND_NONIP, 0 },
	{ "PKTAP: a header longer than the frame", CHOKE_LINK_PKTAP, 2, 0, 0,
	  E({ 0, 0xa0 }, { 1, 0x0f }), CHOKE_FLOW_KIND_TRUNCATED, 0 },
#undef E
};

static void test_other_links_non_ip(void)
{
	struct pb b[NSAMPLES];
	struct choke_flow_key k;
	struct choke_pkt_info i;
	uint8_t f[2048];
	size_t c, n;
	int e;

	sample_frames(b);
	for (c = 0; c < sizeof(other_non_ip) / sizeof(other_non_ip[0]); c++) {
		n = wrap(&b[other_non_ip[c].frame], other_non_ip[c].lt, other_non_ip[c].variant, f);
		REQUIRE(n > 0);
		for (e = 0; other_non_ip[c].e[e].at >= 0; e++)
			f[other_non_ip[c].e[e].at] = other_non_ip[c].e[e].val;
		if (other_non_ip[c].len)
			n = other_non_ip[c].len;
		if (parse_exact(f, n, other_non_ip[c].lt, &k, &i) != other_non_ip[c].kind ||
		    k.ethertype != other_non_ip[c].et ||
		    (k.kind != CHOKE_FLOW_KIND_IPV4 && (k.src[0] | k.sport | k.proto))) {
			CHECK(!"kind and ethertype as listed");
			printf("    %s: kind %d ethertype 0x%04x\n", other_non_ip[c].what, k.kind,
			       k.ethertype);
		}
	}
}

/* Every prefix of every wrapped frame: nothing read past it (the copy is
 * exactly that long), the key only ever loses information. */
static void test_other_links_every_length(void)
{
	struct pb b[NSAMPLES];
	uint8_t f[2048];
	size_t t, l, n, len;
	int v, kinds = 0;

	sample_frames(b);
	for (t = 0; t < NSAMPLES; t++)
		for (l = 0; l < NOTHER; l++)
			for (v = 0; v < W_NVARIANTS && t != SAMPLE_ARP; v++) {
				struct choke_flow_key full, k;
				struct choke_pkt_info i;

				n = wrap(&b[t], other_links[l], v, f);
				if (!n)
					continue;
				parse_exact(f, n, other_links[l], &full, &i);
				for (len = 0; len < n; len++) {
					int r = parse_exact(f, len, other_links[l], &k, &i);

					CHECK_EQ(r, k.kind);
					if (r == full.kind)
						CHECK(memcmp(k.src, full.src, 32) == 0);
					kinds |= 1 << r;
				}
			}
	CHECK(kinds & (1 << CHOKE_FLOW_KIND_TRUNCATED));
	CHECK(kinds & (1 << CHOKE_FLOW_KIND_MALFORMED));
	CHECK(kinds & (1 << CHOKE_FLOW_KIND_IPV4));
}

static void test_non_ip_and_malformed(void)
{
	struct pb b;
	struct choke_flow_key k, k2;
	struct choke_pkt_info i;

	/* ARP: per ethertype */
	pb_eth(&b, 0x0806);
	pb_bytes(&b, 28, 0xab);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_NONIP);
	CHECK_EQ(k.ethertype, 0x0806);
	pb_eth(&b, 0x0806);
	pb_bytes(&b, 28, 0xcd);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k2, &i);
	CHECK(choke_flow_key_equal(&k, &k2));
	/* 802.3 length field: LLC */
	pb_eth(&b, 46);
	pb_bytes(&b, 46, 0x42);
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_NONIP);
	CHECK_EQ(k.ethertype, 0);
	/* bad IHL */
	pb_eth(&b, 0x0800);
	pb_ipv4(&b, 6, "10.0.0.1", "10.0.0.2", 0, 0, 0);
	pb_ports(&b, 1, 2, 20);
	pb_finish_ipv4(&b);
	b.d[14] = 0x43; /* IHL 3 */
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_MALFORMED);
	CHECK_EQ(k.ethertype, 0x0800);
	CHECK_EQ(k.src[0], 0);
	b.d[14] = 0x45;
	b.d[16] = 0;
	b.d[17] = 10; /* total length below the header */
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_MALFORMED);
	b.d[16] = 0;
	b.d[17] = 22; /* total length cuts the ports: they are not read */
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_IPV4);
	CHECK_EQ(k.sport, 0);
	CHECK(i.flags & CHOKE_FLOW_F_L4_TRUNC);
	b.d[14] = 0x65; /* version 6 in an IPv4 ethertype */
	CHECK_EQ(parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_MALFORMED);
	/* a frame shorter than an Ethernet header */
	CHECK_EQ(parse_exact(b.d, 13, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_TRUNCATED);
	CHECK_EQ(parse_exact(b.d, 0, CHOKE_LINK_ETHERNET, &k, &i), CHOKE_FLOW_KIND_TRUNCATED);
	CHECK_EQ(choke_flow_key_from_frame(NULL, 0, CHOKE_LINK_RAW, &k, &i), CHOKE_FLOW_KIND_MALFORMED);
}

/* Every prefix of every kind of frame parses without reading past it. */
static void test_truncation_at_every_length(void)
{
	struct pb frames[NSAMPLES];
	size_t f, len;
	int kinds = 0;

	sample_frames(frames);
	for (f = 0; f < NSAMPLES; f++) {
		struct choke_flow_key full, k;
		struct choke_pkt_info i;

		parse_exact(frames[f].d, frames[f].len, CHOKE_LINK_ETHERNET, &full, &i);
		for (len = 0; len <= frames[f].len; len++) {
			int r = parse_exact(frames[f].d, len, CHOKE_LINK_ETHERNET, &k, &i);

			CHECK(r >= CHOKE_FLOW_KIND_IPV4 && r <= CHOKE_FLOW_KIND_TRUNCATED);
			CHECK_EQ(r, k.kind);
			/* the key only ever loses information: ports vanish, kind
			 * degrades, never a different address */
			if (r == full.kind && full.kind <= CHOKE_FLOW_KIND_IPV6)
				CHECK(memcmp(k.src, full.src, 32) == 0);
			kinds |= 1 << r;
		}
		/* the raw-IP view of the same bytes */
		for (len = 0; len + frames[f].l3 <= frames[f].len; len++)
			parse_exact(frames[f].d + frames[f].l3, len, CHOKE_LINK_RAW, &k, &i);
	}
	CHECK(kinds & (1 << CHOKE_FLOW_KIND_TRUNCATED));
	CHECK(kinds & (1 << CHOKE_FLOW_KIND_MALFORMED));
}

static void test_random_garbage(void)
{
	uint64_t x = 12345;
	int n, count = tl_quick ? 20000 : 200000;
	static const int lts[] = { 1, 101, 113, 228, 229, 276, 999, 0, 108, 9, 50,
				   104, 105, 127, 239, 258 };

	for (n = 0; n < count; n++) {
		uint8_t buf[256];
		size_t len, j;
		struct choke_flow_key k;
		struct choke_pkt_info i;
		int r;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = x % 200;
		for (j = 0; j < len; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[j] = (uint8_t)x;
		}
		/* make IP likelier */
		if (len > 14 && (n & 1)) {
			buf[12] = (n & 2) ? 0x08 : 0x86;
			buf[13] = (n & 2) ? 0x00 : 0xDD;
			buf[14] = (uint8_t)((n & 2) ? 0x45 : 0x60);
		}
		r = parse_exact(buf, len, lts[n % 16], &k, &i);
		CHECK(r >= CHOKE_FLOW_KIND_IPV4 && r <= CHOKE_FLOW_KIND_TRUNCATED);
		if (choke_pkt_ecn_capable(&i)) {
			uint8_t *copy = malloc(len);

			memcpy(copy, buf, len);
			CHECK(choke_pkt_ecn_set_ce(copy, len, &i));
			free(copy);
		}
	}
}

static void test_ecn_marking(void)
{
	uint64_t x = 99;
	int n, ecn, count = tl_quick ? 20000 : 200000;
	struct pb b;
	struct choke_flow_key k;
	struct choke_pkt_info i;

	/* random IPv4 headers (random fields, options, checksums right),
	 * every codepoint: CE only from ECT, checksum equals a full
	 * recomputation */
	for (n = 0; n < count; n++) {
		uint16_t full;
		int optlen;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ecn = (int)(x & 3);
		optlen = (int)((x >> 2) % 11) * 4;
		pb_eth(&b, 0x0800);
		pb_ipv4_opts(&b, 17, "10.0.0.1", "10.0.0.2", optlen);
		b.d[15] = (uint8_t)(((x >> 8) & 0xfc) | (uint64_t)ecn);
		b.d[18] = (uint8_t)(x >> 16); /* id */
		b.d[19] = (uint8_t)(x >> 24);
		b.d[22] = (uint8_t)(x >> 32); /* ttl */
		pb_ports(&b, 1, 2, 8);
		pb_finish_ipv4(&b);
		parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
		CHECK_EQ(i.ecn, ecn);
		CHECK_EQ(choke_pkt_ecn_capable(&i), ecn != 0);
		CHECK_EQ(choke_pkt_ecn_set_ce(b.d, b.len, &i), ecn != 0);
		CHECK_EQ(b.d[15] & 3, ecn ? 3 : 0);
		CHECK_EQ((b.d[15] & 0xfc), ((x >> 8) & 0xfc));
		full = choke_pkt_ipv4_checksum(b.d + 14, 20 + (size_t)optlen);
		CHECK_EQ(full, 0); /* a header with a right checksum sums to 0 */
		if (full)
			break;
	}
	/* IPv6: the traffic class around it is kept */
	for (ecn = 0; ecn < 4; ecn++) {
		pb_eth(&b, 0x86DD);
		pb_ipv6(&b, "1::1", "2::2", NULL, 0, 17, 0, (uint8_t)(0xb8 | ecn));
		pb_ports(&b, 1, 2, 8);
		pb_finish_ipv6(&b);
		parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
		CHECK_EQ(i.ecn, ecn);
		CHECK_EQ(choke_pkt_ecn_set_ce(b.d, b.len, &i), ecn != 0);
		CHECK_EQ(((b.d[14] & 15) << 4) | (b.d[15] >> 4), ecn ? 0xbb : 0xb8);
		CHECK_EQ(b.d[14] >> 4, 6);
	}
	/* non-IP cannot be marked */
	pb_eth(&b, 0x0806);
	pb_bytes(&b, 28, 0xff);
	parse_exact(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
	CHECK(!choke_pkt_ecn_capable(&i));
	CHECK(!choke_pkt_ecn_set_ce(b.d, b.len, &i));
}

/* an independent checksum: the pseudo-header and segment summed in 32 bits */
static uint16_t ref_l4_csum(const uint8_t *src, const uint8_t *dst, int alen,
			    uint8_t proto, const uint8_t *seg, size_t len)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < (size_t)alen; i += 2)
		sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	sum += proto + len;
	for (i = 0; i < len; i++)
		sum += i % 2 ? seg[i] : (uint32_t)seg[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void test_l4_checksum_fill(void)
{
	uint64_t x = 5;
	int n, v6, tcp;

	for (n = 0; n < 4000; n++) {
		struct pb b;
		struct choke_flow_key k;
		struct choke_pkt_info i;
		size_t pay, j, at;
		uint16_t want, got;
		uint8_t seg[2048];

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v6 = (int)(x & 1);
		tcp = (int)((x >> 1) & 1);
		pay = (size_t)(x >> 8) % 1400;
		pb_eth(&b, v6 ? 0x86DD : 0x0800);
		if (v6)
			pb_ipv6(&b, "2001:db8::7", "2001:db8::9", NULL, 0, tcp ? 6 : 17, 0, 0);
		else
			pb_ipv4(&b, tcp ? 6 : 17, "10.1.2.3", "10.4.5.6", 0, 0, 0);
		pb_ports(&b, (uint16_t)x, 80, tcp ? 20 : 8);
		for (j = 0; j < pay; j++)
			b.d[b.len + j] = (uint8_t)(x >> (j % 56));
		b.len += pay;
		if (!tcp)
			pb_put16(&b, b.l3 + (v6 ? 40 : 20) + 4, (uint16_t)(8 + pay));
		if (v6)
			pb_finish_ipv6(&b);
		else
			pb_finish_ipv4(&b);
		choke_flow_key_from_frame(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
		at = i.l4_off + (tcp ? 16 : 6);
		/* what a sender leaves for an offload: the pseudo-header's sum */
		{
			uint32_t ps = (uint32_t)k.proto + (uint32_t)(b.len - i.l4_off);
			const uint8_t *ad = b.d + i.l3_off + (v6 ? 8 : 12);

			for (j = 0; j < (v6 ? 32u : 8u); j += 2)
				ps += (uint32_t)(ad[j] << 8 | ad[j + 1]);
			while (ps >> 16)
				ps = (ps & 0xffff) + (ps >> 16);
			pb_put16(&b, at, (uint16_t)ps);
			CHECK(choke_pkt_l4_checksum_partial(b.d, b.len, &i, k.proto));
			pb_put16(&b, at, (uint16_t)(ps ^ 0x0100));
			CHECK(!choke_pkt_l4_checksum_partial(b.d, b.len, &i, k.proto));
		}
		REQUIRE(choke_pkt_l4_checksum_fill(b.d, b.len, &i, k.proto));
		CHECK(choke_pkt_l4_checksum_ok(b.d, b.len, &i, k.proto));
		got = (uint16_t)(b.d[at] << 8 | b.d[at + 1]);
		memcpy(seg, b.d + i.l4_off, b.len - i.l4_off);
		seg[at - i.l4_off] = seg[at - i.l4_off + 1] = 0;
		want = ref_l4_csum(k.src, k.dst, v6 ? 16 : 4, k.proto, seg, b.len - i.l4_off);
		if (!tcp && want == 0)
			want = 0xffff;
		CHECK_EQ(got, want);
		b.d[b.len - 1] ^= 0x40; /* a corrupted byte is noticed */
		CHECK(pay == 0 || !choke_pkt_l4_checksum_ok(b.d, b.len, &i, k.proto));
	}
	/* fragments and other protocols are left alone */
	{
		struct pb b;
		struct choke_flow_key k;
		struct choke_pkt_info i;

		pb_eth(&b, 0x0800);
		pb_ipv4(&b, 17, "1.1.1.1", "2.2.2.2", 1, 0, 0);
		pb_ports(&b, 1, 2, 8);
		pb_finish_ipv4(&b);
		choke_flow_key_from_frame(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
		CHECK(!choke_pkt_l4_checksum_fill(b.d, b.len, &i, k.proto));
		CHECK(!choke_pkt_l4_checksum_partial(b.d, b.len, &i, k.proto));
		pb_eth(&b, 0x0800);
		pb_ipv4(&b, 132, "1.1.1.1", "2.2.2.2", 0, 0, 0);
		pb_ports(&b, 1, 2, 12);
		pb_finish_ipv4(&b);
		choke_flow_key_from_frame(b.d, b.len, CHOKE_LINK_ETHERNET, &k, &i);
		CHECK(!choke_pkt_l4_checksum_fill(b.d, b.len, &i, k.proto));
	}
}

/*
 * Keys as they were: a digest (FNV-1a) of the key, the info and the kind of
 * every frame below, against the digest the dissector gave before it was
 * rewritten for speed (2026-12-05, at 4b6ef8f). The frames are random bytes
 * made likelier to be IP, with VLAN tags and IPv6 fragment headers, every
 * prefix of the short ones, on Ethernet, cooked v1 and v2, raw IP, IPv4
 * and IPv6 links. The key's ports are in host byte order: the digest is a
 * little-endian host's.
 */
static uint64_t keys_digest(long count)
{
	static const int lts[] = { 1, 101, 113, 228, 229, 276 };
	uint64_t x = 1, h = 0xcbf29ce484222325ull;
	long it;

	for (it = 0; it < count; it++) {
		uint8_t buf[256];
		size_t len, j, o, p;
		int lt = lts[it % 6];

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = x % 200;
		for (j = 0; j < len; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[j] = (uint8_t)x;
		}
		o = lt == 1 ? 12 : lt == 113 ? 14 : lt == 276 ? 0 : 1000;
		if (o < 1000 && len > o + 20 && (it & 1)) {
			int k = (int)((x >> 3) % 4);
			uint16_t et = k == 0 ? 0x0800 : k == 1 ? 0x86dd : k == 2 ? 0x8100 : 0x88a8;
			size_t l3 = lt == 1 ? 14 : lt == 113 ? 16 : 20;

			buf[o] = (uint8_t)(et >> 8);
			buf[o + 1] = (uint8_t)et;
			if (k >= 2) {
				buf[l3 + 2] = (x >> 20) & 1 ? 0x08 : 0x86;
				buf[l3 + 3] = (x >> 20) & 1 ? 0 : 0xdd;
				l3 += 4;
			}
			if (len > l3 + 10) {
				buf[l3] = (uint8_t)(((x >> 21) & 1) ? 0x45 + ((x >> 30) & 3) : 0x60);
				buf[l3 + 9] = ((x >> 22) & 1) ? 6 : 17;
				if ((x >> 23) & 1)
					buf[l3 + 6] = 0;
				buf[l3 + 2] = 0;
				buf[l3 + 3] = (uint8_t)(len - l3 + ((x >> 40) & 7) - 4);
				if (buf[l3] == 0x60) {
					buf[l3 + 4] = 0;
					buf[l3 + 5] = (uint8_t)(len - l3 - 40 + ((x >> 40) & 7) - 4);
					buf[l3 + 6] = ((x >> 41) & 1) ? 0 : ((x >> 42) & 1) ? 44 : 17;
				}
			}
		}
		if (o == 1000 && len > 20 && (it & 1)) {
			buf[0] = (it & 2) ? 0x45 : 0x60;
			buf[9] = 6;
			buf[2] = 0;
			buf[3] = (uint8_t)len;
			if (buf[0] == 0x60) {
				buf[4] = 0;
				buf[5] = (uint8_t)(len - 40);
				buf[6] = 17;
			}
		}
		/* every prefix of the short ones, some of the long ones */
		for (p = 0; p <= len; p += len > 60 ? 7 : 1) {
			struct choke_flow_key k;
			struct choke_pkt_info in;
			uint8_t rec[40 + 16];
			int r = parse_exact(buf, p, lt, &k, &in);

			memcpy(rec, &k, 40);
			memcpy(rec + 40, &in.l3_off, 4);
			memcpy(rec + 44, &in.l4_off, 4);
			memcpy(rec + 48, &in.vlan_tags, 2);
			rec[50] = in.flags;
			rec[51] = in.ecn;
			rec[52] = in.ip_version;
			rec[53] = (uint8_t)r;
			rec[54] = rec[55] = 0;
			for (j = 0; j < sizeof(rec); j++)
				h = (h ^ rec[j]) * 0x100000001b3ull;
		}
	}
	return h;
}

static void test_keys_as_before(void)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	CHECK_EQ(keys_digest(tl_quick ? 20000 : 200000),
		 tl_quick ? 0x5d7b5ab8144f1988ull : 0x1b990b290012fcd3ull);
#endif
}

static void test_hash(void)
{
	struct choke_flow_key a, b2;
	uint32_t i, same = 0;

	memset(&a, 0, sizeof(a));
	a.kind = CHOKE_FLOW_KIND_IPV4;
	a.proto = 6;
	b2 = a;
	CHECK_EQ(choke_flow_key_hash(&a, 1), choke_flow_key_hash(&b2, 1));
	CHECK(choke_flow_key_hash(&a, 1) != choke_flow_key_hash(&a, 2));
	/* one bit of difference anywhere changes the hash */
	for (i = 0; i < 40 * 8; i++) {
		b2 = a;
		((uint8_t *)&b2)[i / 8] ^= (uint8_t)(1u << (i % 8));
		same += choke_flow_key_hash(&a, 7) == choke_flow_key_hash(&b2, 7);
		CHECK(!choke_flow_key_equal(&a, &b2));
	}
	CHECK_EQ(same, 0);
}

/* protect's identities: a host's flows share its value, other hosts and
 * the flow's own value differ; the families are apart. */
static void test_flow_identity(void)
{
	struct choke_flow_key a, b, c, d;
	int by;

	memset(&a, 0, sizeof(a));
	a.kind = 1;
	a.ethertype = 0x0800;
	a.proto = 6;
	a.src[0] = 10, a.src[3] = 1;
	a.dst[0] = 10, a.dst[3] = 2;
	a.sport = 1000, a.dport = 80;
	b = a; /* the same hosts, another connection */
	b.sport = 1001;
	c = a; /* another source */
	c.src[3] = 3;
	d = a; /* another destination */
	d.dst[3] = 4;
	CHECK_EQ(choke_flow_identity(&a, CHOKE_PROTECT_BY_FLOW, 5), choke_flow_key_hash(&a, 5));
	CHECK(choke_flow_identity(&a, CHOKE_PROTECT_BY_FLOW, 5) !=
	      choke_flow_identity(&b, CHOKE_PROTECT_BY_FLOW, 5));
	for (by = CHOKE_PROTECT_BY_SRCHOST; by <= CHOKE_PROTECT_BY_HOSTS; by++) {
		CHECK_EQ(choke_flow_identity(&a, by, 5), choke_flow_identity(&b, by, 5));
		CHECK(choke_flow_identity(&a, by, 5) != choke_flow_key_hash(&a, 5));
	}
	CHECK(choke_flow_identity(&a, CHOKE_PROTECT_BY_SRCHOST, 5) !=
	      choke_flow_identity(&c, CHOKE_PROTECT_BY_SRCHOST, 5));
	CHECK_EQ(choke_flow_identity(&a, CHOKE_PROTECT_BY_SRCHOST, 5),
		 choke_flow_identity(&d, CHOKE_PROTECT_BY_SRCHOST, 5));
	CHECK_EQ(choke_flow_identity(&a, CHOKE_PROTECT_BY_DSTHOST, 5),
		 choke_flow_identity(&c, CHOKE_PROTECT_BY_DSTHOST, 5));
	CHECK(choke_flow_identity(&a, CHOKE_PROTECT_BY_DSTHOST, 5) !=
	      choke_flow_identity(&d, CHOKE_PROTECT_BY_DSTHOST, 5));
	CHECK(choke_flow_identity(&a, CHOKE_PROTECT_BY_HOSTS, 5) !=
	      choke_flow_identity(&c, CHOKE_PROTECT_BY_HOSTS, 5));
	CHECK(choke_flow_identity(&a, CHOKE_PROTECT_BY_HOSTS, 5) !=
	      choke_flow_identity(&d, CHOKE_PROTECT_BY_HOSTS, 5));
	/* the same address in IPv6 is another host */
	c = a;
	c.ethertype = 0x86dd;
	CHECK(choke_flow_identity(&a, CHOKE_PROTECT_BY_SRCHOST, 5) !=
	      choke_flow_identity(&c, CHOKE_PROTECT_BY_SRCHOST, 5));
}

const struct tl_test pkt_tests[] = {
	{ "pkt/flow-identity", test_flow_identity },
	{ "pkt/ipv4-tcp", test_ipv4_tcp },
	{ "pkt/vlan-and-qinq", test_vlan_and_qinq },
	{ "pkt/ipv4-options-and-fragments", test_ipv4_options_and_fragments },
	{ "pkt/ipv6-extension-headers", test_ipv6_extension_headers },
	{ "pkt/ipv6-extension-loop-bounded", test_ipv6_extension_loop_bounded },
	{ "pkt/icmp-echo", test_icmp_echo },
	{ "pkt/link-types", test_link_types },
	{ "pkt/other-link-types", test_other_link_types },
	{ "pkt/other-links-non-ip", test_other_links_non_ip },
	{ "pkt/other-links-every-length", test_other_links_every_length },
	{ "pkt/non-ip-and-malformed", test_non_ip_and_malformed },
	{ "pkt/truncation-at-every-length", test_truncation_at_every_length },
	{ "pkt/random-garbage", test_random_garbage },
	{ "pkt/ecn-marking", test_ecn_marking },
	{ "pkt/l4-checksum-fill", test_l4_checksum_fill },
	{ "pkt/hash", test_hash },
	{ "pkt/keys-as-before", test_keys_as_before },
	{ NULL, NULL },
};
