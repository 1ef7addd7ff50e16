/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * libchoke pkt: what a flow is, read from a raw frame; ECN marking;
 * checksums. Every name is prefixed choke_ / CHOKE_.
 *
 * Freestanding like the core (no libc, no allocation, no floating point),
 * so that any host can use it; the userspace hosts do (replay, the
 * bridge, the ns-3 queue disc). The kernel module does not: it keys flows
 * with the kernel's own flow dissector (kmod/qdisc.c). Every read is
 * bounds-checked against the captured length; nothing is ever read past it.
 * docs/flows.md defines the key for every kind of frame.
 */
#ifndef CHOKE_PKT_H
#define CHOKE_PKT_H

#if defined(__KERNEL__)
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Link types (pcap's LINKTYPE_* numbers; docs/flows.md). */
#define CHOKE_LINK_NULL 0        /* BSD loopback: a 4-byte family, writer's order */
#define CHOKE_LINK_ETHERNET 1
#define CHOKE_LINK_PPP 9         /* PPP, with or without ff 03 */
#define CHOKE_LINK_PPP_HDLC 50   /* PPP in HDLC-like framing, or Cisco HDLC */
#define CHOKE_LINK_RAW 101       /* raw IPv4 or IPv6, no link header */
#define CHOKE_LINK_C_HDLC 104    /* Cisco HDLC */
#define CHOKE_LINK_IEEE802_11 105
#define CHOKE_LINK_LOOP 108      /* OpenBSD loopback: the family in network order */
#define CHOKE_LINK_LINUX_SLL 113 /* Linux "cooked" capture v1 */
#define CHOKE_LINK_IEEE802_11_RADIO 127 /* radiotap, then 802.11 */
#define CHOKE_LINK_IPV4 228
#define CHOKE_LINK_IPV6 229
#define CHOKE_LINK_NFLOG 239     /* Linux NFLOG: TLVs, the packet in NFULA_PAYLOAD */
#define CHOKE_LINK_PKTAP 258     /* macOS PKTAP: a header, then the frame of its DLT */
#define CHOKE_LINK_LINUX_SLL2 276

/* What kind of key a frame produced. */
enum choke_flow_kind {
	CHOKE_FLOW_KIND_IPV4 = 1,
	CHOKE_FLOW_KIND_IPV6 = 2,
	CHOKE_FLOW_KIND_NONIP = 3,     /* key: the ethertype alone */
	CHOKE_FLOW_KIND_MALFORMED = 4, /* unreadable IP header: ethertype + kind */
	CHOKE_FLOW_KIND_TRUNCATED = 5, /* link header itself not captured */
};

/* Flags describing how the key was obtained (not part of the identity). */
#define CHOKE_FLOW_F_FRAGMENT 0x01  /* an IP fragment */
#define CHOKE_FLOW_F_LATER_FRAG 0x02 /* not the first fragment: no ports */
#define CHOKE_FLOW_F_L4_TRUNC 0x04  /* transport header not (fully) captured */
#define CHOKE_FLOW_F_EXT_LIMIT 0x08 /* IPv6 extension header walk stopped */

/*
 * The flow key: both addresses in full (IPv4 in the first 4 bytes, the
 * rest zero), the transport protocol, both ports (0 where there are none),
 * the ethertype after any VLAN tags, and the kind. 40 bytes, no padding:
 * compare with choke_flow_key_equal, hash with choke_flow_key_hash.
 */
struct choke_flow_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport, dport;
	uint16_t ethertype;
	uint8_t proto;
	uint8_t kind; /* enum choke_flow_kind */
};

/* Where things are in the frame (for ECN marking and reporting). */
struct choke_pkt_info {
	uint32_t l3_off;   /* offset of the IP header, if IP */
	uint32_t l4_off;   /* offset of the transport header, if found */
	uint16_t vlan_tags; /* 802.1Q / 802.1ad tags skipped */
	uint8_t flags;     /* CHOKE_FLOW_F_* */
	uint8_t ecn;       /* the ECN field (0-3) of an IP packet, else 0 */
	uint8_t ip_version; /* 4, 6, or 0 */
};

/*
 * Read the flow key of a frame of `caplen` captured bytes and link type
 * `linktype`. Always fills *key with a defined key (see docs/flows.md);
 * returns the key's kind. `info` may be NULL.
 */
int choke_flow_key_from_frame(const uint8_t *frame, size_t caplen, int linktype,
			struct choke_flow_key *key, struct choke_pkt_info *info);

/* Is the link type one choke_flow_key_from_frame understands? */
bool choke_pkt_linktype_supported(int linktype);

/* Keyed 32-bit hash of a key (the flow value for the core). */
uint32_t choke_flow_key_hash(const struct choke_flow_key *key, uint64_t seed);

/* Exact equality of two keys. */
bool choke_flow_key_equal(const struct choke_flow_key *a, const struct choke_flow_key *b);

/* The identity `protect` shares the link among (enum choke_protect_by, in
 * choke/core.h): the key's hash for CHOKE_PROTECT_BY_FLOW, else the hash
 * of the key with only the source address, the destination address or
 * both kept (and its kind and ethertype, so an IPv4 host is not an IPv6
 * one). The value to pass to choke_enqueue_as(). */
uint32_t choke_flow_identity(const struct choke_flow_key *key, int by, uint64_t seed);

/* ECN codepoints */
#define CHOKE_ECN_NOT_ECT 0
#define CHOKE_ECN_ECT1 1
#define CHOKE_ECN_ECT0 2
#define CHOKE_ECN_CE 3

/* Is the packet ECN-capable (ECT(0), ECT(1) or CE), as the kernel's
 * INET_ECN_set_ce() decides? Needs the info of choke_flow_key_from_frame. */
bool choke_pkt_ecn_capable(const struct choke_pkt_info *info);

/*
 * Set CE on an ECT(0)/ECT(1) IPv4 or IPv6 packet in place (IPv4: the
 * header checksum is updated incrementally, RFC 1624). A CE packet is left
 * as it is and counts as marked; a Not-ECT or non-IP packet cannot be
 * marked. Returns true if the packet now carries CE.
 */
bool choke_pkt_ecn_set_ce(uint8_t *frame, size_t caplen, struct choke_pkt_info *info);

/* The IPv4 header checksum of hdr (ihl * 4 bytes), computed in full. */
uint16_t choke_pkt_ipv4_checksum(const uint8_t *hdr, size_t len);

/*
 * Fill in the TCP or UDP checksum of an IPv4 or IPv6 packet (pseudo-header
 * included), for frames whose checksum a sender left to the hardware (a
 * packet socket reports them with TP_STATUS_CSUMNOTREADY). Needs the info
 * of choke_flow_key_from_frame; does nothing (returns false) for fragments,
 * other protocols or segments not wholly captured.
 */
bool choke_pkt_l4_checksum_fill(uint8_t *frame, size_t caplen, const struct choke_pkt_info *info,
			  uint8_t proto);

/* One's complement sum check of a TCP/UDP segment with its pseudo-header:
 * true when the checksum in the packet is right. */
bool choke_pkt_l4_checksum_ok(const uint8_t *frame, size_t caplen,
			const struct choke_pkt_info *info, uint8_t proto);

/*
 * Does the TCP/UDP checksum field hold the pseudo-header's sum alone
 * (folded, not complemented)? That is what a sender leaves there for a
 * checksum offload (CHECKSUM_PARTIAL), and what a receive path that does
 * not report TP_STATUS_CSUMNOTREADY (AF_XDP) can only recognise by value:
 * such a frame needs choke_pkt_l4_checksum_fill before it leaves. (A
 * complete checksum that happens to equal it is filled in again to the same
 * value.) False for fragments, other protocols or segments not wholly
 * captured.
 */
bool choke_pkt_l4_checksum_partial(const uint8_t *frame, size_t caplen,
				   const struct choke_pkt_info *info, uint8_t proto);

#ifdef __cplusplus
}
#endif
#endif /* CHOKE_PKT_H */
