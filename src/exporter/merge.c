/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Expositions merged family by family: see merge.h. */
#include "merge.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../util/om.h"

static const char *const om_types[] = { "counter", "gauge", "summary", "histogram", "untyped",
					"unknown", "info", "stateset", "gaugehistogram", NULL };
static const char *const om_suffixes[] = { "_sum", "_count", "_bucket", "_created", "_total",
					   "_info", "_gsum", "_gcount", NULL };

static int om_is_name_start(int c, int colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}

static int om_is_name_char(int c, int colon)
{
	return om_is_name_start(c, colon) || (c >= '0' && c <= '9');
}

/* the length of the metric (colon = 1) or label name at s, 0 if none */
static size_t om_name_len(const char *s, size_t len, int colon)
{
	size_t i = 0;

	if (!len || !om_is_name_start((unsigned char)s[0], colon))
		return 0;
	for (i = 1; i < len && om_is_name_char((unsigned char)s[i], colon); i++)
		;
	return i;
}

static void om_family_free(struct om_family *f)
{
	free(f->name);
	free(f->type);
	free(f->help);
	free(f->samples);
}

void om_free(struct om_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		om_family_free(&set->f[i]);
	free(set->f);
	set->f = NULL;
	set->n = set->cap = 0;
}

static struct om_family *om_find(const struct om_set *set, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strlen(set->f[i].name) == len && !memcmp(set->f[i].name, name, len))
			return &set->f[i];
	return NULL;
}

static int om_reserve(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	np = realloc(*p, c * size);
	if (!np)
		return -1;
	*p = np;
	*cap = c;
	return 0;
}

static int om_append(struct om_family *f, const char *s, size_t n)
{
	if (om_reserve((void **)&f->samples, &f->cap, f->len + n + 1, 1))
		return -1;
	memcpy(f->samples + f->len, s, n);
	f->len += n;
	f->samples[f->len] = 0;
	return 0;
}

/* A parse in progress: its error and the line it is on. */
struct om_parse {
	char *err;
	size_t errlen;
	int line;
	const char *const *no_samples;
};

static int om_fail(struct om_parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int om_fail(struct om_parse *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->err, ps->errlen, "line %d: ", ps->line);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *om_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* "# HELP name text" or "# TYPE name type": the family, new or the current. */
static int om_meta(struct om_set *t, struct om_family **cur, const char *l, size_t len,
		   int is_type, const char *const *reserved, struct om_parse *ps)
{
	const char *name = l + 7, *rest;
	size_t nlen = om_name_len(name, len - 7, 1), rlen;
	struct om_family *f;
	int i;

	if (!nlen || (7 + nlen < len && name[nlen] != ' '))
		return om_fail(ps, "# %s without a valid metric name", is_type ? "TYPE" : "HELP");
	for (i = 0; reserved && reserved[i]; i++)
		if (nlen >= strlen(reserved[i]) && !memcmp(name, reserved[i], strlen(reserved[i])))
			return om_fail(ps, "the family %.*s uses the reserved prefix %s",
				       (int)nlen, name, reserved[i]);
	rest = 7 + nlen < len ? name + nlen + 1 : name + nlen;
	rlen = (size_t)(l + len - rest);
	f = *cur;
	if (!f || strlen(f->name) != nlen || memcmp(f->name, name, nlen) || f->len ||
	    (is_type ? f->type != NULL : f->help != NULL)) {
		if (om_find(t, name, nlen))
			return om_fail(ps, "the family %.*s appears twice", (int)nlen, name);
		if (t->n >= OM_MAX_FAMILIES)
			return om_fail(ps, "more than %d families", OM_MAX_FAMILIES);
		if (om_reserve((void **)&t->f, &t->cap, t->n + 1, sizeof(*t->f)))
			return om_fail(ps, "out of memory");
		f = &t->f[t->n++];
		memset(f, 0, sizeof(*f));
		if (!(f->name = om_strndup(name, nlen)))
			return om_fail(ps, "out of memory");
		for (i = 0; ps->no_samples && ps->no_samples[i]; i++)
			if (!strcmp(ps->no_samples[i], f->name))
				f->no_samples = 1;
		*cur = f;
	}
	if (is_type) {
		for (i = 0; om_types[i]; i++)
			if (strlen(om_types[i]) == rlen && !memcmp(om_types[i], rest, rlen))
				break;
		if (!om_types[i])
			return om_fail(ps, "%.*s: unknown type \"%.*s\"", (int)nlen, name,
				       (int)(rlen > 40 ? 40 : rlen), rest);
		f->type = om_strndup(rest, rlen);
	} else {
		f->help = om_strndup(rest, rlen);
	}
	if (is_type ? !f->type : !f->help)
		return om_fail(ps, "out of memory");
	return 0;
}

/* a number as the text format writes it (also NaN, +Inf, -Inf) */
static int om_number(const char *s, size_t n)
{
	char buf[64], *end;

	if (!n || n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!strcmp(buf, "NaN") || !strcmp(buf, "+Inf") || !strcmp(buf, "-Inf"))
		return 1;
	if (strspn(buf, "0123456789+-.eE") != n)
		return 0;
	strtod(buf, &end);
	return *end == 0;
}

/* A sample line of family f: checked, and written with the label added. */
static int om_sample(struct om_family *f, const char *l, size_t len, const char *label,
		     const char *lv, size_t lvlen, struct om_parse *ps)
{
	size_t nlen = om_name_len(l, len, 1), fl, i, labels_at = 0, labels_len = 0;
	const char *rest;
	size_t rlen, vlen;

	if (!nlen)
		return om_fail(ps, "neither a comment nor a sample");
	if (!f || !f->type)
		return om_fail(ps, "a sample of %.*s before its family's # TYPE", (int)nlen, l);
	fl = strlen(f->name);
	if (nlen < fl || memcmp(l, f->name, fl))
		return om_fail(ps, "a sample of %.*s in the family %s", (int)nlen, l, f->name);
	if (nlen > fl) {
		for (i = 0; om_suffixes[i]; i++)
			if (nlen - fl == strlen(om_suffixes[i]) &&
			    !memcmp(l + fl, om_suffixes[i], nlen - fl))
				break;
		if (!om_suffixes[i])
			return om_fail(ps, "a sample of %.*s in the family %s", (int)nlen, l,
				       f->name);
	}
	i = nlen;
	if (i < len && l[i] == '{') {
		labels_at = ++i;
		while (i < len && l[i] != '}') {
			size_t ln = om_name_len(l + i, len - i, 0);

			if (!ln)
				return om_fail(ps, "a label without a valid name");
			if (ln == strlen(label) && !memcmp(l + i, label, ln))
				return om_fail(ps, "the sample already has a label %s", label);
			i += ln;
			if (i + 1 >= len || l[i] != '=' || l[i + 1] != '"')
				return om_fail(ps, "a label without =\"value\"");
			for (i += 2; i < len && l[i] != '"'; i++)
				if (l[i] == '\\') {
					if (i + 1 >= len || !l[i + 1] || !strchr("\\\"n", l[i + 1]))
						return om_fail(ps, "a bad escape in a label value");
					i++;
				}
			if (i >= len)
				return om_fail(ps, "an unterminated label value");
			i++;
			if (i < len && l[i] == ',')
				i++;
			else if (i < len && l[i] != '}')
				return om_fail(ps, "labels not separated by commas");
		}
		if (i >= len)
			return om_fail(ps, "labels without their closing }");
		labels_len = i - labels_at;
		i++;
	}
	/* " value" and maybe " timestamp" */
	if (i >= len || l[i] != ' ')
		return om_fail(ps, "no value after the name and labels");
	rest = l + i;
	rlen = len - i;
	{
		const char *sp = memchr(rest + 1, ' ', rlen - 1);

		vlen = sp ? (size_t)(sp - (rest + 1)) : rlen - 1;
	}
	if (!om_number(rest + 1, vlen))
		return om_fail(ps, "the value is not a number");
	if (1 + vlen < rlen) {
		const char *ts = rest + 2 + vlen;
		size_t tlen = rlen - 2 - vlen;

		if (memchr(ts, ' ', tlen) || !om_number(ts, tlen))
			return om_fail(ps, "after the value, not a timestamp");
	}
	if (f->no_samples)
		return 0;
	if (om_append(f, l, nlen) || om_append(f, "{", 1) || om_append(f, label, strlen(label)) ||
	    om_append(f, "=", 1) || om_append(f, lv, lvlen) ||
	    (labels_len && (om_append(f, ",", 1) || om_append(f, l + labels_at, labels_len))) ||
	    om_append(f, "}", 1) || om_append(f, rest, rlen) || om_append(f, "\n", 1))
		return om_fail(ps, "out of memory");
	return 0;
}

static int om_parse(struct om_set *t, const char *text, size_t len, const char *label,
		    const char *lv, size_t lvlen, const char *const *reserved,
		    struct om_parse *ps)
{
	struct om_family *cur = NULL;
	const char *p = text, *end = text + len, *nl;
	size_t ll;
	int eof = 0;

	if (memchr(text, 0, len))
		return om_fail(ps, "a NUL byte in the exposition");
	while (p < end) {
		ps->line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (eof)
			return om_fail(ps, "something after # EOF");
		if (ll == 5 && !memcmp(p, "# EOF", 5)) {
			eof = 1;
		} else if (ll >= 7 && !memcmp(p, "# HELP ", 7)) {
			if (om_meta(t, &cur, p, ll, 0, reserved, ps))
				return -1;
		} else if (ll >= 7 && !memcmp(p, "# TYPE ", 7)) {
			if (om_meta(t, &cur, p, ll, 1, reserved, ps))
				return -1;
		} else if (ll == 0 || p[0] == '#') {
			/* a blank line, # UNIT, a comment */
		} else if (om_sample(cur, p, ll, label, lv, lvlen, ps)) {
			return -1;
		}
		p += ll + (nl ? 1 : 0);
	}
	if (!eof)
		return om_fail(ps, "no # EOF at the end (cut short?)");
	for (ll = 0; ll < t->n; ll++)
		if (!t->f[ll].type) {
			snprintf(ps->err, ps->errlen, "the family %s has no # TYPE", t->f[ll].name);
			return -1;
		}
	return 0;
}

int om_merge(struct om_set *set, const char *text, size_t len, const char *label,
	     const char *value, const char *const *reserved, const char *const *no_samples,
	     char *err, size_t errlen)
{
	struct om_parse ps = { err, errlen, 0, no_samples };
	struct om_set t = { NULL, 0, 0 };
	struct om_family *f;
	char *lv = NULL;
	size_t lvlen = 0, i, nnew = 0;
	FILE *m;
	int rc = -1;

	m = open_memstream(&lv, &lvlen);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	om_label_value(m, value);
	if (fclose(m)) {
		free(lv);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (om_parse(&t, text, len, label, lv, lvlen, reserved, &ps))
		goto out;
	/* everything checked and room made before anything is moved */
	for (i = 0; i < t.n; i++) {
		f = om_find(set, t.f[i].name, strlen(t.f[i].name));
		if (!f) {
			nnew++;
		} else if (strcmp(f->type, t.f[i].type)) {
			snprintf(err, errlen, "the family %s is a %s here, a %s in another "
				 "source", t.f[i].name, t.f[i].type, f->type);
			goto out;
		} else if (t.f[i].len &&
			   om_reserve((void **)&f->samples, &f->cap, f->len + t.f[i].len + 1, 1)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (set->n + nnew > OM_MAX_FAMILIES) {
		snprintf(err, errlen, "more than %d families together", OM_MAX_FAMILIES);
		goto out;
	}
	if (om_reserve((void **)&set->f, &set->cap, set->n + nnew, sizeof(*set->f))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < t.n; i++) {
		f = om_find(set, t.f[i].name, strlen(t.f[i].name));
		if (!f) {
			set->f[set->n++] = t.f[i];
			memset(&t.f[i], 0, sizeof(t.f[i]));
		} else if (t.f[i].len) {
			memcpy(f->samples + f->len, t.f[i].samples, t.f[i].len + 1);
			f->len += t.f[i].len;
		}
	}
	rc = 0;
out:
	om_free(&t);
	free(lv);
	return rc;
}

void om_write(FILE *f, const struct om_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (set->f[i].help)
			fprintf(f, "# HELP %s %s\n", set->f[i].name, set->f[i].help);
		fprintf(f, "# TYPE %s %s\n", set->f[i].name, set->f[i].type);
		if (set->f[i].len)
			fwrite(set->f[i].samples, 1, set->f[i].len, f);
	}
}
