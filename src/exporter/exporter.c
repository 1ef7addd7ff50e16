/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* `choke exporter`: sources, the exposition, the HTTP loop. See exporter.h. */
#include "exporter.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../bridge/control.h"
#include "../bridge/runtime.h"
#include "http.h"
#include "merge.h"
#include "nlqdisc.h"
#include "../util/om.h"

/* ---- the listening address ---- */

int exp_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		     size_t errlen)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char host[64], *end;
	const char *colon;
	unsigned long port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			goto bad;
		hl = (size_t)(close - s - 1);
		colon = close + 1;
		if (hl == 0 || hl >= sizeof(host))
			goto bad;
		memcpy(host, s + 1, hl);
	} else {
		colon = strrchr(s, ':');
		if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
			goto bad;
		hl = (size_t)(colon - s);
		memcpy(host, s, hl);
	}
	host[hl] = 0;
	if (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
		goto bad;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || port > 65535)
		goto bad;
	if (s[0] == '[') {
		if (inet_pton(AF_INET6, host, &v6->sin6_addr) != 1)
			goto bad;
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*v6);
	} else {
		if (inet_pton(AF_INET, host, &v4->sin_addr) != 1)
			goto bad;
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof(*v4);
	}
	return 0;
bad:
	snprintf(err, errlen, "--listen takes ADDR:PORT (an IPv4 address, or an IPv6 one in "
		 "brackets, and a port from 0 to 65535; e.g. 127.0.0.1:9469 or [::1]:9469), "
		 "not \"%s\"", s);
	return -1;
}

static void exp_addr_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &v6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(v6->sin6_port));
	} else {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &v4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(v4->sin_port));
	}
}

/* ---- the log: each source's error once, until it changes ---- */

static void exp_note(struct exp_log *l, const char *key, const char *msg)
{
	struct exp_log_entry *e = NULL;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->e[i].key, key))
			e = &l->e[i];
	if (l->always) {
		if (msg)
			fprintf(stderr, "choke: exporter: %s\n", msg);
		return;
	}
	if (!e) {
		if (!msg)
			return; /* fine, and never said otherwise */
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct exp_log_entry *ne = realloc(l->e, cap * sizeof(*ne));

			if (!ne) {
				fprintf(stderr, "choke: exporter: %s\n", msg);
				return;
			}
			l->e = ne;
			l->cap = cap;
		}
		e = &l->e[l->n];
		e->key = strdup(key);
		e->msg = NULL;
		if (!e->key) {
			fprintf(stderr, "choke: exporter: %s\n", msg);
			return;
		}
		l->n++;
	}
	if (msg && e->msg && !strcmp(msg, e->msg))
		return;
	if (msg)
		fprintf(stderr, "choke: exporter: %s\n", msg);
	else if (e->msg)
		fprintf(stderr, "choke: exporter: %s: answers again\n", key);
	free(e->msg);
	e->msg = msg ? strdup(msg) : NULL;
}

void exp_log_free(struct exp_log *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->e[i].key);
		free(l->e[i].msg);
	}
	free(l->e);
	l->e = NULL;
	l->n = l->cap = 0;
}

/* ---- the sources ---- */

void exp_bridge_label(const char *dir, const char *path, char *buf, size_t len)
{
	size_t dl = strlen(dir), pl = strlen(path);
	const char *base = path + dl + 1;

	if (pl > dl + 1 && !strncmp(path, dir, dl) && path[dl] == '/' && !strchr(base, '/') &&
	    !strncmp(base, "bridge-", 7) && strlen(base) > 12 &&
	    !strcmp(path + pl - 5, ".sock"))
		snprintf(buf, len, "%.*s", (int)(strlen(base) - 12), base + 7);
	else
		snprintf(buf, len, "%s", path);
}

static int exp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The bridges' sockets in dir (bridge-*.sock that are sockets), sorted;
 * *n of them in a malloc'd array of malloc'd paths. -1 with a message if
 * the directory cannot be read; none if it does not exist. */
static int exp_scan(const char *dir, char ***paths, int *n, char *err, size_t errlen)
{
	struct dirent *d;
	struct stat st;
	char **v = NULL, *p;
	DIR *dh;
	int cap = 0;

	*n = 0;
	*paths = NULL;
	dh = opendir(dir);
	if (!dh) {
		if (errno == ENOENT)
			return 0;
		if (errno == EACCES || errno == EPERM)
			snprintf(err, errlen, "permission denied: %s (the bridges' sockets are "
				 "root's: run as root)", dir);
		else
			snprintf(err, errlen, "cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dh)) != NULL) {
		size_t l = strlen(d->d_name);

		if (strncmp(d->d_name, "bridge-", 7) || l < 13 || strcmp(d->d_name + l - 5, ".sock"))
			continue;
		if (asprintf(&p, "%s/%s", dir, d->d_name) < 0)
			break;
		if (lstat(p, &st) || !S_ISSOCK(st.st_mode) || *n >= EXP_MAX_BRIDGES) {
			if (*n >= EXP_MAX_BRIDGES)
				fprintf(stderr, "choke: exporter: more than %d bridges in %s; "
					"%s left out\n", EXP_MAX_BRIDGES, dir, p);
			free(p);
			continue;
		}
		if (*n == cap) {
			char **nv = realloc(v, (size_t)(cap ? 2 * cap : 16) * sizeof(*nv));

			if (!nv) {
				free(p);
				break;
			}
			v = nv;
			cap = cap ? 2 * cap : 16;
		}
		v[(*n)++] = p;
	}
	closedir(dh);
	if (*n)
		qsort(v, (size_t)*n, sizeof(*v), exp_cmp);
	*paths = v;
	return 0;
}

static double exp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *const exp_reserved[] = { "choke_qdisc_", "choke_exporter_", NULL };

/* One bridge into set: 1 if it answered with metrics that merged. */
static int exp_bridge(struct om_set *set, const struct exp_opts *o, const char *path,
		      const char *label, struct exp_log *log)
{
	struct ctl_request r;
	char err[700], merr[300], *body = NULL;
	int rc;

	memset(&r, 0, sizeof(r));
	r.verb = CTL_STATS;
	r.format = CTL_FMT_OPENMETRICS;
	if (o->bridge_call)
		rc = o->bridge_call(path, o->timeout_ms, &body, err, sizeof(err));
	else
		rc = ctl_call_timeout(path, &r, o->timeout_ms, &body, err, sizeof(err));
	if (rc == CTL_EREFUSED) {
		snprintf(err, sizeof(err), "the bridge at %s refused: %.300s", path,
			 body ? body : "");
		err[strcspn(err, "\n")] = 0;
	} else if (rc == 0 && om_merge(set, body, strlen(body), "bridge", label, exp_reserved,
				      merr, sizeof(merr))) {
		snprintf(err, sizeof(err), "the bridge at %s answered metrics that do not parse: "
			 "%s", path, merr);
		rc = -1;
	}
	free(body);
	exp_note(log, path, rc ? err : NULL);
	return rc == 0;
}

static void exp_family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

int exp_collect(FILE *f, const struct exp_opts *o, struct exp_log *log)
{
	struct om_set set = { NULL, 0, 0 };
	struct nlq_set qs = { NULL, 0, 0, 0 };
	char **scanned = NULL, label[300], err[600];
	const char *const *paths;
	int n = 0, i, failed = 0, scan_ok = 1, nl_ok = 1, *up;
	double t0 = exp_now();

	if (o->nsockets) {
		paths = o->sockets;
		n = o->nsockets;
	} else {
		scan_ok = exp_scan(o->dir, &scanned, &n, err, sizeof(err)) == 0;
		exp_note(log, o->dir, scan_ok ? NULL : err);
		failed += !scan_ok;
		paths = (const char *const *)scanned;
	}
	up = calloc((size_t)n + 1, sizeof(*up));
	for (i = 0; i < n; i++) {
		exp_bridge_label(o->dir, paths[i], label, sizeof(label));
		if (up)
			up[i] = exp_bridge(&set, o, paths[i], label, log);
		failed += !up || !up[i];
	}
	om_write(f, &set);
	om_free(&set);
	if (o->qdiscs) {
		nl_ok = (o->qdisc_read ? o->qdisc_read(&qs, o->timeout_ms, err, sizeof(err))
				       : nlq_read(&qs, o->timeout_ms, NULL, NULL, err, sizeof(err))) == 0;
		exp_note(log, "netlink", nl_ok ? NULL : err);
		failed += !nl_ok;
		nlq_write_metrics(f, &qs);
		nlq_free(&qs);
	}
	exp_family(f, "choke_exporter_bridge_up",
		   "1 if the bridge answered with metrics, 0 if not (the exporter's log "
		   "says why).");
	for (i = 0; i < n; i++) {
		exp_bridge_label(o->dir, paths[i], label, sizeof(label));
		fputs("choke_exporter_bridge_up{bridge=", f);
		om_label_value(f, label);
		fputs(",socket=", f);
		om_label_value(f, paths[i]);
		fprintf(f, "} %d\n", up ? up[i] : 0);
	}
	if (!o->nsockets) {
		exp_family(f, "choke_exporter_bridge_scan_up",
			   "1 if the directory of the bridges' sockets could be read (or does "
			   "not exist: no bridge).");
		fputs("choke_exporter_bridge_scan_up{dir=", f);
		om_label_value(f, o->dir);
		fprintf(f, "} %d\n", scan_ok);
	}
	if (o->qdiscs) {
		exp_family(f, "choke_exporter_qdiscs_up",
			   "1 if the kernel's qdiscs could be read over rtnetlink.");
		fprintf(f, "choke_exporter_qdiscs_up %d\n", nl_ok);
	}
	exp_family(f, "choke_exporter_scrape_duration_seconds",
		   "How long collecting this exposition took.");
	fprintf(f, "choke_exporter_scrape_duration_seconds %.6f\n", exp_now() - t0);
	fputs("# EOF\n", f);
	for (i = 0; scanned && i < n; i++)
		free(scanned[i]);
	free(scanned);
	free(up);
	return failed;
}

/* ---- HTTP ---- */

static volatile sig_atomic_t exp_stop;

static void exp_on_signal(int sig)
{
	(void)sig;
	exp_stop = 1;
}

static long long exp_ms(void)
{
	return (long long)(exp_now() * 1000);
}

/* Write all of buf before the deadline. 0, or -1. */
static int exp_write_all(int c, const char *buf, size_t len, long long deadline)
{
	while (len > 0) {
		struct pollfd p = { c, POLLOUT, 0 };
		long long left = deadline - exp_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		n = send(c, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One connection: read its head, answer, close. */
static void exp_conn(int c, const struct exp_opts *o, struct exp_log *log)
{
	char head[HTTP_MAX_HEAD + 1], rh[256], *body = NULL;
	long long deadline = exp_ms() + EXP_READ_MS;
	size_t len = 0, blen = 0;
	int status = 0, head_only = 0, hl;
	const char *ctype = "text/plain; charset=utf-8";
	FILE *m;

	while (!(status = http_judge(head, len, &head_only))) {
		struct pollfd p = { c, POLLIN, 0 };
		long long left = deadline - exp_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			status = 408;
			break;
		}
		n = recv(c, head + len, HTTP_MAX_HEAD - len, 0);
		if (n == 0)
			return; /* the client went away */
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return;
		}
		len += (size_t)n;
	}
	m = open_memstream(&body, &blen);
	if (!m)
		return;
	if (status == 200) {
		exp_collect(m, o, log);
		ctype = EXP_CONTENT_TYPE;
	} else {
		fprintf(m, "%d %s%s\n", status, http_reason(status),
			status == 404 ? ": the metrics are at /metrics" : "");
	}
	if (fclose(m)) {
		free(body);
		return;
	}
	hl = http_head(rh, sizeof(rh), status, blen, ctype);
	deadline = exp_ms() + EXP_WRITE_MS;
	if (hl > 0 && exp_write_all(c, rh, (size_t)hl, deadline) == 0 && !head_only)
		exp_write_all(c, body, blen, deadline);
	free(body);
	/* let the client read it all: half-close, then drain what it still sends
	 * (closing with unread input would reset the connection) */
	shutdown(c, SHUT_WR);
	deadline = exp_ms() + 200;
	for (len = 0; len < 65536;) {
		struct pollfd p = { c, POLLIN, 0 };
		long long left = deadline - exp_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		n = recv(c, head, sizeof(head), 0);
		if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
			break;
		if (n > 0)
			len += (size_t)n;
	}
}

int exp_serve(const struct exp_opts *o)
{
	struct sockaddr_storage ss;
	struct exp_log log = { NULL, 0, 0, 0 };
	struct rt_notify nt;
	char nerr[256];
	struct sigaction sa;
	sigset_t block, wait_mask;
	socklen_t sl;
	char err[300], name[80];
	int fd, one = 1;

	if (exp_parse_listen(o->listen, &ss, &sl, err, sizeof(err))) {
		fprintf(stderr, "choke: exporter: %s\n", err);
		return 1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		fprintf(stderr, "choke: exporter: socket: %s\n", strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 16)) {
		fprintf(stderr, "choke: exporter: cannot listen on %s: %s\n", o->listen,
			strerror(errno));
		close(fd);
		return 1;
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	exp_addr_name(&ss, name, sizeof(name));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = exp_on_signal; /* no SA_RESTART: ppoll returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the signals arrive only while waiting for a connection */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);

	fprintf(stderr, "choke: exporter: listening on http://%s/metrics (bridges: %s; kernel "
		"qdiscs: %s)\n", name, o->nsockets ? "--socket" : o->dir,
		o->qdiscs ? "yes" : "no");
	if (rt_notify_open(&nt, nerr, sizeof(nerr)) ||
	    rt_notify(&nt, nerr, sizeof(nerr), "READY=1\nSTATUS=listening on %s\nMAINPID=%d", name,
		      (int)getpid()))
		fprintf(stderr, "choke: exporter: %s\n", nerr);
	while (!exp_stop) {
		struct pollfd p = { fd, POLLIN, 0 };
		int c;

		if (ppoll(&p, 1, NULL, &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "choke: exporter: poll: %s\n", strerror(errno));
			break;
		}
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
			    errno == ENOBUFS) {
				fprintf(stderr, "choke: exporter: accept: %s\n", strerror(errno));
				usleep(100000);
			}
			continue;
		}
		exp_conn(c, o, &log);
		close(c);
	}
	if (rt_notify(&nt, nerr, sizeof(nerr), "STOPPING=1"))
		fprintf(stderr, "choke: exporter: %s\n", nerr);
	rt_notify_close(&nt);
	close(fd);
	exp_log_free(&log);
	fprintf(stderr, "choke: exporter: stopped\n");
	return 0;
}
