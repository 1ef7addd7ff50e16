/*
 * choke sim and choke demo: their options (one table, one parser) and calls
 * into the simulator's runner (src/sim/runner.h), reports and plot. The
 * open-loop demo (`choke demo --open-loop`) is cmd_demo_open_loop.c.
 */
#include <stddef.h>
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

struct sim_cli {
	const char *cmd; /* "sim" or "demo" */
	const char *scenario, *qdisc, *seed, *sweep, *plot, *sets[MAX_SETS];
	int nsets, compare, flows, speed, force, progress, jobs, format;
	int tty, shown; /* progress: stderr is a terminal; a line is showing */
	double last;    /* when the last line was printed */
	char dur[64], warm[64];
};

enum { SIM = 1, DEMO = 2 };                  /* where an option is */
enum { FLAG, TEXT, SET, FORMAT, JOBS, SECONDS, KEYS, HELP }; /* what it does */
#define AT(field) offsetof(struct sim_cli, field)

/* The options of both commands: name, value, where, what, help. */
static const struct sim_opt {
	const char *name, *arg;
	unsigned in;
	int does;
	size_t at; /* FLAG: the int set to 1; TEXT: the string set; FORMAT: the format */
	const char *help;
} opts[] = {
	{ "--seconds", "N", DEMO, SECONDS, 0, "simulated time, 2 to 3600 (the first fifth not measured)" },
	{ "--set", "KEY=VALUE", SIM | DEMO, SET, 0, "override a scenario key (choke sim --keys)" },
	{ "--qdisc", "Q", SIM, TEXT, AT(qdisc), "fifo|red|choke or 'choke limit 300 min 25 max 50'" },
	{ "--seed", "N", SIM | DEMO, TEXT, AT(seed), "0 to 18446744073709551615 (same seed, same output)" },
	{ "--compare", NULL, SIM, FLAG, AT(compare), "FIFO, RED and CHOKe on the same scenario" },
	{ "--sweep", "SPEC", SIM, TEXT, AT(sweep), "KEY=A..B:N[:log] or KEY=V1,V2,...: each point under\n"
	  "                      FIFO, RED and CHOKe (only Q with --qdisc Q)" },
	{ "--plot", "FILE", SIM, TEXT, AT(plot), "draw a sweep: FILE.png, .svg or .pdf, and FILE.gp,\n"
	  "                      the gnuplot script (-: a PNG on standard output)" },
	{ "--json", NULL, SIM | DEMO, FORMAT, SIM_FMT_JSON, "the report as JSON" },
	{ "--csv", NULL, SIM | DEMO, FORMAT, SIM_FMT_CSV, "the report as CSV" },
	{ "--flows", NULL, SIM, FLAG, AT(flows), "list every flow, even when there are many" },
	{ "--jobs", "N", SIM | DEMO, JOBS, 0, "N simulations at a time, 1 to 64 (same output)" },
	{ "--speed", NULL, SIM | DEMO, FLAG, AT(speed), "events and packets per second on standard error" },
	{ "--force", NULL, SIM | DEMO, FLAG, AT(force), "run even what is estimated above 1e9 events" },
	{ "--progress", NULL, SIM | DEMO, FLAG, AT(progress), "progress on standard error (on a "
	  "terminal: always)" },
	{ "--keys", NULL, SIM, KEYS, 0, "the scenario keys and their defaults" },
	{ "--help", NULL, SIM | DEMO, HELP, 0, "this (also -h)" },
	{ "-h", NULL, SIM | DEMO, HELP, 0, NULL },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static void usage(FILE *f, unsigned mode)
{
	size_t k;

	if (mode == DEMO)
		fprintf(f, "usage: choke demo [OPTIONS]   (the paper's experiment: FIFO, RED, CHOKe)\n"
			"       choke demo --open-loop [--seconds N] [--seed N] [--json]\n");
	else
		fprintf(f, "usage: choke sim SCENARIO [OPTIONS]\n       choke sim --keys\n"
			"  SCENARIO: a file of key = value lines, a path (with a /) or a name\n"
			"  looked up in $CHOKE_SCENARIO_PATH, ./scenarios,\n  %s and the current "
			"directory\n  (paper-single-link is also built in)\n", sim_scenario_dir);
	for (k = 0; k < NOPTS; k++)
		if ((opts[k].in & mode) && opts[k].help)
			fprintf(f, "  %s%s%-*s %s\n", opts[k].name, opts[k].arg ? " " : "",
				(int)(19 - strlen(opts[k].name) - !!opts[k].arg),
				opts[k].arg ? opts[k].arg : "", opts[k].help);
}

/* Option o with its value v. 0, 1 (done: exit 0), or -1 (error). */
static int set_opt(struct sim_cli *c, const struct sim_opt *o, const char *v)
{
	char *end;
	double s;

	switch (o->does) {
	case FLAG: *(int *)((char *)c + o->at) = 1; break;
	case TEXT: *(const char **)((char *)c + o->at) = v; break;
	case KEYS: sim_scenario_write_keys(stdout); return 1;
	case HELP: usage(stdout, c->cmd[0] == 'd' ? DEMO : SIM); return 1;
	case SET:
		if (c->nsets >= MAX_SETS)
			return fprintf(stderr, "choke: %s: too many --set\n", c->cmd), -1;
		c->sets[c->nsets++] = v;
		break;
	case FORMAT:
		if (c->format && c->format != (int)o->at)
			return fprintf(stderr, "choke: %s: --json or --csv, not both\n", c->cmd), -1;
		c->format = (int)o->at;
		break;
	case JOBS:
		c->jobs = (int)strtol(v, &end, 10);
		if (end == v || *end || c->jobs < 1 || c->jobs > SIM_MAX_JOBS)
			return fprintf(stderr, "choke: %s: --jobs needs a number from 1 to %d, not "
				       "\"%s\"\n", c->cmd, SIM_MAX_JOBS, v), -1;
		break;
	case SECONDS:
		s = strtod(v, &end);
		if (end == v || *end || !(s >= 2 && s <= 3600))
			return fprintf(stderr, "choke: %s: --seconds needs a number in [2, 3600], "
				       "not \"%s\"\n", c->cmd, v), -1;
		snprintf(c->dur, sizeof(c->dur), "duration=%gs", s);
		snprintf(c->warm, sizeof(c->warm), "warmup=%gs", s / 5);
		if (set_opt(c, &opts[1], c->dur) || set_opt(c, &opts[1], c->warm))
			return -1;
		break;
	}
	return 0;
}

/* Parse argv for mode (SIM or DEMO). 0, 1 (done: exit 0), -1 (error). */
static int parse(struct sim_cli *c, unsigned mode, int argc, char **argv)
{
	const struct sim_opt *o;
	int i, r;

	for (i = 1; i < argc; i++) {
		for (o = opts; o < opts + NOPTS && (!(o->in & mode) || strcmp(argv[i], o->name)); o++)
			;
		if (o == opts + NOPTS && mode == SIM && !c->scenario && argv[i][0] != '-') {
			c->scenario = argv[i];
			continue;
		}
		if (o == opts + NOPTS) {
			fprintf(stderr, c->scenario && argv[i][0] != '-' ?
				"choke: %s: one scenario at a time (not also \"%s\")\n" :
				argv[i][0] == '-' ? "choke: %s: unknown option %s\n" :
				"choke: %s: unknown argument %s\n", c->cmd, argv[i]);
			usage(stderr, mode);
			return -1;
		}
		if (o->arg && i + 1 >= argc)
			return fprintf(stderr, "choke: %s: %s needs a value\n", c->cmd, o->name), -1;
		r = set_opt(c, o, o->arg ? argv[++i] : NULL);
		if (r)
			return r;
	}
	if (mode == SIM && !c->scenario)
		return fprintf(stderr, "choke: sim: no scenario given\n"), usage(stderr, SIM), -1;
	if (c->plot && !c->sweep)
		return fprintf(stderr, "choke: %s: --plot draws a sweep: give --sweep too\n", c->cmd), -1;
	if (c->sweep && c->compare)
		return fprintf(stderr, "choke: %s: --sweep already compares the disciplines; drop "
			       "--compare\n", c->cmd), -1;
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

/* The calls: the runs planned, the plot checked, the runs, report, plot. */
static int run(struct sim_cli *c)
{
	struct sim_plan plan = { NULL, c->scenario, c->sets, c->nsets, c->seed, c->qdisc,
				 c->compare, c->sweep };
	struct sim_runner_opts ro = { .jobs = c->jobs, .event_budget = c->force ? 0 : SIM_EVENT_BUDGET };
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
	if (sim_batch_plan(&b, &plan, err, sizeof(err)) ||
	    (c->plot && sim_plot_prepare(&plot, c->plot, inputs, 1, err, sizeof(err))))
		goto out;
	cli_print_warnings(&b.runs[b.n - 1].setup.qp); /* the discipline's, once */
	r = sim_batch_run(&b, &ro, err, sizeof(err));
	if (r == SIM_E_BUDGET)
		snprintf(err + strlen(err), sizeof(err) - strlen(err), "; --force runs it anyway");
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
