/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The bridge's control socket: the protocol between a running bridge and
 * `choke stats`, `choke reconfigure` (and any other client, such as a
 * metrics exporter), declared once for both sides.
 *
 * Transport: an AF_UNIX SOCK_SEQPACKET socket (default
 * /run/choke/bridge-IF_A.sock, mode 0660 less the umask). A client connects, sends one
 * request message, reads one reply message; the bridge then closes the
 * connection.
 *
 * Request (version 1): one line of printable ASCII (0x21-0x7e) words
 * separated by spaces or tabs, optionally ending with one newline, at most
 * CTL_REQ_MAX bytes:
 *
 *     choke-ctl/1 stats [text|json|openmetrics]      (default text)
 *     choke-ctl/1 reconfigure [choke|red|fifo] WORDS...
 *
 * Reply: a status line, then the body:
 *
 *     choke-ctl/1 ok\n BODY              stats: the rendering;
 *                                        reconfigure: the new parameters
 *                                        in tc's style and a newline
 *     choke-ctl/1 error\n MESSAGE\n      what was wrong; nothing changed
 *
 * A request without the version word (from a `choke` older than the
 * protocol) gets the one-line reply "error: ..." naming the version this
 * bridge speaks. A new version gets a new number; a bridge answers a version
 * it does not know with an error reply naming the one it speaks.
 */
#ifndef CHOKE_BRIDGE_CONTROL_H
#define CHOKE_BRIDGE_CONTROL_H

#include <stddef.h>
#include <stdio.h>

#define CTL_VERSION 1
#define CTL_MAGIC "choke-ctl/1"
#define CTL_REQ_MAX 4096
#define CTL_REPLY_MAX (1 << 20)
#define CTL_MAX_WORDS 64

enum ctl_verb { CTL_STATS, CTL_RECONFIGURE };
enum ctl_format { CTL_FMT_TEXT, CTL_FMT_JSON, CTL_FMT_OPENMETRICS };

struct ctl_request {
	enum ctl_verb verb;
	enum ctl_format format;   /* stats */
	int nwords;               /* reconfigure: the discipline's words */
	char *words[CTL_MAX_WORDS]; /* point into buf */
	char buf[CTL_REQ_MAX + 1];
};

/* Errors of the client side. */
enum {
	CTL_ENOBRIDGE = -1, /* no socket there, or nobody listening on it */
	CTL_EACCES = -2,    /* not allowed to reach the socket */
	CTL_EIO = -3,       /* the bridge did not answer, or not in the protocol */
	CTL_EREFUSED = -4,  /* the bridge answered with an error */
};

/* "text", "json", "openmetrics" <-> enum ctl_format; -1 if unknown. */
int ctl_format_from_name(const char *name);
const char *ctl_format_name(enum ctl_format f);

/* Parse a request message of len bytes (not NUL-terminated). 0, or -1 with
 * a message in err. */
int ctl_parse_request(const char *msg, size_t len, struct ctl_request *r,
		      char *err, size_t errlen);

/* Write a request message into buf (with its newline). Returns its length,
 * or -1 if it does not fit or a word is not a printable word. */
int ctl_format_request(const struct ctl_request *r, char *buf, size_t len);

/* Split a reply message (NUL-terminated) into status and body: 0 with *ok
 * set and *body pointing after the status line, or -1 if it is not a reply
 * of this protocol. */
int ctl_parse_reply(const char *msg, int *ok, const char **body);

/* ---- the bridge's side ---- */

/* Create, bind and listen on the socket at path (mode 0660 less the
 * umask: 0600 with 077, 0640 with 022, 0660 under the unit). A socket file
 * a live bridge answers on is left alone and refused; a stale one (nobody
 * listening) is replaced. Returns the listening fd, or -1 with a message. */
int ctl_listen(const char *path, char *err, size_t errlen);

/* Answer the request of each pending connection: handler renders the reply
 * body into reply and returns 0 (ok) or -1 (error: the body is the
 * message). Returns 0, or -1 with the reason in err when a reply could not
 * be sent (the client went away; the others are answered). */
typedef int (*ctl_handler)(void *ctx, const struct ctl_request *r, FILE *reply);
int ctl_serve(int listen_fd, ctl_handler handler, void *ctx, char *err, size_t errlen);

/* ---- the client's side ---- */

/* Send request r to the bridge at path and wait for its reply. On 0 or
 * CTL_EREFUSED, *body (malloc'd, the caller frees) holds the reply's body;
 * otherwise err says what went wrong, naming the path. */
int ctl_call(const char *path, const struct ctl_request *r, char **body,
	     char *err, size_t errlen);
/* The same, each step (connect, send, the reply) bounded by timeout_ms (0:
 * unbounded, as ctl_call); a bridge that does not answer in time is
 * CTL_EIO ("no answer ... within N ms"). */
int ctl_call_timeout(const char *path, const struct ctl_request *r, int timeout_ms,
		     char **body, char *err, size_t errlen);

#endif
