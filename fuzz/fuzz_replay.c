/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: the pcap replay path on arbitrary files (pcap, pcapng
 * or garbage; both readers: its own for classic pcap, libpcap for the
 * rest), through a small CHOKe queue with ECN and --write. Every record is
 * replayed or skipped, every packet accounted for, every step back of time
 * counted once, and --strict lets nothing through that it refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../src/replay/replay.h"
#include "choke/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const words[] = { "limit", "20", "min", "3", "max", "10",
				       "bandwidth", "1mbit", "ecn" };
	struct choke_params p;
	struct replay_opts o = { 0 };
	struct replay_result r;
	char err[CHOKE_ERRBUF_SIZE], rerr[256], in[64];
	int fd = memfd_create("fuzz-in", 0), fdo = memfd_create("fuzz-out", 0), rc;
	FILE *out = fdo >= 0 ? fdopen(fdo, "w") : NULL;

	if (fd < 0 || !out || write(fd, data, size) != (ssize_t)size)
		abort();
	if (choke_params_parse(9, words, CHOKE_KIND_CHOKE, NULL, &p, err, sizeof(err)))
		abort();
	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	o.file = in;
	o.write_to = size % 2 ? out : NULL;
	o.strict = size % 3 == 0;
	o.rate_bps = 1000000;
	o.q = p.cfg;
	o.seed = 1;
	rerr[0] = 0;
	rc = replay_run(&o, &r, rerr, sizeof(rerr));
	if (rc == 0) {
		/* every record replayed or skipped, every packet accounted for */
		if (r.offered_pkts != r.delivered_pkts + r.dropped_pkts ||
		    r.offered_pkts + replay_skipped(&r) != r.packets_read ||
		    r.sorted + r.held + r.steps_back != r.reordered ||
		    (o.strict && (replay_skipped(&r) || r.held || r.steps_back || r.cut)))
			abort();
		replay_result_free(&r);
	} else if (rc > 0 || !rerr[0]) {
		abort(); /* an error is a negative errno with a message */
	}
	close(fd);
	fclose(out);
	return 0;
}
