/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * `protect [N]`: every flow (or host: choke_enqueue_as) held to about its
 * fair share of the link's bytes with bounded state. docs/variants.md has
 * the rule, why each piece is there (with the measurements that chose it)
 * and the references. Internal to src/core and included by choke.c only,
 * so the kernel module, which compiles choke.c, gets it unchanged.
 *
 * The clock is the departures: a rate is bytes arriving per byte departed,
 * a window is 2^CHOKE_PROTECT_WINDOW_LOG bytes departed and a step a
 * sixteenth of it, so no link rate is needed. Every piece is O(1) per
 * packet with a fixed worst case; a step's end costs a few words, a
 * window's end 16 words more.
 *
 *  - The share. Each arrival sets the bit of its flow's hash (flow values
 *    are mixed first, with MurmurHash3's finalizer) in a bitmap
 *    of CHOKE_PROTECT_BINS bins; at the end of the window the bits set
 *    count the flows that arrived in it (n, corrected for two flows in one
 *    bin by linear counting: n = -B ln(1 - t/B) for t of B bins). The fair
 *    share is the window's bytes divided among them, W / n bytes per
 *    window, times a correction (the boost, below).
 *
 *  - The rates. A table of N entries (a power of two) in N / 4 buckets of
 *    4; a flow may live in either of two buckets (two hashes), so a lookup
 *    compares at most 8 flow values. An entry counts its flow's arrival
 *    bytes in a counter that decays by 2^(-1/16) per step (half per
 *    window), brought up to date when touched: the whole steps since its
 *    stamp are applied and the stamp advances by them. A flow arriving m
 *    bytes per byte departed then swings within 2% of m S (1 + d) /
 *    (2 (1 - d)) with d = 2^(-1/16) and S the step, which is within 0.01%
 *    of the continuous m W / ln 2; so the counter of a flow at the share
 *    (s / W per byte departed, s in Q8 bytes per window) is
 *    F = s / (256 ln 2) = s round(2^16/ln 2) >> 24.
 *
 *  - The lookup. A flow's entry is looked for first where its flow value
 *    was last found (a byte per low byte of the flow value, checked
 *    against the entry: a wrong or stale hint only sends the lookup on to
 *    the buckets, so it never changes a decision).
 *
 *  - The feed. An arrival of an untracked flow is a candidate when it
 *    matches a queued packet (CHOKe's own evidence) or when it is sampled
 *    (one untracked arrival in CHOKE_PROTECT_SAMPLE on average, at random
 *    gaps). A candidate takes the entry with the smallest decayed counter
 *    among its 8 if that counter is at most F (a flow within its share is
 *    never dropped by protect, so forgetting it costs nothing).
 *
 * The rule: an arrival of a tracked flow whose counter r exceeds the
 * allowance is dropped with probability 1 - allowance / r, so the flow's
 * admitted rate is the allowance (AFD's differential dropping: Pan,
 * Breslau, Prabhakar and Shenker, 2003). The allowance is F while the link
 * is congested (the RED average above min; with `target`, the queueing
 * delay above the target); otherwise F + F/4 if the link has been busy (no
 * idle period in this step or the last), room for TCP's variations, and
 * there is none if it idled (an idle link is not congested).
 *
 * The boost corrects the equal split, once a step: counting every flow is
 * right for flows this link limits (TCP, floods) and too generous or too
 * strict otherwise. A congested step (the average above min and no idle
 * time; with `target`, every delay measured in the step above the target)
 * multiplies it by 31/32; a step in which the link went idle (with
 * `target`: idle for over a 32nd of the step) while protect dropped, in
 * it or the step before, by 33/32. The boost never falls below 1 (the
 * share never below the equal split: a FIFO cannot hold less than the
 * flows' smallest windows). With `target` it is room for the flows that
 * respond to drops: a flow two doublings or more above its allowance (a
 * flood) gets the allowance times what the responsive flows reach
 * (protect_unresponsive), and the equal split at most.
 *
 * `target`: the drain. The boost and the shares move what each flow gets,
 * not the sum: flows held at their shares fill the link exactly, so a
 * queue that stands (a flood alone on the link, admitted at the rate that
 * departs, or what a start-up left) would stand for good. So every
 * interval the smallest delay above the goal, over PROTECT_DRAIN_NS, is
 * taken off every allowance (at most half) until the next: a flow above
 * its share is admitted below it, and what stands drains in about that
 * time (a proportional control: none at the goal, none if the link
 * idled). Flows under their allowance are untouched.
 *
 * `target`: a young counter. A counter reaches its rate's steady value
 * only over a few half-lives: a flow that started (or was entered) t ago
 * at a steady rate has 1 - 2^(-t/W) of it. So a flood that starts on an
 * idle link is admitted at up to twice its allowance for a window, and
 * as long again at 1.3 times: the queue it fills stands for seconds and
 * is sent ahead of the flows that come later (docs/results.md 15.14).
 * While the drain is on (the delay stood above the goal for an
 * interval), the counter of a flow entered less than
 * PROTECT_YOUNG_STEPS steps ago is read as the steady value it
 * forecasts, counter / (1 - 2^(-age/W)) (the age at least a step); an
 * entry's step of entry is kept in its stamp's top 16 bits, the clock's
 * in the low 48 (ages are differences modulo 2^48). And a share comes
 * at a step's end, not only at a window's, when the flows seen so far in
 * the window would divide the link into less than half the share (none
 * known yet, or many flows arrived: TCP beside a flood that had the link
 * alone), so that the limit starts a step after them, not up to a
 * window.
 *
 * `target`: the delay is that of one packet at a time (the probe): an
 * admitted packet is timed when no other is, and its delay known when the
 * head passes its slot; a probe older than the target already says the
 * delay is above it, and an empty queue that it is not.
 */
#ifndef CHOKE_CORE_PROTECT_H
#define CHOKE_CORE_PROTECT_H

#include "choke/core.h"

#if defined(__KERNEL__)
#include <linux/math64.h>
#define protect_div64(a, b) div64_u64((a), (b))
#else
#define protect_div64(a, b) ((a) / (b))
#endif

#define PROTECT_NONE 0xffffffffu
#define PROTECT_SHARE_MAX 0xffffffffu /* no limit */
#define PROTECT_BOOST_ONE 256u
#define PROTECT_BOOST_MAX (256u << 16)
#define PROTECT_INTERVAL_NS 100000000ull /* `target`: the boost's period */
#define PROTECT_DRAIN_NS 1000000000ull /* `target`: what stands, drained in */
#define PROTECT_DRAIN_MAX 128u /* `target`: the drain's largest cut, Q8 */
#define PROTECT_ROOM_ONE 64u /* `target`: the room at the equal split, Q6 */
#define PROTECT_ROOM_MAX 65535u
#define PROTECT_SPARE_RUN 5u /* `target`: intervals of spare capacity */
#define PROTECT_SPARE_IDLE 8u /* a 32nd of the interval idle, Q8 */
#define PROTECT_TIME_SHIFT 10 /* `target`: the clock's unit, 1024 ns */
#define PROTECT_STAMP_MASK ((1ull << 48) - 1) /* an entry's stamp: the clock */
#define PROTECT_BORN_SHIFT 48 /* and above it, the step it was entered in */
#define PROTECT_BORN_OLD 0xffffu /* (or this: entered long ago) */
#define PROTECT_YOUNG_STEPS 64u /* `target`: a counter this young forecasts */
#define PROTECT_WINDOW (1u << CHOKE_PROTECT_WINDOW_LOG)
#define PROTECT_STEP_LOG CHOKE_PROTECT_STEP_LOG

_Static_assert(CHOKE_PROTECT_HALFLIFE_LOG == PROTECT_STEP_LOG + 4,
	       "16 decay steps per half-life");
_Static_assert(CHOKE_PROTECT_WINDOW_LOG == CHOKE_PROTECT_HALFLIFE_LOG,
	       "a window is a half-life");

/*
 * The counters decay in steps by 2^(-1/16) each, so by half every window:
 * whole half-lives as a shift, the remaining sixteenths from this table of
 * round(2^32 2^(-i/16)).
 */
static const uint64_t protect_decay16[16] = {
	4294967296ull, 4112874773u, 3938502376u, 3771522796u,
	3611622603u, 3458501653u, 3311872529u, 3171459999u,
	3037000500u, 2908241642u, 2784941738u, 2666869345u,
	2553802834u, 2445529972u, 2341847524u, 2242560872u,
};

/* round(2^16 / ln 2) */
#define PROTECT_LN2INV_Q16 94548u

/* -ln(1 - k/32) / (k/32) in Q16 for k = 0..31, and k = 31's again: linear
 * counting's correction, interpolated between the points */
static const uint32_t protect_lincount[33] = {
	65536, 66582, 67674, 68815, 70009, 71261, 72575, 73958,
	75414, 76952, 78579, 80304, 82139, 84095, 86188, 88433,
	90852, 93470, 96315, 99426, 102847, 106639, 110877, 115664,
	121136, 127492, 135022, 144183, 155747, 171180, 193818, 234457,
	234457,
};

/* A flow value mixed (the 32-bit finalizer of MurmurHash3), so that bins
 * and buckets spread whatever structure the host's flow values have. */
static inline uint32_t protect_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85EBCA6Bu;
	x ^= x >> 13;
	x *= 0xC2B2AE35u;
	x ^= x >> 16;
	return x;
}

/* The bin of a mixed flow value. */
static inline uint32_t protect_bin(uint32_t h)
{
	return h >> (32 - CHOKE_PROTECT_BINS_LOG);
}

/* The two buckets of a mixed flow value (a power of two of them, at least
 * two): the first from its high bits, the second the first xor an odd
 * number from bits 8 up, so always another. */
static inline void protect_buckets(const struct choke *q, uint32_t h,
				   uint32_t *b1, uint32_t *b2)
{
	*b1 = h >> q->pr.bshift;
	*b2 = *b1 ^ (((h >> 8) & (q->pr.nbuckets - 1)) | 1u);
}

/* A counter after the whole steps in `age` bytes departed (rounded
 * down); unchanged within a step, so most arrivals multiply nothing. */
static inline uint32_t protect_decay(uint32_t r, uint64_t age)
{
	uint64_t steps = age >> PROTECT_STEP_LOG, halves = steps >> 4;

	if (!steps)
		return r;
	if (halves >= 32)
		return 0;
	return (uint32_t)(((uint64_t)(r >> halves) * protect_decay16[steps & 15u]) >> 32);
}

/* The clock's advance since entry e's counter was brought up to date. */
static inline uint64_t protect_age(const struct choke *q, uint32_t e)
{
	return (q->pr.clock - q->pr.e[e].stamp) & PROTECT_STAMP_MASK;
}

/* `target`, while the drain is on: the steady counter that entry e's
 * counter r forecasts, if the entry is young (above); r otherwise. */
static inline uint64_t protect_young(const struct choke *q, uint32_t e, uint64_t r)
{
	uint32_t born = (uint32_t)(q->pr.e[e].stamp >> PROTECT_BORN_SHIFT), age;
	uint64_t part;

	if (born == PROTECT_BORN_OLD)
		return r;
	age = ((uint32_t)(q->pr.clock >> PROTECT_STEP_LOG) - born) & PROTECT_BORN_OLD;
	if (age >= PROTECT_YOUNG_STEPS)
		return r;
	if (!age)
		age = 1;
	/* 2^32 (1 - 2^(-age/16)): at least 2^32 (1 - 2^(-1/16)) */
	part = (1ull << 32) - (protect_decay16[age & 15u] >> (age >> 4));
	r = protect_div64(r << 32, part);
	return r > 0xffffffffu ? 0xffffffffu : r;
}

/* F without the boost: the counter of a flow at the equal split. */
static inline uint64_t protect_fair_equal(const struct choke *q)
{
	return ((uint64_t)q->pr.share * PROTECT_LN2INV_Q16) >> 24;
}

/* F: the counter of a flow arriving at the (boosted) share; kept in
 * pr.fair, recomputed when the share or the boost changes. */
static inline uint64_t protect_fair(const struct choke *q)
{
	return (protect_fair_equal(q) * q->pr.boost) >> 8;
}

/* The entry holding flow in bucket b (the first live one), or
 * PROTECT_NONE. */
static inline uint32_t protect_find_in(const struct choke *q, uint32_t flow,
				       uint32_t b)
{
	uint32_t i = b * CHOKE_PROTECT_WAYS, end = i + CHOKE_PROTECT_WAYS;

	for (; i < end; i++)
		if (q->pr.e[i].flow == flow && q->pr.e[i].rate)
			return i;
	return PROTECT_NONE;
}

/* The entry holding flow (h: its mixed value), or PROTECT_NONE: its first
 * bucket, then its second. */
static inline uint32_t protect_find(const struct choke *q, uint32_t flow,
				    uint32_t h)
{
	uint32_t b1 = h >> q->pr.bshift, e = protect_find_in(q, flow, b1);

	if (e != PROTECT_NONE)
		return e;
	return protect_find_in(q, flow, b1 ^ (((h >> 8) & (q->pr.nbuckets - 1)) | 1u));
}

/*
 * Enter an untracked flow. The candidate is the entry of its two buckets
 * with the smallest counter halved once per whole half-life since it was
 * touched (the first such, b1's ways before b2's: a shift each, not eight
 * decays); it is replaced if its decayed counter is at most F. Returns the
 * entry or PROTECT_NONE.
 */
static inline uint32_t protect_insert(struct choke *q, uint32_t flow, uint32_t len)
{
	uint32_t b[2], k, w, best = 0, best_key = 0, born;

	protect_buckets(q, protect_mix(flow), &b[0], &b[1]);
	for (k = 0; k < 2; k++) {
		for (w = 0; w < CHOKE_PROTECT_WAYS; w++) {
			uint32_t i = b[k] * CHOKE_PROTECT_WAYS + w;
			uint64_t halves = protect_age(q, i) >> CHOKE_PROTECT_HALFLIFE_LOG;
			uint32_t key = halves >= 32 ? 0 : q->pr.e[i].rate >> halves;

			if ((!k && !w) || key < best_key) {
				best = i;
				best_key = key;
			}
		}
	}
	if (protect_decay(q->pr.e[best].rate, protect_age(q, best)) > q->pr.fair)
		return PROTECT_NONE;
	born = (uint32_t)(q->pr.clock >> PROTECT_STEP_LOG) & PROTECT_BORN_OLD;
	if (born == PROTECT_BORN_OLD)
		born--;
	q->pr.e[best].flow = flow;
	q->pr.e[best].rate = len ? len : 1;
	q->pr.e[best].stamp = (q->pr.clock & PROTECT_STAMP_MASK) |
			      (uint64_t)born << PROTECT_BORN_SHIFT;
	q->stats.protect_inserts++;
	return best;
}

/* Mark the arrival's bin (h: its mixed flow value) in this window's
 * bitmap. */
static inline void protect_see(struct choke *q, uint32_t h)
{
	uint32_t b = protect_bin(h);
	uint64_t bit = 1ull << (b & 63);

	if (!(q->pr.seen[b >> 6] & bit)) {
		q->pr.seen[b >> 6] |= bit;
		q->pr.flows++;
	}
}

/* Flows that arrived in the window, Q16: t (1 + ...) by linear counting. */
static inline uint64_t protect_nflows(uint32_t t)
{
	uint32_t x = t * 32, k = x >> CHOKE_PROTECT_BINS_LOG;
	uint32_t f = x & (CHOKE_PROTECT_BINS - 1);
	uint64_t corr;

	if (k >= 32) {
		k = 31;
		f = CHOKE_PROTECT_BINS - 1;
	}
	corr = ((uint64_t)protect_lincount[k] * (CHOKE_PROTECT_BINS - f) +
		(uint64_t)protect_lincount[k + 1] * f) >> CHOKE_PROTECT_BINS_LOG;
	return (uint64_t)t * corr;
}

/* The end of a window (the clock just passed a multiple of W): the next
 * share and a clean bitmap. */
static inline void protect_window_end(struct choke *q)
{
	uint32_t i;

	if (q->pr.flows) {
		uint64_t s = protect_div64((uint64_t)PROTECT_WINDOW << 24,
					   protect_nflows(q->pr.flows));

		q->pr.share = s > PROTECT_SHARE_MAX ? PROTECT_SHARE_MAX : (uint32_t)s;
	} else {
		q->pr.share = PROTECT_SHARE_MAX;
	}
	q->pr.flows = 0;
	for (i = 0; i < CHOKE_PROTECT_BINS / 64; i++)
		q->pr.seen[i] = 0;
}

/* `target`: the share from the link's capacity per window (the rate
 * measured: wbytes over wsvc_ns, both non-zero) divided among the flows
 * seen in this window so far. */
static inline uint32_t protect_share_time(const struct choke *q)
{
	uint64_t cap = protect_div64(q->pr.wbytes << (CHOKE_PROTECT_WINDOW_LOG +
						     PROTECT_TIME_SHIFT - 8), q->pr.wsvc_ns);
	uint64_t s = protect_div64(cap << 32, protect_nflows(q->pr.flows));

	return s > PROTECT_SHARE_MAX ? PROTECT_SHARE_MAX : s ? (uint32_t)s : 1;
}

/* `target`: the end of a window of time. The share is the link's
 * capacity per window (the bytes departed behind a waiting packet over
 * the time the link took for them, this window's and half the sum
 * before) divided among the flows seen; the first window (wstart_ns 0)
 * gives none, and with no rate measured yet the share stays. */
static inline void protect_window_end_time(struct choke *q, uint64_t now_ns)
{
	uint64_t busy = q->pr.wsvc_ns;

	if (q->pr.flows && q->pr.wbytes && busy && q->pr.wstart_ns) {
		q->pr.share = protect_share_time(q);
	} else if (!q->pr.flows) {
		q->pr.share = PROTECT_SHARE_MAX;
	}
	/* the goal: the target, but at least three of the largest packets'
	 * transmission times at the rate measured (a slow link cannot hold
	 * less than a packet or two) */
	q->pr.goal_ns = q->pr.target_ns;
	if (q->pr.wbytes && busy) {
		uint64_t three = protect_div64(3ull * q->pr.wmaxlen * busy, q->pr.wbytes);

		if (three > q->pr.goal_ns)
			q->pr.goal_ns = three;
	}
	/* the rate's samples age by half a window: a window in which no
	 * packet waited still has the link's rate, from the ones before */
	q->pr.wbytes >>= 1;
	q->pr.wsvc_ns >>= 1;
	q->pr.wmaxlen = 0;
	q->pr.wstart_ns = now_ns;
	q->pr.flows = 0;
	{
		uint32_t i;

		for (i = 0; i < CHOKE_PROTECT_BINS / 64; i++)
			q->pr.seen[i] = 0;
	}
}

/* The boost's correction: down by a 32nd when congested, up by a 32nd
 * (and one) when the link was underused while protect dropped. */
static inline void protect_correct(struct choke *q, bool congested, bool underused)
{
	if (congested) {
		q->pr.boost -= q->pr.boost >> 5;
		if (q->pr.boost < PROTECT_BOOST_ONE)
			q->pr.boost = PROTECT_BOOST_ONE;
	} else if (underused && (q->pr.drops || q->pr.dropped)) {
		q->pr.boost += (q->pr.boost >> 5) + 1;
		if (q->pr.boost > PROTECT_BOOST_MAX)
			q->pr.boost = PROTECT_BOOST_MAX;
	}
	q->pr.fair = protect_fair(q);
	q->pr.dropped = q->pr.drops != 0;
	q->pr.drops = 0;
}

/* The end of a step (the clock just passed a multiple of 2^STEP_LOG).
 * Without `target` it corrects the boost: congested if the average is
 * above min and the link did not idle, underused if it idled. With
 * `target` the boost is corrected by time instead (below); a new share
 * (at a window's end) only changes F. */
static inline void protect_step_end(struct choke *q, uint64_t now_ns)
{
	(void)now_ns;
	if (q->pr.target_ns) {
		/* the flows seen so far in this window would divide the
		 * link into less than half the share (none known yet, or
		 * many flows arrived): that share now, not at the window's
		 * end. Never up: a share rises only when a window ends */
		if (q->pr.flows && q->pr.wbytes && q->pr.wsvc_ns) {
			uint32_t s = protect_share_time(q);

			if (s < q->pr.share / 2)
				q->pr.share = s;
		}
		q->pr.fair = protect_fair(q);
	} else {
		protect_correct(q, !q->pr.idled && q->qavg > q->qth_min, q->pr.idled);
	}
	q->pr.busy = !q->pr.idled;
	q->pr.idled = 0;
}

/*
 * `target`: what the flows that back off reach. The mean, over the tracked
 * flows between half and twice the fair counter F (TCP near its share;
 * lighter flows and floods left out), of their counters over F, in Q8,
 * between 1/2 and 1: a flow two doublings or more above its allowance
 * is held to the allowance times this. Where TCP cannot use its whole
 * share (long round trips regrow slowly) a flood would otherwise take
 * what it leaves; where TCP uses it, nothing is taken off.
 */
static inline void protect_unresponsive(struct choke *q)
{
	uint64_t f = q->pr.fair, sum = 0;
	uint32_t i, n = 0;

	uint32_t now_step = (uint32_t)(q->pr.clock >> PROTECT_STEP_LOG);

	for (i = 0; i < q->protect; i++) {
		uint64_t r, born = q->pr.e[i].stamp >> PROTECT_BORN_SHIFT;

		/* an entry that is no longer young says so, before its
		 * step of entry (16 bits) could come round again */
		if (born != PROTECT_BORN_OLD &&
		    ((now_step - (uint32_t)born) & PROTECT_BORN_OLD) >= PROTECT_YOUNG_STEPS)
			q->pr.e[i].stamp |= (uint64_t)PROTECT_BORN_OLD << PROTECT_BORN_SHIFT;
		if (!f)
			continue;
		r = protect_decay(q->pr.e[i].rate, protect_age(q, i));
		if (!q->pr.e[i].rate || r * 2 < f || r > f * 2)
			continue;
		sum += r > f ? 256 : protect_div64(r << 8, f);
		n++;
	}
	q->pr.unresp = n ? (uint32_t)protect_div64(sum, n) : 256;
	if (q->pr.unresp < 128)
		q->pr.unresp = 128;
}

/* `target`: the room. A flood is held to the equal split at most (the
 * boost is for flows that respond), which wastes the link when the
 * others do not want their shares: a flood beside a few light flows. So
 * after PROTECT_SPARE_RUN intervals in a row in which the link idled for
 * over a 32nd of the time while protect dropped, and no flow within two
 * doublings of its allowance was dropped (protect_verdict), the floods'
 * cap is multiplied by one plus the fraction idle, every interval until
 * that stops; each congested interval halves it. TCP's own idle time
 * (a backoff, a long round trip regrowing) is shorter than the run or
 * comes with TCP held at its allowance, so the room stays 1 beside TCP.
 *
 * The fraction idle is the smaller of the time the queue stood empty and
 * the part of the link's capacity (its rate times the interval) that the
 * departures did not use. They differ under a shaper with a bucket (tbf,
 * htb): while the queue is empty the bucket fills, and the tokens saved
 * are spent in a burst after, so the link lost less than the time says
 * (with tbf's 10 KB at 4 Mbit/s up to a fifth of an interval), and a room
 * grown on that time overshoots the link. */
static inline void protect_room(struct choke *q, bool congested, uint64_t span)
{
	uint32_t idle = 0, sent = (uint32_t)q->stats.sent_bytes - q->pr.step_sent;

	q->pr.step_sent = (uint32_t)q->stats.sent_bytes;
	if (q->pr.idle_ns && q->pr.step_ns && span) /* the fraction idle, Q8 */
		idle = q->pr.idle_ns >= span ? 256 :
					       (uint32_t)protect_div64(q->pr.idle_ns << 8, span);
	/* the capacity unused: the rate's bytes times the interval over the
	 * rate's time, both times in 1024-ns units (exact at any link rate;
	 * an interval under 2^36 ns, about 69 s, keeps the product in 64 bits
	 * up to 100 Gbit/s; a longer one is idle by its time alone) */
	if (idle && q->pr.wbytes && q->pr.wsvc_ns >> 10 && span < (1ull << 36)) {
		uint64_t cap = protect_div64(q->pr.wbytes * (span >> 10), q->pr.wsvc_ns >> 10);
		uint32_t unused = cap > sent ? (uint32_t)protect_div64((cap - sent) << 8, cap) : 0;

		if (unused < idle)
			idle = unused;
	}
	if (idle > PROTECT_SPARE_IDLE && (q->pr.drops || q->pr.dropped)) {
		if (q->pr.spare < 255)
			q->pr.spare++;
	} else {
		q->pr.spare = 0;
	}
	if (congested) {
		q->pr.room -= q->pr.room >> 1;
		if (q->pr.room < PROTECT_ROOM_ONE)
			q->pr.room = PROTECT_ROOM_ONE;
	} else if (q->pr.spare >= PROTECT_SPARE_RUN) {
		uint32_t r = q->pr.room + ((q->pr.room * idle) >> 8);

		q->pr.room = r > PROTECT_ROOM_MAX ? PROTECT_ROOM_MAX : (uint16_t)r;
	}
}

/* `target`: every PROTECT_INTERVAL_NS (the first departure after it ends)
 * the boost is corrected: congested if every delay measured in the
 * interval was above the target (or, none measured, the packet timed now
 * has waited longer), underused if the link idled for over a 32nd of it;
 * and the room (above). */
static inline void protect_interval_end(struct choke *q, uint64_t now_ns)
{
	uint64_t d = q->pr.delay_ns, span = now_ns - q->pr.step_ns;
	bool congested;

	if (d == ~0ull) /* no probe ended in the interval: the one open */
		d = q->pr.probe != PROTECT_NONE && now_ns > q->pr.probe_ns ?
			    now_ns - q->pr.probe_ns : 0;
	/* an interval in which the link idled is never congested: the
	 * flows' smallest windows may need more queue than the target */
	congested = d > q->pr.goal_ns && !q->pr.idle_ns;
	protect_room(q, congested, span); /* before drops is cleared */
	protect_correct(q, congested, d < q->pr.goal_ns);
	protect_unresponsive(q);
	/* the drain: the delay standing above the goal, as a fraction of the
	 * time to drain it in, is taken off every allowance (at most half)
	 * until the next interval; none if the link idled (not congested) */
	q->pr.drain = 0;
	if (congested) {
		uint64_t cut = protect_div64((d - q->pr.goal_ns) << 8, PROTECT_DRAIN_NS);

		q->pr.drain = cut > PROTECT_DRAIN_MAX ? PROTECT_DRAIN_MAX : (uint8_t)cut;
	}
	q->pr.idle_ns = 0;
	q->pr.delay_ns = ~0ull;
	q->pr.step_ns = now_ns;
}

/* protect_tick()'s ends, when one passed: the clock moved from was to c. */
__attribute__((__noinline__)) static void protect_tick_ends(struct choke *q, uint64_t was,
							    uint64_t c, uint64_t now_ns)
{
	if (now_ns - q->pr.step_ns >= PROTECT_INTERVAL_NS)
		protect_interval_end(q, now_ns);
	if (!((was ^ c) >> PROTECT_STEP_LOG))
		return;
	if ((was ^ c) >> CHOKE_PROTECT_WINDOW_LOG)
		protect_window_end_time(q, now_ns);
	protect_step_end(q, now_ns);
}

/* `target`: the clock is time (units of 2^PROTECT_TIME_SHIFT ns): brought
 * to now at every arrival and departure; the ends of intervals, steps and
 * windows that passed. Inline only the test that most calls end at. */
static inline __attribute__((__always_inline__)) void protect_tick(struct choke *q,
								   uint64_t now_ns)
{
	uint64_t was = q->pr.clock, c = now_ns >> PROTECT_TIME_SHIFT;

	if (c <= was)
		return;
	q->pr.clock = c;
	if (now_ns - q->pr.step_ns >= PROTECT_INTERVAL_NS || (was ^ c) >> PROTECT_STEP_LOG)
		protect_tick_ends(q, was, c, now_ns);
}

#endif /* CHOKE_CORE_PROTECT_H */
