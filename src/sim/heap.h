/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The event queue. Events leave in (time, sequence) order: at the same
 * nanosecond in the order they were scheduled, so a run is a pure function
 * of its inputs, whatever the queue's sizes below.
 *
 * Two parts, and a pop takes the earlier of their two first events:
 *
 *  - a wheel: nb buckets (a power of two) of 2^shift ns each, covering the
 *    window [cur, cur + nb) of bucket numbers (time >> shift), where cur is
 *    the bucket of the last event popped. A bucket is a list kept in
 *    (time, sequence) order; an event later than the bucket's last one (the
 *    usual case) is appended. A bitmap of non-empty buckets finds the
 *    next one. Push and pop cost a few memory accesses whatever the number
 *    of events, which is what a simulation of a thousand flows needs: most
 *    events are due within a few round trips.
 *  - a 4-ary min-heap (each group of four children on one 64-byte line) for
 *    events outside the window: far timers, and anything scheduled before
 *    cur (allowed, though the engine never does it).
 *
 * The window only moves forward, to the bucket of the event just popped,
 * so every event in the wheel stays inside it. An event is 16 bytes: its
 * time, its sequence number and a 32-bit reference that the queue does not
 * interpret (the engine keeps a type in the top 4 bits and an index below).
 * The queue calls nothing of the engine; its memory functions are in heap.c.
 */
#ifndef CHOKE_SIM_HEAP_H
#define CHOKE_SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct sim_ev {
	uint64_t t;   /* ns */
	uint32_t seq; /* scheduling order, for ties */
	uint32_t ref; /* what happens: opaque to the queue */
};

#define SIM_WHEEL_NONE UINT32_MAX

struct sim_wnode {
	struct sim_ev e;
	uint32_t next;
};

/* a bucket: one 16-byte read tells where a new event goes */
struct sim_bucket {
	uint32_t head, tail; /* first and last node, or NONE */
	uint64_t tail_t;     /* the last node's time */
};

struct sim_heap {
	/* the wheel */
	struct sim_bucket *bk;
	uint64_t *bits;         /* bucket b non-empty: bit b */
	struct sim_wnode *node; /* node pool */
	uint32_t nnode, free_node;
	uint32_t nb;            /* buckets, a power of two */
	unsigned shift;         /* a bucket is 2^shift ns */
	uint64_t cur;           /* the window starts at this bucket number */
	uint64_t minb;          /* the wheel's first non-empty bucket number */
	size_t nwheel;
	/* the far events: a[1 .. nfar], 4-ary */
	struct sim_ev *a;
	void *mem;
	size_t nfar, capfar;
	/* both */
	size_t n;
	uint32_t seq;
	uint64_t pushed; /* events scheduled in all */
};

/* A queue whose wheel has about horizon_ns / gran_ns buckets of about
 * gran_ns each (both rounded to powers of two and bounded: see heap.c);
 * the sizes change only the speed. 0, or -1 if out of memory. */
int sim_heap_init(struct sim_heap *h, uint64_t gran_ns, uint64_t horizon_ns);
void sim_heap_free(struct sim_heap *h);
/* Slow paths of sim_heap_push. 0, or -1 if out of memory. */
int sim_heap_grow_far(struct sim_heap *h);
int sim_heap_grow_nodes(struct sim_heap *h);
/* The wheel's first non-empty bucket number at or after from (the wheel is
 * not empty). */
uint64_t sim_wheel_next(const struct sim_heap *h, uint64_t from);

static inline int sim_ev_before(const struct sim_ev *x, const struct sim_ev *y)
{
	return x->t < y->t || (x->t == y->t && (int32_t)(x->seq - y->seq) < 0);
}

static inline int sim_far_push(struct sim_heap *h, const struct sim_ev *e)
{
	size_t i;

	if (h->nfar + 1 >= h->capfar && sim_heap_grow_far(h))
		return -1;
	i = ++h->nfar;
	while (i > 1) {
		size_t p = (i + 2) >> 2;

		if (!sim_ev_before(e, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = *e;
	return 0;
}

static inline void sim_far_pop(struct sim_heap *h)
{
	struct sim_ev last;
	struct sim_ev *a = h->a;
	size_t i = 1, n, c, m, e;

	last = a[h->nfar--];
	n = h->nfar;
	if (!n)
		return;
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
}

/* Schedule. 0, or -1 if out of memory. */
static inline int sim_heap_push(struct sim_heap *h, uint64_t t, uint32_t ref)
{
	struct sim_ev e;
	uint64_t b = t >> h->shift;
	uint32_t k, x, *pp;
	struct sim_bucket *bk;

	e.t = t;
	e.seq = h->seq;
	e.ref = ref;
	if (b - h->cur >= h->nb) { /* before the window or beyond it */
		if (sim_far_push(h, &e))
			return -1;
		goto done;
	}
	if (h->free_node == SIM_WHEEL_NONE && sim_heap_grow_nodes(h))
		return -1;
	k = h->free_node;
	h->free_node = h->node[k].next;
	h->node[k].e = e;
	x = (uint32_t)b & (h->nb - 1);
	bk = &h->bk[x];
	if (bk->head == SIM_WHEEL_NONE) {
		h->node[k].next = SIM_WHEEL_NONE;
		bk->head = bk->tail = k;
		bk->tail_t = t;
		h->bits[x >> 6] |= 1ull << (x & 63);
	} else if (t >= bk->tail_t) {
		/* at the same time, later: its sequence number is the newest */
		h->node[k].next = SIM_WHEEL_NONE;
		h->node[bk->tail].next = k;
		bk->tail = k;
		bk->tail_t = t;
	} else { /* earlier than the bucket's last: find its place */
		pp = &bk->head;
		while (!sim_ev_before(&e, &h->node[*pp].e))
			pp = &h->node[*pp].next;
		h->node[k].next = *pp;
		*pp = k;
	}
	if (!h->nwheel++ || b < h->minb)
		h->minb = b;
done:
	h->seq++;
	h->pushed++;
	h->n++;
	return 0;
}

/* The earliest event, or NULL if there is none. */
static inline const struct sim_ev *sim_heap_top(const struct sim_heap *h)
{
	const struct sim_ev *w = NULL;

	if (h->nwheel)
		w = &h->node[h->bk[(uint32_t)h->minb & (h->nb - 1)].head].e;
	if (h->nfar && (!w || sim_ev_before(&h->a[1], w)))
		return &h->a[1];
	return w;
}

/* Remove the earliest event into *out. 0, or -1 if empty. */
static inline int sim_heap_pop(struct sim_heap *h, struct sim_ev *out)
{
	uint32_t x, k;
	uint64_t b;

	if (!h->n)
		return -1;
	h->n--;
	if (h->nwheel) {
		x = (uint32_t)h->minb & (h->nb - 1);
		k = h->bk[x].head;
		if (!h->nfar || !sim_ev_before(&h->a[1], &h->node[k].e)) {
			*out = h->node[k].e;
			h->bk[x].head = h->node[k].next;
			h->node[k].next = h->free_node;
			h->free_node = k;
			h->cur = h->minb;
			h->nwheel--;
			if (h->bk[x].head == SIM_WHEEL_NONE) {
				h->bits[x >> 6] &= ~(1ull << (x & 63));
				if (h->nwheel)
					h->minb = sim_wheel_next(h, h->minb + 1);
			}
			return 0;
		}
	}
	*out = h->a[1];
	sim_far_pop(h);
	/* forward only: every event in the wheel is at or after this one */
	b = out->t >> h->shift;
	if (b > h->cur)
		h->cur = b;
	return 0;
}

#endif
