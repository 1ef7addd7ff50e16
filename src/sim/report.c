/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Reports of simulator runs: see report.h. */
#include "report.h"
#include "../util/json.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const cls_name[SIM_NCLASS] = { "tcp", "udp" };
/* the kind column of the flow table in runs reported by group */
static const char *const group_short[SIM_NGROUP] = { "tcp", "udp", "lite", "web" };

double sim_run_analytic(const struct sim_run *r)
{
	if (strcmp(r->setup.qdisc, "choke") || r->setup.nudp != 1)
		return -1;
	return sim_choke_fluid_share(r->setup.udp_rate_c);
}

/* protect's drops are reported apart only where the queue has protect, so
 * that every other run's output stays as it was */
static int run_protect(const struct sim_run *r)
{
	return r->setup.cfg.qcfg.protect != 0;
}

static double mbps(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes * 8 / secs / 1e6 : 0;
}

static uint64_t sum_drops(const uint64_t *d)
{
	uint64_t s = 0;
	int k;

	for (k = 0; k < SIM_NDROP; k++)
		s += d[k];
	return s;
}

static uint64_t class_goodput(const struct sim_result *res, int cls)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < res->nflows; i++)
		if (res->flows[i].cls == cls)
			s += res->flows[i].goodput_bytes;
	return s;
}

static double queue_udp_share(const struct sim_result *res)
{
	return res->qlen_mean > 0 ? res->qudp_mean / res->qlen_mean : 0;
}

static void fmt_rate(char *buf, size_t len, double bps)
{
	if (bps >= 1e9)
		snprintf(buf, len, "%g Gbit/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%g Mbit/s", bps / 1e6);
	else
		snprintf(buf, len, "%g kbit/s", bps / 1e3);
}

static void header(FILE *f, const struct sim_run *r)
{
	const struct sim_setup *s = &r->setup;
	const struct sim_config *c = &s->cfg;
	char b[32], u[32];

	fmt_rate(b, sizeof(b), (double)c->btl_bps);
	fmt_rate(u, sizeof(u), s->udp_rate_bps);
	fprintf(f, "choke sim: %s, seed %llu\n", s->name, (unsigned long long)c->seed);
	fprintf(f, "  bottleneck %s, %.3g ms; %u TCP NewReno + %u UDP", b,
		(double)c->btl_delay_ns * 1e-6, s->ntcp, s->nudp);
	if (s->nudp)
		fprintf(f, " (%s, %s in all = %.3gc)",
			c->flows[s->ntcp].poisson ? "poisson" : "cbr", u, s->udp_rate_c);
	fprintf(f, "; %u-byte packets\n", c->pkt_size);
	fprintf(f, "  %s: %s\n", s->qdisc, s->qline);
	fprintf(f, "  %.6g s simulated, the first %.6g s not measured\n",
		(double)c->duration_ns * 1e-9, (double)c->warmup_ns * 1e-9);
}

static void flow_row(FILE *f, const struct sim_result *res, uint32_t i, int prot, int ext)
{
	const struct sim_flow_result *fr = &res->flows[i];
	double secs = res->measured_s;
	double total = 0;
	int k;

	for (k = 0; k < SIM_NCLASS; k++)
		total += (double)res->link_bytes[k];
	fprintf(f, "%6u %-4s %8.2f %9.4f %7.4f %7llu %7llu %7llu %6llu ",
		i, ext ? group_short[fr->group] : cls_name[fr->cls], (double)fr->base_rtt_ns * 1e-6,
		mbps(fr->goodput_bytes, secs), total > 0 ? (double)fr->link_bytes / total : 0,
		(unsigned long long)fr->sent_pkts,
		(unsigned long long)fr->drops[SIM_DROP_MATCH] + fr->drops[SIM_DROP_VICTIM],
		(unsigned long long)fr->drops[SIM_DROP_EARLY] + fr->drops[SIM_DROP_FORCED],
		(unsigned long long)fr->drops[SIM_DROP_LIMIT]);
	if (prot)
		fprintf(f, "%7llu ", (unsigned long long)fr->drops[SIM_DROP_PROTECT]);
	fprintf(f, "%6llu %6llu %5llu %5llu\n",
		(unsigned long long)fr->drops[SIM_DROP_ACCESS] + fr->drops[SIM_DROP_INJECTED],
		(unsigned long long)fr->marks, (unsigned long long)fr->tcp.timeouts,
		(unsigned long long)fr->tcp.fast_retransmits);
}

static void tcp_totals(const struct sim_result *res, struct tcp_stats *t);

static uint64_t timeouts_of(const struct sim_result *res)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < res->nflows; i++)
		n += res->flows[i].tcp.timeouts;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- by group (runs with light flows, short transfers, a flood schedule
 * or a time series) ---- */

/* drops at the bottleneck (not on the access link) */
static uint64_t btl_drops(const uint64_t *d)
{
	return sum_drops(d) - d[SIM_DROP_ACCESS];
}

static uint64_t group_link_pkts(const struct sim_result *res, int g)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < res->nflows; i++)
		if (res->flows[i].group == g)
			n += res->flows[i].link_pkts;
	return n;
}

/* The fraction of a group's packets reaching the bottleneck that it
 * dropped (in the measured period); -1 when none reached it. */
static double group_loss(const struct sim_result *res, int g)
{
	double d = (double)btl_drops(res->group_drops[g]);
	double n = d + (double)group_link_pkts(res, g);

	return n > 0 ? d / n : -1;
}

static double group_goodput(const struct sim_result *res, int g)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < res->nflows; i++)
		if (res->flows[i].group == g)
			s += res->flows[i].goodput_bytes;
	return mbps(s, res->measured_s);
}

static double group_share(const struct sim_result *res, int g)
{
	double total = (double)res->link_bytes[0] + (double)res->link_bytes[1];

	return total > 0 ? (double)res->group_link_bytes[g] / total : 0;
}

/* The short transfers that started in the measured period: how many, how
 * many completed, and their completion times (s; mean, median, 95th
 * percentile by nearest rank, max). */
struct web_stats {
	uint32_t started, done;
	double mean, median, p95, max;
};

static void web_stats(const struct sim_run *r, struct web_stats *w)
{
	const struct sim_result *res = &r->res;
	double *t = malloc((r->setup.nweb + 1) * sizeof(*t)), sum = 0;
	uint32_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < res->nflows; i++) {
		const struct sim_flow_result *fr = &res->flows[i];

		if (fr->group != SIM_G_WEB || !fr->start_ns ||
		    fr->start_ns < r->setup.cfg.warmup_ns)
			continue;
		w->started++;
		if (fr->done && t) {
			t[w->done++] = (double)fr->fct_ns * 1e-9;
			sum += (double)fr->fct_ns * 1e-9;
		}
	}
	if (w->done) {
		qsort(t, w->done, sizeof(*t), cmp_double);
		w->mean = sum / w->done;
		w->median = t[(w->done - 1) / 2];
		w->p95 = t[(uint32_t)((w->done * 95 + 99) / 100) - 1];
		w->max = t[w->done - 1];
	}
	free(t);
}

/* tcp_hosts: each host's long TCP flows' bytes through the bottleneck (an
 * array to free; NULL when out of memory), their sum and all the bytes the
 * bottleneck sent */
static double *host_bytes(const struct sim_run *r, double *tot, double *all)
{
	double *b = calloc(r->setup.nhosts ? r->setup.nhosts : 1, sizeof(*b));
	uint32_t i, h;

	if (!b)
		return NULL;
	*tot = 0;
	for (i = 0; i < r->res.nflows && i < r->setup.cfg.nflows; i++) {
		h = r->setup.cfg.flows[i].host;
		if (h && h <= r->setup.nhosts) {
			b[h - 1] += (double)r->res.flows[i].link_bytes;
			*tot += (double)r->res.flows[i].link_bytes;
		}
	}
	*all = (double)r->res.link_bytes[0] + (double)r->res.link_bytes[1];
	return b;
}

static uint32_t host_flows(const struct sim_run *r, uint32_t h)
{
	uint32_t i, n = 0;

	for (i = 0; i < r->setup.cfg.nflows; i++)
		n += r->setup.cfg.flows[i].host == h;
	return n;
}

/* each host's share of the link, of the long TCP flows' bytes over an even
 * split among the hosts, and Jain's index over the hosts */
static void hosts_text(FILE *f, const struct sim_run *r)
{
	uint32_t n = r->setup.nhosts, h;
	double tot, all, *b = host_bytes(r, &tot, &all);

	if (!b)
		return;
	fprintf(f, "\n%-6s %7s %9s %9s %12s\n", "host", "flows", "share", "goodput",
		"TCP / even");
	for (h = 0; h < n; h++)
		fprintf(f, "%-6u %7u %9.4f %9.4f %12.4f\n", h + 1, host_flows(r, h + 1),
			all > 0 ? b[h] / all : 0, b[h] * 8 / (r->res.measured_s > 0 ?
							    r->res.measured_s : 1) / 1e6,
			tot > 0 ? b[h] / tot * n : 0);
	fprintf(f, "Jain's index over the hosts  %.4f (their long TCP flows' bytes)\n",
		sim_jain(b, n) < 0 ? 0 : sim_jain(b, n));
	free(b);
}

static void groups_text(FILE *f, const struct sim_run *r)
{
	const struct sim_result *res = &r->res;
	const struct sim_setup *s = &r->setup;
	int g;

	fprintf(f, "\n%-6s %7s %9s %9s %9s %8s %8s %8s %8s %8s %8s %8s\n", "group", "flows",
		"share", "goodput", "sent", "loss", "match", "victim", "early", "forced",
		"limit", "protect");
	for (g = 0; g < SIM_NGROUP; g++) {
		double loss = group_loss(res, g);

		if (!res->group_flows[g])
			continue;
		fprintf(f, "%-6s %7u %9.4f %9.4f %9llu ", sim_group_names[g], res->group_flows[g],
			group_share(res, g), group_goodput(res, g),
			(unsigned long long)res->group_sent[g]);
		if (loss >= 0)
			fprintf(f, "%8.4f", loss);
		else
			fprintf(f, "%8s", "-");
		fprintf(f, " %8llu %8llu %8llu %8llu %8llu %8llu\n",
			(unsigned long long)res->group_drops[g][SIM_DROP_MATCH],
			(unsigned long long)res->group_drops[g][SIM_DROP_VICTIM],
			(unsigned long long)res->group_drops[g][SIM_DROP_EARLY],
			(unsigned long long)res->group_drops[g][SIM_DROP_FORCED],
			(unsigned long long)res->group_drops[g][SIM_DROP_LIMIT],
			(unsigned long long)res->group_drops[g][SIM_DROP_PROTECT]);
	}
	fprintf(f, "  (loss: the fraction of the group's packets reaching the queue that it "
		"dropped)\n");
	if (res->jain_all >= 0)
		fprintf(f, "Jain's index over all flows  %.4f (long TCP, floods and light flows)\n",
			res->jain_all);
	if (s->cfg.light_rtt) {
		fprintf(f, "light flows' round trips     %llu", (unsigned long long)res->light_rtt_n);
		if (res->light_rtt_n)
			fprintf(f, ": mean %.3f ms, median %.3f ms, 99th percentile %.3f ms, "
				"max %.3f ms", res->light_rtt_ms_mean, res->light_rtt_ms_median,
				res->light_rtt_ms_p99, res->light_rtt_ms_max);
		fputc('\n', f);
	}
	if (s->nweb) {
		struct web_stats w;

		web_stats(r, &w);
		fprintf(f, "short transfers              %u in all, %u started in the measured "
			"period, %u of those completed", s->nweb, w.started, w.done);
		if (w.done)
			fprintf(f, ": completion time mean %.3f s, median %.3f s, 95th "
				"percentile %.3f s, max %.3f s", w.mean, w.median, w.p95, w.max);
		fputc('\n', f);
	}
}

static void series_text(FILE *f, const struct sim_run *r)
{
	const struct sim_result *res = &r->res;
	double iv = (double)r->setup.cfg.series_ns * 1e-9;
	uint32_t i;
	int g;

	fprintf(f, "\ntime series, per %.6g s: the groups' shares of the departures, the "
		"floods' loss, the mean queue\n%10s", iv, "until s");
	for (g = 0; g < SIM_NGROUP; g++)
		if (res->group_flows[g])
			fprintf(f, " %7s", sim_group_names[g]);
	fprintf(f, " %10s %9s\n", "flood loss", "queue");
	for (i = 0; i < res->nseries; i++) {
		const struct sim_series_point *p = &res->series[i];
		double dep = 0, fl;
		uint64_t end = (uint64_t)(i + 1) * r->setup.cfg.series_ns;

		if (end > r->setup.cfg.duration_ns)
			end = r->setup.cfg.duration_ns;
		for (g = 0; g < SIM_NGROUP; g++)
			dep += (double)p->link_pkts[g];
		fprintf(f, "%10.6g", (double)end * 1e-9);
		for (g = 0; g < SIM_NGROUP; g++)
			if (res->group_flows[g])
				fprintf(f, " %7.4f", dep > 0 ? (double)p->link_pkts[g] / dep : 0);
		fl = (double)p->arrivals[SIM_G_FLOOD];
		if (fl > 0)
			fprintf(f, " %10.4f", (double)p->drops[SIM_G_FLOOD] / fl);
		else
			fprintf(f, " %10s", "-");
		fprintf(f, " %9.2f\n", p->qlen_mean);
	}
	fputc('\n', f);
}

void sim_report_text(FILE *f, const struct sim_run *r, int all_flows)
{
	const struct sim_result *res = &r->res;
	const struct sim_setup *s = &r->setup;
	double secs = res->measured_s, an = sim_run_analytic(r);
	uint32_t i;
	int k, b, prot = run_protect(r), ext = s->cfg.extended;

	header(f, r);
	fprintf(f, "\n%6s %-4s %8s %9s %7s %7s %7s %7s %6s ", "flow", "kind",
		"rtt_ms", "goodput", "share", "sent", "match", "red", "limit");
	if (prot)
		fprintf(f, "%7s ", "protect");
	fprintf(f, "%6s %6s %5s %5s\n", "other", "marks", "rto", "frtx");
	fprintf(f, "%6s %-4s %8s %9s %7s %7s %7s %7s %6s ", "", "", "(base)",
		"Mbit/s", "of link", "pkts", "drops", "drops", "drops");
	if (prot)
		fprintf(f, "%7s ", "drops");
	fprintf(f, "%6s %6s %5s %5s\n", "drops", "", "", "");
	if (all_flows || res->nflows <= 40) {
		for (i = 0; i < res->nflows; i++)
			flow_row(f, res, i, prot, ext);
	} else {
		double *g = malloc(s->ntcp * sizeof(*g) + 1);
		uint32_t n = 0;

		for (i = 0; i < 5 && i < s->ntcp; i++)
			flow_row(f, res, i, prot, ext);
		if (s->ntcp > 5)
			fprintf(f, "%6s ... %u more TCP flows (--flows lists them)\n", "",
				s->ntcp - 5);
		for (i = s->ntcp; i < s->ntcp + s->nudp && i < s->ntcp + 8; i++)
			flow_row(f, res, i, prot, ext);
		if (s->nudp > 8)
			fprintf(f, "%6s ... %u more UDP flows\n", "", s->nudp - 8);
		if (s->nlight || s->nweb)
			fprintf(f, "%6s ... %u light UDP flows and %u short transfers "
				"(--flows lists them)\n", "", s->nlight, s->nweb);
		if (g) {
			for (i = 0; i < s->ntcp; i++)
				g[n++] = mbps(res->flows[i].goodput_bytes, secs);
			if (n) {
				qsort(g, n, sizeof(*g), cmp_double);
				fprintf(f, "  TCP goodput per flow, Mbit/s: min %.4g, median %.4g, "
					"max %.4g\n", g[0], g[n / 2], g[n - 1]);
			}
			free(g);
		}
	}
	fprintf(f, "\n%-6s %9s %9s %8s %8s %8s %8s %8s ", "class", "share",
		"goodput", "match", "victim", "early", "forced", "limit");
	if (prot)
		fprintf(f, "%8s ", "protect");
	fprintf(f, "%8s %8s\n", "access", "marks");
	for (k = 0; k < SIM_NCLASS; k++) {
		fprintf(f, "%-6s %9.4f %9.4f %8llu %8llu %8llu %8llu %8llu ",
			cls_name[k], res->share[k], mbps(class_goodput(res, k), secs),
			(unsigned long long)res->drops[k][SIM_DROP_MATCH],
			(unsigned long long)res->drops[k][SIM_DROP_VICTIM],
			(unsigned long long)res->drops[k][SIM_DROP_EARLY],
			(unsigned long long)res->drops[k][SIM_DROP_FORCED],
			(unsigned long long)res->drops[k][SIM_DROP_LIMIT]);
		if (prot)
			fprintf(f, "%8llu ", (unsigned long long)res->drops[k][SIM_DROP_PROTECT]);
		fprintf(f, "%8llu %8llu\n",
			(unsigned long long)res->drops[k][SIM_DROP_ACCESS] +
				res->drops[k][SIM_DROP_INJECTED],
			(unsigned long long)res->marks[k]);
	}
	if (ext)
		groups_text(f, r);
	if (s->nhosts)
		hosts_text(f, r);
	fprintf(f, "\nlink utilisation             %.4f\n", res->utilization);
	if (res->jain_tcp >= 0)
		fprintf(f, "Jain's index over TCP flows  %.4f\n", res->jain_tcp);
	else
		fprintf(f, "Jain's index over TCP flows  - (no TCP goodput)\n");
	fprintf(f, "UDP share of the link        %.4f", res->share[SIM_UDP]);
	if (an >= 0)
		fprintf(f, "   (fluid model for CHOKe at %.3gc: %.4f)", s->udp_rate_c, an);
	fprintf(f, "\nqueue, mean packets          %.2f (UDP %.2f, a share of %.4f)\n",
		res->qlen_mean, res->qudp_mean, queue_udp_share(res));
	fprintf(f, "queueing delay, mean ms      TCP %.2f, UDP %.2f\n", res->qdelay_ms[SIM_TCP],
		res->qdelay_ms[SIM_UDP]);
	fprintf(f, "UDP fraction by position     ");
	if (res->pos_samples) {
		for (b = 0; b < SIM_POS_BINS; b++)
			fprintf(f, "%s%.3f", b ? " " : "head ", res->pos_udp[b]);
		fprintf(f, " tail (%llu samples)\n", (unsigned long long)res->pos_samples);
	} else {
		fprintf(f, "(no samples)\n");
	}
	{
		struct tcp_stats t;

		tcp_totals(res, &t);
		fprintf(f, "TCP                          %llu retransmits, %llu fast "
			"retransmits, %llu partial ACKs, %llu timeouts, %llu ECN reductions\n",
			(unsigned long long)t.retransmits, (unsigned long long)t.fast_retransmits,
			(unsigned long long)t.partial_acks, (unsigned long long)t.timeouts,
			(unsigned long long)t.ecn_reductions);
	}
	fprintf(f, "core counters                matched %llu, early drops %llu, early marks "
		"%llu, forced drops %llu, forced marks %llu, tail drops %llu\n",
		(unsigned long long)res->qst.matched, (unsigned long long)res->qst.prob_drop,
		(unsigned long long)res->qst.prob_mark, (unsigned long long)res->qst.forced_drop,
		(unsigned long long)res->qst.forced_mark, (unsigned long long)res->qst.pdrop);
	if (res->hh_n) {
		fprintf(f, "penalised (Space-Saving, %u counters, error bound %llu of %llu "
			"packets lost to matches):", res->hh_counters,
			(unsigned long long)(res->hh_total / res->hh_counters),
			(unsigned long long)res->hh_total);
		for (i = 0; i < res->hh_n && i < 5; i++) {
			const struct choke_hh_item *h = &res->hh_top[i];
			const struct sim_flow_result *fr = &res->flows[h->flow];

			fprintf(f, "%s flow %u (%s) %llu+-%llu, exact %llu", i ? "," : "", h->flow,
				cls_name[fr->cls], (unsigned long long)h->count,
				(unsigned long long)h->err,
				(unsigned long long)(fr->drops[SIM_DROP_MATCH] +
						     fr->drops[SIM_DROP_VICTIM]));
		}
		fputc('\n', f);
	}
	if (ext && res->nseries)
		series_text(f, r);
	fprintf(f, "events %llu, bottleneck packets %llu (data and ACKs)\n",
		(unsigned long long)res->events, (unsigned long long)res->btl_pkts);
}

static void tcp_totals(const struct sim_result *res, struct tcp_stats *t)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < res->nflows; i++) {
		const struct tcp_stats *x = &res->flows[i].tcp;

		t->segs_sent += x->segs_sent;
		t->retransmits += x->retransmits;
		t->fast_retransmits += x->fast_retransmits;
		t->partial_acks += x->partial_acks;
		t->timeouts += x->timeouts;
		t->ecn_reductions += x->ecn_reductions;
	}
}

static void json_drops(FILE *f, const uint64_t *d, int prot)
{
	int k;

	fputc('{', f);
	for (k = 0; k < SIM_NDROP; k++)
		if (k != SIM_DROP_PROTECT || prot)
			fprintf(f, "%s\"%s\":%llu", k ? "," : "", sim_drop_names[k],
				(unsigned long long)d[k]);
	fprintf(f, ",\"total\":%llu}", (unsigned long long)sum_drops(d));
}

/* JSON numbers: finite, compact, exact enough to compare runs */
static void jnum(FILE *f, double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	fprintf(f, "%.6g", v);
}

static void json_u64s(FILE *f, const char *name, const struct sim_result *res, size_t off,
		      int first)
{
	uint32_t i;

	fprintf(f, "%s\"%s\":[", first ? "" : ",", name);
	for (i = 0; i < res->nseries; i++) {
		uint64_t v;

		memcpy(&v, (const char *)&res->series[i] + off, sizeof(v));
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v);
	}
	fputc(']', f);
}

/* "mean":..,"median":..,"<pname>":..,"max":.. (a distribution's summary) */
static void json_spread(FILE *f, double mean, double median, const char *pname, double p,
			double max)
{
	fprintf(f, "\"mean\":");
	jnum(f, mean);
	fprintf(f, ",\"median\":");
	jnum(f, median);
	fprintf(f, ",\"%s\":", pname);
	jnum(f, p);
	fprintf(f, ",\"max\":");
	jnum(f, max);
}

/* tcp_hosts: "hosts": [{flows, link_share, goodput_mbps, tcp_over_even}],
 * "jain_hosts" */
static void hosts_json(FILE *f, const struct sim_run *r)
{
	uint32_t n = r->setup.nhosts, h;
	double tot, all, secs = r->res.measured_s, *b = host_bytes(r, &tot, &all);

	if (!b)
		return;
	fprintf(f, ",\"hosts\":[");
	for (h = 0; h < n; h++) {
		fprintf(f, "%s{\"flows\":%u,\"link_share\":", h ? "," : "", host_flows(r, h + 1));
		jnum(f, all > 0 ? b[h] / all : 0);
		fprintf(f, ",\"goodput_mbps\":");
		jnum(f, secs > 0 ? b[h] * 8 / secs / 1e6 : 0);
		fprintf(f, ",\"tcp_over_even\":");
		jnum(f, tot > 0 ? b[h] / tot * n : 0);
		fputc('}', f);
	}
	fprintf(f, "],\"jain_hosts\":");
	if (sim_jain(b, n) >= 0)
		jnum(f, sim_jain(b, n));
	else
		fprintf(f, "null");
	free(b);
}

/* by group, the short transfers and the time series */
static void groups_json(FILE *f, const struct sim_run *r, int prot)
{
	const struct sim_result *res = &r->res;
	const struct sim_setup *s = &r->setup;
	uint32_t i;
	int g, first = 1;

	fprintf(f, ",\"jain_all\":");
	if (res->jain_all >= 0)
		jnum(f, res->jain_all);
	else
		fprintf(f, "null");
	fprintf(f, ",\"groups\":{");
	for (g = 0; g < SIM_NGROUP; g++) {
		double loss = group_loss(res, g);

		fprintf(f, "%s\"%s\":{\"flows\":%u,\"link_share\":", g ? "," : "",
			sim_group_names[g], res->group_flows[g]);
		jnum(f, group_share(res, g));
		fprintf(f, ",\"goodput_mbps\":");
		jnum(f, group_goodput(res, g));
		fprintf(f, ",\"sent_pkts\":%llu,\"link_pkts\":%llu,\"loss\":",
			(unsigned long long)res->group_sent[g],
			(unsigned long long)group_link_pkts(res, g));
		if (loss >= 0)
			jnum(f, loss);
		else
			fprintf(f, "null");
		fprintf(f, ",\"drops\":");
		json_drops(f, res->group_drops[g], prot);
		if (g == SIM_G_LIGHT && s->cfg.light_rtt) {
			fprintf(f, ",\"rtt_ms\":{\"n\":%llu,",
				(unsigned long long)res->light_rtt_n);
			json_spread(f, res->light_rtt_ms_mean, res->light_rtt_ms_median, "p99",
				    res->light_rtt_ms_p99, res->light_rtt_ms_max);
			fputc('}', f);
		}
		fputc('}', f);
	}
	fputc('}', f);
	if (s->nperiods) {
		fprintf(f, ",\"flood_schedule_s\":[");
		for (i = 0; i < s->nperiods; i++) {
			fprintf(f, "%s[", i ? "," : "");
			jnum(f, (double)s->periods[i].on * 1e-9);
			fputc(',', f);
			jnum(f, (double)s->periods[i].off * 1e-9);
			fputc(']', f);
		}
		fputc(']', f);
	}
	if (s->nweb || s->web_rate > 0) {
		struct web_stats w;

		web_stats(r, &w);
		fprintf(f, ",\"web\":{\"rate_per_s\":");
		jnum(f, s->web_rate);
		fprintf(f, ",\"mean_bytes\":");
		jnum(f, s->web_size);
		fprintf(f, ",\"sizes\":\"%s\",\"transfers\":%u,\"measured\":%u,"
			"\"completed\":%u,\"fct_s\":", s->web_dist, s->nweb, w.started, w.done);
		if (w.done) {
			fputc('{', f);
			json_spread(f, w.mean, w.median, "p95", w.p95, w.max);
			fputc('}', f);
		} else {
			fprintf(f, "null");
		}
		fputc('}', f);
	}
	if (res->nseries) {
		static const struct {
			const char *name;
			size_t off;
		} arr[] = {
			{ "link_pkts", offsetof(struct sim_series_point, link_pkts) },
			{ "arrivals", offsetof(struct sim_series_point, arrivals) },
			{ "drops", offsetof(struct sim_series_point, drops) },
		};
		unsigned a;

		fprintf(f, ",\"series\":{\"interval_s\":");
		jnum(f, (double)s->cfg.series_ns * 1e-9);
		for (a = 0; a < sizeof(arr) / sizeof(arr[0]); a++) {
			fprintf(f, ",\"%s\":{", arr[a].name);
			first = 1;
			for (g = 0; g < SIM_NGROUP; g++) {
				json_u64s(f, sim_group_names[g], res,
					  arr[a].off + (size_t)g * sizeof(uint64_t), first);
				first = 0;
			}
			fputc('}', f);
		}
		fprintf(f, ",\"active\":{");
		for (g = 0; g < SIM_NGROUP; g++) {
			fprintf(f, "%s\"%s\":[", g ? "," : "", sim_group_names[g]);
			for (i = 0; i < res->nseries; i++)
				fprintf(f, "%s%u", i ? "," : "", res->series[i].active[g]);
			fputc(']', f);
		}
		fprintf(f, "},\"qlen\":[");
		for (i = 0; i < res->nseries; i++) {
			if (i)
				fputc(',', f);
			jnum(f, res->series[i].qlen_mean);
		}
		fprintf(f, "]}");
	}
}

static void run_json(FILE *f, const struct sim_run *r, int speed, int with_flows)
{
	const struct sim_result *res = &r->res;
	const struct sim_setup *s = &r->setup;
	const struct sim_config *c = &s->cfg;
	struct tcp_stats t;
	double secs = res->measured_s, an = sim_run_analytic(r);
	uint32_t i;
	int k, b, prot = run_protect(r);

	tcp_totals(res, &t);
	fprintf(f, "{\"scenario\":");
	json_string(f, s->name);
	/* the discipline's line is "params", as in replay's and the bridge's
	 * JSON ("queue" is the queue's statistics, below) */
	fprintf(f, ",\"discipline\":");
	json_string(f, s->qdisc);
	fprintf(f, ",\"qdisc\":");
	json_string(f, s->qdisc);
	fprintf(f, ",\"params\":");
	json_string(f, s->qline);
	fprintf(f, ",\"seed\":%llu,\"duration_s\":", (unsigned long long)c->seed);
	jnum(f, (double)c->duration_ns * 1e-9);
	fprintf(f, ",\"warmup_s\":");
	jnum(f, (double)c->warmup_ns * 1e-9);
	fprintf(f, ",\"bottleneck_bps\":%llu,\"tcp_flows\":%u,\"udp_flows\":%u,\"udp_rate_bps\":",
		(unsigned long long)c->btl_bps, s->ntcp, s->nudp);
	jnum(f, s->udp_rate_bps);
	fprintf(f, ",\"udp_rate_c\":");
	jnum(f, s->udp_rate_c);
	if (r->value[0]) {
		fprintf(f, ",\"value\":");
		json_string(f, r->value);
	}
	fprintf(f, ",\"utilization\":");
	jnum(f, res->utilization);
	fprintf(f, ",\"jain_tcp\":");
	if (res->jain_tcp >= 0)
		jnum(f, res->jain_tcp);
	else
		fprintf(f, "null");
	fprintf(f, ",\"share\":{\"tcp\":");
	jnum(f, res->share[SIM_TCP]);
	fprintf(f, ",\"udp\":");
	jnum(f, res->share[SIM_UDP]);
	fprintf(f, "},\"analytic_udp_share\":");
	if (an >= 0)
		jnum(f, an);
	else
		fprintf(f, "null");
	fprintf(f, ",\"goodput_mbps\":{\"tcp\":");
	jnum(f, mbps(class_goodput(res, SIM_TCP), secs));
	fprintf(f, ",\"udp\":");
	jnum(f, mbps(class_goodput(res, SIM_UDP), secs));
	fprintf(f, "},\"queue\":{\"mean_pkts\":");
	jnum(f, res->qlen_mean);
	fprintf(f, ",\"udp_mean_pkts\":");
	jnum(f, res->qudp_mean);
	fprintf(f, ",\"udp_share\":");
	jnum(f, queue_udp_share(res));
	fprintf(f, ",\"delay_ms\":{\"tcp\":");
	jnum(f, res->qdelay_ms[SIM_TCP]);
	fprintf(f, ",\"udp\":");
	jnum(f, res->qdelay_ms[SIM_UDP]);
	fprintf(f, "},\"samples\":%llu,\"udp_by_position\":[", (unsigned long long)res->pos_samples);
	for (b = 0; b < SIM_POS_BINS; b++) {
		if (b)
			fputc(',', f);
		jnum(f, res->pos_udp[b]);
	}
	fprintf(f, "]},\"drops\":{");
	for (k = 0; k < SIM_NCLASS; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", cls_name[k]);
		json_drops(f, res->drops[k], prot);
	}
	fprintf(f, "},\"marks\":{\"tcp\":%llu,\"udp\":%llu}",
		(unsigned long long)res->marks[SIM_TCP], (unsigned long long)res->marks[SIM_UDP]);
	fprintf(f, ",\"core\":{\"matched\":%llu,\"prob_drop\":%llu,\"prob_mark\":%llu,"
		"\"forced_drop\":%llu,\"forced_mark\":%llu,\"pdrop\":%llu,\"sent_pkts\":%llu,"
		"\"drops\":%llu}",
		(unsigned long long)res->qst.matched, (unsigned long long)res->qst.prob_drop,
		(unsigned long long)res->qst.prob_mark, (unsigned long long)res->qst.forced_drop,
		(unsigned long long)res->qst.forced_mark, (unsigned long long)res->qst.pdrop,
		(unsigned long long)res->qst.sent_pkts, (unsigned long long)res->qst.drops);
	fprintf(f, ",\"tcp\":{\"segments\":%llu,\"retransmits\":%llu,\"fast_retransmits\":%llu,"
		"\"partial_acks\":%llu,\"timeouts\":%llu,\"ecn_reductions\":%llu}",
		(unsigned long long)t.segs_sent, (unsigned long long)t.retransmits,
		(unsigned long long)t.fast_retransmits, (unsigned long long)t.partial_acks,
		(unsigned long long)t.timeouts, (unsigned long long)t.ecn_reductions);
	fprintf(f, ",\"penalised\":{\"counters\":%u,\"total\":%llu,\"bound\":%llu,\"flows\":[",
		res->hh_counters, (unsigned long long)res->hh_total,
		(unsigned long long)(res->hh_counters ? res->hh_total / res->hh_counters : 0));
	for (i = 0; i < res->hh_n && i < 16; i++) {
		const struct choke_hh_item *h = &res->hh_top[i];
		const struct sim_flow_result *fr = &res->flows[h->flow];

		fprintf(f, "%s{\"flow\":%u,\"kind\":", i ? "," : "", h->flow);
		json_string(f, cls_name[fr->cls]);
		fprintf(f, ",\"estimate\":%llu,\"error\":%llu,\"exact\":%llu}",
			(unsigned long long)h->count, (unsigned long long)h->err,
			(unsigned long long)(fr->drops[SIM_DROP_MATCH] + fr->drops[SIM_DROP_VICTIM]));
	}
	fprintf(f, "]}");
	if (s->cfg.extended)
		groups_json(f, r, prot);
	if (s->nhosts)
		hosts_json(f, r);
	fprintf(f, ",\"events\":%llu,\"bottleneck_pkts\":%llu",
		(unsigned long long)res->events, (unsigned long long)res->btl_pkts);
	if (speed) {
		fprintf(f, ",\"speed\":{\"wall_s\":");
		jnum(f, res->wall_s);
		fprintf(f, ",\"cpu_s\":");
		jnum(f, res->cpu_s);
		fprintf(f, ",\"loop_cpu_s\":");
		jnum(f, res->loop_cpu_s);
		fprintf(f, ",\"events_per_s\":");
		jnum(f, res->wall_s > 0 ? (double)res->events / res->wall_s : 0);
		fprintf(f, ",\"bottleneck_pkts_per_s\":");
		jnum(f, res->wall_s > 0 ? (double)res->btl_pkts / res->wall_s : 0);
		fprintf(f, "}");
	}
	if (with_flows) {
		double total = (double)res->link_bytes[0] + (double)res->link_bytes[1];

		fprintf(f, ",\"flows\":[");
		for (i = 0; i < res->nflows; i++) {
			const struct sim_flow_result *fr = &res->flows[i];

			fprintf(f, "%s{\"flow\":%u,\"kind\":", i ? "," : "", i);
			json_string(f, cls_name[fr->cls]);
			fprintf(f, ",\"base_rtt_ms\":");
			jnum(f, (double)fr->base_rtt_ns * 1e-6);
			fprintf(f, ",\"goodput_mbps\":");
			jnum(f, mbps(fr->goodput_bytes, secs));
			fprintf(f, ",\"link_share\":");
			jnum(f, total > 0 ? (double)fr->link_bytes / total : 0);
			fprintf(f, ",\"sent_pkts\":%llu,\"link_pkts\":%llu,\"drops\":",
				(unsigned long long)fr->sent_pkts, (unsigned long long)fr->link_pkts);
			json_drops(f, fr->drops, prot);
			if (s->cfg.extended) {
				fprintf(f, ",\"group\":\"%s\",\"start_s\":",
					sim_group_names[fr->group]);
				jnum(f, (double)fr->start_ns * 1e-9);
			}
			fprintf(f, ",\"marks\":%llu", (unsigned long long)fr->marks);
			if (fr->cls == SIM_TCP) {
				fprintf(f, ",\"retransmits\":%llu,\"fast_retransmits\":%llu,"
					"\"partial_acks\":%llu,\"timeouts\":%llu,"
					"\"ecn_reductions\":%llu,\"srtt_ms\":",
					(unsigned long long)fr->tcp.retransmits,
					(unsigned long long)fr->tcp.fast_retransmits,
					(unsigned long long)fr->tcp.partial_acks,
					(unsigned long long)fr->tcp.timeouts,
					(unsigned long long)fr->tcp.ecn_reductions);
				jnum(f, (double)fr->srtt_ns * 1e-6);
				fprintf(f, ",\"done\":%s,\"fct_s\":", fr->done ? "true" : "false");
				if (fr->done)
					jnum(f, (double)fr->fct_ns * 1e-9);
				else
					fprintf(f, "null");
			}
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

void sim_report_json(FILE *f, const struct sim_run *r, int speed)
{
	run_json(f, r, speed, 1);
	fputc('\n', f);
}

static const char *csv_cols =
	"discipline,utilization,jain_tcp,share_tcp,share_udp,analytic_udp_share,"
	"goodput_tcp_mbps,goodput_udp_mbps,queue_mean_pkts,queue_udp_share,"
	"qdelay_tcp_ms,qdelay_udp_ms,drops_match,drops_victim,drops_early,drops_forced,"
	"drops_limit,drops_access,marks,tcp_timeouts,tcp_fast_retransmits,events,"
	"bottleneck_pkts";

static void csv_row(FILE *f, const struct sim_run *r, int prot_col)
{
	const struct sim_result *res = &r->res;
	struct tcp_stats t;
	double an = sim_run_analytic(r);
	int k;

	tcp_totals(res, &t);
	fprintf(f, "%s,%.6g,", r->setup.qdisc, res->utilization);
	if (res->jain_tcp >= 0)
		fprintf(f, "%.6g", res->jain_tcp);
	fprintf(f, ",%.6g,%.6g,", res->share[SIM_TCP], res->share[SIM_UDP]);
	if (an >= 0)
		fprintf(f, "%.6g", an);
	fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", mbps(class_goodput(res, SIM_TCP), res->measured_s),
		mbps(class_goodput(res, SIM_UDP), res->measured_s), res->qlen_mean,
		queue_udp_share(res), res->qdelay_ms[SIM_TCP], res->qdelay_ms[SIM_UDP]);
	for (k = 0; k <= SIM_DROP_ACCESS; k++)
		fprintf(f, ",%llu", (unsigned long long)(res->drops[0][k] + res->drops[1][k]));
	if (prot_col)
		fprintf(f, ",%llu", (unsigned long long)(res->drops[0][SIM_DROP_PROTECT] +
							res->drops[1][SIM_DROP_PROTECT]));
	fprintf(f, ",%llu,%llu,%llu,%llu,%llu\n",
		(unsigned long long)(res->marks[0] + res->marks[1]),
		(unsigned long long)t.timeouts, (unsigned long long)t.fast_retransmits,
		(unsigned long long)res->events, (unsigned long long)res->btl_pkts);
}

void sim_summary_csv(FILE *f, const char *key, const struct sim_run *r, int n)
{
	int i;

	int prot = 0;

	for (i = 0; i < n; i++)
		prot |= run_protect(&r[i]);
	if (key)
		fprintf(f, "%s,", key);
	if (prot) /* drops_protect after drops_access */
		fprintf(f, "%.*sdrops_protect,%s\n", (int)(strstr(csv_cols, "marks,") - csv_cols),
			csv_cols, strstr(csv_cols, "marks,"));
	else
		fprintf(f, "%s\n", csv_cols);
	for (i = 0; i < n; i++) {
		if (key)
			fprintf(f, "%s,", r[i].value);
		csv_row(f, &r[i], prot);
	}
}

void sim_report_csv(FILE *f, const struct sim_run *r)
{
	const struct sim_result *res = &r->res;
	double total = (double)res->link_bytes[0] + (double)res->link_bytes[1];
	uint32_t i;
	int k, prot = run_protect(r);

	sim_summary_csv(f, NULL, r, 1);
	fprintf(f, "\nflow,kind,base_rtt_ms,goodput_mbps,link_share,sent_pkts,link_pkts");
	for (k = 0; k < SIM_NDROP; k++)
		if (k != SIM_DROP_PROTECT || prot)
			fprintf(f, ",drops_%s", sim_drop_names[k]);
	fprintf(f, ",marks,retransmits,fast_retransmits,partial_acks,timeouts,ecn_reductions\n");
	for (i = 0; i < res->nflows; i++) {
		const struct sim_flow_result *fr = &res->flows[i];

		fprintf(f, "%u,%s,%.6g,%.6g,%.6g,%llu,%llu", i, cls_name[fr->cls],
			(double)fr->base_rtt_ns * 1e-6, mbps(fr->goodput_bytes, res->measured_s),
			total > 0 ? (double)fr->link_bytes / total : 0,
			(unsigned long long)fr->sent_pkts, (unsigned long long)fr->link_pkts);
		for (k = 0; k < SIM_NDROP; k++)
			if (k != SIM_DROP_PROTECT || prot)
				fprintf(f, ",%llu", (unsigned long long)fr->drops[k]);
		fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)fr->marks,
			(unsigned long long)fr->tcp.retransmits,
			(unsigned long long)fr->tcp.fast_retransmits,
			(unsigned long long)fr->tcp.partial_acks,
			(unsigned long long)fr->tcp.timeouts,
			(unsigned long long)fr->tcp.ecn_reductions);
	}
}

void sim_compare_text(FILE *f, const struct sim_run *r, int n)
{
	int d, k;
	double an = -1;

	header(f, &r[n - 1]);
	fprintf(f, "  (the discipline line is the last column's; all share the same words)\n\n");
	fprintf(f, "%-30s", "");
	for (d = 0; d < n; d++)
		fprintf(f, " %10s", r[d].setup.qdisc);
	fprintf(f, "\n");
#define ROW(label, fmt, expr)                                                  \
	do {                                                                   \
		fprintf(f, "%-30s", label);                                    \
		for (d = 0; d < n; d++)                                        \
			fprintf(f, " " fmt, expr);                             \
		fprintf(f, "\n");                                              \
	} while (0)
	ROW("UDP share of the link", "%10.4f", r[d].res.share[SIM_UDP]);
	ROW("TCP share of the link", "%10.4f", r[d].res.share[SIM_TCP]);
	ROW("TCP goodput, Mbit/s", "%10.4f",
	    mbps(class_goodput(&r[d].res, SIM_TCP), r[d].res.measured_s));
	ROW("UDP goodput, Mbit/s", "%10.4f",
	    mbps(class_goodput(&r[d].res, SIM_UDP), r[d].res.measured_s));
	fprintf(f, "%-30s", "Jain's index over TCP flows");
	for (d = 0; d < n; d++) {
		if (r[d].res.jain_tcp >= 0)
			fprintf(f, " %10.4f", r[d].res.jain_tcp);
		else
			fprintf(f, " %10s", "-");
	}
	fprintf(f, "\n");
	ROW("link utilisation", "%10.4f", r[d].res.utilization);
	ROW("queue, mean packets", "%10.1f", r[d].res.qlen_mean);
	ROW("UDP share of the queue", "%10.4f", queue_udp_share(&r[d].res));
	ROW("queueing delay TCP, ms", "%10.1f", r[d].res.qdelay_ms[SIM_TCP]);
	for (k = 0; k <= SIM_DROP_ACCESS; k++) {
		char label[40];
		static const char *const what[] = { "matched arrivals", "match victims",
			"early (RED)", "forced (avg>max)", "tail (limit)", "access link" };

		snprintf(label, sizeof(label), "drops: %s", what[k]);
		ROW(label, "%10llu",
		    (unsigned long long)(r[d].res.drops[0][k] + r[d].res.drops[1][k]));
	}
	for (d = 0; d < n; d++)
		if (run_protect(&r[d]))
			break;
	if (d < n)
		ROW("drops: protect", "%10llu",
		    (unsigned long long)(r[d].res.drops[0][SIM_DROP_PROTECT] +
					 r[d].res.drops[1][SIM_DROP_PROTECT]));
	ROW("UDP packets dropped", "%10llu", (unsigned long long)sum_drops(r[d].res.drops[1]));
	ROW("TCP timeouts", "%10llu", (unsigned long long)timeouts_of(&r[d].res));
#undef ROW
	for (d = 0; d < n; d++)
		if (sim_run_analytic(&r[d]) >= 0)
			an = sim_run_analytic(&r[d]);
	if (an >= 0)
		fprintf(f, "\nCHOKe's fluid model (many TCP flows) at %.3gc: UDP share %.4f\n",
			r[0].setup.udp_rate_c, an);
}

void sim_compare_json(FILE *f, const struct sim_run *r, int n, int speed)
{
	int d;

	fprintf(f, "{\"scenario\":");
	json_string(f, r[0].setup.name);
	fprintf(f, ",\"disciplines\":[");
	for (d = 0; d < n; d++) {
		if (d)
			fputc(',', f);
		run_json(f, &r[d], speed, 1);
	}
	fprintf(f, "]}\n");
}

void sim_sweep_text(FILE *f, const char *key, const struct sim_run *r, int npoints,
		    int nq)
{
	int p, d, any_an = 0;

	for (p = 0; p < npoints * nq; p++)
		if (sim_run_analytic(&r[p]) >= 0)
			any_an = 1;
	header(f, &r[nq - 1]);
	fprintf(f, "  sweep of %s over %d points (the lines above show the first)\n\n", key,
		npoints);
	fprintf(f, "%-12s", key);
	for (d = 0; d < nq; d++)
		fprintf(f, " %9s", r[d].setup.qdisc);
	if (any_an)
		fprintf(f, " %9s", "fluid");
	fprintf(f, " |");
	for (d = 0; d < nq; d++)
		fprintf(f, " %9s", r[d].setup.qdisc);
	fprintf(f, " |");
	for (d = 0; d < nq; d++)
		fprintf(f, " %9s", r[d].setup.qdisc);
	fprintf(f, "\n%-12s", "");
	fprintf(f, " %*s", 10 * nq - 1 + (any_an ? 10 : 0), "UDP share of the link");
	fprintf(f, " | %*s", 10 * nq - 1, "UDP share of queue");
	fprintf(f, " | %*s\n", 10 * nq - 1, "Jain's index (TCP)");
	for (p = 0; p < npoints; p++) {
		const struct sim_run *row = &r[p * nq];
		double an = -1;

		fprintf(f, "%-12s", row[0].value);
		for (d = 0; d < nq; d++) {
			fprintf(f, " %9.4f", row[d].res.share[SIM_UDP]);
			if (sim_run_analytic(&row[d]) >= 0)
				an = sim_run_analytic(&row[d]);
		}
		if (any_an) {
			if (an >= 0)
				fprintf(f, " %9.4f", an);
			else
				fprintf(f, " %9s", "-");
		}
		fprintf(f, " |");
		for (d = 0; d < nq; d++)
			fprintf(f, " %9.4f", queue_udp_share(&row[d].res));
		fprintf(f, " |");
		for (d = 0; d < nq; d++) {
			if (row[d].res.jain_tcp >= 0)
				fprintf(f, " %9.4f", row[d].res.jain_tcp);
			else
				fprintf(f, " %9s", "-");
		}
		fprintf(f, "\n");
	}
}

void sim_sweep_json(FILE *f, const char *key, const struct sim_run *r, int npoints,
		    int nq, int speed)
{
	int p, d;

	fprintf(f, "{\"scenario\":");
	json_string(f, r[0].setup.name);
	fprintf(f, ",\"sweep\":");
	json_string(f, key);
	fprintf(f, ",\"points\":[");
	for (p = 0; p < npoints; p++) {
		fprintf(f, "%s{\"value\":", p ? "," : "");
		json_string(f, r[p * nq].value);
		fprintf(f, ",\"x\":");
		jnum(f, r[p * nq].x);
		fprintf(f, ",\"runs\":[");
		for (d = 0; d < nq; d++) {
			if (d)
				fputc(',', f);
			run_json(f, &r[p * nq + d], speed, 1);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}\n");
}

void sim_report_speed(FILE *f, const struct sim_run *r, int n)
{
	double w = 0, c = 0, l = 0, ev = 0, pk = 0;
	int i;

	for (i = 0; i < n; i++) {
		w += r[i].res.wall_s;
		c += r[i].res.cpu_s;
		l += r[i].res.loop_cpu_s;
		ev += (double)r[i].res.events;
		pk += (double)r[i].res.btl_pkts;
	}
	fprintf(f, "choke sim: speed: %d run%s, %.3f s elapsed (%.3f s CPU) in the engine, "
		"%.0f events (%.3g/s elapsed, %.3g/s CPU), %.0f bottleneck packets "
		"(%.3g/s elapsed, %.3g/s CPU); the event loop alone %.3f s CPU "
		"(%.3g packets/s)\n",
		n, n == 1 ? "" : "s", w, c, ev, w > 0 ? ev / w : 0, c > 0 ? ev / c : 0, pk,
		w > 0 ? pk / w : 0, c > 0 ? pk / c : 0, l, l > 0 ? pk / l : 0);
}

int sim_batch_write(FILE *f, const struct sim_batch *b, const struct sim_write_opts *o)
{
	switch (b->kind) {
	case SIM_BATCH_SWEEP:
		if (o->format == SIM_FMT_JSON)
			sim_sweep_json(f, b->sweep.key, b->runs, b->npoints, b->nq, o->speed);
		else if (o->format == SIM_FMT_CSV)
			sim_summary_csv(f, b->sweep.key, b->runs, b->n);
		else
			sim_sweep_text(f, b->sweep.key, b->runs, b->npoints, b->nq);
		break;
	case SIM_BATCH_COMPARE:
		if (o->format == SIM_FMT_JSON)
			sim_compare_json(f, b->runs, b->n, o->speed);
		else if (o->format == SIM_FMT_CSV)
			sim_summary_csv(f, NULL, b->runs, b->n);
		else
			sim_compare_text(f, b->runs, b->n);
		break;
	default:
		if (o->format == SIM_FMT_JSON)
			sim_report_json(f, &b->runs[0], o->speed);
		else if (o->format == SIM_FMT_CSV)
			sim_report_csv(f, &b->runs[0]);
		else
			sim_report_text(f, &b->runs[0], o->all_flows);
		break;
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}
