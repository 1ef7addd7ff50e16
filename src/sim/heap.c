/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The event queue's memory: see heap.h. */
#include "heap.h"

#include <stdlib.h>
#include <string.h>

/* a[2] (the first group of children) on a 64-byte boundary */
static struct sim_ev *heap_place(void *mem)
{
	uintptr_t p = ((uintptr_t)mem + 2 * sizeof(struct sim_ev) + 63) & ~(uintptr_t)63;

	return (struct sim_ev *)(p - 2 * sizeof(struct sim_ev));
}

int sim_heap_init(struct sim_heap *h, size_t cap)
{
	memset(h, 0, sizeof(*h));
	h->mem = malloc((cap + 2) * sizeof(*h->a) + 64);
	if (!h->mem)
		return -1;
	h->a = heap_place(h->mem);
	h->cap = cap;
	return 0;
}

void sim_heap_free(struct sim_heap *h)
{
	free(h->mem);
	h->mem = NULL;
	h->a = NULL;
	h->n = h->cap = 0;
}

int sim_heap_grow(struct sim_heap *h)
{
	size_t cap = h->cap * 2;
	void *mem = malloc((cap + 2) * sizeof(*h->a) + 64);
	struct sim_ev *a;

	if (!mem)
		return -1;
	a = heap_place(mem);
	memcpy(a + 1, h->a + 1, h->n * sizeof(*a));
	free(h->mem);
	h->mem = mem;
	h->a = a;
	h->cap = cap;
	return 0;
}
