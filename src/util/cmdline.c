/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The command table's parser and usage printer (see opt.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

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

int cli_refuse(const struct cli_cmd *cmd, const struct cli_opt *o, const char *v)
{
	char err[512];

	cli_opt_refuse(o, v, err, sizeof(err));
	return cli_usage_error(cmd, "%s", err);
}

const struct cli_opt *cli_cmd_opt(const struct cli_cmd *cmd, int id)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o && o->id; o++)
		if (o->id == id)
			return o;
	return NULL;
}

int cli_given(const struct cli_parser *ps, int id)
{
	const struct cli_opt *o = cli_cmd_opt(ps->cmd, id);
	int k = o ? (int)(o - ps->cmd->opts) : -1;

	return k >= 0 && k < (int)sizeof(ps->seen) && ps->seen[k];
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

static int take_value(struct cli_parser *ps, const struct cli_opt *o, const char *v)
{
	struct cli_value cv;
	char err[512];

	if (cli_opt_value(o, v, &cv, err, sizeof(err)))
		return perr(ps, "%s", err);
	ps->val = cv.s;
	ps->i = cv.i;
	ps->u = cv.u;
	ps->d = cv.d;
	return 0;
}

/* The required words of the synopsis ("FILE [choke WORDS...]" -> "FILE"). */
static void required_args(const char *args, char *buf, size_t len)
{
	size_t n = 0;
	int depth = 0;

	for (; args && *args && n + 1 < len; args++) {
		if (*args == '[')
			depth++;
		else if (*args == ']')
			depth--;
		else if (!depth && !(*args == ' ' && (!n || buf[n - 1] == ' ')))
			buf[n++] = *args;
	}
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
}

static int check_positional(struct cli_parser *ps)
{
	const struct cli_cmd *c = ps->cmd;
	char req[128];

	if (ps->npos < c->min_pos) {
		required_args(c->args, req, sizeof(req));
		return perr(ps, "missing %s", req[0] ? req : "arguments");
	}
	if (c->max_pos >= 0 && ps->npos > c->max_pos)
		return perr(ps, "unexpected argument \"%s\"", ps->pos[c->max_pos]);
	return 0;
}

/* "-" and negative numbers are arguments; "-x" is an option. */
static int is_option(const char *a)
{
	return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.';
}

int cli_next(struct cli_parser *ps)
{
	const struct cli_opt *o, *p;
	const char *a, *eq, *n;
	size_t len;
	int idx;

	for (;;) {
		if (ps->next >= ps->argc)
			return check_positional(ps);
		a = ps->argv[ps->next++];
		if (ps->opts_done || !is_option(a)) {
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
		if (a[1] != '-')
			return perr(ps, "unknown option %s", a);
		break;
	}
	a += 2;
	eq = strchr(a, '=');
	len = eq ? (size_t)(eq - a) : strlen(a);
	o = cli_opt_find(ps->cmd->opts, a, len);
	if (!o)
		return perr(ps, "unknown option --%.*s", (int)len, a);
	idx = (int)(o - ps->cmd->opts);
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
	ps->opt = o;
	ps->has_value = 0;
	ps->val = NULL;
	if (o->type == CLI_FLAG) {
		if (eq)
			return perr(ps, "--%s takes no value", o->name);
		return o->id;
	}
	if (o->type == CLI_OPT_INT || o->type == CLI_OPT_NUM) {
		n = eq ? eq + 1 :
			(ps->next < ps->argc &&
			 cli_is_number(ps->argv[ps->next], o->type == CLI_OPT_INT) ?
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

/* After the help line: the range of a number, the form of a string. */
static void format_range(char *buf, size_t len, const struct cli_opt *o)
{
	char acc[256];

	buf[0] = 0;
	switch (o->type) {
	case CLI_INT:
	case CLI_OPT_INT:
		snprintf(buf, len, " (%lld..%lld)", o->min, o->max);
		break;
	case CLI_U64:
		snprintf(buf, len, " (%llu..%llu)", (unsigned long long)o->umin,
			 (unsigned long long)o->umax);
		break;
	case CLI_NUM:
	case CLI_OPT_NUM:
		snprintf(buf, len, " (%g..%g)", o->dmin, o->dmax);
		break;
	case CLI_STR:
		if (o->form) {
			cli_opt_accepts(o, acc, sizeof(acc));
			snprintf(buf, len, " (%s)", acc);
		}
		break;
	default:
		break;
	}
}

#define LABEL_WIDTH 24
#define LINE_WIDTH 79

/* text from column `col` on, wrapped at spaces before LINE_WIDTH, the
 * continuation lines indented to `col` */
static void print_wrapped(FILE *f, const char *text, int col)
{
	int room = LINE_WIDTH - col, n;
	const char *p = text, *brk;

	while ((int)strlen(p) > room) {
		for (brk = p + room; brk > p && *brk != ' '; brk--)
			;
		if (brk == p) /* one long word: as it is */
			brk = strchr(p + room, ' ');
		if (!brk)
			break;
		n = (int)(brk - p);
		fprintf(f, "%.*s\n%*s", n, p, col, "");
		p = brk + 1;
	}
	fprintf(f, "%s\n", p);
}

static int opt_label(char *buf, size_t n, const struct cli_opt *o)
{
	if (o->type == CLI_FLAG)
		return snprintf(buf, n, "--%s", o->name);
	if (o->type == CLI_OPT_INT || o->type == CLI_OPT_NUM)
		return snprintf(buf, n, "--%s [%s]", o->name, o->metavar ? o->metavar : "N");
	return snprintf(buf, n, "--%s %s", o->name, o->metavar ? o->metavar : "VALUE");
}

void cli_print_usage(FILE *f, const struct cli_cmd *cmd)
{
	const struct cli_opt *o;
	char label[128], range[300], text[1024];

	fprintf(f, "usage: choke %s%s%s%s\n", cmd->name,
		cmd->opts && cmd->opts->id ? " [OPTIONS]" : "", cmd->args ? " " : "",
		cmd->args ? cmd->args : "");
	fprintf(f, "  %s\n", cmd->summary);
	if (cmd->details)
		fprintf(f, "%s", cmd->details);
	if (cmd->details_fn)
		cmd->details_fn(f);
	fprintf(f, "\noptions:\n");
	for (o = cmd->opts; o && o->id; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		/* a long label gets a line of its own */
		if (opt_label(label, sizeof(label), o) > LABEL_WIDTH)
			fprintf(f, "  %s\n  %-*s ", label, LABEL_WIDTH, "");
		else
			fprintf(f, "  %-*s ", LABEL_WIDTH, label);
		format_range(range, sizeof(range), o);
		snprintf(text, sizeof(text), "%s%s%s", o->help, range,
			 o->flags & CLI_REPEAT ? " (repeatable)" : "");
		print_wrapped(f, text, LABEL_WIDTH + 3);
	}
	fprintf(f, "  %-*s %s\n", LABEL_WIDTH, "-h, --help", "print this help and exit");
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

/* Markdown: a table cell may not hold a bare '|'. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void cli_print_inputs(FILE *f, const struct cli_cmd *cmd)
{
	const struct cli_opt *o, *p;
	char label[128], acc[256];
	const char *sep;

	fprintf(f, "### choke %s\n\n", cmd->name);
	fprintf(f, "| option | accepted | notes |\n|---|---|---|\n");
	for (o = cmd->opts; o && o->id; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		opt_label(label, sizeof(label), o);
		cli_opt_accepts(o, acc, sizeof(acc));
		fputs("| `", f);
		md_cell(f, label);
		fputs("` | ", f);
		md_cell(f, o->type == CLI_FLAG ? "no value" : acc);
		fputs(" | ", f);
		sep = "";
		if (o->type == CLI_OPT_INT || o->type == CLI_OPT_NUM) {
			fprintf(f, "the value is optional");
			sep = "; ";
		}
		if (o->flags & CLI_REPEAT) {
			fprintf(f, "%srepeatable", sep);
			sep = "; ";
		}
		if (o->group) {
			fprintf(f, "%snot with", sep);
			for (p = cmd->opts, sep = " "; p->id; p++) {
				if (p != o && p->group == o->group) {
					fprintf(f, "%s`--%s`", sep, p->name);
					sep = ", ";
				}
			}
		}
		fputs(" |\n", f);
	}
	fputc('\n', f);
}
