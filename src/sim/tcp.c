/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* TCP NewReno sender and receiver for the simulator: see tcp.h. */
#include "tcp.h"

#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

void tcp_params_default(struct tcp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mss = 1000;
	p->iw = 0; /* 0: RFC 5681's rule from mss */
	p->dupthresh = 3;
	p->init_rto = NS_PER_S;
	p->min_rto = NS_PER_S;
	p->max_rto = 60 * NS_PER_S;
	p->granularity = NS_PER_MS;
	p->delack_timeout = 200 * NS_PER_MS;
	p->delack_count = 2;
	p->limited_transmit = true;
}

/* RFC 5681 section 3.1: the initial window from SMSS. */
static uint32_t initial_window(const struct tcp_params *p)
{
	if (p->iw)
		return p->iw;
	if (p->mss > 2190)
		return 2;
	if (p->mss > 1095)
		return 3;
	return 4;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ---- sender ---- */

void tcp_sender_init(struct tcp_sender *s, const struct tcp_params *p, uint32_t id,
		     tcp_send_fn send, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->id = id;
	s->send = send;
	s->ctx = ctx;
	s->rto = p->init_rto;
	s->cwnd = (uint64_t)initial_window(p) * p->mss;
	s->ssthresh = UINT64_MAX / 4; /* "arbitrarily high" */
}

/* Outstanding data in bytes: RFC 5681's FlightSize. */
static uint64_t flight(const struct tcp_sender *s)
{
	return (uint64_t)(s->snd_max - s->snd_una) * s->p->mss;
}

/* ssthresh after a loss or an ECN echo: RFC 5681 equation (4). lt are
 * segments sent by limited transmit, which must not count. */
static uint64_t half_flight(const struct tcp_sender *s, uint32_t lt)
{
	uint64_t f = flight(s) - (uint64_t)lt * s->p->mss;

	return max_u64(f / 2, 2ull * s->p->mss);
}

static void xmit(struct tcp_sender *s, uint32_t seq, uint64_t now)
{
	unsigned f = 0;

	if (tcp_seq_lt(seq, s->snd_max)) {
		f |= TCP_F_RETX;
		s->st.retransmits++;
		/* Karn: no sample across a retransmission (with timestamps
		 * every ACK carries its own) */
		s->timing = false;
	} else {
		if (s->p->ecn)
			f |= TCP_F_ECT; /* RFC 3168 6.1.5: never on retransmissions */
		if (s->cwr_pending) {
			f |= TCP_F_CWR;
			s->cwr_pending = false;
		}
		if (!s->timing) {
			s->timing = true;
			s->rtt_seq = seq;
			s->rtt_t = now;
		}
	}
	s->st.segs_sent++;
	if (!s->rto_deadline) /* RFC 6298 5.1 */
		s->rto_deadline = now + s->rto;
	s->send(s->ctx, s, seq, f);
}

static bool have_data(const struct tcp_sender *s, uint32_t seq)
{
	return !s->p->segments || tcp_seq_lt(seq, s->p->segments);
}

/* Send what the window allows. */
static void send_more(struct tcp_sender *s, uint64_t now)
{
	const struct tcp_params *p = s->p;

	while (have_data(s, s->snd_nxt)) {
		uint32_t out = s->snd_nxt - s->snd_una;

		if ((uint64_t)(out + 1) * p->mss > s->cwnd)
			break;
		if (p->rwnd && out >= p->rwnd)
			break;
		xmit(s, s->snd_nxt, now);
		s->snd_nxt++;
		if (tcp_seq_lt(s->snd_max, s->snd_nxt))
			s->snd_max = s->snd_nxt;
	}
}

static void retransmit_una(struct tcp_sender *s, uint64_t now)
{
	xmit(s, s->snd_una, now);
	if (s->snd_nxt == s->snd_una)
		s->snd_nxt++;
}

/* RFC 6298 2.2: the first measurement sets the estimates (true). */
static bool rtt_first(struct tcp_sender *s, uint64_t r)
{
	if (s->have_rtt)
		return false;
	s->srtt = r;
	s->rttvar = r / 2;
	s->have_rtt = true;
	return true;
}

/* RFC 6298 2.2-2.4: the RTO from the estimates, within its bounds. */
static void rto_from_estimates(struct tcp_sender *s)
{
	const struct tcp_params *p = s->p;

	s->rto = s->srtt + max_u64(p->granularity, 4 * s->rttvar);
	s->rto = min_u64(max_u64(s->rto, p->min_rto), p->max_rto);
	s->st.rtt_samples++;
}

/* RFC 6298 section 2, in integer nanoseconds. */
static void rtt_sample(struct tcp_sender *s, uint64_t r)
{
	if (!rtt_first(s, r)) {
		uint64_t d = s->srtt > r ? s->srtt - r : r - s->srtt;

		s->rttvar = (3 * s->rttvar + d) / 4;
		s->srtt = (7 * s->srtt + r) / 8;
	}
	rto_from_estimates(s);
}

/*
 * RFC 7323 RTTM: a sample from every ACK that advances the window, each
 * weighted by RFC 7323 appendix G's gains: alpha and beta divided by the
 * samples expected per round trip, ceil(FlightSize / (2 SMSS)), with
 * FlightSize before the ACK. A sample recomputes the RTO, which clears a
 * backoff, retransmissions included.
 */
static void rtt_sample_ts(struct tcp_sender *s, uint64_t r, uint32_t flight_segs)
{
	uint64_t es = (flight_segs + 1) / 2;

	if (es < 1)
		es = 1;
	if (!rtt_first(s, r)) {
		uint64_t d = s->srtt > r ? s->srtt - r : r - s->srtt;

		/* rttvar += (d - rttvar) / (4 es); srtt += (r - srtt) / (8 es) */
		if (d >= s->rttvar)
			s->rttvar += (d - s->rttvar) / (4 * es);
		else
			s->rttvar -= (s->rttvar - d) / (4 * es);
		if (r >= s->srtt)
			s->srtt += (r - s->srtt) / (8 * es);
		else
			s->srtt -= (s->srtt - r) / (8 * es);
	}
	rto_from_estimates(s);
}

/* Remember that the window was reduced for the data now outstanding: no
 * further ECN reduction until it is acknowledged (RFC 3168 6.1.2). */
static void note_reduction(struct tcp_sender *s)
{
	s->ecn_valid = true;
	s->ecn_recover = s->snd_max - 1;
	if (s->p->ecn)
		s->cwr_pending = true;
}

static bool ecn_may_reduce(const struct tcp_sender *s)
{
	return !s->in_recovery &&
	       (!s->ecn_valid || tcp_seq_lt(s->ecn_recover, s->snd_una));
}

static void ecn_reduce(struct tcp_sender *s)
{
	s->ssthresh = half_flight(s, 0);
	s->cwnd = s->ssthresh;
	s->ca_bytes = 0;
	note_reduction(s);
	s->st.ecn_reductions++;
}

/* RFC 5681 3.1 slow start; congestion avoidance by appropriate byte
 * counting (RFC 3465): one segment per window of data acknowledged. */
static void grow(struct tcp_sender *s, uint32_t newly)
{
	uint64_t mss = s->p->mss, n = (uint64_t)newly * mss;

	if (s->cwnd < s->ssthresh) {
		s->cwnd += min_u64(n, mss);
		return;
	}
	s->ca_bytes += n;
	if (s->ca_bytes >= s->cwnd) {
		s->ca_bytes -= s->cwnd;
		s->cwnd += mss;
	}
}

/* RFC 5681 3.2 steps 2-3 with RFC 6582 3.2 step 2's check on recover. */
static void enter_recovery(struct tcp_sender *s, uint64_t now)
{
	/* RFC 3168 6.1.2: one reduction for the drops and CE marks of one
	 * window; an ECN echo may already have halved it */
	if (!s->ecn_valid || tcp_seq_lt(s->ecn_recover, s->snd_una))
		s->ssthresh = half_flight(s, s->lt_sent);
	s->recover = s->snd_max - 1;
	s->recover_valid = true;
	s->in_recovery = true;
	s->partial_seen = false;
	s->ca_bytes = 0;
	note_reduction(s);
	s->st.fast_retransmits++;
	retransmit_una(s, now);
	s->cwnd = s->ssthresh + (uint64_t)s->p->dupthresh * s->p->mss;
	send_more(s, now);
}

void tcp_start(struct tcp_sender *s, uint64_t now)
{
	if (s->started)
		return;
	s->started = true;
	send_more(s, now);
}

static void finish_check(struct tcp_sender *s, uint64_t now)
{
	if (s->p->segments && s->snd_una == s->p->segments && !s->done) {
		s->done = true;
		s->done_at = now;
		s->rto_deadline = 0;
	}
}

void tcp_on_ack(struct tcp_sender *s, uint32_t ack, unsigned flags, uint64_t now)
{
	tcp_on_ack_ts(s, ack, flags, UINT64_MAX, now);
}

void tcp_on_ack_ts(struct tcp_sender *s, uint32_t ack, unsigned flags, uint64_t tsecr,
		   uint64_t now)
{
	const struct tcp_params *p = s->p;
	bool ece = p->ecn && (flags & TCP_F_ECE);

	if (!s->started || s->done || tcp_seq_lt(s->snd_max, ack))
		return; /* nothing outstanding, or it acknowledges unsent data */

	if (tcp_seq_lt(s->snd_una, ack)) {
		uint32_t newly = ack - s->snd_una;

		if (p->timestamps) {
			if (tsecr <= now)
				rtt_sample_ts(s, now - tsecr, s->snd_max - s->snd_una);
		} else if (s->timing && tcp_seq_lt(s->rtt_seq, ack)) {
			rtt_sample(s, now - s->rtt_t);
			s->timing = false;
		}
		s->snd_una = ack;
		s->retx_by_timer = false;
		s->lt_sent = 0;
		if (tcp_seq_lt(s->snd_nxt, ack))
			s->snd_nxt = ack;

		if (s->in_recovery && tcp_seq_le(ack, s->recover)) {
			/* RFC 6582 partial ACK: resend the next hole, deflate
			 * by what was acknowledged, add back one segment */
			uint64_t nb = (uint64_t)newly * p->mss;

			s->st.partial_acks++;
			retransmit_una(s, now);
			s->cwnd = (s->cwnd > nb ? s->cwnd - nb : 0) + p->mss;
			if (!s->partial_seen) { /* the "impatient" timer */
				s->partial_seen = true;
				s->rto_deadline = now + s->rto;
			}
			send_more(s, now);
			return;
		}
		if (s->in_recovery) {
			/* full ACK: RFC 6582 3.2 step 3, option (1) */
			s->cwnd = min_u64(s->ssthresh, max_u64(flight(s), p->mss) + p->mss);
			s->in_recovery = false;
		} else if (ece && ecn_may_reduce(s)) {
			ecn_reduce(s);
		} else if (!ece) {
			grow(s, newly);
		}
		s->dupacks = 0;
		/* RFC 6298 5.2 / 5.3 */
		s->rto_deadline = s->snd_una == s->snd_max ? 0 : now + s->rto;
		finish_check(s, now);
		if (!s->done)
			send_more(s, now);
		return;
	}

	if (ack != s->snd_una || s->snd_max == s->snd_una)
		return; /* an old ACK */

	/* a duplicate ACK */
	s->st.dupacks++;
	if (s->in_recovery) {
		s->cwnd += p->mss; /* RFC 5681 3.2 step 4: inflate */
		send_more(s, now);
		return;
	}
	if (ece && ecn_may_reduce(s))
		ecn_reduce(s);
	s->dupacks++;
	if (s->dupacks == p->dupthresh) {
		if (!s->recover_valid || tcp_seq_lt(s->recover, ack))
			enter_recovery(s, now);
		return;
	}
	if (s->dupacks < p->dupthresh && p->limited_transmit &&
	    s->snd_nxt == s->snd_max && have_data(s, s->snd_nxt) &&
	    (uint64_t)(s->snd_max - s->snd_una + 1) * p->mss <=
		    s->cwnd + (uint64_t)s->dupacks * p->mss &&
	    (!p->rwnd || s->snd_max - s->snd_una < p->rwnd)) {
		/* RFC 3042: one new segment per early duplicate ACK */
		xmit(s, s->snd_nxt, now);
		s->snd_nxt++;
		s->snd_max = s->snd_nxt;
		s->lt_sent++;
	}
}

void tcp_on_rto(struct tcp_sender *s, uint64_t now)
{
	if (!s->rto_deadline || now < s->rto_deadline)
		return;
	if (s->snd_una == s->snd_max || s->done) {
		s->rto_deadline = 0;
		return;
	}
	s->st.timeouts++;
	/* RFC 5681 3.1: ssthresh from equation (4), held constant when the
	 * segment was already resent by the timer */
	if (!s->retx_by_timer)
		s->ssthresh = half_flight(s, 0);
	s->retx_by_timer = true;
	s->cwnd = s->p->mss; /* the loss window */
	s->ca_bytes = 0;
	s->in_recovery = false;
	s->dupacks = 0;
	s->lt_sent = 0;
	/* RFC 6582 3.2 step 4: recover after a timeout */
	s->recover = s->snd_max - 1;
	s->recover_valid = true;
	note_reduction(s);
	s->timing = false;
	/* RFC 6298 5.5-5.6: back off, restart, resend the earliest segment */
	s->rto = min_u64(s->rto * 2, s->p->max_rto);
	s->rto_deadline = now + s->rto;
	s->snd_nxt = s->snd_una; /* go back N */
	send_more(s, now);
}

/* ---- receiver ---- */

void tcp_receiver_init(struct tcp_receiver *r, const struct tcp_params *p,
		       uint32_t id, tcp_ack_fn ack, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->id = id;
	r->ack = ack;
	r->ctx = ctx;
}

void tcp_receiver_free(struct tcp_receiver *r)
{
	free(r->ooo);
	r->ooo = NULL;
	r->ooo_cap = 0;
}

static bool ooo_test(const struct tcp_receiver *r, uint32_t seq)
{
	uint32_t i = seq & (r->ooo_cap - 1);

	return (r->ooo[i >> 6] >> (i & 63)) & 1;
}

static void ooo_set(struct tcp_receiver *r, uint32_t seq)
{
	uint32_t i = seq & (r->ooo_cap - 1);

	r->ooo[i >> 6] |= 1ull << (i & 63);
}

static void ooo_clear(struct tcp_receiver *r, uint32_t seq)
{
	uint32_t i = seq & (r->ooo_cap - 1);

	r->ooo[i >> 6] &= ~(1ull << (i & 63));
}

/* Make room for seq (rcv_nxt < seq): the map covers (rcv_nxt, rcv_nxt + cap). */
static int ooo_reserve(struct tcp_receiver *r, uint32_t seq)
{
	uint32_t need = seq - r->rcv_nxt + 1, cap = r->ooo_cap ? r->ooo_cap : 64;
	uint64_t *nm;
	uint32_t i;

	if (need <= r->ooo_cap)
		return 0;
	while (cap < need) {
		if (cap >= (1u << 30))
			return -1;
		cap *= 2;
	}
	nm = calloc(cap / 64, sizeof(*nm));
	if (!nm)
		return -1;
	for (i = 0; i < r->ooo_cap && r->ooo_count; i++) {
		if ((r->ooo[i >> 6] >> (i & 63)) & 1) {
			uint32_t s = r->rcv_nxt + ((i - r->rcv_nxt) & (r->ooo_cap - 1));
			uint32_t j = s & (cap - 1);

			nm[j >> 6] |= 1ull << (j & 63);
		}
	}
	free(r->ooo);
	r->ooo = nm;
	r->ooo_cap = cap;
	return 0;
}

static void send_ack(struct tcp_receiver *r)
{
	r->unacked = 0;
	r->delack_deadline = 0;
	r->acks_sent++;
	r->last_ack = r->rcv_nxt;
	r->ack(r->ctx, r, r->rcv_nxt, r->p->ecn && r->ece ? TCP_F_ECE : 0);
}

int tcp_rcv_segment(struct tcp_receiver *r, uint32_t seq, unsigned flags,
		    uint64_t now)
{
	return tcp_rcv_segment_ts(r, seq, flags, 0, now);
}

int tcp_rcv_segment_ts(struct tcp_receiver *r, uint32_t seq, unsigned flags,
		       uint64_t tsval, uint64_t now)
{
	const struct tcp_params *p = r->p;

	/* RFC 7323 4.3: the timestamp to echo is that of the segment at the
	 * left edge of the last ACK sent (or older), the newest such; a
	 * delayed ACK thus echoes the first of the segments it covers, and
	 * the ACK that a gap-filling retransmission causes echoes it */
	if (p->timestamps && tcp_seq_le(seq, r->last_ack) && tsval >= r->ts_recent)
		r->ts_recent = tsval;

	/* RFC 3168 6.1.3: CWR stops the echo, CE (re)starts it */
	if (flags & TCP_F_CWR)
		r->ece = false;
	if (flags & TCP_F_CE)
		r->ece = true;

	if (seq == r->rcv_nxt) {
		bool had_gap = r->ooo_count > 0;
		int n = 1;

		r->rcv_nxt++;
		while (r->ooo_count && ooo_test(r, r->rcv_nxt)) {
			ooo_clear(r, r->rcv_nxt);
			r->ooo_count--;
			r->rcv_nxt++;
			n++;
		}
		r->delivered += (uint64_t)n;
		if (had_gap || !p->delack) {
			/* RFC 5681 4.2: fill a gap, ACK at once */
			send_ack(r);
		} else if (++r->unacked >= p->delack_count) {
			send_ack(r);
		} else if (!r->delack_deadline) {
			r->delack_deadline = now + p->delack_timeout;
		}
		return n;
	}
	if (tcp_seq_lt(r->rcv_nxt, seq)) {
		if (ooo_reserve(r, seq))
			return -1;
		if (ooo_test(r, seq)) {
			r->dup_segs++;
		} else {
			ooo_set(r, seq);
			r->ooo_count++;
		}
	} else {
		r->dup_segs++;
	}
	send_ack(r); /* out of order or old: an immediate (duplicate) ACK */
	return 0;
}

void tcp_rcv_on_delack(struct tcp_receiver *r, uint64_t now)
{
	if (!r->delack_deadline || now < r->delack_deadline)
		return;
	if (r->unacked)
		send_ack(r);
	r->delack_deadline = 0;
}
