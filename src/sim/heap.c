/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The event queue's memory and slow paths: see heap.h. */
#include "heap.h"

#include <stdlib.h>
#include <string.h>

/* the wheel's bounds: 64 .. 65536 buckets of 2^6 .. 2^30 ns */
#define WHEEL_MIN_BITS 6
#define WHEEL_MAX_BITS 16
#define SHIFT_MIN 6
#define SHIFT_MAX 30

/* a[2] (the first group of children) on a 64-byte boundary */
static struct sim_ev *heap_place(void *mem)
{
	uintptr_t p = ((uintptr_t)mem + 2 * sizeof(struct sim_ev) + 63) & ~(uintptr_t)63;

	return (struct sim_ev *)(p - 2 * sizeof(struct sim_ev));
}

static unsigned log2_floor(uint64_t x)
{
	return x ? 63u - (unsigned)__builtin_clzll(x) : 0;
}

int sim_heap_init(struct sim_heap *h, uint64_t gran_ns, uint64_t horizon_ns)
{
	unsigned shift = gran_ns ? log2_floor(gran_ns) : SHIFT_MIN, bits;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	if (shift < SHIFT_MIN)
		shift = SHIFT_MIN;
	if (shift > SHIFT_MAX)
		shift = SHIFT_MAX;
	bits = log2_floor(horizon_ns >> shift) + 1;
	if (bits < WHEEL_MIN_BITS)
		bits = WHEEL_MIN_BITS;
	if (bits > WHEEL_MAX_BITS) { /* wider buckets rather than more */
		shift += bits - WHEEL_MAX_BITS;
		bits = WHEEL_MAX_BITS;
		if (shift > SHIFT_MAX)
			shift = SHIFT_MAX;
	}
	h->shift = shift;
	h->nb = 1u << bits;
	h->bk = malloc(h->nb * sizeof(*h->bk));
	h->bits = calloc(h->nb / 64, sizeof(*h->bits));
	h->capfar = 256;
	h->mem = malloc((h->capfar + 2) * sizeof(*h->a) + 64);
	h->free_node = SIM_WHEEL_NONE;
	if (!h->bk || !h->bits || !h->mem || sim_heap_grow_nodes(h)) {
		sim_heap_free(h);
		return -1;
	}
	for (i = 0; i < h->nb; i++)
		h->bk[i].head = h->bk[i].tail = SIM_WHEEL_NONE;
	h->a = heap_place(h->mem);
	return 0;
}

void sim_heap_free(struct sim_heap *h)
{
	free(h->bk);
	free(h->bits);
	free(h->node);
	free(h->mem);
	memset(h, 0, sizeof(*h));
}

int sim_heap_grow_far(struct sim_heap *h)
{
	size_t cap = h->capfar * 2;
	void *mem = malloc((cap + 2) * sizeof(*h->a) + 64);
	struct sim_ev *a;

	if (!mem)
		return -1;
	a = heap_place(mem);
	memcpy(a + 1, h->a + 1, h->nfar * sizeof(*a));
	free(h->mem);
	h->mem = mem;
	h->a = a;
	h->capfar = cap;
	return 0;
}

/* Double the node pool (the nodes are named by index, so they may move)
 * and chain the new ones onto the free list. */
int sim_heap_grow_nodes(struct sim_heap *h)
{
	uint32_t n = h->nnode ? h->nnode * 2 : 1024, i;
	struct sim_wnode *p;

	if (h->nnode >= UINT32_MAX / 2)
		return -1;
	p = realloc(h->node, (size_t)n * sizeof(*p));
	if (!p)
		return -1;
	h->node = p;
	for (i = h->nnode; i < n; i++)
		p[i].next = i + 1 < n ? i + 1 : h->free_node;
	h->free_node = h->nnode;
	h->nnode = n;
	return 0;
}

uint64_t sim_wheel_next(const struct sim_heap *h, uint64_t from)
{
	uint32_t mask = h->nb - 1, x = (uint32_t)from & mask, w = x >> 6;
	uint32_t nw = h->nb >> 6;
	uint64_t m = h->bits[w] & (~0ull << (x & 63));

	/* from x to the end of its word, then whole words, wrapping around;
	 * the wheel is not empty, so this ends within nb buckets */
	for (;;) {
		if (m) {
			uint32_t y = (w << 6) | (uint32_t)__builtin_ctzll(m);

			return from + ((y - x) & mask);
		}
		w = (w + 1) & (nw - 1);
		m = h->bits[w];
	}
}
