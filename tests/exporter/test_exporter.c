/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The exporter's rooms without root: the rtnetlink parser on dumps recorded
 * from real kernels (tests/exporter/NAME.nlrec, checked against what tc printed
 * at the same moment, NAME.expect) and on hand-made messages (every error path;
 * every truncation and random corruption of the recordings), the merging of
 * bridges' expositions (rendered by the bridge's own stats_write_openmetrics
 * from made-up snapshots), the HTTP request judge and the listen address.
 *
 *   exporter-tests [DIR]              the tests (DIR: the fixtures,
 *                                     default tests/exporter)
 *   exporter-tests --record FILE      record this namespace's qdisc and link
 *                                     dumps into FILE (how the fixtures were
 *                                     made: tests/kernel/exporter-guest.sh)
 *   exporter-tests --exposition FILE  write a full exposition (two bridges,
 *                                     the recorded qdiscs, the exporter's own
 *                                     gauges) for promtool and the Grafana
 *                                     dashboard's check (tests/exporter.sh)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/bridge/control.h"
#include "../../src/bridge/stats.h"
#include "../../kmod/chokeplus.h"
#include "../../src/exporter/ask.h"
#include "../../src/exporter/exporter.h"
#include "../../src/exporter/http.h"
#include "../../src/exporter/merge.h"
#include "../../src/exporter/nlqdisc.h"
#include "../../src/util/om.h"
#include "choke/params.h"

static int fails, checks;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		checks++;                                                    \
		if (!(cond)) {                                               \
			fails++;                                             \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
		}                                                            \
	} while (0)

static const char *fixture_dir = "tests/exporter";

/* ---- recordings: 'q' or 'l', a 32-bit little-endian length, the bytes ---- */

struct rec {
	char what;
	uint8_t *buf;
	size_t len;
};

struct recording {
	struct rec *r;
	size_t n;
};

static int rec_load(const char *path, struct recording *out)
{
	FILE *f = fopen(path, "rb");
	uint8_t h[5];

	out->r = NULL;
	out->n = 0;
	if (!f)
		return -1;
	while (fread(h, 1, 5, f) == 5) {
		size_t len = h[1] | h[2] << 8 | h[3] << 16 | (size_t)h[4] << 24;
		struct rec *nr = realloc(out->r, (out->n + 1) * sizeof(*nr));

		if (!nr || len > (1 << 20))
			break;
		out->r = nr;
		nr[out->n].what = (char)h[0];
		nr[out->n].len = len;
		nr[out->n].buf = malloc(len ? len : 1);
		if (!nr[out->n].buf || fread(nr[out->n].buf, 1, len, f) != len) {
			fclose(f);
			return -1;
		}
		out->n++;
	}
	fclose(f);
	return out->n ? 0 : -1;
}

static void rec_free(struct recording *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->r[i].buf);
	free(r->r);
}

static void rec_write(void *ctx, char what, const void *buf, size_t len)
{
	uint8_t h[5] = { (uint8_t)what, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
			 (uint8_t)(len >> 24) };

	fwrite(h, 1, 5, ctx);
	fwrite(buf, 1, len, ctx);
}

static void print_qdiscs(FILE *f, const struct nlq_set *s)
{
	char h[NLQ_HANDLE_LEN], p[NLQ_HANDLE_LEN];
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct nlq_qdisc *q = &s->q[i];

		nlq_handle_name(q->handle, h);
		nlq_handle_name(q->parent, p);
		fprintf(f, "%s %s %s %llu %llu %u %u %u %u %u %u %u %u %u %u %u %u %u", q->dev, h,
			p, (unsigned long long)q->bytes, (unsigned long long)q->packets, q->drops,
			q->overlimits, q->requeues, q->qlen, q->backlog, q->x[NLQ_X_early],
			q->x[NLQ_X_pdrop], q->x[NLQ_X_other], q->x[NLQ_X_marked],
			q->x[NLQ_X_matched], q->limit, q->qth_min, q->qth_max);
		/* chokeplus: its id, the variant, then its xstats' own fields */
		if (q->kind == NLQ_CHOKEPLUS) {
			int k;

			fprintf(f, " chokeplus %u %u %u", q->variant, q->draws, q->protect);
			for (k = NLQ_NX_CHOKE; k < q->nx; k++)
				fprintf(f, " %s %u", nlq_xfields[k].field, q->x[k]);
		}
		fputc('\n', f);
	}
}

static int do_record(const char *path)
{
	struct nlq_set s = { NULL, 0, 0, 0 };
	char tmp[4096], err[300];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f) {
		fprintf(stderr, "exporter-tests: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	if (nlq_read(&s, 5000, rec_write, f, err, sizeof(err))) {
		fprintf(stderr, "exporter-tests: %s\n", err);
		fclose(f);
		remove(tmp);
		return 1;
	}
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "exporter-tests: %s: %s\n", path, strerror(errno));
		return 1;
	}
	print_qdiscs(stdout, &s);
	nlq_free(&s);
	return 0;
}

/* Replay a recording through the parsers as nlq_read would. 0, or -1 with
 * the parser's message. */
static int rec_parse(const struct recording *r, struct nlq_set *s, char *err, size_t errlen)
{
	struct nlmsghdr h;
	uint32_t seq = 0;
	char phase = 'q';
	size_t i, k;
	int rc = NLQ_MORE;

	s->n = 0;
	s->intr = 0;
	for (i = 0; i < r->n; i++) {
		if (r->r[i].what != phase) {
			if (phase == 'l' || r->r[i].what != 'l')
				continue;
			phase = 'l';
			rc = NLQ_MORE;
			s->intr = 0;
			for (k = 0; k < s->n; k++)
				s->q[k].dev[0] = 0;
		}
		if (r->r[i].len >= sizeof(h)) {
			memcpy(&h, r->r[i].buf, sizeof(h));
			if (rc == NLQ_MORE && (i == 0 || r->r[i - 1].what != phase))
				seq = h.nlmsg_seq;
		}
		rc = phase == 'q' ? nlq_parse_qdiscs(r->r[i].buf, r->r[i].len, seq, s, err, errlen)
				  : nlq_parse_links(r->r[i].buf, r->r[i].len, seq, s, err, errlen);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ---- the fixtures against tc ---- */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

static int fixtures_done, plus_seen;

static void test_fixture(const char *base)
{
	char path[512], err[300], *want, *got = NULL;
	struct recording r;
	struct nlq_set s = { NULL, 0, 0, 0 };
	size_t glen = 0, i, cut;
	int nplus = 0;
	FILE *m;

	snprintf(path, sizeof(path), "%s/%s.nlrec", fixture_dir, base);
	CHECK(rec_load(path, &r) == 0, "%s: cannot load", path);
	if (!r.n)
		return;
	snprintf(path, sizeof(path), "%s/%s.expect", fixture_dir, base);
	want = read_file(path);
	CHECK(want != NULL, "%s: missing", path);
	CHECK(rec_parse(&r, &s, err, sizeof(err)) == 0, "%s: %s", base, err);
	m = open_memstream(&got, &glen);
	print_qdiscs(m, &s);
	fclose(m);
	/* the expectation is tc's own reading of the same moment */
	CHECK(want && !strcmp(got, want), "%s: parsed\n%s\ntc printed\n%s", base, got,
	      want ? want : "");
	CHECK(s.n >= 3, "%s: %zu choke qdiscs, the guest made 3", base, s.n);
	for (i = 0; i < s.n; i++)
		CHECK(s.q[i].has_basic && s.q[i].has_queue && s.q[i].has_parms && s.q[i].has_max_p &&
		      /* chokeplus: protect's field at least (the recordings are
		       * of a module before protect_marked and lane) */
		      (s.q[i].kind == NLQ_CHOKEPLUS ? s.q[i].nx > NLQ_X_protect && s.q[i].nx <= NLQ_NX
						    : s.q[i].nx == NLQ_NX_CHOKE) &&
		      s.q[i].has_variant == (s.q[i].kind == NLQ_CHOKEPLUS),
		      "%s: qdisc %zu lacks attributes", base, i);
	for (i = 0; i < s.n; i++)
		nplus += s.q[i].kind == NLQ_CHOKEPLUS;
	/* the recordings of sch_libchoke have its chokeplus qdiscs too */
	CHECK(!strstr(base, "ours") || nplus >= 2, "%s: %d chokeplus qdiscs", base, nplus);
	plus_seen += nplus;
	/* every truncation of every buffer: an error or fewer qdiscs, never a
	 * crash or a read past the end (ASan in check-one) */
	for (i = 0; i < r.n; i++) {
		uint8_t *keep = r.r[i].buf;
		size_t klen = r.r[i].len;

		for (cut = 0; cut < klen; cut += 1 + cut / 64) {
			uint8_t *t = malloc(cut ? cut : 1);

			memcpy(t, keep, cut);
			r.r[i].buf = t;
			r.r[i].len = cut;
			rec_parse(&r, &s, err, sizeof(err));
			free(t);
		}
		r.r[i].buf = keep;
		r.r[i].len = klen;
	}
	/* random corruption: the same */
	{
		uint32_t x = 12345;
		int round;

		for (round = 0; round < 3000; round++) {
			struct rec *e = &r.r[round % r.n];
			uint8_t *t = malloc(e->len), *keep = e->buf;
			int flips = 1 + round % 4, j;

			memcpy(t, keep, e->len);
			for (j = 0; j < flips; j++) {
				x = x * 1103515245 + 12345;
				t[(x >> 8) % e->len] ^= (uint8_t)(1 + (x >> 20) % 255);
			}
			e->buf = t;
			rec_parse(&r, &s, err, sizeof(err));
			e->buf = keep;
			free(t);
		}
	}
	nlq_free(&s);
	free(got);
	free(want);
	rec_free(&r);
	fixtures_done++;
}

static void test_fixtures(void)
{
	struct dirent *e;
	DIR *d = opendir(fixture_dir);

	CHECK(d != NULL, "%s: %s", fixture_dir, strerror(errno));
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char base[256];

		if (n > 6 && n < sizeof(base) && !strcmp(e->d_name + n - 6, ".nlrec")) {
			snprintf(base, sizeof(base), "%.*s", (int)(n - 6), e->d_name);
			test_fixture(base);
		}
	}
	closedir(d);
	/* mainline's sch_choke and sch_libchoke, both recorded */
	CHECK(fixtures_done >= 2, "%d recordings in %s", fixtures_done, fixture_dir);
	CHECK(plus_seen >= 2, "%d chokeplus qdiscs in the recordings", plus_seen);
}

/* ---- hand-made messages ---- */

struct mb {
	uint8_t b[4096];
	size_t len;
	size_t msg; /* the current message's start */
};

static void mb_put(struct mb *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	m->len += n;
	while (m->len % 4)
		m->b[m->len++] = 0;
}

static void mb_msg(struct mb *m, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr h = { 0, type, flags, seq, 0 };

	m->msg = m->len;
	mb_put(m, &h, sizeof(h));
}

static void mb_end(struct mb *m)
{
	uint32_t len = (uint32_t)(m->len - m->msg);

	memcpy(m->b + m->msg, &len, sizeof(len));
}

static size_t mb_attr(struct mb *m, uint16_t type, const void *p, size_t n)
{
	struct rtattr a = { (unsigned short)RTA_LENGTH(n), type };
	size_t at = m->len;

	memcpy(m->b + m->len, &a, sizeof(a));
	m->len += sizeof(a);
	if (n)
		mb_put(m, p, n);
	return at;
}

static void mb_nest_end(struct mb *m, size_t at)
{
	unsigned short len = (unsigned short)(m->len - at);

	memcpy(m->b + at, &len, sizeof(len));
}

/* a choke qdisc message (kind "chokeplus": with its variant and xstats);
 * pkt64: add TCA_STATS_PKT64 */
static void mb_choke(struct mb *m, uint32_t seq, int ifindex, const char *kind, int pkt64)
{
	struct tcmsg t = { AF_UNSPEC, 0, 0, ifindex, 0x00100000, 0x00010001, 0 };
	struct tc_red_qopt o = { 300, 25, 75, 9, 20, 12, TC_RED_ECN };
	struct gnet_stats_basic b = { 1ull << 40, 1234 };
	struct gnet_stats_queue q = { 7, 10500, 100, 1, 60 };
	struct tc_chokeplus_xstats x = { 20, 10, 4, 5, 30, 7, 3, 11 };
	struct tc_chokeplus_variant v = { 1, 2, 64, 0, 0, 0, 0 };
	int plus = !strcmp(kind, "chokeplus");
	uint64_t p64 = 5000000000ull;
	uint32_t maxp = 0x1000000;
	size_t nest;

	mb_msg(m, RTM_NEWQDISC, NLM_F_MULTI, seq);
	mb_put(m, &t, sizeof(t));
	mb_attr(m, TCA_KIND, kind, strlen(kind) + 1);
	nest = mb_attr(m, TCA_OPTIONS | NLA_F_NESTED, NULL, 0);
	mb_attr(m, TCA_CHOKE_PARMS, &o, sizeof(o));
	mb_attr(m, TCA_CHOKE_MAX_P, &maxp, sizeof(maxp));
	if (plus)
		mb_attr(m, TCA_CHOKEPLUS_VARIANT, &v, sizeof(v));
	mb_nest_end(m, nest);
	nest = mb_attr(m, TCA_STATS2 | NLA_F_NESTED, NULL, 0);
	mb_attr(m, TCA_STATS_BASIC, &b, sizeof(b));
	if (pkt64)
		mb_attr(m, TCA_STATS_PKT64, &p64, sizeof(p64));
	mb_attr(m, TCA_STATS_QUEUE, &q, sizeof(q));
	mb_nest_end(m, nest);
	mb_attr(m, TCA_XSTATS, &x, plus ? sizeof(x) : sizeof(struct tc_choke_xstats));
	mb_end(m);
}

static void mb_done(struct mb *m, uint32_t seq, uint16_t flags, int err)
{
	mb_msg(m, NLMSG_DONE, flags, seq);
	mb_put(m, &err, sizeof(err));
	mb_end(m);
}

static void mb_link(struct mb *m, uint32_t seq, int ifindex, const char *name)
{
	struct ifinfomsg i = { AF_UNSPEC, 0, 1, ifindex, 0, 0 };

	mb_msg(m, RTM_NEWLINK, NLM_F_MULTI, seq);
	mb_put(m, &i, sizeof(i));
	mb_attr(m, IFLA_MTU, "\xdc\x05\0\0", 4);
	mb_attr(m, IFLA_IFNAME, name, strlen(name) + 1);
	mb_end(m);
}

static void test_messages(void)
{
	struct nlq_set s = { NULL, 0, 0, 0 };
	char err[300], *om = NULL;
	size_t omlen = 0;
	struct mb m;
	FILE *f;
	int rc;

	/* two choke qdiscs (one with PKT64), a sfq, another sequence, DONE */
	memset(&m, 0, sizeof(m));
	mb_choke(&m, 7, 3, "choke", 0);
	mb_choke(&m, 7, 4, "sfq", 0);
	mb_choke(&m, 7, 5, "chokey", 0);
	mb_choke(&m, 8, 6, "choke", 0);
	mb_choke(&m, 7, 6, "choke", 1);
	mb_done(&m, 7, NLM_F_MULTI, 0);
	rc = nlq_parse_qdiscs(m.b, m.len, 7, &s, err, sizeof(err));
	CHECK(rc == NLQ_DONE && s.n == 2, "rc %d n %zu: %s", rc, s.n, err);
	CHECK(s.n == 2 && s.q[0].ifindex == 3 && s.q[1].ifindex == 6, "the choke qdiscs of seq 7");
	CHECK(s.n == 2 && s.q[0].packets == 1234 && s.q[1].packets == 5000000000ull &&
	      s.q[0].bytes == 1ull << 40, "basic and PKT64");
	CHECK(s.n == 2 && s.q[0].limit == 300 && s.q[0].qth_min == 25 && s.q[0].qth_max == 75 &&
	      s.q[0].Wlog == 9 && s.q[0].flags == TC_RED_ECN && s.q[0].max_P == 0x1000000,
	      "parms");
	CHECK(s.n == 2 && s.q[0].drops == 100 && s.q[0].qlen == 7 && s.q[0].backlog == 10500 &&
	      s.q[0].overlimits == 60 && s.q[0].x[NLQ_X_matched] == 30 &&
	      s.q[0].x[NLQ_X_other] == 4 && s.q[0].nx == NLQ_NX_CHOKE && s.q[0].kind == NLQ_CHOKE,
	      "queue and xstats");
	/* names from the link dump; a qdisc without a link is dropped by nlq_read */
	memset(&m, 0, sizeof(m));
	mb_link(&m, 9, 3, "eth0");
	mb_link(&m, 9, 6, "veth-long-name1");
	mb_link(&m, 9, 7, "toolong-name-for-an-interface");
	mb_done(&m, 9, NLM_F_MULTI, 0);
	rc = nlq_parse_links(m.b, m.len, 9, &s, err, sizeof(err));
	CHECK(rc == NLQ_DONE && !strcmp(s.q[0].dev, "eth0") && !strcmp(s.q[1].dev, "veth-long-name1"),
	      "links: rc %d %s %s", rc, s.q[0].dev, s.q[1].dev);
	/* the rendering: drops by reason add up to the kernel's count, in 32 bits */
	s.q[1].drops = 5; /* wrapped past 2^32 while the others did not */
	nlq_widen(NULL, &s);
	f = open_memstream(&om, &omlen);
	nlq_write_metrics(f, &s);
	fclose(f);
	CHECK(strstr(om, "choke_qdisc_dropped_packets_total{device=\"eth0\",handle=\"10:\","
			 "parent=\"1:1\",reason=\"match\"} 60\n") != NULL, "match = 2 x matched");
	CHECK(strstr(om, "parent=\"1:1\",reason=\"other\"} 10\n") != NULL,
	      "other = drops - early - pdrop - 2 matched");
	CHECK(strstr(om, "device=\"veth-long-name1\",handle=\"10:\",parent=\"1:1\",reason=\"other\"} "
			 "4294967211\n") != NULL, "other across a wrap of drops");
	CHECK(strstr(om, "choke_qdisc_info{device=\"eth0\",handle=\"10:\",parent=\"1:1\",kind=\"choke\","
			 "params=\"limit 300p min 25p max 75p ecn ewma 9 probability 0.00390625 "
			 "Scell_log 12\"} 1\n") != NULL, "info: tc's words");
	CHECK(strstr(om, "choke_qdisc_sent_packets_total{device=\"veth-long-name1\",handle=\"10:\","
			 "parent=\"1:1\"} 5000000000\n") != NULL, "64-bit packets");
	CHECK(strstr(om, "choke_qdisc_matched_packets_total{device=\"eth0\",handle=\"10:\","
			 "parent=\"1:1\"} 30\n") && strstr(om, "choke_qdisc_marked_packets_total{"
			 "device=\"eth0\",handle=\"10:\",parent=\"1:1\"} 5\n") &&
	      !strstr(om, "reason=\"protect\""), "choke's xstats counters; no protect for choke");
	free(om);
	om = NULL;

	/* chokeplus: its variant, protect's drops, match as what is left */
	nlq_free(&s);
	memset(&m, 0, sizeof(m));
	mb_choke(&m, 21, 3, "chokeplus", 0);
	mb_done(&m, 21, NLM_F_MULTI, 0);
	rc = nlq_parse_qdiscs(m.b, m.len, 21, &s, err, sizeof(err));
	CHECK(rc == NLQ_DONE && s.n == 1 && s.q[0].kind == NLQ_CHOKEPLUS && s.q[0].nx == NLQ_NX &&
	      s.q[0].x[NLQ_X_protect] == 7 && s.q[0].has_variant && s.q[0].variant == 1 &&
	      s.q[0].draws == 2 && s.q[0].protect == 64, "chokeplus parsed: rc %d n %zu %s", rc,
	      s.n, err);
	if (s.n == 1) {
		strcpy(s.q[0].dev, "eth9");
		nlq_widen(NULL, &s);
		f = open_memstream(&om, &omlen);
		nlq_write_metrics(f, &s);
		fclose(f);
		CHECK(strstr(om, "device=\"eth9\",handle=\"10:\",parent=\"1:1\",reason=\"protect\"} 7\n") &&
		      strstr(om, "device=\"eth9\",handle=\"10:\",parent=\"1:1\",reason=\"match\"} 59\n") &&
		      strstr(om, "device=\"eth9\",handle=\"10:\",parent=\"1:1\",reason=\"other\"} 4\n") &&
		      strstr(om, "device=\"eth9\",handle=\"10:\",parent=\"1:1\",reason=\"early\"} 20\n") &&
		      strstr(om, "device=\"eth9\",handle=\"10:\",parent=\"1:1\",reason=\"limit\"} 10\n"),
		      "chokeplus's reasons (20 + 10 + 7 + 59 + 4 = 100):\n%s", om);
		CHECK(strstr(om, "kind=\"chokeplus\",params=\"limit 300p min 25p max 75p draws 2 "
				 "protect 64 ecn ewma 9 ") != NULL, "chokeplus's words");
		CHECK(strstr(om, "protect (chokeplus: the arrival's flow above its fair share)") != NULL,
		      "the reasons' HELP from the table");
		free(om);
		om = NULL;
	}
	/* a chokeplus module older than this exporter (choke's five fields
	 * only): no protect; one newer (more fields): those known */
	memset(&m, 0, sizeof(m));
	s.n = 0;
	mb_choke(&m, 22, 3, "chokeplus", 0);
	{
		/* TCA_XSTATS is the last attribute: cut its protect field */
		struct rtattr a;
		size_t at = m.len - RTA_SPACE(sizeof(struct tc_chokeplus_xstats));

		memcpy(&a, m.b + at, sizeof(a));
		a.rta_len = RTA_LENGTH(sizeof(struct tc_choke_xstats));
		memcpy(m.b + at, &a, sizeof(a));
		m.len -= 4;
		mb_end(&m);
	}
	rc = nlq_parse_qdiscs(m.b, m.len, 22, &s, err, sizeof(err));
	CHECK(rc == NLQ_MORE && s.n == 1 && s.q[0].nx == NLQ_NX_CHOKE, "chokeplus with choke's "
	      "xstats: %d %zu nx %d", rc, s.n, s.n ? s.q[0].nx : -1);

	/* NLMSG_ERROR, a failed dump, an interrupted one */
	memset(&m, 0, sizeof(m));
	mb_msg(&m, NLMSG_ERROR, 0, 11);
	{
		struct nlmsgerr e = { -EPERM, { 0, 0, 0, 0, 0 } };

		mb_put(&m, &e, sizeof(e));
	}
	mb_end(&m);
	rc = nlq_parse_qdiscs(m.b, m.len, 11, &s, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "Operation not permitted"), "NLMSG_ERROR: %d %s", rc, err);
	memset(&m, 0, sizeof(m));
	mb_done(&m, 12, NLM_F_MULTI, -EMSGSIZE);
	rc = nlq_parse_qdiscs(m.b, m.len, 12, &s, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "the dump failed"), "DONE with an error: %d %s", rc, err);
	memset(&m, 0, sizeof(m));
	s.n = 0;
	s.intr = 0;
	mb_choke(&m, 13, 3, "choke", 0);
	((struct nlmsghdr *)m.b)->nlmsg_flags |= NLM_F_DUMP_INTR;
	rc = nlq_parse_qdiscs(m.b, m.len, 13, &s, err, sizeof(err));
	CHECK(rc == NLQ_MORE, "more to come");
	memset(&m, 0, sizeof(m));
	mb_done(&m, 13, NLM_F_MULTI, 0);
	rc = nlq_parse_qdiscs(m.b, m.len, 13, &s, err, sizeof(err));
	CHECK(rc == NLQ_INTR, "an interrupted dump: %d", rc);

	/* malformed: an attribute past the end, a short header, a short tcmsg */
	memset(&m, 0, sizeof(m));
	s.n = 0;
	s.intr = 0;
	mb_choke(&m, 14, 3, "choke", 0);
	{
		unsigned short bad = 2000;

		memcpy(m.b + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct tcmsg)), &bad, 2);
	}
	rc = nlq_parse_qdiscs(m.b, m.len, 14, &s, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "malformed attributes"), "attribute past the end: %s", err);
	rc = nlq_parse_qdiscs(m.b, 10, 14, &s, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "less than a header"), "10 bytes: %s", err);
	memset(&m, 0, sizeof(m));
	mb_msg(&m, RTM_NEWQDISC, 0, 15);
	mb_put(&m, "abcd", 4);
	mb_end(&m);
	rc = nlq_parse_qdiscs(m.b, m.len, 15, &s, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "shorter than struct tcmsg"), "short tcmsg: %s", err);
	/* a nested attribute that lies about its length */
	memset(&m, 0, sizeof(m));
	mb_choke(&m, 16, 3, "choke", 0);
	{
		/* TCA_KIND "choke\0" (12) then TCA_OPTIONS' header */
		size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct tcmsg)) + RTA_SPACE(6);
		unsigned short inner = 900;

		memcpy(m.b + at + RTA_LENGTH(0), &inner, 2);
	}
	rc = nlq_parse_qdiscs(m.b, m.len, 16, &s, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "malformed nested"), "nested past the end: %s", err);
	nlq_free(&s);
}

static void test_handles(void)
{
	static const struct {
		uint32_t h;
		const char *s;
	} c[] = {
		{ TC_H_ROOT, "root" }, { 0, "none" }, { 0x00010000, "1:" }, { 0x00010010, "1:10" },
		{ 0xffff0000, "ffff:" }, { TC_H_INGRESS, "ffff:fff1" }, { 0x00000005, ":5" },
		{ 0x8001abcd, "8001:abcd" },
	};
	char buf[NLQ_HANDLE_LEN];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		nlq_handle_name(c[i].h, buf);
		CHECK(!strcmp(buf, c[i].s), "handle %08x: %s, not %s", c[i].h, buf, c[i].s);
	}
}

/* ---- the 32-bit counters made 64-bit across readings ---- */

static void test_widen(void)
{
	struct nlq_qdisc q[2];
	struct nlq_set s = { q, 2, 2, 0 };
	struct nlq_history h = { NULL, 0 };

	memset(q, 0, sizeof(q));
	q[0].ifindex = 3, q[0].handle = 0x100000, q[0].kind = NLQ_CHOKE, q[0].nx = NLQ_NX_CHOKE;
	q[1] = q[0];
	q[1].kind = NLQ_CHOKEPLUS, q[1].nx = NLQ_NX; /* the same device and handle */
	q[0].bytes = 1000, q[0].packets = 10;
	q[0].drops = 4294967290u, q[0].x[NLQ_X_early] = 4294967000u, q[0].x[NLQ_X_matched] = 100;
	q[0].overlimits = 7;
	nlq_widen(NULL, &s);
	CHECK(q[0].w[NLQ_W_DROPS] == 4294967290u && q[0].w[NLQ_W_REST] == 90,
	      "without a history: as read (%llu, rest %llu)",
	      (unsigned long long)q[0].w[NLQ_W_DROPS], (unsigned long long)q[0].w[NLQ_W_REST]);
	nlq_widen(&h, &s);
	/* drops wrap (+16), early wraps (+400), matched +3, overlimits do not move */
	q[0].bytes = 2000, q[0].packets = 20;
	q[0].drops = 10, q[0].x[NLQ_X_early] = 104, q[0].x[NLQ_X_matched] = 103;
	nlq_widen(&h, &s);
	CHECK(q[0].w[NLQ_W_X + NLQ_X_matched] == 103 && q[0].w[NLQ_W_OVERLIMITS] == 7,
	      "counters that did not wrap");
	CHECK(q[0].w[NLQ_W_DROPS] == 4294967306ull, "drops across the wrap: %llu",
	      (unsigned long long)q[0].w[NLQ_W_DROPS]);
	CHECK(q[0].w[NLQ_W_X + NLQ_X_early] == 4294967400ull, "early across the wrap: %llu",
	      (unsigned long long)q[0].w[NLQ_W_X + NLQ_X_early]);
	/* the remainder (other) is widened as a counter of its own: it moved by
	 * 16 - 400 - 2 * 3 (mod 2^32) since it was 90 */
	CHECK(q[0].w[NLQ_W_REST] == 90 + (uint32_t)(16u - 400u - 6u), "other widened: %llu",
	      (unsigned long long)q[0].w[NLQ_W_REST]);
	CHECK(q[1].w[NLQ_W_DROPS] == 0 && h.n == 2, "chokeplus on the same handle is another qdisc");
	/* replaced (the 64-bit byte count went back): from the values as read */
	q[0].bytes = 50, q[0].packets = 1;
	q[0].drops = 3;
	nlq_widen(&h, &s);
	CHECK(q[0].w[NLQ_W_DROPS] == 3, "a replaced qdisc starts again: %llu",
	      (unsigned long long)q[0].w[NLQ_W_DROPS]);
	/* gone for one reading: forgotten */
	s.n = 1;
	q[0].bytes = 60, q[0].drops = 5;
	nlq_widen(&h, &s);
	CHECK(h.n == 1 && q[0].w[NLQ_W_DROPS] == 5, "one qdisc left in the history");
	s.n = 2;
	q[1].drops = 9;
	nlq_widen(&h, &s);
	CHECK(q[1].w[NLQ_W_DROPS] == 9 && q[0].w[NLQ_W_DROPS] == 5, "back: from as read");
	nlq_history_free(&h);
}

/* ---- merging ---- */

/* A bridge's snapshot, made up: two shaped directions (or one), each with a
 * penalised flow. */
static void make_snapshot(struct stats_snapshot *s, const char *a, const char *b, int ndirs)
{
	char *words[] = { "limit", "300", "min", "50", "max", "150", "bandwidth", "20mbit", "ecn" };
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE];
	int i, k;

	memset(s, 0, sizeof(*s));
	s->pid = 4242;
	s->uptime_s = 12.5;
	s->ndirs = ndirs;
	if (choke_params_parse(9, words, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err)))
		abort();
	for (i = 0; i < ndirs; i++) {
		struct stats_dir *d = &s->d[i];

		snprintf(d->in, sizeof(d->in), "%s", i ? b : a);
		snprintf(d->out, sizeof(d->out), "%s", i ? a : b);
		d->shaped = 1;
		d->rate_bps = 20000000;
		d->cfg = p.cfg;
		d->q.prob_drop = 10 + i;
		d->q.forced_drop = 2;
		d->q.matched = 40;
		d->q.match_victims = 40;
		d->q.pdrop = 3;
		d->q.prob_mark = 7;
		d->qlen = 30;
		d->backlog = 45000;
		d->qavg = 28.5;
		for (k = 0; k < STATS_NQUANTILES; k++)
			d->delay_q_ns[k] = 1000000ull * (k + 1);
		d->hh_total = 80;
		d->nflows = 1;
		d->flows[0].key.kind = CHOKE_FLOW_KIND_IPV4;
		d->flows[0].key.ethertype = 0x0800;
		d->flows[0].key.proto = 17;
		inet_pton(AF_INET, "10.0.0.1", d->flows[0].key.src);
		inet_pton(AF_INET, "10.0.0.2", d->flows[0].key.dst);
		d->flows[0].key.sport = 5000;
		d->flows[0].key.dport = 6000;
		d->flows[0].estimate = 70;
		d->flows[0].error = 2;
		d->c.rx_frames = 1000;
		d->c.tx_frames = 900;
		d->c.delay_sum_ns = 9000000000ull;
		d->if_in.up = d->if_out.up = 1;
		snprintf(d->if_in.name, sizeof(d->if_in.name), "%s", d->in);
		snprintf(d->if_out.name, sizeof(d->if_out.name), "%s", d->out);
		for (k = 0; k < STATS_IF_NCOUNTERS; k++)
			d->if_in.c[k] = d->if_out.c[k] = 100 + k;
	}
}

static char *render(const struct stats_snapshot *s)
{
	char *om = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&om, &len);

	stats_write_openmetrics(f, s);
	fclose(f);
	return om;
}

static char *set_text(const struct om_set *set)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	om_write(f, set);
	fclose(f);
	return t;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

static const char *const reserved[] = { "choke_qdisc_", "choke_exporter_", NULL };

static void test_merge(void)
{
	struct stats_snapshot s1, s2;
	struct om_set set = { NULL, 0, 0 };
	char err[300], *a, *b, *t, *t2;
	size_t i, cut;

	make_snapshot(&s1, "ba", "bz", 2);
	make_snapshot(&s2, "eth1", "eth2", 1);
	a = render(&s1);
	b = render(&s2);
	CHECK(om_merge(&set, a, strlen(a), "bridge", "ba", reserved, NULL, err, sizeof(err)) == 0,
	      "first bridge: %s", err);
	CHECK(om_merge(&set, b, strlen(b), "bridge", "eth\"1", reserved, NULL, err, sizeof(err)) == 0,
	      "second bridge: %s", err);
	t = set_text(&set);
	/* each family once, the samples of both, the label first and escaped */
	CHECK(count(t, "# TYPE choke_bridge_received_packets_total counter\n") == 1, "one TYPE");
	CHECK(count(t, "\nchoke_bridge_received_packets_total{") == 3, "three directions");
	CHECK(strstr(t, "\nchoke_bridge_received_packets_total{bridge=\"ba\",in=\"ba\",out=\"bz\"} "
			"1000\n") != NULL, "the label first");
	CHECK(strstr(t, "\nchoke_bridge_received_packets_total{bridge=\"eth\\\"1\",in=\"eth1\","
			"out=\"eth2\"} 1000\n") != NULL, "an escaped label value");
	CHECK(strstr(t, "choke_bridge_queue_delay_seconds_sum{bridge=\"ba\",in=\"bz\",out=\"ba\"} 9\n")
	      != NULL, "a summary's _sum");
	CHECK(strstr(t, "choke_bridge_penalised_packets{bridge=\"eth\\\"1\",in=\"eth1\",out=\"eth2\","
			"flow=\"udp 10.0.0.1:5000>10.0.0.2:6000\"") != NULL, "penalised flows");
	CHECK(count(t, "# EOF") == 0, "no # EOF: the caller ends the exposition");

	/* refusals leave the set as it was */
	{
		static const struct {
			const char *text, *why;
		} bad[] = {
			{ "x_total{a=\"1\"} 1\n# EOF\n", "before its family" },
			{ "# TYPE x counter\nx 1\n", "no # EOF" },
			{ "# TYPE x counter\nx 1\n# EOF\nx 2\n", "after # EOF" },
			{ "# TYPE x counter\nx 1\n# TYPE y gauge\ny 1\n# TYPE x counter\n# EOF\n",
			  "appears twice" },
			{ "# TYPE choke_bridge_received_packets_total gauge\n# EOF\n", "is a gauge here" },
			{ "# TYPE x counter\nx{bridge=\"a\"} 1\n# EOF\n", "already has a label bridge" },
			{ "# TYPE choke_qdisc_x gauge\n# EOF\n", "reserved prefix" },
			{ "# TYPE x gauge\nx{a=\"\\q\"} 1\n# EOF\n", "bad escape" },
			{ "# TYPE x gauge\nx{a=\"1} 1\n# EOF\n", "unterminated" },
			{ "# TYPE x gauge\nx{a=\"1\" b=\"2\"} 1\n# EOF\n", "separated by commas" },
			{ "# TYPE x gauge\nx{a=\"1\"\n# EOF\n", "closing" },
			{ "# TYPE x gauge\nx{1a=\"1\"} 1\n# EOF\n", "valid name" },
			{ "# TYPE x gauge\nx one\n# EOF\n", "not a number" },
			{ "# TYPE x gauge\nx 1 2 3\n# EOF\n", "not a timestamp" },
			{ "# TYPE x gauge\nx\n# EOF\n", "no value" },
			{ "# TYPE x gauge\nxy 1\n# EOF\n", "in the family x" },
			{ "# TYPE x gauge\nx_foo 1\n# EOF\n", "in the family x" },
			{ "# TYPE x flavour\n# EOF\n", "unknown type" },
			{ "# TYPE 9x gauge\n# EOF\n", "valid metric name" },
			{ "# HELP x help\nx 1\n# EOF\n", "before its family's # TYPE" },
			{ "# HELP x only help\n# EOF\n", "has no # TYPE" },
			{ "{a=\"1\"} 1\n# EOF\n", "neither a comment nor a sample" },
		};

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			err[0] = 0;
			CHECK(om_merge(&set, bad[i].text, strlen(bad[i].text), "bridge", "z", reserved, NULL,
				       err, sizeof(err)) == -1 && strstr(err, bad[i].why),
			      "refuse %zu (%s): %s", i, bad[i].why, err);
		}
		CHECK(om_merge(&set, "# TYPE x gauge\nx 1\0\n# EOF\n", 24, "bridge", "z", reserved, NULL,
			       err, sizeof(err)) == -1 && strstr(err, "NUL"), "a NUL byte: %s", err);
		t2 = set_text(&set);
		CHECK(!strcmp(t, t2), "a refused source changes nothing");
		free(t2);
	}
	/* accepted forms: blank lines, comments, # UNIT, timestamps, NaN, +Inf,
	 * a trailing comma, no labels, # EOF without its newline */
	{
		static const char ok[] =
			"\n# a comment\n# TYPE ok_seconds gauge\n# UNIT ok_seconds seconds\n"
			"ok_seconds 1.5e-3 1700000000000\nok_seconds{a=\"x\",} NaN\n"
			"ok_seconds{b=\"\\\\\\n\"} +Inf\n# EOF";

		CHECK(om_merge(&set, ok, sizeof(ok) - 1, "bridge", "z", reserved, NULL, err,
			       sizeof(err)) == 0, "accepted forms: %s", err);
	}
	t2 = set_text(&set);
	CHECK(strstr(t2, "ok_seconds{bridge=\"z\"} 1.5e-3 1700000000000\n") &&
	      strstr(t2, "ok_seconds{bridge=\"z\",a=\"x\",} NaN\n") &&
	      strstr(t2, "ok_seconds{bridge=\"z\",b=\"\\\\\\n\"} +Inf\n"), "as given:\n%s", t2);
	free(t2);
	/* every truncation of a bridge's exposition is refused whole (no # EOF),
	 * except the one that only loses the final newline */
	for (cut = 0; cut < strlen(a) - 1; cut++) {
		struct om_set one = { NULL, 0, 0 };
		int rc = om_merge(&one, a, cut, "bridge", "c", reserved, NULL, err, sizeof(err));

		CHECK(rc == -1 && one.n == 0, "cut at %zu of %zu accepted", cut, strlen(a));
		om_free(&one);
		if (cut < strlen(a) - 200)
			cut += 7;
	}
	/* the per-flow families without --penalised-flows: HELP and TYPE, no
	 * sample, the rest as it was */
	{
		static const char *const flows[] = { "choke_bridge_penalised_packets",
						     "choke_bridge_penalised_error_packets", NULL };
		struct om_set one = { NULL, 0, 0 };
		char *u;

		CHECK(om_merge(&one, a, strlen(a), "bridge", "ba", reserved, flows, err,
			       sizeof(err)) == 0, "no_samples: %s", err);
		u = set_text(&one);
		CHECK(strstr(u, "# TYPE choke_bridge_penalised_packets gauge\n") &&
		      strstr(u, "# TYPE choke_bridge_penalised_error_packets gauge\n") &&
		      !strstr(u, "\nchoke_bridge_penalised_packets{") &&
		      !strstr(u, "flow=") && strstr(u, "\nchoke_bridge_penalised_counted_packets_total{") &&
		      count(u, "\nchoke_bridge_received_packets_total{") == 2,
		      "the flows' families empty, the rest kept:\n%s", u);
		free(u);
		om_free(&one);
		/* their samples are still checked */
		static const char bad_flow[] = "# TYPE choke_bridge_penalised_packets gauge\n"
					       "choke_bridge_penalised_packets{flow=\"x} 1\n# EOF\n";

		CHECK(om_merge(&one, bad_flow, sizeof(bad_flow) - 1, "bridge", "z", reserved, flows,
			       err, sizeof(err)) == -1 && strstr(err, "unterminated"), "checked: %s",
		      err);
		om_free(&one);
	}
	free(t);
	free(a);
	free(b);
	om_free(&set);
}

/* ---- HTTP ---- */

static void test_http(void)
{
	static const struct {
		const char *req;
		int status, head;
	} c[] = {
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, 0 },
		{ "GET /metrics HTTP/1.0\n\n", 200, 0 },
		{ "\r\nGET /metrics?name[]=x HTTP/1.1\r\nAccept: */*\r\n\r\n", 200, 0 },
		{ "HEAD /metrics HTTP/1.1\r\n\r\n", 200, 1 },
		{ "GET / HTTP/1.1\r\n\r\n", 200, 0 },
		{ "HEAD /?x=1 HTTP/1.1\r\n\r\n", 200, 1 },
		{ "GET /index.html HTTP/1.1\r\n\r\n", 404, 0 },
		{ "GET //metrics HTTP/1.1\r\n\r\n", 404, 0 },
		{ "GET /metricsx HTTP/1.1\r\n\r\n", 404, 0 },
		{ "GET /metrics/ HTTP/1.1\r\n\r\n", 404, 0 },
		{ "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405, 0 },
		{ "get /metrics HTTP/1.1\r\n\r\n", 405, 0 },
		{ "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, 0 },
		{ "GET /metrics HTTP/3.0\r\n\r\n", 505, 0 },
		{ "GET /metrics FTP/1.1\r\n\r\n", 400, 0 },
		{ "GET  /metrics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET /metrics\r\n\r\n", 400, 0 },
		{ "GET /met\x01rics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n", 400, 0 },
		{ "GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400, 0 },
		{ "\x16\x03\x01\x02\x00\x01", 400, 0 }, /* TLS */
		{ "G(T", 400, 0 },
	};
	static const struct {
		const char *head;
		long ms;
	} t[] = {
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n", 10000 },
		{ "GET /metrics HTTP/1.1\r\nx-prometheus-scrape-timeout-seconds:2.5\r\n\r\n", 2500 },
		{ "GET /metrics HTTP/1.1\r\nHost: a\r\nX-PROMETHEUS-SCRAPE-TIMEOUT-SECONDS:  0.0004 \r\n\r\n", 1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 99999\r\n\r\n", 3600000 },
		{ "GET /metrics HTTP/1.1\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 0\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: -1\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 1e3\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: \r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 1.2.3\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Seconds: 3\r\n"
		  "X-Prometheus-Scrape-Timeout-Seconds: 4\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Second: 3\r\n\r\n", -1 },
		{ "GET /metrics HTTP/1.1\r\nX-Prometheus-Scrape-Timeout-Secondsx: 3\r\n\r\n", -1 },
		/* after the head: not a header */
		{ "GET /metrics HTTP/1.1\r\n\r\nX-Prometheus-Scrape-Timeout-Seconds: 3\r\n", -1 },
	};
	char big[HTTP_MAX_HEAD + 100];
	size_t i, k, n;
	int head, st;
	enum http_page page, kpage;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		n = strlen(c[i].req);
		st = http_judge(c[i].req, n, &head, &page);
		CHECK(st == c[i].status && head == c[i].head, "request %zu: %d (head %d), not %d",
		      i, st, head, c[i].status);
		CHECK(st != 200 || page == (strncmp(strchr(c[i].req, '/'), "/metrics", 8) ?
					    HTTP_PAGE_ROOT : HTTP_PAGE_METRICS),
		      "request %zu: page %d", i, page);
		/* every prefix of a good request is "incomplete", never a verdict */
		if (c[i].status == 200)
			for (k = 0; k < n - 1; k++)
				CHECK(http_judge(c[i].req, k, &head, &kpage) == 0,
				      "request %zu cut at %zu", i, k);
	}
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long ms = http_scrape_timeout_ms(t[i].head, strlen(t[i].head));

		CHECK(ms == t[i].ms, "scrape timeout %zu: %ld, not %ld", i, ms, t[i].ms);
	}
	CHECK(exp_budget_ms(10000) == 9500 && exp_budget_ms(-1) == EXP_DEADLINE_MS &&
	      exp_budget_ms(600) == 300 && exp_budget_ms(1) == 1 && exp_budget_ms(1000) == 500,
	      "budgets: %d %d %d %d", exp_budget_ms(10000), exp_budget_ms(-1), exp_budget_ms(600),
	      exp_budget_ms(1000));
	/* the head's bound */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	CHECK(http_judge(big, HTTP_MAX_HEAD - 1, &head, &page) == 0, "below the bound");
	CHECK(http_judge(big, HTTP_MAX_HEAD, &head, &page) == 431, "at the bound");
	memcpy(big, "GET /", 5);
	CHECK(http_judge(big, HTTP_MAX_HEAD, &head, &page) == 431, "an endless request line");
	memcpy(big + HTTP_MAX_HEAD - 4, "\r\n\r\n", 4);
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	CHECK(http_judge(big, HTTP_MAX_HEAD, &head, &page) == 200, "a head of exactly the bound");
	{
		char h[512];
		int hl = http_head(h, sizeof(h), 405, 10, "text/plain");

		CHECK(hl > 0 && strstr(h, "HTTP/1.1 405 Method Not Allowed\r\n") &&
		      strstr(h, "Allow: GET, HEAD\r\n") && strstr(h, "Content-Length: 10\r\n") &&
		      strstr(h, "Connection: close\r\n\r\n"), "405 head: %s", h);
		CHECK(http_head(h, 20, 200, 10, "text/plain") == -1, "a head that does not fit");
	}
}

static void test_listen(void)
{
	static const struct {
		const char *s;
		int ok, family, port;
	} c[] = {
		{ "127.0.0.1:9469", 1, AF_INET, 9469 }, { "0.0.0.0:0", 1, AF_INET, 0 },
		{ "[::1]:9469", 1, AF_INET6, 9469 }, { "[::]:80", 1, AF_INET6, 80 },
		{ "[fe80::1]:65535", 1, AF_INET6, 65535 }, { "127.0.0.1:65536", 0, 0, 0 },
		{ "127.0.0.1", 0, 0, 0 }, { ":9469", 0, 0, 0 }, { "localhost:9469", 0, 0, 0 },
		{ "::1:9469", 0, 0, 0 }, { "[::1]9469", 0, 0, 0 }, { "1.2.3.4:-1", 0, 0, 0 },
		{ "1.2.3.4:+1", 0, 0, 0 }, { "1.2.3.4:", 0, 0, 0 }, { "[]:1", 0, 0, 0 },
		{ "1.2.3.4:99999999999999999999", 0, 0, 0 },
	};
	struct sockaddr_storage ss;
	socklen_t sl;
	char err[300];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc = exp_parse_listen(c[i].s, &ss, &sl, err, sizeof(err));

		CHECK((rc == 0) == c[i].ok, "%s: %d %s", c[i].s, rc, err);
		if (rc == 0 && c[i].ok)
			CHECK(ss.ss_family == c[i].family &&
			      ntohs(((struct sockaddr_in *)&ss)->sin_port) == c[i].port,
			      "%s: family %d port %d", c[i].s, ss.ss_family,
			      ntohs(((struct sockaddr_in *)&ss)->sin_port));
		if (rc)
			CHECK(strstr(err, c[i].s) != NULL, "the message names the input: %s", err);
	}
}

static void test_labels(void)
{
	char b[300], *esc = NULL;
	size_t elen = 0;
	FILE *m = open_memstream(&esc, &elen);

	/* the one escaper of label values (src/util/om.h): \\, \" and \n only */
	om_label_value(m, "a\\b\"c\nd\te/");
	fclose(m);
	CHECK(!strcmp(esc, "\"a\\\\b\\\"c\\nd\te/\""), "escaped: %s", esc);
	free(esc);

	exp_bridge_label("/run/choke", "/run/choke/bridge-eth1.sock", b, sizeof(b));
	CHECK(!strcmp(b, "eth1"), "%s", b);
	exp_bridge_label("/run/choke", "/run/choke/other.sock", b, sizeof(b));
	CHECK(!strcmp(b, "/run/choke/other.sock"), "%s", b);
	exp_bridge_label("/run/choke", "/run/choke/bridge-.sock", b, sizeof(b));
	CHECK(!strcmp(b, "/run/choke/bridge-.sock"), "%s", b);
	exp_bridge_label("/run/choke", "/run/chokeX/bridge-a.sock", b, sizeof(b));
	CHECK(!strcmp(b, "/run/chokeX/bridge-a.sock"), "%s", b);
	exp_bridge_label("/run/choke", "/run/choke/x/bridge-a.sock", b, sizeof(b));
	CHECK(!strcmp(b, "/run/choke/x/bridge-a.sock"), "%s", b);
	exp_bridge_label("/tmp/s", "/tmp/s/bridge-ba.sock", b, sizeof(b));
	CHECK(!strcmp(b, "ba"), "%s", b);
}

/* ---- the whole exposition, from sources made up here ---- */

/*
 * Bridges made up on real control sockets in a directory of our own: a
 * thread answers each request as a bridge would (ok and a body, or error
 * and a message), or, for a silent one, never accepts: the connection is
 * made (the kernel's backlog takes it) and the answer never comes.
 */
enum { FB_OK, FB_REFUSE, FB_SILENT, FB_STALE };

struct fake_bridge {
	char path[108];
	int how;
	const char *body;
	int fd;
};

static struct fake_bridge fakes[12];
static int nfakes;
static struct recording *fake_rec;
static char fake_dir[64];
static int fake_stop[2] = { -1, -1 };
static pthread_t fake_thread;

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

/* what fake i answers from now on */
static void fake_set(int i, int how, const char *body)
{
	pthread_mutex_lock(&fake_lock);
	fakes[i].how = how;
	fakes[i].body = body;
	pthread_mutex_unlock(&fake_lock);
}

static void *fake_serve(void *p)
{
	struct pollfd pf[13];
	int map[13], n, i, r;

	(void)p;
	for (;;) {
		n = 0;
		pf[n].fd = fake_stop[0], pf[n].events = POLLIN, map[n++] = -1;
		for (i = 0; i < nfakes; i++)
			if (fakes[i].fd >= 0 && fakes[i].how != FB_SILENT)
				pf[n].fd = fakes[i].fd, pf[n].events = POLLIN, map[n++] = i;
		if (poll(pf, (nfds_t)n, -1) < 0)
			continue;
		if (pf[0].revents)
			return NULL;
		for (i = 1; i < n; i++) {
			struct fake_bridge *b = &fakes[map[i]];
			char req[CTL_REQ_MAX + 1], *reply;
			int c;

			if (!(pf[i].revents & POLLIN))
				continue;
			c = accept(b->fd, NULL, NULL);
			if (c < 0)
				continue;
			pthread_mutex_lock(&fake_lock);
			r = asprintf(&reply, "%s %s\n%s", CTL_MAGIC, b->how == FB_OK ? "ok" : "error",
				     b->body);
			pthread_mutex_unlock(&fake_lock);
			if (r >= 0 && recv(c, req, sizeof(req), 0) > 0) {
				send(c, reply, strlen(reply), MSG_NOSIGNAL);
			}
			if (r >= 0)
				free(reply);
			close(c);
		}
	}
}

/* A made-up bridge at fake_dir/bridge-NAME.sock (FB_STALE: a socket file
 * nobody listens on; NULL body and FB_OK: no socket at all). Its path. */
static const char *fake_add(const char *name, int how, const char *body)
{
	struct fake_bridge *b = &fakes[nfakes++];
	struct sockaddr_un sa;

	snprintf(b->path, sizeof(b->path), "%s/bridge-%s.sock", fake_dir, name);
	b->how = how;
	b->body = body;
	b->fd = -1;
	if (how == FB_OK && !body)
		return b->path;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", b->path);
	b->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (b->fd < 0 || bind(b->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (how != FB_STALE && listen(b->fd, 8)))
		CHECK(0, "fake bridge %s: %s", b->path, strerror(errno));
	return b->path;
}

static void fakes_start(void)
{
	snprintf(fake_dir, sizeof(fake_dir), "/tmp/exporter-tests.XXXXXX");
	CHECK(mkdtemp(fake_dir) != NULL, "mkdtemp: %s", strerror(errno));
	nfakes = 0;
	CHECK(pipe(fake_stop) == 0, "pipe");
}

static void fakes_run(void)
{
	CHECK(pthread_create(&fake_thread, NULL, fake_serve, NULL) == 0, "the fakes' thread");
}

static void fakes_stop(void)
{
	int i;

	if (write(fake_stop[1], "x", 1) == 1)
		pthread_join(fake_thread, NULL);
	for (i = 0; i < nfakes; i++) {
		if (fakes[i].fd >= 0)
			close(fakes[i].fd);
		unlink(fakes[i].path);
	}
	close(fake_stop[0]);
	close(fake_stop[1]);
	rmdir(fake_dir);
	nfakes = 0;
}

static int fake_qdiscs(struct nlq_set *s, int timeout_ms, char *err, size_t errlen)
{
	(void)timeout_ms;
	if (!fake_rec) {
		snprintf(err, errlen, "netlink: socket: Address family not supported by protocol");
		return -1;
	}
	return rec_parse(fake_rec, s, err, errlen);
}

/* exp_collect's output and what it logged */
static char *collect(const struct exp_opts *o, struct exp_state *st, int budget_ms,
		     int *failed, char **logged)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len), *tmp = tmpfile();
	int saved;
	long n;

	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	*failed = exp_collect(f, o, st, budget_ms);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	n = ftell(tmp);
	rewind(tmp);
	*logged = calloc(1, (size_t)n + 1);
	if (fread(*logged, 1, (size_t)n, tmp) != (size_t)n)
		(*logged)[0] = 0;
	fclose(tmp);
	return out;
}

static void test_collect(void)
{
	const char *paths[6];
	struct exp_opts o = { EXP_DEFAULT_LISTEN, paths, 5, NULL, 1, 0, "9.8.7", fake_qdiscs };
	struct exp_state st;
	struct stats_snapshot s1, s2;
	struct recording r;
	char rec[512], want[512], *a, *b, *out, *logged;
	int failed;

	make_snapshot(&s1, "ba", "bz", 2);
	make_snapshot(&s2, "eth1", "eth2", 1);
	a = render(&s1);
	b = render(&s2);
	snprintf(rec, sizeof(rec), "%s/uml-6.1-ours.nlrec", fixture_dir);
	CHECK(rec_load(rec, &r) == 0, "%s", rec);
	fake_rec = &r;
	fakes_start();
	o.dir = fake_dir;
	paths[0] = fake_add("ba", FB_OK, a);
	paths[1] = fake_add("eth1", FB_OK, b);
	paths[2] = fake_add("x", FB_REFUSE, "busy\n");
	paths[3] = fake_add("other", FB_OK, "hello\n");
	paths[4] = fake_add("gone", FB_OK, NULL);
	fakes_run();
	exp_state_init(&st, 0, 1);

	out = collect(&o, &st, 2000, &failed, &logged);
	CHECK(failed == 3, "3 failed sources, not %d", failed);
#define UP(name, v) (snprintf(want, sizeof(want), "choke_exporter_bridge_up{bridge=\"%s\",socket=\"%s/bridge-%s.sock\"} %d\n", name, fake_dir, name, v), strstr(out, want) != NULL)
	CHECK(UP("ba", 1) && UP("eth1", 1) && UP("x", 0) && UP("other", 0) && UP("gone", 0),
	      "the up gauges:\n%s", out);
	CHECK(count(out, "# TYPE choke_bridge_sent_packets_total counter\n") == 1 &&
	      count(out, "\nchoke_bridge_sent_packets_total{bridge=") == 3, "two bridges merged");
	CHECK(count(out, "\nchoke_qdisc_info{") >= 3 && strstr(out, "choke_exporter_qdiscs_up 1\n"),
	      "the recorded qdiscs");
	CHECK(strstr(out, "choke_build_info{version=\"9.8.7\"} 1\n") != NULL, "build info");
	CHECK(strstr(out, "choke_exporter_scrape_budget_seconds 2.000\n") != NULL, "the budget");
	CHECK(!strstr(out, "bridge_scan_up"), "no scan with --socket");
	CHECK(strstr(out, "# TYPE choke_bridge_penalised_packets gauge\n") &&
	      !strstr(out, "\nchoke_bridge_penalised_packets{"), "no per-flow series by default");
	CHECK(strlen(out) > 6 && !strcmp(out + strlen(out) - 6, "# EOF\n") && count(out, "# EOF") == 1,
	      "# EOF once, last");
	snprintf(want, sizeof(want), "the bridge at %s/bridge-x.sock refused: busy\n", fake_dir);
	CHECK(strstr(logged, want) != NULL, "refused logged:\n%s", logged);
	snprintf(want, sizeof(want), "the bridge at %s/bridge-other.sock answered metrics that do "
		 "not parse: line 1: a sample of hello before its family's # TYPE\n", fake_dir);
	CHECK(strstr(logged, want) != NULL, "bad metrics logged:\n%s", logged);
	snprintf(want, sizeof(want), "no running bridge at %s/bridge-gone.sock (no such socket)",
		 fake_dir);
	CHECK(strstr(logged, want) && count(logged, "\n") == 3, "logged:\n%s", logged);
	free(out);
	free(logged);
	/* the same errors again: logged once only; then one comes back */
	out = collect(&o, &st, 2000, &failed, &logged);
	CHECK(failed == 3 && logged[0] == 0, "logged again:\n%s", logged);
	free(out);
	free(logged);
	/* bridge-gone there, refusing, then answering: "answers again" once */
	fakes_stop();
	exp_state_free(&st);
	fakes_start();
	o.dir = fake_dir;
	paths[0] = fake_add("ba", FB_OK, a);
	paths[1] = fake_add("eth1", FB_OK, b);
	paths[2] = fake_add("x", FB_REFUSE, "busy\n");
	paths[3] = fake_add("other", FB_OK, "hello\n");
	paths[4] = fake_add("gone", FB_REFUSE, "stopping\n");
	fakes_run();
	exp_state_init(&st, 0, 1);
	o.penalised_flows = 1;
	out = collect(&o, &st, 2000, &failed, &logged);
	CHECK(failed == 3 && count(logged, "\n") == 3, "three errors: %d\n%s", failed, logged);
	free(out);
	free(logged);
	fake_set(4, FB_OK, a);
	out = collect(&o, &st, 2000, &failed, &logged);
	snprintf(want, sizeof(want), "%s/bridge-gone.sock: answers again\n", fake_dir);
	CHECK(failed == 2 && strstr(logged, want) && count(logged, "\n") == 1,
	      "recovery logged: %d\n%s", failed, logged);
	CHECK(strstr(out, "\nchoke_bridge_penalised_packets{bridge=\"ba\"") != NULL,
	      "--penalised-flows: the per-flow series");
	free(out);
	free(logged);
	/* the kernel's qdiscs unreadable: their families still there, up 0 */
	fake_rec = NULL;
	o.nsockets = 0;
	o.dir = "/nonexistent";
	out = collect(&o, &st, 2000, &failed, &logged);
	CHECK(failed == 1 && strstr(out, "choke_exporter_qdiscs_up 0\n") &&
	      strstr(out, "# TYPE choke_qdisc_sent_packets_total counter\n") &&
	      !strstr(out, "\nchoke_qdisc_sent_packets_total{") &&
	      strstr(out, "choke_exporter_bridge_scan_up{dir=\"/nonexistent\"} 1\n") &&
	      strstr(logged, "choke: exporter: netlink: socket: Address family not supported"),
	      "netlink down: %d\n%s\n%s", failed, out, logged);
	free(out);
	free(logged);
	/* the scan finds the sockets in the directory, sorted */
	fake_rec = &r;
	o.dir = fake_dir;
	out = collect(&o, &st, 2000, &failed, &logged);
	CHECK(failed == 2 && strstr(out, "choke_exporter_bridge_scan_up") &&
	      strstr(out, "{bridge=\"ba\",") < strstr(out, "{bridge=\"eth1\",") &&
	      strstr(out, "{bridge=\"eth1\",") < strstr(out, "{bridge=\"gone\","),
	      "the scanned directory: %d\n%s", failed, logged);
	free(out);
	free(logged);
	exp_state_free(&st);
	fakes_stop();
	rec_free(&r);
	free(a);
	free(b);
#undef UP
}

/* Bridges that never answer cost the scrape its budget, not one each: they
 * are asked at once. A full listen backlog is retried until the budget. */
static void test_parallel(void)
{
	const char *paths[8];
	struct exp_opts o = { EXP_DEFAULT_LISTEN, paths, 0, NULL, 0, 0, "1", NULL };
	struct exp_state st;
	struct stats_snapshot s1;
	char *a, *out, *logged, want[300];
	long long t0, took;
	int failed, i;

	make_snapshot(&s1, "ba", "bz", 1);
	a = render(&s1);
	fakes_start();
	o.dir = fake_dir;
	paths[0] = fake_add("a-answers", FB_OK, a);
	for (i = 1; i <= 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "silent%d", i);
		paths[i] = fake_add(name, FB_SILENT, NULL);
	}
	paths[6] = fake_add("stale", FB_STALE, NULL);
	o.nsockets = 7;
	fakes_run();
	exp_state_init(&st, 0, 1);
	t0 = exp_ask_now_ms();
	out = collect(&o, &st, 400, &failed, &logged);
	took = exp_ask_now_ms() - t0;
	CHECK(failed == 6 && took >= 390 && took < 1500, "5 silent bridges and a stale one within "
	      "a 400 ms budget: %lld ms, %d failed", took, failed);
	snprintf(want, sizeof(want), "choke_exporter_bridge_up{bridge=\"a-answers\",socket=\"%s/"
		 "bridge-a-answers.sock\"} 1\n", fake_dir);
	CHECK(strstr(out, want) && strstr(out, "\nchoke_bridge_sent_packets_total{bridge=\"a-answers\""),
	      "the answering bridge's series:\n%s", logged);
	snprintf(want, sizeof(want), "no answer from the bridge at %s/bridge-silent3.sock within "
		 "the scrape's budget (400 ms)", fake_dir);
	CHECK(strstr(logged, want) && strstr(logged, "(a stale socket: nobody listens on it)"),
	      "logged:\n%s", logged);
	free(out);
	free(logged);
	exp_state_free(&st);
	fakes_stop();
	free(a);
}

/* Two bridges, the recorded qdiscs of sch_libchoke (choke and chokeplus),
 * the exporter's own gauges: what the exporter serves (with the per-flow
 * series, which the dashboard shows), but for made-up sources. */
static int do_exposition(const char *path)
{
	const char *paths[2];
	struct exp_opts o = { EXP_DEFAULT_LISTEN, paths, 2, NULL, 1, 1, "0.0.0", fake_qdiscs };
	struct exp_state st;
	struct stats_snapshot s1, s2;
	struct recording r;
	char rec[512], *a, *b;
	int failed;
	FILE *f;

	make_snapshot(&s1, "ba", "bz", 2);
	make_snapshot(&s2, "eth1", "eth2", 1);
	a = render(&s1);
	b = render(&s2);
	snprintf(rec, sizeof(rec), "%s/uml-6.1-ours.nlrec", fixture_dir);
	if (rec_load(rec, &r)) {
		fprintf(stderr, "exporter-tests: cannot load %s\n", rec);
		return 1;
	}
	fake_rec = &r;
	fakes_start();
	o.dir = fake_dir;
	paths[0] = fake_add("ba", FB_OK, a);
	paths[1] = fake_add("eth1", FB_OK, b);
	fakes_run();
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "exporter-tests: %s: %s\n", path, strerror(errno));
		return 1;
	}
	exp_state_init(&st, 1, 0);
	failed = exp_collect(f, &o, &st, 5000);
	exp_state_free(&st);
	fakes_stop();
	if (fclose(f) || failed || fails)
		return 1;
	rec_free(&r);
	free(a);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--record"))
		return do_record(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--exposition"))
		return do_exposition(argv[2]);
	if (argc == 2)
		fixture_dir = argv[1];
	test_fixtures();
	test_messages();
	test_handles();
	test_widen();
	test_merge();
	test_http();
	test_listen();
	test_labels();
	test_collect();
	test_parallel();
	printf("exporter-tests: %d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
