/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * An option, declared once: its name, its argument, its help line and the
 * range or form of its value. The command line's parser (src/cli/opt.h)
 * and the bridge's configuration file (src/bridge/config.c) read the same
 * declarations and refuse a value with the same words:
 *
 *	--seed needs an integer from 0 to 18446744073709551615, not "-1"
 *	--rx-ring needs v2 or v3, not "v4"
 *
 * This layer knows values only: no argv, no printing (the caller owns the
 * message buffer).
 */
#ifndef CHOKE_UTIL_OPT_H
#define CHOKE_UTIL_OPT_H

#include <stddef.h>
#include <stdint.h>

enum cli_argtype {
	CLI_FLAG = 0, /* no argument */
	CLI_STR,      /* a non-empty string; form says what the command accepts */
	CLI_INT,      /* a decimal integer in [min, max] (value i) */
	CLI_U64,      /* a decimal unsigned 64-bit integer in [umin, umax] (u) */
	CLI_NUM,      /* a number (decimal or exponent form) in [dmin, dmax] (d) */
	CLI_OPT_INT,  /* an optional integer: on the command line taken only
			 if the next argument is one (has_value says whether) */
	CLI_OPT_NUM,  /* an optional number, likewise */
	CLI_CHOICE,   /* one of the words of metavar, "a|b|c" (i: its index) */
};

/* Option flags. */
#define CLI_REPEAT 0x01  /* may be given several times */
#define CLI_HIDDEN 0x02  /* accepted, not listed (kept for compatibility) */
#define CLI_NO_FILE 0x04 /* command line only, not in a configuration file */

struct cli_opt {
	int id;              /* > 0, returned by cli_next */
	const char *name;    /* long name without the dashes: "seed" */
	enum cli_argtype type;
	const char *metavar; /* "N", "FILE", "KEY=VALUE", "v2|v3"; NULL for flags */
	const char *help;    /* one line; the range is appended by the usage */
	long long min, max;  /* CLI_INT, CLI_OPT_INT */
	uint64_t umin, umax; /* CLI_U64 */
	double dmin, dmax;   /* CLI_NUM, CLI_OPT_NUM */
	unsigned flags;      /* CLI_REPEAT, CLI_HIDDEN, CLI_NO_FILE */
	unsigned group;      /* nonzero: at most one option of the group */
	/* CLI_STR: what the command's own check accepts, in words ("a rate in
	 * tc's syntax from 8bit to 10tbit, e.g. 10mbit"); its refusal then
	 * reads "--NAME needs FORM, not "VALUE"" (cli_opt_refuse) */
	const char *form;
};

/* A value as its option's type reads it. */
struct cli_value {
	const char *s; /* the text */
	long long i;   /* CLI_INT, CLI_OPT_INT; CLI_CHOICE: the word's index */
	uint64_t u;    /* CLI_U64 */
	double d;      /* CLI_NUM, CLI_OPT_NUM */
};

/* The option called name (len bytes, no dashes) in opts (ended by id 0). */
const struct cli_opt *cli_opt_find(const struct cli_opt *opts, const char *name,
				   size_t len);

/* The accepted values in words: "an integer from 1 to 64", "v2 or v3", the
 * form of a string ("" for a flag). Returns snprintf's count. */
int cli_opt_accepts(const struct cli_opt *o, char *buf, size_t len);

/* Check v against o's type and range and read it into out. 0, or -1 with
 * "--NAME needs ACCEPTED, not "V"" in err. A flag takes no value. */
int cli_opt_value(const struct cli_opt *o, const char *v, struct cli_value *out,
		  char *err, size_t errlen);

/* "--NAME needs ACCEPTED, not "V"" in err, for a value the command's own
 * check refused; returns -1. */
int cli_opt_refuse(const struct cli_opt *o, const char *v, char *err, size_t errlen);

/* Is s a number a CLI_OPT_INT (ints) or CLI_OPT_NUM takes? (On the
 * command line an optional value is taken only then.) */
int cli_is_number(const char *s, int ints);

#endif
