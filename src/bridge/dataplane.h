/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The bridge's data path: one direction of the bump in the wire. Frames
 * come from a receive ring (AF_PACKET, or an AF_XDP socket), are offered to
 * a queue of the core (or, unshaped, go straight to the transmit ring), and
 * leave through a transmit ring at the pace of a token bucket. No formatting and no system
 * calls here beyond the rings' own; the lifecycle (bridge.c) feeds it time
 * and link state, the renderers (stats.c) read its counters.
 */
#ifndef CHOKE_BRIDGE_DATAPLANE_H
#define CHOKE_BRIDGE_DATAPLANE_H

#include <stdint.h>

#include "afp.h"
#include "xdp.h"
#include "choke/core.h"
#include "choke/hh.h"
#include "choke/params.h"
#include "choke/pkt.h"

#define DP_HH_K 32 /* counters of the penalised-flows summary */

/* Queueing delay histogram: bucket 0 holds delays below 1024 ns; above,
 * eight buckets per power of two (each within 12.5% of its lower edge) up
 * to 2^41 ns (36 minutes), the last bucket holding everything longer. The
 * quantiles are taken over the last DP_DELAY_WINDOW one-second histograms. */
#define DP_DELAY_SUB 8
#define DP_DELAY_BUCKETS (1 + (41 - 10) * DP_DELAY_SUB)
#define DP_DELAY_WINDOW 10

enum { DP_PKT_FREE, DP_PKT_QUEUED };

/* Where frames come from and go to. */
enum dp_backend { DP_AFPACKET, DP_XDP };

/* A frame held by the queue. With AF_PACKET one of a pool; with AF_XDP the
 * one entry of the direction's table that belongs to the frame's UMEM frame
 * (index addr / frame size): the pointer the core holds names the address. */
struct dp_pkt {
	uint8_t *buf;  /* our copy (AF_PACKET) */
	uint8_t *data; /* the frame: in the receive ring, buf, or the UMEM */
	uint64_t addr; /* its UMEM address (AF_XDP) */
	uint32_t len;
	uint8_t state;
	uint64_t t_in;
	struct choke_flow_key key;
	struct choke_pkt_info info;
	struct dp_pkt *next;
};

/* Everything one direction counts (the queue's own counters are the
 * core's struct choke_stats). */
struct dp_counters {
	uint64_t rx_frames, rx_bytes, tx_frames, tx_bytes;
	uint64_t drop_ring_full, drop_oversize, drop_reconfig, rx_ring_drops;
	uint64_t copies;      /* frames copied out of the receive ring */
	uint64_t csum_filled; /* checksums a local sender left to the hardware */
	uint64_t direct;      /* frames sent straight from the receive ring */
	double delay_avg_ns;  /* EWMA of queueing delay, 1/64 */
	uint64_t delay_max_ns, delay_last_ns;
	uint64_t delay_sum_ns; /* of every frame sent from the queue */
};

struct dp_config {
	const char *in, *out;  /* interface names (kept, not copied) */
	int shaped;            /* through a queue, or straight across */
	uint32_t max_frame;    /* largest frame either side's MTU allows */
	uint64_t rate_bps;     /* 0: no shaping */
	uint64_t burst_bytes;  /* 0: 2 ms of the rate */
	const struct choke_params *q; /* the discipline (shaped only) */
	uint64_t seed;
	unsigned index;        /* 0 or 1: seeds differ per direction */
};

struct dp_dir {
	const char *in, *out;
	enum dp_backend backend;
	struct afp_rx rx;
	struct afp_tx tx;
	struct xdpb *x;          /* AF_XDP: the UMEM and the sockets */
	struct xdpb_link *xin, *xout; /* AF_XDP: the interfaces' sockets */
	struct dp_pkt *umeta;    /* AF_XDP, shaped: one per UMEM frame */
	uint32_t umem_limit;     /* AF_XDP: the largest limit the UMEM holds */
	int shaped, out_up;
	uint32_t max_frame;
	uint32_t out_max;        /* the largest frame the output takes now */
	int link_err;            /* a send found the output gone (ENXIO, ENODEV,
				  * ENETDOWN): the lifecycle looks at it */
	/* the queue */
	struct choke q;
	void *ring;
	struct choke_params prm;
	struct dp_pkt *free_list;
	struct dp_pkt **chunks;
	uint32_t nchunks, npkts;
	struct dp_pkt **inring; /* admitted this batch, still in the ring */
	uint32_t ninring, inring_cap;
	struct afp_frame *batch;
	uint64_t flow_seed;
	/* token bucket, in nanoseconds of transmission time */
	uint64_t rate_bps, burst_ns, last_ns;
	int64_t budget_ns;
	/* who is penalised: matched drops by flow, and each counter's key */
	struct choke_hh hh;
	struct choke_flow_key hh_key[DP_HH_K];
	/* accounting */
	struct dp_counters st;
	uint32_t delay_hist[DP_DELAY_WINDOW][DP_DELAY_BUCKETS]; /* per second */
	unsigned delay_cur;  /* the second being filled */
	uint64_t rate_t, rate_rx_bytes, rate_tx_bytes;
	double rate_in_bps, rate_out_bps;
};

/* Open a direction: a receive ring on cfg->in (TPACKET_V2 or V3, rx_version)
 * and a transmit ring on cfg->out, then dp_init. 0, or -1 with a message
 * (dp_close frees what was set up). */
int dp_open(struct dp_dir *d, const struct dp_config *cfg, int rx_version,
	    uint64_t now, char *err, size_t errlen);

/* The same on AF_XDP sockets: receive on x->link[in], send on
 * x->link[1 - in]; umem_limit is the largest queue limit the UMEM was sized
 * for (dp_reconfigure refuses more). 0, or -1 with a message. */
int dp_open_xdp(struct dp_dir *d, const struct dp_config *cfg, struct xdpb *x, int in,
		uint32_t umem_limit, uint64_t now, char *err, size_t errlen);

/* The descriptors to wait on for arrivals (one per receive queue with
 * AF_XDP), at most max of them into fds; how many. */
int dp_rx_fds(const struct dp_dir *d, int *fds, int max);

/* Frames the kernel dropped before the receive ring since the last call. */
uint64_t dp_kernel_drops(struct dp_dir *d);

/* Set up everything but the rings, which the caller has opened in d->rx and
 * d->tx (the data path tests pass rings in memory). now starts the clocks.
 * 0, or -1 with a message. */
int dp_init(struct dp_dir *d, const struct dp_config *cfg, uint64_t now,
	    char *err, size_t errlen);

/* Close the rings (if open) and free the queue. */
void dp_close(struct dp_dir *d);

/* Drain the receive ring: each batch's frames are offered to the queue (or
 * sent on, unshaped), the queue is served, and frames still queued are
 * copied out before the batch goes back to the kernel. */
void dp_receive(struct dp_dir *d, uint64_t now);

/* Send from the queue while the token bucket and the transmit ring allow. */
void dp_transmit(struct dp_dir *d, uint64_t now);

/* Nanoseconds until the head frame may leave, 0 if now, -1 if none waits. */
int64_t dp_wait_ns(struct dp_dir *d, uint64_t now);

/* Once a second: rates in and out over the interval, the kernel's
 * receive-ring drops, the delay histograms' window moves on. */
void dp_tick(struct dp_dir *d, uint64_t now);

/* The output link went down (the queue is held) or came back. */
static inline void dp_set_link(struct dp_dir *d, int up)
{
	d->out_up = up;
}

/* AF_XDP: mark in held[] (one byte per UMEM frame) the frames the queue
 * holds, which must stay when the sockets are opened again. */
void dp_xdp_held(const struct dp_dir *d, uint8_t *held);

/* Change the discipline in place (the core's change: the queue keeps its
 * frames in order; frames beyond a smaller limit are dropped and counted).
 * Does nothing to an unshaped direction. 0, or -1 with a message (nothing
 * changed). */
int dp_reconfigure(struct dp_dir *d, const struct choke_params *p, char *err,
		   size_t errlen);

/* Queueing delay below which a fraction q (0 < q <= 1) of the frames sent
 * in the last DP_DELAY_WINDOW seconds left, in ns (the upper edge of its
 * histogram bucket); 0 if none was sent. */
uint64_t dp_delay_quantile(const struct dp_dir *d, double q);

/* Frames sent from the queue (all time). */
static inline uint64_t dp_delay_count(const struct dp_dir *d)
{
	return d->shaped ? d->st.tx_frames : 0;
}

#endif
