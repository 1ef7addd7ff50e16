/*
 * choke bridge: a bump in the wire between two interfaces. Frames arriving
 * on the input interface leave on the output interface through a queue
 * discipline of the core, paced by a token bucket at the bottleneck rate;
 * with duplex the reverse direction gets its own queue, otherwise it is
 * forwarded unshaped. See docs/bridge.md.
 */
#ifndef CHOKE_BRIDGE_H
#define CHOKE_BRIDGE_H

#include <stdint.h>
#include <stdio.h>

#include "choke/params.h"

struct bridge_opts {
	const char *in, *out;   /* interface names */
	uint64_t rate_bps;      /* 0: no shaping (forwarding benchmark) */
	uint64_t burst_bytes;   /* 0: sized to the rate */
	int duplex;
	int allow_mtu_mismatch;
	int keep_caps;          /* do not drop capabilities (tests only) */
	int rx_v2;              /* TPACKET_V2 receive ring (lower latency) */
	const char *socket_path; /* control socket; NULL: default */
	const char *config_file; /* discipline words re-read on SIGHUP */
	struct choke_params q;   /* the discipline */
	int argc;                /* the words, for the report */
	char **argv;
	uint64_t seed;
};

/* Default control socket for an input interface. */
void bridge_default_socket(const char *in, char *buf, size_t len);

/* Run until SIGTERM or SIGINT; prints final counters to stdout. Returns the
 * exit status (0 on a clean stop). */
int bridge_run(const struct bridge_opts *o);

/* Client side of the control socket: send one request, print the reply.
 * Returns the exit status. */
int bridge_ctl_request(const char *socket_path, const char *request, FILE *out);

#endif
