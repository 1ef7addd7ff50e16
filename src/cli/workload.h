/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * An open-loop workload through one bottleneck: a host of the core that
 * owns packets, time and the link. Flows send constant-bit-rate or Poisson
 * traffic regardless of loss (unresponsive); the link serialises one packet
 * at a time at its rate. Deterministic for a seed.
 */
#ifndef CHOKE_CLI_WORKLOAD_H
#define CHOKE_CLI_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "choke/core.h"

struct wl_flow_spec {
	double rate_bps;  /* offered rate, bits per second */
	int poisson;      /* 1: exponential gaps; 0: constant gaps (5% jitter) */
	uint32_t pkt_len; /* bytes on the link */
	int ect;          /* ECN-capable */
};

struct wl_config {
	double link_bps;
	double seconds; /* simulated time in all */
	double warmup;  /* seconds not measured at the start */
	uint64_t seed;
	int nflows;
	const struct wl_flow_spec *flows;
};

struct wl_flow_result {
	uint64_t offered_pkts, offered_bytes;
	uint64_t delivered_pkts, delivered_bytes;
	uint64_t marked_pkts;
	/* losses by reason: the arrival dropped, by outcome (the CHOKE_DROP_*
	 * entries), or a queued packet of this flow dropped as a match victim */
	uint64_t drop[CHOKE_NOUTCOMES];
	uint64_t drop_match_victim;
};

struct wl_result {
	struct choke_stats st;       /* the discipline's own counters */
	struct wl_flow_result *flows; /* nflows entries, allocated by wl_run */
	double measured_seconds;
	double utilization;  /* delivered bits / (link rate * measured time) */
	double mean_qlen;    /* time average over the measured period, packets */
	double mean_delay_s; /* queueing + transmission of delivered packets */
};

/* Run cfg through a queue configured by q. Returns 0, or -1 with a
 * message in err (errlen bytes) if the queue cannot be set up. Free with
 * wl_result_free. */
CHOKE_MUST_CHECK int wl_run(const struct wl_config *cfg, const struct choke_config *q,
	   struct wl_result *out, char *err, size_t errlen);
void wl_result_free(struct wl_result *r);

#endif
