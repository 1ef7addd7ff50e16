/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Helpers shared by the core tests: a host around struct choke with a
 * scripted random source and a pool of test packets. */
#ifndef CHOKE_TEST_CORELIB_H
#define CHOKE_TEST_CORELIB_H

#include <stdlib.h>
#include <string.h>

#include "choke/core.h"

struct tpkt {
	uint32_t id;
	uint32_t key; /* the full flow key; the flow value may collide */
};

/* Random source: scripted values first, then a xorshift stream. */
struct trand {
	uint32_t script[64];
	int nscript, pos;
	uint64_t x;
	uint64_t draws;
};

static inline uint32_t trand_next(void *ctx)
{
	struct trand *r = (struct trand *)ctx;

	r->draws++;
	if (r->pos < r->nscript)
		return r->script[r->pos++];
	r->x ^= r->x << 13;
	r->x ^= r->x >> 7;
	r->x ^= r->x << 17;
	return (uint32_t)(r->x >> 32);
}

static inline void trand_init(struct trand *r, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->x = seed * 0x9E3779B97F4A7C15ull + 1;
}

static inline void trand_push(struct trand *r, uint32_t v)
{
	r->script[r->nscript++] = v;
}

static inline bool tpkt_same(void *ctx, const void *a, const void *b)
{
	(void)ctx;
	return ((const struct tpkt *)a)->key == ((const struct tpkt *)b)->key;
}

struct thost {
	struct choke q;
	void *ring;
	struct trand rnd;
	struct choke_verdict v;
	void *dropped[4096];
	uint32_t ndropped;
};

static inline void thost_drop(void *ctx, void *pkt, uint32_t len)
{
	struct thost *h = (struct thost *)ctx;

	(void)len;
	if (h->ndropped < 4096)
		h->dropped[h->ndropped++] = pkt;
}

/* A plain config: thresholds in packets, Wlog 0 (average = qlen before the
 * arrival), max_P 0.5, no idle table. */
static inline struct choke_config tcfg(uint32_t limit, uint32_t min,
				       uint32_t max, uint8_t flags)
{
	struct choke_config c;

	memset(&c, 0, sizeof(c));
	c.limit = limit;
	c.qth_min = min;
	c.qth_max = max;
	c.Wlog = 0;
	c.Plog = 1;
	c.max_P = 0x80000000u;
	c.flags = flags;
	c.kind = CHOKE_KIND_CHOKE;
	return c;
}

static inline int thost_init(struct thost *h, const struct choke_config *c)
{
	struct choke_ops ops = { trand_next, tpkt_same, NULL };
	int err;

	memset(h, 0, sizeof(*h));
	h->ring = malloc(choke_ring_bytes(c->limit));
	err = choke_init(&h->q, c, h->ring, choke_ring_bytes(c->limit));
	ops.ctx = &h->rnd;
	choke_set_ops(&h->q, &ops);
	trand_init(&h->rnd, 1);
	return err;
}

static inline void thost_free(struct thost *h)
{
	free(h->ring);
	h->ring = NULL;
}

static inline int thost_enq(struct thost *h, struct tpkt *p, uint32_t len,
			    unsigned flags, uint64_t now)
{
	return choke_enqueue(&h->q, p, len, p->key % 7u, flags, now, &h->v);
}

/* change, allocating a new ring when needed */
static inline int thost_change(struct thost *h, const struct choke_config *c)
{
	void *nr = NULL, *old = NULL;
	int err;

	if (choke_change_needs_ring(&h->q, c->limit))
		nr = malloc(choke_ring_bytes(c->limit));
	err = choke_change(&h->q, c, nr, nr ? choke_ring_bytes(c->limit) : 0,
			   &old, thost_drop, h);
	if (err) {
		free(nr);
		return err;
	}
	if (old) {
		free(old);
		h->ring = nr;
	}
	return 0;
}

#endif
