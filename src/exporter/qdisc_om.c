/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The kernel's choke and chokeplus qdiscs in Prometheus's text format: see
 * nlqdisc.h and docs/operations.md (the names, their labels, what each
 * counts). */
#include <stddef.h>
#include <string.h>

#include "../util/om.h"
#include "choke/params.h"
#include "nlqdisc.h"

static void q_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{device="eth0",handle="10:",parent="1:1" (the caller may add labels
 * and closes with q_end) */
static void q_start(FILE *f, const char *name, const struct nlq_qdisc *q)
{
	char h[NLQ_HANDLE_LEN];

	fprintf(f, "%s{device=", name);
	om_label_value(f, q->dev);
	nlq_handle_name(q->handle, h);
	fprintf(f, ",handle=\"%s\"", h);
	nlq_handle_name(q->parent, h);
	fprintf(f, ",parent=\"%s\"", h);
}

static void q_end(FILE *f, uint64_t v)
{
	fprintf(f, "} %llu\n", (unsigned long long)v);
}

enum { QV_BYTES, QV_PACKETS, QV_OVERLIMITS, QV_REQUEUES, QV_XSTATS, QV_QLEN, QV_BACKLOG,
       QV_LIMIT, QV_MIN, QV_MAX };

/* one value per qdisc, when the kernel sent the attribute it comes from;
 * QV_XSTATS stands for the counters of the extended statistics
 * (NLQ_X_COUNTER and NLQ_X_MATCHED, nlqdisc.h) */
static const struct {
	const char *name, *type, *help;
	int what;
} q_simple[] = {
	{ "choke_qdisc_sent_bytes_total", "counter",
	  "Bytes the qdisc handed on (tc: Sent N bytes).", QV_BYTES },
	{ "choke_qdisc_sent_packets_total", "counter",
	  "Packets the qdisc handed on (tc: Sent N pkt).", QV_PACKETS },
	{ "choke_qdisc_overlimits_total", "counter",
	  "Arrivals above the thresholds that were dropped or marked (tc: overlimits).",
	  QV_OVERLIMITS },
	{ "choke_qdisc_requeues_total", "counter",
	  "Packets the device gave back to the qdisc (tc: requeues).", QV_REQUEUES },
	{ NULL, NULL, NULL, QV_XSTATS },
	{ "choke_qdisc_queue_packets", "gauge", "Packets queued now (tc: backlog Np).",
	  QV_QLEN },
	{ "choke_qdisc_queue_bytes", "gauge", "Bytes queued now (tc: backlog Nb).", QV_BACKLOG },
	{ "choke_qdisc_queue_limit_packets", "gauge", "The queue's limit (tc: limit).",
	  QV_LIMIT },
	{ "choke_qdisc_min_threshold_packets", "gauge",
	  "The average queue above which arrivals are matched and may be dropped (tc: min).",
	  QV_MIN },
	{ "choke_qdisc_max_threshold_packets", "gauge",
	  "The average queue above which every arrival is dropped or marked (tc: max).",
	  QV_MAX },
};

/* the value, or -1 when the kernel did not send it */
static long long q_value(const struct nlq_qdisc *q, int what)
{
	switch (what) {
	case QV_BYTES:
		return q->has_basic ? (long long)q->bytes : -1;
	case QV_PACKETS:
		return q->has_basic ? (long long)q->packets : -1;
	case QV_OVERLIMITS:
		return q->has_queue ? (long long)q->w[NLQ_W_OVERLIMITS] : -1;
	case QV_REQUEUES:
		return q->has_queue ? (long long)q->w[NLQ_W_REQUEUES] : -1;
	case QV_QLEN:
		return q->has_queue ? (long long)q->qlen : -1;
	case QV_BACKLOG:
		return q->has_queue ? (long long)q->backlog : -1;
	case QV_LIMIT:
		return q->has_parms ? (long long)q->limit : -1;
	case QV_MIN:
		return q->has_parms ? (long long)q->qth_min : -1;
	default:
		return q->has_parms ? (long long)q->qth_max : -1;
	}
}

/* the extended statistics' own counters: choke_qdisc_NAME_total */
static void q_xcounters(FILE *f, const struct nlq_set *s)
{
	char name[96];
	size_t i;
	int k;

	for (k = 0; k < NLQ_NX; k++) {
		const struct nlq_xfield *x = &nlq_xfields[k];

		if (x->role != NLQ_X_COUNTER && x->role != NLQ_X_MATCHED)
			continue;
		snprintf(name, sizeof(name), "choke_qdisc_%s_total", x->name);
		q_family(f, name, "counter", x->help);
		for (i = 0; i < s->n; i++) {
			if (s->q[i].nx <= k)
				continue;
			q_start(f, name, &s->q[i]);
			q_end(f, s->q[i].w[NLQ_W_X + k]);
		}
	}
}

static void q_reason(FILE *f, const struct nlq_qdisc *q, const char *reason, uint64_t v)
{
	q_start(f, "choke_qdisc_dropped_packets_total", q);
	fprintf(f, ",reason=\"%s\"", reason);
	q_end(f, v);
}

/*
 * Drops by reason, adding up to the kernel's own count (tc: dropped): the
 * extended statistics' reasons (NLQ_X_DROP: early, limit, protect...),
 * match (choke: two per matched arrival, the arrival and the queued packet
 * it matched, in mainline as in sch_libchoke; chokeplus: what the count
 * leaves after the other reasons, since draws N takes up to N victims per
 * arrival), other (choke: what the count leaves; chokeplus: the kernel's
 * own count of what a reset or a change dropped). Every 32-bit counter
 * through its 64-bit widening (nlq_widen), the remainder too, so the
 * reasons stay right across a wrap.
 */
static void q_drops(FILE *f, const struct nlq_set *s)
{
	char help[1024];
	size_t i, hl;
	int k;

	hl = (size_t)snprintf(help, sizeof(help), "Packets dropped, by reason:");
	for (k = 0; k < NLQ_NX; k++)
		if (nlq_xfields[k].role == NLQ_X_DROP && hl < sizeof(help))
			hl += (size_t)snprintf(help + hl, sizeof(help) - hl, " %s,",
					       nlq_xfields[k].help);
	if (hl < sizeof(help))
		snprintf(help + hl, sizeof(help) - hl,
			 " match (CHOKe: the arrival and the queued packets it matched), other "
			 "(reset or change); together tc's dropped.");
	q_family(f, "choke_qdisc_dropped_packets_total", "counter", help);
	for (i = 0; i < s->n; i++) {
		const struct nlq_qdisc *q = &s->q[i];
		uint64_t match, other;

		if (!q->has_queue || q->nx < NLQ_NX_CHOKE)
			continue;
		for (k = 0; k < q->nx; k++)
			if (nlq_xfields[k].role == NLQ_X_DROP)
				q_reason(f, q, nlq_xfields[k].name, q->w[NLQ_W_X + k]);
		if (q->kind == NLQ_CHOKEPLUS) {
			match = q->w[NLQ_W_REST];
			other = q->w[NLQ_W_X + NLQ_X_other];
		} else {
			match = 2 * q->w[NLQ_W_X + NLQ_X_matched];
			other = q->w[NLQ_W_REST];
		}
		q_reason(f, q, "match", match);
		q_reason(f, q, "other", other);
	}
}

static void q_info(FILE *f, const struct nlq_set *s)
{
	struct choke_config c;
	char words[256];
	size_t i;

	q_family(f, "choke_qdisc_info", "gauge",
		 "The qdisc's id (kind: choke or chokeplus) and parameters as `tc -d qdisc "
		 "show` words, value 1.");
	for (i = 0; i < s->n; i++) {
		const struct nlq_qdisc *q = &s->q[i];

		if (!q->has_parms)
			continue;
		memset(&c, 0, sizeof(c));
		c.kind = CHOKE_KIND_CHOKE;
		c.limit = q->limit;
		c.qth_min = q->qth_min;
		c.qth_max = q->qth_max;
		c.Wlog = q->Wlog;
		c.Plog = q->Plog;
		c.Scell_log = q->Scell_log;
		c.flags = q->flags;
		c.max_P = q->has_max_p ? q->max_P : 0;
		if (q->has_variant) {
			c.variant = q->variant;
			c.draws = q->draws;
			c.protect = q->protect;
		}
		choke_params_format(&c, words, sizeof(words));
		q_start(f, "choke_qdisc_info", q);
		fprintf(f, ",kind=\"%s\",params=", q->kind == NLQ_CHOKEPLUS ? "chokeplus" : "choke");
		om_label_value(f, words);
		q_end(f, 1);
	}
}

void nlq_write_metrics(FILE *f, const struct nlq_set *s)
{
	size_t k, i;
	long long v;

	for (k = 0; k < sizeof(q_simple) / sizeof(q_simple[0]); k++) {
		if (q_simple[k].what == QV_XSTATS) {
			q_xcounters(f, s);
			continue;
		}
		q_family(f, q_simple[k].name, q_simple[k].type, q_simple[k].help);
		for (i = 0; i < s->n; i++) {
			v = q_value(&s->q[i], q_simple[k].what);
			if (v < 0)
				continue;
			q_start(f, q_simple[k].name, &s->q[i]);
			q_end(f, (uint64_t)v);
		}
		if (q_simple[k].what == QV_PACKETS)
			q_drops(f, s);
	}
	q_info(f, s);
}
