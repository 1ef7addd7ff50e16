/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke-bench pkt: flow-key extraction + hash in ns per frame (IPv4/TCP,
 * IPv6/UDP behind extension headers, QinQ-tagged IPv4/UDP on Ethernet, and
 * for comparison IPv4/UDP in a radiotap 802.11 QoS data frame), against
 * reading the same bytes (the floor); and replay throughput on a
 * 1-million-packet capture with 10 Gbit/s spacing, against libpcap reading
 * the same file. Baselines are measured in the same run; the goals (issue
 * 24: at most 10 ns per Ethernet frame, at least 10 Mpps) are judged at the
 * end. See docs/performance.md.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/replay/replay.h"
#include "bench_pkt.h"
#include "choke/params.h"
#include "choke/pkt.h"

#define NFRAMES 4096
#define FRAME_MAX 160
#define NKINDS 4 /* the last is not Ethernet: no goal */
#define GOAL_KEY_NS 10.0
#define GOAL_REPLAY_MPPS 10.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* kind 0: IPv4/TCP; 1: IPv6/UDP after hop-by-hop + destination options;
 * 2: 802.1ad + 802.1Q tagged IPv4/UDP; 3: IPv4/UDP in an 802.11 QoS data
 * frame behind radiotap (TSFT, Flags, Rate, Channel). Flow i varies
 * addresses and ports. */
static size_t make_frame(uint8_t *f, int kind, uint32_t i)
{
	size_t o = 12, l3;

	memset(f, 0, FRAME_MAX);
	if (kind == 3) {
		static const uint8_t rt[24] = { 0, 0, 24, 0, 0x0f, 0, 0, 0, [16] = 0x20, 0x0c,
						0x85, 0x09, 0xa0, 0 };
		static const uint8_t wifi[28] = { 0x88, 0x01, [4] = 2, [10] = 2, [16] = 2,
						  [24] = 5 };
		static const uint8_t snap[6] = { 0xaa, 0xaa, 0x03, 0, 0, 0 };

		/* radiotap, the 802.11 header padded to 28 bytes (the Flags
		 * field says so), SNAP, the ethertype at 58 */
		memcpy(f, rt, sizeof(rt));
		memcpy(f + 24, wifi, sizeof(wifi));
		memcpy(f + 52, snap, sizeof(snap));
		put16(f + 58, 0x0800);
		l3 = 60;
		goto ipv4;
	}
	f[0] = 2;
	f[6] = 2;
	f[11] = 1;
	if (kind == 2) {
		put16(f + 12, 0x88A8);
		put16(f + 16, 0x8100);
		o = 20;
	}
	put16(f + o, kind == 1 ? 0x86DD : 0x0800);
	l3 = o + 2;
	if (kind == 1) {
		f[l3] = 0x60;
		put16(f + l3 + 4, 16 + 8);
		f[l3 + 6] = 0; /* hop-by-hop */
		f[l3 + 7] = 64;
		f[l3 + 8] = 0x20;
		f[l3 + 9] = 0x01;
		put16(f + l3 + 20, (uint16_t)(i >> 16));
		put16(f + l3 + 22, (uint16_t)i);
		f[l3 + 24] = 0x20;
		f[l3 + 39] = 1;
		f[l3 + 40] = 60; /* next: destination options */
		f[l3 + 48] = 17; /* next: UDP */
		put16(f + l3 + 56, (uint16_t)(1024 + i % 50000));
		put16(f + l3 + 58, 443);
		return l3 + 64;
	}
ipv4:
	f[l3] = 0x45;
	put16(f + l3 + 2, kind == 0 ? 40 : 28);
	f[l3 + 8] = 64;
	f[l3 + 9] = kind == 0 ? 6 : 17;
	f[l3 + 12] = 10;
	put16(f + l3 + 14, (uint16_t)i);
	f[l3 + 16] = 192;
	f[l3 + 19] = 1;
	put16(f + l3 + 20, (uint16_t)(1024 + i % 50000));
	put16(f + l3 + 22, 80);
	return l3 + (kind == 0 ? 40 : 28);
}

struct pkt_row {
	const char *name;
	double ns_floor, ns_key;
};

static void bench_dissect(int kind, int linktype, uint64_t iters, struct pkt_row *row)
{
	static uint8_t frames[NFRAMES][FRAME_MAX];
	static size_t lens[NFRAMES];
	volatile uint32_t sink = 0;
	uint64_t n, j;
	double t0, best_floor = 1e9, best_key = 1e9;
	uint32_t acc;
	int rep;

	for (j = 0; j < NFRAMES; j++)
		lens[j] = make_frame(frames[j], kind, (uint32_t)(j * 2654435761u));
	for (rep = 0; rep < 5; rep++) {
		/* the floor: read every byte the dissector may need */
		acc = 0;
		t0 = now_s();
		for (n = 0; n < iters; n++) {
			const uint8_t *f = frames[n & (NFRAMES - 1)];
			size_t k;

			for (k = 0; k < lens[n & (NFRAMES - 1)]; k += 8)
				acc += f[k];
		}
		sink += acc;
		if ((now_s() - t0) * 1e9 / (double)iters < best_floor)
			best_floor = (now_s() - t0) * 1e9 / (double)iters;
		acc = 0;
		t0 = now_s();
		for (n = 0; n < iters; n++) {
			struct choke_flow_key key;
			struct choke_pkt_info info;

			choke_flow_key_from_frame(frames[n & (NFRAMES - 1)], lens[n & (NFRAMES - 1)],
					    linktype, &key, &info);
			acc += choke_flow_key_hash(&key, 12345);
		}
		sink += acc;
		if ((now_s() - t0) * 1e9 / (double)iters < best_key)
			best_key = (now_s() - t0) * 1e9 / (double)iters;
	}
	(void)sink;
	row->ns_floor = best_floor;
	row->ns_key = best_key;
}

/* A capture of n 1000-byte IPv4/UDP frames from 1000 flows, spaced as a
 * saturated 10 Gbit/s link (800 ns apart), snaplen 128. */
static int write_capture(const char *path, uint32_t n)
{
	FILE *f = fopen(path, "wb");
	uint8_t fr[FRAME_MAX];
	uint32_t hdr[6] = { 0xa1b23c4d, 0x00040002, 0, 0, 128, 1 };
	uint32_t i;
	uint64_t x = 88172645463325252ull;

	if (!f)
		return -1;
	fwrite(hdr, 4, 6, f);
	for (i = 0; i < n; i++) {
		uint64_t t = (uint64_t)i * 800;
		uint32_t rec[4];
		size_t len;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = make_frame(fr, 2 * (int)(x & 1), (uint32_t)(x % 1000));
		rec[0] = (uint32_t)(t / 1000000000u);
		rec[1] = (uint32_t)(t % 1000000000u);
		rec[2] = (uint32_t)len;
		rec[3] = 1000;
		fwrite(rec, 4, 4, f);
		fwrite(fr, 1, len, f);
	}
	return fclose(f);
}

static double pcap_read_only(const char *path, uint64_t *count)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
							    err);
	struct pcap_pkthdr *h;
	const u_char *d;
	volatile uint64_t sum = 0;
	double t0;

	if (!p)
		return -1;
	*count = 0;
	t0 = now_s();
	while (pcap_next_ex(p, &h, &d) == 1) {
		sum += d[0] + h->len;
		(*count)++;
	}
	t0 = now_s() - t0;
	pcap_close(p);
	(void)sum;
	return t0;
}

int choke_bench_pkt_main(int argc, char **argv)
{
	static const char *const names[NKINDS] = { "ipv4/tcp", "ipv6/udp+2ext", "qinq/ipv4/udp",
						   "radiotap/ipv4/udp" };
	struct pkt_row rows[NKINDS];
	int json = 0, quick = 0, i, k;
	uint64_t iters;
	uint32_t npkts;
	char path[] = "/tmp/choke-bench-XXXXXX";
	double t_read = 1e9, t_replay = 1e9, worst = 0, mpps;
	uint64_t nread = 0;
	int fd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: choke-bench pkt [--json] [--quick]\n");
			return 0;
		} else {
			fprintf(stderr, "choke-bench pkt: unknown argument %s\n"
				"usage: choke-bench pkt [--json] [--quick]\n", argv[i]);
			return 2;
		}
	}
	iters = quick ? 2000000 : 20000000;
	npkts = quick ? 100000 : 1000000;
	for (k = 0; k < NKINDS; k++) {
		rows[k].name = names[k];
		bench_dissect(k, k == 3 ? CHOKE_LINK_IEEE802_11_RADIO : CHOKE_LINK_ETHERNET, iters,
			      &rows[k]);
		if (k < 3 && rows[k].ns_key > worst)
			worst = rows[k].ns_key;
	}
	fd = mkstemp(path);
	if (fd < 0 || write_capture(path, npkts)) {
		fprintf(stderr, "choke-bench pkt: cannot write %s\n", path);
		return 1;
	}
	close(fd);
	for (k = 0; k < (quick ? 1 : 3); k++) {
		struct replay_opts o;
		struct replay_result r;
		struct choke_params p;
		char err[CHOKE_ERRBUF_SIZE];
		char *words[] = { "limit", "1000", "bandwidth", "10gbit" };
		double t0, tr = pcap_read_only(path, &nread);

		if (tr > 0 && tr < t_read)
			t_read = tr;
		if (choke_params_parse(4, words, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err))) {
			fprintf(stderr, "choke-bench pkt: %s\n", err);
			unlink(path);
			return 1;
		}
		memset(&o, 0, sizeof(o));
		o.file = path;
		o.rate_bps = 10000000000ull;
		o.q = p.cfg;
		o.seed = 1;
		t0 = now_s();
		if (replay_run(&o, &r, err, sizeof(err))) {
			fprintf(stderr, "choke-bench pkt: replay: %s\n", err);
			unlink(path);
			return 1;
		}
		t0 = now_s() - t0;
		if (t0 < t_replay)
			t_replay = t0;
		replay_result_free(&r);
	}
	unlink(path);
	mpps = npkts / t_replay / 1e6;
	if (json) {
		printf("[");
		for (k = 0; k < NKINDS; k++)
			printf("%s{\"bench\":\"flow_key\",\"frame\":\"%s\",\"ns_per_frame\":%.3f,"
			       "\"floor_ns\":%.3f,\"ratio_to_floor\":%.3f}",
			       k ? "," : "", rows[k].name, rows[k].ns_key, rows[k].ns_floor,
			       rows[k].ns_key / rows[k].ns_floor);
		printf(",{\"bench\":\"replay\",\"packets\":%u,\"seconds\":%.4f,\"mpps\":%.3f,"
		       "\"pcap_read_mpps\":%.3f,\"ratio_to_pcap_read\":%.3f}",
		       npkts, t_replay, mpps, (double)nread / t_read / 1e6, t_replay / t_read);
		printf(",{\"bench\":\"goals\",\"key_ns_goal\":%.1f,\"key_ns_worst\":%.3f,"
		       "\"key_met\":%s,\"replay_mpps_goal\":%.1f,\"replay_mpps\":%.3f,"
		       "\"replay_met\":%s}]\n", GOAL_KEY_NS, worst,
		       worst <= GOAL_KEY_NS ? "true" : "false", GOAL_REPLAY_MPPS, mpps,
		       mpps >= GOAL_REPLAY_MPPS ? "true" : "false");
		return 0;
	}
	printf("flow key + hash, ns per frame (best of 5 runs of %llu frames):\n",
	       (unsigned long long)iters);
	printf("  %-18s %10s %12s %8s\n", "frame", "key+hash", "read floor", "ratio");
	for (k = 0; k < NKINDS; k++)
		printf("  %-18s %10.2f %12.2f %8.2f\n", rows[k].name, rows[k].ns_key,
		       rows[k].ns_floor, rows[k].ns_key / rows[k].ns_floor);
	printf("\nreplay of %u packets (1000 flows, 10 Gbit/s spacing, snaplen 128) "
	       "through choke limit 1000 at 10 Gbit/s:\n", npkts);
	printf("  replay      %8.3f s  %7.2f Mpps\n", t_replay, mpps);
	printf("  pcap read   %8.3f s  %7.2f Mpps  (libpcap alone, same file)\n", t_read,
	       (double)nread / t_read / 1e6);
	printf("  ratio replay/read %.2f; a 10 s 10 Gbit/s trace of 1000-byte packets "
	       "(12.5 M) would take %.2f s\n", t_replay / t_read, 12.5e6 / (mpps * 1e6));
	printf("\ngoals: key + hash <= %.0f ns on every Ethernet frame above: %s (worst %.2f ns, "
	       "%.2fx the goal); replay >= %.0f Mpps: %s (%.2f Mpps, %.2fx the goal)\n",
	       GOAL_KEY_NS, worst <= GOAL_KEY_NS ? "MET" : "NOT MET", worst, worst / GOAL_KEY_NS,
	       GOAL_REPLAY_MPPS, mpps >= GOAL_REPLAY_MPPS ? "MET" : "NOT MET", mpps,
	       mpps / GOAL_REPLAY_MPPS);
	return 0;
}
