/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Every kernel choke qdisc of this network namespace, read over rtnetlink:
 * an RTM_GETQDISC dump (every device, invisible qdiscs included) keeps the
 * qdiscs whose TCA_KIND is "choke" (mainline sch_choke and sch_libchoke
 * register the same id and dump the same attributes), then an RTM_GETLINK
 * dump names their devices.
 *
 * Per qdisc: TCA_OPTIONS (TCA_CHOKE_PARMS = struct tc_red_qopt, thresholds
 * in packets; TCA_CHOKE_MAX_P), TCA_STATS2 (TCA_STATS_BASIC bytes and
 * packets, TCA_STATS_PKT64 when the packets overflow 32 bits,
 * TCA_STATS_QUEUE qlen/backlog/drops/requeues/overlimits) and TCA_XSTATS =
 * struct tc_choke_xstats (early, pdrop, other, marked, matched; also found
 * as TCA_STATS_APP inside TCA_STATS2).
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

struct nlq_qdisc {
	int ifindex;
	char dev[IF_NAMESIZE]; /* "" until the link dump named it */
	uint32_t handle, parent;
	/* TCA_OPTIONS */
	int has_parms, has_max_p;
	uint32_t limit, qth_min, qth_max; /* packets */
	uint8_t Wlog, Plog, Scell_log, flags;
	uint32_t max_P; /* Q0.32 */
	/* TCA_STATS2 */
	int has_basic, has_queue;
	uint64_t bytes, packets;
	uint32_t qlen, backlog, drops, requeues, overlimits;
	/* TCA_XSTATS */
	int has_xstats;
	uint32_t early, pdrop, other, marked, matched;
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

/*
 * The qdiscs as families of the Prometheus text format (qdisc_om.c), each
 * series labelled dev, handle and parent as tc prints them: choke_qdisc_*
 * (docs/operations.md lists them). Families are written even when there is
 * no choke qdisc; no # EOF.
 */
void nlq_write_metrics(FILE *f, const struct nlq_set *s);

/* tc's spelling of a handle (as `tc qdisc show` prints it): "root"
 * (TC_H_ROOT), "none" (0), "1:" (minor 0), ":5" (major 0), "1:10"; hex.
 * buf holds at least NLQ_HANDLE_LEN bytes. */
#define NLQ_HANDLE_LEN 16
void nlq_handle_name(uint32_t h, char *buf);

#endif
