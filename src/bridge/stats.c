/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The bridge's counters and their renderings: see stats.h. */
#include "stats.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../util/json.h"

const double stats_quantiles[STATS_NQUANTILES] = { 0.5, 0.9, 0.99, 0.999 };

static const char *const if_names[STATS_IF_NCOUNTERS] = {
	"rx_packets", "rx_bytes", "rx_dropped", "rx_errors",
	"tx_packets", "tx_bytes", "tx_dropped", "tx_errors"
};

/* ---- taking a snapshot ---- */

void stats_take_dir(const struct dp_dir *d, struct stats_dir *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->in, sizeof(o->in), "%s", d->in);
	snprintf(o->out, sizeof(o->out), "%s", d->out);
	o->shaped = d->shaped;
	if (d->backend == DP_XDP) {
		snprintf(o->backend, sizeof(o->backend), "xdp (%s)", xdpb_mode_name(d->xin));
		o->nq = d->xin->nq;
		memcpy(o->rxq, d->xin->rx_frames, sizeof(o->rxq));
	} else
		snprintf(o->backend, sizeof(o->backend), "afpacket");
	o->c = d->st;
	o->rate_in_bps = d->rate_in_bps;
	o->rate_out_bps = d->rate_out_bps;
	if (d->shaped) {
		struct choke_hh_item top[STATS_TOP_FLOWS];
		uint32_t i;

		o->rate_bps = d->rate_bps;
		o->burst_ns = d->burst_ns;
		o->cfg = d->prm.cfg;
		o->q = *choke_get_stats(&d->q);
		o->qlen = choke_qlen(&d->q);
		o->backlog = choke_backlog(&d->q);
		o->qavg = (double)choke_qavg_scaled(&d->q) / (double)choke_wscale(&d->q);
		for (i = 0; i < STATS_NQUANTILES; i++)
			o->delay_q_ns[i] = dp_delay_quantile(d, stats_quantiles[i]);
		o->hh_counters = DP_HH_K;
		o->hh_total = choke_hh_total(&d->hh);
		o->hh_bound = choke_hh_bound(&d->hh);
		o->nflows = choke_hh_top(&d->hh, top, STATS_TOP_FLOWS);
		for (i = 0; i < o->nflows; i++) {
			o->flows[i].key = d->hh_key[top[i].slot];
			o->flows[i].estimate = top[i].count;
			o->flows[i].error = top[i].err;
		}
	}
}

static int read_sys(const char *ifname, const char *what, char *buf, size_t len)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int stats_if_is_up(const char *name)
{
	char buf[32];

	if (read_sys(name, "operstate", buf, sizeof(buf)))
		return 0;
	return !strcmp(buf, "up") || !strcmp(buf, "unknown");
}

void stats_read_if(const char *name, struct stats_if *o)
{
	char what[64], buf[64];
	int i;

	snprintf(o->name, sizeof(o->name), "%s", name);
	o->up = stats_if_is_up(name);
	for (i = 0; i < STATS_IF_NCOUNTERS; i++) {
		snprintf(what, sizeof(what), "statistics/%s", if_names[i]);
		o->c[i] = read_sys(name, what, buf, sizeof(buf)) ? -1 : strtol(buf, NULL, 10);
	}
}

void stats_flow_label(const struct choke_flow_key *k, char *buf, size_t len)
{
	char s[64], d[64];
	int fam = k->kind == CHOKE_FLOW_KIND_IPV4 ? AF_INET : AF_INET6;

	if (k->kind != CHOKE_FLOW_KIND_IPV4 && k->kind != CHOKE_FLOW_KIND_IPV6) {
		snprintf(buf, len, "ethertype 0x%04x", k->ethertype);
		return;
	}
	inet_ntop(fam, k->src, s, sizeof(s));
	inet_ntop(fam, k->dst, d, sizeof(d));
	snprintf(buf, len, "%s %s:%u>%s:%u",
		 k->proto == 6 ? "tcp" : k->proto == 17 ? "udp" : k->proto == 1 ? "icmp" : "ip",
		 s, k->sport, d, k->dport);
}

/* ---- text ---- */

static void dir_text(FILE *f, const struct stats_dir *d)
{
	static const int ifc[4] = { STATS_IF_RX_PACKETS, STATS_IF_RX_DROPPED,
				    STATS_IF_TX_PACKETS, STATS_IF_TX_DROPPED };
	const struct choke_stats *s = &d->q;
	char line[256];
	uint32_t j;
	int i;

	if (d->shaped) {
		choke_params_format(&d->cfg, line, sizeof(line));
		if (d->rate_bps)
			fprintf(f, "%s -> %s: %s %s, shaped to %.6g Mbit/s\n", d->in, d->out,
				choke_kind_name(d->cfg.kind), line, (double)d->rate_bps / 1e6);
		else
			fprintf(f, "%s -> %s: %s %s, not shaped\n", d->in, d->out,
				choke_kind_name(d->cfg.kind), line);
		fprintf(f, " Sent %llu bytes %llu pkt (dropped %llu, overlimits %llu "
			"requeues 0)\n backlog %llub %up requeues 0\n  marked %llu early "
			"%llu pdrop %llu other 0 matched %llu",
			(unsigned long long)s->sent_bytes, (unsigned long long)s->sent_pkts,
			(unsigned long long)s->drops, (unsigned long long)s->overlimits,
			(unsigned long long)d->backlog, d->qlen,
			(unsigned long long)(s->prob_mark + s->forced_mark),
			(unsigned long long)(s->prob_drop + s->forced_drop),
			(unsigned long long)s->pdrop, (unsigned long long)s->matched);
		if (d->cfg.protect) /* beyond tc's counters: protect's drops */
			fprintf(f, " protect %llu", (unsigned long long)s->protect_drop);
		fputc('\n', f);
		for (j = 0; j < d->nflows && j < STATS_TEXT_FLOWS; j++) {
			uint32_t n = d->nflows < STATS_TEXT_FLOWS ? d->nflows : STATS_TEXT_FLOWS;
			char label[160];

			stats_flow_label(&d->flows[j].key, label, sizeof(label));
			fprintf(f, "%s %s %llu (+-%llu)%s", j ? "," : " penalised:", label,
				(unsigned long long)d->flows[j].estimate,
				(unsigned long long)d->flows[j].error, j + 1 == n ? "\n" : "");
		}
		fprintf(f, " queue delay: last %.3f ms, average %.3f ms, max %.3f ms\n",
			(double)d->c.delay_last_ns / 1e6, d->c.delay_avg_ns / 1e6,
			(double)d->c.delay_max_ns / 1e6);
	} else {
		fprintf(f, "%s -> %s: forwarded unshaped\n", d->in, d->out);
	}
	fprintf(f, " frames in %llu (%.3f Mbit/s), out %llu (%.3f Mbit/s); dropped: ring "
		"full %llu, oversize %llu, reconfigure %llu, receive ring %llu\n",
		(unsigned long long)d->c.rx_frames, d->rate_in_bps / 1e6,
		(unsigned long long)d->c.tx_frames, d->rate_out_bps / 1e6,
		(unsigned long long)d->c.drop_ring_full,
		(unsigned long long)d->c.drop_oversize,
		(unsigned long long)d->c.drop_reconfig,
		(unsigned long long)d->c.rx_ring_drops);
	fprintf(f, " backend %s", d->backend);
	if (d->nq > 1) /* xdp on several receive queues */
		for (j = 0; j < d->nq; j++)
			fprintf(f, "%s%llu", j ? " " : ", frames per receive queue: ",
				(unsigned long long)d->rxq[j]);
	fputc('\n', f);
	fprintf(f, " interfaces:");
	for (i = 0; i < 4; i++) {
		const struct stats_if *x = i < 2 ? &d->if_in : &d->if_out;

		fprintf(f, " %s %s %ld%s", x->name, if_names[ifc[i]], x->c[ifc[i]],
			i < 3 ? "," : "\n");
	}
}

void stats_write_text(FILE *f, const struct stats_snapshot *s)
{
	int i;

	for (i = 0; i < s->ndirs; i++)
		dir_text(f, &s->d[i]);
}

/* ---- JSON ---- */

static void if_json(FILE *f, const struct stats_if *x)
{
	int i;

	fprintf(f, "{\"name\":");
	json_string(f, x->name);
	fprintf(f, ",\"up\":%s", x->up ? "true" : "false");
	for (i = 0; i < STATS_IF_NCOUNTERS; i++)
		fprintf(f, ",\"%s\":%ld", if_names[i], x->c[i]);
	fputc('}', f);
}

static void dir_json(FILE *f, const struct stats_dir *d)
{
	const struct choke_stats *s = &d->q;
	char line[256], protect[48] = "";
	uint32_t i;

	if (d->cfg.protect) /* beyond tc's counters: protect's drops */
		snprintf(protect, sizeof(protect), ",\"protect\":%llu",
			 (unsigned long long)s->protect_drop);
	fprintf(f, "{\"in\":");
	json_string(f, d->in);
	fprintf(f, ",\"out\":");
	json_string(f, d->out);
	fprintf(f, ",\"shaped\":%s,\"backend\":", d->shaped ? "true" : "false");
	json_string(f, d->backend);
	if (d->nq) { /* xdp: the frames taken from each receive queue */
		for (i = 0; i < d->nq; i++)
			fprintf(f, "%s%llu", i ? "," : ",\"rx_queues\":[",
				(unsigned long long)d->rxq[i]);
		fputc(']', f);
	}
	if (d->shaped) {
		choke_params_format(&d->cfg, line, sizeof(line));
		fprintf(f, ",\"rate_bps\":%llu,\"burst_ns\":%llu,\"discipline\":",
			(unsigned long long)d->rate_bps, (unsigned long long)d->burst_ns);
		json_string(f, choke_kind_name(d->cfg.kind));
		fprintf(f, ",\"params\":");
		json_string(f, line);
	}
	fprintf(f, ",\"rx_frames\":%llu,\"rx_bytes\":%llu,\"tx_frames\":%llu,"
		"\"tx_bytes\":%llu,\"rate_in_bps\":%.0f,\"rate_out_bps\":%.0f,"
		"\"drops\":{\"discipline\":%llu,\"ring_full\":%llu,\"oversize\":%llu,"
		"\"reconfigure\":%llu,\"rx_ring\":%llu},\"copies\":%llu,\"direct\":%llu,"
		"\"checksums_filled\":%llu",
		(unsigned long long)d->c.rx_frames, (unsigned long long)d->c.rx_bytes,
		(unsigned long long)d->c.tx_frames, (unsigned long long)d->c.tx_bytes,
		d->rate_in_bps, d->rate_out_bps,
		(unsigned long long)(d->shaped ? s->drops - s->other_drop : 0),
		(unsigned long long)d->c.drop_ring_full,
		(unsigned long long)d->c.drop_oversize,
		(unsigned long long)d->c.drop_reconfig,
		(unsigned long long)d->c.rx_ring_drops, (unsigned long long)d->c.copies,
		(unsigned long long)d->c.direct, (unsigned long long)d->c.csum_filled);
	if (d->shaped) {
		fprintf(f, ",\"qdisc\":{\"sent_bytes\":%llu,\"sent_pkts\":%llu,"
			"\"dropped\":%llu,\"overlimits\":%llu,\"requeues\":0,"
			"\"backlog_bytes\":%llu,\"backlog_pkts\":%u,\"marked\":%llu,"
			"\"early\":%llu,\"pdrop\":%llu,\"other\":0,\"matched\":%llu%s},"
			"\"queue\":{\"len\":%u,\"bytes\":%llu,\"delay_ms_last\":%.3f,"
			"\"delay_ms_avg\":%.3f,\"delay_ms_max\":%.3f}",
			(unsigned long long)s->sent_bytes, (unsigned long long)s->sent_pkts,
			(unsigned long long)s->drops, (unsigned long long)s->overlimits,
			(unsigned long long)d->backlog, d->qlen,
			(unsigned long long)(s->prob_mark + s->forced_mark),
			(unsigned long long)(s->prob_drop + s->forced_drop),
			(unsigned long long)s->pdrop, (unsigned long long)s->matched, protect,
			d->qlen, (unsigned long long)d->backlog,
			(double)d->c.delay_last_ns / 1e6, d->c.delay_avg_ns / 1e6,
			(double)d->c.delay_max_ns / 1e6);
		fprintf(f, ",\"penalised\":{\"counters\":%u,\"total\":%llu,\"bound\":%llu,"
			"\"flows\":[", d->hh_counters, (unsigned long long)d->hh_total,
			(unsigned long long)d->hh_bound);
		for (i = 0; i < d->nflows; i++) {
			char label[160];

			stats_flow_label(&d->flows[i].key, label, sizeof(label));
			fprintf(f, "%s{\"flow\":", i ? "," : "");
			json_string(f, label);
			fprintf(f, ",\"estimate\":%llu,\"error\":%llu}",
				(unsigned long long)d->flows[i].estimate,
				(unsigned long long)d->flows[i].error);
		}
		fprintf(f, "]}");
	}
	fprintf(f, ",\"if_in\":");
	if_json(f, &d->if_in);
	fprintf(f, ",\"if_out\":");
	if_json(f, &d->if_out);
	fputc('}', f);
}

void stats_write_json(FILE *f, const struct stats_snapshot *s)
{
	int i;

	fprintf(f, "{\"pid\":%d,\"uptime_s\":%.3f,\"directions\":[", s->pid, s->uptime_s);
	for (i = 0; i < s->ndirs; i++) {
		if (i)
			fputc(',', f);
		dir_json(f, &s->d[i]);
	}
	fprintf(f, "]}\n");
}
