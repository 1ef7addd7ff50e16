// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * Flow keys from raw frames. Every read goes through need(), which checks
 * the offset against the end of the captured (or, for IP, the declared)
 * data first. docs/flows.md is the definition this code implements.
 *
 * The key is built in a local struct fk (registers, once inlined) and
 * written out at the end as five 8-byte words: the hash that nearly always
 * follows loads those same five words, and a load the size of the store
 * before it is forwarded from the store buffer, where a load spanning
 * several narrower stores (the fields written one by one over a cleared
 * key) waits for them to reach the cache (docs/performance.md).
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
/* the IPv6 extension headers below 64 (a mask of next-header values) */
#define EXT_LO ((1ull << 0) | (1ull << 43) | (1ull << 44) | (1ull << 51) | (1ull << 60))

/* the layout key_store() writes */
_Static_assert(sizeof(struct choke_flow_key) == 40, "flow key is 40 bytes");
_Static_assert(__builtin_offsetof(struct choke_flow_key, sport) == 32 &&
		       __builtin_offsetof(struct choke_flow_key, dport) == 34 &&
		       __builtin_offsetof(struct choke_flow_key, ethertype) == 36 &&
		       __builtin_offsetof(struct choke_flow_key, proto) == 38 &&
		       __builtin_offsetof(struct choke_flow_key, kind) == 39,
	       "flow key layout");

struct cursor {
	const uint8_t *p;
	size_t end; /* bytes readable from p */
};

/* the key under construction: the five words it occupies; the last holds
 * sport, dport, ethertype, proto and kind where struct choke_flow_key has
 * them, each set once (or cleared with malformed()) */
struct fk {
	uint64_t s0, s1, d0, d1, tail;
};

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
enum { SH_SPORT = 48, SH_DPORT = 32, SH_ET = 16, SH_PROTO = 8, SH_KIND = 0 };
#else
enum { SH_SPORT = 0, SH_DPORT = 16, SH_ET = 32, SH_PROTO = 48, SH_KIND = 56 };
#endif

static inline void set_sport(struct fk *k, uint16_t v) { k->tail |= (uint64_t)v << SH_SPORT; }
static inline void set_dport(struct fk *k, uint16_t v) { k->tail |= (uint64_t)v << SH_DPORT; }
static inline void set_et(struct fk *k, uint16_t v) { k->tail |= (uint64_t)v << SH_ET; }
static inline void set_proto(struct fk *k, uint8_t v) { k->tail |= (uint64_t)v << SH_PROTO; }
static inline void set_kind(struct fk *k, uint8_t v) { k->tail |= (uint64_t)v << SH_KIND; }

/* the Ethernet path is inlined into one function, so that fk stays in
 * registers */
#define HOT static inline __attribute__((always_inline))

/* n bytes at off are captured (offsets and lengths here stay far below
 * 2^63, so the sum cannot wrap) */
static inline bool need(const struct cursor *c, size_t off, size_t n)
{
	return (uint64_t)off + n <= c->end;
}

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)((p[1] << 8) | p[0]);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[0] << 24;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, 8); /* host byte order: the hash is per host */
	return v;
}

/* four address bytes as the first word of a 16-byte address field (the
 * other four bytes zero) */
static inline uint64_t addr4(const uint8_t *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (uint64_t)v << 32;
#else
	return v;
#endif
}

static inline void key_store(struct choke_flow_key *key, const struct fk *k)
{
	uint8_t *d = (uint8_t *)key;

	__builtin_memcpy(d, &k->s0, 8);
	__builtin_memcpy(d + 8, &k->s1, 8);
	__builtin_memcpy(d + 16, &k->d0, 8);
	__builtin_memcpy(d + 24, &k->d1, 8);
	__builtin_memcpy(d + 32, &k->tail, 8);
}

static inline void info_clear(struct choke_pkt_info *i)
{
	static const struct choke_pkt_info zero;

	*i = zero;
}

bool choke_pkt_linktype_supported(int linktype)
{
	switch (linktype) {
	case CHOKE_LINK_NULL:
	case CHOKE_LINK_ETHERNET:
	case CHOKE_LINK_PPP:
	case CHOKE_LINK_PPP_HDLC:
	case CHOKE_LINK_RAW:
	case CHOKE_LINK_C_HDLC:
	case CHOKE_LINK_IEEE802_11:
	case CHOKE_LINK_LOOP:
	case CHOKE_LINK_LINUX_SLL:
	case CHOKE_LINK_IEEE802_11_RADIO:
	case CHOKE_LINK_IPV4:
	case CHOKE_LINK_IPV6:
	case CHOKE_LINK_NFLOG:
	case CHOKE_LINK_PKTAP:
	case CHOKE_LINK_LINUX_SLL2:
		return true;
	}
	return false;
}

HOT int truncated(struct fk *k)
{
	set_kind(k, CHOKE_FLOW_KIND_TRUNCATED);
	return CHOKE_FLOW_KIND_TRUNCATED;
}

HOT int nonip(struct fk *k, uint16_t et)
{
	set_et(k, et);
	set_kind(k, CHOKE_FLOW_KIND_NONIP);
	return CHOKE_FLOW_KIND_NONIP;
}

/* the protocols with ports first: TCP 6, UDP 17, DCCP 33 (below 64), SCTP
 * 132, UDP-Lite 136 */
#define PORTS_LO ((1ull << 6) | (1ull << 17) | (1ull << 33))

/* Transport ports (or the ICMP echo identifier) at l4, bounded by c. */
HOT void parse_l4(const struct cursor *c, size_t l4, uint8_t proto, struct fk *k,
		     struct choke_pkt_info *info, int ipv6)
{
	info->l4_off = (uint32_t)l4;
	if (proto < 64 ? (PORTS_LO >> proto) & 1 : proto == 132 || proto == 136) {
		if (!need(c, l4, 4)) {
			info->flags |= CHOKE_FLOW_F_L4_TRUNC;
			return;
		}
		set_sport(k, be16(c->p + l4));
		set_dport(k, be16(c->p + l4 + 2));
		return;
	}
	switch (proto) {
	case 1:  /* ICMP */
	case 58: /* ICMPv6 */
		if ((proto == 58) != (ipv6 != 0))
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
			set_sport(k, be16(c->p + l4 + 4));
		}
		return;
	}
}

/* everything but the ethertype cleared */
HOT int malformed(struct fk *k)
{
	k->s0 = k->s1 = k->d0 = k->d1 = 0;
	k->tail &= (uint64_t)0xffff << SH_ET;
	set_kind(k, CHOKE_FLOW_KIND_MALFORMED);
	return CHOKE_FLOW_KIND_MALFORMED;
}

HOT int parse_ipv4(struct cursor c, size_t off, struct fk *k,
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
	set_kind(k, CHOKE_FLOW_KIND_IPV4);
	set_proto(k, h[9]);
	k->s0 = addr4(h + 12);
	k->d0 = addr4(h + 16);
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
	parse_l4(&c, off + ihl, h[9], k, info, 0);
	return CHOKE_FLOW_KIND_IPV4;
}

HOT int parse_ipv6(struct cursor c, size_t off, struct fk *k,
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
	set_kind(k, CHOKE_FLOW_KIND_IPV6);
	k->s0 = load64(h + 8);
	k->s1 = load64(h + 16);
	k->d0 = load64(h + 24);
	k->d1 = load64(h + 32);
	info->ip_version = 6;
	info->l3_off = (uint32_t)off;
	info->ecn = (h[1] >> 4) & 3;
	nh = h[6];
	pos = off + 40;
	for (n = 0;; n++) {
		size_t len;

		/* extension headers: hop-by-hop options 0, routing 43,
		 * fragment 44, authentication 51, destination options 60,
		 * mobility 135, HIP 139, shim6 140 */
		if (nh < 64 ? !((EXT_LO >> nh) & 1) : nh != 135 && nh != 139 && nh != 140) {
			set_proto(k, nh);
			parse_l4(&c, pos, nh, k, info, 1);
			return CHOKE_FLOW_KIND_IPV6;
		}
		if (nh == 44) { /* fragment */
			if (!need(&c, pos, 8))
				goto truncated;
			info->flags |= CHOKE_FLOW_F_FRAGMENT;
			if (be16(c.p + pos + 2) & 0xfff8) {
				set_proto(k, c.p[pos]);
				info->flags |= CHOKE_FLOW_F_LATER_FRAG;
				return CHOKE_FLOW_KIND_IPV6;
			}
			len = 8;
		} else {
			if (!need(&c, pos, 2))
				goto truncated;
			if (nh == 51) /* authentication: in 4-byte units, less 2 */
				len = ((size_t)c.p[pos + 1] + 2) * 4;
			else
				len = ((size_t)c.p[pos + 1] + 1) * 8;
		}
		if (n >= MAX_IPV6_EXT) {
			set_proto(k, nh);
			info->flags |= CHOKE_FLOW_F_EXT_LIMIT;
			return CHOKE_FLOW_KIND_IPV6;
		}
		nh = c.p[pos];
		pos += len;
	}
truncated:
	set_proto(k, nh);
	info->flags |= CHOKE_FLOW_F_L4_TRUNC;
	return CHOKE_FLOW_KIND_IPV6;
}

/* a VLAN tag's ethertype: 802.1Q 0x8100, pre-standard QinQ 0x9100 (the
 * same but for bit 12), 802.1ad 0x88a8 */
_Static_assert((ETH_P_QINQ1 & 0xefff) == ETH_P_8021Q, "QinQ's tag is 802.1Q's but for bit 12");

static inline bool vlan_tag(uint16_t et)
{
	return (et & 0xefff) == ETH_P_8021Q || et == ETH_P_8021AD;
}

/* From an ethertype at off on. */
HOT int parse_ethertype(struct cursor c, size_t off, uint16_t et, struct fk *k,
			   struct choke_pkt_info *info)
{
	uint16_t tags = 0;

	if (et == ETH_P_IP || et == ETH_P_IPV6) { /* the common cases first */
		set_et(k, et);
		return et == ETH_P_IP ? parse_ipv4(c, off, k, info) : parse_ipv6(c, off, k, info);
	}
	while (vlan_tag(et) && tags < MAX_VLAN_TAGS) {
		if (!need(&c, off, 4)) {
			info->vlan_tags = tags;
			set_et(k, et);
			return truncated(k);
		}
		et = be16(c.p + off + 2);
		off += 4;
		tags++;
	}
	info->vlan_tags = tags;
	set_et(k, et);
	if (et == ETH_P_IP)
		return parse_ipv4(c, off, k, info);
	if (et == ETH_P_IPV6)
		return parse_ipv6(c, off, k, info);
	set_kind(k, CHOKE_FLOW_KIND_NONIP);
	return CHOKE_FLOW_KIND_NONIP;
}

/* IP at off, known to be IPv4 (et ETH_P_IP) or IPv6 by the link layer */
static int parse_ip_as(struct cursor c, size_t off, uint16_t et, struct fk *k,
		       struct choke_pkt_info *info)
{
	set_et(k, et);
	return et == ETH_P_IP ? parse_ipv4(c, off, k, info) : parse_ipv6(c, off, k, info);
}

HOT int parse_ethernet(struct cursor c, size_t off, struct fk *k,
			  struct choke_pkt_info *info)
{
	uint16_t et;

	if (!need(&c, off, 14))
		return truncated(k);
	et = be16(c.p + off + 12);
	if (et < 0x0600) /* an 802.3 length: LLC/SNAP, not Ethernet II */
		return nonip(k, 0);
	return parse_ethertype(c, off + 14, et, k, info);
}

/* raw IP: the version nibble decides (want: 4, 6, or 0 for either) */
static int parse_raw(struct cursor c, size_t off, int want, struct fk *k,
		     struct choke_pkt_info *info)
{
	int v = need(&c, off, 1) ? c.p[off] >> 4 : 0;

	if ((want && v != want) || (v != 4 && v != 6)) {
		set_kind(k, CHOKE_FLOW_KIND_MALFORMED);
		return CHOKE_FLOW_KIND_MALFORMED;
	}
	return parse_ip_as(c, off, v == 4 ? ETH_P_IP : ETH_P_IPV6, k, info);
}

/* BSD loopback's address family: 4, 6, or 0 for anything else (AF_INET is
 * 2 everywhere; AF_INET6 is 24 on NetBSD and OpenBSD, 28 on FreeBSD and
 * DragonFly, 30 on macOS) */
static int loop_family(uint32_t af)
{
	if (af == 2)
		return 4;
	if (af == 24 || af == 28 || af == 30)
		return 6;
	return 0;
}

/* NULL: the family in the writer's byte order; LOOP: in network byte
 * order. Either is read in both, its own first. */
static int parse_loop(struct cursor c, size_t off, int net_order, struct fk *k,
		      struct choke_pkt_info *info)
{
	uint32_t le, be;
	int v;

	if (!need(&c, off, 4))
		return truncated(k);
	le = le32(c.p + off);
	be = be32(c.p + off);
	v = loop_family(net_order ? be : le);
	if (!v)
		v = loop_family(net_order ? le : be);
	if (!v)
		return nonip(k, 0);
	return parse_ip_as(c, off + 4, v == 4 ? ETH_P_IP : ETH_P_IPV6, k, info);
}

/* PPP (RFC 1661), with or without the HDLC-like address and control bytes
 * (ff 03, RFC 1662) and with a one-byte protocol field when compressed */
static int parse_ppp(struct cursor c, size_t off, struct fk *k, struct choke_pkt_info *info)
{
	uint16_t proto;

	if (need(&c, off, 2) && c.p[off] == 0xff && c.p[off + 1] == 0x03)
		off += 2;
	if (!need(&c, off, 1))
		return truncated(k);
	if (c.p[off] & 1) { /* an odd first byte: the protocol compressed to one */
		proto = c.p[off];
		off += 1;
	} else {
		if (!need(&c, off, 2))
			return truncated(k);
		proto = be16(c.p + off);
		off += 2;
	}
	if (proto == 0x0021)
		return parse_ip_as(c, off, ETH_P_IP, k, info);
	if (proto == 0x0057)
		return parse_ip_as(c, off, ETH_P_IPV6, k, info);
	return nonip(k, 0);
}

/* Cisco HDLC: address, control, then an ethertype */
static int parse_chdlc(struct cursor c, size_t off, struct fk *k, struct choke_pkt_info *info)
{
	if (!need(&c, off, 4))
		return truncated(k);
	return parse_ethertype(c, off + 4, be16(c.p + off + 2), k, info);
}

/*
 * An 802.11 frame: data frames carrying LLC/SNAP (RFC 1042 or 802.1H)
 * are keyed by the ethertype and what follows, as Ethernet is; management,
 * control and extension frames, data frames without data, protected
 * (encrypted) frames and other LLC are non-IP. datapad: the payload
 * starts at a multiple of 4 bytes from the header (radiotap's flag).
 */
static int parse_80211(struct cursor c, size_t off, int datapad, struct fk *k,
		       struct choke_pkt_info *info)
{
	const uint8_t *s;
	uint8_t fc0, fc1;
	size_t hdr, pay;
	int amsdu = 0;

	if (!need(&c, off, 2))
		return truncated(k);
	fc0 = c.p[off];
	fc1 = c.p[off + 1];
	/* protocol version 0, type 2 (data); subtype bit 2 set: no data;
	 * the Protected Frame flag: the payload is encrypted */
	if ((fc0 & 0x0f) != 0x08 || (fc0 & 0x40) || (fc1 & 0x40))
		return nonip(k, 0);
	hdr = (fc1 & 3) == 3 ? 30 : 24; /* to and from DS: a fourth address */
	if (fc0 & 0x80) {               /* QoS data: the QoS Control field */
		if (!need(&c, off, hdr + 2))
			return truncated(k);
		amsdu = c.p[off + hdr] & 0x80;
		hdr += 2;
		if (fc1 & 0x80) /* +HTC: an HT Control field */
			hdr += 4;
	}
	if (datapad)
		hdr = (hdr + 3) & ~(size_t)3;
	pay = off + hdr;
	if (amsdu) /* an A-MSDU: the first subframe (DA, SA, length) */
		pay += 14;
	if (!need(&c, pay, 8))
		return truncated(k);
	s = c.p + pay;
	if (s[0] != 0xaa || s[1] != 0xaa || s[2] != 0x03 || s[3] != 0 || s[4] != 0 ||
	    (s[5] != 0 && s[5] != 0xf8))
		return nonip(k, 0);
	return parse_ethertype(c, pay + 8, be16(s + 6), k, info);
}

/* radiotap (little-endian): its length, and the Flags field for the
 * padding after the 802.11 header */
static int parse_radiotap(struct cursor c, size_t off, struct fk *k,
			  struct choke_pkt_info *info)
{
	uint32_t present, w;
	size_t len, pos = 8;
	uint8_t flags = 0;

	if (!need(&c, off, 8))
		return truncated(k);
	len = le16(c.p + off + 2);
	if (c.p[off] != 0 || len < 8) /* version 0 */
		return nonip(k, 0);
	if (!need(&c, off, len))
		return truncated(k);
	present = w = le32(c.p + off + 4);
	while (w & 0x80000000u) { /* another presence word follows */
		if (pos + 4 > len)
			return nonip(k, 0);
		w = le32(c.p + off + pos);
		pos += 4;
	}
	if (present & 1) /* TSFT: 8 bytes, aligned to 8 */
		pos = ((pos + 7) & ~(size_t)7) + 8;
	if ((present & 2) && pos < len) /* Flags */
		flags = c.p[off + pos];
	return parse_80211(c, off + len, flags & 0x20, k, info);
}

/* a TLV of NFLOG that can be the first: a length of at least its header,
 * a type among the attributes (NFULA_*) */
static inline bool nflog_tlv_ok(uint16_t len, uint16_t type)
{
	type &= 0x3fff; /* without the nested and byte-order flags */
	return len >= 4 && type >= 1 && type <= 64;
}

static inline uint16_t rd16(const uint8_t *p, int swap)
{
	uint16_t v;

	__builtin_memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

/*
 * NFLOG: family, version, resource id, then TLVs whose length and type
 * are in the capturing host's byte order (libpcap turns them into the
 * reader's): the first TLV decides which order. The payload (NFULA_PAYLOAD,
 * 9) is the network-layer packet of the family (AF_INET 2, AF_INET6 10).
 */
static int parse_nflog(struct cursor c, size_t off, struct fk *k, struct choke_pkt_info *info)
{
	size_t pos = off + 4;
	uint8_t family;
	int swap, n;

	if (!need(&c, off, 4) || !need(&c, pos, 4))
		return truncated(k);
	family = c.p[off];
	if (c.p[off + 1] != 0) /* version 0 */
		return nonip(k, 0);
	swap = 0;
	if (!nflog_tlv_ok(rd16(c.p + pos, 0), rd16(c.p + pos + 2, 0))) {
		swap = 1;
		if (!nflog_tlv_ok(rd16(c.p + pos, 1), rd16(c.p + pos + 2, 1)))
			return nonip(k, 0);
	}
	for (n = 0; n < 64; n++) {
		size_t len;

		if (pos >= c.end) /* the TLVs end without a payload */
			return nonip(k, 0);
		if (!need(&c, pos, 4))
			return truncated(k);
		len = rd16(c.p + pos, swap);
		if (len < 4)
			return nonip(k, 0);
		if ((rd16(c.p + pos + 2, swap) & 0x3fff) == 9) {
			if (pos + len < c.end)
				c.end = pos + len;
			if (family == 2)
				return parse_ip_as(c, pos + 4, ETH_P_IP, k, info);
			if (family == 10)
				return parse_ip_as(c, pos + 4, ETH_P_IPV6, k, info);
			return nonip(k, 0);
		}
		if (!need(&c, pos, len))
			return truncated(k);
		pos += (len + 3) & ~(size_t)3;
	}
	return nonip(k, 0);
}

/* Every link type but Ethernet (the caller's fast path) and PKTAP. */
static int parse_link(struct cursor c, size_t off, int linktype, struct fk *k,
		      struct choke_pkt_info *info)
{
	switch (linktype) {
	case CHOKE_LINK_ETHERNET:
		return parse_ethernet(c, off, k, info);
	case CHOKE_LINK_LINUX_SLL:
		if (!need(&c, off, 16))
			return truncated(k);
		return parse_ethertype(c, off + 16, be16(c.p + off + 14), k, info);
	case CHOKE_LINK_LINUX_SLL2:
		if (!need(&c, off, 20))
			return truncated(k);
		return parse_ethertype(c, off + 20, be16(c.p + off), k, info);
	case CHOKE_LINK_RAW:
		return parse_raw(c, off, 0, k, info);
	case CHOKE_LINK_IPV4:
		return parse_raw(c, off, 4, k, info);
	case CHOKE_LINK_IPV6:
		return parse_raw(c, off, 6, k, info);
	case CHOKE_LINK_NULL:
		return parse_loop(c, off, 0, k, info);
	case CHOKE_LINK_LOOP:
		return parse_loop(c, off, 1, k, info);
	case CHOKE_LINK_PPP:
		return parse_ppp(c, off, k, info);
	case CHOKE_LINK_PPP_HDLC:
		/* PPP in HDLC-like framing (ff), or Cisco HDLC (0f, 8f) */
		if (!need(&c, off, 1))
			return truncated(k);
		if (c.p[off] == 0xff)
			return parse_ppp(c, off, k, info);
		if (c.p[off] == 0x0f || c.p[off] == 0x8f)
			return parse_chdlc(c, off, k, info);
		return nonip(k, 0);
	case CHOKE_LINK_C_HDLC:
		return parse_chdlc(c, off, k, info);
	case CHOKE_LINK_IEEE802_11:
		return parse_80211(c, off, 0, k, info);
	case CHOKE_LINK_IEEE802_11_RADIO:
		return parse_radiotap(c, off, k, info);
	case CHOKE_LINK_NFLOG:
		return parse_nflog(c, off, k, info);
	}
	/* unknown link type: one flow for all its frames */
	return nonip(k, 0);
}

/* A DLT (what PKTAP names the inner frame's link with) as a link type */
static int dlt_link(uint32_t dlt)
{
	switch (dlt) {
	case 12: /* DLT_RAW */
	case 14: /* DLT_RAW on OpenBSD */
		return CHOKE_LINK_RAW;
	case CHOKE_LINK_NULL:
	case CHOKE_LINK_ETHERNET:
	case CHOKE_LINK_PPP:
	case CHOKE_LINK_PPP_HDLC:
	case CHOKE_LINK_C_HDLC:
	case CHOKE_LINK_IEEE802_11:
	case CHOKE_LINK_LOOP:
	case CHOKE_LINK_IEEE802_11_RADIO:
		return (int)dlt;
	}
	return -1;
}

/* PKTAP (macOS): a header of its own length (little-endian), a record type
 * (1: a packet), the inner frame's DLT */
static int parse_pktap(struct cursor c, struct fk *k, struct choke_pkt_info *info)
{
	uint32_t hlen;
	int lt;

	if (!need(&c, 0, 12))
		return truncated(k);
	hlen = le32(c.p);
	if (hlen < 108) /* the fields of the first version */
		return nonip(k, 0);
	if (!need(&c, 0, hlen))
		return truncated(k);
	lt = dlt_link(le32(c.p + 8));
	if (le32(c.p + 4) != 1 || lt < 0)
		return nonip(k, 0);
	return parse_link(c, hlen, lt, k, info);
}

/* every link type but Ethernet, apart from its fast path */
static __attribute__((noinline)) int key_other(struct cursor c, int linktype,
					       struct choke_flow_key *key,
					       struct choke_pkt_info *info)
{
	struct fk k = { 0 };
	int kind;

	if (linktype == CHOKE_LINK_PKTAP)
		kind = parse_pktap(c, &k, info);
	else
		kind = parse_link(c, 0, linktype, &k, info);
	key_store(key, &k);
	return kind;
}

int choke_flow_key_from_frame(const uint8_t *frame, size_t caplen, int linktype,
			struct choke_flow_key *key, struct choke_pkt_info *info)
{
	struct choke_pkt_info dummy;
	struct cursor c = { frame, caplen };
	struct fk k = { 0 };
	int kind;

	if (!info)
		info = &dummy;
	info_clear(info);
	if (!frame)
		c.end = 0;
	if (linktype != CHOKE_LINK_ETHERNET)
		return key_other(c, linktype, key, info);
	kind = parse_ethernet(c, 0, &k, info);
	key_store(key, &k);
	return kind;
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
