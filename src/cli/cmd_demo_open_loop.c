/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke demo --open-loop: the open-loop workload (workload.c). One heavy
 * unresponsive flow at twice the capacity of a 10 Mbit/s bottleneck plus 20
 * light Poisson flows, through FIFO, RED and CHOKe with the same parameters.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/json.h"
#include "cli.h"
#include "workload.h"

#define DEMO_LIGHT 20
#define DEMO_FLOWS (DEMO_LIGHT + 1)

static const char *const demo_words[] = { "limit", "300", "min", "100", "max",
	"200", "avpkt", "1000", "bandwidth", "10mbit", "probability", "0.02" };
#define DEMO_NWORDS ((int)(sizeof(demo_words) / sizeof(demo_words[0])))

static double mbps(uint64_t bytes, double secs)
{
	return secs > 0 ? bytes * 8.0 / secs / 1e6 : 0;
}

static double loss(const struct wl_flow_result *f)
{
	return f->offered_pkts ?
		       1.0 - (double)f->delivered_pkts / (double)f->offered_pkts : 0;
}

static uint64_t drops_of(const struct wl_flow_result *f)
{
	uint64_t n = f->drop_match_victim;
	int o;

	for (o = 0; o < CHOKE_NOUTCOMES; o++)
		n += f->drop[o];
	return n;
}

static void print_table(const struct wl_config *wc, struct wl_result *res,
			const char *const names[3])
{
	int f, d;
	double secs = res[0].measured_seconds;

	printf("%-12s %9s", "flow", "offered");
	for (d = 0; d < 3; d++)
		printf("  %8s %-6s", names[d], "loss");
	printf("\n%-12s %9s", "", "Mbit/s");
	for (d = 0; d < 3; d++)
		printf("  %8s %-6s", "Mbit/s", "");
	printf("\n");
	for (f = 0; f < wc->nflows; f++) {
		char name[32];

		if (f == 0)
			snprintf(name, sizeof(name), "heavy CBR");
		else
			snprintf(name, sizeof(name), "light %d", f);
		printf("%-12s %9.3f", name, mbps(res[0].flows[f].offered_bytes, secs));
		for (d = 0; d < 3; d++)
			printf("  %8.3f %5.1f%%", mbps(res[d].flows[f].delivered_bytes, secs),
			       100 * loss(&res[d].flows[f]));
		printf("\n");
	}
	{
		uint64_t off = 0, del[3] = { 0, 0, 0 }, offp = 0, delp[3] = { 0, 0, 0 };

		for (f = 1; f < wc->nflows; f++) {
			off += res[0].flows[f].offered_bytes;
			offp += res[0].flows[f].offered_pkts;
			for (d = 0; d < 3; d++) {
				del[d] += res[d].flows[f].delivered_bytes;
				delp[d] += res[d].flows[f].delivered_pkts;
			}
		}
		printf("%-12s %9.3f", "light (all)", mbps(off, secs));
		for (d = 0; d < 3; d++)
			printf("  %8.3f %5.1f%%", mbps(del[d], secs),
			       offp ? 100.0 * (1 - (double)delp[d] / (double)offp) : 0);
		printf("\n\n");
	}
	printf("%-28s", "");
	for (d = 0; d < 3; d++)
		printf(" %12s", names[d]);
	printf("\n");
#define ROW(label, fmt, expr)                                                  \
	do {                                                                   \
		printf("%-28s", label);                                        \
		for (d = 0; d < 3; d++)                                        \
			printf(" " fmt, expr);                                 \
		printf("\n");                                                  \
	} while (0)
	ROW("heavy flow's link share", "%12.3f",
	    res[d].utilization > 0 ?
		    mbps(res[d].flows[0].delivered_bytes, secs) * 1e6 /
			    (wc->link_bps * res[d].utilization) : 0);
	ROW("link utilisation", "%12.3f", res[d].utilization);
	ROW("mean queue (packets)", "%12.1f", res[d].mean_qlen);
	ROW("mean delay (ms)", "%12.2f", res[d].mean_delay_s * 1e3);
	ROW("drops: matched (CHOKe)", "%12llu", (unsigned long long)res[d].st.matched);
	ROW("drops: early (RED prob.)", "%12llu", (unsigned long long)res[d].st.prob_drop);
	ROW("drops: forced (avg > max)", "%12llu",
	    (unsigned long long)res[d].st.forced_drop);
	ROW("drops: tail (limit)", "%12llu", (unsigned long long)res[d].st.pdrop);
	ROW("drops: all packets", "%12llu", (unsigned long long)res[d].st.drops);
	ROW("heavy flow's drops", "%12llu", (unsigned long long)drops_of(&res[d].flows[0]));
#undef ROW
}

static void print_json(const struct wl_config *wc, struct wl_result *res,
		       const char *const names[3])
{
	int d, f;
	double secs = res[0].measured_seconds;

	printf("{\"link_bps\":%.0f,\"seconds\":%g,\"warmup\":%g,\"seed\":%llu,"
	       "\"disciplines\":[",
	       wc->link_bps, wc->seconds, wc->warmup, (unsigned long long)wc->seed);
	for (d = 0; d < 3; d++) {
		const struct choke_stats *s = &res[d].st;

		printf("%s{\"discipline\":", d ? "," : "");
		json_string(stdout, names[d]);
		printf(",\"utilization\":%.6f,"
		       "\"heavy_share\":%.6f,\"mean_qlen\":%.3f,\"mean_delay_ms\":%.4f,"
		       "\"drops\":{\"matched\":%llu,\"early\":%llu,\"forced\":%llu,"
		       "\"limit\":%llu,\"total\":%llu},\"flows\":[",
		       res[d].utilization,
		       res[d].utilization > 0 ?
			       res[d].flows[0].delivered_bytes * 8.0 /
				       (wc->link_bps * res[d].utilization * secs) : 0,
		       res[d].mean_qlen, res[d].mean_delay_s * 1e3,
		       (unsigned long long)s->matched, (unsigned long long)s->prob_drop,
		       (unsigned long long)s->forced_drop, (unsigned long long)s->pdrop,
		       (unsigned long long)s->drops);
		for (f = 0; f < wc->nflows; f++) {
			const struct wl_flow_result *fr = &res[d].flows[f];

			printf("%s{\"flow\":%d,\"kind\":", f ? "," : "", f);
			json_string(stdout, f ? "light" : "heavy");
			printf(",\"offered_mbps\":%.6f,"
			       "\"delivered_mbps\":%.6f,\"offered_pkts\":%llu,"
			       "\"delivered_pkts\":%llu,\"loss\":%.6f}",
			       mbps(fr->offered_bytes, secs), mbps(fr->delivered_bytes, secs),
			       (unsigned long long)fr->offered_pkts,
			       (unsigned long long)fr->delivered_pkts, loss(fr));
		}
		printf("]}");
	}
	printf("]}\n");
}

/* seconds (2 to 3600) and seed are checked by `choke demo`'s options. */
int cmd_demo_open_loop(double seconds, uint64_t seed, int json)
{
	static const char *const names[3] = { "FIFO", "RED", "CHOKe" };
	static const int kinds[3] = { CHOKE_KIND_FIFO, CHOKE_KIND_RED, CHOKE_KIND_CHOKE };
	const char *json_names[3];
	struct wl_flow_spec flows[DEMO_FLOWS];
	struct wl_config wc;
	struct wl_result res[3];
	struct choke_params prm[3];
	int i, d, rc = 0;
	char line[256];

	flows[0] = (struct wl_flow_spec){ 20e6, 0, 1000, 0 };
	for (i = 1; i < DEMO_FLOWS; i++)
		flows[i] = (struct wl_flow_spec){ 0.2e6, 1, 1000, 0 };
	wc = (struct wl_config){ 10e6, seconds, seconds / 6, seed,
				 DEMO_FLOWS, flows };

	for (d = 0; d < 3; d++) {
		int kind = kinds[d];
		char err[CHOKE_ERRBUF_SIZE];
		/* FIFO takes only the limit */
		int n = kind == CHOKE_KIND_FIFO ? 2 : DEMO_NWORDS;

		json_names[d] = choke_kind_name(kind);
		if (choke_params_parse(n, (char *const *)demo_words, kind, NULL, &prm[d],
				       err, sizeof(err))) {
			fprintf(stderr, "choke: demo: %s\n", err);
			return 1;
		}
	}
	if (!json) {
		printf("choke demo: a %.0f Mbit/s bottleneck, %.0f s simulated "
		       "(the first %.0f s not measured), seed %llu\n",
		       wc.link_bps / 1e6, wc.seconds, wc.warmup,
		       (unsigned long long)wc.seed);
		printf("  flows: 1 heavy unresponsive CBR flow at %.0f Mbit/s (%.0fx "
		       "capacity), %d light Poisson flows at %.1f Mbit/s each; "
		       "1000-byte packets\n",
		       flows[0].rate_bps / 1e6, flows[0].rate_bps / wc.link_bps,
		       DEMO_LIGHT, flows[1].rate_bps / 1e6);
		choke_params_format(&prm[2].cfg, line, sizeof(line));
		printf("  CHOKe and RED: %s\n  FIFO: limit %up\n\n", line,
		       prm[0].cfg.limit);
	}
	for (d = 0; d < 3; d++) {
		char err[CHOKE_ERRBUF_SIZE];

		if (wl_run(&wc, &prm[d].cfg, &res[d], err, sizeof(err))) {
			fprintf(stderr, "choke: demo: %s\n", err);
			while (d-- > 0)
				wl_result_free(&res[d]);
			return 1;
		}
	}
	if (json)
		print_json(&wc, res, json_names);
	else
		print_table(&wc, res, names);
	for (d = 0; d < 3; d++)
		wl_result_free(&res[d]);
	return rc;
}
