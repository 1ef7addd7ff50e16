/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The plot of a sweep with gnuplot: see plot.h. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

#define NO_GNUPLOT "cannot run gnuplot; on Debian: apt-get install gnuplot-nox"

/* ---- files ---- */

/* dir of path ("." if none) into buf */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Create a new file beside path (".NAME.XXXXXX" in its directory), mode
 * 0666 less the umask, as fopen would. The descriptor, or -1 (errno). */
static int temp_beside(const char *path, char *tmp, size_t len)
{
	static unsigned serial;
	char dir[4096];
	int i, fd;

	dir_of(path, dir, sizeof(dir));
	for (i = 0; i < 100; i++) {
		struct timespec t;
		unsigned x;

		clock_gettime(CLOCK_REALTIME, &t);
		x = (unsigned)t.tv_nsec ^ ((unsigned)getpid() << 12) ^ (++serial * 2654435761u);
		if ((size_t)snprintf(tmp, len, "%s/.%s.%06x", dir, base_of(path), x & 0xffffff) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* An output path must not be a directory or a special file, nor one of the
 * inputs. */
static int check_target(const char *path, const char *what, const char *const *inputs,
			int ninputs, char *err, size_t errlen)
{
	struct stat st, in;
	int i;

	if (stat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return plot_err(err, errlen, "--plot: %s: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return plot_err(err, errlen, "--plot: %s (the %s) exists and is not a regular file",
				path, what);
	for (i = 0; i < ninputs; i++)
		if (inputs[i] && !stat(inputs[i], &in) && in.st_dev == st.st_dev &&
		    in.st_ino == st.st_ino)
			return plot_err(err, errlen, "--plot: %s (the %s) is the input %s: "
					"writing it would destroy it", path, what, inputs[i]);
	return 0;
}

/* ---- gnuplot ---- */

/* Run gnuplot on script (or -e command), stdin empty, stdout ours; its
 * standard error's first line into complaint. The exit status, 127 if it
 * cannot run, or -1 (fork failed). */
static int gnuplot(const char *script, const char *command, char *complaint, size_t len)
{
	int fds[2], ws = 0, devnull;
	size_t n = 0;
	ssize_t r;
	pid_t pid;
	char *nl;

	complaint[0] = 0;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(fds[1], 2);
		close(fds[0]);
		if (script)
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		else
			execlp("gnuplot", "gnuplot", "-e", command, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		char sink[512], *dst = n + 1 < len ? complaint + n : sink;
		size_t room = n + 1 < len ? len - 1 - n : sizeof(sink);

		r = read(fds[0], dst, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (dst != sink)
			n += (size_t)r;
	}
	complaint[n] = 0;
	close(fds[0]);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	/* gnuplot echoes the line and a caret before its message: keep the
	 * message ("line N: ..." or "\"FILE\" line N: ...") */
	{
		char *m = complaint;

		while ((m = strstr(m, "line ")) && m > complaint && m[-1] != '\n' && m[-1] != ' ')
			m++;
		if (m)
			memmove(complaint, m, strlen(m) + 1);
	}
	nl = strchr(complaint, '\n');
	if (nl)
		*nl = 0;
	if (!WIFEXITED(ws))
		return 128;
	return WEXITSTATUS(ws);
}

static const struct {
	const char *ext, *name, *terminal[2];
} formats[] = {
	[SIM_PLOT_PNG] = { "png", "PNG", { "pngcairo", "png" } },
	[SIM_PLOT_SVG] = { "svg", "SVG", { "svg", NULL } },
	[SIM_PLOT_PDF] = { "pdf", "PDF", { "pdfcairo", NULL } },
};

int sim_plot_prepare(struct sim_plot *p, const char *path, const char *const *inputs,
		     int ninputs, char *err, size_t errlen)
{
	const char *dot = strrchr(base_of(path), '.');
	char tmp[4200], cmd[64], complaint[256], dir[4096];
	struct stat st;
	int f, t, fd, rc;

	memset(p, 0, sizeof(p[0]));
	if (!*path || strlen(path) + 8 >= sizeof(p->image))
		return plot_err(err, errlen, "--plot: the file name is empty or too long");
	snprintf(p->image, sizeof(p->image), "%s", path);
	if (!strcmp(path, "-")) {
		f = SIM_PLOT_PNG;
	} else {
		for (f = 0; f < 3; f++)
			if (dot && dot[1] && !strcasecmp(dot + 1, formats[f].ext))
				break;
		if (f == 3)
			return plot_err(err, errlen, "--plot %s: gnuplot cannot write %s%s here; name "
					"the file .png, .svg or .pdf (or - for a PNG on standard "
					"output)", path, dot && dot[1] ? dot + 1 : "a file without an extension",
					dot && dot[1] ? " files" : "");
		snprintf(p->script, sizeof(p->script), "%.*s.gp", (int)(dot - path), path);
	}
	p->format = f;
	/* gnuplot, with a terminal for the format */
	for (t = 0; t < 2 && formats[f].terminal[t]; t++) {
		snprintf(cmd, sizeof(cmd), "set terminal %s", formats[f].terminal[t]);
		rc = gnuplot(NULL, cmd, complaint, sizeof(complaint));
		if (rc == 127 || rc < 0)
			return plot_err(err, errlen, "--plot: " NO_GNUPLOT);
		if (rc == 0)
			break;
	}
	if (t == 2 || !formats[f].terminal[t])
		return plot_err(err, errlen, "--plot %s: this gnuplot cannot write %s (no %s "
				"terminal); try .png or .svg", path, formats[f].name,
				formats[f].terminal[0]);
	snprintf(p->terminal, sizeof(p->terminal), "%s", formats[f].terminal[t]);
	if (f == SIM_PLOT_PNG && !strcmp(path, "-"))
		return 0;
	/* the directory: there, writable */
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return plot_err(err, errlen, "--plot %s: no directory %s", path, dir);
	fd = temp_beside(path, tmp, sizeof(tmp));
	if (fd < 0)
		return plot_err(err, errlen, "--plot %s: cannot write in %s: %s", path, dir,
				strerror(errno));
	close(fd);
	unlink(tmp);
	if (check_target(path, "image", inputs, ninputs, err, errlen) ||
	    check_target(p->script, "gnuplot script", inputs, ninputs, err, errlen))
		return -1;
	return 0;
}

/* ---- the script ---- */

/* s as a gnuplot string in double quotes */
static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* s as a gnuplot string in single quotes (no escapes but '') */
static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The whole script; output: the file gnuplot writes (NULL: stdout). */
static void write_script(FILE *f, const struct sim_plot *p, const struct sim_batch *b,
			 const char *output)
{
	const struct sim_sweep *sw = &b->sweep;
	const struct sim_run *r = b->runs;
	int pt, d, i, nq = b->nq, fluid = 0;
	double scale = 0, lo, hi;
	char unit[32], title[512];

	for (pt = 0; pt < sw->n; pt++)
		for (d = 0; d < nq; d++)
			if (sim_run_analytic(&r[pt * nq + d]) >= 0 && r[pt * nq + d].setup.udp_rate_c > 0)
				scale = sw->x[pt] / r[pt * nq + d].setup.udp_rate_c;
	/* the fluid model, if the sweep moves the UDP rate of one flow */
	fluid = !strcmp(sw->key, "udp_rate") && scale > 0;
	sim_sweep_unit(sw, unit, sizeof(unit));
	fprintf(f, "# choke sim: the UDP share of the link against %s, drawn by gnuplot.\n"
		"# Restyle at will and run again: gnuplot %s (in its directory).\n"
		"# $data: %s, then the UDP share of the link under each discipline,\n"
		"# then its UDP share of the queue; $fluid: CHOKe's fluid model.\n",
		sw->key, p->script[0] ? base_of(p->script) : "FILE.gp", sw->key);
	fprintf(f, "set terminal %s size %s%s\n", p->terminal,
		p->format == SIM_PLOT_PDF ? "9in,6in" : "900,600",
		!strcmp(p->terminal, "png") ? "" : " font 'sans,11'");
	fprintf(f, "set output");
	if (output) {
		fputc(' ', f);
		gp_quote(f, output);
	}
	snprintf(title, sizeof(title), "%s: %u TCP + %u UDP, %s", r[0].setup.name,
		 r[0].setup.ntcp, r[0].setup.nudp, r[nq - 1].setup.qline);
	fprintf(f, "\nset title ");
	gp_string(f, title);
	snprintf(title, sizeof(title), "%s%s%s%s", sw->key, unit[0] ? " (" : "", unit,
		 unit[0] ? ")" : "");
	fprintf(f, " noenhanced\nset xlabel ");
	gp_string(f, title);
	fprintf(f, " noenhanced\nset ylabel 'UDP share'\nset yrange [0:1.05]\nset grid\n"
		"set key top left\n");
	if (sw->logscale)
		fprintf(f, "set logscale x\n");
	fprintf(f, "$data << EOD\n");
	for (pt = 0; pt < sw->n; pt++) {
		fprintf(f, "%.9g", sw->x[pt]);
		for (d = 0; d < nq; d++)
			fprintf(f, " %.6f", r[pt * nq + d].res.share[SIM_UDP]);
		for (d = 0; d < nq; d++) {
			const struct sim_result *res = &r[pt * nq + d].res;

			fprintf(f, " %.6f", res->qlen_mean > 0 ? res->qudp_mean / res->qlen_mean : 0);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "EOD\n");
	if (fluid) {
		lo = sw->x[0] < sw->x[sw->n - 1] ? sw->x[0] : sw->x[sw->n - 1];
		hi = sw->x[0] < sw->x[sw->n - 1] ? sw->x[sw->n - 1] : sw->x[0];
		fprintf(f, "$fluid << EOD\n");
		for (i = 0; i <= 400; i++) {
			double x = sw->logscale ? lo * pow(hi / lo, i / 400.0) : lo + (hi - lo) * i / 400.0;

			fprintf(f, "%.9g %.6f\n", x, sim_choke_fluid_share(x / scale));
		}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "plot ");
	for (d = 0; d < nq; d++)
		fprintf(f, "%s$data using 1:%d with linespoints lw 2 pt %d title '%s, link'",
			d ? ", \\\n     " : "", 2 + d, 5 + 2 * d, r[d].setup.qdisc);
	for (d = 0; d < nq; d++)
		if (!strcmp(r[d].setup.qdisc, "choke"))
			fprintf(f, ", \\\n     $data using 1:%d with linespoints dt 2 pt 6 "
				"lc rgb '#777777' title 'choke, queue'", 2 + nq + d);
	if (fluid)
		fprintf(f, ", \\\n     $fluid using 1:2 with lines lw 2 dt 3 lc rgb 'black' "
			"title 'CHOKe fluid model'");
	fprintf(f, "\n");
}

/* Write the script into a new temporary file beside path. 0, or -1. */
static int script_file(const char *path, char *tmp, size_t len, const struct sim_plot *p,
		       const struct sim_batch *b, const char *output, char *err, size_t errlen)
{
	int fd = temp_beside(path, tmp, len);
	FILE *f;

	if (fd < 0)
		return plot_err(err, errlen, "--plot: %s: %s", path, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return plot_err(err, errlen, "--plot: %s: %s", tmp, strerror(errno));
	}
	write_script(f, p, b, output);
	if (ferror(f) | fclose(f)) {
		unlink(tmp);
		return plot_err(err, errlen, "--plot: writing %s failed", tmp);
	}
	return 0;
}

int sim_plot_write(const struct sim_plot *p, const struct sim_batch *b, char *err,
		   size_t errlen)
{
	char run[4200], img[4200] = "", keep[4200] = "", tmpdir[4096], complaint[256];
	const char *beside = p->script;
	int fd, rc, to_stdout = !strcmp(p->image, "-");

	if (b->kind != SIM_BATCH_SWEEP || !b->n)
		return plot_err(err, errlen, "--plot draws a sweep");
	if (to_stdout) {
		/* only the script gnuplot runs, in the temporary directory */
		snprintf(tmpdir, sizeof(tmpdir), "%s/choke-plot.gp",
			 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		beside = tmpdir;
	} else {
		/* the image into a new file beside it, the script kept beside
		 * it: both renamed into place once gnuplot has succeeded */
		fd = temp_beside(p->image, img, sizeof(img));
		if (fd < 0)
			return plot_err(err, errlen, "--plot: %s: %s", p->image, strerror(errno));
		close(fd);
		if (script_file(p->script, keep, sizeof(keep), p, b, base_of(p->image), err, errlen))
			goto fail;
	}
	/* the script gnuplot runs: the same, writing the temporary image */
	if (script_file(beside, run, sizeof(run), p, b, to_stdout ? NULL : img, err, errlen))
		goto fail;
	fflush(stdout);
	rc = gnuplot(run, NULL, complaint, sizeof(complaint));
	unlink(run);
	if (rc) {
		if (rc == 127 || rc < 0)
			plot_err(err, errlen, "--plot: " NO_GNUPLOT);
		else
			plot_err(err, errlen, "--plot %s: gnuplot failed (status %d)%s%s", p->image,
				 rc, complaint[0] ? ": " : "", complaint);
		goto fail;
	}
	if (to_stdout)
		return 0;
	if (rename(img, p->image)) {
		plot_err(err, errlen, "--plot: %s: %s", p->image, strerror(errno));
		goto fail;
	}
	img[0] = 0;
	if (rename(keep, p->script)) {
		plot_err(err, errlen, "--plot: %s: %s", p->script, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	if (img[0])
		unlink(img);
	if (keep[0])
		unlink(keep);
	return -1;
}
