// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * tc-compatible parameter derivation for choke (and our packet-mode red).
 *
 * The numbers must be bit-identical to what iproute2 6.1 sends the kernel,
 * so the float-to-integer conversions tc performs implicitly (several of
 * them out of range, i.e. undefined in C) are written out explicitly here as
 * gcc compiles them on x86-64: a conversion to a 32-bit unsigned goes
 * through a 64-bit signed truncation (out of range: 2^63, whose low 32 bits
 * are 0), a conversion to a byte through a 32-bit signed truncation (out of
 * range: 2^31, low byte 0). The test vectors in tests/vectors/params.vec,
 * taken from stock tc, pin every one of these down.
 */
#include "choke/params.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* tc's TIME_UNITS_PER_SEC and its tick length: tc reads /proc/net/psched
 * (1000 ns per us, 64 ns per tick on every kernel since 2.6.31), giving
 * 15.625 ticks per microsecond. */
#define TC_TIME_UNITS_PER_SEC 1000000.0
#define TC_TICKS_PER_USEC 15.625

/* ---- conversions as compiled by gcc for x86-64 ---- */

/* double -> unsigned int (cvttsd2si to 64 bits, keep the low 32) */
static uint32_t cvt_u32(double d)
{
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return 0;
	return (uint32_t)(uint64_t)(int64_t)d;
}

/* double -> unsigned char (cvttsd2si to 32 bits, keep the low 8) */
static uint8_t cvt_u8(double d)
{
	if (!(d > -2147483649.0 && d < 2147483648.0))
		return 0;
	return (uint8_t)(uint32_t)(int32_t)d;
}

/* (int)(1 << n) for 0 <= n < 32, with the sign bit as tc gets it */
static double int_pow2(int n)
{
	return (double)(int32_t)(1u << n);
}

/* ---- messages ---- */

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return CHOKE_EINVAL;
}

static void warn(struct choke_params *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nwarnings >= CHOKE_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(p->warnings[p->nwarnings++], CHOKE_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
}

/* ---- tc_util.c parsers ---- */

/* get_unsigned(..., base 0): strtoul with every character consumed, at most
 * UINT_MAX (so "-1" is refused, "0x10" and "010" are 16 and 8). */
static int tc_get_unsigned(uint32_t *val, const char *arg)
{
	unsigned long res;
	char *end;

	if (!arg || !*arg)
		return -1;
	res = strtoul(arg, &end, 0);
	if (end == arg || *end)
		return -1;
	if (res > 0xffffffffUL)
		return -1;
	*val = (uint32_t)res;
	return 0;
}

/* get_size(): bytes with optional suffix, truncated, refused if the
 * conversion changed the value. */
static int tc_get_size(uint32_t *size, const char *str)
{
	double sz;
	char *p;

	sz = strtod(str, &p);
	if (p == str)
		return -1;
	if (*p) {
		if (!strcasecmp(p, "kb") || !strcasecmp(p, "k"))
			sz *= 1024;
		else if (!strcasecmp(p, "gb") || !strcasecmp(p, "g"))
			sz *= 1024 * 1024 * 1024;
		else if (!strcasecmp(p, "gbit"))
			sz *= 1024 * 1024 * 1024 / 8;
		else if (!strcasecmp(p, "mb") || !strcasecmp(p, "m"))
			sz *= 1024 * 1024;
		else if (!strcasecmp(p, "mbit"))
			sz *= 1024 * 1024 / 8;
		else if (!strcasecmp(p, "kbit"))
			sz *= 1024 / 8;
		else if (strcasecmp(p, "b"))
			return -1;
	}
	*size = cvt_u32(sz);
	if ((double)*size != floor(sz))
		return -1;
	return 0;
}

/* tc's get_time(): a number with s, sec, secs, ms, msec, msecs, us, usec,
 * usecs (no unit: microseconds), into microseconds; -1 if it is not one,
 * negative or above 2^32 - 1 microseconds. */
static int tc_get_time_us(const char *str, uint32_t *us)
{
	double t;
	char *p;

	t = strtod(str, &p);
	if (p == str || !(t >= 0))
		return -1;
	if (*p) {
		if (!strcasecmp(p, "s") || !strcasecmp(p, "sec") || !strcasecmp(p, "secs"))
			t *= 1e6;
		else if (!strcasecmp(p, "ms") || !strcasecmp(p, "msec") ||
			 !strcasecmp(p, "msecs"))
			t *= 1e3;
		else if (strcasecmp(p, "us") && strcasecmp(p, "usec") && strcasecmp(p, "usecs"))
			return -1;
	}
	if (t > 4294967295.0)
		return -1;
	*us = (uint32_t)floor(t + 0.5);
	return 0;
}

/* Is a threshold's value a time (a number and one of get_time's units)? */
static int is_time_value(const char *v)
{
	static const char *const units[] = { "s", "sec", "secs", "ms", "msec", "msecs",
					     "us", "usec", "usecs" };
	const char *p = v;
	size_t i;

	while (*p && (isdigit((unsigned char)*p) || *p == '.'))
		p++;
	if (p == v)
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(p, units[i]))
			return 1;
	return 0;
}

/* tc's rate suffixes, in its search order (matched case-insensitively). */
static const struct {
	const char *name;
	double scale;
} rate_suffixes[] = {
	{ "bit", 1. },
	{ "Kibit", 1024. },
	{ "kbit", 1000. },
	{ "mibit", 1024. * 1024. },
	{ "mbit", 1000000. },
	{ "gibit", 1024. * 1024. * 1024. },
	{ "gbit", 1000000000. },
	{ "tibit", 1024. * 1024. * 1024. * 1024. },
	{ "tbit", 1000000000000. },
	{ "Bps", 8. },
	{ "KiBps", 8. * 1024. },
	{ "KBps", 8000. },
	{ "MiBps", 8. * 1024 * 1024 },
	{ "MBps", 8000000. },
	{ "GiBps", 8. * 1024. * 1024. * 1024. },
	{ "GBps", 8000000000. },
	{ "TiBps", 8. * 1024. * 1024. * 1024. * 1024. },
	{ "TBps", 8000000000000. },
};

/* bytes/s as a double from "NUMBER[SUFFIX]" (bits/s without a suffix) */
static int tc_rate_double(const char *str, double *bytes)
{
	char *p;
	double bps = strtod(str, &p);
	size_t i;

	if (p == str)
		return -1;
	for (i = 0; i < sizeof(rate_suffixes) / sizeof(rate_suffixes[0]); i++) {
		if (!strcasecmp(rate_suffixes[i].name, p)) {
			bps *= rate_suffixes[i].scale;
			p += strlen(p);
			break;
		}
	}
	if (*p)
		return -1;
	*bytes = bps / 8;
	return 0;
}

/* Store a byte rate as tc does (32 bits), or in 64 bits when wide. */
static int tc_store_rate(double bytes, int wide, uint64_t *out)
{
	if (!wide) {
		uint32_t r = cvt_u32(bytes);

		if ((double)r != floor(bytes))
			return -1;
		*out = r;
		return 0;
	}
	if (!(bytes > -1.0 && bytes < 18446744073709551616.0))
		return -1;
	*out = bytes <= 0 ? 0 : (uint64_t)bytes;
	if ((double)*out != floor(bytes))
		return -1;
	return 0;
}

uint64_t choke_tx_ns(uint32_t bytes, uint64_t bits_per_sec)
{
	unsigned __int128 ns;

	if (!bits_per_sec)
		return 0;
	ns = ((unsigned __int128)bytes * 8u * 1000000000u + bits_per_sec - 1) / bits_per_sec;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

int choke_tc_get_rate(const char *str, int wide, uint64_t *bytes_per_sec)
{
	double bytes;

	if (tc_rate_double(str, &bytes))
		return -1;
	return tc_store_rate(bytes, wide, bytes_per_sec);
}

/* get_percent_rate(): "N%" of the link speed. As tc, only the leading run
 * of digits, dots and percent signs is read. */
static int tc_get_percent_rate(const char *str, long link_mbit, int wide,
			       uint64_t *out, char *err, size_t errlen)
{
	char run[64];
	size_t n = 0;
	char *p;
	double perc;

	if (link_mbit <= 0)
		return fail(err, errlen, "bandwidth %s: a percentage needs the link "
			    "speed (give --dev IF or --link-mbit N)", str);
	while (str[n] && strchr("0123456789.%", str[n]) && n + 1 < sizeof(run)) {
		run[n] = str[n];
		n++;
	}
	run[n] = 0;
	if (!n)
		goto malformed;
	perc = strtod(run, &p) / 100.;
	if (*p && strcmp(p, "%"))
		goto malformed;
	if (perc > 1.0 || perc < 0.0)
		return fail(err, errlen, "Invalid rate specified; should be between "
			    "[0,100]%% but is %s", str);
	if (tc_store_rate(perc * link_mbit * 1000 * 1000 / 8, wide, out))
		return fail(err, errlen, "Illegal \"bandwidth\"");
	return 0;
malformed:
	return fail(err, errlen, "Specified rate value could not be read or is "
		    "malformed");
}

/* ---- tc_red.c derivations ---- */

/*
 * EWMA weight: the smallest Wlog such that a burst of `burst` packets
 * arriving at an idle queue at line rate is accepted without the average
 * crossing qmin: burst + 1 - qmin/avpkt <= (1 - (1 - W)^burst) / W.
 * qmin is in bytes (tc passes min * avpkt, in 32 bits).
 */
static int tc_red_eval_ewma(uint32_t qmin, uint32_t burst, uint32_t avpkt,
			    char *err, size_t errlen)
{
	double W = 0.5;
	double a = (double)burst + 1 - (double)qmin / avpkt;
	int wlog;

	if (a < 1.0) {
		/* tc's hint divides by avpkt (it crashes for avpkt 0, a case
		 * that cannot reach here: qmin is then 0 and a is NaN). */
		return fail(err, errlen, "burst %u is too small (min %u packets): try "
			    "burst %u", burst, qmin / avpkt, 1 + qmin / avpkt);
	}
	for (wlog = 1; wlog < 32; wlog++, W /= 2) {
		if (a <= (1 - pow(1 - W, burst)) / W)
			return wlog;
	}
	return fail(err, errlen, "failed to calculate EWMA constant (burst %u, "
		    "avpkt %u)", burst, avpkt);
}

/* Plog: the smallest i with prob / (qmax - qmin) * 2^i > 1. */
static int tc_red_eval_P(uint32_t qmin, uint32_t qmax, double prob)
{
	int32_t i = (int32_t)(qmax - qmin);

	if (!i)
		return 0;
	if (i < 0)
		return -1;
	prob /= i;
	for (i = 0; i < 32; i++) {
		if (prob > 1.0)
			break;
		prob *= 2;
	}
	if (i >= 32)
		return -1;
	return i;
}

/* tc_calc_xmittime(): microseconds truncated to an integer, then ticks
 * truncated to an integer. */
static uint32_t tc_xmit_ticks(uint64_t rate, uint32_t size)
{
	uint32_t usec = cvt_u32(TC_TIME_UNITS_PER_SEC * ((double)size / (double)rate));

	return cvt_u32(usec * TC_TICKS_PER_USEC);
}

/*
 * Idle damping table. lW = -ln(1 - W) / xmit is the log-decay of the
 * average per tick of idle time (one "virtual packet" per transmission
 * time); Scell_log is chosen so that the time to decay by 2^31 (31/lW
 * ticks) fits in 512 cells, and Stab[i] = (i << Scell_log) * lW, capped at
 * 31, is the shift to apply after i cells of idle time.
 */
int choke_tc_idle_damping(int Wlog, uint32_t avpkt, uint64_t bytes_per_sec,
			  uint8_t stab[CHOKE_STAB_SIZE], uint32_t *xmit_ticks)
{
	uint32_t xmit = tc_xmit_ticks(bytes_per_sec, avpkt);
	double lW = -log(1.0 - 1.0 / int_pow2(Wlog)) / (double)xmit;
	double maxtime = 31 / lW;
	int clog, i;

	if (xmit_ticks)
		*xmit_ticks = xmit;
	for (clog = 0; clog < 32; clog++) {
		if (maxtime / int_pow2(clog) < 512)
			break;
	}
	if (clog >= 32)
		return -1;
	stab[0] = 0;
	for (i = 1; i < 255; i++) {
		int32_t cell = (int32_t)((uint32_t)i << clog);

		stab[i] = cvt_u8(cell * lW);
		if (stab[i] > 31)
			stab[i] = 31;
	}
	stab[255] = 31;
	return clog;
}

/* ---- the word parser ---- */

static void explain(char *err, size_t errlen)
{
	fail(err, errlen, "Usage: ... choke limit PACKETS bandwidth KBPS [ecn] "
	     "[harddrop] [min PACKETS] [max PACKETS] [burst PACKETS] "
	     "[avpkt BYTES] [probability PROBABILITY]");
}

static int parse_fifo(int argc, char *const *argv, struct choke_params *out,
		      char *err, size_t errlen)
{
	uint32_t limit = 1000;

	while (argc > 0) {
		if (!strcmp(*argv, "limit")) {
			if (argc < 2)
				return fail(err, errlen, "fifo: \"limit\" needs a value");
			argc--, argv++;
			if (tc_get_unsigned(&limit, *argv))
				return fail(err, errlen, "Illegal \"limit\"");
			/* pfifo takes 0, a queue that drops every packet */
			if (limit == 0)
				return fail(err, errlen, "fifo: \"limit\" must be 1 to %u packets",
					    CHOKE_MAX_LIMIT);
		} else {
			return fail(err, errlen, "fifo: What is \"%s\"? (fifo takes "
				    "only limit PACKETS)", *argv);
		}
		argc--, argv++;
	}
	out->cfg.limit = limit;
	return 0;
}

/* max_P as the kernel ends up using it, over 2^32, at avg = max. */
static double effective_max_p(const struct choke_config *c)
{
	int32_t delta = (int32_t)(c->qth_max - c->qth_min);
	uint32_t maxp = c->max_P, div;

	if (delta <= 0)
		delta = 1;
	if (!maxp)
		maxp = (c->Plog < 32 ? 0xffffffffu >> c->Plog : 0xffffffffu) *
		       (uint32_t)delta;
	div = maxp / (uint32_t)delta;
	if (!div)
		div = 1;
	return (double)div * (double)delta / 4294967296.0;
}

int choke_params_parse(int argc, char *const *argv, int kind,
		       const struct choke_parse_opts *opts,
		       struct choke_params *out, char *err, size_t errlen)
{
	static const struct choke_parse_opts defaults;
	struct choke_config *c = &out->cfg;
	uint32_t burst = 0, avpkt = 1000;
	double probability = 0.02;
	uint64_t rate = 0;
	int ecn = 0, harddrop = 0, ared = 0, nodrop = 0, have_rate = 0, byte_mode = 0, wide, wlog;
	const char *variant_word = NULL; /* the draw variant's word, if one was given */
	uint32_t qmin_b, qmax_b, min_us = 0, max_us = 0, target_us = 0;
	int min_time = 0, max_time = 0, sparse = 0, by = -1;
	uint8_t red_ext = 0; /* gentle, wait, ared */
	const char *why;

	if (!opts)
		opts = &defaults;
	wide = !opts->strict_tc;
	memset(out, 0, sizeof(*out));
	c->kind = (uint8_t)kind;
	if (err && errlen)
		err[0] = 0;

	if (kind == CHOKE_KIND_FIFO) {
		if (parse_fifo(argc, argv, out, err, errlen))
			return CHOKE_EINVAL;
		goto kernel_check;
	}
	if (kind != CHOKE_KIND_CHOKE && kind != CHOKE_KIND_RED)
		return fail(err, errlen, "unknown queue discipline kind %d", kind);

	for (; argc > 0; argc--, argv++) {
		const char *w = *argv;
		const char *v = argc > 1 ? argv[1] : NULL;
		int takes_value = !strcmp(w, "limit") || !strcmp(w, "bandwidth") ||
				  !strcmp(w, "min") || !strcmp(w, "max") ||
				  !strcmp(w, "burst") || !strcmp(w, "avpkt") ||
				  !strcmp(w, "probability");

		if (takes_value && !v)
			return fail(err, errlen, "Command line is not complete: "
				    "\"%s\" needs a value", w);
		if (!strcmp(w, "limit")) {
			if (tc_get_unsigned(&c->limit, v))
				return fail(err, errlen, "Illegal \"limit\": %s", v);
		} else if (!strcmp(w, "bandwidth")) {
			have_rate = 1;
			if (strchr(v, '%')) {
				if (tc_get_percent_rate(v, opts->link_mbit, wide,
							&rate, err, errlen))
					return CHOKE_EINVAL;
			} else if (choke_tc_get_rate(v, wide, &rate)) {
				double bytes;

				if (!tc_rate_double(v, &bytes) && bytes >= 4294967296.0)
					return fail(err, errlen, "Illegal \"bandwidth\": %s "
						    "is above tc's 32-bit limit of "
						    "4294967295 bytes/s", v);
				return fail(err, errlen, "Illegal \"bandwidth\": %s", v);
			}
		} else if (!strcmp(w, "ecn")) {
			ecn = 1;
		} else if (!strcmp(w, "harddrop") &&
			   (!opts->strict_tc || kind == CHOKE_KIND_RED)) {
			harddrop = 1; /* tc red has the word, tc choke does not */
		} else if (!strcmp(w, "adaptive") && kind == CHOKE_KIND_RED) {
			ared = 1; /* tc red's ARED flag (choke's adaptive is the variant) */
		} else if (!strcmp(w, "nodrop") && kind == CHOKE_KIND_RED) {
			nodrop = 1;
		} else if (!strcmp(w, "min") || !strcmp(w, "max")) {
			int mx = !strcmp(w, "max");

			/* beyond tc: a time, converted at the bandwidth below */
			if (!opts->strict_tc && is_time_value(v)) {
				if (tc_get_time_us(v, mx ? &max_us : &min_us) ||
				    !(mx ? max_us : min_us))
					return fail(err, errlen, "Illegal \"%s\": %s (a time "
						    "such as 5ms, above 0)", w, v);
				*(mx ? &max_time : &min_time) = 1;
				*(mx ? &c->qth_max : &c->qth_min) = 0;
			} else {
				if (tc_get_unsigned(mx ? &c->qth_max : &c->qth_min, v))
					return fail(err, errlen, "Illegal \"%s\": %s", w, v);
				*(mx ? &max_time : &min_time) = 0;
			}
		} else if (!strcmp(w, "burst")) {
			if (tc_get_unsigned(&burst, v))
				return fail(err, errlen, "Illegal \"burst\": %s", v);
		} else if (!strcmp(w, "avpkt")) {
			if (tc_get_size(&avpkt, v))
				return fail(err, errlen, "Illegal \"avpkt\": %s", v);
		} else if (!strcmp(w, "probability")) {
			if (sscanf(v, "%lg", &probability) != 1)
				return fail(err, errlen, "Illegal \"probability\": %s", v);
		} else if (!opts->strict_tc && kind != CHOKE_KIND_CHOKE &&
			   (!strcmp(w, "draws") || !strcmp(w, "adaptive") ||
			    !strcmp(w, "geometric") || !strcmp(w, "protect") ||
			    !strcmp(w, "sparse") || !strcmp(w, "target") ||
			    choke_protect_by_from_word(w) >= 0)) {
			return fail(err, errlen, "\"%s\" applies to choke only", w);
		} else if (!opts->strict_tc && (!strcmp(w, "draws") || !strcmp(w, "adaptive") ||
						!strcmp(w, "geometric"))) {
			uint32_t n = 0;

			/* one rule for the draws: a word may repeat, two differ */
			if (variant_word && strcmp(variant_word, w))
				return fail(err, errlen, "\"%s\" and \"%s\" are alternatives: give "
					    "one of draws, adaptive and geometric", variant_word, w);
			variant_word = w;
			if (!strcmp(w, "draws")) {
				/* draws 1 is mainline: no word at all */
				if (!v || tc_get_unsigned(&n, v) || n < 2 || n > CHOKE_MAX_DRAWS)
					return fail(err, errlen, "\"draws\" needs a number from 2 "
						    "to %d", CHOKE_MAX_DRAWS);
				c->variant = CHOKE_VAR_DRAWS;
				argc--, argv++;
			} else if (!strcmp(w, "geometric")) {
				n = 8;
				/* an optional cap follows */
				if (v && v[0] >= '0' && v[0] <= '9') {
					if (tc_get_unsigned(&n, v) || n < 1 || n > CHOKE_MAX_DRAWS)
						return fail(err, errlen, "the \"geometric\" cap must "
							    "be 1 to %d", CHOKE_MAX_DRAWS);
					argc--, argv++;
				}
				c->variant = CHOKE_VAR_GEOMETRIC;
			} else {
				c->variant = CHOKE_VAR_ADAPTIVE;
			}
			c->draws = (uint8_t)n;
		} else if (!opts->strict_tc && !strcmp(w, "protect")) {
			uint32_t n = CHOKE_PROTECT_DEFAULT;

			/* an optional table size follows */
			if (v && v[0] >= '0' && v[0] <= '9') {
				if (tc_get_unsigned(&n, v) || n < CHOKE_PROTECT_MIN ||
				    n > CHOKE_PROTECT_MAX || (n & (n - 1)))
					return fail(err, errlen, "the \"protect\" table size must "
						    "be a power of two from %d to %d",
						    CHOKE_PROTECT_MIN, CHOKE_PROTECT_MAX);
				argc--, argv++;
			}
			c->protect = (uint16_t)n;
		} else if (!opts->strict_tc && !strcmp(w, "bytes")) {
			byte_mode = 1;
		} else if (!opts->strict_tc && !strcmp(w, "sparse")) {
			sparse = 1;
		} else if (!opts->strict_tc && !strcmp(w, "target")) {
			if (!v || tc_get_time_us(v, &target_us) || !target_us ||
			    target_us > CHOKE_TARGET_MAX_US)
				return fail(err, errlen, "\"target\" needs a time from 1us to 1s, "
					    "such as 5ms");
			argc--, argv++;
		} else if (!opts->strict_tc && choke_protect_by_from_word(w) >= 0) {
			if (by >= 0 && by != choke_protect_by_from_word(w))
				return fail(err, errlen, "\"%s\" and \"%s\" are alternatives: "
					    "protect shares among one of flows, srchost, dsthost "
					    "and hosts", choke_protect_by_name(by), w);
			by = choke_protect_by_from_word(w);
		} else if (!opts->strict_tc && (!strcmp(w, "gentle") || !strcmp(w, "wait") ||
						!strcmp(w, "ared"))) {
			/* RED beyond Linux's (docs/core.md); red's `adaptive`
			 * is the same ARED */
			red_ext |= !strcmp(w, "gentle") ? CHOKE_RED_GENTLE :
				   !strcmp(w, "wait") ? CHOKE_RED_WAIT : CHOKE_RED_ARED;
		} else if (!strcmp(w, "help")) {
			explain(err, errlen);
			return CHOKE_EINVAL;
		} else {
			return fail(err, errlen, "What is \"%s\"?", w);
		}
		if (takes_value)
			argc--, argv++;
	}

	if (!rate || !c->limit)
		return fail(err, errlen, "Required parameter (bandwidth, limit) is "
			    "missing%s", have_rate && !rate ?
			    " (the bandwidth rounds to 0 bytes/s)" : "");

	if ((target_us || by >= 0) && !c->protect)
		return fail(err, errlen, "\"%s\" goes with protect (it says how protect "
			    "shares the link)", target_us ? "target" : choke_protect_by_name(by));
	c->target_us = target_us;
	c->protect_by = (uint8_t)(by > 0 ? by : 0);
	c->sparse = (uint8_t)sparse;
	c->red_ext = red_ext;
	/* thresholds given as times: the bytes the bandwidth sends in them,
	 * in packets of avpkt (at least one) or, in byte mode, in bytes */
	if (min_time || max_time) {
		double per = byte_mode ? 1.0 : (avpkt ? (double)avpkt : 1.0);
		double qmin = (double)min_us * 1e-6 * (double)rate / per;
		double qmax = (double)max_us * 1e-6 * (double)rate / per;

		if (min_time)
			c->qth_min = qmin < 1 ? 1 : qmin > 4294967295.0 ? 0xffffffffu
									 : (uint32_t)ceil(qmin);
		if (max_time)
			c->qth_max = qmax < 1 ? 1 : qmax > 4294967295.0 ? 0xffffffffu
									 : (uint32_t)ceil(qmax);
	}

	/* Sally Floyd's defaults, in tc's integer arithmetic (in byte mode as
	 * tc's red computes them, in bytes) */
	if (!c->qth_max)
		c->qth_max = c->limit / 4;
	if (!c->qth_min)
		c->qth_min = c->qth_max / 3;
	if (!burst)
		burst = byte_mode ? (2 * c->qth_min + c->qth_max) / (3 * (avpkt ? avpkt : 1))
			      : (2 * c->qth_min + c->qth_max) / 3;
	if (c->qth_max > c->limit)
		return fail(err, errlen, "\"max\" is larger than \"limit\"");
	if (c->qth_min >= c->qth_max)
		return fail(err, errlen, "\"min\" is not smaller than \"max\"");
	if (byte_mode) {
		if (!avpkt)
			return fail(err, errlen, "byte mode needs a non-zero avpkt");
		c->limit_bytes = c->limit;
		c->avpkt = avpkt;
		/* the ring holds at most one packet per 64 bytes of the limit */
		c->limit = c->limit / 64 + 1 > CHOKE_MAX_LIMIT ? CHOKE_MAX_LIMIT
							     : c->limit / 64 + 1;
		qmin_b = c->qth_min;
		qmax_b = c->qth_max;
	} else {
		qmin_b = c->qth_min * avpkt;
		qmax_b = c->qth_max * avpkt;
	}

	wlog = tc_red_eval_ewma(qmin_b, burst, avpkt, err, errlen);
	if (wlog < 0)
		return CHOKE_EINVAL;
	if (wlog >= 10)
		warn(out, "burst %u seems to be too large (ewma %d)", burst, wlog);
	c->Wlog = (uint8_t)wlog;

	wlog = tc_red_eval_P(qmin_b, qmax_b, probability);
	if (wlog < 0)
		return fail(err, errlen, "failed to calculate probability "
			    "(probability %g with max - min = %u packets)",
			    probability, c->qth_max - c->qth_min);
	c->Plog = (uint8_t)wlog;

	wlog = choke_tc_idle_damping(c->Wlog, avpkt, rate, c->stab,
				     &out->xmit_ticks);
	if (wlog < 0)
		return fail(err, errlen, "failed to calculate idle damping table "
			    "(bandwidth %llu bytes/s is too low for avpkt %u)",
			    (unsigned long long)rate, avpkt);
	c->Scell_log = (uint8_t)wlog;
	if (ecn)
		c->flags |= CHOKE_FLAG_ECN;
	if (harddrop)
		c->flags |= CHOKE_FLAG_HARDDROP;
	if (ared)
		c->flags |= CHOKE_FLAG_ADAPTATIVE;
	if (nodrop)
		c->flags |= CHOKE_FLAG_NODROP;
	c->max_P = cvt_u32(probability * pow(2, 32));

	out->burst = burst;
	out->avpkt = avpkt;
	out->probability = probability;
	out->bandwidth_bytes_per_sec = rate;
	out->max_p_effective = effective_max_p(c);
	if (!c->max_P)
		warn(out, "probability %g does not fit the kernel's 32-bit field: "
		     "it falls back to Plog %u, i.e. probability %g",
		     probability, c->Plog, out->max_p_effective);
	else if (fabs(out->max_p_effective - probability) >
		 1e-3 * fabs(probability))
		warn(out, "probability %g is quantised to %g by the kernel's "
		     "integer arithmetic", probability, out->max_p_effective);
	if (rate > 0xffffffffu)
		warn(out, "bandwidth %llu bytes/s is above tc's 32-bit limit: "
		     "stock tc refuses it", (unsigned long long)rate);

kernel_check:
	if (!opts->tc_only && choke_config_check(c, &why))
		return fail(err, errlen, "the kernel would reject this "
			    "configuration: %s", why);
	return 0;
}

/* snprintf appended at *n (which counts what did not fit too) */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf + (*n < len ? *n : len), *n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += (size_t)k;
}

/* The shortest %g that reads back as the same double. */
static void exact_double(double d, char *out, size_t len)
{
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(out, len, "%.*g", prec, d);
		if (strtod(out, NULL) == d)
			return;
	}
	snprintf(out, len, "%.17g", d);
}

int choke_params_words(const struct choke_params *p, char *buf, size_t len)
{
	const struct choke_config *c = &p->cfg;
	size_t n = 0;
	char prob[40];

	if (len)
		buf[0] = 0;
	append(buf, len, &n, "%s limit %u", choke_kind_name(c->kind),
	       c->limit_bytes ? c->limit_bytes : c->limit);
	if (c->kind == CHOKE_KIND_FIFO)
		return (int)n;
	exact_double(p->probability, prob, sizeof(prob));
	append(buf, len, &n, " min %u max %u burst %u avpkt %u bandwidth %lluBps probability %s",
	       c->qth_min, c->qth_max, p->burst, p->avpkt,
	       (unsigned long long)p->bandwidth_bytes_per_sec, prob);
	if (c->flags & CHOKE_FLAG_ECN)
		append(buf, len, &n, " ecn");
	if (c->flags & CHOKE_FLAG_HARDDROP)
		append(buf, len, &n, " harddrop");
	if (c->flags & CHOKE_FLAG_ADAPTATIVE)
		append(buf, len, &n, " adaptive"); /* red's ARED flag */
	if (c->flags & CHOKE_FLAG_NODROP)
		append(buf, len, &n, " nodrop");
	if (c->variant == CHOKE_VAR_DRAWS || c->variant == CHOKE_VAR_GEOMETRIC)
		append(buf, len, &n, " %s %u", choke_variant_name(c->variant), c->draws);
	else if (c->variant == CHOKE_VAR_ADAPTIVE)
		append(buf, len, &n, " adaptive");
	if (c->protect)
		append(buf, len, &n, " protect %u", c->protect);
	if (c->protect_by)
		append(buf, len, &n, " %s", choke_protect_by_name(c->protect_by));
	if (c->target_us)
		append(buf, len, &n, " target %uus", c->target_us);
	if (c->sparse)
		append(buf, len, &n, " sparse");
	if (c->red_ext & CHOKE_RED_GENTLE)
		append(buf, len, &n, " gentle");
	if (c->red_ext & CHOKE_RED_WAIT)
		append(buf, len, &n, " wait");
	if (c->red_ext & CHOKE_RED_ARED)
		append(buf, len, &n, " ared");
	if (c->limit_bytes)
		append(buf, len, &n, " bytes");
	return (int)n;
}

int choke_params_format(const struct choke_config *c, char *buf, size_t len)
{
	int n;

	const char *u = c->limit_bytes ? "b" : "p";
	uint32_t lim = c->limit_bytes ? c->limit_bytes : c->limit;
	char var[96] = "";
	size_t vl = 0;

	if (c->kind == CHOKE_KIND_FIFO)
		return snprintf(buf, len, "limit %u%s", lim, u);
	if (c->variant == CHOKE_VAR_DRAWS)
		vl = (size_t)snprintf(var, sizeof(var), "draws %u ", c->draws);
	else if (c->variant == CHOKE_VAR_ADAPTIVE)
		vl = (size_t)snprintf(var, sizeof(var), "adaptive ");
	else if (c->variant == CHOKE_VAR_GEOMETRIC)
		vl = (size_t)snprintf(var, sizeof(var), "geometric %u ", c->draws);
	if (c->protect)
		vl += (size_t)snprintf(var + vl, sizeof(var) - vl, "protect %u ", c->protect);
	if (c->protect_by && vl < sizeof(var))
		vl += (size_t)snprintf(var + vl, sizeof(var) - vl, "%s ",
				       choke_protect_by_name(c->protect_by));
	if (c->target_us && vl < sizeof(var))
		vl += (size_t)snprintf(var + vl, sizeof(var) - vl, "target %uus ", c->target_us);
	if (c->sparse && vl < sizeof(var))
		vl += (size_t)snprintf(var + vl, sizeof(var) - vl, "sparse ");
	if (c->red_ext && vl < sizeof(var))
		snprintf(var + vl, sizeof(var) - vl, "%s%s%s",
			 c->red_ext & CHOKE_RED_GENTLE ? "gentle " : "",
			 c->red_ext & CHOKE_RED_WAIT ? "wait " : "",
			 c->red_ext & CHOKE_RED_ARED ? "ared " : "");
	n = snprintf(buf, len, "limit %u%s min %u%s max %u%s %s%s%s%s%s%sewma %u ",
		     lim, u, c->qth_min, u, c->qth_max, u, var,
		     c->limit_bytes ? "bytes " : "",
		     c->flags & CHOKE_FLAG_ECN ? "ecn " : "",
		     c->flags & CHOKE_FLAG_HARDDROP ? "harddrop " : "",
		     c->flags & CHOKE_FLAG_ADAPTATIVE ? "adaptive " : "",
		     c->flags & CHOKE_FLAG_NODROP ? "nodrop " : "", c->Wlog);
	if (n < 0)
		return n;
	if (c->max_P)
		n += snprintf(buf + ((size_t)n < len ? (size_t)n : len),
			      (size_t)n < len ? len - (size_t)n : 0,
			      "probability %lg ", c->max_P / pow(2, 32));
	else
		n += snprintf(buf + ((size_t)n < len ? (size_t)n : len),
			      (size_t)n < len ? len - (size_t)n : 0,
			      "Plog %u ", c->Plog);
	n += snprintf(buf + ((size_t)n < len ? (size_t)n : len),
		      (size_t)n < len ? len - (size_t)n : 0, "Scell_log %u",
		      c->Scell_log);
	return n;
}
