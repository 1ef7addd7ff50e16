// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * tc-plugin: q_chokeplus.so loaded the way stock tc loads it (dlopen, then
 * the symbol chokeplus_qdisc_util), with this program standing in for tc:
 * it exports the functions the plugin calls (addattr_l, addattr_nest,
 * print_color_*, show_details, ...; linked with -rdynamic as tc is).
 *
 *   tc-plugin PATH/q_chokeplus.so
 *
 * Checks, for a list of word sets: the request the plugin builds carries
 * exactly what `choke params` derives from the same words (tc_red_qopt,
 * the 256-byte Stab, MAX_P, and the variant attribute), with mainline
 * choke's attribute numbers and nothing else; what it prints back from
 * those attributes (text, with and without details) is the words again;
 * and what it refuses (bad words, byte mode, gentle, wait, ared, help) it refuses with a
 * message and without touching the request. Exits 0 or 1.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "choke/params.h"
#include "../kmod/chokeplus.h"

/* ---- what tc exports to its plugins (iproute2 6.1's signatures) ---- */

int show_details;
static char out[4096]; /* what the print functions wrote */
static size_t outlen;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	outlen += (size_t)vsnprintf(out + outlen, sizeof(out) - outlen, fmt, ap);
	va_end(ap);
	if (outlen >= sizeof(out))
		outlen = sizeof(out) - 1;
}

int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int print_color_uint(int type, int color, const char *key, const char *fmt, unsigned int value);
int print_color_float(int type, int color, const char *key, const char *fmt, double value);
int print_color_string(int type, int color, const char *key, const char *fmt, const char *value);
int print_color_bool(int type, int color, const char *key, const char *fmt, bool value);

int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen)
{
	int len = RTA_LENGTH(alen);
	struct rtattr *rta;

	if ((int)NLMSG_ALIGN(n->nlmsg_len) + (int)RTA_ALIGN(len) > maxlen)
		return -1;
	rta = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));
	rta->rta_type = (unsigned short)type;
	rta->rta_len = (unsigned short)len;
	if (alen)
		memcpy(RTA_DATA(rta), data, (size_t)alen);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(len);
	return 0;
}

struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type)
{
	struct rtattr *nest = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	if (addattr_l(n, maxlen, type, NULL, 0))
		return NULL;
	return nest;
}

int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)n + NLMSG_ALIGN(n->nlmsg_len) - (char *)nest);
	return (int)n->nlmsg_len;
}

int print_color_uint(int type, int color, const char *key, const char *fmt, unsigned int value)
{
	(void)type;
	(void)color;
	(void)key;
	emit(fmt, value);
	return 0;
}

int print_color_float(int type, int color, const char *key, const char *fmt, double value)
{
	(void)type;
	(void)color;
	(void)key;
	emit(fmt, value);
	return 0;
}

int print_color_string(int type, int color, const char *key, const char *fmt, const char *value)
{
	(void)type;
	(void)color;
	(void)key;
	emit(fmt, value);
	return 0;
}

int print_color_bool(int type, int color, const char *key, const char *fmt, bool value)
{
	(void)type;
	(void)color;
	(void)key;
	(void)value;
	emit("%s", fmt); /* tc's words: the format is the word */
	return 0;
}

/* ---- the plugin's side (struct qdisc_util of iproute2 6.1) ---- */

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv, struct nlmsghdr *n,
			  const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f, struct rtattr *xstats);
	void *parse_copt, *print_copt, *has_block;
};

static int fails, checks;

#define CHECK(c, ...)                                                           \
	do {                                                                    \
		checks++;                                                       \
		if (!(c)) {                                                     \
			fails++;                                                \
			printf("FAIL tc-plugin: %s: ", #c);                     \
			printf(__VA_ARGS__);                                    \
			printf("\n");                                           \
		}                                                               \
	} while (0)

static struct {
	struct nlmsghdr n;
	char buf[2048];
} req;

static int split(char *line, char **argv)
{
	int argc = 0;
	char *t, *save;

	for (t = strtok_r(line, " ", &save); t && argc < 63; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	return argc;
}

/* The words give what choke params gives: the request, then the words
 * printed back. */
static void accepted(struct qdisc_util *qu, const char *words, const char *want_text)
{
	char line[512], *argv[64], perr[CHOKE_ERRBUF_SIZE];
	struct choke_params p;
	struct rtattr *opt, *a, *tb[TCA_CHOKEPLUS_MAX + 1];
	int argc, len, extra = 0;

	snprintf(line, sizeof(line), "%s", words);
	argc = split(line, argv);
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(0);
	CHECK(qu->parse_qopt(qu, argc, argv, &req.n, "") == 0, "\"%s\" refused", words);
	snprintf(line, sizeof(line), "%s", words);
	argc = split(line, argv);
	CHECK(choke_params_parse(argc, argv, CHOKE_KIND_CHOKE, NULL, &p, perr, sizeof(perr)) == 0,
	      "choke params refuses \"%s\": %s", words, perr);
	opt = (struct rtattr *)NLMSG_DATA(&req.n);
	CHECK(opt->rta_type == TCA_OPTIONS && RTA_ALIGN(opt->rta_len) + NLMSG_LENGTH(0) ==
	      req.n.nlmsg_len, "one TCA_OPTIONS holding everything (%u of %u)", opt->rta_len,
	      req.n.nlmsg_len);
	memset(tb, 0, sizeof(tb));
	len = (int)RTA_PAYLOAD(opt);
	for (a = RTA_DATA(opt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type >= 1 && a->rta_type <= TCA_CHOKEPLUS_MAX && !tb[a->rta_type])
			tb[a->rta_type] = a;
		else
			extra++;
	}
	CHECK(!extra && len == 0, "\"%s\": attributes beyond the four, or twice", words);
	/* mainline choke's numbers for the first three */
	CHECK((int)TCA_CHOKEPLUS_PARMS == (int)TCA_CHOKE_PARMS &&
	      (int)TCA_CHOKEPLUS_STAB == (int)TCA_CHOKE_STAB &&
	      (int)TCA_CHOKEPLUS_MAX_P == (int)TCA_CHOKE_MAX_P, "attribute numbers");
	if (tb[1] && tb[2] && tb[3] && tb[4]) {
		struct tc_red_qopt q;
		struct tc_chokeplus_variant v;
		uint32_t max_P;

		CHECK(RTA_PAYLOAD(tb[1]) == sizeof(q) && RTA_PAYLOAD(tb[2]) == 256 &&
		      RTA_PAYLOAD(tb[3]) == 4 && RTA_PAYLOAD(tb[4]) == sizeof(v), "lengths");
		memcpy(&q, RTA_DATA(tb[1]), sizeof(q));
		memcpy(&max_P, RTA_DATA(tb[3]), 4);
		memcpy(&v, RTA_DATA(tb[4]), sizeof(v));
		CHECK(q.limit == p.cfg.limit && q.qth_min == p.cfg.qth_min &&
		      q.qth_max == p.cfg.qth_max && q.Wlog == p.cfg.Wlog && q.Plog == p.cfg.Plog &&
		      q.Scell_log == p.cfg.Scell_log && q.flags == p.cfg.flags,
		      "\"%s\": tc_red_qopt differs from choke params", words);
		CHECK(!memcmp(RTA_DATA(tb[2]), p.cfg.stab, 256), "\"%s\": the Stab differs", words);
		CHECK(max_P == p.cfg.max_P, "\"%s\": MAX_P %u, choke params %u", words, max_P,
		      p.cfg.max_P);
		CHECK(v.variant == p.cfg.variant && v.draws == p.cfg.draws &&
		      v.protect == p.cfg.protect && v.protect_by == p.cfg.protect_by &&
		      v.sparse == p.cfg.sparse && v.target_us == p.cfg.target_us && !v.pad,
		      "\"%s\": the variant differs", words);
	} else {
		CHECK(0, "\"%s\": PARMS, STAB, MAX_P and VARIANT expected", words);
	}
	/* printed back (tc qdisc show; tc -d qdisc show) */
	outlen = 0;
	out[0] = 0;
	show_details = 0;
	CHECK(qu->print_qopt(qu, stdout, opt) == 0, "print");
	CHECK(!strcmp(out, want_text), "\"%s\" printed \"%s\", want \"%s\"", words, out, want_text);
	{
		char fmt[256];

		outlen = 0;
		out[0] = 0;
		show_details = 1;
		CHECK(qu->print_qopt(qu, stdout, opt) == 0, "print -d");
		/* -d adds what choke params' line ends with */
		choke_params_format(&p.cfg, fmt, sizeof(fmt));
		CHECK(!strcmp(out, fmt), "\"%s\" printed with -d \"%s\", choke params \"%s\"", words,
		      out, fmt);
	}
}

static void refused(struct qdisc_util *qu, const char *words)
{
	char line[512], *argv[64];
	int argc;

	snprintf(line, sizeof(line), "%s", words);
	argc = split(line, argv);
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(0);
	CHECK(qu->parse_qopt(qu, argc, argv, &req.n, "") != 0, "\"%s\" accepted", words);
	CHECK(req.n.nlmsg_len == NLMSG_LENGTH(0), "\"%s\": refused but the request grew", words);
}

int main(int argc, char **argv)
{
	struct qdisc_util *qu;
	void *so;

	if (argc != 2) {
		fprintf(stderr, "usage: tc-plugin PATH/q_chokeplus.so\n");
		return 2;
	}
	so = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!so) {
		printf("FAIL tc-plugin: dlopen: %s\n", dlerror());
		return 1;
	}
	qu = dlsym(so, "chokeplus_qdisc_util");
	CHECK(qu != NULL, "no chokeplus_qdisc_util");
	if (!qu)
		return 1;
	CHECK(!strcmp(qu->id, "chokeplus"), "id %s", qu->id);
	CHECK(dlsym(so, "choke_params_parse") == NULL && dlsym(so, "choke_enqueue") == NULL,
	      "the plugin exports its libchoke (it must keep it local)");

	accepted(qu, "limit 1000 bandwidth 10mbit", "limit 1000p min 83p max 250p ");
	accepted(qu, "limit 300 min 25 max 50 bandwidth 4mbit protect",
		 "limit 300p min 25p max 50p protect 64 ");
	accepted(qu, "limit 300 min 100 max 200 burst 300 bandwidth 1mbit protect 32 ecn",
		 "limit 300p min 100p max 200p protect 32 ecn ");
	accepted(qu, "limit 500 min 50 max 150 bandwidth 20mbit draws 8 protect 256",
		 "limit 500p min 50p max 150p draws 8 protect 256 ");
	accepted(qu, "limit 1000 bandwidth 4mbit protect srchost target 5ms sparse",
		 "limit 1000p min 83p max 250p protect 64 srchost target 5000us sparse ");
	accepted(qu, "limit 1000 bandwidth 100mbit protect 128 hosts ecn",
		 "limit 1000p min 83p max 250p protect 128 hosts ecn ");
	accepted(qu, "limit 1000 bandwidth 100mbit sparse",
		 "limit 1000p min 83p max 250p sparse ");
	refused(qu, "limit 1000 bandwidth 4mbit target 5ms");
	refused(qu, "limit 1000 bandwidth 4mbit protect srchost dsthost");
	accepted(qu, "limit 500 min 50 max 150 bandwidth 20mbit adaptive harddrop",
		 "limit 500p min 50p max 150p adaptive harddrop ");
	accepted(qu, "limit 500 min 50 max 150 bandwidth 20mbit geometric probability 0.1",
		 "limit 500p min 50p max 150p geometric 8 ");
	refused(qu, "limit 100 min 50 max 20 bandwidth 10mbit");
	refused(qu, "limit 100 bandwidth 10mbit protect 7");
	refused(qu, "limit 100000 min 10000 max 30000 bandwidth 10mbit bytes");
	refused(qu, "limit 100 bandwidth 10mbit gentle");
	refused(qu, "limit 100 bandwidth 10mbit ared");
	refused(qu, "limit 100 bandwidth 10mbit frob");
	refused(qu, "help");
	refused(qu, "");
	{
		/* xstats: mainline's five, and protect's when present */
		struct {
			struct rtattr a;
			struct tc_chokeplus_xstats x;
		} xs = { { RTA_LENGTH(sizeof(struct tc_chokeplus_xstats)), 0 },
			 { 1, 2, 3, 4, 5, 6, 7, 8 } };

		outlen = 0;
		CHECK(qu->print_xstats(qu, stdout, &xs.a) == 0, "xstats");
		CHECK(!strcmp(out, "  marked 4 early 1 pdrop 2 other 3 matched 5 protect 6 "
			      "protect_marked 7 lane 8"),
		      "xstats printed \"%s\"", out);
		/* 0.1.0's module: six counters */
		xs.a.rta_len = RTA_LENGTH(6 * sizeof(__u32));
		outlen = 0;
		CHECK(qu->print_xstats(qu, stdout, &xs.a) == 0, "xstats, 0.1.0's size");
		CHECK(!strcmp(out, "  marked 4 early 1 pdrop 2 other 3 matched 5 protect 6"),
		      "xstats printed \"%s\"", out);
		xs.a.rta_len = RTA_LENGTH(sizeof(struct tc_choke_xstats));
		outlen = 0;
		CHECK(qu->print_xstats(qu, stdout, &xs.a) == 0, "xstats, mainline's size");
		CHECK(!strcmp(out, "  marked 4 early 1 pdrop 2 other 3 matched 5"),
		      "xstats printed \"%s\"", out);
	}
	printf("%s tc-plugin: %d checks, %d failed (q_chokeplus.so through tc's plugin "
	       "interface)\n", fails ? "FAIL" : "ok  ", checks, fails);
	return fails ? 1 : 0;
}
