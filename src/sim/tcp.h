/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * TCP NewReno for the simulator, in whole segments.
 *
 * Sender: slow start and congestion avoidance (RFC 5681), fast retransmit
 * and fast recovery with NewReno's partial acknowledgments (RFC 6582, the
 * "careful" full-ACK window and the "impatient" timer), limited transmit
 * (RFC 3042, optional), the retransmission timer of RFC 6298 (SRTT/RTTVAR,
 * a minimum RTO, exponential backoff, Karn's rule: a retransmission cancels
 * the RTT measurement in progress; or, with timestamps, RFC 7323's RTTM: every
 * ACK that advances the window gives a sample from the time it echoes,
 * retransmissions included, with the gains of its appendix G) and the ECN
 * response of RFC 3168 (ECE
 * halves the window at most once per window of data, CWR on the next new
 * segment). Receiver: cumulative ACKs, out-of-order buffering, immediate
 * ACKs for out-of-order and gap-filling segments, optional delayed ACKs
 * (every delack_count-th segment or after delack_timeout), ECE echoing and,
 * with timestamps, TS.Recent kept by RFC 7323's rule (the timestamp of the
 * segment at the left edge of the last ACK sent) for the host to echo.
 *
 * Sequence numbers count segments (every segment carries mss bytes); the
 * window is kept in bytes, as in the RFCs. The module owns no time and no
 * network: the host calls it with the current time and gives it a send
 * function; timers are deadlines in the state that the host must honour
 * (call tcp_on_rto / tcp_rcv_on_delack at or after them).
 */
#ifndef CHOKE_SIM_TCP_H
#define CHOKE_SIM_TCP_H

#include <stdbool.h>
#include <stdint.h>

/* segment and ACK flags */
#define TCP_F_ECT 0x01  /* ECN-capable transport (data) */
#define TCP_F_CE 0x02   /* congestion experienced (set by the queue) */
#define TCP_F_ECE 0x04  /* ACK: ECN echo */
#define TCP_F_CWR 0x08  /* data: congestion window reduced */
#define TCP_F_RETX 0x10 /* data: a retransmission (informational) */

struct tcp_params {
	uint32_t mss;              /* bytes per segment */
	uint32_t iw;               /* initial window, segments */
	uint32_t rwnd;             /* receiver window, segments; 0 = unlimited */
	uint32_t segments;         /* finite transfer size; 0 = unlimited */
	uint32_t dupthresh;        /* duplicate ACKs for fast retransmit (3) */
	uint64_t init_rto;         /* ns (RFC 6298: 1 s) */
	uint64_t min_rto;          /* ns (RFC 6298: 1 s) */
	uint64_t max_rto;          /* ns (>= 60 s) */
	uint64_t granularity;      /* clock granularity G, ns */
	uint64_t delack_timeout;   /* ns */
	uint32_t delack_count;     /* ACK every n-th in-order segment (2) */
	bool ecn;                  /* negotiate and use ECN */
	bool delack;               /* receiver delays ACKs */
	bool limited_transmit;     /* RFC 3042 */
	bool timestamps;           /* RFC 7323 timestamps (RTTM) */
};

void tcp_params_default(struct tcp_params *p);

struct tcp_sender;
/* Put one segment on the wire: seq, TCP_F_* flags. */
typedef void (*tcp_send_fn)(void *ctx, struct tcp_sender *s, uint32_t seq,
			    unsigned flags);

struct tcp_stats {
	uint64_t segs_sent;    /* every transmission */
	uint64_t retransmits;  /* transmissions of already-sent segments */
	uint64_t fast_retransmits;
	uint64_t partial_acks;
	uint64_t timeouts;
	uint64_t ecn_reductions;
	uint64_t rtt_samples;
	uint64_t dupacks;
};

struct tcp_sender {
	const struct tcp_params *p;
	uint32_t id; /* the host's flow number */
	tcp_send_fn send;
	void *ctx;

	uint32_t snd_una, snd_nxt, snd_max;
	uint64_t cwnd, ssthresh; /* bytes */
	uint32_t dupacks;
	bool in_recovery;
	bool partial_seen;  /* a partial ACK has reset the timer (impatient) */
	bool recover_valid; /* recover holds a value (else: initial sequence) */
	uint32_t recover;   /* RFC 6582: highest segment sent at the last loss */
	bool retx_by_timer; /* snd_una has already been resent by the timer */
	uint32_t lt_sent;   /* segments sent by limited transmit (RFC 3042) */
	uint64_t ca_bytes;  /* bytes acknowledged in congestion avoidance */

	/* RFC 6298 */
	bool have_rtt;
	uint64_t srtt, rttvar, rto; /* ns; rto includes the backoff */
	bool timing;
	uint32_t rtt_seq;
	uint64_t rtt_t;
	uint64_t rto_deadline; /* ns; 0 = timer off */

	/* RFC 3168 */
	bool ecn_valid;
	uint32_t ecn_recover; /* no new reduction until snd_una passes it */
	bool cwr_pending;

	bool started, done;
	uint64_t done_at; /* ns, finite transfers */
	struct tcp_stats st;
};

void tcp_sender_init(struct tcp_sender *s, const struct tcp_params *p, uint32_t id,
		     tcp_send_fn send, void *ctx);
/* Open the window and send the initial burst. */
void tcp_start(struct tcp_sender *s, uint64_t now);
/* An ACK arrived: ack = next segment expected, flags TCP_F_ECE or 0. */
void tcp_on_ack(struct tcp_sender *s, uint32_t ack, unsigned flags, uint64_t now);
/* The same with the timestamp it echoes (TSecr: the host's time when the
 * segment it echoes was sent); without p->timestamps the same as
 * tcp_on_ack. */
void tcp_on_ack_ts(struct tcp_sender *s, uint32_t ack, unsigned flags, uint64_t tsecr,
		   uint64_t now);
/* The retransmission timer: call when now >= s->rto_deadline != 0. */
void tcp_on_rto(struct tcp_sender *s, uint64_t now);

/* Receiver. */
struct tcp_receiver;
/* Send one ACK: ack = next expected, flags TCP_F_ECE or 0. */
typedef void (*tcp_ack_fn)(void *ctx, struct tcp_receiver *r, uint32_t ack,
			   unsigned flags);

struct tcp_receiver {
	const struct tcp_params *p;
	uint32_t id;
	tcp_ack_fn ack;
	void *ctx;
	uint32_t rcv_nxt;
	uint32_t unacked;         /* in-order segments not yet acknowledged */
	uint64_t delack_deadline; /* ns; 0 = none */
	bool ece;                 /* echo ECE until a CWR arrives */
	/* out-of-order segments above rcv_nxt: bit (seq & (cap - 1)) for
	 * rcv_nxt < seq < rcv_nxt + cap */
	uint64_t *ooo;
	uint32_t ooo_cap; /* bits, a power of two (0: none yet) */
	uint32_t ooo_count;
	uint64_t ts_recent; /* RFC 7323 TS.Recent: what the next ACK echoes */
	uint32_t last_ack;  /* Last.ACK.sent: the ack of the last ACK sent */
	uint64_t delivered; /* in-order segments handed to the application */
	uint64_t dup_segs;  /* segments received again */
	uint64_t acks_sent;
};

void tcp_receiver_init(struct tcp_receiver *r, const struct tcp_params *p,
		       uint32_t id, tcp_ack_fn ack, void *ctx);
void tcp_receiver_free(struct tcp_receiver *r);
/* A data segment arrived. Returns the in-order segments it delivered
 * (0 for out-of-order or duplicate ones), or -1 if out of memory. */
int tcp_rcv_segment(struct tcp_receiver *r, uint32_t seq, unsigned flags,
		    uint64_t now);
/* The same with the segment's timestamp (TSval: the host's time when it
 * was sent); with p->timestamps it updates r->ts_recent, which the ACKs
 * it causes echo (the host reads it in its ACK function). */
int tcp_rcv_segment_ts(struct tcp_receiver *r, uint32_t seq, unsigned flags,
		       uint64_t tsval, uint64_t now);
/* The delayed-ACK timer: call when now >= r->delack_deadline != 0. */
void tcp_rcv_on_delack(struct tcp_receiver *r, uint64_t now);

/* Serial-number comparisons (RFC 1982) on 32-bit segment numbers. */
static inline bool tcp_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool tcp_seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

#endif
