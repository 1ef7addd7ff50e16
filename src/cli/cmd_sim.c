/*
 * choke sim: the packet-level simulator (src/sim/) from the command line:
 * one run, a comparison of FIFO, RED and CHOKe, or a sweep of any key,
 * with text, JSON or CSV output and gnuplot plots. Also `choke demo`,
 * which is the comparison on the paper's single-link scenario.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/report.h"
#include "../sim/scenario.h"
#include "cli.h"

#define ERRLEN 512
#define MAX_SETS 256
#define MAX_POINTS 1000

static void sim_usage(FILE *f)
{
	fprintf(f,
		"usage: choke sim SCENARIO [--set KEY=VALUE]... [--qdisc Q] [--seed N]\n"
		"                 [--compare | --sweep KEY=A..B:N[:log] | --sweep KEY=V1,V2,...]\n"
		"                 [--csv | --json] [--plot FILE.png] [--jobs N] [--flows] [--speed]\n"
		"       choke sim --keys\n"
		"  SCENARIO: a scenario file (key = value lines), or the name of one in\n"
		"  scenarios/ (paper-single-link is also built in).\n"
		"  --qdisc fifo|red|choke, or 'choke limit 300 min 25 max 50' (words too)\n"
		"  --compare: FIFO, RED and CHOKe on the same scenario\n"
		"  --sweep: each point under FIFO, RED and CHOKe (only Q with --qdisc Q)\n"
		"  --plot: the sweep's UDP link share with gnuplot (and the fluid model)\n"
		"  --jobs N: run N simulations at a time (output is the same)\n"
		"  --speed: events and bottleneck packets per second on standard error\n");
}

/* ---- running (optionally in parallel, in child processes) ---- */

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int run_one(struct sim_run *r, char *err)
{
	return sim_run(&r->setup.cfg, &r->res, err, ERRLEN);
}

struct child {
	pid_t pid;
	int fd;
};

/* the child's answer: status, then the result and its flows or a message */
static void child_main(struct sim_run *r, int fd)
{
	char err[ERRLEN] = "";
	int st = run_one(r, err);

	write_all(fd, &st, sizeof(st));
	if (st) {
		write_all(fd, err, sizeof(err));
	} else {
		write_all(fd, &r->res, sizeof(r->res));
		write_all(fd, r->res.flows, r->res.nflows * sizeof(*r->res.flows));
	}
	close(fd);
	_exit(0);
}

static int child_collect(struct child *c, struct sim_run *r, char *err)
{
	int st = -1, ws;
	struct sim_flow_result *fl;

	if (read_all(c->fd, &st, sizeof(st))) {
		snprintf(err, ERRLEN, "a simulation process died");
		st = -1;
	} else if (st) {
		if (read_all(c->fd, err, ERRLEN))
			snprintf(err, ERRLEN, "a simulation process failed");
		err[ERRLEN - 1] = 0;
	} else if (read_all(c->fd, &r->res, sizeof(r->res))) {
		snprintf(err, ERRLEN, "a simulation process died");
		st = -1;
	} else {
		fl = calloc(r->res.nflows ? r->res.nflows : 1, sizeof(*fl));
		if (!fl || read_all(c->fd, fl, r->res.nflows * sizeof(*fl))) {
			free(fl);
			r->res.flows = NULL;
			snprintf(err, ERRLEN, "a simulation process died (or out of memory)");
			st = -1;
		} else {
			r->res.flows = fl;
		}
	}
	close(c->fd);
	while (waitpid(c->pid, &ws, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Run n simulations, jobs at a time. 0, or -1 (message printed). */
static int run_all(struct sim_run *runs, int n, int jobs)
{
	char err[ERRLEN];
	int i, rc = 0;

	if (jobs <= 1 || n == 1) {
		for (i = 0; i < n; i++) {
			if (run_one(&runs[i], err)) {
				fprintf(stderr, "choke: sim: %s\n", err);
				return -1;
			}
		}
		return 0;
	}
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < n; i += jobs) {
		struct child ch[64];
		int k, m = n - i < jobs ? n - i : jobs;

		for (k = 0; k < m; k++) {
			int p[2];

			if (pipe(p)) {
				fprintf(stderr, "choke: sim: pipe: %s\n", strerror(errno));
				return -1;
			}
			ch[k].pid = fork();
			if (ch[k].pid < 0) {
				fprintf(stderr, "choke: sim: fork: %s\n", strerror(errno));
				close(p[0]);
				close(p[1]);
				m = k;
				rc = -1;
				break;
			}
			if (ch[k].pid == 0) {
				close(p[0]);
				child_main(&runs[i + k], p[1]);
			}
			close(p[1]);
			ch[k].fd = p[0];
		}
		for (k = 0; k < m; k++) {
			if (child_collect(&ch[k], &runs[i + k], err) && !rc) {
				fprintf(stderr, "choke: sim: %s\n", err);
				rc = -1;
			}
		}
		if (rc)
			return -1;
	}
	return 0;
}

static void free_runs(struct sim_run *runs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sim_setup_free(&runs[i].setup);
		sim_result_free(&runs[i].res);
	}
	free(runs);
}

/* ---- sweeps ---- */

struct sweep {
	char key[64];
	int n;
	int logscale;
	char (*values)[64];
	double *x;
};

/* number prefix and suffix of a value */
static int split_value(const char *v, double *num, char *suffix, size_t len)
{
	char *end;

	errno = 0;
	*num = strtod(v, &end);
	if (end == v || errno == ERANGE || !isfinite(*num))
		return -1;
	snprintf(suffix, len, "%s", end);
	return 0;
}

static int parse_sweep(const char *spec, struct sweep *sw)
{
	const char *eq = strchr(spec, '='), *body, *dots;
	int ki, i;

	memset(sw, 0, sizeof(*sw));
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(sw->key)) {
		fprintf(stderr, "choke: sim: --sweep %s: expected KEY=A..B:N[:log] or "
			"KEY=V1,V2,...\n", spec);
		return -1;
	}
	memcpy(sw->key, spec, (size_t)(eq - spec));
	sw->key[eq - spec] = 0;
	ki = sim_scenario_key(sw->key);
	if (ki < 0) {
		fprintf(stderr, "choke: sim: --sweep: unknown key \"%s\" (choke sim --keys)\n",
			sw->key);
		return -1;
	}
	body = eq + 1;
	dots = strstr(body, "..");
	if (dots) {
		char a[64], b[128], sa[32], sb[32], *colon, *mode;
		double na, nb;
		long np;
		char *end;

		if ((size_t)(dots - body) >= sizeof(a) || strlen(dots + 2) >= sizeof(b))
			goto bad;
		memcpy(a, body, (size_t)(dots - body));
		a[dots - body] = 0;
		strcpy(b, dots + 2);
		colon = strchr(b, ':');
		if (!colon)
			goto bad;
		*colon = 0;
		mode = strchr(colon + 1, ':');
		if (mode)
			*mode++ = 0;
		np = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || np < 1 || np > MAX_POINTS)
			goto bad;
		if (mode && strcmp(mode, "log") && strcmp(mode, "lin"))
			goto bad;
		sw->logscale = mode && !strcmp(mode, "log");
		if (split_value(a, &na, sa, sizeof(sa)) || split_value(b, &nb, sb, sizeof(sb)))
			goto bad;
		if (!sa[0])
			strcpy(sa, sb);
		if (!sb[0])
			strcpy(sb, sa);
		if (strcmp(sa, sb)) {
			fprintf(stderr, "choke: sim: --sweep %s: both ends need the same unit "
				"(\"%s\" and \"%s\")\n", spec, sa, sb);
			return -1;
		}
		if (sw->logscale && !(na > 0 && nb > 0)) {
			fprintf(stderr, "choke: sim: --sweep %s: a log sweep needs ends above 0\n",
				spec);
			return -1;
		}
		sw->n = (int)np;
		sw->values = calloc((size_t)sw->n, sizeof(*sw->values));
		sw->x = calloc((size_t)sw->n, sizeof(*sw->x));
		if (!sw->values || !sw->x)
			return -1;
		for (i = 0; i < sw->n; i++) {
			double t = sw->n > 1 ? (double)i / (sw->n - 1) : 0, v;

			v = sw->logscale ? na * pow(nb / na, t) : na + (nb - na) * t;
			if (sim_scenario_keys[ki].type == SIM_KT_UINT)
				v = floor(v + 0.5);
			sw->x[i] = v;
			snprintf(sw->values[i], sizeof(sw->values[i]), "%.6g%s", v, sa);
		}
		return 0;
	}
	{
		const char *p = body;

		sw->n = 1;
		for (; *p; p++)
			sw->n += *p == ',';
		if (sw->n > MAX_POINTS)
			goto bad;
		sw->values = calloc((size_t)sw->n, sizeof(*sw->values));
		sw->x = calloc((size_t)sw->n, sizeof(*sw->x));
		if (!sw->values || !sw->x)
			return -1;
		p = body;
		for (i = 0; i < sw->n; i++) {
			const char *c = strchr(p, ',');
			size_t len = c ? (size_t)(c - p) : strlen(p);
			char suf[32];

			if (!len || len >= sizeof(sw->values[i]))
				goto bad;
			memcpy(sw->values[i], p, len);
			sw->values[i][len] = 0;
			if (split_value(sw->values[i], &sw->x[i], suf, sizeof(suf)))
				sw->x[i] = i;
			p = c ? c + 1 : p + len;
		}
		return 0;
	}
bad:
	fprintf(stderr, "choke: sim: --sweep %s: expected KEY=A..B:N[:log] (1 <= N <= %d) "
		"or KEY=V1,V2,...\n", spec, MAX_POINTS);
	return -1;
}

/* ---- plotting ---- */

static int plot_sweep(const char *png, const struct sweep *sw, const struct sim_run *r,
		      int nq)
{
	char dir[] = "/tmp/choke-plot-XXXXXX", path[4200], unit[32];
	FILE *f;
	int p, d, any_an = 0, st, ws;
	double num, scale = 0;
	pid_t pid;

	if (!mkdtemp(dir)) {
		fprintf(stderr, "choke: sim: --plot: %s\n", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/data", dir);
	f = fopen(path, "w");
	if (!f)
		goto io;
	for (p = 0; p < sw->n; p++) {
		fprintf(f, "%.9g", sw->x[p]);
		for (d = 0; d < nq; d++)
			fprintf(f, " %.6f", r[p * nq + d].res.share[SIM_UDP]);
		for (d = 0; d < nq; d++) {
			const struct sim_result *res = &r[p * nq + d].res;

			fprintf(f, " %.6f", res->qlen_mean > 0 ? res->qudp_mean / res->qlen_mean : 0);
		}
		fprintf(f, "\n");
		for (d = 0; d < nq; d++)
			if (sim_run_analytic(&r[p * nq + d]) >= 0 && r[p * nq + d].setup.udp_rate_c > 0)
				scale = sw->x[p] / r[p * nq + d].setup.udp_rate_c;
	}
	fclose(f);
	/* the fluid model, if the sweep moves the UDP rate of one flow */
	if (!strcmp(sw->key, "udp_rate") && scale > 0) {
		double lo = sw->x[0] < sw->x[sw->n - 1] ? sw->x[0] : sw->x[sw->n - 1];
		double hi = sw->x[0] < sw->x[sw->n - 1] ? sw->x[sw->n - 1] : sw->x[0];
		int i;

		snprintf(path, sizeof(path), "%s/fluid", dir);
		f = fopen(path, "w");
		if (!f)
			goto io;
		for (i = 0; i <= 400; i++) {
			double x = sw->logscale ? lo * pow(hi / lo, i / 400.0)
						: lo + (hi - lo) * i / 400.0;

			fprintf(f, "%.9g %.6f\n", x, sim_choke_fluid_share(x / scale));
		}
		fclose(f);
		any_an = 1;
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	f = fopen(path, "w");
	if (!f)
		goto io;
	split_value(sw->values[0], &num, unit, sizeof(unit));
	fprintf(f, "set terminal pngcairo size 900,600 font 'sans,11'\n");
	fprintf(f, "set output '%s'\n", png);
	fprintf(f, "set title \"%s: %u TCP + %u UDP, %s\" noenhanced\n", r[0].setup.name,
		r[0].setup.ntcp, r[0].setup.nudp, r[nq - 1].setup.qline);
	fprintf(f, "set xlabel \"%s%s%s%s\" noenhanced\n", sw->key, unit[0] ? " (" : "", unit,
		unit[0] ? ")" : "");
	fprintf(f, "set ylabel 'UDP share'\nset yrange [0:1.05]\nset grid\n");
	fprintf(f, "set key top left\n");
	if (sw->logscale)
		fprintf(f, "set logscale x\n");
	fprintf(f, "plot ");
	for (d = 0; d < nq; d++)
		fprintf(f, "%s'%s/data' using 1:%d with linespoints lw 2 pt %d title '%s, link'",
			d ? ", " : "", dir, 2 + d, 5 + 2 * d, r[d].setup.qdisc);
	for (d = 0; d < nq; d++)
		if (!strcmp(r[d].setup.qdisc, "choke"))
			fprintf(f, ", '%s/data' using 1:%d with linespoints dt 2 pt 6 lc rgb '#777777' "
				"title 'choke, queue'", dir, 2 + nq + d);
	if (any_an)
		fprintf(f, ", '%s/fluid' using 1:2 with lines lw 2 dt 3 lc rgb 'black' "
			"title 'CHOKe fluid model'", dir);
	fprintf(f, "\n");
	fclose(f);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		goto io;
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", path, (char *)NULL);
		fprintf(stderr, "choke: sim: --plot: cannot run gnuplot (%s); on Debian: "
			"apt-get install gnuplot-nox\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path)) {
		/* a left-over temporary directory is harmless */
	}
	if (st) {
		if (st != 127)
			fprintf(stderr, "choke: sim: --plot: gnuplot failed (status %d)\n", st);
		return -1;
	}
	return 0;
io:
	fprintf(stderr, "choke: sim: --plot: %s: %s\n", path, strerror(errno));
	return -1;
}

/* ---- the command ---- */

static int load_scenario(struct sim_scenario *sc, const char *arg)
{
	char err[ERRLEN], path[4200];
	struct stat stt;

	if (sim_scenario_init(sc)) {
		fprintf(stderr, "choke: sim: out of memory\n");
		return -1;
	}
	if (stat(arg, &stt) && !strchr(arg, '/')) {
		snprintf(path, sizeof(path), "scenarios/%s", arg);
		if (!stat(path, &stt))
			arg = path;
		else if (!strcmp(arg, "paper-single-link")) {
			if (sim_scenario_parse(sc, sim_paper_scenario, "(built-in paper-single-link)",
					       err, sizeof(err)))
				goto fail;
			return 0;
		}
	}
	if (!stat(arg, &stt) && S_ISDIR(stt.st_mode)) {
		fprintf(stderr, "choke: sim: %s: a directory, not a scenario file\n", arg);
		sim_scenario_free(sc);
		return -1;
	}
	if (sim_scenario_load(sc, arg, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "choke: sim: %s\n", err);
	sim_scenario_free(sc);
	return -1;
}

static void print_keys(void)
{
	unsigned i;

	for (i = 0; i < sim_scenario_nkeys; i++)
		printf("%-22s %-28s %s\n", sim_scenario_keys[i].name,
		       sim_scenario_keys[i].def[0] ? sim_scenario_keys[i].def : "\"\"",
		       sim_scenario_keys[i].help);
}

struct sim_opts {
	const char *scenario;
	const char *sets[MAX_SETS];
	int nsets;
	const char *qdisc;
	const char *seed;
	const char *sweep;
	const char *plot;
	int compare, json, csv, flows, speed, jobs;
	int builtin_paper; /* choke demo */
};

/* Build the runs' setups from the scenario and the options. */
static int build(const struct sim_scenario *base, const struct sim_opts *o,
		 const char *sweep_key, const char *value, const char *qdisc,
		 struct sim_run *r)
{
	struct sim_scenario sc;
	char err[ERRLEN];
	int rc = -1;

	if (sim_scenario_copy(&sc, base)) {
		fprintf(stderr, "choke: sim: out of memory\n");
		return -1;
	}
	if (sweep_key && sim_scenario_set(&sc, sweep_key, value, "--sweep", err, sizeof(err)))
		goto out;
	if (qdisc) {
		/* "choke" alone keeps the queue words; with words it replaces them */
		if (sim_scenario_set(&sc, "qdisc", qdisc, o->qdisc && !strcmp(qdisc, o->qdisc) ?
				     "--qdisc" : "--compare", err, sizeof(err)))
			goto out;
	}
	if (sim_scenario_resolve(&sc, &r->setup, err, sizeof(err)))
		goto out;
	if (value)
		snprintf(r->value, sizeof(r->value), "%s", value);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "choke: sim: %s\n", err);
	sim_scenario_free(&sc);
	return rc;
}

static int parse_jobs(const char *s, int *jobs)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 1 || v > 64) {
		fprintf(stderr, "choke: sim: --jobs needs a number from 1 to 64, not \"%s\"\n", s);
		return -1;
	}
	*jobs = (int)v;
	return 0;
}

static int sim_main(struct sim_opts *o)
{
	struct sim_scenario sc;
	struct sim_run *runs = NULL;
	struct sweep sw;
	char err[ERRLEN];
	const char *qs[3] = { "fifo", "red", "choke" };
	int nq = 3, i, p, n, rc = 1;

	memset(&sw, 0, sizeof(sw));
	if (o->builtin_paper) {
		if (sim_scenario_init(&sc) ||
		    sim_scenario_parse(&sc, sim_paper_scenario, "(built-in paper-single-link)",
				       err, sizeof(err))) {
			fprintf(stderr, "choke: demo: %s\n", err);
			return 1;
		}
	} else if (load_scenario(&sc, o->scenario)) {
		return 1;
	}
	for (i = 0; i < o->nsets; i++) {
		if (sim_scenario_set_kv(&sc, o->sets[i], "--set", err, sizeof(err))) {
			fprintf(stderr, "choke: sim: %s\n", err);
			goto out;
		}
	}
	if (o->seed && sim_scenario_set(&sc, "seed", o->seed, "--seed", err, sizeof(err))) {
		fprintf(stderr, "choke: sim: %s\n", err);
		goto out;
	}
	if (o->qdisc && sim_scenario_set(&sc, "qdisc", o->qdisc, "--qdisc", err, sizeof(err))) {
		fprintf(stderr, "choke: sim: %s\n", err);
		goto out;
	}
	if (o->plot && !o->sweep) {
		fprintf(stderr, "choke: sim: --plot draws a sweep: give --sweep too\n");
		goto out;
	}
	if (o->sweep) {
		if (o->compare) {
			fprintf(stderr, "choke: sim: --sweep already compares the disciplines; "
				"drop --compare\n");
			goto out;
		}
		if (parse_sweep(o->sweep, &sw))
			goto out;
		if (o->qdisc) {
			nq = 1;
			qs[0] = NULL; /* as set */
		}
		n = sw.n * nq;
		runs = calloc((size_t)n, sizeof(*runs));
		if (!runs)
			goto oom;
		for (p = 0; p < sw.n; p++) {
			for (i = 0; i < nq; i++) {
				struct sim_run *r = &runs[p * nq + i];

				if (build(&sc, o, sw.key, sw.values[p], qs[i], r))
					goto out_runs;
				r->x = sw.x[p];
			}
		}
	} else if (o->compare) {
		n = 3;
		runs = calloc(3, sizeof(*runs));
		if (!runs)
			goto oom;
		for (i = 0; i < 3; i++)
			if (build(&sc, o, NULL, NULL, qs[i], &runs[i]))
				goto out_runs;
	} else {
		n = 1;
		runs = calloc(1, sizeof(*runs));
		if (!runs)
			goto oom;
		if (build(&sc, o, NULL, NULL, NULL, &runs[0]))
			goto out_runs;
	}
	/* the discipline's warnings, once */
	for (i = 0; i < runs[n - 1].setup.qp.nwarnings; i++)
		fprintf(stderr, "choke: warning: %s\n", runs[n - 1].setup.qp.warnings[i]);
	if (run_all(runs, n, o->jobs))
		goto out_runs;

	if (o->sweep) {
		if (o->json)
			sim_sweep_json(stdout, sw.key, runs, sw.n, nq, o->speed);
		else if (o->csv)
			sim_summary_csv(stdout, sw.key, runs, n);
		else
			sim_sweep_text(stdout, sw.key, runs, sw.n, nq);
		if (o->plot && plot_sweep(o->plot, &sw, runs, nq))
			goto out_runs;
	} else if (o->compare) {
		if (o->json)
			sim_compare_json(stdout, runs, n, o->speed);
		else if (o->csv)
			sim_summary_csv(stdout, NULL, runs, n);
		else
			sim_compare_text(stdout, runs, n);
	} else {
		if (o->json)
			sim_report_json(stdout, &runs[0], o->speed);
		else if (o->csv)
			sim_report_csv(stdout, &runs[0]);
		else
			sim_report_text(stdout, &runs[0], o->flows);
	}
	if (o->speed)
		sim_report_speed(stderr, runs, n);
	rc = fflush(stdout) ? 1 : 0;
	if (rc)
		fprintf(stderr, "choke: sim: writing the output failed\n");
out_runs:
	free_runs(runs, n);
	runs = NULL;
out:
	free(sw.values);
	free(sw.x);
	sim_scenario_free(&sc);
	return rc;
oom:
	fprintf(stderr, "choke: sim: out of memory\n");
	goto out;
}

/* Options shared by `choke sim` and `choke demo`; returns 1 if argv[*i]
 * was one (consuming its value), 0 if not, -1 on error. */
static int common_opt(struct sim_opts *o, int argc, char **argv, int *i, const char *cmd)
{
	const char *a = argv[*i];
	int needs = !strcmp(a, "--set") || !strcmp(a, "--seed") || !strcmp(a, "--jobs");

	if (needs && *i + 1 >= argc) {
		fprintf(stderr, "choke: %s: %s needs a value\n", cmd, a);
		return -1;
	}
	if (!strcmp(a, "--json")) {
		o->json = 1;
	} else if (!strcmp(a, "--csv")) {
		o->csv = 1;
	} else if (!strcmp(a, "--speed")) {
		o->speed = 1;
	} else if (!strcmp(a, "--set")) {
		if (o->nsets >= MAX_SETS) {
			fprintf(stderr, "choke: %s: too many --set\n", cmd);
			return -1;
		}
		o->sets[o->nsets++] = argv[++*i];
	} else if (!strcmp(a, "--seed")) {
		o->seed = argv[++*i];
	} else if (!strcmp(a, "--jobs")) {
		if (parse_jobs(argv[++*i], &o->jobs))
			return -1;
	} else {
		return 0;
	}
	return 1;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o;
	int i, r;

	memset(&o, 0, sizeof(o));
	o.jobs = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		r = common_opt(&o, argc, argv, &i, "sim");
		if (r < 0)
			return 1;
		if (r)
			continue;
		if ((!strcmp(a, "--qdisc") || !strcmp(a, "--sweep") || !strcmp(a, "--plot")) &&
		    i + 1 >= argc) {
			fprintf(stderr, "choke: sim: %s needs a value\n", a);
			return 1;
		}
		if (!strcmp(a, "--qdisc")) {
			o.qdisc = argv[++i];
		} else if (!strcmp(a, "--sweep")) {
			o.sweep = argv[++i];
		} else if (!strcmp(a, "--plot")) {
			o.plot = argv[++i];
		} else if (!strcmp(a, "--compare")) {
			o.compare = 1;
		} else if (!strcmp(a, "--flows")) {
			o.flows = 1;
		} else if (!strcmp(a, "--keys")) {
			print_keys();
			return 0;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			sim_usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "choke: sim: unknown option %s\n", a);
			sim_usage(stderr);
			return 1;
		} else if (o.scenario) {
			fprintf(stderr, "choke: sim: one scenario at a time (\"%s\" and \"%s\")\n",
				o.scenario, a);
			return 1;
		} else {
			o.scenario = a;
		}
	}
	if (!o.scenario) {
		fprintf(stderr, "choke: sim: no scenario given\n");
		sim_usage(stderr);
		return 1;
	}
	if (o.json && o.csv) {
		fprintf(stderr, "choke: sim: --json or --csv, not both\n");
		return 1;
	}
	return sim_main(&o);
}

/*
 * choke demo: the paper's single-link scenario at a UDP rate of twice the
 * capacity under FIFO, RED and CHOKe. `--open-loop` runs the earlier
 * open-loop demo (cmd_demo.c) with its own options.
 */
int cmd_sim_demo(int argc, char **argv)
{
	struct sim_opts o;
	char dur[64], warm[64];
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--open-loop")) {
			char **av = malloc((size_t)argc * sizeof(*av));
			int j, n = 0;

			if (!av)
				return 1;
			for (j = 0; j < argc; j++)
				if (j != i)
					av[n++] = argv[j];
			av[n] = NULL;
			r = cmd_demo(n, av);
			free(av);
			return r;
		}
	}
	memset(&o, 0, sizeof(o));
	o.jobs = 1;
	o.compare = 1;
	o.builtin_paper = 1;
	for (i = 1; i < argc; i++) {
		r = common_opt(&o, argc, argv, &i, "demo");
		if (r < 0)
			return 1;
		if (r)
			continue;
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			char *end;
			double s = strtod(argv[++i], &end);

			if (end == argv[i] || *end || !(s >= 2 && s <= 3600)) {
				fprintf(stderr, "choke: demo: --seconds needs a number in [2, 3600], "
					"not \"%s\"\n", argv[i]);
				return 1;
			}
			snprintf(dur, sizeof(dur), "duration=%gs", s);
			snprintf(warm, sizeof(warm), "warmup=%gs", s / 5);
			if (o.nsets + 2 > MAX_SETS)
				return 1;
			o.sets[o.nsets++] = dur;
			o.sets[o.nsets++] = warm;
		} else {
			fprintf(stderr, "choke: demo: unknown argument %s\n", argv[i]);
			fprintf(stderr, "usage: choke demo [--seconds N] [--seed N] [--set KEY=VALUE]... "
				"[--json | --csv] [--speed]\n"
				"       choke demo --open-loop [--seconds N] [--seed N] [--json]\n");
			return 1;
		}
	}
	if (o.json && o.csv) {
		fprintf(stderr, "choke: demo: --json or --csv, not both\n");
		return 1;
	}
	return sim_main(&o);
}
