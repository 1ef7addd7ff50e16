/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke-blast: send UDP frames as fast as one core can through an AF_PACKET
 * transmit ring (for the forwarding benchmark, bench/fwd.sh).
 * Usage: choke-blast IFNAME FRAME_BYTES SECONDS DST_MAC [FLOWS [hash]]
 * Prints the number of frames handed to the interface. The ring bypasses
 * the interface's qdisc, and the kernel then picks the transmit queue by
 * the sending CPU; with `hash` it goes through the stack's own choice,
 * each flow hashed to a queue (bench/xdp-queues.sh: a multi-queue veth).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "../src/bridge/afp.h"
#include "choke/pkt.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_mac(const char *s, uint8_t *m)
{
	unsigned v[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

int main(int argc, char **argv)
{
	struct afp_tx tx;
	char err[256];
	uint8_t frames[64][1600];
	uint32_t size, flows = 100, i;
	double secs, t_end;
	uint64_t sent = 0, full = 0;

	if (argc < 5 || (argc > 6 && strcmp(argv[6], "hash"))) {
		fprintf(stderr, "usage: choke-blast IFNAME FRAME_BYTES SECONDS DST_MAC [FLOWS [hash]]\n");
		return 2;
	}
	size = (uint32_t)atoi(argv[2]);
	secs = atof(argv[3]);
	if (argc > 5)
		flows = (uint32_t)atoi(argv[5]);
	if (size < 60 || size > 1514 || secs <= 0 || !flows) {
		fprintf(stderr, "choke-blast: frame bytes 60..1514, seconds > 0, flows > 0\n");
		return 2;
	}
	memset(frames, 0, sizeof(frames));
	for (i = 0; i < 64; i++) {
		uint8_t *f = frames[i];
		uint16_t c;

		if (parse_mac(argv[4], f)) {
			fprintf(stderr, "choke-blast: bad MAC %s\n", argv[4]);
			return 2;
		}
		f[6] = 0x02;
		f[11] = 0x01;
		f[12] = 0x08; /* IPv4 */
		f[14] = 0x45;
		f[16] = (uint8_t)((size - 14) >> 8);
		f[17] = (uint8_t)(size - 14);
		f[22] = 64;
		f[23] = 17;
		f[26] = 10, f[27] = 99, f[28] = 0, f[29] = 1;
		f[30] = 10, f[31] = 99, f[32] = 0, f[33] = 2;
		c = choke_pkt_ipv4_checksum(f + 14, 20);
		f[24] = (uint8_t)(c >> 8);
		f[25] = (uint8_t)c;
		f[34] = (uint8_t)((10000 + i % flows) >> 8);
		f[35] = (uint8_t)(10000 + i % flows);
		f[36] = 0x13, f[37] = 0x89;
		f[38] = (uint8_t)((size - 34) >> 8);
		f[39] = (uint8_t)(size - 34);
	}
	if (afp_tx_open(&tx, argv[1], 2048, 4096, err, sizeof(err))) {
		fprintf(stderr, "choke-blast: %s\n", err);
		return 1;
	}
	if (argc > 6) { /* through dev_queue_xmit: its queue choice hashes the flow */
		int zero = 0;

		if (setsockopt(tx.fd, SOL_PACKET, PACKET_QDISC_BYPASS, &zero, sizeof(zero))) {
			fprintf(stderr, "choke-blast: PACKET_QDISC_BYPASS: %s\n", strerror(errno));
			return 1;
		}
	}
	t_end = now_s() + secs;
	while (now_s() < t_end) {
		uint32_t k;

		for (k = 0; k < 256; k++) {
			if (afp_tx_put(&tx, frames[sent % 64], size)) {
				full++;
				break;
			}
			sent++;
		}
		if (afp_tx_flush(&tx) < 0 && errno != ENOBUFS)
			break;
	}
	afp_tx_close(&tx);
	printf("%llu\n", (unsigned long long)sent);
	(void)full;
	return 0;
}
