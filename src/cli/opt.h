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
 * with "--" (a tc word, a file, "-" for standard input or output, a
 * negative number) is positional. A value is checked against the option's
 * range here, so every command refuses the same way:
 *	choke sim: --seed needs an integer from 0 to 18446744073709551615, not "x"
 * An option given twice is refused unless it is CLI_REPEAT; two options of
 * the same exclusive group (e.g. --json and --csv) are refused together.
 */
#ifndef CHOKE_CLI_OPT_H
#define CHOKE_CLI_OPT_H

#include <stdint.h>
#include <stdio.h>

enum cli_argtype {
	CLI_FLAG = 0, /* no argument */
	CLI_STR,      /* a non-empty string */
	CLI_INT,      /* a decimal integer in [min, max] (ps.i) */
	CLI_U64,      /* a decimal unsigned 64-bit integer in [umin, umax] (ps.u) */
	CLI_NUM,      /* a number (decimal or exponent form) in [dmin, dmax] (ps.d) */
	CLI_OPT_INT,  /* an optional integer: taken only if the next argument
			 is one (ps.has_value says whether it was given) */
};

/* Option flags. */
#define CLI_REPEAT 0x01 /* may be given several times */
#define CLI_HIDDEN 0x02 /* accepted, not listed (kept for compatibility) */

struct cli_opt {
	int id;              /* > 0, returned by cli_next */
	const char *name;    /* long name without the dashes: "seed" */
	enum cli_argtype type;
	const char *metavar; /* "N", "FILE", "KEY=VALUE"; NULL for flags */
	const char *help;    /* one line; the range is appended by the usage */
	long long min, max;  /* CLI_INT, CLI_OPT_INT */
	uint64_t umin, umax; /* CLI_U64 */
	double dmin, dmax;   /* CLI_NUM */
	unsigned flags;      /* CLI_REPEAT, CLI_HIDDEN */
	unsigned group;      /* nonzero: at most one option of the group */
};

struct cli_cmd {
	const char *name;     /* "sim" (or "bench pkt") */
	const char *args;     /* positional synopsis: "SCENARIO", "[choke|red|fifo] WORDS..." */
	const char *summary;  /* one line */
	const char *details;  /* further lines for --help, or NULL */
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
	int has_value; /* CLI_OPT_INT */
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

/* Report a usage error about the command (printed as "choke CMD: ...",
 * followed by a hint to --help); returns 2 for the caller to return. */
int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The command's usage and options, as `--help` prints them. */
void cli_print_usage(FILE *f, const struct cli_cmd *cmd);

/* One line per option, "COMMAND --name METAVAR" (hidden ones excluded): the
 * list tests/help.sh compares with the man page. */
void cli_print_option_list(FILE *f, const struct cli_cmd *cmd);

#endif
