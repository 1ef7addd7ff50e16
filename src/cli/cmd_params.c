/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* choke params: what the kernel would receive for tc words. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/json.h"
#include "cli.h"
#include "../util/cmdline.h"

long cli_link_mbit(const char *dev)
{
	char path[256], buf[80], *end;
	FILE *f;
	long v;

	if (!dev[0] || strchr(dev, '/') || strlen(dev) > 64) {
		fprintf(stderr, "choke: bad interface name \"%s\"\n", dev);
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", dev);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "choke: cannot read the link speed of %s: %s: %s\n",
			dev, path, strerror(errno));
		return -1;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		fprintf(stderr, "choke: the link speed of %s is unknown (%s: %s)\n",
			dev, path, ferror(f) ? strerror(errno) : "empty");
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (end == buf || *end || errno || v <= 0) {
		fprintf(stderr, "choke: the link speed of %s is unknown (%s reads "
			"\"%s\")\n", dev, path, buf);
		return -1;
	}
	return v;
}

int cli_parse_discipline(int argc, char **argv, long link_mbit, int strict,
			 struct choke_params *p)
{
	struct choke_parse_opts o = { link_mbit, strict, 0 };
	char err[CHOKE_ERRBUF_SIZE];
	int kind = argc > 0 ? choke_kind_from_word(argv[0]) : -1;

	if (kind < 0)
		kind = CHOKE_KIND_CHOKE; /* words without a leading kind: choke's */
	else
		argc--, argv++;
	if (choke_params_parse(argc, argv, kind, &o, p, err, sizeof(err))) {
		fprintf(stderr, "choke: invalid %s parameters: %s\n",
			choke_kind_name(kind), err);
		return -1;
	}
	return 0;
}

void cli_print_warnings(const struct choke_params *p)
{
	int i;

	for (i = 0; i < p->nwarnings; i++)
		fprintf(stderr, "choke: warning: %s\n", p->warnings[i]);
}

/* a JSON number, or null for what JSON cannot hold (inf, nan) */
static void json_double(const char *key, double v)
{
	if (isfinite(v))
		printf(",\"%s\":%.17g", key, v);
	else
		printf(",\"%s\":null", key);
}

static void print_json(const struct choke_params *p)
{
	const struct choke_config *c = &p->cfg;
	char words[512];
	int i;

	printf("{\"kind\":");
	json_string(stdout, choke_kind_name(c->kind));
	/* the words that give this configuration back */
	choke_params_words(p, words, sizeof(words));
	printf(",\"words\":");
	json_string(stdout, words);
	printf(",\"limit\":%u", c->limit);
	if (c->kind != CHOKE_KIND_FIFO) {
		printf(",\"qth_min\":%u,\"qth_max\":%u,\"Wlog\":%u,\"Plog\":%u,"
		       "\"Scell_log\":%u,\"flags\":%u,\"max_P\":%u,\"stab\":[",
		       c->qth_min, c->qth_max, c->Wlog, c->Plog, c->Scell_log,
		       c->flags, c->max_P);
		for (i = 0; i < CHOKE_STAB_SIZE; i++)
			printf("%s%u", i ? "," : "", c->stab[i]);
		printf("],\"ecn\":%s,\"harddrop\":%s,\"burst\":%u,\"avpkt\":%u,"
		       "\"bandwidth_bytes_per_sec\":%llu,\"xmit_ticks\":%u",
		       c->flags & CHOKE_FLAG_ECN ? "true" : "false",
		       c->flags & CHOKE_FLAG_HARDDROP ? "true" : "false", p->burst,
		       p->avpkt, (unsigned long long)p->bandwidth_bytes_per_sec, p->xmit_ticks);
		json_double("probability", p->probability);
		json_double("probability_effective", p->max_p_effective);
		printf(",\"variant\":");
		json_string(stdout, choke_variant_name(c->variant));
		printf(",\"draws\":%u,\"limit_bytes\":%u,\"protect\":%u",
		       c->variant == CHOKE_VAR_DRAWS || c->variant == CHOKE_VAR_GEOMETRIC ?
			       c->draws : c->variant == CHOKE_VAR_NONE ? 1 : 0,
		       c->limit_bytes, c->protect);
	}
	printf(",\"warnings\":[");
	for (i = 0; i < p->nwarnings; i++) {
		if (i)
			putchar(',');
		json_string(stdout, p->warnings[i]);
	}
	printf("]}\n");
}

enum { OPT_JSON = 1, OPT_STRICT, OPT_DEV, OPT_LINK_MBIT };

static const struct cli_opt params_opts[] = {
	{ OPT_JSON, "json", CLI_FLAG, NULL, "one JSON object instead of tc's line", .flags = 0 },
	{ OPT_STRICT, "strict", CLI_FLAG, NULL,
	  "refuse what stock tc refuses (harddrop, > 4294967295 bytes/s, variant words)",
	  .flags = 0 },
	{ OPT_DEV, "dev", CLI_STR, "IF", "the link speed for `bandwidth N%`, from "
	  "/sys/class/net/IF/speed", .group = 1,
	  .form = "an interface name of at most 15 characters, without '/' or spaces" },
	{ OPT_LINK_MBIT, "link-mbit", CLI_INT, "N", "link speed for `bandwidth N%`, Mbit/s",
	  .min = 1, .max = 100000000, .group = 1 },
	{ .id = 0 },
};

const struct cli_cmd cli_cmd_params = {
	.name = "params",
	.args = "[choke|red|fifo] WORDS...",
	.summary = "what the kernel would receive for `tc qdisc ... choke WORDS`",
	.details = "  WORDS: limit PACKETS bandwidth RATE [min PACKETS] [max PACKETS]\n"
		   "         [burst PACKETS] [avpkt BYTES] [probability P] [ecn] [harddrop]\n"
		   "         (docs/params.md; variants: docs/variants.md)\n",
	.opts = params_opts,
	.min_pos = 1,
	.max_pos = -1,
	.run = cmd_params,
};

int cmd_params(int argc, char **argv)
{
	struct cli_parser ps;
	struct choke_params p;
	const char *dev = NULL;
	long link_mbit = 0;
	int json = 0, strict = 0, id;
	char line[512];

	cli_parser_init(&ps, &cli_cmd_params, argc, argv);
	while ((id = cli_next(&ps)) > 0) {
		switch (id) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_STRICT:
			strict = 1;
			break;
		case OPT_DEV:
			dev = ps.val;
			break;
		case OPT_LINK_MBIT:
			link_mbit = (long)ps.i;
			break;
		}
	}
	if (id < 0)
		return ps.status;
	if (dev) {
		/* the interface's speed once the command line is known good */
		if (strlen(dev) > 15 || strpbrk(dev, "/ \t\n"))
			return cli_refuse(&cli_cmd_params, cli_cmd_opt(&cli_cmd_params, OPT_DEV),
					  dev);
		link_mbit = cli_link_mbit(dev);
		if (link_mbit < 0)
			return 1;
	}
	if (cli_parse_discipline(ps.npos, ps.pos, link_mbit, strict, &p))
		return 1;
	cli_print_warnings(&p);
	if (json) {
		print_json(&p);
	} else {
		choke_params_format(&p.cfg, line, sizeof(line));
		printf("%s\n", line);
	}
	return 0;
}
