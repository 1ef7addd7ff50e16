/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Every kernel choke qdisc of this network namespace, read over rtnetlink:
 * an RTM_GETQDISC dump (every device, invisible qdiscs included) keeps the
 * qdiscs whose TCA_KIND is "choke" (mainline sch_choke and sch_libchoke
 * register the same id and dump the same attributes) or "chokeplus"
 * (sch_libchoke's second id: kmod/chokeplus.h), then an RTM_GETLINK dump
 * names their devices.
 *
 * Per qdisc: TCA_OPTIONS (TCA_CHOKE_PARMS = struct tc_red_qopt, thresholds
 * in packets; TCA_CHOKE_MAX_P; chokeplus's TCA_CHOKEPLUS_VARIANT), TCA_STATS2
 * (TCA_STATS_BASIC bytes and packets, TCA_STATS_PKT64 when the packets
 * overflow 32 bits, TCA_STATS_QUEUE qlen/backlog/drops/requeues/overlimits)
 * and TCA_XSTATS = struct tc_choke_xstats (early, pdrop, other, marked,
 * matched), for chokeplus struct tc_chokeplus_xstats (the same five, then
 * protect's drops and whatever the module adds: NLQ_XSTATS below); also
 * found as TCA_STATS_APP inside TCA_STATS2.
 *
 * The kernel's drop, requeue, overlimit and extended counters are 32 bits
 * wide. nlq_widen() makes 64-bit counters of them across readings (the
 * exporter reads at every scrape), so that Prometheus never sees a wrap as
 * a reset.
 *
 * The parser takes the buffers recv() returned, so it is tested on recorded
 * messages (tests/exporter/); nlq_read() is the socket around it.
 */
#ifndef CHOKE_EXPORTER_NLQDISC_H
#define CHOKE_EXPORTER_NLQDISC_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* at most this many choke qdiscs in one reading (the rest: an error) */
#define NLQ_MAX_QDISCS 4096

/* The two qdisc ids (TCA_KIND). */
enum nlq_kind { NLQ_CHOKE, NLQ_CHOKEPLUS };

/*
 * The extended statistics, one line per 32-bit field, in the kernel's order:
 * struct tc_choke_xstats's five, then chokeplus's (struct
 * tc_chokeplus_xstats in kmod/chokeplus.h, which begins with choke's). A
 * field the module adds to tc_chokeplus_xstats is one line at the end:
 *
 *   X(field, role, name, help)
 *
 * role NLQ_X_DROP: a reason of choke_qdisc_dropped_packets_total (name: the
 * reason; help: what it counts, for the family's HELP); NLQ_X_COUNTER: a
 * counter family of its own, choke_qdisc_NAME_total; NLQ_X_MATCHED: that,
 * and choke's match drops are 2 per matched arrival; NLQ_X_OTHER: drops by a
 * reset or a change (chokeplus; mainline's choke leaves it 0, so there
 * `other` is what the kernel's drop count leaves after the reasons).
 * chokeplus's match drops are what the kernel's drop count leaves after
 * the reasons and other (with draws N an arrival takes up to N victims).
 * qdisc_om.c writes them; the tests compare them with tc's own reading.
 */
enum { NLQ_X_DROP, NLQ_X_COUNTER, NLQ_X_MATCHED, NLQ_X_OTHER };
#define NLQ_XSTATS(X)                                                                     \
	X(early, NLQ_X_DROP, "early", "early (RED's probability, or the average above max)") \
	X(pdrop, NLQ_X_DROP, "limit", "limit (queue full)")                                  \
	X(other, NLQ_X_OTHER, "other", NULL)                                                 \
	X(marked, NLQ_X_COUNTER, "marked_packets",                                           \
	  "Packets marked Congestion Experienced (ECN) instead of dropped (tc: marked).")    \
	X(matched, NLQ_X_MATCHED, "matched_packets",                                         \
	  "Arrivals that matched the flow of a randomly drawn queued packet; each match "    \
	  "drops the arrival and the queued packets it matched (tc: matched).")              \
	X(protect, NLQ_X_DROP, "protect",                                                    \
	  "protect (chokeplus: the arrival's flow above its fair share)")                   \
	X(protect_marked, NLQ_X_COUNTER, "protect_marked_packets",                           \
	  "ECN-capable arrivals above their fair share that protect marked instead of "      \
	  "dropped (chokeplus).")                                                            \
	X(lane, NLQ_X_COUNTER, "lane_packets",                                               \
	  "Arrivals of light flows served in the light lane (chokeplus sparse).")

enum {
#define NLQ_X_INDEX(field, role, name, help) NLQ_X_##field,
	NLQ_XSTATS(NLQ_X_INDEX)
#undef NLQ_X_INDEX
	NLQ_NX, /* fields known here */
	NLQ_NX_CHOKE = NLQ_X_matched + 1, /* struct tc_choke_xstats's */
};

struct nlq_xfield {
	const char *field, *name, *help;
	int role;
};
extern const struct nlq_xfield nlq_xfields[NLQ_NX];

/* The 32-bit counters nlq_widen() widens: the queue's three, the
 * remainder (choke: other; chokeplus: match; see NLQ_XSTATS), then the
 * extended statistics' fields. */
enum { NLQ_W_DROPS, NLQ_W_REQUEUES, NLQ_W_OVERLIMITS, NLQ_W_REST, NLQ_W_X, NLQ_NW = NLQ_W_X + NLQ_NX };

struct nlq_qdisc {
	int ifindex;
	int kind;              /* enum nlq_kind */
	char dev[IF_NAMESIZE]; /* "" until the link dump named it */
	uint32_t handle, parent;
	/* TCA_OPTIONS */
	int has_parms, has_max_p, has_variant;
	uint32_t limit, qth_min, qth_max; /* packets */
	uint8_t Wlog, Plog, Scell_log, flags;
	uint32_t max_P; /* Q0.32 */
	uint8_t variant, draws; /* chokeplus: struct tc_chokeplus_variant */
	uint16_t protect;
	/* TCA_STATS2 */
	int has_basic, has_queue;
	uint64_t bytes, packets;
	uint32_t qlen, backlog, drops, requeues, overlimits;
	/* TCA_XSTATS: the first nx fields of NLQ_XSTATS (0: none sent) */
	int nx;
	uint32_t x[NLQ_NX];
	/* the 32-bit counters as 64-bit ones (nlq_widen; NLQ_W_*) */
	uint64_t w[NLQ_NW];
};

struct nlq_set {
	struct nlq_qdisc *q;
	size_t n, cap;
	int intr; /* a message of this dump was flagged NLM_F_DUMP_INTR */
};

/* What one buffer of a dump held. */
enum {
	NLQ_MORE = 0, /* more messages to come */
	NLQ_DONE = 1, /* NLMSG_DONE: the dump is complete */
	NLQ_INTR = 2, /* NLMSG_DONE, but the kernel flagged the dump as
			 interrupted by a change (NLM_F_DUMP_INTR): read again */
};

/*
 * One recv() buffer of a RTM_GETQDISC dump answering sequence number seq:
 * every choke qdisc is appended to s. Returns NLQ_MORE, NLQ_DONE, NLQ_INTR,
 * or -1 with a message in err (an NLMSG_ERROR from the kernel, a message
 * that does not parse, more than NLQ_MAX_QDISCS, out of memory). Messages
 * of another sequence number are ignored.
 */
int nlq_parse_qdiscs(const void *buf, size_t len, uint32_t seq, struct nlq_set *s,
		     char *err, size_t errlen);

/* One recv() buffer of a RTM_GETLINK dump: the devices of s's qdiscs get
 * their names (IFLA_IFNAME). Same returns. */
int nlq_parse_links(const void *buf, size_t len, uint32_t seq, struct nlq_set *s,
		    char *err, size_t errlen);

/*
 * Both dumps over a NETLINK_ROUTE socket, each bounded by timeout_ms (and
 * read again, up to three times, when the kernel flags it as interrupted).
 * s is emptied first. If record is given it gets every buffer received
 * (what = 'q' for the qdisc dump, 'l' for the link dump): how the test
 * fixtures were recorded. Qdiscs whose device has no name by then (it went
 * away between the dumps) are dropped. 0, or -1 with a message.
 */
int nlq_read(struct nlq_set *s, int timeout_ms,
	     void (*record)(void *ctx, char what, const void *buf, size_t len), void *ctx,
	     char *err, size_t errlen);

void nlq_free(struct nlq_set *s);

/* The remainder NLQ_W_REST of q's 32-bit counters, in 32-bit arithmetic
 * (right across a wrap): choke's other, chokeplus's match drops. */
uint32_t nlq_rest(const struct nlq_qdisc *q);

/*
 * What the previous reading said, for nlq_widen(): each qdisc by device
 * index, handle and kind, with its 32-bit counters as read and as widened.
 */
struct nlq_history {
	struct nlq_past {
		int ifindex, kind, nx;
		uint32_t handle;
		uint64_t bytes, packets;
		uint32_t raw[NLQ_NW];
		uint64_t w[NLQ_NW];
	} *e;
	size_t n;
};

/*
 * Fill every qdisc's w[] with its 32-bit counters made 64-bit: a qdisc
 * seen in h (the same device index, handle and kind, and its 64-bit byte
 * and packet counts not gone back) adds each counter's advance since then
 * modulo 2^32 to its widened value; any other starts from the counters as
 * read (a qdisc new to the exporter, or replaced: its 64-bit counts went
 * back). h then holds this reading (qdiscs no longer there are forgotten).
 * With h NULL, w[] is the counters as read. Right as long as no counter
 * advances by 2^32 or more between two readings. -1 (out of memory: h is
 * emptied, w[] as read) or 0.
 */
int nlq_widen(struct nlq_history *h, struct nlq_set *s);
void nlq_history_free(struct nlq_history *h);

/*
 * The qdiscs as families of the Prometheus text format (qdisc_om.c), each
 * series labelled device (node_exporter's name for it), handle and parent
 * as tc prints them: choke_qdisc_* (docs/operations.md lists them), the
 * counters from w[] (nlq_widen). Families are written even when there is
 * no choke qdisc; no # EOF.
 */
void nlq_write_metrics(FILE *f, const struct nlq_set *s);

/* tc's spelling of a handle (as `tc qdisc show` prints it): "root"
 * (TC_H_ROOT), "none" (0), "1:" (minor 0), ":5" (major 0), "1:10"; hex.
 * buf holds at least NLQ_HANDLE_LEN bytes. */
#define NLQ_HANDLE_LEN 16
void nlq_handle_name(uint32_t h, char *buf);

#endif
