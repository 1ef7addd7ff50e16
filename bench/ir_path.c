// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
// SPDX-FileCopyrightText: 2026 The choke authors
/*
 * The core's path for one packet at a short queue, for instruction counts
 * under valgrind (bench/ir-path.sh runs it): N times, an arrival of a
 * 100-byte packet of one of 64 flows in turn, its departure and an empty
 * dequeue (what a parent that peeks or dequeues an empty child does), with
 * the clock moving as a 10 Gbit/s link's. Nothing queues: this is the
 * kernel benchmark's short state (tests/kernel/guest-bench.sh) without the
 * kernel, so that the core's share of its cost can be counted exactly.
 * With `defer` the arrivals' times are deferred where the core allows it,
 * as the kernel module passes them (CHOKE_TIME_DEFERRED).
 *
 *   ir_path 'WORDS' N [defer]   (WORDS: the library's, as `choke params` takes)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "choke/core.h"
#include "choke/params.h"

int main(int argc, char **argv)
{
	static char pkts[64];
	char buf[512], err[256], *words[64];
	struct choke_params p;
	struct choke q;
	unsigned long sent = 0;
	uint64_t now = 1000000000ull;
	long i, n = 0;
	int nw = 0, defer = argc == 4 && !strcmp(argv[3], "defer");
	void *ring;
	char *t, *end = NULL;

	if (argc == 3 || defer) {
		errno = 0;
		n = strtol(argv[2], &end, 10);
	}
	if ((argc != 3 && !defer) || strlen(argv[1]) >= sizeof(buf) || end == argv[2] || *end ||
	    errno || n <= 0) {
		fprintf(stderr, "usage: ir_path 'WORDS' N [defer] (N a whole number of packets, at least 1)\n");
		return 2;
	}
	strcpy(buf, argv[1]);
	for (t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
		if (nw == 64) {
			fprintf(stderr, "ir_path: more than 64 words\n");
			return 2;
		}
		words[nw++] = t;
	}
	if (choke_params_parse(nw, words, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err))) {
		fprintf(stderr, "ir_path: %s\n", err);
		return 2;
	}
	ring = malloc(choke_ring_bytes(p.cfg.limit));
	if (!ring || choke_init(&q, &p.cfg, ring, choke_ring_bytes(p.cfg.limit))) {
		fprintf(stderr, "ir_path: cannot set up the queue\n");
		return 1;
	}
	choke_seed(&q, 1);
	for (i = 0; i < n; i++) {
		uint32_t f = (uint32_t)(i % 64) * 0x9E3779B1u;
		struct choke_verdict v;

		now += 84; /* a 100-byte frame's time at 10 Gbit/s, about */
		if (choke_enqueue_as(&q, &pkts[i % 64], 100, f, f, 0,
				     defer && choke_enqueue_may_defer_time(&q) ? CHOKE_TIME_DEFERRED : now,
				     &v) > CHOKE_QUEUED_MARKED)
			continue;
		now += 10;
		if (choke_dequeue(&q, now, NULL))
			sent++;
		now += 3;
		(void)choke_dequeue(&q, now, NULL);
	}
	printf("%lu of %ld sent\n", sent, n);
	free(ring);
	return 0;
}
