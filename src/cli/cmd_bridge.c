/* choke bridge | stats | reconfigure */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bridge/bridge.h"
#include "cli.h"

static void bridge_usage(void)
{
	fprintf(stderr,
		"usage: choke bridge --in IF_A --out IF_B --rate RATE [--duplex] [--burst BYTES]\n"
		"                    [--socket PATH] [--config FILE] [--allow-mtu-mismatch]\n"
		"                    [--rx-ring v2|v3]   (default v2)\n"
		"                    [--seed N] [choke WORDS... | red WORDS... | fifo [limit N]]\n"
		"  RATE in tc's syntax (20mbit, 1gbit), or `unlimited` (no shaping).\n"
		"  Without words: choke limit 1000 bandwidth RATE; choke and red words get\n"
		"  `bandwidth RATE` when they lack one. --config FILE holds the words and is\n"
		"  re-read on SIGHUP. SIGTERM/SIGINT stop it and print the final counters.\n");
}

int cmd_bridge(int argc, char **argv)
{
	struct bridge_opts o;
	const char *rate_str = NULL;
	char *words[80], ratebuf[64];
	int i, nw = 0, has_bw = 0, kind = CHOKE_KIND_CHOKE;

	memset(&o, 0, sizeof(o));
	o.seed = 1;
	o.rx_v2 = 1; /* lower latency at low load, same throughput: docs/bridge.md */
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--duplex")) {
			o.duplex = 1;
		} else if (!strcmp(a, "--allow-mtu-mismatch")) {
			o.allow_mtu_mismatch = 1;
		} else if (!strcmp(a, "--keep-caps")) {
			o.keep_caps = 1;
		} else if (v && !strcmp(a, "--rx-ring")) {
			i++;
			if (strcmp(v, "v2") && strcmp(v, "v3")) {
				fprintf(stderr, "choke: bridge: --rx-ring takes v2 or v3\n");
				return 1;
			}
			o.rx_v2 = !strcmp(v, "v2");
		} else if (!strcmp(a, "--help")) {
			bridge_usage();
			return 0;
		} else if (v && (!strcmp(a, "--in") || !strcmp(a, "--out") ||
				 !strcmp(a, "--rate") || !strcmp(a, "--burst") ||
				 !strcmp(a, "--socket") || !strcmp(a, "--config") ||
				 !strcmp(a, "--seed"))) {
			i++;
			if (!strcmp(a, "--in")) {
				o.in = v;
			} else if (!strcmp(a, "--out")) {
				o.out = v;
			} else if (!strcmp(a, "--rate")) {
				rate_str = v;
			} else if (!strcmp(a, "--socket")) {
				o.socket_path = v;
			} else if (!strcmp(a, "--config")) {
				o.config_file = v;
			} else {
				char *end;
				unsigned long long x = strtoull(v, &end, 0);

				if (*end || end == v) {
					fprintf(stderr, "choke: bridge: %s needs a number\n", a);
					return 1;
				}
				if (!strcmp(a, "--burst"))
					o.burst_bytes = x;
				else
					o.seed = x;
			}
		} else {
			fprintf(stderr, "choke: bridge: unknown option %s\n", a);
			bridge_usage();
			return 1;
		}
	}
	if (!o.in || !o.out || !rate_str) {
		fprintf(stderr, "choke: bridge: --in, --out and --rate are required\n");
		bridge_usage();
		return 1;
	}
	if (!strcmp(rate_str, "unlimited")) {
		o.rate_bps = 0;
	} else {
		uint64_t bytes;

		if (choke_tc_get_rate(rate_str, 1, &bytes) || !bytes) {
			fprintf(stderr, "choke: bridge: bad --rate \"%s\" (e.g. 20mbit)\n",
				rate_str);
			return 1;
		}
		o.rate_bps = bytes * 8;
	}
	if (o.config_file && i == argc) {
		/* the words come from the file */
		static char buf[2048];
		char *save = NULL, *w;
		FILE *f = fopen(o.config_file, "r");
		size_t n;

		if (!f) {
			fprintf(stderr, "choke: bridge: cannot read %s\n", o.config_file);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		for (w = strtok_r(buf, " \t\r\n", &save); w && nw < 70;
		     w = strtok_r(NULL, " \t\r\n", &save))
			words[nw++] = w;
	}
	for (; i < argc && nw < 70; i++)
		words[nw++] = argv[i];
	if (nw && (!strcmp(words[0], "red") || !strcmp(words[0], "fifo")))
		kind = !strcmp(words[0], "red") ? CHOKE_KIND_RED : CHOKE_KIND_FIFO;
	for (i = 0; i < nw; i++)
		has_bw |= !strcmp(words[i], "bandwidth");
	if (!nw) {
		words[nw++] = "choke";
		words[nw++] = "limit";
		words[nw++] = "1000";
	}
	if (kind != CHOKE_KIND_FIFO && !has_bw) {
		snprintf(ratebuf, sizeof(ratebuf), "%s",
			 o.rate_bps ? rate_str : "10gbit");
		words[nw++] = "bandwidth";
		words[nw++] = ratebuf;
	}
	if (cli_parse_discipline(nw, words, 0, 0, &o.q))
		return 1;
	cli_print_warnings(&o.q);
	o.argc = nw;
	o.argv = words;
	return bridge_run(&o);
}

/* The control socket: --socket, or the only bridge in /run/choke. */
static int find_socket(const char *given, char *buf, size_t len)
{
	DIR *d;
	struct dirent *e;
	int found = 0;

	if (given) {
		snprintf(buf, len, "%s", given);
		return 0;
	}
	d = opendir("/run/choke");
	if (d) {
		while ((e = readdir(d)) != NULL) {
			if (!strncmp(e->d_name, "bridge-", 7) && strstr(e->d_name, ".sock")) {
				if (found++ == 0)
					snprintf(buf, len, "/run/choke/%s", e->d_name);
			}
		}
		closedir(d);
	}
	if (found == 1)
		return 0;
	fprintf(stderr, "choke: %s; give --socket PATH\n",
		found ? "several bridges run (in /run/choke)" :
			"no running bridge found in /run/choke");
	return -1;
}

static volatile sig_atomic_t watch_stop;

static void on_int(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int cmd_stats(int argc, char **argv)
{
	const char *sock = NULL;
	char path[300];
	int json = 0, i, rc;
	double watch = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			sock = argv[++i];
		} else if (!strcmp(argv[i], "--watch")) {
			watch = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-') {
				char *end;

				watch = strtod(argv[++i], &end);
				if (*end || !(watch >= 0.1 && watch <= 3600)) {
					fprintf(stderr, "choke: stats: --watch takes seconds in "
						"[0.1, 3600]\n");
					return 1;
				}
			}
		} else {
			fprintf(stderr, "usage: choke stats [--socket PATH] [--json] "
				"[--watch [SECONDS]]\n");
			return 1;
		}
	}
	if (find_socket(sock, path, sizeof(path)))
		return 1;
	if (!watch)
		return bridge_ctl_request(path, json ? "stats" : "stats text", stdout);
	signal(SIGINT, on_int);
	signal(SIGTERM, on_int);
	while (!watch_stop) {
		if (!json)
			printf("\033[H\033[2J");
		rc = bridge_ctl_request(path, json ? "stats" : "stats text", stdout);
		fflush(stdout);
		if (rc)
			return rc;
		usleep((useconds_t)(watch * 1e6));
	}
	return 0;
}

int cmd_reconfigure(int argc, char **argv)
{
	const char *sock = NULL;
	char path[300], req[2048];
	size_t n;
	int i = 1;

	if (i + 1 < argc && !strcmp(argv[i], "--socket")) {
		sock = argv[i + 1];
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: choke reconfigure [--socket PATH] [choke|red|fifo] "
			"WORDS...\n");
		return 1;
	}
	if (find_socket(sock, path, sizeof(path)))
		return 1;
	n = (size_t)snprintf(req, sizeof(req), "reconfigure");
	for (; i < argc && n < sizeof(req) - 2; i++)
		n += (size_t)snprintf(req + n, sizeof(req) - n, " %s", argv[i]);
	return bridge_ctl_request(path, req, stdout);
}
