/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Tests of the simulator's runner used directly (src/sim/runner.h): batches
 * built from specs and plans, the same results in this process and in any
 * number of worker processes, the bounds on workers and memory, progress
 * reports, the event budget, failures of a run, and sweep values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/sim/report.h"
#include "../../src/sim/runner.h"
#include "../../src/sim/sweep.h"
#include "../testlib.h"

#define ERRLEN 512

/* the paper's scenario, 12 s of which 4 not measured */
static int short_paper(struct sim_scenario *sc)
{
	char err[ERRLEN];

	if (sim_scenario_builtin(sc, err, sizeof(err)))
		return -1;
	if (sim_scenario_parse(sc, "duration = 12s\nwarmup = 4s\n", "test", err, sizeof(err))) {
		sim_scenario_free(sc);
		return -1;
	}
	return 0;
}

/* results equal in everything but the wall clock */
static int same_result(const struct sim_result *a, const struct sim_result *b)
{
	struct sim_result x = *a, y = *b;

	x.wall_s = y.wall_s = x.cpu_s = y.cpu_s = x.loop_cpu_s = y.loop_cpu_s = 0;
	x.flows = y.flows = NULL;
	return !memcmp(&x, &y, sizeof(x)) && a->nflows == b->nflows &&
	       !memcmp(a->flows, b->flows, a->nflows * sizeof(*a->flows));
}

struct seen {
	int calls, finals, max_running, last_done, monotone, jobs;
	double last_fraction;
};

static void on_progress(void *ctx, const struct sim_progress *p)
{
	struct seen *s = ctx;

	s->calls++;
	s->finals += p->final;
	if (p->running > s->max_running)
		s->max_running = p->running;
	if (p->runs_done < s->last_done || p->fraction + 1e-12 < s->last_fraction ||
	    p->fraction < 0 || p->fraction > 1 || p->runs_done > p->runs_total)
		s->monotone = 0;
	s->last_done = p->runs_done;
	s->last_fraction = p->fraction;
}

static void t_runner_specs_and_workers(void)
{
	static const struct sim_override sets[][2] = {
		{ { "qdisc", "fifo", "t" }, { "udp_rate", "1c", "t" } },
		{ { "qdisc", "red", "t" }, { "udp_rate", "1c", "t" } },
		{ { "qdisc", "choke", "t" }, { "udp_rate", "1c", "t" } },
		{ { "qdisc", "choke", "t" }, { "udp_rate", "3c", "t" } },
		{ { "qdisc", "choke", "t" }, { "seed", "9", "t" } },
	};
	struct sim_batch one, many;
	struct sim_scenario sc;
	char err[ERRLEN];
	int i;

	REQUIRE(!short_paper(&sc));
	sim_batch_init(&one);
	sim_batch_init(&many);
	for (i = 0; i < 5; i++) {
		struct sim_run_spec spec = { &sc, sets[i], 2, sets[i][1].value, i };

		REQUIRE(!sim_batch_add(&one, &spec, err, sizeof(err)));
		REQUIRE(!sim_batch_add(&many, &spec, err, sizeof(err)));
	}
	sim_scenario_free(&sc);
	CHECK_EQ(one.n, 5);
	CHECK(!strcmp(one.runs[1].setup.qdisc, "red"));
	CHECK(one.runs[3].setup.udp_rate_c == 3);
	CHECK_EQ(one.runs[4].setup.cfg.seed, 9);
	CHECK(!strcmp(one.runs[3].value, "3c") && one.runs[3].x == 3);
	{
		struct sim_runner_opts o1 = { .jobs = 1 };
		struct seen s = { .monotone = 1, .jobs = 3 };
		struct sim_runner_opts o3 = { .jobs = 3, .progress = on_progress,
					      .progress_ctx = &s, .progress_interval_s = 0.01 };

		REQUIRE(!sim_batch_run(&one, &o1, err, sizeof(err)));
		REQUIRE(!sim_batch_run(&many, &o3, err, sizeof(err)));
		for (i = 0; i < 5; i++)
			CHECK(same_result(&one.runs[i].res, &many.runs[i].res));
		/* progress: from the start to the end, never backwards, one final */
		CHECK(s.calls >= 6);
		CHECK_EQ(s.finals, 1);
		CHECK(s.monotone);
		CHECK_EQ(s.last_done, 5);
		CHECK(s.last_fraction == 1);
		CHECK(s.max_running >= 1 && s.max_running <= 3);
	}
	/* CHOKe at 1c and FIFO: the runs are what the specs say */
	CHECK(one.runs[0].res.share[SIM_UDP] > one.runs[2].res.share[SIM_UDP]);
	CHECK(one.runs[2].res.qst.matched > 0 && one.runs[0].res.qst.matched == 0);
	sim_batch_free(&one);
	sim_batch_free(&many);
	/* a bad override names itself; the batch is unchanged */
	{
		static const struct sim_override bad = { "udp_rate", "fast", "spec 7" };
		struct sim_run_spec spec = { &sc, &bad, 1, NULL, 0 };

		REQUIRE(!short_paper(&sc));
		sim_batch_init(&one);
		CHECK(sim_batch_add(&one, &spec, err, sizeof(err)) == -1);
		CHECK(strstr(err, "spec 7: udp_rate = \"fast\"") != NULL);
		CHECK_EQ(one.n, 0);
		sim_batch_free(&one);
		sim_scenario_free(&sc);
	}
}

static void t_runner_plans(void)
{
	struct sim_scenario sc;
	struct sim_batch b;
	char err[ERRLEN];
	struct sim_plan p;
	int i;

	REQUIRE(!short_paper(&sc));
	memset(&p, 0, sizeof(p));
	p.scenario = &sc;
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	CHECK(b.kind == SIM_BATCH_SINGLE && b.n == 1);
	CHECK(!strcmp(b.runs[0].setup.qdisc, "choke"));
	sim_batch_free(&b);
	p.compare = 1;
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	CHECK(b.kind == SIM_BATCH_COMPARE && b.n == 3 && b.nq == 3);
	CHECK(!strcmp(b.runs[0].setup.qdisc, "fifo") && !strcmp(b.runs[2].setup.qdisc, "choke"));
	sim_batch_free(&b);
	p.compare = 0;
	p.sweep = "udp_rate=0.5c..2c:4:log";
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	CHECK(b.kind == SIM_BATCH_SWEEP && b.n == 12 && b.npoints == 4 && b.nq == 3);
	for (i = 0; i < 12; i++) {
		CHECK(!strcmp(b.runs[i].setup.qdisc, i % 3 == 0 ? "fifo" : i % 3 == 1 ? "red"
								     : "choke"));
		CHECK(fabs(b.runs[i].setup.udp_rate_c - b.runs[i].x) < 1e-5);
	}
	CHECK(!strcmp(b.runs[0].value, "0.5c") && !strcmp(b.runs[11].value, "2c"));
	CHECK(!strcmp(b.runs[3].value, "0.793701c"));
	sim_batch_free(&b);
	/* one discipline when the user chose one */
	p.qdisc = "choke";
	p.sweep = "tcp_flows=4,8";
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	CHECK(b.n == 2 && b.nq == 1 && b.runs[1].setup.ntcp == 8);
	sim_batch_free(&b);
	/* by name (NULL: the built-in copy), with the overrides in order */
	{
		static const char *const sets[] = { "udp_rate=3c", "duration=6s", "warmup=1s" };
		struct sim_plan q = { NULL, NULL, sets, 3, "7", "red limit 100 min 10 max 30", 0, NULL };

		REQUIRE(!sim_batch_plan(&b, &q, err, sizeof(err)));
		CHECK(b.n == 1 && b.runs[0].setup.udp_rate_c == 3 && b.runs[0].setup.cfg.seed == 7);
		CHECK(!strcmp(b.runs[0].setup.qdisc, "red") && b.runs[0].setup.cfg.qcfg.limit == 100);
		CHECK(b.input[0] == 0);
		sim_batch_free(&b);
		q.name = "no-such-scenario-here";
		CHECK(sim_batch_plan(&b, &q, err, sizeof(err)) == -1 && strstr(err, "no scenario"));
		sim_batch_free(&b);
		q.name = NULL;
		q.seed = "-1";
		CHECK(sim_batch_plan(&b, &q, err, sizeof(err)) == -1 && strstr(err, "--seed: seed"));
		sim_batch_free(&b);
	}
	p.sweep = "nope=1..2:2";
	CHECK(sim_batch_plan(&b, &p, err, sizeof(err)) == -1 && strstr(err, "unknown key"));
	sim_batch_free(&b);
	p.sweep = "udp_rate=1c..2c";
	CHECK(sim_batch_plan(&b, &p, err, sizeof(err)) == -1 && strstr(err, "expected KEY=A..B:N"));
	sim_batch_free(&b);
	sim_scenario_free(&sc);
}

/* a tiny memory bound runs one at a time, with the same results */
static void t_runner_memory_bound(void)
{
	struct sim_scenario sc;
	struct sim_batch a, b;
	struct sim_plan p;
	struct seen s = { .monotone = 1 };
	struct sim_runner_opts wide = { .jobs = 4 };
	struct sim_runner_opts narrow = { .jobs = 4, .mem_limit = 1, .progress = on_progress,
					  .progress_ctx = &s, .progress_interval_s = 0.001 };
	char err[ERRLEN];
	int i;

	REQUIRE(!short_paper(&sc));
	memset(&p, 0, sizeof(p));
	p.scenario = &sc;
	p.sweep = "udp_rate=0.5c,1c,2c";
	REQUIRE(!sim_batch_plan(&a, &p, err, sizeof(err)));
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	sim_scenario_free(&sc);
	CHECK(sim_estimate_memory(&a.runs[0].setup.cfg) > 1e6);
	REQUIRE(!sim_batch_run(&a, &wide, err, sizeof(err)));
	REQUIRE(!sim_batch_run(&b, &narrow, err, sizeof(err)));
	CHECK_EQ(s.max_running, 1);
	CHECK_EQ(s.last_done, 9);
	for (i = 0; i < 9; i++)
		CHECK(same_result(&a.runs[i].res, &b.runs[i].res));
	sim_batch_free(&a);
	sim_batch_free(&b);
}

static void t_runner_budget_and_failures(void)
{
	struct sim_scenario sc;
	struct sim_batch b;
	struct sim_plan p;
	char err[ERRLEN];
	int jobs;

	REQUIRE(!short_paper(&sc));
	memset(&p, 0, sizeof(p));
	p.scenario = &sc;
	p.compare = 1;
	/* the estimate: within a third of the events counted */
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	{
		struct sim_runner_opts o = { .jobs = 1 };
		int i;

		REQUIRE(!sim_batch_run(&b, &o, err, sizeof(err)));
		for (i = 0; i < 3; i++) {
			double est = sim_estimate_events(&b.runs[i].setup.cfg);
			double got = (double)b.runs[i].res.events;

			CHECK(est > 0.7 * got && est < 1.35 * got);
		}
	}
	sim_batch_free(&b);
	/* over the budget: refused before anything runs, naming the estimate */
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	{
		struct sim_runner_opts o = { .jobs = 2, .event_budget = 1000 };

		CHECK(sim_batch_run(&b, &o, err, sizeof(err)) == SIM_E_BUDGET);
		CHECK(strstr(err, "paper-single-link, fifo: about ") != NULL);
		CHECK(strstr(err, "over the budget of 1e+03 events") != NULL);
		CHECK(b.runs[0].res.flows == NULL && b.runs[2].res.events == 0);
	}
	sim_batch_free(&b);
	/* a run that fails: its message, in this process and from a worker */
	for (jobs = 1; jobs <= 3; jobs += 2) {
		struct sim_runner_opts o = { .jobs = jobs };

		REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
		b.runs[1].setup.cfg.pkt_size = 0;
		err[0] = 0;
		CHECK(sim_batch_run(&b, &o, err, sizeof(err)) == -1);
		CHECK(strstr(err, "invalid link, packet size or duration") != NULL);
		sim_batch_free(&b);
	}
	sim_scenario_free(&sc);
}

/* the engine's progress hook sees simulated time grow, and changes nothing */
static void t_runner_progress_single(void)
{
	struct sim_scenario sc;
	struct sim_batch a, b;
	struct sim_plan p;
	struct seen s = { .monotone = 1 };
	struct sim_runner_opts quiet = { .jobs = 1 };
	struct sim_runner_opts loud = { .jobs = 1, .progress = on_progress, .progress_ctx = &s,
					.progress_interval_s = 1e-9 };
	char err[ERRLEN];

	REQUIRE(!short_paper(&sc));
	REQUIRE(!sim_scenario_parse(&sc, "duration = 60s\nbottleneck_rate = 10mbit\n", "t", err,
				    sizeof(err)));
	memset(&p, 0, sizeof(p));
	p.scenario = &sc;
	REQUIRE(!sim_batch_plan(&a, &p, err, sizeof(err)));
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	sim_scenario_free(&sc);
	REQUIRE(!sim_batch_run(&a, &quiet, err, sizeof(err)));
	REQUIRE(!sim_batch_run(&b, &loud, err, sizeof(err)));
	CHECK(same_result(&a.runs[0].res, &b.runs[0].res));
	/* about 600k events: a tick every 65536, each reported */
	CHECK(a.runs[0].res.events > 4 * 65536);
	CHECK(s.calls >= 2 + (int)(a.runs[0].res.events / 65536));
	CHECK(s.monotone && s.finals == 1 && s.last_fraction == 1);
	sim_batch_free(&a);
	sim_batch_free(&b);
}

/* reports through the batch: the same bytes as the kind's own writer */
static void t_runner_batch_write(void)
{
	struct sim_scenario sc;
	struct sim_batch b;
	struct sim_plan p;
	struct sim_runner_opts o = { .jobs = 1 };
	char err[ERRLEN], *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	FILE *fx, *fy;

	REQUIRE(!short_paper(&sc));
	memset(&p, 0, sizeof(p));
	p.scenario = &sc;
	p.compare = 1;
	REQUIRE(!sim_batch_plan(&b, &p, err, sizeof(err)));
	sim_scenario_free(&sc);
	REQUIRE(!sim_batch_run(&b, &o, err, sizeof(err)));
	fx = open_memstream(&x, &nx);
	fy = open_memstream(&y, &ny);
	REQUIRE(fx && fy);
	CHECK(!sim_batch_write(fx, &b, &(struct sim_write_opts){ SIM_FMT_JSON, 0, 0 }));
	sim_compare_json(fy, b.runs, b.n, 0);
	fclose(fx);
	fclose(fy);
	CHECK(nx > 1000 && nx == ny && !memcmp(x, y, nx));
	CHECK(strstr(x, "\"disciplines\":[") != NULL);
	free(x);
	free(y);
	sim_batch_free(&b);
}

/* sweep points print without an exponent, and read back as the same number */
static void t_sweep_values_round_trip(void)
{
	static const struct {
		double v;
		int integer;
		const char *want;
	} c[] = {
		{ 0.1, 0, "0.1" },	       { 0.138949549437314, 0, "0.13895" },
		{ 2.5, 0, "2.5" },	       { 999999, 0, "999999" },
		{ 1e6, 0, "1000000" },	       { 1.05e6, 0, "1050000" },
		{ 123456789, 0, "123457000" }, { -2e7, 0, "-20000000" },
		{ 1.5e-5, 0, "0.000015" },     { 1.23456789e-5, 0, "0.0000123457" },
		{ 0.000123456, 0, "0.000123456" }, { 9.9999996e6, 0, "10000000" },
		{ 2000000, 1, "2000000" },     { 1234567, 1, "1234567" },
	};
	struct sim_scenario sc;
	struct sim_setup st;
	struct sim_sweep sw;
	char buf[64], g[64], err[ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sim_sweep_format(buf, sizeof(buf), c[i].v, c[i].integer);
		if (strcmp(buf, c[i].want)) {
			tl_failures++;
			fprintf(stderr, "FAIL %s: %.17g gave \"%s\", want \"%s\"\n", tl_current,
				c[i].v, buf, c[i].want);
		}
		CHECK(!strpbrk(buf, "eE"));
		/* the same number as "%.6g" (or the integer itself) */
		snprintf(g, sizeof(g), c[i].integer ? "%.0f" : "%.6g", c[i].v);
		CHECK(strtod(buf, NULL) == strtod(g, NULL));
	}
	/* an integer key's sweep up to 2000000 (once "2e+06", refused) */
	REQUIRE(!sim_sweep_parse("tcp_rwnd=10..2000000:3:log", &sw, err, sizeof(err)));
	CHECK(!strcmp(sw.values[0], "10") && !strcmp(sw.values[1], "4472") &&
	      !strcmp(sw.values[2], "2000000"));
	REQUIRE(!sim_scenario_builtin(&sc, err, sizeof(err)));
	for (i = 0; i < 3; i++)
		CHECK(!sim_scenario_set(&sc, "tcp_rwnd", sw.values[i], "--sweep", err, sizeof(err)));
	REQUIRE(!sim_scenario_resolve(&sc, &st, err, sizeof(err)));
	CHECK_EQ(st.cfg.tcp.rwnd, 2000000);
	sim_setup_free(&st);
	sim_scenario_free(&sc);
	sim_sweep_free(&sw);
	REQUIRE(!sim_sweep_parse("udp_rate=1e5..2e7:2", &sw, err, sizeof(err)));
	CHECK(!strcmp(sw.values[0], "100000") && !strcmp(sw.values[1], "20000000"));
	sim_sweep_free(&sw);
}

/* shard k of n runs exactly its runs (i mod n == k - 1), each as the whole
 * batch does, in this process and in workers; the rest stay unrun; a
 * shard that does not exist is refused */
static void t_runner_shards(void)
{
	struct sim_scenario sc;
	struct sim_batch whole, part;
	struct sim_plan p;
	struct sim_runner_opts all = { .jobs = 1 }, o;
	struct seen s = { .monotone = 1 };
	char err[ERRLEN];
	int i, k;

	REQUIRE(!short_paper(&sc));
	memset(&p, 0, sizeof(p));
	p.scenario = &sc;
	p.sweep = "udp_rate=0.5c,1c";
	REQUIRE(!sim_batch_plan(&whole, &p, err, sizeof(err)));
	REQUIRE(!sim_batch_run(&whole, &all, err, sizeof(err)));
	for (k = 1; k <= 4; k++) {
		o = (struct sim_runner_opts){ .jobs = k & 1 ? 1 : 2, .shard = k, .nshards = 4,
					      .progress = on_progress, .progress_ctx = &s };
		memset(&s, 0, sizeof(s));
		s.monotone = 1;
		REQUIRE(!sim_batch_plan(&part, &p, err, sizeof(err)));
		REQUIRE(!sim_batch_run(&part, &o, err, sizeof(err)));
		CHECK_EQ(s.last_done, k <= 2 ? 2 : 1); /* 6 runs over 4 shards */
		for (i = 0; i < part.n; i++) {
			CHECK_EQ(sim_run_in_shard(i, k, 4), i % 4 == k - 1);
			if (sim_run_in_shard(i, k, 4))
				CHECK(same_result(&whole.runs[i].res, &part.runs[i].res));
			else
				CHECK(!part.runs[i].res.flows && !part.runs[i].res.events);
		}
		sim_batch_free(&part);
	}
	REQUIRE(!sim_batch_plan(&part, &p, err, sizeof(err)));
	o = (struct sim_runner_opts){ .jobs = 1, .shard = 5, .nshards = 4 };
	CHECK(sim_batch_run(&part, &o, err, sizeof(err)) == -1 && strstr(err, "shard 5 of 4"));
	sim_batch_free(&part);
	sim_batch_free(&whole);
	sim_scenario_free(&sc);
}

const struct tl_test runner_tests[] = {
	{ "runner/shards", t_runner_shards },
	{ "runner/sweep-values-round-trip", t_sweep_values_round_trip },
	{ "runner/specs-and-workers-same-results", t_runner_specs_and_workers },
	{ "runner/plans", t_runner_plans },
	{ "runner/memory-bound", t_runner_memory_bound },
	{ "runner/budget-and-failures", t_runner_budget_and_failures },
	{ "runner/progress-single-run", t_runner_progress_single },
	{ "runner/batch-write", t_runner_batch_write },
	{ NULL, NULL },
};
