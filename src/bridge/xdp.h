/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * AF_XDP sockets for the data path: one UMEM (frame memory shared with the
 * kernel) and, on each of the two interfaces, one socket per receive queue,
 * all on that UMEM. A frame received on one interface is transmitted on the
 * other from the same UMEM frame, never copied; a frame the bridge is done
 * with (sent and completed, or dropped) goes back to a free stack that
 * refills every fill ring. libxdp attaches its default XSK program to each
 * interface (it steers each queue's frames to that queue's socket) and
 * detaches it when the sockets close.
 *
 * The sockets can be closed and opened again (an interface deleted and
 * created again under the same name) while the UMEM's memory, and the
 * frames the bridge's queues hold in it, stay.
 */
#ifndef CHOKE_BRIDGE_XDP_H
#define CHOKE_BRIDGE_XDP_H

#include <stddef.h>
#include <stdint.h>

#include <xdp/xsk.h>

/* Receive (and fill) descriptors of an interface, divided among its queues
 * (deep, as AF_PACKET's 16 MB receive ring is: they ride out the moments
 * the bridge is not scheduled), and the transmit and completion ring of
 * the socket each interface sends on. */
#define XDPB_RX_RING 8192
#define XDPB_TX_RING 2048
#define XDPB_QUEUE_RING_MIN 512 /* a queue's receive and fill rings at least */
#define XDPB_MAX_QUEUES 64      /* receive queues per interface */
#define XDPB_LIMIT_MIN 4096     /* queue limit the UMEM holds at least */

/* One socket: a receive queue of an interface. Queue 0's also transmits. */
struct xdpb_port {
	struct xsk_socket *xsk;
	int fd;
	uint32_t queue;
	struct xsk_ring_cons rx, cq;
	struct xsk_ring_prod tx, fq;
	int has_tx;
	int zerocopy;
	uint32_t tx_outstanding; /* on the tx ring, not yet completed */
	uint64_t kdrops; /* the kernel's drop counters at the last look */
};

/* One interface: a socket on each of its receive queues. */
struct xdpb_link {
	const char *ifname;
	int ifindex;
	uint32_t nq;   /* receive queues, each with its socket */
	int drv_mode;  /* XDP in the driver (1) or generic, skb mode (0) */
	int zerocopy;  /* bound with XDP_ZEROCOPY (1) or XDP_COPY (0) */
	struct xdpb_port q[XDPB_MAX_QUEUES];
	uint64_t rx_frames[XDPB_MAX_QUEUES]; /* taken from each queue since the start */
};

struct xdpb {
	struct xsk_umem *umem;
	void *area;
	size_t area_len;
	uint32_t frame_size, nframes; /* frame_size: 2048 or 4096 */
	unsigned frame_shift;
	uint32_t ring; /* each queue's receive and fill ring */
	uint32_t queue_frames; /* what the bridge's queues may hold */
	uint64_t *free;  /* stack of free frame addresses */
	uint32_t nfree;
	struct xdpb_link link[2];
	int busy_poll_us; /* 0: off */
};

/* The largest frame a UMEM frame holds (a 4 KiB one, less XDP's headroom). */
#define XDPB_MAX_FRAME (4096 - 256)

/* Open the UMEM and a socket on every receive queue of if0 and of if1
 * (names kept, not copied): driver XDP with zero copy if the driver allows
 * it, else driver XDP with copies, else generic XDP. The UMEM has 2 KiB
 * frames (4 KiB if max_frame needs them), enough to fill every fill and
 * transmit ring and to hold queue_frames more (the bridge's queues).
 * busy_poll_us > 0 sets the sockets' busy polling. 0, or -1 with the
 * reason in err (anything set up is undone: no XDP program stays
 * attached). */
int xdpb_open(struct xdpb *x, const char *if0, const char *if1, uint32_t queue_frames,
	      uint32_t max_frame, int busy_poll_us, char *err, size_t errlen);
/* Close every socket (detaching the XDP programs) and free the UMEM. */
void xdpb_close(struct xdpb *x);

/* Close the sockets only: the UMEM's memory and the frames in it stay.
 * Transmissions still on a live socket's ring are pushed out first. */
void xdpb_close_sockets(struct xdpb *x);
/* After xdpb_close_sockets: every frame is free again but those a queue
 * holds (held[i] != 0 for UMEM frame i). */
void xdpb_reclaim(struct xdpb *x, const uint8_t *held);
/* Open the sockets again, on the interfaces that now have the names (as
 * xdpb_open; the queues counted again). 0, or -1 with the reason in err and
 * -errno in *errnum (-ENODEV: an interface is gone again). */
int xdpb_open_sockets(struct xdpb *x, int *errnum, char *err, size_t errlen);

/* Frame memory. */
static inline uint8_t *xdpb_data(const struct xdpb *x, uint64_t addr)
{
	return (uint8_t *)x->area + addr;
}
static inline uint32_t xdpb_index(const struct xdpb *x, uint64_t addr)
{
	return (uint32_t)(addr >> x->frame_shift);
}
static inline void xdpb_free(struct xdpb *x, uint64_t addr)
{
	x->free[x->nfree++] = addr & ~(uint64_t)(x->frame_size - 1);
}
/* The socket an interface transmits on (its queue 0's). */
static inline struct xdpb_port *xdpb_tx_port(struct xdpb_link *l)
{
	return &l->q[0];
}

/* Give free frames to a socket's fill ring (as many as fit). */
void xdpb_refill(struct xdpb *x, struct xdpb_port *p);
/* Take completed transmissions back to the free stack. */
void xdpb_complete(struct xdpb *x, struct xdpb_port *p);
/* Free slots on a socket's transmit ring. */
uint32_t xdpb_tx_room(struct xdpb *x, struct xdpb_port *p);
/* Put a frame (an address in the UMEM) on the transmit ring; 0, or -1 if the
 * ring is full. Nothing goes out before xdpb_tx_flush. */
int xdpb_tx_put(struct xdpb_port *p, uint64_t addr, uint32_t len);
/* Submit what xdpb_tx_put placed and wake the kernel; 0 or -errno. */
int xdpb_tx_flush(struct xdpb_port *p);
/* Wake the kernel's transmitter even with nothing new (after a flap). */
int xdpb_tx_kick(struct xdpb_port *p);
/* Before looking at the rx ring: drive the driver's poll when busy polling. */
void xdpb_rx_poll(const struct xdpb *x, struct xdpb_port *p);

/* Frames the kernel could not deliver to the socket (rx ring full, no free
 * frame on the fill ring, invalid) since the last call. */
uint64_t xdpb_kernel_drops(struct xdpb_port *p);

/* libxdp's XSK program left on ifname by a bridge that was killed (its
 * lock was stale): detach it. Nothing is done to any other program. The
 * number of programs detached. */
int xdpb_clear_stale(const char *ifname);

/* "driver, zero-copy", "driver, copy", "generic, copy" or "closed". */
const char *xdpb_mode_name(const struct xdpb_link *l);

#endif
