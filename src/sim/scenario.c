/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Scenario files, overrides and their resolution: see scenario.h. */
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rng.h"

#define NS 1e9

const struct sim_key sim_scenario_keys[] = {
	{ "name", SIM_KT_STR, "unnamed", 0, 0, "a label for the output" },
	{ "description", SIM_KT_STR, "", 0, 0, "free text, ignored" },
	{ "duration", SIM_KT_TIME, "100s", 0, 0, "simulated time in all" },
	{ "warmup", SIM_KT_TIME, "20s", 0, 0, "time at the start that is not measured" },
	{ "seed", SIM_KT_UINT, "1", 0, 18446744073709551615.0, "seed of every random choice" },
	{ "pkt_size", SIM_KT_SIZE, "1000", 64, 65535, "bytes of a data packet on the wire (TCP and UDP)" },
	{ "ack_size", SIM_KT_SIZE, "40", 20, 65535, "bytes of an ACK" },
	{ "bottleneck_rate", SIM_KT_BRATE, "1mbit", 0, 0, "bottleneck capacity (the c of rates like 2c)" },
	{ "bottleneck_delay", SIM_KT_TIME, "1ms", 0, 0, "bottleneck propagation delay (each way)" },
	{ "qdisc", SIM_KT_QDISC, "choke", 0, 0, "fifo | red | choke [tc words]" },
	{ "queue", SIM_KT_WORDS, "limit 300 min 100 max 200", 0, 0,
	  "tc words of the discipline (bandwidth and avpkt are added from the link and pkt_size when absent; fifo reads only limit)" },
	{ "sample_interval", SIM_KT_TIME, "100ms", 0, 0, "period of queue-position samples (0: none)" },
	{ "hh_counters", SIM_KT_UINT, "16", 1, 256, "counters of the penalised-flows summary (Space-Saving)" },
	{ "tcp_flows", SIM_KT_UINT, "32", 0, 1000000, "number of TCP NewReno flows" },
	{ "tcp_access_rate", SIM_KT_RATE, "10mbit", 0, 0, "each TCP sender's access link" },
	{ "tcp_access_delay", SIM_KT_RANGE, "1ms", 0, 0,
	  "access delay (each way); A..B spreads the flows evenly from A to B" },
	{ "tcp_access_limit", SIM_KT_UINT, "1000", 0, 100000000, "packets that may wait at a TCP access link (0: unbounded)" },
	{ "tcp_start", SIM_KT_RANGE, "0..1s", 0, 0, "start time; A..B draws each flow's uniformly" },
	{ "tcp_bytes", SIM_KT_SIZE, "0", 0, 1e15, "bytes per transfer (rounded up to packets); 0: unlimited" },
	{ "tcp_iw", SIM_KT_UINT, "0", 0, 100000, "initial window in packets; 0: RFC 5681's rule" },
	{ "tcp_rwnd", SIM_KT_UINT, "0", 0, 1000000000, "receiver window in packets; 0: unlimited" },
	{ "tcp_min_rto", SIM_KT_TIME, "1s", 0, 0, "minimum retransmission timeout (RFC 6298: 1 s)" },
	{ "tcp_init_rto", SIM_KT_TIME, "1s", 0, 0, "initial retransmission timeout" },
	{ "tcp_max_rto", SIM_KT_TIME, "60s", 0, 0, "maximum retransmission timeout" },
	{ "tcp_granularity", SIM_KT_TIME, "1ms", 0, 0, "clock granularity G of RFC 6298" },
	{ "tcp_dupthresh", SIM_KT_UINT, "3", 1, 1000, "duplicate ACKs that trigger fast retransmit" },
	{ "tcp_limited_transmit", SIM_KT_BOOL, "1", 0, 0, "RFC 3042 limited transmit" },
	{ "tcp_delack", SIM_KT_BOOL, "0", 0, 0, "receivers delay ACKs" },
	{ "tcp_delack_count", SIM_KT_UINT, "2", 1, 1000, "ACK every n-th segment when delaying" },
	{ "tcp_delack_timeout", SIM_KT_TIME, "200ms", 0, 0, "delayed-ACK timer" },
	{ "tcp_ecn", SIM_KT_BOOL, "0", 0, 0, "TCP uses ECN (RFC 3168); marking needs the queue's ecn word" },
	{ "tcp_timestamps", SIM_KT_BOOL, "0", 0, 0,
	  "RFC 7323 timestamps: every ACK that advances the window gives an RTT sample, retransmissions included (no Karn's rule), as Linux's TCP" },
	{ "tcp_hosts", SIM_KT_STR, "", 0, 0,
	  "the long TCP flows' hosts: flows per host in order (16,1,1,1; summing to tcp_flows); each host's share is reported" },
	{ "udp_flows", SIM_KT_UINT, "1", 0, 1000000, "number of unresponsive UDP flows" },
	{ "udp_rate", SIM_KT_RATE, "2c", 0, 0, "total UDP rate, shared equally by the UDP flows" },
	{ "udp_kind", SIM_KT_UDPKIND, "cbr", 0, 0, "cbr (constant gaps) | poisson" },
	{ "udp_jitter", SIM_KT_FRAC, "0", 0, 1,
	  "CBR: each packet is sent up to this fraction of its gap late (uniformly); 0: exact" },
	{ "udp_ecn", SIM_KT_BOOL, "0", 0, 0, "UDP packets are ECN-capable (marked instead of dropped early)" },
	{ "udp_access_rate", SIM_KT_RATE, "100mbit", 0, 0, "each UDP sender's access link" },
	{ "udp_access_delay", SIM_KT_RANGE, "1ms", 0, 0, "UDP access delay (each way); A..B spreads" },
	{ "udp_access_limit", SIM_KT_UINT, "1000", 0, 100000000, "packets that may wait at a UDP access link (0: unbounded)" },
	{ "udp_start", SIM_KT_RANGE, "0", 0, 0, "UDP start time; A..B draws each flow's uniformly" },
	{ "udp_schedule", SIM_KT_SCHED, "", 0, 0,
	  "when the floods send: A..B[,C..D]... (ascending; each period starts afresh); empty: always" },
	{ "light_flows", SIM_KT_UINT, "0", 0, 1000000,
	  "number of light UDP flows beside the floods (their own rate; reported apart)" },
	{ "light_rate", SIM_KT_RATE, "0.02c", 0, 0, "total rate of the light flows, shared equally" },
	{ "light_kind", SIM_KT_UDPKIND, "cbr", 0, 0, "light flows: cbr | poisson (udp_* access, start)" },
	{ "light_rtt", SIM_KT_BOOL, "0", 0, 0,
	  "report the light flows' round trips (median, 99th percentile): a ping through the queue" },
	{ "web_rate", SIM_KT_NUM, "0", 0, 100000,
	  "short TCP transfers arriving per second (Poisson, over the whole run); 0: none" },
	{ "web_size", SIM_KT_SIZE, "20k", 1, 1e12, "mean bytes of a transfer (rounded up to packets)" },
	{ "web_size_dist", SIM_KT_DIST, "fixed", 0, 0,
	  "transfer sizes: fixed | exp (exponential) | pareto (shape 1.2)" },
	{ "series_interval", SIM_KT_TIME, "0", 0, 0,
	  "per-interval time series of the whole run (0: none)" },
};
const unsigned sim_scenario_nkeys = sizeof(sim_scenario_keys) / sizeof(sim_scenario_keys[0]);

static int err_at(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int err_at(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void sim_scenario_write_keys(FILE *f)
{
	unsigned i;

	for (i = 0; i < sim_scenario_nkeys; i++)
		fprintf(f, "%-22s %-28s %s\n", sim_scenario_keys[i].name,
			sim_scenario_keys[i].def[0] ? sim_scenario_keys[i].def : "\"\"",
			sim_scenario_keys[i].help);
}

int sim_scenario_key(const char *name)
{
	unsigned i;

	for (i = 0; i < sim_scenario_nkeys; i++)
		if (!strcmp(sim_scenario_keys[i].name, name))
			return (int)i;
	return -1;
}

int sim_scenario_init(struct sim_scenario *sc)
{
	unsigned i;

	sc->val = calloc(sim_scenario_nkeys, sizeof(*sc->val));
	sc->where = calloc(sim_scenario_nkeys, sizeof(*sc->where));
	if (!sc->val || !sc->where) {
		sim_scenario_free(sc);
		return -1;
	}
	for (i = 0; i < sim_scenario_nkeys; i++) {
		sc->val[i] = strdup(sim_scenario_keys[i].def);
		if (!sc->val[i]) {
			sim_scenario_free(sc);
			return -1;
		}
		snprintf(sc->where[i], SIM_WHERE_LEN, "the default");
	}
	return 0;
}

void sim_scenario_free(struct sim_scenario *sc)
{
	unsigned i;

	if (sc->val)
		for (i = 0; i < sim_scenario_nkeys; i++)
			free(sc->val[i]);
	free(sc->val);
	free(sc->where);
	sc->val = NULL;
	sc->where = NULL;
}

int sim_scenario_copy(struct sim_scenario *dst, const struct sim_scenario *src)
{
	unsigned i;

	if (sim_scenario_init(dst))
		return -1;
	for (i = 0; i < sim_scenario_nkeys; i++) {
		char *v = strdup(src->val[i]);

		if (!v) {
			sim_scenario_free(dst);
			return -1;
		}
		free(dst->val[i]);
		dst->val[i] = v;
		memcpy(dst->where[i], src->where[i], SIM_WHERE_LEN);
	}
	return 0;
}

/* ---- value syntax ---- */

/* strtod that refuses NaN, infinities, hex and empty input */
static int parse_number(const char *s, double *v, const char **rest)
{
	char *end;
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	if (!(isdigit((unsigned char)*p) || *p == '.' ||
	      ((*p == '-' || *p == '+') && (isdigit((unsigned char)p[1]) || p[1] == '.'))))
		return -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -1;
	errno = 0;
	*v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(*v))
		return -1;
	*rest = end;
	return 0;
}

int sim_parse_time(const char *s, uint64_t *ns)
{
	double v, mul = NS;
	const char *u;

	if (parse_number(s, &v, &u) || v < 0)
		return -1;
	if (!*u || !strcmp(u, "s") || !strcmp(u, "sec"))
		mul = NS;
	else if (!strcmp(u, "ms") || !strcmp(u, "msec"))
		mul = 1e6;
	else if (!strcmp(u, "us") || !strcmp(u, "usec"))
		mul = 1e3;
	else if (!strcmp(u, "ns") || !strcmp(u, "nsec"))
		mul = 1;
	else
		return -1;
	v *= mul;
	if (v > 1e17) /* about three years */
		return -1;
	*ns = (uint64_t)llround(v);
	return 0;
}

int sim_parse_rate(const char *s, double cap_bps, double *bps)
{
	size_t n = strlen(s);
	uint64_t bytes;
	double v;
	const char *u;

	if (n > 1 && (s[n - 1] == 'c' || s[n - 1] == 'C') && cap_bps > 0) {
		if (parse_number(s, &v, &u) || strcasecmp(u, "c") || !(v > 0))
			return -1;
		*bps = v * cap_bps;
	} else {
		if (parse_number(s, &v, &u) || !(v > 0) || choke_tc_get_rate(s, 1, &bytes))
			return -1;
		/* tc's rates are whole bytes per second */
		*bps = (double)bytes * 8;
		if (!(*bps > 0))
			return -1;
	}
	if (*bps > 1e13) /* 10 Tbit/s */
		return -1;
	return 0;
}

/* A whole number: digits, or a decimal number with an exponent that is a
 * whole number (1e6, 2.5e3: what "%g" prints), up to 2^53 in that form. */
static int parse_uint(const char *s, double lo, double hi, uint64_t *out)
{
	const char *p = s, *u;
	uint64_t v = 0;
	double d;

	if (!*p)
		return -1;
	if (strpbrk(s, "eE")) {
		if (parse_number(s, &d, &u) || *u || d < 0 || d != floor(d) || d > 9007199254740992.0)
			return -1;
		v = (uint64_t)d;
	} else {
		for (; *p; p++) {
			uint64_t digit = (uint64_t)(*p - '0');

			if (!isdigit((unsigned char)*p) || v > (UINT64_MAX - digit) / 10)
				return -1;
			v = v * 10 + digit;
		}
	}
	if ((double)v < lo || (double)v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A bound of a key for messages: every digit, and 2^64 - 1 (which a double
 * holds as 2^64) as itself. */
static const char *bound(double b, char *buf, size_t len)
{
	if (b >= 18446744073709551615.0)
		snprintf(buf, len, "%llu", (unsigned long long)UINT64_MAX);
	else
		snprintf(buf, len, "%.0f", b);
	return buf;
}

static int parse_frac(const char *s, double *v)
{
	const char *u;

	if (parse_number(s, v, &u) || *u || *v < 0 || *v > 1)
		return -1;
	return 0;
}

static int parse_bool(const char *s, int *b)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") ||
	    !strcasecmp(s, "true"))
		*b = 1;
	else if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off") ||
		 !strcasecmp(s, "false"))
		*b = 0;
	else
		return -1;
	return 0;
}

static int parse_size(const char *s, double lo, double hi, uint64_t *out)
{
	double v, mul = 1;
	const char *u;

	if (parse_number(s, &v, &u) || v < 0)
		return -1;
	if (!*u || !strcasecmp(u, "b"))
		mul = 1;
	else if (!strcasecmp(u, "k") || !strcasecmp(u, "kb"))
		mul = 1e3;
	else if (!strcasecmp(u, "m") || !strcasecmp(u, "mb"))
		mul = 1e6;
	else if (!strcasecmp(u, "g") || !strcasecmp(u, "gb"))
		mul = 1e9;
	else
		return -1;
	v *= mul;
	if (v != floor(v) || v < lo || v > hi)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int parse_range(const char *s, uint64_t *a, uint64_t *b);

/* A number in [lo, hi]. */
static int parse_num(const char *s, double lo, double hi, double *v)
{
	const char *u;

	if (parse_number(s, v, &u) || *u || *v < lo || *v > hi)
		return -1;
	return 0;
}

#define SIM_PERIODS_MAX 1000

/* "" or "A..B,C..D,...": on periods, each A < B, ascending. Returns the
 * number of periods (into p if not NULL, at most SIM_PERIODS_MAX), or -1. */
static int parse_sched(const char *s, struct sim_period *p)
{
	uint64_t last = 0;
	int n = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char buf[128], *t = buf, *e;
		uint64_t a, b;

		if (len >= sizeof(buf) || n >= SIM_PERIODS_MAX)
			return -1;
		memcpy(buf, s, len);
		buf[len] = 0;
		while (isspace((unsigned char)*t))
			t++;
		e = t + strlen(t);
		while (e > t && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (!strstr(t, "..") || parse_range(t, &a, &b) || a >= b || (n && a < last))
			return -1;
		if (p) {
			p[n].on = a;
			p[n].off = b;
		}
		last = b;
		n++;
		if (!comma)
			return n;
		s = comma + 1;
	}
}

/* "A" or "A..B" of times */
static int parse_range(const char *s, uint64_t *a, uint64_t *b)
{
	const char *dots = strstr(s, "..");
	char buf[64];

	if (!dots) {
		if (sim_parse_time(s, a))
			return -1;
		*b = *a;
		return 0;
	}
	if ((size_t)(dots - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(dots - s));
	buf[dots - s] = 0;
	if (sim_parse_time(buf, a) || sim_parse_time(dots + 2, b) || *b < *a)
		return -1;
	return 0;
}

/* first word of s (at most len - 1 characters) */
static const char *first_word(const char *s, char *w, size_t len)
{
	size_t n = 0;

	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s)) {
		if (n + 1 < len)
			w[n++] = *s;
		s++;
	}
	w[n] = 0;
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static const char *type_hint(int type)
{
	switch (type) {
	case SIM_KT_UINT:
		return "a whole number";
	case SIM_KT_BOOL:
		return "0 or 1 (yes/no, on/off)";
	case SIM_KT_TIME:
		return "a time such as 100s, 20ms, 50us (seconds without a unit)";
	case SIM_KT_RANGE:
		return "a time or a range of times such as 1ms..50ms";
	case SIM_KT_RATE:
		return "a rate in tc's syntax (10mbit, 1gbit, 125000Bps) or a multiple of the bottleneck rate (2c, 0.5c)";
	case SIM_KT_BRATE:
		return "a rate in tc's syntax (10mbit, 1gbit, 125000Bps)";
	case SIM_KT_SIZE:
		return "a size in bytes (1000, 64k, 1m)";
	case SIM_KT_QDISC:
		return "fifo, red or choke, optionally followed by tc words";
	case SIM_KT_FRAC:
		return "a number from 0 to 1";
	case SIM_KT_UDPKIND:
		return "cbr or poisson";
	case SIM_KT_SCHED:
		return "periods such as 20s..50s,70s..90s (ascending, not overlapping), or nothing";
	case SIM_KT_NUM:
		return "a number";
	case SIM_KT_DIST:
		return "fixed, exp or pareto";
	}
	return "text";
}

/* Syntax check of one value against its key's type. */
static int check_value(const struct sim_key *k, const char *v)
{
	uint64_t u, a, b;
	double r;
	int x;
	char w[16];

	switch (k->type) {
	case SIM_KT_STR:
	case SIM_KT_WORDS:
		return 0;
	case SIM_KT_UINT:
		return parse_uint(v, k->min, k->max, &u);
	case SIM_KT_BOOL:
		return parse_bool(v, &x);
	case SIM_KT_TIME:
		return sim_parse_time(v, &u);
	case SIM_KT_RANGE:
		return parse_range(v, &a, &b);
	case SIM_KT_RATE:
		return sim_parse_rate(v, 1, &r);
	case SIM_KT_BRATE:
		return sim_parse_rate(v, 0, &r);
	case SIM_KT_SIZE:
		return parse_size(v, k->min, k->max, &u);
	case SIM_KT_FRAC:
		return parse_frac(v, &r);
	case SIM_KT_QDISC:
		first_word(v, w, sizeof(w));
		return choke_kind_from_word(w) < 0 ? -1 : 0;
	case SIM_KT_UDPKIND:
		return strcmp(v, "cbr") && strcmp(v, "poisson") ? -1 : 0;
	case SIM_KT_SCHED:
		return parse_sched(v, NULL) < 0 ? -1 : 0;
	case SIM_KT_NUM:
		return parse_num(v, k->min, k->max, &r);
	case SIM_KT_DIST:
		return strcmp(v, "fixed") && strcmp(v, "exp") && strcmp(v, "pareto") ? -1 : 0;
	}
	return -1;
}

int sim_scenario_set(struct sim_scenario *sc, const char *key, const char *value,
		     const char *where, char *err, size_t errlen)
{
	int i = sim_scenario_key(key);
	const struct sim_key *k;
	char *v, lo[32], hi[32];

	if (i < 0)
		return err_at(err, errlen, "%s: unknown key \"%s\" (choke sim --keys lists them)",
			      where, key);
	k = &sim_scenario_keys[i];
	if (strlen(value) > 4000)
		return err_at(err, errlen, "%s: %s: value too long", where, key);
	if (check_value(k, value)) {
		if (k->type == SIM_KT_UINT || k->type == SIM_KT_NUM ||
		    (k->type == SIM_KT_SIZE && k->max > 0))
			return err_at(err, errlen, "%s: %s = \"%s\": expected %s in [%s, %s]",
				      where, key, value, type_hint(k->type),
				      bound(k->min, lo, sizeof(lo)), bound(k->max, hi, sizeof(hi)));
		return err_at(err, errlen, "%s: %s = \"%s\": expected %s", where, key,
			      value, type_hint(k->type));
	}
	v = strdup(value);
	if (!v)
		return err_at(err, errlen, "out of memory");
	free(sc->val[i]);
	sc->val[i] = v;
	snprintf(sc->where[i], SIM_WHERE_LEN, "%s", where);
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int sim_scenario_set_kv(struct sim_scenario *sc, const char *kv, const char *where,
			char *err, size_t errlen)
{
	char buf[4096], *eq, *k, *v;

	if (strlen(kv) >= sizeof(buf))
		return err_at(err, errlen, "%s: too long", where);
	strcpy(buf, kv);
	eq = strchr(buf, '=');
	if (!eq)
		return err_at(err, errlen, "%s: \"%s\" is not key=value", where, kv);
	*eq = 0;
	k = trim(buf);
	v = trim(eq + 1);
	if (!*k)
		return err_at(err, errlen, "%s: \"%s\" has no key", where, kv);
	return sim_scenario_set(sc, k, v, where, err, errlen);
}

int sim_scenario_parse(struct sim_scenario *sc, const char *text, const char *path,
		       char *err, size_t errlen)
{
	const char *p = text;
	unsigned line = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char buf[4096], where[SIM_WHERE_LEN], *s, *hash, *eq;

		line++;
		if (n >= sizeof(buf))
			return err_at(err, errlen, "%s:%u: line too long", path, line);
		memcpy(buf, p, n);
		buf[n] = 0;
		p += n + (nl ? 1 : 0);
		if (memchr(buf, 0, n) != NULL || strlen(buf) != n)
			return err_at(err, errlen, "%s:%u: a NUL byte (not a text file?)", path, line);
		hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		s = trim(buf);
		if (!*s)
			continue;
		snprintf(where, sizeof(where), "%.70s:%u", path, line);
		eq = strchr(s, '=');
		if (!eq)
			return err_at(err, errlen, "%s: expected key = value, not \"%.60s\"",
				      where, s);
		if (sim_scenario_set_kv(sc, s, where, err, errlen))
			return -1;
	}
	return 0;
}

int sim_scenario_load(struct sim_scenario *sc, const char *path, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text;
	size_t n;
	int r;

	if (!f)
		return err_at(err, errlen, "%s: %s", path, strerror(errno));
	text = malloc(1 << 20);
	if (!text) {
		fclose(f);
		return err_at(err, errlen, "out of memory");
	}
	n = fread(text, 1, (1 << 20) - 1, f);
	if (ferror(f)) {
		fclose(f);
		free(text);
		return err_at(err, errlen, "%s: read error", path);
	}
	if (n == (1 << 20) - 1 && fgetc(f) != EOF) {
		fclose(f);
		free(text);
		return err_at(err, errlen, "%s: larger than 1 MiB: not a scenario", path);
	}
	fclose(f);
	text[n] = 0;
	if (strlen(text) != n) {
		free(text);
		return err_at(err, errlen, "%s: contains NUL bytes: not a scenario", path);
	}
	r = sim_scenario_parse(sc, text, path, err, errlen);
	free(text);
	return r;
}

int sim_scenario_builtin(struct sim_scenario *sc, char *err, size_t errlen)
{
	if (sim_scenario_init(sc))
		return err_at(err, errlen, "out of memory");
	if (sim_scenario_parse(sc, sim_paper_scenario, "(built-in paper-single-link)", err,
			       errlen)) {
		sim_scenario_free(sc);
		return -1;
	}
	return 0;
}

/* ---- resolution ---- */

static const char *val(const struct sim_scenario *sc, const char *key, int *idx)
{
	int i = sim_scenario_key(key);

	*idx = i;
	return sc->val[i];
}

#define BAD(i, why)                                                            \
	err_at(err, errlen, "%s: %s = \"%s\": %s", sc->where[i],               \
	       sim_scenario_keys[i].name, sc->val[i], why)

static int get_time(const struct sim_scenario *sc, const char *key, uint64_t *ns,
		    char *err, size_t errlen)
{
	int i;

	if (sim_parse_time(val(sc, key, &i), ns))
		return BAD(i, type_hint(SIM_KT_TIME));
	return 0;
}

static int get_uint(const struct sim_scenario *sc, const char *key, uint64_t *u,
		    char *err, size_t errlen)
{
	int i;
	const char *v = val(sc, key, &i);

	if (sim_scenario_keys[i].type == SIM_KT_SIZE) {
		if (parse_size(v, sim_scenario_keys[i].min, sim_scenario_keys[i].max, u))
			return BAD(i, "out of range or not a size");
	} else if (parse_uint(v, sim_scenario_keys[i].min, sim_scenario_keys[i].max, u)) {
		return BAD(i, "not a whole number in range");
	}
	return 0;
}

static int get_bool(const struct sim_scenario *sc, const char *key, int *b,
		    char *err, size_t errlen)
{
	int i;

	if (parse_bool(val(sc, key, &i), b))
		return BAD(i, type_hint(SIM_KT_BOOL));
	return 0;
}

static int get_rate(const struct sim_scenario *sc, const char *key, double cap,
		    double *bps, char *err, size_t errlen)
{
	int i;

	if (sim_parse_rate(val(sc, key, &i), cap, bps))
		return BAD(i, "not a rate above 0 and up to 10 Tbit/s");
	return 0;
}

static int get_range(const struct sim_scenario *sc, const char *key, uint64_t *a,
		     uint64_t *b, char *err, size_t errlen)
{
	int i;

	if (parse_range(val(sc, key, &i), a, b))
		return BAD(i, type_hint(SIM_KT_RANGE));
	return 0;
}

/* The discipline: kind from qdisc (whose optional words replace queue),
 * words with bandwidth and avpkt supplied. */
static int resolve_queue(const struct sim_scenario *sc, struct sim_setup *out,
			 double btl_bps, uint32_t pkt_size, char *err, size_t errlen)
{
	int iq, iw, kind, argc = 0, has_bw = 0, has_avpkt = 0, j;
	const char *qv = val(sc, "qdisc", &iq), *words;
	char kw[16], buf[4200], bw[64], av[32], perr[CHOKE_ERRBUF_SIZE];
	char *argv[260], *tok, *save;
	const char *src;

	words = first_word(qv, kw, sizeof(kw));
	kind = choke_kind_from_word(kw);
	if (kind < 0)
		return BAD(iq, type_hint(SIM_KT_QDISC));
	snprintf(out->qdisc, sizeof(out->qdisc), "%s", kw);
	src = sc->where[iq];
	if (!*words) {
		words = val(sc, "queue", &iw);
		src = sc->where[iw];
	} else {
		iw = iq;
	}
	snprintf(buf, sizeof(buf), "%s", words);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (argc >= 256)
			return err_at(err, errlen, "%s: too many queue words", src);
		argv[argc++] = tok;
	}
	if (kind == CHOKE_KIND_FIFO) {
		/* fifo takes only the limit from the shared words */
		int n = 0;

		for (j = 0; j < argc; j++) {
			if (!strcmp(argv[j], "limit") && j + 1 < argc) {
				argv[n++] = argv[j];
				argv[n++] = argv[j + 1];
				j++;
			} else if (!strcmp(argv[j], "limit")) {
				argv[n++] = argv[j];
			} else if (!strcmp(argv[j], "min") || !strcmp(argv[j], "max") ||
				   !strcmp(argv[j], "burst") || !strcmp(argv[j], "avpkt") ||
				   !strcmp(argv[j], "probability") ||
				   !strcmp(argv[j], "bandwidth")) {
				j++; /* a RED word and its value: not fifo's */
			}
		}
		argc = n;
	} else {
		for (j = 0; j < argc; j++) {
			if (!strcmp(argv[j], "bandwidth"))
				has_bw = 1;
			if (!strcmp(argv[j], "avpkt"))
				has_avpkt = 1;
		}
		if (!has_bw && argc + 2 <= 258) {
			snprintf(bw, sizeof(bw), "%.0fbit", btl_bps);
			argv[argc++] = "bandwidth";
			argv[argc++] = bw;
		}
		if (!has_avpkt && argc + 2 <= 260) {
			snprintf(av, sizeof(av), "%u", pkt_size);
			argv[argc++] = "avpkt";
			argv[argc++] = av;
		}
	}
	if (choke_params_parse(argc, argv, kind, NULL, &out->qp, perr, sizeof(perr)))
		return err_at(err, errlen, "%s: %s \"%s\": %s", src,
			      iw == iq ? "qdisc" : "queue", words, perr);
	out->cfg.qcfg = out->qp.cfg;
	choke_params_format(&out->qp.cfg, out->qline, sizeof(out->qline));
	return 0;
}

/* tcp_hosts: "" (none), or flows per host "16,1,1,1" summing to ntcp; the
 * long TCP flows get their hosts in that order. The number of hosts, or -1. */
static int resolve_hosts(const char *v, uint64_t ntcp, struct sim_flow_cfg *flows)
{
	uint64_t sum = 0, n;
	uint32_t h = 0, f = 0;
	const char *p = v;
	char *end;

	if (!*v)
		return 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		n = strtoull(p, &end, 10);
		if (errno || !n || n > ntcp || sum + n > ntcp || h == 1000000)
			return -1;
		sum += n;
		h++;
		if (flows)
			while (n--)
				flows[f++].host = h;
		if (!*end)
			break;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
	return sum == ntcp ? (int)h : -1;
}

/* The light UDP flows and the short TCP transfers, after the floods. */
static void resolve_more(struct sim_setup *out, double tcp_acc, double udp_acc,
			 double light_rate, uint64_t tcp_lim, uint64_t udp_lim, uint64_t tcp_da,
			 uint64_t tcp_db, uint64_t udp_da, uint64_t udp_db, uint64_t us_a,
			 uint64_t us_b, int udp_ect, double udp_jitter, int light_poisson,
			 const double *web_at)
{
	struct sim_config *c = &out->cfg;
	struct sim_rng rl, rw;
	uint32_t j;
	/* pareto: shape 1.2, scale from the mean (mean = scale 1.2 / 0.2) */
	const double alpha = 1.2;

	sim_rng_seed(&rl, c->seed, 9);
	sim_rng_seed(&rw, c->seed, 10);
	for (j = 0; j < out->nlight; j++) {
		struct sim_flow_cfg *fc = &out->flows[c->nflows++];

		fc->cls = SIM_UDP;
		fc->group = SIM_G_LIGHT;
		fc->access_bps = (uint64_t)udp_acc ? (uint64_t)udp_acc : 1;
		fc->access_delay_ns = out->nlight > 1 ?
			udp_da + (uint64_t)((double)(udp_db - udp_da) * j / (out->nlight - 1)) : udp_da;
		fc->access_limit = (uint32_t)udp_lim;
		fc->start_ns = us_a + (us_b > us_a ? sim_rng_below(&rl, us_b - us_a + 1) : 0);
		fc->rate_bps = light_rate / (double)out->nlight;
		fc->poisson = (uint8_t)light_poisson;
		fc->ect = (uint8_t)udp_ect;
		fc->jitter = udp_jitter;
	}
	for (j = 0; j < out->nweb; j++) {
		struct sim_flow_cfg *fc = &out->flows[c->nflows++];
		double size = out->web_size, pk;

		fc->cls = SIM_TCP;
		fc->group = SIM_G_WEB;
		fc->access_bps = (uint64_t)tcp_acc ? (uint64_t)tcp_acc : 1;
		fc->access_delay_ns = tcp_da + (tcp_db > tcp_da ?
						sim_rng_below(&rw, tcp_db - tcp_da + 1) : 0);
		fc->access_limit = (uint32_t)tcp_lim;
		fc->start_ns = (uint64_t)(web_at[j] * 1e9);
		if (!strcmp(out->web_dist, "exp"))
			size = -log1p(-sim_rng_uniform(&rw)) * out->web_size;
		else if (!strcmp(out->web_dist, "pareto"))
			size = out->web_size * (alpha - 1) / alpha /
			       pow(1 - sim_rng_uniform(&rw), 1 / alpha);
		pk = ceil(size / c->pkt_size);
		fc->segments = pk < 1 ? 1 : pk > 0x7fffffff ? 0x7fffffffu : (uint32_t)pk;
	}
}

int sim_scenario_resolve(const struct sim_scenario *sc, struct sim_setup *out,
			 char *err, size_t errlen)
{
	struct sim_config *c = &out->cfg;
	uint64_t u, ntcp, nudp, tcp_da, tcp_db, udp_da, udp_db, ts_a, ts_b, us_a, us_b;
	uint64_t tcp_lim, udp_lim, tbytes, nlight, wsize, nweb = 0;
	double btl, tcp_acc, udp_acc, udp_rate, udp_jitter, light_rate, web_rate;
	int b, i, udp_poisson, udp_ect, nper;
	uint32_t f;
	struct sim_rng rng;
	double *web_at = NULL;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", val(sc, "name", &i));
	if (get_time(sc, "duration", &c->duration_ns, err, errlen) ||
	    get_time(sc, "warmup", &c->warmup_ns, err, errlen) ||
	    get_uint(sc, "seed", &c->seed, err, errlen))
		return -1;
	if (!c->duration_ns || c->warmup_ns >= c->duration_ns) {
		val(sc, "warmup", &i);
		return err_at(err, errlen, "%s: warmup (%s) must be shorter than the duration (%s)",
			      sc->where[i], sc->val[i], val(sc, "duration", &b));
	}
	if (get_uint(sc, "pkt_size", &u, err, errlen))
		return -1;
	c->pkt_size = (uint32_t)u;
	if (get_uint(sc, "ack_size", &u, err, errlen))
		return -1;
	c->ack_size = (uint32_t)u;
	if (get_rate(sc, "bottleneck_rate", 0, &btl, err, errlen))
		return -1;
	if (btl < 8000) {
		val(sc, "bottleneck_rate", &i);
		return BAD(i, "below 8 kbit/s");
	}
	c->btl_bps = (uint64_t)btl;
	if (get_time(sc, "bottleneck_delay", &c->btl_delay_ns, err, errlen) ||
	    get_time(sc, "sample_interval", &c->sample_ns, err, errlen))
		return -1;
	if (get_uint(sc, "hh_counters", &u, err, errlen))
		return -1;
	c->hh_counters = (uint32_t)u;
	if (c->sample_ns && c->sample_ns < 1000) {
		val(sc, "sample_interval", &i);
		return BAD(i, "below 1 us (use 0 for no samples)");
	}
	if (resolve_queue(sc, out, btl, c->pkt_size, err, errlen))
		return -1;

	/* TCP */
	tcp_params_default(&c->tcp);
	c->tcp.mss = c->pkt_size;
	if (get_uint(sc, "tcp_iw", &u, err, errlen))
		return -1;
	c->tcp.iw = (uint32_t)u;
	if (get_uint(sc, "tcp_rwnd", &u, err, errlen))
		return -1;
	c->tcp.rwnd = (uint32_t)u;
	if (get_uint(sc, "tcp_dupthresh", &u, err, errlen))
		return -1;
	c->tcp.dupthresh = (uint32_t)u;
	if (get_uint(sc, "tcp_delack_count", &u, err, errlen))
		return -1;
	c->tcp.delack_count = (uint32_t)u;
	if (get_uint(sc, "tcp_bytes", &tbytes, err, errlen))
		return -1;
	if (tbytes) {
		uint64_t segs = (tbytes + c->pkt_size - 1) / c->pkt_size;

		if (segs > 0x7fffffffu) {
			val(sc, "tcp_bytes", &i);
			return BAD(i, "more than 2^31 packets");
		}
		c->tcp.segments = (uint32_t)segs;
	}
	if (get_time(sc, "tcp_min_rto", &c->tcp.min_rto, err, errlen) ||
	    get_time(sc, "tcp_init_rto", &c->tcp.init_rto, err, errlen) ||
	    get_time(sc, "tcp_max_rto", &c->tcp.max_rto, err, errlen) ||
	    get_time(sc, "tcp_granularity", &c->tcp.granularity, err, errlen) ||
	    get_time(sc, "tcp_delack_timeout", &c->tcp.delack_timeout, err, errlen))
		return -1;
	if (!c->tcp.init_rto || !c->tcp.max_rto || c->tcp.min_rto > c->tcp.max_rto ||
	    c->tcp.init_rto > c->tcp.max_rto) {
		val(sc, "tcp_max_rto", &i);
		return err_at(err, errlen, "tcp_min_rto, tcp_init_rto and tcp_max_rto: need "
			      "0 < init <= max and min <= max (tcp_max_rto from %s)", sc->where[i]);
	}
	if (!c->tcp.delack_timeout) {
		val(sc, "tcp_delack_timeout", &i);
		return BAD(i, "must be above 0");
	}
	if (get_bool(sc, "tcp_delack", &b, err, errlen))
		return -1;
	c->tcp.delack = b;
	if (get_bool(sc, "tcp_ecn", &b, err, errlen))
		return -1;
	c->tcp.ecn = b;
	if (get_bool(sc, "tcp_limited_transmit", &b, err, errlen))
		return -1;
	c->tcp.limited_transmit = b;
	if (get_bool(sc, "tcp_timestamps", &b, err, errlen))
		return -1;
	c->tcp.timestamps = b;

	/* the time series */
	if (get_time(sc, "series_interval", &c->series_ns, err, errlen))
		return -1;
	if (c->series_ns && (c->series_ns < 1000 ||
			     (c->duration_ns + c->series_ns - 1) / c->series_ns > SIM_SERIES_MAX)) {
		val(sc, "series_interval", &i);
		return BAD(i, "below 1 us, or more than 1000000 intervals in the duration");
	}

	/* flows */
	if (get_uint(sc, "tcp_flows", &ntcp, err, errlen) ||
	    get_uint(sc, "udp_flows", &nudp, err, errlen) ||
	    get_uint(sc, "light_flows", &nlight, err, errlen) ||
	    get_uint(sc, "web_size", &wsize, err, errlen))
		return -1;
	val(sc, "web_rate", &i);
	if (parse_num(sc->val[i], sim_scenario_keys[i].min, sim_scenario_keys[i].max, &web_rate))
		return BAD(i, "expected a number from 0 to 100000");
	if (web_rate * ((double)c->duration_ns * 1e-9) > 1000000) {
		val(sc, "web_rate", &i);
		return err_at(err, errlen, "%s: web_rate = \"%s\": about %.3g transfers in the "
			      "duration; at most 1000000 flows in all", sc->where[i], sc->val[i],
			      web_rate * ((double)c->duration_ns * 1e-9));
	}
	if (web_rate > 0) {
		/* the arrivals: a Poisson process over the whole run */
		size_t cap = 1024;
		double t = 0;
		struct sim_rng wr;

		web_at = malloc(cap * sizeof(*web_at));
		if (!web_at)
			return err_at(err, errlen, "out of memory");
		sim_rng_seed(&wr, c->seed, 8);
		for (;;) {
			t += -log1p(-sim_rng_uniform(&wr)) / web_rate;
			if (t * 1e9 >= (double)c->duration_ns)
				break;
			if (nweb == cap) {
				double *nw = realloc(web_at, 2 * cap * sizeof(*web_at));

				if (!nw) {
					free(web_at);
					return err_at(err, errlen, "out of memory");
				}
				web_at = nw;
				cap *= 2;
			}
			web_at[nweb++] = t;
		}
	}
	if (ntcp + nudp + nlight + nweb == 0) {
		free(web_at);
		return err_at(err, errlen, "no flows: tcp_flows and udp_flows are both 0");
	}
	if (ntcp + nudp + nlight + nweb > 1000000) {
		free(web_at);
		return err_at(err, errlen, "more than 1000000 flows");
	}
	nper = parse_sched(val(sc, "udp_schedule", &i), NULL);
	if (nper < 0) {
		free(web_at);
		return BAD(i, type_hint(SIM_KT_SCHED));
	}
	if (nper) {
		out->periods = calloc((size_t)nper, sizeof(*out->periods));
		if (!out->periods) {
			free(web_at);
			return err_at(err, errlen, "out of memory");
		}
		parse_sched(sc->val[i], out->periods);
		out->nperiods = (uint32_t)nper;
	}
	if (resolve_hosts(val(sc, "tcp_hosts", &i), ntcp, NULL) < 0) {
		char why[96];

		free(web_at);
		sim_setup_free(out);
		snprintf(why, sizeof(why), "expected flows per host such as 16,1,1,1, summing "
			 "to tcp_flows (%llu)", (unsigned long long)ntcp);
		return BAD(i, why);
	}
	if (get_rate(sc, "tcp_access_rate", btl, &tcp_acc, err, errlen) ||
	    get_rate(sc, "udp_access_rate", btl, &udp_acc, err, errlen) ||
	    get_rate(sc, "udp_rate", btl, &udp_rate, err, errlen) ||
	    get_rate(sc, "light_rate", btl, &light_rate, err, errlen) ||
	    get_range(sc, "tcp_access_delay", &tcp_da, &tcp_db, err, errlen) ||
	    get_range(sc, "udp_access_delay", &udp_da, &udp_db, err, errlen) ||
	    get_range(sc, "tcp_start", &ts_a, &ts_b, err, errlen) ||
	    get_range(sc, "udp_start", &us_a, &us_b, err, errlen) ||
	    get_uint(sc, "tcp_access_limit", &tcp_lim, err, errlen) ||
	    get_uint(sc, "udp_access_limit", &udp_lim, err, errlen) ||
	    get_bool(sc, "udp_ecn", &udp_ect, err, errlen) ||
	    get_bool(sc, "light_rtt", &c->light_rtt, err, errlen)) {
		free(web_at);
		sim_setup_free(out);
		return -1;
	}
	udp_poisson = !strcmp(val(sc, "udp_kind", &i), "poisson");
	if (parse_frac(val(sc, "udp_jitter", &i), &udp_jitter)) {
		free(web_at);
		sim_setup_free(out);
		return BAD(i, type_hint(SIM_KT_FRAC));
	}
	if ((nudp && udp_rate / (double)nudp < c->pkt_size * 8.0 / 1000) ||
	    (nlight && light_rate / (double)nlight < c->pkt_size * 8.0 / 1000)) {
		/* fewer than one packet per 1000 s: almost certainly a typo */
		val(sc, nudp && udp_rate / (double)nudp < c->pkt_size * 8.0 / 1000 ?
			"udp_rate" : "light_rate", &i);
		free(web_at);
		sim_setup_free(out);
		return BAD(i, "too low for a packet every 1000 s per flow");
	}
	out->ntcp = (uint32_t)ntcp;
	out->nudp = (uint32_t)nudp;
	out->udp_rate_bps = nudp ? udp_rate : 0;
	out->udp_rate_c = out->udp_rate_bps / btl;
	out->nlight = (uint32_t)nlight;
	out->nweb = (uint32_t)nweb;
	out->light_rate_bps = nlight ? light_rate : 0;
	out->web_rate = web_rate;
	out->web_size = (double)wsize;
	snprintf(out->web_dist, sizeof(out->web_dist), "%s", val(sc, "web_size_dist", &i));
	c->extended = nlight || web_rate > 0 || nper || c->series_ns;
	out->flows = calloc(ntcp + nudp + nlight + nweb, sizeof(*out->flows));
	if (!out->flows) {
		free(web_at);
		sim_setup_free(out);
		return err_at(err, errlen, "out of memory");
	}
	c->flows = out->flows;
	c->nflows = (uint32_t)(ntcp + nudp);
	sim_rng_seed(&rng, c->seed, 7);
	for (f = 0; f < c->nflows; f++) {
		struct sim_flow_cfg *fc = &out->flows[f];
		int tcp = f < ntcp;
		uint32_t n = tcp ? (uint32_t)ntcp : (uint32_t)nudp, j = tcp ? f : f - (uint32_t)ntcp;
		uint64_t da = tcp ? tcp_da : udp_da, db = tcp ? tcp_db : udp_db;
		uint64_t sa = tcp ? ts_a : us_a, sb = tcp ? ts_b : us_b;

		fc->cls = tcp ? SIM_TCP : SIM_UDP;
		fc->access_bps = (uint64_t)(tcp ? tcp_acc : udp_acc);
		if (!fc->access_bps)
			fc->access_bps = 1;
		fc->access_delay_ns = n > 1 ? da + (uint64_t)((double)(db - da) * j / (n - 1)) : da;
		fc->access_limit = (uint32_t)(tcp ? tcp_lim : udp_lim);
		fc->start_ns = sa + (sb > sa ? sim_rng_below(&rng, sb - sa + 1) : 0);
		fc->group = tcp ? SIM_G_TCP : SIM_G_FLOOD;
		if (!tcp) {
			fc->rate_bps = udp_rate / (double)nudp;
			fc->poisson = (uint8_t)udp_poisson;
			fc->ect = (uint8_t)udp_ect;
			fc->jitter = udp_jitter;
			fc->nperiods = out->nperiods;
			fc->periods = out->periods;
		}
	}
	out->nhosts = (uint32_t)resolve_hosts(val(sc, "tcp_hosts", &i), ntcp, out->flows);
	if (nlight || nweb)
		resolve_more(out, tcp_acc, udp_acc, light_rate, tcp_lim, udp_lim, tcp_da, tcp_db,
			     udp_da, udp_db, us_a, us_b, udp_ect, udp_jitter,
			     !strcmp(val(sc, "light_kind", &i), "poisson"), web_at);
	free(web_at);
	return 0;
}

void sim_setup_free(struct sim_setup *s)
{
	free(s->flows);
	s->flows = NULL;
	free(s->periods);
	s->periods = NULL;
	s->nperiods = 0;
}

/* Keep in step with scenarios/paper-single-link (tests/sim.sh checks). */
const char sim_paper_scenario[] =
#include "paper_scenario.h"
	;
