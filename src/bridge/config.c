/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The bridge's options and its configuration file: see bridge.h. The one
 * place that knows the options, their arguments and their ranges. */
#include "bridge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RATE_MIN_BPS 64000ull           /* 64kbit */
#define RATE_MAX_BPS 1000000000000ull   /* 1tbit */
#define BURST_MAX (1ull << 30)          /* bytes */
#define CONFIG_MAX_BYTES (64 << 10)
#define CONFIG_MAX_LINE 1024
#define WAIT_MAX_S 3600                 /* --wait, seconds */

_Static_assert(IF_NAMESIZE == 16, "the interface names' form below");
_Static_assert(sizeof(((struct bridge_opts *)0)->socket_path) == 108,
	       "the socket path's form below");
_Static_assert(sizeof(((struct bridge_opts *)0)->config_file) == 4096,
	       "the configuration path's form below");

#define IFNAME_FORM "an interface name of at most 15 characters, without '/' or spaces"

const struct cli_opt bridge_options[BO_NOPTS + 1] = {
	[BO_IN] = { BO_IN + 1, "in", CLI_STR, "IF_A", "the input interface (frames from it "
		    "are shaped)", .form = IFNAME_FORM },
	[BO_OUT] = { BO_OUT + 1, "out", CLI_STR, "IF_B", "the output interface",
		     .form = IFNAME_FORM },
	[BO_RATE] = { BO_RATE + 1, "rate", CLI_STR, "RATE", "the bottleneck",
		      .form = "a rate in tc's syntax from 64kbit to 1tbit, e.g. 20mbit, "
			      "or unlimited" },
	[BO_DUPLEX] = { BO_DUPLEX + 1, "duplex", CLI_FLAG, NULL,
			"shape IF_B -> IF_A too, with its own queue", .flags = 0 },
	[BO_BURST] = { BO_BURST + 1, "burst", CLI_U64, "BYTES",
		       "the token bucket's depth (default 2 ms of RATE)",
		       .umin = 1, .umax = BURST_MAX },
	[BO_SOCKET] = { BO_SOCKET + 1, "socket", CLI_STR, "PATH",
			"the control socket (default /run/choke/bridge-IF_A.sock)",
			.form = "a path of 1 to 107 bytes" },
	[BO_CONFIG] = { BO_CONFIG + 1, "config", CLI_STR, "FILE", "options and discipline, "
			"one per line; re-read on SIGHUP", .flags = CLI_NO_FILE,
			.form = "a path of 1 to 4095 bytes" },
	[BO_ALLOW_MTU_MISMATCH] = { BO_ALLOW_MTU_MISMATCH + 1, "allow-mtu-mismatch", CLI_FLAG,
				    NULL, "run with different MTUs (oversize frames dropped)",
				    .flags = 0 },
	[BO_RX_RING] = { BO_RX_RING + 1, "rx-ring", CLI_CHOICE, "v2|v3",
			 "the receive ring's version (default v2)", .flags = 0 },
	[BO_BACKEND] = { BO_BACKEND + 1, "backend", CLI_CHOICE, "afpacket|xdp",
			 "how frames are read and sent (default afpacket)", .flags = 0 },
	[BO_BUSY_POLL] = { BO_BUSY_POLL + 1, "busy-poll", CLI_U64, "USEC",
			   "xdp: busy-poll the driver for up to USEC per look (default off)",
			   .umin = 1, .umax = 10000 },
	[BO_SEED] = { BO_SEED + 1, "seed", CLI_U64, "N", "the random seed (default 1)",
		      .umax = UINT64_MAX },
	[BO_WAIT] = { BO_WAIT + 1, "wait", CLI_U64, "SECONDS", "at start, wait up to SECONDS "
		      "for an interface that does not exist yet (default 0)",
		      .flags = CLI_NO_FILE, .umax = WAIT_MAX_S },
	[BO_NOPTS] = { .id = 0 },
};

void bridge_opts_init(struct bridge_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->rx_v2 = 1; /* lower latency at low load, same throughput: docs/bridge.md */
}

static int find_opt(const char *name)
{
	const struct cli_opt *d = cli_opt_find(bridge_options, name, strlen(name));

	return d ? (int)(d - bridge_options) : -1;
}

static int ifname_ok(const char *v)
{
	size_t n = strlen(v);

	return n > 0 && n < IF_NAMESIZE && !strpbrk(v, "/ \t\n");
}

int bridge_opt_set(struct bridge_opts *o, const char *name, const char *value,
		   char *err, size_t errlen)
{
	int k = find_opt(name);
	const struct cli_opt *d;
	struct cli_value v;
	uint64_t x;

	if (k < 0) {
		snprintf(err, errlen, "unknown option --%s", name);
		return -1;
	}
	d = &bridge_options[k];
	if (d->type != CLI_FLAG && !value) {
		snprintf(err, errlen, "--%s needs %s", name, d->metavar);
		return -1;
	}
	/* the declared type and range (src/util/opt.c), then what only the
	 * bridge knows */
	if (cli_opt_value(d, value, &v, err, errlen))
		return -1;
	switch (k) {
	case BO_IN:
	case BO_OUT:
		if (!ifname_ok(value))
			return cli_opt_refuse(d, value, err, errlen);
		snprintf(k == BO_IN ? o->in : o->out, IF_NAMESIZE, "%s", value);
		break;
	case BO_RATE:
		if (!strcmp(value, "unlimited")) {
			o->rate_bps = 0;
			break;
		}
		if (*value == '-' || choke_tc_get_rate(value, 1, &x) || x < RATE_MIN_BPS / 8 ||
		    x > RATE_MAX_BPS / 8)
			return cli_opt_refuse(d, value, err, errlen);
		o->rate_bps = x * 8;
		break;
	case BO_BURST:
		o->burst_bytes = v.u;
		break;
	case BO_SEED:
		o->seed = v.u;
		break;
	case BO_WAIT:
		o->wait_s = (unsigned)v.u;
		break;
	case BO_SOCKET:
		if (strlen(value) >= sizeof(o->socket_path))
			return cli_opt_refuse(d, value, err, errlen);
		snprintf(o->socket_path, sizeof(o->socket_path), "%s", value);
		break;
	case BO_CONFIG:
		if (strlen(value) >= sizeof(o->config_file))
			return cli_opt_refuse(d, value, err, errlen);
		snprintf(o->config_file, sizeof(o->config_file), "%s", value);
		break;
	case BO_RX_RING:
		o->rx_v2 = v.i == 0; /* v2|v3 */
		break;
	case BO_BACKEND:
		o->xdp = v.i == 1; /* afpacket|xdp */
		break;
	case BO_BUSY_POLL:
		o->busy_poll_us = (int)v.u;
		break;
	case BO_DUPLEX:
		o->duplex = 1;
		break;
	case BO_ALLOW_MTU_MISMATCH:
		o->allow_mtu_mismatch = 1;
		break;
	}
	return 0;
}

/* keep the words in o->wordbuf */
static int set_words(struct bridge_opts *o, int n, char *const *w, int line,
		     char *err, size_t errlen)
{
	size_t used = 0, len;
	int i;

	if (n > BRIDGE_MAX_WORDS) {
		snprintf(err, errlen, "more than %d discipline words", BRIDGE_MAX_WORDS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		len = strlen(w[i]) + 1;
		if (used + len > sizeof(o->wordbuf)) {
			snprintf(err, errlen, "the discipline's words are longer than %zu bytes",
				 sizeof(o->wordbuf));
			return -1;
		}
		memcpy(o->wordbuf + used, w[i], len);
		used += len;
	}
	o->nwords = n;
	o->words_line = line;
	return 0;
}

int bridge_set_words(struct bridge_opts *o, int n, char *const *words, char *err,
		     size_t errlen)
{
	return set_words(o, n, words, 0, err, errlen);
}

int bridge_words(const struct bridge_opts *o, char **argv)
{
	char *p = (char *)o->wordbuf;
	int i;

	for (i = 0; i < o->nwords; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	return o->nwords;
}

/* Split a line into words at blanks, up to a '#' starting a word. */
static int split_line(char *s, char **w, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			*s++ = 0;
		if (!*s || *s == '#')
			return n;
		if (n == max)
			return -1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
	}
}

int bridge_config_read(struct bridge_opts *o, const char *path, char *err,
		       size_t errlen)
{
	struct bridge_opts t = *o, scratch, fw;
	char e[300], *w[BRIDGE_MAX_WORDS + 1], *line = NULL;
	FILE *f = fopen(path, "r");
	int lineno = 0, n, k, file_words = 0;
	size_t cap = 0, total = 0;
	ssize_t len;

	if (!f) {
		snprintf(err, errlen, "cannot read the configuration %s: %s", path,
			 strerror(errno));
		return -1;
	}
	memset(t.line, 0, sizeof(t.line));
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		total += (size_t)len;
		if (total > CONFIG_MAX_BYTES) {
			snprintf(err, errlen, "%s: longer than %d bytes", path, CONFIG_MAX_BYTES);
			goto fail;
		}
		if (len > CONFIG_MAX_LINE) {
			snprintf(err, errlen, "%s:%d: line longer than %d characters", path,
				 lineno, CONFIG_MAX_LINE);
			goto fail;
		}
		if (memchr(line, 0, (size_t)len)) {
			snprintf(err, errlen, "%s:%d: a NUL byte (not a text file?)", path, lineno);
			goto fail;
		}
		line[strcspn(line, "\n")] = 0;
		n = split_line(line, w, BRIDGE_MAX_WORDS + 1);
		if (n == 0)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s:%d: more than %d words", path, lineno,
				 BRIDGE_MAX_WORDS);
			goto fail;
		}
		k = find_opt(w[0][0] == '-' && w[0][1] == '-' ? w[0] + 2 : w[0]);
		if (k >= 0) {
			const char *name = bridge_options[k].name;

			if (bridge_options[k].flags & CLI_NO_FILE) {
				snprintf(err, errlen, "%s:%d: --%s cannot be given in a "
					 "configuration file", path, lineno, name);
				goto fail;
			}
			if (n > 2 || (n == 2) != (bridge_options[k].type != CLI_FLAG)) {
				snprintf(err, errlen, "%s:%d: %s %s", path, lineno, name,
					 bridge_options[k].type != CLI_FLAG ? "takes one value" :
					 "takes no value");
				goto fail;
			}
			if (t.line[k]) {
				snprintf(err, errlen, "%s:%d: %s given twice (first at line %d)",
					 path, lineno, name, t.line[k]);
				goto fail;
			}
			t.line[k] = lineno;
			/* checked even where the command line's value wins */
			scratch = t;
			if (bridge_opt_set(&scratch, name, n == 2 ? w[1] : NULL, e, sizeof(e))) {
				snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
				goto fail;
			}
			if (!(o->given & (1u << k)))
				bridge_opt_set(&t, name, n == 2 ? w[1] : NULL, e, sizeof(e));
			continue;
		}
		if (choke_kind_from_word(w[0]) < 0) {
			snprintf(err, errlen, "%s:%d: unknown option \"%s\" (a line holds an "
				 "option, e.g. `rate 20mbit`, or the discipline, starting with "
				 "choke, red or fifo)", path, lineno, w[0]);
			goto fail;
		}
		if (file_words) {
			snprintf(err, errlen, "%s:%d: a second discipline line (the first is "
				 "line %d)", path, lineno, file_words);
			goto fail;
		}
		file_words = lineno;
		if (set_words(&fw, n, w, lineno, e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (file_words) {
		/* checked with the rate they will run at, even where the command
		 * line's words run instead */
		struct choke_params p;

		fw.rate_bps = t.rate_bps;
		if (bridge_discipline(&fw, &p, e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: %s", path, file_words, e);
			goto fail;
		}
		if (!o->nwords || o->words_line) {
			memcpy(t.wordbuf, fw.wordbuf, sizeof(t.wordbuf));
			t.nwords = fw.nwords;
			t.words_line = file_words;
		}
	} else if (o->words_line) {
		t.nwords = t.words_line = 0; /* the line is gone: the default */
	}
	free(line);
	fclose(f);
	*o = t;
	return 0;
fail:
	free(line);
	fclose(f);
	return -1;
}

int bridge_discipline(const struct bridge_opts *o, struct choke_params *p, char *err,
		      size_t errlen)
{
	char *w[BRIDGE_MAX_WORDS + 4], *given[BRIDGE_MAX_WORDS], bw[32], e[CHOKE_ERRBUF_SIZE];
	int n = 0, i = 0, ng = bridge_words(o, given), kind = CHOKE_KIND_CHOKE, has_bw = 0;

	if (!ng) {
		w[n++] = "limit";
		w[n++] = "1000";
	} else if (choke_kind_from_word(given[0]) >= 0) {
		kind = choke_kind_from_word(given[0]);
		i = 1;
	}
	for (; i < ng; i++) {
		has_bw |= !strcmp(given[i], "bandwidth");
		w[n++] = given[i];
	}
	if (kind != CHOKE_KIND_FIFO && !has_bw) {
		/* the rate only shapes RED's idle damping */
		snprintf(bw, sizeof(bw), "%llubit",
			 (unsigned long long)(o->rate_bps ? o->rate_bps : 10000000000ull));
		w[n++] = "bandwidth";
		w[n++] = bw;
	}
	if (choke_params_parse(n, w, kind, NULL, p, e, sizeof(e))) {
		snprintf(err, errlen, "invalid %s parameters: %s", choke_kind_name(kind), e);
		return -1;
	}
	return 0;
}

int bridge_opts_check(const struct bridge_opts *o, char *err, size_t errlen)
{
	if (!o->in[0] || !o->out[0] || !(o->given & (1u << BO_RATE) || o->line[BO_RATE])) {
		snprintf(err, errlen, "--in, --out and --rate are required (on the command "
			 "line or in the --config file)");
		return -1;
	}
	if (!strcmp(o->in, o->out)) {
		snprintf(err, errlen, "--in and --out are the same interface");
		return -1;
	}
	if (o->busy_poll_us && !o->xdp) {
		snprintf(err, errlen, "--busy-poll needs --backend xdp");
		return -1;
	}
	if (o->xdp && (o->given & (1u << BO_RX_RING) || o->line[BO_RX_RING])) {
		snprintf(err, errlen, "--rx-ring is AF_PACKET's; --backend xdp has no "
			 "TPACKET ring");
		return -1;
	}
	return 0;
}

void bridge_default_socket(const char *in, char *buf, size_t len)
{
	snprintf(buf, len, "/run/choke/bridge-%s.sock", in);
}
