/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * What every scenario the simulator accepts must satisfy, for the fuzz
 * targets of the scenario parser and of --set values: a consistent setup,
 * a valid discipline, finite estimates and, when it is cheap, a run that
 * ends within a generous multiple of its estimated events with consistent
 * results. A refusal must always say why.
 */
#ifndef CHOKE_FUZZ_SIM_CHECK_H
#define CHOKE_FUZZ_SIM_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/sim/scenario.h"
#include "../src/sim/sim.h"

struct fuzz_budget {
	double cap;  /* events allowed */
	double seen; /* events so far, by 65536 */
};

/* called every 65536 events: a run far beyond its estimate is a bug of
 * sim_estimate_events (the budget that protects users relies on it) */
static void fuzz_tick(void *ctx, uint64_t now_ns)
{
	struct fuzz_budget *b = ctx;

	(void)now_ns;
	b->seen += 65536;
	if (b->seen > b->cap)
		abort();
}

static void fuzz_refused(int rc, const char *err)
{
	if (rc && !err[0])
		abort(); /* a refusal always says why */
}

static void fuzz_sim_check(const struct sim_setup *st)
{
	const struct sim_config *c = &st->cfg;
	struct sim_config run;
	struct sim_result res;
	struct fuzz_budget b;
	char err[512] = "";
	double est = sim_estimate_events(c), mem = sim_estimate_memory(c), total = 0;
	uint32_t i;
	int rc;

	if (!c->nflows || c->nflows != st->ntcp + st->nudp + st->nlight + st->nweb || c->warmup_ns >= c->duration_ns ||
	    !c->btl_bps || !c->pkt_size || choke_config_check(&c->qcfg, NULL))
		abort();
	for (i = 0; i < c->nflows; i++)
		if (!c->flows[i].access_bps ||
		    (c->flows[i].cls == SIM_UDP && !(c->flows[i].rate_bps > 0)))
			abort();
	if (!(est > 0) || !isfinite(est) || !(mem > 0) || !isfinite(mem))
		abort();
	if (est > 5e4 || c->nflows > 256 || mem > 64e6)
		return;
	run = *c;
	b.cap = 20 * est + 1e6;
	b.seen = 0;
	run.progress_hook = fuzz_tick;
	run.progress_ctx = &b;
	rc = sim_run(&run, &res, err, sizeof(err));
	fuzz_refused(rc, err);
	if (rc)
		return;
	if ((double)res.events > b.cap || res.nflows != c->nflows)
		abort();
	for (i = 0; i < SIM_NCLASS; i++)
		total += res.share[i];
	if (fabs(total - 1) > 1e-9 && total != 0)
		abort();
	if (res.jain_tcp != -1 && !(res.jain_tcp > 0 && res.jain_tcp <= 1 + 1e-12))
		abort();
	if (res.jain_all != -1 && !(res.jain_all > 0 && res.jain_all <= 1 + 1e-12))
		abort();
	if (res.group_flows[SIM_G_TCP] + res.group_flows[SIM_G_FLOOD] + res.group_flows[SIM_G_LIGHT] +
	    res.group_flows[SIM_G_WEB] != c->nflows || (c->series_ns && !res.nseries))
		abort();
	sim_result_free(&res);
}

#endif
