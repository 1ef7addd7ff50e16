/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Test captures with known flows, written by hand (no libpcap), for
 * tests/replay.sh. Usage: mkpcap SCENARIO OUT
 *
 *   burst       flow A: 10 UDP frames of 1000 bytes at t = 0
 *   paced       flows A and B: 100 frames each, alternating every 0.5 ms
 *   many        1000 flows x 10 frames of 1000 bytes within 1 s, ECT(0)
 *   mixed       IPv4 TCP, IPv6 UDP with extension headers, VLAN, QinQ,
 *               ICMP echo, ARP: 20 frames of each kind, 1 ms apart
 *   snap64      like paced, but captured with snaplen 64
 *   pcapng      like burst, in pcapng format (nanosecond resolution)
 *   badlink     a file of link type 189 (Linux USB), which replay does not read
 *   truncated   like paced, cut in the middle of record 51
 *   reorder     like paced, with one timestamp going backwards
 *   heavy       10 s: one UDP flow at 16 Mbit/s, 20 flows at 0.2 Mbit/s
 *   zipf        30000 frames of 1000 bytes, 0.4 ms apart, from 500 flows
 *               with Zipf(1) popularity (flow f sends about 1/(f+1) as much)
 *
 * Nonsense, for what replay refuses (docs/inputs.md); each is 10 frames of
 * 1000 bytes of flow A, 1 ms apart, with record 4 (of 1..10) broken:
 *   hugelen     its original length is 4294967295
 *   shortlen    its original length is 500, below its captured 1000
 *   capover     snaplen 128, the others cut to it; its captured length is
 *               1000 (libpcap silently cuts it to 128)
 *   timejump    its timestamp is 2^30 s (34 years) later
 *   timewrap    its timestamp is 2^31 s later (negative as libpcap reads
 *               it; the file's field is unsigned)
 *   badfrac     its nanoseconds field is 1999999999
 *   bigcap      its captured length is 300000 (libpcap refuses the file)
 *   v6cut55     20 IPv6 UDP frames with a hop-by-hop header, snaplen 55:
 *               the capture ends inside the extension header
 *   v6cut62     the same with hop-by-hop and destination options, snaplen 62
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pktbuild.h"

static FILE *out;
static char tmp[4096];
static int nano = 1;
static uint32_t snaplen = 65535;

static void put32(uint32_t v) { fwrite(&v, 4, 1, out); }
static void put16(uint16_t v) { fwrite(&v, 2, 1, out); }

static void header(uint32_t linktype)
{
	put32(nano ? 0xa1b23c4d : 0xa1b2c3d4);
	put16(2);
	put16(4);
	put32(0);
	put32(0);
	put32(snaplen);
	put32(linktype);
}

static void record(uint64_t t_ns, const uint8_t *d, uint32_t len)
{
	uint32_t cap = len < snaplen ? len : snaplen;

	put32((uint32_t)(t_ns / 1000000000u));
	put32((uint32_t)(nano ? t_ns % 1000000000u : (t_ns % 1000000000u) / 1000));
	put32(cap);
	put32(len);
	fwrite(d, 1, cap, out);
}

/* a record with every field given (for the broken ones) */
static void record_raw(uint32_t sec, uint32_t frac, uint32_t cap, uint32_t len,
		       const uint8_t *d, uint32_t ndata)
{
	static const uint8_t pad[1024];

	put32(sec);
	put32(frac);
	put32(cap);
	put32(len);
	fwrite(d, 1, ndata < cap ? ndata : cap, out);
	for (; ndata < cap; ndata += (uint32_t)sizeof(pad)) /* zeros after the frame */
		fwrite(pad, 1, cap - ndata < sizeof(pad) ? cap - ndata : sizeof(pad), out);
}

/* a UDP frame of `len` bytes in all from flow `f` (10.0.0.f -> 10.0.1.1) */
static void udp_frame(struct pb *b, int f, size_t len, uint8_t ecn)
{
	char src[32];

	snprintf(src, sizeof(src), "10.0.%d.%d", f / 250, f % 250 + 1);
	pb_eth(b, 0x0800);
	pb_ipv4(b, 17, src, "10.9.9.9", 0, 0, ecn);
	pb_ports(b, (uint16_t)(10000 + f), 5001, 8);
	pb_bytes(b, len - b->len, 0x5a);
	pb_finish_ipv4(b);
}

/* ten frames of flow A, 1 ms apart, record 4 broken as `how` says */
static void broken(const char *how)
{
	struct pb b;
	uint32_t i, cap;

	if (!strcmp(how, "capover"))
		snaplen = 128;
	header(1);
	udp_frame(&b, 0, 1000, 0);
	for (i = 1; i <= 10; i++) {
		uint32_t ns = i * 1000000u, sec = 100, len = 1000;

		cap = len < snaplen ? len : snaplen;
		if (i == 4) {
			if (!strcmp(how, "hugelen"))
				len = 4294967295u;
			else if (!strcmp(how, "shortlen"))
				len = 500;
			else if (!strcmp(how, "capover"))
				cap = 1000;
			else if (!strcmp(how, "timejump"))
				sec += 1u << 30;
			else if (!strcmp(how, "timewrap"))
				sec += 1u << 31;
			else if (!strcmp(how, "badfrac"))
				ns = 1999999999u;
			else if (!strcmp(how, "bigcap"))
				cap = len = 300000;
		}
		record_raw(sec, ns, cap, len, b.d, (uint32_t)b.len);
	}
}

/* IPv6 UDP with extension headers, the capture cut inside them */
static void v6cut(uint32_t snap)
{
	static const uint8_t hop[] = { 0 }, hop_dst[] = { 0, 60 };
	struct pb b;
	int i;

	snaplen = snap;
	header(1);
	pb_eth(&b, 0x86DD);
	if (snap < 62)
		pb_ipv6(&b, "2001:db8::10", "2001:db8::20", hop, 1, 17, 0, 0);
	else
		pb_ipv6(&b, "2001:db8::10", "2001:db8::20", hop_dst, 2, 17, 0, 0);
	pb_ports(&b, 4000, 4001, 8);
	pb_bytes(&b, 300, 0);
	pb_finish_ipv6(&b);
	for (i = 0; i < 20; i++)
		record((uint64_t)i * 1000000u, b.d, (uint32_t)b.len);
}

static void paced(void)
{
	struct pb b;
	int i;

	header(1);
	for (i = 0; i < 200; i++) {
		udp_frame(&b, i % 2, 1000, 0);
		record((uint64_t)i * 500000u, b.d, (uint32_t)b.len);
	}
}

/* pcapng: section header, interface (nanosecond tsresol), enhanced packets */
static void pcapng_block(uint32_t type, const uint8_t *body, uint32_t blen)
{
	uint32_t total = 12 + ((blen + 3) & ~3u);
	static const uint8_t zero[4];

	put32(type);
	put32(total);
	fwrite(body, 1, blen, out);
	fwrite(zero, 1, ((blen + 3) & ~3u) - blen, out);
	put32(total);
}

static void pcapng(void)
{
	uint8_t body[2048];
	struct pb b;
	int i;

	/* SHB: byte-order magic, version 1.0, section length -1 */
	memset(body, 0, 16);
	memcpy(body, &(uint32_t){ 0x1A2B3C4D }, 4);
	memcpy(body + 4, &(uint16_t){ 1 }, 2);
	memset(body + 8, 0xff, 8);
	pcapng_block(0x0A0D0D0A, body, 16);
	/* IDB: linktype 1, snaplen, option if_tsresol = 9 (ns), end */
	memset(body, 0, 20);
	memcpy(body, &(uint16_t){ 1 }, 2);
	memcpy(body + 4, &(uint32_t){ 65535 }, 4);
	memcpy(body + 8, &(uint16_t){ 9 }, 2);
	memcpy(body + 10, &(uint16_t){ 1 }, 2);
	body[12] = 9;
	pcapng_block(0x00000001, body, 20);
	for (i = 0; i < 10; i++) {
		uint64_t t = 1000000000ull + 7; /* all at once, 7 ns past 1 s */

		udp_frame(&b, 0, 1000, 0);
		memset(body, 0, 20);
		memcpy(body + 4, &(uint32_t){ (uint32_t)(t >> 32) }, 4);
		memcpy(body + 8, &(uint32_t){ (uint32_t)t }, 4);
		memcpy(body + 12, &(uint32_t){ (uint32_t)b.len }, 4);
		memcpy(body + 16, &(uint32_t){ (uint32_t)b.len }, 4);
		memcpy(body + 20, b.d, b.len);
		pcapng_block(0x00000006, body, 20 + (uint32_t)b.len);
	}
}

static void mixed(void)
{
	static const uint8_t chain[] = { 0, 60 };
	struct pb b;
	int i, k;

	header(1);
	for (i = 0; i < 20; i++) {
		for (k = 0; k < 6; k++) {
			uint64_t t = ((uint64_t)i * 6 + (uint64_t)k) * 1000000u;

			switch (k) {
			case 0:
				pb_eth(&b, 0x0800);
				pb_ipv4(&b, 6, "192.0.2.1", "192.0.2.2", 0, 0, 0);
				pb_ports(&b, 33000, 443, 20);
				pb_bytes(&b, 500, 0);
				pb_finish_ipv4(&b);
				break;
			case 1:
				pb_eth(&b, 0x86DD);
				pb_ipv6(&b, "2001:db8::10", "2001:db8::20", chain, 2, 17, 0, 0);
				pb_ports(&b, 4000, 4001, 8);
				pb_bytes(&b, 300, 0);
				pb_finish_ipv6(&b);
				break;
			case 2:
				pb_eth_tags(&b, 1, 0x0800);
				pb_ipv4(&b, 17, "198.51.100.1", "198.51.100.2", 0, 0, 0);
				pb_ports(&b, 53, 53, 8);
				pb_bytes(&b, 100, 0);
				pb_finish_ipv4(&b);
				break;
			case 3:
				pb_eth_tags(&b, 2, 0x86DD);
				pb_ipv6(&b, "2001:db8::10", "2001:db8::20", NULL, 0, 6, 0, 0);
				pb_ports(&b, 5555, 80, 20);
				pb_finish_ipv6(&b);
				break;
			case 4:
				pb_eth(&b, 0x0800);
				pb_ipv4(&b, 1, "192.0.2.1", "192.0.2.2", 0, 0, 0);
				pb_icmp_echo(&b, 8, 42);
				pb_bytes(&b, 56, 0);
				pb_finish_ipv4(&b);
				break;
			default:
				pb_eth(&b, 0x0806);
				pb_bytes(&b, 28, 0);
				break;
			}
			record(t, b.d, (uint32_t)b.len);
		}
	}
}

int main(int argc, char **argv)
{
	struct pb b;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: mkpcap SCENARIO OUT\n");
		return 2;
	}
	/* OUT appears whole or not at all: written beside it, then renamed */
	snprintf(tmp, sizeof(tmp), "%s.mkpcap-%ld", argv[2], (long)getpid());
	out = fopen(tmp, "wb");
	if (!out) {
		perror(tmp);
		return 1;
	}
	if (!strcmp(argv[1], "burst")) {
		header(1);
		for (i = 0; i < 10; i++) {
			udp_frame(&b, 0, 1000, 0);
			record(0, b.d, (uint32_t)b.len);
		}
	} else if (!strcmp(argv[1], "paced")) {
		paced();
	} else if (!strcmp(argv[1], "many")) {
		uint64_t x = 7;

		header(1);
		for (i = 0; i < 10000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			udp_frame(&b, (int)(x % 1000), 1000, 2);
			record((uint64_t)i * 100000u, b.d, (uint32_t)b.len);
		}
	} else if (!strcmp(argv[1], "mixed")) {
		mixed();
	} else if (!strcmp(argv[1], "snap64")) {
		snaplen = 64;
		nano = 0;
		paced();
	} else if (!strcmp(argv[1], "pcapng")) {
		pcapng();
	} else if (!strcmp(argv[1], "badlink")) {
		header(189);
		record(0, (const uint8_t *)"0123456789", 10);
	} else if (!strcmp(argv[1], "truncated")) {
		paced();
		fflush(out);
		if (ftruncate(fileno(out), 24 + 50 * (16 + 1000) + 16 + 300)) {
			perror("ftruncate");
			return 1;
		}
	} else if (!strcmp(argv[1], "heavy")) {
		uint64_t t;
		int f;

		header(1);
		/* merge: heavy every 0.5 ms, light flow f every 40 ms from f ms */
		for (t = 0; t < 10000000000ull; t += 500000u) {
			udp_frame(&b, 0, 1000, 0);
			record(t, b.d, (uint32_t)b.len);
			for (f = 1; f <= 20; f++) {
				if (t % 40000000u == (uint64_t)f * 1000000u) {
					udp_frame(&b, f, 1000, 0);
					record(t + 250000u, b.d, (uint32_t)b.len);
				}
			}
		}
	} else if (!strcmp(argv[1], "zipf")) {
		static double cdf[500];
		double sum = 0;
		uint64_t x = 12345;
		int f;

		header(1);
		for (f = 0; f < 500; f++)
			cdf[f] = (sum += 1.0 / (f + 1));
		for (i = 0; i < 30000; i++) {
			double u;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			u = (double)(x >> 11) / 9007199254740992.0 * sum;
			for (f = 0; f < 499 && cdf[f] < u; f++)
				;
			udp_frame(&b, f, 1000, 0);
			record((uint64_t)i * 400000u, b.d, (uint32_t)b.len);
		}
	} else if (!strcmp(argv[1], "reorder")) {
		header(1);
		for (i = 0; i < 200; i++) {
			udp_frame(&b, i % 2, 1000, 0);
			record(i == 100 ? 10 : (uint64_t)i * 500000u, b.d, (uint32_t)b.len);
		}
	} else if (!strcmp(argv[1], "hugelen") || !strcmp(argv[1], "shortlen") ||
		   !strcmp(argv[1], "capover") || !strcmp(argv[1], "timejump") ||
		   !strcmp(argv[1], "timewrap") ||
		   !strcmp(argv[1], "badfrac") || !strcmp(argv[1], "bigcap")) {
		broken(argv[1]);
	} else if (!strcmp(argv[1], "v6cut55")) {
		v6cut(55);
	} else if (!strcmp(argv[1], "v6cut62")) {
		v6cut(62);
	} else {
		fprintf(stderr, "mkpcap: unknown scenario %s\n", argv[1]);
		fclose(out);
		unlink(tmp);
		return 2;
	}
	if (ferror(out) | fclose(out) || rename(tmp, argv[2])) {
		perror(argv[2]);
		unlink(tmp);
		return 1;
	}
	return 0;
}
