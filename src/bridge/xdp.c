/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* AF_XDP sockets on one UMEM: see xdp.h. */
#include "xdp.h"

#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/libxdp.h>

/* libxdp and libbpf report through print callbacks: keep their last warning
 * to name the reason in our own message, print nothing */
static char lib_msg[256];

static int lib_vmsg(const char *fmt, va_list ap)
{
	char buf[sizeof(lib_msg)];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	if (n)
		memcpy(lib_msg, buf, n + 1);
	return 0;
}

static int xdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBXDP_WARN)
		return 0;
	return lib_vmsg(fmt, ap);
}

static int bpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return lib_vmsg(fmt, ap);
}

/* libxdp's settings: its messages into lib_msg, and the XSK program
 * attached alone, as it is where there is no bpffs, not behind libxdp's
 * dispatcher (which pins itself in /sys/fs/bpf and locks /run/xdp: a
 * service's read-only view of /sys and /run would refuse it) */
static void lib_setup(void)
{
	libxdp_set_print(xdp_print);
	libbpf_set_print(bpf_print);
	setenv("LIBXDP_SKIP_DISPATCHER", "1", 0);
}

static int rx_queues(const char *ifname)
{
	char path[64];
	struct dirent *e;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((e = readdir(dir)))
		n += strncmp(e->d_name, "rx-", 3) == 0;
	closedir(dir);
	return n;
}

static void port_close(struct xdpb_port *p)
{
	if (p->xsk)
		xsk_socket__delete(p->xsk);
	p->xsk = NULL;
	p->fd = -1;
}

static const struct xdpb_mode {
	uint32_t xdp_flags;
	uint16_t bind;
	int drv;
} modes[] = {
	{ XDP_FLAGS_DRV_MODE, XDP_ZEROCOPY, 1 },
	{ XDP_FLAGS_DRV_MODE, XDP_COPY, 1 },
	{ XDP_FLAGS_SKB_MODE, XDP_COPY, 0 },
};

/* Bind a socket on one queue of an interface in one mode: 0 or -errno.
 * Queue 0's socket transmits too. */
static int port_open(struct xdpb *x, struct xdpb_link *l, uint32_t queue,
		     const struct xdpb_mode *m, struct xsk_ring_prod *fq,
		     struct xsk_ring_cons *cq)
{
	struct xdpb_port *p = &l->q[queue];
	struct xsk_socket_config cfg;
	struct xdp_options opt;
	socklen_t optlen = sizeof(opt);
	int r;

	/* libxdp leaves some cached indexes of the fill and completion rings
	 * as it found them: none may survive from a socket closed before */
	if (queue || l != &x->link[0]) {
		memset(&p->fq, 0, sizeof(p->fq));
		memset(&p->cq, 0, sizeof(p->cq));
	}
	memset(&p->rx, 0, sizeof(p->rx));
	memset(&p->tx, 0, sizeof(p->tx));
	memset(&cfg, 0, sizeof(cfg));
	cfg.rx_size = x->ring;
	cfg.tx_size = XDPB_TX_RING;
	cfg.xdp_flags = m->xdp_flags | XDP_FLAGS_UPDATE_IF_NOEXIST;
	cfg.bind_flags = m->bind | XDP_USE_NEED_WAKEUP;
	p->queue = queue;
	p->has_tx = queue == 0;
	p->tx_outstanding = 0;
	p->kdrops = 0;
	r = xsk_socket__create_shared(&p->xsk, l->ifname, queue, x->umem, &p->rx,
				      p->has_tx ? &p->tx : NULL, fq, cq, &cfg);
	if (r) {
		p->xsk = NULL;
		return r;
	}
	p->fd = xsk_socket__fd(p->xsk);
	/* what the kernel made of it (a socket sharing a UMEM takes the UMEM's
	 * mode whatever it asked for) */
	memset(&opt, 0, sizeof(opt));
	p->zerocopy = !getsockopt(p->fd, SOL_XDP, XDP_OPTIONS, &opt, &optlen) &&
		      (opt.flags & XDP_OPTIONS_ZEROCOPY);
	if (queue == 0) {
		l->drv_mode = m->drv;
		l->zerocopy = p->zerocopy;
	}
	if (x->busy_poll_us > 0) {
		int one = 1, budget = 64;

		if (setsockopt(p->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
		    setsockopt(p->fd, SOL_SOCKET, SO_BUSY_POLL, &x->busy_poll_us,
			       sizeof(x->busy_poll_us)) ||
		    setsockopt(p->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
			       sizeof(budget)))
			return -errno;
	}
	xdpb_kernel_drops(p); /* start the count at zero */
	return 0;
}

/* The interface now named l->ifname: its index and receive queues. 0, or
 * -1 with a message (*errnum -ENODEV when it does not exist). */
static int link_probe(struct xdpb_link *l, int *errnum, char *err, size_t errlen)
{
	int nq;

	*errnum = -ENODEV;
	l->ifindex = (int)if_nametoindex(l->ifname);
	nq = l->ifindex ? rx_queues(l->ifname) : -1;
	if (!l->ifindex || nq < 0) {
		snprintf(err, errlen, "no such interface: %s", l->ifname);
		return -1;
	}
	*errnum = -EINVAL;
	if (nq > XDPB_MAX_QUEUES) {
		snprintf(err, errlen, "--backend xdp: %s has %d receive queues and the bridge "
			 "reads at most %d; set fewer with `ethtool -L %s combined %d`",
			 l->ifname, nq, XDPB_MAX_QUEUES, l->ifname, XDPB_MAX_QUEUES);
		return -1;
	}
	l->nq = nq > 0 ? (uint32_t)nq : 1;
	*errnum = 0;
	return 0;
}

/* Each queue's receive and fill ring: the interface's XDPB_RX_RING
 * descriptors divided among the queues of the interface that has the
 * most (libxdp gives every fill ring of a UMEM the same size), a power of
 * two; and the UMEM frames every ring full and the queues take. */
static uint32_t queue_ring(const struct xdpb *x)
{
	uint32_t nq = x->link[0].nq > x->link[1].nq ? x->link[0].nq : x->link[1].nq, r;

	for (r = XDPB_RX_RING; r > XDPB_QUEUE_RING_MIN && r * nq > XDPB_RX_RING; r >>= 1)
		;
	return r;
}

static uint32_t frames_needed(const struct xdpb *x, uint32_t ring)
{
	return (x->link[0].nq + x->link[1].nq) * ring + 2 * XDPB_TX_RING + x->queue_frames;
}

/* The UMEM and every socket in one mode: 0 or -errno (*which: the
 * interface that refused, NULL for the UMEM). */
static int open_mode(struct xdpb *x, const struct xdpb_mode *m, const char **which)
{
	struct xsk_umem_config ucfg;
	struct xsk_ring_prod fq0;
	struct xsk_ring_cons cq0;
	uint32_t k, q;
	int r = 0;

	memset(&ucfg, 0, sizeof(ucfg));
	memset(&fq0, 0, sizeof(fq0)); /* libxdp leaves some cached indexes unset */
	memset(&cq0, 0, sizeof(cq0));
	ucfg.fill_size = x->ring;
	ucfg.comp_size = XDPB_TX_RING;
	ucfg.frame_size = x->frame_size;
	ucfg.frame_headroom = XSK_UMEM__DEFAULT_FRAME_HEADROOM;
	*which = NULL;
	r = xsk_umem__create(&x->umem, x->area, x->area_len, &fq0, &cq0, &ucfg);
	if (r) {
		x->umem = NULL;
		return r;
	}
	/* the first socket takes the rings made with the UMEM; every other
	 * one, on another queue or interface, gets its own fill and
	 * completion rings */
	x->link[0].q[0].fq = fq0;
	x->link[0].q[0].cq = cq0;
	for (k = 0; k < 2 && !r; k++) {
		struct xdpb_link *l = &x->link[k];

		*which = l->ifname;
		for (q = 0; q < l->nq && !r; q++)
			r = port_open(x, l, q, m, &l->q[q].fq, &l->q[q].cq);
	}
	return r;
}

static void close_all(struct xdpb *x)
{
	uint32_t k, q;

	for (k = 0; k < 2; k++)
		for (q = 0; q < XDPB_MAX_QUEUES; q++)
			port_close(&x->link[k].q[q]);
	if (x->umem)
		xsk_umem__delete(x->umem);
	x->umem = NULL;
}

/* Every socket on both interfaces in the best mode they take. 0, or -1
 * with a message and -errno in *errnum. */
static int open_sockets(struct xdpb *x, int *errnum, char *err, size_t errlen)
{
	const char *which = NULL;
	size_t m;
	int r = -EINVAL;

	if (link_probe(&x->link[0], errnum, err, errlen) ||
	    link_probe(&x->link[1], errnum, err, errlen))
		return -1;
	x->ring = queue_ring(x);
	if (x->nframes && frames_needed(x, x->ring) > x->nframes) {
		*errnum = -ENOSPC;
		snprintf(err, errlen, "%s has %u and %s %u receive queues now, more than the "
			 "AF_XDP UMEM was sized for at start; restart the bridge",
			 x->link[0].ifname, x->link[0].nq, x->link[1].ifname, x->link[1].nq);
		return -1;
	}
	/* the best mode every socket takes; a refusal undoes everything (a
	 * socket that failed to bind leaves its UMEM unfit to retry) */
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		lib_msg[0] = 0;
		r = open_mode(x, &modes[m], &which);
		if (!r)
			break;
		close_all(x);
		if (r == -EPERM || r == -EACCES || r == -EBUSY || r == -EEXIST ||
		    r == -ENOMEM || r == -ENODEV || r == -EAFNOSUPPORT || r == -ENOBUFS)
			break; /* no other mode will do better */
	}
	*errnum = r;
	if (!r)
		return 0;
	if (r == -EPERM || r == -EACCES)
		snprintf(err, errlen, "AF_XDP %s%s: %s (needs CAP_NET_ADMIN, CAP_NET_RAW, "
			 "CAP_SYS_ADMIN and CAP_IPC_LOCK: run as root)",
			 which ? "socket on " : "UMEM", which ? which : "", strerror(-r));
	else if (r == -ENOBUFS && !which) {
		struct rlimit rl;

		getrlimit(RLIMIT_MEMLOCK, &rl);
		snprintf(err, errlen, "AF_XDP UMEM of %zu MiB: more than the locked-memory limit "
			 "(RLIMIT_MEMLOCK, %llu KiB) allows without CAP_IPC_LOCK; raise it "
			 "(ulimit -l; LimitMEMLOCK=infinity under systemd)", x->area_len >> 20,
			 (unsigned long long)(rl.rlim_cur >> 10));
	} else if (r == -EAFNOSUPPORT)
		snprintf(err, errlen, "AF_XDP sockets are not allowed here (%s; under systemd "
			 "run backend xdp as choke-bridge-xdp@.service, whose "
			 "RestrictAddressFamilies= has AF_XDP)", strerror(-r));
	else if (r == -EBUSY || r == -EEXIST)
		snprintf(err, errlen, "AF_XDP socket on %s: %s (another XDP program or "
			 "AF_XDP socket is attached to it)", which ? which : "?", strerror(-r));
	else
		snprintf(err, errlen, "AF_XDP %s%s: the kernel or driver refused every "
			 "mode (driver, generic): %s%s%s",
			 which ? "socket on " : "UMEM", which ? which : "", strerror(-r),
			 lib_msg[0] ? "; libxdp: " : "", lib_msg);
	return -1;
}

int xdpb_open(struct xdpb *x, const char *if0, const char *if1, uint32_t queue_frames,
	      uint32_t max_frame, int busy_poll_us, char *err, size_t errlen)
{
	uint32_t i, k, q;
	int errnum;

	memset(x, 0, sizeof(*x));
	for (k = 0; k < 2; k++)
		for (q = 0; q < XDPB_MAX_QUEUES; q++)
			x->link[k].q[q].fd = -1;
	x->link[0].ifname = if0;
	x->link[1].ifname = if1;
	x->busy_poll_us = busy_poll_us;
	x->queue_frames = queue_frames;
	lib_setup();
	if (link_probe(&x->link[0], &errnum, err, errlen) ||
	    link_probe(&x->link[1], &errnum, err, errlen))
		return -1;
	if (max_frame > XDPB_MAX_FRAME) {
		snprintf(err, errlen, "--backend xdp forwards frames of up to %u bytes (an "
			 "MTU of %u); %s or %s has a larger MTU", (unsigned)XDPB_MAX_FRAME,
			 (unsigned)XDPB_MAX_FRAME - 26, if0, if1);
		return -1;
	}
	x->frame_shift = max_frame + 256 <= 2048 ? 11 : 12;
	x->frame_size = 1u << x->frame_shift;
	x->nframes = frames_needed(x, queue_ring(x));
	x->area_len = (size_t)x->nframes * x->frame_size;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	x->free = malloc(x->nframes * sizeof(*x->free));
	if (x->area == MAP_FAILED || !x->free) {
		if (x->area == MAP_FAILED)
			x->area = NULL;
		snprintf(err, errlen, "out of memory for the UMEM (%u frames)", x->nframes);
		goto fail;
	}
	if (open_sockets(x, &errnum, err, errlen))
		goto fail;
	for (i = 0; i < x->nframes; i++)
		x->free[x->nfree++] = (uint64_t)(x->nframes - 1 - i) * x->frame_size;
	for (k = 0; k < 2; k++)
		for (q = 0; q < x->link[k].nq; q++)
			xdpb_refill(x, &x->link[k].q[q]);
	return 0;
fail:
	xdpb_close(x);
	return -1;
}

void xdpb_close_sockets(struct xdpb *x)
{
	uint32_t k;

	for (k = 0; k < 2; k++) {
		struct xdpb_port *p = xdpb_tx_port(&x->link[k]);

		if (p->xsk) {
			xdpb_tx_flush(p);
			xdpb_complete(x, p);
		}
	}
	close_all(x);
}

void xdpb_reclaim(struct xdpb *x, const uint8_t *held)
{
	uint32_t i;

	x->nfree = 0;
	for (i = x->nframes; i-- > 0;)
		if (!held[i])
			x->free[x->nfree++] = (uint64_t)i * x->frame_size;
}

int xdpb_open_sockets(struct xdpb *x, int *errnum, char *err, size_t errlen)
{
	uint32_t k, q;

	if (open_sockets(x, errnum, err, errlen)) {
		close_all(x);
		return -1;
	}
	for (k = 0; k < 2; k++)
		for (q = 0; q < x->link[k].nq; q++)
			xdpb_refill(x, &x->link[k].q[q]);
	return 0;
}

void xdpb_close(struct xdpb *x)
{
	close_all(x);
	if (x->area)
		munmap(x->area, x->area_len);
	x->area = NULL;
	free(x->free);
	x->free = NULL;
	x->nfree = 0;
}

void xdpb_refill(struct xdpb *x, struct xdpb_port *p)
{
	uint32_t n, i, idx;

	n = xsk_prod_nb_free(&p->fq, x->nfree);
	if (n > x->nfree)
		n = x->nfree;
	if (!n || xsk_ring_prod__reserve(&p->fq, n, &idx) != n)
		return;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&p->fq, idx + i) = x->free[--x->nfree];
	xsk_ring_prod__submit(&p->fq, n);
}

void xdpb_complete(struct xdpb *x, struct xdpb_port *p)
{
	uint32_t n, i, idx;

	if (!p->tx_outstanding)
		return;
	n = xsk_ring_cons__peek(&p->cq, XDPB_TX_RING, &idx);
	for (i = 0; i < n; i++)
		xdpb_free(x, *xsk_ring_cons__comp_addr(&p->cq, idx + i));
	if (n) {
		xsk_ring_cons__release(&p->cq, n);
		p->tx_outstanding -= n;
	}
}

uint32_t xdpb_tx_room(struct xdpb *x, struct xdpb_port *p)
{
	xdpb_complete(x, p);
	return xsk_prod_nb_free(&p->tx, XDPB_TX_RING);
}

int xdpb_tx_put(struct xdpb_port *p, uint64_t addr, uint32_t len)
{
	struct xdp_desc *dsc;
	uint32_t idx;

	if (xsk_ring_prod__reserve(&p->tx, 1, &idx) != 1)
		return -1;
	dsc = xsk_ring_prod__tx_desc(&p->tx, idx);
	dsc->addr = addr;
	dsc->len = len;
	dsc->options = 0;
	xsk_ring_prod__submit(&p->tx, 1);
	p->tx_outstanding++;
	return 0;
}

int xdpb_tx_kick(struct xdpb_port *p)
{
	if (sendto(p->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
	    errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
		return -errno;
	return 0;
}

int xdpb_tx_flush(struct xdpb_port *p)
{
	int k, r = 0;

	if (!p->tx_outstanding)
		return 0;
	if (p->zerocopy)
		return xsk_ring_prod__needs_wakeup(&p->tx) ? xdpb_tx_kick(p) : 0;
	/* copy mode transmits in the kick's system call, a few dozen frames
	 * per call (the kernel's batch): kick until the ring is drained */
	for (k = 0; k < XDPB_TX_RING / 16; k++) {
		uint32_t cons = __atomic_load_n(p->tx.consumer, __ATOMIC_ACQUIRE);

		if (cons == *p->tx.producer)
			break;
		r = xdpb_tx_kick(p);
		/* nothing taken (the link is down, its queue stopped): later */
		if (r || __atomic_load_n(p->tx.consumer, __ATOMIC_ACQUIRE) == cons)
			break;
	}
	return r;
}

void xdpb_rx_poll(const struct xdpb *x, struct xdpb_port *p)
{
	if (x->busy_poll_us > 0 || xsk_ring_prod__needs_wakeup(&p->fq))
		recvfrom(p->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

uint64_t xdpb_kernel_drops(struct xdpb_port *p)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);
	uint64_t now, d;

	memset(&st, 0, sizeof(st));
	if (p->fd < 0 || getsockopt(p->fd, SOL_XDP, XDP_STATISTICS, &st, &len))
		return 0;
	now = st.rx_dropped + st.rx_ring_full + st.rx_invalid_descs;
	d = now - p->kdrops;
	p->kdrops = now;
	return d;
}

int xdpb_clear_stale(const char *ifname)
{
	struct xdp_multiprog *mp;
	struct xdp_program *prog = NULL;
	int ifindex = (int)if_nametoindex(ifname), ours = 1, n = 0;

	if (!ifindex)
		return 0;
	lib_setup();
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!mp || libxdp_get_error(mp))
		return 0; /* nothing attached */
	if (xdp_multiprog__is_legacy(mp)) {
		prog = xdp_multiprog__main_prog(mp);
		ours = prog && !strcmp(xdp_program__name(prog), "xsk_def_prog");
		n = 1;
	} else {
		while ((prog = xdp_multiprog__next_prog(prog, mp))) {
			ours &= !strcmp(xdp_program__name(prog), "xsk_def_prog");
			n++;
		}
	}
	if (ours && n > 0 && xdp_multiprog__detach(mp) == 0)
		n = -n;
	else
		n = 0;
	xdp_multiprog__close(mp);
	return -n;
}

const char *xdpb_mode_name(const struct xdpb_link *l)
{
	if (!l->q[0].xsk)
		return "closed";
	if (l->zerocopy)
		return "driver, zero-copy";
	return l->drv_mode ? "driver, copy" : "generic, copy";
}
