/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* choke bridge | stats | reconfigure: their command-table entries and calls
 * into src/bridge/ (the bridge's options are declared once, in
 * src/bridge/config.c, for the command line and the configuration file). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bridge/bridge.h"
#include "../bridge/control.h"
#include "cli.h"

const struct cli_cmd cli_cmd_bridge = {
	.name = "bridge",
	.args = "[choke|red|fifo WORDS...]",
	.summary = "forward frames between two interfaces through a shaped CHOKe queue",
	.details = "  --in, --out and --rate are required (here or in the --config file).\n"
		   "  Without words: choke limit 1000 bandwidth RATE; choke and red words get\n"
		   "  `bandwidth RATE` when they lack one. Needs root to start. SIGHUP re-reads\n"
		   "  --config FILE; SIGTERM and SIGINT stop it and print the final counters.\n"
		   "  See docs/bridge.md.\n",
	.opts = bridge_options, /* src/bridge/config.c: also the config file's */
	.min_pos = 0,
	.max_pos = -1,
	.run = cmd_bridge,
};

int cmd_bridge(int argc, char **argv)
{
	struct bridge_opts *o;
	struct cli_parser ps;
	const char *val[BO_NOPTS];
	int order[BO_NOPTS], n = 0, i, rc, id;
	char err[512];

	/* the command line first (its ranges checked; --help wins), then what
	 * only the bridge knows, in the order given */
	cli_parser_init(&ps, &cli_cmd_bridge, argc, argv);
	while ((id = cli_next(&ps)) > 0 && n < BO_NOPTS) {
		order[n++] = id - 1;
		val[id - 1] = ps.val;
	}
	if (id < 0)
		return ps.status;
	o = malloc(sizeof(*o));
	if (!o) {
		fprintf(stderr, "choke: bridge: out of memory\n");
		return 1;
	}
	bridge_opts_init(o);
	for (i = 0, rc = -1; i < n && rc < 0; i++) {
		if (bridge_opt_set(o, bridge_options[order[i]].name, val[order[i]], err,
				   sizeof(err)))
			rc = cli_usage_error(&cli_cmd_bridge, "%s", err);
		o->given |= 1u << order[i];
	}
	if (rc < 0 && bridge_set_words(o, ps.npos, ps.pos, err, sizeof(err)))
		rc = cli_usage_error(&cli_cmd_bridge, "%s", err);
	if (rc < 0)
		rc = bridge_run(o);
	free(o);
	return rc;
}

/* The control socket: --socket, or the only bridge in /run/choke. */
static int find_socket(const char *cmd, const char *given, char *buf, size_t len)
{
	DIR *d;
	struct dirent *e;
	int found = 0;

	if (given) {
		snprintf(buf, len, "%s", given);
		return 0;
	}
	d = opendir("/run/choke");
	if (!d && (errno == EACCES || errno == EPERM)) {
		fprintf(stderr, "choke: %s: permission denied: /run/choke (the bridges' "
			"sockets are for root and their group: run as root or in that group)\n",
			cmd);
		return -1;
	}
	if (d) {
		while ((e = readdir(d)) != NULL) {
			size_t n = strlen(e->d_name);

			if (!strncmp(e->d_name, "bridge-", 7) && n > 5 &&
			    !strcmp(e->d_name + n - 5, ".sock") && found++ == 0)
				snprintf(buf, len, "/run/choke/%s", e->d_name);
		}
		closedir(d);
	}
	if (found == 1)
		return 0;
	fprintf(stderr, "choke: %s: %s; give --socket PATH\n", cmd,
		found ? "several bridges run (in /run/choke)" :
			"no running bridge found in /run/choke");
	return -1;
}

/* How long `stats` and `reconfigure` wait for a bridge: a stopped or
 * wedged bridge must not hang them (a reconfigure that moves a large ring
 * takes milliseconds). */
#define CALL_TIMEOUT_MS 5000

/* One request; the body to out. Returns the exit status. */
static int call(const char *cmd, const char *path, const struct ctl_request *r,
		const char *prefix, FILE *out)
{
	char err[600], *body;
	int rc = ctl_call_timeout(path, r, CALL_TIMEOUT_MS, &body, err, sizeof(err));

	if (rc == 0) {
		fprintf(out, "%s%s", prefix, body);
	} else if (rc == CTL_EREFUSED) {
		fprintf(stderr, "choke: %s: %s", cmd, body);
	} else {
		fprintf(stderr, "choke: %s: %s\n", cmd, err);
	}
	free(body);
	return rc ? 1 : 0;
}

enum { S_SOCKET = 1, S_FORMAT, S_JSON, S_WATCH };

#define OPT_SOCKET(id) { id, "socket", CLI_STR, "PATH", "the bridge's control socket " \
			 "(default: the only one in /run/choke)", .flags = 0 }

static const struct cli_opt stats_opts[] = {
	OPT_SOCKET(S_SOCKET),
	{ S_FORMAT, "format", CLI_CHOICE, "text|json|openmetrics", "text (default), one JSON "
	  "object, or OpenMetrics for Prometheus", .group = 1 },
	{ S_JSON, "json", CLI_FLAG, NULL, "--format json", .group = 1 },
	{ S_WATCH, "watch", CLI_OPT_NUM, "SECONDS", "repeat every SECONDS (default 1) until "
	  "interrupted", .dmin = 0.1, .dmax = 3600 },
	{ .id = 0 },
};

const struct cli_cmd cli_cmd_stats = {
	.name = "stats",
	.args = NULL,
	.summary = "live counters of a running bridge",
	.details = "  (--help contacts no bridge)\n",
	.opts = stats_opts,
	.min_pos = 0,
	.max_pos = 0,
	.run = cmd_stats,
};

static volatile sig_atomic_t watch_stop;

static void on_int(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int cmd_stats(int argc, char **argv)
{
	struct ctl_request r;
	struct cli_parser ps;
	const char *sock = NULL;
	char path[300];
	int rc, fmt = CTL_FMT_TEXT, tty, first = 1, id;
	double watch = 0;

	cli_parser_init(&ps, &cli_cmd_stats, argc, argv);
	while ((id = cli_next(&ps)) > 0) {
		switch (id) {
		case S_SOCKET: sock = ps.val; break;
		case S_FORMAT: fmt = ctl_format_from_name(ps.val); break;
		case S_JSON: fmt = CTL_FMT_JSON; break;
		case S_WATCH: watch = ps.has_value ? ps.d : 1; break;
		}
	}
	if (id < 0)
		return ps.status;
	if (find_socket("stats", sock, path, sizeof(path)))
		return 1;
	memset(&r, 0, sizeof(r));
	r.verb = CTL_STATS;
	r.format = (enum ctl_format)fmt;
	if (!watch)
		return call("stats", path, &r, "", stdout);
	signal(SIGINT, on_int);
	signal(SIGTERM, on_int);
	tty = isatty(STDOUT_FILENO);
	while (!watch_stop) {
		/* a terminal is redrawn; a file or pipe gets one snapshot after
		 * another (text separated by a blank line, JSON one per line,
		 * OpenMetrics each ending with # EOF) */
		if (tty)
			printf("\033[H\033[2J");
		else if (!first && fmt == CTL_FMT_TEXT)
			printf("\n");
		first = 0;
		rc = call("stats", path, &r, "", stdout);
		fflush(stdout);
		if (rc)
			return rc;
		usleep((useconds_t)(watch * 1e6));
	}
	return 0;
}

enum { C_SOCKET = 1 };

static const struct cli_opt reconfigure_opts[] = {
	OPT_SOCKET(C_SOCKET),
	{ .id = 0 },
};

const struct cli_cmd cli_cmd_reconfigure = {
	.name = "reconfigure",
	.args = "[choke|red|fifo] WORDS...",
	.summary = "change a running bridge's discipline in place",
	.details = "  tc's words; choke and red get the bridge's rate as `bandwidth` when they\n"
		   "  lack one. (--help sends nothing.)\n",
	.opts = reconfigure_opts,
	.min_pos = 1,
	.max_pos = -1,
	.run = cmd_reconfigure,
};

int cmd_reconfigure(int argc, char **argv)
{
	struct ctl_request r;
	struct cli_parser ps;
	const char *sock = NULL;
	char path[300];
	int i, id;

	cli_parser_init(&ps, &cli_cmd_reconfigure, argc, argv);
	while ((id = cli_next(&ps)) > 0)
		if (id == C_SOCKET)
			sock = ps.val;
	if (id < 0)
		return ps.status;
	if (ps.npos > CTL_MAX_WORDS)
		return cli_usage_error(&cli_cmd_reconfigure, "more than %d words",
				       CTL_MAX_WORDS);
	memset(&r, 0, sizeof(r));
	r.verb = CTL_RECONFIGURE;
	for (i = 0; i < ps.npos; i++)
		r.words[r.nwords++] = ps.pos[i];
	if (find_socket("reconfigure", sock, path, sizeof(path)))
		return 1;
	return call("reconfigure", path, &r, "ok: ", stdout);
}
