/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The command table: every subcommand of `choke` and its options declared
 * once (name, argument, help text, range), driving the parser, `--help`
 * and the check against the man page (tests/help.sh).
 *
 * A command declares a `struct cli_cmd` beside its code and loops:
 *
 *	struct cli_parser ps;
 *	int id;
 *
 *	cli_parser_init(&ps, &cli_cmd_replay, argc, argv);
 *	while ((id = cli_next(&ps)) > 0) {
 *		switch (id) {
 *		case OPT_TOP: top = ps.i; break;
 *		...
 *		}
 *	}
 *	if (id < 0)
 *		return ps.status;	(2 for a usage error, 0 after --help)
 *	then ps.pos[0 .. ps.npos) are the positional arguments.
 *
 * Options are recognised anywhere among the arguments ("--name VALUE" or
 * "--name=VALUE"; "-h"); "--" ends them. An argument that does not start
 * with "-" (a tc word, a file), "-" itself (standard input or output) and
 * a negative number are positional; any other "-x" is an unknown option. A
 * value is checked against the option's range here, so every command
 * refuses the same way:
 *	choke sim: --seed needs an integer from 0 to 18446744073709551615, not "x"
 * An option given twice is refused unless it is CLI_REPEAT; two options of
 * the same exclusive group (e.g. --json and --csv) are refused together.
 * A value the command checks itself (a rate, a file) is refused with
 * cli_refuse(), in the same words, naming the option's declared form.
 * Every usage error exits with status 2.
 */
#ifndef CHOKE_UTIL_CMDLINE_H
#define CHOKE_UTIL_CMDLINE_H

#include <stdint.h>
#include <stdio.h>

#include "opt.h" /* struct cli_opt: one option, its value and range */

struct cli_cmd {
	const char *name;     /* "sim" (or "bench pkt") */
	const char *args;     /* positional synopsis: "SCENARIO", "[choke|red|fifo] WORDS..." */
	const char *summary;  /* one line */
	const char *details;  /* further lines for --help, or NULL */
	void (*details_fn)(FILE *f); /* and what only the running program knows */
	const struct cli_opt *opts; /* ended by an entry with id 0 */
	int min_pos, max_pos; /* positional arguments allowed (max -1: any) */
	int (*run)(int argc, char **argv); /* argv[0] is the command's name */
};

#define CLI_MAX_POS 256

struct cli_parser {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	int next;   /* index of the next argument */
	int opts_done;
	/* the value of the option cli_next just returned */
	const char *val;
	long long i;
	uint64_t u;
	double d;
	int has_value; /* CLI_OPT_INT, CLI_OPT_NUM */
	const struct cli_opt *opt; /* the option cli_next just returned */
	/* positional arguments, in order */
	char *pos[CLI_MAX_POS];
	int npos;
	/* after cli_next returned -1: the exit status (0 after --help, 2 for
	 * a usage error, whose message is already on stderr) */
	int status;
	unsigned char seen[64]; /* per option index: given already */
	FILE *out, *err; /* --help and usage errors (stdout, stderr) */
};

/* Prepare to parse argv[1 .. argc) (argv[0] is the subcommand's name). */
void cli_parser_init(struct cli_parser *ps, const struct cli_cmd *cmd, int argc,
		     char **argv);

/*
 * The next option: its id (> 0) with its value in ps, 0 when the arguments
 * are exhausted (positional ones are then in ps->pos, their count checked
 * against the command's bounds), or -1 with ps->status set: `--help` / `-h`
 * printed the usage to standard output (status 0), or a usage error was
 * printed to standard error (status 2).
 */
int cli_next(struct cli_parser *ps);

/* Was the option with this id given (after cli_next returned 0)? */
int cli_given(const struct cli_parser *ps, int id);

/* Report a usage error about the command (printed as "choke CMD: ...",
 * followed by a hint to --help); returns 2 for the caller to return. */
int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Refuse the value v of option o (the command's own check failed): "choke
 * CMD: --NAME needs FORM, not "V"" on standard error; returns 2. */
int cli_refuse(const struct cli_cmd *cmd, const struct cli_opt *o, const char *v);

/* The option of cmd with this id (NULL if none). */
const struct cli_opt *cli_cmd_opt(const struct cli_cmd *cmd, int id);

/* The command's usage and options, as `--help` prints them. */
void cli_print_usage(FILE *f, const struct cli_cmd *cmd);

/* One line per option, "COMMAND --name METAVAR" (hidden ones excluded): the
 * list tests/help.sh compares with the man page and README. */
void cli_print_option_list(FILE *f, const struct cli_cmd *cmd);

/* The command's options as a Markdown table (option, accepted values,
 * notes): the generated part of docs/inputs.md (`choke help --inputs`). */
void cli_print_inputs(FILE *f, const struct cli_cmd *cmd);

#endif
