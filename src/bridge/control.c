/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The control socket's protocol, both sides: see control.h. */
#include "control.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static const char *const fmt_names[] = { "text", "json", "openmetrics" };

int ctl_format_from_name(const char *name)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(name, fmt_names[i]))
			return i;
	return -1;
}

const char *ctl_format_name(enum ctl_format f)
{
	return (unsigned)f < 3 ? fmt_names[f] : "?";
}

/* ---- messages ---- */

int ctl_parse_request(const char *msg, size_t len, struct ctl_request *r,
		      char *err, size_t errlen)
{
	char *words[CTL_MAX_WORDS + 3], *p;
	int n = 0, i;
	size_t k;

	memset(r, 0, sizeof(*r));
	if (len > CTL_REQ_MAX) {
		snprintf(err, errlen, "request longer than %d bytes", CTL_REQ_MAX);
		return -1;
	}
	if (len && msg[len - 1] == '\n')
		len--;
	for (k = 0; k < len; k++) {
		unsigned char c = (unsigned char)msg[k];

		if (c != ' ' && c != '\t' && (c < 0x21 || c > 0x7e)) {
			snprintf(err, errlen, "byte 0x%02x at offset %zu: a request is one "
				 "line of printable ASCII words", c, k);
			return -1;
		}
	}
	memcpy(r->buf, msg, len);
	r->buf[len] = 0;
	for (p = r->buf; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (n == CTL_MAX_WORDS + 3) {
			snprintf(err, errlen, "more than %d words", CTL_MAX_WORDS);
			return -1;
		}
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (n == 0 || strncmp(words[0], "choke-ctl/", 10)) {
		snprintf(err, errlen, "not a %s request", CTL_MAGIC);
		return -1;
	}
	if (strcmp(words[0], CTL_MAGIC)) {
		snprintf(err, errlen, "protocol %s is not known here; this bridge speaks %s",
			 words[0], CTL_MAGIC);
		return -1;
	}
	if (n >= 2 && !strcmp(words[1], "stats")) {
		r->verb = CTL_STATS;
		r->format = CTL_FMT_TEXT;
		if (n > 3) {
			snprintf(err, errlen, "stats takes one format at most");
			return -1;
		}
		if (n == 3) {
			int f = ctl_format_from_name(words[2]);

			if (f < 0) {
				snprintf(err, errlen, "unknown stats format \"%s\" (text, json "
					 "or openmetrics)", words[2]);
				return -1;
			}
			r->format = (enum ctl_format)f;
		}
		return 0;
	}
	if (n >= 2 && !strcmp(words[1], "reconfigure")) {
		r->verb = CTL_RECONFIGURE;
		if (n == 2) {
			snprintf(err, errlen, "reconfigure needs the discipline's words");
			return -1;
		}
		if (n - 2 > CTL_MAX_WORDS) {
			snprintf(err, errlen, "more than %d words", CTL_MAX_WORDS);
			return -1;
		}
		for (i = 2; i < n; i++)
			r->words[r->nwords++] = words[i];
		return 0;
	}
	snprintf(err, errlen, "unknown request \"%.32s\" (stats or reconfigure)",
		 n >= 2 ? words[1] : "");
	return -1;
}

static int printable_word(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if ((unsigned char)*w < 0x21 || (unsigned char)*w > 0x7e)
			return 0;
	return 1;
}

int ctl_format_request(const struct ctl_request *r, char *buf, size_t len)
{
	size_t n;
	int i, k;

	if (r->verb == CTL_STATS) {
		k = snprintf(buf, len, "%s stats %s\n", CTL_MAGIC, ctl_format_name(r->format));
		return k > 0 && (size_t)k < len && (size_t)k <= CTL_REQ_MAX ? k : -1;
	}
	if (r->nwords < 1 || r->nwords > CTL_MAX_WORDS)
		return -1;
	k = snprintf(buf, len, "%s reconfigure", CTL_MAGIC);
	if (k < 0 || (size_t)k >= len)
		return -1;
	n = (size_t)k;
	for (i = 0; i < r->nwords; i++) {
		if (!printable_word(r->words[i]))
			return -1;
		k = snprintf(buf + n, len - n, " %s", r->words[i]);
		if (k < 0 || (size_t)k >= len - n)
			return -1;
		n += (size_t)k;
	}
	if (n + 1 >= len || n + 1 > CTL_REQ_MAX)
		return -1;
	buf[n++] = '\n';
	buf[n] = 0;
	return (int)n;
}

int ctl_parse_reply(const char *msg, int *ok, const char **body)
{
	size_t m = strlen(CTL_MAGIC);

	if (strncmp(msg, CTL_MAGIC, m) || msg[m] != ' ')
		return -1;
	msg += m + 1;
	if (!strncmp(msg, "ok\n", 3)) {
		*ok = 1;
		*body = msg + 3;
	} else if (!strncmp(msg, "error\n", 6)) {
		*ok = 0;
		*body = msg + 6;
	} else {
		return -1;
	}
	return 0;
}

/* ---- the bridge's side ---- */

static void sun_for(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
}

int ctl_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, probe;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket path longer than %zu bytes: %s",
			 sizeof(sa.sun_path) - 1, path);
		return -1;
	}
	sun_for(&sa, path);
	/* a bridge answering there keeps its socket */
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0) {
		int busy = connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0;

		close(probe);
		if (busy) {
			snprintf(err, errlen, "control socket %s is in use by a running bridge "
				 "(stop it, or give this one another --socket)", path);
			return -1;
		}
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return -1;
	}
	unlink(path); /* stale: nobody listens on it */
	/* the socket's mode: read and write for the owner and its group, as
	 * far as the umask allows (bind made it 0777 less the umask): 0600
	 * with a umask of 077, 0660 for the group choke under the unit
	 * (UMask=0007; docs/operations.md) */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || stat(path, &st) ||
	    chmod(path, st.st_mode & 0660) || listen(fd, 8)) {
		snprintf(err, errlen, "control socket %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* 0, or -1 with the reason in err */
static int reply(int c, int ok, const char *body, size_t len, char *err, size_t errlen)
{
	char head[32];
	struct iovec iov[2];
	struct msghdr mh;

	snprintf(head, sizeof(head), "%s %s\n", CTL_MAGIC, ok ? "ok" : "error");
	iov[0].iov_base = head;
	iov[0].iov_len = strlen(head);
	iov[1].iov_base = (void *)body;
	iov[1].iov_len = len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	if (sendmsg(c, &mh, MSG_NOSIGNAL) < 0) {
		snprintf(err, errlen, "control reply: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int ctl_serve(int listen_fd, ctl_handler handler, void *ctx, char *err, size_t errlen)
{
	int c, rc = 0;

	while ((c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		struct timeval tv = { 0, 200000 };
		struct ctl_request *r = malloc(sizeof(*r));
		char msg[CTL_REQ_MAX + 2], text[256];
		ssize_t n;

		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		/* one byte more than a request may have: a longer one is refused,
		 * not cut */
		n = recv(c, msg, CTL_REQ_MAX + 1, 0);
		if (n > 0 && r) {
			msg[n] = 0;
			if (strncmp(msg, "choke-ctl/", 10)) {
				/* a client older than the protocol */
				snprintf(text, sizeof(text), "error: this bridge speaks %s; use "
					 "the `choke` of the same version\n", CTL_MAGIC);
				send(c, text, strlen(text), MSG_NOSIGNAL);
			} else if (ctl_parse_request(msg, (size_t)n, r, text, sizeof(text))) {
				strcat(text, "\n");
				rc |= reply(c, 0, text, strlen(text), err, errlen);
			} else {
				char *body = NULL;
				size_t blen = 0;
				FILE *f = open_memstream(&body, &blen);
				int ok;

				if (!f) {
					rc |= reply(c, 0, "out of memory\n", 14, err, errlen);
				} else {
					ok = handler(ctx, r, f) == 0;
					fclose(f);
					rc |= reply(c, ok, body, blen, err, errlen);
				}
				free(body);
			}
		}
		free(r);
		close(c);
	}
	return rc;
}

/* ---- the client's side ---- */

int ctl_call(const char *path, const struct ctl_request *r, char **body,
	     char *err, size_t errlen)
{
	return ctl_call_timeout(path, r, 0, body, err, errlen);
}

int ctl_call_timeout(const char *path, const struct ctl_request *r, int timeout_ms,
		     char **body, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	char req[CTL_REQ_MAX + 1], *buf;
	const char *b;
	int fd, len, ok, e;
	ssize_t n;

	*body = NULL;
	len = ctl_format_request(r, req, sizeof(req));
	if (len < 0) {
		snprintf(err, errlen, "the request does not fit the protocol (at most %d "
			 "printable words, %d bytes)", CTL_MAX_WORDS, CTL_REQ_MAX);
		return CTL_EIO;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return CTL_ENOBRIDGE;
	}
	sun_for(&sa, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return CTL_EIO;
	}
	if (timeout_ms > 0) {
		/* bounds connect (a full backlog), send and recv */
		struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		close(fd);
		if (e == EACCES || e == EPERM) {
			snprintf(err, errlen, "permission denied: %s (a bridge's socket is for "
				 "root and its group: run as root or in that group)", path);
			return CTL_EACCES;
		}
		if (e == ENOENT || e == ECONNREFUSED || e == ENOTDIR) {
			snprintf(err, errlen, "no running bridge at %s (%s)", path,
				 e == ECONNREFUSED ? "a stale socket: nobody listens on it"
						   : "no such socket");
			return CTL_ENOBRIDGE;
		}
		snprintf(err, errlen, "cannot reach the bridge at %s: %s", path, strerror(e));
		return CTL_EIO;
	}
	buf = malloc(CTL_REPLY_MAX + 1);
	errno = 0;
	if (!buf || send(fd, req, (size_t)len, MSG_NOSIGNAL) < 0 ||
	    (n = recv(fd, buf, CTL_REPLY_MAX, 0)) <= 0) {
		if (timeout_ms > 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			snprintf(err, errlen, "no answer from the bridge at %s within %d ms",
				 path, timeout_ms);
		else
			snprintf(err, errlen, "no answer from the bridge at %s", path);
		close(fd);
		free(buf);
		return CTL_EIO;
	}
	close(fd);
	buf[n] = 0;
	if (ctl_parse_reply(buf, &ok, &b)) {
		snprintf(err, errlen, "the bridge at %s answered outside the %s protocol: "
			 "%.80s", path, CTL_MAGIC, buf);
		free(buf);
		return CTL_EIO;
	}
	memmove(buf, b, strlen(b) + 1);
	*body = buf;
	return ok ? 0 : CTL_EREFUSED;
}
