/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * AF_PACKET rings in ordinary memory, for driving the bridge's data path
 * without sockets or root: the test plays the kernel's part (fills receive
 * slots and marks them TP_STATUS_USER; takes the transmit slots the bridge
 * marked TP_STATUS_SEND_REQUEST and hands them back). The afp_* ring code
 * runs unchanged on them; its send()s and getsockopt()s on fd -1 fail and
 * are ignored, as a failed send() is on a live ring.
 */
#ifndef CHOKE_TEST_FAKERING_H
#define CHOKE_TEST_FAKERING_H

#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../src/bridge/afp.h"

#define FAKE_FRAME_SIZE 2048u

static inline void fake_rx_init(struct afp_rx *rx, uint32_t nframes)
{
	memset(rx, 0, sizeof(*rx));
	rx->fd = -1;
	rx->version = TPACKET_V2;
	rx->frame_size = FAKE_FRAME_SIZE;
	rx->nframes = nframes;
	rx->map_len = (size_t)nframes * FAKE_FRAME_SIZE;
	rx->map = calloc(1, rx->map_len);
}

/* The kernel's side: place a frame in the next free slot (0), or -1 if the
 * ring is full. */
static inline int fake_rx_push(struct afp_rx *rx, uint32_t *kernel_next,
			       const uint8_t *frame, uint32_t len, uint32_t status)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)(rx->map +
		(size_t)*kernel_next * rx->frame_size);
	uint32_t mac = TPACKET_ALIGN(sizeof(*h)) + 16;

	if (h->tp_status & TP_STATUS_USER)
		return -1;
	memcpy((uint8_t *)h + mac, frame, len);
	h->tp_mac = (uint16_t)mac;
	h->tp_snaplen = len;
	h->tp_len = len;
	h->tp_status = TP_STATUS_USER | status;
	*kernel_next = (*kernel_next + 1) % rx->nframes;
	return 0;
}

static inline void fake_tx_init(struct afp_tx *tx, uint32_t nframes)
{
	memset(tx, 0, sizeof(*tx));
	tx->fd = -1;
	tx->frame_size = FAKE_FRAME_SIZE;
	tx->nframes = nframes;
	tx->map_len = (size_t)nframes * FAKE_FRAME_SIZE;
	tx->map = calloc(1, tx->map_len);
	tx->max_len = FAKE_FRAME_SIZE - (uint32_t)(TPACKET2_HDRLEN - sizeof(struct sockaddr_ll));
}

/* The kernel's side: every slot requested for sending goes out, in ring
 * order from *kernel_next; each frame is passed to sent() (may be NULL).
 * Returns the number of frames. */
static inline uint32_t fake_tx_complete(struct afp_tx *tx, uint32_t *kernel_next,
					void (*sent)(void *ctx, const uint8_t *f, uint32_t len),
					void *ctx)
{
	uint32_t n = 0;

	for (;;) {
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)(tx->map +
			(size_t)*kernel_next * tx->frame_size);

		if (h->tp_status != TP_STATUS_SEND_REQUEST)
			return n;
		if (sent)
			sent(ctx, (uint8_t *)h + TPACKET2_HDRLEN - sizeof(struct sockaddr_ll),
			     h->tp_len);
		h->tp_status = TP_STATUS_AVAILABLE;
		*kernel_next = (*kernel_next + 1) % tx->nframes;
		n++;
	}
}

#endif
