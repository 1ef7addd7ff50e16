/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* choke: command-line front end of libchoke. The table of subcommands is
 * commands[] below; each command declares its options beside its code
 * (struct cli_cmd, opt.h), and that one declaration drives its parser, its
 * --help, `choke help --options` (checked against the man page and README
 * by tests/help.sh) and `choke help --inputs` (docs/inputs.md). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* from the file VERSION, by the Makefile (docs/release.md) */
#ifndef CHOKE_VERSION
#error "CHOKE_VERSION is not defined: build with the Makefile (it passes VERSION)"
#endif
const char choke_version[] = CHOKE_VERSION;

static const struct cli_cmd *const commands[] = {
	&cli_cmd_params,
	&cli_cmd_demo,
	&cli_cmd_sim,
	&cli_cmd_replay,
	&cli_cmd_bridge,
	&cli_cmd_stats,
	&cli_cmd_reconfigure,
	&cli_cmd_exporter,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: choke COMMAND [OPTIONS] [ARGS...]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-16s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "  %-16s %s\n", "help [COMMAND]", "this list, or a command's usage");
	fprintf(f, "  %-16s %s\n", "version", "the version");
	fprintf(f, "\n`choke COMMAND --help` lists a command's options. See choke(1) and "
		"README.md.\n");
}

static const struct cli_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* `choke help [COMMAND | --options | --inputs]` */
static int help(int argc, char **argv)
{
	const struct cli_cmd *c;
	size_t i;

	if (argc > 2) {
		fprintf(stderr, "choke help: one command at a time (not also \"%s\")\n",
			argv[2]);
		return 2;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--options")) {
		/* every option of every command, one a line (tests/help.sh) */
		for (i = 0; i < NCOMMANDS; i++)
			cli_print_option_list(stdout, commands[i]);
		return 0;
	}
	if (!strcmp(argv[1], "--inputs")) {
		/* the generated part of docs/inputs.md */
		for (i = 0; i < NCOMMANDS; i++)
			cli_print_inputs(stdout, commands[i]);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "choke help: unknown command \"%s\"\n", argv[1]);
		usage(stderr);
		return 2;
	}
	cli_print_usage(stdout, c);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const struct cli_cmd *c;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	c = find_command(cmd);
	if (c)
		return c->run(argc - 1, argv + 1);
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return help(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		if (argc > 2) {
			fprintf(stderr, "choke version: takes no arguments (not \"%s\")\n",
				argv[2]);
			return 2;
		}
		printf("choke %s\n", choke_version);
		return 0;
	}
	fprintf(stderr, "choke: unknown command \"%s\"\n", cmd);
	usage(stderr);
	return 2;
}
