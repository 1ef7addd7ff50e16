/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * `choke exporter`: one HTTP endpoint, /metrics, in Prometheus's text
 * format: every running bridge's counters (its control socket's
 * `stats openmetrics`, merged with a `bridge` label: merge.h), every kernel
 * choke qdisc of this network namespace (rtnetlink: nlqdisc.h) and the
 * exporter's own choke_exporter_* gauges saying which source answered.
 *
 * One thread, one connection at a time: the listening socket is polled,
 * a connection gets EXP_READ_MS to send its request head (at most
 * HTTP_MAX_HEAD bytes), its answer is collected then, and it gets
 * EXP_WRITE_MS to take it; each source is bounded by EXP_SOURCE_MS. Errors of
 * a source go to standard error once each time they change (the journal
 * under systemd), and the source's *_up gauge says 0.
 */
#ifndef CHOKE_EXPORTER_EXPORTER_H
#define CHOKE_EXPORTER_EXPORTER_H

#include <stdio.h>
#include <sys/socket.h>

struct nlq_set;

#define EXP_DEFAULT_LISTEN "127.0.0.1:9469"
#define EXP_MAX_BRIDGES 256
#define EXP_READ_MS 5000
#define EXP_WRITE_MS 10000
#define EXP_SOURCE_MS 2000
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
	int timeout_ms;              /* per source (EXP_SOURCE_MS) */
	/* the sources, replaceable for tests; NULL: the real ones
	 * (ctl_call_timeout's `stats openmetrics`, nlq_read) */
	int (*bridge_call)(const char *path, int timeout_ms, char **body, char *err,
			   size_t errlen);
	int (*qdisc_read)(struct nlq_set *s, int timeout_ms, char *err, size_t errlen);
};

/* "1.2.3.4:PORT" or "[v6addr]:PORT", port 0 to 65535 (0: any free one).
 * 0, or -1 with a message. */
int exp_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		     size_t errlen);

/* What was said about each source, so that a lasting error is logged once. */
struct exp_log {
	struct exp_log_entry {
		char *key, *msg;
	} *e;
	size_t n, cap;
	int always; /* log every error (--once) */
};
void exp_log_free(struct exp_log *l);

/* The label a bridge's series get: X for dir/bridge-X.sock, else the path. */
void exp_bridge_label(const char *dir, const char *path, char *buf, size_t len);

/* One exposition of every source into f, ending with # EOF. Returns the
 * number of sources that failed (each logged through log). */
int exp_collect(FILE *f, const struct exp_opts *o, struct exp_log *log);

/* Serve until SIGTERM or SIGINT; the exit status (1 if it cannot listen). */
int exp_serve(const struct exp_opts *o);

#endif
