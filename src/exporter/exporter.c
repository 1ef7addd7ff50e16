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
#include "../util/om.h"
#include "ask.h"
#include "http.h"
#include "merge.h"

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

/* ---- the state: each source's error once, until it changes ---- */

void exp_state_init(struct exp_state *st, int always, int widen)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	st->always = always;
	st->widen = widen;
}

void exp_state_free(struct exp_state *st)
{
	size_t i;

	for (i = 0; i < st->n; i++) {
		free(st->e[i].key);
		free(st->e[i].msg);
	}
	free(st->e);
	st->e = NULL;
	st->n = st->cap = 0;
	nlq_history_free(&st->hist);
	pthread_mutex_destroy(&st->lock);
}

/* what is said about source key now: msg, or NULL when it is fine (called
 * with the lock held) */
static void exp_note_locked(struct exp_state *l, const char *key, const char *msg)
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

static void exp_note(struct exp_state *l, const char *key, const char *msg)
{
	pthread_mutex_lock(&l->lock);
	exp_note_locked(l, key, msg);
	pthread_mutex_unlock(&l->lock);
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
			snprintf(err, errlen, "permission denied: %s (the bridges' sockets are for "
				 "root and their group: run the exporter as root or in that group, "
				 "choke under systemd)", dir);
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

static const char *const exp_reserved[] = { "choke_qdisc_", "choke_exporter_", "choke_build_",
					    NULL };
/* the bridges' series with a flow's addresses and ports as labels: many
 * over time, and personal data; only with --penalised-flows */
static const char *const exp_flow_families[] = { "choke_bridge_penalised_packets",
						 "choke_bridge_penalised_error_packets", NULL };

/* One bridge's answer into set: 1 if it answered with metrics that merged. */
static int exp_bridge(struct om_set *set, const struct exp_opts *o, struct exp_ask *a,
		      const char *label, struct exp_state *st)
{
	char err[700], merr[300];
	int rc = a->rc;

	snprintf(err, sizeof(err), "%s", a->err);
	if (rc == CTL_EREFUSED) {
		snprintf(err, sizeof(err), "the bridge at %s refused: %.300s", a->path,
			 a->body ? a->body : "");
		err[strcspn(err, "\n")] = 0;
	} else if (rc == 0 && om_merge(set, a->body, strlen(a->body), "bridge", label, exp_reserved,
				      o->penalised_flows ? NULL : exp_flow_families, merr,
				      sizeof(merr))) {
		snprintf(err, sizeof(err), "the bridge at %s answered metrics that do not parse: "
			 "%s", a->path, merr);
		rc = -1;
	}
	exp_note(st, a->path, rc ? err : NULL);
	return rc == 0;
}

static void exp_family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

int exp_budget_ms(long timeout_ms)
{
	if (timeout_ms <= 0)
		return EXP_DEADLINE_MS;
	if (timeout_ms >= 2 * EXP_MARGIN_MS)
		return (int)(timeout_ms - EXP_MARGIN_MS);
	return (int)(timeout_ms / 2 > 0 ? timeout_ms / 2 : 1);
}

/* The kernel's qdiscs, widened with the state's history (under its lock:
 * two scrapes at once see the readings in order). 0, or -1 with err. */
static int exp_qdiscs(struct nlq_set *qs, const struct exp_opts *o, struct exp_state *st,
		      long long deadline, char *err, size_t errlen)
{
	long long left = deadline - exp_ask_now_ms();
	int rc;

	if (left < 1)
		left = 1;
	pthread_mutex_lock(&st->lock);
	rc = o->qdisc_read ? o->qdisc_read(qs, (int)left, err, errlen)
			   : nlq_read(qs, (int)left, NULL, NULL, err, errlen);
	if (rc == 0 && nlq_widen(st->widen ? &st->hist : NULL, qs))
		fprintf(stderr, "choke: exporter: out of memory: the qdiscs' counters start "
			"again from their 32-bit values\n");
	pthread_mutex_unlock(&st->lock);
	return rc;
}

int exp_collect(FILE *f, const struct exp_opts *o, struct exp_state *st, int budget_ms)
{
	struct om_set set = { NULL, 0, 0 };
	struct nlq_set qs = { NULL, 0, 0, 0 };
	struct exp_ask *ask;
	char **scanned = NULL, label[300], err[600];
	const char *const *paths;
	int n = 0, i, failed = 0, scan_ok = 1, nl_ok = 1, *up;
	double t0 = exp_now();
	long long deadline = exp_ask_now_ms() + budget_ms;

	if (o->nsockets) {
		paths = o->sockets;
		n = o->nsockets;
	} else {
		scan_ok = exp_scan(o->dir, &scanned, &n, err, sizeof(err)) == 0;
		exp_note(st, o->dir, scan_ok ? NULL : err);
		failed += !scan_ok;
		paths = (const char *const *)scanned;
	}
	up = calloc((size_t)n + 1, sizeof(*up));
	ask = calloc((size_t)n + 1, sizeof(*ask));
	/* every bridge asked at once; the kernel read while they answer */
	for (i = 0; ask && i < n; i++)
		ask[i].path = paths[i];
	if (ask)
		exp_ask_start(ask, n);
	if (o->qdiscs) {
		nl_ok = exp_qdiscs(&qs, o, st, deadline, err, sizeof(err)) == 0;
		exp_note(st, "netlink", nl_ok ? NULL : err);
		failed += !nl_ok;
	}
	if (ask)
		exp_ask_wait(ask, n, deadline, budget_ms);
	for (i = 0; i < n; i++) {
		exp_bridge_label(o->dir, paths[i], label, sizeof(label));
		if (up && ask)
			up[i] = exp_bridge(&set, o, &ask[i], label, st);
		else
			exp_note(st, paths[i], "out of memory");
		failed += !up || !ask || !up[i];
		if (ask)
			free(ask[i].body);
	}
	free(ask);
	om_write(f, &set);
	om_free(&set);
	if (o->qdiscs) {
		nlq_write_metrics(f, &qs);
		nlq_free(&qs);
	}
	exp_family(f, "choke_build_info",
		   "The choke exporter's version (the version label), value 1.");
	fputs("choke_build_info{version=", f);
	om_label_value(f, o->version ? o->version : "");
	fputs("} 1\n", f);
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
	exp_family(f, "choke_exporter_scrape_budget_seconds",
		   "How long this scrape could take: Prometheus's scrape timeout "
		   "(X-Prometheus-Scrape-Timeout-Seconds) less 0.5 s, or 5 s without it.");
	fprintf(f, "choke_exporter_scrape_budget_seconds %.3f\n", budget_ms / 1000.0);
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

/* Write all of buf before the deadline. 0, or -1. */
static int exp_write_all(int c, const char *buf, size_t len, long long deadline)
{
	while (len > 0) {
		struct pollfd p = { c, POLLOUT, 0 };
		long long left = deadline - exp_ask_now_ms();
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

/* The landing page at /: what this is, where the metrics are. */
static void exp_landing(FILE *m, const struct exp_opts *o)
{
	fprintf(m, "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
		"<title>choke exporter</title></head>\n<body>\n<h1>choke exporter</h1>\n"
		"<p>Version %s. The counters of the CHOKe bridges (choke bridge) and of the "
		"kernel's choke and chokeplus qdiscs, for Prometheus.</p>\n"
		"<p><a href=\"/metrics\">/metrics</a></p>\n<ul>\n", o->version ? o->version : "?");
	/* the paths are the operator's: escaped for HTML */
	fputs("<li>bridges: ", m);
	if (o->nsockets) {
		fputs("the sockets given with --socket", m);
	} else {
		const char *c;

		fputs("every bridge-*.sock in ", m);
		for (c = o->dir; *c; c++) {
			if (*c == '<')
				fputs("&lt;", m);
			else if (*c == '>')
				fputs("&gt;", m);
			else if (*c == '&')
				fputs("&amp;", m);
			else
				fputc(*c, m);
		}
	}
	fprintf(m, "</li>\n<li>kernel qdiscs: %s</li>\n<li>per-flow series: %s</li>\n</ul>\n"
		"<p>Documentation: choke(1), /usr/share/doc/choke/operations.md.</p>\n"
		"</body>\n</html>\n", o->qdiscs ? "this network namespace's" : "not read",
		o->penalised_flows ? "served (--penalised-flows)" : "left out");
}

struct exp_conn_arg {
	int fd;
	const struct exp_opts *o;
	struct exp_state *st;
};

/* the connections being served, for the limit and a clean stop */
static pthread_mutex_t exp_conns_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t exp_conns_cond = PTHREAD_COND_INITIALIZER;
static int exp_conns;

/* One connection: read its head, answer, close. */
static void exp_conn(int c, const struct exp_opts *o, struct exp_state *st)
{
	char head[HTTP_MAX_HEAD + 1], rh[256], *body = NULL;
	long long deadline = exp_ask_now_ms() + EXP_READ_MS;
	size_t len = 0, blen = 0;
	int status = 0, head_only = 0, hl;
	enum http_page page = HTTP_PAGE_METRICS;
	const char *ctype = "text/plain; charset=utf-8";
	FILE *m;

	while (!(status = http_judge(head, len, &head_only, &page))) {
		struct pollfd p = { c, POLLIN, 0 };
		long long left = deadline - exp_ask_now_ms();
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
	if (status == 200 && page == HTTP_PAGE_ROOT) {
		exp_landing(m, o);
		ctype = "text/html; charset=utf-8";
	} else if (status == 200) {
		exp_collect(m, o, st, exp_budget_ms(http_scrape_timeout_ms(head, len)));
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
	deadline = exp_ask_now_ms() + EXP_WRITE_MS;
	if (hl > 0 && exp_write_all(c, rh, (size_t)hl, deadline) == 0 && !head_only)
		exp_write_all(c, body, blen, deadline);
	free(body);
	/* let the client read it all: half-close, then drain what it still sends
	 * (closing with unread input would reset the connection) */
	shutdown(c, SHUT_WR);
	deadline = exp_ask_now_ms() + 200;
	for (len = 0; len < 65536;) {
		struct pollfd p = { c, POLLIN, 0 };
		long long left = deadline - exp_ask_now_ms();
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

static void *exp_conn_thread(void *p)
{
	struct exp_conn_arg *a = p;

	exp_conn(a->fd, a->o, a->st);
	close(a->fd);
	free(a);
	pthread_mutex_lock(&exp_conns_lock);
	exp_conns--;
	pthread_cond_broadcast(&exp_conns_cond);
	pthread_mutex_unlock(&exp_conns_lock);
	return NULL;
}

/* A connection beyond EXP_MAX_CONNS: 503 now, without reading its request.
 * Its request is then drained for at most EXP_BUSY_DRAIN_MS (closing with
 * unread input would reset the connection before the client reads the
 * answer); that bounds what a flood of connections costs the accept loop. */
#define EXP_BUSY_DRAIN_MS 100
static void exp_busy(int c)
{
	static const char body[] = "503 Service Unavailable: too many connections at once\n";
	long long deadline = exp_ask_now_ms() + EXP_BUSY_DRAIN_MS;
	char rh[256], sink[1024];
	int hl = http_head(rh, sizeof(rh), 503, sizeof(body) - 1, "text/plain; charset=utf-8");

	if (hl > 0 && send(c, rh, (size_t)hl, MSG_NOSIGNAL | MSG_DONTWAIT) == hl)
		send(c, body, sizeof(body) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(c, SHUT_WR);
	for (;;) {
		struct pollfd p = { c, POLLIN, 0 };
		long long left = deadline - exp_ask_now_ms();

		if (left <= 0 || poll(&p, 1, (int)left) <= 0 ||
		    recv(c, sink, sizeof(sink), MSG_DONTWAIT) <= 0)
			break;
	}
	close(c);
}

/* Hand a connection to a thread of its own (or answer 503). */
static void exp_dispatch(int c, const struct exp_opts *o, struct exp_state *st)
{
	struct exp_conn_arg *a;
	pthread_attr_t at;
	pthread_t t;
	int busy;

	pthread_mutex_lock(&exp_conns_lock);
	busy = exp_conns >= EXP_MAX_CONNS;
	if (!busy)
		exp_conns++;
	pthread_mutex_unlock(&exp_conns_lock);
	if (busy) {
		exp_busy(c);
		return;
	}
	a = malloc(sizeof(*a));
	if (a) {
		a->fd = c;
		a->o = o;
		a->st = st;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, exp_conn_thread, a) == 0) {
			pthread_attr_destroy(&at);
			return;
		}
		pthread_attr_destroy(&at);
		free(a);
	}
	fprintf(stderr, "choke: exporter: cannot start a thread for a connection\n");
	exp_busy(c);
	pthread_mutex_lock(&exp_conns_lock);
	exp_conns--;
	pthread_mutex_unlock(&exp_conns_lock);
}

int exp_serve(const struct exp_opts *o)
{
	struct sockaddr_storage ss;
	struct exp_state st;
	struct rt_notify nt;
	struct timespec until;
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
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 64)) {
		fprintf(stderr, "choke: exporter: cannot listen on %s: %s\n", o->listen,
			strerror(errno));
		close(fd);
		return 1;
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	exp_addr_name(&ss, name, sizeof(name));
	exp_state_init(&st, 0, 1);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = exp_on_signal; /* no SA_RESTART: ppoll returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the signals arrive only while waiting for a connection (the
	 * connections' threads are started with them blocked) */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);

	fprintf(stderr, "choke: exporter: listening on http://%s/metrics (bridges: %s; kernel "
		"qdiscs: %s; per-flow series: %s)\n", name, o->nsockets ? "--socket" : o->dir,
		o->qdiscs ? "yes" : "no", o->penalised_flows ? "yes" : "no");
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
		exp_dispatch(c, o, &st);
	}
	if (rt_notify(&nt, nerr, sizeof(nerr), "STOPPING=1"))
		fprintf(stderr, "choke: exporter: %s\n", nerr);
	rt_notify_close(&nt);
	close(fd);
	/* the connections being served get a moment to finish */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&exp_conns_lock);
	while (exp_conns > 0 &&
	       pthread_cond_timedwait(&exp_conns_cond, &exp_conns_lock, &until) == 0)
		;
	one = exp_conns;
	pthread_mutex_unlock(&exp_conns_lock);
	if (one == 0)
		exp_state_free(&st); /* (else the threads still use it: exit frees all) */
	fprintf(stderr, "choke: exporter: stopped%s\n",
		one ? " (connections still open were cut)" : "");
	return 0;
}
