/* choke bridge | stats | reconfigure: argument parsing and calls into
 * src/bridge/ (the options are declared once, in src/bridge/config.c). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bridge/bridge.h"
#include "../bridge/control.h"
#include "cli.h"

static void bridge_usage(FILE *f)
{
	int k;

	fprintf(f, "usage: choke bridge --in IF_A --out IF_B --rate RATE [OPTIONS]\n"
		"                    [choke WORDS... | red WORDS... | fifo [limit N]]\n"
		"options:\n");
	for (k = 0; k < BO_NOPTS; k++) {
		char left[40];

		snprintf(left, sizeof(left), "--%s%s%s", bridge_optdefs[k].name,
			 bridge_optdefs[k].arg ? " " : "",
			 bridge_optdefs[k].arg ? bridge_optdefs[k].arg : "");
		fprintf(f, "  %-26s %s\n", left, bridge_optdefs[k].help);
	}
	fprintf(f, "  -h, --help                 this text\n"
		"Without words: choke limit 1000 bandwidth RATE; choke and red words get\n"
		"`bandwidth RATE` when they lack one. SIGHUP re-reads --config FILE;\n"
		"SIGTERM/SIGINT stop it and print the final counters. See choke(1).\n");
}

int cmd_bridge(int argc, char **argv)
{
	struct bridge_opts *o = malloc(sizeof(*o));
	char err[512];
	int rc;

	if (!o) {
		fprintf(stderr, "choke: bridge: out of memory\n");
		return 1;
	}
	bridge_opts_init(o);
	rc = bridge_parse_args(o, argc, argv, err, sizeof(err));
	if (rc == 1) {
		bridge_usage(stdout);
		rc = 0;
	} else if (rc < 0) {
		fprintf(stderr, "choke: bridge: %s (choke bridge --help: the options)\n", err);
		rc = 1;
	} else {
		rc = bridge_run(o);
	}
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
			"sockets are root's: run as root)\n", cmd);
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

/* One request; the body to out. Returns the exit status. */
static int call(const char *cmd, const char *path, const struct ctl_request *r,
		const char *prefix, FILE *out)
{
	char err[600], *body;
	int rc = ctl_call(path, r, &body, err, sizeof(err));

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

static void stats_usage(FILE *f)
{
	fprintf(f, "usage: choke stats [--socket PATH] [--format text|json|openmetrics | --json]\n"
		"                   [--watch [SECONDS]]\n"
		"  a running bridge's counters; --json is --format json; --watch repeats\n"
		"  every SECONDS (0.1 to 3600, default 1) until interrupted.\n"
		"  -h, --help   this text (no bridge is contacted)\n");
}

static volatile sig_atomic_t watch_stop;

static void on_int(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int cmd_stats(int argc, char **argv)
{
	struct ctl_request r;
	const char *sock = NULL;
	char path[300];
	int i, rc, fmt = CTL_FMT_TEXT, tty, first = 1;
	double watch = 0;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			stats_usage(stdout);
			return 0;
		}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			fmt = CTL_FMT_JSON;
		} else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
			fmt = ctl_format_from_name(argv[++i]);
			if (fmt < 0) {
				fprintf(stderr, "choke: stats: --format takes text, json or "
					"openmetrics, not \"%s\"\n", argv[i]);
				return 1;
			}
		} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			sock = argv[++i];
		} else if (!strcmp(argv[i], "--watch")) {
			watch = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-') {
				char *end;

				watch = strtod(argv[++i], &end);
				if (*end || !(watch >= 0.1 && watch <= 3600)) {
					fprintf(stderr, "choke: stats: --watch takes seconds from "
						"0.1 to 3600, not \"%s\"\n", argv[i]);
					return 1;
				}
			}
		} else {
			fprintf(stderr, "choke: stats: unknown or incomplete option \"%s\"\n",
				argv[i]);
			stats_usage(stderr);
			return 1;
		}
	}
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

static void reconfigure_usage(FILE *f)
{
	fprintf(f, "usage: choke reconfigure [--socket PATH] [choke|red|fifo] WORDS...\n"
		"  change a running bridge's discipline in place (tc's words; choke and\n"
		"  red get the bridge's rate as `bandwidth` when they lack one).\n"
		"  -h, --help   this text (nothing is sent)\n");
}

int cmd_reconfigure(int argc, char **argv)
{
	struct ctl_request r;
	const char *sock = NULL;
	char path[300];
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			reconfigure_usage(stdout);
			return 0;
		}
	i = 1;
	if (i < argc && !strcmp(argv[i], "--socket")) {
		if (i + 1 >= argc) {
			fprintf(stderr, "choke: reconfigure: --socket needs PATH\n");
			return 1;
		}
		sock = argv[i + 1];
		i += 2;
	}
	if (i < argc && argv[i][0] == '-') {
		fprintf(stderr, "choke: reconfigure: unknown option \"%s\"\n", argv[i]);
		reconfigure_usage(stderr);
		return 1;
	}
	if (i >= argc) {
		reconfigure_usage(stderr);
		return 1;
	}
	if (argc - i > CTL_MAX_WORDS) {
		fprintf(stderr, "choke: reconfigure: more than %d words\n", CTL_MAX_WORDS);
		return 1;
	}
	memset(&r, 0, sizeof(r));
	r.verb = CTL_RECONFIGURE;
	for (; i < argc; i++)
		r.words[r.nwords++] = argv[i];
	if (find_socket("reconfigure", sock, path, sizeof(path)))
		return 1;
	return call("reconfigure", path, &r, "ok: ", stdout);
}
