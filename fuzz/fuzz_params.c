/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: the tc-words parser. The input is split into words at
 * spaces and NULs; byte 0 picks the kind and the options. An accepted
 * configuration must pass the core's own check, come back the same from
 * its words (choke_params_words), initialise a queue and survive a few
 * operations. */
#include <stdlib.h>
#include <string.h>

#include "choke/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[1024], *argv[64], err[CHOKE_ERRBUF_SIZE], line[512], *wv[64], *s;
	struct choke_parse_opts o = { 0, 0, 0 };
	struct choke_params p, again;
	int argc = 0, kind;
	size_t i, n;

	if (size < 1 || size > sizeof(buf))
		return 0;
	kind = data[0] % 3;
	o.strict_tc = (data[0] >> 2) & 1;
	o.link_mbit = (data[0] >> 3) & 1 ? 10000 : 0;
	n = size - 1;
	memcpy(buf, data + 1, n);
	buf[n] = 0;
	for (i = 0; i <= n && argc < 64; i++) {
		if (i == n || buf[i] == ' ' || buf[i] == 0) {
			buf[i] = 0;
		} else if (i == 0 || buf[i - 1] == 0) {
			argv[argc++] = &buf[i];
		}
	}
	if (choke_params_parse(argc, argv, kind, &o, &p, err, sizeof(err))) {
		if (!err[0])
			abort(); /* a refusal always says why */
		return 0;
	}
	if (choke_config_check(&p.cfg, NULL))
		abort();
	choke_params_format(&p.cfg, line, sizeof(line));
	/* parse(words(p)) == p */
	if (choke_params_words(&p, line, sizeof(line)) >= (int)sizeof(line))
		abort();
	argc = 0;
	for (s = strtok(line, " "); s && argc < 64; s = strtok(NULL, " "))
		wv[argc++] = s;
	if (argc < 1 || choke_kind_from_word(wv[0]) != kind ||
	    choke_params_parse(argc - 1, wv + 1, kind, &o, &again, err, sizeof(err)) ||
	    memcmp(&p, &again, sizeof(p)))
		abort();
	if (p.cfg.limit <= 4096) {
		size_t bytes = choke_ring_bytes(p.cfg.limit);
		void *ring = malloc(bytes);
		struct choke q;
		struct choke_verdict v;
		static int pkts[16];

		if (choke_init(&q, &p.cfg, ring, bytes))
			abort();
		for (i = 0; i < 16; i++)
			(void)!choke_enqueue(&q, &pkts[i], 1000, (uint32_t)i % 3, 1, i * 1000, &v);
		while (choke_dequeue(&q, 20000, NULL))
			;
		(void)!choke_enqueue(&q, &pkts[0], 1000, 0, 1, 1ull << 40, &v);
		if (choke_check_invariants(&q))
			abort();
		free(ring);
	}
	return 0;
}
