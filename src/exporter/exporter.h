/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * `choke exporter`: HTTP for Prometheus. /metrics in Prometheus's text
 * format: every running bridge's counters (its control socket's `stats
 * openmetrics`, merged with a `bridge` label: merge.h; the per-flow series
 * only when asked for), every kernel choke and chokeplus qdisc of this
 * network namespace (rtnetlink: nlqdisc.h, its 32-bit counters widened
 * across scrapes) and the exporter's own choke_exporter_* gauges saying
 * which source answered, with choke_build_info. / is a landing page.
 *
 * A scrape has a budget: Prometheus's X-Prometheus-Scrape-Timeout-Seconds
 * less EXP_MARGIN_MS (half of it below 2 * EXP_MARGIN_MS), or
 * EXP_DEADLINE_MS without that header. Every bridge is asked at once
 * (ask.h) and waited for until the budget is spent; the kernel's dump gets
 * what is left. Each connection is served by a thread of its own (at most
 * EXP_MAX_CONNS at once; more get 503 at once): a connection gets
 * EXP_READ_MS to send its request head (at most HTTP_MAX_HEAD bytes) and
 * EXP_WRITE_MS to take the answer, and a client that sends nothing holds
 * only its own thread. Errors of a source go to standard error once each
 * time they change (the journal under systemd), and the source's *_up gauge
 * says 0.
 */
#ifndef CHOKE_EXPORTER_EXPORTER_H
#define CHOKE_EXPORTER_EXPORTER_H

#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>

#include "nlqdisc.h"

#define EXP_DEFAULT_LISTEN "127.0.0.1:9469"
#define EXP_MAX_BRIDGES 256
#define EXP_READ_MS 5000
#define EXP_WRITE_MS 10000
#define EXP_DEADLINE_MS 5000 /* a scrape's budget without Prometheus's header */
#define EXP_MARGIN_MS 500    /* kept from Prometheus's timeout for the answer */
#define EXP_MAX_CONNS 16
/* what /metrics is served as: Prometheus's text format (counters' # TYPE
 * names with _total; # EOF is a comment there) */
#define EXP_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct exp_opts {
	const char *listen;          /* "ADDR:PORT" (EXP_DEFAULT_LISTEN) */
	const char *const *sockets;  /* --socket paths; none: scan dir */
	int nsockets;
	const char *dir;             /* where bridges' sockets are found:
					bridge-*.sock (RT_RUN_DIR) */
	int qdiscs;                  /* read the kernel's choke qdiscs */
	int penalised_flows;         /* keep the bridges' per-flow series */
	const char *version;         /* for choke_build_info and / */
	/* the kernel's qdiscs, replaceable for tests; NULL: nlq_read */
	int (*qdisc_read)(struct nlq_set *s, int timeout_ms, char *err, size_t errlen);
};

/* "1.2.3.4:PORT" or "[v6addr]:PORT", port 0 to 65535 (0: any free one).
 * 0, or -1 with a message. */
int exp_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		     size_t errlen);

/* What lasts from one scrape to the next, shared by the connections'
 * threads under its lock: what was said about each source (a lasting error
 * is logged once) and the kernel counters' last reading (nlq_widen). */
struct exp_state {
	pthread_mutex_t lock;
	struct exp_log_entry {
		char *key, *msg;
	} *e;
	size_t n, cap;
	int always;  /* log every error (--once) */
	int widen;   /* keep the qdiscs' history (a server; not --once) */
	struct nlq_history hist;
};
void exp_state_init(struct exp_state *st, int always, int widen);
void exp_state_free(struct exp_state *st);

/* The label a bridge's series get: X for dir/bridge-X.sock, else the path. */
void exp_bridge_label(const char *dir, const char *path, char *buf, size_t len);

/* A scrape's budget for Prometheus's scrape timeout (ms; -1: no header). */
int exp_budget_ms(long timeout_ms);

/* One exposition of every source into f, ending with # EOF, within
 * budget_ms. Returns the number of sources that failed (each logged
 * through st). */
int exp_collect(FILE *f, const struct exp_opts *o, struct exp_state *st, int budget_ms);

/* Serve until SIGTERM or SIGINT; the exit status (1 if it cannot listen). */
int exp_serve(const struct exp_opts *o);

#endif
