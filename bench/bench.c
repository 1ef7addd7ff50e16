// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * `choke-bench [--json] [--quick] ...`: nanoseconds per packet of
 * enqueue + dequeue through the core's ring at a standing queue, for
 *
 *   fifo      the core, CHOKE_KIND_FIFO (the bare ring: no AQM)
 *   red       the core, CHOKE_KIND_RED
 *   choke     the core, CHOKE_KIND_CHOKE
 *   dpdk_red  DPDK's header-inline rte_red_enqueue() deciding, the core's
 *             FIFO ring storing what it admits
 *   choke_protect  the core, CHOKe with `protect` (docs/variants.md), with
 *             its ratio to choke measured in the same run
 *   fifo_burst, red_burst, choke_burst, dpdk_red_burst  the same through
 *             the burst path (choke_enqueue_burst, choke_dequeue_burst), 32
 *             arrivals a call
 *   choke_batch  the opt-in batched CHOKe (choke_enqueue_burst_batched,
 *             docs/variants.md) on the same burst path
 *
 * at standing queues of 100, 1000 and 10000 packets with one heavy flow
 * among 1, 100 and 100000 flows. Method, parameters and today's figures:
 * docs/performance.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "choke/core.h"
#include "choke/params.h"
#include "bench.h"

#ifdef HAVE_DPDK
#include <rte_red.h>
#endif

#define BENCH_BURST 32u     /* packets per clock reading */
#define BENCH_MAX_RUNS 64
#define BENCH_PROBABILITY "0.1"
#define BENCH_MAXP_INV 10   /* 1 / probability, for rte_red */
#define BENCH_TARGET_RATIO 1.5
#define BENCH_TARGET_NS 20.0 /* 50 Mpps */
#define BENCH_TARGET_QUEUE 1000u
#define BENCH_PROTECT_RATIO 1.3
#define BENCH_BURST_GOAL_RATIO 1.0 /* issue #16: the goal; 1.5x the bar */
#define BENCH_BURST_TARGET_NS 10.0 /* 100 Mpps */
/* issue #24: choke_burst against rte_red on the same burst floor */
#define BENCH_BURST_PEER_RATIO 1.25
#define BENCH_BURST_PEER_GOAL 1.0

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

enum { D_FIFO, D_RED, D_CHOKE, D_DPDK, D_DRAWS, D_ADAPT, D_GEOM, D_BYTES, D_PROTECT,
       D_FIFO_BURST, D_RED_BURST, D_CHOKE_BURST, D_DPDK_BURST, D_CHOKE_BATCH, NDISC };
#define D_BASE_MASK ((1u << D_DRAWS) - 1)   /* the default rows: these */
#define D_BURST_MASK ((1u << D_FIFO_BURST) | (1u << D_RED_BURST) | (1u << D_CHOKE_BURST) | \
		      (1u << D_DPDK_BURST) | (1u << D_CHOKE_BATCH))
/* and protect, and the burst path */
#define D_DEFAULT_MASK (D_BASE_MASK | (1u << D_PROTECT) | D_BURST_MASK)
#define D_VARIANT_MASK (((1u << NDISC) - 1) & ~D_BASE_MASK & ~D_BURST_MASK)
static const char *const disc_name[NDISC] = { "fifo", "red", "choke",
	"dpdk_red", "choke_draws4", "choke_adaptive", "choke_geometric8",
	"choke_bytes", "choke_protect", "fifo_burst", "red_burst", "choke_burst",
	"dpdk_red_burst", "choke_batch" };
static const uint8_t disc_kind[NDISC] = { CHOKE_KIND_FIFO, CHOKE_KIND_RED,
	CHOKE_KIND_CHOKE, CHOKE_KIND_FIFO, CHOKE_KIND_CHOKE, CHOKE_KIND_CHOKE,
	CHOKE_KIND_CHOKE, CHOKE_KIND_CHOKE, CHOKE_KIND_CHOKE, CHOKE_KIND_FIFO,
	CHOKE_KIND_RED, CHOKE_KIND_CHOKE, CHOKE_KIND_FIFO, CHOKE_KIND_CHOKE };
/* words added to choke's for the variant rows (docs/variants.md) */
static const char *const disc_extra[NDISC] = { "", "", "", "", " draws 4",
	" adaptive", " geometric 8", "", " protect", "", "", "", "", "" };
/* the rows of the burst path (choke_enqueue_burst, choke_dequeue_burst) */
static int disc_burst(int d)
{
	return (D_BURST_MASK >> d) & 1;
}

/* the rows that need DPDK */
static int disc_dpdk(int d)
{
	return d == D_DPDK || d == D_DPDK_BURST;
}
/* byte mode: the same thresholds in bytes, at the mean length of the
 * workload, (64 + 1500) / 2 */
#define BENCH_MEAN_LEN 782u

static const uint32_t default_queues[] = { 100, 1000, 10000 };
static const uint32_t default_flows[] = { 1, 100, 100000 };
#define NQUEUES (sizeof(default_queues) / sizeof(default_queues[0]))
#define NFLOWS (sizeof(default_flows) / sizeof(default_flows[0]))

#ifdef HAVE_DPDK
static const int have_dpdk = 1;
#else
static const int have_dpdk = 0;
#endif

struct bench_opts {
	int json;
	int quick;
	unsigned only;     /* bit mask of disciplines */
	uint32_t queue;    /* 0: all of default_queues */
	uint32_t flows;    /* 0: all of default_flows */
	int runs;
	uint64_t packets;  /* per timed run */
	uint64_t count;    /* --count N: a single run of exactly N packets */
	unsigned pattern_log2;
	uint64_t warmup;   /* packets before timing, per discipline */
	uint16_t dpdk_maxp_inv; /* rte_red maxp_inv; default 1/probability */
};

/* The offered packet sequence, generated before any timing and replayed
 * cyclically. The packet "pointer" handed to the core is &flow[i]: never
 * NULL, never dereferenced (no same_flow callback). */
struct pattern {
	void **pkt;     /* &flow[i], for the burst rows */
	uint32_t *flow;
	uint32_t *len;
	uint32_t mask;
	uint32_t nflows;
};

/* Everything that depends on the standing queue Q. */
struct qsetup {
	uint32_t Q;
	struct choke_params prm[NDISC];
	char words[NDISC][192]; /* tc words given to choke_params_parse */
	unsigned invalid;       /* variant rows the kernel's checks refuse here */
	/* rte_red: thresholds in units of 2^shift packets */
	unsigned shift;
	uint16_t min_th, max_th, wq_log2, maxp_inv;
};

struct inst {
	struct choke *q;
	void *ring;
	int disc;
	uint32_t pos;          /* position in the pattern */
	uint64_t qlen_sum, qlen_samples;
	uint64_t d_forced, d_early; /* rte_red verdicts 1 and 2 */
	struct choke_stats s0; /* stats at the start of timing */
#ifdef HAVE_DPDK
	struct rte_red_config rcfg;
	struct rte_red red;
#endif
};

struct result {
	int disc;
	uint32_t queue, flows;
	int measured;  /* 0: not selected; -1: not available (no DPDK) */
	double ns_med, ns_min;
	double ratio_fifo, ratio_dpdk, ratio_choke; /* < 0: no peer */
	double ratio_dpdk_burst; /* choke_burst against dpdk_red_burst */
	double match, early, forced, limit, protect; /* fractions of offered packets */
	double mean_qlen;
	uint64_t offered;
	int runs;
	uint64_t packets;
};

/* ------------------------------------------------------------------ */

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t xs_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* uniform on [0, n) */
static uint32_t xs_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((xs_next(s) >> 32) * (uint64_t)n) >> 32);
}

/* Flow value of flow id k: distinct for distinct k (odd multiplier). */
static uint32_t flow_value(uint32_t k)
{
	return (k + 1u) * 0x9E3779B1u;
}

/* Flow 0 is the heavy flow: half of the packets (all of them with one
 * flow); the others share the rest uniformly. Lengths uniform 64..1500. */
static int pattern_make(struct pattern *p, unsigned log2n, uint32_t nflows)
{
	uint32_t n = 1u << log2n, i;
	uint64_t s = 0x9E3779B97F4A7C15ull ^ nflows;

	p->flow = malloc(sizeof(*p->flow) * n);
	p->len = malloc(sizeof(*p->len) * n);
	p->pkt = malloc(sizeof(*p->pkt) * n);
	if (!p->flow || !p->len || !p->pkt) {
		free(p->flow);
		free(p->len);
		free(p->pkt);
		return -1;
	}
	p->mask = n - 1;
	p->nflows = nflows;
	for (i = 0; i < n; i++) {
		uint32_t k = 0;

		if (nflows > 1 && (xs_next(&s) >> 63))
			k = 1 + xs_below(&s, nflows - 1);
		p->flow[i] = flow_value(k);
		p->len[i] = 64 + xs_below(&s, 1500 - 64 + 1);
		p->pkt[i] = &p->flow[i];
	}
	return 0;
}

static void pattern_free(struct pattern *p)
{
	free(p->flow);
	free(p->len);
	free(p->pkt);
	p->flow = NULL;
	p->len = NULL;
	p->pkt = NULL;
}

/* ------------------------------------------------------------------ */
/* parameters                                                          */

static int parse_words(const char *words, int kind, struct choke_params *out)
{
	char buf[192], err[CHOKE_ERRBUF_SIZE];
	char *argv[32], *save = NULL, *w;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, " ", &save); w && argc < 32;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	if (choke_params_parse(argc, argv, kind, NULL, out, err, sizeof(err))) {
		fprintf(stderr, "choke-bench: %s: %s\n", words, err);
		return -1;
	}
	return 0;
}

/*
 * For a standing queue Q: min = Q/2, max = 2Q, limit = 4Q (never reached),
 * burst left to tc's default (2 min + max) / 3 = Q, from which tc derives
 * Wlog; probability 0.1. The average settles at Q, between the thresholds.
 * rte_red gets the same thresholds and weight in units of 2^shift packets,
 * the smallest unit that keeps max_th <= RTE_RED_MAX_TH_MAX (1023), and
 * wq_log2 = min(Wlog, RTE_RED_WQ_LOG2_MAX = 12).
 */
static int qsetup_make(struct qsetup *qs, uint32_t Q, uint16_t maxp_inv)
{
	uint32_t min = Q / 2 ? Q / 2 : 1, max = 2 * Q, limit = 4 * Q;
	int d;

	memset(qs, 0, sizeof(*qs));
	qs->Q = Q;
	if (max <= min)
		max = min + 1;
	if (limit < max)
		limit = max;
	for (d = 0; d < NDISC; d++) {
		if (disc_kind[d] == CHOKE_KIND_FIFO)
			snprintf(qs->words[d], sizeof(qs->words[d]),
				 "limit %u", limit);
		else if (d == D_BYTES)
			snprintf(qs->words[d], sizeof(qs->words[d]),
				 "limit %u min %u max %u avpkt %u bandwidth 10gbit "
				 "probability %s bytes", limit * BENCH_MEAN_LEN,
				 min * BENCH_MEAN_LEN, max * BENCH_MEAN_LEN,
				 BENCH_MEAN_LEN, BENCH_PROBABILITY);
		else
			snprintf(qs->words[d], sizeof(qs->words[d]),
				 "limit %u min %u max %u avpkt 1000 "
				 "bandwidth 10gbit probability %s%s",
				 limit, min, max, BENCH_PROBABILITY, disc_extra[d]);
		if (d >= D_DRAWS) {
			/* a variant row that this queue size cannot have (byte
			 * thresholds of a 10000-packet queue overflow with the
			 * Wlog tc derives) is left out, not an error */
			char err[CHOKE_ERRBUF_SIZE];
			char *argv[32], buf[192], *save = NULL, *w;
			int argc = 0;

			snprintf(buf, sizeof(buf), "%s", qs->words[d]);
			for (w = strtok_r(buf, " ", &save); w && argc < 32;
			     w = strtok_r(NULL, " ", &save))
				argv[argc++] = w;
			if (choke_params_parse(argc, argv, disc_kind[d], NULL, &qs->prm[d], err, sizeof(err)))
				qs->invalid |= 1u << d;
			continue;
		}
		if (parse_words(qs->words[d], disc_kind[d], &qs->prm[d]))
			return -1;
	}
	while ((max >> qs->shift) > 1023u)
		qs->shift++;
	qs->min_th = (uint16_t)(min >> qs->shift);
	qs->max_th = (uint16_t)(max >> qs->shift);
	qs->wq_log2 = qs->prm[D_CHOKE].cfg.Wlog;
	if (qs->wq_log2 > 12)
		qs->wq_log2 = 12;
	if (qs->wq_log2 < 1)
		qs->wq_log2 = 1;
	qs->maxp_inv = maxp_inv;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the timed loops                                                     */

/*
 * Per offered packet: one enqueue, then dequeue while qlen > Q. So an
 * admitted packet is followed by one dequeue and a dropped one by none;
 * a CHOKe match (two packets leave) is followed by none, and the next
 * admissions refill to Q. The clock is read once per burst of 32 packets
 * and that time is passed to every call in the burst.
 */
__attribute__((noinline)) static void run_core(struct inst *in,
					       const struct pattern *p,
					       uint64_t n, uint32_t Q)
{
	struct choke *q = in->q;
	struct choke_verdict v;
	uint32_t *flow = p->flow;
	const uint32_t *len = p->len;
	uint32_t i = in->pos, mask = p->mask;
	uint64_t qsum = 0, bursts = 0;

	while (n) {
		uint32_t m = n < BENCH_BURST ? (uint32_t)n : BENCH_BURST;
		uint64_t now = now_ns();

		n -= m;
		do {
			(void)!choke_enqueue(q, &flow[i], len[i], flow[i], 0,
					    now, &v);
			while (choke_qlen(q) > Q)
				(void)choke_dequeue(q, now, NULL);
			i = (i + 1) & mask;
		} while (--m);
		qsum += choke_qlen(q);
		bursts++;
	}
	in->pos = i;
	in->qlen_sum += qsum;
	in->qlen_samples += bursts;
}

/*
 * The burst path: per burst of 32 arrivals one clock reading, one
 * choke_enqueue_burst() for all of them, then choke_dequeue_burst() down
 * to Q. The queue therefore swings between Q and at most Q + 32 within a
 * burst instead of standing at Q arrival by arrival.
 */
static inline __attribute__((always_inline)) void
run_core_burst_(struct inst *in, const struct pattern *p, uint64_t n, uint32_t Q,
		const int batched)
{
	struct choke *q = in->q;
	struct choke_victim vic[BENCH_BURST];
	uint8_t out[BENCH_BURST];
	void *deq[BENCH_BURST];
	void *const *pkt = p->pkt;
	const uint32_t *flow = p->flow, *len = p->len;
	uint32_t i = in->pos, mask = p->mask, nv;
	uint64_t qsum = 0, bursts = 0;

	while (n) {
		uint32_t m = n < BENCH_BURST ? (uint32_t)n : BENCH_BURST;
		uint64_t now = now_ns();

		if (m > mask + 1 - i)
			m = mask + 1 - i; /* the pattern's end */
		n -= m;
		if (batched)
			(void)!choke_enqueue_burst_batched(q, &pkt[i], &len[i], &flow[i], NULL,
							  m, now, out, vic, BENCH_BURST, &nv);
		else
			(void)!choke_enqueue_burst(q, &pkt[i], &len[i], &flow[i], NULL, m, now,
						  out, vic, BENCH_BURST, &nv);
		i = (i + m) & mask;
		while (choke_qlen(q) > Q) {
			uint32_t k = choke_qlen(q) - Q;

			(void)choke_dequeue_burst(q, now, deq, NULL,
						  k < BENCH_BURST ? k : BENCH_BURST);
		}
		qsum += choke_qlen(q);
		bursts++;
	}
	in->pos = i;
	in->qlen_sum += qsum;
	in->qlen_samples += bursts;
}

/* one copy of the loop for each enqueue function, each timed alone */
__attribute__((noinline)) static void run_core_burst(struct inst *in, const struct pattern *p,
						     uint64_t n, uint32_t Q)
{
	run_core_burst_(in, p, n, Q, 0);
}

__attribute__((noinline)) static void run_core_batch(struct inst *in, const struct pattern *p,
						     uint64_t n, uint32_t Q)
{
	run_core_burst_(in, p, n, Q, 1);
}

#ifdef HAVE_DPDK
/* The same loop with rte_red deciding; qlen goes to rte_red in units of
 * 2^shift packets. The queue never empties (Q >= 1 stays queued), so
 * rte_red_mark_queue_empty() is not needed after the warm-up. */
__attribute__((noinline)) static void run_dpdk(struct inst *in,
					       const struct pattern *p,
					       uint64_t n, uint32_t Q,
					       unsigned shift)
{
	struct choke *q = in->q;
	struct choke_verdict v;
	uint32_t *flow = p->flow;
	const uint32_t *len = p->len;
	uint32_t i = in->pos, mask = p->mask;
	uint64_t qsum = 0, bursts = 0, forced = 0, early = 0;

	while (n) {
		uint32_t m = n < BENCH_BURST ? (uint32_t)n : BENCH_BURST;
		uint64_t now = now_ns();

		n -= m;
		do {
			int r = rte_red_enqueue(&in->rcfg, &in->red,
						choke_qlen(q) >> shift, now);

			if (likely(r == 0))
				(void)!choke_enqueue(q, &flow[i], len[i],
						    flow[i], 0, now, &v);
			else if (r == 1)
				forced++;
			else
				early++;
			while (choke_qlen(q) > Q)
				(void)choke_dequeue(q, now, NULL);
			i = (i + 1) & mask;
		} while (--m);
		qsum += choke_qlen(q);
		bursts++;
	}
	in->pos = i;
	in->qlen_sum += qsum;
	in->qlen_samples += bursts;
	in->d_forced += forced;
	in->d_early += early;
}

/*
 * rte_red on the burst path's FIFO: per burst of 32 arrivals one clock
 * reading, rte_red deciding each arrival (with the queue length it would
 * see, the admitted ones of the burst counted), one choke_enqueue_burst()
 * for those it admits, then choke_dequeue_burst() down to Q: what
 * rte_sched-style code does, on the same floor as the *_burst rows.
 */
__attribute__((noinline)) static void run_dpdk_burst(struct inst *in,
						     const struct pattern *p,
						     uint64_t n, uint32_t Q,
						     unsigned shift)
{
	struct choke *q = in->q;
	struct choke_victim vic[1];
	uint8_t out[BENCH_BURST];
	void *deq[BENCH_BURST], *apkt[BENCH_BURST];
	uint32_t alen[BENCH_BURST], aflow[BENCH_BURST];
	uint32_t *flow = p->flow;
	const uint32_t *len = p->len;
	uint32_t i = in->pos, mask = p->mask, nv;
	uint64_t qsum = 0, bursts = 0, forced = 0, early = 0;

	while (n) {
		uint32_t m = n < BENCH_BURST ? (uint32_t)n : BENCH_BURST;
		uint32_t qlen = choke_qlen(q), a = 0;
		uint64_t now = now_ns();

		n -= m;
		do {
			int r = rte_red_enqueue(&in->rcfg, &in->red,
						(qlen + a) >> shift, now);

			if (likely(r == 0)) {
				apkt[a] = &flow[i];
				alen[a] = len[i];
				aflow[a] = flow[i];
				a++;
			} else if (r == 1) {
				forced++;
			} else {
				early++;
			}
			i = (i + 1) & mask;
		} while (--m);
		(void)!choke_enqueue_burst(q, apkt, alen, aflow, NULL, a, now, out,
					  vic, 0, &nv);
		while (choke_qlen(q) > Q) {
			uint32_t k = choke_qlen(q) - Q;

			(void)choke_dequeue_burst(q, now, deq, NULL,
						  k < BENCH_BURST ? k : BENCH_BURST);
		}
		qsum += choke_qlen(q);
		bursts++;
	}
	in->pos = i;
	in->qlen_sum += qsum;
	in->qlen_samples += bursts;
	in->d_forced += forced;
	in->d_early += early;
}
#endif

static void run_one(struct inst *in, const struct pattern *p, uint64_t n,
		    const struct qsetup *qs)
{
#ifdef HAVE_DPDK
	if (in->disc == D_DPDK) {
		run_dpdk(in, p, n, qs->Q, qs->shift);
		return;
	}
	if (in->disc == D_DPDK_BURST) {
		run_dpdk_burst(in, p, n, qs->Q, qs->shift);
		return;
	}
#endif
	if (in->disc == D_CHOKE_BATCH)
		run_core_batch(in, p, n, qs->Q);
	else if (disc_burst(in->disc))
		run_core_burst(in, p, n, qs->Q);
	else
		run_core(in, p, n, qs->Q);
}

/* ------------------------------------------------------------------ */
/* one (queue, flows) configuration                                    */

static int inst_init(struct inst *in, int d, const struct qsetup *qs)
{
	const struct choke_config *c = &qs->prm[d].cfg;
	size_t rb = choke_ring_bytes(c->limit);

	memset(in, 0, sizeof(*in));
	in->disc = d;
	if (posix_memalign((void **)&in->q, 64, sizeof(*in->q)))
		in->q = NULL;
	if (posix_memalign(&in->ring, 64, rb))
		in->ring = NULL;
	if (!in->q || !in->ring || choke_init(in->q, c, in->ring, rb)) {
		fprintf(stderr, "choke-bench: cannot set up %s at queue %u\n",
			disc_name[d], qs->Q);
		return -1;
	}
	choke_seed(in->q, 1 + (uint64_t)d);
#ifdef HAVE_DPDK
	if (disc_dpdk(d)) {
		if (rte_red_config_init(&in->rcfg, qs->wq_log2, qs->min_th,
					qs->max_th, qs->maxp_inv) ||
		    rte_red_rt_data_init(&in->red)) {
			fprintf(stderr, "choke-bench: rte_red_config_init("
				"wq_log2 %u, min_th %u, max_th %u, maxp_inv %u) "
				"failed\n", qs->wq_log2, qs->min_th,
				qs->max_th, qs->maxp_inv);
			return -1;
		}
		/* rte_red's generator is a global; fix it for repeatability */
		rte_red_rand_seed = 12345;
		rte_red_rand_val = rte_fast_rand();
	}
#endif
	return 0;
}

static void inst_free(struct inst *in)
{
	free(in->q);
	free(in->ring);
	in->q = NULL;
	in->ring = NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (not modified); *min gets the smallest. */
static double median(const double *v, int n, double *min)
{
	double w[BENCH_MAX_RUNS];

	memcpy(w, v, sizeof(double) * (size_t)n);
	qsort(w, (size_t)n, sizeof(double), cmp_double);
	if (min)
		*min = w[0];
	return n & 1 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
}

static double ratio_median(const double *a, const double *b, int n)
{
	double r[BENCH_MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		r[i] = a[i] / b[i];
	return median(r, n, NULL);
}

static int measure(const struct bench_opts *o, const struct qsetup *qs,
		   const struct pattern *p, struct result res[NDISC])
{
	static double t[NDISC][BENCH_MAX_RUNS];
	struct inst in[NDISC];
	int d, r, k, err = 0;
	uint64_t n = o->count ? o->count : o->packets;
	int runs = o->count ? 1 : o->runs;

	memset(in, 0, sizeof(in));
	for (d = 0; d < NDISC; d++) {
		struct result *x = &res[d];

		memset(x, 0, sizeof(*x));
		x->disc = d;
		x->queue = qs->Q;
		x->flows = p->nflows;
		x->ratio_fifo = x->ratio_dpdk = x->ratio_choke = -1;
		x->ratio_dpdk_burst = -1;
		if (!(o->only & (1u << d)) || (qs->invalid & (1u << d)))
			continue;
		if (disc_dpdk(d) && !have_dpdk) {
			x->measured = -1;
			continue;
		}
		x->measured = 1;
		x->runs = runs;
		x->packets = n;
		if (inst_init(&in[d], d, qs))
			err = -1;
	}
	if (err)
		goto out;

	/* Warm-up: fill to Q and let the average settle (>= 16 EWMA time
	 * constants), independent of the timed packet count. */
	for (d = 0; d < NDISC; d++) {
		if (res[d].measured != 1)
			continue;
		run_one(&in[d], p, o->warmup, qs);
		in[d].s0 = *choke_get_stats(in[d].q);
		in[d].qlen_sum = in[d].qlen_samples = 0;
		in[d].d_forced = in[d].d_early = 0;
	}

	/* Interleave the disciplines, rotating who goes first. */
	for (r = 0; r < runs; r++) {
		for (k = 0; k < NDISC; k++) {
			uint64_t t0, t1;

			d = (k + r) % NDISC;
			if (res[d].measured != 1)
				continue;
			t0 = now_ns();
			run_one(&in[d], p, n, qs);
			t1 = now_ns();
			t[d][r] = (double)(t1 - t0) / (double)n;
		}
	}

	for (d = 0; d < NDISC; d++) {
		struct result *x = &res[d];
		const struct choke_stats *s;
		double off;

		if (x->measured != 1)
			continue;
		x->ns_med = median(t[d], runs, &x->ns_min);
		x->offered = (uint64_t)runs * n;
		off = (double)x->offered;
		s = choke_get_stats(in[d].q);
		x->match = (double)(s->matched - in[d].s0.matched) / off;
		x->early = (double)(s->prob_drop - in[d].s0.prob_drop +
				    s->prob_mark - in[d].s0.prob_mark) / off;
		x->forced = (double)(s->forced_drop - in[d].s0.forced_drop +
				     s->forced_mark - in[d].s0.forced_mark) /
			    off;
		x->limit = (double)(s->pdrop - in[d].s0.pdrop) / off;
		x->protect = (double)(s->protect_drop - in[d].s0.protect_drop) / off;
		if (disc_dpdk(d)) {
			x->early = (double)in[d].d_early / off;
			x->forced = (double)in[d].d_forced / off;
		}
		x->mean_qlen = in[d].qlen_samples ?
			       (double)in[d].qlen_sum /
				       (double)in[d].qlen_samples : 0;
		if (choke_check_invariants(in[d].q)) {
			fprintf(stderr, "choke-bench: %s: invariant broken: "
				"%s\n", disc_name[d],
				choke_invariant_name(
					choke_check_invariants(in[d].q)));
			err = -1;
		}
	}
	/* Ratios: the median over repetitions of the ratio within one
	 * repetition, whose runs are neighbours in time; on a shared host
	 * that is steadier than the ratio of the medians. */
	for (d = 0; d < NDISC; d++) {
		if (res[d].measured != 1)
			continue;
		if (res[D_FIFO].measured == 1)
			res[d].ratio_fifo = ratio_median(t[d], t[D_FIFO], runs);
		if (res[D_DPDK].measured == 1)
			res[d].ratio_dpdk = ratio_median(t[d], t[D_DPDK], runs);
		if (res[D_CHOKE].measured == 1)
			res[d].ratio_choke = ratio_median(t[d], t[D_CHOKE], runs);
		if ((d == D_CHOKE_BURST || d == D_CHOKE_BATCH) && res[D_DPDK_BURST].measured == 1)
			res[d].ratio_dpdk_burst = ratio_median(t[d], t[D_DPDK_BURST], runs);
	}
out:
	for (d = 0; d < NDISC; d++)
		inst_free(&in[d]);
	return err;
}

/* ------------------------------------------------------------------ */
/* output                                                              */

static void print_setup(const struct qsetup *qs)
{
	char buf[256];

	choke_params_format(&qs->prm[D_CHOKE].cfg, buf, sizeof(buf));
	printf("queue %u: red/choke: tc qdisc add dev DEV root choke %s\n",
	       qs->Q, qs->words[D_CHOKE]);
	printf("           (kernel view: %s; burst %u)\n", buf,
	       qs->prm[D_CHOKE].burst);
	printf("           fifo: %s; dpdk_red: rte_red_config_init(wq_log2 %u, "
	       "min_th %u, max_th %u, maxp_inv %u), qlen passed in units of "
	       "%u packet%s\n",
	       qs->words[D_FIFO], qs->wq_log2, qs->min_th, qs->max_th,
	       qs->maxp_inv, 1u << qs->shift, qs->shift ? "s" : "");
}

/* x_choke: the variants, protect and the burst path's CHOKe against
 * single-packet CHOKe */
static int show_ratio_choke(int d)
{
	return d >= D_DRAWS && d != D_FIFO_BURST && d != D_RED_BURST && d != D_DPDK_BURST;
}

static void print_ratio(double r)
{
	if (r < 0)
		printf(" %7s", "-");
	else
		printf(" %7.2f", r);
}

static void print_header(void)
{
	printf("%-16s %6s %7s %8s %8s %7s %7s %7s %7s %7s %7s %7s %8s %8s\n",
	       "disc", "queue", "flows", "ns/pkt", "Mpps", "x_fifo", "x_dpdk",
	       "x_choke", "match%", "early%", "forced%", "limit%", "protect%",
	       "qlen");
}

static void print_row(const struct result *x)
{
	if (x->measured == 0)
		return;
	printf("%-16s %6u %7u", disc_name[x->disc], x->queue, x->flows);
	if (x->measured < 0) {
		printf(" %8s   (not available: built without DPDK)\n", "n/a");
		return;
	}
	printf(" %8.2f %8.1f", x->ns_med, 1000.0 / x->ns_med);
	print_ratio(x->ratio_fifo);
	print_ratio(x->ratio_dpdk);
	print_ratio(show_ratio_choke(x->disc) ? x->ratio_choke : -1);
	printf(" %7.2f %7.2f %7.2f %7.2f %8.2f %8.1f\n", 100 * x->match,
	       100 * x->early, 100 * x->forced, 100 * x->limit,
	       100 * x->protect, x->mean_qlen);
}

static void json_num(const char *key, double v, int ok, int last)
{
	if (ok)
		printf("\"%s\": %.4f%s", key, v, last ? "" : ", ");
	else
		printf("\"%s\": null%s", key, last ? "" : ", ");
}

static void print_json(const struct result *res, size_t n)
{
	size_t i;
	int first = 1;

	printf("[\n");
	for (i = 0; i < n; i++) {
		const struct result *x = &res[i];
		int ok = x->measured == 1;

		if (!x->measured)
			continue;
		printf("%s  {\"discipline\": \"%s\", \"queue\": %u, "
		       "\"flows\": %u, \"available\": %s, ",
		       first ? "" : ",\n", disc_name[x->disc], x->queue,
		       x->flows, ok ? "true" : "false");
		first = 0;
		json_num("ns_per_pkt", x->ns_med, ok, 0);
		json_num("ns_per_pkt_min", x->ns_min, ok, 0);
		json_num("mpps", ok ? 1000.0 / x->ns_med : 0, ok, 0);
		json_num("ratio_to_fifo", x->ratio_fifo, ok && x->ratio_fifo >= 0, 0);
		json_num("ratio_to_dpdk", x->ratio_dpdk, ok && x->ratio_dpdk >= 0, 0);
		if (show_ratio_choke(x->disc))
			json_num("ratio_to_choke", x->ratio_choke,
				 ok && x->ratio_choke >= 0, 0);
		json_num("match_frac", x->match, ok, 0);
		json_num("early_drop_frac", x->early, ok, 0);
		json_num("forced_drop_frac", x->forced, ok, 0);
		json_num("limit_drop_frac", x->limit, ok, 0);
		if (x->disc == D_PROTECT)
			json_num("protect_drop_frac", x->protect, ok, 0);
		if (x->disc == D_CHOKE_BURST || x->disc == D_CHOKE_BATCH)
			json_num("ratio_to_dpdk_red_burst", x->ratio_dpdk_burst,
				 ok && x->ratio_dpdk_burst >= 0, 0);
		json_num("mean_qlen", x->mean_qlen, ok, 0);
		printf("\"runs\": %d, \"packets_per_run\": %" PRIu64 "}",
		       x->runs, x->packets);
	}
	printf("\n]\n");
}

/* A row of discipline disc measured at the targets' queue. */
static int target_row(const struct result *x, int disc)
{
	return (int)x->disc == disc && x->queue == BENCH_TARGET_QUEUE && x->measured == 1;
}

/*
 * The burst path against its like-for-like peer (issue #24): choke_burst
 * at most 1.25x dpdk_red_burst at the 1000-packet queue over every flow
 * count measured, the goal 1.0x. Appended to the summary line.
 */
static void print_burst_peer(FILE *f, const struct result *res, size_t n, int disc)
{
	const struct result *x;
	char buf[256] = "";
	size_t bl = 0;
	int have_b = 0, have_r = 0, bar = 1, goal = 1;

	for (x = res; x < res + n; x++) {
		if (!target_row(x, disc))
			continue;
		have_b = 1;
		if (x->ratio_dpdk_burst < 0)
			continue;
		have_r = 1;
		if (x->ratio_dpdk_burst > BENCH_BURST_PEER_RATIO)
			bar = 0;
		if (x->ratio_dpdk_burst > BENCH_BURST_PEER_GOAL)
			goal = 0;
		bl += (size_t)snprintf(buf + bl, sizeof(buf) - bl, "%s%.2fx at %u flow%s",
				       bl ? ", " : "", x->ratio_dpdk_burst, x->flows,
				       x->flows == 1 ? "" : "s");
	}
	if (!have_b)
		return;
	if (have_r)
		fprintf(f, "; %s <= %.2fx dpdk_red_burst: %s, <= %.1fx (goal): %s (%s)",
			disc_name[disc], BENCH_BURST_PEER_RATIO, bar ? "MET" : "NOT MET",
			BENCH_BURST_PEER_GOAL, goal ? "MET" : "NOT MET", buf);
	else
		fprintf(f, "; %s <= %.2fx dpdk_red_burst: not evaluated (%s)",
			disc_name[disc], BENCH_BURST_PEER_RATIO,
#ifdef HAVE_DPDK
			"dpdk_red_burst not measured"
#else
			"built without DPDK"
#endif
		);
}

/* The targets at the 1000-packet queue, over every flow count. */
static void print_summary(FILE *f, const struct result *res, size_t n)
{
	int have_choke = 0, have_ratio = 0, ok_ratio = 1, ok_ns = 1;
	double fifo_ns = 0;
	char rbuf[256] = "", nbuf[256] = "";
	size_t i, rl = 0, nl = 0;

	for (i = 0; i < n; i++) {
		const struct result *x = &res[i];

		if (x->disc == D_FIFO && x->queue == BENCH_TARGET_QUEUE &&
		    x->measured == 1 && x->ns_med > fifo_ns)
			fifo_ns = x->ns_med; /* the largest over flow counts */
		if (x->disc != D_CHOKE || x->queue != BENCH_TARGET_QUEUE ||
		    x->measured != 1)
			continue;
		have_choke = 1;
		if (x->ns_med > BENCH_TARGET_NS)
			ok_ns = 0;
		nl += (size_t)snprintf(nbuf + nl, sizeof(nbuf) - nl,
				       "%s%.2f ns = %.0f Mpps at %u flow%s",
				       nl ? ", " : "", x->ns_med,
				       1000.0 / x->ns_med, x->flows,
				       x->flows == 1 ? "" : "s");
		if (x->ratio_dpdk >= 0) {
			have_ratio = 1;
			if (x->ratio_dpdk > BENCH_TARGET_RATIO)
				ok_ratio = 0;
			rl += (size_t)snprintf(rbuf + rl, sizeof(rbuf) - rl,
					       "%s%.2fx at %u flow%s",
					       rl ? ", " : "", x->ratio_dpdk,
					       x->flows,
					       x->flows == 1 ? "" : "s");
		}
	}
	if (!have_choke) {
		fprintf(f, "summary: choke at queue %u not measured: targets "
			"not evaluated", BENCH_TARGET_QUEUE);
		print_burst_peer(f, res, n, D_CHOKE_BURST);
		print_burst_peer(f, res, n, D_CHOKE_BATCH);
		fprintf(f, "\n");
		return;
	}
	if (have_ratio)
		fprintf(f, "summary (queue %u): choke <= %.1fx dpdk_red: %s "
			"(%s); ", BENCH_TARGET_QUEUE, BENCH_TARGET_RATIO,
			ok_ratio ? "MET" : "NOT MET", rbuf);
	else
		fprintf(f, "summary (queue %u): choke <= %.1fx dpdk_red: not "
			"evaluated (%s); ", BENCH_TARGET_QUEUE,
			BENCH_TARGET_RATIO,
			have_dpdk ? "dpdk_red not measured" :
				    "built without DPDK");
	fprintf(f, "choke >= 50 Mpps (<= %.0f ns/pkt): %s (%s)",
		BENCH_TARGET_NS, ok_ns ? "MET" : "NOT MET", nbuf);
	/* protect's goal: at most 1.3x plain CHOKe, same run (issue #11) */
	{
		char pbuf[256] = "";
		size_t pl = 0;
		int have_p = 0, ok_p = 1;

		for (i = 0; i < n; i++) {
			const struct result *x = &res[i];

			if (x->disc != D_PROTECT || x->queue != BENCH_TARGET_QUEUE ||
			    x->measured != 1 || x->ratio_choke < 0)
				continue;
			have_p = 1;
			if (x->ratio_choke > BENCH_PROTECT_RATIO)
				ok_p = 0;
			pl += (size_t)snprintf(pbuf + pl, sizeof(pbuf) - pl,
					       "%s%.2fx at %u flow%s", pl ? ", " : "",
					       x->ratio_choke, x->flows,
					       x->flows == 1 ? "" : "s");
		}
		if (have_p)
			fprintf(f, "; protect <= %.1fx choke: %s (%s)",
				BENCH_PROTECT_RATIO, ok_p ? "MET" : "NOT MET", pbuf);
	}
	/* the burst path (issue #16): choke_burst at most 1.0x dpdk_red (the
	 * goal; 1.5x the bar) and at least 100 Mpps */
	{
		char bbuf[512] = "";
		size_t bl = 0;
		int have_b = 0, goal = 1, bar = 1, mpps = 1;

		for (i = 0; i < n; i++) {
			const struct result *x = &res[i];

			if (!target_row(x, D_CHOKE_BURST))
				continue;
			have_b = 1;
			if (x->ns_med > BENCH_BURST_TARGET_NS)
				mpps = 0;
			if (x->ratio_dpdk < 0 || x->ratio_dpdk > BENCH_BURST_GOAL_RATIO)
				goal = 0;
			if (x->ratio_dpdk < 0 || x->ratio_dpdk > BENCH_TARGET_RATIO)
				bar = 0;
			if (x->ratio_dpdk >= 0)
				bl += (size_t)snprintf(bbuf + bl, sizeof(bbuf) - bl,
						       "%s%.2fx (%.2fx dpdk_red_burst), %.2f ns "
						       "at %u flow%s",
						       bl ? ", " : "", x->ratio_dpdk,
						       x->ratio_dpdk_burst, x->ns_med, x->flows,
						       x->flows == 1 ? "" : "s");
			else
				bl += (size_t)snprintf(bbuf + bl, sizeof(bbuf) - bl,
						       "%s%.2f ns at %u flow%s",
						       bl ? ", " : "", x->ns_med,
						       x->flows, x->flows == 1 ? "" : "s");
		}
		if (have_b)
			fprintf(f, "; choke_burst <= %.1fx dpdk_red: %s, <= %.1fx: %s, "
				">= 100 Mpps: %s (%s)", BENCH_BURST_GOAL_RATIO,
				goal ? "MET" : "NOT MET", BENCH_TARGET_RATIO,
				bar ? "MET" : "NOT MET", mpps ? "MET" : "NOT MET", bbuf);
	}
	print_burst_peer(f, res, n, D_CHOKE_BURST);
	print_burst_peer(f, res, n, D_CHOKE_BATCH);
	/* The floor shows the host's state: on a shared VM every row moves
	 * with it, and the ratios with them (docs/performance.md). */
	if (fifo_ns > 0)
		fprintf(f, "; fifo floor %.2f ns", fifo_ns);
	fprintf(f, "\n");
}

/* ------------------------------------------------------------------ */
/* command line                                                        */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: choke-bench [--json] [--quick] [--only DISC[,DISC...]]\n"
		"                   [--queue Q] [--flows F] [--runs R] "
		"[--packets N] [--count N]\n"
		"                   [--dpdk-maxp-inv N] [--variants]\n"
		"       choke-bench pkt [--json] [--quick]\n"
		"  DISC: fifo red choke dpdk_red choke_protect, the burst path's\n"
		"  fifo_burst red_burst choke_burst dpdk_red_burst choke_batch, and with\n"
		"  --variants also"
		" choke_draws4 choke_adaptive choke_geometric8 choke_bytes;\n"
		"  default: those ten, queues 100 1000 10000,\n"
		"  flows 1 100 100000, %d runs of %d packets (median), "
		"--quick: %d runs of %d.\n"
		"  --count N: one run of exactly N packets per selected "
		"configuration\n"
		"  (for instruction counts under valgrind; see "
		"docs/performance.md).\n"
		"  --dpdk-maxp-inv N: rte_red's maxp_inv (default %d, "
		"1/probability).\n",
		7, 8000000, 5, 200000, BENCH_MAXP_INV);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || !v)
		return -1;
	*out = v;
	return 0;
}

static int parse_only(const char *s, unsigned *mask)
{
	char buf[256], *save = NULL, *w;
	int d;

	*mask = 0;
	if (strlen(s) >= sizeof(buf))
		return -1; /* longer than every name once: not a list of them */
	snprintf(buf, sizeof(buf), "%s", s);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (d = 0; d < NDISC; d++)
			if (!strcmp(w, disc_name[d]))
				break;
		if (d == NDISC)
			return -1;
		*mask |= 1u << d;
	}
	return *mask ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	int i, runs_set = 0, packets_set = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->only = D_DEFAULT_MASK;
	o->dpdk_maxp_inv = BENCH_MAXP_INV;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--variants")) {
			o->only |= D_VARIANT_MASK;
		} else if (!strcmp(a, "--quick")) {
			o->quick = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--only")) {
			if (!val || parse_only(val, &o->only))
				goto bad;
			i++;
		} else if (!strcmp(a, "--queue") || !strcmp(a, "--flows") ||
			   !strcmp(a, "--runs") || !strcmp(a, "--packets") ||
			   !strcmp(a, "--count") ||
			   !strcmp(a, "--dpdk-maxp-inv")) {
			if (parse_u64(val, &v))
				goto bad;
			i++;
			if (!strcmp(a, "--queue")) {
				if (v > CHOKE_MAX_LIMIT / 4)
					goto bad;
				o->queue = (uint32_t)v;
			} else if (!strcmp(a, "--flows")) {
				if (v > 0xffffffffu)
					goto bad;
				o->flows = (uint32_t)v;
			} else if (!strcmp(a, "--runs")) {
				if (v > BENCH_MAX_RUNS)
					goto bad;
				o->runs = (int)v;
				runs_set = 1;
			} else if (!strcmp(a, "--packets")) {
				o->packets = v;
				packets_set = 1;
			} else if (!strcmp(a, "--count")) {
				o->count = v;
			} else {
				if (v > 255) /* RTE_RED_MAXP_INV_MAX */
					goto bad;
				o->dpdk_maxp_inv = (uint16_t)v;
			}
		} else {
			fprintf(stderr, "choke-bench: unknown argument '%s'\n",
				a);
			usage(stderr);
			return 2;
		}
	}
	if (!runs_set)
		o->runs = o->quick ? 5 : 7;
	if (!packets_set)
		o->packets = o->quick ? 200000 : 8000000;
	o->pattern_log2 = o->quick ? 16 : 20;
	o->warmup = o->quick ? 200000 : 1000000;
	return 0;
bad:
	fprintf(stderr, "choke-bench: bad or missing value for '%s'\n",
		argv[i]);
	usage(stderr);
	return 2;
}

int choke_bench_main(int argc, char **argv)
{
	struct bench_opts o;
	uint32_t queues[NQUEUES], flows[NFLOWS];
	size_t nq = 0, nf = 0, qi, fi, nres = 0, i;
	struct qsetup qs[NQUEUES];
	struct pattern pat[NFLOWS];
	struct result *res;
	int rc = parse_args(argc, argv, &o), err = 0;

	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.queue)
		queues[nq++] = o.queue;
	else
		for (i = 0; i < NQUEUES; i++)
			queues[nq++] = default_queues[i];
	if (o.flows)
		flows[nf++] = o.flows;
	else
		for (i = 0; i < NFLOWS; i++)
			flows[nf++] = default_flows[i];
	for (qi = 0; qi < nq; qi++)
		if (qsetup_make(&qs[qi], queues[qi], o.dpdk_maxp_inv))
			return 1;
	res = calloc(nq * nf * NDISC, sizeof(*res));
	if (!res)
		return 1;

	if (!o.json) {
		printf("choke-bench: ns per offered packet, enqueue + dequeue "
		       "to a standing queue; ");
		if (o.count)
			printf("one run of %" PRIu64 " packets\n", o.count);
		else
			printf("median of %d runs x %" PRIu64 " packets, "
			       "clock read once per %u packets\n",
			       o.runs, o.packets, BENCH_BURST);
		printf("one heavy flow (1/2 of the packets) among F flows; "
		       "lengths 64..1500; DPDK: %s\n",
		       have_dpdk ? "rte_red (librte_sched)" :
				   "not available (built without DPDK)");
		for (qi = 0; qi < nq; qi++)
			print_setup(&qs[qi]);
		printf("\n");
		print_header();
		fflush(stdout);
	}

	memset(pat, 0, sizeof(pat));
	for (fi = 0; fi < nf && !err; fi++)
		if (pattern_make(&pat[fi], o.pattern_log2, flows[fi]))
			err = 1;
	for (qi = 0; qi < nq && !err; qi++) {
		for (fi = 0; fi < nf && !err; fi++) {
			struct result *x = &res[nres];

			if (measure(&o, &qs[qi], &pat[fi], x)) {
				err = 1;
				break;
			}
			nres += NDISC;
			if (!o.json) {
				for (i = 0; i < NDISC; i++)
					print_row(&x[i]);
				fflush(stdout);
			}
		}
	}
	for (fi = 0; fi < nf; fi++)
		pattern_free(&pat[fi]);

	if (!err) {
		if (o.json) {
			print_json(res, nres);
			if (!o.count)
				print_summary(stderr, res, nres);
		} else if (!o.count) {
			printf("\n");
			print_summary(stdout, res, nres);
		}
	}
	free(res);
	return err;
}
