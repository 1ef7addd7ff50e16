// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/* Space-Saving over a Stream-Summary: see include/choke/hh.h. */
#include "choke/hh.h"

#define NIL 0xffffffffu

/* the highest bucket, kept beside min_bucket for the top-n walk */
#define MAXB(h) ((h)->b[(h)->k].prev)

static uint32_t hh_hash_slots(uint32_t k)
{
	uint32_t n = 1;

	while (n < 2 * k)
		n <<= 1;
	return n;
}

size_t choke_hh_bytes(uint32_t k)
{
	/* k entries, k buckets plus a sentinel, the hash heads */
	return (size_t)k * sizeof(struct choke_hh_entry) +
	       ((size_t)k + 1) * sizeof(struct choke_hh_bucket) +
	       (size_t)hh_hash_slots(k) * sizeof(uint32_t);
}

int choke_hh_init(struct choke_hh *h, uint32_t k, void *mem, size_t bytes,
		  uint64_t seed)
{
	uint8_t *p = (uint8_t *)mem;
	uint32_t i, slots;

	if (!k || !mem || bytes < choke_hh_bytes(k))
		return CHOKE_EINVAL;
	slots = hh_hash_slots(k);
	h->e = (struct choke_hh_entry *)p;
	h->b = (struct choke_hh_bucket *)(p + (size_t)k * sizeof(*h->e));
	h->hash = (uint32_t *)(p + (size_t)k * sizeof(*h->e) +
			       ((size_t)k + 1) * sizeof(*h->b));
	h->k = k;
	h->used = 0;
	h->hmask = slots - 1;
	h->total = 0;
	h->seed = seed | 1;
	for (i = 0; i < slots; i++)
		h->hash[i] = NIL;
	/* bucket k is the list's sentinel: next = lowest, prev = highest */
	h->b[k].count = 0;
	h->b[k].first = NIL;
	h->b[k].next = h->b[k].prev = k;
	h->free_buckets = NIL;
	for (i = 0; i < k; i++) {
		h->b[i].first = NIL;
		h->b[i].next = h->free_buckets;
		h->free_buckets = i;
	}
	return 0;
}

static inline uint32_t hh_slot(const struct choke_hh *h, uint32_t flow)
{
	uint64_t x = ((uint64_t)flow ^ h->seed) * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(x >> 32) & h->hmask;
}

static uint32_t bucket_new(struct choke_hh *h, uint64_t count, uint32_t after)
{
	uint32_t b = h->free_buckets, nx = h->b[after].next;

	h->free_buckets = h->b[b].next;
	h->b[b].count = count;
	h->b[b].first = NIL;
	h->b[b].prev = after;
	h->b[b].next = nx;
	h->b[after].next = b;
	h->b[nx].prev = b;
	return b;
}

static void bucket_unlink(struct choke_hh *h, uint32_t b)
{
	uint32_t pv = h->b[b].prev, nx = h->b[b].next;

	h->b[pv].next = nx;
	h->b[nx].prev = pv;
	h->b[b].next = h->free_buckets;
	h->free_buckets = b;
}

static void entry_detach(struct choke_hh *h, uint32_t i)
{
	struct choke_hh_entry *e = &h->e[i];

	if (e->prev != NIL)
		h->e[e->prev].next = e->next;
	else
		h->b[e->bucket].first = e->next;
	if (e->next != NIL)
		h->e[e->next].prev = e->prev;
}

static void entry_attach(struct choke_hh *h, uint32_t i, uint32_t b)
{
	struct choke_hh_entry *e = &h->e[i];

	e->bucket = b;
	e->prev = NIL;
	e->next = h->b[b].first;
	if (e->next != NIL)
		h->e[e->next].prev = i;
	h->b[b].first = i;
	e->count = h->b[b].count;
}

/* Move entry i from its bucket (count c) to count c + 1. */
static void entry_increment(struct choke_hh *h, uint32_t i)
{
	uint32_t b = h->e[i].bucket, nx = h->b[b].next;
	uint64_t c = h->b[b].count;

	if (nx != h->k && h->b[nx].count == c + 1) {
		entry_detach(h, i);
		entry_attach(h, i, nx);
		if (h->b[b].first == NIL)
			bucket_unlink(h, b);
		return;
	}
	if (h->b[b].first == i && h->e[i].next == NIL) {
		/* alone in its bucket, and the next count is further up */
		h->b[b].count = c + 1;
		h->e[i].count = c + 1;
		return;
	}
	nx = bucket_new(h, c + 1, b);
	entry_detach(h, i);
	entry_attach(h, i, nx);
}

static void hash_remove(struct choke_hh *h, uint32_t i)
{
	uint32_t *pp = &h->hash[hh_slot(h, h->e[i].flow)];

	while (*pp != NIL && *pp != i)
		pp = &h->e[*pp].hnext;
	if (*pp == i)
		*pp = h->e[i].hnext;
}

uint32_t choke_hh_add(struct choke_hh *h, uint32_t flow, uint32_t packets,
		      bool *evicted)
{
	uint32_t s = hh_slot(h, flow), i = h->hash[s], n;

	if (evicted)
		*evicted = false;
	if (!packets)
		return NIL;
	h->total += packets;
	while (i != NIL && h->e[i].flow != flow)
		i = h->e[i].hnext;
	n = packets;
	if (i == NIL) {
		uint32_t low = h->b[h->k].next; /* lowest bucket */

		if (h->used < h->k) {
			/* a new counter at 1 */
			uint32_t b = low != h->k && h->b[low].count == 1 ? low
						 : bucket_new(h, 1, h->k);

			i = h->used++;
			h->e[i].err = 0;
			entry_attach(h, i, b);
		} else {
			/* replace a counter of the lowest count: the newcomer
			 * inherits it as its possible over-count */
			i = h->b[low].first;
			hash_remove(h, i);
			h->e[i].err = h->b[low].count;
			if (evicted)
				*evicted = true;
			entry_increment(h, i);
		}
		h->e[i].flow = flow;
		h->e[i].hnext = h->hash[s];
		h->hash[s] = i;
		n--;
	}
	while (n--)
		entry_increment(h, i);
	return i;
}

uint32_t choke_hh_top(const struct choke_hh *h, struct choke_hh_item *out,
		      uint32_t n)
{
	uint32_t got = 0, b = MAXB(h);

	while (b != h->k && got < n) {
		uint32_t i;

		for (i = h->b[b].first; i != NIL && got < n; i = h->e[i].next) {
			out[got].flow = h->e[i].flow;
			out[got].slot = i;
			out[got].count = h->e[i].count;
			out[got].err = h->e[i].err;
			got++;
		}
		b = h->b[b].prev;
	}
	return got;
}
