/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The bridge's data path, setting up and changing a direction (see
 * dataplane.h): its rings and packet memory, the queue and the summary,
 * the per-second housekeeping and a reconfiguration. The forwarding itself
 * is dataplane.c. */
#include "dataplane.h"
#include "dp_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RX_RING_BYTES (16u << 20)
#define TX_FRAMES 1024

/* ---- packet memory ---- */

int dp_pool_grow(struct dp_dir *d, uint32_t n)
{
	struct dp_pkt *chunk = calloc(n, sizeof(*chunk));
	uint8_t *bufs = malloc((size_t)n * d->max_frame);
	struct dp_pkt **nc = realloc(d->chunks, (d->nchunks + 2) * sizeof(*nc));
	uint32_t i;

	if (!chunk || !bufs || !nc) {
		free(chunk);
		free(bufs);
		if (nc)
			d->chunks = nc;
		return -1;
	}
	/* touched now, so that the data path never takes a page fault on
	 * them (and the bridge's memory does not creep up as the queue first
	 * reaches new depths) */
	memset(bufs, 0, (size_t)n * d->max_frame);
	d->chunks = nc;
	d->chunks[d->nchunks++] = chunk;
	d->chunks[d->nchunks] = NULL;
	for (i = 0; i < n; i++) {
		chunk[i].buf = bufs + (size_t)i * d->max_frame;
		chunk[i].next = d->free_list;
		d->free_list = &chunk[i];
	}
	d->npkts += n;
	return 0;
}

static bool same_flow_cb(void *ctx, const void *a, const void *b)
{
	(void)ctx;
	return choke_flow_key_equal(&((const struct dp_pkt *)a)->key,
			      &((const struct dp_pkt *)b)->key);
}

static void reconfig_drop_cb(void *ctx, void *pkt, uint32_t len)
{
	struct dp_dir *d = (struct dp_dir *)ctx;

	(void)len;
	d->st.drop_reconfig++;
	dp_pkt_put(d, (struct dp_pkt *)pkt);
}

/* ---- setting up ---- */

int dp_open(struct dp_dir *d, const struct dp_config *cfg, int rx_version,
	    uint64_t now, char *err, size_t errlen)
{
	uint32_t slot;

	memset(d, 0, sizeof(*d));
	d->rx.fd = d->tx.fd = -1;
	for (slot = 256; slot < cfg->max_frame + 64; slot <<= 1)
		;
	if (afp_rx_open(&d->rx, cfg->in, rx_version, RX_RING_BYTES, slot, err, errlen))
		return -1;
	if (afp_tx_open(&d->tx, cfg->out, slot, TX_FRAMES, err, errlen))
		return -1;
	return dp_init(d, cfg, now, err, errlen);
}

int dp_open_xdp(struct dp_dir *d, const struct dp_config *cfg, struct xdpb *x, int in,
		uint32_t umem_limit, uint64_t now, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->rx.fd = d->tx.fd = -1;
	d->backend = DP_XDP;
	d->x = x;
	d->xin = &x->link[in];
	d->xout = &x->link[1 - in];
	d->umem_limit = umem_limit;
	if (cfg->max_frame > XDPB_MAX_FRAME) {
		snprintf(err, errlen, "--backend xdp forwards frames of up to %u bytes (an "
			 "MTU of %u); %s or %s has a larger MTU", (unsigned)XDPB_MAX_FRAME,
			 (unsigned)XDPB_MAX_FRAME - 26, cfg->in, cfg->out);
		return -1;
	}
	if (cfg->shaped && cfg->q->cfg.limit > umem_limit) {
		snprintf(err, errlen, "limit %u is more than the UMEM was sized for (%u)",
			 cfg->q->cfg.limit, umem_limit);
		return -1;
	}
	return dp_init(d, cfg, now, err, errlen);
}

int dp_init(struct dp_dir *d, const struct dp_config *cfg, uint64_t now,
	    char *err, size_t errlen)
{
	void *mem;

	d->in = cfg->in;
	d->out = cfg->out;
	d->shaped = cfg->shaped;
	d->max_frame = cfg->max_frame;
	d->out_max = cfg->max_frame;
	d->out_up = 1;
	d->rate_t = d->last_ns = now;
	d->flow_seed = cfg->seed * 0x9E3779B97F4A7C15ull + cfg->index + 1;
	d->inring_cap = d->backend == DP_XDP ? DP_XDP_BATCH : afp_rx_batch_max(&d->rx);
	d->inring = calloc(d->inring_cap, sizeof(*d->inring));
	d->batch = calloc(d->inring_cap, sizeof(*d->batch));
	if (!d->inring || !d->batch) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!d->shaped)
		return 0;
	d->prm = *cfg->q;
	d->rate_bps = cfg->rate_bps;
	if (d->rate_bps) {
		uint64_t two_frames = choke_tx_ns(2 * d->max_frame, d->rate_bps);

		d->burst_ns = cfg->burst_bytes ? choke_tx_ns((uint32_t)cfg->burst_bytes, d->rate_bps)
					       : 2000000; /* 2 ms of the rate */
		if (d->burst_ns < two_frames)
			d->burst_ns = two_frames;
		d->budget_ns = (int64_t)d->burst_ns;
	}
	d->ring = malloc(choke_ring_bytes(d->prm.cfg.limit));
	if (!d->ring || choke_init(&d->q, &d->prm.cfg, d->ring,
				   choke_ring_bytes(d->prm.cfg.limit))) {
		snprintf(err, errlen, "cannot set up the queue");
		return -1;
	}
	{
		struct choke_ops ops = { NULL, same_flow_cb, d };

		choke_set_ops(&d->q, &ops);
	}
	choke_seed(&d->q, cfg->seed + cfg->index);
	mem = malloc(choke_hh_bytes(DP_HH_K));
	if (!mem || choke_hh_init(&d->hh, DP_HH_K, mem, choke_hh_bytes(DP_HH_K), cfg->seed)) {
		free(mem);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (d->backend == DP_XDP) {
		/* the UMEM is the packet memory: a table entry per frame */
		size_t bytes = (size_t)d->x->nframes * sizeof(*d->umeta), off;

		d->umeta = calloc(d->x->nframes, sizeof(*d->umeta));
		if (!d->umeta) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		/* a large calloc is fresh zero pages, each first written
		 * when its frames first come round the free list: touched
		 * now, as the AF_PACKET pool is, so that the data path takes
		 * no page fault on them and the bridge's memory does not
		 * creep up over its first seconds (a volatile store: the
		 * compiler may not drop it as redundant) */
		for (off = 0; off < bytes; off += 4096)
			((volatile uint8_t *)d->umeta)[off] = 0;
	} else if (dp_pool_grow(d, d->prm.cfg.limit + DP_POOL_SLACK)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void dp_close(struct dp_dir *d)
{
	uint32_t i;

	afp_rx_close(&d->rx);
	afp_tx_close(&d->tx);
	free(d->ring);
	for (i = 0; i < d->nchunks; i++) {
		free(d->chunks[i][0].buf);
		free(d->chunks[i]);
	}
	free(d->chunks);
	free(d->inring);
	free(d->batch);
	free(d->umeta);
	d->umeta = NULL;
	if (d->shaped)
		free(d->hh.e);
	d->ring = NULL;
	d->chunks = NULL;
	d->inring = NULL;
	d->batch = NULL;
	d->nchunks = 0;
	d->shaped = 0;
}

void dp_xdp_held(const struct dp_dir *d, uint8_t *held)
{
	uint32_t i;

	if (d->backend != DP_XDP || !d->umeta)
		return;
	for (i = 0; i < d->x->nframes; i++)
		if (d->umeta[i].state == DP_PKT_QUEUED)
			held[i] = 1;
}

/* ---- housekeeping and change ---- */

void dp_tick(struct dp_dir *d, uint64_t now)
{
	double dt = (double)(now - d->rate_t) * 1e-9;

	d->st.rx_ring_drops += dp_kernel_drops(d);
	if (dt > 0) {
		d->rate_in_bps = (double)(d->st.rx_bytes - d->rate_rx_bytes) * 8 / dt;
		d->rate_out_bps = (double)(d->st.tx_bytes - d->rate_tx_bytes) * 8 / dt;
	}
	d->rate_t = now;
	d->rate_rx_bytes = d->st.rx_bytes;
	d->rate_tx_bytes = d->st.tx_bytes;
	d->delay_cur = (d->delay_cur + 1) % DP_DELAY_WINDOW;
	memset(d->delay_hist[d->delay_cur], 0, sizeof(d->delay_hist[0]));
}

int dp_reconfigure(struct dp_dir *d, const struct choke_params *p, char *err,
		   size_t errlen)
{
	void *nr = NULL, *old = NULL;

	if (!d->shaped)
		return 0;
	if (d->backend == DP_XDP && p->cfg.limit > d->umem_limit) {
		snprintf(err, errlen, "limit %u is more than the AF_XDP UMEM was sized for at "
			 "start (%u); restart the bridge to raise it", p->cfg.limit,
			 d->umem_limit);
		return -1;
	}
	if (choke_change_needs_ring(&d->q, p->cfg.limit)) {
		nr = malloc(choke_ring_bytes(p->cfg.limit));
		if (!nr) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (d->backend == DP_AFPACKET && p->cfg.limit + DP_POOL_SLACK > d->npkts &&
	    dp_pool_grow(d, p->cfg.limit + DP_POOL_SLACK - d->npkts)) {
		free(nr);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (choke_change(&d->q, &p->cfg, nr, nr ? choke_ring_bytes(p->cfg.limit) : 0,
			 &old, reconfig_drop_cb, d)) {
		free(nr);
		snprintf(err, errlen, "the queue refused the configuration");
		return -1;
	}
	if (nr) {
		free(old);
		d->ring = nr;
	}
	d->prm = *p;
	return 0;
}
