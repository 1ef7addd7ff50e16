/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Tests of the simulator: TCP's state machine on constructed ACK sequences
 * (loss recovery, NewReno partial ACKs, timeouts and backoff, Karn's rule,
 * the RTT estimator, delayed ACKs, ECN), the same behaviours through the
 * engine with injected losses, the scenario parser's errors, determinism
 * and the fluid model's figures; the runner's tests are in test_runner.c.
 *
 * Usage: sim-tests [NAME-SUBSTRING...]
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../src/sim/heap.h"
#include "../../src/sim/scenario.h"
#include "../../src/sim/sim.h"
#include "../../src/sim/tcp.h"
#include "../testlib.h"

int tl_failures;
int tl_quick;
const char *tl_current = "";

#define MS 1000000ull
#define SEC 1000000000ull
#define MSS 1000u

/* ---- a mock network for the sender: records what it sends ---- */

struct mock {
	uint32_t seq[4096];
	unsigned flags[4096];
	int n;
};

static void mock_send(void *ctx, struct tcp_sender *s, uint32_t seq, unsigned flags)
{
	struct mock *m = ctx;

	(void)s;
	if (m->n < 4096) {
		m->seq[m->n] = seq;
		m->flags[m->n] = flags;
		m->n++;
	}
}

static int mock_sent(const struct mock *m, uint32_t seq, unsigned flag)
{
	int i, k = 0;

	for (i = 0; i < m->n; i++)
		if (m->seq[i] == seq && (!flag || (m->flags[i] & flag)))
			k++;
	return k;
}

static void params(struct tcp_params *p, uint32_t iw)
{
	tcp_params_default(p);
	p->mss = MSS;
	p->iw = iw;
	p->limited_transmit = false;
}

/* ack every segment in [from, to) one by one, 1 ms apart from *t */
static void ack_each(struct tcp_sender *s, uint32_t from, uint32_t to, uint64_t *t)
{
	uint32_t a;

	for (a = from; a < to; a++) {
		*t += MS;
		tcp_on_ack(s, a + 1, 0, *t);
	}
}

static void t_slow_start(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t = 0;

	params(&p, 4);
	tcp_sender_init(&s, &p, 0, mock_send, &m);
	tcp_start(&s, 0);
	CHECK_EQ(m.n, 4);
	CHECK_EQ(s.cwnd, 4 * MSS);
	CHECK(s.rto_deadline == p.init_rto); /* RFC 6298 5.1 */
	ack_each(&s, 0, 4, &t);
	/* one segment per ACK in slow start: 4 + 4 */
	CHECK_EQ(s.cwnd, 8 * MSS);
	CHECK_EQ(s.snd_nxt, 12);
	CHECK_EQ(m.n, 12);
	CHECK_EQ(s.st.rtt_samples, 1); /* one timed segment at a time */
	/* congestion avoidance: one segment per window acknowledged */
	s.ssthresh = s.cwnd;
	ack_each(&s, 4, 12, &t);
	CHECK_EQ(s.cwnd, 9 * MSS);
	/* all acknowledged: RFC 6298 5.2 stops the timer only when nothing
	 * is outstanding; here the window refilled it */
	CHECK(s.rto_deadline > t);
}

/* fill the pipe: iw 10, all acked up to 'upto' so cwnd is larger */
static void setup_window(struct tcp_sender *s, struct tcp_params *p, struct mock *m,
			 uint64_t *t)
{
	params(p, 10);
	tcp_sender_init(s, p, 0, mock_send, m);
	tcp_start(s, 0);
	s->ssthresh = 20 * MSS; /* leave slow start at 20 */
	*t = 0;
}

static void t_single_loss_fast_retransmit(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t, flight;
	uint32_t k, recover;

	setup_window(&s, &p, &m, &t);
	/* segments 0..9 out; 0..2 acked (cwnd 13: 3..15 out), 3 lost */
	ack_each(&s, 0, 3, &t);
	CHECK_EQ(s.snd_max, 16);
	flight = (uint64_t)(s.snd_max - s.snd_una) * MSS;
	/* 4, 5, 6 arrive: three duplicate ACKs for 3 */
	for (k = 0; k < 2; k++) {
		t += MS;
		tcp_on_ack(&s, 3, 0, t);
		CHECK(!s.in_recovery);
	}
	CHECK_EQ(mock_sent(&m, 3, TCP_F_RETX), 0);
	t += MS;
	tcp_on_ack(&s, 3, 0, t);
	REQUIRE(s.in_recovery);
	CHECK_EQ(s.st.fast_retransmits, 1);
	CHECK_EQ(mock_sent(&m, 3, TCP_F_RETX), 1);
	CHECK_EQ(s.ssthresh, flight / 2); /* RFC 5681 (4) */
	CHECK_EQ(s.cwnd, s.ssthresh + 3 * MSS);
	recover = s.recover;
	CHECK_EQ(recover, 15);
	/* more duplicates inflate the window and release new segments */
	for (k = 7; k < 16; k++) {
		t += MS;
		tcp_on_ack(&s, 3, 0, t);
	}
	CHECK_EQ(s.cwnd, s.ssthresh + 12 * MSS);
	CHECK(s.snd_max > 16);
	CHECK_EQ(mock_sent(&m, 3, TCP_F_RETX), 1); /* no second retransmit */
	/* the retransmission arrives: a full ACK covers recover */
	{
		uint64_t after = (uint64_t)(s.snd_max - (recover + 1)) * MSS + MSS;
		uint64_t want = s.ssthresh < after ? s.ssthresh : after;

		t += MS;
		tcp_on_ack(&s, recover + 1, 0, t);
		CHECK(!s.in_recovery);
		/* RFC 6582 full-ACK window: min(ssthresh, max(FlightSize, SMSS) + SMSS) */
		CHECK_EQ(s.cwnd, want);
	}
	CHECK_EQ(s.st.timeouts, 0);
	CHECK_EQ(s.st.partial_acks, 0);
}

static void t_newreno_partial_acks(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t, dl;
	uint32_t k, recover;

	setup_window(&s, &p, &m, &t);
	ack_each(&s, 0, 3, &t); /* 3..15 out */
	/* 3, 6 and 9 lost: duplicates for 3 from 4 and 5, then 7, 8 */
	for (k = 0; k < 3; k++) {
		t += MS;
		tcp_on_ack(&s, 3, 0, t);
	}
	REQUIRE(s.in_recovery);
	recover = s.recover;
	t += MS;
	tcp_on_ack(&s, 3, 0, t); /* 7 */
	t += MS;
	tcp_on_ack(&s, 3, 0, t); /* 8 */
	dl = s.rto_deadline;
	/* the retransmitted 3 arrives: ACK 6 is partial (recover is 15) */
	t += MS;
	tcp_on_ack(&s, 6, 0, t);
	CHECK(s.in_recovery);
	CHECK_EQ(s.st.partial_acks, 1);
	CHECK_EQ(mock_sent(&m, 6, TCP_F_RETX), 1); /* the next hole at once */
	CHECK(s.rto_deadline > dl);                 /* impatient: first partial ACK resets */
	dl = s.rto_deadline;
	/* 6 arrives: ACK 9 is partial again: resend 9, timer not reset */
	t += MS;
	tcp_on_ack(&s, 9, 0, t);
	CHECK_EQ(s.st.partial_acks, 2);
	CHECK_EQ(mock_sent(&m, 9, TCP_F_RETX), 1);
	CHECK_EQ(s.rto_deadline, dl);
	CHECK_EQ(s.st.fast_retransmits, 1);
	/* 9 arrives: everything up to recover is acknowledged */
	t += MS;
	tcp_on_ack(&s, recover + 1, 0, t);
	CHECK(!s.in_recovery);
	CHECK_EQ(s.st.timeouts, 0);
	/* Reno would have needed a timeout or three fast retransmits */
	CHECK_EQ(mock_sent(&m, 3, TCP_F_RETX) + mock_sent(&m, 6, TCP_F_RETX) +
			 mock_sent(&m, 9, TCP_F_RETX), 3);
}

static void t_whole_window_rto_backoff(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t, ss;
	int before;

	params(&p, 4);
	p.min_rto = 200 * MS;
	tcp_sender_init(&s, &p, 0, mock_send, &m);
	tcp_start(&s, 0);
	CHECK_EQ(s.rto_deadline, 1 * SEC);
	/* nothing comes back: the timer fires */
	tcp_on_rto(&s, 999 * MS); /* early: nothing happens */
	CHECK_EQ(s.st.timeouts, 0);
	t = 1 * SEC;
	tcp_on_rto(&s, t);
	CHECK_EQ(s.st.timeouts, 1);
	CHECK_EQ(s.cwnd, MSS); /* the loss window */
	CHECK_EQ(s.ssthresh, 2 * MSS); /* max(FlightSize / 2, 2 SMSS) */
	CHECK_EQ(mock_sent(&m, 0, TCP_F_RETX), 1);
	CHECK_EQ(s.rto, 2 * SEC);      /* RFC 6298 5.5: backed off */
	CHECK_EQ(s.rto_deadline, t + 2 * SEC);
	ss = s.ssthresh;
	/* the retransmission is lost too */
	t += 2 * SEC;
	tcp_on_rto(&s, t);
	CHECK_EQ(s.st.timeouts, 2);
	CHECK_EQ(s.rto, 4 * SEC);
	CHECK_EQ(s.rto_deadline, t + 4 * SEC);
	CHECK_EQ(s.ssthresh, ss); /* RFC 5681: held on a repeated timeout */
	CHECK_EQ(mock_sent(&m, 0, TCP_F_RETX), 2);
	/* the second retransmission arrives: Karn's rule, no sample and the
	 * backed-off RTO stays */
	t += 100 * MS;
	tcp_on_ack(&s, 1, 0, t);
	CHECK_EQ(s.st.rtt_samples, 0);
	CHECK_EQ(s.rto, 4 * SEC);
	/* slow start resends 1 and 2 (go-back-N), then 3, all acknowledged */
	before = m.n;
	t += 100 * MS;
	tcp_on_ack(&s, 3, 0, t);
	t += 100 * MS;
	tcp_on_ack(&s, 4, 0, t);
	CHECK_EQ(s.st.rtt_samples, 0); /* still only resent segments */
	CHECK(m.n > before);           /* and the window kept sending */
	/* a new segment (4) is timed: its ACK gives a sample, the RTO is
	 * recomputed from it (no backoff) */
	REQUIRE(s.timing);
	t += 100 * MS;
	tcp_on_ack(&s, s.rtt_seq + 1, 0, t);
	CHECK_EQ(s.st.rtt_samples, 1);
	CHECK(s.rto < 4 * SEC);
	CHECK(s.rto >= p.min_rto);
	/* a timeout holds back fast retransmit for duplicates below recover
	 * (RFC 6582 3.2 step 2) */
	CHECK(s.recover_valid);
}

static void t_recover_blocks_false_fast_retransmit(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t = 0;
	int k;

	params(&p, 8);
	tcp_sender_init(&s, &p, 0, mock_send, &m);
	tcp_start(&s, 0);
	t = SEC;
	tcp_on_rto(&s, t); /* go back N from 0; recover = 7 */
	CHECK_EQ(s.recover, 7);
	/* 0 is resent and acknowledged; after a timeout, duplicate ACKs for a
	 * value not above recover (here copies answered with ACK 1) must not
	 * start a fast retransmit: RFC 6582's guard against go-back-N */
	t += MS;
	tcp_on_ack(&s, 1, 0, t);
	for (k = 0; k < 4; k++) {
		t += MS;
		tcp_on_ack(&s, 1, 0, t);
	}
	CHECK(!s.in_recovery);
	CHECK_EQ(s.st.fast_retransmits, 0);
}

static void t_rtt_estimator(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };

	params(&p, 1);
	p.min_rto = 0;
	tcp_sender_init(&s, &p, 0, mock_send, &m);
	tcp_start(&s, 0);
	tcp_on_ack(&s, 1, 0, 100 * MS); /* R = 100 ms */
	CHECK_EQ(s.srtt, 100 * MS);
	CHECK_EQ(s.rttvar, 50 * MS);
	CHECK_EQ(s.rto, 300 * MS); /* SRTT + max(G, 4 RTTVAR) */
	/* segment 1 sent at 100 ms (cwnd 2: 1 and 2), timed */
	REQUIRE(s.timing && s.rtt_seq == 1 && s.rtt_t == 100 * MS);
	tcp_on_ack(&s, 2, 0, 300 * MS); /* R = 200 ms */
	CHECK_EQ(s.rttvar, 62500000ull); /* 3/4 50 + 1/4 |100 - 200| */
	CHECK_EQ(s.srtt, 112500000ull);  /* 7/8 100 + 1/8 200 */
	CHECK_EQ(s.rto, 362500000ull);
	/* the minimum applies */
	p.min_rto = 1 * SEC;
	tcp_on_ack(&s, 3, 0, 310 * MS);
	CHECK(s.rto == 1 * SEC || s.st.rtt_samples == 2);
}

static void t_limited_transmit(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t;

	setup_window(&s, &p, &m, &t);
	p.limited_transmit = true;
	ack_each(&s, 0, 3, &t); /* 3..15 out, cwnd 13 */
	CHECK_EQ(s.snd_max, 16);
	tcp_on_ack(&s, 3, 0, t + 1);
	CHECK_EQ(s.snd_max, 17); /* RFC 3042: one new segment per duplicate */
	tcp_on_ack(&s, 3, 0, t + 2);
	CHECK_EQ(s.snd_max, 18);
	tcp_on_ack(&s, 3, 0, t + 3);
	REQUIRE(s.in_recovery);
	/* the two limited-transmit segments do not count in FlightSize */
	CHECK_EQ(s.ssthresh, 13 * MSS / 2);
}

static void t_ecn_response(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t = 0, cw;
	uint32_t w;
	int i, cwr = 0;

	params(&p, 10);
	p.ecn = true;
	tcp_sender_init(&s, &p, 0, mock_send, &m);
	tcp_start(&s, 0);
	CHECK(m.flags[0] & TCP_F_ECT);
	ack_each(&s, 0, 5, &t); /* cwnd 15 */
	cw = s.cwnd;
	w = s.snd_max;
	t += MS;
	tcp_on_ack(&s, 6, TCP_F_ECE, t);
	CHECK_EQ(s.st.ecn_reductions, 1);
	CHECK_EQ(s.cwnd, (uint64_t)(w - 6) * MSS / 2); /* halved, to FlightSize / 2 */
	CHECK(s.cwnd < cw);
	CHECK_EQ(s.ssthresh, s.cwnd);
	CHECK_EQ(s.snd_max, w); /* the window is full: nothing sent */
	/* more echoes from the same window: no further reduction, no growth */
	t += MS;
	tcp_on_ack(&s, 7, TCP_F_ECE, t);
	CHECK_EQ(s.st.ecn_reductions, 1);
	CHECK_EQ(s.cwnd, (uint64_t)(w - 6) * MSS / 2);
	/* CWR on the first new segment after the reduction, once */
	{
		uint32_t a = 8;
		int first = m.n;

		while (s.snd_max == w && a < w) {
			t += MS;
			tcp_on_ack(&s, a++, 0, t);
		}
		REQUIRE(m.n > first);
		CHECK(m.flags[first] & TCP_F_CWR);
		for (i = 0; i < m.n; i++)
			if (m.flags[i] & TCP_F_CWR)
				cwr++;
		CHECK_EQ(cwr, 1);
	}
	/* once the window is acknowledged, an echo reduces again */
	t += MS;
	tcp_on_ack(&s, w, 0, t);
	t += MS;
	tcp_on_ack(&s, w + 1, TCP_F_ECE, t);
	CHECK_EQ(s.st.ecn_reductions, 2);
	/* without ECN the flag is ignored */
	{
		struct tcp_params q;
		struct tcp_sender s2;
		struct mock m2 = { .n = 0 };

		params(&q, 10);
		tcp_sender_init(&s2, &q, 0, mock_send, &m2);
		tcp_start(&s2, 0);
		CHECK(!(m2.flags[0] & TCP_F_ECT));
		tcp_on_ack(&s2, 1, TCP_F_ECE, MS);
		CHECK_EQ(s2.st.ecn_reductions, 0);
		CHECK_EQ(s2.cwnd, 11 * MSS);
	}
}

/* ---- the receiver ---- */

struct ackrec {
	uint32_t ack[256];
	unsigned flags[256];
	uint64_t ecr[256]; /* the timestamp it echoes (TS.Recent) */
	int n;
};

static void rec_ack(void *ctx, struct tcp_receiver *r, uint32_t ack, unsigned flags)
{
	struct ackrec *a = ctx;

	if (a->n < 256) {
		a->ack[a->n] = ack;
		a->flags[a->n] = flags;
		a->ecr[a->n] = r->ts_recent;
		a->n++;
	}
}

static void t_delayed_acks(void)
{
	struct tcp_params p;
	struct tcp_receiver r;
	struct ackrec a = { .n = 0 };

	params(&p, 1);
	p.delack = true;
	tcp_receiver_init(&r, &p, 0, rec_ack, &a);
	CHECK_EQ(tcp_rcv_segment(&r, 0, 0, 0), 1);
	CHECK_EQ(a.n, 0);
	CHECK_EQ(r.delack_deadline, 200 * MS);
	CHECK_EQ(tcp_rcv_segment(&r, 1, 0, 10 * MS), 1);
	CHECK_EQ(a.n, 1); /* every second segment */
	CHECK_EQ(a.ack[0], 2);
	CHECK_EQ(r.delack_deadline, 0);
	tcp_rcv_segment(&r, 2, 0, 20 * MS);
	CHECK_EQ(a.n, 1);
	tcp_rcv_on_delack(&r, 219 * MS);
	CHECK_EQ(a.n, 1);
	tcp_rcv_on_delack(&r, 220 * MS); /* the timer */
	CHECK_EQ(a.n, 2);
	CHECK_EQ(a.ack[1], 3);
	/* out of order: an immediate duplicate ACK */
	CHECK_EQ(tcp_rcv_segment(&r, 4, 0, 300 * MS), 0);
	CHECK_EQ(a.n, 3);
	CHECK_EQ(a.ack[2], 3);
	/* filling the gap: an immediate ACK for both */
	CHECK_EQ(tcp_rcv_segment(&r, 3, 0, 301 * MS), 2);
	CHECK_EQ(a.n, 4);
	CHECK_EQ(a.ack[3], 5);
	/* an old duplicate: immediate ACK */
	tcp_rcv_segment(&r, 1, 0, 302 * MS);
	CHECK_EQ(a.n, 5);
	CHECK_EQ(r.dup_segs, 1);
	CHECK_EQ(r.delivered, 5);
	tcp_receiver_free(&r);
}

/* RFC 7323 timestamps: the ACK of a retransmission gives a sample (no Karn's
 * rule) and clears the backoff; later samples have appendix G's gains */
static void t_timestamps_rtt_after_timeout(void)
{
	struct tcp_params p;
	struct tcp_sender s;
	struct mock m = { .n = 0 };
	uint64_t t;

	params(&p, 4);
	p.min_rto = 200 * MS;
	p.timestamps = true;
	tcp_sender_init(&s, &p, 0, mock_send, &m);
	tcp_start(&s, 0);
	t = 1 * SEC;
	tcp_on_rto(&s, t);
	t += 2 * SEC;
	tcp_on_rto(&s, t); /* resent at 3 s, the RTO backed off to 4 s */
	CHECK_EQ(s.st.timeouts, 2);
	CHECK_EQ(s.rto, 4 * SEC);
	/* an ACK without a timestamp (tcp_on_ack) gives no sample */
	tcp_on_ack(&s, 1, 0, t + 50 * MS);
	CHECK_EQ(s.st.rtt_samples, 0);
	CHECK_EQ(s.rto, 4 * SEC);
	/* the next echoes the retransmission sent at 3 s: R = 100 ms, the
	 * RTO recomputed (Karn's rule would keep 4 s: the test above) */
	tcp_on_ack_ts(&s, 2, 0, t, t + 100 * MS);
	CHECK_EQ(s.st.rtt_samples, 1);
	CHECK_EQ(s.srtt, 100 * MS);
	CHECK_EQ(s.rttvar, 50 * MS);
	CHECK_EQ(s.rto, 300 * MS);
	/* a second sample of 100 ms with 2 segments outstanding (the first
	 * four less the two acknowledged): one sample expected per round
	 * trip, so RFC 6298's gains: RTTVAR 3/4 of 50 ms */
	REQUIRE(s.snd_max - s.snd_una == 2);
	tcp_on_ack_ts(&s, 3, 0, t + 100 * MS, t + 200 * MS);
	CHECK_EQ(s.st.rtt_samples, 2);
	CHECK_EQ(s.srtt, 100 * MS);
	CHECK_EQ(s.rttvar, 37500000ull);
	/* with 8 outstanding, 4 samples are expected per round trip: a
	 * quarter of the gains (RTTVAR moves by 1/16 of the difference) */
	s.snd_max = s.snd_una + 8;
	tcp_on_ack_ts(&s, s.snd_una + 1, 0, t + 200 * MS, t + 300 * MS);
	CHECK_EQ(s.st.rtt_samples, 3);
	CHECK_EQ(s.rttvar, 37500000ull - 37500000ull / 16);
	/* a duplicate ACK gives none */
	tcp_on_ack_ts(&s, s.snd_una, 0, t, t + 400 * MS);
	CHECK_EQ(s.st.rtt_samples, 3);
}

/* RFC 7323 4.3: which timestamp the receiver's ACKs echo */
static void t_timestamps_receiver_echo(void)
{
	struct tcp_params p;
	struct tcp_receiver r;
	struct ackrec a = { .n = 0 };

	params(&p, 1);
	p.delack = true;
	p.timestamps = true;
	tcp_receiver_init(&r, &p, 0, rec_ack, &a);
	tcp_rcv_segment_ts(&r, 0, 0, 100, 1000);
	tcp_rcv_segment_ts(&r, 1, 0, 200, 1010);
	/* a delayed ACK echoes the first segment it covers */
	REQUIRE(a.n == 1);
	CHECK_EQ(a.ack[0], 2);
	CHECK_EQ(a.ecr[0], 100);
	/* out of order: the duplicate ACK echoes the last in-order one */
	tcp_rcv_segment_ts(&r, 3, 0, 400, 1020);
	REQUIRE(a.n == 2);
	CHECK_EQ(a.ack[1], 2);
	CHECK_EQ(a.ecr[1], 100);
	/* the gap filled by a retransmission: its ACK echoes the
	 * retransmission's own timestamp */
	tcp_rcv_segment_ts(&r, 2, 0, 500, 1030);
	REQUIRE(a.n == 3);
	CHECK_EQ(a.ack[2], 4);
	CHECK_EQ(a.ecr[2], 500);
	/* an older timestamp never replaces a newer one */
	tcp_rcv_segment_ts(&r, 1, 0, 300, 1040);
	REQUIRE(a.n == 4);
	CHECK_EQ(a.ecr[3], 500);
	tcp_receiver_free(&r);
	/* without timestamps nothing is kept */
	p.timestamps = false;
	a.n = 0;
	tcp_receiver_init(&r, &p, 0, rec_ack, &a);
	tcp_rcv_segment_ts(&r, 0, 0, 100, 1000);
	tcp_rcv_segment_ts(&r, 1, 0, 200, 1010);
	REQUIRE(a.n == 1);
	CHECK_EQ(a.ecr[0], 0);
	tcp_receiver_free(&r);
}

static void t_receiver_reorders_far(void)
{
	struct tcp_params p;
	struct tcp_receiver r;
	struct ackrec a = { .n = 0 };
	uint32_t s;

	params(&p, 1);
	tcp_receiver_init(&r, &p, 0, rec_ack, &a);
	/* 1..5000 arrive before 0: the map grows; then 0 releases all */
	for (s = 5000; s >= 1; s--)
		tcp_rcv_segment(&r, s, 0, 0);
	CHECK_EQ(r.rcv_nxt, 0);
	CHECK_EQ(r.ooo_count, 5000);
	CHECK_EQ(tcp_rcv_segment(&r, 0, 0, 0), 5001);
	CHECK_EQ(r.rcv_nxt, 5001);
	CHECK_EQ(r.ooo_count, 0);
	tcp_receiver_free(&r);
}

static void t_receiver_ecn_echo(void)
{
	struct tcp_params p;
	struct tcp_receiver r;
	struct ackrec a = { .n = 0 };

	params(&p, 1);
	p.ecn = true;
	tcp_receiver_init(&r, &p, 0, rec_ack, &a);
	tcp_rcv_segment(&r, 0, TCP_F_ECT, 0);
	CHECK(!(a.flags[0] & TCP_F_ECE));
	tcp_rcv_segment(&r, 1, TCP_F_ECT | TCP_F_CE, 0);
	CHECK(a.flags[1] & TCP_F_ECE);
	tcp_rcv_segment(&r, 2, TCP_F_ECT, 0);
	CHECK(a.flags[2] & TCP_F_ECE); /* until CWR */
	tcp_rcv_segment(&r, 3, TCP_F_ECT | TCP_F_CWR, 0);
	CHECK(!(a.flags[3] & TCP_F_ECE));
	tcp_receiver_free(&r);
}

/* ---- through the engine ---- */

struct hook {
	/* drop the n-th transmission (1-based) of these segments of flow 0 */
	uint32_t seq[16];
	unsigned nth[16];
	int nrules;
	unsigned seen[4096];
	uint64_t arr_t[64];      /* arrival times of segment watch_seq */
	int narr;
	uint32_t watch_seq;
	uint64_t ack_t[64];
	uint32_t ack_v[64];
	int nack;
};

static int hook_arrival(void *ctx, uint64_t now, uint32_t flow, uint32_t seq,
			unsigned flags)
{
	struct hook *h = ctx;
	int i;

	(void)flags;
	if (flow != 0 || seq >= 4096)
		return 0;
	h->seen[seq]++;
	if (seq == h->watch_seq && h->narr < 64)
		h->arr_t[h->narr++] = now;
	for (i = 0; i < h->nrules; i++)
		if (h->seq[i] == seq && (h->nth[i] == 0 || h->nth[i] == h->seen[seq]))
			return 1;
	return 0;
}

static void hook_ack(void *ctx, uint64_t now, uint32_t flow, uint32_t ack, unsigned flags)
{
	struct hook *h = ctx;

	(void)flags;
	if (flow == 0 && h->nack < 64) {
		h->ack_t[h->nack] = now;
		h->ack_v[h->nack] = ack;
		h->nack++;
	}
}

/* one_flow's TCP uses timestamps */
static int one_flow_ts;

/* one TCP flow on a 10 Mbit/s, 10 ms bottleneck with a large FIFO */
static int one_flow(struct hook *h, uint32_t segments, int delack, uint64_t dur,
		    struct sim_result *res)
{
	struct sim_scenario sc;
	struct sim_setup st;
	char err[512];
	int rc;
	char segs[32];

	snprintf(segs, sizeof(segs), "%u", segments * 1000);
	if (sim_scenario_init(&sc))
		return -1;
	rc = sim_scenario_parse(&sc,
				"bottleneck_rate = 10mbit\nbottleneck_delay = 10ms\n"
				"qdisc = fifo\nqueue = limit 1000\ntcp_flows = 1\nudp_flows = 0\n"
				"tcp_access_rate = 100mbit\ntcp_access_delay = 5ms\n"
				"tcp_start = 0\nwarmup = 0\ntcp_iw = 4\n",
				"test", err, sizeof(err));
	rc = rc || sim_scenario_set(&sc, "tcp_bytes", segs, "test", err, sizeof(err));
	rc = rc || sim_scenario_set(&sc, "tcp_delack", delack ? "1" : "0", "test", err,
				    sizeof(err));
	rc = rc || sim_scenario_set(&sc, "tcp_timestamps", one_flow_ts ? "1" : "0", "test", err,
				    sizeof(err));
	if (!rc) {
		char d[32];

		snprintf(d, sizeof(d), "%lluns", (unsigned long long)dur);
		rc = sim_scenario_set(&sc, "duration", d, "test", err, sizeof(err));
	}
	rc = rc || sim_scenario_resolve(&sc, &st, err, sizeof(err));
	sim_scenario_free(&sc);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	st.cfg.arrival_hook = hook_arrival;
	st.cfg.ack_hook = hook_ack;
	st.cfg.hook_ctx = h;
	rc = sim_run(&st.cfg, res, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	sim_setup_free(&st);
	return rc;
}

static void t_engine_single_loss(void)
{
	struct hook h;
	struct sim_result r;

	memset(&h, 0, sizeof(h));
	h.seq[0] = 50;
	h.nth[0] = 1;
	h.nrules = 1;
	REQUIRE(!one_flow(&h, 400, 0, 10 * SEC, &r));
	CHECK_EQ(r.flows[0].tcp.fast_retransmits, 1);
	CHECK_EQ(r.flows[0].tcp.timeouts, 0);
	CHECK_EQ(r.flows[0].tcp.retransmits, 1);
	CHECK(r.flows[0].done);
	CHECK_EQ(r.flows[0].goodput_bytes, 400 * 1000);
	CHECK_EQ(r.flows[0].drops[SIM_DROP_INJECTED], 1);
	CHECK_EQ(h.seen[50], 2);
	sim_result_free(&r);
}

static void t_engine_burst_loss_partial_acks(void)
{
	struct hook h;
	struct sim_result r;

	memset(&h, 0, sizeof(h));
	h.seq[0] = 60;
	h.seq[1] = 63;
	h.seq[2] = 66;
	h.nth[0] = h.nth[1] = h.nth[2] = 1;
	h.nrules = 3;
	REQUIRE(!one_flow(&h, 400, 0, 10 * SEC, &r));
	CHECK_EQ(r.flows[0].tcp.fast_retransmits, 1);
	CHECK_EQ(r.flows[0].tcp.partial_acks, 2);
	CHECK_EQ(r.flows[0].tcp.timeouts, 0);
	CHECK_EQ(r.flows[0].tcp.retransmits, 3);
	CHECK(r.flows[0].done);
	sim_result_free(&r);
}

static void t_engine_timeout_backoff(void)
{
	struct hook h;
	struct sim_result r;
	int i;
	uint64_t g1, g2;

	/* the whole initial window (0..3) is lost, then the first two
	 * retransmissions of 0 */
	memset(&h, 0, sizeof(h));
	for (i = 0; i < 4; i++) {
		h.seq[i] = (uint32_t)i;
		h.nth[i] = 1;
	}
	h.seq[4] = 0;
	h.nth[4] = 2;
	h.seq[5] = 0;
	h.nth[5] = 3;
	h.nrules = 6;
	h.watch_seq = 0;
	REQUIRE(!one_flow(&h, 20, 0, 30 * SEC, &r));
	CHECK_EQ(r.flows[0].tcp.timeouts, 3);
	CHECK(r.flows[0].done);
	REQUIRE(h.narr == 4);
	/* retransmissions at 1 s, then 2 s and 4 s later (exponential backoff) */
	g1 = h.arr_t[2] - h.arr_t[1];
	g2 = h.arr_t[3] - h.arr_t[2];
	CHECK(h.arr_t[1] - h.arr_t[0] > 990 * MS && h.arr_t[1] - h.arr_t[0] < 1010 * MS);
	CHECK(g1 > 1990 * MS && g1 < 2010 * MS);
	CHECK(g2 > 3990 * MS && g2 < 4010 * MS);
	sim_result_free(&r);
}

/* the same losses with timestamps: the third retransmission's ACK echoes
 * its own time, so the RTO is recomputed at once (the path's round trip
 * is about 31 ms, the minimum RTO 1 s) where Karn's rule kept it at 8 s
 * until a new segment was acknowledged; and through the engine the
 * echoed times measure the path */
static void t_engine_timestamps(void)
{
	struct hook h;
	struct sim_result r, k;
	int i;

	memset(&h, 0, sizeof(h));
	for (i = 0; i < 4; i++) {
		h.seq[i] = (uint32_t)i;
		h.nth[i] = 1;
	}
	h.seq[4] = 0;
	h.nth[4] = 2;
	h.seq[5] = 0;
	h.nth[5] = 3;
	h.nrules = 6;
	/* 5 segments: after the three timeouts only segments 0-3 (resent)
	 * and 4 are sent */
	REQUIRE(!one_flow(&h, 5, 0, 30 * SEC, &k));
	one_flow_ts = 1;
	memset(&h.seen, 0, sizeof(h.seen));
	h.narr = h.nack = 0;
	i = one_flow(&h, 5, 0, 30 * SEC, &r);
	one_flow_ts = 0;
	REQUIRE(!i);
	CHECK_EQ(r.flows[0].tcp.timeouts, 3);
	CHECK_EQ(k.flows[0].tcp.timeouts, 3);
	CHECK(r.flows[0].done && k.flows[0].done);
	/* Karn: one sample (segment 4's); timestamps: every advancing ACK */
	CHECK_EQ(k.flows[0].tcp.rtt_samples, 1);
	CHECK(r.flows[0].tcp.rtt_samples >= 3);
	/* the RTT measured is the path's: 2 x (5 + 10) ms of delay plus the
	 * transmissions (0.8 ms at 10 Mbit/s, 0.08 at 100) */
	CHECK(r.flows[0].srtt_ns > 30 * MS && r.flows[0].srtt_ns < 33 * MS);
	/* the RTO after: 1 s (the minimum), not a backed-off one */
	CHECK_EQ(r.flows[0].rto_ns, 1 * SEC);
	sim_result_free(&r);
	sim_result_free(&k);
}

static void t_engine_delack_timer(void)
{
	struct hook h;
	struct sim_result r;

	/* one segment: its ACK waits for the 200 ms timer; three: the
	 * second is acknowledged at once, the third after 200 ms */
	memset(&h, 0, sizeof(h));
	h.watch_seq = 0;
	REQUIRE(!one_flow(&h, 1, 1, 2 * SEC, &r));
	REQUIRE(h.nack == 1 && h.narr == 1);
	/* arrival at the bottleneck + 0.8 ms transmission + 10 ms delay */
	CHECK(h.ack_t[0] - h.arr_t[0] >= 210 * MS && h.ack_t[0] - h.arr_t[0] < 211 * MS);
	sim_result_free(&r);
	memset(&h, 0, sizeof(h));
	REQUIRE(!one_flow(&h, 3, 1, 2 * SEC, &r));
	REQUIRE(h.nack == 2);
	CHECK_EQ(h.ack_v[0], 2);
	CHECK_EQ(h.ack_v[1], 3);
	CHECK(h.ack_t[1] - h.ack_t[0] > 199 * MS && h.ack_t[1] - h.ack_t[0] < 201 * MS);
	sim_result_free(&r);
}

/* ---- scenarios ---- */

static int resolve_text(const char *text, struct sim_setup *st, char *err, size_t len)
{
	struct sim_scenario sc;
	int rc;

	if (sim_scenario_init(&sc))
		return -2;
	rc = sim_scenario_parse(&sc, text, "t", err, len);
	if (!rc)
		rc = sim_scenario_resolve(&sc, st, err, len);
	sim_scenario_free(&sc);
	return rc;
}

static void t_scenario_errors(void)
{
	static const struct {
		const char *text, *needle;
	} bad[] = {
		{ "frobnicate = 1\n", "unknown key \"frobnicate\"" },
		{ "udp_rate\n", "expected key = value" },
		{ "udp_rate = fast\n", "udp_rate = \"fast\"" },
		{ "udp_rate = -2c\n", "udp_rate" },
		{ "udp_rate = 0\n", "udp_rate" },
		{ "tcp_flows = -1\n", "tcp_flows" },
		{ "tcp_flows = 1.25e1\n", "tcp_flows" },
		{ "tcp_flows = 1e7\n", "tcp_flows" },
		{ "tcp_flows = 1e\n", "tcp_flows" },
		{ "tcp_flows = 1e99999\n", "tcp_flows" },
		{ "tcp_flows = 2000000\n", "tcp_flows" },
		{ "duration = 10 s\n", "duration" },
		{ "duration = 10s\nwarmup = 20s\n", "warmup" },
		{ "qdisc = sfq\n", "qdisc" },
		{ "queue = limit 300 min 200 max 100\n", "\"min\" is not smaller" },
		{ "queue = limit 300 min 100 max 200 frob 1\n", "What is \"frob\"" },
		{ "bottleneck_rate = 2c\n", "bottleneck_rate" },
		{ "tcp_access_delay = 5ms..1ms\n", "tcp_access_delay" },
		{ "tcp_flows = 0\nudp_flows = 0\n", "no flows" },
		{ "pkt_size = 10\n", "pkt_size" },
		{ "tcp_delack = maybe\n", "tcp_delack" },
		{ "tcp_min_rto = 100s\n", "tcp_" },
		{ "udp_kind = bursty\n", "udp_kind" },
		{ "sample_interval = 1ns\n", "sample_interval" },
		{ "udp_rate = nan\n", "udp_rate" },
		{ "udp_rate = infc\n", "udp_rate" },
		{ "duration = 1e300\n", "duration" },
		{ "udp_schedule = 50s..20s\n", "udp_schedule" },
		{ "udp_schedule = 10s..20s,15s..30s\n", "udp_schedule" },
		{ "udp_schedule = 5s\n", "udp_schedule" },
		{ "udp_schedule = 1s..2s,\n", "udp_schedule" },
		{ "udp_schedule = 1s..1s\n", "udp_schedule" },
		{ "web_rate = -1\n", "web_rate" },
		{ "web_rate = 1e9\n", "web_rate" },
		{ "web_rate = fast\n", "web_rate" },
		{ "web_rate = 20000\n", "at most 1000000 flows" },
		{ "web_size = 0\n", "web_size" },
		{ "web_size_dist = zipf\n", "web_size_dist" },
		{ "light_flows = 2000000\n", "light_flows" },
		{ "light_flows = 1\nlight_rate = 0\n", "light_rate" },
		{ "light_flows = 1000\nlight_rate = 1kbit\n", "light_rate" },
		{ "light_kind = bursty\n", "light_kind" },
		{ "series_interval = 10ns\n", "series_interval" },
		{ "series_interval = 1us\nduration = 10s\nwarmup = 1s\n", "series_interval" },
		{ "tcp_flows = 0\nudp_flows = 0\nlight_flows = 0\n", "no flows" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim_setup st;
		char err[512] = "";
		int rc = resolve_text(bad[i].text, &st, err, sizeof(err));

		if (rc != -1 || !strstr(err, bad[i].needle)) {
			tl_failures++;
			fprintf(stderr, "FAIL %s: \"%s\" gave %d \"%s\" (want \"%s\")\n", tl_current,
				bad[i].text, rc, err, bad[i].needle);
		}
		if (!rc)
			sim_setup_free(&st);
	}
}

static void t_scenario_values(void)
{
	struct sim_setup st;
	char err[512];
	uint64_t ns;
	double bps;

	CHECK(!sim_parse_time("20ms", &ns) && ns == 20 * MS);
	CHECK(!sim_parse_time("1.5", &ns) && ns == 1500 * MS);
	CHECK(!sim_parse_time("250us", &ns) && ns == 250000);
	CHECK(sim_parse_time("5 min", &ns));
	CHECK(!sim_parse_rate("10mbit", 0, &bps) && bps == 10e6);
	CHECK(!sim_parse_rate("2c", 1e6, &bps) && bps == 2e6);
	CHECK(!sim_parse_rate("125000Bps", 0, &bps) && bps == 1e6);
	CHECK(sim_parse_rate("2c", 0, &bps)); /* no capacity: not a rate */
	REQUIRE(!resolve_text("bottleneck_rate = 10mbit\nudp_rate = 0.5c\nudp_flows = 4\n"
			      "tcp_flows = 3\ntcp_access_delay = 10ms..30ms\n",
			      &st, err, sizeof(err)));
	CHECK_EQ(st.cfg.nflows, 7);
	CHECK_EQ(st.ntcp, 3);
	CHECK(st.udp_rate_bps == 5e6);
	CHECK(st.flows[3].rate_bps == 1.25e6);
	CHECK_EQ(st.flows[0].access_delay_ns, 10 * MS);
	CHECK_EQ(st.flows[1].access_delay_ns, 20 * MS);
	CHECK_EQ(st.flows[2].access_delay_ns, 30 * MS);
	CHECK(st.flows[0].start_ns <= SEC);
	/* the discipline got the link's bandwidth and avpkt */
	CHECK_EQ(st.qp.bandwidth_bytes_per_sec, 10000000 / 8);
	CHECK_EQ(st.qp.avpkt, 1000);
	CHECK_EQ(st.cfg.qcfg.limit, 300);
	sim_setup_free(&st);
	/* qdisc with words replaces queue; fifo keeps only the limit */
	REQUIRE(!resolve_text("qdisc = red limit 100 min 10 max 30\n", &st, err, sizeof(err)));
	CHECK_EQ(st.cfg.qcfg.kind, CHOKE_KIND_RED);
	CHECK_EQ(st.cfg.qcfg.qth_min, 10);
	sim_setup_free(&st);
	REQUIRE(!resolve_text("qdisc = fifo\n", &st, err, sizeof(err)));
	CHECK_EQ(st.cfg.qcfg.kind, CHOKE_KIND_FIFO);
	CHECK_EQ(st.cfg.qcfg.limit, 300);
	sim_setup_free(&st);
	/* whole numbers as "%g" prints them */
	REQUIRE(!resolve_text("tcp_flows = 1e1\ntcp_access_limit = 2.5e+06\n", &st, err, sizeof(err)));
	CHECK_EQ(st.ntcp, 10);
	CHECK_EQ(st.flows[0].access_limit, 2500000);
	sim_setup_free(&st);
	/* the groups beyond the classic two: light flows after the floods,
	 * then the short transfers (Poisson arrivals, their own sizes) */
	REQUIRE(!resolve_text("tcp_flows = 2\nudp_flows = 1\nlight_flows = 2\nlight_rate = 0.1c\n"
			      "web_rate = 5\nduration = 100s\nudp_schedule = 10s..20s, 30s..35s\n"
			      "tcp_access_delay = 1ms..9ms\n", &st, err, sizeof(err)));
	CHECK_EQ(st.nlight, 2);
	CHECK(st.nweb > 400 && st.nweb < 600); /* Poisson, mean 500 */
	CHECK_EQ(st.cfg.nflows, 5 + st.nweb);
	CHECK(st.cfg.extended);
	CHECK_EQ(st.flows[2].group, SIM_G_FLOOD);
	CHECK_EQ(st.flows[2].nperiods, 2);
	CHECK_EQ(st.flows[2].periods[1].on, 30 * SEC);
	CHECK_EQ(st.flows[2].periods[1].off, 35 * SEC);
	CHECK_EQ(st.flows[3].group, SIM_G_LIGHT);
	CHECK_EQ(st.flows[3].cls, SIM_UDP);
	CHECK(st.flows[4].rate_bps == 0.05e6);
	CHECK_EQ(st.flows[4].nperiods, 0);
	{
		uint32_t j;
		int ordered = 1, sized = 1, spread = 1;

		for (j = 5; j < st.cfg.nflows; j++) {
			const struct sim_flow_cfg *fc = &st.flows[j];

			ordered &= fc->group == SIM_G_WEB && fc->cls == SIM_TCP &&
				   fc->start_ns < 100 * SEC &&
				   (j == 5 || fc->start_ns >= st.flows[j - 1].start_ns);
			sized &= fc->segments == 20; /* 20k in 1000-byte packets */
			spread &= fc->access_delay_ns >= MS && fc->access_delay_ns <= 9 * MS;
		}
		CHECK(ordered);
		CHECK(sized);
		CHECK(spread);
	}
	sim_setup_free(&st);
	/* exponential and Pareto sizes have about the mean asked for */
	{
		static const char *const dist[] = { "exp", "pareto" };
		int d;

		for (d = 0; d < 2; d++) {
			char text[200];
			double sum = 0;
			uint32_t j, below = 0;

			snprintf(text, sizeof(text), "tcp_flows = 0\nudp_flows = 0\nweb_rate = 1000\n"
				 "web_size = 50k\nweb_size_dist = %s\n", dist[d]);
			REQUIRE(!resolve_text(text, &st, err, sizeof(err)));
			CHECK(st.nweb > 95000);
			for (j = 0; j < st.nweb; j++) {
				sum += st.flows[j].segments;
				below += st.flows[j].segments < 50;
			}
			/* exp: mean 50 packets (+0.5 from rounding up); pareto (shape
			 * 1.2) converges slowly: a wide band */
			if (d == 0)
				CHECK(fabs(sum / st.nweb - 50.5) < 1.5);
			else
				CHECK(sum / st.nweb > 35 && sum / st.nweb < 70);
			/* most transfers are below the mean in both */
			CHECK(below > st.nweb / 2);
			sim_setup_free(&st);
		}
	}
	/* the built-in paper scenario resolves */
	REQUIRE(!resolve_text(sim_paper_scenario, &st, err, sizeof(err)));
	CHECK_EQ(st.ntcp, 32);
	CHECK_EQ(st.nudp, 1);
	CHECK_EQ(st.cfg.qcfg.Wlog, 9);
	sim_setup_free(&st);
}

/* ---- scenarios by name ---- */

static void touch(const char *dir, const char *name)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs("tcp_flows = 2\n", f);
		fclose(f);
	}
}

static int found(const char *name, const char *inst, const char *want)
{
	char path[4200], err[1024];
	int r = sim_scenario_find(name, inst, path, sizeof(path), err, sizeof(err));

	if (r == 1 && !strcmp(path, want))
		return 1;
	fprintf(stderr, "FAIL %s: %s gave %d \"%s\" (want \"%s\") %s\n", tl_current, name, r,
		path, want, r < 0 ? err : "");
	return 0;
}

static void t_scenario_find(void)
{
	char base[] = "/tmp/choke-find-XXXXXX", d[6][64], inst[64], path[4200], err[2048];
	static const char *const sub[6] = { "a", "b", "inst", "cwd", "cwd/scenarios", "a/dir" };
	const char *old = getenv("CHOKE_SCENARIO_PATH");
	char env[256], *saved = old ? strdup(old) : NULL;
	int here, i;

	REQUIRE(mkdtemp(base));
	here = open(".", O_RDONLY);
	REQUIRE(here >= 0);
	for (i = 0; i < 6; i++) {
		snprintf(d[i], sizeof(d[i]), "%s/%s", base, sub[i]);
		REQUIRE(!mkdir(d[i], 0755));
	}
	snprintf(inst, sizeof(inst), "%s", d[2]);
	touch(d[0], "x");
	touch(d[1], "x");
	touch(d[1], "y");
	touch(d[4], "x");
	touch(d[4], "y");
	touch(d[4], "z");
	touch(inst, "w");
	touch(inst, "z");
	touch(d[3], "v");
	touch(d[3], "w");
	REQUIRE(!chdir(d[3]));
	/* $CHOKE_SCENARIO_PATH (empty entries skipped, directories skipped),
	 * ./scenarios, the installed directory, the current directory */
	snprintf(env, sizeof(env), "%s::%s", d[0], d[1]);
	setenv("CHOKE_SCENARIO_PATH", env, 1);
	snprintf(path, sizeof(path), "%s/x", d[0]);
	CHECK(found("x", inst, path));
	snprintf(path, sizeof(path), "%s/y", d[1]);
	CHECK(found("y", inst, path));
	CHECK(found("z", inst, "./scenarios/z"));
	snprintf(path, sizeof(path), "%s/w", inst);
	CHECK(found("w", inst, path));
	CHECK(found("v", inst, "v"));
	/* a directory is not a scenario */
	CHECK_EQ(sim_scenario_find("dir", inst, path, sizeof(path), err, sizeof(err)), -1);
	CHECK(found("sub/none", inst, "sub/none")); /* a path as it is */
	CHECK_EQ(sim_scenario_find("paper-single-link", inst, path, sizeof(path), err, sizeof(err)), 0);
	/* not found: where it looked and what is there */
	CHECK_EQ(sim_scenario_find("nope", inst, path, sizeof(path), err, sizeof(err)), -1);
	CHECK(strstr(err, "no scenario \"nope\" in ") != NULL);
	CHECK(strstr(err, d[0]) && strstr(err, d[1]) && strstr(err, "./scenarios") &&
	      strstr(err, inst) && strstr(err, "current directory"));
	CHECK(strstr(err, "scenarios there: w, x, y, z (and paper-single-link is built in)") != NULL);
	/* without the variable: ./scenarios first; the compiled-in directory */
	unsetenv("CHOKE_SCENARIO_PATH");
	CHECK(found("x", inst, "./scenarios/x"));
	CHECK_EQ(sim_scenario_find("nope", NULL, path, sizeof(path), err, sizeof(err)), -1);
	CHECK(strstr(err, sim_scenario_dir) != NULL);
	if (saved)
		setenv("CHOKE_SCENARIO_PATH", saved, 1);
	free(saved);
	CHECK(!fchdir(here));
	close(here);
	{
		static const char *const files[] = { "a/x", "b/x", "b/y", "cwd/scenarios/x",
			"cwd/scenarios/y", "cwd/scenarios/z", "inst/w", "inst/z", "cwd/v", "cwd/w" };

		for (i = 0; i < (int)(sizeof(files) / sizeof(files[0])); i++) {
			snprintf(path, sizeof(path), "%s/%s", base, files[i]);
			unlink(path);
		}
		for (i = 5; i >= 0; i--)
			rmdir(d[i]);
		rmdir(base);
	}
}

/* ---- whole runs ---- */

static int paper_run(const char *extra, struct sim_result *r)
{
	struct sim_scenario sc;
	struct sim_setup st;
	char err[512];
	int rc;

	if (sim_scenario_init(&sc))
		return -1;
	rc = sim_scenario_parse(&sc, sim_paper_scenario, "paper", err, sizeof(err));
	rc = rc || sim_scenario_parse(&sc, "duration = 40s\nwarmup = 10s\n", "t", err, sizeof(err));
	rc = rc || sim_scenario_parse(&sc, extra, "t", err, sizeof(err));
	rc = rc || sim_scenario_resolve(&sc, &st, err, sizeof(err));
	sim_scenario_free(&sc);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	rc = sim_run(&st.cfg, r, err, sizeof(err));
	sim_setup_free(&st);
	return rc;
}

static void t_deterministic(void)
{
	struct sim_result a, b, c;
	uint32_t i;

	REQUIRE(!paper_run("seed = 3\n", &a));
	REQUIRE(!paper_run("seed = 3\n", &b));
	REQUIRE(!paper_run("seed = 4\n", &c));
	CHECK_EQ(a.events, b.events);
	CHECK(a.share[SIM_UDP] == b.share[SIM_UDP]);
	CHECK(a.qlen_mean == b.qlen_mean);
	CHECK(!memcmp(&a.qst, &b.qst, sizeof(a.qst)));
	for (i = 0; i < a.nflows; i++)
		CHECK(!memcmp(&a.flows[i], &b.flows[i], sizeof(a.flows[i])));
	CHECK(a.events != c.events || a.qst.matched != c.qst.matched);
	sim_result_free(&a);
	sim_result_free(&b);
	sim_result_free(&c);
}

static void t_choke_bounds_udp(void)
{
	struct sim_result f, r, c;

	REQUIRE(!paper_run("qdisc = fifo\n", &f));
	REQUIRE(!paper_run("qdisc = red\n", &r));
	REQUIRE(!paper_run("qdisc = choke\n", &c));
	CHECK(f.share[SIM_UDP] > 0.9);
	CHECK(r.share[SIM_UDP] > 0.9);
	CHECK(c.share[SIM_UDP] < 0.4);
	CHECK(c.qst.matched > 0 && f.qst.matched == 0);
	CHECK(c.utilization > 0.98);
	/* conservation: what the core sent is what the link sent */
	CHECK_EQ(c.qst.sent_pkts, c.link_pkts[0] + c.link_pkts[1]);
	sim_result_free(&f);
	sim_result_free(&r);
	sim_result_free(&c);
}

/* Floods on a schedule, light flows, short transfers and the time series,
 * checked against the run's own totals. */
static void t_groups_series(void)
{
	struct sim_result a, b;
	const char *extra = "udp_schedule = 12s..20s,30s..33s\nseries_interval = 1s\n"
			    "light_flows = 2\nweb_rate = 1\nqdisc = choke limit 300 min 100 max 200 "
			    "protect\n";
	uint64_t flood = 0, link = 0, drops = 0, arr[SIM_NGROUP] = { 0 };
	double q = 0;
	uint32_t i;
	int g;

	REQUIRE(!paper_run(extra, &a));
	REQUIRE(!paper_run(extra, &b));
	REQUIRE(a.nseries == 40 && a.series != NULL);
	/* deterministic, series included */
	CHECK(!memcmp(a.series, b.series, a.nseries * sizeof(*a.series)));
	for (i = 0; i < a.nseries; i++) {
		const struct sim_series_point *p = &a.series[i];
		int on = (i >= 12 && i < 20) || (i >= 30 && i < 33);

		/* the floods arrive only in their periods (and a few ms after) */
		if (!on && i != 20 && i != 33)
			CHECK_EQ(p->arrivals[SIM_G_FLOOD], 0);
		if (on)
			CHECK_EQ(p->active[SIM_G_FLOOD], 1);
		flood += p->arrivals[SIM_G_FLOOD];
		for (g = 0; g < SIM_NGROUP; g++) {
			arr[g] += p->arrivals[g];
			if (i >= 10) { /* the measured period: warm-up 10 s */
				link += p->link_pkts[g];
				drops += p->drops[g];
			}
		}
		if (i >= 10)
			q += p->qlen_mean;
	}
	/* 2c at 1 Mbit/s is 250 packets per second, for 8 + 3 s (each period
	 * starts afresh: packet 0 at its start) */
	CHECK(flood >= 11 * 250 - 2 && flood <= 11 * 250 + 2);
	/* the series adds up to the measured totals */
	CHECK_EQ(link, a.link_pkts[0] + a.link_pkts[1]);
	CHECK_EQ(link, a.qst.sent_pkts);
	{
		uint64_t d = 0;

		for (g = 0; g < SIM_NGROUP; g++)
			d += a.group_drops[g][SIM_DROP_MATCH] + a.group_drops[g][SIM_DROP_VICTIM] +
			     a.group_drops[g][SIM_DROP_EARLY] + a.group_drops[g][SIM_DROP_FORCED] +
			     a.group_drops[g][SIM_DROP_LIMIT] + a.group_drops[g][SIM_DROP_PROTECT];
		CHECK_EQ(drops, d);
	}
	CHECK(fabs(q / 30 - a.qlen_mean) < 1e-6 * (a.qlen_mean + 1));
	/* the groups */
	CHECK_EQ(a.group_flows[SIM_G_TCP], 32);
	CHECK_EQ(a.group_flows[SIM_G_FLOOD], 1);
	CHECK_EQ(a.group_flows[SIM_G_LIGHT], 2);
	CHECK(a.group_flows[SIM_G_WEB] > 20 && a.group_flows[SIM_G_WEB] < 65);
	CHECK(arr[SIM_G_LIGHT] > 0 && arr[SIM_G_WEB] > 0);
	/* light flows at 0.02c in all: 2.5 packets/s for the 30 measured s */
	CHECK(a.group_sent[SIM_G_LIGHT] >= 74 && a.group_sent[SIM_G_LIGHT] <= 76);
	{
		uint32_t done = 0, web = 0;

		for (i = 0; i < a.nflows; i++) {
			if (a.flows[i].group != SIM_G_WEB)
				continue;
			web++;
			done += a.flows[i].done;
			if (a.flows[i].done)
				CHECK(a.flows[i].fct_ns > 0);
		}
		CHECK(done > web / 2);
	}
	/* protect's drops are counted apart, and only floods and TCP lose them */
	CHECK(a.group_drops[SIM_G_FLOOD][SIM_DROP_PROTECT] > 0);
	CHECK_EQ(a.drops[0][SIM_DROP_PROTECT] + a.drops[1][SIM_DROP_PROTECT], a.qst.protect_drop);
	CHECK(a.jain_all > 0 && a.jain_all <= 1);
	CHECK(a.jain_tcp > 0 && a.jain_tcp <= 1);
	sim_result_free(&a);
	sim_result_free(&b);
}

static void t_fluid_model(void)
{
	double peak = 0, xpeak = 0, x;

	for (x = 0.5; x < 3; x += 0.001) {
		double m = sim_choke_fluid_share(x);

		if (m > peak) {
			peak = m;
			xpeak = x;
		}
	}
	CHECK(fabs(peak - 1 / (exp(1) + 1)) < 1e-4);
	CHECK(fabs(xpeak - (2 * exp(1) - 1) / (exp(1) + 1)) < 0.01); /* 1.19 */
	CHECK(fabs(sim_choke_fluid_share(10) - 0.0287) < 0.001);
	CHECK(sim_choke_fluid_share(0) == 0);
	/* small rates: mu ~ x / (1 + 2x) */
	CHECK(fabs(sim_choke_fluid_share(0.01) - 0.01 / 1.02) < 2e-5);
}

/* ---- the event queue on its own (no engine) ---- */

static void t_heap_order_ties_growth(void)
{
	struct sim_heap h;
	struct sim_ev e, prev;
	uint64_t x = 88172645463325252ull;
	int i, n = 0;

	/* a wheel of 64 buckets of 64 ns: most of these are far events */
	REQUIRE(!sim_heap_init(&h, 1, 1));
	CHECK(sim_heap_top(&h) == NULL);
	CHECK(sim_heap_pop(&h, &e) == -1);
	/* 20000 events with many equal times: grows the node pool and the
	 * far heap from their first sizes */
	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		REQUIRE(!sim_heap_push(&h, x % 50000, (uint32_t)i));
	}
	CHECK_EQ(h.n, 20000);
	CHECK_EQ(h.pushed, 20000);
	CHECK(h.nwheel > 0 && h.nfar > 0);
	while (!sim_heap_pop(&h, &e)) {
		if (n) {
			/* time order; at the same time, the order of scheduling */
			CHECK(prev.t < e.t || (prev.t == e.t && prev.ref < e.ref));
		}
		prev = e;
		n++;
	}
	CHECK_EQ(n, 20000);
	CHECK(sim_heap_top(&h) == NULL);
	sim_heap_free(&h);
}

/* The wheel and the far heap against a plain sorted reference, under a
 * simulation's pattern (each pop schedules 0-3 events at or after it,
 * near and far, with ties) and events scheduled in the past too, for
 * several wheel sizes: the same events in the same order every time. */
struct ref_ev {
	uint64_t t;
	uint32_t seq, ref;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

#define REF_MAX 40000

/* r[lo .. n-1] is sorted: move r[n] to its place */
static void ref_insert(struct ref_ev *r, size_t lo, size_t n)
{
	struct ref_ev v = r[n];
	size_t i = n;

	while (i > lo && ref_cmp(&v, &r[i - 1]) < 0) {
		r[i] = r[i - 1];
		i--;
	}
	r[i] = v;
}

static void t_heap_wheel_against_reference(void)
{
	static const uint64_t sizes[][2] = {
		{ 1, 1 }, { 64, 4096 }, { 1000, 20000000 }, { 4096, 1u << 30 }, { 1ull << 40, 1 },
	};
	size_t si;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		struct sim_heap h;
		struct ref_ev *r = malloc(REF_MAX * sizeof(*r));
		size_t nr = 0, lo = 0, pops = 0, bad = 0;
		uint32_t seq = 0;
		uint64_t x = 0x9e3779b97f4a7c15ull + si, now = 0;
		struct sim_ev e;
		int i;

		REQUIRE(r != NULL);
		REQUIRE(!sim_heap_init(&h, sizes[si][0], sizes[si][1]));
		for (i = 0; i < 64; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			r[nr].t = x % 100000;
			r[nr].seq = seq++;
			r[nr].ref = (uint32_t)nr;
			REQUIRE(!sim_heap_push(&h, r[nr].t, r[nr].ref));
			nr++;
		}
		qsort(r, nr, sizeof(*r), ref_cmp);
		while (lo < nr) {
			int k;

			REQUIRE(!sim_heap_pop(&h, &e));
			if (e.t != r[lo].t || e.ref != r[lo].ref)
				bad++;
			now = e.t;
			lo++;
			pops++;
			if (nr + 4 > REF_MAX)
				continue;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			for (k = 0; k < (int)(x & 3); k++) {
				uint64_t d;

				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				switch ((x >> 8) % 8) {
				case 0: d = 0; break;                      /* a tie */
				case 1: d = (x >> 16) % 100; break;        /* very near */
				case 2: case 3: d = (x >> 16) % 10000; break;
				case 4: case 5: d = (x >> 16) % 10000000; break;
				case 6: d = (x >> 16) % 1000000000; break; /* far */
				default: d = 5000; break;                  /* many ties */
				}
				r[nr].t = now + d;
				if ((x >> 40) % 64 == 0 && now > 1000) /* in the past */
					r[nr].t = now - (x >> 48) % 1000;
				r[nr].seq = seq++;
				r[nr].ref = (uint32_t)nr;
				REQUIRE(!sim_heap_push(&h, r[nr].t, r[nr].ref));
				ref_insert(r, lo, nr);
				nr++;
			}
		}
		CHECK_EQ(bad, 0);
		CHECK(pops > 20000);
		CHECK(sim_heap_pop(&h, &e) == -1);
		CHECK_EQ(h.pushed, nr);
		sim_heap_free(&h);
		free(r);
	}
}

static const struct tl_test sim_tests[] = {
	{ "sim/heap-order-ties-growth", t_heap_order_ties_growth },
	{ "sim/heap-wheel-against-reference", t_heap_wheel_against_reference },
	{ "sim/tcp-slow-start-and-avoidance", t_slow_start },
	{ "sim/tcp-single-loss-fast-retransmit", t_single_loss_fast_retransmit },
	{ "sim/tcp-newreno-partial-acks", t_newreno_partial_acks },
	{ "sim/tcp-whole-window-rto-backoff-karn", t_whole_window_rto_backoff },
	{ "sim/tcp-recover-blocks-false-fast-retransmit", t_recover_blocks_false_fast_retransmit },
	{ "sim/tcp-rtt-estimator-rfc6298", t_rtt_estimator },
	{ "sim/tcp-limited-transmit", t_limited_transmit },
	{ "sim/tcp-ecn-response-once-per-window", t_ecn_response },
	{ "sim/tcp-receiver-delayed-acks", t_delayed_acks },
	{ "sim/tcp-receiver-reorders-far", t_receiver_reorders_far },
	{ "sim/tcp-receiver-ecn-echo", t_receiver_ecn_echo },
	{ "sim/tcp-timestamps-rtt-after-timeout", t_timestamps_rtt_after_timeout },
	{ "sim/tcp-timestamps-receiver-echo", t_timestamps_receiver_echo },
	{ "sim/engine-single-loss", t_engine_single_loss },
	{ "sim/engine-burst-loss-partial-acks", t_engine_burst_loss_partial_acks },
	{ "sim/engine-timeout-backoff", t_engine_timeout_backoff },
	{ "sim/engine-timestamps", t_engine_timestamps },
	{ "sim/engine-delack-timer", t_engine_delack_timer },
	{ "sim/scenario-errors", t_scenario_errors },
	{ "sim/scenario-values", t_scenario_values },
	{ "sim/scenario-find-by-name", t_scenario_find },
	{ "sim/deterministic", t_deterministic },
	{ "sim/choke-bounds-udp-share", t_choke_bounds_udp },
	{ "sim/groups-series", t_groups_series },
	{ "sim/fluid-model", t_fluid_model },
	{ NULL, NULL },
};

extern const struct tl_test runner_tests[]; /* test_runner.c */

static int selected(const char *name, int argc, char **argv)
{
	int i, any = 0;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		any = 1;
		if (strstr(name, argv[i]))
			return 1;
	}
	return !any;
}

int main(int argc, char **argv)
{
	const struct tl_test *const tables[] = { sim_tests, runner_tests };
	const struct tl_test *t;
	int run = 0, failed = 0;
	size_t k;

	for (k = 0; k < sizeof(tables) / sizeof(tables[0]); k++)
	for (t = tables[k]; t->name; t++) {
		int before = tl_failures;
		clock_t c0 = clock();

		if (!selected(t->name, argc, argv))
			continue;
		tl_current = t->name;
		t->fn();
		run++;
		if (tl_failures != before)
			failed++;
		printf("%-4s %-48s %6.2fs\n", tl_failures == before ? "ok" : "FAIL", t->name,
		       (double)(clock() - c0) / CLOCKS_PER_SEC);
		fflush(stdout);
	}
	printf("sim: %d tests, %d failed (%d failed checks)\n", run, failed, tl_failures);
	return tl_failures ? 1 : 0;
}
