/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The runner: batches of simulations and the worker pool. See runner.h. */
#include "runner.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ERRLEN 512

static int run_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int run_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- batches ---- */

void sim_batch_init(struct sim_batch *b)
{
	memset(b, 0, sizeof(*b));
}

void sim_batch_free(struct sim_batch *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		sim_setup_free(&b->runs[i].setup);
		sim_result_free(&b->runs[i].res);
	}
	free(b->runs);
	sim_sweep_free(&b->sweep);
	memset(b, 0, sizeof(*b));
}

int sim_batch_add(struct sim_batch *b, const struct sim_run_spec *spec, char *err,
		  size_t errlen)
{
	struct sim_scenario sc;
	struct sim_run *r;
	unsigned i;
	int rc = -1;

	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 4;
		struct sim_run *nr = realloc(b->runs, (size_t)cap * sizeof(*nr));

		if (!nr)
			return run_err(err, errlen, "out of memory");
		b->runs = nr;
		b->cap = cap;
	}
	if (sim_scenario_copy(&sc, spec->scenario))
		return run_err(err, errlen, "out of memory");
	for (i = 0; i < spec->nset; i++) {
		const struct sim_override *o = &spec->set[i];

		if (sim_scenario_set(&sc, o->key, o->value, o->where, err, errlen))
			goto out;
	}
	r = &b->runs[b->n];
	memset(r, 0, sizeof(*r));
	if (sim_scenario_resolve(&sc, &r->setup, err, errlen))
		goto out;
	if (spec->value)
		snprintf(r->value, sizeof(r->value), "%s", spec->value);
	r->x = spec->x;
	b->n++;
	rc = 0;
out:
	sim_scenario_free(&sc);
	return rc;
}

/* The scenario of a plan with its overrides, into sc (initialised here). */
static int plan_scenario(struct sim_batch *b, const struct sim_plan *p, struct sim_scenario *sc,
			 char *err, size_t errlen)
{
	int i;

	if (p->scenario ? sim_scenario_copy(sc, p->scenario) && run_err(err, errlen, "out of memory")
			: p->name ? sim_scenario_open(sc, p->name, b->input, sizeof(b->input), err, errlen)
				  : sim_scenario_builtin(sc, err, errlen))
		return -1;
	for (i = 0; i < p->nsets; i++)
		if (sim_scenario_set_kv(sc, p->sets[i], "--set", err, errlen))
			goto fail;
	if ((p->seed && sim_scenario_set(sc, "seed", p->seed, "--seed", err, errlen)) ||
	    (p->qdisc && sim_scenario_set(sc, "qdisc", p->qdisc, "--qdisc", err, errlen)))
		goto fail;
	return 0;
fail:
	sim_scenario_free(sc);
	return -1;
}

static int plan_runs(struct sim_batch *b, const struct sim_plan *p, const struct sim_scenario *sc,
		     char *err, size_t errlen);

int sim_batch_plan(struct sim_batch *b, const struct sim_plan *p, char *err, size_t errlen)
{
	struct sim_scenario sc;
	int rc;

	sim_batch_init(b);
	if (plan_scenario(b, p, &sc, err, errlen))
		return -1;
	rc = plan_runs(b, p, &sc, err, errlen);
	sim_scenario_free(&sc);
	return rc;
}

static int plan_runs(struct sim_batch *b, const struct sim_plan *p, const struct sim_scenario *sc,
		     char *err, size_t errlen)
{
	/* the comparison's order */
	static const int kinds[3] = { CHOKE_KIND_FIFO, CHOKE_KIND_RED, CHOKE_KIND_CHOKE };
	struct sim_override set[2];
	struct sim_run_spec spec;
	int pt, q, nq = 3;

	memset(&spec, 0, sizeof(spec));
	spec.scenario = sc;
	spec.set = set;
	if (p->sweep) {
		if (sim_sweep_parse(p->sweep, &b->sweep, err, errlen))
			return -1;
		b->kind = SIM_BATCH_SWEEP;
		if (p->qdisc)
			nq = 1; /* as set */
		b->npoints = b->sweep.n;
		b->nq = nq;
		for (pt = 0; pt < b->sweep.n; pt++) {
			for (q = 0; q < nq; q++) {
				set[0] = (struct sim_override){ b->sweep.key, b->sweep.values[pt],
								"--sweep" };
				set[1] = (struct sim_override){ "qdisc", choke_kind_name(kinds[q]), "--compare" };
				spec.nset = p->qdisc ? 1 : 2;
				spec.value = b->sweep.values[pt];
				spec.x = b->sweep.x[pt];
				if (sim_batch_add(b, &spec, err, errlen))
					return -1;
			}
		}
		return 0;
	}
	if (p->compare) {
		/* the words of the user's discipline, if any, for all three */
		const char *words = p->qdisc ? p->qdisc + strspn(p->qdisc, " \t") : "";

		words += strcspn(words, " \t");
		words += strspn(words, " \t");
		b->kind = SIM_BATCH_COMPARE;
		b->npoints = 1;
		b->nq = 3;
		for (q = 0; q < 3; q++) {
			set[0] = (struct sim_override){ "queue", words, "--qdisc" };
			set[1] = (struct sim_override){ "qdisc", choke_kind_name(kinds[q]),
							p->qdisc && !strcmp(choke_kind_name(kinds[q]), p->qdisc) ?
								"--qdisc" : "--compare" };
			spec.set = *words ? set : set + 1;
			spec.nset = *words ? 2 : 1;
			if (sim_batch_add(b, &spec, err, errlen))
				return -1;
		}
		return 0;
	}
	b->kind = SIM_BATCH_SINGLE;
	b->npoints = b->nq = 1;
	spec.nset = 0;
	return sim_batch_add(b, &spec, err, errlen);
}

void sim_run_describe(const struct sim_batch *b, int i, char *buf, size_t len)
{
	const struct sim_run *r = &b->runs[i];

	if (b->kind == SIM_BATCH_SWEEP)
		snprintf(buf, len, "%s, %s=%s, %s", r->setup.name, b->sweep.key, r->value,
			 r->setup.qdisc);
	else
		snprintf(buf, len, "%s, %s", r->setup.name, r->setup.qdisc);
}

/* ---- progress ---- */

struct pool {
	struct sim_batch *b;
	const struct sim_runner_opts *o;
	double *weight;   /* estimated events of each run */
	double *frac;     /* each run's fraction done */
	double total;     /* the weights' sum */
	int done, running;
	struct timespec t0;
	double last;      /* when progress was last reported */
	double interval;
	int *selected;    /* the runs to run (all, or a shard's) */
	int nselected;
};

int sim_run_in_shard(int i, int k, int n)
{
	return n <= 0 || i % n == k - 1;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void report(struct pool *p, int force, int final)
{
	struct sim_progress pr;
	double now, w = 0;
	int i;

	if (!p->o->progress)
		return;
	now = since(&p->t0);
	if (!force && now - p->last < p->interval)
		return;
	p->last = now;
	for (i = 0; i < p->b->n; i++)
		w += p->weight[i] * p->frac[i];
	memset(&pr, 0, sizeof(pr));
	pr.runs_done = p->done;
	pr.runs_total = p->nselected;
	pr.running = p->running;
	pr.fraction = p->total > 0 ? w / p->total : 0;
	if (pr.fraction > 1)
		pr.fraction = 1;
	pr.elapsed_s = now;
	pr.eta_s = pr.fraction >= 0.01 && now >= 0.5 ? now * (1 - pr.fraction) / pr.fraction
							 : -1;
	pr.final = final;
	p->o->progress(p->o->progress_ctx, &pr);
}

static void fmt_duration(char *buf, size_t len, double s)
{
	unsigned long t = s > 0 && s < 1e9 ? (unsigned long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%luh%02lum", t / 3600, t / 60 % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

void sim_progress_format(char *buf, size_t len, const struct sim_progress *p)
{
	char el[32], eta[32], running[32] = "";

	fmt_duration(el, sizeof(el), p->elapsed_s);
	if (p->final) {
		snprintf(buf, len, "%d/%d run%s, %s", p->runs_done, p->runs_total,
			 p->runs_total == 1 ? "" : "s", el);
		return;
	}
	if (p->running > 1)
		snprintf(running, sizeof(running), " (%d running)", p->running);
	if (p->eta_s >= 0)
		fmt_duration(eta, sizeof(eta), p->eta_s);
	snprintf(buf, len, "%d/%d run%s%s, %.0f%%, %s elapsed%s%s%s", p->runs_done, p->runs_total,
		 p->runs_total == 1 ? "" : "s", running, 100 * p->fraction, el,
		 p->eta_s >= 0 ? ", about " : "", p->eta_s >= 0 ? eta : "",
		 p->eta_s >= 0 ? " left" : "");
}

/* the engine's tick in this process: the share of simulated time done */
struct tick {
	struct pool *p;
	int i;
};

static void tick_here(void *ctx, uint64_t now_ns)
{
	struct tick *t = ctx;
	const struct sim_config *c = &t->p->b->runs[t->i].setup.cfg;

	t->p->frac[t->i] = c->duration_ns ? (double)now_ns / (double)c->duration_ns : 0;
	report(t->p, 0, 0);
}

static int run_here(struct pool *p, int i, char *err, size_t errlen)
{
	struct sim_run *r = &p->b->runs[i];
	struct tick t = { p, i };
	int rc;

	r->setup.cfg.progress_hook = p->o->progress ? tick_here : NULL;
	r->setup.cfg.progress_ctx = &t;
	rc = sim_run(&r->setup.cfg, &r->res, err, errlen);
	r->setup.cfg.progress_hook = NULL;
	r->setup.cfg.progress_ctx = NULL;
	return rc;
}

/* ---- worker processes ---- */

/* Messages from a worker: a header, then len bytes. A progress message is
 * small enough to be written at once; the result follows the run. */
enum { MSG_PROGRESS = 1, MSG_RESULT = 2, MSG_ERROR = 3 };

struct msg {
	uint32_t type, len;
};

static int write_all(int fd, const void *buf, size_t n)
{
	const char *q = buf;

	while (n) {
		ssize_t w = write(fd, q, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
	char *q = buf;

	while (n) {
		ssize_t r = read(fd, q, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		q += r;
		n -= (size_t)r;
	}
	return 0;
}

struct child_tick {
	int fd;
	const struct sim_config *c;
	struct timespec last;
};

static void tick_child(void *ctx, uint64_t now_ns)
{
	struct child_tick *t = ctx;
	struct {
		struct msg m;
		double frac;
	} pm;

	if (since(&t->last) < 0.1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t->last);
	pm.m.type = MSG_PROGRESS;
	pm.m.len = sizeof(pm.frac);
	pm.frac = t->c->duration_ns ? (double)now_ns / (double)t->c->duration_ns : 0;
	write_all(t->fd, &pm, sizeof(pm));
}

static void child_main(struct sim_run *r, int fd, int progress)
{
	char err[ERRLEN] = "";
	struct child_tick t;
	struct msg m;
	int st;

	t.fd = fd;
	t.c = &r->setup.cfg;
	clock_gettime(CLOCK_MONOTONIC, &t.last);
	r->setup.cfg.progress_hook = progress ? tick_child : NULL;
	r->setup.cfg.progress_ctx = &t;
	st = sim_run(&r->setup.cfg, &r->res, err, sizeof(err));
	if (st) {
		m.type = MSG_ERROR;
		m.len = sizeof(err);
		if (write_all(fd, &m, sizeof(m)) || write_all(fd, err, sizeof(err)))
			_exit(1);
	} else {
		m.type = MSG_RESULT;
		m.len = (uint32_t)(sizeof(r->res) + r->res.nflows * sizeof(*r->res.flows) +
				   r->res.nseries * sizeof(*r->res.series));
		if (write_all(fd, &m, sizeof(m)) || write_all(fd, &r->res, sizeof(r->res)) ||
		    write_all(fd, r->res.flows, r->res.nflows * sizeof(*r->res.flows)) ||
		    write_all(fd, r->res.series, r->res.nseries * sizeof(*r->res.series)))
			_exit(1);
	}
	_exit(0);
}

struct worker {
	pid_t pid;
	int fd;
	int run;
	double mem;
};

static void reap(struct worker *w, int *status)
{
	int ws = 0;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (status)
		*status = ws;
	w->pid = 0;
}

static void died(int ws, char *err, size_t errlen)
{
	if (WIFSIGNALED(ws))
		run_err(err, errlen, "a simulation process died (signal %d%s)", WTERMSIG(ws),
			WTERMSIG(ws) == SIGKILL ? ", out of memory?" : "");
	else
		run_err(err, errlen, "a simulation process died");
}

/* Read one message of w. 1: the run ended (w reaped), 0: progress, -1:
 * failure (message in err, w reaped). */
static int child_read(struct pool *p, struct worker *w, char *err, size_t errlen)
{
	struct sim_run *r = &p->b->runs[w->run];
	struct sim_flow_result *fl;
	struct sim_series_point *ser = NULL;
	struct msg m;
	double frac;
	int ws;

	if (read_all(w->fd, &m, sizeof(m))) {
		reap(w, &ws);
		died(ws, err, errlen);
		return -1;
	}
	if (m.type == MSG_PROGRESS && m.len == sizeof(frac)) {
		if (read_all(w->fd, &frac, sizeof(frac)))
			goto dead;
		p->frac[w->run] = frac;
		return 0;
	}
	if (m.type == MSG_ERROR && m.len == ERRLEN) {
		char e[ERRLEN];

		if (read_all(w->fd, e, sizeof(e)))
			goto dead;
		e[ERRLEN - 1] = 0;
		reap(w, NULL);
		return run_err(err, errlen, "%s", e);
	}
	if (m.type != MSG_RESULT || m.len < sizeof(r->res) ||
	    read_all(w->fd, &r->res, sizeof(r->res)))
		goto dead;
	if (m.len != sizeof(r->res) + r->res.nflows * sizeof(*fl) +
		     (uint64_t)r->res.nseries * sizeof(*ser) || r->res.nseries > SIM_SERIES_MAX) {
		r->res.flows = NULL;
		r->res.series = NULL;
		goto dead;
	}
	fl = calloc(r->res.nflows ? r->res.nflows : 1, sizeof(*fl));
	if (r->res.nseries)
		ser = calloc(r->res.nseries, sizeof(*ser));
	if (!fl || (r->res.nseries && !ser) ||
	    read_all(w->fd, fl, r->res.nflows * sizeof(*fl)) ||
	    read_all(w->fd, ser, r->res.nseries * sizeof(*ser))) {
		free(fl);
		free(ser);
		r->res.flows = NULL;
		r->res.series = NULL;
		reap(w, NULL);
		return run_err(err, errlen, "a simulation process died (or out of memory)");
	}
	r->res.flows = fl;
	r->res.series = ser;
	reap(w, NULL);
	p->frac[w->run] = 1;
	return 1;
dead:
	r->res.flows = NULL;
	r->res.series = NULL;
	reap(w, &ws);
	died(ws, err, errlen);
	return -1;
}

static int child_start(struct pool *p, struct worker *w, int i, char *err, size_t errlen)
{
	int fds[2];

	if (pipe(fds))
		return run_err(err, errlen, "pipe: %s", strerror(errno));
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		w->pid = 0;
		return run_err(err, errlen, "fork: %s", strerror(errno));
	}
	if (w->pid == 0) {
		close(fds[0]);
		child_main(&p->b->runs[i], fds[1], p->o->progress != NULL);
	}
	close(fds[1]);
	w->fd = fds[0];
	w->run = i;
	w->mem = sim_estimate_memory(&p->b->runs[i].setup.cfg);
	return 0;
}

static double mem_default(void)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return 1e9;
	return (double)pages * (double)size / 2;
}

static int run_workers(struct pool *p, int jobs, char *err, size_t errlen)
{
	struct worker w[SIM_MAX_JOBS];
	struct pollfd pf[SIM_MAX_JOBS];
	double limit = p->o->mem_limit > 0 ? p->o->mem_limit : mem_default(), used = 0;
	int next = 0, active = 0, started = 0, k, rc = 0;

	memset(w, 0, sizeof(w));
	for (k = 0; k < SIM_MAX_JOBS; k++)
		w[k].fd = -1;
	while (p->done < p->nselected) {
		/* start what fits: a free slot, and the memory (one run always) */
		while (!rc && next < p->nselected && active < jobs &&
		       (!active ||
			used + sim_estimate_memory(&p->b->runs[p->selected[next]].setup.cfg) <= limit)) {
			for (k = 0; w[k].pid; k++)
				;
			if (child_start(p, &w[k], p->selected[next], err, errlen)) {
				rc = -1;
				break;
			}
			used += w[k].mem;
			active++;
			next++;
			started = 1;
			p->running = active;
		}
		if (rc || !active)
			break;
		if (started)
			report(p, 1, 0);
		started = 0;
		for (k = 0; k < jobs; k++) {
			pf[k].fd = w[k].pid ? w[k].fd : -1;
			pf[k].events = POLLIN;
			pf[k].revents = 0;
		}
		if (poll(pf, (nfds_t)jobs, (int)(p->interval * 1000)) < 0 && errno != EINTR) {
			rc = run_err(err, errlen, "poll: %s", strerror(errno));
			break;
		}
		for (k = 0; k < jobs && !rc; k++) {
			int r;

			if (!w[k].pid || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = child_read(p, &w[k], err, errlen);
			if (r < 0) {
				rc = -1;
				active--;
			} else if (r > 0) {
				active--;
				used -= w[k].mem;
				p->done++;
				p->running = active;
				report(p, 1, 0);
			}
		}
		report(p, 0, 0);
	}
	p->running = 0;
	/* after a failure: stop the others (our own children, by pid) */
	for (k = 0; k < SIM_MAX_JOBS; k++) {
		if (w[k].pid) {
			kill(w[k].pid, SIGKILL);
			reap(&w[k], NULL);
		}
	}
	return rc;
}

/* ---- running ---- */

static int check_budget(struct pool *p, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < p->b->n; i++) {
		const struct sim_config *c = &p->b->runs[i].setup.cfg;
		char what[200];

		if (!sim_run_in_shard(i, p->o->shard, p->o->nshards))
			continue;
		if (p->weight[i] <= p->o->event_budget)
			continue;
		sim_run_describe(p->b, i, what, sizeof(what));
		run_err(err, errlen, "%s: about %.2g events (%.3g s simulated, %.3g packets/s "
			"at the bottleneck and %.3g UDP packets/s offered), over the budget of "
			"%.2g events", what, p->weight[i], (double)c->duration_ns * 1e-9,
			(double)c->btl_bps / (8.0 * c->pkt_size),
			p->b->runs[i].setup.udp_rate_bps / (8.0 * c->pkt_size), p->o->event_budget);
		return SIM_E_BUDGET;
	}
	return 0;
}

int sim_batch_run(struct sim_batch *b, const struct sim_runner_opts *o, char *err,
		  size_t errlen)
{
	struct pool p;
	int i, k, jobs = o->jobs > 0 ? o->jobs : 1, rc = 0;

	if (jobs > SIM_MAX_JOBS)
		return run_err(err, errlen, "at most %d jobs", SIM_MAX_JOBS);
	memset(&p, 0, sizeof(p));
	p.b = b;
	p.o = o;
	p.interval = o->progress_interval_s > 0 ? o->progress_interval_s : 0.2;
	p.weight = calloc((size_t)b->n + 1, sizeof(*p.weight));
	p.frac = calloc((size_t)b->n + 1, sizeof(*p.frac));
	p.selected = calloc((size_t)b->n + 1, sizeof(*p.selected));
	if (!p.weight || !p.frac || !p.selected) {
		rc = run_err(err, errlen, "out of memory");
		goto out;
	}
	if (o->nshards < 0 || (o->nshards && (o->shard < 1 || o->shard > o->nshards))) {
		rc = run_err(err, errlen, "shard %d of %d does not exist", o->shard, o->nshards);
		goto out;
	}
	for (i = 0; i < b->n; i++) {
		if (!sim_run_in_shard(i, o->shard, o->nshards))
			continue;
		p.selected[p.nselected++] = i;
		p.weight[i] = sim_estimate_events(&b->runs[i].setup.cfg);
		p.total += p.weight[i];
	}
	if (o->event_budget > 0 && (rc = check_budget(&p, err, errlen)))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &p.t0);
	report(&p, 1, 0);
	if (jobs == 1 || p.nselected <= 1) {
		for (k = 0; k < p.nselected && !rc; k++) {
			i = p.selected[k];
			p.running = 1;
			rc = run_here(&p, i, err, errlen);
			p.running = 0;
			p.frac[i] = 1;
			p.done += !rc;
			report(&p, 1, 0);
		}
	} else {
		rc = run_workers(&p, jobs < p.nselected ? jobs : p.nselected, err, errlen);
	}
	report(&p, 1, 1);
out:
	free(p.weight);
	free(p.frac);
	free(p.selected);
	return rc;
}
