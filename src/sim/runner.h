/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The runner: a batch of simulations (a single run, FIFO/RED/CHOKe compared,
 * or a sweep of a key under each discipline), built from a scenario and
 * overrides, run by a pool of worker processes bounded in number and in
 * memory, with progress reported through a callback, and the results kept
 * as structs for the report writers (report.h) and the plot (plot.h).
 *
 *   struct sim_batch b;
 *   struct sim_plan p = { .scenario = &sc, .compare = 1 };
 *   struct sim_runner_opts o = { .jobs = 2 };
 *
 *   if (sim_batch_plan(&b, &p, err, sizeof(err)) ||
 *       sim_batch_run(&b, &o, err, sizeof(err)))
 *           ... err says why ...
 *   sim_batch_write(stdout, &b, &(struct sim_write_opts){ SIM_FMT_JSON });
 *   sim_batch_free(&b);
 *
 * Nothing here prints: errors come back as a negative number and a message
 * in the caller's buffer, progress through the caller's callback. The output
 * of a batch does not depend on the number of workers.
 */
#ifndef CHOKE_SIM_RUNNER_H
#define CHOKE_SIM_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "sim.h"
#include "sweep.h"

/* One simulation of a batch: its resolved setup and, once run, its result. */
struct sim_run {
	struct sim_setup setup;
	struct sim_result res;
	char value[64]; /* sweep: the swept key's value */
	double x;       /* sweep: its number */
};

/* An override of one scenario key; where names its source in messages
 * ("--set", "--sweep", "scenario.txt:3"). */
struct sim_override {
	const char *key, *value, *where;
};

/* What a run is: the scenario with overrides applied in order. */
struct sim_run_spec {
	const struct sim_scenario *scenario;
	const struct sim_override *set;
	unsigned nset;
	const char *value; /* a label for reports (the swept value), or NULL */
	double x;          /* its number */
};

enum sim_batch_kind {
	SIM_BATCH_SINGLE = 0,  /* one run */
	SIM_BATCH_COMPARE = 1, /* nq disciplines on the same scenario */
	SIM_BATCH_SWEEP = 2,   /* npoints x nq runs, point-major */
};

struct sim_batch {
	int kind;          /* enum sim_batch_kind */
	struct sim_run *runs;
	int n, cap;
	int npoints, nq;
	struct sim_sweep sweep; /* SIM_BATCH_SWEEP */
	char input[4096];  /* sim_batch_plan: the scenario file read ("": none) */
};

/* Empty batch (kind SIM_BATCH_SINGLE); add runs with sim_batch_add. */
void sim_batch_init(struct sim_batch *b);
void sim_batch_free(struct sim_batch *b);

/* Resolve a run and append it. 0, or -1 with a message (bad value, out of
 * memory); the batch is unchanged on error. */
int sim_batch_add(struct sim_batch *b, const struct sim_run_spec *spec, char *err,
		  size_t errlen);

/* The usual batches of `choke sim`: a scenario, the user's overrides, and
 * one run, FIFO/RED/CHOKe compared, or a sweep. */
struct sim_plan {
	const struct sim_scenario *scenario; /* a scenario in memory, or NULL: */
	const char *name;   /* one found by sim_scenario_find (NULL: the
			     * built-in paper-single-link) */
	const char *const *sets; /* "KEY=VALUE" overrides, in order ("--set") */
	int nsets;
	const char *seed;   /* the seed ("--seed"), or NULL */
	const char *qdisc;  /* the discipline and its words ("--qdisc"), or NULL */
	int compare;        /* FIFO, RED and CHOKe */
	const char *sweep;  /* KEY=A..B:N[:log] or KEY=V1,V2,... (each point under
			     * FIFO, RED and CHOKe, or only qdisc if given), or NULL */
};

/* Initialise b and build the plan's runs (b->input: the scenario file read,
 * if any). 0, or -1 with a message; free b in both cases. */
int sim_batch_plan(struct sim_batch *b, const struct sim_plan *p, char *err, size_t errlen);

/* Progress of a batch, for the caller to show. */
struct sim_progress {
	int runs_done, runs_total;
	int running;      /* runs in progress now */
	double fraction;  /* of the batch's estimated work, 0 to 1 */
	double elapsed_s; /* wall clock since sim_batch_run began */
	double eta_s;     /* estimated time left; negative while unknown */
	int final;        /* the last call: the batch is done (or failed) */
};

typedef void (*sim_progress_fn)(void *ctx, const struct sim_progress *p);

/* The progress as one line of text (no newline): "12/45 runs (3 running),
 * 27%, 0:13 elapsed, about 0:35 left"; the last: "45/45 runs, 0:48". */
void sim_progress_format(char *buf, size_t len, const struct sim_progress *p);

/* The default bound on a run's estimated event count (sim_estimate_events):
 * about a minute or two of this simulator on a current machine. */
#define SIM_EVENT_BUDGET 1e9

struct sim_runner_opts {
	int jobs;              /* simulations at a time, 1..SIM_MAX_JOBS (0: 1); more
				* than one run in child processes */
	double mem_limit;      /* bytes the simultaneous runs may take by
				* estimate (sim_estimate_memory); 0: half the
				* memory available. A run alone always starts. */
	double event_budget;   /* refuse the batch if a run's estimated events
				* exceed this (0: no limit) */
	sim_progress_fn progress; /* or NULL */
	void *progress_ctx;
	double progress_interval_s; /* at most one call per interval (0: 0.2 s),
				     * plus one when a run ends and a final one */
	int shard, nshards;    /* run only shard K of N (sim_run_in_shard);
				* nshards 0: every run */
};

/* Whether run i of a batch belongs to shard k (1..n) of n: runs are dealt
 * round robin (i mod n == k - 1), so each shard gets a share of every
 * point and discipline, and the shards are disjoint and cover the batch. */
int sim_run_in_shard(int i, int k, int n);

#define SIM_MAX_JOBS 64

/* Errors of sim_batch_run besides -1. */
#define SIM_E_BUDGET (-2) /* a run's estimate exceeds event_budget; nothing ran */

/* Run every run of the batch. 0; SIM_E_BUDGET (the message names the run
 * and its estimate); or -1 with a message (a run failed, a worker died). */
CHOKE_MUST_CHECK int sim_batch_run(struct sim_batch *b, const struct sim_runner_opts *o, char *err,
		  size_t errlen);

/* A short description of a run for messages: "udp_rate=2c, choke". */
void sim_run_describe(const struct sim_batch *b, int i, char *buf, size_t len);

#endif
