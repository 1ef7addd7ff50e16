/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Every bridge asked for its OpenMetrics at once: one non-blocking
 * connection per bridge's control socket (the protocol of
 * src/bridge/control.h, `stats openmetrics`), all of them in one poll loop,
 * until each has answered or the scrape's deadline has passed. A bridge that
 * is slow, stopped or never answers costs only its own series, and never
 * more than the deadline.
 */
#ifndef CHOKE_EXPORTER_ASK_H
#define CHOKE_EXPORTER_ASK_H

#include <stddef.h>

struct exp_ask {
	const char *path; /* the bridge's socket */
	/* the result: rc 0 (body: the exposition), CTL_EREFUSED (body: the
	 * bridge's message) or another CTL_E* code (err says what happened,
	 * naming the path) */
	int rc;
	char *body; /* malloc'd; the caller frees */
	char err[512];
	/* private */
	int fd, state;
};

/* Connect to and send the request to every bridge of a[0 .. n) (those
 * whose socket cannot be reached are done at once, with their error). */
void exp_ask_start(struct exp_ask *a, int n);

/* Wait for the answers until every bridge is done or deadline_ms (on
 * CLOCK_MONOTONIC, in milliseconds: exp_ask_now_ms) has passed; the ones
 * still waiting then are CTL_EIO, "no answer ... within the scrape's
 * budget" (budget_ms names it). Every socket is closed on return. */
void exp_ask_wait(struct exp_ask *a, int n, long long deadline_ms, int budget_ms);

long long exp_ask_now_ms(void);

#endif
