/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* choke exporter: the bridges' and the kernel's choke qdiscs' counters over
 * HTTP for Prometheus (src/exporter/, docs/operations.md). */
#include <string.h>

#include "../bridge/runtime.h"
#include "../exporter/exporter.h"
#include "cli.h"
#include "../util/cmdline.h"

enum { OPT_LISTEN = 1, OPT_SOCKET, OPT_SOCKET_DIR, OPT_NO_QDISCS, OPT_PENALISED_FLOWS, OPT_ONCE };

static const struct cli_opt exporter_opts[] = {
	{ OPT_LISTEN, "listen", CLI_STR, "ADDR:PORT",
	  "where to serve /metrics: IPv4 ADDR:PORT or [IPv6]:PORT (default "
	  EXP_DEFAULT_LISTEN "; port 0: any free one, logged)", .group = 1 },
	{ OPT_SOCKET, "socket", CLI_STR, "PATH",
	  "a bridge's control socket (default: every bridge-*.sock in the socket "
	  "directory)", .flags = CLI_REPEAT, .group = 2 },
	{ OPT_SOCKET_DIR, "socket-dir", CLI_STR, "DIR",
	  "where bridges' sockets are looked for, at every scrape (default " RT_RUN_DIR ")",
	  .group = 2 },
	{ OPT_NO_QDISCS, "no-qdiscs", CLI_FLAG, NULL,
	  "leave out the kernel's choke and chokeplus qdiscs (rtnetlink)", .flags = 0 },
	{ OPT_PENALISED_FLOWS, "penalised-flows", CLI_FLAG, NULL,
	  "also serve the bridges' per-flow series (addresses and ports as labels: many "
	  "series over time, and personal data)", .flags = 0 },
	{ OPT_ONCE, "once", CLI_FLAG, NULL,
	  "print one exposition to standard output and exit (1 if a source failed)",
	  .group = 1 },
	{ .id = 0 },
};

const struct cli_cmd cli_cmd_exporter = {
	.name = "exporter",
	.args = NULL,
	.summary = "serve the bridges' and the kernel choke qdiscs' counters to Prometheus",
	.details = "  GET or HEAD /metrics: every running bridge's counters (label bridge),\n"
		   "  every choke and chokeplus qdisc of this network namespace (labels device,\n"
		   "  handle, parent) and choke_exporter_*_up per source; / is a landing page.\n"
		   "  The bridges are asked at once, within Prometheus's scrape timeout\n"
		   "  (X-Prometheus-Scrape-Timeout-Seconds) less 0.5 s, or 5 s; several\n"
		   "  clients are served at once. Errors of a source go to standard error when\n"
		   "  they change. SIGTERM stops it.\n",
	.opts = exporter_opts,
	.min_pos = 0,
	.max_pos = 0,
	.run = cmd_exporter,
};

int cmd_exporter(int argc, char **argv)
{
	static const char *sockets[EXP_MAX_BRIDGES];
	struct exp_opts o = { EXP_DEFAULT_LISTEN, sockets, 0, RT_RUN_DIR, 1, 0, choke_version,
			      NULL };
	struct exp_state st;
	struct sockaddr_storage ss;
	struct cli_parser ps;
	socklen_t sl;
	char err[300];
	int once = 0, id, i, rc;

	cli_parser_init(&ps, &cli_cmd_exporter, argc, argv);
	while ((id = cli_next(&ps)) > 0) {
		switch (id) {
		case OPT_LISTEN:
			if (exp_parse_listen(ps.val, &ss, &sl, err, sizeof(err)))
				return cli_usage_error(&cli_cmd_exporter, "%s", err);
			o.listen = ps.val;
			break;
		case OPT_SOCKET:
			if (o.nsockets >= EXP_MAX_BRIDGES)
				return cli_usage_error(&cli_cmd_exporter, "--socket: at most %d",
						       EXP_MAX_BRIDGES);
			for (i = 0; i < o.nsockets; i++)
				if (!strcmp(sockets[i], ps.val))
					return cli_usage_error(&cli_cmd_exporter,
							       "--socket %s given twice", ps.val);
			sockets[o.nsockets++] = ps.val;
			break;
		case OPT_SOCKET_DIR:
			o.dir = ps.val;
			break;
		case OPT_NO_QDISCS:
			o.qdiscs = 0;
			break;
		case OPT_PENALISED_FLOWS:
			o.penalised_flows = 1;
			break;
		case OPT_ONCE:
			once = 1;
			break;
		}
	}
	if (id < 0)
		return ps.status;
	if (!once)
		return exp_serve(&o);
	exp_state_init(&st, 1, 0);
	rc = exp_collect(stdout, &o, &st, EXP_DEADLINE_MS);
	exp_state_free(&st);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "choke: exporter: standard output: write error\n");
		return 1;
	}
	return rc ? 1 : 0;
}
