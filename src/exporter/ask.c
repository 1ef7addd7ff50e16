/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The bridges asked in parallel: see ask.h. */
#include "ask.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../bridge/control.h"

enum { A_CONNECT, A_SEND, A_RECV, A_DONE };

/* a full listen backlog: connect is tried again this often */
#define ASK_RETRY_MS 20

long long exp_ask_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ask_done(struct exp_ask *a, int rc)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	a->rc = rc;
	a->state = A_DONE;
}

/* connect (again): the next state, or done with the error */
static void ask_connect(struct exp_ask *a)
{
	struct sockaddr_un sa;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", a->path);
	if (connect(a->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		a->state = A_SEND;
		return;
	}
	e = errno;
	if (e == EAGAIN || e == EINTR) {
		a->state = A_CONNECT; /* the backlog is full: later */
		return;
	}
	if (e == EACCES || e == EPERM) {
		snprintf(a->err, sizeof(a->err), "permission denied: %s (a bridge's socket is "
			 "for root and its group: run the exporter as root or in that group, "
			 "choke under systemd)", a->path);
		ask_done(a, CTL_EACCES);
	} else if (e == ENOENT || e == ECONNREFUSED || e == ENOTDIR) {
		snprintf(a->err, sizeof(a->err), "no running bridge at %s (%s)", a->path,
			 e == ECONNREFUSED ? "a stale socket: nobody listens on it"
					   : "no such socket");
		ask_done(a, CTL_ENOBRIDGE);
	} else {
		snprintf(a->err, sizeof(a->err), "cannot reach the bridge at %s: %s", a->path,
			 strerror(e));
		ask_done(a, CTL_EIO);
	}
}

static void ask_send(struct exp_ask *a)
{
	struct ctl_request r;
	char req[CTL_REQ_MAX + 1];
	int len;

	memset(&r, 0, sizeof(r));
	r.verb = CTL_STATS;
	r.format = CTL_FMT_OPENMETRICS;
	len = ctl_format_request(&r, req, sizeof(req));
	if (len < 0) {
		snprintf(a->err, sizeof(a->err), "the request does not fit the protocol");
		ask_done(a, CTL_EIO);
		return;
	}
	/* one message on a SOCK_SEQPACKET socket: all of it or nothing */
	if (send(a->fd, req, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) == len) {
		a->state = A_RECV;
	} else if (errno != EAGAIN && errno != EINTR) {
		snprintf(a->err, sizeof(a->err), "no answer from the bridge at %s (%s)", a->path,
			 strerror(errno));
		ask_done(a, CTL_EIO);
	}
}

/* The reply: one message, its length learnt first (MSG_TRUNC), then taken. */
static void ask_recv(struct exp_ask *a)
{
	const char *body;
	char one, *buf;
	ssize_t n;
	int ok;

	n = recv(a->fd, &one, 1, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		snprintf(a->err, sizeof(a->err), "no answer from the bridge at %s%s%s", a->path,
			 n < 0 ? ": " : " (it closed the connection)", n < 0 ? strerror(errno) : "");
		ask_done(a, CTL_EIO);
		return;
	}
	if (n > CTL_REPLY_MAX) {
		snprintf(a->err, sizeof(a->err), "the bridge at %s answered %zd bytes, more than "
			 "the protocol's %d", a->path, n, CTL_REPLY_MAX);
		ask_done(a, CTL_EIO);
		return;
	}
	buf = malloc((size_t)n + 1);
	if (!buf) {
		snprintf(a->err, sizeof(a->err), "out of memory for the answer of %s", a->path);
		ask_done(a, CTL_EIO);
		return;
	}
	n = recv(a->fd, buf, (size_t)n, MSG_DONTWAIT);
	if (n <= 0) {
		free(buf);
		snprintf(a->err, sizeof(a->err), "no answer from the bridge at %s", a->path);
		ask_done(a, CTL_EIO);
		return;
	}
	buf[n] = 0;
	if (memchr(buf, 0, (size_t)n) || ctl_parse_reply(buf, &ok, &body)) {
		snprintf(a->err, sizeof(a->err), "the bridge at %s answered outside the %s "
			 "protocol: %.80s", a->path, CTL_MAGIC, buf);
		free(buf);
		ask_done(a, CTL_EIO);
		return;
	}
	memmove(buf, body, strlen(body) + 1);
	a->body = buf;
	ask_done(a, ok ? 0 : CTL_EREFUSED);
}

void exp_ask_start(struct exp_ask *a, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		a[i].rc = CTL_EIO;
		a[i].body = NULL;
		a[i].err[0] = 0;
		a[i].state = A_CONNECT;
		if (strlen(a[i].path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			a[i].fd = -1;
			snprintf(a[i].err, sizeof(a[i].err), "socket path too long: %s", a[i].path);
			ask_done(&a[i], CTL_ENOBRIDGE);
			continue;
		}
		a[i].fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (a[i].fd < 0) {
			snprintf(a[i].err, sizeof(a[i].err), "socket for %s: %s", a[i].path,
				 strerror(errno));
			ask_done(&a[i], CTL_EIO);
			continue;
		}
		ask_connect(&a[i]);
		if (a[i].state == A_SEND)
			ask_send(&a[i]);
	}
}

void exp_ask_wait(struct exp_ask *a, int n, long long deadline_ms, int budget_ms)
{
	struct pollfd *p = calloc((size_t)n + 1, sizeof(*p));
	int i, np, retry;

	for (;;) {
		long long left = deadline_ms - exp_ask_now_ms();

		np = retry = 0;
		for (i = 0; i < n; i++) {
			if (a[i].state == A_CONNECT)
				retry = 1;
			if (p && (a[i].state == A_SEND || a[i].state == A_RECV)) {
				p[np].fd = a[i].fd;
				p[np].events = a[i].state == A_SEND ? POLLOUT : POLLIN;
				p[np].revents = 0;
				np++;
			}
		}
		if ((!np && !retry) || left <= 0 || !p)
			break;
		if (retry && left > ASK_RETRY_MS)
			left = ASK_RETRY_MS;
		if (poll(p, (nfds_t)np, (int)left) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (a[i].state == A_CONNECT)
				ask_connect(&a[i]);
			if (a[i].state == A_SEND)
				ask_send(&a[i]);
			else if (a[i].state == A_RECV)
				ask_recv(&a[i]);
		}
	}
	for (i = 0; i < n; i++)
		if (a[i].state != A_DONE) {
			snprintf(a[i].err, sizeof(a[i].err), "no answer from the bridge at %s within "
				 "the scrape's budget (%d ms)", a[i].path, budget_ms);
			ask_done(&a[i], CTL_EIO);
		}
	free(p);
}
