/* libFuzzer target: the pcap replay path on arbitrary files (pcap, pcapng
 * or garbage), through a small CHOKe queue with ECN and --write. */
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
	char err[CHOKE_ERRBUF_SIZE], in[64], out[64];
	int fd = memfd_create("fuzz-in", 0), fdo = memfd_create("fuzz-out", 0);

	if (fd < 0 || fdo < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	if (choke_params_parse(9, words, CHOKE_KIND_CHOKE, NULL, &p, err))
		abort();
	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	snprintf(out, sizeof(out), "/proc/self/fd/%d", fdo);
	o.file = in;
	o.write_file = size % 2 ? out : NULL;
	o.rate_bps = 1000000;
	o.q = p.cfg;
	o.seed = 1;
	if (replay_run(&o, &r) == 0) {
		if (r.offered_pkts != r.delivered_pkts + r.dropped_pkts)
			abort();
		replay_result_free(&r);
	}
	close(fd);
	close(fdo);
	return 0;
}
