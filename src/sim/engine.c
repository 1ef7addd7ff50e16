/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The simulator's engine: events, the dumbbell, the sources and the
 * measurements. See sim.h for the topology and docs/sim.md for the model.
 */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "choke/params.h"
#include "heap.h"
#include "rng.h"

const char *const sim_drop_names[SIM_NDROP] = {
	"match", "victim", "early", "forced", "limit", "access", "injected", "protect",
};

const char *const sim_group_names[SIM_NGROUP] = { "tcp", "flood", "light", "web" };

/* event references: type in the top 4 bits, an index below */
enum {
	EV_ARRIVE = 1,  /* packet reaches the bottleneck router */
	EV_TXDONE = 2,  /* the bottleneck finished its current packet */
	EV_DELIVER = 3, /* packet reaches its receiver */
	EV_ACK = 4,     /* ACK reaches its sender */
	EV_RTO = 5,     /* flow's retransmission timer may be due */
	EV_DELACK = 6,  /* flow's delayed-ACK timer may be due */
	EV_UDP = 7,     /* UDP source emits */
	EV_START = 8,   /* source starts */
	EV_SAMPLE = 9,  /* sample the queue's contents */
	EV_WARMUP = 10, /* start measuring */
};
#define EV_SHIFT 28
#define EV_INDEX_MAX ((1u << EV_SHIFT) - 1)
#define EV(type, idx) (((uint32_t)(type) << EV_SHIFT) | (uint32_t)(idx))

#define PKT_ACK 0x80 /* in sim_pkt.flags, beside the TCP_F_* bits */

struct sim_pkt {
	uint32_t flow;
	uint32_t seq;  /* data: segment; ACK: next expected */
	uint32_t next; /* free list, or the next packet in its pipe */
	uint16_t len;
	uint8_t flags; /* TCP_F_*, PKT_ACK */
	uint8_t pad;
	uint64_t t_enq; /* bottleneck enqueue time; TCP: see tcp_send_cb */
	uint64_t t_ev;  /* when it leaves the pipe it is in */
};

#define NONE UINT32_MAX

/*
 * A pipe: packets that all take the same fixed time to cross something, so
 * they leave in the order they entered. Only the first has an event in the
 * heap; the rest wait in a list. The access links (per sender), the
 * bottleneck's propagation (one for all) and the ACK path (per flow) are
 * pipes: the heap then holds a few events per flow instead of one per
 * packet in flight.
 */
struct sim_pipe {
	uint32_t head, tail;
};

struct sim_flow {
	const struct sim_flow_cfg *cfg;
	uint8_t cls;
	uint8_t group;
	struct sim_pipe access; /* data on the access link */
	struct sim_pipe acks;   /* ACKs on the way back */
	uint64_t access_free; /* the access link is busy until */
	uint64_t access_tx;   /* ns per data packet on it */
	uint64_t rev_delay;   /* an ACK's trip from receiver to sender */
	uint64_t rto_ev, delack_ev; /* time of the tracked pending timer event */
	struct tcp_sender snd;
	struct tcp_receiver rcv;
	/* UDP */
	double gap_ns;
	uint64_t t0, k;
	uint32_t useq;
	uint32_t period; /* the on period it is in (cfg->periods) */
	struct sim_rng rng;
	struct tcp_params tp; /* TCP with its own transfer size */
	uint32_t series_seen; /* last series interval it sent in, + 1 */
	uint32_t id;          /* the identity protect shares among (as_id) */
	/* measured */
	struct sim_flow_result r;
	struct tcp_stats tcp0; /* sender counters at the warm-up */
	uint64_t started_at;
};

struct sim {
	const struct sim_config *cfg;
	uint64_t now, end;
	struct sim_heap heap;
	struct sim_pkt *pkt;
	uint32_t npkt, free_pkt, inflight;
	uint64_t max_inflight;
	struct sim_flow *fl;
	struct sim_rng rng;
	int measuring;
	int failed;
	char *err;
	size_t errlen;
	/* bottleneck */
	struct choke q;
	void *ring;
	uint64_t tx_data, tx_ack; /* ns */
	int busy;
	uint32_t cur;
	uint32_t udp_queued;
	uint64_t q_last;
	double q_area, qudp_area;
	double qdelay_sum[SIM_NCLASS];
	uint64_t qdelay_n[SIM_NCLASS];
	struct choke_stats qst0;
	uint64_t pos_udp[SIM_POS_BINS], pos_all[SIM_POS_BINS], pos_samples;
	uint64_t btl_pkts;
	struct sim_pipe prop; /* the bottleneck's propagation delay */
	struct sim_result *res;
	struct choke_hh hh;   /* penalised flows (measured period) */
	void *hh_mem;
	/* the time series (cfg->series_ns) */
	struct sim_series_point *ser;
	uint32_t nser;
	uint64_t ser_last; /* the queue is accounted up to here */
	/* the light flows' round trips, ns (cfg->light_rtt, measured period) */
	uint64_t *lrtt;
	size_t nlrtt, caplrtt;
};

static void fail(struct sim *s, const char *msg)
{
	if (!s->failed)
		snprintf(s->err, s->errlen, "%s", msg);
	s->failed = 1;
}

static void push(struct sim *s, uint64_t t, uint32_t ref)
{
	if (sim_heap_push(&s->heap, t, ref))
		fail(s, "out of memory (event queue)");
}

static void pipe_init(struct sim_pipe *p)
{
	p->head = p->tail = NONE;
}

/* Packet i enters pipe p and leaves it at t (not before the last one). */
static void pipe_put(struct sim *s, struct sim_pipe *p, uint32_t i, uint64_t t,
		     uint32_t ref)
{
	s->pkt[i].t_ev = t;
	s->pkt[i].next = NONE;
	if (p->head == NONE) {
		p->head = p->tail = i;
		push(s, t, ref);
	} else {
		s->pkt[p->tail].next = i;
		p->tail = i;
	}
}

/* The first packet leaves pipe p (its event fired); schedule the next. */
static uint32_t pipe_take(struct sim *s, struct sim_pipe *p, uint32_t ref)
{
	uint32_t i = p->head;

	p->head = s->pkt[i].next;
	if (p->head == NONE)
		p->tail = NONE;
	else
		push(s, s->pkt[p->head].t_ev, ref);
	return i;
}

/* The event queue's wheel (heap.h): buckets of about half a data packet's
 * time on the bottleneck, covering the longest round trip, where nearly
 * every event falls. Only the speed depends on these. */
static uint64_t ev_granule(const struct sim_config *c)
{
	return choke_tx_ns(c->pkt_size, c->btl_bps) / 2;
}

static uint64_t ev_horizon(const struct sim_config *c)
{
	uint64_t d = 0;
	uint32_t i;

	for (i = 0; i < c->nflows; i++)
		if (c->flows[i].access_delay_ns > d)
			d = c->flows[i].access_delay_ns;
	return 2 * (d + c->btl_delay_ns) + 4 * choke_tx_ns(c->pkt_size, c->btl_bps);
}

/* ---- packet records ---- */

static uint32_t pkt_alloc(struct sim *s)
{
	uint32_t i;

	if (s->free_pkt == UINT32_MAX) {
		uint32_t n = s->npkt ? s->npkt * 2 : 1024, j;
		struct sim_pkt *np;

		if (n > EV_INDEX_MAX) {
			fail(s, "too many packets in flight");
			return UINT32_MAX;
		}
		np = realloc(s->pkt, (size_t)n * sizeof(*np));
		if (!np) {
			fail(s, "out of memory (packets)");
			return UINT32_MAX;
		}
		s->pkt = np;
		for (j = n; j-- > s->npkt;) {
			np[j].next = s->free_pkt;
			s->free_pkt = j;
		}
		s->npkt = n;
	}
	i = s->free_pkt;
	s->free_pkt = s->pkt[i].next;
	if (++s->inflight > s->max_inflight)
		s->max_inflight = s->inflight;
	return i;
}

static void pkt_free(struct sim *s, uint32_t i)
{
	s->pkt[i].next = s->free_pkt;
	s->free_pkt = i;
	s->inflight--;
}

/* the core stores packets as opaque non-NULL pointers: index + 1 */
static void *pkt_ref(uint32_t i) { return (void *)(uintptr_t)(i + 1); }
static uint32_t pkt_idx(const void *p) { return (uint32_t)((uintptr_t)p - 1); }

/* ---- measurement ---- */

/* The series interval of time t (the last one holds the end). */
static uint32_t ser_index(const struct sim *s, uint64_t t)
{
	uint64_t i = t / s->cfg->series_ns;

	return i < s->nser ? (uint32_t)i : s->nser - 1;
}

/* The queue's area up to now, split at the intervals' ends. */
static void ser_queue(struct sim *s)
{
	double qlen = choke_qlen(&s->q);

	while (s->ser_last < s->now) {
		uint32_t i = ser_index(s, s->ser_last);
		uint64_t end = (uint64_t)(i + 1) * s->cfg->series_ns;

		if (end > s->now || i == s->nser - 1)
			end = s->now;
		s->ser[i].qlen_mean += qlen * (double)(end - s->ser_last);
		s->ser_last = end;
	}
}

/* A packet of flow fi reached the queue. */
static void ser_arrival(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->fl[fi];
	uint32_t i = ser_index(s, s->now);

	s->ser[i].arrivals[f->group]++;
	if (f->series_seen != i + 1) {
		f->series_seen = i + 1;
		s->ser[i].active[f->group]++;
	}
}

static void q_account(struct sim *s)
{
	if (s->ser)
		ser_queue(s);
	if (s->measuring) {
		double dt = (double)(s->now - s->q_last);

		s->q_area += dt * choke_qlen(&s->q);
		s->qudp_area += dt * s->udp_queued;
	}
	s->q_last = s->now;
}

static void count_drop(struct sim *s, uint32_t flow, int why)
{
	if (s->ser && why != SIM_DROP_ACCESS)
		s->ser[ser_index(s, s->now)].drops[s->fl[flow].group]++;
	if (s->measuring)
		s->fl[flow].r.drops[why]++;
}

/* ---- the bottleneck ---- */

static void btl_start_next(struct sim *s)
{
	uint32_t len;
	void *p;

	q_account(s);
	p = choke_dequeue(&s->q, s->now, &len);
	if (!p) {
		s->busy = 0;
		return;
	}
	s->cur = pkt_idx(p);
	s->busy = 1;
	{
		struct sim_pkt *k = &s->pkt[s->cur];
		uint8_t cls = s->fl[k->flow].cls;

		if (cls == SIM_UDP)
			s->udp_queued--;
		if (s->measuring) {
			s->qdelay_sum[cls] += (double)(s->now - k->t_enq);
			s->qdelay_n[cls]++;
		}
	}
	push(s, s->now + (len == s->cfg->pkt_size ? s->tx_data
						  : choke_tx_ns(len, s->cfg->btl_bps)),
	     EV(EV_TXDONE, 0));
}

/* The simulator's reason for each outcome that drops the arrival. */
static const uint8_t sim_drop_of[CHOKE_NOUTCOMES] = {
	[CHOKE_DROP_MATCH] = SIM_DROP_MATCH,
	[CHOKE_DROP_FORCED] = SIM_DROP_FORCED,
	[CHOKE_DROP_EARLY] = SIM_DROP_EARLY,
	[CHOKE_DROP_LIMIT] = SIM_DROP_LIMIT,
	[CHOKE_DROP_PROTECT] = SIM_DROP_PROTECT,
};

static void btl_arrive(struct sim *s, uint32_t i)
{
	struct sim_pkt *k = &s->pkt[i];
	struct sim_flow *f = &s->fl[k->flow];
	struct choke_verdict v;
	enum choke_outcome r;
	unsigned pf;
	uint32_t j;

	if (s->cfg->arrival_hook &&
	    s->cfg->arrival_hook(s->cfg->hook_ctx, s->now, k->flow, k->seq, k->flags)) {
		count_drop(s, k->flow, SIM_DROP_INJECTED);
		pkt_free(s, i);
		return;
	}
	q_account(s);
	if (s->ser)
		ser_arrival(s, k->flow);
	pf = (k->flags & TCP_F_ECT) ? CHOKE_PKT_ECN_CAPABLE : 0;
	k->t_ev = k->t_enq; /* a TCP segment's timestamp, while it waits */
	k->t_enq = s->now;
	if (choke_protect_by(&s->q) == CHOKE_PROTECT_BY_FLOW)
		r = choke_enqueue(&s->q, pkt_ref(i), k->len, k->flow, pf, s->now, &v);
	else
		r = choke_enqueue_as(&s->q, pkt_ref(i), k->len, k->flow, f->id, pf, s->now, &v);
	if (s->measuring)
		choke_hh_add_verdict(&s->hh, k->flow, r, &v, NULL);
	for (j = 0; j < v.nvictims; j++) {
		uint32_t vi = pkt_idx(v.victim[j]);
		uint32_t vf = s->pkt[vi].flow;

		if (s->fl[vf].cls == SIM_UDP)
			s->udp_queued--;
		/* a match's victim, or the head a light flow's arrival
		 * pushed out at the limit (`sparse`) */
		count_drop(s, vf, r == CHOKE_DROP_MATCH ? SIM_DROP_VICTIM : SIM_DROP_LIMIT);
		pkt_free(s, vi);
	}
	if (choke_outcome_is_drop(r)) {
		count_drop(s, k->flow, sim_drop_of[r]);
		pkt_free(s, i);
	} else {
		if (choke_outcome_is_marked(r)) {
			k->flags |= TCP_F_CE;
			if (s->measuring)
				f->r.marks++;
		}
		if (f->cls == SIM_UDP)
			s->udp_queued++;
	}
	if (!s->busy)
		btl_start_next(s);
}

static void btl_txdone(struct sim *s)
{
	uint32_t i = s->cur;
	struct sim_pkt *k = &s->pkt[i];
	struct sim_flow *f = &s->fl[k->flow];

	s->btl_pkts++;
	if (s->ser)
		s->ser[ser_index(s, s->now)].link_pkts[f->group]++;
	if (s->measuring) {
		f->r.link_pkts++;
		f->r.link_bytes += k->len;
	}
	if (s->cfg->tcp.timestamps && f->cls != SIM_UDP)
		k->t_enq = k->t_ev; /* its timestamp again, for the receiver */
	pipe_put(s, &s->prop, i, s->now + s->cfg->btl_delay_ns, EV(EV_DELIVER, 0));
	btl_start_next(s);
}

/* ---- the senders' side ---- */

/* Put a data packet on its sender's access link. */
static void access_send(struct sim *s, struct sim_flow *f, uint32_t i)
{
	uint64_t start = f->access_free > s->now ? f->access_free : s->now;

	if (f->cfg->access_limit &&
	    start - s->now > (uint64_t)f->cfg->access_limit * f->access_tx) {
		count_drop(s, s->pkt[i].flow, SIM_DROP_ACCESS);
		pkt_free(s, i);
		return;
	}
	if (s->measuring)
		f->r.sent_pkts++;
	f->access_free = start + f->access_tx;
	pipe_put(s, &f->access, i, f->access_free + f->cfg->access_delay_ns,
		 EV(EV_ARRIVE, s->pkt[i].flow));
}

static void tcp_send_cb(void *ctx, struct tcp_sender *snd, uint32_t seq,
			unsigned flags)
{
	struct sim *s = ctx;
	uint32_t i = pkt_alloc(s);

	if (i == UINT32_MAX)
		return;
	s->pkt[i].flow = snd->id;
	s->pkt[i].seq = seq;
	s->pkt[i].flags = (uint8_t)flags;
	/* RFC 7323's TSval, the time it is sent: t_enq carries it to the
	 * bottleneck, t_ev while it waits there (btl_arrive), t_enq again to
	 * the receiver (btl_txdone); an ACK's t_enq carries what it echoes */
	s->pkt[i].t_enq = s->now;
	s->pkt[i].len = (uint16_t)s->cfg->pkt_size;
	access_send(s, &s->fl[snd->id], i);
}

static void tcp_ack_cb(void *ctx, struct tcp_receiver *rcv, uint32_t ack,
		       unsigned flags)
{
	struct sim *s = ctx;
	uint32_t i = pkt_alloc(s);

	if (i == UINT32_MAX)
		return;
	if (s->cfg->ack_hook)
		s->cfg->ack_hook(s->cfg->hook_ctx, s->now, rcv->id, ack, flags);
	s->pkt[i].flow = rcv->id;
	s->pkt[i].seq = ack;
	s->pkt[i].flags = (uint8_t)(flags | PKT_ACK);
	s->pkt[i].t_enq = rcv->ts_recent;
	s->pkt[i].len = (uint16_t)s->cfg->ack_size;
	s->btl_pkts++;
	pipe_put(s, &s->fl[rcv->id].acks, i, s->now + s->fl[rcv->id].rev_delay,
		 EV(EV_ACK, rcv->id));
}

/* Keep one event pending at or before the sender's RTO deadline. */
static void arm_rto(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->fl[fi];
	uint64_t d = f->snd.rto_deadline;

	if (d && (!f->rto_ev || f->rto_ev > d)) {
		push(s, d, EV(EV_RTO, fi));
		f->rto_ev = d;
	}
}

static void arm_delack(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->fl[fi];
	uint64_t d = f->rcv.delack_deadline;

	if (d && (!f->delack_ev || f->delack_ev > d)) {
		push(s, d, EV(EV_DELACK, fi));
		f->delack_ev = d;
	}
}

static void udp_emit(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->fl[fi];
	uint32_t i = pkt_alloc(s);
	uint64_t next;

	if (i == UINT32_MAX)
		return;
	s->pkt[i].flow = fi;
	s->pkt[i].seq = f->useq++;
	s->pkt[i].flags = f->cfg->ect ? TCP_F_ECT : 0;
	s->pkt[i].len = (uint16_t)s->cfg->pkt_size;
	access_send(s, f, i);
	if (f->cfg->poisson) {
		double u = sim_rng_uniform(&f->rng);

		next = s->now + (uint64_t)(-log1p(-u) * f->gap_ns) + 1;
	} else {
		/* packet k at t0 + (k + jitter u_k) gap: the long-run rate is
		 * exact and the order kept for jitter <= 1 */
		double at = (double)++f->k;

		if (f->cfg->jitter > 0)
			at += f->cfg->jitter * sim_rng_uniform(&f->rng);
		next = f->t0 + (uint64_t)(at * f->gap_ns);
		if (next <= s->now)
			next = s->now + 1;
	}
	if (f->cfg->nperiods && next >= f->cfg->periods[f->period].off) {
		/* off until the next period, which starts afresh */
		if (++f->period >= f->cfg->nperiods)
			return;
		next = f->cfg->periods[f->period].on;
		f->t0 = next;
		f->k = 0;
	}
	push(s, next, EV(EV_UDP, fi));
}

/* A light flow's packet reached its receiver: its round trip is the time
 * since it entered the bottleneck's queue, plus the access link before it
 * (transmission and delay: a light flow does not queue there) and its
 * flow's fixed return path (an ACK's). */
static void light_rtt_add(struct sim *s, const struct sim_flow *f, const struct sim_pkt *k)
{
	if (s->nlrtt == s->caplrtt) {
		size_t cap = s->caplrtt ? 2 * s->caplrtt : 1024;
		uint64_t *n = realloc(s->lrtt, cap * sizeof(*n));

		if (!n) {
			fail(s, "out of memory (round trips)");
			return;
		}
		s->lrtt = n;
		s->caplrtt = cap;
	}
	s->lrtt[s->nlrtt++] = s->now - k->t_enq + f->access_tx + f->cfg->access_delay_ns +
			      f->rev_delay;
}

static void deliver(struct sim *s, uint32_t i)
{
	struct sim_pkt *k = &s->pkt[i];
	uint32_t fi = k->flow;
	struct sim_flow *f = &s->fl[fi];

	if (f->cls == SIM_UDP) {
		if (s->measuring)
			f->r.goodput_bytes += k->len;
		if (s->measuring && s->cfg->light_rtt && f->group == SIM_G_LIGHT)
			light_rtt_add(s, f, k);
	} else {
		int n = tcp_rcv_segment_ts(&f->rcv, k->seq, k->flags, k->t_enq, s->now);

		if (n < 0)
			fail(s, "out of memory (receiver)");
		else if (s->measuring)
			f->r.goodput_bytes += (uint64_t)n * s->cfg->pkt_size;
		arm_delack(s, fi);
	}
	pkt_free(s, i);
}

/* Sample where UDP packets sit in the queue, head to tail. */
static void sample_queue(struct sim *s)
{
	uint32_t span = choke_span(&s->q), qlen = choke_qlen(&s->q), i, k = 0;

	if (!qlen)
		return;
	s->pos_samples++;
	for (i = 0; i < span; i++) {
		const struct choke_slot *sl = choke_slot_at(&s->q, i);
		uint32_t b;

		if (!sl->pkt)
			continue;
		b = (uint32_t)((uint64_t)k * SIM_POS_BINS / qlen);
		s->pos_all[b]++;
		if (s->fl[sl->flow].cls == SIM_UDP)
			s->pos_udp[b]++;
		k++;
	}
}

static void start_measuring(struct sim *s)
{
	uint32_t i;

	s->q_last = s->now;
	s->measuring = 1;
	s->qst0 = *choke_get_stats(&s->q);
	for (i = 0; i < s->cfg->nflows; i++)
		s->fl[i].tcp0 = s->fl[i].snd.st;
}

static void on_event(struct sim *s, uint32_t ref)
{
	uint32_t idx = ref & EV_INDEX_MAX;
	struct sim_flow *f;

	switch (ref >> EV_SHIFT) {
	case EV_ARRIVE:
		btl_arrive(s, pipe_take(s, &s->fl[idx].access, ref));
		break;
	case EV_TXDONE:
		btl_txdone(s);
		break;
	case EV_DELIVER:
		deliver(s, pipe_take(s, &s->prop, ref));
		break;
	case EV_ACK: {
		uint32_t i = pipe_take(s, &s->fl[idx].acks, ref);
		struct sim_pkt *k = &s->pkt[i];

		tcp_on_ack_ts(&s->fl[idx].snd, k->seq, k->flags & TCP_F_ECE, k->t_enq, s->now);
		pkt_free(s, i);
		arm_rto(s, idx);
		break;
	}
	case EV_RTO:
		f = &s->fl[idx];
		if (f->rto_ev == s->now)
			f->rto_ev = 0;
		tcp_on_rto(&f->snd, s->now);
		arm_rto(s, idx);
		break;
	case EV_DELACK:
		f = &s->fl[idx];
		if (f->delack_ev == s->now)
			f->delack_ev = 0;
		tcp_rcv_on_delack(&f->rcv, s->now);
		arm_delack(s, idx);
		break;
	case EV_UDP:
		udp_emit(s, idx);
		break;
	case EV_START:
		f = &s->fl[idx];
		f->started_at = s->now;
		if (f->cls == SIM_TCP) {
			tcp_start(&f->snd, s->now);
			arm_rto(s, idx);
		} else {
			f->t0 = s->now;
			udp_emit(s, idx);
		}
		break;
	case EV_SAMPLE:
		if (s->measuring)
			sample_queue(s);
		push(s, s->now + s->cfg->sample_ns, EV(EV_SAMPLE, 0));
		break;
	case EV_WARMUP:
		start_measuring(s);
		break;
	}
}

/*
 * The identity protect shares the link among (choke_enqueue_as), by
 * protect's `srchost`, `dsthost` or `hosts`: a flow's host (tcp_hosts) for
 * the source, a flow without one being a host of its own; one receiving
 * host for all (the dumbbell's right side), so `dsthost` makes every flow
 * one identity and `hosts` (the pair) is the source's. Host identities are
 * numbered after the flows.
 */
static uint32_t as_id(const struct sim_config *c, uint32_t i, int by)
{
	if (by == CHOKE_PROTECT_BY_DSTHOST)
		return 0;
	if (by == CHOKE_PROTECT_BY_FLOW || !c->flows[i].host)
		return i;
	return c->nflows + c->flows[i].host;
}

static int setup(struct sim *s, const struct sim_config *c)
{
	uint32_t i;
	size_t rb;

	if (!c->nflows || c->nflows > EV_INDEX_MAX) {
		fail(s, "no flows (or too many)");
		return -1;
	}
	if (!c->btl_bps || !c->pkt_size || c->pkt_size > 65535 || !c->ack_size ||
	    c->ack_size > 65535 || c->warmup_ns >= c->duration_ns) {
		fail(s, "invalid link, packet size or duration");
		return -1;
	}
	rb = choke_ring_bytes(c->qcfg.limit);
	s->ring = malloc(rb);
	{
		uint32_t k = c->hh_counters ? c->hh_counters : 16;

		if (k > SIM_HH_MAX)
			k = SIM_HH_MAX;
		s->hh_mem = malloc(choke_hh_bytes(k));
		if (!s->hh_mem || choke_hh_init(&s->hh, k, s->hh_mem, choke_hh_bytes(k),
						 c->seed)) {
			fail(s, "out of memory");
			return -1;
		}
	}
	s->fl = calloc(c->nflows, sizeof(*s->fl));
	if (!s->ring || !s->fl || sim_heap_init(&s->heap, ev_granule(c), ev_horizon(c))) {
		fail(s, "out of memory");
		return -1;
	}
	if (choke_init(&s->q, &c->qcfg, s->ring, rb)) {
		char m[200];

		snprintf(m, sizeof(m), "invalid queue configuration: %s",
			 choke_config_reason_text(choke_config_validate(&c->qcfg)));
		fail(s, m);
		return -1;
	}
	choke_seed(&s->q, c->seed);
	sim_rng_seed(&s->rng, c->seed, 1);
	s->free_pkt = UINT32_MAX;
	pipe_init(&s->prop);
	s->tx_data = choke_tx_ns(c->pkt_size, c->btl_bps);
	s->tx_ack = choke_tx_ns(c->ack_size, c->btl_bps);
	for (i = 0; i < c->nflows; i++) {
		struct sim_flow *f = &s->fl[i];
		const struct sim_flow_cfg *fc = &c->flows[i];

		f->cfg = fc;
		f->cls = fc->cls;
		f->group = fc->group;
		f->id = as_id(c, i, choke_protect_by(&s->q));
		pipe_init(&f->access);
		pipe_init(&f->acks);
		f->r.cls = fc->cls;
		f->r.group = fc->group;
		if (!fc->access_bps) {
			fail(s, "a flow has no access link rate");
			return -1;
		}
		f->access_tx = choke_tx_ns(c->pkt_size, fc->access_bps);
		f->rev_delay = c->btl_delay_ns + fc->access_delay_ns + s->tx_ack +
			       choke_tx_ns(c->ack_size, fc->access_bps);
		f->r.base_rtt_ns = f->access_tx + fc->access_delay_ns + s->tx_data +
				   c->btl_delay_ns + f->rev_delay;
		if (fc->cls == SIM_TCP) {
			const struct tcp_params *tp = &c->tcp;

			if (fc->segments) {
				f->tp = c->tcp;
				f->tp.segments = fc->segments;
				tp = &f->tp;
			}
			tcp_sender_init(&f->snd, tp, i, tcp_send_cb, s);
			tcp_receiver_init(&f->rcv, tp, i, tcp_ack_cb, s);
		} else {
			if (!(fc->rate_bps > 0)) {
				fail(s, "a UDP flow has no rate");
				return -1;
			}
			f->gap_ns = c->pkt_size * 8.0 * 1e9 / fc->rate_bps;
			sim_rng_seed(&f->rng, c->seed, 1000 + i);
		}
		if (fc->nperiods) {
			/* the first period not over when the source starts */
			while (f->period < fc->nperiods && fc->periods[f->period].off <= fc->start_ns)
				f->period++;
			if (f->period < fc->nperiods)
				push(s, fc->periods[f->period].on > fc->start_ns ?
					fc->periods[f->period].on : fc->start_ns, EV(EV_START, i));
			continue;
		}
		push(s, fc->start_ns, EV(EV_START, i));
	}
	if (c->series_ns) {
		uint64_t n = (c->duration_ns + c->series_ns - 1) / c->series_ns;

		if (n > SIM_SERIES_MAX) {
			fail(s, "the time series would have more than 1000000 intervals");
			return -1;
		}
		s->nser = (uint32_t)n;
		s->ser = calloc(n, sizeof(*s->ser));
		if (!s->ser) {
			fail(s, "out of memory (time series)");
			return -1;
		}
	}
	if (c->warmup_ns)
		push(s, c->warmup_ns, EV(EV_WARMUP, 0));
	else
		start_measuring(s);
	if (c->sample_ns)
		push(s, c->warmup_ns + c->sample_ns / 2, EV(EV_SAMPLE, 0));
	return s->failed ? -1 : 0;
}

static void tcp_stats_sub(struct tcp_stats *a, const struct tcp_stats *b)
{
	a->segs_sent -= b->segs_sent;
	a->retransmits -= b->retransmits;
	a->fast_retransmits -= b->fast_retransmits;
	a->partial_acks -= b->partial_acks;
	a->timeouts -= b->timeouts;
	a->ecn_reductions -= b->ecn_reductions;
	a->rtt_samples -= b->rtt_samples;
	a->dupacks -= b->dupacks;
}

static void collect(struct sim *s, struct sim_result *res)
{
	const struct sim_config *c = s->cfg;
	double secs = (double)(c->duration_ns - c->warmup_ns) * 1e-9, total = 0;
	double *good;
	uint32_t i, ntcp = 0, b;
	int k;
	const struct choke_stats *q = choke_get_stats(&s->q);

	res->measured_s = secs;
	res->hh_counters = s->hh.k;
	res->hh_total = choke_hh_total(&s->hh);
	res->hh_n = choke_hh_top(&s->hh, res->hh_top, SIM_HH_MAX);
	for (i = 0; i < c->nflows; i++) {
		struct sim_flow *f = &s->fl[i];
		struct sim_flow_result *r = &res->flows[i];

		*r = f->r;
		if (f->cls == SIM_TCP) {
			r->tcp = f->snd.st;
			tcp_stats_sub(&r->tcp, &f->tcp0);
			r->srtt_ns = f->snd.srtt;
			r->rto_ns = f->snd.rto;
			r->cwnd_bytes = f->snd.cwnd;
			r->done = f->snd.done;
			r->fct_ns = f->snd.done ? f->snd.done_at - f->started_at : 0;
		}
		r->start_ns = f->started_at;
		res->group_flows[f->group]++;
		res->group_link_bytes[f->group] += r->link_bytes;
		res->group_sent[f->group] += r->sent_pkts;
		for (k = 0; k < SIM_NDROP; k++)
			res->group_drops[f->group][k] += r->drops[k];
		res->link_bytes[f->cls] += r->link_bytes;
		res->link_pkts[f->cls] += r->link_pkts;
		res->marks[f->cls] += r->marks;
		for (k = 0; k < SIM_NDROP; k++)
			res->drops[f->cls][k] += r->drops[k];
		total += (double)r->link_bytes;
	}
	res->utilization = total * 8 / ((double)c->btl_bps * secs);
	for (k = 0; k < SIM_NCLASS; k++) {
		res->share[k] = total > 0 ? (double)res->link_bytes[k] / total : 0;
		res->qdelay_ms[k] =
			s->qdelay_n[k] ? s->qdelay_sum[k] / (double)s->qdelay_n[k] * 1e-6 : 0;
	}
	good = malloc((c->nflows + 1) * sizeof(*good));
	if (good) {
		for (i = 0; i < c->nflows; i++)
			if (s->fl[i].group == SIM_G_TCP) /* long flows: not the web's */
				good[ntcp++] = (double)s->fl[i].r.goodput_bytes;
		res->jain_tcp = ntcp ? sim_jain(good, ntcp) : -1;
		ntcp = 0;
		for (i = 0; i < c->nflows; i++)
			if (s->fl[i].group != SIM_G_WEB)
				good[ntcp++] = (double)s->fl[i].r.goodput_bytes;
		res->jain_all = ntcp ? sim_jain(good, ntcp) : -1;
		free(good);
	}
	res->qlen_mean = s->q_area / ((double)(c->duration_ns - c->warmup_ns));
	res->qudp_mean = s->qudp_area / ((double)(c->duration_ns - c->warmup_ns));
	res->pos_samples = s->pos_samples;
	for (b = 0; b < SIM_POS_BINS; b++)
		res->pos_udp[b] = s->pos_all[b] ? (double)s->pos_udp[b] / (double)s->pos_all[b] : 0;
	res->qst = *q;
#define SUB(x) res->qst.x -= s->qst0.x
	SUB(prob_drop);
	SUB(prob_mark);
	SUB(forced_drop);
	SUB(forced_mark);
	SUB(pdrop);
	SUB(matched);
	SUB(sent_bytes);
	SUB(sent_pkts);
	SUB(drops);
	SUB(overlimits);
	SUB(offered_pkts);
	SUB(offered_bytes);
	SUB(other_drop);
	SUB(compactions);
	SUB(wrap_avoided);
	SUB(match_victims);
	SUB(draws);
	SUB(protect_drop);
	SUB(protect_inserts);
#undef SUB
	res->events = s->heap.pushed;
	res->btl_pkts = s->btl_pkts;
	res->max_inflight = s->max_inflight;
	if (s->ser) {
		for (b = 0; b < s->nser; b++) {
			uint64_t t0 = (uint64_t)b * c->series_ns;
			uint64_t t1 = b + 1 == s->nser ? c->duration_ns : t0 + c->series_ns;

			s->ser[b].qlen_mean /= (double)(t1 - t0);
		}
		res->series = s->ser; /* the result owns it now */
		res->nseries = s->nser;
		s->ser = NULL;
	}
}

static void teardown(struct sim *s)
{
	uint32_t i;

	if (s->fl)
		for (i = 0; i < s->cfg->nflows; i++)
			tcp_receiver_free(&s->fl[i].rcv);
	free(s->fl);
	free(s->ring);
	free(s->pkt);
	free(s->hh_mem);
	free(s->ser);
	free(s->lrtt);
	sim_heap_free(&s->heap);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The light flows' round trips: mean, median and 99th percentile (nearest
 * rank), max, in ms. */
static void light_rtt_stats(struct sim *s, struct sim_result *res)
{
	double sum = 0;
	size_t i, n = s->nlrtt;

	res->light_rtt_n = n;
	if (!n)
		return;
	qsort(s->lrtt, n, sizeof(*s->lrtt), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)s->lrtt[i];
	res->light_rtt_ms_mean = sum / (double)n * 1e-6;
	res->light_rtt_ms_median = (double)s->lrtt[(n - 1) / 2] * 1e-6;
	res->light_rtt_ms_p99 = (double)s->lrtt[(n * 99 + 99) / 100 - 1] * 1e-6;
	res->light_rtt_ms_max = (double)s->lrtt[n - 1] * 1e-6;
}

int sim_run(const struct sim_config *c, struct sim_result *res, char *err,
	    size_t errlen)
{
	struct sim s;
	struct sim_ev ev;
	struct timespec t0, t1, c0, c1, l0, l1;
	uint64_t events = 0;

	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	s.cfg = c;
	s.err = err;
	s.errlen = errlen;
	s.end = c->duration_ns;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	if (setup(&s, c)) {
		teardown(&s);
		return -1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &l0);
	while (!s.failed && !sim_heap_pop(&s.heap, &ev)) {
		if (ev.t >= s.end)
			break;
		s.now = ev.t;
		on_event(&s, ev.ref);
		events++;
		if (!(events & 0xffff) && c->progress_hook)
			c->progress_hook(c->progress_ctx, s.now);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &l1);
	if (s.failed) {
		teardown(&s);
		return -1;
	}
	s.now = s.end;
	q_account(&s);
	res->nflows = c->nflows;
	res->flows = calloc(c->nflows, sizeof(*res->flows));
	if (!res->flows) {
		snprintf(err, errlen, "out of memory");
		teardown(&s);
		return -1;
	}
	collect(&s, res);
	light_rtt_stats(&s, res);
	res->events = events;
	teardown(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	res->cpu_s = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
	res->loop_cpu_s = (double)(l1.tv_sec - l0.tv_sec) + (double)(l1.tv_nsec - l0.tv_nsec) * 1e-9;
	return 0;
}

void sim_result_free(struct sim_result *res)
{
	free(res->flows);
	res->flows = NULL;
	free(res->series);
	res->series = NULL;
	res->nseries = 0;
}

double sim_estimate_events(const struct sim_config *c)
{
	double secs = (double)c->duration_ns * 1e-9, size = c->pkt_size ? c->pkt_size : 1;
	double btl_pps = (double)c->btl_bps / (8 * size), udp_pps = 0, per_s;
	uint32_t i;

	for (i = 0; i < c->nflows; i++)
		if (c->flows[i].cls == SIM_UDP)
			udp_pps += c->flows[i].rate_bps / (8 * size);
	/* a data packet through the bottleneck: arrival, end of transmission,
	 * delivery, its ACK; a UDP packet: its emission and arrival (those
	 * the bottleneck sends are in the first term) */
	per_s = 4 * btl_pps + 2 * udp_pps;
	if (c->sample_ns)
		per_s += 1e9 / (double)c->sample_ns;
	return secs * per_s + 2.0 * c->nflows;
}

double sim_estimate_memory(const struct sim_config *c)
{
	double rtt = 0, inflight, bytes;
	uint32_t i, lim = 0;

	for (i = 0; i < c->nflows; i++) {
		double d = 2e-9 * (double)(c->flows[i].access_delay_ns + c->btl_delay_ns);

		if (d > rtt)
			rtt = d;
		lim += c->flows[i].access_limit && c->flows[i].access_limit < 8 ?
			       c->flows[i].access_limit : 8;
	}
	/* the queue, a round trip of the bottleneck's packets, and a few
	 * packets per flow on its access link; the pool of records doubles as
	 * it grows */
	inflight = c->qcfg.limit + (double)c->btl_bps / (8.0 * (c->pkt_size ? c->pkt_size : 1)) *
					   (rtt + 0.01) + lim;
	bytes = 8e6; /* the process itself */
	bytes += (double)choke_ring_bytes(c->qcfg.limit);
	bytes += (double)c->nflows * (sizeof(struct sim_flow) + 2 * sizeof(struct sim_flow_result) +
				      sizeof(struct sim_flow_cfg) + 128);
	bytes += 2 * inflight * sizeof(struct sim_pkt);
	bytes += 2.0 * (4.0 * c->nflows + 4096) * sizeof(struct sim_ev);
	if (c->series_ns)
		bytes += 2.0 * (double)(c->duration_ns / c->series_ns + 1) *
			 sizeof(struct sim_series_point);
	return bytes;
}

double sim_jain(const double *x, uint32_t n)
{
	double s = 0, s2 = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return s2 > 0 ? s * s / ((double)n * s2) : -1;
}

/* x(z) = mu(z) (2z - 1) grows from 0 at z = 1 without bound: bisect. */
double sim_choke_fluid_share(double x)
{
	double lo = 1, hi = 2, z = 1;
	int i;

	if (!(x > 0))
		return 0;
	while (log(hi) / (hi + log(hi)) * (2 * hi - 1) < x && hi < 1e300)
		hi *= 2;
	for (i = 0; i < 200; i++) {
		z = (lo + hi) / 2;
		if (log(z) / (z + log(z)) * (2 * z - 1) < x)
			lo = z;
		else
			hi = z;
	}
	return log(z) / (z + log(z));
}
