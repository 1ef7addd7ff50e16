/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Sweeps of a scenario key: see sweep.h. */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static int sweep_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int sweep_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* number prefix and suffix of a value */
static int split_value(const char *v, double *num, char *suffix, size_t len)
{
	char *end;

	errno = 0;
	*num = strtod(v, &end);
	if (end == v || errno == ERANGE || !isfinite(*num))
		return -1;
	snprintf(suffix, len, "%s", end);
	return 0;
}

void sim_sweep_format(char *buf, size_t len, double v, int integer)
{
	char e[32], digits[8], *p, *q;
	int ex, n;

	if (integer) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	snprintf(buf, len, "%.6g", v);
	if (!strchr(buf, 'e') || !isfinite(v))
		return;
	/* d.ddddde+X: the same six digits with the point moved, exactly */
	snprintf(e, sizeof(e), "%.5e", fabs(v));
	for (p = e, q = digits; *p && *p != 'e'; p++)
		if (*p != '.')
			*q++ = *p;
	*q = 0;
	ex = atoi(p + 1);
	n = 0;
	if (v < 0 && len > 1)
		buf[n++] = '-';
	if (ex >= 5) {
		n += snprintf(buf + n, len > (size_t)n ? len - (size_t)n : 0, "%s", digits);
		for (; ex > 5 && (size_t)n + 1 < len; ex--)
			buf[n++] = '0';
	} else {
		/* ex < -4: 0.000ddddd without trailing zeros */
		q = digits + strlen(digits);
		while (q > digits + 1 && q[-1] == '0')
			*--q = 0;
		n += snprintf(buf + n, len > (size_t)n ? len - (size_t)n : 0, "0.");
		for (; ex < -1 && (size_t)n + 1 < len; ex++)
			buf[n++] = '0';
		n += snprintf(buf + n, len > (size_t)n ? len - (size_t)n : 0, "%s", digits);
	}
	if ((size_t)n >= len)
		n = (int)len - 1;
	buf[n] = 0;
}

void sim_sweep_unit(const struct sim_sweep *sw, char *unit, size_t len)
{
	double num;

	unit[0] = 0;
	if (sw->n && split_value(sw->values[0], &num, unit, len))
		unit[0] = 0;
}

void sim_sweep_free(struct sim_sweep *sw)
{
	free(sw->values);
	free(sw->x);
	sw->values = NULL;
	sw->x = NULL;
	sw->n = 0;
}

static int alloc_points(struct sim_sweep *sw, char *err, size_t errlen)
{
	sw->values = calloc((size_t)sw->n, sizeof(*sw->values));
	sw->x = calloc((size_t)sw->n, sizeof(*sw->x));
	if (!sw->values || !sw->x)
		return sweep_err(err, errlen, "out of memory");
	return 0;
}

static int bad(const char *spec, char *err, size_t errlen)
{
	return sweep_err(err, errlen, "--sweep %s: expected KEY=A..B:N[:log] (1 <= N <= %d) "
			 "or KEY=V1,V2,...", spec, SIM_SWEEP_MAX_POINTS);
}

/* A..B:N[:log|:lin] */
static int parse_range(const char *spec, const char *body, const char *dots, int ki,
		       struct sim_sweep *sw, char *err, size_t errlen)
{
	char a[64], b[128], sa[32], sb[32], *colon, *mode, *end;
	double na, nb;
	long np;
	int i;

	if ((size_t)(dots - body) >= sizeof(a) || strlen(dots + 2) >= sizeof(b))
		return bad(spec, err, errlen);
	memcpy(a, body, (size_t)(dots - body));
	a[dots - body] = 0;
	strcpy(b, dots + 2);
	colon = strchr(b, ':');
	if (!colon)
		return bad(spec, err, errlen);
	*colon = 0;
	mode = strchr(colon + 1, ':');
	if (mode)
		*mode++ = 0;
	np = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || np < 1 || np > SIM_SWEEP_MAX_POINTS)
		return bad(spec, err, errlen);
	if (mode && strcmp(mode, "log") && strcmp(mode, "lin"))
		return bad(spec, err, errlen);
	sw->logscale = mode && !strcmp(mode, "log");
	if (split_value(a, &na, sa, sizeof(sa)) || split_value(b, &nb, sb, sizeof(sb)))
		return bad(spec, err, errlen);
	if (!sa[0])
		strcpy(sa, sb);
	if (!sb[0])
		strcpy(sb, sa);
	if (strcmp(sa, sb))
		return sweep_err(err, errlen, "--sweep %s: both ends need the same unit "
				 "(\"%s\" and \"%s\")", spec, sa, sb);
	if (sw->logscale && !(na > 0 && nb > 0))
		return sweep_err(err, errlen, "--sweep %s: a log sweep needs ends above 0", spec);
	sw->n = (int)np;
	if (alloc_points(sw, err, errlen))
		return -1;
	for (i = 0; i < sw->n; i++) {
		double t = sw->n > 1 ? (double)i / (sw->n - 1) : 0, v;
		int integer = sim_scenario_keys[ki].type == SIM_KT_UINT;
		char num[48], full[96];

		v = sw->logscale ? na * pow(nb / na, t) : na + (nb - na) * t;
		if (integer)
			v = floor(v + 0.5);
		sw->x[i] = v;
		sim_sweep_format(num, sizeof(num), v, integer);
		snprintf(full, sizeof(full), "%s%s", num, sa);
		if (strlen(full) >= sizeof(sw->values[i]))
			return sweep_err(err, errlen, "--sweep %s: the value %s is too long", spec,
					 full);
		memcpy(sw->values[i], full, strlen(full) + 1);
	}
	return 0;
}

/* V1,V2,... */
static int parse_list(const char *spec, const char *body, struct sim_sweep *sw, char *err,
		      size_t errlen)
{
	const char *p;
	int i;

	sw->n = 1;
	for (p = body; *p; p++)
		sw->n += *p == ',';
	if (sw->n > SIM_SWEEP_MAX_POINTS)
		return bad(spec, err, errlen);
	if (alloc_points(sw, err, errlen))
		return -1;
	p = body;
	for (i = 0; i < sw->n; i++) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		char suf[32];

		if (!len || len >= sizeof(sw->values[i]))
			return bad(spec, err, errlen);
		memcpy(sw->values[i], p, len);
		sw->values[i][len] = 0;
		if (split_value(sw->values[i], &sw->x[i], suf, sizeof(suf)))
			sw->x[i] = i;
		p = c ? c + 1 : p + len;
	}
	return 0;
}

int sim_sweep_parse(const char *spec, struct sim_sweep *sw, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *body, *dots;
	int ki;

	memset(sw, 0, sizeof(*sw));
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(sw->key))
		return sweep_err(err, errlen, "--sweep %s: expected KEY=A..B:N[:log] or "
				 "KEY=V1,V2,...", spec);
	memcpy(sw->key, spec, (size_t)(eq - spec));
	sw->key[eq - spec] = 0;
	ki = sim_scenario_key(sw->key);
	if (ki < 0)
		return sweep_err(err, errlen, "--sweep: unknown key \"%s\" (choke sim --keys)",
				 sw->key);
	body = eq + 1;
	dots = strstr(body, "..");
	if (dots)
		return parse_range(spec, body, dots, ki, sw, err, errlen);
	return parse_list(spec, body, sw, err, errlen);
}
