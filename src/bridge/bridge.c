/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* choke bridge, its lifecycle: one bridge per interface (locks), setting up
 * both directions, dropping privileges, the control socket's requests,
 * signals, reload, and telling systemd. The data path is dataplane.c. */
#include "bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "dataplane.h"
#include "runtime.h"
#include "stats.h"

/* The poll set: the control socket, the signals, link notifications, and
 * each direction's receive sockets (one per queue with AF_XDP). */
#define BRIDGE_MAX_FDS (3 + 2 * XDPB_MAX_QUEUES)

struct bridge {
	const struct bridge_opts *cmdline; /* the command line alone */
	struct bridge_opts run;            /* with the file's, as running */
	struct dp_dir d[2];
	struct xdpb x; /* --backend xdp: the UMEM and the sockets */
	int ndirs;
	int ctl_fd, sig_fd;
	struct rt_notify notify;
	struct rt_links links;
	struct rt_lock lock[2];
	/* the interfaces by name (0: in, 1: out): the index the sockets are
	 * bound to, whether that is still the name's interface, its MTU at
	 * start */
	int bound[2], present[2];
	long mtu0[2];
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint64_t start_ns;
	long mtu[2];   /* now */
	int xdp_closed; /* AF_XDP: the sockets are closed (being opened again) */
	uint64_t last_follow_ns;
	int stop;
	int failed; /* stop with exit status 1 (an interface that cannot be followed) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Tell systemd (a failure is logged, nothing more). */
__attribute__((format(printf, 2, 3)))
static void notify(struct bridge *br, const char *fmt, ...)
{
	char msg[256], err[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rt_notify(&br->notify, err, sizeof(err), "%s", msg))
		fprintf(stderr, "choke: bridge: %s\n", err);
}

/* ---- the counters, the discipline ---- */

/* The counters at one moment, as nearly as the kernel's and ours can be
 * read together: the interfaces' receive counters first, then the frames
 * already in our receive rings are taken in, then our counters, then the
 * interfaces' transmit counters (which count what we sent synchronously).
 * So the kernel's received frames are ours or in flight, its sent frames
 * ours. */
static void snapshot(struct bridge *br, struct stats_snapshot *s)
{
	struct stats_if rx[2];
	int i, k;

	memset(s, 0, sizeof(*s));
	s->pid = (int)getpid();
	s->ndirs = br->ndirs;
	for (i = 0; i < br->ndirs; i++)
		stats_read_if(br->d[i].in, &rx[i]);
	for (i = 0; i < br->ndirs; i++)
		dp_receive(&br->d[i], now_ns());
	s->uptime_s = (double)(now_ns() - br->start_ns) / 1e9;
	for (i = 0; i < br->ndirs; i++)
		stats_take_dir(&br->d[i], &s->d[i]);
	for (i = 0; i < br->ndirs; i++) {
		stats_read_if(br->d[i].in, &s->d[i].if_in);
		stats_read_if(br->d[i].out, &s->d[i].if_out);
	}
	/* each interface's receive counters from the first reading */
	for (i = 0; i < br->ndirs; i++)
		for (k = STATS_IF_RX_PACKETS; k <= STATS_IF_RX_ERRORS; k++) {
			s->d[i].if_in.c[k] = rx[i].c[k];
			if (br->ndirs == 2)
				s->d[1 - i].if_out.c[k] = rx[i].c[k];
		}
}

/* Apply the discipline of o's words to every shaped direction; msg gets
 * "ok: PARAMS" or "error: WHY". */
static int apply(struct bridge *br, const struct bridge_opts *o, char *msg, size_t len)
{
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE + 64];
	int i;

	if (bridge_discipline(o, &p, err, sizeof(err))) {
		snprintf(msg, len, "error: %s", err);
		return -1;
	}
	for (i = 0; i < br->ndirs; i++)
		if (dp_reconfigure(&br->d[i], &p, err, sizeof(err))) {
			snprintf(msg, len, "error: %s", err);
			return -1;
		}
	choke_params_format(&p.cfg, err, sizeof(err));
	snprintf(msg, len, "ok: %s", err);
	return 0;
}

static int handle(void *ctx, const struct ctl_request *r, FILE *reply)
{
	struct bridge *br = ctx;
	char msg[512];

	if (r->verb == CTL_STATS) {
		struct stats_snapshot s;

		snapshot(br, &s);
		if (r->format == CTL_FMT_JSON)
			stats_write_json(reply, &s);
		else if (r->format == CTL_FMT_OPENMETRICS)
			stats_write_openmetrics(reply, &s);
		else
			stats_write_text(reply, &s);
		return 0;
	}
	{
		struct bridge_opts *t = malloc(sizeof(*t));
		char err[300];
		int rc = -1;

		if (!t) {
			fprintf(reply, "out of memory\n");
			return -1;
		}
		*t = br->run;
		if (bridge_set_words(t, r->nwords, r->words, err, sizeof(err)))
			snprintf(msg, sizeof(msg), "error: %s", err);
		else
			rc = apply(br, t, msg, sizeof(msg));
		free(t);
		fprintf(stderr, "choke: bridge: reconfigure: %s\n", msg);
		fprintf(reply, "%s\n", msg + (rc ? 7 : 4)); /* without "error: ", "ok: " */
		return rc;
	}
}

/* SIGHUP: the file and the command line again, as at start. */
static void reload(struct bridge *br)
{
	struct bridge_opts *t;
	char msg[600];
	int k;

	if (!br->run.config_file[0]) {
		fprintf(stderr, "choke: bridge: SIGHUP: no --config file to reload\n");
		return;
	}
	t = malloc(sizeof(*t));
	if (!t) {
		fprintf(stderr, "choke: bridge: SIGHUP: out of memory\n");
		return;
	}
	*t = *br->cmdline;
	if (bridge_config_read(t, br->run.config_file, msg, sizeof(msg))) {
		fprintf(stderr, "choke: bridge: SIGHUP: %s; nothing changed\n", msg);
		free(t);
		return;
	}
	for (k = 0; k < BO_NOPTS; k++) {
		const struct bridge_opts *a = t, *b = &br->run;
		int changed = 0;

		if (!t->line[k])
			continue;
		switch (k) { /* what only a restart changes */
		case BO_IN:
			changed = strcmp(a->in, b->in) != 0;
			break;
		case BO_OUT:
			changed = strcmp(a->out, b->out) != 0;
			break;
		case BO_RATE:
			changed = a->rate_bps != b->rate_bps;
			break;
		case BO_BURST:
			changed = a->burst_bytes != b->burst_bytes;
			break;
		case BO_DUPLEX:
			changed = a->duplex != b->duplex;
			break;
		case BO_SOCKET:
			changed = strcmp(a->socket_path, b->socket_path) != 0;
			break;
		case BO_ALLOW_MTU_MISMATCH:
			changed = a->allow_mtu_mismatch != b->allow_mtu_mismatch;
			break;
		case BO_RX_RING:
			changed = a->rx_v2 != b->rx_v2;
			break;
		case BO_BACKEND:
			changed = a->xdp != b->xdp;
			break;
		case BO_BUSY_POLL:
			changed = a->busy_poll_us != b->busy_poll_us;
			break;
		case BO_SEED:
			changed = a->seed != b->seed;
			break;
		}
		if (changed)
			fprintf(stderr, "choke: bridge: SIGHUP: %s:%d: %s changed; it takes a "
				"restart (not applied)\n", t->config_file, t->line[k],
				bridge_options[k].name);
	}
	t->rate_bps = br->run.rate_bps; /* the running rate shapes the words */
	if (apply(br, t, msg, sizeof(msg)) == 0) {
		memcpy(br->run.wordbuf, t->wordbuf, sizeof(t->wordbuf));
		br->run.nwords = t->nwords;
		br->run.words_line = t->words_line;
	}
	fprintf(stderr, "choke: bridge: SIGHUP: %s\n", msg);
	free(t);
}

/* ---- setting up ---- */

static int setup(struct bridge *br, const struct choke_params *q, char *err, size_t errlen)
{
	const struct bridge_opts *o = &br->run;
	long mtu_in = rt_mtu(o->in), mtu_out = rt_mtu(o->out);
	struct dp_config c;
	uint64_t now = now_ns();
	uint32_t xdp_limit = 0;
	int i;

	if (rt_lock_iface(o->in, &br->lock[0], err, errlen) ||
	    rt_lock_iface(o->out, &br->lock[1], err, errlen))
		return -1;
	if (mtu_in < 0 || mtu_out < 0) {
		snprintf(err, errlen, "no such interface: %s", mtu_in < 0 ? o->in : o->out);
		return -1;
	}
	if (mtu_in != mtu_out && !o->allow_mtu_mismatch) {
		/* both directions forward: the larger side's frames could not */
		snprintf(err, errlen, "MTU mismatch: %s has MTU %ld but %s only %ld, so "
			 "larger frames could not be forwarded; make them equal or pass "
			 "--allow-mtu-mismatch (oversize frames are then dropped and counted)",
			 mtu_in > mtu_out ? o->in : o->out, mtu_in > mtu_out ? mtu_in : mtu_out,
			 mtu_in > mtu_out ? o->out : o->in, mtu_in > mtu_out ? mtu_out : mtu_in);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	/* Ethernet header, two VLAN tags, and slack */
	c.max_frame = (uint32_t)(mtu_in > mtu_out ? mtu_in : mtu_out) + 14 + 8 + 4;
	c.rate_bps = o->rate_bps;
	c.burst_bytes = o->burst_bytes;
	c.q = q;
	c.seed = o->seed;
	if (o->xdp) {
		for (i = 0; i < 2; i++) {
			const char *ifn = i ? o->out : o->in;

			if (br->lock[i].stale && xdpb_clear_stale(ifn) > 0)
				fprintf(stderr, "choke: bridge: %s: detached the XDP program a "
					"killed bridge left behind\n", ifn);
		}
	}
	if (o->xdp) {
		/* the UMEM: every socket's fill and transmit rings full (xdp.c
		 * counts them), two queues at the limit (at least
		 * XDPB_LIMIT_MIN, so that a reconfigure can grow it), and a
		 * batch's slack */
		xdp_limit = q->cfg.limit > XDPB_LIMIT_MIN ? q->cfg.limit : XDPB_LIMIT_MIN;
		if (xdpb_open(&br->x, o->in, o->out, 2 * xdp_limit + 512, c.max_frame,
			      o->busy_poll_us, err, errlen))
			return -1;
	}
	for (i = 0; i < 2; i++) {
		c.in = i ? o->out : o->in;
		c.out = i ? o->in : o->out;
		c.shaped = i ? o->duplex : 1;
		c.index = (unsigned)i;
		br->ndirs = i + 1;
		if (o->xdp ? dp_open_xdp(&br->d[i], &c, &br->x, i, xdp_limit, now, err, errlen)
			   : dp_open(&br->d[i], &c, o->rx_v2 ? TPACKET_V2 : TPACKET_V3, now, err,
				     errlen))
			return -1;
		dp_set_link(&br->d[i], stats_if_is_up(c.out));
	}
	for (i = 0; i < 2; i++) {
		br->bound[i] = br->lock[i].ifindex;
		br->present[i] = 1;
		br->mtu0[i] = br->mtu[i] = i ? mtu_out : mtu_in;
	}
	if (o->socket_path[0])
		snprintf(br->sock_path, sizeof(br->sock_path), "%s", o->socket_path);
	else
		bridge_default_socket(o->in, br->sock_path, sizeof(br->sock_path));
	if (!o->socket_path[0] && rt_run_dir(err, errlen))
		return -1;
	br->ctl_fd = ctl_listen(br->sock_path, err, errlen);
	return br->ctl_fd < 0 ? -1 : 0;
}

/* ---- following the interfaces by name ---- */

/* Stop with exit status 1 (the service manager restarts the bridge). */
__attribute__((format(printf, 2, 3)))
static void fail(struct bridge *br, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "choke: bridge: %s; stopping (exit status 1)\n", msg);
	br->failed = 1;
	br->stop = -1;
}

/* Each direction's output is up when its sockets are bound to the
 * interface of that name, and that interface is up; said when it
 * changes (an interface gone was said by follow()). */
static void link_state(struct bridge *br)
{
	int i;

	for (i = 0; i < br->ndirs; i++) {
		struct dp_dir *d = &br->d[i];
		int k = 1 - i; /* d[0] sends on out (1), d[1] on in (0) */
		int up = br->present[k] && !br->xdp_closed && stats_if_is_up(d->out);

		if (up != d->out_up && br->present[k] && !br->xdp_closed)
			fprintf(stderr, "choke: bridge: %s is %s%s\n", d->out, up ? "up" : "down",
				up ? ": resuming" : ": holding the queue (its discipline "
				"drops what does not fit)");
		dp_set_link(d, up);
	}
}

/* An interface's MTU changed (or it came back with another): frames it
 * cannot take are dropped as oversize, said once. */
static void mtu_check(struct bridge *br, int k)
{
	const char *name = k ? br->run.out : br->run.in;
	struct dp_dir *to = &br->d[1 - k]; /* the direction that sends on it */
	long mtu = rt_mtu(name);
	uint32_t max;

	if (mtu < 0 || mtu == br->mtu[k])
		return;
	/* the frame, a VLAN tag or two: what the kernel lets through */
	max = mtu + 22 < (long)to->max_frame ? (uint32_t)mtu + 22 : to->max_frame;
	if (mtu > br->mtu0[k])
		fprintf(stderr, "choke: bridge: %s has MTU %ld now (%ld at start): frames "
			"longer than the bridge's buffers (sized at start) are dropped as "
			"oversize; restart the bridge to forward them\n", name, mtu, br->mtu0[k]);
	else if (mtu != br->mtu0[k])
		fprintf(stderr, "choke: bridge: %s has MTU %ld now (%ld at start): frames of "
			"more than %u bytes to it are dropped as oversize\n", name, mtu,
			br->mtu0[k], (unsigned)max);
	else
		fprintf(stderr, "choke: bridge: %s has its MTU of %ld again\n", name, mtu);
	br->mtu[k] = mtu;
	to->out_max = max;
}

/* The lock of the interface now named as interface k. 0, or -1 with a
 * message. */
static int relock(struct bridge *br, int k, char *err, size_t errlen)
{
	const char *name = k ? br->run.out : br->run.in;
	struct rt_lock l;

	if (rt_ifindex(name) == br->lock[k].ifindex)
		return 0; /* held already (an attempt to re-open that failed) */
	if (rt_lock_iface(name, &l, err, errlen))
		return -1;
	rt_unlock_iface(&br->lock[k]);
	br->lock[k] = l;
	return 0;
}

/* AF_XDP: sockets cannot be bound again, so all of them are closed and
 * opened on the interfaces that now have the names. The UMEM's memory
 * stays, with the frames the queues hold; every other frame is free again
 * (those still on a dead socket's rings are lost with it). 0, or -1 with
 * a message and -errno in *errnum. */
static int reopen_xdp(struct bridge *br, int *errnum, char *err, size_t errlen)
{
	uint8_t *held;
	int i;

	link_state(br); /* nothing more for a deleted interface's ring */
	for (i = 0; i < br->ndirs; i++) { /* what has arrived, taken in */
		dp_receive(&br->d[i], now_ns());
		br->d[i].st.rx_ring_drops += dp_kernel_drops(&br->d[i]);
	}
	xdpb_close_sockets(&br->x);
	br->xdp_closed = 1;
	held = calloc(br->x.nframes, 1);
	if (!held) {
		*errnum = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < br->ndirs; i++)
		dp_xdp_held(&br->d[i], held);
	xdpb_reclaim(&br->x, held);
	free(held);
	/* the kernel frees a closed socket's hold on its queue a little later
	 * (deferred work): EBUSY until then */
	for (i = 0; xdpb_open_sockets(&br->x, errnum, err, errlen); i++) {
		if (*errnum != -EBUSY || i == 100)
			return -1;
		usleep(20000);
	}
	if (i)
		fprintf(stderr, "choke: bridge: AF_XDP sockets open again after %d ms (the "
			"kernel was still releasing the old ones)\n", i * 20);
	br->xdp_closed = 0;
	return 0;
}

/*
 * Look at the interfaces' names again (on a link notification, a socket
 * error, and every second). An interface deleted: its direction's queue is
 * held. An interface of the same name there again (a new index): the
 * sockets follow it (AF_PACKET binds them again; AF_XDP opens them all
 * again once both interfaces are there), the lock moves to it, and the
 * queue, which kept its frames, resumes when it is up. What cannot be
 * followed stops the bridge with exit status 1.
 */
static void follow(struct bridge *br)
{
	char err[600];
	int k, idx[2], fresh[2] = { 0, 0 };

	br->last_follow_ns = now_ns();
	for (k = 0; k < 2; k++) {
		const char *name = k ? br->run.out : br->run.in;

		idx[k] = rt_ifindex(name);
		if (idx[k] == br->bound[k]) {
			if (br->present[k])
				mtu_check(br, k);
			continue;
		}
		if (br->present[k]) {
			br->present[k] = 0;
			if (idx[k])
				fprintf(stderr, "choke: bridge: %s was deleted and created again "
					"(index %d, was %d)\n", name, idx[k], br->bound[k]);
			else
				fprintf(stderr, "choke: bridge: %s is gone (interface %d was "
					"deleted): holding the queue until an interface named %s "
					"appears\n", name, br->bound[k], name);
		}
		fresh[k] = idx[k] != 0;
	}
	if (!fresh[0] && !fresh[1] && !br->xdp_closed)
		return;
	if (br->run.xdp && (!idx[0] || !idx[1]))
		return; /* AF_XDP opens its sockets when both are there */
	for (k = 0; k < 2; k++)
		if (fresh[k] && relock(br, k, err, sizeof(err))) {
			fail(br, "%s is back, but %s", k ? br->run.out : br->run.in, err);
			return;
		}
	if (br->run.xdp) {
		int errnum;

		if (reopen_xdp(br, &errnum, err, sizeof(err))) {
			if (errnum == -ENODEV) { /* gone again: the next notification */
				fprintf(stderr, "choke: bridge: re-opening AF_XDP: %s\n", err);
				return;
			}
			fail(br, "cannot re-open the AF_XDP sockets: %s", err);
			return;
		}
	}
	for (k = 0; k < 2; k++) {
		const char *name = k ? br->run.out : br->run.in;
		int l = br->lock[k].ifindex;

		if (!fresh[k])
			continue;
		if (!br->run.xdp &&
		    (afp_rx_rebind(&br->d[k].rx, name, l, err, sizeof(err)) ||
		     afp_tx_rebind(&br->d[1 - k].tx, name, l, err, sizeof(err)))) {
			if (errno == ENODEV) { /* gone again: the next notification */
				fprintf(stderr, "choke: bridge: %s\n", err);
				continue;
			}
			fail(br, "cannot follow %s to its new interface: %s", name, err);
			return;
		}
		br->bound[k] = l;
		br->present[k] = 1;
		fprintf(stderr, "choke: bridge: %s: its sockets re-opened on the new interface "
			"(index %d)%s%s%s\n", name, l, br->run.xdp ? ", AF_XDP " : "",
			br->run.xdp ? xdpb_mode_name(&br->x.link[k]) : "",
			br->run.xdp ? " (every socket of both interfaces re-opened)" : "");
		mtu_check(br, k);
	}
}

/* ---- the loop ---- */

static void housekeeping(struct bridge *br, uint64_t now)
{
	int i;

	follow(br);
	link_state(br);
	for (i = 0; i < br->ndirs; i++)
		dp_tick(&br->d[i], now);
}

static void run_loop(struct bridge *br)
{
	uint64_t next_house = br->start_ns + 1000000000u;
	char err[256];
	int i;

	while (!br->stop) {
		struct pollfd pf[BRIDGE_MAX_FDS];
		uint64_t now = now_ns();
		int64_t wait = -1, w;
		int timeout_ms, npf = 3, relink = 0;

		for (i = 0; i < br->ndirs; i++)
			dp_receive(&br->d[i], now);
		now = now_ns();
		for (i = 0; i < br->ndirs; i++)
			dp_transmit(&br->d[i], now);
		if (now >= next_house) {
			housekeeping(br, now);
			next_house = now + 1000000000u;
		}
		for (i = 0; i < br->ndirs; i++) {
			w = dp_wait_ns(&br->d[i], now);
			if (w >= 0 && (wait < 0 || w < wait))
				wait = w;
		}
		pf[0] = (struct pollfd){ br->ctl_fd, POLLIN, 0 };
		pf[1] = (struct pollfd){ br->sig_fd, POLLIN, 0 };
		pf[2] = (struct pollfd){ br->links.fd, POLLIN, 0 };
		for (i = 0; i < br->ndirs; i++) {
			int fds[XDPB_MAX_QUEUES], n, j;

			n = dp_rx_fds(&br->d[i], fds, XDPB_MAX_QUEUES);
			for (j = 0; j < n && npf < BRIDGE_MAX_FDS; j++)
				pf[npf++] = (struct pollfd){ fds[j], POLLIN, 0 };
		}
		timeout_ms = wait < 0 ? 1000 : (int)((wait + 999999) / 1000000);
		if (timeout_ms > 1000)
			timeout_ms = 1000;
		if (wait == 0) {
			/* ready to send more: only look at the control socket, the
			 * signals and the links, without waiting */
			if (poll(pf, 3, 0) < 0 && errno != EINTR)
				break;
			for (i = 3; i < npf; i++)
				pf[i].revents = 0;
		} else if (wait > 0 && wait < 1000000) {
			/* sub-millisecond: ppoll with a nanosecond timeout */
			struct timespec ts = { 0, (long)wait };

			if (ppoll(pf, (nfds_t)npf, &ts, NULL) < 0 && errno != EINTR)
				break;
		} else if (poll(pf, (nfds_t)npf, timeout_ms) < 0 && errno != EINTR) {
			break;
		}
		if ((pf[0].revents & POLLIN) &&
		    ctl_serve(br->ctl_fd, handle, br, err, sizeof(err)))
			fprintf(stderr, "choke: bridge: %s\n", err);
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(br->sig_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					notify(br, "RELOADING=1\nMONOTONIC_USEC=%llu",
					       (unsigned long long)(now_ns() / 1000));
					reload(br);
					notify(br, "READY=1");
				} else {
					br->stop = (int)si.ssi_signo;
				}
			}
		}
		/* a link changed, a socket's interface went down or away (its
		 * error read, so that poll() stops reporting it), or a send
		 * found its interface gone: look at the names again */
		if (pf[2].revents & POLLIN)
			relink = rt_links_changed(&br->links);
		for (i = 3; i < npf; i++)
			if (pf[i].revents & (POLLERR | POLLHUP)) {
				afp_sock_error(pf[i].fd);
				relink = 1;
			}
		for (i = 0; i < br->ndirs; i++)
			if (br->d[i].link_err) {
				br->d[i].link_err = 0;
				/* (sends to an interface that is down fail
				 * at every batch: look at most every 100 ms) */
				relink |= now_ns() - br->last_follow_ns > 100000000u;
			}
		if (relink && !br->stop) {
			follow(br);
			link_state(br);
		}
	}
}

/* --wait: the interfaces that do not exist yet are waited for (link
 * notifications), up to wait_s seconds. 0 when both are there (or the
 * wait is over: setting up says which is missing), 1 when a signal stopped
 * the wait, -1 with a message when the time ran out. */
static int wait_interfaces(struct bridge *br, char *err, size_t errlen)
{
	const struct bridge_opts *o = &br->run;
	uint64_t t0 = now_ns(), limit = (uint64_t)o->wait_s * 1000000000u;
	const char *missing = NULL;

	for (;;) {
		const char *m = !rt_ifindex(o->in) ? o->in : !rt_ifindex(o->out) ? o->out : NULL;
		uint64_t t = now_ns() - t0;
		struct pollfd pf[2];
		struct signalfd_siginfo si;

		if (!m) {
			if (missing)
				fprintf(stderr, "choke: bridge: %s is there (after %.1f s)\n",
					missing, (double)t / 1e9);
			return 0;
		}
		if (!o->wait_s)
			return 0;
		if (t >= limit) {
			snprintf(err, errlen, "%s did not appear within %u s (--wait %u)", m,
				 o->wait_s, o->wait_s);
			return -1;
		}
		if (m != missing) {
			fprintf(stderr, "choke: bridge: waiting up to %.0f s for %s to appear\n",
				(double)(limit - t) / 1e9, m);
			/* systemd's start timeout waits as long as we do */
			notify(br, "STATUS=waiting for %s to appear\nEXTEND_TIMEOUT_USEC=%llu", m,
			       (unsigned long long)((limit - t) / 1000 + 10000000u));
			missing = m;
		}
		pf[0] = (struct pollfd){ br->links.fd, POLLIN, 0 };
		pf[1] = (struct pollfd){ br->sig_fd, POLLIN, 0 };
		if (poll(pf, 2, 1000) < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
		rt_links_changed(&br->links);
		while (read(br->sig_fd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGHUP) {
				fprintf(stderr, "choke: bridge: stopped on signal %d while waiting "
					"for %s\n", (int)si.ssi_signo, m);
				return 1;
			}
	}
}

int bridge_run(const struct bridge_opts *cmdline)
{
	struct bridge *br = calloc(1, sizeof(*br));
	struct stats_snapshot s;
	struct choke_params q;
	char err[600];
	sigset_t mask;
	int i, status = 1;

	if (!br) {
		fprintf(stderr, "choke: bridge: out of memory\n");
		return 1;
	}
	br->cmdline = cmdline;
	br->run = *cmdline;
	br->ctl_fd = br->sig_fd = br->notify.fd = br->links.fd = -1;
	br->lock[0].fd = br->lock[1].fd = -1;
	for (i = 0; i < 2; i++)
		br->d[i].rx.fd = br->d[i].tx.fd = -1;
	if ((br->run.config_file[0] &&
	     bridge_config_read(&br->run, br->run.config_file, err, sizeof(err))) ||
	    bridge_opts_check(&br->run, err, sizeof(err)) ||
	    bridge_discipline(&br->run, &q, err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	for (i = 0; i < q.nwarnings; i++)
		fprintf(stderr, "choke: warning: %s\n", q.warnings[i]);
	/* the signals first: SIGTERM ends a wait for the interfaces too */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	br->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (br->sig_fd < 0) {
		fprintf(stderr, "choke: bridge: signalfd: %s\n", strerror(errno));
		goto out;
	}
	if (rt_notify_open(&br->notify, err, sizeof(err)))
		fprintf(stderr, "choke: bridge: %s\n", err);
	if (rt_links_open(&br->links, err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	i = wait_interfaces(br, err, sizeof(err));
	if (i) {
		if (i < 0)
			fprintf(stderr, "choke: bridge: %s\n", err);
		status = i < 0;
		goto out;
	}
	if (setup(br, &q, err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	/* AF_XDP: detaching the XDP programs at exit takes CAP_NET_ADMIN (the
	 * netlink request) and CAP_SYS_ADMIN (finding the program by id);
	 * opening the sockets again on an interface created again under the
	 * same name CAP_NET_RAW (the sockets) and CAP_IPC_LOCK (the UMEM) too */
	if (rt_drop_capabilities_but(br->run.xdp ? (1ull << CAP_NET_ADMIN |
						       1ull << CAP_SYS_ADMIN |
						       1ull << CAP_NET_RAW |
						       1ull << CAP_IPC_LOCK) : 0,
				     err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	br->start_ns = now_ns();
	for (i = 0; i < br->ndirs; i++)
		br->d[i].rate_t = br->d[i].last_ns = br->start_ns;
	fprintf(stderr, "choke: bridge: %s -> %s%s, control socket %s\n", br->run.in,
		br->run.out, br->run.duplex ? " (and back, shaped)" : " (back unshaped)",
		br->sock_path);
	notify(br, "READY=1\nSTATUS=forwarding %s -> %s, control socket %s\nMAINPID=%d",
	       br->run.in, br->run.out, br->sock_path, (int)getpid());
	run_loop(br);
	notify(br, "STOPPING=1");
	if (br->failed)
		fprintf(stderr, "choke: bridge: final counters:\n");
	else
		fprintf(stderr, "choke: bridge: stopping on signal %d; final counters:\n",
			br->stop);
	for (i = 0; i < br->ndirs; i++)
		br->d[i].st.rx_ring_drops += dp_kernel_drops(&br->d[i]);
	snapshot(br, &s);
	stats_write_json(stdout, &s);
	fflush(stdout);
	status = br->failed;
out:
	for (i = 0; i < 2; i++)
		dp_close(&br->d[i]);
	xdpb_close(&br->x); /* the XDP programs leave both interfaces */
	if (br->ctl_fd >= 0) {
		close(br->ctl_fd);
		unlink(br->sock_path);
	}
	if (br->sig_fd >= 0)
		close(br->sig_fd);
	rt_notify_close(&br->notify);
	rt_links_close(&br->links);
	for (i = 0; i < 2; i++)
		rt_unlock_iface(&br->lock[i]);
	free(br);
	return status;
}
