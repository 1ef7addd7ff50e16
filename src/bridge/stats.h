/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The bridge's counters as one snapshot, and their renderings: text (tc's
 * style, for people), JSON (one object, for programs) and OpenMetrics (for
 * Prometheus). One function per format, each over the same snapshot, so
 * the formats cannot disagree. Formats: docs/bridge.md.
 */
#ifndef CHOKE_BRIDGE_STATS_H
#define CHOKE_BRIDGE_STATS_H

#include <net/if.h>
#include <stdint.h>
#include <stdio.h>

#include "dataplane.h"

#define STATS_TOP_FLOWS 10  /* penalised flows in a snapshot (JSON, OpenMetrics) */
#define STATS_TEXT_FLOWS 5  /* of which the text shows */
#define STATS_NQUANTILES 4

/* The quantiles of queueing delay reported: 0.5, 0.9, 0.99, 0.999. */
extern const double stats_quantiles[STATS_NQUANTILES];

/* An interface's own counters (/sys/class/net/IF/statistics); -1 where
 * unreadable. */
enum {
	STATS_IF_RX_PACKETS, STATS_IF_RX_BYTES, STATS_IF_RX_DROPPED, STATS_IF_RX_ERRORS,
	STATS_IF_TX_PACKETS, STATS_IF_TX_BYTES, STATS_IF_TX_DROPPED, STATS_IF_TX_ERRORS,
	STATS_IF_NCOUNTERS
};

struct stats_if {
	char name[IF_NAMESIZE];
	int up;
	long c[STATS_IF_NCOUNTERS];
};

struct stats_flow {
	struct choke_flow_key key;
	uint64_t estimate, error; /* packets; estimate - error <= true <= estimate */
};

struct stats_dir {
	char in[IF_NAMESIZE], out[IF_NAMESIZE];
	int shaped;
	char backend[32]; /* "afpacket", or "xdp" and how: "xdp (driver, copy)" */
	uint32_t nq;      /* xdp: the input's receive queues (0 with afpacket) */
	uint64_t rxq[XDPB_MAX_QUEUES]; /* xdp: frames taken from each */
	/* shaped only */
	uint64_t rate_bps, burst_ns;
	struct choke_config cfg;
	struct choke_stats q;
	uint32_t qlen;
	uint64_t backlog;
	double qavg;                     /* RED's average queue, packets */
	uint64_t delay_q_ns[STATS_NQUANTILES];
	uint32_t hh_counters;
	uint64_t hh_total, hh_bound;
	uint32_t nflows;
	struct stats_flow flows[STATS_TOP_FLOWS];
	/* both */
	struct dp_counters c;
	double rate_in_bps, rate_out_bps;
	struct stats_if if_in, if_out;
};

struct stats_snapshot {
	int pid;
	double uptime_s;
	int ndirs;
	struct stats_dir d[2];
};

/* Copy a direction's counters (no system calls; the interface counters are
 * left for stats_read_if). */
void stats_take_dir(const struct dp_dir *d, struct stats_dir *out);

/* An interface's state and counters from sysfs. */
void stats_read_if(const char *name, struct stats_if *out);

/* Is an interface up ("up", or "unknown" for those without carrier
 * reporting)? */
int stats_if_is_up(const char *name);

/* The renderings. Each writes the whole snapshot to f. */
void stats_write_text(FILE *f, const struct stats_snapshot *s);
void stats_write_json(FILE *f, const struct stats_snapshot *s);
void stats_write_openmetrics(FILE *f, const struct stats_snapshot *s);

/* A flow as people read it: "udp 10.0.0.1:5000>10.0.0.2:53". */
void stats_flow_label(const struct choke_flow_key *k, char *buf, size_t len);

#endif
