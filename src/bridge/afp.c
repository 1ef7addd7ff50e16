/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* AF_PACKET rings: see afp.h. */
#include "afp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static int sock_err(char *err, size_t len, const char *what, const char *ifname)
{
	int e = errno;

	if (e == EPERM || e == EACCES)
		snprintf(err, len, "%s on %s: %s (needs CAP_NET_RAW and CAP_NET_ADMIN: "
			 "run as root)", what, ifname, strerror(e));
	else
		snprintf(err, len, "%s on %s: %s", what, ifname, strerror(e));
	errno = e; /* for the caller to tell a vanished interface (ENODEV) */
	return -1;
}

/* socket, version, options common to both rings */
static int open_sock(const char *ifname, int version, int *ifindex, char *err,
		     size_t errlen)
{
	int fd, one = 1;

	*ifindex = (int)if_nametoindex(ifname);
	if (!*ifindex) {
		snprintf(err, errlen, "no such interface: %s", ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0); /* bound to a protocol below */
	if (fd < 0)
		return sock_err(err, errlen, "AF_PACKET socket", ifname);
	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version))) {
		sock_err(err, errlen, "PACKET_VERSION", ifname);
		close(fd);
		return -1;
	}
	/* never see our own transmissions (nor the host's) as arrivals */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	return fd;
}

static int bind_if(int fd, int ifindex, int proto, const char *ifname, char *err,
		   size_t errlen)
{
	struct sockaddr_ll sll;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = (uint16_t)htons((uint16_t)proto);
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return sock_err(err, errlen, "bind", ifname);
	return 0;
}

static int promisc(int fd, int ifindex, int add)
{
	struct packet_mreq mr;

	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	return setsockopt(fd, SOL_PACKET, add ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP,
			  &mr, sizeof(mr));
}

int afp_rx_open(struct afp_rx *rx, const char *ifname, int version,
		uint32_t ring_bytes, uint32_t frame_size, char *err, size_t errlen)
{
	int r;

	memset(rx, 0, sizeof(*rx));
	rx->version = version;
	rx->fd = open_sock(ifname, version, &rx->ifindex, err, errlen);
	if (rx->fd < 0)
		return -1;
	if (version == TPACKET_V3) {
		struct tpacket_req3 req;

		memset(&req, 0, sizeof(req));
		req.tp_block_size = 1u << 18;
		req.tp_block_nr = ring_bytes / req.tp_block_size;
		req.tp_frame_size = frame_size; /* V3 packs frames; this bounds the count */
		req.tp_frame_nr = req.tp_block_size / frame_size * req.tp_block_nr;
		req.tp_retire_blk_tov = 1; /* ms: a partly filled block waits this */
		r = setsockopt(rx->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req));
		rx->block_size = req.tp_block_size;
		rx->nblocks = req.tp_block_nr;
		rx->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	} else {
		struct tpacket_req req;

		memset(&req, 0, sizeof(req));
		req.tp_block_size = frame_size * 64;
		req.tp_frame_size = frame_size;
		req.tp_block_nr = ring_bytes / req.tp_block_size;
		req.tp_frame_nr = req.tp_block_nr * 64;
		r = setsockopt(rx->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req));
		rx->frame_size = frame_size;
		rx->nframes = req.tp_frame_nr;
		rx->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	}
	if (r) {
		sock_err(err, errlen, "PACKET_RX_RING", ifname);
		goto fail;
	}
	rx->map = mmap(NULL, rx->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED,
		       rx->fd, 0);
	if (rx->map == MAP_FAILED)
		rx->map = mmap(NULL, rx->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       rx->fd, 0);
	if (rx->map == MAP_FAILED) {
		rx->map = NULL;
		sock_err(err, errlen, "mmap of the receive ring", ifname);
		goto fail;
	}
	if (promisc(rx->fd, rx->ifindex, 1)) {
		sock_err(err, errlen, "promiscuous mode", ifname);
		goto fail;
	}
	if (bind_if(rx->fd, rx->ifindex, ETH_P_ALL, ifname, err, errlen))
		goto fail;
	afp_rx_kernel_drops(rx); /* start the count at zero */
	return 0;
fail:
	afp_rx_close(rx);
	return -1;
}

int afp_tx_open(struct afp_tx *tx, const char *ifname, uint32_t frame_size,
		uint32_t nframes, char *err, size_t errlen)
{
	struct tpacket_req req;
	int one = 1;

	memset(tx, 0, sizeof(*tx));
	tx->fd = open_sock(ifname, TPACKET_V2, &tx->ifindex, err, errlen);
	if (tx->fd < 0)
		return -1;
	/* our queue is the qdisc: skip the interface's own */
	setsockopt(tx->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	/* a frame the kernel refuses is marked and skipped, not retried */
	setsockopt(tx->fd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one));
	memset(&req, 0, sizeof(req));
	req.tp_block_size = frame_size * 64;
	req.tp_frame_size = frame_size;
	req.tp_block_nr = (nframes + 63) / 64;
	req.tp_frame_nr = req.tp_block_nr * 64;
	if (setsockopt(tx->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req))) {
		sock_err(err, errlen, "PACKET_TX_RING", ifname);
		goto fail;
	}
	tx->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	tx->map = mmap(NULL, tx->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, tx->fd, 0);
	if (tx->map == MAP_FAILED) {
		tx->map = NULL;
		sock_err(err, errlen, "mmap of the transmit ring", ifname);
		goto fail;
	}
	tx->frame_size = frame_size;
	tx->nframes = req.tp_frame_nr;
	tx->max_len = frame_size - (uint32_t)(TPACKET2_HDRLEN - sizeof(struct sockaddr_ll));
	/* protocol 0: this socket only sends */
	if (bind_if(tx->fd, tx->ifindex, 0, ifname, err, errlen))
		goto fail;
	return 0;
fail:
	afp_tx_close(tx);
	return -1;
}

int afp_rx_rebind(struct afp_rx *rx, const char *ifname, int ifindex, char *err,
		  size_t errlen)
{
	/* the kernel dropped the membership of a deleted interface; one that
	 * was renamed and is still there is no longer ours */
	promisc(rx->fd, rx->ifindex, 0);
	rx->ifindex = ifindex;
	if (bind_if(rx->fd, ifindex, ETH_P_ALL, ifname, err, errlen))
		return -1;
	if (promisc(rx->fd, ifindex, 1))
		return sock_err(err, errlen, "promiscuous mode", ifname);
	afp_sock_error(rx->fd); /* bound to an interface still down: not an error */
	return 0;
}

int afp_tx_rebind(struct afp_tx *tx, const char *ifname, int ifindex, char *err,
		  size_t errlen)
{
	tx->ifindex = ifindex;
	if (bind_if(tx->fd, ifindex, 0, ifname, err, errlen))
		return -1;
	afp_sock_error(tx->fd);
	return 0;
}

int afp_sock_error(int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len))
		return 0;
	return e;
}

void afp_rx_close(struct afp_rx *rx)
{
	if (rx->map)
		munmap(rx->map, rx->map_len);
	if (rx->fd >= 0)
		close(rx->fd);
	rx->map = NULL;
	rx->fd = -1;
}

void afp_tx_close(struct afp_tx *tx)
{
	if (tx->map)
		munmap(tx->map, tx->map_len);
	if (tx->fd >= 0)
		close(tx->fd);
	tx->map = NULL;
	tx->fd = -1;
}

uint32_t afp_rx_batch_max(const struct afp_rx *rx)
{
	/* a V3 frame takes at least its header and a minimal Ethernet frame */
	return rx->version == TPACKET_V3 ? rx->block_size / 96 : 256;
}

uint32_t afp_rx_batch(struct afp_rx *rx, struct afp_frame *out, uint32_t max)
{
	uint32_t n = 0;

	if (rx->version == TPACKET_V3) {
		struct tpacket_block_desc *b = (struct tpacket_block_desc *)(
			rx->map + (size_t)rx->next_block * rx->block_size);
		struct tpacket3_hdr *h;
		uint32_t i, nf;

		if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			return 0;
		rx->cur_block = b;
		rx->next_block = (rx->next_block + 1) % rx->nblocks;
		nf = b->hdr.bh1.num_pkts;
		h = (struct tpacket3_hdr *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
		for (i = 0; i < nf && n < max; i++) {
			out[n].data = (uint8_t *)h + h->tp_mac;
			out[n].len = h->tp_snaplen;
			out[n].status = h->tp_status |
					(h->tp_len > h->tp_snaplen ? AFP_TRUNCATED : 0);
			n++;
			h = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
		}
		return n;
	}
	while (n < max) {
		uint32_t i = (rx->next_frame + n) % rx->nframes;
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)(rx->map +
								 (size_t)i * rx->frame_size);
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);

		if (!(st & TP_STATUS_USER))
			break;
		out[n].data = (uint8_t *)h + h->tp_mac;
		out[n].len = h->tp_snaplen;
		out[n].status = st | (h->tp_len > h->tp_snaplen ? AFP_TRUNCATED : 0);
		n++;
	}
	rx->batch_frames = n;
	return n;
}

void afp_rx_done(struct afp_rx *rx)
{
	uint32_t k;

	if (rx->version == TPACKET_V3) {
		if (rx->cur_block)
			__atomic_store_n(&rx->cur_block->hdr.bh1.block_status, TP_STATUS_KERNEL,
					 __ATOMIC_RELEASE);
		rx->cur_block = NULL;
		return;
	}
	for (k = 0; k < rx->batch_frames; k++) {
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)(
			rx->map + (size_t)rx->next_frame * rx->frame_size);

		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		rx->next_frame = (rx->next_frame + 1) % rx->nframes;
	}
	rx->batch_frames = 0;
}

static struct tpacket2_hdr *tx_slot(struct afp_tx *tx, uint32_t i)
{
	return (struct tpacket2_hdr *)(tx->map + (size_t)i * tx->frame_size);
}

uint32_t afp_tx_free_slots(struct afp_tx *tx)
{
	uint32_t n = 0, i = tx->next;

	/* slots are handed back in order: count from next until a busy one */
	while (n < tx->nframes) {
		uint32_t st = __atomic_load_n(&tx_slot(tx, i)->tp_status, __ATOMIC_ACQUIRE);

		if (st != TP_STATUS_AVAILABLE && !(st & TP_STATUS_WRONG_FORMAT))
			break;
		n++;
		i = (i + 1) % tx->nframes;
		if (n >= 256)
			break; /* enough for a batch; no need to scan the ring */
	}
	return n;
}

int afp_tx_put(struct afp_tx *tx, const uint8_t *frame, uint32_t len)
{
	struct tpacket2_hdr *h = tx_slot(tx, tx->next);
	uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);

	if (len > tx->max_len)
		return -1;
	if (st != TP_STATUS_AVAILABLE && !(st & TP_STATUS_WRONG_FORMAT))
		return -1;
	memcpy((uint8_t *)h + TPACKET2_HDRLEN - sizeof(struct sockaddr_ll), frame, len);
	h->tp_len = len;
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
	tx->next = (tx->next + 1) % tx->nframes;
	tx->pending++;
	return 0;
}

int afp_tx_kick(struct afp_tx *tx)
{
	tx->pending = 1;
	return afp_tx_flush(tx);
}

int afp_tx_flush(struct afp_tx *tx)
{
	if (!tx->pending)
		return 0;
	tx->pending = 0;
	if (send(tx->fd, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN &&
	    errno != ENOBUFS)
		return -errno;
	return 0;
}

uint64_t afp_rx_kernel_drops(struct afp_rx *rx)
{
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (getsockopt(rx->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		return 0;
	return st.tp_drops;
}
