/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * AF_PACKET memory-mapped rings for the data path: a TPACKET_V3 receive
 * ring (block based: the kernel fills blocks, the host walks their frames
 * and hands each block back) and a TPACKET_V2 transmit ring (fixed slots;
 * one send() flushes every slot filled since the last).
 */
#ifndef CHOKE_BRIDGE_AFP_H
#define CHOKE_BRIDGE_AFP_H

#include <linux/if_packet.h>
#include <stddef.h>
#include <stdint.h>

struct afp_rx {
	int fd;
	int ifindex;
	int version;   /* TPACKET_V3 (blocks) or TPACKET_V2 (frames) */
	uint8_t *map;
	size_t map_len;
	uint32_t block_size, nblocks, next_block; /* V3 */
	uint32_t frame_size, nframes, next_frame;  /* V2 */
	struct tpacket_block_desc *cur_block;     /* V3: the batch's block */
	uint32_t batch_frames;                    /* V2: frames in the batch */
};

/* One received frame of a batch. */
struct afp_frame {
	uint8_t *data;
	uint32_t len;
	uint32_t status; /* TP_STATUS_* (e.g. TP_STATUS_CSUMNOTREADY), AFP_TRUNCATED */
};

/* In afp_frame.status: the frame was longer than a ring slot holds (an
 * interface whose MTU grew since the ring was made); data holds its start
 * only. Beyond the kernel's TP_STATUS_* bits. */
#define AFP_TRUNCATED (1u << 31)

struct afp_tx {
	int fd;
	int ifindex;
	uint8_t *map;
	size_t map_len;
	uint32_t frame_size, nframes, next;
	uint32_t pending; /* slots filled, not yet flushed */
	uint32_t max_len; /* largest frame a slot holds */
};

/* Open both rings on an interface (promiscuous, outgoing frames ignored,
 * transmissions bypass the interface's qdisc). version TPACKET_V3: blocks
 * of block_size bytes, handed over when full or after 1 ms (a jiffy or more
 * in practice); TPACKET_V2: frame slots of frame_size, each handed over as
 * it arrives. On failure returns -1 with a message in err. */
int afp_rx_open(struct afp_rx *rx, const char *ifname, int version,
		uint32_t ring_bytes, uint32_t frame_size, char *err, size_t errlen);
int afp_tx_open(struct afp_tx *tx, const char *ifname, uint32_t frame_size,
		uint32_t nframes, char *err, size_t errlen);
void afp_rx_close(struct afp_rx *rx);
void afp_tx_close(struct afp_tx *tx);

/* Point a ring's socket at the interface that now has ifindex (its name's
 * interface was deleted and created again): bind to it, and for the
 * receive ring set it promiscuous (and the old one not, if it is still
 * there). The rings and the frames in them stay; no capability is needed.
 * 0, or -1 with a message. */
int afp_rx_rebind(struct afp_rx *rx, const char *ifname, int ifindex, char *err,
		  size_t errlen);
int afp_tx_rebind(struct afp_tx *tx, const char *ifname, int ifindex, char *err,
		  size_t errlen);

/* The socket's pending error, cleared (the kernel sets ENETDOWN when the
 * interface goes down or away, and poll() reports POLLERR until it is
 * read); 0 if none. */
int afp_sock_error(int fd);

/* The next batch of received frames (V3: one filled block; V2: up to max
 * ready frames), 0 if none. The frames stay valid, and writable, until
 * afp_rx_done hands them back to the kernel. */
uint32_t afp_rx_batch(struct afp_rx *rx, struct afp_frame *out, uint32_t max);
void afp_rx_done(struct afp_rx *rx);
/* Frames one batch may hold at most. */
uint32_t afp_rx_batch_max(const struct afp_rx *rx);

/* Copy a frame into the next free transmit slot; 0, or -1 if the ring is
 * full (nothing written). */
int afp_tx_put(struct afp_tx *tx, const uint8_t *frame, uint32_t len);
/* Free transmit slots now. */
uint32_t afp_tx_free_slots(struct afp_tx *tx);
/* Hand the filled slots to the kernel: one send(). Returns 0, or -errno. */
int afp_tx_flush(struct afp_tx *tx);
/* send() even if nothing new was filled: slots left over from a failed
 * send (the interface was down) go out now. */
int afp_tx_kick(struct afp_tx *tx);

/* The kernel's count of frames the receive ring had no room for, since the
 * last call (PACKET_STATISTICS). */
uint64_t afp_rx_kernel_drops(struct afp_rx *rx);

#endif
