/* The command table's parser and usage printer (see opt.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

void cli_parser_init(struct cli_parser *ps, const struct cli_cmd *cmd, int argc,
		     char **argv)
{
	memset(ps, 0, sizeof(*ps));
	ps->cmd = cmd;
	ps->argc = argc;
	ps->argv = argv;
	ps->next = 1;
	ps->err = stderr;
	ps->out = stdout;
}

static void vusage_error(FILE *f, const struct cli_cmd *cmd, const char *fmt,
			 va_list ap)
{
	fprintf(f, "choke %s: ", cmd->name);
	vfprintf(f, fmt, ap);
	fprintf(f, "\n(choke %s --help lists the options)\n", cmd->name);
}

int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_error(stderr, cmd, fmt, ap);
	va_end(ap);
	return 2;
}

/* A usage error met while parsing: printed to the parser's stream. */
__attribute__((format(printf, 2, 3)))
static int perr(struct cli_parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_error(ps->err ? ps->err : stderr, ps->cmd, fmt, ap);
	va_end(ap);
	ps->status = 2;
	return -1;
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

static int parse_num(const char *s, double *out)
{
	char *end;

	if (!*s || strchr(s, 'x') || strchr(s, 'X') || strchr(s, 'n') ||
	    strchr(s, 'N') || strchr(s, 'i') || strchr(s, 'I'))
		return -1; /* no hex, nan or inf */
	errno = 0;
	*out = strtod(s, &end);
	return (*end || end == s || errno || !isfinite(*out)) ? -1 : 0;
}

static const struct cli_opt *find_opt(const struct cli_cmd *cmd, const char *name,
				      size_t len, int *index)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o && o->id; o++) {
		if (strlen(o->name) == len && !strncmp(o->name, name, len)) {
			*index = (int)(o - cmd->opts);
			return o;
		}
	}
	return NULL;
}

static int range_error(struct cli_parser *ps, const struct cli_opt *o, const char *v)
{
	switch (o->type) {
	case CLI_INT:
	case CLI_OPT_INT:
		perr(ps, "--%s needs an integer from %lld to %lld, not \"%s\"",
		     o->name, o->min, o->max, v);
		break;
	case CLI_U64:
		perr(ps, "--%s needs an integer from %" PRIu64 " to %" PRIu64
		     ", not \"%s\"", o->name, o->umin, o->umax, v);
		break;
	case CLI_NUM:
		perr(ps, "--%s needs a number from %g to %g, not \"%s\"",
		     o->name, o->dmin, o->dmax, v);
		break;
	default:
		perr(ps, "--%s: bad value \"%s\"", o->name, v);
	}
	return -1;
}

static int take_value(struct cli_parser *ps, const struct cli_opt *o, const char *v)
{
	ps->val = v;
	switch (o->type) {
	case CLI_FLAG:
		return 0;
	case CLI_STR:
		if (!*v)
			return perr(ps, "--%s needs a non-empty %s", o->name,
				    o->metavar ? o->metavar : "value");
		return 0;
	case CLI_INT:
	case CLI_OPT_INT:
		if (parse_ll(v, &ps->i) || ps->i < o->min || ps->i > o->max)
			return range_error(ps, o, v);
		return 0;
	case CLI_U64:
		if (parse_u64(v, &ps->u) || ps->u < o->umin || ps->u > o->umax)
			return range_error(ps, o, v);
		return 0;
	case CLI_NUM:
		if (parse_num(v, &ps->d) || ps->d < o->dmin || ps->d > o->dmax)
			return range_error(ps, o, v);
		return 0;
	}
	return range_error(ps, o, v);
}

static int check_positional(struct cli_parser *ps)
{
	const struct cli_cmd *c = ps->cmd;

	if (ps->npos < c->min_pos)
		return perr(ps, "missing %s", c->args ? c->args : "arguments");
	if (c->max_pos >= 0 && ps->npos > c->max_pos)
		return perr(ps, "unexpected argument \"%s\"", ps->pos[c->max_pos]);
	return 0;
}

int cli_next(struct cli_parser *ps)
{
	const struct cli_opt *o, *p;
	const char *a, *eq;
	size_t len;
	int idx;

	for (;;) {
		if (ps->next >= ps->argc)
			return check_positional(ps);
		a = ps->argv[ps->next++];
		if (ps->opts_done || a[0] != '-' || (a[1] != '-' && strcmp(a, "-h"))) {
			if (ps->npos >= CLI_MAX_POS)
				return perr(ps, "too many arguments (at most %d)",
					    CLI_MAX_POS);
			ps->pos[ps->npos++] = (char *)a;
			continue;
		}
		if (!strcmp(a, "--")) {
			ps->opts_done = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_print_usage(ps->out, ps->cmd);
			ps->status = 0;
			return -1;
		}
		break;
	}
	a += 2;
	eq = strchr(a, '=');
	len = eq ? (size_t)(eq - a) : strlen(a);
	o = find_opt(ps->cmd, a, len, &idx);
	if (!o)
		return perr(ps, "unknown option --%.*s", (int)len, a);
	if (idx < (int)sizeof(ps->seen)) {
		if (ps->seen[idx] && !(o->flags & CLI_REPEAT))
			return perr(ps, "--%s given twice", o->name);
		if (o->group) {
			for (p = ps->cmd->opts; p->id; p++) {
				int j = (int)(p - ps->cmd->opts);

				if (p != o && p->group == o->group &&
				    j < (int)sizeof(ps->seen) && ps->seen[j])
					return perr(ps, "--%s and --%s exclude each other",
						    p->name, o->name);
			}
		}
		ps->seen[idx] = 1;
	}
	ps->has_value = 0;
	ps->val = NULL;
	if (o->type == CLI_FLAG) {
		if (eq)
			return perr(ps, "--%s takes no value", o->name);
		return o->id;
	}
	if (o->type == CLI_OPT_INT) {
		long long v;
		const char *n = eq ? eq + 1 :
			(ps->next < ps->argc && !parse_ll(ps->argv[ps->next], &v) ?
			 ps->argv[ps->next] : NULL);

		if (!n)
			return o->id;
		if (!eq)
			ps->next++;
		ps->has_value = 1;
		return take_value(ps, o, n) ? -1 : o->id;
	}
	if (eq)
		return take_value(ps, o, eq + 1) ? -1 : o->id;
	if (ps->next >= ps->argc)
		return perr(ps, "--%s needs %s", o->name,
			    o->metavar ? o->metavar : "a value");
	return take_value(ps, o, ps->argv[ps->next++]) ? -1 : o->id;
}

static void print_range(FILE *f, const struct cli_opt *o)
{
	switch (o->type) {
	case CLI_INT:
	case CLI_OPT_INT:
		fprintf(f, " (%lld..%lld)", o->min, o->max);
		break;
	case CLI_U64:
		fprintf(f, " (%" PRIu64 "..%" PRIu64 ")", o->umin, o->umax);
		break;
	case CLI_NUM:
		fprintf(f, " (%g..%g)", o->dmin, o->dmax);
		break;
	default:
		break;
	}
}

static int opt_label(char *buf, size_t n, const struct cli_opt *o)
{
	if (o->type == CLI_FLAG)
		return snprintf(buf, n, "--%s", o->name);
	if (o->type == CLI_OPT_INT)
		return snprintf(buf, n, "--%s [%s]", o->name, o->metavar ? o->metavar : "N");
	return snprintf(buf, n, "--%s %s", o->name, o->metavar ? o->metavar : "VALUE");
}

void cli_print_usage(FILE *f, const struct cli_cmd *cmd)
{
	const struct cli_opt *o;
	char label[64];

	fprintf(f, "usage: choke %s%s%s%s\n", cmd->name,
		cmd->opts && cmd->opts->id ? " [OPTIONS]" : "", cmd->args ? " " : "",
		cmd->args ? cmd->args : "");
	fprintf(f, "  %s\n", cmd->summary);
	if (cmd->details)
		fprintf(f, "%s", cmd->details);
	fprintf(f, "\noptions:\n");
	for (o = cmd->opts; o && o->id; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		opt_label(label, sizeof(label), o);
		fprintf(f, "  %-24s %s", label, o->help);
		print_range(f, o);
		if (o->flags & CLI_REPEAT)
			fprintf(f, " (repeatable)");
		fputc('\n', f);
	}
	fprintf(f, "  %-24s %s\n", "-h, --help", "print this help and exit");
}

void cli_print_option_list(FILE *f, const struct cli_cmd *cmd)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o && o->id; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		fprintf(f, "%s --%s%s%s\n", cmd->name, o->name,
			o->metavar ? " " : "", o->metavar ? o->metavar : "");
	}
}
