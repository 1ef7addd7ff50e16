/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The bridge's data path: see dataplane.h. Where a frame is forwarded:
 * dp_receive -> dp_frame (offered to the queue) -> dp_transmit. Setting a
 * direction up, its housekeeping and its reconfiguration: dp_setup.c. */
#include "dataplane.h"
#include "dp_pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the transmit side of either backend ---- */

static uint32_t tx_room(struct dp_dir *d)
{
	if (d->backend == DP_XDP)
		return xdpb_tx_room(d->x, xdpb_tx_port(d->xout));
	return afp_tx_free_slots(&d->tx);
}

/* Send a frame of the queue: AF_PACKET copies it into a slot, AF_XDP hands
 * its UMEM frame over. 0, or -1 if the ring is full. */
static int tx_put(struct dp_dir *d, struct dp_pkt *p)
{
	if (d->backend == DP_XDP)
		return xdpb_tx_put(xdpb_tx_port(d->xout), p->addr, p->len);
	return afp_tx_put(&d->tx, p->data, p->len);
}

/* a send's error: the output went away (unbound, no device) or down */
static void tx_error(struct dp_dir *d, int r)
{
	if (r == -ENXIO || r == -ENODEV || r == -ENETDOWN)
		d->link_err = 1;
}

static void tx_flush(struct dp_dir *d)
{
	if (d->backend == DP_XDP)
		tx_error(d, xdpb_tx_flush(xdpb_tx_port(d->xout)));
	else
		tx_error(d, afp_tx_flush(&d->tx));
}

static void tx_kick(struct dp_dir *d)
{
	if (d->backend == DP_XDP)
		tx_error(d, xdpb_tx_kick(xdpb_tx_port(d->xout)));
	else
		tx_error(d, afp_tx_kick(&d->tx));
}

int dp_rx_fds(const struct dp_dir *d, int *fds, int max)
{
	uint32_t q;
	int n = 0;

	if (d->backend != DP_XDP) {
		if (max > 0 && d->rx.fd >= 0)
			fds[n++] = d->rx.fd;
		return n;
	}
	for (q = 0; q < d->xin->nq && n < max; q++)
		if (d->xin->q[q].xsk)
			fds[n++] = d->xin->q[q].fd;
	return n;
}

uint64_t dp_kernel_drops(struct dp_dir *d)
{
	uint64_t n = 0;
	uint32_t q;

	if (d->backend != DP_XDP)
		return d->rx.fd >= 0 ? afp_rx_kernel_drops(&d->rx) : 0;
	for (q = 0; d->xin && q < d->xin->nq; q++)
		n += xdpb_kernel_drops(&d->xin->q[q]);
	return n;
}

/* ---- token bucket ---- */

static uint64_t tx_time_ns(const struct dp_dir *d, uint32_t len)
{
	return choke_tx_ns(len, d->rate_bps);
}

static void bucket_refill(struct dp_dir *d, uint64_t now)
{
	if (now > d->last_ns) {
		d->budget_ns += (int64_t)(now - d->last_ns);
		if (d->budget_ns > (int64_t)d->burst_ns)
			d->budget_ns = (int64_t)d->burst_ns;
		d->last_ns = now;
	}
}

/* ---- queueing delay ---- */

static unsigned delay_bucket(uint64_t ns)
{
	unsigned e, idx;

	if (ns < 1024)
		return 0;
	e = 63u - (unsigned)__builtin_clzll(ns);
	idx = 1 + (e - 10) * DP_DELAY_SUB +
	      (unsigned)((ns >> (e - 3)) & (DP_DELAY_SUB - 1));
	return idx < DP_DELAY_BUCKETS ? idx : DP_DELAY_BUCKETS - 1;
}

/* the upper edge of a bucket, in ns */
static uint64_t delay_bucket_top(unsigned idx)
{
	unsigned e, m;

	if (idx == 0)
		return 1024;
	e = (idx - 1) / DP_DELAY_SUB + 10;
	m = (idx - 1) % DP_DELAY_SUB;
	return (uint64_t)(DP_DELAY_SUB + m + 1) << (e - 3);
}

uint64_t dp_delay_quantile(const struct dp_dir *d, double q)
{
	uint64_t n = 0, seen = 0, want;
	unsigned w, i;

	for (w = 0; w < DP_DELAY_WINDOW; w++)
		for (i = 0; i < DP_DELAY_BUCKETS; i++)
			n += d->delay_hist[w][i];
	if (!n)
		return 0;
	want = (uint64_t)(q * (double)n + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i < DP_DELAY_BUCKETS; i++) {
		for (w = 0; w < DP_DELAY_WINDOW; w++)
			seen += d->delay_hist[w][i];
		if (seen >= want)
			return delay_bucket_top(i);
	}
	return delay_bucket_top(DP_DELAY_BUCKETS - 1);
}

static void delay_count(struct dp_dir *d, uint64_t delay)
{
	d->st.delay_last_ns = delay;
	d->st.delay_avg_ns += ((double)delay - d->st.delay_avg_ns) / 64.0;
	if (delay > d->st.delay_max_ns)
		d->st.delay_max_ns = delay;
	d->st.delay_sum_ns += delay;
	d->delay_hist[d->delay_cur][delay_bucket(delay)]++;
}

/* ---- forwarding ---- */

void dp_transmit(struct dp_dir *d, uint64_t now)
{
	uint32_t room;
	int rounds = 0;

	if (!d->shaped || !d->out_up || !choke_qlen(&d->q))
		return;
	if (d->rate_bps)
		bucket_refill(d, now);
	/* the ring is flushed (one send()) after each run of up to 256 frames */
	while (choke_qlen(&d->q) && rounds++ < 64 && (room = tx_room(d)) > 0) {
		int stop = 0;

		while (room && choke_qlen(&d->q)) {
			struct dp_pkt *p = (struct dp_pkt *)choke_peek(&d->q);
			uint64_t c = d->rate_bps ? tx_time_ns(d, p->len) : 0;
			uint32_t len;

			if (d->rate_bps && d->budget_ns < (int64_t)c) {
				stop = 1;
				break;
			}
			p = (struct dp_pkt *)choke_dequeue(&d->q, now, &len);
			if (tx_put(d, p)) {
				d->st.drop_ring_full++; /* cannot happen: room was counted */
				dp_pkt_put(d, p);
				continue;
			}
			d->budget_ns -= (int64_t)c;
			d->st.tx_frames++;
			d->st.tx_bytes += p->len;
			if (p->data != p->buf)
				d->st.direct++; /* always so with AF_XDP */
			delay_count(d, now > p->t_in ? now - p->t_in : 0);
			room--;
			if (d->backend == DP_XDP)
				p->state = DP_PKT_FREE; /* the frame returns on completion */
			else
				dp_pkt_put(d, p);
		}
		tx_flush(d);
		if (stop)
			break;
	}
}

int64_t dp_wait_ns(struct dp_dir *d, uint64_t now)
{
	struct dp_pkt *p;
	int64_t need;

	if (!d->shaped || !choke_qlen(&d->q) || !d->out_up)
		return -1;
	if (!d->rate_bps)
		return tx_room(d) ? 0 : (tx_kick(d), 200000);
	bucket_refill(d, now);
	p = (struct dp_pkt *)choke_peek(&d->q);
	need = (int64_t)tx_time_ns(d, p->len) - d->budget_ns;
	if (need <= 0 && !tx_room(d)) {
		/* the transmit ring is full: frames a failed send() left behind
		 * (a flap) go now, and we look again shortly instead of spinning */
		tx_kick(d);
		return 200000;
	}
	return need > 0 ? need : 0;
}

/* One received frame (with AF_XDP, at UMEM address addr). A frame sent by
 * a local socket (veth, containers) may still lack its TCP/UDP checksum,
 * left to an offload that does not happen on this path: fill it in. */
static void dp_frame(struct dp_dir *d, uint8_t *frame, uint32_t len, uint32_t status,
		     uint64_t addr, uint64_t now)
{
	int xdp = d->backend == DP_XDP;
	struct choke_flow_key xkey;
	struct choke_pkt_info xinfo;
	struct choke_verdict v;
	enum choke_outcome r;
	struct dp_pkt *p;
	uint32_t i, slot, flow;

	d->st.rx_frames++;
	d->st.rx_bytes += len;
	if (len > d->out_max || (status & AFP_TRUNCATED) || (!xdp && len > d->tx.max_len)) {
		d->st.drop_oversize++;
		if (xdp)
			xdpb_free(d->x, addr);
		return;
	}
	if (status & TP_STATUS_CSUMNOTREADY) {
		struct choke_flow_key key;
		struct choke_pkt_info info;

		choke_flow_key_from_frame(frame, len, CHOKE_LINK_ETHERNET, &key, &info);
		d->st.csum_filled += choke_pkt_l4_checksum_fill(frame, len, &info, key.proto);
	} else if (xdp) {
		/* AF_XDP says nothing of checksums: a local sender's frame
		 * (veth) may carry the pseudo-header's sum alone, left to an
		 * offload. The key is read once: the checksum is not part of it. */
		choke_flow_key_from_frame(frame, len, CHOKE_LINK_ETHERNET, &xkey, &xinfo);
		if (choke_pkt_l4_checksum_partial(frame, len, &xinfo, xkey.proto))
			d->st.csum_filled += choke_pkt_l4_checksum_fill(frame, len, &xinfo,
								  xkey.proto);
	}
	if (!d->shaped) {
		if (xdp ? xdpb_tx_put(xdpb_tx_port(d->xout), addr, len)
			: afp_tx_put(&d->tx, frame, len)) {
			d->st.drop_ring_full++;
			if (xdp)
				xdpb_free(d->x, addr);
		} else {
			d->st.tx_frames++;
			d->st.tx_bytes += len;
			d->st.direct++;
		}
		return;
	}
	if (xdp) {
		p = &d->umeta[xdpb_index(d->x, addr)];
		p->addr = addr;
	} else {
		p = d->free_list;
		if (!p && dp_pool_grow(d, 256) == 0)
			p = d->free_list;
		if (!p) {
			d->st.drop_ring_full++; /* out of packet memory */
			return;
		}
		d->free_list = p->next;
	}
	p->data = frame;
	p->len = len;
	p->t_in = now;
	if (xdp) {
		p->key = xkey;
		p->info = xinfo;
	} else {
		choke_flow_key_from_frame(frame, len, CHOKE_LINK_ETHERNET, &p->key, &p->info);
	}
	flow = choke_flow_key_hash(&p->key, d->flow_seed);
	r = choke_enqueue_as(&d->q, p, len, flow,
			     choke_protect_by(&d->q) ?
				     choke_flow_identity(&p->key, choke_protect_by(&d->q),
							 d->flow_seed) : flow,
			     choke_pkt_ecn_capable(&p->info) ? CHOKE_PKT_ECN_CAPABLE : 0, now, &v);
	for (i = 0; i < v.nvictims; i++)
		dp_pkt_put(d, (struct dp_pkt *)v.victim[i]);
	slot = choke_hh_add_verdict(&d->hh, flow, r, &v, NULL);
	if (slot < DP_HH_K)
		d->hh_key[slot] = p->key;
	if (choke_outcome_is_drop(r)) {
		dp_pkt_put(d, p);
		return;
	}
	if (choke_outcome_is_marked(r))
		choke_pkt_ecn_set_ce(frame, len, &p->info);
	p->state = DP_PKT_QUEUED;
	if (xdp)
		return; /* the frame stays in its UMEM frame until sent */
	if (d->ninring < d->inring_cap) {
		d->inring[d->ninring++] = p;
	} else {
		memcpy(p->buf, p->data, p->len);
		p->data = p->buf;
		d->st.copies++;
	}
}

/* AF_XDP: frames are offered where they lie in the UMEM; nothing is
 * copied, a frame is handed back to the fill rings once sent or dropped.
 * Every receive queue of the input in turn, each with its own socket. */
static void dp_receive_xdp(struct dp_dir *d, uint64_t now)
{
	struct xdpb_port *out = xdpb_tx_port(d->xout);
	uint32_t n, i, q, idx, batches;

	for (q = 0; q < d->xin->nq; q++) {
		struct xdpb_port *in = &d->xin->q[q];

		if (!in->xsk)
			continue;
		xdpb_complete(d->x, out);
		xdpb_refill(d->x, in);
		xdpb_rx_poll(d->x, in);
		batches = 0;
		while (batches < 64 &&
		       (n = xsk_ring_cons__peek(&in->rx, DP_XDP_BATCH, &idx)) > 0) {
			for (i = 0; i < n; i++) {
				const struct xdp_desc *dsc = xsk_ring_cons__rx_desc(&in->rx,
										   idx + i);

				dp_frame(d, xdpb_data(d->x, dsc->addr), dsc->len, 0, dsc->addr,
					 now);
			}
			xsk_ring_cons__release(&in->rx, n);
			d->xin->rx_frames[q] += n;
			if (d->shaped)
				dp_transmit(d, now);
			else
				tx_flush(d);
			xdpb_complete(d->x, out);
			xdpb_refill(d->x, in);
			batches++;
		}
	}
}

void dp_receive(struct dp_dir *d, uint64_t now)
{
	uint32_t n, i, batches = 0;

	if (d->backend == DP_XDP) {
		dp_receive_xdp(d, now);
		return;
	}
	while (batches < 64 && (n = afp_rx_batch(&d->rx, d->batch, d->inring_cap)) > 0) {
		d->ninring = 0;
		for (i = 0; i < n; i++) {
			dp_frame(d, d->batch[i].data, d->batch[i].len, d->batch[i].status, 0,
				 now);
			/* serve the queue as we go: a V3 block can hold more
			 * frames than the queue's limit */
			if ((i & 255) == 255 && d->shaped)
				dp_transmit(d, now);
		}
		if (d->shaped) {
			dp_transmit(d, now);
			/* frames still queued leave the ring: copy them out */
			for (i = 0; i < d->ninring; i++) {
				struct dp_pkt *p = d->inring[i];

				if (p->state == DP_PKT_QUEUED && p->data != p->buf) {
					memcpy(p->buf, p->data, p->len);
					p->data = p->buf;
					d->st.copies++;
				}
			}
			d->ninring = 0;
		} else {
			tx_flush(d);
		}
		afp_rx_done(&d->rx);
		batches++;
	}
}
