/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Reference model of the core, for the tests: the same specification
 * (docs/core.md) written as plainly as possible, independently of
 * src/core: the queue is a plain array of slots from head to tail (holes as
 * empty entries), shifted on every removal at the head; arithmetic is
 * spelled out step by step.
 *
 * It has two storage rules:
 *  - REF_OURS: what the core promises (capacity 2 * nextpow2(limit + 1) - 1
 *    slots, holes compacted away when an admission finds them all used);
 *  - REF_MAINLINE: Linux's sch_choke, whose ring has nextpow2(limit + 1)
 *    slots and admits on qlen < limit alone. When an admission fills the
 *    last slot the tail meets the head: the model then follows the kernel's
 *    index arithmetic literally (a circular array), so the wedge it reaches
 *    is the kernel's.
 *
 * `protect` is modelled too (struct ref_protect): the same rule as
 * src/core/protect.h, with its tables computed here from libm and its
 * bookkeeping in plain arrays; so are `target` (one timed packet, followed
 * by its position from the head) and `sparse` (a plain array for the lane;
 * a flow's queued packets counted by looking at every one).
 *
 * Batched CHOKe (choke_enqueue_burst_batched) too: its chunks written out
 * on the same plain array, from its specification rather than the core's
 * branch-free loop (ref_enqueue_burst_batched).
 */
#ifndef CHOKE_TEST_REFMODEL_H
#define CHOKE_TEST_REFMODEL_H

#include "choke/core.h"

enum ref_storage { REF_OURS, REF_MAINLINE };

struct ref_slot {
	void *pkt;
	uint32_t len, flow;
};

/* `protect` (docs/variants.md), written out plainly: see refmodel.c */
struct ref_protect_entry {
	uint32_t flow, rate; /* rate 0: a free entry */
	uint64_t stamp;
	uint32_t born; /* the step it was entered in, mod 2^16; 0xffff: long ago */
};

struct ref_protect {
	unsigned entries;     /* 0: off */
	struct ref_protect_entry e[CHOKE_PROTECT_MAX];
	uint64_t clock;       /* bytes departed while on; with `target`, time */
	uint32_t share;       /* bytes per window, Q8 */
	uint32_t boost;       /* Q8 */
	uint32_t drops;       /* protect's drops in this step */
	uint32_t sample_left;
	int idled, busy, dropped, congested;
	unsigned char seen[CHOKE_PROTECT_BINS]; /* bins that had an arrival */
	/* `target`: the clock is time; windows of time */
	uint64_t target_ns, goal_ns;
	int64_t probe;        /* position of the timed slot from the head, -1: none */
	uint64_t probe_ns, step_ns, idle_ns, delay_ns;
	uint64_t wstart_ns, wbytes, wsvc_ns;
	uint64_t svc_last;    /* the last departure, in 1024-ns units */
	int svc_held;         /* a packet waited when it departed */
	uint32_t wmaxlen;
	uint32_t unresp;      /* Q8: an unresponsive flow's part of the allowance */
	uint32_t drain;       /* Q8: the allowances' cut while the delay stands */
	uint32_t room;        /* Q6: a flood's cap over the equal split */
	uint32_t spare;       /* intervals in a row the link idled, only floods held */
	uint64_t step_sent;   /* the bytes sent when the interval began */
};

struct refq {
	struct choke_config cfg;
	enum ref_storage storage;
	/* plain array: slot[0] is the head; n slots, holes included */
	struct ref_slot *slot;
	uint32_t n, cap; /* cap: slots the storage may use */
	/* mainline after its ring wrapped: a literal circular array */
	int wrapped;
	struct ref_slot *ring;
	uint32_t rmask, rhead, rtail;

	uint32_t qlen;
	uint64_t backlog;
	uint64_t qavg;
	int64_t qcount; /* kept wide; wrapped to 32 bits where the kernel does */
	uint32_t qR;
	int idle;
	uint64_t idle_start;
	struct choke_stats st;

	struct ref_protect pr;

	/* gentle, wait and ARED (CHOKE_RED_*): the probability max_P that
	 * ARED moves (Q0.32) and the divisor qR is drawn with, the end of
	 * the current 500 ms period (0: none started yet) */
	uint32_t maxp, maxp_div;
	uint64_t ared_next;
	/* `sparse`: the light lane, oldest first */
	struct ref_slot lane[CHOKE_LANE_SLOTS];
	uint32_t lane_len;
	int lane_turn;

	/* batched CHOKe (ref_enqueue_burst_batched): what its calls went
	 * through, for the tests' coverage (not compared with the core) */
	struct ref_batch_seen {
		uint64_t calls, idle_starts, multi_chunk_calls;
		uint64_t chunks[3];          /* chunks of several arrivals, per region */
		uint64_t one_chunks[3];      /* one-arrival chunks, per region */
		uint64_t one_empty;          /* one-arrival chunks on an empty span */
		uint64_t one_tail_drops;     /* their tail drops */
		uint64_t matches, early, forced, prob_marks, forced_marks;
		uint64_t holes_drawn;        /* draws that found a hole */
		uint64_t no_excess;          /* chunks between with no excess */
	} bat;

	uint32_t (*rnd)(void *ctx);
	void *rnd_ctx;
	/* exact flow comparison on queued/arriving packets */
	int (*same)(const void *a, const void *b);
};

/* protect's view for the tests: flows seen in this window (bins set) */
uint32_t ref_protect_flows(const struct refq *m);

/* ring slots mainline would use for a limit */
uint32_t ref_mainline_slots(uint32_t limit);

void ref_init(struct refq *m, const struct choke_config *c,
	      enum ref_storage storage, uint32_t (*rnd)(void *), void *rnd_ctx,
	      int (*same)(const void *, const void *));
void ref_free(struct refq *m);

/* same contract as choke_enqueue; victims in v */
int ref_enqueue(struct refq *m, void *pkt, uint32_t len, uint32_t flow,
		int ect, uint64_t now, struct choke_verdict *v);
/* choke_enqueue_as: id is the identity protect shares among */
int ref_enqueue_as(struct refq *m, void *pkt, uint32_t len, uint32_t flow, uint32_t id,
		   int ect, uint64_t now, struct choke_verdict *v);
/*
 * Batched CHOKe (choke_enqueue_burst_batched): the arguments and results of
 * choke_enqueue_burst; pkt_flags may be NULL. hooks: the core has a random
 * or same_flow hook set (which the model cannot see), making the queue not
 * eligible. Not eligible: the arrivals one by one through ref_enqueue (the
 * caller gives a victim array large enough; no check). Eligible: chunks of
 * up to REF_BATCH_CHUNK arrivals decided from the queue as the chunk found
 * it (refmodel.c).
 */
#define REF_BATCH_CHUNK 32u
int ref_enqueue_burst_batched(struct refq *m, int hooks, void *const pkt[],
			      const uint32_t len[], const uint32_t flow[],
			      const uint8_t pkt_flags[], uint32_t n, uint64_t now,
			      uint8_t outcome[], struct choke_victim victim[],
			      uint32_t victim_cap, uint32_t *nvictims);
void *ref_dequeue(struct refq *m, uint64_t now);
void *ref_peek(const struct refq *m);
/* dropped packets are appended to drops[] (*ndrops updated) */
void ref_reset(struct refq *m, void **drops, uint32_t *ndrops);
void ref_change(struct refq *m, const struct choke_config *c, void **drops,
		uint32_t *ndrops);

/* view: number of slots head..tail and slot i (REF_OURS, or not wrapped) */
uint32_t ref_span(const struct refq *m);
const struct ref_slot *ref_slot_at(const struct refq *m, uint32_t i);

#endif
