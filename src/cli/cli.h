/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The `choke` command: one function per subcommand, each with its
 * declaration in the command table (struct cli_cmd, src/util/cmdline.h) beside it;
 * main.c dispatches from the table. */
#ifndef CHOKE_CLI_H
#define CHOKE_CLI_H

#include <stdio.h>

#include "choke/params.h"
#include "../util/cmdline.h"

/* "X.Y.Z": the file VERSION, compiled into main.c (docs/release.md) */
extern const char choke_version[];

extern const struct cli_cmd cli_cmd_params;
extern const struct cli_cmd cli_cmd_demo;
extern const struct cli_cmd cli_cmd_sim;
extern const struct cli_cmd cli_cmd_replay;
extern const struct cli_cmd cli_cmd_bridge;
extern const struct cli_cmd cli_cmd_stats;
extern const struct cli_cmd cli_cmd_reconfigure;
extern const struct cli_cmd cli_cmd_exporter;

int cmd_params(int argc, char **argv);
/* `choke sim` and `choke demo` (the paper's comparison in the simulator):
 * cmd_sim.c; `choke demo --open-loop`: cmd_demo_open_loop.c */
int cmd_sim(int argc, char **argv);
int cmd_demo(int argc, char **argv);
/* the open-loop workload: seconds (2..3600), seed, json */
int cmd_demo_open_loop(double seconds, uint64_t seed, int json);
int cmd_replay(int argc, char **argv);
int cmd_bridge(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_reconfigure(int argc, char **argv);
/* `choke exporter`: cmd_exporter.c (src/exporter/) */
int cmd_exporter(int argc, char **argv);

/*
 * Parse "[choke|red|fifo] WORDS..." into p (the discipline word is
 * optional, choke by default). On error prints "choke: ..." to stderr and
 * returns -1. link_mbit is used for `bandwidth N%`.
 */
int cli_parse_discipline(int argc, char **argv, long link_mbit, int strict,
			 struct choke_params *p);

/* Print the params warnings to stderr, prefixed "choke: warning: ". */
void cli_print_warnings(const struct choke_params *p);

/* Link speed of an interface in Mbit/s from /sys/class/net/IF/speed, as tc
 * reads it; -1 with a message on stderr if unknown. */
long cli_link_mbit(const char *dev);


#endif
