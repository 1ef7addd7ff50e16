/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * AF_XDP sockets for the data path: one UMEM (frame memory shared with the
 * kernel) and one socket per interface, both on that UMEM. A frame received
 * on one interface is transmitted on the other from the same UMEM frame,
 * never copied; a frame the bridge is done with (sent and completed, or
 * dropped) goes back to a free stack that refills both fill rings. libxdp
 * attaches its default XSK program to each interface and detaches it when
 * the sockets close.
 */
#ifndef CHOKE_BRIDGE_XDP_H
#define CHOKE_BRIDGE_XDP_H

#include <stddef.h>
#include <stdint.h>

#include <xdp/xsk.h>

/* Descriptors of each receive and fill ring (deep, as AF_PACKET's 16 MB
 * receive ring is: it rides out the moments the bridge is not scheduled),
 * and of each transmit and completion ring. */
#define XDPB_RX_RING 8192
#define XDPB_TX_RING 2048
#define XDPB_LIMIT_MIN 4096 /* queue limit the UMEM holds at least */

/* One interface: its socket, its rings, how it was attached. */
struct xdpb_port {
	const char *ifname;
	int ifindex;
	struct xsk_socket *xsk;
	int fd;
	struct xsk_ring_cons rx, cq;
	struct xsk_ring_prod tx, fq;
	int drv_mode;  /* XDP in the driver (1) or generic, skb mode (0) */
	int zerocopy;  /* bound with XDP_ZEROCOPY (1) or XDP_COPY (0) */
	uint32_t tx_outstanding; /* on the tx ring, not yet completed */
	uint64_t kdrops; /* the kernel's drop counters at the last look */
};

struct xdpb {
	struct xsk_umem *umem;
	void *area;
	size_t area_len;
	uint32_t frame_size, nframes; /* frame_size: 2048 or 4096 */
	unsigned frame_shift;
	uint64_t *free;  /* stack of free frame addresses */
	uint32_t nfree;
	struct xdpb_port port[2];
	int busy_poll_us; /* 0: off */
};

/* The largest frame a UMEM frame holds (a 4 KiB one, less XDP's headroom). */
#define XDPB_MAX_FRAME (4096 - 256)

/* Open the UMEM (nframes frames of 2 KiB, or 4 KiB if max_frame needs
 * them) and a socket on queue 0 of each of if0 and
 * if1 (names kept, not copied): driver XDP with zero copy if the driver
 * allows it, else driver XDP with copies, else generic XDP. busy_poll_us > 0
 * sets the sockets' busy polling. 0, or -1 with the reason in err (anything
 * set up is undone: no XDP program stays attached). */
int xdpb_open(struct xdpb *x, const char *if0, const char *if1, uint32_t nframes,
	      uint32_t max_frame, int busy_poll_us, char *err, size_t errlen);
/* Close both sockets (detaching the XDP programs) and free the UMEM. */
void xdpb_close(struct xdpb *x);

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

/* Give free frames to a port's fill ring (as many as fit). */
void xdpb_refill(struct xdpb *x, struct xdpb_port *p);
/* Take completed transmissions back to the free stack. */
void xdpb_complete(struct xdpb *x, struct xdpb_port *p);
/* Free slots on a port's transmit ring. */
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

/* "driver, zero-copy", "driver, copy" or "generic, copy". */
const char *xdpb_mode_name(const struct xdpb_port *p);

#endif
