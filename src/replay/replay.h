/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The pcap what-if replayer: a host of the core that feeds the packets of a
 * capture, at their timestamps, into a bottleneck of a given rate through a
 * queue discipline, and accounts for every packet by flow.
 */
#ifndef CHOKE_REPLAY_H
#define CHOKE_REPLAY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "choke/core.h"
#include "choke/hh.h"
#include "choke/pkt.h"

/* counters of the heavy-hitter summary of matched drops */
#define REPLAY_HH_K 64

/* What is refused in a capture (docs/inputs.md): records longer than this
 * (captured or original length; libpcap's own bound for Ethernet). */
#define REPLAY_MAX_LEN (256u * 1024)

/*
 * Time (docs/replay.md): records are put in order of time in a window of
 * REPLAY_REORDER_MAX records (and, with --write, REPLAY_REORDER_BYTES of
 * their bytes), released once the capture's time is REPLAY_REORDER_NS past
 * them. A step back of more than REPLAY_REORDER_NS is the capture's clock
 * stepping back: the records after it keep their spacing and follow on.
 * The replay's clock ends at REPLAY_TIME_MAX. Gaps of more than
 * REPLAY_LONG_GAP_NS are idle time, counted.
 */
#define REPLAY_REORDER_NS 1000000000ull /* one second */
#define REPLAY_REORDER_MAX 65536u       /* a power of 2 */
#define REPLAY_REORDER_BYTES (64ull << 20)
#define REPLAY_TIME_MAX (1ull << 63)
#define REPLAY_LONG_GAP_NS (86400ull * 1000000000u) /* one day */

struct replay_opts {
	const char *file;       /* pcap or pcapng; "-" is standard input */
	/* the delivered packets as a pcap file, or NULL: written through a
	 * duplicate of its descriptor (nothing may be buffered in it); the
	 * caller keeps, syncs and closes it */
	FILE *write_to;
	uint64_t rate_bps;      /* bottleneck rate, bits per second */
	struct choke_config q;  /* the discipline */
	uint64_t seed;          /* the discipline's random generator */
	int strict;             /* refuse a file with a record that would be skipped */
	/* if not NULL, the replay stops (-EINTR) once *stop is non-zero: a
	 * caller's signal handler sets it */
	const volatile sig_atomic_t *stop;
};

struct replay_flow {
	struct choke_flow_key key;
	uint64_t offered_pkts, offered_bytes;
	uint64_t delivered_pkts, delivered_bytes;
	uint64_t marked_pkts;
	/* arrivals dropped, by outcome (the CHOKE_DROP_* entries; a match's
	 * arrival is drop[CHOKE_DROP_MATCH]) */
	uint64_t drop[CHOKE_NOUTCOMES];
	uint64_t drop_match_victim; /* queued packets of the flow a match dropped */
};

/* Every packet of the flow dropped: arrivals, for every reason, and victims. */
uint64_t replay_flow_drops(const struct replay_flow *f);

/* A log-linear histogram of delays: 1% resolution, bounded memory. */
#define REPLAY_HIST_SUB 128
#define REPLAY_HIST_MAJ 64
struct replay_hist {
	uint64_t n;
	uint64_t max;
	double sum;
	uint64_t count[REPLAY_HIST_MAJ][REPLAY_HIST_SUB];
};

struct replay_result {
	int linktype;
	uint64_t packets_read;     /* records in the file */
	uint64_t truncated_records; /* caplen < len */
	/* timestamps earlier than the latest before them, and what became of
	 * them: put in order (their time kept), held at the time of the last
	 * record released (the window no longer had the records they go
	 * before, or the replay's clock ended), or a step back of the
	 * capture's clock (the records from there on shifted) */
	uint64_t reordered, sorted, held, steps_back;
	uint64_t long_gaps;        /* steps forward of more than a day */
	/* records skipped (refused with strict), by reason: */
	uint64_t skipped_caplen;   /* captured length above the file's snaplen */
	uint64_t skipped_len;      /* original length 0, below the captured
				    * length or above REPLAY_MAX_LEN */
	uint64_t skipped_time;     /* timestamp not a time */
	int snaplen;               /* the file's (libpcap's view of it) */
	char first_skip[224];      /* "record N: why" of the first skipped */
	/* the file ends inside a record: everything before it was replayed;
	 * cut_msg says where */
	int cut;
	char cut_msg[256];
	double capture_seconds;    /* first to last timestamp (as replayed) */
	double end_seconds;        /* until the queue drained */
	struct replay_flow *flows;
	uint32_t nflows;
	struct choke_stats st;
	uint64_t offered_pkts, offered_bytes, delivered_pkts, delivered_bytes,
		marked_pkts, dropped_pkts;
	double mean_qlen, mean_backlog; /* time averages over the replay */
	uint32_t max_qlen;
	uint64_t max_backlog;
	struct replay_hist *delay; /* sojourn: arrival to end of transmission */
	uint64_t written;          /* packets written with --write */
	/* who is penalised: the Space-Saving summary of packets lost to
	 * matches (flow = index into flows), next to the exact counts */
	struct choke_hh *hh;
};

/*
 * Run the replay. Returns 0 (with res->cut set when the file ends inside
 * a record: the results cover every record before it), or a negative errno
 * with a message in err (nothing printed): -EINVAL bad options,
 * -ENOENT/-EIO an unreadable or corrupt file, -ENOTSUP an unsupported link
 * type, -EBADMSG a record or a cut end refused with strict, -EINTR
 * stopped, -ENOMEM, -EIO writing. On error nothing in *res is valid.
 */
CHOKE_MUST_CHECK int replay_run(const struct replay_opts *o, struct replay_result *res, char *err,
	       size_t errlen);
void replay_result_free(struct replay_result *res);

/* The number of records skipped, all reasons. */
uint64_t replay_skipped(const struct replay_result *res);

/* Delay percentile (0 < q < 1) in nanoseconds. */
double replay_hist_quantile(const struct replay_hist *h, double q);

/* "tcp", "udp", ... (IANA's keywords, lower case) or the number. */
const char *replay_proto_name(uint8_t proto, char *buf, size_t len);
/* A flow's protocol: its name for IPv4 and IPv6 flows, "-" for the others
 * (non-IP, malformed, truncated: they have none). */
const char *replay_flow_proto(const struct choke_flow_key *k, char *buf, size_t len);
/* The addresses of a key as text (IPv4 dotted, IPv6 RFC 5952). */
void replay_addr(const struct choke_flow_key *k, int dst, char *buf, size_t len);

#endif
