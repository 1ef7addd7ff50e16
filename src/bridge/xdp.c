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

/* Bind a socket on queue 0 of ifname in one mode: 0 or -errno */
static int port_open(struct xdpb *x, struct xdpb_port *p, const char *ifname,
		     const struct xdpb_mode *m, struct xsk_ring_prod *fq,
		     struct xsk_ring_cons *cq)
{
	struct xsk_socket_config cfg;
	struct xdp_options opt;
	socklen_t optlen = sizeof(opt);
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.rx_size = XDPB_RX_RING;
	cfg.tx_size = XDPB_TX_RING;
	cfg.xdp_flags = m->xdp_flags | XDP_FLAGS_UPDATE_IF_NOEXIST;
	cfg.bind_flags = m->bind | XDP_USE_NEED_WAKEUP;
	r = xsk_socket__create_shared(&p->xsk, ifname, 0, x->umem, &p->rx, &p->tx, fq, cq,
				      &cfg);
	if (r) {
		p->xsk = NULL;
		return r;
	}
	p->ifname = ifname;
	p->fd = xsk_socket__fd(p->xsk);
	p->drv_mode = m->drv;
	/* what the kernel made of it (a second socket on a UMEM takes the
	 * UMEM's mode whatever it asked for) */
	memset(&opt, 0, sizeof(opt));
	p->zerocopy = !getsockopt(p->fd, SOL_XDP, XDP_OPTIONS, &opt, &optlen) &&
		      (opt.flags & XDP_OPTIONS_ZEROCOPY);
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

static int check_if(const char *ifname, char *err, size_t errlen)
{
	int nq;

	if (!if_nametoindex(ifname)) {
		snprintf(err, errlen, "no such interface: %s", ifname);
		return -1;
	}
	nq = rx_queues(ifname);
	if (nq > 1) {
		snprintf(err, errlen, "--backend xdp: %s has %d receive queues and the "
			 "bridge reads queue 0 only (frames on the others would bypass it); "
			 "set one with `ethtool -L %s combined 1`", ifname, nq, ifname);
		return -1;
	}
	return 0;
}

/* The UMEM and both sockets in one mode: 0 or -errno (*which: the
 * interface that refused, NULL for the UMEM). */
static int open_mode(struct xdpb *x, const char *if0, const char *if1,
		     const struct xdpb_mode *m, const char **which)
{
	struct xsk_umem_config ucfg;
	struct xsk_ring_prod fq0;
	struct xsk_ring_cons cq0;
	int r;

	memset(&ucfg, 0, sizeof(ucfg));
	memset(&fq0, 0, sizeof(fq0)); /* libxdp leaves some cached indexes unset */
	memset(&cq0, 0, sizeof(cq0));
	ucfg.fill_size = XDPB_RX_RING;
	ucfg.comp_size = XDPB_TX_RING;
	ucfg.frame_size = x->frame_size;
	ucfg.frame_headroom = XSK_UMEM__DEFAULT_FRAME_HEADROOM;
	*which = NULL;
	r = xsk_umem__create(&x->umem, x->area, x->area_len, &fq0, &cq0, &ucfg);
	if (r) {
		x->umem = NULL;
		return r;
	}
	/* the first socket takes the rings made with the UMEM; the second, on
	 * another interface, gets its own fill and completion rings */
	x->port[0].fq = fq0;
	x->port[0].cq = cq0;
	*which = if0;
	r = port_open(x, &x->port[0], if0, m, &x->port[0].fq, &x->port[0].cq);
	if (!r) {
		*which = if1;
		r = port_open(x, &x->port[1], if1, m, &x->port[1].fq, &x->port[1].cq);
	}
	return r;
}

static void close_sockets(struct xdpb *x)
{
	port_close(&x->port[0]);
	port_close(&x->port[1]);
	if (x->umem)
		xsk_umem__delete(x->umem);
	x->umem = NULL;
}

int xdpb_open(struct xdpb *x, const char *if0, const char *if1, uint32_t nframes,
	      uint32_t max_frame, int busy_poll_us, char *err, size_t errlen)
{
	const char *which = NULL;
	uint32_t i;
	size_t m;
	int r = -EINVAL;

	memset(x, 0, sizeof(*x));
	x->port[0].fd = x->port[1].fd = -1;
	x->busy_poll_us = busy_poll_us;
	libxdp_set_print(xdp_print);
	libbpf_set_print(bpf_print);
	if (check_if(if0, err, errlen) || check_if(if1, err, errlen))
		return -1;
	if (max_frame > XDPB_MAX_FRAME) {
		snprintf(err, errlen, "--backend xdp forwards frames of up to %u bytes (an "
			 "MTU of %u); %s or %s has a larger MTU", (unsigned)XDPB_MAX_FRAME,
			 (unsigned)XDPB_MAX_FRAME - 26, if0, if1);
		return -1;
	}
	x->frame_shift = max_frame + 256 <= 2048 ? 11 : 12;
	x->frame_size = 1u << x->frame_shift;
	x->nframes = nframes;
	x->area_len = (size_t)nframes * x->frame_size;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	x->free = malloc(nframes * sizeof(*x->free));
	if (x->area == MAP_FAILED || !x->free) {
		if (x->area == MAP_FAILED)
			x->area = NULL;
		snprintf(err, errlen, "out of memory for the UMEM (%u frames)", nframes);
		goto fail;
	}
	/* the best mode both interfaces take; a refusal undoes everything
	 * (a socket that failed to bind leaves its UMEM unfit to retry) */
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		lib_msg[0] = 0;
		r = open_mode(x, if0, if1, &modes[m], &which);
		if (!r)
			break;
		close_sockets(x);
		if (r == -EPERM || r == -EACCES || r == -EBUSY || r == -EEXIST ||
		    r == -ENOMEM || r == -ENODEV)
			break; /* no other mode will do better */
	}
	if (r) {
		if (r == -EPERM || r == -EACCES)
			snprintf(err, errlen, "AF_XDP %s%s: %s (needs CAP_NET_ADMIN, CAP_NET_RAW, "
				 "CAP_BPF and CAP_IPC_LOCK: run as root)",
				 which ? "socket on " : "UMEM", which ? which : "", strerror(-r));
		else if (r == -EBUSY || r == -EEXIST)
			snprintf(err, errlen, "AF_XDP socket on %s: %s (another XDP program or "
				 "AF_XDP socket is attached to it)", which ? which : "?",
				 strerror(-r));
		else
			snprintf(err, errlen, "AF_XDP %s%s: the kernel or driver refused every "
				 "mode (driver, generic): %s%s%s",
				 which ? "socket on " : "UMEM", which ? which : "", strerror(-r),
				 lib_msg[0] ? "; libxdp: " : "", lib_msg);
		goto fail;
	}
	for (i = 0; i < nframes; i++)
		x->free[x->nfree++] = (uint64_t)(nframes - 1 - i) * x->frame_size;
	xdpb_refill(x, &x->port[0]);
	xdpb_refill(x, &x->port[1]);
	return 0;
fail:
	xdpb_close(x);
	return -1;
}

void xdpb_close(struct xdpb *x)
{
	close_sockets(x);
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
	libxdp_set_print(xdp_print);
	libbpf_set_print(bpf_print);
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

const char *xdpb_mode_name(const struct xdpb_port *p)
{
	if (!p->xsk)
		return "closed";
	if (p->zerocopy)
		return "driver, zero-copy";
	return p->drv_mode ? "driver, copy" : "generic, copy";
}
