/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The command table's parser (src/util/cmdline.c): values, ranges, refusals. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../src/util/cmdline.h"
#include "testlib.h"

enum { O_JSON = 1, O_CSV, O_SEED, O_TOP, O_SET, O_WATCH, O_FRAC, O_OUT, O_FMT, O_EVERY,
       O_RATE };

static const struct cli_opt opts[] = {
	{ O_JSON, "json", CLI_FLAG, NULL, "JSON", .group = 1 },
	{ O_CSV, "csv", CLI_FLAG, NULL, "CSV", .group = 1 },
	{ O_SEED, "seed", CLI_U64, "N", "seed", .umin = 0, .umax = UINT64_MAX },
	{ O_TOP, "top", CLI_INT, "N", "flows", .min = 0, .max = 1000 },
	{ O_SET, "set", CLI_STR, "KEY=VALUE", "override", .flags = CLI_REPEAT },
	{ O_WATCH, "watch", CLI_OPT_INT, "SECONDS", "repeat", .min = 1, .max = 3600 },
	{ O_FRAC, "frac", CLI_NUM, "X", "fraction", .dmin = 0, .dmax = 1 },
	{ O_OUT, "write", CLI_STR, "FILE", "output", .flags = 0 },
	{ O_FMT, "format", CLI_CHOICE, "text|json|openmetrics", "format", .flags = 0 },
	{ O_EVERY, "every", CLI_OPT_NUM, "SECONDS", "repeat", .dmin = 0.1, .dmax = 3600 },
	{ O_RATE, "rate", CLI_STR, "RATE", "rate", .form = "a rate such as 10mbit" },
	{ .id = 0 },
};

static const struct cli_cmd cmd = {
	.name = "test", .args = "FILE [WORDS...]", .summary = "a test command",
	.opts = opts, .min_pos = 1, .max_pos = -1,
};

struct run {
	int ids[16], n, status, rc;
	struct cli_parser ps;
	char err[512], out[4096];
};

/* Parse a NULL-terminated list; collect ids, the final return and the
 * messages. */
static void parse(struct run *r, const char *first, ...)
{
	char *argv[32], *errbuf = NULL, *outbuf = NULL;
	size_t errlen = 0, outlen = 0;
	int argc = 1, id;
	va_list ap;
	const char *a;

	memset(r, 0, sizeof(*r));
	argv[0] = "test";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	cli_parser_init(&r->ps, &cmd, argc, argv);
	r->ps.err = open_memstream(&errbuf, &errlen);
	r->ps.out = open_memstream(&outbuf, &outlen);
	while ((id = cli_next(&r->ps)) > 0 && r->n < 16)
		r->ids[r->n++] = id;
	r->rc = id;
	r->status = r->ps.status;
	fclose(r->ps.err);
	fclose(r->ps.out);
	snprintf(r->err, sizeof(r->err), "%s", errbuf ? errbuf : "");
	snprintf(r->out, sizeof(r->out), "%s", outbuf ? outbuf : "");
	free(errbuf);
	free(outbuf);
}

static void test_values_and_positionals(void)
{
	struct run r;

	parse(&r, "in.pcap", "--seed", "18446744073709551615", "--top=7", "choke",
	      "limit", "-1", "--set", "a=1", "--set", "b=2", NULL);
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.n, 4);
	CHECK_EQ(r.ps.npos, 4);
	CHECK(!strcmp(r.ps.pos[0], "in.pcap"));
	CHECK(!strcmp(r.ps.pos[3], "-1")); /* a negative number is a word */
	CHECK(r.err[0] == 0);

	parse(&r, "--", "--json", NULL); /* after --, everything is positional */
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.n, 0);
	CHECK(!strcmp(r.ps.pos[0], "--json"));

	parse(&r, "-", "--write", "-", NULL); /* "-" is an argument */
	CHECK_EQ(r.rc, 0);
	CHECK(!strcmp(r.ps.pos[0], "-"));
	CHECK(!strcmp(r.ps.val, "-"));
}

static void test_optional_value(void)
{
	struct run r;

	parse(&r, "f", "--watch", NULL);
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.ids[0], O_WATCH);
	CHECK_EQ(r.ps.has_value, 0);
	parse(&r, "--watch", "5", "f", NULL);
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.ps.npos, 1);
	parse(&r, "--watch", "0", "f", NULL);
	CHECK_EQ(r.rc, -1);
	CHECK(strstr(r.err, "--watch needs an integer from 1 to 3600, not \"0\""));

	/* an optional number: taken when the next argument is one */
	parse(&r, "f", "--every", "0.5", NULL);
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.ps.has_value, 1);
	CHECK(r.ps.d == 0.5);
	CHECK_EQ(r.ps.npos, 1);
	parse(&r, "--every", "g", NULL);
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.ps.has_value, 0);
	CHECK(!strcmp(r.ps.pos[0], "g"));
	parse(&r, "f", "--every=0.01", NULL);
	CHECK(r.rc == -1 && strstr(r.err, "--every needs a number from 0.1 to 3600, not \"0.01\""));
}

static void test_choice_and_form(void)
{
	struct cli_value v;
	char err[256];
	struct run r;

	parse(&r, "f", "--format", "openmetrics", NULL);
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.ps.i, 2);
	CHECK(!strcmp(r.ps.val, "openmetrics"));
	CHECK(r.ps.opt && r.ps.opt->id == O_FMT);
	parse(&r, "f", "--format", "xml", NULL);
	CHECK(r.rc == -1 && r.status == 2 &&
	      strstr(r.err, "--format needs text, json or openmetrics, not \"xml\""));
	parse(&r, "f", "--format", "json|text", NULL);
	CHECK(r.rc == -1);
	parse(&r, "f", "--format", "", NULL);
	CHECK(r.rc == -1);

	/* the same check outside the command line (a configuration file) */
	CHECK_EQ(cli_opt_value(&opts[O_TOP - 1], "1000", &v, err, sizeof(err)), 0);
	CHECK_EQ(v.i, 1000);
	CHECK_EQ(cli_opt_value(&opts[O_TOP - 1], "1001", &v, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "--top needs an integer from 0 to 1000, not \"1001\""));
	CHECK_EQ(cli_opt_value(&opts[O_JSON - 1], "1", &v, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "--json takes no value"));
	CHECK_EQ(cli_opt_value(&opts[O_JSON - 1], NULL, &v, err, sizeof(err)), 0);
	/* a string the command checks itself: refused naming its form */
	CHECK_EQ(cli_opt_refuse(&opts[O_RATE - 1], "fast", err, sizeof(err)), -1);
	CHECK(!strcmp(err, "--rate needs a rate such as 10mbit, not \"fast\""));
	CHECK(cli_opt_find(opts, "rate", 4) == &opts[O_RATE - 1]);
	CHECK(cli_opt_find(opts, "ratex", 4) == &opts[O_RATE - 1]); /* by length */
	CHECK(cli_opt_find(opts, "rat", 3) == NULL);
}

static void test_refusals(void)
{
	static const char *const bad[][4] = {
		{ "--top", "-3", "f", "from 0 to 1000, not \"-3\"" },
		{ "--top", "1e3", "f", "not \"1e3\"" },
		{ "--seed", "-1", "f", "from 0 to 18446744073709551615" },
		{ "--seed", "18446744073709551616", "f", "not \"18446744073709551616\"" },
		{ "--frac", "nan", "f", "from 0 to 1" },
		{ "--frac", "1.5", "f", "not \"1.5\"" },
		{ "--write", "", "f", "non-empty FILE" },
		{ "--nope", "f", NULL, "unknown option --nope" },
		{ "-x", "f", NULL, "unknown option -x" },
		{ "-json", "f", NULL, "unknown option -json" },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(&r, bad[i][0], bad[i][1], bad[i][2], NULL);
		CHECK_EQ(r.rc, -1);
		CHECK_EQ(r.status, 2);
		if (!strstr(r.err, bad[i][3])) {
			CHECK(!"the message names the problem");
			fprintf(stderr, "  want \"%s\", got: %s", bad[i][3], r.err);
		}
	}
	parse(&r, "f", "--top", "1", "--top", "2", NULL);
	CHECK(r.rc == -1 && strstr(r.err, "--top given twice"));
	parse(&r, "f", "--json", "--csv", NULL);
	CHECK(r.rc == -1 && strstr(r.err, "--json and --csv exclude each other"));
	parse(&r, "f", "--json=1", NULL);
	CHECK(r.rc == -1 && strstr(r.err, "takes no value"));
	parse(&r, "f", "--top", NULL);
	CHECK(r.rc == -1 && strstr(r.err, "--top needs N"));
	parse(&r, "--json", NULL);
	CHECK(r.rc == -1 && strstr(r.err, "missing FILE\n"));
	CHECK(strstr(r.err, "choke test --help"));
	parse(&r, "-5", "-", "-.5", NULL); /* numbers and "-" are arguments */
	CHECK_EQ(r.rc, 0);
	CHECK_EQ(r.ps.npos, 3);
	parse(&r, "f", "--top", "3", NULL);
	CHECK(cli_given(&r.ps, O_TOP) && !cli_given(&r.ps, O_SEED));
}

static void test_help(void)
{
	struct run r;

	parse(&r, "--nope", "-h", NULL); /* stops at the first problem */
	CHECK_EQ(r.status, 2);
	parse(&r, "f", "-h", "--nope", NULL);
	CHECK_EQ(r.rc, -1);
	CHECK_EQ(r.status, 0);
	CHECK(r.err[0] == 0);
	CHECK(strstr(r.out, "usage: choke test [OPTIONS] FILE [WORDS...]"));
	CHECK(strstr(r.out, "--top N"));
	CHECK(strstr(r.out, "(0..1000)"));
	CHECK(strstr(r.out, "--watch [SECONDS]"));
	CHECK(strstr(r.out, "(repeatable)"));
	CHECK(strstr(r.out, "--every [SECONDS]"));
	CHECK(strstr(r.out, "rate (a rate such as 10mbit)\n"));
	/* a label too long for its column gets a line of its own */
	CHECK(strstr(r.out, "  --format text|json|openmetrics\n                           format\n"));
	parse(&r, "--help", NULL);
	CHECK_EQ(r.status, 0);
}

static void test_lists(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cli_print_option_list(f, &cmd);
	fflush(f);
	CHECK(strstr(buf, "test --json\ntest --csv\ntest --seed N\n"));
	CHECK(strstr(buf, "test --format text|json|openmetrics\n"));
	fclose(f);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	cli_print_inputs(f, &cmd);
	fclose(f);
	CHECK(strstr(buf, "### choke test\n\n| option | accepted | notes |\n|---|---|---|\n"));
	CHECK(strstr(buf, "| `--json` | no value | not with `--csv` |\n"));
	CHECK(strstr(buf, "| `--seed N` | an integer from 0 to 18446744073709551615 |  |\n"));
	CHECK(strstr(buf, "| `--set KEY=VALUE` | a non-empty KEY=VALUE | repeatable |\n"));
	CHECK(strstr(buf, "| `--every [SECONDS]` | a number from 0.1 to 3600 | the value is optional |\n"));
	CHECK(strstr(buf, "| `--format text\\|json\\|openmetrics` | text, json or openmetrics |  |\n"));
	free(buf);
}

const struct tl_test opt_tests[] = {
	{ "opt/values-and-positionals", test_values_and_positionals },
	{ "opt/optional-value", test_optional_value },
	{ "opt/refusals", test_refusals },
	{ "opt/choice-and-form", test_choice_and_form },
	{ "opt/help", test_help },
	{ "opt/lists", test_lists },
	{ NULL, NULL },
};
