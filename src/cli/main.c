/* choke: command-line front end of libchoke. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define CHOKE_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: choke COMMAND [ARGS...]\n"
		"\n"
		"commands:\n"
		"  params [--json] [--strict] [--dev IF | --link-mbit N] [choke|red|fifo] WORDS...\n"
		"        the configuration the kernel would receive for `tc qdisc ... choke WORDS`\n"
		"  demo [--seconds N] [--seed N] [--json | --csv] [--open-loop]\n"
		"        the paper's 32 TCP + 1 UDP at 2x capacity through FIFO, RED and CHOKe\n"
		"        (--open-loop: the earlier open-loop workload)\n"
		"  sim SCENARIO [--set KEY=VALUE]... [--qdisc Q] [--seed N] [--compare]\n"
		"      [--sweep KEY=A..B:N[:log]] [--plot FILE.png] [--csv | --json]\n"
		"        packet-level simulation of TCP and UDP through a bottleneck (scenarios/)\n"
		"  replay [--rate RATE] [--json] [--top N] [--write OUT.pcap] [--seed N] [--strict]\n"
		"      FILE [choke|red|fifo WORDS...]\n"
		"        what a discipline at a bottleneck would have done to a capture\n"
		"  bridge --in IF_A --out IF_B --rate RATE [--duplex] [--config FILE] [OPTIONS] [WORDS...]\n"
		"        forward frames between two interfaces through a shaped CHOKe queue\n"
		"  stats [--socket PATH] [--format text|json|openmetrics | --json] [--watch [SECONDS]]\n"
		"        live counters of a running bridge\n"
		"  reconfigure [--socket PATH] [choke|red|fifo] WORDS...\n"
		"        change a running bridge's discipline in place\n"
		"  exporter [--listen ADDR:PORT] [--socket PATH]... [--no-qdiscs] [--once]\n"
		"        the bridges' and the kernel choke qdiscs' counters for Prometheus\n"
		"  help | --help, version | --version\n"
		"\n"
		"See choke(1) and README.md.\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "params"))
		return cmd_params(argc - 1, argv + 1);
	if (!strcmp(cmd, "demo"))
		return cmd_demo(argc - 1, argv + 1);
	if (!strcmp(cmd, "sim"))
		return cmd_sim(argc - 1, argv + 1);
	if (!strcmp(cmd, "bridge"))
		return cmd_bridge(argc - 1, argv + 1);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc - 1, argv + 1);
	if (!strcmp(cmd, "reconfigure"))
		return cmd_reconfigure(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "exporter"))
		return cmd_exporter(argc - 1, argv + 1);
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("choke %s\n", CHOKE_VERSION);
		return 0;
	}
	fprintf(stderr, "choke: unknown command \"%s\"\n", cmd);
	usage(stderr);
	return 2;
}
