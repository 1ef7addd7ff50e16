// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * libchoke core: CHOKe, RED and FIFO on one ring of packet slots.
 * Behaviour follows Linux sch_choke / sch_red and red.h; see docs/core.md for
 * the specification this file implements and its documented departures.
 */
#include "choke/core.h"
#include "protect.h"
#include "red.h"

#if defined(__KERNEL__)
#include <linux/math64.h>
#define choke_div1000(x) div_u64((x), 1000)
#define choke_div64_32(x, d) div_u64((x), (d))
#define choke_div64(x, d) div64_u64((x), (d))
#else
#define choke_div1000(x) ((x) / 1000u)
#define choke_div64_32(x, d) ((x) / (d))
#define choke_div64(x, d) ((x) / (d))
#endif

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------ */
/* random numbers                                                      */

/* PCG32 (O'Neill): 64-bit LCG state, xorshift-rotate output. */
static inline uint32_t pcg32_next(uint64_t *state, uint64_t inc)
{
	uint64_t old = *state;
	uint32_t xorshifted, rot;

	*state = old * 6364136223846793005ull + inc;
	xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
	rot = (uint32_t)(old >> 59);
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

void choke_seed(struct choke *q, uint64_t seed)
{
	q->rng_state = 0;
	q->rng_inc = (seed << 1) | 1u;
	(void)pcg32_next(&q->rng_state, q->rng_inc);
	q->rng_state += seed ^ 0x853c49e6748fea9bull;
	(void)pcg32_next(&q->rng_state, q->rng_inc);
}

/* The host's generator. Out of line: the indirect call then stays off the
 * straight-line code of the built-in generator, the fast path. */
__attribute__((__noinline__)) static uint32_t choke_random_hook(struct choke *q)
{
	return q->ops.random_u32(q->ops.ctx);
}

static inline uint32_t choke_random(struct choke *q)
{
	if (unlikely(q->ops.random_u32 != NULL))
		return choke_random_hook(q);
	return pcg32_next(&q->rng_state, q->rng_inc);
}

/* Uniform on [0, n): the high half of random * n (prandom_u32_max()). */
static inline uint32_t choke_random_below(struct choke *q, uint32_t n)
{
	return (uint32_t)(((uint64_t)choke_random(q) * n) >> 32);
}

/* qR for the RED marking test: uniform on [0, 2^32 / max_P_div). */
static inline uint32_t red_random(struct choke *q)
{
	return choke_random(q) / q->max_P_div;
}

/* ------------------------------------------------------------------ */
/* small helpers (no libc)                                             */

static void slots_clear(struct choke_slot *tab, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		tab[i].pkt = NULL;
		tab[i].len = 0;
		tab[i].flow = 0;
	}
}

static void bytes_copy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

/* ------------------------------------------------------------------ */
/* names                                                               */

static const char *const kind_names[CHOKE_NKINDS] = { "choke", "red", "fifo" };

const char *choke_kind_name(int kind)
{
	return kind >= 0 && kind < CHOKE_NKINDS ? kind_names[kind] : "?";
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int choke_kind_from_word(const char *word)
{
	int k;

	for (k = 0; word && k < CHOKE_NKINDS; k++)
		if (str_eq(word, kind_names[k]))
			return k;
	return -1;
}

const char *choke_variant_name(int variant)
{
	static const char *const names[] = { "none", "draws", "adaptive", "geometric" };

	return variant >= 0 && variant <= CHOKE_VAR_GEOMETRIC ? names[variant] : "?";
}

static const char *const protect_by_names[CHOKE_PROTECT_BY_N] = {
	"flows", "srchost", "dsthost", "hosts",
};

const char *choke_protect_by_name(int by)
{
	return by >= 0 && by < CHOKE_PROTECT_BY_N ? protect_by_names[by] : "?";
}

int choke_protect_by_from_word(const char *word)
{
	int k;

	for (k = 0; word && k < CHOKE_PROTECT_BY_N; k++)
		if (str_eq(word, protect_by_names[k]))
			return k;
	return -1;
}

const char *choke_outcome_name(int outcome)
{
	static const char *const names[CHOKE_NOUTCOMES] = {
		[CHOKE_QUEUED] = "queued",     [CHOKE_QUEUED_MARKED] = "marked",
		[CHOKE_DROP_MATCH] = "match",  [CHOKE_DROP_FORCED] = "forced",
		[CHOKE_DROP_EARLY] = "early",  [CHOKE_DROP_LIMIT] = "limit",
		[CHOKE_DROP_PROTECT] = "protect",
	};

	return outcome >= 0 && outcome < CHOKE_NOUTCOMES ? names[outcome] : "?";
}

/* ------------------------------------------------------------------ */
/* configuration                                                       */

static void protect_configure(struct choke *q, uint16_t old_protect, uint64_t old_target_ns);

uint32_t choke_ring_slots(uint32_t limit)
{
	uint32_t t = 1;

	/* nextpow2(limit + 1), mainline's table size, doubled */
	while (t < limit + 1u)
		t <<= 1;
	return t << 1;
}

size_t choke_ring_bytes(uint32_t limit)
{
	return (size_t)choke_ring_slots(limit) * sizeof(struct choke_slot);
}

const char *choke_config_reason_text(int reason)
{
	static const char *const text[CHOKE_CFG_NREASONS] = {
#define CHOKE_CFG_TEXT_(code, msg) [code] = msg,
		CHOKE_CONFIG_REASONS(CHOKE_CFG_TEXT_)
#undef CHOKE_CFG_TEXT_
	};

	return reason >= 0 && reason < CHOKE_CFG_NREASONS ? text[reason] : "unknown reason";
}

enum choke_config_reason choke_config_validate(const struct choke_config *c)
{
	static const uint8_t kind_flags[CHOKE_NKINDS] = {
		[CHOKE_KIND_CHOKE] = CHOKE_FLAGS_CHOKE,
		[CHOKE_KIND_RED] = CHOKE_FLAGS_RED,
		[CHOKE_KIND_FIFO] = 0,
	};
	uint32_t limit = c->limit_bytes ? c->limit_bytes : c->limit;
	int i;

	if (c->kind >= CHOKE_NKINDS)
		return CHOKE_CFG_KIND;
	if (c->idle_unit > CHOKE_IDLE_KERNEL_US)
		return CHOKE_CFG_IDLE_UNIT;
	if (c->limit < 1 || c->limit > CHOKE_MAX_LIMIT)
		return CHOKE_CFG_LIMIT;
	if (c->flags & ~kind_flags[c->kind])
		return CHOKE_CFG_FLAGS;
	if (c->variant > CHOKE_VAR_GEOMETRIC)
		return CHOKE_CFG_VARIANT;
	if (c->variant && c->kind != CHOKE_KIND_CHOKE)
		return CHOKE_CFG_VARIANT_KIND;
	if (c->variant == CHOKE_VAR_DRAWS && (c->draws < 2 || c->draws > CHOKE_MAX_DRAWS))
		return CHOKE_CFG_DRAWS;
	if (c->variant == CHOKE_VAR_GEOMETRIC && (c->draws < 1 || c->draws > CHOKE_MAX_DRAWS))
		return CHOKE_CFG_GEOMETRIC;
	if (c->limit_bytes && c->kind == CHOKE_KIND_FIFO)
		return CHOKE_CFG_BYTES_KIND;
	if (c->limit_bytes && !c->avpkt)
		return CHOKE_CFG_BYTES_AVPKT;
	if (c->protect && c->kind != CHOKE_KIND_CHOKE)
		return CHOKE_CFG_PROTECT_KIND;
	if (c->protect && (c->protect < CHOKE_PROTECT_MIN || c->protect > CHOKE_PROTECT_MAX ||
			   (c->protect & (c->protect - 1))))
		return CHOKE_CFG_PROTECT_SIZE;
	if (c->protect_by >= CHOKE_PROTECT_BY_N || (c->protect_by && !c->protect))
		return CHOKE_CFG_PROTECT_BY;
	if (c->target_us > CHOKE_TARGET_MAX_US || (c->target_us && !c->protect))
		return CHOKE_CFG_TARGET;
	if (c->sparse > 1 || (c->sparse && c->kind != CHOKE_KIND_CHOKE))
		return CHOKE_CFG_SPARSE;
	if (c->red_ext & ~CHOKE_RED_EXT_ALL)
		return CHOKE_CFG_RED_EXT;
	if (c->red_ext && c->kind == CHOKE_KIND_FIFO)
		return CHOKE_CFG_RED_EXT_KIND;
	if (c->kind == CHOKE_KIND_FIFO)
		return CHOKE_CFG_OK; /* the RED parameters are not used */
	if (red_fls32(c->qth_min) + c->Wlog >= 32)
		return CHOKE_CFG_MIN_WLOG;
	if (red_fls32(c->qth_max) + c->Wlog >= 32)
		return CHOKE_CFG_MAX_WLOG;
	if (c->Scell_log >= 32)
		return CHOKE_CFG_SCELL_LOG;
	if (c->qth_max < c->qth_min)
		return CHOKE_CFG_MAX_BELOW_MIN;
	if (c->qth_max > limit)
		return CHOKE_CFG_MAX_ABOVE_LIMIT;
	for (i = 0; i < CHOKE_STAB_SIZE; i++)
		if (c->stab[i] >= 32)
			return CHOKE_CFG_STAB;
	return CHOKE_CFG_OK;
}

int choke_config_check(const struct choke_config *c, const char **why)
{
	enum choke_config_reason r = choke_config_validate(c);

	if (why)
		*why = choke_config_reason_text(r);
	return r == CHOKE_CFG_OK ? 0 : CHOKE_EINVAL;
}

/* red_set_parms() and red_set_vars() */
static void ared_configure(struct choke *q, const struct choke_config *c);

static void choke_apply_config(struct choke *q, const struct choke_config *c)
{
	int32_t delta = (int32_t)(c->qth_max - c->qth_min);
	uint32_t max_P = c->max_P;
	uint32_t div;

	q->limit = c->limit;
	q->flags = c->flags;
	q->kind = c->kind;
	q->variant = c->variant;
	q->draws = c->draws;
	q->limit_bytes = c->limit_bytes;
	q->avpkt = c->avpkt;
	q->bytes_mode = c->limit_bytes != 0;
	q->protect = c->protect;
	q->protect_by = c->protect_by;
	q->sparse = c->sparse;
	q->pr.target_ns = (uint64_t)c->target_us * 1000u;
	q->pr.goal_ns = q->pr.target_ns;
	q->idle_unit = c->idle_unit;
	q->Wlog = c->Wlog;
	q->Plog = c->Plog;
	q->qth_min = c->qth_min << c->Wlog;
	q->qth_max = c->qth_max << c->Wlog;
	if (delta <= 0)
		delta = 1;
	q->qth_delta = (uint32_t)delta;
	if (!max_P)
		max_P = red_maxp_from_plog(c->Plog) * (uint32_t)delta;
	q->max_P = max_P;
	div = max_P / (uint32_t)delta;
	q->max_P_div = div ? div : 1;
	q->Scell_log = c->Scell_log;
	q->Scell_max = (uint32_t)(255u << c->Scell_log);
	bytes_copy(q->stab, c->stab, CHOKE_STAB_SIZE);
	q->qavg = 0;
	q->qcount = -1;
	ared_configure(q, c);
}

int choke_init(struct choke *q, const struct choke_config *c, void *ring,
	       size_t ring_bytes)
{
	uint8_t *p = (uint8_t *)q;
	size_t i;

	if (choke_config_check(c, NULL))
		return CHOKE_EINVAL;
	if (!ring || ring_bytes < choke_ring_bytes(c->limit))
		return CHOKE_EINVAL;
	for (i = 0; i < sizeof(*q); i++)
		p[i] = 0;
	q->tab = (struct choke_slot *)ring;
	q->mask = choke_ring_slots(c->limit) - 1;
	slots_clear(q->tab, q->mask + 1);
	q->pr.probe = PROTECT_NONE;
	choke_apply_config(q, c);
	protect_configure(q, 0, 0);
	choke_seed(q, 0);
	return 0;
}

void choke_set_ops(struct choke *q, const struct choke_ops *ops)
{
	if (ops) {
		q->ops = *ops;
	} else {
		q->ops.random_u32 = NULL;
		q->ops.same_flow = NULL;
		q->ops.ctx = NULL;
	}
}

bool choke_change_needs_ring(const struct choke *q, uint32_t limit)
{
	return choke_ring_slots(limit) - 1 != q->mask;
}

/* ------------------------------------------------------------------ */
/* ring                                                                */

/* `sparse`: the bin a flow value's queued packets are counted in. */
static inline uint32_t occ_bin(uint32_t flow)
{
	return protect_bin(protect_mix(flow));
}

/* `sparse`: a packet of flow leaves the queue (or the lane). */
static inline void occ_dec(struct choke *q, uint32_t flow)
{
	uint16_t *o = &q->occ[occ_bin(flow)];

	if (*o)
		(*o)--;
}


/* The head after the slot at head and any holes after it (tab, mask and
 * tail as in the instance). */
static inline uint32_t ring_next_head(const struct choke_slot *tab, uint32_t mask,
				      uint32_t tail, uint32_t head)
{
	do {
		head = (head + 1) & mask;
		if (head == tail)
			break;
	} while (tab[head].pkt == NULL);
	return head;
}

/* Advance head past the slot it is on and any holes after it. */
static inline void ring_zap_head_holes(struct choke *q)
{
	q->head = ring_next_head(q->tab, q->mask, q->tail, q->head);
}

/*
 * The same for a ring that may hold holes at random places (CHOKe's victims
 * leave them): a single hole is skipped without a branch, since whether the
 * next slot is a hole is a coin toss the branch predictor loses; only runs
 * of two or more holes take the loop. Rings without holes (FIFO, RED) keep
 * the loop above, whose branch is always predicted and which therefore does
 * not make the next head wait for the load of the next slot.
 */
static inline void ring_zap_head_holes_choke(struct choke *q)
{
	const struct choke_slot *tab = q->tab;
	uint32_t mask = q->mask, tail = q->tail;
	uint32_t h = (q->head + 1) & mask;
	uint32_t hole = (uint32_t)(h != tail) & (uint32_t)(tab[h].pkt == NULL);

	h = (h + hole) & mask;
	if (unlikely(hole & (uint32_t)(h != tail) &
		     (uint32_t)(tab[h].pkt == NULL))) {
		do {
			h = (h + 1) & mask;
		} while (h != tail && tab[h].pkt == NULL);
	}
	q->head = h;
}

/* Remove the holes between head and tail in place, keeping order. */
__attribute__((__noinline__, __cold__)) static void ring_compact(struct choke *q)
{
	uint32_t r = q->head, w = q->head;

	while (r != q->tail) {
		if (q->tab[r].pkt) {
			if (w != r) {
				q->tab[w] = q->tab[r];
				q->tab[r].pkt = NULL;
			}
			w = (w + 1) & q->mask;
		}
		r = (r + 1) & q->mask;
	}
	q->tail = w;
	q->stats.compactions++;
	if (unlikely(q->pr.target_ns))
		q->pr.probe = PROTECT_NONE; /* the probe's slot moved */
}

/* sch_choke's choke_peek_random() with the host's generator. */
__attribute__((__noinline__)) static uint32_t ring_pick_random_hook(struct choke *q)
{
	uint32_t span = choke_span(q);
	int tries;
	uint32_t idx;

	for (tries = 3; tries > 0; tries--) {
		idx = (q->head + choke_random_below(q, span)) & q->mask;
		if (q->tab[idx].pkt)
			return idx;
	}
	return q->head;
}

/* sch_choke's choke_peek_random(): up to three uniform draws over the span,
 * then the head. Only called on a non-empty ring. The built-in generator's
 * state stays in a register across the draws. */
static inline uint32_t ring_pick_random(struct choke *q)
{
	const struct choke_slot *tab = q->tab;
	uint32_t head = q->head, mask = q->mask;
	uint32_t span = (q->tail - head) & mask;
	uint64_t st, inc;
	uint32_t idx;
	int tries;

	if (unlikely(q->ops.random_u32 != NULL))
		return ring_pick_random_hook(q);
	st = q->rng_state;
	inc = q->rng_inc;
	for (tries = 3; tries > 0; tries--) {
		uint32_t r = pcg32_next(&st, inc);

		idx = (head + (uint32_t)(((uint64_t)r * span) >> 32)) & mask;
		if (likely(tab[idx].pkt != NULL))
			break;
	}
	q->rng_state = st;
	return tries ? idx : head;
}

/* The head moves past a victim at head and the holes after it: a probe
 * (`target`) among the slots passed leaves unmeasured. */
static inline void ring_zap_after_victim(struct choke *q)
{
	uint32_t old = q->head;

	ring_zap_head_holes(q);
	if (unlikely(q->pr.probe != PROTECT_NONE) &&
	    ((q->pr.probe - old) & q->mask) < ((q->head - old) & q->mask))
		q->pr.probe = PROTECT_NONE;
}

/* Drop the queued packet at idx, leaving a hole. */
static inline void ring_drop_at(struct choke *q, uint32_t idx,
				struct choke_verdict *v)
{
	struct choke_slot *s = &q->tab[idx];

	v->victim[0] = s->pkt;
	v->victim_len[0] = s->len;
	v->nvictims = 1;
	s->pkt = NULL;
	if (unlikely(q->sparse))
		occ_dec(q, s->flow);
	if (idx == q->head)
		ring_zap_after_victim(q);
	q->qlen--;
	q->backlog -= s->len;
	q->stats.drops++;
	q->stats.match_victims++;
}

/* ------------------------------------------------------------------ */
/* protect (the rule and its pieces: src/core/protect.h)               */

/*
 * After init or change. Turned on, or `target` turned on or off (the clock
 * changes from bytes to time or back): no limit until the first window
 * ends, no boost, an empty bitmap and table. A new table size: an empty
 * table. Otherwise everything carries over (new RED parameters or a new
 * target do not change the flows' rates or their share).
 */
static void protect_configure(struct choke *q, uint16_t old_protect, uint64_t old_target_ns)
{
	uint32_t i;

	if (!q->protect) {
		q->pr.target_ns = 0;
		return;
	}
	if (old_protect && !old_target_ns != !q->pr.target_ns)
		old_protect = 0; /* another clock: start afresh */
	if (q->protect == old_protect) {
		q->pr.fair = protect_fair(q);
		return;
	}
	if (!old_protect) {
		q->pr.clock = 0;
		q->pr.unresp = 256;
		q->pr.drain = 0;
		q->pr.room = PROTECT_ROOM_ONE;
		q->pr.step_sent = (uint32_t)q->stats.sent_bytes;
		q->pr.spare = 0;
		q->pr.wstart_ns = q->pr.wbytes = q->pr.wsvc_ns = 0;
		q->svc_held = 0;
		q->pr.wmaxlen = 0;
		q->pr.share = PROTECT_SHARE_MAX;
		q->pr.boost = PROTECT_BOOST_ONE;
		q->pr.flows = q->pr.drops = 0;
		q->pr.idled = q->pr.busy = q->pr.dropped = q->pr.congested = 0;
		q->pr.probe = PROTECT_NONE;
		q->pr.step_ns = q->pr.idle_ns = 0;
		q->pr.delay_ns = ~0ull;
		for (i = 0; i < CHOKE_PROTECT_BINS / 64; i++)
			q->pr.seen[i] = 0;
	}
	for (i = 0; i < CHOKE_PROTECT_MAX; i++) {
		q->pr.e[i].flow = 0;
		q->pr.e[i].rate = 0;
		q->pr.e[i].stamp = 0;
	}
	for (i = 0; i < sizeof(q->pr.hint); i++)
		q->pr.hint[i] = 0;
	q->pr.nbuckets = q->protect / CHOKE_PROTECT_WAYS;
	q->pr.bshift = 32;
	for (i = q->pr.nbuckets; i > 1; i >>= 1)
		q->pr.bshift--;
	q->pr.sample_left = CHOKE_PROTECT_SAMPLE;
	q->pr.fair = protect_fair(q);
}

/*
 * Every arrival (CHOKe with protect): mark its flow seen in this window,
 * bring the flow's counter up to date and count the arrival in it; an
 * untracked flow is entered when the sample falls on it. Returns the
 * flow's entry or PROTECT_NONE.
 */
static inline __attribute__((__always_inline__)) uint32_t
protect_account(struct choke *q, uint32_t flow, uint32_t len)
{
	uint32_t h = protect_mix(flow), e = q->pr.hint[flow & 255];

	protect_see(q, h);
	/* The hint is tried first: whether this flow is tracked then shows
	 * after two loads, not after the mixing (two dependent multiplies)
	 * and the bucket's; the mixed value only feeds the bitmap then. */
	if (e >= q->protect || q->pr.e[e].flow != flow || !q->pr.e[e].rate) {
		e = protect_find(q, flow, h);
		if (e != PROTECT_NONE)
			q->pr.hint[flow & 255] = (uint8_t)e;
	}
	if (e != PROTECT_NONE) {
		struct choke_protect_entry *x = &q->pr.e[e];
		uint64_t age = (q->pr.clock - x->stamp) & PROTECT_STAMP_MASK;
		uint32_t r = protect_decay(x->rate, age);

		x->rate = r + len < r ? 0xffffffffu : r + len;
		x->stamp += age >> PROTECT_STEP_LOG << PROTECT_STEP_LOG;
		return e;
	}
	if (--q->pr.sample_left)
		return PROTECT_NONE;
	q->pr.sample_left = 1 + choke_random_below(q, 2 * CHOKE_PROTECT_SAMPLE - 1);
	return protect_insert(q, flow, len);
}

static inline int fls64_(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* Is the link congested now? The RED average above min; with `target`,
 * the last delay measured above the target. */
static inline bool protect_congested(const struct choke *q)
{
	return q->pr.target_ns ? q->pr.congested : q->qavg > q->qth_min;
}

/*
 * The rule: a tracked flow whose counter r exceeds the allowance A (F
 * while congested; 5/4 F otherwise if the link has been busy; none
 * otherwise) is dropped with probability 1 - A / r: it is admitted when a
 * uniform u32 u has u r < A 2^32, i.e. (u r) >> 32 < A. The random number
 * is drawn only above the allowance.
 */
enum { PROTECT_ADMIT, PROTECT_MARK, PROTECT_DROP };

static inline __attribute__((__always_inline__)) int
protect_verdict(struct choke *q, uint32_t e, unsigned pkt_flags)
{
	uint64_t allow, r;
	uint32_t lg;

	if (e == PROTECT_NONE)
		return PROTECT_ADMIT;
	allow = q->pr.fair;
	if (!protect_congested(q)) {
		if (!q->pr.target_ns && (!q->pr.busy || q->pr.idled))
			return PROTECT_ADMIT;
		allow += allow >> 2;
	}
	/* `target`: less while the delay stands above the goal, so that what
	 * stands drains (protect_interval_end) */
	allow -= (allow * q->pr.drain) >> 8;
	r = q->pr.e[e].rate;
	/* `target`: a young counter is read as what it forecasts while what
	 * stands drains (src/core/protect.h) */
	if (q->pr.drain)
		r = protect_young(q, e, r);
	if (r <= allow)
		return PROTECT_ADMIT;
	/* how many times the flow doubles its allowance, about */
	lg = (uint32_t)(fls64_(r) - fls64_(allow));
	/* `target`: a flow two doublings or more above (it does not back off)
	 * gets what the flows that back off reach, and never more than the
	 * equal split times the room (less the drain): the boost is room for
	 * flows that respond to drops, the room what an idling link leaves
	 * (src/core/protect.h) */
	if (lg > 1 && q->pr.target_ns) {
		uint64_t equal = protect_fair_equal(q);

		equal -= (equal * q->pr.drain) >> 8;
		allow = (allow * q->pr.unresp) >> 8;
		if (equal < allow)
			allow = equal;
		allow = (allow * q->pr.room) >> 6;
	}
	if ((((uint64_t)choke_random(q) * r) >> 32) < allow)
		return PROTECT_ADMIT;
	if (lg <= 1 && q->pr.target_ns) /* a flow that may respond was held */
		q->pr.spare = 0;
	/* ECN: a flow within twice its allowance that can be marked is
	 * marked; beyond, marks are not heeded and it is dropped */
	if (lg <= 1 && (q->flags & CHOKE_FLAG_ECN) && (pkt_flags & CHOKE_PKT_ECN_CAPABLE))
		return PROTECT_MARK;
	return PROTECT_DROP;
}

/* `target`: an arrival ended an idle period without its time
 * (CHOKE_TIME_DEFERRED, svc_held 2); now_ns is the first time known since,
 * and the idle period is taken to have lasted until then. */
static inline void late_settle(struct choke *q, uint64_t now_ns)
{
	if (now_ns > q->idle_start_ns)
		q->pr.idle_ns += now_ns - q->idle_start_ns;
	q->svc_held = 0;
}

/* Every departure of len bytes at now_ns: the clock, the ends of a
 * window and of a step. */
static inline __attribute__((__always_inline__)) void
protect_departure(struct choke *q, uint32_t len, uint64_t now_ns)
{
	uint64_t was = q->pr.clock;

	if (unlikely(q->pr.target_ns)) {
		uint32_t t = (uint32_t)(now_ns >> PROTECT_TIME_SHIFT);

		/* the link's rate from the departures that had a packet
		 * waiting before them: the time since the one before is
		 * this packet's service. Not the time the queue stood
		 * empty: a shaper above (tbf, htb) takes the packet of an
		 * empty queue at once and sends it later */
		if (unlikely(q->svc_held == 2))
			late_settle(q, now_ns);
		else if (q->svc_held) {
			q->pr.wbytes += len;
			q->pr.wsvc_ns += (uint64_t)(t - q->svc_last) << PROTECT_TIME_SHIFT;
		}
		q->svc_last = t;
		q->svc_held = q->qlen != 0;
		/* the queue ran empty: the link is busy with this packet for
		 * its service at the rate measured, and idle only after it */
		if (!q->qlen && q->pr.wbytes)
			q->idle_start_ns = now_ns + protect_div64((uint64_t)len * q->pr.wsvc_ns,
								  q->pr.wbytes);
		if (len > q->pr.wmaxlen)
			q->pr.wmaxlen = len;
		protect_tick(q, now_ns);
		return;
	}
	q->pr.clock += len;
	if (!((was ^ q->pr.clock) >> PROTECT_STEP_LOG))
		return;
	if ((was ^ q->pr.clock) >> CHOKE_PROTECT_WINDOW_LOG)
		protect_window_end(q);
	protect_step_end(q, now_ns);
}

/* `target`: the probe. An admitted packet at ring slot idx is timed if no
 * other is; a probe older than the target says the delay is above it. */
static inline void probe_arrival(struct choke *q, uint32_t idx, uint64_t now_ns)
{
	if (q->pr.probe == PROTECT_NONE) {
		q->pr.probe = idx;
		q->pr.probe_ns = now_ns;
	}
}

/* The head moved from old to q->head at now_ns: if it passed the probe's
 * slot, the probe's delay is the queue's. An empty queue has none. */
static inline void probe_departure(struct choke *q, uint32_t old, uint64_t now_ns)
{
	uint64_t d;

	if (q->pr.probe == PROTECT_NONE ||
	    ((q->pr.probe - old) & q->mask) >= ((q->head - old) & q->mask))
		return;
	q->pr.probe = PROTECT_NONE;
	d = now_ns > q->pr.probe_ns ? now_ns - q->pr.probe_ns : 0;
	if (d < q->pr.delay_ns)
		q->pr.delay_ns = d;
	q->pr.congested = d > q->pr.goal_ns;
}

/* ------------------------------------------------------------------ */
/* RED average                                                         */

static inline uint64_t idle_time_units(const struct choke *q, uint64_t now_ns)
{
	uint64_t d = now_ns > q->idle_start_ns ? now_ns - q->idle_start_ns : 0;

	d = q->idle_unit == CHOKE_IDLE_KERNEL_US ? choke_div1000(d) : d >> 6;
	return d < q->Scell_max ? d : q->Scell_max;
}

/* red_calc_qavg() followed by the end of any idle period. */
static inline void red_update_avg(struct choke *q, uint64_t now_ns)
{
	if (likely(!q->idle)) {
		q->qavg = red_avg_busy(q->qavg, q->Wlog,
				       likely(!q->bytes_mode) ? q->qlen : (uint32_t)q->backlog);
	} else {
		q->qavg = red_avg_after_idle(q->qavg, q->stab, q->Scell_log,
					     idle_time_units(q, now_ns));
		q->idle = false;
		if (unlikely(q->pr.target_ns) && now_ns > q->idle_start_ns)
			q->pr.idle_ns += now_ns - q->idle_start_ns;
	}
}

/* ------------------------------------------------------------------ */
/* gentle, wait and ARED (CHOKE_RED_*): RED beyond Linux's, opt-in     */

/* red_set_parms()'s target band for the adaptive algorithm; the first
 * period starts at the next arrival (the core has no clock here). tc
 * red's `adaptive` flag is sch_red's own ARED. */
static void ared_configure(struct choke *q, const struct choke_config *c)
{
	uint32_t d = q->qth_delta / 5;

	q->red_ext = c->red_ext;
	if (c->kind == CHOKE_KIND_RED && (c->flags & CHOKE_FLAG_ADAPTATIVE))
		q->red_ext |= CHOKE_RED_ARED;
	q->ared_target_min = c->qth_min + 2 * d;
	q->ared_target_max = c->qth_min + 3 * d;
	q->ared_next_ns = 0;
}

/* red_adaptative_algo() at the end of a period at time t: the average
 * then is the last one computed, or, if the queue stood empty at t, the
 * one the idle time up to t gives. */
static void ared_step(struct choke *q, uint64_t t, bool idle_at_t)
{
	uint64_t qavg = q->qavg;
	uint32_t d;

	if (idle_at_t)
		qavg = red_avg_after_idle(q->qavg, q->stab, q->Scell_log, idle_time_units(q, t));
	qavg >>= q->Wlog;
	if (qavg > q->ared_target_max && q->max_P <= CHOKE_ARED_MAX_P_MAX)
		q->max_P += q->max_P / 4 < CHOKE_ARED_MAX_P_MIN ? q->max_P / 4
							  : CHOKE_ARED_MAX_P_MIN;
	else if (qavg < q->ared_target_min && q->max_P >= CHOKE_ARED_MAX_P_MIN)
		q->max_P = (q->max_P / 10) * 9;
	/* DIV_ROUND_CLOSEST in the kernel's u32 arithmetic */
	d = (uint32_t)(q->max_P + q->qth_delta / 2) / q->qth_delta;
	q->max_P_div = d ? d : 1;
}

/* The periods that ended by now_ns, as sch_red's timer would have run
 * them. When one changes nothing and the average the later ones see is
 * the same (the queue is busy, or has been idle past the idle table's
 * cap), the rest up to now_ns change nothing either: they are skipped. */
__attribute__((__noinline__)) static void ared_catch_up(struct choke *q, uint64_t now_ns)
{
	if (!q->ared_next_ns) {
		q->ared_next_ns = now_ns + CHOKE_ARED_INTERVAL_NS;
		return;
	}
	while (now_ns >= q->ared_next_ns) {
		uint64_t t = q->ared_next_ns;
		uint32_t p = q->max_P, d = q->max_P_div;
		bool idle_at_t = q->idle && t >= q->idle_start_ns;

		ared_step(q, t, idle_at_t);
		q->ared_next_ns = t + CHOKE_ARED_INTERVAL_NS;
		if (q->max_P == p && q->max_P_div == d && now_ns >= q->ared_next_ns &&
		    (!q->idle || (idle_at_t && idle_time_units(q, t) >= q->Scell_max)))
			q->ared_next_ns += (choke_div64(now_ns - q->ared_next_ns,
							CHOKE_ARED_INTERVAL_NS) + 1) *
					   CHOKE_ARED_INTERVAL_NS;
	}
}

/* gentle: is the average in the region above max where the probability
 * still rises (to 1 at twice max)? With choke's comparisons (above max is
 * avg > max) and red's (avg >= max). */
static inline bool gentle_choke(const struct choke *q)
{
	return unlikely(q->red_ext & CHOKE_RED_GENTLE) && q->qavg <= 2 * (uint64_t)q->qth_max;
}

static inline bool gentle_red(const struct choke *q)
{
	return unlikely(q->red_ext & CHOKE_RED_GENTLE) && q->qavg < 2 * (uint64_t)q->qth_max;
}

/*
 * The marking test with gentle or wait. Between the thresholds it is
 * Linux's (excess * qcount >= qR, qR uniform on [0, R), R = 2^32 /
 * max_P_div), with wait one range R later (a mark after 1/p_b to 2/p_b
 * packets). In gentle's region p_b = max_P + (1 - max_P)(avg - max)/max
 * (Q0.32) and the same draw, qR * max_P_div, is compared with p_b * qcount
 * (with wait, plus 2^32). Byte mode scales both sides as
 * red_mark_probability_scaled does.
 */
__attribute__((__noinline__)) static bool red_mark_test_ext(const struct choke *q, uint32_t len)
{
	bool above = q->kind == CHOKE_KIND_RED ? q->qavg >= q->qth_max : q->qavg > q->qth_max;
	uint64_t count = (uint64_t)(int64_t)q->qcount, lhs, rhs;

	if ((q->red_ext & CHOKE_RED_GENTLE) && above) {
		uint64_t pb = q->max_P + choke_div64_32(((1ull << 32) - q->max_P) *
							(q->qavg - q->qth_max), q->qth_max);

		lhs = pb * count;
		rhs = (uint64_t)q->qR * q->max_P_div;
		if (q->red_ext & CHOKE_RED_WAIT)
			rhs += 1ull << 32;
	} else {
		lhs = ((q->qavg - q->qth_min) >> q->Wlog) * count;
		rhs = q->qR;
		if (q->red_ext & CHOKE_RED_WAIT)
			rhs += 0xffffffffu / q->max_P_div;
	}
	if (likely(!q->bytes_mode))
		return lhs >= rhs;
	return (unsigned __int128)lhs * len >= (unsigned __int128)rhs * q->avpkt;
}

/* ------------------------------------------------------------------ */
/* enqueue                                                             */

/* The host's exact flow comparison (out of line, as choke_random_hook). */
__attribute__((__noinline__)) static bool same_flow_hook(const struct choke *q,
						    const struct choke_slot *s,
						    const void *pkt)
{
	return q->ops.same_flow(q->ops.ctx, s->pkt, pkt);
}

static inline bool same_flow(const struct choke *q, const struct choke_slot *s,
			     uint32_t flow, const void *pkt)
{
	if (s->flow != flow)
		return false;
	return !q->ops.same_flow || same_flow_hook(q, s, pkt);
}

static inline int congestion_drop(struct choke *q, int outcome)
{
	q->stats.drops++;
	return outcome;
}

/* RED's marking test; in byte mode the probability scales with the
 * packet's size over avpkt (a packet of avpkt bytes sees p_b). */
static inline bool red_mark_test(const struct choke *q, uint32_t len)
{
	if (unlikely(q->red_ext & (CHOKE_RED_GENTLE | CHOKE_RED_WAIT)))
		return red_mark_test_ext(q, len);
	if (likely(!q->bytes_mode))
		return red_mark_probability(q->qavg, q->qth_min, q->Wlog, q->qcount, q->qR);
	return red_mark_probability_scaled(q->qavg, q->qth_min, q->Wlog, q->qcount,
					   q->qR, len, q->avpkt);
}

/* Draws for the variants: a fixed count, the adaptive count for the
 * region of [min, max] the average is in, or the geometric cap. */
static uint32_t variant_draws(const struct choke *q)
{
	uint32_t excess, span, region;

	if (q->variant != CHOKE_VAR_ADAPTIVE)
		return q->draws;
	if (q->qavg > q->qth_max)
		return 2 * CHOKE_ADAPTIVE_REGIONS;
	excess = (uint32_t)(q->qavg - q->qth_min); /* qth_min < qavg <= qth_max */
	span = q->qth_max - q->qth_min;
	region = span ? (uint32_t)(((uint64_t)excess * CHOKE_ADAPTIVE_REGIONS) / span) : 0;
	if (region >= CHOKE_ADAPTIVE_REGIONS)
		region = CHOKE_ADAPTIVE_REGIONS - 1;
	return 2 * (region + 1);
}

/*
 * The variants' comparison of an arrival with several queued packets (each
 * drawn as mainline draws one: up to three tries over the span, then the
 * head). All draws are made first; then every distinct matching packet is
 * dropped with the arrival. Geometric stops at the first draw that does
 * not match. Returns CHOKE_DROP_MATCH, or -1 if nothing matched.
 */
__attribute__((__noinline__)) static int choke_match_variant(struct choke *q,
							     uint32_t flow,
							     const void *pkt,
							     struct choke_verdict *v)
{
	uint32_t n = variant_draws(q), nv = 0, d, k;
	bool head_hit = false;

	for (d = 0; d < n; d++) {
		uint32_t idx = ring_pick_random(q);
		bool dup = false;

		q->stats.draws++;
		if (!same_flow(q, &q->tab[idx], flow, pkt)) {
			if (q->variant == CHOKE_VAR_GEOMETRIC)
				break;
			continue;
		}
		for (k = 0; k < nv; k++)
			dup |= v->victim_idx[k] == idx;
		if (!dup)
			v->victim_idx[nv++] = idx;
	}
	if (!nv)
		return -1;
	q->stats.matched++;
	for (k = 0; k < nv; k++) {
		struct choke_slot *s = &q->tab[v->victim_idx[k]];

		v->victim[k] = s->pkt;
		v->victim_len[k] = s->len;
		head_hit |= v->victim_idx[k] == q->head;
		s->pkt = NULL;
		if (q->sparse)
			occ_dec(q, s->flow);
		q->qlen--;
		q->backlog -= s->len;
	}
	v->nvictims = nv;
	q->stats.drops += nv;
	q->stats.match_victims += nv;
	if (head_hit)
		ring_zap_after_victim(q);
	/* Several victims per arrival leave holes quickly, and draws that land
	 * on holes fall back to the head: keep holes no more than packets (the
	 * compaction's cost, one pass over the span, is then O(1) amortised
	 * per hole). Mainline's single draw is left as it is. */
	if (choke_span(q) - q->qlen > q->qlen)
		ring_compact(q);
	return congestion_drop(q, CHOKE_DROP_MATCH);
}

/* CHOKe's decision (sch_choke.c choke_enqueue before admission).
 * Returns -1 to admit unmarked, CHOKE_QUEUED_MARKED to admit marked, or a
 * drop outcome. */
static inline __attribute__((__always_inline__)) int
choke_decide(struct choke *q, uint32_t flow, uint32_t id, const void *pkt, uint32_t len,
	     unsigned pkt_flags, uint32_t pe, struct choke_verdict *v, const bool prot)
{
	if (prot) {
		int pv = protect_verdict(q, pe, pkt_flags);

		if (pv == PROTECT_DROP) {
			q->stats.protect_drop++;
			q->pr.drops++;
			return congestion_drop(q, CHOKE_DROP_PROTECT);
		}
		if (pv == PROTECT_MARK) {
			q->stats.protect_mark++;
			q->pr.drops++;
		}
		/* `target`: protect's law is the whole discipline */
		if (q->pr.target_ns)
			return pv == PROTECT_MARK ? CHOKE_QUEUED_MARKED : -1;
		if (pv == PROTECT_MARK)
			return CHOKE_QUEUED_MARKED;
	}
	if (q->qavg <= q->qth_min) {
		q->qcount = -1;
		return -1;
	}
	if (q->head != q->tail) {
		if (unlikely(q->variant)) {
			if (choke_match_variant(q, flow, pkt, v) >= 0)
				goto matched;
		} else {
			uint32_t idx = ring_pick_random(q);

			q->stats.draws++;
			if (same_flow(q, &q->tab[idx], flow, pkt)) {
				q->stats.matched++;
				ring_drop_at(q, idx, v);
				q->stats.drops++;
				goto matched;
			}
		}
	}
	if (q->qavg > q->qth_max && !gentle_choke(q)) {
		q->qcount = -1;
		q->stats.overlimits++;
		if ((q->flags & CHOKE_FLAG_HARDDROP) ||
		    !(q->flags & CHOKE_FLAG_ECN) ||
		    !(pkt_flags & CHOKE_PKT_ECN_CAPABLE)) {
			q->stats.forced_drop++;
			return congestion_drop(q, CHOKE_DROP_FORCED);
		}
		q->stats.forced_mark++;
		return CHOKE_QUEUED_MARKED;
	}
	q->qcount = red_qcount_inc(q->qcount);
	if (q->qcount == 0) {
		q->qR = red_random(q);
		return -1;
	}
	if (!red_mark_test(q, len))
		return -1;
	q->qcount = 0;
	q->qR = red_random(q);
	q->stats.overlimits++;
	if (!(q->flags & CHOKE_FLAG_ECN) || !(pkt_flags & CHOKE_PKT_ECN_CAPABLE)) {
		q->stats.prob_drop++;
		return congestion_drop(q, CHOKE_DROP_EARLY);
	}
	q->stats.prob_mark++;
	return CHOKE_QUEUED_MARKED;
matched:
	/* a match is evidence that the flow is heavy: enter it */
	if (prot && pe == PROTECT_NONE)
		(void)protect_insert(q, id, len);
	return CHOKE_DROP_MATCH;
}

/* sch_red's decision (red_action() and the ECN/NODROP handling of
 * red_enqueue()), with RED's own comparisons: below is qavg < min, above is
 * qavg >= max. */
static inline int red_decide(struct choke *q, uint32_t len, unsigned pkt_flags)
{
	bool ecn = q->flags & CHOKE_FLAG_ECN;
	bool ect = pkt_flags & CHOKE_PKT_ECN_CAPABLE;
	bool nodrop = q->flags & CHOKE_FLAG_NODROP;

	if (q->qavg < q->qth_min) {
		q->qcount = -1;
		return -1;
	}
	if (q->qavg >= q->qth_max && !gentle_red(q)) {
		q->qcount = -1;
		q->stats.overlimits++;
		if ((q->flags & CHOKE_FLAG_HARDDROP) || !ecn) {
			q->stats.forced_drop++;
			return congestion_drop(q, CHOKE_DROP_FORCED);
		}
		if (ect) {
			q->stats.forced_mark++;
			return CHOKE_QUEUED_MARKED;
		}
		if (nodrop)
			return -1;
		q->stats.forced_drop++;
		return congestion_drop(q, CHOKE_DROP_FORCED);
	}
	q->qcount = red_qcount_inc(q->qcount);
	if (q->qcount == 0) {
		q->qR = red_random(q);
		return -1;
	}
	if (!red_mark_test(q, len))
		return -1;
	q->qcount = 0;
	q->qR = red_random(q);
	q->stats.overlimits++;
	if (!ecn) {
		q->stats.prob_drop++;
		return congestion_drop(q, CHOKE_DROP_EARLY);
	}
	if (ect) {
		q->stats.prob_mark++;
		return CHOKE_QUEUED_MARKED;
	}
	if (nodrop)
		return -1;
	q->stats.prob_drop++;
	return congestion_drop(q, CHOKE_DROP_EARLY);
}

/* `sparse`: does this arrival take the light lane? Its flow has nothing
 * queued, the lane has room and the packet is not a large one. */
static inline bool lane_takes(const struct choke *q, uint32_t flow, uint32_t len)
{
	return q->lane_len < CHOKE_LANE_SLOTS && len <= CHOKE_LANE_MAX_LEN &&
	       !q->occ[occ_bin(flow)];
}

/*
 * `sparse`: the limit reached, a lane arrival takes the room of the
 * queue's head (its oldest packet, of a flow with packets queued): the head
 * is dropped, v's victim, counted as a limit drop (pdrop), and the arrival
 * goes on. So a light flow's packet (a ping, a SYN, the retransmission of a
 * flow in timeout) is not refused by a FIFO that the heavy flows filled.
 * Not when the queue itself is empty (the lane holds the limit) or, in
 * byte mode, when the head's bytes would not make the arrival's room.
 * Returns whether it made room.
 */
__attribute__((__noinline__)) static bool lane_push_out(struct choke *q, uint32_t len,
							 uint64_t now_ns, struct choke_verdict *v)
{
	uint32_t old = q->head;
	struct choke_slot *s = &q->tab[old];

	if (old == q->tail || q->qlen > q->limit ||
	    (q->bytes_mode && q->backlog - s->len + len > q->limit_bytes))
		return false;
	v->victim[0] = s->pkt;
	v->victim_len[0] = s->len;
	v->nvictims = 1;
	s->pkt = NULL;
	ring_zap_head_holes_choke(q);
	occ_dec(q, s->flow);
	q->qlen--;
	q->backlog -= s->len;
	q->stats.pdrop++;
	q->stats.drops++;
	/* a timed head: its delay is the queue's */
	if (q->pr.target_ns)
		probe_departure(q, old, now_ns);
	return true;
}

/* `sparse`: an arrival for the lane. protect and the limit apply, CHOKe's
 * draw and RED do not (its flow has nothing queued to match, and it does
 * not make the queue); at the limit it pushes the queue's head out. */
static inline __attribute__((__always_inline__)) enum choke_outcome
lane_enqueue(struct choke *q, void *pkt, uint32_t len, uint32_t flow, uint32_t pe,
	     unsigned pkt_flags, uint64_t now_ns, struct choke_verdict *v, const bool prot)
{
	struct choke_slot *s;

	int pv = prot ? protect_verdict(q, pe, pkt_flags) : PROTECT_ADMIT;

	if (pv == PROTECT_DROP) {
		q->stats.protect_drop++;
		q->pr.drops++;
		return (enum choke_outcome)congestion_drop(q, CHOKE_DROP_PROTECT);
	}
	if ((q->qlen >= q->limit || (q->bytes_mode && q->backlog + len > q->limit_bytes)) &&
	    !lane_push_out(q, len, now_ns, v)) {
		q->stats.pdrop++;
		return (enum choke_outcome)congestion_drop(q, CHOKE_DROP_LIMIT);
	}
	s = &q->lane[(q->lane_head + q->lane_len) & (CHOKE_LANE_SLOTS - 1)];
	s->pkt = pkt;
	s->len = len;
	s->flow = flow;
	q->lane_len++;
	q->occ[occ_bin(flow)]++;
	q->qlen++;
	q->backlog += len;
	q->stats.lane_pkts++;
	if (pv == PROTECT_MARK) {
		q->stats.protect_mark++;
		q->pr.drops++;
		return CHOKE_QUEUED_MARKED;
	}
	return CHOKE_QUEUED;
}

/* The lane without protect: out of the queue's way. */
__attribute__((__noinline__)) static enum choke_outcome
lane_enqueue_plain(struct choke *q, void *pkt, uint32_t len, uint32_t flow, uint64_t now_ns,
		   struct choke_verdict *v)
{
	return lane_enqueue(q, pkt, len, flow, PROTECT_NONE, 0, now_ns, v, false);
}

/*
 * One arrival. prot is a constant: q->protect's truth, which the two
 * callers below know. The instance without protect has none of its code;
 * the one with it has protect's steps inline, not as calls.
 */
static inline __attribute__((__always_inline__)) enum choke_outcome
enqueue_one(struct choke *q, void *pkt, uint32_t len, uint32_t flow, uint32_t id,
	    unsigned pkt_flags, uint64_t now_ns, struct choke_verdict *v, const bool prot,
	    const bool late)
{
	int outcome = -1;
	struct choke_slot *s;

	v->nvictims = 0;
	q->stats.offered_pkts++;
	q->stats.offered_bytes += len;

	if (q->kind != CHOKE_KIND_FIFO) {
		if (unlikely(q->red_ext & CHOKE_RED_ARED))
			ared_catch_up(q, now_ns);
		if (late)
			q->idle = false;
		else
			red_update_avg(q, now_ns);
		if (q->kind == CHOKE_KIND_CHOKE) {
			uint32_t pe = PROTECT_NONE;

			if (prot) {
				if (q->pr.target_ns) {
					if (!late)
						protect_tick(q, now_ns);
					if (!late && unlikely(q->svc_held == 2))
						late_settle(q, now_ns);
					if (!q->qlen) /* it waits for nothing */
						q->svc_held = late ? 2 : 0;
					if (q->pr.probe != PROTECT_NONE &&
					    now_ns > q->pr.probe_ns + q->pr.goal_ns)
						q->pr.congested = 1;
				}
				pe = protect_account(q, id, len);
			}
			/* by flows, a flow above half its share is no light one;
			 * by hosts, the light flow of a busy host (its ping
			 * beside its downloads) still is, and protect polices
			 * the host in the lane as in the queue */
			if (unlikely(q->sparse) && lane_takes(q, flow, len) &&
			    (pe == PROTECT_NONE || q->protect_by ||
			     q->pr.e[pe].rate <= q->pr.fair >> 1))
				return prot ? lane_enqueue(q, pkt, len, flow, pe, pkt_flags, now_ns,
							   v, true) :
					      lane_enqueue_plain(q, pkt, len, flow, now_ns, v);
			outcome = choke_decide(q, flow, id, pkt, len, pkt_flags, pe, v, prot);
		} else
			outcome = red_decide(q, len, pkt_flags);
		if (outcome > CHOKE_QUEUED_MARKED) /* -1 admits unmarked */
			return (enum choke_outcome)outcome;
	}

	if (unlikely(q->qlen >= q->limit) ||
	    unlikely(q->bytes_mode && q->backlog + len > q->limit_bytes)) {
		q->stats.pdrop++;
		return (enum choke_outcome)congestion_drop(q, CHOKE_DROP_LIMIT);
	}
	/* Mainline's ring (half of ours) would wrap here. */
	if (unlikely(choke_span(q) == (q->mask >> 1)))
		q->stats.wrap_avoided++;
	/* Packets plus holes fill the ring: reclaim the holes. Our ring has
	 * at least 2 * limit + 1 usable slots, so this frees at least
	 * limit + 1 slots and costs O(1) amortised per hole. */
	if (unlikely(choke_span(q) == q->mask))
		ring_compact(q);
	if (prot && !late && unlikely(q->pr.target_ns)) /* not timed without a time */
		probe_arrival(q, q->tail, now_ns);
	if (unlikely(q->sparse))
		q->occ[occ_bin(flow)]++;
	s = &q->tab[q->tail];
	s->pkt = pkt;
	s->len = len;
	s->flow = flow;
	q->tail = (q->tail + 1) & q->mask;
	q->qlen++;
	q->backlog += len;
	return outcome < 0 ? CHOKE_QUEUED : (enum choke_outcome)outcome;
}

/* The instance with protect, a function of its own; the one without is
 * inline in the two entry points below, as the only path was before. */
__attribute__((__noinline__)) static enum choke_outcome
enqueue_protect(struct choke *q, void *pkt, uint32_t len, uint32_t flow, uint32_t id,
		unsigned pkt_flags, uint64_t now_ns, struct choke_verdict *v)
{
	return enqueue_one(q, pkt, len, flow, id, pkt_flags, now_ns, v, true, false);
}

/* An arrival without its time (choke_enqueue_may_defer_time): decided on
 * protect's clock as it stands, the idle period's length settled at the
 * next time known (late_settle). Where deferring was not allowed, the time
 * the link went idle stands in for an arrival as any other. */
__attribute__((__noinline__)) static enum choke_outcome
enqueue_protect_late(struct choke *q, void *pkt, uint32_t len, uint32_t flow, uint32_t id,
		     unsigned pkt_flags, struct choke_verdict *v)
{
	if (!choke_enqueue_may_defer_time(q))
		return enqueue_protect(q, pkt, len, flow, id, pkt_flags, q->idle_start_ns, v);
	return enqueue_one(q, pkt, len, flow, id, pkt_flags, q->idle_start_ns, v, true, true);
}

enum choke_outcome choke_enqueue(struct choke *q, void *pkt, uint32_t len, uint32_t flow,
				 unsigned pkt_flags, uint64_t now_ns, struct choke_verdict *v)
{
	if (unlikely(q->protect))
		return unlikely(now_ns == CHOKE_TIME_DEFERRED) ?
			       enqueue_protect_late(q, pkt, len, flow, flow, pkt_flags, v) :
			       enqueue_protect(q, pkt, len, flow, flow, pkt_flags, now_ns, v);
	return enqueue_one(q, pkt, len, flow, flow, pkt_flags, now_ns, v, false, false);
}

enum choke_outcome choke_enqueue_as(struct choke *q, void *pkt, uint32_t len, uint32_t flow,
				    uint32_t id, unsigned pkt_flags, uint64_t now_ns,
				    struct choke_verdict *v)
{
	if (unlikely(q->protect))
		return unlikely(now_ns == CHOKE_TIME_DEFERRED) ?
			       enqueue_protect_late(q, pkt, len, flow, id, pkt_flags, v) :
			       enqueue_protect(q, pkt, len, flow, id, pkt_flags, now_ns, v);
	return enqueue_one(q, pkt, len, flow, id, pkt_flags, now_ns, v, false, false);
}

/* A mark the host could not set becomes the drop a packet that is not
 * ECN-capable gets: the arrival leaves the tail again. RED's count and
 * draw, protect's accounting and the average are already what that packet
 * leaves; only the counters and the ring change. */
int choke_enqueue_unmarkable(struct choke *q, void *pkt, enum choke_outcome which)
{
	uint32_t last = (q->tail - 1) & q->mask;
	struct choke_slot *s = &q->tab[last];
	uint64_t *mark, *drop;

	if (q->head == q->tail || s->pkt != pkt || q->sparse || q->pr.target_ns ||
	    (q->kind == CHOKE_KIND_RED && (q->flags & CHOKE_FLAG_NODROP)))
		return CHOKE_EINVAL;
	if (which == CHOKE_DROP_EARLY) {
		mark = &q->stats.prob_mark;
		drop = &q->stats.prob_drop;
	} else if (which == CHOKE_DROP_FORCED) {
		mark = &q->stats.forced_mark;
		drop = &q->stats.forced_drop;
	} else if (which == CHOKE_DROP_PROTECT) {
		mark = &q->stats.protect_mark;
		drop = &q->stats.protect_drop;
	} else {
		return CHOKE_EINVAL;
	}
	if (!*mark)
		return CHOKE_EINVAL;
	(*mark)--;
	(*drop)++;
	q->stats.drops++;
	s->pkt = NULL;
	q->tail = last;
	q->qlen--;
	q->backlog -= s->len;
	return 0;
}

/* ------------------------------------------------------------------ */
/* dequeue, peek, reset, change                                        */

/* The queue ran empty at now_ns: an idle period starts (RED's average
 * decays by its length); for protect the link idled, and with `target`
 * the queue has no delay. */
static inline void idle_begin(struct choke *q, uint64_t now_ns)
{
	q->idle = true;
	if (!q->pr.target_ns) {
		q->idle_start_ns = now_ns;
	} else {
		/* an arrival without its time that did not stay: idle
		 * since */
		if (unlikely(q->svc_held == 2))
			late_settle(q, now_ns);
		/* not before the last departure's service ends */
		if (now_ns > q->idle_start_ns)
			q->idle_start_ns = now_ns;
	}
	q->pr.idled = 1;
	q->pr.congested = 0;
	q->pr.delay_ns = 0;
}

/* `sparse`: the lane's first packet. */
__attribute__((__noinline__)) static void *lane_dequeue(struct choke *q, uint64_t now_ns,
							 uint32_t *len)
{
	struct choke_slot *s = &q->lane[q->lane_head];
	void *pkt = s->pkt;

	if (len)
		*len = s->len;
	s->pkt = NULL;
	q->lane_head = (q->lane_head + 1) & (CHOKE_LANE_SLOTS - 1);
	q->lane_len--;
	q->lane_turn = 1;
	if (q->sparse)
		occ_dec(q, s->flow);
	q->qlen--;
	q->backlog -= s->len;
	q->stats.sent_pkts++;
	q->stats.sent_bytes += s->len;
	if (q->protect)
		protect_departure(q, s->len, now_ns);
	return pkt;
}

void *choke_dequeue(struct choke *q, uint64_t now_ns, uint32_t *len)
{
	struct choke_slot *s;
	void *pkt;
	uint32_t old;

	/* the lane first, but one of the queue's packets between two of its */
	if (unlikely(q->lane_len) && (!q->lane_turn || q->head == q->tail))
		return lane_dequeue(q, now_ns, len);
	if (q->head == q->tail) {
		if (!q->idle)
			idle_begin(q, now_ns);
		return NULL;
	}
	old = q->head;
	s = &q->tab[old];
	pkt = s->pkt;
	if (len)
		*len = s->len;
	s->pkt = NULL;
	if (q->kind == CHOKE_KIND_CHOKE)
		ring_zap_head_holes_choke(q);
	else
		ring_zap_head_holes(q);
	q->qlen--;
	q->backlog -= s->len;
	q->stats.sent_pkts++;
	q->stats.sent_bytes += s->len;
	q->lane_turn = 0;
	if (unlikely(q->sparse))
		occ_dec(q, s->flow);
	if (unlikely(q->protect)) {
		if (q->pr.target_ns)
			probe_departure(q, old, now_ns);
		protect_departure(q, s->len, now_ns);
	}
	return pkt;
}

/* ------------------------------------------------------------------ */
/* bursts                                                              */

uint32_t choke_victims_per_arrival(const struct choke *q)
{
	if (q->kind != CHOKE_KIND_CHOKE)
		return 0;
	if (q->variant == CHOKE_VAR_NONE)
		return 1;
	if (q->variant == CHOKE_VAR_ADAPTIVE)
		return 2 * CHOKE_ADAPTIVE_REGIONS;
	return q->draws;
}

/* Any kind, any option: arrivals i .. n - 1 through choke_enqueue (called,
 * not inlined again, so that the single-packet path stays as it is).
 * Returns the victims written at victim[nv ..]. */
static uint32_t enqueue_burst_any(struct choke *q, void *const pkt[], const uint32_t len[],
				  const uint32_t flow[], const uint8_t pkt_flags[],
				  uint32_t i, uint32_t n, uint64_t now_ns,
				  uint8_t outcome[], struct choke_victim victim[], uint32_t nv)
{
	struct choke_verdict v;
	uint32_t k;

	for (; i < n; i++) {
		outcome[i] = (uint8_t)choke_enqueue(q, pkt[i], len[i], flow[i],
						  pkt_flags ? pkt_flags[i] : 0u, now_ns, &v);
		for (k = 0; k < v.nvictims; k++, nv++) {
			victim[nv].pkt = v.victim[k];
			victim[nv].len = v.victim_len[k];
			victim[nv].arrival = i;
		}
	}
	return nv;
}

/*
 * Does a burst of n arrivals stay clear of the admission's rare cases? The
 * queue grows by at most one packet and the span by at most one slot per
 * arrival, so if qlen + n <= limit no arrival finds the queue full, and if
 * span + n <= mask / 2 none finds the span at mainline's wrap point or the
 * ring full of packets and holes. Then the loops below leave those tests
 * out.
 */
static inline bool burst_has_room(const struct choke *q, uint32_t n)
{
	return (uint64_t)q->qlen + n <= q->limit &&
	       (uint64_t)choke_span(q) + n <= (q->mask >> 1);
}

/* The admission at tail when burst_has_room() did not say so: the limit,
 * the wrap count and the compaction, as choke_enqueue. Returns false for a
 * tail drop (counted). */
static inline bool burst_admit_checks(struct choke *q, uint32_t qlen, uint32_t head,
				      uint32_t *tail)
{
	uint32_t span;

	if (unlikely(qlen >= q->limit)) {
		q->stats.pdrop++;
		q->stats.drops++;
		return false;
	}
	span = (*tail - head) & q->mask;
	if (span == (q->mask >> 1))
		q->stats.wrap_avoided++;
	if (unlikely(span == q->mask)) {
		q->head = head;
		q->tail = *tail;
		ring_compact(q);
		*tail = q->tail;
	}
	return true;
}

/*
 * FIFO: tail drop at limit only (choke_enqueue for CHOKE_KIND_FIFO, which
 * neither reads the time nor ends an idle period).
 */
static inline __attribute__((__always_inline__)) void
enqueue_burst_fifo(struct choke *q, void *const pkt[], const uint32_t len[],
		   const uint32_t flow[], uint32_t n, uint8_t outcome[], const bool room)
{
	struct choke_slot *tab = q->tab;
	const uint32_t mask = q->mask, head = q->head;
	uint32_t tail = q->tail, qlen = q->qlen, i;
	uint64_t backlog = q->backlog, bytes = 0;

	for (i = 0; i < n; i++) {
		uint32_t l = len[i];

		bytes += l;
		if (!room && !burst_admit_checks(q, qlen, head, &tail)) {
			outcome[i] = CHOKE_DROP_LIMIT;
			continue;
		}
		tab[tail].pkt = pkt[i];
		tab[tail].len = l;
		tab[tail].flow = flow[i];
		tail = (tail + 1) & mask;
		qlen++;
		backlog += l;
		outcome[i] = CHOKE_QUEUED;
	}
	q->tail = tail;
	q->qlen = qlen;
	q->backlog = backlog;
	q->stats.offered_pkts += n;
	q->stats.offered_bytes += bytes;
}

/*
 * Mainline CHOKe (no variant, no protect, packets, the built-in generator,
 * no same_flow hook) with the queue not idle: choke_enqueue's decisions with
 * the ring, the RED average and count and the generator in registers.
 * The settings are read from q where used (one cache line) and the
 * counters of rare events are counted in q directly, so that the loop's
 * state stays in registers. Returns the victims written.
 */
static inline __attribute__((__always_inline__)) uint32_t
enqueue_burst_choke(struct choke *q, void *const pkt[], const uint32_t len[],
		    const uint32_t flow[], const uint8_t pkt_flags[], uint32_t n,
		    uint8_t outcome[], struct choke_victim victim[], const bool room)
{
	struct choke_slot *tab = q->tab;
	const uint32_t mask = q->mask;
	uint32_t head = q->head, tail = q->tail, qlen = q->qlen;
	const uint64_t backlog0 = q->backlog;
	uint64_t backlog = backlog0, qavg = q->qavg, st = q->rng_state;
	int32_t qcount = q->qcount;
	uint32_t nv = 0, i;

	/* Two counters kept out of the registers: every arrival draws but
	 * those below min or at an empty queue (counted down where they
	 * happen), and the offered bytes are the backlog's growth plus the
	 * bytes that left with a drop (counted where it happens). */
	q->stats.draws += n;

	for (i = 0; i < n; i++) {
		uint32_t l = len[i], f = flow[i];
		uint8_t out = CHOKE_QUEUED;

		qavg = red_avg_busy(qavg, q->Wlog, qlen);
		if (qavg <= q->qth_min) {
			qcount = -1;
			q->stats.draws--;
			goto admit;
		}
		if (unlikely(head == tail)) {
			q->stats.draws--;
		} else {
			const uint64_t inc = q->rng_inc;
			uint32_t span = (tail - head) & mask, idx;
			struct choke_slot *s;
			int tries;

			/* sch_choke's three tries, the first one inline */
			idx = (head + (uint32_t)(((uint64_t)pcg32_next(&st, inc) * span) >> 32)) &
			      mask;
			if (unlikely(tab[idx].pkt == NULL)) {
				for (tries = 2; tries > 0; tries--) {
					uint32_t r = pcg32_next(&st, inc);

					idx = (head + (uint32_t)(((uint64_t)r * span) >> 32)) & mask;
					if (tab[idx].pkt != NULL)
						break;
				}
				if (!tries)
					idx = head;
			}
			s = &tab[idx];
			if (s->flow == f) {
				victim[nv].pkt = s->pkt;
				victim[nv].len = s->len;
				victim[nv].arrival = i;
				nv++;
				s->pkt = NULL;
				if (unlikely(idx == head))
					head = ring_next_head(tab, mask, tail, head);
				qlen--;
				backlog -= s->len;
				q->stats.offered_bytes += (uint64_t)l + s->len;
				outcome[i] = CHOKE_DROP_MATCH;
				continue;
			}
		}
		if (unlikely(qavg > q->qth_max)) {
			qcount = -1;
			q->stats.overlimits++;
			if ((q->flags & CHOKE_FLAG_HARDDROP) || !(q->flags & CHOKE_FLAG_ECN) ||
			    !pkt_flags || !(pkt_flags[i] & CHOKE_PKT_ECN_CAPABLE)) {
				q->stats.forced_drop++;
				q->stats.drops++;
				q->stats.offered_bytes += l;
				outcome[i] = CHOKE_DROP_FORCED;
				continue;
			}
			q->stats.forced_mark++;
			out = CHOKE_QUEUED_MARKED;
			goto admit;
		}
		qcount = red_qcount_inc(qcount);
		if (unlikely(qcount == 0)) {
			q->qR = pcg32_next(&st, q->rng_inc) / q->max_P_div;
			goto admit;
		}
		if (likely(!red_mark_probability(qavg, q->qth_min, q->Wlog, qcount, q->qR)))
			goto admit;
		qcount = 0;
		q->qR = pcg32_next(&st, q->rng_inc) / q->max_P_div;
		q->stats.overlimits++;
		if (!(q->flags & CHOKE_FLAG_ECN) || !pkt_flags ||
		    !(pkt_flags[i] & CHOKE_PKT_ECN_CAPABLE)) {
			q->stats.prob_drop++;
			q->stats.drops++;
			q->stats.offered_bytes += l;
			outcome[i] = CHOKE_DROP_EARLY;
			continue;
		}
		q->stats.prob_mark++;
		out = CHOKE_QUEUED_MARKED;
admit:
		if (!room && !burst_admit_checks(q, qlen, head, &tail)) {
			q->stats.offered_bytes += l;
			outcome[i] = CHOKE_DROP_LIMIT;
			continue;
		}
		tab[tail].pkt = pkt[i];
		tab[tail].len = l;
		tab[tail].flow = f;
		tail = (tail + 1) & mask;
		qlen++;
		backlog += l;
		outcome[i] = out;
	}
	q->head = head;
	q->tail = tail;
	q->qlen = qlen;
	q->backlog = backlog;
	q->qavg = qavg;
	q->qcount = qcount;
	q->rng_state = st;
	q->stats.offered_pkts += n;
	q->stats.offered_bytes += backlog - backlog0; /* modulo 2^64 */
	q->stats.matched += nv;
	q->stats.match_victims += nv;
	q->stats.drops += 2 * (uint64_t)nv;
	return nv;
}

/*
 * RED (packets, the built-in generator) with the queue not idle: the
 * average and the common decisions (below min; between the thresholds
 * without a mark) in registers; any other arrival goes through
 * choke_enqueue() with the state written back first (called, so that the
 * single-packet path's code stays as it is).
 */
static inline __attribute__((__always_inline__)) void
enqueue_burst_red(struct choke *q, void *const pkt[], const uint32_t len[],
		  const uint32_t flow[], const uint8_t pkt_flags[], uint32_t n,
		  uint8_t outcome[], const bool room)
{
	struct choke_slot *tab = q->tab;
	const uint32_t mask = q->mask, head = q->head;
	uint32_t tail = q->tail, qlen = q->qlen, i, nslow = 0;
	uint64_t backlog = q->backlog, qavg = q->qavg, bytes = 0;
	int32_t qcount = q->qcount;

	for (i = 0; i < n; i++) {
		uint32_t l = len[i];
		uint64_t avg = red_avg_busy(qavg, q->Wlog, qlen);
		int32_t c;

		if (avg < q->qth_min) {
			qcount = -1;
		} else if (unlikely(avg >= q->qth_max || (c = red_qcount_inc(qcount)) == 0 ||
				    red_mark_probability(avg, q->qth_min, q->Wlog, c, q->qR))) {
			struct choke_verdict v;

			q->tail = tail;
			q->qlen = qlen;
			q->backlog = backlog;
			q->qavg = qavg;
			q->qcount = qcount;
			outcome[i] = (uint8_t)choke_enqueue(q, pkt[i], l, flow[i],
							    pkt_flags ? pkt_flags[i] : 0u, 0, &v);
			tail = q->tail;
			qlen = q->qlen;
			backlog = q->backlog;
			qavg = q->qavg;
			qcount = q->qcount;
			nslow++;
			continue;
		} else {
			qcount = c;
		}
		qavg = avg;
		bytes += l;
		if (!room && !burst_admit_checks(q, qlen, head, &tail)) {
			outcome[i] = CHOKE_DROP_LIMIT;
			continue;
		}
		tab[tail].pkt = pkt[i];
		tab[tail].len = l;
		tab[tail].flow = flow[i];
		tail = (tail + 1) & mask;
		qlen++;
		backlog += l;
		outcome[i] = CHOKE_QUEUED;
	}
	q->tail = tail;
	q->qlen = qlen;
	q->backlog = backlog;
	q->qavg = qavg;
	q->qcount = qcount;
	q->stats.offered_pkts += n - nslow;
	q->stats.offered_bytes += bytes;
}

int choke_enqueue_burst(struct choke *q, void *const pkt[], const uint32_t len[],
			const uint32_t flow[], const uint8_t pkt_flags[], uint32_t n,
			uint64_t now_ns, uint8_t outcome[], struct choke_victim victim[],
			uint32_t victim_cap, uint32_t *nvictims)
{
	uint32_t nv = 0, i = 0, k, more;

	*nvictims = 0;
	if ((uint64_t)n * choke_victims_per_arrival(q) > victim_cap)
		return CHOKE_EINVAL;
	if (!n)
		return 0;
	if (q->kind == CHOKE_KIND_FIFO) {
		if (likely(burst_has_room(q, n)))
			enqueue_burst_fifo(q, pkt, len, flow, n, outcome, true);
		else
			enqueue_burst_fifo(q, pkt, len, flow, n, outcome, false);
		return 0;
	}
	if (q->variant || q->protect || q->sparse || q->bytes_mode || q->red_ext || q->ops.random_u32 ||
	    (q->kind == CHOKE_KIND_CHOKE && q->ops.same_flow)) {
		*nvictims = enqueue_burst_any(q, pkt, len, flow, pkt_flags, 0, n, now_ns,
					      outcome, victim, 0);
		return 0;
	}
	/* the one idle check of the burst: an idle period ends at the first
	 * arrival, the others find the queue busy */
	if (unlikely(q->idle)) {
		nv = enqueue_burst_any(q, pkt, len, flow, pkt_flags, 0, 1, now_ns, outcome,
				       victim, 0);
		i = 1;
	}
	if (q->kind == CHOKE_KIND_RED) {
		if (likely(burst_has_room(q, n - i)))
			enqueue_burst_red(q, pkt + i, len + i, flow + i,
					  pkt_flags ? pkt_flags + i : NULL, n - i, outcome + i, true);
		else
			enqueue_burst_red(q, pkt + i, len + i, flow + i,
					  pkt_flags ? pkt_flags + i : NULL, n - i, outcome + i,
					  false);
		return 0;
	}
	if (likely(burst_has_room(q, n - i)))
		more = enqueue_burst_choke(q, pkt + i, len + i, flow + i,
					   pkt_flags ? pkt_flags + i : NULL, n - i, outcome + i,
					   victim + nv, true);
	else
		more = enqueue_burst_choke(q, pkt + i, len + i, flow + i,
					   pkt_flags ? pkt_flags + i : NULL, n - i, outcome + i,
					   victim + nv, false);
	/* arrival indices of the whole burst */
	for (k = nv; i && k < nv + more; k++)
		victim[k].arrival += i;
	*nvictims = nv + more;
	return 0;
}

/*
 * Batched CHOKe (choke_enqueue_burst_batched, docs/variants.md). The
 * arrivals are taken in chunks of up to CHOKE_BATCH_CHUNK, and a chunk's
 * decisions are made from the queue as it stood when the chunk began:
 *  - every arrival takes one random number and draws one slot among the
 *    span of that queue; a hole, or a packet an earlier arrival of the
 *    chunk took, is no match;
 *  - RED's region (below min, between, above max) and its probability
 *    are those of the average the chunk's first arrival sees; the average
 *    itself still moves with every arrival, and the count and the
 *    marks follow the arrivals in order, RED's random numbers after the
 *    chunk's draws.
 * The match is applied as data (no branch on its outcome), and between
 * the thresholds RED's test is a compare of the count with a threshold
 * computed at each mark, not a multiply per arrival.
 */
#define CHOKE_BATCH_CHUNK 32u
enum { BATCH_BELOW, BATCH_BETWEEN, BATCH_ABOVE };

#define BATCH_NEVER 0x7fffffff /* a count RED never reaches */

/* The count at which RED marks, for this excess and qR: the first count
 * c >= 1 with excess * c >= qR (BATCH_NEVER for a zero excess). */
static inline int32_t batch_mark_at(uint64_t excess, uint32_t qR)
{
	uint32_t e, c;

	if (!excess)
		return BATCH_NEVER;
	/* the excess is at most the limit in packets: 32 bits (a 32-bit
	 * division, as the kernel wants) */
	e = excess > 0xffffffffu ? 0xffffffffu : (uint32_t)excess;
	c = qR / e + (qR % e != 0);
	if (c < 1)
		c = 1;
	return c > BATCH_NEVER ? BATCH_NEVER : (int32_t)c;
}

/* live: the span held anything when the chunk began; room: no arrival of
 * the chunk can meet the limit or the ring's end (burst_has_room), else
 * the chunk is one arrival. Arrivals i0 .. i0 + n - 1 of the call. */
static inline __attribute__((__always_inline__)) uint32_t
enqueue_batch_chunk(struct choke *q, void *const pkt[], const uint32_t len[],
		    const uint32_t flow[], const uint8_t pkt_flags[], uint32_t i0, uint32_t n,
		    uint8_t outcome[], struct choke_victim *vp, const bool room, const bool live,
		    const int region)
{
	struct choke_slot *const tab = q->tab, *const tab_end = tab + q->mask + 1;
	struct choke_slot *ts = tab + q->tail;
	struct choke_victim *const v0 = vp;
	/* each draw's slot, its lowest bit set if the slot's flow is the
	 * arrival's (slots are at least 8-byte aligned) */
	uintptr_t cand[CHOKE_BATCH_CHUNK];
	const uint32_t end = i0 + n;
	const bool draw = live && region != BATCH_BELOW;
	uint32_t head = q->head, qlen = q->qlen, i;
	uint64_t qavg = q->qavg, st = q->rng_state, bytes = 0, gone = 0, excess = 0;
	int32_t qcount = q->qcount, mark_at = 0;

	{
		const uint32_t mask = q->mask, span = (q->tail - head) & mask;
		const uint64_t inc = q->rng_inc;

		for (i = i0; i < end; i++) {
			const struct choke_slot *s =
				&tab[(head + (uint32_t)(((uint64_t)pcg32_next(&st, inc) * span) >> 32)) &
				     mask];

			bytes += len[i];
			cand[i - i0] = (uintptr_t)s | (draw && s->flow == flow[i]);
		}
	}
	if (draw)
		q->stats.draws += n;
	if (region == BATCH_BETWEEN) {
		excess = (red_avg_busy(qavg, q->Wlog, qlen) - q->qth_min) >> q->Wlog;
		/* qcount < mark_at holds between arrivals: a count already at
		 * the mark marks the next unmatched arrival */
		if (qcount < 0) {
			mark_at = 0;
		} else {
			/* a count of 2^31 - 1 (2^31 arrivals without a mark,
			 * only through choke_enqueue) is taken as one less */
			if (qcount >= BATCH_NEVER)
				qcount = BATCH_NEVER - 1;
			mark_at = batch_mark_at(excess, q->qR);
			if (mark_at <= qcount)
				mark_at = qcount + 1;
		}
	}
	for (i = i0; i < end; i++) {
		const uint32_t l = len[i];
		uintptr_t m = 0;
		uint8_t out = CHOKE_QUEUED;

		qavg = red_avg_busy(qavg, q->Wlog, qlen);
		if (region == BATCH_BELOW) {
			qcount = -1;
			goto admit;
		}
		if (live) {
			const uintptr_t c = cand[i - i0];
			struct choke_slot *s = (struct choke_slot *)(c & ~(uintptr_t)1);
			void *sp = s->pkt;

			m = c & (uintptr_t)(sp != NULL);
			__asm__("" : "+r"(m)); /* no branch on it */
			vp->pkt = sp;
			vp->len = s->len;
			vp->arrival = i;
			vp += m;
			s->pkt = (void *)((uintptr_t)sp & (m - 1u));
			gone += ((uint64_t)l + s->len) & (0u - (uint64_t)m);
			/* the draws are from the chunk's first span: head moves
			 * past a victim on it at the chunk's end, or here if the
			 * chunk is one arrival (its admission may compact) */
			if (!room && unlikely(s == &tab[head]) && m)
				head = ring_next_head(tab, q->mask, (uint32_t)(ts - tab), head);
		}
		if (region == BATCH_ABOVE) {
			if (m)
				goto admit;
			qcount = -1;
			q->stats.overlimits++;
			if ((q->flags & CHOKE_FLAG_HARDDROP) || !(q->flags & CHOKE_FLAG_ECN) ||
			    !pkt_flags || !(pkt_flags[i] & CHOKE_PKT_ECN_CAPABLE)) {
				q->stats.forced_drop++;
				q->stats.drops++;
				gone += l;
				outcome[i] = CHOKE_DROP_FORCED;
				continue;
			}
			q->stats.forced_mark++;
			out = CHOKE_QUEUED_MARKED;
			goto admit;
		}
		qcount += (int32_t)(m ^ 1u); /* < mark_at <= 2^31 - 1 before */
		if (unlikely(qcount >= mark_at)) {
			/* m is 0: a match leaves the count below mark_at */
			q->qR = pcg32_next(&st, q->rng_inc) / q->max_P_div;
			mark_at = batch_mark_at(excess, q->qR);
			if (qcount == 0)
				goto admit;
			qcount = 0;
			q->stats.overlimits++;
			if (!(q->flags & CHOKE_FLAG_ECN) || !pkt_flags ||
			    !(pkt_flags[i] & CHOKE_PKT_ECN_CAPABLE)) {
				q->stats.prob_drop++;
				q->stats.drops++;
				gone += l;
				outcome[i] = CHOKE_DROP_EARLY;
				continue;
			}
			q->stats.prob_mark++;
			out = CHOKE_QUEUED_MARKED;
		}
admit:
		if (!room && !m) {
			uint32_t t = (uint32_t)(ts - tab);

			if (!burst_admit_checks(q, qlen, head, &t)) {
				gone += l;
				outcome[i] = CHOKE_DROP_LIMIT;
				continue;
			}
			ts = tab + t;
		}
		ts->pkt = pkt[i];
		ts->len = l;
		ts->flow = flow[i];
		ts += 1 - m;
		if (unlikely(ts == tab_end))
			ts = tab;
		qlen += 1 - 2 * (uint32_t)m;
		outcome[i] = (uint8_t)(out + m * CHOKE_DROP_MATCH);
	}
	ts->pkt = NULL; /* an arrival dropped by a match was written there */
	q->tail = (uint32_t)(ts - tab);
	if (room && tab[head].pkt == NULL && head != q->tail)
		head = ring_next_head(tab, q->mask, q->tail, head);
	q->head = head;
	q->qlen = qlen;
	q->backlog += bytes - gone;
	q->qavg = qavg;
	q->qcount = qcount;
	q->rng_state = st;
	q->stats.offered_pkts += n;
	q->stats.offered_bytes += bytes;
	n = (uint32_t)(vp - v0);
	q->stats.matched += n;
	q->stats.match_victims += n;
	q->stats.drops += 2 * (uint64_t)n;
	return n;
}

/* The region of the average the next arrival sees. */
static inline int batch_region(const struct choke *q)
{
	uint64_t avg = red_avg_busy(q->qavg, q->Wlog, q->qlen);

	if (avg <= q->qth_min)
		return BATCH_BELOW;
	return avg > q->qth_max ? BATCH_ABOVE : BATCH_BETWEEN;
}

#define BATCH_CHUNK_CALL(c, room, live, region)                                              \
	enqueue_batch_chunk(q, pkt, len, flow, pkt_flags, i, c, outcome, victim + nv, room, \
			    live, region)

int choke_enqueue_burst_batched(struct choke *q, void *const pkt[], const uint32_t len[],
				const uint32_t flow[], const uint8_t pkt_flags[], uint32_t n,
				uint64_t now_ns, uint8_t outcome[], struct choke_victim victim[],
				uint32_t victim_cap, uint32_t *nvictims)
{
	uint32_t nv = 0, i = 0;

	if (q->kind != CHOKE_KIND_CHOKE || q->variant || q->protect || q->sparse ||
	    q->bytes_mode || q->red_ext || q->ops.random_u32 || q->ops.same_flow)
		return choke_enqueue_burst(q, pkt, len, flow, pkt_flags, n, now_ns, outcome,
					   victim, victim_cap, nvictims);
	*nvictims = 0;
	if (n > victim_cap)
		return CHOKE_EINVAL;
	if (!n)
		return 0;
	/* an idle period ends at the first arrival (the queue is empty:
	 * nothing to draw; RED's average after the idle time) */
	if (unlikely(q->idle)) {
		nv = enqueue_burst_any(q, pkt, len, flow, pkt_flags, 0, 1, now_ns, outcome,
				       victim, 0);
		i = 1;
	}
	while (i < n) {
		uint32_t c = n - i < CHOKE_BATCH_CHUNK ? n - i : CHOKE_BATCH_CHUNK;
		const bool live = q->head != q->tail;
		const int region = batch_region(q);

		if (likely(live && burst_has_room(q, c))) {
			if (likely(region == BATCH_BETWEEN))
				nv += BATCH_CHUNK_CALL(c, true, true, BATCH_BETWEEN);
			else if (region == BATCH_BELOW)
				nv += BATCH_CHUNK_CALL(c, true, true, BATCH_BELOW);
			else
				nv += BATCH_CHUNK_CALL(c, true, true, BATCH_ABOVE);
		} else {
			/* nothing to draw from, or the limit or the ring's end
			 * within reach: one arrival */
			c = 1;
			nv += BATCH_CHUNK_CALL(1, false, live, region);
		}
		i += c;
	}
	*nvictims = nv;
	return 0;
}

/*
 * m (1 <= m <= qlen) packets from the head of a span with holes. The
 * slots are walked in order and each one's packet is written at pkt[k],
 * k advancing only past a packet: no branch on whether a slot is a hole
 * (CHOKe's victims leave them at random places, a branch the predictor
 * loses). Then head moves past the holes after the last packet taken, to
 * the next packet or tail, as choke_dequeue leaves it.
 */
static inline __attribute__((__always_inline__)) void
dequeue_burst_holes(struct choke *q, void *pkt[], uint32_t len[], uint32_t m,
		    const bool want_len)
{
	struct choke_slot *tab = q->tab;
	const uint32_t mask = q->mask, tail = q->tail;
	uint32_t head = q->head, k = 0;
	uint64_t bytes = 0;

	do {
		struct choke_slot *s = &tab[head];
		void *p = s->pkt;
		uint32_t full = p != NULL;
		uint32_t l = s->len & (0u - full); /* a hole's stale length: 0 */

		pkt[k] = p;
		if (want_len)
			len[k] = l;
		bytes += l;
		k += full;
		s->pkt = NULL;
		head = (head + 1) & mask;
	} while (k < m);
	while (head != tail && tab[head].pkt == NULL)
		head = (head + 1) & mask;
	q->head = head;
	q->qlen -= m;
	q->backlog -= bytes;
	q->stats.sent_pkts += m;
	q->stats.sent_bytes += bytes;
}

uint32_t choke_dequeue_burst(struct choke *q, uint64_t now_ns, void *pkt[], uint32_t len[],
			     uint32_t n)
{
	uint32_t m = n < q->qlen ? n : q->qlen, k;

	if (unlikely(q->protect || q->lane_len || q->sparse)) {
		/* protect counts every departure, the lane goes first: one at
		 * a time */
		for (k = 0; k < n; k++) {
			uint32_t l = 0;

			pkt[k] = choke_dequeue(q, now_ns, &l);
			if (!pkt[k])
				return k;
			if (len)
				len[k] = l;
		}
		return n;
	}
	if (choke_span(q) == q->qlen) {
		/* no holes: the m packets are the m slots from head */
		struct choke_slot *tab = q->tab;
		const uint32_t mask = q->mask;
		uint32_t head = q->head;
		uint64_t bytes = 0;

		for (k = 0; k < m; k++) {
			struct choke_slot *s = &tab[(head + k) & mask];

			pkt[k] = s->pkt;
			if (len)
				len[k] = s->len;
			bytes += s->len;
			s->pkt = NULL;
		}
		q->head = (head + m) & mask;
		q->qlen -= m;
		q->backlog -= bytes;
		q->stats.sent_pkts += m;
		q->stats.sent_bytes += bytes;
	} else if (m) {
		if (len)
			dequeue_burst_holes(q, pkt, len, m, true);
		else
			dequeue_burst_holes(q, pkt, len, m, false);
	}
	if (m < n && !q->idle)
		idle_begin(q, now_ns); /* the call that found the queue empty */
	return m;
}

void *choke_peek(const struct choke *q)
{
	if (unlikely(q->lane_len) && (!q->lane_turn || q->head == q->tail))
		return q->lane[q->lane_head].pkt;
	return q->head == q->tail ? NULL : q->tab[q->head].pkt;
}

static void red_restart(struct choke *q)
{
	q->idle = false;
	q->qavg = 0;
	q->qcount = -1;
}

/* `sparse`: count the packets queued per bin afresh (after a change). */
static void occ_rebuild(struct choke *q)
{
	uint32_t i, span = choke_span(q);

	for (i = 0; i < CHOKE_PROTECT_BINS; i++)
		q->occ[i] = 0;
	if (!q->sparse)
		return;
	for (i = 0; i < span; i++) {
		const struct choke_slot *s = choke_slot_at(q, i);

		if (s->pkt)
			q->occ[occ_bin(s->flow)]++;
	}
	for (i = 0; i < q->lane_len; i++)
		q->occ[occ_bin(q->lane[(q->lane_head + i) & (CHOKE_LANE_SLOTS - 1)].flow)]++;
}

/* `sparse`: drop the lane's newest packets until it holds at most keep. */
static void lane_trim(struct choke *q, uint32_t keep, choke_drop_fn drop, void *ctx)
{
	while (q->lane_len > keep) {
		struct choke_slot *s =
			&q->lane[(q->lane_head + q->lane_len - 1) & (CHOKE_LANE_SLOTS - 1)];
		void *pkt = s->pkt;

		s->pkt = NULL;
		q->lane_len--;
		q->qlen--;
		q->backlog -= s->len;
		q->stats.drops++;
		q->stats.other_drop++;
		if (drop)
			drop(ctx, pkt, s->len);
	}
}

void choke_reset(struct choke *q, choke_drop_fn drop, void *drop_ctx)
{
	/* the lane's packets first: they would have left first */
	while (q->lane_len) {
		struct choke_slot *s = &q->lane[q->lane_head];
		void *pkt = s->pkt;

		s->pkt = NULL;
		q->lane_head = (q->lane_head + 1) & (CHOKE_LANE_SLOTS - 1);
		q->lane_len--;
		q->qlen--;
		q->backlog -= s->len;
		q->stats.drops++;
		q->stats.other_drop++;
		if (drop)
			drop(drop_ctx, pkt, s->len);
	}
	q->lane_head = 0;
	q->lane_turn = 0;
	q->pr.probe = PROTECT_NONE;
	while (q->head != q->tail) {
		struct choke_slot *s = &q->tab[q->head];

		q->head = (q->head + 1) & q->mask;
		if (!s->pkt)
			continue;
		q->stats.drops++;
		q->stats.other_drop++;
		if (drop)
			drop(drop_ctx, s->pkt, s->len);
	}
	slots_clear(q->tab, q->mask + 1);
	q->head = q->tail = 0;
	q->qlen = 0;
	q->backlog = 0;
	q->svc_held = 0;
	occ_rebuild(q);
	red_restart(q);
}

/*
 * Move the live packets, oldest first, into dst[0..] (which may be the same
 * ring, then the move is in place towards its head), keeping at most `keep`;
 * the rest are dropped through drop(). Returns the number kept.
 */
static uint32_t ring_move_live(struct choke *q, struct choke_slot *dst,
			       uint32_t dst_mask, uint32_t dst_start,
			       uint32_t keep, choke_drop_fn drop, void *ctx)
{
	uint32_t r = q->head, w = dst_start, kept = 0;

	while (r != q->tail) {
		struct choke_slot s = q->tab[r];

		q->tab[r].pkt = NULL;
		r = (r + 1) & q->mask;
		if (!s.pkt)
			continue;
		if (kept < keep) {
			dst[w] = s;
			w = (w + 1) & dst_mask;
			kept++;
			continue;
		}
		q->qlen--;
		q->backlog -= s.len;
		q->stats.drops++;
		q->stats.other_drop++;
		if (drop)
			drop(ctx, s.pkt, s.len);
	}
	return kept;
}

int choke_change(struct choke *q, const struct choke_config *c, void *new_ring,
		 size_t new_ring_bytes, void **old_ring, choke_drop_fn drop,
		 void *drop_ctx)
{
	bool resize = choke_change_needs_ring(q, c->limit);
	uint16_t old_protect = q->protect;
	uint64_t old_target_ns = q->pr.target_ns;
	uint32_t keep;

	if (old_ring)
		*old_ring = NULL;
	if (choke_config_check(c, NULL))
		return CHOKE_EINVAL;
	if (resize && (!new_ring || new_ring_bytes < choke_ring_bytes(c->limit)))
		return CHOKE_EINVAL;
	/* the lane's packets leave first, so they are kept first; the ring
	 * keeps what the new limit leaves */
	lane_trim(q, c->limit, drop, drop_ctx);
	keep = c->limit - q->lane_len;
	q->pr.probe = PROTECT_NONE;
	if (resize) {
		uint32_t slots = choke_ring_slots(c->limit);
		struct choke_slot *ntab = (struct choke_slot *)new_ring;
		uint32_t kept;

		slots_clear(ntab, slots);
		kept = ring_move_live(q, ntab, slots - 1, 0, keep, drop, drop_ctx);
		if (old_ring)
			*old_ring = q->tab;
		q->tab = ntab;
		q->mask = slots - 1;
		q->head = 0;
		q->tail = kept;
	} else if (q->qlen > c->limit) {
		/* Same ring, too many packets: compact in place and drop
		 * the newest beyond the limit. */
		uint32_t start = q->head;
		uint32_t kept = ring_move_live(q, q->tab, q->mask, start, keep, drop,
					       drop_ctx);

		q->head = start;
		q->tail = (start + kept) & q->mask;
	}
	choke_apply_config(q, c);
	protect_configure(q, old_protect, old_target_ns);
	occ_rebuild(q);
	if (q->head == q->tail)
		q->idle = false;
	return 0;
}

/* ------------------------------------------------------------------ */
/* invariants                                                          */

static const char *const invariant_names[] = {
	"ok",
	"head is a hole in a non-empty ring",
	"slot at tail is not empty",
	"qlen differs from the packets in the ring",
	"backlog differs from the bytes in the ring",
	"qlen exceeds limit",
	"offered != sent + dropped + queued",
	"slot outside head..tail is not empty",
	"protect's table holds a flow outside its buckets, or twice",
	"protect's state is out of range",
	"the light lane's count or packets are wrong",
	"sparse's per-bin counts differ from the packets queued",
};

const char *choke_invariant_name(int code)
{
	if (code > 0 || -code >= (int)(sizeof(invariant_names) /
				       sizeof(invariant_names[0])))
		return "unknown";
	return invariant_names[-code];
}

/* protect: every live entry in one of its flow's buckets, no flow twice
 * there, nothing beyond the table; the bitmap's count, the share, the
 * boost and the sample gap in range. */
static int protect_check(const struct choke *q)
{
	uint32_t i, w, b1, b2, bits = 0;

	for (i = 0; i < q->protect; i++) {
		if (!q->pr.e[i].rate)
			continue;
		protect_buckets(q, protect_mix(q->pr.e[i].flow), &b1, &b2);
		if (i / CHOKE_PROTECT_WAYS != b1 && i / CHOKE_PROTECT_WAYS != b2)
			return -8;
		for (w = 0; w < CHOKE_PROTECT_WAYS; w++) {
			uint32_t j1 = b1 * CHOKE_PROTECT_WAYS + w;
			uint32_t j2 = b2 * CHOKE_PROTECT_WAYS + w;

			if ((j1 != i && q->pr.e[j1].rate && q->pr.e[j1].flow == q->pr.e[i].flow) ||
			    (j2 != i && q->pr.e[j2].rate && q->pr.e[j2].flow == q->pr.e[i].flow))
				return -8;
		}
	}
	for (i = q->protect; i < CHOKE_PROTECT_MAX; i++)
		if (q->pr.e[i].rate)
			return -8;
	for (i = 0; i < CHOKE_PROTECT_BINS; i++)
		bits += (uint32_t)(q->pr.seen[i >> 6] >> (i & 63)) & 1u;
	if (bits != q->pr.flows || !q->pr.share ||
	    q->pr.boost < PROTECT_BOOST_ONE || q->pr.boost > PROTECT_BOOST_MAX ||
	    q->pr.drain > PROTECT_DRAIN_MAX || (!q->pr.target_ns && q->pr.drain) ||
	    q->pr.room < PROTECT_ROOM_ONE || (!q->pr.target_ns && q->pr.room != PROTECT_ROOM_ONE) ||
	    (q->pr.probe != PROTECT_NONE &&
	     ((q->pr.probe - q->head) & q->mask) >= choke_span(q)) ||
	    q->pr.nbuckets * CHOKE_PROTECT_WAYS != q->protect ||
	    q->pr.nbuckets != 1u << (32 - q->pr.bshift) || q->pr.fair != protect_fair(q) ||
	    !q->pr.sample_left || q->pr.sample_left >= 2 * CHOKE_PROTECT_SAMPLE)
		return -9;
	return 0;
}

int choke_check_invariants(const struct choke *q)
{
	uint32_t i, span = choke_span(q), n = 0;
	uint64_t bytes = 0;

	if (q->lane_len > CHOKE_LANE_SLOTS)
		return -10;
	for (i = 0; i < q->lane_len; i++) {
		const struct choke_slot *s =
			&q->lane[(q->lane_head + i) & (CHOKE_LANE_SLOTS - 1)];

		if (!s->pkt)
			return -10;
		n++;
		bytes += s->len;
	}
#if defined(__KERNEL__)
	if (q->sparse) {
		/* no room on a kernel stack for the counts: their sum */
		uint32_t sum = 0;

		for (i = 0; i < CHOKE_PROTECT_BINS; i++)
			sum += q->occ[i];
		if (sum != q->qlen)
			return -11;
	}
#else
	if (q->sparse) {
		uint16_t cnt[CHOKE_PROTECT_BINS];

		for (i = 0; i < CHOKE_PROTECT_BINS; i++)
			cnt[i] = 0;
		for (i = 0; i < span; i++) {
			const struct choke_slot *s = choke_slot_at(q, i);

			if (s->pkt)
				cnt[occ_bin(s->flow)]++;
		}
		for (i = 0; i < q->lane_len; i++)
			cnt[occ_bin(q->lane[(q->lane_head + i) & (CHOKE_LANE_SLOTS - 1)].flow)]++;
		for (i = 0; i < CHOKE_PROTECT_BINS; i++)
			if (cnt[i] != q->occ[i])
				return -11;
	}
#endif
	if (span && !q->tab[q->head].pkt)
		return -1;
	if (q->tab[q->tail].pkt)
		return -2;
	for (i = 0; i < span; i++) {
		const struct choke_slot *s = choke_slot_at(q, i);

		if (s->pkt) {
			n++;
			bytes += s->len;
		}
	}
	for (i = span; i <= q->mask; i++)
		if (choke_slot_at(q, i)->pkt)
			return -7;
	if (n != q->qlen)
		return -3;
	if (bytes != q->backlog)
		return -4;
	if (q->qlen > q->limit)
		return -5;
	if (q->stats.offered_pkts !=
	    q->stats.sent_pkts + q->stats.drops + q->qlen)
		return -6;
	if (q->protect)
		return protect_check(q);
	return 0;
}
