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
	uint8_t *map;
	size_t map_len;
	uint32_t block_size, nblocks, next_block;
};

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
 * transmissions bypass the interface's qdisc). On failure returns -1 with
 * a message in err. */
int afp_rx_open(struct afp_rx *rx, const char *ifname, uint32_t block_size,
		uint32_t nblocks, char *err, size_t errlen);
int afp_tx_open(struct afp_tx *tx, const char *ifname, uint32_t frame_size,
		uint32_t nframes, char *err, size_t errlen);
void afp_rx_close(struct afp_rx *rx);
void afp_tx_close(struct afp_tx *tx);

/* The next block the kernel has filled, or NULL. Walk its frames with
 * afp_block_frames / afp_frame_next, then afp_rx_release it. */
struct tpacket_block_desc *afp_rx_block(struct afp_rx *rx);
void afp_rx_release(struct afp_rx *rx, struct tpacket_block_desc *b);

/* Frames in a block: first frame header, its data and length. */
uint32_t afp_block_nframes(const struct tpacket_block_desc *b);
struct tpacket3_hdr *afp_block_first(struct tpacket_block_desc *b);
struct tpacket3_hdr *afp_frame_next(struct tpacket3_hdr *h);
static inline uint8_t *afp_frame_data(struct tpacket3_hdr *h)
{
	return (uint8_t *)h + h->tp_mac;
}

/* Copy a frame into the next free transmit slot; 0, or -1 if the ring is
 * full (nothing written). */
int afp_tx_put(struct afp_tx *tx, const uint8_t *frame, uint32_t len);
/* Free transmit slots now. */
uint32_t afp_tx_free_slots(struct afp_tx *tx);
/* Hand the filled slots to the kernel: one send(). Returns 0, or -errno. */
int afp_tx_flush(struct afp_tx *tx);

/* The kernel's count of frames the receive ring had no room for, since the
 * last call (PACKET_STATISTICS). */
uint64_t afp_rx_kernel_drops(struct afp_rx *rx);

#endif
