/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * params/ against stock tc: every case of tests/vectors/params.vec (taken
 * from iproute2 6.1 by tests/vectors/gen-params.py) must give the same
 * numbers and the same 256 table bytes, or be refused as tc refuses it; the
 * kernel's checks on top; and our two deliberate improvements.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "choke/params.h"
#include "testlib.h"

static const char *vec_path(void)
{
	const char *p = getenv("CHOKE_VECTORS");

	return p ? p : "tests/vectors/params.vec";
}

/* split on single spaces (a trailing space is a trailing empty word) */
static int split_words(char *s, char **argv, int max)
{
	int n = 0;

	if (!*s)
		return 0;
	for (;;) {
		char *sp = strchr(s, ' ');

		if (n < max)
			argv[n++] = s;
		if (!sp)
			break;
		*sp = 0;
		s = sp + 1;
	}
	return n;
}

static int hexval(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

static int fls32(uint32_t x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

struct vec_counts {
	int ok, err, kernel_rejects;
};

static void check_ok_line(char *words, char *nums, char *stabhex,
			  const char *warning, struct vec_counts *vc)
{
	char wcopy[1024], *argv[64];
	struct choke_params p;
	struct choke_parse_opts strict = { 0, 1, 1 };
	char err[CHOKE_ERRBUF_SIZE];
	unsigned limit, qmin, qmax, wlog, plog, scell, flags;
	unsigned long maxp;
	int argc, i, kernel_ok, r;

	snprintf(wcopy, sizeof(wcopy), "%s", words);
	argc = split_words(wcopy, argv, 64);
	if (sscanf(nums, "%u %u %u %u %u %u %u %lu", &limit, &qmin, &qmax, &wlog,
		   &plog, &scell, &flags, &maxp) != 8) {
		CHECK(!"bad vector line");
		return;
	}
	r = choke_params_parse(argc, argv, CHOKE_KIND_CHOKE, &strict, &p, err, sizeof(err));
	if (r) {
		tl_failures++;
		fprintf(stderr, "FAIL %s: tc accepts [%s], we refuse: %s\n",
			tl_current, words, err);
		return;
	}
	vc->ok++;
	if (p.cfg.limit != limit || p.cfg.qth_min != qmin || p.cfg.qth_max != qmax ||
	    p.cfg.Wlog != wlog || p.cfg.Plog != plog || p.cfg.Scell_log != scell ||
	    p.cfg.flags != flags || p.cfg.max_P != maxp) {
		tl_failures++;
		fprintf(stderr, "FAIL %s: [%s]: tc %s, we %u %u %u %u %u %u %u %u\n",
			tl_current, words, nums, p.cfg.limit, p.cfg.qth_min,
			p.cfg.qth_max, p.cfg.Wlog, p.cfg.Plog, p.cfg.Scell_log,
			p.cfg.flags, p.cfg.max_P);
	}
	for (i = 0; i < 256; i++) {
		int b = hexval(stabhex[2 * i]) * 16 + hexval(stabhex[2 * i + 1]);

		if (p.cfg.stab[i] != b) {
			tl_failures++;
			fprintf(stderr, "FAIL %s: [%s]: stab[%d] tc %d we %d\n",
				tl_current, words, i, b, p.cfg.stab[i]);
			break;
		}
	}
	/* tc's burst warning is ours too */
	if (strstr(warning, "seems to be too large")) {
		int found = 0;

		for (i = 0; i < p.nwarnings; i++)
			found |= strstr(p.warnings[i], "too large") != NULL;
		CHECK(found);
	}
	/* the kernel's red_check_params and limit cap, computed here from
	 * the vector's own numbers */
	kernel_ok = fls32(qmin) + (int)wlog < 32 && fls32(qmax) + (int)wlog < 32 &&
		    scell < 32 && qmax >= qmin && limit <= 131071;
	snprintf(wcopy, sizeof(wcopy), "%s", words);
	argc = split_words(wcopy, argv, 64);
	r = choke_params_parse(argc, argv, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err));
	if ((r == 0) != kernel_ok) {
		tl_failures++;
		fprintf(stderr, "FAIL %s: [%s]: kernel would %s, we %s (%s)\n",
			tl_current, words, kernel_ok ? "accept" : "reject",
			r ? "reject" : "accept", err);
	}
	if (!kernel_ok) {
		vc->kernel_rejects++;
		CHECK(strstr(err, "kernel") != NULL);
	}
}

static void check_err_line(char *words, const char *tcmsg, struct vec_counts *vc)
{
	char wcopy[1024], *argv[64];
	struct choke_params p;
	struct choke_parse_opts strict = { 0, 1, 1 };
	char err[CHOKE_ERRBUF_SIZE];
	int argc;

	snprintf(wcopy, sizeof(wcopy), "%s", words);
	argc = split_words(wcopy, argv, 64);
	if (choke_params_parse(argc, argv, CHOKE_KIND_CHOKE, &strict, &p, err, sizeof(err)) == 0) {
		tl_failures++;
		fprintf(stderr, "FAIL %s: tc refuses [%s] (%s), we accept\n",
			tl_current, words, tcmsg);
		return;
	}
	CHECK(err[0] != 0);
	vc->err++;
}

static void test_params_match_tc_vectors(void)
{
	FILE *f = fopen(vec_path(), "r");
	char line[4096];
	struct vec_counts vc = { 0, 0, 0 };

	REQUIRE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char *fields[6] = { 0 };
		char *s = line;
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		while (n < 6) {
			char *bar = strchr(s, '|');

			fields[n++] = s;
			if (!bar)
				break;
			*bar = 0;
			s = bar + 1;
		}
		if (!strcmp(fields[0], "ok") && n >= 4)
			check_ok_line(fields[1], fields[2], fields[3],
				      n >= 5 ? fields[4] : "", &vc);
		else if (!strcmp(fields[0], "err") && n >= 3)
			check_err_line(fields[1], fields[2], &vc);
		else
			CHECK(!"unparsable vector line");
	}
	fclose(f);
	printf("     %d accepted and %d refused cases as tc; %d of the accepted "
	       "refused by the kernel's checks\n", vc.ok, vc.err, vc.kernel_rejects);
	CHECK(vc.ok > 400 && vc.err > 300);
}

static int parse_str(const char *words, const struct choke_parse_opts *o,
		     struct choke_params *p, char *err)
{
	static char buf[1024];
	char *argv[64];
	int argc;

	snprintf(buf, sizeof(buf), "%s", words);
	argc = split_words(buf, argv, 64);
	return choke_params_parse(argc, argv, CHOKE_KIND_CHOKE, o, p, err, CHOKE_ERRBUF_SIZE);
}

static void test_params_harddrop_improvement(void)
{
	struct choke_params a, b;
	struct choke_parse_opts strict = { 0, 1, 0 };
	char err[CHOKE_ERRBUF_SIZE];

	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit harddrop", &strict, &a, err),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "harddrop") != NULL);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit ecn harddrop", NULL, &a, err) == 0);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit ecn", NULL, &b, err) == 0);
	CHECK_EQ(a.cfg.flags, CHOKE_FLAG_ECN | CHOKE_FLAG_HARDDROP);
	a.cfg.flags = b.cfg.flags;
	CHECK(memcmp(&a.cfg, &b.cfg, sizeof(a.cfg)) == 0);
}

static void test_params_wide_bandwidth_improvement(void)
{
	struct choke_params a, b;
	struct choke_parse_opts strict = { 0, 1, 0 };
	char err[CHOKE_ERRBUF_SIZE];

	/* tc refuses above 4294967295 bytes/s */
	CHECK_EQ(parse_str("limit 1000 bandwidth 40gbit", &strict, &a, err), CHOKE_EINVAL);
	CHECK(strstr(err, "32-bit") != NULL);
	REQUIRE(parse_str("limit 1000 bandwidth 40gbit", NULL, &a, err) == 0);
	CHECK_EQ(a.bandwidth_bytes_per_sec, 5000000000ull);
	CHECK(a.nwarnings > 0);
	/* same formulas: avpkt 1000 at 40 Gbit/s is 0.2 us -> 0 ticks, as at
	 * 30 Gbit/s, which tc accepts (vector file) */
	REQUIRE(parse_str("limit 1000 bandwidth 30gbit", &strict, &b, err) == 0);
	CHECK(memcmp(&a.cfg, &b.cfg, sizeof(a.cfg)) == 0);
	/* the transmit time scales: avpkt 64000 at 100 Gbit/s is 5.12 us, the
	 * same as avpkt 32000 at 50 Gbit/s... which tc refuses too; compare
	 * with avpkt 2560 at 4 Gbit/s (5.12 us), which it accepts */
	REQUIRE(parse_str("limit 1000 bandwidth 100gbit avpkt 64000", NULL, &a, err) == 0);
	REQUIRE(parse_str("limit 1000 bandwidth 4gbit avpkt 2560", &strict, &b, err) == 0);
	CHECK_EQ(a.xmit_ticks, b.xmit_ticks);
	CHECK_EQ(a.xmit_ticks, (uint32_t)(5 * 15.625));
	CHECK_EQ(a.cfg.Scell_log, b.cfg.Scell_log);
	CHECK(memcmp(a.cfg.stab, b.cfg.stab, 256) == 0);
	CHECK_EQ(a.cfg.Wlog, b.cfg.Wlog);
	/* 1 tbit and 16 EB/s are fine; beyond 2^64 bytes/s is not */
	CHECK_EQ(parse_str("limit 1000 bandwidth 1tbit", NULL, &a, err), 0);
	CHECK_EQ(parse_str("limit 1000 bandwidth 200000000000000000000bit", NULL, &a,
			   err), CHOKE_EINVAL);
}

static void test_params_percent(void)
{
	struct choke_params a, b;
	struct choke_parse_opts link = { 10000, 0, 0 };
	char err[CHOKE_ERRBUF_SIZE];

	CHECK_EQ(parse_str("limit 1000 bandwidth 50%", NULL, &a, err), CHOKE_EINVAL);
	CHECK(strstr(err, "link speed") != NULL);
	REQUIRE(parse_str("limit 1000 bandwidth 20%", &link, &a, err) == 0);
	REQUIRE(parse_str("limit 1000 bandwidth 2gbit", NULL, &b, err) == 0);
	CHECK(memcmp(&a.cfg, &b.cfg, sizeof(a.cfg)) == 0);
	CHECK_EQ(a.bandwidth_bytes_per_sec, 250000000u);
	/* tc reads only the run of digits, dots and % signs */
	REQUIRE(parse_str("limit 1000 bandwidth 20%xyz", &link, &b, err) == 0);
	CHECK_EQ(b.bandwidth_bytes_per_sec, 250000000u);
	CHECK_EQ(parse_str("limit 1000 bandwidth 101%", &link, &a, err), CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth x%", &link, &a, err), CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 5.5.5%", &link, &a, err), CHOKE_EINVAL);
}

static void test_params_rate_parser(void)
{
	uint64_t r;

	CHECK_EQ(choke_tc_get_rate("10mbit", 0, &r), 0);
	CHECK_EQ(r, 1250000);
	CHECK_EQ(choke_tc_get_rate("10MBIT", 0, &r), 0);
	CHECK_EQ(r, 1250000);
	CHECK_EQ(choke_tc_get_rate("1kibit", 0, &r), 0);
	CHECK_EQ(r, 128);
	CHECK_EQ(choke_tc_get_rate("1KBps", 0, &r), 0);
	CHECK_EQ(r, 1000);
	CHECK_EQ(choke_tc_get_rate("1kbps", 0, &r), 0); /* KBps, bytes */
	CHECK_EQ(r, 1000);
	CHECK_EQ(choke_tc_get_rate("12bit", 0, &r), 0);
	CHECK_EQ(r, 1);
	CHECK_EQ(choke_tc_get_rate("10xbit", 0, &r), -1);
	CHECK_EQ(choke_tc_get_rate("", 0, &r), -1);
	CHECK_EQ(choke_tc_get_rate("-8bit", 0, &r), -1);
	CHECK_EQ(choke_tc_get_rate("-8bit", 1, &r), -1);
	CHECK_EQ(choke_tc_get_rate("nan", 1, &r), -1);
	CHECK_EQ(choke_tc_get_rate("inf", 1, &r), -1);
}

static void test_params_fifo_and_red_words(void)
{
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE];
	char *w1[] = { "limit", "50" };
	char *w2[] = { "min", "5" };
	char *w3[] = { "limit", "300", "bandwidth", "1mbit" };

	CHECK_EQ(choke_params_parse(0, NULL, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.cfg.limit, 1000);
	CHECK_EQ(p.cfg.kind, CHOKE_KIND_FIFO);
	CHECK_EQ(choke_params_parse(2, w1, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.cfg.limit, 50);
	CHECK_EQ(choke_params_parse(2, w2, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)), CHOKE_EINVAL);
	/* limit 1 to 131071, as for choke and red (pfifo takes 0) */
	w1[1] = "0";
	CHECK_EQ(choke_params_parse(2, w1, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)),
		 CHOKE_EINVAL);
	CHECK(!strcmp(err, "fifo: \"limit\" must be 1 to 131071 packets"));
	w1[1] = "1";
	CHECK_EQ(choke_params_parse(2, w1, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)), 0);
	w1[1] = "131072";
	CHECK_EQ(choke_params_parse(2, w1, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "limit must be 1 to 131071 packets") != NULL);
	CHECK_EQ(choke_params_parse(4, w3, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.cfg.kind, CHOKE_KIND_RED);
	CHECK_EQ(p.cfg.qth_max, 75);
}

static void test_params_format_like_tc(void)
{
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE], out[256];

	REQUIRE(parse_str("limit 1000 min 100 max 300 avpkt 1000 burst 200 "
			  "bandwidth 10Mbit probability 0.02", NULL, &p, err) == 0);
	choke_params_format(&p.cfg, out, sizeof(out));
	CHECK(!strcmp(out, "limit 1000p min 100p max 300p ewma 7 probability 0.02 "
			   "Scell_log 17"));
	REQUIRE(parse_str("limit 1000 bandwidth 10Mbit ecn harddrop probability 1",
			  NULL, &p, err) == 0);
	choke_params_format(&p.cfg, out, sizeof(out));
	CHECK(!strcmp(out, "limit 1000p min 83p max 250p ecn harddrop ewma 6 Plog 18 "
			   "Scell_log 16"));
	/* probability 1 does not fit: the kernel derives max_P from Plog, a
	 * far smaller probability; warned */
	CHECK(p.nwarnings > 0);
	CHECK(p.max_p_effective < 0.001);
	/* a quantised probability is warned about */
	REQUIRE(parse_str("limit 2000 min 100 max 1100 avpkt 1 bandwidth 10mbit "
			  "probability 0.000001", NULL, &p, err) == 0);
	CHECK(p.nwarnings == 2); /* the burst warning and the quantisation */
	CHECK(fabs(p.max_p_effective - 4.0 * 1000 / 4294967296.0) < 1e-12);
	REQUIRE(parse_str("limit 1000 bandwidth 10Mbit", NULL, &p, err) == 0);
	CHECK_EQ(p.nwarnings, 0);
}

/* The variants' words; byte mode derives as stock tc's red does for the
 * same words (values taken from tc red under strace on 2026-12-03:
 * `red limit 300000 min 30000 max 90000 avpkt 1000 bandwidth 10mbit` sends
 * Wlog 5, Plog 22, Scell_log 15). */
static void test_params_variants(void)
{
	struct choke_params p;
	struct choke_parse_opts strict = { 0, 1, 0 };
	char err[CHOKE_ERRBUF_SIZE];

	REQUIRE(parse_str("limit 1000 bandwidth 10mbit draws 4", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_DRAWS);
	CHECK_EQ(p.cfg.draws, 4);
	/* draws 2..16: draws 1 (mainline) is no word at all */
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit draws 1", NULL, &p, err), CHOKE_EINVAL);
	CHECK(strstr(err, "\"draws\" needs a number from 2 to 16") != NULL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit draws 0", NULL, &p, err), CHOKE_EINVAL);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit draws 16", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.draws, 16);
	/* one draw rule: two different variant words contradict each other,
	 * the same word repeated is the last one */
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit draws 4 adaptive", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "\"draws\" and \"adaptive\" are alternatives") != NULL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit draws 4 geometric", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "\"draws\" and \"geometric\"") != NULL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit adaptive geometric 3", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit geometric adaptive", NULL, &p, err),
		 CHOKE_EINVAL);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit draws 4 draws 6", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.draws, 6);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit adaptive adaptive", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_ADAPTIVE);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit adaptive", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_ADAPTIVE);
	REQUIRE(parse_str("limit 1000 bandwidth 10mbit geometric ecn", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_GEOMETRIC);
	CHECK_EQ(p.cfg.draws, 8);
	CHECK(p.cfg.flags & CHOKE_FLAG_ECN);
	REQUIRE(parse_str("limit 1000 geometric 3 bandwidth 10mbit", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.draws, 3);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit draws 17", NULL, &p, err), CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit geometric 0", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 10mbit draws 2", &strict, &p, err),
		 CHOKE_EINVAL);
	REQUIRE(parse_str("limit 300000 min 30000 max 90000 avpkt 1000 bandwidth 10mbit "
			  "bytes", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.limit_bytes, 300000);
	CHECK_EQ(p.cfg.qth_min, 30000);
	CHECK_EQ(p.cfg.qth_max, 90000);
	CHECK_EQ(p.cfg.Wlog, 5);
	CHECK_EQ(p.cfg.Plog, 22);
	CHECK_EQ(p.cfg.Scell_log, 15);
	CHECK_EQ(p.cfg.limit, 300000 / 64 + 1);
	CHECK_EQ(p.cfg.avpkt, 1000);
	{
		/* red: the draw variants are choke's, named in the message */
		char *w[] = { "limit", "100", "bandwidth", "1mbit", "draws", "3" };

		CHECK_EQ(choke_params_parse(6, w, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)),
			 CHOKE_EINVAL);
		CHECK(!strcmp(err, "\"draws\" applies to choke only"));
		w[4] = "geometric";
		CHECK_EQ(choke_params_parse(5, w, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)),
			 CHOKE_EINVAL);
		CHECK(!strcmp(err, "\"geometric\" applies to choke only"));
	}
}

/*
 * red's own words, as stock tc's red takes them: `adaptive` is ARED's flag
 * (TC_RED_ADAPTATIVE, 4; choke's `adaptive` is the variant), `nodrop` 8,
 * `harddrop` 2, all three also under --strict. Stock tc 6.1 for
 *   tc qdisc add ... red limit 400000 min 30000 max 90000 avpkt 1000
 *     burst 55 bandwidth 10mbit adaptive nodrop ecn
 * sends (tests/vectors' method, tc under strace, 2026-12-04) limit 400000,
 * min 30000, max 90000, Wlog 5, Plog 22, Scell_log 15, max_P 85899345,
 * a Stab whose SHA-1 starts 18efc5f1d839, and TCA_RED_FLAGS 0x0d; libchoke's
 * red in byte mode gives the same numbers (and the same Stab: `choke params
 * --json red ... bytes adaptive nodrop ecn`).
 */
static void test_params_red_words(void)
{
	struct choke_params p;
	struct choke_parse_opts strict = { 0, 1, 0 };
	char err[CHOKE_ERRBUF_SIZE];
	char *w[] = { "limit", "400000", "min", "30000", "max", "90000", "avpkt", "1000",
		      "burst", "55", "bandwidth", "10mbit", "bytes", "adaptive", "nodrop", "ecn" };
	int i, found = 0;

	REQUIRE(choke_params_parse(16, w, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.cfg.flags, CHOKE_FLAG_ECN | CHOKE_FLAG_ADAPTATIVE | CHOKE_FLAG_NODROP);
	CHECK_EQ(p.cfg.flags, 0x0d);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_NONE);
	CHECK_EQ(p.cfg.limit_bytes, 400000);
	CHECK_EQ(p.cfg.qth_min, 30000);
	CHECK_EQ(p.cfg.qth_max, 90000);
	CHECK_EQ(p.cfg.Wlog, 5);
	CHECK_EQ(p.cfg.Plog, 22);
	CHECK_EQ(p.cfg.Scell_log, 15);
	CHECK_EQ(p.cfg.max_P, 85899345);
	/* the core adapts max_P as sch_red does: no warning about it */
	for (i = 0; i < p.nwarnings; i++)
		found |= strstr(p.warnings[i], "ARED") != NULL;
	CHECK(!found);
	CHECK_EQ(p.cfg.red_ext, 0);
	/* stock tc's red takes them: so does --strict */
	{
		char *s[] = { "limit", "1000", "bandwidth", "10mbit", "harddrop", "adaptive",
			      "nodrop", "ecn" };

		REQUIRE(choke_params_parse(8, s, CHOKE_KIND_RED, &strict, &p, err,
					   sizeof(err)) == 0);
		CHECK_EQ(p.cfg.flags, CHOKE_FLAG_HARDDROP | CHOKE_FLAG_ADAPTATIVE |
					      CHOKE_FLAG_NODROP | CHOKE_FLAG_ECN);
	}
	/* gentle, wait and ared: for choke and red, not fifo, not --strict;
	 * tc's view and the words show them */
	{
		char *g[] = { "limit", "100", "bandwidth", "10mbit", "gentle", "wait", "ared" };
		char buf[512];

		REQUIRE(choke_params_parse(7, g, CHOKE_KIND_CHOKE, NULL, &p, err,
					   sizeof(err)) == 0);
		CHECK_EQ(p.cfg.red_ext, CHOKE_RED_GENTLE | CHOKE_RED_WAIT | CHOKE_RED_ARED);
		CHECK_EQ(p.cfg.flags, 0);
		choke_params_format(&p.cfg, buf, sizeof(buf));
		CHECK(strstr(buf, " gentle wait ared ") != NULL);
		choke_params_words(&p, buf, sizeof(buf));
		CHECK(strstr(buf, " gentle wait ared") != NULL);
		REQUIRE(choke_params_parse(5, g, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)) == 0);
		CHECK_EQ(p.cfg.red_ext, CHOKE_RED_GENTLE);
		CHECK_EQ(choke_params_parse(5, g, CHOKE_KIND_CHOKE, &strict, &p, err, sizeof(err)),
			 CHOKE_EINVAL);
		CHECK(!strcmp(err, "What is \"gentle\"?"));
		CHECK_EQ(choke_params_parse(5, g, CHOKE_KIND_FIFO, NULL, &p, err, sizeof(err)),
			 CHOKE_EINVAL);
	}
	/* choke: adaptive is the variant, nodrop is no word of choke's */
	w[12] = "bytes";
	REQUIRE(choke_params_parse(14, w, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err)) == 0);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_ADAPTIVE);
	CHECK_EQ(p.cfg.flags & CHOKE_FLAG_ADAPTATIVE, 0);
	CHECK_EQ(choke_params_parse(15, w, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err)),
		 CHOKE_EINVAL);
	CHECK(!strcmp(err, "What is \"nodrop\"?"));
	/* and under --strict, tc's choke knows none of the three */
	CHECK_EQ(choke_params_parse(14, w, CHOKE_KIND_CHOKE, &strict, &p, err, sizeof(err)),
		 CHOKE_EINVAL);
}

/* `protect [N]`: the default table, a size, the ranges, what it does not
 * combine with, and its place in the formatted line. */
static void test_params_protect(void)
{
	struct choke_params p;
	struct choke_parse_opts strict = { 0, 1, 0 };
	char err[CHOKE_ERRBUF_SIZE], out[256];

	REQUIRE(parse_str("limit 300 min 25 max 50 bandwidth 1mbit protect", NULL, &p,
			  err) == 0);
	CHECK_EQ(p.cfg.protect, CHOKE_PROTECT_DEFAULT);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_NONE);
	choke_params_format(&p.cfg, out, sizeof(out));
	CHECK(strstr(out, " protect 64 ") != NULL);
	REQUIRE(parse_str("limit 300 protect 16 min 25 max 50 bandwidth 1mbit", NULL, &p,
			  err) == 0);
	CHECK_EQ(p.cfg.protect, 16);
	CHECK_EQ(p.cfg.qth_min, 25);
	REQUIRE(parse_str("limit 300 bandwidth 1mbit adaptive protect 256 ecn", NULL, &p,
			  err) == 0);
	CHECK_EQ(p.cfg.protect, 256);
	CHECK_EQ(p.cfg.variant, CHOKE_VAR_ADAPTIVE);
	CHECK(p.cfg.flags & CHOKE_FLAG_ECN);
	choke_params_format(&p.cfg, out, sizeof(out));
	CHECK(strstr(out, "adaptive protect 256 ") != NULL);
	/* the range and the multiple of 4 */
	CHECK_EQ(parse_str("limit 300 bandwidth 1mbit protect 4", NULL, &p, err), CHOKE_EINVAL);
	CHECK(strstr(err, "power of two from 8 to 256") != NULL);
	CHECK_EQ(parse_str("limit 300 bandwidth 1mbit protect 260", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 300 bandwidth 1mbit protect 48", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 300 bandwidth 1mbit protect 0x10", NULL, &p, err), 0);
	CHECK_EQ(p.cfg.protect, 16);
	/* with byte mode (protect counts bytes); not for red, not with --strict */
	CHECK_EQ(parse_str("limit 300000 min 30000 max 90000 avpkt 1000 bandwidth 10mbit "
			   "bytes protect", NULL, &p, err), 0);
	CHECK_EQ(p.cfg.protect, 64);
	CHECK(p.cfg.limit_bytes == 300000);
	CHECK_EQ(parse_str("limit 300 bandwidth 1mbit protect", &strict, &p, err),
		 CHOKE_EINVAL);
	{
		char *w[] = { "limit", "100", "bandwidth", "1mbit", "protect" };

		CHECK_EQ(choke_params_parse(5, w, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)),
			 CHOKE_EINVAL);
		CHECK(strstr(err, "choke only") != NULL);
	}
	/* plain choke stays protect 0 */
	REQUIRE(parse_str("limit 300 bandwidth 1mbit", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.protect, 0);
	CHECK_EQ(p.cfg.protect_by, 0);
	CHECK_EQ(p.cfg.target_us, 0);
	CHECK_EQ(p.cfg.sparse, 0);
}

/* protect's additions: whom it shares among (cake's words), `target TIME`
 * (tc's time syntax), `sparse`; thresholds given as times. */
static void test_params_protect_additions(void)
{
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE], out[256];
	static const struct choke_parse_opts strict = { .strict_tc = 1 };

	REQUIRE(parse_str("limit 1000 bandwidth 4mbit protect srchost target 5ms sparse", NULL,
			  &p, err) == 0);
	CHECK_EQ(p.cfg.protect_by, CHOKE_PROTECT_BY_SRCHOST);
	CHECK_EQ(p.cfg.target_us, 5000);
	CHECK_EQ(p.cfg.sparse, 1);
	choke_params_words(&p, out, sizeof(out));
	CHECK(strstr(out, " protect 64 srchost target 5000us sparse") != NULL);
	choke_params_format(&p.cfg, out, sizeof(out));
	CHECK(strstr(out, "protect 64 srchost target 5000us sparse ") != NULL);
	REQUIRE(parse_str("limit 1000 bandwidth 4mbit protect dsthost", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.protect_by, CHOKE_PROTECT_BY_DSTHOST);
	REQUIRE(parse_str("limit 1000 bandwidth 4mbit hosts protect hosts", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.protect_by, CHOKE_PROTECT_BY_HOSTS);
	REQUIRE(parse_str("limit 1000 bandwidth 4mbit protect flows", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.protect_by, CHOKE_PROTECT_BY_FLOW);
	/* two identities, or one without protect */
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit protect srchost dsthost", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "alternatives") != NULL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit srchost", NULL, &p, err), CHOKE_EINVAL);
	CHECK(strstr(err, "goes with protect") != NULL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit target 5ms", NULL, &p, err), CHOKE_EINVAL);
	CHECK(strstr(err, "goes with protect") != NULL);
	/* target: tc's time units, 1 us to 1 s */
	REQUIRE(parse_str("limit 1000 bandwidth 4mbit protect target 250", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.target_us, 250);
	REQUIRE(parse_str("limit 1000 bandwidth 4mbit protect target 1s", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.target_us, 1000000);
	REQUIRE(parse_str("limit 1000 bandwidth 4mbit protect target 2.5msec", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.target_us, 2500);
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit protect target 2s", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "1us to 1s") != NULL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit protect target 0", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit protect target fast", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit protect target", NULL, &p, err),
		 CHOKE_EINVAL);
	/* sparse: choke only, and not through --strict (tc's own words) */
	CHECK_EQ(parse_str("limit 1000 bandwidth 4mbit sparse", &strict, &p, err), CHOKE_EINVAL);
	{
		char *w[] = { "limit", "100", "bandwidth", "1mbit", "sparse" };

		CHECK_EQ(choke_params_parse(5, w, CHOKE_KIND_RED, NULL, &p, err, sizeof(err)),
			 CHOKE_EINVAL);
		CHECK(strstr(err, "choke only") != NULL);
	}
	/* thresholds as times: at 4 Mbit/s (500000 bytes/s) 10 ms is 5000
	 * bytes, 5 packets of 1000; 3 ms is 1.5, rounded up */
	REQUIRE(parse_str("limit 300 bandwidth 4mbit min 3ms max 10ms", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.qth_min, 2);
	CHECK_EQ(p.cfg.qth_max, 5);
	/* in byte mode, bytes */
	REQUIRE(parse_str("limit 300000 bandwidth 4mbit min 20ms max 60ms avpkt 1000 bytes", NULL,
			  &p, err) == 0);
	CHECK_EQ(p.cfg.qth_min, 10000);
	CHECK_EQ(p.cfg.qth_max, 30000);
	/* a time too short for one packet is one packet */
	REQUIRE(parse_str("limit 300 bandwidth 4mbit min 1us max 10ms", NULL, &p, err) == 0);
	CHECK_EQ(p.cfg.qth_min, 1);
	CHECK_EQ(parse_str("limit 300 bandwidth 4mbit min 0ms max 10ms", NULL, &p, err),
		 CHOKE_EINVAL);
	CHECK(strstr(err, "a time such as 5ms") != NULL);
	CHECK_EQ(parse_str("limit 300 bandwidth 4mbit min 3ms max 10ms", &strict, &p, err),
		 CHOKE_EINVAL);
}

/* ---- parse(words(p)) == p ---- */

static uint64_t rt_state = 0x9e3779b97f4a7c15ull;

static uint32_t rt_below(uint32_t n)
{
	rt_state ^= rt_state << 13;
	rt_state ^= rt_state >> 7;
	rt_state ^= rt_state << 17;
	return n ? (uint32_t)((rt_state >> 11) % n) : 0;
}

/* Random words a user might give for a kind (most of them valid). */
static void random_words(int kind, char *buf, size_t len)
{
	size_t n = 0;
	int bytes = kind != CHOKE_KIND_FIFO && rt_below(5) == 0;
	uint32_t limit = rt_below(4) ? 1 + rt_below(3000) : 1 + rt_below(CHOKE_MAX_LIMIT);
	uint32_t max, min;

#define W(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	buf[0] = 0;
	if (bytes)
		limit = 1500 + rt_below(2000000);
	if (kind == CHOKE_KIND_FIFO) {
		if (rt_below(4))
			W("limit %u ", limit);
		return;
	}
	W("limit %u ", limit);
	max = rt_below(3) ? rt_below(limit + 1) : 0; /* 0: the default */
	min = max && rt_below(3) ? rt_below(max) : 0;
	if (max)
		W("max %u ", max);
	if (min)
		W("min %u ", min);
	if (rt_below(3) == 0)
		W("burst %u ", 1 + rt_below(limit));
	if (bytes || rt_below(3) == 0) {
		static const char *const sfx[] = { "", "", "b", "k" };
		uint32_t s = rt_below(4);

		W("avpkt %u%s ", s == 3 ? 1 + rt_below(8) : 40 + rt_below(9000), sfx[s]);
	}
	switch (rt_below(7)) {
	case 0:
		W("bandwidth %ukbit ", 1 + rt_below(100000));
		break;
	case 1:
		W("bandwidth %umbit ", 1 + rt_below(100000));
		break;
	case 2:
		W("bandwidth %uBps ", 1 + rt_below(1u << 30));
		break;
	case 3:
		W("bandwidth %u.%ugbit ", rt_below(400), rt_below(1000));
		break;
	case 4:
		W("bandwidth %u ", 8 + rt_below(1u << 31));
		break;
	case 5:
		W("bandwidth %utbit ", 1 + rt_below(20)); /* beyond tc's 32 bits */
		break;
	default:
		W("bandwidth %umibit ", 1 + rt_below(5000));
	}
	if (rt_below(2))
		W("probability %.17g ", rt_below(3) ? (1 + rt_below(1000)) / 1000.0 :
					rt_below(2) ? 1.0 / (1 + rt_below(1000000)) :
						      rt_below(1u << 30) / 1073741824.0);
	if (rt_below(3) == 0)
		W("ecn ");
	if (rt_below(4) == 0)
		W("harddrop ");
	if (kind == CHOKE_KIND_RED) {
		if (rt_below(3) == 0)
			W("adaptive ");
		if (rt_below(3) == 0)
			W("nodrop ");
	} else {
		switch (rt_below(6)) {
		case 0:
			W("draws %u ", 2 + rt_below(15));
			break;
		case 1:
			W("adaptive ");
			break;
		case 2:
			W("geometric ");
			break;
		case 3:
			W("geometric %u ", 1 + rt_below(16));
			break;
		}
		if (rt_below(3) == 0) {
			W(rt_below(2) ? "protect " : "protect %u ", CHOKE_PROTECT_MIN << rt_below(6));
			if (rt_below(3) == 0)
				W("%s ", choke_protect_by_name((int)rt_below(CHOKE_PROTECT_BY_N)));
			if (rt_below(3) == 0)
				W(rt_below(2) ? "target %ums " : "target %uus ",
				  1 + rt_below(1000));
		}
		if (rt_below(4) == 0)
			W("sparse ");
	}
	/* RED beyond Linux's, for choke and red */
	if (rt_below(4) == 0)
		W("gentle ");
	if (rt_below(4) == 0)
		W("wait ");
	if (rt_below(4) == 0)
		W("ared ");
	if (bytes)
		W("bytes ");
#undef W
}

static int parse_line(char *line, int kind_first, int kind, struct choke_params *p,
		      char *err)
{
	char *argv[64];
	int argc = split_words(line, argv, 64);

	if (argc && !argv[argc - 1][0])
		argc--; /* the trailing space */
	if (kind_first) {
		if (argc < 1 || choke_kind_from_word(argv[0]) != kind)
			return snprintf(err, CHOKE_ERRBUF_SIZE, "no kind word"), CHOKE_EINVAL;
		return choke_params_parse(argc - 1, argv + 1, kind, NULL, p, err,
					  CHOKE_ERRBUF_SIZE);
	}
	return choke_params_parse(argc, argv, kind, NULL, p, err, CHOKE_ERRBUF_SIZE);
}

/*
 * Every kind, flag and variant: a configuration parsed from random words,
 * printed as words by choke_params_words and parsed again is the same,
 * byte for byte (struct choke_params whole: the kernel's view, what was
 * asked, the derived values and the warnings); and the words are a fixed
 * point.
 */
static void test_params_words_round_trip(void)
{
	enum { KINDS = 3, ECN = 3, HARDDROP, ARED, NODROP, DRAWS, VADAPT, GEOM, PROTECT,
	       BYTES, GENTLE, WAIT, XARED, NSEEN };
	static const char *const seen_name[NSEEN] = { "choke", "red", "fifo", "ecn",
		"harddrop", "red adaptive", "nodrop", "draws", "adaptive", "geometric",
		"protect", "bytes", "gentle", "wait", "ared" };
	uint32_t seen[NSEEN] = { 0 }, tries = 0, ok = 0, i;
	char words[1024], line[1024], again[1024], err[CHOKE_ERRBUF_SIZE];
	struct choke_params a, b;

	for (tries = 0; tries < (tl_quick ? 6000u : 60000u); tries++) {
		int kind = (int)rt_below(KINDS);

		random_words(kind, words, sizeof(words));
		snprintf(line, sizeof(line), "%s", words);
		if (parse_line(line, 0, kind, &a, err))
			continue;
		ok++;
		choke_params_words(&a, line, sizeof(line));
		snprintf(again, sizeof(again), "%s", line);
		if (parse_line(line, 1, kind, &b, err)) {
			tl_failures++;
			fprintf(stderr, "FAIL %s: [%s] -> [%s] refused: %s\n", tl_current, words,
				again, err);
			continue;
		}
		if (memcmp(&a, &b, sizeof(a))) {
			tl_failures++;
			fprintf(stderr, "FAIL %s: [%s] -> [%s] parses to another configuration\n",
				tl_current, words, again);
			continue;
		}
		choke_params_words(&b, line, sizeof(line));
		CHECK(!strcmp(line, again));
		seen[kind]++;
		seen[ECN] += !!(a.cfg.flags & CHOKE_FLAG_ECN);
		seen[HARDDROP] += !!(a.cfg.flags & CHOKE_FLAG_HARDDROP);
		seen[ARED] += !!(a.cfg.flags & CHOKE_FLAG_ADAPTATIVE);
		seen[NODROP] += !!(a.cfg.flags & CHOKE_FLAG_NODROP);
		seen[DRAWS] += a.cfg.variant == CHOKE_VAR_DRAWS;
		seen[VADAPT] += a.cfg.variant == CHOKE_VAR_ADAPTIVE;
		seen[GEOM] += a.cfg.variant == CHOKE_VAR_GEOMETRIC;
		seen[PROTECT] += a.cfg.protect != 0;
		seen[BYTES] += a.cfg.limit_bytes != 0;
		seen[GENTLE] += !!(a.cfg.red_ext & CHOKE_RED_GENTLE);
		seen[WAIT] += !!(a.cfg.red_ext & CHOKE_RED_WAIT);
		seen[XARED] += !!(a.cfg.red_ext & CHOKE_RED_ARED);
	}
	printf("     %u of %u random word lists accepted and given back:", ok, tries);
	for (i = 0; i < NSEEN; i++) {
		printf(" %s %u%s", seen_name[i], seen[i], i + 1 < NSEEN ? "," : "\n");
		CHECK(seen[i] >= (tl_quick ? 10u : 100u));
	}
	/* a percentage comes back as the absolute rate */
	{
		struct choke_parse_opts o = { 100, 0, 0 };
		char *w[] = { "limit", "100", "bandwidth", "10%" };

		REQUIRE(choke_params_parse(4, w, CHOKE_KIND_CHOKE, &o, &a, err, sizeof(err)) == 0);
		choke_params_words(&a, line, sizeof(line));
		CHECK(strstr(line, " bandwidth 1250000Bps ") != NULL);
		REQUIRE(parse_line(line, 1, CHOKE_KIND_CHOKE, &b, err) == 0);
		CHECK(!memcmp(&a, &b, sizeof(a)));
	}
	/* the shape, and a buffer too small */
	{
		char *w[] = { "limit", "1000", "bandwidth", "10mbit", "ecn" };
		char small[16];
		int len;

		REQUIRE(choke_params_parse(5, w, CHOKE_KIND_CHOKE, NULL, &a, err, sizeof(err)) == 0);
		len = choke_params_words(&a, line, sizeof(line));
		CHECK(!strcmp(line, "choke limit 1000 min 83 max 250 burst 138 avpkt 1000 "
				    "bandwidth 1250000Bps probability 0.02 ecn"));
		CHECK_EQ(len, strlen(line));
		CHECK_EQ(choke_params_words(&a, small, sizeof(small)), len);
		CHECK(!strcmp(small, "choke limit 100"));
		REQUIRE(choke_params_parse(0, NULL, CHOKE_KIND_FIFO, NULL, &a, err, sizeof(err)) == 0);
		choke_params_words(&a, line, sizeof(line));
		CHECK(!strcmp(line, "fifo limit 1000"));
	}
}

/* The one transmission time: exact, rounded up, saturated. */
static void test_params_tx_ns(void)
{
	CHECK_EQ(choke_tx_ns(1000, 10000000), 800000);      /* 10 Mbit/s */
	CHECK_EQ(choke_tx_ns(1500, 1000000000), 12000);     /* 1 Gbit/s */
	CHECK_EQ(choke_tx_ns(1, 3), 2666666667ull);         /* 8/3 s, up */
	CHECK_EQ(choke_tx_ns(125, 1000000000000ull), 1);    /* 1 ns */
	CHECK_EQ(choke_tx_ns(1, 10000000000000ull), 1);     /* 0.8 ns: 1 */
	CHECK_EQ(choke_tx_ns(0, 8), 0);
	CHECK_EQ(choke_tx_ns(1000, 0), 0);
	CHECK_EQ(choke_tx_ns(UINT32_MAX, 8), 4294967295000000000ull);
	CHECK_EQ(choke_tx_ns(UINT32_MAX, 1), UINT64_MAX);   /* does not fit */
	CHECK_EQ(choke_tx_ns(UINT32_MAX, UINT64_MAX), 2);
}

/* The message is cut to the caller's buffer, never beyond it. */
static void test_params_errlen(void)
{
	char err[12];
	char *w[] = { "limit", "100", "bandwidth", "10mbit", "frobnicate" };
	struct choke_params p;

	memset(err, 'x', sizeof(err));
	CHECK_EQ(choke_params_parse(5, w, CHOKE_KIND_CHOKE, NULL, &p, err, 8), CHOKE_EINVAL);
	CHECK(!strcmp(err, "What is"));
	CHECK(err[8] == 'x');
	CHECK_EQ(choke_params_parse(5, w, CHOKE_KIND_CHOKE, NULL, &p, NULL, 0), CHOKE_EINVAL);
	CHECK_EQ(choke_params_parse(4, w, CHOKE_KIND_CHOKE, NULL, &p, err, 0), 0);
}

const struct tl_test params_tests[] = {
	{ "params/tx-ns", test_params_tx_ns },
	{ "params/errlen", test_params_errlen },
	{ "params/variants", test_params_variants },
	{ "params/protect", test_params_protect },
	{ "params/protect-additions", test_params_protect_additions },
	{ "params/red-words", test_params_red_words },
	{ "params/words-round-trip", test_params_words_round_trip },
	{ "params/match-tc-vectors", test_params_match_tc_vectors },
	{ "params/harddrop-improvement", test_params_harddrop_improvement },
	{ "params/wide-bandwidth-improvement", test_params_wide_bandwidth_improvement },
	{ "params/percent-of-link", test_params_percent },
	{ "params/rate-parser", test_params_rate_parser },
	{ "params/fifo-and-red-words", test_params_fifo_and_red_words },
	{ "params/format-like-tc", test_params_format_like_tc },
	{ NULL, NULL },
};
