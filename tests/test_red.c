/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Statistical tests in the DPDK style: measured rates against the analytic
 * formulas of RED (mark spacing) and of tc's idle damping table.
 */
#include <inttypes.h>
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

/* ---- gentle, wait and ARED (CHOKE_RED_*) ---- */

/* red with min 100, max 300, limit 1000, probability 0.02, Wlog 9 */
static struct choke_config ext_cfg(uint8_t red_ext)
{
	struct choke_config c = tcfg(1000, 100, 300, 0);

	c.kind = CHOKE_KIND_RED;
	c.Wlog = 9;
	c.max_P = 85899345; /* 0.02 */
	c.red_ext = red_ext;
	return c;
}

/* Hold the queue, and so the average, at `hold` packets (queued without
 * decisions), then offer n packets at time `now` (each admitted one
 * leaves again); the fraction dropped early. */
static double held_drop_rate(struct thost *h, struct tpkt *pk, uint32_t hold, uint64_t n,
			     int *all_forced)
{
	uint64_t offered, dropped = 0, forced = 0;
	uint32_t i, sent = 0;

	h->q.kind = CHOKE_KIND_FIFO;
	for (i = 0; i < hold; i++)
		TL_DISCARD(choke_enqueue(&h->q, &pk[i], 1000, i, 0, 0, &h->v));
	h->q.kind = CHOKE_KIND_RED;
	h->q.qavg = (uint64_t)hold << h->q.Wlog;
	h->q.qcount = -1;
	for (offered = 0; offered < n; offered++) {
		int r = choke_enqueue(&h->q, &pk[(hold + sent) % 2000], 1000, 1, 0, 0, &h->v);

		if (r == CHOKE_DROP_EARLY) {
			dropped++;
		} else if (r == CHOKE_DROP_FORCED) {
			forced++;
		} else {
			choke_dequeue(&h->q, 0, NULL);
			sent++;
		}
		CHECK(h->q.qavg == (uint64_t)hold << h->q.Wlog);
	}
	*all_forced = forced == n;
	return (double)dropped / (double)n;
}

/* The mean number of arrivals from one mark to the next when a mark comes
 * at the first count c >= 1 with c * step >= base + u * range, u uniform
 * on [0, 1): numerically, over a fine grid of u. */
static double mean_gap(double step, double base, double range)
{
	double sum = 0;
	int i, n = 200000;

	for (i = 0; i < n; i++) {
		double need = (base + (i + 0.5) / n * range) / step;
		double c = ceil(need);

		sum += c < 1 ? 1 : c;
	}
	return sum / n;
}

/*
 * wait and gentle against their formulas, with the average held still:
 * between the thresholds wait makes the gap between marks uniform over
 * [R/e, 2R/e] (R the range of qR, e the excess) instead of [0, R/e]; in
 * gentle's region p_b = max_P + (1 - max_P)(avg - max)/max and a mark comes
 * at the first count with count * p_b >= u (with wait, >= 1 + u); at twice
 * max every packet is a forced drop again.
 */
static void test_red_gentle_and_wait_rates(void)
{
	static const struct {
		uint8_t ext;
		uint32_t hold;
	} cases[] = {
		{ CHOKE_RED_WAIT, 150 },
		{ CHOKE_RED_WAIT, 250 },
		{ CHOKE_RED_GENTLE, 350 },
		{ CHOKE_RED_GENTLE, 450 },
		{ CHOKE_RED_GENTLE | CHOKE_RED_WAIT, 450 },
		{ CHOKE_RED_GENTLE, 599 },
	};
	static struct tpkt pk[2000];
	uint64_t n = tl_quick ? 100000 : 400000;
	size_t t;
	uint32_t i;

	for (i = 0; i < 2000; i++) {
		pk[i].id = i;
		pk[i].key = i;
	}
	for (t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		struct choke_config c = ext_cfg(cases[t].ext);
		struct thost h;
		double got, gap, pb, R, plain;
		int all_forced;

		REQUIRE(thost_init(&h, &c) == 0);
		R = 4294967296.0 / h.q.max_P_div;
		got = held_drop_rate(&h, pk, cases[t].hold, n, &all_forced);
		if (cases[t].hold < 300) {
			double e = cases[t].hold - 100.0;

			gap = mean_gap(e, R, R);
			plain = 1.0 / mean_gap(e, 0, R);
		} else {
			pb = (85899345.0 + (4294967296.0 - 85899345.0) * (cases[t].hold - 300.0) /
						   300.0) / 4294967296.0;
			gap = mean_gap(pb, cases[t].ext & CHOKE_RED_WAIT ? 1.0 : 0.0, 1.0);
			plain = 0; /* Linux: every packet a forced drop */
		}
		printf("     %-12s avg %3u: drop rate %.5f, formula %.5f, Linux's RED %.5f\n",
		       cases[t].ext == CHOKE_RED_WAIT ? "wait" :
		       cases[t].ext == CHOKE_RED_GENTLE ? "gentle" : "gentle+wait",
		       cases[t].hold, got, 1.0 / gap, cases[t].hold < 300 ? plain : 1.0);
		CHECK(!all_forced);
		CHECK(fabs(got - 1.0 / gap) < 0.03 / gap);
		thost_free(&h);
	}
	/* at twice max gentle's region ends: forced drops only */
	{
		struct choke_config c = ext_cfg(CHOKE_RED_GENTLE);
		struct thost h;
		int all_forced;

		REQUIRE(thost_init(&h, &c) == 0);
		CHECK(held_drop_rate(&h, pk, 600, 1000, &all_forced) == 0);
		CHECK(all_forced);
		thost_free(&h);
	}
}

/*
 * ARED: with the average held above the target band (min + 0.6 (max -
 * min) = 220) max_P grows by min(1%, max_P / 4) at the end of every 500 ms
 * from the first arrival, stopping once above 50%; held below it (min + 0.4 (max - min) = 180) it
 * shrinks to 0.9 max_P per period, stopping below 1%; the divisor of the
 * draw follows, rounded to the closest (red_adaptative_algo()). The same
 * through a long idle period (the periods skipped in one go) and for tc
 * red's `adaptive` flag.
 */
static void test_red_ared_periods(void)
{
	static struct tpkt pk[2000];
	struct choke_config c = ext_cfg(CHOKE_RED_ARED);
	struct thost h;
	uint64_t t = 1000000, p = 85899345, grow = 0, shrink = 0;
	uint32_t i, sent = 0, hold = 260, k;
	int pass;

	for (i = 0; i < 2000; i++) {
		pk[i].id = i;
		pk[i].key = i;
	}
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) { /* tc red's adaptive flag: the same algorithm */
			c.red_ext = 0;
			c.flags = CHOKE_FLAG_ADAPTATIVE;
		}
		REQUIRE(thost_init(&h, &c) == 0);
		CHECK(choke_enqueue_needs_time(&h.q));
		h.q.kind = CHOKE_KIND_FIFO;
		for (i = 0; i < hold; i++)
			TL_DISCARD(choke_enqueue(&h.q, &pk[i], 1000, i, 0, 0, &h.v));
		h.q.kind = CHOKE_KIND_RED;
		t = 1000000;
		p = 85899345;
		sent = 0;
		/* 60 periods above the band, then 90 below */
		for (k = 0; k < 150 * 5; k++) {
			uint32_t want_hold = k < 60 * 5 ? 260 : 170;
			int r;

			h.q.qavg = (uint64_t)want_hold << h.q.Wlog;
			h.q.qlen = want_hold; /* the average's input (no decisions need more) */
			r = choke_enqueue(&h.q, &pk[(hold + sent) % 2000], 1000, 1, 0, t, &h.v);
			if (!choke_outcome_is_drop((enum choke_outcome)r)) {
				choke_dequeue(&h.q, t, NULL);
				sent++;
			}
			/* a period ended at 1 ms + 500 ms * j for j = 1 .. */
			if (k && k % 5 == 0) {
				if (want_hold == 260 && p <= CHOKE_ARED_MAX_P_MAX) {
					p += p / 4 < CHOKE_ARED_MAX_P_MIN ? p / 4 : CHOKE_ARED_MAX_P_MIN;
					grow++;
				} else if (want_hold == 170 && p >= CHOKE_ARED_MAX_P_MIN) {
					p = p / 10 * 9;
					shrink++;
				}
				CHECK_EQ(h.q.max_P, (uint32_t)p);
				CHECK_EQ(h.q.max_P_div, (uint32_t)((p + 100) / 200));
			}
			if (k == 60 * 5 - 1)
				CHECK(h.q.max_P > CHOKE_ARED_MAX_P_MAX);
			t += 100000000; /* 100 ms */
		}
		CHECK(p > CHOKE_ARED_MAX_P_MIN * 9 / 10 && p < CHOKE_ARED_MAX_P_MIN);
		thost_free(&h);
	}
	printf("     %" PRIu64 " periods grew max_P from 0.02 to above 0.5, %" PRIu64
	       " shrank it below 0.01\n", grow / 2, shrink / 2);
	CHECK(grow / 2 >= 20 && shrink / 2 >= 30);
	/* idle: an hour without packets after max_P grew to 0.5 brings it
	 * down to the floor, each period on the average decayed by then */
	REQUIRE(thost_init(&h, &c) == 0);
	h.q.max_P = 2147483650u;
	TL_DISCARD(choke_enqueue(&h.q, &pk[0], 1000, 1, 0, 1000, &h.v));
	choke_dequeue(&h.q, 2000, NULL);
	choke_dequeue(&h.q, 3000, NULL); /* the idle period starts */
	TL_DISCARD(choke_enqueue(&h.q, &pk[1], 1000, 1, 0, 3600ull * 1000000000, &h.v));
	CHECK(h.q.max_P < CHOKE_ARED_MAX_P_MIN && h.q.max_P >= CHOKE_ARED_MAX_P_MIN / 10 * 9);
	CHECK(h.q.ared_next_ns > 3600ull * 1000000000 &&
	      h.q.ared_next_ns <= 3600ull * 1000000000 + CHOKE_ARED_INTERVAL_NS);
	CHECK_EQ((h.q.ared_next_ns - 1000) % CHOKE_ARED_INTERVAL_NS, 0);
	thost_free(&h);
}

/*
 * choke_enqueue_unmarkable: an ECN-capable arrival the host could not mark
 * ends as the same arrival without ECN would have. Two cores in lockstep,
 * same configuration (ecn), same random numbers: one sees ECT packets and
 * takes back every mark, the other sees them not ECN-capable; outcomes,
 * queues, RED's state and every counter but the ring's housekeeping agree.
 */
static void test_red_unmarkable_is_the_drop(void)
{
	static struct tpkt pk[4096];
	static const uint8_t kinds[] = { CHOKE_KIND_CHOKE, CHOKE_KIND_RED, CHOKE_KIND_CHOKE };
	uint64_t undone = 0, forced = 0, early = 0, prot = 0;
	size_t t;
	uint32_t i;

	for (i = 0; i < 4096; i++) {
		pk[i].id = i;
		pk[i].key = i % 9;
	}
	for (t = 0; t < sizeof(kinds) / sizeof(kinds[0]); t++) {
		struct choke_config c = tcfg(200, 30, 120, CHOKE_FLAG_ECN);
		struct thost a, b;
		uint64_t now = 0, rs = 77 + t;
		uint32_t next = 0, n = tl_quick ? 20000 : 100000;

		c.kind = kinds[t];
		c.Wlog = 3;
		c.max_P = 0x10000000u;
		c.red_ext = t == 0 ? CHOKE_RED_GENTLE : 0;
		c.protect = t == 2 ? 16 : 0;
		REQUIRE(thost_init(&a, &c) == 0);
		REQUIRE(thost_init(&b, &c) == 0);
		for (i = 0; i < n; i++) {
			struct tpkt *p = &pk[next++ % 4096];
			int ra, rb;

			rs = rs * 6364136223846793005ull + 1442695040888963407ull;
			if ((rs >> 40) % 100 < 45) {
				void *da = choke_dequeue(&a.q, now, NULL), *db = choke_dequeue(&b.q, now, NULL);

				CHECK(da == db);
				now += 1000;
				continue;
			}
			ra = choke_enqueue(&a.q, p, 1000, p->key, CHOKE_PKT_ECN_CAPABLE, now, &a.v);
			if (ra == CHOKE_QUEUED_MARKED) {
				const struct choke_stats *s = choke_get_stats(&b.q);
				uint64_t f = s->forced_drop, e = s->prob_drop, pd = s->protect_drop;

				rb = choke_enqueue(&b.q, p, 1000, p->key, 0, now, &b.v);
				ra = s->forced_drop != f ? CHOKE_DROP_FORCED :
				     s->prob_drop != e ? CHOKE_DROP_EARLY :
				     s->protect_drop != pd ? CHOKE_DROP_PROTECT : -1;
				REQUIRE(ra >= 0);
				forced += ra == CHOKE_DROP_FORCED;
				early += ra == CHOKE_DROP_EARLY;
				prot += ra == CHOKE_DROP_PROTECT;
				REQUIRE(choke_enqueue_unmarkable(&a.q, p, (enum choke_outcome)ra) == 0);
				CHECK_EQ(choke_enqueue_unmarkable(&a.q, p, (enum choke_outcome)ra),
					 CHOKE_EINVAL); /* once */
				undone++;
			} else {
				rb = choke_enqueue(&b.q, p, 1000, p->key, 0, now, &b.v);
			}
			CHECK_EQ(ra, rb);
			CHECK_EQ(a.v.nvictims, b.v.nvictims);
			CHECK_EQ(choke_qlen(&a.q), choke_qlen(&b.q));
			CHECK_EQ(a.q.qavg, b.q.qavg);
			CHECK_EQ(a.q.qcount, b.q.qcount);
			CHECK_EQ(a.q.qR, b.q.qR);
			CHECK_EQ(a.rnd.draws, b.rnd.draws);
			now += 700;
		}
		a.q.stats.wrap_avoided = b.q.stats.wrap_avoided;
		a.q.stats.compactions = b.q.stats.compactions;
		CHECK(!memcmp(&a.q.stats, &b.q.stats, sizeof(a.q.stats)));
		CHECK_EQ(choke_check_invariants(&a.q), 0);
		thost_free(&a);
		thost_free(&b);
	}
	printf("     %" PRIu64 " marks taken back: %" PRIu64 " early, %" PRIu64 " forced, %" PRIu64
	       " protect\n", undone, early, forced, prot);
	CHECK(early > 100 && forced > 100 && prot > 10);
	/* refused: not the last admission; red with nodrop */
	{
		struct choke_config c = tcfg(10, 0, 0, CHOKE_FLAG_ECN);
		struct thost h;

		REQUIRE(thost_init(&h, &c) == 0);
		TL_DISCARD(choke_enqueue(&h.q, &pk[0], 1000, 0, CHOKE_PKT_ECN_CAPABLE, 0, &h.v));
		CHECK_EQ(choke_enqueue_unmarkable(&h.q, &pk[1], CHOKE_DROP_FORCED), CHOKE_EINVAL);
		CHECK_EQ(choke_enqueue_unmarkable(&h.q, &pk[0], CHOKE_DROP_MATCH), CHOKE_EINVAL);
		thost_free(&h);
		c.kind = CHOKE_KIND_RED;
		c.flags |= CHOKE_FLAG_NODROP;
		REQUIRE(thost_init(&h, &c) == 0);
		CHECK_EQ(choke_enqueue(&h.q, &pk[0], 1000, 0, CHOKE_PKT_ECN_CAPABLE, 0, &h.v),
			 CHOKE_QUEUED_MARKED);
		CHECK_EQ(choke_enqueue_unmarkable(&h.q, &pk[0], CHOKE_DROP_FORCED), CHOKE_EINVAL);
		thost_free(&h);
	}
}

const struct tl_test red_tests[] = {
	{ "red/gentle-and-wait-rates", test_red_gentle_and_wait_rates },
	{ "red/ared-periods", test_red_ared_periods },
	{ "red/unmarkable-is-the-drop", test_red_unmarkable_is_the_drop },
	{ "red/mark-rate-matches-formula", test_red_mark_rate_matches_formula },
	{ "red/idle-decay-matches-tc-design", test_idle_decay_matches_tc_design },
	{ NULL, NULL },
};
