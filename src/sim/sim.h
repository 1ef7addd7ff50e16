/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke sim: a packet-level discrete-event simulator of a dumbbell whose
 * bottleneck runs the libchoke core.
 *
 *   sender i --access link i (rate, delay)--> router --bottleneck (rate,
 *   delay, FIFO | RED | CHOKe from the core)--> receivers
 *   receivers --uncongested reverse path (fixed delay)--> senders (ACKs)
 *
 * Time is integer nanoseconds; the event queue breaks ties by scheduling
 * order; every random choice comes from generators seeded from the run's
 * seed. The same configuration and seed give the same result, bit for bit.
 */
#ifndef CHOKE_SIM_H
#define CHOKE_SIM_H

#include <stdint.h>

#include "choke/core.h"
#include "choke/hh.h"
#include "tcp.h"

enum sim_class { SIM_TCP = 0, SIM_UDP = 1, SIM_NCLASS = 2 };

/*
 * What a flow is in the scenario, finer than its class: the long TCP flows
 * (tcp_flows), the UDP floods (udp_flows), the light UDP flows
 * (light_flows) and the web-like short TCP transfers (web_rate). Flows are
 * numbered in that order. Runs that use neither of the last two, nor a
 * flood schedule, nor a time series, report by class as they always did;
 * the others also by group (sim_config.extended).
 */
enum sim_group {
	SIM_G_TCP = 0,   /* long TCP flows */
	SIM_G_FLOOD = 1, /* UDP floods */
	SIM_G_LIGHT = 2, /* light UDP flows */
	SIM_G_WEB = 3,   /* short TCP transfers */
	SIM_NGROUP = 4,
};

extern const char *const sim_group_names[SIM_NGROUP];

/* Drop reasons, per flow and per class. */
enum sim_drop {
	SIM_DROP_MATCH = 0,  /* the arrival matched a queued packet (CHOKe) */
	SIM_DROP_VICTIM = 1, /* a queued packet dropped by a match */
	SIM_DROP_EARLY = 2,  /* RED probabilistic drop */
	SIM_DROP_FORCED = 3, /* average above max */
	SIM_DROP_LIMIT = 4,  /* queue at its limit (tail drop) */
	SIM_DROP_ACCESS = 5, /* the sender's access link buffer overflowed */
	SIM_DROP_INJECTED = 6, /* by the test hook */
	SIM_DROP_PROTECT = 7, /* `protect`: above the flow's fair share
			       * (reported only when the queue has protect) */
	SIM_NDROP = 8,
};

extern const char *const sim_drop_names[SIM_NDROP];

/* On periods of a flood: [on, off) in ns, ascending, not overlapping. */
struct sim_period {
	uint64_t on, off;
};

struct sim_flow_cfg {
	uint8_t cls;              /* enum sim_class */
	uint8_t group;            /* enum sim_group */
	uint8_t poisson;          /* UDP: exponential gaps (else constant) */
	uint8_t ect;              /* UDP: packets ECN-capable */
	uint64_t access_bps;      /* sender's access link rate */
	uint64_t access_delay_ns; /* one way, each direction */
	uint32_t access_limit;    /* packets that may wait at the access link */
	double rate_bps;          /* UDP offered rate */
	double jitter;            /* UDP CBR: each packet up to jitter x gap late */
	uint64_t start_ns;        /* when the source starts */
	uint32_t segments;        /* TCP: this flow's transfer in segments;
				   * 0: the shared tcp.segments */
	uint32_t nperiods;        /* UDP: send only within these periods */
	const struct sim_period *periods; /* (0: from start_ns on, always) */
	uint32_t host;            /* long TCP: its host, 1 up (tcp_hosts); 0: none
				   * (the identity of protect's srchost and hosts) */
};

/* Test hooks: called for every data packet reaching the bottleneck (return
 * non-zero to drop it there) and for every ACK a receiver sends. */
typedef int (*sim_arrival_hook)(void *ctx, uint64_t now, uint32_t flow, uint32_t seq,
				unsigned flags);
typedef void (*sim_ack_hook)(void *ctx, uint64_t now, uint32_t flow, uint32_t ack,
			     unsigned flags);

struct sim_config {
	uint64_t duration_ns, warmup_ns;
	uint64_t seed;
	uint32_t pkt_size; /* bytes of a data packet on the wire */
	uint32_t ack_size;
	uint64_t btl_bps;
	uint64_t btl_delay_ns;
	struct choke_config qcfg; /* the bottleneck's discipline */
	struct tcp_params tcp;
	uint32_t nflows;
	const struct sim_flow_cfg *flows;
	uint64_t sample_ns; /* queue-position sampling period; 0 = off */
	uint32_t hh_counters; /* penalised-flows summary size (0: 16) */
	uint64_t series_ns; /* per-interval series of the whole run; 0 = off */
	int extended;       /* report by group too (sim_group) */
	int light_rtt;      /* measure the light flows' round trips */
	sim_arrival_hook arrival_hook;
	sim_ack_hook ack_hook;
	void *hook_ctx;
	/* Progress: called every 65536 events with the simulated time (ns);
	 * it must not change the run. NULL: none. */
	void (*progress_hook)(void *ctx, uint64_t now_ns);
	void *progress_ctx;
};

#define SIM_POS_BINS 10
#define SIM_HH_MAX 256

struct sim_flow_result {
	uint8_t cls;
	uint8_t group;            /* enum sim_group */
	uint64_t base_rtt_ns;     /* propagation + transmission, no queueing */
	uint64_t sent_pkts;       /* packets the source emitted */
	uint64_t link_pkts, link_bytes; /* bottleneck departures */
	uint64_t goodput_bytes;   /* in-order delivered (TCP), received (UDP) */
	uint64_t drops[SIM_NDROP];
	uint64_t marks;           /* CE set by the queue */
	struct tcp_stats tcp;     /* TCP: sender counters in the measured period */
	uint64_t srtt_ns, rto_ns; /* TCP: at the end */
	uint64_t cwnd_bytes;
	int done;                 /* finite transfer completed */
	uint64_t fct_ns;          /* its completion time from its start */
	uint64_t start_ns;        /* when it started (0: not yet) */
};

/* One interval of the time series (sim_config.series_ns), over the whole
 * run (warm-up included): what the bottleneck did for each group. */
struct sim_series_point {
	uint64_t link_pkts[SIM_NGROUP]; /* departures */
	uint64_t arrivals[SIM_NGROUP];  /* packets offered to the queue */
	uint64_t drops[SIM_NGROUP];     /* of those and of queued ones */
	uint32_t active[SIM_NGROUP];    /* flows sending in the interval */
	double qlen_mean;               /* time-average queue, packets */
};

#define SIM_SERIES_MAX 1000000 /* intervals at most */

struct sim_result {
	uint32_t nflows;
	struct sim_flow_result *flows;
	double measured_s;
	uint64_t link_bytes[SIM_NCLASS], link_pkts[SIM_NCLASS];
	uint64_t drops[SIM_NCLASS][SIM_NDROP];
	uint64_t marks[SIM_NCLASS];
	double utilization;       /* bottleneck busy fraction (bits sent / capacity) */
	double share[SIM_NCLASS]; /* of the bytes the bottleneck sent */
	double jain_tcp;          /* Jain's index over the long TCP flows' goodputs
				   * (not the short transfers); -1: undefined
				   * (no TCP flow, or none delivered anything) */
	double jain_all;          /* the same over every long-lived flow (long
				   * TCP, floods, light; not web transfers) */
	/* by group (every run; reported when sim_config.extended) */
	uint32_t group_flows[SIM_NGROUP];
	uint64_t group_link_bytes[SIM_NGROUP];
	uint64_t group_sent[SIM_NGROUP];  /* packets put on the access links */
	uint64_t group_drops[SIM_NGROUP][SIM_NDROP];
	/* the light flows' round trips in the measured period
	 * (sim_config.light_rtt): each packet's time from the access link to
	 * the receiver plus the fixed return path of its flow (an ACK's) */
	uint64_t light_rtt_n;
	double light_rtt_ms_mean, light_rtt_ms_median, light_rtt_ms_p99, light_rtt_ms_max;
	/* the time series (sim_config.series_ns) */
	uint32_t nseries;
	struct sim_series_point *series;
	double qlen_mean;         /* time-average queue length, packets */
	double qudp_mean;         /* time-average UDP packets queued */
	double qdelay_ms[SIM_NCLASS]; /* mean time from enqueue to transmission */
	uint64_t pos_samples;
	double pos_udp[SIM_POS_BINS]; /* UDP fraction of queued packets by position, head first */
	struct choke_stats qst;   /* the core's counters over the measured period */
	/* who is penalised: the Space-Saving summary of packets lost to
	 * matches in the measured period, largest first (flow = index) */
	uint32_t hh_counters, hh_n;
	uint64_t hh_total;
	struct choke_hh_item hh_top[SIM_HH_MAX];
	/* the whole run */
	uint64_t events;
	uint64_t btl_pkts;        /* data packets sent by the bottleneck + ACKs
				   * on its reverse direction */
	uint64_t max_inflight;    /* packet records in use at most */
	double wall_s;            /* elapsed time of sim_run */
	double cpu_s;             /* CPU time of sim_run (its process) */
	double loop_cpu_s;        /* of that, the event loop's (no set-up,
				   * no collection): what ns-3's figure counts */
};

/* Run. 0, or -1 with a message in err (out of memory, bad queue). */
CHOKE_MUST_CHECK int sim_run(const struct sim_config *cfg, struct sim_result *res, char *err,
	    size_t errlen);
void sim_result_free(struct sim_result *res);

/* What a run will cost, from its configuration alone (before running it):
 * the number of events, within a few tens of per cent for the shipped
 * scenarios (about 4 per packet through the bottleneck, 2 per UDP packet
 * offered), and the bytes of memory it will take at most, roughly (the
 * queue's ring, the flows, the packet records in flight, the event heap). */
double sim_estimate_events(const struct sim_config *cfg);
double sim_estimate_memory(const struct sim_config *cfg);

/* Jain's fairness index of n values: (sum x)^2 / (n sum x^2); -1 when it
 * is undefined (n = 0 or all values 0). */
double sim_jain(const double *x, uint32_t n);

/* The fluid model's UDP link share under CHOKe for a UDP rate x (in units
 * of the capacity): mu = ln z / (z + ln z) at x = mu (2z - 1), z >= 1. */
double sim_choke_fluid_share(double x);

#endif
