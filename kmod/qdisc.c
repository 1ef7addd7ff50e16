// SPDX-License-Identifier: GPL-2.0-only
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * sch_libchoke: the CHOKe queue discipline as a Linux qdisc, on libchoke's
 * core (src/core/choke.c, compiled unchanged through core.c).
 *
 * It registers the qdisc id "choke" with mainline sch_choke's netlink ABI
 * (TCA_CHOKE_PARMS = struct tc_red_qopt, TCA_CHOKE_STAB = 256 bytes,
 * TCA_CHOKE_MAX_P = u32; xstats = struct tc_choke_xstats), so stock
 * iproute2 configures, shows and changes it. What differs from mainline
 * (docs/kernel.md):
 *  - the ring never wraps, so the queue never stalls (the core's ring has
 *    twice mainline's slots and compacts holes when needed);
 *  - a flow is the full key (both addresses in full, IPv4 and IPv6, both
 *    ports, protocol, ethertype) from the kernel's flow dissector, computed
 *    only when a packet takes part in a comparison (as mainline does) and
 *    kept in the skb's control block; wide addresses are kept folded and a
 *    match of folded keys is confirmed on the full keys, so neither
 *    collisions nor IPv6 prefixes alias two flows;
 *  - configuration mainline accepts but cannot work as meant is refused
 *    with an extack message (libchoke_parse below lists it);
 *  - shrinking the limit never leaves more than limit packets queued;
 *  - an empty peek starts the idle period (libchoke_peek);
 *  - xstats "other" counts the packets a reset or change dropped.
 *
 * It also registers a second id, "chokeplus" (kmod/chokeplus.h), for what
 * mainline's options have no room for: protect and the draw variants,
 * configured by stock tc through the plugin kmod/tc/q_chokeplus.so. Its
 * first three attributes are choke's; TCA_CHOKEPLUS_VARIANT carries the
 * rest. With protect the flow key is computed for every arrival and its
 * keyed hash is the core's flow value (protect's table is keyed by it);
 * a match of the draw variants drops every victim the core hands back.
 *
 * Locking: enqueue, dequeue, peek and reset run under the qdisc's root
 * lock; change takes sch_tree_lock; dump and dump_stats run under RTNL
 * without the qdisc lock, so they read counters with READ_ONCE.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/ktime.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>
#include <net/flow_dissector.h>
#include <net/red.h>

#include "choke/core.h"
#include "chokeplus.h"

/* chokeplus's first three attributes are choke's, number for number. */
static_assert((int)TCA_CHOKEPLUS_PARMS == (int)TCA_CHOKE_PARMS &&
	      (int)TCA_CHOKEPLUS_STAB == (int)TCA_CHOKE_STAB &&
	      (int)TCA_CHOKEPLUS_MAX_P == (int)TCA_CHOKE_MAX_P &&
	      (int)TCA_CHOKEPLUS_VARIANT == (int)TCA_CHOKE_MAX + 1,
	      "chokeplus extends choke's attributes");
static_assert(offsetof(struct tc_chokeplus_xstats, protect) ==
	      sizeof(struct tc_choke_xstats) &&
	      offsetof(struct tc_chokeplus_xstats, matched) ==
	      offsetof(struct tc_choke_xstats, matched),
	      "chokeplus's xstats begin with choke's");

/*
 * What a flow is. Filled from the kernel's flow dissector (the one mainline
 * uses, which reads through VLAN tags, non-linear skbs and every link type
 * the kernel knows); two packets are the same flow when these 40 bytes are
 * equal. The layout is src/pkt's struct flow_key with addr_type in place of
 * its kind. Fragments: the first keeps its ports (PARSE_1ST_FRAG), later
 * ones have ports 0. Non-IP: the ethertype alone.
 */
struct libchoke_key {
	u8 src[16];
	u8 dst[16];
	__be16 sport, dport;
	__be16 n_proto;
	u8 ip_proto;
	u8 addr_type;
} __aligned(SIPHASH_ALIGNMENT);

/*
 * The same key as it is kept in the skb's qdisc control block (20 bytes)
 * while the packet is queued, filled the first time the packet takes part
 * in a comparison: packets that arrive while the average is below min are
 * never dissected. IPv4 and TIPC addresses fit in full; each IPv6 address
 * is replaced by 32 bits of a keyed hash of it (folded = 1), and two folded
 * keys that compare equal are confirmed on the full keys. Everything after
 * valid is compared (pad is zero).
 */
struct libchoke_cb {
	u8 valid;
	u8 folded;
	u8 ip_proto;
	u8 addr_type;
	__be16 n_proto;
	__be16 sport;
	__be16 dport;
	u16 pad;
	u32 src, dst;
};
#define LIBCHOKE_CB_CMP (sizeof(struct libchoke_cb) - \
			 offsetof(struct libchoke_cb, folded))

/*
 * The idle-damping clock. Mainline measures idle time in microseconds while
 * tc builds the table (Scell_log, Stab) for 64 ns ticks, so the average
 * decays 15.6 times more slowly after an idle period than tc intended; we
 * do the same by default. tc_idle_ticks=1 uses tc's unit (docs/kernel.md).
 */
static bool tc_idle_ticks;
module_param(tc_idle_ticks, bool, 0444);
MODULE_PARM_DESC(tc_idle_ticks,
		 "measure idle time in tc's 64 ns ticks, the unit tc builds Stab for (default: microseconds, as mainline)");

struct libchoke_sched {
	struct choke core;
	struct choke_config cfg;	/* as applied: what dump reports */
	void *ring;			/* the ring given to the core */
	siphash_key_t hkey;		/* per-instance key for folding */
	struct Qdisc *sch;
	bool plus;			/* the id chokeplus (else choke) */
	bool keyed;			/* protect or sparse: every arrival's flow key,
					 * its hash the core's flow value */
	/* packets and bytes the current change (or reset) dropped, for the
	 * parents' backlog */
	unsigned int change_drops, change_bytes;
	/* The arrival's scratch (enqueue runs under the qdisc's lock, one
	 * at a time): on the stack, a kernel that initialises automatic
	 * variables (INIT_STACK_ALL_ZERO, Debian's default) would zero both
	 * for every packet, a few hundred bytes that are written before
	 * they are read anyway. */
	struct choke_verdict verdict;
	struct flow_keys fk;
};

static void libchoke_key_of(const struct sk_buff *skb, struct libchoke_key *k)
{
	struct flow_keys fk;

	memset(k, 0, sizeof(*k));
	skb_flow_dissect_flow_keys(skb, &fk, FLOW_DISSECTOR_F_PARSE_1ST_FRAG);
	k->n_proto = fk.basic.n_proto;
	k->ip_proto = fk.basic.ip_proto;
	k->addr_type = (u8)fk.control.addr_type;
	switch (fk.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		memcpy(k->src, &fk.addrs.v4addrs.src, 4);
		memcpy(k->dst, &fk.addrs.v4addrs.dst, 4);
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		memcpy(k->src, &fk.addrs.v6addrs.src, 16);
		memcpy(k->dst, &fk.addrs.v6addrs.dst, 16);
		break;
	case FLOW_DISSECTOR_KEY_TIPC:
		memcpy(k->src, &fk.addrs.tipckey.key, 4);
		break;
	}
	k->sport = fk.ports.src;
	k->dport = fk.ports.dst;
}

static inline struct libchoke_cb *libchoke_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct libchoke_cb));
	return (struct libchoke_cb *)qdisc_skb_cb(skb)->data;
}

/* An IPv6 address as 32 bits of a keyed hash (two addresses that fold
 * alike are told apart on the full keys, libchoke_same_flow). */
static u32 libchoke_fold6(const struct libchoke_sched *q, const struct in6_addr *a)
{
	u64 h = siphash(a, sizeof(*a), &q->hkey);

	return (u32)(h ^ (h >> 32));
}

/* The control block's key straight from the dissector (the same bytes
 * libchoke_key_of gives, without the 40-byte key between them). */
static void libchoke_cb_fill(struct libchoke_sched *q,
			     const struct sk_buff *skb, struct libchoke_cb *cb)
{
	struct flow_keys *fk = &q->fk;

	skb_flow_dissect_flow_keys(skb, fk, FLOW_DISSECTOR_F_PARSE_1ST_FRAG);
	cb->valid = 1;
	cb->folded = 0;
	cb->ip_proto = fk->basic.ip_proto;
	cb->addr_type = (u8)fk->control.addr_type;
	cb->n_proto = fk->basic.n_proto;
	cb->sport = fk->ports.src;
	cb->dport = fk->ports.dst;
	cb->pad = 0;
	switch (fk->control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		memcpy(&cb->src, &fk->addrs.v4addrs.src, sizeof(cb->src));
		memcpy(&cb->dst, &fk->addrs.v4addrs.dst, sizeof(cb->dst));
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		/* each address on its own, so that a host's identity
		 * (protect srchost, dsthost) is its address's alone */
		cb->folded = 1;
		cb->src = libchoke_fold6(q, &fk->addrs.v6addrs.src);
		cb->dst = libchoke_fold6(q, &fk->addrs.v6addrs.dst);
		break;
	case FLOW_DISSECTOR_KEY_TIPC:
		memcpy(&cb->src, &fk->addrs.tipckey.key, sizeof(cb->src));
		cb->dst = 0;
		break;
	default:
		cb->src = 0;
		cb->dst = 0;
	}
}

/*
 * protect's flow value: a keyed hash of the key as kept in the control
 * block (IPv6 addresses already folded into src and dst; addr_type tells
 * folded keys from others). Equal values are still confirmed by
 * libchoke_same_flow before a match.
 */
static u32 libchoke_cb_hash(const struct libchoke_sched *q,
			    const struct libchoke_cb *cb)
{
	u64 h = siphash_4u32((u32)cb->ip_proto | (u32)cb->addr_type << 8 |
			     (u32)be16_to_cpu(cb->n_proto) << 16,
			     (u32)be16_to_cpu(cb->sport) |
			     (u32)be16_to_cpu(cb->dport) << 16,
			     cb->src, cb->dst, &q->hkey);

	return (u32)(h ^ (h >> 32));
}

/*
 * protect's identity (the qdisc's protect_by): the flow's hash, or a keyed
 * hash of the source address, the destination address or both (IPv6
 * addresses as folded in the control block; the protocol family keeps an
 * IPv4 host from an IPv6 one).
 */
static u32 libchoke_cb_identity(const struct libchoke_sched *q,
				const struct libchoke_cb *cb, u32 flow)
{
	u32 fam = (u32)cb->addr_type << 8 | (u32)be16_to_cpu(cb->n_proto) << 16;
	u64 h;

	switch (q->cfg.protect_by) {
	case CHOKE_PROTECT_BY_SRCHOST:
		h = siphash_3u32(fam | 1, cb->src, 0, &q->hkey);
		break;
	case CHOKE_PROTECT_BY_DSTHOST:
		h = siphash_3u32(fam | 2, 0, cb->dst, &q->hkey);
		break;
	case CHOKE_PROTECT_BY_HOSTS:
		h = siphash_3u32(fam | 3, cb->src, cb->dst, &q->hkey);
		break;
	default:
		return flow;
	}
	return (u32)(h ^ (h >> 32));
}

/*
 * The core's flow comparison. Without protect every packet is offered
 * with the same flow value (0), so the core asks here for each packet it
 * draws: the keys are computed now, once per packet, and compared (with
 * protect, only when the hashes are equal, the keys already filled). Two folded keys that are
 * equal are confirmed on the full keys (their headers are unchanged while
 * queued; a CE mark is not part of the key).
 */
static bool libchoke_same_flow(void *ctx, const void *queued,
			       const void *arriving)
{
	struct libchoke_sched *q = ctx;
	struct libchoke_cb *a = libchoke_cb(arriving);
	struct libchoke_cb *b = libchoke_cb(queued);
	struct libchoke_key ka, kb;

	if (!a->valid)
		libchoke_cb_fill(q, arriving, a);
	if (!b->valid)
		libchoke_cb_fill(q, queued, b);
	if (memcmp(&a->folded, &b->folded, LIBCHOKE_CB_CMP))
		return false;
	if (!a->folded)
		return true;
	libchoke_key_of(arriving, &ka);
	libchoke_key_of(queued, &kb);
	return !memcmp(&ka, &kb, sizeof(ka));
}

/* Could INET_ECN_set_ce() mark this packet? The same tests, decided before
 * the core runs: an IPv4 or IPv6 header in the linear data with ECT(0),
 * ECT(1) or CE. */
static bool libchoke_ecn_capable(const struct sk_buff *skb)
{
	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		if (skb_network_header(skb) + sizeof(struct iphdr) <=
		    skb_tail_pointer(skb))
			return !INET_ECN_is_not_ect(ip_hdr(skb)->tos);
		break;
	case htons(ETH_P_IPV6):
		if (skb_network_header(skb) + sizeof(struct ipv6hdr) <=
		    skb_tail_pointer(skb))
			return !INET_ECN_is_not_ect(ipv6_get_dsfield(ipv6_hdr(skb)));
		break;
	}
	return false;
}

/* The qdisc's own view of the queue follows the core's after every change. */
static void libchoke_sync(struct Qdisc *sch, const struct libchoke_sched *q)
{
	sch->q.qlen = choke_qlen(&q->core);
	sch->qstats.backlog = (u32)choke_backlog(&q->core);
}

/*
 * The queued packets a match took out (one, or with the draw variants up
 * to CHOKE_MAX_VICTIMS), or the head that a light flow's arrival pushed out
 * at the limit (`sparse`): every parent had counted them, so take them back
 * (after our qlen is current, so an emptied class is noticed), then drop
 * each.
 */
static void libchoke_drop_victims(struct Qdisc *sch,
				  const struct choke_verdict *v,
				  struct sk_buff **to_free)
{
	unsigned int i, bytes = 0;

	for (i = 0; i < v->nvictims; i++)
		bytes += v->victim_len[i];
	qdisc_tree_reduce_backlog(sch, v->nvictims, bytes);
	for (i = 0; i < v->nvictims; i++)
		qdisc_drop(v->victim[i], sch, to_free);
}

static int libchoke_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	struct libchoke_cb *cb = libchoke_cb(skb);
	unsigned int len = qdisc_pkt_len(skb);
	unsigned int pkt_flags = 0;
	struct choke_verdict *v = &q->verdict;
	u32 flow = 0, id = 0;
	u64 now = 0;
	int r;

	/* Nothing here is computed for every packet unless the core needs
	 * it: the flow key only when a draw compares (libchoke_same_flow) or
	 * protect keys its table by it, the ECN test only with ecn
	 * configured, the clock only to end an idle period (with `target` at
	 * every arrival to a queue that holds packets). */
	cb->valid = 0;
	if (q->keyed) {
		libchoke_cb_fill(q, skb, cb);
		flow = libchoke_cb_hash(q, cb);
		id = libchoke_cb_identity(q, cb, flow);
	}
	if ((q->cfg.flags & TC_RED_ECN) && libchoke_ecn_capable(skb))
		pkt_flags |= CHOKE_PKT_ECN_CAPABLE;
	/* with `target`, an arrival at an idle queue leaves the time to the
	 * departure, which reads it anyway: one read per packet where the
	 * queue empties after each */
	if (choke_enqueue_needs_time(&q->core))
		now = choke_enqueue_may_defer_time(&q->core) ? CHOKE_TIME_DEFERRED :
							       ktime_get_ns();

	r = choke_enqueue_as(&q->core, skb, len, flow, id, pkt_flags, now, v);
	libchoke_sync(sch, q);
	sch->qstats.overlimits = (u32)choke_get_stats(&q->core)->overlimits;

	switch (r) {
	case CHOKE_QUEUED_MARKED:
		INET_ECN_set_ce(skb);
		fallthrough;
	case CHOKE_QUEUED:
		/* `sparse`: a light flow's arrival at the limit pushed the
		 * head out */
		if (unlikely(v->nvictims))
			libchoke_drop_victims(sch, v, to_free);
		return NET_XMIT_SUCCESS;
	case CHOKE_DROP_MATCH:
		libchoke_drop_victims(sch, v, to_free);
		fallthrough;
	case CHOKE_DROP_FORCED:
	case CHOKE_DROP_EARLY:
	case CHOKE_DROP_PROTECT: /* above its fair share: congestion */
		qdisc_drop(skb, sch, to_free);
		return NET_XMIT_CN;
	default: /* CHOKE_DROP_LIMIT */
		return qdisc_drop(skb, sch, to_free);
	}
}

static struct sk_buff *libchoke_dequeue(struct Qdisc *sch)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now;

	/* with `target`, an idle queue: nothing to take, no clock to read
	 * (the dequeue that emptied it started the idle period, below) */
	if (q->cfg.target_us && q->core.idle && !choke_qlen(&q->core))
		return NULL;
	now = choke_dequeue_needs_time(&q->core) ? ktime_get_ns() : 0;
	skb = choke_dequeue(&q->core, now, NULL);
	if (!skb)
		return NULL;
	/* With `target` every departure reads the clock; the one that
	 * empties the queue also starts its idle period, at the time it
	 * read. The empty peek (tbf) or dequeue that comes next, a moment
	 * later, would start it there with a clock read of its own: at a
	 * short queue one more read per packet. */
	if (q->cfg.target_us && !choke_qlen(&q->core))
		choke_dequeue(&q->core, now, NULL);
	libchoke_sync(sch, q);
	qdisc_bstats_update(sch, skb);
	return skb;
}

/*
 * A parent that peeks (tbf) never calls dequeue on an empty child, so in
 * mainline the RED average never sees the link go idle under tbf: after a
 * flood it stays high until enough new arrivals have worn it down, dropping
 * every packet that cannot be marked (ARP included, which cuts the link off
 * for IP too). An empty peek is where the queue goes idle: start the idle
 * period there as dequeue would (the core's dequeue of an empty queue does
 * only that), as long as the average is above the min threshold. Below it
 * every arrival is admitted whatever the average, and arrivals wear it down
 * as in mainline; not reading the clock there keeps a short queue, where
 * peeks find it empty after every packet, as cheap as mainline's.
 */
static struct sk_buff *libchoke_peek(struct Qdisc *sch)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	/* choke_peek() inline without the light lane: the head slot holds a
	 * packet when the span is not empty (a parent such as tbf peeks twice
	 * per packet) */
	struct sk_buff *skb = choke_lane_len(&q->core) ? choke_peek(&q->core) :
			      choke_span(&q->core) ? choke_slot_at(&q->core, 0)->pkt : NULL;

	/* with `target` protect also wants to know the link idled (once:
	 * an idle queue stays idle until an arrival) */
	if (!skb && !q->core.idle && choke_dequeue_needs_time(&q->core) &&
	    (q->cfg.target_us ||
	     choke_qavg_scaled(&q->core) > ((u64)q->cfg.qth_min << q->cfg.Wlog)))
		choke_dequeue(&q->core, ktime_get_ns(), NULL);
	return skb;
}

/* Reset and change drop through this (both run under RTNL). */
static void libchoke_drop_rtnl(void *ctx, void *pkt, uint32_t len)
{
	struct libchoke_sched *q = ctx;

	q->change_drops++;
	q->change_bytes += len;
	rtnl_qdisc_drop(pkt, q->sch);
}

static void libchoke_reset(struct Qdisc *sch)
{
	struct libchoke_sched *q = qdisc_priv(sch);

	if (!q->ring)
		return;
	choke_reset(&q->core, libchoke_drop_rtnl, q);
	libchoke_sync(sch, q);
}

static const struct nla_policy libchoke_policy[TCA_CHOKE_MAX + 1] = {
	/* lengths are checked exactly in libchoke_parse, with messages */
	[TCA_CHOKE_PARMS] = { .type = NLA_UNSPEC },
	[TCA_CHOKE_STAB] = { .type = NLA_UNSPEC },
	[TCA_CHOKE_MAX_P] = { .type = NLA_UNSPEC },
};

/* chokeplus: choke's three, then the variant (lengths checked below too) */
static const struct nla_policy chokeplus_policy[TCA_CHOKEPLUS_MAX + 1] = {
	[TCA_CHOKEPLUS_PARMS] = { .type = NLA_UNSPEC },
	[TCA_CHOKEPLUS_STAB] = { .type = NLA_UNSPEC },
	[TCA_CHOKEPLUS_MAX_P] = { .type = NLA_UNSPEC },
	[TCA_CHOKEPLUS_VARIANT] = { .type = NLA_UNSPEC },
};

#define LIBCHOKE_FLAGS (TC_RED_ECN | TC_RED_HARDDROP)

/*
 * The core's own check (choke_config_validate), the same rules as below
 * plus the core's, as a safety net: a refusal names the core's reason
 * (NL_SET_ERR_MSG_MOD takes literals only, hence the table).
 */
static int libchoke_core_check(const struct choke_config *c,
			       struct netlink_ext_ack *extack)
{
	enum choke_config_reason r = choke_config_validate(c);

	if (r == CHOKE_CFG_OK)
		return 0;
	switch (r) {
#define LIBCHOKE_REASON_(code, text) \
	case code: NL_SET_ERR_MSG_MOD(extack, text); break;
	CHOKE_CONFIG_REASONS(LIBCHOKE_REASON_)
#undef LIBCHOKE_REASON_
	default:
		NL_SET_ERR_MSG_MOD(extack, "configuration refused by the core");
		break;
	}
	return -EINVAL;
}

/*
 * chokeplus's TCA_CHOKEPLUS_VARIANT into c (absent: plain CHOKe), each
 * field checked with its own message. Byte mode has no field: chokeplus
 * counts packets, as choke does.
 */
static int chokeplus_parse_variant(const struct nlattr *a,
				   struct choke_config *c,
				   struct netlink_ext_ack *extack)
{
	struct tc_chokeplus_variant vv = {}, *v = &vv;

	if (!a)
		return 0;
	if (nla_len(a) != sizeof(*v) && nla_len(a) != TC_CHOKEPLUS_VARIANT_V1_LEN) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    KBUILD_MODNAME ": TCA_CHOKEPLUS_VARIANT must be a struct tc_chokeplus_variant (12 bytes, or its first 4)");
		return -EINVAL;
	}
	memcpy(v, nla_data(a), nla_len(a));
	switch (v->variant) {
	case CHOKE_VAR_NONE:
	case CHOKE_VAR_ADAPTIVE:
		if (v->draws) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    KBUILD_MODNAME ": a draw count without draws or geometric");
			return -EINVAL;
		}
		break;
	case CHOKE_VAR_DRAWS:
		if (v->draws < 2 || v->draws > CHOKE_MAX_DRAWS) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    KBUILD_MODNAME ": draws must be 2 to 16");
			return -EINVAL;
		}
		break;
	case CHOKE_VAR_GEOMETRIC:
		if (v->draws < 1 || v->draws > CHOKE_MAX_DRAWS) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    KBUILD_MODNAME ": the geometric cap must be 1 to 16");
			return -EINVAL;
		}
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, a,
				    KBUILD_MODNAME ": unknown variant (0 to 3)");
		return -EINVAL;
	}
	if (v->protect && (v->protect < CHOKE_PROTECT_MIN ||
			   v->protect > CHOKE_PROTECT_MAX ||
			   (v->protect & (v->protect - 1)))) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    KBUILD_MODNAME ": the protect table must have 8 to 256 entries, a power of two");
		return -EINVAL;
	}
	if (v->protect_by >= CHOKE_PROTECT_BY_N || (v->protect_by && !v->protect)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    KBUILD_MODNAME ": protect shares among flows, srchost, dsthost or hosts (0 to 3), with protect");
		return -EINVAL;
	}
	if (v->target_us > CHOKE_TARGET_MAX_US || (v->target_us && !v->protect)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    KBUILD_MODNAME ": target must be 1 us to 1 s, with protect");
		return -EINVAL;
	}
	if (v->sparse > 1 || v->pad) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    KBUILD_MODNAME ": sparse is 0 or 1, and the padding 0");
		return -EINVAL;
	}
	c->variant = v->variant;
	c->draws = v->draws;
	c->protect = v->protect;
	c->protect_by = v->protect_by;
	c->sparse = v->sparse;
	c->target_us = v->target_us;
	return 0;
}

/*
 * Options to a configuration, validated (plus: the id chokeplus, whose
 * first three attributes are choke's and are checked alike, with the same
 * messages). Refused as by mainline: no
 * options, PARMS or STAB missing, limit above 131071, fls(min) + Wlog >= 32,
 * fls(max) + Wlog >= 32, Scell_log >= 32, max < min, a Stab entry >= 32.
 * Refused here although mainline accepts them (each cannot work as meant):
 *  - an unknown attribute type, or bytes left after the attributes
 *    (mainline skips them);
 *  - PARMS, STAB or MAX_P of the wrong length (mainline takes longer ones
 *    and ignores the excess; a short MAX_P only warns);
 *  - limit 0 (a queue that drops every packet);
 *  - max above limit (the average can never reach it; tc refuses it too);
 *  - flag bits other than ECN and HARDDROP (ADAPTATIVE and NODROP are
 *    sch_red's and do nothing in choke; higher bits are undefined).
 * Accepted as by mainline although odd: Scell_log 25..31, where
 * 255 << Scell_log wraps in 32 bits and the idle time is clamped to the
 * wrapped value (the core reproduces it). Stock tc sends such values for
 * slow links or small bursts (124 of the 527 configurations it accepts in
 * tests/vectors/params.vec, e.g. "bandwidth 10kbit"), so refusing them
 * would break tc; the effect is only a shorter idle clamp.
 */
static int libchoke_parse(struct nlattr *opt, struct choke_config *c,
			  bool plus, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_CHOKEPLUS_MAX + 1];
	const struct tc_red_qopt *ctl;
	const u8 *stab;
	int err, i;

	if (!opt) {
		if (plus)
			NL_SET_ERR_MSG_MOD(extack, "chokeplus needs options (TCA_CHOKEPLUS_PARMS and TCA_CHOKEPLUS_STAB)");
		else
			NL_SET_ERR_MSG_MOD(extack, "choke needs options (TCA_CHOKE_PARMS and TCA_CHOKE_STAB)");
		return -EINVAL;
	}
	/* Strict where stock tc is never affected: an attribute type the id
	 * does not know (for choke: chokeplus's variant too), or bytes after
	 * the last whole attribute, are refused (the deprecated parse
	 * mainline uses skips both, with at most a warning in the kernel
	 * log). NLA_F_NESTED is not required on TCA_OPTIONS: tc does not set
	 * it. */
	memset(tb, 0, sizeof(tb));
	err = __nla_parse(tb, plus ? TCA_CHOKEPLUS_MAX : TCA_CHOKE_MAX,
			  nla_data(opt), nla_len(opt),
			  plus ? chokeplus_policy : libchoke_policy,
			  NL_VALIDATE_TRAILING | NL_VALIDATE_MAXTYPE, extack);
	if (err < 0)
		return err;
	if (!tb[TCA_CHOKE_PARMS]) {
		NL_SET_ERR_MSG_MOD(extack, "TCA_CHOKE_PARMS is missing");
		return -EINVAL;
	}
	if (!tb[TCA_CHOKE_STAB]) {
		NL_SET_ERR_MSG_MOD(extack, "TCA_CHOKE_STAB (idle damping table) is missing");
		return -EINVAL;
	}
	if (nla_len(tb[TCA_CHOKE_PARMS]) != sizeof(struct tc_red_qopt)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CHOKE_PARMS],
				    KBUILD_MODNAME ": TCA_CHOKE_PARMS must be a struct tc_red_qopt (16 bytes)");
		return -EINVAL;
	}
	if (nla_len(tb[TCA_CHOKE_STAB]) != RED_STAB_SIZE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CHOKE_STAB],
				    KBUILD_MODNAME ": TCA_CHOKE_STAB must be exactly 256 bytes");
		return -EINVAL;
	}
	if (tb[TCA_CHOKE_MAX_P] && nla_len(tb[TCA_CHOKE_MAX_P]) != sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CHOKE_MAX_P],
				    KBUILD_MODNAME ": TCA_CHOKE_MAX_P must be a u32");
		return -EINVAL;
	}

	ctl = nla_data(tb[TCA_CHOKE_PARMS]);
	stab = nla_data(tb[TCA_CHOKE_STAB]);
	memset(c, 0, sizeof(*c));
	c->limit = ctl->limit;
	c->qth_min = ctl->qth_min;
	c->qth_max = ctl->qth_max;
	c->Wlog = ctl->Wlog;
	c->Plog = ctl->Plog;
	c->Scell_log = ctl->Scell_log;
	c->flags = ctl->flags;
	c->max_P = tb[TCA_CHOKE_MAX_P] ? nla_get_u32(tb[TCA_CHOKE_MAX_P]) : 0;
	memcpy(c->stab, stab, RED_STAB_SIZE);
	c->kind = CHOKE_KIND_CHOKE;
	c->idle_unit = tc_idle_ticks ? CHOKE_IDLE_TICKS64 : CHOKE_IDLE_KERNEL_US;

	if (c->limit == 0) {
		NL_SET_ERR_MSG_MOD(extack, "limit must be at least 1 packet");
		return -EINVAL;
	}
	if (c->limit > CHOKE_MAX_LIMIT) {
		NL_SET_ERR_MSG_MOD(extack, "limit is larger than 131071 packets");
		return -EINVAL;
	}
	if (fls(c->qth_min) + c->Wlog >= 32) {
		NL_SET_ERR_MSG_MOD(extack, "min threshold too large for Wlog (qth_min << Wlog overflows 32 bits)");
		return -EINVAL;
	}
	if (fls(c->qth_max) + c->Wlog >= 32) {
		NL_SET_ERR_MSG_MOD(extack, "max threshold too large for Wlog (qth_max << Wlog overflows 32 bits)");
		return -EINVAL;
	}
	if (c->Scell_log >= 32) {
		NL_SET_ERR_MSG_MOD(extack, "Scell_log must be below 32");
		return -EINVAL;
	}
	if (c->qth_max < c->qth_min) {
		NL_SET_ERR_MSG_MOD(extack, "max threshold is below min threshold");
		return -EINVAL;
	}
	if (c->qth_max > c->limit) {
		NL_SET_ERR_MSG_MOD(extack, "max threshold is above limit (the average can never reach it)");
		return -EINVAL;
	}
	for (i = 0; i < RED_STAB_SIZE; i++) {
		if (stab[i] >= 32) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CHOKE_STAB],
					    KBUILD_MODNAME ": idle damping table (Stab) entries must be below 32");
			return -EINVAL;
		}
	}
	if (c->flags & ~LIBCHOKE_FLAGS) {
		NL_SET_ERR_MSG_MOD(extack, "unsupported flags: choke knows ecn (1) and harddrop (2) only");
		return -EINVAL;
	}
	if (plus) {
		err = chokeplus_parse_variant(tb[TCA_CHOKEPLUS_VARIANT], c, extack);
		if (err)
			return err;
	}
	return libchoke_core_check(c, extack);
}

static void *libchoke_ring_alloc(u32 limit)
{
	return kvcalloc(choke_ring_slots(limit), sizeof(struct choke_slot),
			GFP_KERNEL);
}

static int libchoke_change(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	struct choke_config c;
	void *ring = NULL, *old = NULL;
	int err;

	err = libchoke_parse(opt, &c, q->plus, extack);
	if (err)
		return err;
	if (choke_change_needs_ring(&q->core, c.limit)) {
		ring = libchoke_ring_alloc(c.limit);
		if (!ring) {
			NL_SET_ERR_MSG_MOD(extack, "cannot allocate the ring for this limit");
			return -ENOMEM;
		}
	}

	sch_tree_lock(sch);
	q->change_drops = 0;
	q->change_bytes = 0;
	err = choke_change(&q->core, &c, ring, ring ? choke_ring_bytes(c.limit) : 0,
			   &old, libchoke_drop_rtnl, q);
	if (err) {
		sch_tree_unlock(sch);
		kvfree(ring);
		NL_SET_ERR_MSG_MOD(extack, "configuration refused by the core");
		return -EINVAL;
	}
	if (ring)
		q->ring = ring;
	q->cfg = c;
	/* Packets queued before protect was turned on carry the flow value
	 * 0, and after it was turned off their hashes: until they leave, an
	 * arrival is not matched against them (RED and protect still act). */
	q->keyed = c.protect || c.sparse;
	libchoke_sync(sch, q);
	if (q->change_drops)
		qdisc_tree_reduce_backlog(sch, q->change_drops, q->change_bytes);
	sch_tree_unlock(sch);

	kvfree(old);
	return 0;
}

static int libchoke_init_as(struct Qdisc *sch, struct nlattr *opt, bool plus,
			    struct netlink_ext_ack *extack)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	const struct choke_ops ops = {
		.same_flow = libchoke_same_flow,
		.ctx = q,
	};
	struct choke_config c;
	void *ring;
	int err;

	q->sch = sch;
	q->plus = plus;
	err = libchoke_parse(opt, &c, plus, extack);
	if (err)
		return err;
	ring = libchoke_ring_alloc(c.limit);
	if (!ring) {
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate the ring for this limit");
		return -ENOMEM;
	}
	err = choke_init(&q->core, &c, ring, choke_ring_bytes(c.limit));
	if (err) {
		kvfree(ring);
		NL_SET_ERR_MSG_MOD(extack, "configuration refused by the core");
		return -EINVAL;
	}
	q->ring = ring;
	q->cfg = c;
	q->keyed = c.protect || c.sparse;
	get_random_bytes(&q->hkey, sizeof(q->hkey));
	choke_seed(&q->core, get_random_u64());
	choke_set_ops(&q->core, &ops);
	libchoke_sync(sch, q);
	return 0;
}

static int libchoke_init(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	return libchoke_init_as(sch, opt, false, extack);
}

static int chokeplus_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	return libchoke_init_as(sch, opt, true, extack);
}

static void libchoke_drop_free(void *ctx, void *pkt, uint32_t len)
{
	kfree_skb(pkt);
}

static void libchoke_destroy(struct Qdisc *sch)
{
	struct libchoke_sched *q = qdisc_priv(sch);

	if (!q->ring)
		return; /* init failed before the ring existed */
	/* qdisc_destroy() resets first; anything left would be a bug, but
	 * free it rather than leak it. */
	if (WARN_ON_ONCE(choke_qlen(&q->core)))
		choke_reset(&q->core, libchoke_drop_free, NULL);
	kvfree(q->ring);
	q->ring = NULL;
}

static int libchoke_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	const struct choke_config *c = &q->cfg;
	struct tc_red_qopt opt = {
		.limit = c->limit,
		.qth_min = c->qth_min,	/* unscaled, as mainline dumps them */
		.qth_max = c->qth_max,
		.Wlog = c->Wlog,
		.Plog = c->Plog,
		.Scell_log = c->Scell_log,
		.flags = c->flags,
	};
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	/* MAX_P as in effect (derived from Plog when none was given), as
	 * mainline; the core holds it. */
	if (nla_put(skb, TCA_CHOKE_PARMS, sizeof(opt), &opt) ||
	    nla_put_u32(skb, TCA_CHOKE_MAX_P, q->core.max_P))
		goto cancel;
	if (q->plus) {
		struct tc_chokeplus_variant var = {
			.variant = c->variant,
			.draws = c->draws,
			.protect = c->protect,
			.protect_by = c->protect_by,
			.sparse = c->sparse,
			.target_us = c->target_us,
		};

		if (nla_put(skb, TCA_CHOKEPLUS_VARIANT, sizeof(var), &var))
			goto cancel;
	}
	return nla_nest_end(skb, opts);
cancel:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int libchoke_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	const struct choke_stats *s = choke_get_stats(&q->core);
	struct tc_choke_xstats st = {
		.early = (u32)(READ_ONCE(s->prob_drop) + READ_ONCE(s->forced_drop)),
		.marked = (u32)(READ_ONCE(s->prob_mark) + READ_ONCE(s->forced_mark)),
		.pdrop = (u32)READ_ONCE(s->pdrop),
		.other = (u32)READ_ONCE(s->other_drop),
		.matched = (u32)READ_ONCE(s->matched),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* choke's five counters, then protect's drops (kmod/chokeplus.h) */
static int chokeplus_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct libchoke_sched *q = qdisc_priv(sch);
	const struct choke_stats *s = choke_get_stats(&q->core);
	struct tc_chokeplus_xstats st = {
		.early = (u32)(READ_ONCE(s->prob_drop) + READ_ONCE(s->forced_drop)),
		.marked = (u32)(READ_ONCE(s->prob_mark) + READ_ONCE(s->forced_mark)),
		.pdrop = (u32)READ_ONCE(s->pdrop),
		.other = (u32)READ_ONCE(s->other_drop),
		.matched = (u32)READ_ONCE(s->matched),
		.protect = (u32)READ_ONCE(s->protect_drop),
		.protect_marked = (u32)READ_ONCE(s->protect_mark),
		.lane = (u32)READ_ONCE(s->lane_pkts),
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops libchoke_qdisc_ops __read_mostly = {
	.id = "choke",
	.priv_size = sizeof(struct libchoke_sched),
	.enqueue = libchoke_enqueue,
	.dequeue = libchoke_dequeue,
	.peek = libchoke_peek,
	.init = libchoke_init,
	.destroy = libchoke_destroy,
	.reset = libchoke_reset,
	.change = libchoke_change,
	.dump = libchoke_dump,
	.dump_stats = libchoke_dump_stats,
	.owner = THIS_MODULE,
};

/* The same discipline under the second id: its own options and xstats. */
static struct Qdisc_ops chokeplus_qdisc_ops __read_mostly = {
	.id = CHOKEPLUS_ID,
	.priv_size = sizeof(struct libchoke_sched),
	.enqueue = libchoke_enqueue,
	.dequeue = libchoke_dequeue,
	.peek = libchoke_peek,
	.init = chokeplus_init,
	.destroy = libchoke_destroy,
	.reset = libchoke_reset,
	.change = libchoke_change,
	.dump = libchoke_dump,
	.dump_stats = chokeplus_dump_stats,
	.owner = THIS_MODULE,
};

static int __init libchoke_module_init(void)
{
	int err = register_qdisc(&libchoke_qdisc_ops);

	if (err == -EEXIST) {
		pr_err("sch_libchoke: the qdisc id \"choke\" is taken, most likely by mainline sch_choke; the two cannot be loaded at once: rmmod sch_choke, then load sch_libchoke again\n");
		return err;
	}
	if (err)
		return err;
	err = register_qdisc(&chokeplus_qdisc_ops);
	if (err) {
		pr_err("sch_libchoke: cannot register the qdisc id \"" CHOKEPLUS_ID "\" (error %d)\n", err);
		unregister_qdisc(&libchoke_qdisc_ops);
		return err;
	}
	pr_info("sch_libchoke: qdiscs \"choke\" and \"" CHOKEPLUS_ID "\" registered (libchoke core, non-wrapping ring)\n");
	return 0;
}

static void __exit libchoke_module_exit(void)
{
	unregister_qdisc(&chokeplus_qdisc_ops);
	unregister_qdisc(&libchoke_qdisc_ops);
}

module_init(libchoke_module_init);
module_exit(libchoke_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CHOKe queue discipline on the libchoke core (qdisc ids \"choke\", mainline's options, and \"chokeplus\", protect and the variants; never wraps)");
MODULE_ALIAS("sch_chokeplus");
MODULE_VERSION(CHOKE_VERSION); /* the file VERSION, through kmod/Kbuild */
