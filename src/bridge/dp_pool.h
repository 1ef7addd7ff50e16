/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Inside the bridge's data path (dataplane.c, dp_setup.c), not for its
 * users: the packet memory of a direction. With AF_PACKET, frames that stay
 * queued are copied into buffers of a pool that grows in chunks; with
 * AF_XDP the UMEM is the packet memory and a freed frame goes back to it.
 */
#ifndef CHOKE_BRIDGE_DP_POOL_H
#define CHOKE_BRIDGE_DP_POOL_H

#include "dataplane.h"

#define DP_POOL_SLACK 512 /* frames of a block beyond the queue's limit */
#define DP_XDP_BATCH 256  /* descriptors taken from an AF_XDP rx ring at once */

/* Add n buffers to the pool: 0, or -1 out of memory (nothing lost). */
int dp_pool_grow(struct dp_dir *d, uint32_t n);

/* A packet is free again: back to the pool, or its UMEM frame to AF_XDP. */
static inline void dp_pkt_put(struct dp_dir *d, struct dp_pkt *p)
{
	p->state = DP_PKT_FREE;
	if (d->backend == DP_XDP) {
		xdpb_free(d->x, p->addr); /* the UMEM frame is free again */
		return;
	}
	p->next = d->free_list;
	d->free_list = p;
}

#endif /* CHOKE_BRIDGE_DP_POOL_H */
