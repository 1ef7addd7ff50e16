/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Reference model: see refmodel.h. Written for clarity, not speed. */
#include "refmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void ared_reset(struct refq *m);
static void protect_configure(struct refq *m, unsigned old_entries, uint64_t old_target);

uint32_t ref_mainline_slots(uint32_t limit)
{
	uint32_t t = 1;

	while (t < limit + 1)
		t *= 2;
	return t;
}

static uint32_t cap_for(const struct refq *m, uint32_t limit)
{
	uint32_t t = ref_mainline_slots(limit);

	return m->storage == REF_MAINLINE ? t - 1 : 2 * t - 1;
}

void ref_init(struct refq *m, const struct choke_config *c,
	      enum ref_storage storage, uint32_t (*rnd)(void *), void *rnd_ctx,
	      int (*same)(const void *, const void *))
{
	memset(m, 0, sizeof(*m));
	m->storage = storage;
	m->cfg = *c;
	m->cap = cap_for(m, c->limit);
	m->slot = calloc(m->cap + 1, sizeof(*m->slot));
	m->qcount = -1;
	m->rnd = rnd;
	m->rnd_ctx = rnd_ctx;
	m->same = same;
	protect_configure(m, 0, 0);
	ared_reset(m);
}

void ref_free(struct refq *m)
{
	free(m->slot);
	free(m->ring);
	m->slot = m->ring = NULL;
}

/* ---------------- storage ---------------- */

uint32_t ref_span(const struct refq *m)
{
	if (m->wrapped)
		return (m->rtail - m->rhead) & m->rmask;
	return m->n;
}

const struct ref_slot *ref_slot_at(const struct refq *m, uint32_t i)
{
	if (m->wrapped)
		return &m->ring[(m->rhead + i) & m->rmask];
	return &m->slot[i];
}

static struct ref_slot *slot_mut(struct refq *m, uint32_t i)
{
	return (struct ref_slot *)ref_slot_at(m, i);
}

/* drop slot 0 and every hole that follows it; returns whether the timed
 * slot (`target`) was among them */
static int pop_head(struct refq *m)
{
	uint32_t k = 0;

	if (m->wrapped) {
		/* the kernel's choke_zap_head_holes() */
		m->ring[m->rhead].pkt = NULL;
		do {
			m->rhead = (m->rhead + 1) & m->rmask;
			if (m->rhead == m->rtail)
				break;
		} while (m->ring[m->rhead].pkt == NULL);
		return 0;
	}
	do {
		memmove(&m->slot[0], &m->slot[1], (m->n - 1) * sizeof(m->slot[0]));
		m->n--;
		k++;
	} while (m->n > 0 && m->slot[0].pkt == NULL);
	if (m->pr.probe < 0)
		return 0;
	if (m->pr.probe < (int64_t)k) {
		m->pr.probe = -1;
		return 1;
	}
	m->pr.probe -= k;
	return 0;
}

static void push_tail(struct refq *m, void *pkt, uint32_t len, uint32_t flow)
{
	struct ref_slot s = { pkt, len, flow };

	if (m->wrapped) {
		/* literal kernel: store at tail whatever is there */
		m->ring[m->rtail] = s;
		m->rtail = (m->rtail + 1) & m->rmask;
		return;
	}
	if (m->n == m->cap) {
		if (m->storage == REF_OURS) {
			/* every slot used: remove the holes */
			uint32_t i, w = 0;

			for (i = 0; i < m->n; i++)
				if (m->slot[i].pkt)
					m->slot[w++] = m->slot[i];
			m->n = w;
			m->st.compactions++;
			m->pr.probe = -1;
		} else {
			/* mainline: this admission makes tail == head */
			uint32_t t = m->cap + 1, i;

			m->ring = calloc(t, sizeof(*m->ring));
			for (i = 0; i < m->n; i++)
				m->ring[i] = m->slot[i];
			m->rmask = t - 1;
			m->rhead = 0;
			m->rtail = m->n;
			m->wrapped = 1;
			push_tail(m, pkt, len, flow);
			return;
		}
	}
	m->slot[m->n++] = s;
}

/* ---------------- RED arithmetic ---------------- */

static uint32_t scaled(uint32_t th, uint8_t wlog)
{
	return th << wlog;
}

static uint32_t delta_of(const struct choke_config *c)
{
	int64_t d = (int64_t)c->qth_max - (int64_t)c->qth_min;

	return d > 0 ? (uint32_t)d : 1;
}

static uint32_t effective_maxp(const struct choke_config *c)
{
	uint32_t maxp = c->max_P;

	if (maxp == 0) {
		uint32_t base = c->Plog >= 32 ? 0xffffffffu : 0xffffffffu >> c->Plog;

		maxp = (uint32_t)((uint64_t)base * delta_of(c)); /* the kernel's u32 product */
	}
	return maxp;
}

static uint32_t maxp_divisor(const struct choke_config *c)
{
	uint32_t k = effective_maxp(c) / delta_of(c);

	return k ? k : 1;
}

/* ARED's state from a configuration: max_P as configured, no period yet */
static void ared_reset(struct refq *m)
{
	m->maxp = effective_maxp(&m->cfg);
	m->maxp_div = maxp_divisor(&m->cfg);
	m->ared_next = 0;
}

static int ared_on(const struct choke_config *c)
{
	return (c->red_ext & CHOKE_RED_ARED) ||
	       (c->kind == CHOKE_KIND_RED && (c->flags & CHOKE_FLAG_ADAPTATIVE));
}

/* the average after the queue has stood empty from idle_start to now */
static uint64_t average_after_idle(const struct refq *m, uint64_t now)
{
	const struct choke_config *c = &m->cfg;
	uint64_t elapsed = now >= m->idle_start ? now - m->idle_start : 0;
	uint64_t units = c->idle_unit == CHOKE_IDLE_KERNEL_US ? elapsed / 1000 : elapsed / 64;
	uint64_t cellmax = ((uint64_t)255 << c->Scell_log) & 0xffffffffu;
	uint32_t shift;

	if (units > cellmax)
		units = cellmax;
	shift = c->stab[(units >> c->Scell_log) % 256];
	if (shift)
		return m->qavg >> shift;
	{
		uint64_t prod = (uint64_t)((unsigned __int128)m->qavg * units);
		uint64_t d = prod >> c->Scell_log;

		return d < m->qavg / 2 ? m->qavg - d : m->qavg / 2;
	}
}

static void update_average(struct refq *m, uint64_t now)
{
	const struct choke_config *c = &m->cfg;

	if (!m->idle) {
		m->qavg = m->qavg - (m->qavg >> c->Wlog) +
			  (c->limit_bytes ? m->backlog : m->qlen);
		return;
	}
	m->qavg = average_after_idle(m, now);
	m->idle = 0;
}

/*
 * ARED: sch_red's timer, every 500 ms from the first arrival, one period
 * at a time (no shortcut), each running red_adaptative_algo() on the
 * average of that moment.
 */
static void ared_periods(struct refq *m, uint64_t now)
{
	const struct choke_config *c = &m->cfg;
	uint32_t delta = delta_of(c);
	uint64_t tmin = c->qth_min + 2 * (uint64_t)(delta / 5);
	uint64_t tmax = c->qth_min + 3 * (uint64_t)(delta / 5);

	if (!m->ared_next) {
		m->ared_next = now + CHOKE_ARED_INTERVAL_NS;
		return;
	}
	while (m->ared_next <= now) {
		uint64_t at = m->ared_next;
		uint64_t avg = (m->idle && at >= m->idle_start) ? average_after_idle(m, at) : m->qavg;
		uint64_t pkts = avg >> c->Wlog;
		uint32_t one_percent = (uint32_t)(((1ull << 32) + 50) / 100);

		if (pkts > tmax && m->maxp <= 50 * one_percent) {
			uint32_t alpha = m->maxp / 4;

			if (alpha > one_percent)
				alpha = one_percent;
			m->maxp += alpha;
		} else if (pkts < tmin && m->maxp >= one_percent) {
			m->maxp = m->maxp / 10 * 9;
		}
		/* rounded to the closest, in 32 bits as the kernel's macro */
		m->maxp_div = (uint32_t)(m->maxp + delta / 2) / delta;
		if (m->maxp_div == 0)
			m->maxp_div = 1;
		m->ared_next = at + CHOKE_ARED_INTERVAL_NS;
	}
}

static void qcount_inc(struct refq *m)
{
	m->qcount = m->qcount == INT32_MAX ? INT32_MIN : m->qcount + 1;
}

/* above: the average is past max (choke: avg > max, red: avg >= max);
 * with gentle that is the region up to twice max */
static int mark_now(const struct refq *m, uint32_t len, int above)
{
	const struct choke_config *c = &m->cfg;
	uint64_t excess = (m->qavg - scaled(c->qth_min, c->Wlog)) >> c->Wlog;
	uint64_t count = (uint64_t)m->qcount; /* sign-extended, as the kernel's long */
	uint64_t prod = (uint64_t)((unsigned __int128)excess * count);
	uint64_t against = m->qR;
	int wait = c->red_ext & CHOKE_RED_WAIT;

	if (above) {
		/* gentle: p_b from max_P at max to 1 at twice max, as a
		 * fraction of 2^32, against the draw before its division */
		uint64_t hi = scaled(c->qth_max, c->Wlog);
		uint64_t pb = m->maxp + ((1ull << 32) - m->maxp) * (m->qavg - hi) / hi;

		prod = pb * count;
		against = (uint64_t)m->qR * m->maxp_div + (wait ? 1ull << 32 : 0);
	} else if (wait) {
		/* the next mark one whole range of qR later */
		against += 0xffffffffu / m->maxp_div;
	}
	if (c->limit_bytes) /* byte mode: len / avpkt times as likely */
		return (unsigned __int128)prod * len >= (unsigned __int128)against * c->avpkt;
	return prod >= against;
}

static void new_qR(struct refq *m)
{
	m->qR = m->rnd(m->rnd_ctx) / m->maxp_div;
}

/* ---------------- protect ---------------- */

/*
 * The rule of docs/variants.md, spelled out without the core's shortcuts:
 * the decay factors and linear counting's correction computed here with
 * libm (the core has them as constants), the eight candidate entries
 * listed and scanned, the flows of a window counted from one byte per bin.
 */
#define PR_NONE 0xffffffffu
#define PR_WINDOW (1u << 20) /* bytes */
#define PR_STEP (1u << 16)

static uint64_t pr_decay16[16], pr_ln2inv;
static uint32_t pr_lincount[33];

static void protect_tables(void)
{
	int i;

	for (i = 0; i < 16; i++)
		pr_decay16[i] = (uint64_t)llround(ldexp(exp2(-i / 16.0), 32));
	pr_ln2inv = (uint64_t)llround(65536.0 / log(2.0));
	pr_lincount[0] = 65536;
	for (i = 1; i < 32; i++) {
		double x = i / 32.0;

		pr_lincount[i] = (uint32_t)lround(-log1p(-x) / x * 65536.0);
	}
	pr_lincount[32] = pr_lincount[31];
}

/* a counter after the whole steps in `age` bytes departed: halved per 16
 * steps, times 2^(-steps/16) for the rest, rounded down */
static uint32_t pr_decay(uint32_t r, uint64_t age)
{
	uint64_t steps = age / PR_STEP;

	if (steps / 16 >= 32)
		return 0;
	return (uint32_t)(((uint64_t)(r >> (steps / 16)) * pr_decay16[steps % 16]) >> 32);
}

/* MurmurHash3's 32-bit finalizer */
static uint32_t pr_mix(uint32_t x)
{
	x = (x ^ (x >> 16)) * 0x85EBCA6Bu;
	x = (x ^ (x >> 13)) * 0xC2B2AE35u;
	return x ^ (x >> 16);
}

static uint32_t pr_bin(uint32_t flow)
{
	return pr_mix(flow) / (1u << 22);
}

/* the eight entries a flow may use: bucket one's four, then bucket two's */
static void pr_candidates(const struct refq *m, uint32_t flow, unsigned c[8])
{
	unsigned nb = m->pr.entries / 4, b1, b2, w, bits = 0;
	uint32_t h = pr_mix(flow);

	while ((1u << bits) < nb)
		bits++;
	b1 = (unsigned)(h >> (32 - bits)); /* the top log2(nb) bits */
	b2 = b1 ^ ((h / 256 % nb) | 1);
	for (w = 0; w < 4; w++) {
		c[w] = b1 * 4 + w;
		c[4 + w] = b2 * 4 + w;
	}
}

/* the counter of a flow at the equal split (no boost) */
static uint64_t pr_fair_equal(const struct refq *m)
{
	return ((uint64_t)m->pr.share * pr_ln2inv) >> 24;
}

/* the counter of a flow at its (boosted) share */
static uint64_t pr_fair(const struct refq *m)
{
	return (pr_fair_equal(m) * m->pr.boost) >> 8;
}

static uint32_t pr_random_below(struct refq *m, uint32_t n)
{
	return (uint32_t)(((uint64_t)m->rnd(m->rnd_ctx) * n) >> 32);
}

/* the candidate: the smallest counter halved per whole half-life since
 * it was touched, the first of the eight on a tie; replaced if its
 * decayed counter is at most the fair one; it starts with the arrival's
 * bytes */
static unsigned pr_enter(struct refq *m, uint32_t flow, uint32_t len)
{
	unsigned c[8], i, best = 0;
	uint64_t best_key = 0;

	pr_candidates(m, flow, c);
	for (i = 0; i < 8; i++) {
		const struct ref_protect_entry *e = &m->pr.e[c[i]];
		uint64_t halvings = (m->pr.clock - e->stamp) / PR_WINDOW;
		uint64_t key = halvings >= 32 ? 0 : e->rate / ((uint64_t)1 << halvings);

		if (i == 0 || key < best_key) {
			best = c[i];
			best_key = key;
		}
	}
	if (pr_decay(m->pr.e[best].rate, m->pr.clock - m->pr.e[best].stamp) > pr_fair(m))
		return PR_NONE;
	m->pr.e[best].flow = flow;
	m->pr.e[best].rate = len ? len : 1;
	m->pr.e[best].stamp = m->pr.clock;
	m->pr.e[best].born = (uint32_t)(m->pr.clock / PR_STEP % 65536);
	if (m->pr.e[best].born == 0xffff)
		m->pr.e[best].born = 0xfffe; /* 0xffff says "long ago" */
	m->st.protect_inserts++;
	return best;
}

/* every arrival: seen; its bytes counted in its entry, or maybe sampled
 * into one */
static unsigned pr_arrival(struct refq *m, uint32_t flow, uint32_t len)
{
	unsigned c[8], i;

	m->pr.seen[pr_bin(flow)] = 1;
	pr_candidates(m, flow, c);
	for (i = 0; i < 8; i++) {
		struct ref_protect_entry *e = &m->pr.e[c[i]];

		if (e->rate && e->flow == flow) {
			uint64_t age = m->pr.clock - e->stamp;
			uint64_t r = (uint64_t)pr_decay(e->rate, age) + len;

			e->rate = r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
			e->stamp += age / PR_STEP * PR_STEP; /* the whole steps taken */
			return c[i];
		}
	}
	m->pr.sample_left--;
	if (m->pr.sample_left > 0)
		return PR_NONE;
	m->pr.sample_left = 1 + pr_random_below(m, 31);
	return pr_enter(m, flow, len);
}

/* congested now: the average above min, or with `target` the last delay
 * measured above the goal */
static int pr_congested(const struct refq *m)
{
	if (m->pr.target_ns)
		return m->pr.congested;
	return m->qavg > scaled(m->cfg.qth_min, m->cfg.Wlog);
}

static int fls64(uint64_t x)
{
	int n = 0;

	while (x) {
		n++;
		x /= 2;
	}
	return n;
}

/* 0 admit, 1 mark, 2 drop: above the allowance with probability
 * 1 - allowance / rate; with a target, the allowance less the drain, and a
 * flow two doublings or more above it gets the allowance times unresp, at
 * most the unboosted share's counter less the drain, all times the room;
 * an ECT packet of a flow within that is marked instead when the queue
 * has ecn; with a target, holding a flow within two doublings ends the
 * run of spare intervals */
static int pr_verdict(struct refq *m, unsigned entry, int ect)
{
	uint64_t allow = pr_fair(m), rate;
	int lg;

	if (entry == PR_NONE)
		return 0;
	if (!pr_congested(m)) {
		if (!m->pr.target_ns && (!m->pr.busy || m->pr.idled))
			return 0;
		allow = allow + allow / 4;
	}
	allow -= allow * m->pr.drain / 256;
	rate = m->pr.e[entry].rate;
	/* with a target, while the drain is on: a counter entered under 64
	 * steps ago (at least one) is taken for its steady value, over
	 * 1 - 2^(-age/16) */
	if (m->pr.drain && m->pr.e[entry].born != 0xffff) {
		uint64_t age = (m->pr.clock / PR_STEP - m->pr.e[entry].born) % 65536;

		if (age < 64) {
			uint64_t reached = ((uint64_t)1 << 32) - (pr_decay16[(age ? age : 1) % 16] >>
								 ((age ? age : 1) / 16));

			rate = (rate << 32) / reached;
			if (rate > UINT32_MAX)
				rate = UINT32_MAX;
		}
	}
	if (rate <= allow)
		return 0;
	lg = fls64(rate) - fls64(allow);
	if (lg > 1 && m->pr.target_ns) {
		uint64_t equal = pr_fair_equal(m) - pr_fair_equal(m) * m->pr.drain / 256;

		allow = allow * m->pr.unresp / 256;
		if (allow > equal)
			allow = equal;
		allow = allow * m->pr.room / 64;
	}
	if (((uint64_t)m->rnd(m->rnd_ctx) * rate >> 32) < allow)
		return 0;
	if (lg <= 1 && m->pr.target_ns)
		m->pr.spare = 0;
	if (lg <= 1 && (m->cfg.flags & CHOKE_FLAG_ECN) && ect)
		return 1;
	return 2;
}

uint32_t ref_protect_flows(const struct refq *m)
{
	uint32_t i, n = 0;

	for (i = 0; i < CHOKE_PROTECT_BINS; i++)
		n += m->pr.seen[i];
	return n;
}

/* flows seen, by linear counting, Q16 */
static uint64_t pr_nflows_q16(uint32_t t)
{
	uint32_t k = t * 32 / 1024, f = t * 32 % 1024;
	uint64_t corr;

	if (k >= 32) {
		k = 31;
		f = 1023;
	}
	corr = ((uint64_t)pr_lincount[k] * (1024 - f) + (uint64_t)pr_lincount[k + 1] * f) / 1024;
	return (uint64_t)t * corr;
}

static void pr_window_end(struct refq *m)
{
	uint32_t t = ref_protect_flows(m);

	if (t) {
		uint64_t s = ((uint64_t)PR_WINDOW << 24) / pr_nflows_q16(t);

		m->pr.share = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
	} else {
		m->pr.share = UINT32_MAX;
	}
	memset(m->pr.seen, 0, sizeof(m->pr.seen));
}

/* `target`: a window of time; the share from the capacity measured (the
 * bytes of the departures that had a packet waiting before them, over the
 * time since the departure before each, per window of 2^30 ns; none
 * measured: the share stays); the goal at least three of the largest
 * packets' transmission times */
static void pr_window_end_time(struct refq *m, uint64_t now)
{
	uint32_t t = ref_protect_flows(m);
	uint64_t busy = m->pr.wsvc_ns;

	if (t && m->pr.wbytes && busy && m->pr.wstart_ns) {
		/* bytes per window, over 256 */
		uint64_t cap = (m->pr.wbytes << 22) / busy;
		uint64_t s = (cap << 32) / pr_nflows_q16(t);

		m->pr.share = s > UINT32_MAX ? UINT32_MAX : s ? (uint32_t)s : 1; /* never 0 */
	} else if (!t) {
		m->pr.share = UINT32_MAX;
	}
	m->pr.goal_ns = m->pr.target_ns;
	if (m->pr.wbytes && busy) {
		uint64_t three = 3 * (uint64_t)m->pr.wmaxlen * busy / m->pr.wbytes;

		if (three > m->pr.goal_ns)
			m->pr.goal_ns = three;
	}
	m->pr.wbytes /= 2; /* older samples count half */
	m->pr.wmaxlen = 0;
	m->pr.wsvc_ns /= 2;
	m->pr.wstart_ns = now;
	memset(m->pr.seen, 0, sizeof(m->pr.seen));
}

/* the boost down by a 32nd when congested (not below 1), up by a 32nd
 * and one when underused while protect dropped (in this period or the one
 * before) */
static void pr_correct(struct refq *m, int congested, int underused)
{
	if (congested) {
		m->pr.boost -= m->pr.boost / 32;
		if (m->pr.boost < 256)
			m->pr.boost = 256;
	} else if (underused && (m->pr.drops || m->pr.dropped)) {
		m->pr.boost += m->pr.boost / 32 + 1;
		if (m->pr.boost > (256u << 16))
			m->pr.boost = 256u << 16;
	}
	m->pr.dropped = m->pr.drops != 0;
	m->pr.drops = 0;
}

/* a step's end: without `target`, the correction (congested: above min
 * with no idle time; underused: it idled) */
static void pr_step_end(struct refq *m)
{
	/* `target`: this window's flows so far would give less than half the
	 * share (none known: the largest): that share at once */
	if (m->pr.target_ns && m->pr.wbytes && m->pr.wsvc_ns && ref_protect_flows(m)) {
		uint64_t s = ((m->pr.wbytes << 22) / m->pr.wsvc_ns << 32) /
			     pr_nflows_q16(ref_protect_flows(m));

		if (s > UINT32_MAX)
			s = UINT32_MAX;
		if (s == 0)
			s = 1;
		if (s < m->pr.share / 2)
			m->pr.share = (uint32_t)s;
	}
	if (!m->pr.target_ns)
		pr_correct(m, !m->pr.idled && m->qavg > scaled(m->cfg.qth_min, m->cfg.Wlog),
			   m->pr.idled);
	m->pr.busy = !m->pr.idled;
	m->pr.idled = 0;
}

/* `target`: an interval's end (100 ms): congested if the smallest delay
 * measured (none: the open probe's age) is above the goal and the link did
 * not idle; underused if it is below */
static void pr_interval_end(struct refq *m, uint64_t now)
{
	uint64_t d = m->pr.delay_ns;

	if (d == UINT64_MAX)
		d = m->pr.probe >= 0 && now > m->pr.probe_ns ? now - m->pr.probe_ns : 0;
	/* the room, before the correction clears the drops: a run of
	 * intervals idle over a 32nd while protect dropped; from the fifth
	 * in a row it grows by the fraction idle (Q8), a congested interval
	 * halves it; 1 to 65535/64 */
	{
		int congested = d > m->pr.goal_ns && !m->pr.idle_ns;
		uint64_t span = now - m->pr.step_ns, idle = 0;

		if (m->pr.idle_ns && m->pr.step_ns && span)
			idle = m->pr.idle_ns >= span ? 256 : m->pr.idle_ns * 256 / span;
		/* no more than the part of the link's capacity (the rate's
		 * bytes over its time, times the span; times in 1024 ns) left
		 * unused */
		if (idle && m->pr.wbytes && m->pr.wsvc_ns >= 1024 && span < (1ull << 36)) {
			uint64_t cap = m->pr.wbytes * (span >> 10) / (m->pr.wsvc_ns >> 10);
			uint64_t sent = m->st.sent_bytes - m->pr.step_sent;
			uint64_t unused = cap > sent ? (cap - sent) * 256 / cap : 0;

			if (unused < idle)
				idle = unused;
		}
		m->pr.step_sent = m->st.sent_bytes;
		if (idle > 8 && (m->pr.drops || m->pr.dropped))
			m->pr.spare = m->pr.spare < 255 ? m->pr.spare + 1 : 255;
		else
			m->pr.spare = 0;
		if (congested)
			m->pr.room = m->pr.room / 2 < 64 ? 64 : m->pr.room - m->pr.room / 2;
		else if (m->pr.spare >= 5)
			m->pr.room = m->pr.room + m->pr.room * idle / 256 > 65535 ?
				65535 : (uint32_t)(m->pr.room + m->pr.room * idle / 256);
	}
	pr_correct(m, d > m->pr.goal_ns && !m->pr.idle_ns, d < m->pr.goal_ns);
	/* entries 64 steps old or more are marked so */
	{
		unsigned i;

		for (i = 0; i < m->pr.entries; i++)
			if (m->pr.e[i].born != 0xffff &&
			    (m->pr.clock / PR_STEP - m->pr.e[i].born) % 65536 >= 64)
				m->pr.e[i].born = 0xffff;
	}
	/* what the flows between half and twice the fair counter reach, on
	 * average, over it (Q8, each at most 1), not below 1/2 */
	{
		uint64_t f = pr_fair(m), sum = 0;
		unsigned i, n = 0;

		for (i = 0; f && i < m->pr.entries; i++) {
			uint64_t r = pr_decay(m->pr.e[i].rate, m->pr.clock - m->pr.e[i].stamp);

			if (!m->pr.e[i].rate || r * 2 < f || r > f * 2)
				continue;
			sum += r > f ? 256 : (r * 256) / f;
			n++;
		}
		m->pr.unresp = n ? (uint32_t)(sum / n) : 256;
		if (m->pr.unresp < 128)
			m->pr.unresp = 128;
	}
	/* the drain: (delay - goal) / 1 s in Q8, at most half, while the
	 * smallest delay is above the goal and the link did not idle */
	m->pr.drain = 0;
	if (d > m->pr.goal_ns && !m->pr.idle_ns) {
		uint64_t cut = (d - m->pr.goal_ns) * 256 / 1000000000;

		m->pr.drain = cut > 128 ? 128 : (uint32_t)cut;
	}
	m->pr.idle_ns = 0;
	m->pr.delay_ns = UINT64_MAX;
	m->pr.step_ns = now;
}

/* `target`: time in units of 1024 ns; what ended since the last tick */
static void pr_tick(struct refq *m, uint64_t now)
{
	uint64_t was = m->pr.clock, c = now / 1024;

	if (c <= was)
		return;
	m->pr.clock = c;
	if (now - m->pr.step_ns >= 100000000)
		pr_interval_end(m, now);
	if (was / PR_STEP == c / PR_STEP)
		return;
	if (was / PR_WINDOW != c / PR_WINDOW)
		pr_window_end_time(m, now);
	pr_step_end(m);
}

static void pr_departure(struct refq *m, uint32_t len, uint64_t now)
{
	uint64_t was = m->pr.clock;

	if (m->pr.target_ns) {
		uint64_t t = (now >> 10) & 0xffffffffu;

		if (m->pr.svc_held) {
			m->pr.wbytes += len;
			m->pr.wsvc_ns += ((t - m->pr.svc_last) & 0xffffffffu) << 10;
		}
		m->pr.svc_last = t;
		m->pr.svc_held = m->qlen > 0;
		/* emptied: idle once this packet's service (at the rate
		 * measured) is over */
		if (m->qlen == 0 && m->pr.wbytes)
			m->idle_start = now + len * m->pr.wsvc_ns / m->pr.wbytes;
		if (len > m->pr.wmaxlen)
			m->pr.wmaxlen = len;
		pr_tick(m, now);
		return;
	}
	m->pr.clock += len;
	if (was / PR_STEP == m->pr.clock / PR_STEP)
		return;
	if (was / PR_WINDOW != m->pr.clock / PR_WINDOW)
		pr_window_end(m);
	pr_step_end(m);
}

/* `target`: the timed packet passed by the head at a departure */
static void pr_probe_passed(struct refq *m, uint64_t now)
{
	uint64_t d = now > m->pr.probe_ns ? now - m->pr.probe_ns : 0;

	m->pr.probe = -1;
	if (d < m->pr.delay_ns)
		m->pr.delay_ns = d;
	m->pr.congested = d > m->pr.goal_ns;
}

static void protect_configure(struct refq *m, unsigned old_entries, uint64_t old_target)
{
	unsigned n = m->cfg.protect;

	if (!pr_decay16[0])
		protect_tables();
	m->pr.target_ns = n ? (uint64_t)m->cfg.target_us * 1000 : 0;
	m->pr.goal_ns = m->pr.target_ns;
	if (old_entries && (old_target != 0) != (m->pr.target_ns != 0))
		old_entries = 0; /* the clock changes: start afresh */
	if (!n || n == old_entries) {
		m->pr.entries = n;
		return;
	}
	if (!old_entries) {
		m->pr.share = UINT32_MAX;
		m->pr.boost = 256;
		m->pr.drops = 0;
		m->pr.idled = m->pr.busy = m->pr.dropped = m->pr.congested = 0;
		m->pr.probe = -1;
		m->pr.step_ns = m->pr.idle_ns = 0;
		m->pr.delay_ns = UINT64_MAX;
		m->pr.clock = 0;
		m->pr.unresp = 256;
		m->pr.drain = 0;
		m->pr.room = 64;
		m->pr.spare = 0;
		m->pr.step_sent = m->st.sent_bytes;
		m->pr.wstart_ns = m->pr.wbytes = m->pr.wsvc_ns = 0;
		m->pr.svc_held = 0;
		m->pr.wmaxlen = 0;
		memset(m->pr.seen, 0, sizeof(m->pr.seen));
	}
	memset(m->pr.e, 0, sizeof(m->pr.e));
	m->pr.entries = n;
	m->pr.sample_left = 16;
}

/* ---------------- sparse ---------------- */

/* packets of flow's bin queued, in the ring and the lane, counted */
static uint32_t sp_queued(const struct refq *m, uint32_t flow)
{
	uint32_t i, n = 0, b = pr_bin(flow);

	for (i = 0; i < ref_span(m); i++)
		n += ref_slot_at(m, i)->pkt && pr_bin(ref_slot_at(m, i)->flow) == b;
	for (i = 0; i < m->lane_len; i++)
		n += pr_bin(m->lane[i].flow) == b;
	return n;
}

/* ---------------- enqueue ---------------- */

static int drop_arrival(struct refq *m, int outcome)
{
	m->st.drops++;
	return outcome;
}

/* remove the queued packet at slot i (leaving a hole) */
static void kill_slot(struct refq *m, uint32_t i, struct choke_verdict *v)
{
	struct ref_slot *s = slot_mut(m, i);

	v->nvictims = 1;
	v->victim[0] = s->pkt;
	v->victim_len[0] = s->len;
	m->qlen--;
	m->backlog -= s->len;
	m->st.drops++;
	m->st.match_victims++;
	if (i == 0) {
		(void)pop_head(m); /* a timed victim leaves unmeasured */
	} else {
		s->pkt = NULL;
	}
}

/* one mainline draw: three tries at a packet, else the head */
static uint32_t draw_slot(struct refq *m)
{
	uint32_t n = ref_span(m), pick = 0, tries;

	for (tries = 0; tries < 3; tries++) {
		pick = (uint32_t)(((uint64_t)m->rnd(m->rnd_ctx) * n) >> 32);
		if (ref_slot_at(m, pick)->pkt)
			return pick;
	}
	return 0;
}

/* the variants: how many draws, then all of them, then the drops */
static int variant_match(struct refq *m, void *pkt, uint32_t flow,
			 struct choke_verdict *v)
{
	const struct choke_config *c = &m->cfg;
	uint64_t lo = scaled(c->qth_min, c->Wlog), hi = scaled(c->qth_max, c->Wlog);
	uint32_t n = c->draws, picks[CHOKE_MAX_DRAWS], np = 0, d, k;
	int head = 0;

	if (c->variant == CHOKE_VAR_ADAPTIVE) {
		if (m->qavg > hi) {
			n = 16;
		} else {
			uint64_t region = hi > lo ? (m->qavg - lo) * 8 / (hi - lo) : 0;

			n = 2 * (uint32_t)((region > 7 ? 7 : region) + 1);
		}
	}
	for (d = 0; d < n; d++) {
		uint32_t i = draw_slot(m);
		const struct ref_slot *s = ref_slot_at(m, i);
		int seen = 0;

		m->st.draws++;
		if (!(s->flow == flow && m->same(s->pkt, pkt))) {
			if (c->variant == CHOKE_VAR_GEOMETRIC)
				break;
			continue;
		}
		for (k = 0; k < np; k++)
			seen |= picks[k] == i;
		if (!seen)
			picks[np++] = i;
	}
	if (!np)
		return 0;
	m->st.matched++;
	for (k = 0; k < np; k++) {
		struct ref_slot *s = slot_mut(m, picks[k]);

		v->victim[k] = s->pkt;
		v->victim_len[k] = s->len;
		m->qlen--;
		m->backlog -= s->len;
		m->st.drops++;
		m->st.match_victims++;
		s->pkt = NULL;
		head |= picks[k] == 0;
	}
	v->nvictims = np;
	if (head) { /* the head is a hole now: move past it and what follows */
		if (m->wrapped) {
			do {
				m->rhead = (m->rhead + 1) & m->rmask;
			} while (m->rhead != m->rtail && m->ring[m->rhead].pkt == NULL);
		} else {
			while (m->n > 0 && m->slot[0].pkt == NULL) {
				memmove(&m->slot[0], &m->slot[1], (m->n - 1) * sizeof(m->slot[0]));
				m->n--;
				/* a timed slot passed so leaves unmeasured */
				if (m->pr.probe >= 0)
					m->pr.probe--;
			}
		}
	}
	/* more holes than packets: remove the holes (REF_OURS only) */
	if (!m->wrapped && m->n - m->qlen > m->qlen) {
		uint32_t i, w = 0;

		for (i = 0; i < m->n; i++)
			if (m->slot[i].pkt)
				m->slot[w++] = m->slot[i];
		m->n = w;
		m->st.compactions++;
		m->pr.probe = -1;
	}
	return 1;
}

/* -1: admit, 1: admit marked, else a drop outcome */
static int choke_rules(struct refq *m, void *pkt, uint32_t flow, uint32_t id, uint32_t len,
		       int ect, unsigned pentry, struct choke_verdict *v)
{
	const struct choke_config *c = &m->cfg;
	uint32_t lo = scaled(c->qth_min, c->Wlog), hi = scaled(c->qth_max, c->Wlog);
	int ecn = c->flags & CHOKE_FLAG_ECN, hard = c->flags & CHOKE_FLAG_HARDDROP;
	int matched = 0;

	if (c->protect) {
		int pv = pr_verdict(m, pentry, ect);

		if (pv == 2) {
			m->st.protect_drop++;
			m->pr.drops++;
			return drop_arrival(m, CHOKE_DROP_PROTECT);
		}
		if (pv == 1) {
			m->st.protect_mark++;
			m->pr.drops++;
			return 1;
		}
		/* with `target` protect is the whole rule: no draw, no RED */
		if (m->pr.target_ns)
			return -1;
	}
	if (m->qavg <= lo) {
		m->qcount = -1;
		return -1;
	}
	if (ref_span(m) > 0 && c->variant) {
		matched = variant_match(m, pkt, flow, v);
	} else if (ref_span(m) > 0) {
		uint32_t pick = draw_slot(m);
		const struct ref_slot *s = ref_slot_at(m, pick);

		m->st.draws++;
		if (s->flow == flow && m->same(s->pkt, pkt)) {
			m->st.matched++;
			kill_slot(m, pick, v);
			matched = 1;
		}
	}
	if (matched) {
		/* a flow caught by a draw is entered into protect's table */
		if (c->protect && pentry == PR_NONE)
			pr_enter(m, id, len);
		return drop_arrival(m, CHOKE_DROP_MATCH);
	}
	if (m->qavg > hi && !((c->red_ext & CHOKE_RED_GENTLE) && m->qavg <= 2 * (uint64_t)hi)) {
		m->qcount = -1;
		m->st.overlimits++;
		if (hard || !ecn || !ect) {
			m->st.forced_drop++;
			return drop_arrival(m, CHOKE_DROP_FORCED);
		}
		m->st.forced_mark++;
		return 1;
	}
	qcount_inc(m);
	if (m->qcount == 0) {
		new_qR(m);
		return -1;
	}
	if (!mark_now(m, len, m->qavg > hi))
		return -1;
	m->qcount = 0;
	new_qR(m);
	m->st.overlimits++;
	if (ecn && ect) {
		m->st.prob_mark++;
		return 1;
	}
	m->st.prob_drop++;
	return drop_arrival(m, CHOKE_DROP_EARLY);
}

static int red_rules(struct refq *m, uint32_t len, int ect)
{
	const struct choke_config *c = &m->cfg;
	uint32_t lo = scaled(c->qth_min, c->Wlog), hi = scaled(c->qth_max, c->Wlog);
	int ecn = c->flags & CHOKE_FLAG_ECN, hard = c->flags & CHOKE_FLAG_HARDDROP;
	int nodrop = c->flags & CHOKE_FLAG_NODROP;
	int forced;

	if (m->qavg < lo) {
		m->qcount = -1;
		return -1;
	}
	if (m->qavg >= hi && !((c->red_ext & CHOKE_RED_GENTLE) && m->qavg < 2 * (uint64_t)hi)) {
		m->qcount = -1;
		forced = 1;
	} else {
		qcount_inc(m);
		if (m->qcount == 0) {
			new_qR(m);
			return -1;
		}
		if (!mark_now(m, len, m->qavg >= hi))
			return -1;
		m->qcount = 0;
		new_qR(m);
		forced = 0;
	}
	m->st.overlimits++;
	if (!ecn || (forced && hard)) {
		/* drop */
	} else if (ect) {
		if (forced)
			m->st.forced_mark++;
		else
			m->st.prob_mark++;
		return 1;
	} else if (nodrop) {
		return -1;
	}
	if (forced) {
		m->st.forced_drop++;
		return drop_arrival(m, CHOKE_DROP_FORCED);
	}
	m->st.prob_drop++;
	return drop_arrival(m, CHOKE_DROP_EARLY);
}

/* `sparse`: at the limit a lane arrival pushes the queue's head out (a
 * victim, counted as a limit drop), unless the queue holds no packet, or
 * in byte mode the head's bytes would not make the arrival's room */
static int lane_push_out(struct refq *m, uint32_t len, uint64_t now, struct choke_verdict *v)
{
	struct ref_slot h;

	if (!ref_span(m) || m->qlen > m->cfg.limit)
		return 0;
	h = *ref_slot_at(m, 0);
	if (m->cfg.limit_bytes && m->backlog - h.len + len > m->cfg.limit_bytes)
		return 0;
	v->victim[0] = h.pkt;
	v->victim_len[0] = h.len;
	v->nvictims = 1;
	if (pop_head(m) && m->pr.target_ns)
		pr_probe_passed(m, now);
	m->qlen--;
	m->backlog -= h.len;
	m->st.pdrop++;
	m->st.drops++;
	return 1;
}

/* `sparse`: an arrival for the lane meets protect and the limit only */
static int lane_admit(struct refq *m, void *pkt, uint32_t len, uint32_t flow, unsigned pentry,
		      int ect, uint64_t now, struct choke_verdict *v)
{
	struct ref_slot s = { pkt, len, flow };
	int pv = m->cfg.protect ? pr_verdict(m, pentry, ect) : 0;

	if (pv == 2) {
		m->st.protect_drop++;
		m->pr.drops++;
		return drop_arrival(m, CHOKE_DROP_PROTECT);
	}
	if ((m->qlen >= m->cfg.limit ||
	     (m->cfg.limit_bytes && m->backlog + len > m->cfg.limit_bytes)) &&
	    !lane_push_out(m, len, now, v)) {
		m->st.pdrop++;
		return drop_arrival(m, CHOKE_DROP_LIMIT);
	}
	m->lane[m->lane_len++] = s;
	m->qlen++;
	m->backlog += len;
	m->st.lane_pkts++;
	if (pv == 1) {
		m->st.protect_mark++;
		m->pr.drops++;
		return CHOKE_QUEUED_MARKED;
	}
	return CHOKE_QUEUED;
}

int ref_enqueue(struct refq *m, void *pkt, uint32_t len, uint32_t flow,
		int ect, uint64_t now, struct choke_verdict *v)
{
	return ref_enqueue_as(m, pkt, len, flow, flow, ect, now, v);
}

int ref_enqueue_as(struct refq *m, void *pkt, uint32_t len, uint32_t flow, uint32_t id,
		   int ect, uint64_t now, struct choke_verdict *v)
{
	int r = -1;

	v->nvictims = 0;
	m->st.offered_pkts++;
	m->st.offered_bytes += len;
	if (m->cfg.kind != CHOKE_KIND_FIFO) {
		int was_idle = m->idle;
		uint64_t idle_start = m->idle_start;

		if (ared_on(&m->cfg))
			ared_periods(m, now);
		update_average(m, now);
		if (was_idle && m->pr.target_ns && now > idle_start)
			m->pr.idle_ns += now - idle_start;
		if (m->cfg.kind == CHOKE_KIND_CHOKE) {
			unsigned pentry = PR_NONE;

			if (m->cfg.protect) {
				/* a timed packet older than the target: above it */
				if (m->pr.target_ns) {
					pr_tick(m, now);
					if (m->pr.probe >= 0 && now > m->pr.probe_ns + m->pr.goal_ns)
						m->pr.congested = 1;
					/* an arrival to an empty queue: its departure
					 * is no measure of the link */
					if (m->qlen == 0)
						m->pr.svc_held = 0;
				}
				pentry = pr_arrival(m, id, len);
			}
			if (m->cfg.sparse && m->lane_len < CHOKE_LANE_SLOTS &&
			    len <= CHOKE_LANE_MAX_LEN && !sp_queued(m, flow) &&
			    (pentry == PR_NONE || m->cfg.protect_by ||
			     m->pr.e[pentry].rate <= pr_fair(m) / 2))
				return lane_admit(m, pkt, len, flow, pentry, ect, now, v);
			r = choke_rules(m, pkt, flow, id, len, ect, pentry, v);
		} else {
			r = red_rules(m, len, ect);
		}
		if (r > 1)
			return r;
	}
	if (m->qlen >= m->cfg.limit ||
	    (m->cfg.limit_bytes && m->backlog + len > m->cfg.limit_bytes)) {
		m->st.pdrop++;
		return drop_arrival(m, CHOKE_DROP_LIMIT);
	}
	if (!m->wrapped && ref_span(m) == ref_mainline_slots(m->cfg.limit) - 1)
		m->st.wrap_avoided++;
	push_tail(m, pkt, len, flow);
	if (m->pr.target_ns && m->pr.probe < 0) {
		/* time this packet */
		m->pr.probe = (int64_t)ref_span(m) - 1;
		m->pr.probe_ns = now;
	}
	m->qlen++;
	m->backlog += len;
	return r == 1 ? CHOKE_QUEUED_MARKED : CHOKE_QUEUED;
}

/* ---------------- batched CHOKe ----------------
 *
 * A chunk of up to REF_BATCH_CHUNK arrivals is decided from the queue as
 * it stood when the chunk began: first one random number per arrival, each
 * naming one slot among the span of then (a hole, or a packet an earlier
 * arrival of the chunk took, is no match; no retries); RED's region, and
 * between the thresholds the count at which it marks, from the average the
 * chunk's first arrival sees, its qR draws after the chunk's draws; the
 * average still moves with every arrival. A chunk is one arrival when the
 * span is empty or the chunk might meet the limit or the storage's lower
 * half; only then does an admission check the limit (and count a wrap
 * avoided, and compact). Victims leave holes, even at the head: the head
 * moves past them when the chunk ends. An idle queue's first arrival is
 * ref_enqueue's.
 */

enum { BAT_BELOW, BAT_BETWEEN, BAT_ABOVE };

/* the configurations the batched rule is for; others take ref_enqueue */
static int batch_eligible(const struct refq *m, int hooks)
{
	const struct choke_config *c = &m->cfg;

	return c->kind == CHOKE_KIND_CHOKE && !c->variant && !c->protect && !c->sparse &&
	       !c->limit_bytes && !c->red_ext && !hooks;
}

/* the count at which RED marks: INT32_MAX for no excess, else
 * ceil(qR / excess), at least 1, at most INT32_MAX */
static int64_t batch_mark_count(uint64_t excess, uint32_t qR)
{
	uint64_t c;

	if (excess == 0)
		return INT32_MAX;
	c = qR / excess;
	if (qR % excess)
		c++;
	if (c < 1)
		c = 1;
	return c > INT32_MAX ? INT32_MAX : (int64_t)c;
}

/* one admission at the tail; checked: as ref_enqueue admits (the limit,
 * the wrap count, the compaction) */
static int batch_admit(struct refq *m, void *pkt, uint32_t len, uint32_t flow, int checked,
		       int marked)
{
	if (checked) {
		if (m->qlen >= m->cfg.limit) {
			m->st.pdrop++;
			m->st.drops++;
			m->bat.one_tail_drops++;
			return CHOKE_DROP_LIMIT;
		}
		if (m->n == ref_mainline_slots(m->cfg.limit) - 1)
			m->st.wrap_avoided++;
		push_tail(m, pkt, len, flow); /* compacts when every slot is used */
	} else {
		/* the chunk was chosen so that this cannot meet the limit or
		 * the end of the storage */
		struct ref_slot s = { pkt, len, flow };

		m->slot[m->n++] = s;
	}
	m->qlen++;
	m->backlog += len;
	return marked ? CHOKE_QUEUED_MARKED : CHOKE_QUEUED;
}

/* One chunk from arrival i0 (of n): returns how many arrivals it took. */
static uint32_t batch_chunk(struct refq *m, void *const pkt[], const uint32_t len[],
			    const uint32_t flow[], const uint8_t pkt_flags[], uint32_t i0,
			    uint32_t n, uint8_t outcome[], struct choke_victim victim[],
			    uint32_t *nv)
{
	const struct choke_config *c = &m->cfg;
	uint64_t lo = scaled(c->qth_min, c->Wlog), hi = scaled(c->qth_max, c->Wlog);
	int ecn = (c->flags & CHOKE_FLAG_ECN) != 0, hard = (c->flags & CHOKE_FLAG_HARDDROP) != 0;
	uint32_t span0 = m->n, chunk = n - i0 < REF_BATCH_CHUNK ? n - i0 : REF_BATCH_CHUNK;
	uint32_t pos[REF_BATCH_CHUNK], k;
	uint64_t avg1, excess = 0;
	int64_t mark_at = 0;
	int one, region, draw;

	/* room: the whole chunk fits under the limit and in the storage's
	 * lower half (m->cap is the core's ring slots less one) */
	one = span0 == 0 || !((uint64_t)m->qlen + chunk <= c->limit &&
			      (uint64_t)span0 + chunk <= (m->cap >> 1));
	if (one)
		chunk = 1;

	/* the region of the average the chunk's first arrival sees */
	avg1 = m->qavg - (m->qavg >> c->Wlog) + m->qlen;
	region = avg1 <= lo ? BAT_BELOW : avg1 > hi ? BAT_ABOVE : BAT_BETWEEN;
	if (one)
		m->bat.one_chunks[region]++;
	else
		m->bat.chunks[region]++;
	m->bat.one_empty += span0 == 0;

	/* pass 1: one random number per arrival, a position among the span
	 * the chunk found */
	for (k = 0; k < chunk; k++) {
		uint32_t r = m->rnd(m->rnd_ctx);

		pos[k] = (uint32_t)(((uint64_t)r * span0) >> 32);
	}
	draw = span0 > 0 && region != BAT_BELOW;
	if (draw)
		m->st.draws += chunk;
	if (region == BAT_BETWEEN) {
		excess = (avg1 - lo) >> c->Wlog;
		m->bat.no_excess += excess == 0;
		if (m->qcount < 0) {
			mark_at = 0;
		} else {
			mark_at = batch_mark_count(excess, m->qR);
			if (mark_at < m->qcount + 1)
				mark_at = m->qcount + 1;
		}
	}

	/* pass 2: the arrivals in order */
	for (k = 0; k < chunk; k++) {
		uint32_t i = i0 + k;
		int ect = pkt_flags && (pkt_flags[i] & CHOKE_PKT_ECN_CAPABLE);
		int marked = 0;

		m->st.offered_pkts++;
		m->st.offered_bytes += len[i];
		m->qavg = m->qavg - (m->qavg >> c->Wlog) + m->qlen;
		if (region == BAT_BELOW) {
			m->qcount = -1;
			outcome[i] = (uint8_t)batch_admit(m, pkt[i], len[i], flow[i], one, 0);
			continue;
		}
		if (draw) {
			/* slots do not move during a chunk: position pos[k]
			 * is still the slot it named when the chunk began */
			struct ref_slot *s = &m->slot[pos[k]];

			if (!s->pkt)
				m->bat.holes_drawn++;
			if (s->pkt && s->flow == flow[i]) {
				victim[*nv].pkt = s->pkt;
				victim[*nv].len = s->len;
				victim[*nv].arrival = i;
				(*nv)++;
				m->qlen--;
				m->backlog -= s->len;
				s->pkt = NULL; /* a hole, even at the head, until the chunk ends */
				m->st.matched++;
				m->st.match_victims++;
				m->st.drops += 2;
				m->bat.matches++;
				outcome[i] = CHOKE_DROP_MATCH;
				continue;
			}
		}
		if (region == BAT_ABOVE) {
			m->qcount = -1;
			m->st.overlimits++;
			if (hard || !ecn || !ect) {
				m->st.forced_drop++;
				m->st.drops++;
				m->bat.forced++;
				outcome[i] = CHOKE_DROP_FORCED;
				continue;
			}
			m->st.forced_mark++;
			m->bat.forced_marks++;
			marked = 1;
		} else {
			m->qcount++;
			if (m->qcount >= mark_at) {
				m->qR = m->rnd(m->rnd_ctx) / m->maxp_div;
				mark_at = batch_mark_count(excess, m->qR);
				if (m->qcount != 0) {
					m->qcount = 0;
					m->st.overlimits++;
					if (!ecn || !ect) {
						m->st.prob_drop++;
						m->st.drops++;
						m->bat.early++;
						outcome[i] = CHOKE_DROP_EARLY;
						continue;
					}
					m->st.prob_mark++;
					m->bat.prob_marks++;
					marked = 1;
				}
			}
		}
		outcome[i] = (uint8_t)batch_admit(m, pkt[i], len[i], flow[i], one, marked);
	}

	/* the head moves past the holes the chunk left at it */
	while (m->n > 0 && m->slot[0].pkt == NULL) {
		memmove(&m->slot[0], &m->slot[1], (m->n - 1) * sizeof(m->slot[0]));
		m->n--;
	}
	return chunk;
}

int ref_enqueue_burst_batched(struct refq *m, int hooks, void *const pkt[],
			      const uint32_t len[], const uint32_t flow[],
			      const uint8_t pkt_flags[], uint32_t n, uint64_t now,
			      uint8_t outcome[], struct choke_victim victim[],
			      uint32_t victim_cap, uint32_t *nvictims)
{
	uint32_t i = 0, k, chunks = 0;

	*nvictims = 0;
	if (!batch_eligible(m, hooks)) {
		/* choke_enqueue_burst: choke_enqueue for each arrival */
		for (i = 0; i < n; i++) {
			struct choke_verdict v;
			int ect = pkt_flags && (pkt_flags[i] & CHOKE_PKT_ECN_CAPABLE);

			outcome[i] = (uint8_t)ref_enqueue(m, pkt[i], len[i], flow[i], ect, now, &v);
			for (k = 0; k < v.nvictims; k++) {
				victim[*nvictims].pkt = v.victim[k];
				victim[*nvictims].len = v.victim_len[k];
				victim[*nvictims].arrival = i;
				(*nvictims)++;
			}
		}
		return 0;
	}
	if (n > victim_cap)
		return CHOKE_EINVAL;
	if (n == 0)
		return 0;
	m->bat.calls++;
	if (m->idle) {
		/* the first arrival ends the idle period as choke_enqueue */
		struct choke_verdict v;
		int ect = pkt_flags && (pkt_flags[0] & CHOKE_PKT_ECN_CAPABLE);

		outcome[0] = (uint8_t)ref_enqueue(m, pkt[0], len[0], flow[0], ect, now, &v);
		for (k = 0; k < v.nvictims; k++) {
			victim[*nvictims].pkt = v.victim[k];
			victim[*nvictims].len = v.victim_len[k];
			victim[*nvictims].arrival = 0;
			(*nvictims)++;
		}
		m->bat.idle_starts++;
		i = 1;
	}
	while (i < n) {
		uint32_t took = batch_chunk(m, pkt, len, flow, pkt_flags, i, n, outcome, victim,
					    nvictims);

		chunks += took > 1;
		i += took;
	}
	m->bat.multi_chunk_calls += chunks > 1;
	return 0;
}

/* ---------------- dequeue and the rest ---------------- */

/* the lane goes first, but one of the queue's packets between two of its */
static int lane_next(const struct refq *m)
{
	return m->lane_len && (!m->lane_turn || ref_span(m) == 0);
}

void *ref_peek(const struct refq *m)
{
	if (lane_next(m))
		return m->lane[0].pkt;
	return ref_span(m) ? ref_slot_at(m, 0)->pkt : NULL;
}

void *ref_dequeue(struct refq *m, uint64_t now)
{
	struct ref_slot s;
	int passed;

	if (lane_next(m)) {
		s = m->lane[0];
		memmove(&m->lane[0], &m->lane[1], (m->lane_len - 1) * sizeof(m->lane[0]));
		m->lane_len--;
		m->lane_turn = 1;
		m->qlen--;
		m->backlog -= s.len;
		m->st.sent_pkts++;
		m->st.sent_bytes += s.len;
		if (m->cfg.protect)
			pr_departure(m, s.len, now);
		return s.pkt;
	}
	if (ref_span(m) == 0) {
		if (!m->idle) {
			m->idle = 1;
			if (!m->pr.target_ns || now > m->idle_start)
				m->idle_start = now;
			m->pr.idled = 1;
			m->pr.congested = 0;
			m->pr.delay_ns = 0;
		}
		return NULL;
	}
	s = *ref_slot_at(m, 0);
	passed = pop_head(m);
	m->lane_turn = 0;
	m->qlen--;
	m->backlog -= s.len;
	m->st.sent_pkts++;
	m->st.sent_bytes += s.len;
	if (m->cfg.protect) {
		if (m->pr.target_ns && passed)
			pr_probe_passed(m, now);
		pr_departure(m, s.len, now);
	}
	return s.pkt;
}

static void record_drop(struct refq *m, void *pkt, void **drops, uint32_t *nd)
{
	m->st.drops++;
	m->st.other_drop++;
	drops[(*nd)++] = pkt;
}

void ref_reset(struct refq *m, void **drops, uint32_t *ndrops)
{
	uint32_t i, n = ref_span(m);

	for (i = 0; i < m->lane_len; i++)
		record_drop(m, m->lane[i].pkt, drops, ndrops);
	m->lane_len = 0;
	m->lane_turn = 0;
	m->pr.probe = -1;
	for (i = 0; i < n; i++)
		if (ref_slot_at(m, i)->pkt)
			record_drop(m, ref_slot_at(m, i)->pkt, drops, ndrops);
	m->n = 0;
	m->qlen = 0;
	m->backlog = 0;
	m->pr.svc_held = 0;
	m->idle = 0;
	m->qavg = 0;
	m->qcount = -1;
}

void ref_change(struct refq *m, const struct choke_config *c, void **drops,
		uint32_t *ndrops)
{
	uint32_t newcap = cap_for(m, c->limit), keep;
	unsigned old_protect = m->cfg.protect;
	uint64_t old_target = m->pr.target_ns;

	/* the lane's newest packets beyond the new limit go first; the ring
	 * keeps the oldest of what is left */
	while (m->lane_len > c->limit) {
		struct ref_slot s = m->lane[--m->lane_len];

		m->qlen--;
		m->backlog -= s.len;
		record_drop(m, s.pkt, drops, ndrops);
	}
	keep = c->limit - m->lane_len;
	m->pr.probe = -1;
	if (newcap != m->cap || m->qlen > c->limit) {
		/* keep the oldest packets up to the new limit, no holes */
		struct ref_slot *ns = calloc(newcap + 1, sizeof(*ns));
		uint32_t i, w = 0;

		for (i = 0; i < m->n; i++) {
			struct ref_slot s = m->slot[i];

			if (!s.pkt)
				continue;
			if (w < keep) {
				ns[w++] = s;
			} else {
				m->qlen--;
				m->backlog -= s.len;
				record_drop(m, s.pkt, drops, ndrops);
			}
		}
		free(m->slot);
		m->slot = ns;
		m->n = w;
		m->cap = newcap;
	}
	m->cfg = *c;
	protect_configure(m, old_protect, old_target);
	ared_reset(m);
	m->qavg = 0;
	m->qcount = -1;
	if (m->n == 0)
		m->idle = 0;
}
