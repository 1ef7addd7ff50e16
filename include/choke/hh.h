/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Who is being penalised: a fixed-size summary of the flows that lose the
 * most packets to CHOKe's matches, by the Space-Saving algorithm (Metwally,
 * Agrawal and El Abbadi, 2005) over a Stream-Summary (counters grouped in
 * buckets of equal count, the buckets in a list ordered by count), so each
 * lost packet costs O(1) and the memory is fixed.
 *
 * Guarantee: with k counters and N packets counted, every flow that lost
 * more than N/k packets is in the summary, and each reported count c with
 * error e satisfies c - e <= true count <= c, e <= N/k.
 *
 * Freestanding like the core; the host passes the memory.
 */
#ifndef CHOKE_HH_H
#define CHOKE_HH_H

#include "choke/core.h"

struct choke_hh_entry {
	uint64_t count;  /* packets counted for this flow (an upper bound) */
	uint64_t err;    /* over-count inherited at insertion */
	uint32_t flow;
	uint32_t bucket; /* index of its bucket */
	uint32_t prev, next;   /* within the bucket */
	uint32_t hnext;        /* hash chain */
};

struct choke_hh_bucket {
	uint64_t count;
	uint32_t first; /* an entry, NIL if the bucket is free */
	uint32_t prev, next; /* bucket list, ascending count */
};

struct choke_hh {
	struct choke_hh_entry *e;
	struct choke_hh_bucket *b;
	uint32_t *hash; /* heads, hmask + 1 of them */
	uint32_t k, used, hmask;
	uint32_t free_buckets; /* free list through next; bucket k is the list
				  head: its next is the lowest, its prev the
				  highest count */
	uint64_t total;        /* packets counted */
	uint64_t seed;
};

struct choke_hh_item {
	uint32_t flow;
	uint32_t slot; /* entry index, for the host's side table */
	uint64_t count, err;
};

/* Memory for k counters (k >= 1). */
size_t choke_hh_bytes(uint32_t k);
/* 0, or CHOKE_EINVAL (k == 0, memory too small). */
CHOKE_MUST_CHECK int choke_hh_init(struct choke_hh *h, uint32_t k, void *mem, size_t bytes,
		  uint64_t seed);
/*
 * Count `packets` lost by `flow` (1 for each packet a match drops). Returns
 * the entry index the flow now has (stable until it is evicted), so the
 * host can keep a readable name for it; *evicted (if not NULL) is set when
 * that index belonged to another flow before this call.
 */
uint32_t choke_hh_add(struct choke_hh *h, uint32_t flow, uint32_t packets,
		      bool *evicted);
/* What an enqueue cost the arriving packet's flow to CHOKe's matches:
 * with CHOKE_DROP_MATCH the arrival and its v->nvictims victims (each
 * victim is of the arrival's flow), counted as choke_hh_add counts them;
 * nothing for any other outcome. Returns the flow's entry index, or
 * CHOKE_HH_NONE when nothing was counted. */
#define CHOKE_HH_NONE 0xffffffffu
static inline uint32_t choke_hh_add_verdict(struct choke_hh *h, uint32_t flow,
					    enum choke_outcome outcome,
					    const struct choke_verdict *v, bool *evicted)
{
	if (outcome != CHOKE_DROP_MATCH)
		return CHOKE_HH_NONE;
	return choke_hh_add(h, flow, 1 + v->nvictims, evicted);
}

/* The n largest counters, largest first; returns how many. */
uint32_t choke_hh_top(const struct choke_hh *h, struct choke_hh_item *out,
		      uint32_t n);
static inline uint64_t choke_hh_total(const struct choke_hh *h)
{
	return h->total;
}
/* The error bound of every reported count: total / k. */
static inline uint64_t choke_hh_bound(const struct choke_hh *h)
{
	return h->k ? h->total / h->k : 0;
}

#endif
