/* The `choke` command: one function per subcommand. */
#ifndef CHOKE_CLI_H
#define CHOKE_CLI_H

#include <stdio.h>

#include "choke/params.h"

int cmd_params(int argc, char **argv);
/* `choke sim` and `choke demo` (the paper's comparison in the simulator):
 * cmd_sim.c; `choke demo --open-loop`: cmd_demo_open_loop.c */
int cmd_sim(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_demo_open_loop(int argc, char **argv);
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

const char *cli_kind_name(int kind);

#endif
