/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Kernel choke qdiscs over rtnetlink: see nlqdisc.h. */
#include "nlqdisc.h"

#include <errno.h>
#include <stddef.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/chokeplus.h"

const struct nlq_xfield nlq_xfields[NLQ_NX] = {
#define NLQ_X_ENTRY(f, role, name, help) { #f, name, help, role },
	NLQ_XSTATS(NLQ_X_ENTRY)
#undef NLQ_X_ENTRY
};

/* every field of the table is a 32-bit field of the module's xstats, at its
 * index: a line in the wrong place or for a field it does not have fails
 * to build */
#define NLQ_X_CHECK(f, role, name, help)                                              \
	_Static_assert(offsetof(struct tc_chokeplus_xstats, f) == 4 * NLQ_X_##f &&     \
		       sizeof(((struct tc_chokeplus_xstats *)0)->f) == 4, "NLQ_XSTATS: " #f);
NLQ_XSTATS(NLQ_X_CHECK)
#undef NLQ_X_CHECK
_Static_assert(sizeof(struct tc_choke_xstats) == 4 * NLQ_NX_CHOKE, "choke's five fields");

/* The payload of an attribute, found by type. */
struct nlq_attr {
	const uint8_t *p;
	size_t len;
	int present;
};

/*
 * Index the attributes in [p, p + len) by type into tb[0 .. max] (unknown
 * types are skipped; a later duplicate wins, as in the kernel's parser).
 * -1 if an attribute is shorter than its header or runs past the end.
 */
static int nlq_attrs(const uint8_t *p, size_t len, struct nlq_attr *tb, int max)
{
	struct rtattr a;
	size_t step;
	int t;

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	while (len > 0) {
		if (len < sizeof(a))
			return -1;
		memcpy(&a, p, sizeof(a));
		if (a.rta_len < sizeof(a) || a.rta_len > len)
			return -1;
		t = a.rta_type & NLA_TYPE_MASK;
		if (t <= max) {
			tb[t].p = p + RTA_LENGTH(0);
			tb[t].len = a.rta_len - RTA_LENGTH(0);
			tb[t].present = 1;
		}
		step = RTA_ALIGN(a.rta_len);
		if (step >= len)
			break; /* the last one; its padding may be missing */
		p += step;
		len -= step;
	}
	return 0;
}

static uint32_t nlq_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The error a netlink ack or NLMSG_DONE carries: 0, or a positive errno.
 * The kernel sends a negative errno; anything else (a positive value, or
 * INT_MIN, whose negation does not fit an int) is reported as EPROTO. */
static int nlq_errno(const uint8_t *payload, size_t plen, int if_short)
{
	int32_t e;

	if (plen < sizeof(e))
		return if_short;
	e = (int32_t)nlq_u32(payload);
	if (e == 0)
		return 0;
	if (e > 0 || e < -4095)
		return EPROTO;
	return -e;
}

static uint64_t nlq_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* a string attribute equal to want (with or without its NUL) */
static int nlq_str_is(const struct nlq_attr *a, const char *want)
{
	size_t n = strlen(want);

	return a->present && a->len >= n && !memcmp(a->p, want, n) &&
	       (a->len == n || a->p[n] == 0);
}

/* The extended statistics: choke's five fields, chokeplus's as many as the
 * kernel sent that this exporter knows (NLQ_XSTATS); shorter than choke's:
 * none. */
static void nlq_xstats(struct nlq_qdisc *q, const uint8_t *p, size_t len)
{
	int i, n = q->kind == NLQ_CHOKEPLUS ? NLQ_NX : NLQ_NX_CHOKE;

	if (len < 4 * NLQ_NX_CHOKE)
		return;
	if ((size_t)n > len / 4)
		n = (int)(len / 4);
	for (i = 0; i < n; i++)
		q->x[i] = nlq_u32(p + 4 * i);
	q->nx = n;
}

static int nlq_options(struct nlq_qdisc *q, const struct nlq_attr *opt)
{
	struct nlq_attr tb[TCA_CHOKE_MAX + 1];
	struct tc_red_qopt o;

	if (nlq_attrs(opt->p, opt->len, tb, TCA_CHOKE_MAX))
		return -1;
	if (tb[TCA_CHOKE_PARMS].present && tb[TCA_CHOKE_PARMS].len >= sizeof(o)) {
		memcpy(&o, tb[TCA_CHOKE_PARMS].p, sizeof(o));
		q->has_parms = 1;
		q->limit = o.limit;
		q->qth_min = o.qth_min;
		q->qth_max = o.qth_max;
		q->Wlog = o.Wlog;
		q->Plog = o.Plog;
		q->Scell_log = o.Scell_log;
		q->flags = o.flags;
	}
	if (tb[TCA_CHOKE_MAX_P].present && tb[TCA_CHOKE_MAX_P].len >= 4) {
		q->has_max_p = 1;
		q->max_P = nlq_u32(tb[TCA_CHOKE_MAX_P].p);
	}
	/* chokeplus: choke's three attributes with the same numbers, then the
	 * variant (kmod/chokeplus.h) */
	if (q->kind == NLQ_CHOKEPLUS) {
		struct nlq_attr tp[TCA_CHOKEPLUS_MAX + 1];
		struct tc_chokeplus_variant v;

		if (nlq_attrs(opt->p, opt->len, tp, TCA_CHOKEPLUS_MAX))
			return -1;
		/* 0.1.0's module sends the first 4 bytes only; later fields
		 * read as 0 then */
		if (tp[TCA_CHOKEPLUS_VARIANT].present &&
		    tp[TCA_CHOKEPLUS_VARIANT].len >= TC_CHOKEPLUS_VARIANT_V1_LEN) {
			size_t n = tp[TCA_CHOKEPLUS_VARIANT].len;

			memset(&v, 0, sizeof(v));
			memcpy(&v, tp[TCA_CHOKEPLUS_VARIANT].p, n < sizeof(v) ? n : sizeof(v));
			q->has_variant = 1;
			q->variant = v.variant;
			q->draws = v.draws;
			q->protect = v.protect;
		}
	}
	return 0;
}

static int nlq_stats2(struct nlq_qdisc *q, const struct nlq_attr *st)
{
	struct nlq_attr tb[TCA_STATS_MAX + 1];
	struct gnet_stats_queue gq;

	if (nlq_attrs(st->p, st->len, tb, TCA_STATS_MAX))
		return -1;
	/* struct gnet_stats_basic: u64 bytes, u32 packets (16 with padding) */
	if (tb[TCA_STATS_BASIC].present && tb[TCA_STATS_BASIC].len >= 12) {
		q->has_basic = 1;
		q->bytes = nlq_u64(tb[TCA_STATS_BASIC].p);
		q->packets = nlq_u32(tb[TCA_STATS_BASIC].p + 8);
		/* the kernel adds the 64-bit count when 32 bits overflowed */
		if (tb[TCA_STATS_PKT64].present && tb[TCA_STATS_PKT64].len >= 8)
			q->packets = nlq_u64(tb[TCA_STATS_PKT64].p);
	}
	if (tb[TCA_STATS_QUEUE].present && tb[TCA_STATS_QUEUE].len >= sizeof(gq)) {
		memcpy(&gq, tb[TCA_STATS_QUEUE].p, sizeof(gq));
		q->has_queue = 1;
		q->qlen = gq.qlen;
		q->backlog = gq.backlog;
		q->drops = gq.drops;
		q->requeues = gq.requeues;
		q->overlimits = gq.overlimits;
	}
	if (tb[TCA_STATS_APP].present)
		nlq_xstats(q, tb[TCA_STATS_APP].p, tb[TCA_STATS_APP].len);
	return 0;
}

/* One RTM_NEWQDISC message's payload (after the netlink header). */
static int nlq_qdisc_msg(const uint8_t *d, size_t dlen, struct nlq_set *s, char *err,
			 size_t errlen)
{
	struct nlq_attr tb[TCA_MAX + 1];
	struct nlq_qdisc *q;
	struct tcmsg t;
	int kind;

	if (dlen < NLMSG_ALIGN(sizeof(t))) {
		snprintf(err, errlen, "netlink: a qdisc message of %zu bytes, shorter than "
			 "struct tcmsg", dlen);
		return -1;
	}
	memcpy(&t, d, sizeof(t));
	if (nlq_attrs(d + NLMSG_ALIGN(sizeof(t)), dlen - NLMSG_ALIGN(sizeof(t)), tb, TCA_MAX)) {
		snprintf(err, errlen, "netlink: malformed attributes in the qdisc %x: of "
			 "ifindex %d", t.tcm_handle >> 16, t.tcm_ifindex);
		return -1;
	}
	if (nlq_str_is(&tb[TCA_KIND], "choke"))
		kind = NLQ_CHOKE;
	else if (nlq_str_is(&tb[TCA_KIND], CHOKEPLUS_ID))
		kind = NLQ_CHOKEPLUS;
	else
		return 0;
	if (s->n >= NLQ_MAX_QDISCS) {
		snprintf(err, errlen, "more than %d choke qdiscs; only that many are read",
			 NLQ_MAX_QDISCS);
		return -1;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct nlq_qdisc *nq = realloc(s->q, cap * sizeof(*nq));

		if (!nq) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		s->q = nq;
		s->cap = cap;
	}
	q = &s->q[s->n];
	memset(q, 0, sizeof(*q));
	q->ifindex = t.tcm_ifindex;
	q->kind = kind;
	q->handle = t.tcm_handle;
	q->parent = t.tcm_parent;
	if ((tb[TCA_OPTIONS].present && nlq_options(q, &tb[TCA_OPTIONS])) ||
	    (tb[TCA_STATS2].present && nlq_stats2(q, &tb[TCA_STATS2]))) {
		snprintf(err, errlen, "netlink: malformed nested attributes in the choke qdisc "
			 "%x: of ifindex %d", t.tcm_handle >> 16, t.tcm_ifindex);
		return -1;
	}
	if (tb[TCA_XSTATS].present)
		nlq_xstats(q, tb[TCA_XSTATS].p, tb[TCA_XSTATS].len);
	s->n++;
	return 0;
}

/* One RTM_NEWLINK message's payload: name the qdiscs on that device. */
static int nlq_link_msg(const uint8_t *d, size_t dlen, struct nlq_set *s, char *err,
			size_t errlen)
{
	struct nlq_attr tb[IFLA_IFNAME + 1];
	struct ifinfomsg ifi;
	const struct nlq_attr *a;
	size_t i, n;

	if (dlen < NLMSG_ALIGN(sizeof(ifi))) {
		snprintf(err, errlen, "netlink: a link message of %zu bytes, shorter than "
			 "struct ifinfomsg", dlen);
		return -1;
	}
	memcpy(&ifi, d, sizeof(ifi));
	if (nlq_attrs(d + NLMSG_ALIGN(sizeof(ifi)), dlen - NLMSG_ALIGN(sizeof(ifi)), tb,
		      IFLA_IFNAME)) {
		snprintf(err, errlen, "netlink: malformed attributes in the link of ifindex %d",
			 ifi.ifi_index);
		return -1;
	}
	a = &tb[IFLA_IFNAME];
	if (!a->present)
		return 0;
	n = strnlen((const char *)a->p, a->len);
	if (n == 0 || n >= IF_NAMESIZE)
		return 0; /* not a name the kernel gives */
	for (i = 0; i < s->n; i++)
		if (s->q[i].ifindex == ifi.ifi_index) {
			memcpy(s->q[i].dev, a->p, n);
			s->q[i].dev[n] = 0;
		}
	return 0;
}

typedef int (*nlq_msg_fn)(const uint8_t *d, size_t dlen, struct nlq_set *s, char *err,
			  size_t errlen);

/* Walk the messages of one buffer; fn for those of type want. */
static int nlq_walk(const void *buf, size_t len, uint32_t seq, uint16_t want, nlq_msg_fn fn,
		    struct nlq_set *s, char *err, size_t errlen)
{
	const uint8_t *p = buf;
	struct nlmsghdr h;
	size_t step, plen;
	int e;

	while (len > 0) {
		if (len < sizeof(h)) {
			snprintf(err, errlen, "netlink: %zu bytes after the last message, "
				 "less than a header", len);
			return -1;
		}
		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len) {
			snprintf(err, errlen, "netlink: a message claims %u bytes, %zu are left",
				 h.nlmsg_len, len);
			return -1;
		}
		plen = h.nlmsg_len - NLMSG_HDRLEN;
		if (h.nlmsg_seq == seq) {
			if (h.nlmsg_flags & NLM_F_DUMP_INTR)
				s->intr = 1;
			if (h.nlmsg_type == NLMSG_DONE) {
				/* a dump that failed says so in NLMSG_DONE */
				e = nlq_errno(p + NLMSG_HDRLEN, plen, 0);
				if (e) {
					snprintf(err, errlen, "netlink: the dump failed: %s",
						 strerror(e));
					return -1;
				}
				return s->intr ? NLQ_INTR : NLQ_DONE;
			}
			if (h.nlmsg_type == NLMSG_ERROR) {
				e = nlq_errno(p + NLMSG_HDRLEN, plen, EPROTO);
				if (e) {
					snprintf(err, errlen, "netlink: the kernel refused the "
						 "dump: %s", strerror(e));
					return -1;
				}
			} else if (h.nlmsg_type == want && fn(p + NLMSG_HDRLEN, plen, s, err, errlen)) {
				return -1;
			}
		}
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return NLQ_MORE;
}

int nlq_parse_qdiscs(const void *buf, size_t len, uint32_t seq, struct nlq_set *s,
		     char *err, size_t errlen)
{
	return nlq_walk(buf, len, seq, RTM_NEWQDISC, nlq_qdisc_msg, s, err, errlen);
}

int nlq_parse_links(const void *buf, size_t len, uint32_t seq, struct nlq_set *s,
		    char *err, size_t errlen)
{
	return nlq_walk(buf, len, seq, RTM_NEWLINK, nlq_link_msg, s, err, errlen);
}

static long long nlq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define NLQ_BUF (64 * 1024)

/* Send one dump request and parse the answer until NLMSG_DONE. */
static int nlq_dump(int fd, uint16_t type, uint32_t seq, long long deadline, struct nlq_set *s,
		    uint8_t *buf, void (*record)(void *, char, const void *, size_t), void *ctx,
		    char *err, size_t errlen)
{
	struct {
		struct nlmsghdr n;
		union {
			struct tcmsg t;
			struct ifinfomsg i;
		} u;
		uint8_t attr[RTA_SPACE(sizeof(uint32_t))];
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct rtattr a;
	uint32_t mask = RTEXT_FILTER_SKIP_STATS;
	size_t body;
	int rc;

	memset(&req, 0, sizeof(req));
	if (type == RTM_GETQDISC) {
		/* every qdisc, also those tc hides without `invisible` */
		body = NLMSG_ALIGN(sizeof(req.u.t));
		req.u.t.tcm_family = AF_UNSPEC;
		a.rta_type = TCA_DUMP_INVISIBLE;
		a.rta_len = RTA_LENGTH(0);
	} else {
		/* the names only: no statistics in the link dump */
		body = NLMSG_ALIGN(sizeof(req.u.i));
		req.u.i.ifi_family = AF_UNSPEC;
		a.rta_type = IFLA_EXT_MASK;
		a.rta_len = RTA_LENGTH(sizeof(mask));
	}
	memcpy((uint8_t *)&req.u + body, &a, sizeof(a));
	if (type != RTM_GETQDISC)
		memcpy((uint8_t *)&req.u + body + RTA_LENGTH(0), &mask, sizeof(mask));
	req.n.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + body + RTA_ALIGN(a.rta_len));
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.n.nlmsg_seq = seq;
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		snprintf(err, errlen, "netlink: sending the %s dump request: %s",
			 type == RTM_GETQDISC ? "qdisc" : "link", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		struct sockaddr_nl from;
		struct iovec iov = { buf, NLQ_BUF };
		struct msghdr mh;
		long long left = deadline - nlq_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
			snprintf(err, errlen, "netlink: no complete %s dump from the kernel in time",
				 type == RTM_GETQDISC ? "qdisc" : "link");
			return -1;
		}
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		n = recvmsg(fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(err, errlen, "netlink: %s", strerror(errno));
			return -1;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			snprintf(err, errlen, "netlink: a message larger than %d bytes", NLQ_BUF);
			return -1;
		}
		if (from.nl_pid != 0)
			continue; /* not from the kernel */
		if (record)
			record(ctx, type == RTM_GETQDISC ? 'q' : 'l', buf, (size_t)n);
		rc = type == RTM_GETQDISC ? nlq_parse_qdiscs(buf, (size_t)n, seq, s, err, errlen)
					  : nlq_parse_links(buf, (size_t)n, seq, s, err, errlen);
		if (rc != NLQ_MORE)
			return rc;
	}
}

int nlq_read(struct nlq_set *s, int timeout_ms,
	     void (*record)(void *ctx, char what, const void *buf, size_t len), void *ctx,
	     char *err, size_t errlen)
{
	long long deadline = nlq_now_ms() + timeout_ms;
	static uint32_t seq;
	uint8_t *buf;
	size_t i, k;
	int fd, rc = -1, tries;

	s->n = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		snprintf(err, errlen, "netlink: socket: %s", strerror(errno));
		return -1;
	}
	buf = malloc(NLQ_BUF);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return -1;
	}
	/* (the exporter's connections read at once, each on its own socket) */
	if (!__atomic_load_n(&seq, __ATOMIC_RELAXED))
		__atomic_store_n(&seq, (uint32_t)time(NULL), __ATOMIC_RELAXED);
	for (tries = 0; tries < 3; tries++) {
		s->n = 0;
		s->intr = 0;
		rc = nlq_dump(fd, RTM_GETQDISC, __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED),
			      deadline, s, buf, record, ctx, err, errlen);
		if (rc != NLQ_INTR)
			break;
	}
	for (tries = 0; rc == NLQ_DONE && s->n && tries < 3; tries++) {
		for (i = 0; i < s->n; i++)
			s->q[i].dev[0] = 0;
		s->intr = 0;
		rc = nlq_dump(fd, RTM_GETLINK, __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED),
			      deadline, s, buf, record, ctx, err, errlen);
		if (rc == NLQ_INTR)
			rc = NLQ_DONE; /* read the names again */
		else
			break;
	}
	free(buf);
	close(fd);
	if (rc == NLQ_INTR) {
		snprintf(err, errlen, "netlink: the qdiscs kept changing during three dumps");
		rc = -1;
	}
	if (rc < 0) {
		s->n = 0;
		return -1;
	}
	/* a device that went away between the two dumps */
	for (i = k = 0; i < s->n; i++)
		if (s->q[i].dev[0])
			s->q[k++] = s->q[i];
	s->n = k;
	return 0;
}

void nlq_free(struct nlq_set *s)
{
	free(s->q);
	s->q = NULL;
	s->n = s->cap = 0;
}

uint32_t nlq_rest(const struct nlq_qdisc *q)
{
	uint32_t r = q->drops;
	int i;

	for (i = 0; i < q->nx; i++)
		if (nlq_xfields[i].role == NLQ_X_DROP)
			r -= q->x[i];
	if (q->kind == NLQ_CHOKEPLUS)
		return q->nx > NLQ_X_other ? r - q->x[NLQ_X_other] : r;
	return q->nx > NLQ_X_matched ? r - 2 * q->x[NLQ_X_matched] : r;
}

static void nlq_raw(const struct nlq_qdisc *q, uint32_t *raw)
{
	int i;

	memset(raw, 0, NLQ_NW * sizeof(*raw));
	raw[NLQ_W_DROPS] = q->drops;
	raw[NLQ_W_REQUEUES] = q->requeues;
	raw[NLQ_W_OVERLIMITS] = q->overlimits;
	raw[NLQ_W_REST] = nlq_rest(q);
	for (i = 0; i < q->nx; i++)
		raw[NLQ_W_X + i] = q->x[i];
}

int nlq_widen(struct nlq_history *h, struct nlq_set *s)
{
	struct nlq_past *now = NULL;
	size_t i, k;
	int j, rc = 0;

	if (h && s->n && !(now = calloc(s->n, sizeof(*now))))
		rc = -1;
	for (i = 0; i < s->n; i++) {
		struct nlq_qdisc *q = &s->q[i];
		const struct nlq_past *was = NULL;
		uint32_t raw[NLQ_NW];

		nlq_raw(q, raw);
		for (k = 0; now && h && k < h->n && !was; k++)
			if (h->e[k].ifindex == q->ifindex && h->e[k].handle == q->handle &&
			    h->e[k].kind == q->kind && h->e[k].nx == q->nx &&
			    q->bytes >= h->e[k].bytes && q->packets >= h->e[k].packets)
				was = &h->e[k];
		for (j = 0; j < NLQ_NW; j++)
			q->w[j] = was ? was->w[j] + (uint32_t)(raw[j] - was->raw[j]) : raw[j];
		if (now) {
			now[i].ifindex = q->ifindex;
			now[i].kind = q->kind;
			now[i].nx = q->nx;
			now[i].handle = q->handle;
			now[i].bytes = q->bytes;
			now[i].packets = q->packets;
			memcpy(now[i].raw, raw, sizeof(raw));
			memcpy(now[i].w, q->w, sizeof(q->w));
		}
	}
	if (h) {
		free(h->e);
		h->e = now;
		h->n = now ? s->n : 0;
	}
	return rc;
}

void nlq_history_free(struct nlq_history *h)
{
	free(h->e);
	h->e = NULL;
	h->n = 0;
}

void nlq_handle_name(uint32_t h, char *buf)
{
	if (h == TC_H_ROOT)
		strcpy(buf, "root");
	else if (h == TC_H_UNSPEC)
		strcpy(buf, "none");
	else if (TC_H_MAJ(h) == 0)
		snprintf(buf, NLQ_HANDLE_LEN, ":%x", TC_H_MIN(h));
	else if (TC_H_MIN(h) == 0)
		snprintf(buf, NLQ_HANDLE_LEN, "%x:", TC_H_MAJ(h) >> 16);
	else
		snprintf(buf, NLQ_HANDLE_LEN, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}
