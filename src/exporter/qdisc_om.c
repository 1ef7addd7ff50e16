/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The kernel's choke qdiscs in Prometheus's text format: see nlqdisc.h and
 * docs/operations.md (the names, their labels, what each counts). */
#include <stddef.h>
#include <string.h>

#include "../util/om.h"
#include "choke/params.h"
#include "merge.h"
#include "nlqdisc.h"

static void q_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{dev="eth0",handle="10:",parent="1:1" (the caller may add labels and
 * closes with q_end) */
static void q_start(FILE *f, const char *name, const struct nlq_qdisc *q)
{
	char h[NLQ_HANDLE_LEN];

	fprintf(f, "%s{dev=", name);
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

enum { QV_BYTES, QV_PACKETS, QV_OVERLIMITS, QV_REQUEUES, QV_MATCHED, QV_MARKED, QV_QLEN,
       QV_BACKLOG, QV_LIMIT, QV_MIN, QV_MAX };

/* one value per qdisc, when the kernel sent the attribute it comes from */
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
	{ "choke_qdisc_matched_packets_total", "counter",
	  "Arrivals that matched the flow of a randomly drawn queued packet; each "
	  "match drops both (tc: matched).", QV_MATCHED },
	{ "choke_qdisc_marked_packets_total", "counter",
	  "Packets marked Congestion Experienced (ECN) instead of dropped (tc: marked).",
	  QV_MARKED },
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
		return q->has_queue ? (long long)q->overlimits : -1;
	case QV_REQUEUES:
		return q->has_queue ? (long long)q->requeues : -1;
	case QV_MATCHED:
		return q->has_xstats ? (long long)q->matched : -1;
	case QV_MARKED:
		return q->has_xstats ? (long long)q->marked : -1;
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

/*
 * Drops by reason, adding up to the kernel's own count (tc: dropped): early
 * (RED's probabilistic and forced drops), limit (the queue full: pdrop),
 * match (two per matched arrival: the arrival and the queued packet it
 * matched, in mainline as in sch_libchoke), other (the rest: packets a reset
 * or a change dropped). The kernel's counters are 32 bits wide and so is
 * this arithmetic, which keeps `other` right across a wrap.
 */
static void q_drops(FILE *f, const struct nlq_set *s)
{
	static const char *const reason[] = { "early", "limit", "match", "other" };
	size_t i;
	int r;

	q_family(f, "choke_qdisc_dropped_packets_total", "counter",
		 "Packets dropped, by reason: early (RED's probability, or the average "
		 "above max), limit (queue full), match (CHOKe: the arrival and the queued "
		 "packet it matched), other (reset or change); together tc's dropped.");
	for (i = 0; i < s->n; i++) {
		const struct nlq_qdisc *q = &s->q[i];
		uint32_t v[4];

		if (!q->has_queue || !q->has_xstats)
			continue;
		v[0] = q->early;
		v[1] = q->pdrop;
		v[2] = 2 * q->matched;
		v[3] = q->drops - q->early - q->pdrop - 2 * q->matched;
		for (r = 0; r < 4; r++) {
			q_start(f, "choke_qdisc_dropped_packets_total", q);
			fprintf(f, ",reason=\"%s\"", reason[r]);
			q_end(f, v[r]);
		}
	}
}

static void q_info(FILE *f, const struct nlq_set *s)
{
	struct choke_config c;
	char words[256];
	size_t i;

	q_family(f, "choke_qdisc_info", "gauge",
		 "The qdisc's parameters as `tc -d qdisc show` words, value 1.");
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
		choke_params_format(&c, words, sizeof(words));
		q_start(f, "choke_qdisc_info", q);
		fputs(",params=", f);
		om_label_value(f, words);
		q_end(f, 1);
	}
}

void nlq_write_metrics(FILE *f, const struct nlq_set *s)
{
	size_t k, i;
	long long v;

	for (k = 0; k < sizeof(q_simple) / sizeof(q_simple[0]); k++) {
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
