/* The plot of a sweep with gnuplot: see plot.h. */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static int plot_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int plot_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void remove_dir(const char *dir)
{
	static const char *const files[] = { "data", "fluid", "plot.gp" };
	char path[4200];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int sim_plot_sweep(const char *png, const struct sim_batch *b, char *err, size_t errlen)
{
	const struct sim_sweep *sw = &b->sweep;
	const struct sim_run *r = b->runs;
	char dir[] = "/tmp/choke-plot-XXXXXX", path[4200], unit[32];
	FILE *f;
	int p, d, any_an = 0, st, ws, nq = b->nq;
	double scale = 0;
	pid_t pid;

	if (b->kind != SIM_BATCH_SWEEP || !b->n)
		return plot_err(err, errlen, "--plot draws a sweep");
	if (!mkdtemp(dir))
		return plot_err(err, errlen, "--plot: %s", strerror(errno));
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
	if (fclose(f))
		goto io;
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
		if (fclose(f))
			goto io;
		any_an = 1;
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	f = fopen(path, "w");
	if (!f)
		goto io;
	sim_sweep_unit(sw, unit, sizeof(unit));
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
	if (fclose(f))
		goto io;
	pid = fork();
	if (pid < 0)
		goto io;
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
	remove_dir(dir);
	if (st == 127)
		return plot_err(err, errlen, "--plot: cannot run gnuplot; on Debian: "
				"apt-get install gnuplot-nox");
	if (st)
		return plot_err(err, errlen, "--plot: gnuplot failed (status %d)", st);
	return 0;
io:
	plot_err(err, errlen, "--plot: %s: %s", path, strerror(errno));
	remove_dir(dir);
	return -1;
}
