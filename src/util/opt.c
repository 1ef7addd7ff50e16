/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Options declared once: values, ranges and their refusals (see opt.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

const struct cli_opt *cli_opt_find(const struct cli_opt *opts, const char *name,
				   size_t len)
{
	const struct cli_opt *o;

	for (o = opts; o && o->id; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

/* A decimal integer with an optional sign, nothing else. */
static int parse_ll(const char *s, long long *out)
{
	char *end;

	if (!*s || (!(*s >= '0' && *s <= '9') && *s != '-' && *s != '+'))
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return (*end || end == s || errno) ? -1 : 0;
}

/* Decimal digits only (strtoull would take "-1" as 2^64 - 1). */
static int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

/* A finite number in decimal or exponent form: no hex, nan or inf. */
static int parse_num(const char *s, double *out)
{
	char *end;

	if (!*s || strpbrk(s, "xXnNiI"))
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return (*end || end == s || errno || !isfinite(*out)) ? -1 : 0;
}

int cli_is_number(const char *s, int ints)
{
	long long i;
	double d;

	return ints ? !parse_ll(s, &i) : !parse_num(s, &d);
}

/* The index of word v among metavar's "a|b|c", or -1. */
static int choice_index(const char *choices, const char *v)
{
	const char *p = choices, *bar;
	size_t n = strlen(v);
	int k = 0;

	for (;;) {
		bar = strchr(p, '|');
		if ((size_t)((bar ? bar : p + strlen(p)) - p) == n && !strncmp(p, v, n) && n)
			return k;
		if (!bar)
			return -1;
		p = bar + 1;
		k++;
	}
}

int cli_opt_accepts(const struct cli_opt *o, char *buf, size_t len)
{
	const char *p, *bar;
	size_t used = 0;
	int k, n;

	switch (o->type) {
	case CLI_FLAG:
		return snprintf(buf, len, "%s", "");
	case CLI_INT:
	case CLI_OPT_INT:
		return snprintf(buf, len, "an integer from %lld to %lld", o->min, o->max);
	case CLI_U64:
		return snprintf(buf, len, "an integer from %" PRIu64 " to %" PRIu64, o->umin,
				o->umax);
	case CLI_NUM:
	case CLI_OPT_NUM:
		return snprintf(buf, len, "a number from %g to %g", o->dmin, o->dmax);
	case CLI_CHOICE:
		/* "a or b", "a, b or c" */
		if (len)
			buf[0] = 0;
		for (p = o->metavar, k = 0; p; p = bar ? bar + 1 : NULL, k++) {
			bar = strchr(p, '|');
			n = snprintf(buf + used, used < len ? len - used : 0, "%s%.*s",
				     !k ? "" : bar ? ", " : " or ",
				     (int)(bar ? (size_t)(bar - p) : strlen(p)), p);
			used += (size_t)n;
		}
		return (int)used;
	case CLI_STR:
		if (o->form)
			return snprintf(buf, len, "%s", o->form);
		return snprintf(buf, len, "a non-empty %s", o->metavar ? o->metavar : "value");
	}
	return snprintf(buf, len, "a value");
}

int cli_opt_refuse(const struct cli_opt *o, const char *v, char *err, size_t errlen)
{
	char acc[256];

	cli_opt_accepts(o, acc, sizeof(acc));
	snprintf(err, errlen, "--%s needs %s, not \"%s\"", o->name, acc, v);
	return -1;
}

int cli_opt_value(const struct cli_opt *o, const char *v, struct cli_value *out,
		  char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->s = v;
	switch (o->type) {
	case CLI_FLAG:
		if (v) {
			snprintf(err, errlen, "--%s takes no value", o->name);
			return -1;
		}
		return 0;
	case CLI_STR:
		return *v ? 0 : cli_opt_refuse(o, v, err, errlen);
	case CLI_INT:
	case CLI_OPT_INT:
		if (parse_ll(v, &out->i) || out->i < o->min || out->i > o->max)
			return cli_opt_refuse(o, v, err, errlen);
		return 0;
	case CLI_U64:
		if (parse_u64(v, &out->u) || out->u < o->umin || out->u > o->umax)
			return cli_opt_refuse(o, v, err, errlen);
		return 0;
	case CLI_NUM:
	case CLI_OPT_NUM:
		if (parse_num(v, &out->d) || out->d < o->dmin || out->d > o->dmax)
			return cli_opt_refuse(o, v, err, errlen);
		return 0;
	case CLI_CHOICE:
		out->i = choice_index(o->metavar, v);
		return out->i < 0 ? cli_opt_refuse(o, v, err, errlen) : 0;
	}
	return cli_opt_refuse(o, v, err, errlen);
}
