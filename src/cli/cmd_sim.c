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
#include "cli.h"

#define ERRLEN 2048
#define MAX_SETS 256

enum { O_SET, O_QDISC, O_SEED, O_COMPARE, O_SWEEP, O_PLOT, O_CSV, O_JSON, O_JOBS, O_FLOWS,
       O_SPEED, O_FORCE, O_PROGRESS, O_KEYS, O_SECONDS, O_HELP };
enum { SIM = 1, DEMO = 2 };

static const struct sim_opt {
	const char *name;
	int id, arg;
	unsigned in; /* SIM, DEMO */
} opts[] = {
	{ "--set", O_SET, 1, SIM | DEMO },    { "--qdisc", O_QDISC, 1, SIM },
	{ "--seed", O_SEED, 1, SIM | DEMO },  { "--compare", O_COMPARE, 0, SIM },
	{ "--sweep", O_SWEEP, 1, SIM },       { "--plot", O_PLOT, 1, SIM },
	{ "--csv", O_CSV, 0, SIM | DEMO },    { "--json", O_JSON, 0, SIM | DEMO },
	{ "--jobs", O_JOBS, 1, SIM | DEMO },  { "--flows", O_FLOWS, 0, SIM },
	{ "--speed", O_SPEED, 0, SIM | DEMO }, { "--force", O_FORCE, 0, SIM | DEMO },
	{ "--progress", O_PROGRESS, 0, SIM | DEMO }, { "--keys", O_KEYS, 0, SIM },
	{ "--seconds", O_SECONDS, 1, DEMO },  { "--help", O_HELP, 0, SIM | DEMO },
	{ "-h", O_HELP, 0, SIM | DEMO },
};

struct sim_cli {
	const char *cmd; /* "sim" or "demo" */
	const char *scenario, *qdisc, *seed, *sweep, *plot;
	const char *sets[MAX_SETS];
	int nsets, compare, flows, speed, force, progress, jobs, format;
	int tty, shown; /* progress: stderr is a terminal; a line is showing */
	double last;    /* when the last line was printed */
	char dur[64], warm[64];
};

static void usage(FILE *f, unsigned mode)
{
	if (mode == DEMO) {
		fprintf(f, "usage: choke demo [--seconds N] [--seed N] [--set KEY=VALUE]... "
			"[--json | --csv] [--jobs N] [--speed] [--force] [--progress]\n"
			"       choke demo --open-loop [--seconds N] [--seed N] [--json]\n");
		return;
	}
	fprintf(f,
		"usage: choke sim SCENARIO [--set KEY=VALUE]... [--qdisc Q] [--seed N]\n"
		"                 [--compare | --sweep KEY=A..B:N[:log] | --sweep KEY=V1,V2,...]\n"
		"                 [--csv | --json] [--plot FILE.png|.svg|.pdf|-] [--jobs N] [--flows]\n"
		"                 [--speed] [--force] [--progress]\n"
		"       choke sim --keys\n"
		"  SCENARIO: a scenario file (key = value lines): a path (with a /), or a\n"
		"  name looked up in $CHOKE_SCENARIO_PATH, ./scenarios, %s,\n"
		"  then the current directory (paper-single-link is also built in)\n"
		"  --qdisc fifo|red|choke, or 'choke limit 300 min 25 max 50' (words too)\n"
		"  --seed N: 0 to 18446744073709551615 (the same seed, the same output)\n"
		"  --compare: FIFO, RED and CHOKe on the same scenario\n"
		"  --sweep: each point under FIFO, RED and CHOKe (only Q with --qdisc Q)\n"
		"  --plot: the sweep's UDP link share with gnuplot (and the fluid model);\n"
		"    the format from the name, the gnuplot script beside it (FILE.gp)\n"
		"  --jobs N: run N simulations at a time (output is the same)\n"
		"  --speed: events and bottleneck packets per second on standard error\n"
		"  --force: run even a simulation estimated above 1e9 events (minutes)\n"
		"  --progress: progress and time left on standard error (always on a terminal)\n",
		sim_scenario_dir);
}

static void print_keys(void)
{
	unsigned i;

	for (i = 0; i < sim_scenario_nkeys; i++)
		printf("%-22s %-28s %s\n", sim_scenario_keys[i].name,
		       sim_scenario_keys[i].def[0] ? sim_scenario_keys[i].def : "\"\"",
		       sim_scenario_keys[i].help);
}

/* One option with its value v. 0, 1 (done: exit 0), or -1 (error). */
static int set_opt(struct sim_cli *o, int id, const char *v)
{
	char *end;
	double s;

	switch (id) {
	case O_SET:
		if (o->nsets >= MAX_SETS)
			return fprintf(stderr, "choke: %s: too many --set\n", o->cmd), -1;
		o->sets[o->nsets++] = v;
		break;
	case O_QDISC: o->qdisc = v; break;
	case O_SEED: o->seed = v; break;
	case O_COMPARE: o->compare = 1; break;
	case O_SWEEP: o->sweep = v; break;
	case O_PLOT: o->plot = v; break;
	case O_FLOWS: o->flows = 1; break;
	case O_SPEED: o->speed = 1; break;
	case O_FORCE: o->force = 1; break;
	case O_PROGRESS: o->progress = 1; break;
	case O_KEYS: print_keys(); return 1;
	case O_HELP: usage(stdout, o->cmd[0] == 'd' ? DEMO : SIM); return 1;
	case O_CSV:
	case O_JSON:
		if (o->format && o->format != (id == O_CSV ? SIM_FMT_CSV : SIM_FMT_JSON))
			return fprintf(stderr, "choke: %s: --json or --csv, not both\n", o->cmd), -1;
		o->format = id == O_CSV ? SIM_FMT_CSV : SIM_FMT_JSON;
		break;
	case O_JOBS:
		o->jobs = (int)strtol(v, &end, 10);
		if (end == v || *end || o->jobs < 1 || o->jobs > SIM_MAX_JOBS)
			return fprintf(stderr, "choke: %s: --jobs needs a number from 1 to %d, not "
				       "\"%s\"\n", o->cmd, SIM_MAX_JOBS, v), -1;
		break;
	case O_SECONDS:
		s = strtod(v, &end);
		if (end == v || *end || !(s >= 2 && s <= 3600))
			return fprintf(stderr, "choke: %s: --seconds needs a number in [2, 3600], "
				       "not \"%s\"\n", o->cmd, v), -1;
		snprintf(o->dur, sizeof(o->dur), "duration=%gs", s);
		snprintf(o->warm, sizeof(o->warm), "warmup=%gs", s / 5);
		if (set_opt(o, O_SET, o->dur) || set_opt(o, O_SET, o->warm))
			return -1;
		break;
	}
	return 0;
}

/* Parse argv for mode (SIM or DEMO). 0, 1 (done: exit 0), -1 (error). */
static int parse(struct sim_cli *o, unsigned mode, int argc, char **argv)
{
	int i, r;
	size_t k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if ((opts[k].in & mode) && !strcmp(a, opts[k].name))
				break;
		if (k == sizeof(opts) / sizeof(opts[0])) {
			if (mode == SIM && (a[0] != '-' || !a[1]) && !o->scenario) {
				o->scenario = a;
				continue;
			}
			if (mode == SIM && (a[0] != '-' || !a[1]))
				fprintf(stderr, "choke: sim: one scenario at a time (\"%s\" and \"%s\")\n",
					o->scenario, a);
			else
				fprintf(stderr, "choke: %s: unknown %s %s\n", o->cmd,
					mode == SIM ? "option" : "argument", a);
			if (a[0] == '-' && a[1])
				usage(stderr, mode);
			return -1;
		}
		if (opts[k].arg && i + 1 >= argc) {
			fprintf(stderr, "choke: %s: %s needs a value\n", o->cmd, a);
			return -1;
		}
		r = set_opt(o, opts[k].id, opts[k].arg ? argv[++i] : NULL);
		if (r)
			return r;
	}
	if (mode == SIM && !o->scenario) {
		fprintf(stderr, "choke: sim: no scenario given\n");
		usage(stderr, SIM);
		return -1;
	}
	return 0;
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

/* The calls: scenario, overrides, runs, report, plot. */
static int run(struct sim_cli *o)
{
	struct sim_runner_opts ro = { .jobs = o->jobs, .event_budget = o->force ? 0 : SIM_EVENT_BUDGET };
	struct sim_write_opts wo = { o->format, o->flows, o->speed };
	struct sim_plan plan = { NULL, o->qdisc, o->compare, o->sweep };
	struct sim_scenario sc;
	struct sim_batch b;
	struct sim_plot plot;
	char err[ERRLEN], path[4200] = "";
	const char *inputs[1] = { path };
	int i, rc = 1;

	sim_batch_init(&b);
	if (o->scenario ? sim_scenario_open(&sc, o->scenario, path, sizeof(path), err, sizeof(err))
			: sim_scenario_builtin(&sc, err, sizeof(err))) {
		fprintf(stderr, "choke: %s: %s\n", o->cmd, err);
		return 1;
	}
	for (i = 0; i < o->nsets; i++)
		if (sim_scenario_set_kv(&sc, o->sets[i], "--set", err, sizeof(err)))
			goto fail;
	if ((o->seed && sim_scenario_set(&sc, "seed", o->seed, "--seed", err, sizeof(err))) ||
	    (o->qdisc && sim_scenario_set(&sc, "qdisc", o->qdisc, "--qdisc", err, sizeof(err))))
		goto fail;
	o->tty = isatty(STDERR_FILENO);
	if (o->tty || o->progress) {
		ro.progress = show_progress;
		ro.progress_ctx = o;
	}
	if (o->plot && !o->sweep) {
		snprintf(err, sizeof(err), "--plot draws a sweep: give --sweep too");
		goto fail;
	}
	if (o->sweep && o->compare) {
		snprintf(err, sizeof(err), "--sweep already compares the disciplines; drop --compare");
		goto fail;
	}
	plan.scenario = &sc;
	if (sim_batch_plan(&b, &plan, err, sizeof(err)) ||
	    (o->plot && sim_plot_prepare(&plot, o->plot, inputs, 1, err, sizeof(err))))
		goto fail;
	cli_print_warnings(&b.runs[b.n - 1].setup.qp); /* the discipline's, once */
	i = sim_batch_run(&b, &ro, err, sizeof(err));
	if (i == SIM_E_BUDGET)
		snprintf(err + strlen(err), sizeof(err) - strlen(err), "; --force runs it anyway");
	if (i)
		goto fail;
	/* with the image on standard output, the report goes to standard error */
	if (sim_batch_write(o->plot && !strcmp(o->plot, "-") ? stderr : stdout, &b, &wo)) {
		snprintf(err, sizeof(err), "writing the output failed");
		goto fail;
	}
	if (o->plot && sim_plot_write(&plot, &b, err, sizeof(err)))
		goto fail;
	if (o->speed)
		sim_report_speed(stderr, b.runs, b.n);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "choke: %s: %s\n", o->cmd, err);
out:
	sim_batch_free(&b);
	sim_scenario_free(&sc);
	return rc;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_cli o = { .cmd = "sim", .jobs = 1 };
	int r = parse(&o, SIM, argc, argv);

	return r ? (r > 0 ? 0 : 1) : run(&o);
}

/* The paper's comparison at 2c on the built-in scenario; --open-loop: the
 * earlier open-loop workload, with its own options. */
int cmd_demo(int argc, char **argv)
{
	struct sim_cli o = { .cmd = "demo", .jobs = 1, .compare = 1 };
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--open-loop")) {
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			return cmd_demo_open_loop(argc - 1, argv);
		}
	}
	r = parse(&o, DEMO, argc, argv);
	return r ? (r > 0 ? 0 : 1) : run(&o);
}
