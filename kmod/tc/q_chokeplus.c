// SPDX-License-Identifier: GPL-2.0-only
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * q_chokeplus.so: the tc front end of the qdisc id "chokeplus"
 * (sch_libchoke.ko; docs/kernel.md), loaded by stock iproute2:
 *
 *   TC_LIB_DIR=/usr/local/lib/tc tc qdisc add dev eth0 parent 1:1 \
 *       chokeplus limit 1000 bandwidth 10mbit protect
 *
 * tc looks for a qdisc it does not know in TC_LIB_DIR (default
 * /usr/lib/tc) as q_KIND.so and uses its KIND_qdisc_util. The words are
 * `choke params` words: this file parses them with the project's params
 * code (src/params/params.c, linked in), so every word, default,
 * derivation and message is the one `choke params` gives, and sends
 * mainline choke's three attributes plus TCA_CHOKEPLUS_VARIANT
 * (kmod/chokeplus.h). `tc qdisc show` prints them back in the same words.
 *
 * The interface to tc is iproute2's plugin ABI, declared below rather
 * than taken from iproute2's headers (Debian ships none): struct
 * qdisc_util and the functions tc exports (it is linked with
 * -export-dynamic for its plugins). It was checked against Debian 12's
 * tc (iproute2 6.1.0): the layout of its own choke_qdisc_util and htb's,
 * and the values print_color_*() is called with for PRINT_ANY and
 * COLOR_NONE, read from its machine code. Only this symbol is exported;
 * everything else has hidden visibility, so nothing here can be confused
 * with tc's own functions.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "choke/params.h"
#include "../chokeplus.h"

/* ---- what tc gives a plugin (iproute2 6.1) ---- */

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv, struct nlmsghdr *n,
			  const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f, struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv, struct nlmsghdr *n,
			  const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt, uint32_t block_idx,
			 bool *p_has);
};

/* enum output_type and enum color_attr of iproute2 6.1 */
#define TC_PRINT_ANY 4
#define TC_COLOR_NONE 6

extern int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen);
extern struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
extern int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
extern int print_color_uint(int type, int color, const char *key, const char *fmt,
			    unsigned int value);
extern int print_color_float(int type, int color, const char *key, const char *fmt,
			     double value);
extern int print_color_string(int type, int color, const char *key, const char *fmt,
			      const char *value);
extern int print_color_bool(int type, int color, const char *key, const char *fmt,
			    bool value);
extern int show_details;

/* ---- parsing ---- */

#define TC_MAXLEN 1024 /* what tc's own qdiscs give addattr for options */

static void usage(void)
{
	fprintf(stderr,
		"Usage: ... chokeplus limit PACKETS bandwidth KBPS [ecn] [harddrop]\n"
		"                     [min PACKETS] [max PACKETS] [burst PACKETS] [avpkt BYTES]\n"
		"                     [probability PROBABILITY]\n"
		"                     [draws N | adaptive | geometric [CAP]]\n"
		"                     [protect [N] [flows | srchost | dsthost | hosts]\n"
		"                      [target TIME]] [sparse]\n"
		"The words of `choke params` (docs/params.md, docs/variants.md); the qdisc\n"
		"is sch_libchoke's second id (docs/kernel.md).\n");
}

/* The link's speed for `bandwidth N%`, as tc reads it; 0 if unknown. */
static long link_mbit(const char *dev)
{
	char path[128];
	long v = 0;
	FILE *f;

	if (!dev || !*dev || strchr(dev, '/'))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", dev);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &v) != 1 || v < 0)
		v = 0;
	fclose(f);
	return v;
}

static int chokeplus_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			       struct nlmsghdr *n, const char *dev)
{
	struct choke_parse_opts o = { .link_mbit = link_mbit(dev) };
	struct choke_params p;
	struct tc_red_qopt opt;
	struct tc_chokeplus_variant var;
	char err[CHOKE_ERRBUF_SIZE];
	struct rtattr *tail;
	uint32_t max_P;
	int i;

	(void)qu;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "help")) {
			usage();
			return -1;
		}
	}
	if (choke_params_parse(argc, argv, CHOKE_KIND_CHOKE, &o, &p, err, sizeof(err))) {
		fprintf(stderr, "chokeplus: %s\n", err);
		return -1;
	}
	if (p.cfg.limit_bytes) {
		fprintf(stderr, "chokeplus: byte mode (\"bytes\") is not offered by the kernel "
			"module, which counts packets; the other hosts have it\n");
		return -1;
	}
	if (p.cfg.red_ext) {
		fprintf(stderr, "chokeplus: gentle, wait and ared are not offered by the kernel "
			"module (its netlink options do not carry them); the other hosts have "
			"them\n");
		return -1;
	}
	for (i = 0; i < p.nwarnings; i++)
		fprintf(stderr, "chokeplus: %s\n", p.warnings[i]);
	memset(&opt, 0, sizeof(opt));
	opt.limit = p.cfg.limit;
	opt.qth_min = p.cfg.qth_min;
	opt.qth_max = p.cfg.qth_max;
	opt.Wlog = p.cfg.Wlog;
	opt.Plog = p.cfg.Plog;
	opt.Scell_log = p.cfg.Scell_log;
	opt.flags = p.cfg.flags;
	max_P = p.cfg.max_P;
	memset(&var, 0, sizeof(var));
	var.variant = p.cfg.variant;
	var.draws = p.cfg.draws;
	var.protect = p.cfg.protect;
	var.protect_by = p.cfg.protect_by;
	var.sparse = p.cfg.sparse;
	var.target_us = p.cfg.target_us;
	tail = addattr_nest(n, TC_MAXLEN, TCA_OPTIONS);
	if (!tail || addattr_l(n, TC_MAXLEN, TCA_CHOKEPLUS_PARMS, &opt, sizeof(opt)) ||
	    addattr_l(n, TC_MAXLEN, TCA_CHOKEPLUS_STAB, p.cfg.stab, CHOKE_STAB_SIZE) ||
	    addattr_l(n, TC_MAXLEN, TCA_CHOKEPLUS_MAX_P, &max_P, sizeof(max_P)) ||
	    addattr_l(n, TC_MAXLEN, TCA_CHOKEPLUS_VARIANT, &var, sizeof(var))) {
		fprintf(stderr, "chokeplus: the options do not fit in the request\n");
		return -1;
	}
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- printing ---- */

/* The nested attributes of rta, by type (the last of each), up to max. */
static void nested(struct rtattr *tb[], int max, const struct rtattr *rta)
{
	const struct rtattr *a = RTA_DATA(rta);
	int len = (int)RTA_PAYLOAD(rta);

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		unsigned short type = a->rta_type & ~NLA_F_NESTED;

		if (type <= max)
			tb[type] = (struct rtattr *)a;
	}
}

static void puint(const char *key, const char *fmt, unsigned int v)
{
	print_color_uint(TC_PRINT_ANY, TC_COLOR_NONE, key, fmt, v);
}

static void pword(const char *key, const char *word)
{
	print_color_bool(TC_PRINT_ANY, TC_COLOR_NONE, key, word, true);
}

static int chokeplus_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_CHOKEPLUS_MAX + 1];
	const struct tc_red_qopt *q;
	struct tc_chokeplus_variant var;
	uint32_t max_P = 0;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	nested(tb, TCA_CHOKEPLUS_MAX, opt);
	if (!tb[TCA_CHOKEPLUS_PARMS] || RTA_PAYLOAD(tb[TCA_CHOKEPLUS_PARMS]) < sizeof(*q))
		return -1;
	q = RTA_DATA(tb[TCA_CHOKEPLUS_PARMS]);
	if (tb[TCA_CHOKEPLUS_MAX_P] && RTA_PAYLOAD(tb[TCA_CHOKEPLUS_MAX_P]) >= sizeof(max_P))
		memcpy(&max_P, RTA_DATA(tb[TCA_CHOKEPLUS_MAX_P]), sizeof(max_P));
	memset(&var, 0, sizeof(var));
	/* the 12 bytes of today's module, or the first 4 of 0.1.0's */
	if (tb[TCA_CHOKEPLUS_VARIANT] &&
	    RTA_PAYLOAD(tb[TCA_CHOKEPLUS_VARIANT]) >= TC_CHOKEPLUS_VARIANT_V1_LEN)
		memcpy(&var, RTA_DATA(tb[TCA_CHOKEPLUS_VARIANT]),
		       RTA_PAYLOAD(tb[TCA_CHOKEPLUS_VARIANT]) < sizeof(var) ?
			       RTA_PAYLOAD(tb[TCA_CHOKEPLUS_VARIANT]) : sizeof(var));
	/* the words of `choke params`, in its order */
	puint("limit", "limit %up ", q->limit);
	puint("min", "min %up ", q->qth_min);
	puint("max", "max %up ", q->qth_max);
	if (var.variant == 1)
		puint("draws", "draws %u ", var.draws);
	else if (var.variant == 2)
		pword("adaptive", "adaptive ");
	else if (var.variant == 3)
		puint("geometric", "geometric %u ", var.draws);
	if (var.protect)
		puint("protect", "protect %u ", var.protect);
	if (var.protect_by)
		print_color_string(TC_PRINT_ANY, TC_COLOR_NONE, "protect_by", "%s ",
				   choke_protect_by_name(var.protect_by));
	if (var.target_us)
		puint("target_us", "target %uus ", var.target_us);
	if (var.sparse)
		pword("sparse", "sparse ");
	if (q->flags & TC_RED_ECN)
		pword("ecn", "ecn ");
	if (q->flags & TC_RED_HARDDROP)
		pword("harddrop", "harddrop ");
	if (show_details) {
		puint("ewma", "ewma %u ", q->Wlog);
		if (max_P)
			print_color_float(TC_PRINT_ANY, TC_COLOR_NONE, "probability",
					  "probability %lg ", max_P / pow(2, 32));
		else
			puint("Plog", "Plog %u ", q->Plog);
		puint("Scell_log", "Scell_log %u", q->Scell_log);
	}
	return 0;
}

static int chokeplus_print_xstats(struct qdisc_util *qu, FILE *f, struct rtattr *xstats)
{
	struct tc_chokeplus_xstats st;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	memset(&st, 0, sizeof(st));
	/* at least mainline's five counters; protect's when the module sends it */
	if (RTA_PAYLOAD(xstats) < sizeof(struct tc_choke_xstats))
		return -1;
	memcpy(&st, RTA_DATA(xstats),
	       RTA_PAYLOAD(xstats) < sizeof(st) ? RTA_PAYLOAD(xstats) : sizeof(st));
	puint("marked", "  marked %u", st.marked);
	puint("early", " early %u", st.early);
	puint("pdrop", " pdrop %u", st.pdrop);
	puint("other", " other %u", st.other);
	puint("matched", " matched %u", st.matched);
	if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_chokeplus_xstats, protect) +
				    sizeof(st.protect))
		puint("protect", " protect %u", st.protect);
	if (RTA_PAYLOAD(xstats) >= sizeof(st)) {
		puint("protect_marked", " protect_marked %u", st.protect_marked);
		puint("lane", " lane %u", st.lane);
	}
	return 0;
}

__attribute__((visibility("default"))) struct qdisc_util chokeplus_qdisc_util = {
	.id = CHOKEPLUS_ID,
	.parse_qopt = chokeplus_parse_opt,
	.print_qopt = chokeplus_print_opt,
	.print_xstats = chokeplus_print_xstats,
};
