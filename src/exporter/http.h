/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The little of HTTP/1.x the exporter speaks: one request per connection,
 * GET or HEAD of /metrics (or of /, a landing page), answered and closed
 * (Connection: close). The
 * request's head is judged from the bytes received so far, so the server
 * can stop reading as soon as it knows the answer and never holds more
 * than HTTP_MAX_HEAD bytes.
 */
#ifndef CHOKE_EXPORTER_HTTP_H
#define CHOKE_EXPORTER_HTTP_H

#include <stddef.h>

#define HTTP_MAX_HEAD 8192 /* request line and headers */

/* What a request asks for (a 200 of http_judge). */
enum http_page { HTTP_PAGE_METRICS, HTTP_PAGE_ROOT };

/*
 * Judge the request head in buf[0 .. len): 0 while it is incomplete and
 * could still be valid; otherwise the status to answer: 200 (GET or HEAD of
 * /metrics or /, a query string allowed; *page says which), 400 (not an
 * HTTP/1.x request: a bad request line, a header line without a colon), 404
 * (another path), 405 (another method), 431 (a head of HTTP_MAX_HEAD bytes
 * or more), 505 (another HTTP version). *head_only is set for HEAD.
 */
int http_judge(const char *buf, size_t len, int *head_only, enum http_page *page);

/*
 * Prometheus's X-Prometheus-Scrape-Timeout-Seconds (the scrape's timeout, a
 * decimal number of seconds) among the header lines of a complete head
 * buf[0 .. len) (one http_judge answered 200 to): the value in
 * milliseconds, or -1 when the header is absent, appears twice, or is not
 * a number above 0 (at most 3600 s; larger values are 3600 s). The header's
 * name is matched without regard to case.
 */
long http_scrape_timeout_ms(const char *buf, size_t len);

/* The status line's reason phrase ("Not Found"). */
const char *http_reason(int status);

/* The response head for status and a body of body_len bytes of type ctype
 * (with Connection: close; Allow for 405). Returns its length, or -1 if it
 * does not fit len. */
int http_head(char *buf, size_t len, int status, size_t body_len, const char *ctype);

#endif
