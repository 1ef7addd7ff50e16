/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The exporter's HTTP: see http.h (RFC 9112's message syntax, the parts a
 * one-endpoint server needs). */
#include "http.h"

#include <stdio.h>
#include <string.h>

/* RFC 9110's tchar: the characters of a method name */
static int http_tchar(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* the end of the line starting at p (the \n), or NULL */
static const char *http_eol(const char *p, const char *end)
{
	return memchr(p, '\n', (size_t)(end - p));
}

int http_judge(const char *buf, size_t len, int *head_only)
{
	const char *p = buf, *end = buf + len, *eol, *sp1, *sp2, *line_end, *target;
	size_t mlen, tlen;
	int status;

	*head_only = 0;
	/* a server should ignore empty lines before the request line */
	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	eol = http_eol(p, end);
	if (!eol) {
		/* incomplete: still a plausible request line? */
		for (sp1 = p; sp1 < end && http_tchar((unsigned char)*sp1); sp1++)
			;
		if (sp1 < end && *sp1 != ' ')
			return 400;
		return len >= HTTP_MAX_HEAD ? 431 : 0;
	}
	line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	/* METHOD SP TARGET SP HTTP/1.x */
	for (sp1 = p; sp1 < line_end && http_tchar((unsigned char)*sp1); sp1++)
		;
	if (sp1 == p || sp1 >= line_end || *sp1 != ' ')
		return 400;
	mlen = (size_t)(sp1 - p);
	target = sp1 + 1;
	sp2 = memchr(target, ' ', (size_t)(line_end - target));
	if (!sp2 || sp2 == target)
		return 400;
	tlen = (size_t)(sp2 - target);
	if (line_end - (sp2 + 1) != 8 || memcmp(sp2 + 1, "HTTP/", 5))
		return 400;
	if (sp2[6] != '1' || sp2[7] != '.' || sp2[8] < '0' || sp2[8] > '9')
		return sp2[6] >= '0' && sp2[6] <= '9' ? 505 : 400;
	for (p = target; p < sp2; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 400;
	if (mlen == 3 && !memcmp(sp1 - mlen, "GET", 3))
		status = 200;
	else if (mlen == 4 && !memcmp(sp1 - mlen, "HEAD", 4))
		status = 200, *head_only = 1;
	else
		status = 405;
	if (status == 200 && !((tlen == 8 || (tlen > 8 && target[8] == '?')) &&
			       !memcmp(target, "/metrics", 8)))
		status = 404;
	/* the header lines, up to the empty line */
	for (p = eol + 1;; p = eol + 1) {
		eol = http_eol(p, end);
		if (!eol)
			return len >= HTTP_MAX_HEAD ? 431 : 0;
		line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (line_end == p)
			break; /* the end of the head */
		if (*p == ' ' || *p == '\t' || !memchr(p, ':', (size_t)(line_end - p)))
			return 400; /* no colon; or obsolete line folding */
	}
	return (size_t)(eol + 1 - buf) > HTTP_MAX_HEAD ? 431 : status;
}

const char *http_reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "Error";
}

int http_head(char *buf, size_t len, int status, size_t body_len, const char *ctype)
{
	int n = snprintf(buf, len,
			 "HTTP/1.1 %d %s\r\n"
			 "Content-Type: %s\r\n"
			 "Content-Length: %zu\r\n"
			 "%s"
			 "Cache-Control: no-store\r\n"
			 "Connection: close\r\n"
			 "\r\n",
			 status, http_reason(status), ctype, body_len,
			 status == 405 ? "Allow: GET, HEAD\r\n" : "");

	return n < 0 || (size_t)n >= len ? -1 : n;
}
