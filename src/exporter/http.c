/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The exporter's HTTP: see http.h (RFC 9112's message syntax, the parts a
 * one-endpoint server needs). */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
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

int http_judge(const char *buf, size_t len, int *head_only, enum http_page *page)
{
	const char *p = buf, *end = buf + len, *eol, *sp1, *sp2, *line_end, *target;
	size_t mlen, tlen;
	int status;

	*head_only = 0;
	*page = HTTP_PAGE_METRICS;
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
	if (status == 200 && (tlen == 1 || (tlen > 1 && target[1] == '?')) && target[0] == '/')
		*page = HTTP_PAGE_ROOT;
	else if (status == 200 && !((tlen == 8 || (tlen > 8 && target[8] == '?')) &&
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

long http_scrape_timeout_ms(const char *buf, size_t len)
{
	static const char name[] = "x-prometheus-scrape-timeout-seconds";
	const size_t nlen = sizeof(name) - 1;
	const char *p = buf, *end = buf + len, *eol, *v, *vend;
	long ms = -1;
	int found = 0;

	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	eol = http_eol(p, end); /* the request line */
	for (p = eol ? eol + 1 : end; p < end; p = eol + 1) {
		char num[32], *stop;
		double sec;
		size_t i, n;

		eol = http_eol(p, end);
		if (!eol)
			break;
		vend = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (vend == p)
			break; /* the end of the head */
		if ((size_t)(vend - p) <= nlen || p[nlen] != ':')
			continue;
		for (i = 0; i < nlen; i++)
			if ((p[i] >= 'A' && p[i] <= 'Z' ? p[i] | 0x20 : p[i]) != name[i])
				break;
		if (i < nlen)
			continue;
		if (found++)
			return -1; /* twice: which one? */
		for (v = p + nlen + 1; v < vend && (*v == ' ' || *v == '\t'); v++)
			;
		while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
			vend--;
		n = (size_t)(vend - v);
		if (n == 0 || n >= sizeof(num))
			return -1;
		memcpy(num, v, n);
		num[n] = 0;
		if (strspn(num, "0123456789.") < n)
			return -1;
		sec = strtod(num, &stop);
		if (*stop || !(sec > 0))
			return -1;
		ms = sec >= 3600 ? 3600000 : (long)(sec * 1000 + 0.5);
		if (ms < 1)
			ms = 1;
	}
	return ms;
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
	case 503:
		return "Service Unavailable";
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
