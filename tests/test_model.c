/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Differential tests: the core and the reference model (refmodel.c) driven
 * by the same seeded random operation sequences, compared after every
 * operation (verdicts, victims, dequeued packets, queue contents in order,
 * RED state, every counter), with the core's invariants checked too.
 * And the wrap of mainline's admission rule, reproduced and avoided.
 */
#include "choke/params.h"
#include "corelib.h"
#include "refmodel.h"
#include "testlib.h"

/* ---- a small deterministic generator for the test itself ---- */

static uint64_t rs;
static uint32_t r32(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs >> 29);
}
static uint32_t rbelow(uint32_t n) { return n ? r32() % n : 0; }
static int chance(uint32_t per_million) { return rbelow(1000000) < per_million; }

static int key_same(const void *a, const void *b)
{
	return ((const struct tpkt *)a)->key == ((const struct tpkt *)b)->key;
}

/* ---- random valid configurations ---- */

static int fls32(uint32_t x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* model/red-ext-sequences: every choke and red set with gentle, wait or
 * ared (CHOKE_RED_*), and time running time_tick times faster so that
 * ARED's 500 ms periods end often */
static int red_ext_mode;
static uint64_t time_tick = 1;

static struct choke_config random_config(void)
{
	struct choke_config c;
	uint32_t k = rbelow(100);
	int i, maxw;

	memset(&c, 0, sizeof(c));
	c.kind = k < 70 ? CHOKE_KIND_CHOKE : k < 90 ? CHOKE_KIND_RED : CHOKE_KIND_FIFO;
	k = rbelow(100);
	c.limit = k < 10 ? 1 + rbelow(8) : k < 75 ? 10 + rbelow(300) : 300 + rbelow(1800);
	/* max above limit is refused (the average could never reach it) */
	c.qth_max = rbelow(c.limit + c.limit / 4 + 2);
	if (c.qth_max > c.limit)
		c.qth_max = c.limit;
	c.qth_min = rbelow(c.qth_max + 1);
	if (chance(50000))
		c.qth_min = c.qth_max;
	maxw = 31 - fls32(c.qth_max);
	c.Wlog = (uint8_t)rbelow((uint32_t)(maxw < 7 ? maxw + 1 : 7));
	if (chance(100000) && maxw > 0)
		c.Wlog = (uint8_t)rbelow((uint32_t)maxw + 1);
	c.Plog = (uint8_t)rbelow(33);
	c.max_P = chance(500000) ? 0 : chance(300000) ? rbelow(5000) : r32() | (r32() << 16);
	c.Scell_log = (uint8_t)rbelow(32);
	if (chance(500000)) {
		uint32_t div = 1 + rbelow(8);

		for (i = 1; i < 255; i++)
			c.stab[i] = (uint8_t)(i / div > 31 ? 31 : i / div);
		c.stab[255] = 31;
	} else {
		for (i = 0; i < 256; i++)
			c.stab[i] = (uint8_t)(chance(300000) ? 0 : rbelow(32));
	}
	/* the flags the kind takes (choke_config_check refuses the others) */
	c.flags = (uint8_t)(rbelow(16) & (c.kind == CHOKE_KIND_CHOKE ? CHOKE_FLAGS_CHOKE :
					  c.kind == CHOKE_KIND_RED ? CHOKE_FLAGS_RED : 0));
	c.idle_unit = (uint8_t)rbelow(2);
	/* the variants (docs/variants.md) on a third of the CHOKe sets */
	if (c.kind == CHOKE_KIND_CHOKE && chance(330000)) {
		c.variant = (uint8_t)(1 + rbelow(3));
		c.draws = (uint8_t)(c.variant == CHOKE_VAR_DRAWS ? 2 + rbelow(15) :
				    c.variant == CHOKE_VAR_GEOMETRIC ? 1 + rbelow(16) : 0);
	}
	/* byte mode on a fifth of the choke and red sets: thresholds and limit
	 * in bytes */
	if (chance(200000) && c.kind != CHOKE_KIND_FIFO) {
		uint32_t scale = 40 + rbelow(1500);

		c.avpkt = 40 + rbelow(1500);
		c.limit_bytes = (c.limit + 1) * scale;
		c.qth_max = (uint32_t)((uint64_t)c.qth_max * scale);
		c.qth_min = (uint32_t)((uint64_t)c.qth_min * scale);
		maxw = 31 - fls32(c.qth_max);
		if (c.Wlog > maxw)
			c.Wlog = (uint8_t)(maxw > 0 ? maxw : 0);
	}
	/* the light lane on some CHOKe sets */
	if (c.kind == CHOKE_KIND_CHOKE && chance(150000))
		c.sparse = 1;
	if (red_ext_mode && c.kind != CHOKE_KIND_FIFO)
		c.red_ext = (uint8_t)(1 + rbelow(CHOKE_RED_EXT_ALL));
	return c;
}

/* ---- the pair under test ---- */

#define POOL 8192

struct pair {
	struct thost h;  /* the core */
	struct refq m;   /* the model */
	struct trand rm; /* the model's copy of the random stream */
	struct tpkt pool[POOL];
	int in_use[POOL];
	uint32_t free_list[POOL], nfree;
	uint64_t now;
	uint64_t ops;
	int bad; /* first mismatch already reported */
};

static void pair_release(struct pair *p, void *pkt)
{
	struct tpkt *t = (struct tpkt *)pkt;

	p->in_use[t->id] = 0;
	p->free_list[p->nfree++] = t->id;
}

static struct tpkt *pair_alloc(struct pair *p, uint32_t key)
{
	uint32_t id;

	if (!p->nfree)
		return NULL;
	id = p->free_list[--p->nfree];
	p->in_use[id] = 1;
	p->pool[id].key = key;
	return &p->pool[id];
}

static void pair_init(struct pair *p, const struct choke_config *c, uint64_t seed)
{
	uint32_t i;
	struct choke_ops ops = { trand_next, tpkt_same, NULL };

	memset(&p->h, 0, sizeof(p->h));
	p->h.ring = malloc(choke_ring_bytes(c->limit));
	if (choke_init(&p->h.q, c, p->h.ring, choke_ring_bytes(c->limit))) {
		fprintf(stderr, "pair_init: config refused: %s (limit %u min %u max %u "
			"Wlog %u)\n", choke_config_reason_text(choke_config_validate(c)), c->limit, c->qth_min, c->qth_max, c->Wlog);
		abort();
	}
	trand_init(&p->h.rnd, seed);
	trand_init(&p->rm, seed);
	ops.ctx = &p->h.rnd;
	choke_set_ops(&p->h.q, &ops);
	ref_init(&p->m, c, REF_OURS, trand_next, &p->rm, key_same);
	p->nfree = 0;
	for (i = 0; i < POOL; i++) {
		p->pool[i].id = i;
		p->in_use[i] = 0;
		p->free_list[p->nfree++] = POOL - 1 - i;
	}
	p->now = 0;
	p->bad = 0;
}

static void pair_free(struct pair *p)
{
	thost_free(&p->h);
	ref_free(&p->m);
}

#define MISMATCH(p, what, a, b)                                                   \
	do {                                                                       \
		if (!(p)->bad) {                                                   \
			fprintf(stderr, "FAIL %s: op %" PRIu64 ": %s: core %" PRIu64 \
				" model %" PRIu64 "\n",                            \
				tl_current, (p)->ops, what, (uint64_t)(a),         \
				(uint64_t)(b));                                    \
			tl_failures++;                                             \
		}                                                                  \
		(p)->bad = 1;                                                      \
	} while (0)

#define SAME(p, what, a, b)                                                      \
	do {                                                                     \
		if ((uint64_t)(a) != (uint64_t)(b))                              \
			MISMATCH(p, what, a, b);                                 \
	} while (0)

static void compare_stats(struct pair *p, const struct choke_stats *a,
			  const struct choke_stats *b)
{
	SAME(p, "prob_drop", a->prob_drop, b->prob_drop);
	SAME(p, "prob_mark", a->prob_mark, b->prob_mark);
	SAME(p, "forced_drop", a->forced_drop, b->forced_drop);
	SAME(p, "forced_mark", a->forced_mark, b->forced_mark);
	SAME(p, "pdrop", a->pdrop, b->pdrop);
	SAME(p, "matched", a->matched, b->matched);
	SAME(p, "sent_bytes", a->sent_bytes, b->sent_bytes);
	SAME(p, "sent_pkts", a->sent_pkts, b->sent_pkts);
	SAME(p, "drops", a->drops, b->drops);
	SAME(p, "overlimits", a->overlimits, b->overlimits);
	SAME(p, "offered_pkts", a->offered_pkts, b->offered_pkts);
	SAME(p, "offered_bytes", a->offered_bytes, b->offered_bytes);
	SAME(p, "other_drop", a->other_drop, b->other_drop);
	SAME(p, "compactions", a->compactions, b->compactions);
	SAME(p, "wrap_avoided", a->wrap_avoided, b->wrap_avoided);
	SAME(p, "match_victims", a->match_victims, b->match_victims);
	SAME(p, "draws", a->draws, b->draws);
	SAME(p, "protect_drop", a->protect_drop, b->protect_drop);
	SAME(p, "protect_inserts", a->protect_inserts, b->protect_inserts);
	SAME(p, "lane_pkts", a->lane_pkts, b->lane_pkts);
}

/* protect's state, entry by entry */
static void compare_protect(struct pair *p)
{
	const struct choke_protect *a = &p->h.q.pr;
	const struct ref_protect *b = &p->m.pr;
	uint32_t i;

	SAME(p, "protect entries", p->h.q.protect, b->entries);
	if (!b->entries)
		return;
	SAME(p, "protect clock", a->clock, b->clock);
	SAME(p, "protect share", a->share, b->share);
	SAME(p, "protect boost", a->boost, b->boost);
	SAME(p, "protect step drops", a->drops, b->drops);
	SAME(p, "protect flows seen", a->flows, ref_protect_flows(&p->m));
	SAME(p, "protect sample gap", a->sample_left, b->sample_left);
	SAME(p, "protect idled", a->idled, b->idled);
	SAME(p, "protect busy", a->busy, b->busy);
	SAME(p, "protect dropped", a->dropped, b->dropped);
	SAME(p, "protect target", a->target_ns, b->target_ns);
	if (b->target_ns) {
		SAME(p, "target congested", a->congested, b->congested);
		SAME(p, "target delay", a->delay_ns, b->delay_ns);
		SAME(p, "target idle time", a->idle_ns, b->idle_ns);
		SAME(p, "target step start", a->step_ns, b->step_ns);
		SAME(p, "target rate bytes", a->wbytes, b->wbytes);
		SAME(p, "target rate time", a->wsvc_ns, b->wsvc_ns);
		SAME(p, "target room", a->room, b->room);
		SAME(p, "target spare run", a->spare, b->spare);
		SAME(p, "target drain", a->drain, b->drain);
		SAME(p, "target unresponsive part", a->unresp, b->unresp);
		SAME(p, "target sent at the interval's start", a->step_sent,
		     (uint32_t)b->step_sent);
		SAME(p, "target a packet waited", p->h.q.svc_held, b->svc_held);
		if (b->svc_held)
			SAME(p, "target last departure", p->h.q.svc_last, b->svc_last);
		SAME(p, "target probe open", a->probe != 0xffffffffu, b->probe >= 0);
		if (b->probe >= 0 && a->probe != 0xffffffffu) {
			SAME(p, "target probe slot", (a->probe - p->h.q.head) & p->h.q.mask,
			     b->probe);
			SAME(p, "target probe time", a->probe_ns, b->probe_ns);
		}
	}
	for (i = 0; i < b->entries && !p->bad; i++) {
		SAME(p, "protect entry rate", a->e[i].rate, b->e[i].rate);
		if (b->e[i].rate) {
			SAME(p, "protect entry flow", a->e[i].flow, b->e[i].flow);
			SAME(p, "protect entry stamp", a->e[i].stamp & ((1ull << 48) - 1),
			     b->e[i].stamp);
			SAME(p, "protect entry's step of entry", a->e[i].stamp >> 48, b->e[i].born);
		}
	}
}

static void compare_state(struct pair *p)
{
	const struct choke *q = &p->h.q;
	const struct refq *m = &p->m;
	uint32_t i, span = choke_span(q);
	int inv;

	SAME(p, "span", span, ref_span(m));
	SAME(p, "qlen", choke_qlen(q), m->qlen);
	SAME(p, "backlog", choke_backlog(q), m->backlog);
	SAME(p, "qavg", q->qavg, m->qavg);
	SAME(p, "qcount", (int64_t)q->qcount, m->qcount);
	SAME(p, "max_P", q->max_P, m->maxp);
	SAME(p, "max_P divisor", q->max_P_div, m->maxp_div);
	if (q->qcount >= 0)
		SAME(p, "qR", q->qR, m->qR);
	SAME(p, "idle", q->idle, m->idle);
	if (q->idle)
		SAME(p, "idle_start", q->idle_start_ns, m->idle_start);
	SAME(p, "random draws", p->h.rnd.draws, p->rm.draws);
	compare_stats(p, choke_get_stats(q), &m->st);
	compare_protect(p);
	SAME(p, "lane length", choke_lane_len(q), m->lane_len);
	SAME(p, "lane turn", q->lane_turn, m->lane_turn);
	for (i = 0; i < m->lane_len && i < choke_lane_len(q) && !p->bad; i++) {
		const struct choke_slot *a = &q->lane[(q->lane_head + i) % CHOKE_LANE_SLOTS];

		SAME(p, "lane pkt", (uintptr_t)a->pkt, (uintptr_t)m->lane[i].pkt);
		SAME(p, "lane len", a->len, m->lane[i].len);
		SAME(p, "lane flow", a->flow, m->lane[i].flow);
	}
	if (span == ref_span(m)) {
		for (i = 0; i < span && !p->bad; i++) {
			const struct choke_slot *a = choke_slot_at(q, i);
			const struct ref_slot *b = ref_slot_at(m, i);

			SAME(p, "slot pkt", (uintptr_t)a->pkt, (uintptr_t)b->pkt);
			if (a->pkt) {
				SAME(p, "slot len", a->len, b->len);
				SAME(p, "slot flow", a->flow, b->flow);
			}
		}
	}
	/* the full walk is O(ring): every op on small rings, else every 16th */
	if (q->mask < 1024 || p->ops % 16 == 0) {
		inv = choke_check_invariants(q);
		if (inv)
			MISMATCH(p, choke_invariant_name(inv), inv, 0);
	}
	if (span == 0 && choke_qlen(q) > choke_lane_len(q))
		MISMATCH(p, "ring reads empty while holding packets", choke_qlen(q), 0);
}

/* One operation on both. kind: 0 enqueue, 1 dequeue, 2 time, 3 change,
 * 4 reset, 5 peek. */
/* flow values from keys: 13 values (hash collisions every 13 keys), or
 * with flow_spread every key its own well spread value */
static int flow_spread;

/* hosts: with a protect identity other than flows, keys k and k + 1 .. k
 * + 3 (k a multiple of 4) are one host's flows */
static int by_hosts;

static void pair_enqueue(struct pair *p, uint32_t key, uint32_t len, int ect)
{
	struct tpkt *t = pair_alloc(p, key);
	struct choke_verdict vm;
	int a, b;
	uint32_t flow = flow_spread ? key * 2654435761u : key % 13u;
	uint32_t id = !by_hosts ? flow : flow_spread ? (key / 4) * 2246822519u : key / 4 % 7u;

	if (!t)
		return;
	a = choke_enqueue_as(&p->h.q, t, len, flow, id, ect ? CHOKE_PKT_ECN_CAPABLE : 0,
			     p->now, &p->h.v);
	b = ref_enqueue_as(&p->m, t, len, flow, id, ect, p->now, &vm);
	SAME(p, "enqueue outcome", a, b);
	SAME(p, "victims", p->h.v.nvictims, vm.nvictims);
	if (p->h.v.nvictims == vm.nvictims && vm.nvictims) {
		SAME(p, "victim", (uintptr_t)p->h.v.victim[0], (uintptr_t)vm.victim[0]);
		SAME(p, "victim len", p->h.v.victim_len[0], vm.victim_len[0]);
		pair_release(p, p->h.v.victim[0]);
	}
	if (choke_outcome_is_drop((enum choke_outcome)a))
		pair_release(p, t);
}

static void pair_dequeue(struct pair *p)
{
	uint32_t len = 0;
	void *a = choke_dequeue(&p->h.q, p->now, &len);
	void *b = ref_dequeue(&p->m, p->now);

	SAME(p, "dequeued", (uintptr_t)a, (uintptr_t)b);
	if (a)
		pair_release(p, a);
}

static void drop_cb(void *ctx, void *pkt, uint32_t len)
{
	struct thost *h = (struct thost *)ctx;

	(void)len;
	h->dropped[h->ndropped++ % 4096] = pkt;
}

static void compare_drops(struct pair *p, void **md, uint32_t nmd)
{
	uint32_t i;

	SAME(p, "dropped by reset/change", p->h.ndropped, nmd);
	for (i = 0; i < nmd && i < p->h.ndropped && i < 4096; i++)
		SAME(p, "dropped pkt", (uintptr_t)p->h.dropped[i], (uintptr_t)md[i]);
	for (i = 0; i < nmd; i++)
		pair_release(p, md[i]);
}

static void pair_change(struct pair *p, const struct choke_config *c)
{
	static void *md[POOL];
	uint32_t nmd = 0;
	void *nr = NULL, *old = NULL;

	p->h.ndropped = 0;
	if (choke_change_needs_ring(&p->h.q, c->limit))
		nr = malloc(choke_ring_bytes(c->limit));
	if (choke_change(&p->h.q, c, nr, choke_ring_bytes(c->limit), &old,
			 drop_cb, &p->h)) {
		MISMATCH(p, "change refused", 1, 0);
		free(nr);
		return;
	}
	if (nr) {
		free(old);
		p->h.ring = nr;
	}
	ref_change(&p->m, c, md, &nmd);
	compare_drops(p, md, nmd);
}

static void pair_reset(struct pair *p)
{
	static void *md[POOL];
	uint32_t nmd = 0;

	p->h.ndropped = 0;
	choke_reset(&p->h.q, drop_cb, &p->h);
	ref_reset(&p->m, md, &nmd);
	compare_drops(p, md, nmd);
}

/* what the random sequences covered */
static uint64_t cov_variant_sets, cov_bytes_sets, cov_multi_victims, cov_byte_limit;
static uint64_t cov_gentle_ops, cov_ared_moved;

/* Drive one parameter set for n operations. */
static void run_sequence(uint64_t seed, uint32_t n)
{
	static struct pair p;
	struct choke_config c = random_config();
	uint32_t nflows, heavy_share, i, phase = 0, phase_left = 0;
	uint32_t len_mode = rbelow(3), max_p0;
	int moved = 0;

	pair_init(&p, &c, seed);
	max_p0 = p.h.q.max_P;
	nflows = (uint32_t[]){ 1, 2, 5, 30, 1000 }[rbelow(5)];
	heavy_share = rbelow(90);
	for (i = 0; i < n && !p.bad; i++) {
		uint32_t dice = rbelow(1000);

		p.ops = i;
		if (!phase_left) {
			phase = rbelow(4); /* 0 fill, 1 drain, 2 balanced, 3 overload */
			phase_left = 20 + rbelow(2000);
		}
		phase_left--;
		if (dice < 2 && chance(200000)) {
			struct choke_config c2 = random_config();

			if (chance(500000)) {
				c2.limit = c.limit; /* same ring, other RED */
				if (!c2.limit_bytes && c2.qth_max > c2.limit)
					c2.qth_max = c2.limit;
				if (c2.qth_min > c2.qth_max)
					c2.qth_min = c2.qth_max;
			}
			pair_change(&p, &c2);
			c = c2;
			max_p0 = p.h.q.max_P;
		} else if (dice < 3 && chance(50000)) {
			pair_reset(&p);
		} else if (dice < 40) {
			/* time: mostly short steps, sometimes a long idle gap */
			p.now += chance(100000) ? (uint64_t)r32() * (1 + rbelow(4000))
						: rbelow(20000) * time_tick;
		} else if (dice < 50) {
			void *a = choke_peek(&p.h.q), *b = ref_peek(&p.m);

			SAME(&p, "peek", (uintptr_t)a, (uintptr_t)b);
		} else {
			uint32_t enq_pm = phase == 0 ? 800 : phase == 1 ? 200 :
					  phase == 2 ? 500 : 650;

			if (rbelow(1000) < enq_pm) {
				uint32_t key = rbelow(100) < heavy_share ? 0 :
					       1 + rbelow(nflows);
				uint32_t len = len_mode == 0 ? 1000 :
					       len_mode == 1 ? 40 + rbelow(1461) :
					       (rbelow(2) ? 64 : 1500);

				pair_enqueue(&p, key, len, rbelow(2));
			} else {
				pair_dequeue(&p);
			}
			p.now += rbelow(2000) * time_tick;
		}
		compare_state(&p);
		cov_gentle_ops += (p.h.q.red_ext & CHOKE_RED_GENTLE) && p.h.q.qavg > p.h.q.qth_max &&
				  p.h.q.qavg <= 2 * (uint64_t)p.h.q.qth_max;
		moved |= p.h.q.max_P != max_p0;
	}
	cov_ared_moved += moved;
	cov_variant_sets += c.variant != 0;
	cov_bytes_sets += c.limit_bytes != 0;
	cov_multi_victims += p.h.q.stats.match_victims - p.h.q.stats.matched;
	cov_byte_limit += c.limit_bytes ? p.h.q.stats.pdrop : 0;
	pair_free(&p);
}

static void test_model_random_sequences(void)
{
	uint32_t sets = tl_quick ? 20 : 250, per = tl_quick ? 2500 : 4000, s;
	uint64_t total = 0;

	rs = 0x1234567;
	for (s = 0; s < sets; s++) {
		uint32_t n = per + rbelow(per);

		run_sequence(1000 + s, n);
		total += n;
	}
	printf("     %" PRIu64 " operations over %u parameter sets (%" PRIu64
	       " with a CHOKe variant, %" PRIu64 " in byte mode; %" PRIu64
	       " extra victims of multi-draw matches, %" PRIu64 " byte-limit drops)\n",
	       total, sets, cov_variant_sets, cov_bytes_sets, cov_multi_victims,
	       cov_byte_limit);
	CHECK(tl_quick || total >= 1000000);
	CHECK(cov_variant_sets > 0 && cov_bytes_sets > 0);
	CHECK(tl_quick || (cov_multi_victims > 0 && cov_byte_limit > 0));
}

/*
 * protect (docs/variants.md) against its plain model: CHOKe parameter sets
 * (a third with a draw variant, none in byte mode) with a random table
 * size, many flows, and runs long enough for many windows of 1024
 * departures. Its own generator stream, so the sets above do not move.
 */
/*
 * gentle, wait and ARED (CHOKE_RED_*) against the model, which runs
 * ARED's periods one by one where the core skips the ones that cannot
 * change anything: random choke and red sets, each with a random
 * combination, time 300 times faster (an operation every 300 us or so).
 */
static void test_model_red_ext_sequences(void)
{
	uint32_t sets = tl_quick ? 24 : 160, per = tl_quick ? 3000 : 6000, s;
	uint64_t total = 0;

	rs = 0x6e7e1e;
	red_ext_mode = 1;
	time_tick = 300;
	cov_gentle_ops = cov_ared_moved = 0;
	for (s = 0; s < sets; s++) {
		uint32_t n = per + rbelow(per);

		run_sequence(9000 + s, n);
		total += n;
	}
	red_ext_mode = 0;
	time_tick = 1;
	printf("     %" PRIu64 " operations over %u sets; %" PRIu64 " in gentle's region "
	       "above max, %" PRIu64 " sets where ARED moved max_P\n",
	       total, sets, cov_gentle_ops, cov_ared_moved);
	CHECK(cov_gentle_ops > 1000);
	CHECK(cov_ared_moved > 0);
}

static void test_model_protect_sequences(void)
{
	uint32_t sets = tl_quick ? 6 : 40, s;
	uint64_t total = 0, pdrops = 0, inserts = 0, windows = 0, boosted = 0, marks = 0, lanes = 0;
	uint32_t targets = 0, hosts = 0, sparse = 0;
	static struct pair p;

	rs = 0x9e01ec7;
	flow_spread = 1;
	for (s = 0; s < sets; s++) {
		struct choke_config c;
		uint32_t i, n = (tl_quick ? 12000 : 30000) + rbelow(10000);
		uint32_t nflows = (uint32_t[]){ 3, 20, 60, 300, 5000 }[rbelow(5)];
		uint32_t heavy = 1 + rbelow(6), heavy_share = rbelow(90);
		uint32_t phase = 0, phase_left = 0, max_boost = 256;

		uint64_t tick;

		do {
			c = random_config();
		} while (c.kind != CHOKE_KIND_CHOKE);
		c.protect = (uint16_t)(CHOKE_PROTECT_MIN << rbelow(6)); /* 8..256 */
		/* protect's additions, each on a third of the sets */
		c.target_us = rbelow(3) == 0 ? 100 + rbelow(50000) : 0;
		c.protect_by = (uint8_t)(rbelow(3) == 0 ? 1 + rbelow(3) : 0);
		c.sparse = rbelow(3) == 0;
		by_hosts = c.protect_by != 0;
		targets += c.target_us != 0;
		hosts += by_hosts;
		sparse += c.sparse;
		/* with a target, time runs 100 times faster: many intervals
		 * (100 ms) and windows (about a second) */
		tick = c.target_us ? 100 : 1;
		pair_init(&p, &c, 5000 + s);
		for (i = 0; i < n && !p.bad; i++) {
			uint32_t dice = rbelow(1000);

			p.ops = i;
			if (!phase_left) {
				phase = rbelow(4); /* fill, drain, balanced, overload */
				phase_left = 50 + rbelow(3000);
			}
			phase_left--;
			if (dice < 2 && chance(100000)) {
				struct choke_config c2 = c;

				/* RED parameters, or the table size, or off and on,
				 * or the target, or the lane */
				if (chance(300000))
					c2.protect = (uint16_t)(CHOKE_PROTECT_MIN << rbelow(6));
				else if (chance(300000))
					c2.protect = c.protect ? 0 : 64;
				else if (chance(300000))
					c2.target_us = c.target_us ? 0 : 100 + rbelow(20000);
				else if (chance(300000))
					c2.sparse = !c.sparse;
				else
					c2.qth_min = rbelow(c2.qth_max + 1);
				if (!c2.protect)
					c2.target_us = c2.protect_by = 0;
				pair_change(&p, &c2);
				c = c2;
			} else if (dice < 3 && chance(50000)) {
				pair_reset(&p);
			} else if (dice < 30) {
				p.now += chance(50000) ? (uint64_t)r32() * (1 + rbelow(100))
						       : rbelow(20000) * tick;
			} else {
				uint32_t enq_pm = phase == 0 ? 800 : phase == 1 ? 150 :
						  phase == 2 ? 500 : 700;

				if (rbelow(1000) < enq_pm) {
					uint32_t key = rbelow(100) < heavy_share ? rbelow(heavy) :
						       heavy + rbelow(nflows);

					pair_enqueue(&p, key, 40 + rbelow(1461), rbelow(2));
				} else {
					pair_dequeue(&p);
				}
				p.now += rbelow(2000) * tick;
			}
			compare_state(&p);
			if (p.h.q.pr.boost > max_boost)
				max_boost = p.h.q.pr.boost;
		}
		total += n;
		pdrops += p.h.q.stats.protect_drop;
		inserts += p.h.q.stats.protect_inserts;
		windows += p.h.q.pr.clock >> CHOKE_PROTECT_WINDOW_LOG;
		boosted += max_boost > 256;
		marks += p.h.q.stats.protect_mark;
		lanes += p.h.q.stats.lane_pkts;
		pair_free(&p);
	}
	by_hosts = 0;
	/* and on tc-derived sets, 1.3x overloaded by 2 heavy and 40 light
	 * flows, so protect drops under RED's real thresholds */
	{
		static const char *const words[][12] = {
			{ "limit", "300", "min", "25", "max", "50", "bandwidth", "1mbit",
			  "protect", NULL },
			{ "limit", "1000", "min", "100", "max", "300", "bandwidth",
			  "10mbit", "adaptive", "protect", "16", NULL },
		};
		size_t k;

		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			struct choke_params prm;
			char err[CHOKE_ERRBUF_SIZE];
			int argc = 0;
			uint32_t i, n = tl_quick ? 20000 : 100000;

			while (words[k][argc])
				argc++;
			REQUIRE(choke_params_parse(argc, (char *const *)words[k],
						   CHOKE_KIND_CHOKE, NULL, &prm, err, sizeof(err)) == 0);
			pair_init(&p, &prm.cfg, 91 + k);
			for (i = 0; i < n && !p.bad; i++) {
				p.ops = i;
				if (rbelow(100) < 57)
					pair_enqueue(&p, rbelow(3) ? rbelow(2) : 2 + rbelow(40),
						     1000, rbelow(2));
				else
					pair_dequeue(&p);
				p.now += 50000 + (chance(2000) ? (uint64_t)r32() * 100 : 0);
				compare_state(&p);
			}
			total += n;
			pdrops += p.h.q.stats.protect_drop;
			windows += p.h.q.pr.clock >> CHOKE_PROTECT_WINDOW_LOG;
			CHECK(p.h.q.stats.protect_drop > 0);
			pair_free(&p);
		}
	}
	flow_spread = 0;
	printf("     %" PRIu64 " operations over %u sets: %" PRIu64 " windows, %" PRIu64
	       " protect drops, %" PRIu64 " entries taken, %" PRIu64 " sets boosted; "
	       "%u with a target, %u sharing among hosts, %u with the lane (%" PRIu64
	       " packets in it), %" PRIu64 " marks\n",
	       total, sets, windows, pdrops, inserts, boosted, targets, hosts, sparse, lanes,
	       marks);
	CHECK(windows >= sets);
	CHECK(pdrops > 0 && inserts > 0);
	CHECK(tl_quick || boosted > 0);
	CHECK(tl_quick || (targets > 0 && hosts > 0 && sparse > 0 && lanes > 0 && marks > 0));
}

/* Long runs on a few realistic sets (from tc words), so the RED average
 * spends real time between and above the thresholds. */
static void test_model_tc_parameter_sets(void)
{
	static const char *const sets[][16] = {
		{ "limit", "1000", "min", "100", "max", "300", "avpkt", "1000",
		  "burst", "200", "bandwidth", "2Mbit", "probability", "0.02", "ecn" },
		{ "limit", "90", "min", "10", "max", "30", "probability", "0.05",
		  "bandwidth", "10Mbit" },
		{ "limit", "300", "min", "25", "max", "50", "bandwidth", "1mbit",
		  "harddrop", "ecn" },
		{ "limit", "40", "bandwidth", "100kbit" },
	};
	static struct pair p;
	uint64_t early = 0;
	size_t s;

	rs = 0xabcdef;
	for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		struct choke_params prm;
		char err[CHOKE_ERRBUF_SIZE];
		int argc = 0, kind;
		uint32_t i, n = tl_quick ? 20000 : 100000;

		while (argc < 16 && sets[s][argc])
			argc++;
		for (kind = CHOKE_KIND_CHOKE; kind <= CHOKE_KIND_RED; kind++) {
			REQUIRE(choke_params_parse(argc, (char *const *)sets[s], kind,
						   NULL, &prm, err, sizeof(err)) == 0);
			prm.cfg.idle_unit = (uint8_t)(s % 2);
			pair_init(&p, &prm.cfg, 77 + s);
			for (i = 0; i < n && !p.bad; i++) {
				/* 1.3x overload with bursts and idle gaps */
				p.ops = i;
				if (rbelow(100) < 57)
					pair_enqueue(&p, rbelow(3) ? 0 : 1 + rbelow(20),
						     1000, rbelow(2));
				else
					pair_dequeue(&p);
				p.now += 50000 + (chance(2000) ? (uint64_t)r32() * 100 : 0);
				if (chance(500)) {
					pair_change(&p, &prm.cfg);
				}
				compare_state(&p);
			}
			CHECK(kind == CHOKE_KIND_RED || p.h.q.stats.matched > 0);
			early += p.h.q.stats.prob_drop + p.h.q.stats.prob_mark;
			pair_free(&p);
		}
	}
	/* the runs spend time between the thresholds */
	CHECK(early > 0);
}

/*
 * The wrap (spec section 1): a tbf 2mbit parent over a 1000-packet choke with
 * ECN, 30 ECT(0) UDP flows at 300 kbit/s of 1000-byte packets; the link
 * sends one packet every 4 ms. Mainline's rule is modelled literally
 * (REF_MAINLINE: nextpow2(limit + 1) slots, admission on qlen < limit). Its
 * tail meets its head once packets plus holes fill the ring; the ring then
 * reads empty while holding packets. Those packets stay counted in qlen and
 * backlog and are never sent (later admissions overwrite, i.e. leak, them),
 * so the usable queue shrinks to limit - stranded; when the wrap happens at
 * a full queue nothing is sent again and every arrival is tail-dropped.
 * The core, fed the same arrivals and random numbers, agrees with mainline
 * exactly until the wrap, and with its own model throughout.
 */
struct wrap_result {
	double wrap_s;
	uint64_t ml_sent_end, ml_sent_after_wrap_plus_10s, ml_pdrop_late, late_arrivals;
	uint32_t ml_qlen, ml_stranded;
	uint64_t core_sent_last_half;
	int agreed_until_wrap;
};

static void run_wrap_scenario(char *const *words, int nwords, struct wrap_result *res)
{
	struct choke_params prm;
	char err[CHOKE_ERRBUF_SIZE];
	static struct pair p;
	struct refq ml;
	struct trand rml;
	uint64_t next_arr[30], next_tx = 0, t_end = 60ull * 1000000000ull;
	uint64_t wrap_at = 0, core_sent_mid = 0, pdrop_at_late = 0, tick = 4000000;
	uint32_t f, i;

	memset(res, 0, sizeof(*res));
	res->agreed_until_wrap = 1;
	if (choke_params_parse(nwords, words, CHOKE_KIND_CHOKE, NULL, &prm, err, sizeof(err))) {
		CHECK(!"wrap scenario parameters");
		return;
	}
	rs = 0x5eed;
	pair_init(&p, &prm.cfg, 9);
	trand_init(&rml, 9);
	ref_init(&ml, &prm.cfg, REF_MAINLINE, trand_next, &rml, key_same);
	for (f = 0; f < 30; f++)
		next_arr[f] = rbelow(26666666);

	for (;;) {
		uint64_t t = next_tx;
		int arrival = -1;

		for (f = 0; f < 30; f++)
			if (next_arr[f] < t) {
				t = next_arr[f];
				arrival = (int)f;
			}
		if (t >= t_end)
			break;
		p.now = t;
		p.ops++;
		if (arrival >= 0) {
			struct tpkt *pk = pair_alloc(&p, (uint32_t)arrival);
			struct choke_verdict v, vm;
			int a, b;

			REQUIRE(pk);
			a = choke_enqueue(&p.h.q, pk, 1000, (uint32_t)arrival,
					  CHOKE_PKT_ECN_CAPABLE, t, &p.h.v);
			b = ref_enqueue(&p.m, pk, 1000, (uint32_t)arrival, 1, t, &vm);
			SAME(&p, "enqueue outcome", a, b);
			/* mainline keeps its own references (and may leak them) */
			(void)ref_enqueue(&ml, pk, 1000, (uint32_t)arrival, 1, t, &v);
			if (p.h.v.nvictims)
				pair_release(&p, p.h.v.victim[0]);
			if (choke_outcome_is_drop((enum choke_outcome)a))
				pair_release(&p, pk);
			if (wrap_at && t >= wrap_at + 10000000000ull)
				res->late_arrivals++;
			/* 300 kbit/s of 1000-byte packets, 5% jitter */
			next_arr[arrival] += 26666666 - 666666 + rbelow(1333333);
		} else {
			void *a = choke_dequeue(&p.h.q, t, NULL);
			void *b = ref_dequeue(&p.m, t);

			(void)ref_dequeue(&ml, t);
			SAME(&p, "dequeued", (uintptr_t)a, (uintptr_t)b);
			if (a)
				pair_release(&p, a);
			next_tx += tick;
		}
		compare_state(&p);
		if (!ml.wrapped && (ml.st.sent_pkts != p.h.q.stats.sent_pkts ||
				    ml.st.matched != p.h.q.stats.matched ||
				    ml.qlen != p.h.q.qlen))
			res->agreed_until_wrap = 0;
		if (ml.wrapped && !wrap_at)
			wrap_at = t;
		if (wrap_at && t >= wrap_at + 10000000000ull &&
		    !res->ml_sent_after_wrap_plus_10s) {
			res->ml_sent_after_wrap_plus_10s = ml.st.sent_pkts;
			pdrop_at_late = ml.st.pdrop;
		}
		if (t >= t_end / 2 && !core_sent_mid)
			core_sent_mid = p.h.q.stats.sent_pkts;
	}
	res->wrap_s = (double)wrap_at / 1e9;
	res->ml_sent_end = ml.st.sent_pkts;
	res->ml_pdrop_late = ml.st.pdrop - pdrop_at_late;
	res->ml_qlen = ml.qlen;
	res->ml_stranded = ml.qlen;
	for (i = 0; i < ref_span(&ml); i++)
		if (ref_slot_at(&ml, i)->pkt)
			res->ml_stranded--;
	res->core_sent_last_half = p.h.q.stats.sent_pkts - core_sent_mid;
	printf("     mainline: wrap at %.2f s, sent %" PRIu64 " (%" PRIu64
	       " at wrap + 10 s), qlen %u of which %u stranded; core: %" PRIu64
	       " sent in the last 30 s, %" PRIu64 " compactions, %" PRIu64
	       " wraps avoided\n",
	       res->wrap_s, res->ml_sent_end, res->ml_sent_after_wrap_plus_10s,
	       res->ml_qlen, res->ml_stranded, res->core_sent_last_half,
	       p.h.q.stats.compactions, p.h.q.stats.wrap_avoided);
	CHECK(p.h.q.stats.wrap_avoided > 0);
	ref_free(&ml);
	pair_free(&p);
}

static void test_mainline_wraps_core_does_not(void)
{
	/* the reported configuration */
	char *spec_words[] = { "limit", "1000", "min", "100", "max", "300", "avpkt",
		"1000", "burst", "200", "bandwidth", "2Mbit", "probability", "0.02",
		"ecn" };
	/* thresholds near the limit: the queue is full before holes pile up,
	 * so the wrap happens at a full queue */
	char *full_words[] = { "limit", "1000", "min", "800", "max", "900", "avpkt",
		"1000", "burst", "850", "bandwidth", "2Mbit", "probability", "0.02",
		"ecn" };
	struct wrap_result r;

	run_wrap_scenario(spec_words, 15, &r);
	CHECK(r.wrap_s > 0 && r.wrap_s < 30);
	CHECK(r.agreed_until_wrap);
	/* most of the backlog is stranded for good: counted, never sent */
	CHECK(r.ml_stranded >= 900);
	CHECK(r.core_sent_last_half >= 7400); /* ours: one packet per tick */

	run_wrap_scenario(full_words, 15, &r);
	CHECK(r.wrap_s > 0 && r.wrap_s < 30);
	CHECK(r.agreed_until_wrap);
	/* the wedge: Sent stops for good, the backlog stays at the limit, every
	 * later arrival is tail-dropped */
	CHECK(r.ml_sent_after_wrap_plus_10s > 0);
	CHECK_EQ(r.ml_sent_end, r.ml_sent_after_wrap_plus_10s);
	CHECK_EQ(r.ml_qlen, 1000);
	CHECK_EQ(r.ml_stranded, 1000);
	CHECK_EQ(r.ml_pdrop_late, r.late_arrivals);
	CHECK(r.core_sent_last_half >= 7400);
}

/*
 * The burst path (choke_enqueue_burst, choke_dequeue_burst) against the
 * single-packet calls and the model, on the same random sequences: each
 * step offers a burst of arrivals or asks for a burst of departures, and
 * three queues take it: the core through the burst functions (the pair's
 * h), the core through choke_enqueue/choke_dequeue one packet at a time
 * (single) and the model packet by packet. Per arrival the outcome and the
 * victims must agree; after every step the burst core must equal the
 * single one field by field and slot by slot (generator state and every
 * counter included) and agree with the model as compare_state checks.
 * Half of the sets use the core's built-in generator and no same_flow hook
 * (the model then runs a PCG32 of its own seeded as choke_seed does, and
 * flow values are distinct per key), which is what the burst path's
 * specialised loops take; the others use the test's hooks.
 */
struct tpcg {
	uint64_t state, inc;
};

static uint32_t tpcg_next(void *ctx)
{
	struct tpcg *g = (struct tpcg *)ctx;
	uint64_t old = g->state;
	uint32_t x = (uint32_t)(((old >> 18) ^ old) >> 27), rot = (uint32_t)(old >> 59);

	g->state = old * 6364136223846793005ull + g->inc;
	return (x >> rot) | (x << ((32 - rot) & 31));
}

static void tpcg_seed(struct tpcg *g, uint64_t seed)
{
	g->state = 0;
	g->inc = (seed << 1) | 1u;
	(void)tpcg_next(g);
	g->state += seed ^ 0x853c49e6748fea9bull;
	(void)tpcg_next(g);
}

#define BURST_MAX 48

struct bstate {
	struct thost single;
	struct tpcg pcg;
	int hooks;
	uint64_t enq_bursts, deq_bursts, victims, idle_bursts, short_deq;
};

static void burst_compare_cores(struct pair *p, struct bstate *b)
{
	const struct choke *x = &p->h.q, *y = &b->single.q;
	uint32_t i;

	SAME(p, "burst/single head", x->head, y->head);
	SAME(p, "burst/single tail", x->tail, y->tail);
	SAME(p, "burst/single mask", x->mask, y->mask);
	SAME(p, "burst/single qlen", x->qlen, y->qlen);
	SAME(p, "burst/single backlog", x->backlog, y->backlog);
	SAME(p, "burst/single qavg", x->qavg, y->qavg);
	SAME(p, "burst/single qcount", (uint32_t)x->qcount, (uint32_t)y->qcount);
	SAME(p, "burst/single qR", x->qR, y->qR);
	SAME(p, "burst/single idle", x->idle, y->idle);
	SAME(p, "burst/single idle_start", x->idle_start_ns, y->idle_start_ns);
	SAME(p, "burst/single rng_state", x->rng_state, y->rng_state);
	SAME(p, "burst/single hook draws", p->h.rnd.draws, b->single.rnd.draws);
	if (memcmp(&x->stats, &y->stats, sizeof(x->stats)))
		MISMATCH(p, "burst/single counters", 1, 0);
	if (memcmp(&x->pr, &y->pr, sizeof(x->pr))) {
		size_t o;

		for (o = 0; o < sizeof(x->pr); o++)
			if (((const uint8_t *)&x->pr)[o] != ((const uint8_t *)&y->pr)[o])
				break;
		MISMATCH(p, "burst/single protect state (the byte offset)", o, 0);
	}
	for (i = 0; i <= x->mask && x->mask == y->mask && !p->bad; i++) {
		SAME(p, "burst/single slot pkt", (uintptr_t)x->tab[i].pkt,
		     (uintptr_t)y->tab[i].pkt);
		SAME(p, "burst/single slot len", x->tab[i].len, y->tab[i].len);
		SAME(p, "burst/single slot flow", x->tab[i].flow, y->tab[i].flow);
	}
}

static void burst_init(struct pair *p, struct bstate *b, const struct choke_config *c,
		       uint64_t seed, int hooks)
{
	struct choke_ops ops = { trand_next, tpkt_same, NULL };

	pair_init(p, c, seed);
	REQUIRE(thost_init(&b->single, c) == 0);
	b->hooks = hooks;
	if (hooks) {
		trand_init(&b->single.rnd, seed);
		ops.ctx = &b->single.rnd;
		choke_set_ops(&b->single.q, &ops);
	} else {
		/* the built-in generator in both cores, a copy in the model */
		choke_set_ops(&p->h.q, NULL);
		choke_set_ops(&b->single.q, NULL);
		choke_seed(&p->h.q, seed);
		choke_seed(&b->single.q, seed);
		tpcg_seed(&b->pcg, seed);
		p->m.rnd = tpcg_next;
		p->m.rnd_ctx = &b->pcg;
	}
}

static void burst_enqueue(struct pair *p, struct bstate *b, uint32_t n, uint32_t nflows,
			  uint32_t heavy_share, uint32_t len_mode)
{
	void *pkt[BURST_MAX];
	uint32_t len[BURST_MAX], flow[BURST_MAX], nv = 0, i, k = 0, vcap;
	uint8_t fl[BURST_MAX], out[BURST_MAX];
	struct choke_victim vic[BURST_MAX * CHOKE_MAX_VICTIMS];
	int with_flags = rbelow(4) != 0, rc;

	for (i = 0; i < n; i++) {
		uint32_t key = rbelow(100) < heavy_share ? 0 : 1 + rbelow(nflows);
		struct tpkt *t = pair_alloc(p, key);

		if (!t)
			break;
		pkt[i] = t;
		/* without the same_flow hook equal flow values are the same
		 * flow: one value per key then */
		flow[i] = b->hooks && !flow_spread ? key % 13u : key * 2654435761u;
		len[i] = len_mode == 0 ? 1000 : len_mode == 1 ? 40 + rbelow(1461) :
			 (rbelow(2) ? 64 : 1500);
		fl[i] = (uint8_t)(with_flags && rbelow(2) ? CHOKE_PKT_ECN_CAPABLE : 0);
	}
	n = i;
	b->enq_bursts++;
	b->idle_bursts += p->h.q.idle;
	/* too small a victim array is refused, with nothing done */
	vcap = n * choke_victims_per_arrival(&p->h.q);
	if (vcap && rbelow(8) == 0) {
		uint32_t before = choke_qlen(&p->h.q);

		nv = 77;
		rc = choke_enqueue_burst(&p->h.q, pkt, len, flow, fl, n, p->now, out, vic,
					 vcap - 1, &nv);
		SAME(p, "burst with a short victim array", rc, CHOKE_EINVAL);
		SAME(p, "short victim array: victims", nv, 0);
		SAME(p, "short victim array: qlen", choke_qlen(&p->h.q), before);
	}
	rc = choke_enqueue_burst(&p->h.q, pkt, len, flow, with_flags ? fl : NULL, n, p->now,
				 out, vic, rbelow(2) ? vcap : BURST_MAX * CHOKE_MAX_VICTIMS, &nv);
	SAME(p, "enqueue_burst", rc, 0);
	for (i = 0; i < n; i++) {
		struct choke_verdict vm;
		unsigned f = with_flags ? fl[i] : 0;
		int a = choke_enqueue(&b->single.q, pkt[i], len[i], flow[i], f, p->now,
				      &b->single.v);
		int m = ref_enqueue(&p->m, pkt[i], len[i], flow[i],
				    (f & CHOKE_PKT_ECN_CAPABLE) != 0, p->now, &vm);
		uint32_t j, mine = 0;

		SAME(p, "burst outcome vs single", out[i], a);
		SAME(p, "burst outcome vs model", out[i], m);
		SAME(p, "single victims vs model", b->single.v.nvictims, vm.nvictims);
		for (j = 0; j < vm.nvictims && !p->bad; j++, k++) {
			if (k >= nv || vic[k].arrival != i) {
				MISMATCH(p, "burst victims of the arrival", mine, vm.nvictims);
				break;
			}
			mine++;
			SAME(p, "burst victim", (uintptr_t)vic[k].pkt, (uintptr_t)vm.victim[j]);
			SAME(p, "burst victim len", vic[k].len, vm.victim_len[j]);
			SAME(p, "single victim", (uintptr_t)b->single.v.victim[j],
			     (uintptr_t)vm.victim[j]);
		}
		if (p->bad)
			return;
	}
	SAME(p, "burst victims in all", nv, k);
	b->victims += nv;
	for (k = 0; k < nv && !p->bad; k++)
		pair_release(p, vic[k].pkt);
	for (i = 0; i < n && !p->bad; i++)
		if (choke_outcome_is_drop((enum choke_outcome)out[i]))
			pair_release(p, pkt[i]);
}

static void burst_dequeue(struct pair *p, struct bstate *b, uint32_t n)
{
	void *pkt[BURST_MAX];
	uint32_t len[BURST_MAX], got, i;

	got = choke_dequeue_burst(&p->h.q, p->now, pkt, rbelow(2) ? len : NULL, n);
	b->deq_bursts++;
	b->short_deq += got < n;
	if (got > n)
		MISMATCH(p, "dequeue_burst returned more than asked", got, n);
	for (i = 0; i < n && !p->bad; i++) {
		uint32_t l = 0;
		void *a = choke_dequeue(&b->single.q, p->now, &l);
		void *m = ref_dequeue(&p->m, p->now);

		SAME(p, "single dequeued vs model", (uintptr_t)a, (uintptr_t)m);
		if (i < got) {
			SAME(p, "burst dequeued", (uintptr_t)pkt[i], (uintptr_t)m);
		} else if (a) {
			MISMATCH(p, "burst dequeue stopped early", got, i);
		}
		if (a)
			pair_release(p, a);
	}
}

static void burst_change(struct pair *p, struct bstate *b, const struct choke_config *c)
{
	b->single.ndropped = 0;
	pair_change(p, c);
	REQUIRE(thost_change(&b->single, c) == 0);
	SAME(p, "change drops single vs burst", b->single.ndropped, p->h.ndropped);
}

static void test_model_burst_sequences(void)
{
	uint32_t sets = tl_quick ? 40 : 240, s;
	uint64_t total = 0, fast = 0, variants = 0, protect = 0, bytes = 0, red = 0, fifo = 0;
	uint64_t marks = 0;
	static struct pair p;
	static struct bstate b;

	memset(&b, 0, sizeof(b));
	rs = 0xb0057;
	for (s = 0; s < sets; s++) {
		struct choke_config c = random_config();
		uint32_t i, n = (tl_quick ? 300 : 800) + rbelow(600);
		uint32_t nflows = (uint32_t[]){ 1, 2, 5, 30, 1000 }[rbelow(5)];
		uint32_t heavy_share = rbelow(90), len_mode = rbelow(3);
		uint32_t phase = 0, phase_left = 0;
		int hooks = (int)(s & 1);

		/* protect on a sixth of the CHOKe sets in packets */
		if (c.kind == CHOKE_KIND_CHOKE && !c.limit_bytes && rbelow(6) == 0)
			c.protect = (uint16_t)(CHOKE_PROTECT_MIN << rbelow(6));
		flow_spread = c.protect != 0;
		burst_init(&p, &b, &c, 7000 + s, hooks);
		fast += !hooks && c.kind == CHOKE_KIND_CHOKE && !c.variant && !c.protect &&
			!c.limit_bytes;
		variants += c.variant != 0;
		protect += c.protect != 0;
		bytes += c.limit_bytes != 0;
		red += c.kind == CHOKE_KIND_RED;
		fifo += c.kind == CHOKE_KIND_FIFO;
		for (i = 0; i < n && !p.bad; i++) {
			uint32_t dice = rbelow(1000);

			p.ops = i;
			if (!phase_left) {
				phase = rbelow(4); /* fill, drain, balanced, overload */
				phase_left = 5 + rbelow(200);
			}
			phase_left--;
			if (dice < 3 && chance(300000)) {
				struct choke_config c2 = c;

				c2.qth_min = rbelow(c2.qth_max + 1);
				if (chance(300000) && !c2.limit_bytes) {
					c2.limit = c.limit + rbelow(c.limit + 1);
				}
				burst_change(&p, &b, &c2);
				c = c2;
			} else if (dice < 5 && chance(100000)) {
				b.single.ndropped = 0;
				pair_reset(&p);
				choke_reset(&b.single.q, thost_drop, &b.single);
			} else if (dice < 60) {
				/* time: short steps, sometimes an idle gap */
				p.now += chance(100000) ? (uint64_t)r32() * (1 + rbelow(4000))
							: rbelow(20000);
			} else {
				uint32_t enq_pm = phase == 0 ? 700 : phase == 1 ? 250 :
						  phase == 2 ? 500 : 600;
				uint32_t k = rbelow(10) ? 1 + rbelow(32) : rbelow(BURST_MAX + 1);

				if (rbelow(1000) < enq_pm)
					burst_enqueue(&p, &b, k, nflows, heavy_share, len_mode);
				else
					burst_dequeue(&p, &b, k);
				p.now += rbelow(40000);
			}
			compare_state(&p);
			burst_compare_cores(&p, &b);
		}
		total += n;
		marks += p.h.q.stats.prob_mark + p.h.q.stats.forced_mark;
		pair_free(&p);
		thost_free(&b.single);
	}
	flow_spread = 0;
	printf("     %" PRIu64 " steps over %u sets (%" PRIu64 " on the specialised CHOKe "
	       "loop, %" PRIu64 " variants, %" PRIu64 " protect, %" PRIu64 " byte mode, %"
	       PRIu64 " red, %" PRIu64 " fifo; %" PRIu64 " marks, %" PRIu64 " victims, %"
	       PRIu64 " bursts ending an idle period, %" PRIu64 " dequeue bursts that "
	       "emptied the queue)\n",
	       total, sets, fast, variants, protect, bytes, red, fifo, marks, b.victims,
	       b.idle_bursts, b.short_deq);
	CHECK(fast > 0 && variants > 0 && protect > 0 && bytes > 0 && red > 0 && fifo > 0);
	CHECK(marks > 0 && b.victims > 0 && b.idle_bursts > 0 && b.short_deq > 0);
}

/*
 * Batched CHOKe (choke_enqueue_burst_batched) against its model
 * (ref_enqueue_burst_batched): random sequences of batched enqueue bursts
 * of 0 .. BATCH_MAX arrivals (several chunks of 32 per call), dequeue
 * bursts, time steps and idle gaps, with per arrival the outcome and the
 * victims (packet, length, arrival, in order) compared and after every
 * step the state compare_state checks. Most sets are ones the batched
 * rule is for (plain CHOKe in packets, the built-in generator, a PCG32
 * copy in the model, flow values distinct per key), a third of them with
 * small limits so that chunks shrink to one arrival and meet the limit;
 * the others are not (protect, red, fifo, a variant, byte mode, sparse, a
 * RED extension, the test's hooks), where the call must be
 * choke_enqueue_burst's: the model then takes the arrivals one by one.
 */
#define BATCH_MAX 70

struct batch_run {
	struct tpcg pcg;
	int hooks, eligible;
	uint64_t calls, victims, short_cap, idle_calls, emptied;
	uint64_t other_calls, other_victims;
};

/* a set the batched rule is for; small: a small limit (and thresholds
 * under it) */
static struct choke_config batch_config_eligible(int small)
{
	struct choke_config c;

	do
		c = random_config();
	while (c.kind != CHOKE_KIND_CHOKE || c.limit_bytes);
	c.variant = 0;
	c.draws = 0;
	c.sparse = 0;
	if (small) {
		c.limit = 1 + rbelow(48);
		if (c.qth_max > c.limit)
			c.qth_max = rbelow(c.limit + 1);
		if (c.qth_min > c.qth_max)
			c.qth_min = rbelow(c.qth_max + 1);
	}
	return c;
}

/* a set it is not for, of kind `which` (0 .. 7); *hooks for the last */
static struct choke_config batch_config_other(uint32_t which, int *hooks)
{
	struct choke_config c;

	*hooks = 0;
	switch (which) {
	case 0: /* protect (with or without a variant or sparse) */
		do
			c = random_config();
		while (c.kind != CHOKE_KIND_CHOKE || c.limit_bytes);
		c.protect = (uint16_t)(CHOKE_PROTECT_MIN << rbelow(6));
		break;
	case 1:
	case 2: /* red, fifo */
		do
			c = random_config();
		while (c.kind != (which == 1 ? CHOKE_KIND_RED : CHOKE_KIND_FIFO));
		break;
	case 3: /* a draw variant */
		do
			c = random_config();
		while (c.kind != CHOKE_KIND_CHOKE || !c.variant);
		break;
	case 4: /* byte mode */
		do
			c = random_config();
		while (c.kind != CHOKE_KIND_CHOKE || !c.limit_bytes);
		break;
	case 5: /* sparse */
		c = batch_config_eligible(0);
		c.sparse = 1;
		break;
	case 6: /* a RED extension */
		red_ext_mode = 1;
		do
			c = random_config();
		while (c.kind != CHOKE_KIND_CHOKE);
		red_ext_mode = 0;
		break;
	default: /* plain CHOKe, but the test's random and same_flow hooks */
		c = batch_config_eligible(rbelow(3) == 0);
		*hooks = 1;
		break;
	}
	return c;
}

static void batch_init(struct pair *p, struct batch_run *b, const struct choke_config *c,
		       uint64_t seed, int hooks)
{
	pair_init(p, c, seed);
	b->hooks = hooks;
	if (!hooks) {
		/* the built-in generator in the core, a copy in the model */
		choke_set_ops(&p->h.q, NULL);
		choke_seed(&p->h.q, seed);
		tpcg_seed(&b->pcg, seed);
		p->m.rnd = tpcg_next;
		p->m.rnd_ctx = &b->pcg;
	}
}

static void batch_enqueue(struct pair *p, struct batch_run *b, uint32_t n, uint32_t nflows,
			  uint32_t heavy_share, uint32_t len_mode)
{
	static struct choke_victim vic[BATCH_MAX * CHOKE_MAX_VICTIMS],
		mvic[BATCH_MAX * CHOKE_MAX_VICTIMS];
	void *pkt[BATCH_MAX];
	uint32_t len[BATCH_MAX], flow[BATCH_MAX], nv = 0, mnv = 0, i, need, cap;
	uint8_t fl[BATCH_MAX], out[BATCH_MAX], mout[BATCH_MAX];
	int with_flags = rbelow(4) != 0, rc, mrc;
	const uint8_t *flags;

	for (i = 0; i < n; i++) {
		uint32_t key = rbelow(100) < heavy_share ? 0 : 1 + rbelow(nflows);
		struct tpkt *t = pair_alloc(p, key);

		if (!t)
			break;
		pkt[i] = t;
		/* without the same_flow hook equal flow values are the same
		 * flow: one value per key then */
		flow[i] = b->hooks && !flow_spread ? key % 13u : key * 2654435761u;
		len[i] = len_mode == 0 ? 1000 : len_mode == 1 ? 40 + rbelow(1461) :
			 (rbelow(2) ? 64 : 1500);
		fl[i] = (uint8_t)(with_flags && rbelow(2) ? CHOKE_PKT_ECN_CAPABLE : 0);
	}
	n = i;
	flags = with_flags ? fl : NULL;
	b->calls += b->eligible;
	b->other_calls += !b->eligible;
	b->idle_calls += b->eligible && n && p->h.q.idle;
	/* the victim array the call asks for: one per arrival, or
	 * choke_enqueue_burst's when the set is not for the batched rule */
	need = b->eligible ? n : n * choke_victims_per_arrival(&p->h.q);
	if (need && rbelow(6) == 0) {
		/* one short is refused with nothing done (compare_state: the
		 * model has not moved either) */
		nv = 77;
		rc = choke_enqueue_burst_batched(&p->h.q, pkt, len, flow, flags, n, p->now, out,
						 vic, need - 1, &nv);
		SAME(p, "batched with a short victim array", rc, CHOKE_EINVAL);
		SAME(p, "short victim array: victims", nv, 0);
		compare_state(p);
		b->short_cap++;
		if (b->eligible) {
			mrc = ref_enqueue_burst_batched(&p->m, b->hooks, pkt, len, flow, flags, n,
							p->now, mout, mvic, need - 1, &mnv);
			SAME(p, "model with a short victim array", mrc, CHOKE_EINVAL);
			SAME(p, "model short victim array: victims", mnv, 0);
		}
	}
	cap = rbelow(2) ? need : BATCH_MAX * CHOKE_MAX_VICTIMS;
	nv = mnv = 77;
	rc = choke_enqueue_burst_batched(&p->h.q, pkt, len, flow, flags, n, p->now, out, vic,
					 cap, &nv);
	mrc = ref_enqueue_burst_batched(&p->m, b->hooks, pkt, len, flow, flags, n, p->now, mout,
					mvic, BATCH_MAX * CHOKE_MAX_VICTIMS, &mnv);
	SAME(p, "enqueue_burst_batched", rc, 0);
	SAME(p, "model batched", mrc, 0);
	if (p->bad)
		return;
	for (i = 0; i < n; i++)
		SAME(p, "batched outcome", out[i], mout[i]);
	for (i = 0; i < nv && i < mnv; i++) {
		SAME(p, "batched victim", (uintptr_t)vic[i].pkt, (uintptr_t)mvic[i].pkt);
		SAME(p, "batched victim len", vic[i].len, mvic[i].len);
		SAME(p, "batched victim's arrival", vic[i].arrival, mvic[i].arrival);
	}
	SAME(p, "batched victims", nv, mnv);
	if (p->bad)
		return;
	if (b->eligible)
		b->victims += nv;
	else
		b->other_victims += nv;
	for (i = 0; i < nv; i++)
		pair_release(p, vic[i].pkt);
	for (i = 0; i < n; i++)
		if (choke_outcome_is_drop((enum choke_outcome)out[i]))
			pair_release(p, pkt[i]);
}

static void batch_dequeue(struct pair *p, struct batch_run *b, uint32_t n)
{
	void *pkt[BATCH_MAX];
	uint32_t len[BATCH_MAX], got, i;

	got = choke_dequeue_burst(&p->h.q, p->now, pkt, rbelow(2) ? len : NULL, n);
	if (got > n)
		MISMATCH(p, "dequeue_burst returned more than asked", got, n);
	b->emptied += got < n;
	for (i = 0; i < n && !p->bad; i++) {
		void *m = ref_dequeue(&p->m, p->now);

		if (i < got)
			SAME(p, "dequeued", (uintptr_t)pkt[i], (uintptr_t)m);
		else if (m)
			MISMATCH(p, "dequeue_burst stopped early", got, i);
		if (m && !p->bad)
			pair_release(p, m);
	}
}

static void test_model_batch_sequences(void)
{
	uint32_t sets = tl_quick ? 200 : 1200, s, others = 0;
	uint64_t total = 0, compactions = 0, wraps = 0;
	struct ref_batch_seen seen;
	static struct pair p;
	static struct batch_run b;

	memset(&b, 0, sizeof(b));
	memset(&seen, 0, sizeof(seen));
	rs = 0xba7c4ed;
	for (s = 0; s < sets; s++) {
		int other = s % 8 == 7, hooks = 0;
		struct choke_config c = other ? batch_config_other(s / 8 % 8, &hooks) :
						batch_config_eligible(rbelow(3) == 0);
		uint32_t i, n = (tl_quick ? 150 : 500) + rbelow(400);
		uint32_t nflows = (uint32_t[]){ 1, 2, 5, 30, 1000 }[rbelow(5)];
		uint32_t heavy_share = rbelow(90), len_mode = rbelow(3);
		uint32_t phase = 0, phase_left = 0;

		others += other;
		flow_spread = c.protect != 0;
		batch_init(&p, &b, &c, 11000 + s, hooks);
		b.eligible = !other;
		for (i = 0; i < n && !p.bad; i++) {
			uint32_t dice = rbelow(1000);

			p.ops = i;
			if (!phase_left) {
				phase = rbelow(4); /* fill, drain, balanced, overload */
				phase_left = 5 + rbelow(200);
			}
			phase_left--;
			if (dice < 3 && chance(300000)) {
				/* other thresholds, sometimes a larger limit:
				 * the set stays what it was */
				struct choke_config c2 = c;

				c2.qth_min = rbelow(c2.qth_max + 1);
				if (chance(300000) && !c2.limit_bytes)
					c2.limit = c.limit + rbelow(c.limit + 1);
				pair_change(&p, &c2);
				c = c2;
			} else if (dice < 5 && chance(100000)) {
				pair_reset(&p);
			} else if (dice < 60) {
				/* time: short steps, sometimes an idle gap */
				p.now += chance(100000) ? (uint64_t)r32() * (1 + rbelow(4000))
							: rbelow(20000);
			} else {
				uint32_t enq_pm = phase == 0 ? 700 : phase == 1 ? 250 :
						  phase == 2 ? 500 : 600;
				uint32_t k = rbelow(4) ? 1 + rbelow(32) : rbelow(BATCH_MAX + 1);

				if (rbelow(1000) < enq_pm)
					batch_enqueue(&p, &b, k, nflows, heavy_share, len_mode);
				else
					batch_dequeue(&p, &b, k);
				p.now += rbelow(40000);
			}
			compare_state(&p);
		}
		total += n;
		if (!other) {
			const struct ref_batch_seen *t = &p.m.bat;

			seen.calls += t->calls;
			seen.idle_starts += t->idle_starts;
			seen.multi_chunk_calls += t->multi_chunk_calls;
			for (i = 0; i < 3; i++) {
				seen.chunks[i] += t->chunks[i];
				seen.one_chunks[i] += t->one_chunks[i];
			}
			seen.one_empty += t->one_empty;
			seen.one_tail_drops += t->one_tail_drops;
			seen.matches += t->matches;
			seen.early += t->early;
			seen.forced += t->forced;
			seen.prob_marks += t->prob_marks;
			seen.forced_marks += t->forced_marks;
			seen.holes_drawn += t->holes_drawn;
			seen.no_excess += t->no_excess;
			compactions += p.m.st.compactions;
			wraps += p.m.st.wrap_avoided;
		} else {
			CHECK_EQ(p.m.bat.calls, 0); /* the model took them one by one */
		}
		pair_free(&p);
	}
	flow_spread = 0;
	printf("     %" PRIu64 " steps over %u sets (%u not for the batched rule: %" PRIu64
	       " calls, %" PRIu64 " victims); batched: %" PRIu64 " calls (%" PRIu64
	       " ending an idle period, %" PRIu64 " of several chunks, %" PRIu64
	       " with a short victim array), chunks below/between/above %" PRIu64 "/%" PRIu64
	       "/%" PRIu64 ", one-arrival chunks %" PRIu64 "/%" PRIu64 "/%" PRIu64 " (%" PRIu64
	       " on an empty span, %" PRIu64 " tail drops), %" PRIu64 " chunks between "
	       "with no excess; %" PRIu64 " matches, %" PRIu64 " holes drawn, %" PRIu64
	       " early drops, %" PRIu64 " forced drops, %" PRIu64 " early marks, %" PRIu64
	       " forced marks, %" PRIu64 " compactions, %" PRIu64 " wraps avoided\n",
	       total, sets, others, b.other_calls, b.other_victims, seen.calls, seen.idle_starts,
	       seen.multi_chunk_calls, b.short_cap, seen.chunks[0], seen.chunks[1],
	       seen.chunks[2], seen.one_chunks[0], seen.one_chunks[1], seen.one_chunks[2],
	       seen.one_empty, seen.one_tail_drops, seen.no_excess, seen.matches,
	       seen.holes_drawn, seen.early, seen.forced, seen.prob_marks, seen.forced_marks,
	       compactions, wraps);
	CHECK(seen.matches > 0 && seen.early > 0 && seen.forced > 0);
	CHECK(seen.prob_marks > 0 && seen.forced_marks > 0);
	CHECK(seen.holes_drawn > 0 && seen.one_tail_drops > 0 && seen.one_empty > 0);
	CHECK(seen.chunks[0] > 0 && seen.chunks[1] > 0 && seen.chunks[2] > 0);
	CHECK(seen.one_chunks[0] > 0 && seen.one_chunks[1] > 0 && seen.one_chunks[2] > 0);
	CHECK(seen.idle_starts > 0 && seen.multi_chunk_calls > 0 && b.short_cap > 0);
	CHECK_EQ(seen.idle_starts, b.idle_calls);
	CHECK(b.other_calls > 0 && b.other_victims > 0 && b.emptied > 0);
}

const struct tl_test model_tests[] = {
	{ "model/random-sequences", test_model_random_sequences },
	{ "model/protect-sequences", test_model_protect_sequences },
	{ "model/red-ext-sequences", test_model_red_ext_sequences },
	{ "model/burst-sequences", test_model_burst_sequences },
	{ "model/batch-sequences", test_model_batch_sequences },
	{ "model/tc-parameter-sets", test_model_tc_parameter_sets },
	{ "model/mainline-wraps-core-does-not", test_mainline_wraps_core_does_not },
	{ NULL, NULL },
};
