/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The event queue: a 4-ary min-heap of (time, sequence) keys. Events at
 * the same nanosecond leave in the order they were scheduled (the sequence
 * number breaks ties), so a run is a pure function of its inputs.
 *
 * An event is 16 bytes: its time, its sequence number and a 32-bit
 * reference that the heap does not interpret (the engine keeps a type in
 * the top 4 bits and an index below). The heap is self-contained: its
 * memory functions are in heap.c and it calls nothing of the engine.
 * Node i's children are 4i-2 .. 4i+1 (the root is 1), and the array is
 * placed so that each group of four children fills one 64-byte cache line:
 * a pop reads one line per level, and there are half as many levels as in
 * a binary heap. Sifting moves a hole rather than swapping.
 */
#ifndef CHOKE_SIM_HEAP_H
#define CHOKE_SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct sim_ev {
	uint64_t t;   /* ns */
	uint32_t seq; /* scheduling order, for ties */
	uint32_t ref; /* what happens: opaque to the heap */
};

struct sim_heap {
	struct sim_ev *a; /* a[1 .. n] */
	void *mem;        /* what was allocated (a is offset into it) */
	size_t n, cap;
	uint32_t seq;
	uint64_t pushed;  /* events scheduled in all */
};

/* 0, or -1 if out of memory. */
int sim_heap_init(struct sim_heap *h, size_t cap);
void sim_heap_free(struct sim_heap *h);
/* Grow the array (slow path of sim_heap_push). 0, or -1. */
int sim_heap_grow(struct sim_heap *h);

static inline int sim_ev_before(const struct sim_ev *x, const struct sim_ev *y)
{
	return x->t < y->t || (x->t == y->t && (int32_t)(x->seq - y->seq) < 0);
}

/* Schedule. 0, or -1 if out of memory. */
static inline int sim_heap_push(struct sim_heap *h, uint64_t t, uint32_t ref)
{
	struct sim_ev e;
	size_t i;

	if (h->n + 1 >= h->cap && sim_heap_grow(h))
		return -1;
	e.t = t;
	e.seq = h->seq++;
	e.ref = ref;
	h->pushed++;
	i = ++h->n;
	while (i > 1) {
		size_t p = (i + 2) >> 2;

		if (!sim_ev_before(&e, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = e;
	return 0;
}

static inline const struct sim_ev *sim_heap_top(const struct sim_heap *h)
{
	return h->n ? &h->a[1] : NULL;
}

/* Remove the earliest event into *out. 0, or -1 if empty. */
static inline int sim_heap_pop(struct sim_heap *h, struct sim_ev *out)
{
	struct sim_ev last;
	struct sim_ev *a = h->a;
	size_t i = 1, n, c, m, e;

	if (!h->n)
		return -1;
	*out = a[1];
	last = a[h->n--];
	n = h->n;
	if (!n)
		return 0;
	/* move the hole down along the smallest children to a leaf, then
	 * back up to where the last element belongs (it usually belongs
	 * near the bottom) */
	while ((c = 4 * i - 2) <= n) {
		m = c;
		e = c + 3 <= n ? c + 3 : n;
		for (c++; c <= e; c++)
			if (sim_ev_before(&a[c], &a[m]))
				m = c;
		a[i] = a[m];
		i = m;
	}
	while (i > 1) {
		size_t p = (i + 2) >> 2;

		if (!sim_ev_before(&last, &a[p]))
			break;
		a[i] = a[p];
		i = p;
	}
	a[i] = last;
	return 0;
}

#endif
