/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke sim and choke demo: their options (one table, one parser) and calls
 * into the simulator's runner (src/sim/runner.h), reports and plot. The
 * open-loop demo (`choke demo --open-loop`) is cmd_demo_open_loop.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/plot.h"
#include "../sim/report.h"
#include "../sim/runner.h"
#include "../sim/shard.h"
#include "cli.h"

#define ERRLEN 2048
#define MAX_SETS 256

struct sim_cli {
	const char *cmd; /* "sim" or "demo" */
	const char *scenario, *qdisc, *seed, *sweep, *plot, *shard, *sets[MAX_SETS + 2];
	int shard_k, shard_n, merge;
	char *const *files; /* --merge: the shard files */
	int nfiles;
	int nsets, compare, flows, speed, force, progress, jobs, format, keys, open_loop, json;
	int tty, shown; /* progress: stderr is a terminal; a line is showing */
	double last;    /* when the last line was printed */
	double seconds; /* --seconds (0: not given) */
	uint64_t seed_u;
	char dur[64], warm[64];
};

enum {
	O_SECONDS = 1, O_SET, O_QDISC, O_SEED, O_COMPARE, O_SWEEP, O_PLOT, O_JSON, O_CSV,
	O_FLOWS, O_JOBS, O_SPEED, O_FORCE, O_PROGRESS, O_KEYS, O_OPEN_LOOP, O_SHARD, O_MERGE
};

/* the options both commands take, declared once */
#define OPT_SET { O_SET, "set", CLI_STR, "KEY=VALUE", "override a scenario key (choke sim --keys)", \
		  .flags = CLI_REPEAT }
#define OPT_SEED { O_SEED, "seed", CLI_U64, "N", "the seed (the same seed gives the same output)", \
		   .umax = UINT64_MAX }
#define OPT_JSON { O_JSON, "json", CLI_FLAG, NULL, "the report as JSON", .group = 1 }
#define OPT_CSV { O_CSV, "csv", CLI_FLAG, NULL, "the report as CSV", .group = 1 }
#define OPT_JOBS { O_JOBS, "jobs", CLI_INT, "N", "simulations at a time (the same output)", \
		   .min = 1, .max = SIM_MAX_JOBS }
#define OPT_SPEED { O_SPEED, "speed", CLI_FLAG, NULL, \
		    "events and packets per second on standard error", .flags = 0 }
#define OPT_FORCE { O_FORCE, "force", CLI_FLAG, NULL, \
		    "run even what is estimated above 1e9 events", .flags = 0 }
#define OPT_PROGRESS { O_PROGRESS, "progress", CLI_FLAG, NULL, \
		       "progress on standard error (on a terminal: always)", .flags = 0 }

static const struct cli_opt sim_opts[] = {
	OPT_SET,
	{ O_QDISC, "qdisc", CLI_STR, "Q", "the discipline: fifo, red or choke, with tc words "
	  "('choke limit 300 min 25 max 50')", .flags = 0 },
	OPT_SEED,
	{ O_COMPARE, "compare", CLI_FLAG, NULL, "FIFO, RED and CHOKe on the same scenario",
	  .flags = 0 },
	{ O_SWEEP, "sweep", CLI_STR, "SPEC", "KEY=A..B:N[:log] or KEY=V1,V2,...: each point "
	  "under FIFO, RED and CHOKe (only Q with --qdisc Q)", .flags = 0 },
	{ O_SHARD, "shard", CLI_STR, "K/N", "run only the K-th of N disjoint parts of the sweep "
	  "and write them to standard output, for --merge", .flags = 0 },
	{ O_MERGE, "merge", CLI_FLAG, NULL, "the arguments are the N shard files of a sweep: "
	  "their report, as the whole sweep's", .flags = 0 },
	{ O_PLOT, "plot", CLI_STR, "FILE", "draw the sweep: FILE.png, .svg or .pdf, and FILE.gp, "
	  "the gnuplot script (-: a PNG on standard output)", .flags = 0 },
	OPT_JSON,
	OPT_CSV,
	{ O_FLOWS, "flows", CLI_FLAG, NULL, "list every flow, even when there are many",
	  .flags = 0 },
	OPT_JOBS,
	OPT_SPEED,
	OPT_FORCE,
	OPT_PROGRESS,
	{ O_KEYS, "keys", CLI_FLAG, NULL, "list the scenario keys and their defaults, and exit",
	  .flags = 0 },
	{ .id = 0 },
};

static const struct cli_opt demo_opts[] = {
	{ O_SECONDS, "seconds", CLI_NUM, "N", "simulated seconds (default 100; --open-loop: 30), the "
	  "first fifth not measured (--open-loop: a sixth)", .dmin = 2, .dmax = 3600 },
	OPT_SET,
	OPT_SEED,
	OPT_JSON,
	OPT_CSV,
	OPT_JOBS,
	OPT_SPEED,
	OPT_FORCE,
	OPT_PROGRESS,
	{ O_OPEN_LOOP, "open-loop", CLI_FLAG, NULL, "the earlier open-loop workload instead "
	  "(takes only --seconds, --seed and --json)", .flags = 0 },
	{ .id = 0 },
};

static void sim_usage_dir(FILE *f)
{
	fprintf(f, "  The installed scenarios: %s\n", sim_scenario_dir);
}

const struct cli_cmd cli_cmd_sim = {
	.name = "sim",
	.args = "SCENARIO | --merge SHARD...",
	.summary = "simulate TCP and UDP flows through a bottleneck",
	.details = "  SCENARIO: a file of key = value lines, a path (with a /) or a name looked\n"
		   "  up in $CHOKE_SCENARIO_PATH, ./scenarios, the installed scenarios and the\n"
		   "  current directory (paper-single-link is also built in); choke sim --keys\n"
		   "  lists the keys. See docs/sim.md.\n",
	.details_fn = sim_usage_dir,
	.opts = sim_opts,
	.min_pos = 0, /* not with --keys */
	.max_pos = -1, /* --merge: the shard files */
	.run = cmd_sim,
};

const struct cli_cmd cli_cmd_demo = {
	.name = "demo",
	.args = NULL,
	.summary = "the CHOKe paper's experiment under FIFO, RED and CHOKe",
	.details = "  32 TCP flows and one UDP flow at twice the capacity of a 1 Mbit/s link,\n"
		   "  simulated (the built-in paper-single-link scenario); --open-loop: one\n"
		   "  heavy CBR flow and 20 light Poisson flows, open loop.\n",
	.opts = demo_opts,
	.min_pos = 0,
	.max_pos = 0,
	.run = cmd_demo,
};

/* The first option given that is not in only (0-terminated ids), or NULL. */
static const struct cli_opt *not_only(const struct cli_cmd *cmd, struct cli_parser *ps,
				      const int *only)
{
	const struct cli_opt *o;
	size_t k;

	for (o = cmd->opts; o->id; o++) {
		for (k = 0; only[k] && only[k] != o->id; k++)
			;
		if (!only[k] && cli_given(ps, o->id))
			return o;
	}
	return NULL;
}

/* Parse argv into c. -1 to go on, else the exit status (0 after --help). */
static int parse(struct sim_cli *c, const struct cli_cmd *cmd, int argc, char **argv)
{
	struct cli_parser ps;
	int id;

	cli_parser_init(&ps, cmd, argc, argv);
	while ((id = cli_next(&ps)) > 0) {
		switch (id) {
		case O_SECONDS:
			c->seconds = ps.d;
			snprintf(c->dur, sizeof(c->dur), "duration=%gs", ps.d);
			snprintf(c->warm, sizeof(c->warm), "warmup=%gs", ps.d / 5);
			c->sets[c->nsets++] = c->dur;
			c->sets[c->nsets++] = c->warm;
			break;
		case O_SET:
			if (c->nsets >= MAX_SETS)
				return cli_usage_error(cmd, "--set given more than %d times",
						       MAX_SETS);
			c->sets[c->nsets++] = ps.val;
			break;
		case O_QDISC: c->qdisc = ps.val; break;
		case O_SEED: c->seed = ps.val; c->seed_u = ps.u; break;
		case O_SWEEP: c->sweep = ps.val; break;
		case O_PLOT: c->plot = ps.val; break;
		case O_JSON: c->format = SIM_FMT_JSON; c->json = 1; break;
		case O_CSV: c->format = SIM_FMT_CSV; break;
		case O_JOBS: c->jobs = (int)ps.i; break;
		case O_COMPARE: c->compare = 1; break;
		case O_FLOWS: c->flows = 1; break;
		case O_SPEED: c->speed = 1; break;
		case O_FORCE: c->force = 1; break;
		case O_PROGRESS: c->progress = 1; break;
		case O_KEYS: c->keys = 1; break;
		case O_OPEN_LOOP: c->open_loop = 1; break;
		case O_SHARD: c->shard = ps.val; break;
		case O_MERGE: c->merge = 1; break;
		}
	}
	if (id < 0)
		return ps.status;
	if (c->open_loop) {
		static const int only[] = { O_SECONDS, O_SEED, O_JSON, O_OPEN_LOOP, 0 };
		const struct cli_opt *o = not_only(cmd, &ps, only);

		if (o)
			return cli_usage_error(cmd, "--open-loop takes only --seconds, "
					       "--seed and --json (not --%s)", o->name);
	}
	if (c->keys) {
		sim_scenario_write_keys(stdout);
		return 0;
	}
	if (c->merge) {
		static const int only[] = { O_MERGE, O_JSON, O_CSV, O_PLOT, O_FLOWS, 0 };
		const struct cli_opt *o = not_only(cmd, &ps, only);

		if (o)
			return cli_usage_error(cmd, "--merge takes only --json, --csv, --plot and "
					       "--flows (not --%s: the shards carry the sweep)",
					       o->name);
		if (!ps.npos)
			return cli_usage_error(cmd, "--merge needs the shard files");
		c->files = ps.pos;
		c->nfiles = ps.npos;
		return -1;
	}
	if (cmd == &cli_cmd_sim && !ps.npos)
		return cli_usage_error(cmd, "missing SCENARIO (choke sim --keys lists the keys)");
	if (ps.npos > 1)
		return cli_usage_error(cmd, "unexpected argument \"%s\"", ps.pos[1]);
	c->scenario = ps.npos ? ps.pos[0] : NULL;
	if (c->shard) {
		char e[200];

		if (sim_shard_parse(c->shard, &c->shard_k, &c->shard_n, e, sizeof(e)))
			return cli_usage_error(cmd, "%s", e);
		if (!c->sweep)
			return cli_usage_error(cmd, "--shard splits a sweep: give --sweep too");
		if (c->plot || c->format || c->flows || c->speed)
			return cli_usage_error(cmd, "--shard writes a partial result for --merge; "
					       "give --json, --csv, --plot, --flows to the merge");
		if (isatty(STDOUT_FILENO))
			return cli_usage_error(cmd, "--shard writes binary data to standard "
					       "output: redirect it to a file");
	}
	if (c->plot && !c->sweep)
		return cli_usage_error(cmd, "--plot draws a sweep: give --sweep too");
	if (c->sweep && c->compare)
		return cli_usage_error(cmd, "--sweep already compares the disciplines; "
				       "drop --compare");
	return -1;
}

/* Progress on standard error: on a terminal one line redrawn in place after
 * half a second and erased at the end; otherwise (--progress) a line at
 * the start, every 2 s and at the end. */
static void show_progress(void *ctx, const struct sim_progress *p)
{
	struct sim_cli *o = ctx;
	char line[160];

	if (o->tty ? (!p->final && p->elapsed_s < 0.5) :
		     (!p->final && o->shown && p->elapsed_s - o->last < 2))
		return;
	o->last = p->elapsed_s;
	if (o->tty && p->final) {
		if (o->shown)
			fputs("\r\033[K", stderr);
		return;
	}
	sim_progress_format(line, sizeof(line), p);
	fprintf(stderr, o->tty ? "\rchoke: %s: %s\033[K" : "choke: %s: %s\n", o->cmd, line);
	o->shown = 1;
}

/* The plot of a merge: checked as a sweep's, the shard files and the
 * scenario among the inputs it must not overwrite. */
static int merge_plot_prepare(const struct sim_cli *c, struct sim_plot *plot, const char *input,
			      char *err, size_t errlen)
{
	const char **inputs = calloc((size_t)c->nfiles + 1, sizeof(*inputs));
	int i, r;

	if (!inputs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < c->nfiles; i++)
		inputs[i] = c->files[i];
	inputs[c->nfiles] = input;
	r = sim_plot_prepare(plot, c->plot, inputs, c->nfiles + 1, err, errlen);
	free(inputs);
	return r;
}

/* The calls: the runs planned, the plot checked, the runs, report, plot. */
static int run(struct sim_cli *c)
{
	struct sim_plan plan = { NULL, c->scenario, c->sets, c->nsets, c->seed, c->qdisc,
				 c->compare, c->sweep };
	struct sim_runner_opts ro = { .jobs = c->jobs, .event_budget = c->force ? 0 : SIM_EVENT_BUDGET,
				      .shard = c->shard_k, .nshards = c->shard_n };
	struct sim_write_opts wo = { c->format, c->flows, c->speed };
	struct sim_batch b;
	struct sim_plot plot;
	char err[ERRLEN];
	const char *inputs[1] = { b.input };
	int r = -1;

	c->tty = isatty(STDERR_FILENO);
	if (c->tty || c->progress) {
		ro.progress = show_progress;
		ro.progress_ctx = c;
	}
	if (c->merge) {
		if (sim_shard_merge(&b, (const char *const *)c->files, c->nfiles, err, sizeof(err)))
			goto out;
		if (c->plot && merge_plot_prepare(c, &plot, b.input, err, sizeof(err)))
			goto out;
		r = 0;
	} else {
		if (sim_batch_plan(&b, &plan, err, sizeof(err)) ||
		    (c->plot && sim_plot_prepare(&plot, c->plot, inputs, 1, err, sizeof(err))))
			goto out;
		cli_print_warnings(&b.runs[b.n - 1].setup.qp); /* the discipline's, once */
		r = sim_batch_run(&b, &ro, err, sizeof(err));
		if (r == SIM_E_BUDGET)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 "; --force runs it anyway");
		if (!r && c->shard) {
			r = sim_shard_write(stdout, &b, &plan, c->shard_k, c->shard_n, err,
					    sizeof(err));
			goto out;
		}
	}
	/* with the image on standard output, the report goes to standard error */
	if (!r && sim_batch_write(c->plot && !strcmp(c->plot, "-") ? stderr : stdout, &b, &wo))
		r = -1, snprintf(err, sizeof(err), "writing the output failed");
	if (!r && c->plot)
		r = sim_plot_write(&plot, &b, err, sizeof(err));
	if (!r && c->speed)
		sim_report_speed(stderr, b.runs, b.n);
out:
	if (r)
		fprintf(stderr, "choke: %s: %s\n", c->cmd, err);
	sim_batch_free(&b);
	return r ? 1 : 0;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_cli o = { .cmd = "sim", .jobs = 1 };
	int r = parse(&o, &cli_cmd_sim, argc, argv);

	return r >= 0 ? r : run(&o);
}

/* The paper's comparison at 2c on the built-in scenario; --open-loop: the
 * earlier open-loop workload. */
int cmd_demo(int argc, char **argv)
{
	struct sim_cli o = { .cmd = "demo", .jobs = 1, .compare = 1 };
	int r = parse(&o, &cli_cmd_demo, argc, argv);

	if (r >= 0)
		return r;
	if (o.open_loop)
		return cmd_demo_open_loop(o.seconds ? o.seconds : 30, o.seed ? o.seed_u : 1,
					  o.json);
	return run(&o);
}
