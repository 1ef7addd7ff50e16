/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The bridge's counters in the OpenMetrics text format: see stats.h and
 * docs/bridge.md (the metric names, their labels and the bounds on them). */
#include "stats.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <string.h>

#include "../util/om.h"

static void om_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{in="A",out="B" (the caller may add labels, then closes with om_end) */
static void om_start(FILE *f, const char *name, const struct stats_dir *d)
{
	fprintf(f, "%s{in=", name);
	om_label_value(f, d->in);
	fputs(",out=", f);
	om_label_value(f, d->out);
}

static void om_end_u(FILE *f, uint64_t v)
{
	fprintf(f, "} %llu\n", (unsigned long long)v);
}

static void om_end_d(FILE *f, double v)
{
	fprintf(f, "} %.9g\n", v);
}

/* counters of struct dp_counters, every direction */
static const struct {
	const char *name, *help;
	size_t off;
} om_dp[] = {
	{ "choke_bridge_received_packets_total",
	  "Frames taken from the input interface's receive ring.",
	  offsetof(struct dp_counters, rx_frames) },
	{ "choke_bridge_received_bytes_total", "Bytes of the frames received.",
	  offsetof(struct dp_counters, rx_bytes) },
	{ "choke_bridge_sent_packets_total",
	  "Frames handed to the output interface's transmit ring.",
	  offsetof(struct dp_counters, tx_frames) },
	{ "choke_bridge_sent_bytes_total", "Bytes of the frames sent.",
	  offsetof(struct dp_counters, tx_bytes) },
	{ "choke_bridge_receive_ring_dropped_packets_total",
	  "Frames the kernel had no room for in the receive ring (never received).",
	  offsetof(struct dp_counters, rx_ring_drops) },
	{ "choke_bridge_checksums_filled_total",
	  "TCP/UDP checksums a local sender had left to an offload, filled in.",
	  offsetof(struct dp_counters, csum_filled) },
};

static uint64_t dp_field(const struct stats_dir *d, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)&d->c + off, sizeof(v));
	return v;
}

static void om_drops(FILE *f, const struct stats_snapshot *s)
{
	static const char *const reason[] = { "early", "forced", "match", "limit", "protect",
					      "other" };
	int i, r;

	om_family(f, "choke_bridge_dropped_packets_total", "counter",
		  "Frames dropped after they were received, by reason: early (RED's "
		  "probability), forced (average above max), match (CHOKe: the arrival "
		  "and the queued frames it matched), limit (queue full), protect (the "
		  "arrival's flow above its fair share, `protect`), other (no "
		  "transmit slot or packet memory, larger than the output MTU, a "
		  "shrinking reconfiguration).");
	for (i = 0; i < s->ndirs; i++) {
		const struct stats_dir *d = &s->d[i];
		const struct choke_stats *q = &d->q;
		uint64_t v[6] = { q->prob_drop, q->forced_drop, q->matched + q->match_victims,
				  q->pdrop, q->protect_drop, d->c.drop_ring_full +
				  d->c.drop_oversize + d->c.drop_reconfig };

		for (r = 0; r < 6; r++) {
			om_start(f, "choke_bridge_dropped_packets_total", d);
			fprintf(f, ",reason=\"%s\"", reason[r]);
			om_end_u(f, v[r]);
		}
	}
}

/* per shaped direction: one value each */
enum { OQ_MARKED, OQ_MATCHED, OQ_RATE, OQ_LIMIT, OQ_QLEN, OQ_BACKLOG, OQ_QAVG, OQ_DELAY_AVG };

static const struct {
	const char *name, *type, *help;
	int what;
} om_q[] = {
	{ "choke_bridge_marked_packets_total", "counter",
	  "Frames marked Congestion Experienced (ECN) instead of dropped.", OQ_MARKED },
	{ "choke_bridge_matched_packets_total", "counter",
	  "Arrivals that matched the flow of a queued frame (CHOKe).", OQ_MATCHED },
	{ "choke_bridge_rate_limit_bytes_per_second", "gauge",
	  "The token bucket's rate; 0 when not shaped (unlimited).", OQ_RATE },
	{ "choke_bridge_queue_limit_packets", "gauge", "The queue's limit.", OQ_LIMIT },
	{ "choke_bridge_queue_packets", "gauge", "Frames queued now.", OQ_QLEN },
	{ "choke_bridge_queue_bytes", "gauge", "Bytes queued now.", OQ_BACKLOG },
	{ "choke_bridge_queue_average_packets", "gauge",
	  "RED's average queue (EWMA of the length at arrivals), which the "
	  "thresholds are compared with.", OQ_QAVG },
	{ "choke_bridge_queue_delay_average_seconds", "gauge",
	  "Queueing delay, exponentially weighted average (1/64 per frame).",
	  OQ_DELAY_AVG },
};

static double om_qval(const struct stats_dir *d, int what)
{
	switch (what) {
	case OQ_MARKED:
		return (double)(d->q.prob_mark + d->q.forced_mark);
	case OQ_MATCHED:
		return (double)d->q.matched;
	case OQ_RATE:
		return (double)(d->rate_bps / 8);
	case OQ_LIMIT:
		return d->cfg.limit;
	case OQ_QLEN:
		return d->qlen;
	case OQ_BACKLOG:
		return (double)d->backlog;
	case OQ_QAVG:
		return d->qavg;
	default:
		return d->c.delay_avg_ns / 1e9;
	}
}

static void om_queue(FILE *f, const struct stats_snapshot *s)
{
	char line[256];
	size_t n;
	int i, k;

	for (n = 0; n < sizeof(om_q) / sizeof(om_q[0]); n++) {
		om_family(f, om_q[n].name, om_q[n].type, om_q[n].help);
		for (i = 0; i < s->ndirs; i++)
			if (s->d[i].shaped) {
				om_start(f, om_q[n].name, &s->d[i]);
				om_end_d(f, om_qval(&s->d[i], om_q[n].what));
			}
	}
	om_family(f, "choke_bridge_discipline_info", "gauge",
		  "The queue's discipline and its parameters (tc's words), value 1.");
	for (i = 0; i < s->ndirs; i++)
		if (s->d[i].shaped) {
			choke_params_format(&s->d[i].cfg, line, sizeof(line));
			om_start(f, "choke_bridge_discipline_info", &s->d[i]);
			fprintf(f, ",discipline=\"%s\",params=", choke_kind_name(s->d[i].cfg.kind));
			om_label_value(f, line);
			om_end_u(f, 1);
		}
	om_family(f, "choke_bridge_queue_delay_seconds", "summary",
		  "Time frames spent queued: quantiles over the last 10 seconds (upper "
		  "edges of histogram buckets 12.5% wide), sum and count since the start.");
	for (i = 0; i < s->ndirs; i++) {
		const struct stats_dir *d = &s->d[i];

		if (!d->shaped)
			continue;
		for (k = 0; k < STATS_NQUANTILES; k++) {
			om_start(f, "choke_bridge_queue_delay_seconds", d);
			fprintf(f, ",quantile=\"%g\"", stats_quantiles[k]);
			om_end_d(f, (double)d->delay_q_ns[k] / 1e9);
		}
		om_start(f, "choke_bridge_queue_delay_seconds_sum", d);
		om_end_d(f, (double)d->c.delay_sum_ns / 1e9);
		om_start(f, "choke_bridge_queue_delay_seconds_count", d);
		om_end_u(f, d->c.tx_frames);
	}
}

static void om_flow_labels(FILE *f, const struct choke_flow_key *k)
{
	static const char *const kinds[] = { "none", "ipv4", "ipv6", "nonip", "malformed",
					     "truncated" };
	char a[64], b[64], label[160];

	stats_flow_label(k, label, sizeof(label));
	fputs(",flow=", f);
	om_label_value(f, label);
	fprintf(f, ",kind=\"%s\",ethertype=\"0x%04x\"", k->kind < 6 ? kinds[k->kind] : "other",
		k->ethertype);
	if (k->kind == CHOKE_FLOW_KIND_IPV4 || k->kind == CHOKE_FLOW_KIND_IPV6) {
		int fam = k->kind == CHOKE_FLOW_KIND_IPV4 ? AF_INET : AF_INET6;

		inet_ntop(fam, k->src, a, sizeof(a));
		inet_ntop(fam, k->dst, b, sizeof(b));
		fprintf(f, ",proto=\"%u\",src=\"%s\",sport=\"%u\",dst=\"%s\",dport=\"%u\"",
			k->proto, a, k->sport, b, k->dport);
	}
}

static void om_penalised(FILE *f, const struct stats_snapshot *s)
{
	uint32_t j;
	int i;

	om_family(f, "choke_bridge_penalised_packets", "gauge",
		  "Packets the heaviest-hit flows lost to CHOKe's matches (Space-Saving "
		  "estimate, an upper bound), at most 10 flows per direction.");
	for (i = 0; i < s->ndirs; i++)
		for (j = 0; j < s->d[i].nflows; j++) {
			om_start(f, "choke_bridge_penalised_packets", &s->d[i]);
			om_flow_labels(f, &s->d[i].flows[j].key);
			om_end_u(f, s->d[i].flows[j].estimate);
		}
	om_family(f, "choke_bridge_penalised_error_packets", "gauge",
		  "How much each flow's estimate may exceed its true count.");
	for (i = 0; i < s->ndirs; i++)
		for (j = 0; j < s->d[i].nflows; j++) {
			om_start(f, "choke_bridge_penalised_error_packets", &s->d[i]);
			om_flow_labels(f, &s->d[i].flows[j].key);
			om_end_u(f, s->d[i].flows[j].error);
		}
	om_family(f, "choke_bridge_penalised_counted_packets_total", "counter",
		  "Packets counted by the penalised-flows summary (every match drop).");
	for (i = 0; i < s->ndirs; i++)
		if (s->d[i].shaped) {
			om_start(f, "choke_bridge_penalised_counted_packets_total", &s->d[i]);
			om_end_u(f, s->d[i].hh_total);
		}
}

static void om_interfaces(FILE *f, const struct stats_snapshot *s)
{
	static const char *const name[STATS_IF_NCOUNTERS] = {
		"choke_bridge_interface_receive_packets_total",
		"choke_bridge_interface_receive_bytes_total",
		"choke_bridge_interface_receive_dropped_packets_total",
		"choke_bridge_interface_receive_errors_total",
		"choke_bridge_interface_transmit_packets_total",
		"choke_bridge_interface_transmit_bytes_total",
		"choke_bridge_interface_transmit_dropped_packets_total",
		"choke_bridge_interface_transmit_errors_total",
	};
	/* each interface once: the first direction's input and output */
	const struct stats_if *ifs[2] = { &s->d[0].if_in, &s->d[0].if_out };
	int c, i;

	if (s->ndirs < 1)
		return;
	om_family(f, "choke_bridge_interface_up", "gauge",
		  "1 if the interface is up (or does not report carrier).");
	for (i = 0; i < 2; i++) {
		fputs("choke_bridge_interface_up{device=", f);
		om_label_value(f, ifs[i]->name);
		om_end_u(f, (uint64_t)ifs[i]->up);
	}
	for (c = 0; c < STATS_IF_NCOUNTERS; c++) {
		om_family(f, name[c], "counter",
			  "The interface's own counter (/sys/class/net/IF/statistics).");
		for (i = 0; i < 2; i++) {
			if (ifs[i]->c[c] < 0)
				continue;
			fprintf(f, "%s{device=", name[c]);
			om_label_value(f, ifs[i]->name);
			om_end_u(f, (uint64_t)ifs[i]->c[c]);
		}
	}
}

void stats_write_openmetrics(FILE *f, const struct stats_snapshot *s)
{
	size_t k;
	int i;

	for (k = 0; k < sizeof(om_dp) / sizeof(om_dp[0]); k++) {
		om_family(f, om_dp[k].name, "counter", om_dp[k].help);
		for (i = 0; i < s->ndirs; i++) {
			om_start(f, om_dp[k].name, &s->d[i]);
			om_end_u(f, dp_field(&s->d[i], om_dp[k].off));
		}
	}
	om_drops(f, s);
	om_queue(f, s);
	om_penalised(f, s);
	om_interfaces(f, s);
	fputs("# EOF\n", f);
}
