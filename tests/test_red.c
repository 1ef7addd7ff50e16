/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Statistical tests in the DPDK style: measured rates against the analytic
 * formulas of RED (mark spacing) and of tc's idle damping table.
 */
#include <math.h>

#include "choke/params.h"
#include "corelib.h"
#include "testlib.h"

/*
 * With the average held at a constant excess e = (avg - min) packets, a mark
 * resets qcount and draws qR uniform on [0, R), R = 2^32 / k; the next mark
 * comes after G = max(1, ceil(qR / e)) packets. So the marking rate is
 * 1 / E[G], E[G] = sum over qR of max(1, ceil(qR/e)) / R, about R/(2e) + 1/2:
 * RED's "uniform spacing", twice the naive p_b for small p_b.
 */
static void test_red_mark_rate_matches_formula(void)
{
	static const uint32_t excess[] = { 10, 50, 150 };
	size_t t;

	for (t = 0; t < sizeof(excess) / sizeof(excess[0]); t++) {
		struct thost h;
		struct choke_config c = tcfg(1000, 100, 300, 0);
		struct tpkt pk[400];
		uint32_t hold = 100 + excess[t], i, sent = 0;
		uint64_t offered = 0, marked = 0, n = tl_quick ? 200000 : 1000000;
		double R, eg, expect, got;

		c.kind = CHOKE_KIND_RED;
		c.Wlog = 9;
		c.max_P = 85899345; /* 0.02 */
		REQUIRE(thost_init(&h, &c) == 0);
		for (i = 0; i < 400; i++) {
			pk[i].id = i;
			pk[i].key = i;
		}
		/* hold the queue at `hold` packets long enough for the
		 * average to settle exactly */
		h.q.kind = CHOKE_KIND_FIFO; /* fill without decisions */
		for (i = 0; i < hold; i++)
			TL_DISCARD(choke_enqueue(&h.q, &pk[i], 1000, i, 0, 0, &h.v));
		h.q.kind = CHOKE_KIND_RED;
		h.q.qavg = (uint64_t)hold << c.Wlog;
		h.q.qcount = -1;
		for (; offered < n; offered++) {
			int r = choke_enqueue(&h.q, &pk[(hold + sent) % 400], 1000, 1,
					      0, 0, &h.v);

			if (r == CHOKE_DROP_EARLY) {
				marked++;
			} else {
				choke_dequeue(&h.q, 0, NULL);
				sent++;
			}
			REQUIRE(h.q.qavg == (uint64_t)hold << c.Wlog);
		}
		R = 4294967296.0 / h.q.max_P_div;
		eg = R / (2.0 * excess[t]) + 0.5;
		expect = 1.0 / eg;
		got = (double)marked / (double)offered;
		printf("     excess %3u: mark rate %.5f, formula %.5f, naive p_b %.5f\n",
		       excess[t], got, expect, 0.02 * excess[t] / 200.0);
		CHECK(fabs(got - expect) < 0.03 * expect);
		thost_free(&h);
	}
}

/*
 * tc's idle table: lW = -ln(1 - W) / xmit is the natural-log decay per tick
 * of m = idle / xmit virtual packets, but the table stores floor(idle * lW)
 * as a binary shift, so the average after an idle time of m transmission
 * times is avg * 2^-floor(m * -ln(1 - W)) = about avg * (1 - W)^(m ln 2):
 * the decay of 0.69 m packets, not m (the linear branch covers shifts of
 * 0). Check that, within the factor of two the floor allows, in 64 ns ticks
 * (our default), and that the kernel's microseconds decay 15.625x slower.
 */
static void test_idle_decay_matches_tc_design(void)
{
	char *words[] = { "limit", "1000", "min", "100", "max", "300", "avpkt", "1000",
			  "burst", "200", "bandwidth", "10Mbit" };
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE];
	double W, xmit_ns = 800000.0; /* 1000 bytes at 10 Mbit/s */
	static const double m_values[] = { 100, 200, 400, 800, 1600 };
	double got = 0, got_us = 0;
	size_t i;

	REQUIRE(choke_params_parse(12, words, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err)) == 0);
	W = 1.0 / (1 << p.cfg.Wlog);
	for (i = 0; i < sizeof(m_values) / sizeof(m_values[0]); i++) {
		struct thost h;
		struct tpkt pk = { 0, 0 };
		uint64_t a0 = (uint64_t)250 << p.cfg.Wlog, idle;
		double expect;

		idle = (uint64_t)(m_values[i] * xmit_ns);
		REQUIRE(thost_init(&h, &p.cfg) == 0);
		h.q.qavg = a0;
		choke_dequeue(&h.q, 1000, NULL);
		TL_DISCARD(choke_enqueue(&h.q, &pk, 1000, 0, 0, 1000 + idle, &h.v));
		got = (double)h.q.qavg;
		thost_free(&h);

		p.cfg.idle_unit = CHOKE_IDLE_KERNEL_US;
		REQUIRE(thost_init(&h, &p.cfg) == 0);
		h.q.qavg = a0;
		choke_dequeue(&h.q, 1000, NULL);
		TL_DISCARD(choke_enqueue(&h.q, &pk, 1000, 0, 0, 1000 + idle, &h.v));
		got_us = (double)h.q.qavg;
		thost_free(&h);
		p.cfg.idle_unit = CHOKE_IDLE_TICKS64;

		expect = (double)a0 * pow(1 - W, m_values[i] * log(2.0));
		printf("     idle %5.0f xmit: avg %.4g (tc's design %.4g, (1-W)^m %.4g), "
		       "kernel-us mode %.4g\n", m_values[i], got / (1 << p.cfg.Wlog),
		       expect / (1 << p.cfg.Wlog),
		       a0 * pow(1 - W, m_values[i]) / (1 << p.cfg.Wlog),
		       got_us / (1 << p.cfg.Wlog));
		CHECK(got <= 2.0 * expect + 1 && got >= expect / 2.0 - 1);
		CHECK(got_us >= got);
	}
	/* 1600 xmit times: the microsecond clock has decayed as if only about
	 * 100 had passed */
	CHECK(got_us > 100 * got);
}

const struct tl_test red_tests[] = {
	{ "red/mark-rate-matches-formula", test_red_mark_rate_matches_formula },
	{ "red/idle-decay-matches-tc-design", test_idle_decay_matches_tc_design },
	{ NULL, NULL },
};
