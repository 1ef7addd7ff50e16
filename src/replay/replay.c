/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The pcap what-if replayer: see replay.h and docs/replay.md. */
#include "replay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "choke/params.h"
#include "pcapfile.h"

/* ---- flows: key -> index, open addressing ---- */

/* A slot holds the flow's index + 1 (0: empty) and, above it, the key's
 * hash, so that a probe compares a key only when the hashes are equal. */
struct flowtab {
	uint64_t *slot;
	uint32_t mask;
	struct replay_flow *flows;
	uint32_t n, cap;
	uint64_t seed;
};

static int flowtab_init(struct flowtab *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 1023;
	t->slot = calloc(t->mask + 1, sizeof(*t->slot));
	t->cap = 512;
	t->flows = malloc(t->cap * sizeof(*t->flows));
	t->seed = 0x6a09e667f3bcc908ull;
	return t->slot && t->flows ? 0 : -1;
}

static int flowtab_grow(struct flowtab *t)
{
	uint32_t nmask = t->mask * 2 + 1, i;
	uint64_t *ns = calloc((size_t)nmask + 1, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < t->n; i++) {
		uint32_t hash = choke_flow_key_hash(&t->flows[i].key, t->seed), h = hash & nmask;

		while (ns[h])
			h = (h + 1) & nmask;
		ns[h] = (uint64_t)hash << 32 | (i + 1);
	}
	free(t->slot);
	t->slot = ns;
	t->mask = nmask;
	return 0;
}

static inline uint64_t word(const struct choke_flow_key *k, int i)
{
	uint64_t w;

	memcpy(&w, (const uint8_t *)k + 8 * i, 8);
	return w;
}

static inline int key_same(const struct choke_flow_key *a, const struct choke_flow_key *b)
{
	return ((word(a, 0) ^ word(b, 0)) | (word(a, 1) ^ word(b, 1)) | (word(a, 2) ^ word(b, 2)) |
		(word(a, 3) ^ word(b, 3)) | (word(a, 4) ^ word(b, 4))) == 0;
}

/* the index of key, added if new; UINT32_MAX when out of memory */
static uint32_t flowtab_get(struct flowtab *t, const struct choke_flow_key *key)
{
	uint32_t hash = choke_flow_key_hash(key, t->seed), h = hash & t->mask;

	for (;;) {
		uint64_t s = t->slot[h];

		if (!s)
			break;
		if ((uint32_t)(s >> 32) == hash &&
		    key_same(&t->flows[(uint32_t)s - 1].key, key))
			return (uint32_t)s - 1;
		h = (h + 1) & t->mask;
	}
	if (t->n == t->cap) {
		struct replay_flow *nf = realloc(t->flows, 2 * (size_t)t->cap * sizeof(*nf));

		if (!nf)
			return UINT32_MAX;
		t->flows = nf;
		t->cap *= 2;
	}
	memset(&t->flows[t->n], 0, sizeof(t->flows[0]));
	t->flows[t->n].key = *key;
	t->slot[h] = (uint64_t)hash << 32 | (t->n + 1);
	t->n++;
	if (t->n * 2 > t->mask && flowtab_grow(t))
		return UINT32_MAX;
	return t->n - 1;
}

/* ---- delay histogram ---- */

static void hist_add(struct replay_hist *h, uint64_t v)
{
	int maj = 0;
	uint64_t sub;

	h->n++;
	h->sum += (double)v;
	if (v > h->max)
		h->max = v;
	if (v >= REPLAY_HIST_SUB) {
		int shift = 63 - __builtin_clzll(v) - 7; /* v >> shift in [128, 256) */

		sub = (v >> shift) - REPLAY_HIST_SUB;
		maj = shift + 1;
	} else {
		sub = v;
	}
	h->count[maj][sub]++;
}

uint64_t replay_flow_drops(const struct replay_flow *f)
{
	uint64_t n = f->drop_match_victim;
	int o;

	for (o = 0; o < CHOKE_NOUTCOMES; o++)
		n += f->drop[o];
	return n;
}

double replay_hist_quantile(const struct replay_hist *h, double q)
{
	uint64_t want, seen = 0;
	int maj, sub;

	if (!h->n)
		return 0;
	want = (uint64_t)(q * (double)(h->n - 1)) + 1;
	for (maj = 0; maj < REPLAY_HIST_MAJ; maj++) {
		for (sub = 0; sub < REPLAY_HIST_SUB; sub++) {
			seen += h->count[maj][sub];
			if (seen >= want) {
				if (maj == 0)
					return sub;
				/* the middle of the bucket, never above the maximum */
				double mid = ((double)(sub + REPLAY_HIST_SUB) + 0.5) *
					     (double)(1ull << (maj - 1));

				return mid < (double)h->max ? mid : (double)h->max;
			}
		}
	}
	return (double)h->max;
}

/* ---- names ---- */

const char *replay_proto_name(uint8_t proto, char *buf, size_t len)
{
	switch (proto) {
	/* IPv6 extension headers appear as the protocol of a flow whose
	 * capture ends inside them (docs/flows.md) */
	case 0:
		return "hopopt";
	case 1:
		return "icmp";
	case 2:
		return "igmp";
	case 4:
		return "ipip";
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 33:
		return "dccp";
	case 41:
		return "ipv6";
	case 43:
		return "ipv6-route";
	case 44:
		return "ipv6-frag";
	case 47:
		return "gre";
	case 50:
		return "esp";
	case 51:
		return "ah";
	case 58:
		return "icmpv6";
	case 59:
		return "ipv6-nonxt";
	case 60:
		return "ipv6-opts";
	case 89:
		return "ospf";
	case 103:
		return "pim";
	case 112:
		return "vrrp";
	case 132:
		return "sctp";
	case 135:
		return "mobility-header";
	case 136:
		return "udplite";
	case 139:
		return "hip";
	case 140:
		return "shim6";
	}
	snprintf(buf, len, "%u", proto);
	return buf;
}

const char *replay_flow_proto(const struct choke_flow_key *k, char *buf, size_t len)
{
	if (k->kind != CHOKE_FLOW_KIND_IPV4 && k->kind != CHOKE_FLOW_KIND_IPV6)
		return "-";
	return replay_proto_name(k->proto, buf, len);
}

void replay_addr(const struct choke_flow_key *k, int dst, char *buf, size_t len)
{
	const uint8_t *a = dst ? k->dst : k->src;

	if (k->kind == CHOKE_FLOW_KIND_IPV4)
		inet_ntop(AF_INET, a, buf, (socklen_t)len);
	else if (k->kind == CHOKE_FLOW_KIND_IPV6)
		inet_ntop(AF_INET6, a, buf, (socklen_t)len);
	else
		snprintf(buf, len, "-");
}

/* ---- the replay ---- */

#define REPLAY_REORDER_MIN 256u /* the window's first size */

struct rpkt {
	uint32_t flow, wire_len, caplen;
	uint64_t t_arrival;
	uint8_t *data; /* with --write */
	struct choke_pkt_info info;
	struct rpkt *next;
};

/* a record waiting in the reorder window: keyed, not yet offered */
struct wrec {
	uint64_t t; /* the time it arrives, ns (adjusted, since the epoch) */
	uint32_t flow, wire_len, caplen;
	uint32_t id; /* protect's identity: the flow, or its host(s) */
	struct choke_pkt_info info;
	uint8_t *data; /* with --write */
};

/*
 * The reorder window: records in order of time (a ring, stable for equal
 * times), released to the queue once the latest time taken in is more
 * than REPLAY_REORDER_NS past theirs, or when it holds REPLAY_REORDER_MAX
 * records (or REPLAY_REORDER_BYTES of --write data).
 */
struct window {
	struct wrec *e;
	uint32_t mask, head, n;
	uint64_t bytes;
};

struct link {
	struct rpkt *on; /* being transmitted */
	uint64_t free_at;
};

struct run {
	const struct replay_opts *o;
	struct replay_result *res;
	struct choke q;
	void *ring;
	struct flowtab ft;
	struct rpkt *pool, *free_list;
	struct link link;
	struct window win;
	/* the capture's time: the offset added after steps back, the latest
	 * time taken in, the time of the last record released (the horizon)
	 * and of the first (the origin of the replay's clock) */
	uint64_t offset, newest, horizon, t0;
	int have_first, released_any;
	uint64_t now, last_change, last; /* last: replay time of the last released */
	double qlen_area, backlog_area;
	int lt;
	/* transmission times by length, computed once (a division) */
	struct {
		uint32_t len;
		uint64_t ns;
	} tx[256];
	pcap_t *dead;
	pcap_dumper_t *dumper;
	char *err;
	size_t errlen;
};

static void pkt_free(struct run *r, struct rpkt *p)
{
	if (p->data) {
		free(p->data);
		p->data = NULL;
	}
	p->next = r->free_list;
	r->free_list = p;
}

/* account the queue's occupancy up to time t */
static void advance(struct run *r, uint64_t t)
{
	if (t > r->last_change) {
		double dt = (double)(t - r->last_change);

		r->qlen_area += dt * choke_qlen(&r->q);
		r->backlog_area += dt * (double)choke_backlog(&r->q);
		r->last_change = t;
	}
}

/* choke_tx_ns(len, rate), remembered for the last length of each of 256 */
static inline uint64_t tx_ns(struct run *r, uint32_t len)
{
	uint32_t i = len & 255;

	if (r->tx[i].len != len) {
		r->tx[i].len = len;
		r->tx[i].ns = choke_tx_ns(len, r->o->rate_bps);
	}
	return r->tx[i].ns;
}

static void start_next(struct run *r, uint64_t t)
{
	uint32_t len;
	struct rpkt *p;

	advance(r, t);
	p = (struct rpkt *)choke_dequeue(&r->q, t, &len);
	if (!p)
		return;
	r->link.on = p;
	r->link.free_at = t + tx_ns(r, p->wire_len);
}

static void finish_tx(struct run *r)
{
	struct rpkt *p = r->link.on;
	struct replay_flow *f = &r->ft.flows[p->flow];
	uint64_t t = r->link.free_at;

	f->delivered_pkts++;
	f->delivered_bytes += p->wire_len;
	hist_add(r->res->delay, t - p->t_arrival);
	if (r->dumper && p->data) {
		struct pcap_pkthdr h;

		/* the dumper was opened for nanosecond timestamps */
		h.ts.tv_sec = (time_t)(t / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(t % 1000000000u);
		h.caplen = p->caplen;
		h.len = p->wire_len;
		pcap_dump((u_char *)r->dumper, &h, p->data);
		r->res->written++;
	}
	r->link.on = NULL;
	pkt_free(r, p);
}

/* complete every transmission that ends by t, starting the next ones */
static void link_until(struct run *r, uint64_t t)
{
	while (r->link.on && r->link.free_at <= t) {
		uint64_t done = r->link.free_at;

		finish_tx(r);
		start_next(r, done);
	}
}

/* the message for the caller; returns code (a negative errno) */
__attribute__((format(printf, 3, 4)))
static int fail(struct run *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* libpcap's DLT_ values as the replay's link types (pcap's LINKTYPE_) */
static int map_linktype(int dlt)
{
	switch (dlt) {
	case DLT_NULL:
		return CHOKE_LINK_NULL;
	case DLT_EN10MB:
		return CHOKE_LINK_ETHERNET;
	case DLT_PPP:
		return CHOKE_LINK_PPP;
	case DLT_PPP_SERIAL:
		return CHOKE_LINK_PPP_HDLC;
	case DLT_RAW:
#if defined(DLT_RAW) && DLT_RAW != 14
	case 14: /* DLT_RAW on some BSDs */
#endif
	case 101:
		return CHOKE_LINK_RAW;
	case DLT_C_HDLC:
		return CHOKE_LINK_C_HDLC;
	case DLT_IEEE802_11:
		return CHOKE_LINK_IEEE802_11;
#if DLT_LOOP != DLT_RAW
	case DLT_LOOP:
		return CHOKE_LINK_LOOP;
#endif
	case DLT_LINUX_SLL:
		return CHOKE_LINK_LINUX_SLL;
	case DLT_IEEE802_11_RADIO:
		return CHOKE_LINK_IEEE802_11_RADIO;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		return CHOKE_LINK_LINUX_SLL2;
#endif
#ifdef DLT_IPV4
	case DLT_IPV4:
		return CHOKE_LINK_IPV4;
#endif
#ifdef DLT_IPV6
	case DLT_IPV6:
		return CHOKE_LINK_IPV6;
#endif
#ifdef DLT_NFLOG
	case DLT_NFLOG:
		return CHOKE_LINK_NFLOG;
#endif
#ifdef DLT_PKTAP
	case DLT_PKTAP:
		return CHOKE_LINK_PKTAP;
#endif
	}
	return -1;
}

/* the other way, for the link types the fast path reads: the DLT libpcap
 * would report for the file (the report's linktype, the --write output) */
static int native_dlt(uint32_t linktype)
{
	switch (linktype) {
	case CHOKE_LINK_RAW:
		return DLT_RAW;
	case CHOKE_LINK_LOOP:
		return DLT_LOOP;
#ifdef DLT_PKTAP
	case CHOKE_LINK_PKTAP:
		return DLT_PKTAP;
#endif
	}
	return (int)linktype;
}

static int native_linktype_ok(uint32_t linktype)
{
	return linktype <= INT32_MAX && choke_pkt_linktype_supported((int)linktype);
}

/* a record the window releases: into the link and the queue at time t */
static int offer(struct run *r, const struct wrec *w, uint64_t t)
{
	struct replay_result *res = r->res;
	struct rpkt *p = r->free_list;
	struct choke_verdict v;
	enum choke_outcome out;
	uint32_t i;

	if (!p) {
		free(w->data);
		return fail(r, -ENOMEM, "packet pool exhausted");
	}
	r->free_list = p->next;
	p->flow = w->flow;
	p->wire_len = w->wire_len;
	p->caplen = w->caplen;
	p->t_arrival = t;
	p->data = w->data;
	p->info = w->info;
	link_until(r, t);
	advance(r, t);
	out = choke_enqueue_as(&r->q, p, p->wire_len, p->flow, w->id,
			       choke_pkt_ecn_capable(&p->info) ? CHOKE_PKT_ECN_CAPABLE : 0, t, &v);
	for (i = 0; i < v.nvictims; i++) {
		struct rpkt *vp = (struct rpkt *)v.victim[i];

		/* a match's victim, or the head a light flow's arrival
		 * pushed out at the limit (`sparse`) */
		if (out == CHOKE_DROP_MATCH)
			r->ft.flows[vp->flow].drop_match_victim++;
		else
			r->ft.flows[vp->flow].drop[CHOKE_DROP_LIMIT]++;
		pkt_free(r, vp);
	}
	choke_hh_add_verdict(res->hh, p->flow, out, &v, NULL);
	if (choke_outcome_is_marked(out)) {
		r->ft.flows[p->flow].marked_pkts++;
		if (p->data)
			choke_pkt_ecn_set_ce(p->data, p->caplen, &p->info);
	}
	if (choke_outcome_is_drop(out)) {
		r->ft.flows[p->flow].drop[out]++;
		pkt_free(r, p);
	}
	if (!r->link.on)
		start_next(r, t);
	if (choke_qlen(&r->q) > res->max_qlen)
		res->max_qlen = choke_qlen(&r->q);
	if (choke_backlog(&r->q) > res->max_backlog)
		res->max_backlog = choke_backlog(&r->q);
	return 0;
}

/* the window's earliest record to the queue (its slot is not reused
 * before offer() returns: nothing enters the window meanwhile) */
static int release(struct run *r)
{
	struct window *w = &r->win;
	const struct wrec *e = &w->e[w->head];

	w->head = (w->head + 1) & w->mask;
	w->n--;
	if (e->data)
		w->bytes -= e->caplen;
	if (!r->released_any) {
		r->t0 = e->t;
		r->released_any = 1;
	}
	r->horizon = e->t;
	r->last = e->t - r->t0;
	return offer(r, e, e->t - r->t0);
}

/* The slot after the last record, to fill (there is room: make_room()). */
static inline struct wrec *window_tail(struct window *w)
{
	return &w->e[(w->head + w->n) & w->mask];
}

/* The record filled in at the tail into its place by time, after those of
 * the same time or earlier. */
static void window_put(struct window *w)
{
	uint32_t i = w->n;
	struct wrec e = w->e[(w->head + i) & w->mask];

	if (i > 0 && w->e[(w->head + i - 1) & w->mask].t > e.t) {
		while (i > 0 && w->e[(w->head + i - 1) & w->mask].t > e.t) {
			w->e[(w->head + i) & w->mask] = w->e[(w->head + i - 1) & w->mask];
			i--;
		}
		w->e[(w->head + i) & w->mask] = e;
	}
	w->n++;
	if (e.data)
		w->bytes += e.caplen;
}

/*
 * The time a record of capture time ta arrives (docs/replay.md): in
 * order, at its time (a gap is idle time); a step back of at most
 * REPLAY_REORDER_NS, put in its place by time if the window still holds
 * the records it goes before, else held at the time of the last record
 * released; a longer step back, taken as the capture's clock restarting:
 * from it on, times are shifted to continue at the latest time so far.
 * Sets *why when strict would refuse it (its time changed).
 */
static uint64_t arrival(struct run *r, uint64_t ta, char *why, size_t len)
{
	struct replay_result *res = r->res;
	uint64_t a = ta + r->offset;

	why[0] = 0;
	if (a < ta || a > REPLAY_TIME_MAX) { /* past the replay's clock */
		res->held++;
		res->reordered++;
		snprintf(why, len, "timestamp too far past the capture's start after %llu "
			 "steps back (the replay's clock ends at 2^63 ns)",
			 (unsigned long long)res->steps_back);
		return r->newest;
	}
	if (!r->have_first) {
		r->have_first = 1;
		r->newest = a;
		return a;
	}
	if (a >= r->newest) {
		if (a - r->newest > REPLAY_LONG_GAP_NS)
			res->long_gaps++;
		r->newest = a;
		return a;
	}
	res->reordered++;
	if (r->newest - a > REPLAY_REORDER_NS) {
		snprintf(why, len, "timestamp is %.6f s before the previous record's (more "
			 "than %.0f s: a step back of the capture's clock)",
			 (double)(r->newest - a) * 1e-9, REPLAY_REORDER_NS * 1e-9);
		res->steps_back++;
		r->offset += r->newest - a;
		return r->newest;
	}
	if (r->released_any && a < r->horizon) {
		snprintf(why, len, "timestamp is %.6f s before a record already replayed "
			 "(the window holds %u records)",
			 (double)(r->horizon - a) * 1e-9, REPLAY_REORDER_MAX);
		res->held++;
		return r->horizon;
	}
	res->sorted++;
	return a;
}

static void run_free(struct run *r)
{
	uint32_t i;

	if (r->pool)
		for (i = 0; i < r->o->q.limit + 2; i++)
			free(r->pool[i].data);
	free(r->pool);
	if (r->win.e)
		for (i = 0; i < r->win.n; i++)
			free(r->win.e[(r->win.head + i) & r->win.mask].data);
	free(r->win.e);
	free(r->ring);
	free(r->ft.slot);
	if (r->dumper)
		pcap_dump_close(r->dumper);
	if (r->dead)
		pcap_close(r->dead);
}

/* ---- reading the capture ---- */

/*
 * Through libpcap, the capture reaches it through a counting stream
 * (fopencookie over the file's descriptor), so the bytes libpcap has
 * consumed are known: those the stream was given less those still in its
 * buffer (glibc's read pointers; elsewhere the check is off). That is how
 * a classic-pcap record whose captured length is above the file's snaplen
 * is seen: libpcap cuts it to the snaplen without a word (for pcapng it
 * refuses the file). The stream first gives back the bytes already read
 * to see whether the fast path takes the file.
 */
struct counted {
	int fd;             /* the file, or standard input */
	uint64_t n;         /* bytes given to the stream */
	uint8_t magic[4];   /* the first four */
	uint8_t pre[PCAPFILE_HDR]; /* bytes read before the stream existed */
	size_t npre, ipre;
	int eof;            /* read() returned 0 */
	FILE *s;            /* the stream libpcap reads */
	/* the check: record header bytes (0: no check) and where the next
	 * record starts */
	uint64_t hdr, pos;
};

static ssize_t counted_read(void *cookie, char *buf, size_t size)
{
	struct counted *c = cookie;
	ssize_t n;
	size_t i;

	if (c->ipre < c->npre) {
		n = (ssize_t)(c->npre - c->ipre < size ? c->npre - c->ipre : size);
		memcpy(buf, c->pre + c->ipre, (size_t)n);
		c->ipre += (size_t)n;
	} else {
		n = read(c->fd, buf, size);
		if (n == 0)
			c->eof = 1;
		if (n <= 0)
			return n; /* 0 at the end; -1 with errno (EINTR for a signal) */
	}
	for (i = 0; c->n + i < 4 && i < (size_t)n; i++)
		c->magic[c->n + i] = (uint8_t)buf[i];
	c->n += (uint64_t)n;
	return n;
}

static int counted_close(void *cookie)
{
	free(cookie); /* the descriptor is the caller's */
	return 0;
}

/* fd (its first npre bytes already read into pre) as a stream counting
 * into *cp */
static FILE *counted_open(int fd, const uint8_t *pre, size_t npre, struct counted **cp)
{
	static const cookie_io_functions_t io = { .read = counted_read,
						  .close = counted_close };
	struct counted *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	memcpy(c->pre, pre, npre);
	c->npre = npre;
	c->s = fopencookie(c, "r", io);
	if (!c->s || setvbuf(c->s, NULL, _IOFBF, 1 << 16)) {
		if (c->s)
			fclose(c->s); /* frees c */
		else
			free(c);
		errno = ENOMEM;
		return NULL;
	}
	*cp = c;
	return c->s;
}

/* the bytes libpcap has taken from the stream */
static uint64_t counted_pos(const struct counted *c)
{
#ifdef __GLIBC__
	return c->n - (uint64_t)(c->s->_IO_read_end - c->s->_IO_read_ptr);
#else
	return c->n;
#endif
}

/* after the file header: whether records can be checked */
static void capcheck_init(struct counted *c, pcap_t *pc)
{
	const uint8_t *m = c->magic;
	uint32_t le = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 |
		      (uint32_t)m[3] << 24;
	uint32_t be = (uint32_t)m[3] | (uint32_t)m[2] << 8 | (uint32_t)m[1] << 16 |
		      (uint32_t)m[0] << 24;

	c->hdr = 0;
#ifdef __GLIBC__
	if (pcap_major_version(pc) != 2)
		return;
	if (le == 0xa1b2c3d4 || be == 0xa1b2c3d4 || le == 0xa1b23c4d || be == 0xa1b23c4d)
		c->hdr = 16;
	else if (le == 0xa1b2cd34 || be == 0xa1b2cd34) /* Kuznetzov's patched format */
		c->hdr = 24;
	c->pos = counted_pos(c);
#else
	(void)pc;
	(void)le;
	(void)be;
#endif
}

/* The captured length the file gave the record just read (above h->caplen
 * when libpcap cut it to the snaplen). */
static uint64_t capcheck_len(struct counted *c, const struct pcap_pkthdr *h)
{
	uint64_t pos, n;

	if (!c->hdr)
		return h->caplen;
	pos = counted_pos(c);
	n = pos - c->pos - c->hdr;
	c->pos = pos;
	return n > h->caplen ? n : h->caplen;
}

/* one record, from either reader */
struct rec {
	int64_t sec;      /* as the file has it */
	uint64_t frac_ns; /* the fraction in ns (at or above 10^9: no time) */
	uint32_t caplen, len;
	uint64_t filecap; /* the captured length the file gave */
	const uint8_t *data;
};

/* the capture, read by the fast path or by libpcap */
struct input {
	int fd, own;
	struct pcapfile pf;
	int native;
	pcap_t *pc;
	struct counted *cnt;
	int classic; /* libpcap reads a classic pcap file (32-bit seconds) */
	int snaplen, dlt, lt;
};

/* A record's time in ns since the epoch, or UINT64_MAX if it is none:
 * negative, a fraction of a second of 10^9 ns or more, or 2^33 s or more
 * (the year 2242) */
static uint64_t record_ns(const struct rec *x)
{
	if (x->sec < 0 || x->sec >= ((int64_t)1 << 33) || x->frac_ns >= 1000000000u)
		return UINT64_MAX;
	return (uint64_t)x->sec * 1000000000u + x->frac_ns;
}

/*
 * Why a record cannot be replayed, into why (empty if it can); counts it.
 */
static void record_check(struct replay_result *res, const struct rec *x, uint64_t ta,
			 char *why, size_t len)
{
	why[0] = 0;
	if (x->filecap > x->caplen || x->caplen > (uint32_t)res->snaplen) {
		res->skipped_caplen++;
		snprintf(why, len, "captured length %llu is above the file's snaplen %d",
			 (unsigned long long)x->filecap, res->snaplen);
	} else if (x->len == 0 || x->len < x->caplen || x->len > REPLAY_MAX_LEN) {
		res->skipped_len++;
		if (x->len > REPLAY_MAX_LEN)
			snprintf(why, len, "original length %u is above %u bytes", x->len,
				 REPLAY_MAX_LEN);
		else if (x->len == 0)
			snprintf(why, len, "original length is 0");
		else
			snprintf(why, len, "original length %u is below the captured "
				 "length %u", x->len, x->caplen);
	} else if (ta == UINT64_MAX) {
		res->skipped_time++;
		snprintf(why, len, "timestamp %lld.%09llu s is not a time", (long long)x->sec,
			 (unsigned long long)x->frac_ns);
	}
}

uint64_t replay_skipped(const struct replay_result *res)
{
	return res->skipped_caplen + res->skipped_len + res->skipped_time;
}

/* the dumper on a duplicate of the caller's descriptor */
static int open_dumper(struct run *r, const struct input *in)
{
	int fd = dup(fileno(r->o->write_to)), e;
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

	if (!f) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return fail(r, -e, "cannot write the delivered packets: %s", strerror(e));
	}
	r->dead = pcap_open_dead_with_tstamp_precision(in->dlt, in->snaplen,
						       PCAP_TSTAMP_PRECISION_NANO);
	r->dumper = r->dead ? pcap_dump_fopen(r->dead, f) : NULL;
	if (!r->dumper) {
		fclose(f);
		return fail(r, -EIO, "cannot write the delivered packets: %s",
			    r->dead ? pcap_geterr(r->dead) : "out of memory");
	}
	return 0;
}

/* up to n bytes from fd into buf, retrying EINTR unless stopped: the
 * count (short at the end), or -1 with errno */
static ssize_t read_full(int fd, uint8_t *buf, size_t n, const volatile sig_atomic_t *stop)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k > 0)
			got += (size_t)k;
		else if (k == 0)
			break;
		else if (errno != EINTR || (stop && *stop))
			return -1;
	}
	return (ssize_t)got;
}

/* Open the capture: the fast path if it takes the file, else libpcap. */
static int input_open(struct run *r, struct input *in)
{
	const struct replay_opts *o = r->o;
	char errbuf[PCAP_ERRBUF_SIZE];
	uint8_t hdr[PCAPFILE_HDR];
	ssize_t n;
	FILE *s;

	memset(in, 0, sizeof(*in));
	in->own = strcmp(o->file, "-") != 0;
	in->fd = in->own ? open(o->file, O_RDONLY | O_CLOEXEC) : 0;
	if (in->fd < 0) {
		in->own = 0;
		return fail(r, -errno, "%s: %s", o->file, strerror(errno));
	}
	n = read_full(in->fd, hdr, sizeof(hdr), o->stop);
	if (n < 0)
		return fail(r, -errno, "%s: %s", o->file, strerror(errno));
	if (n == (ssize_t)sizeof(hdr) && pcapfile_takes(hdr, native_linktype_ok, &in->pf)) {
		if (pcapfile_open(&in->pf, in->fd, o->stop))
			return fail(r, -ENOMEM, "out of memory");
		in->native = 1;
		in->lt = (int)in->pf.linktype;
		in->dlt = native_dlt(in->pf.linktype);
		in->snaplen = (int)in->pf.snaplen;
		return 0;
	}
	s = counted_open(in->fd, hdr, (size_t)n, &in->cnt);
	if (!s)
		return fail(r, -ENOMEM, "out of memory");
	in->pc = pcap_fopen_offline_with_tstamp_precision(s, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!in->pc) {
		fclose(s);
		in->cnt = NULL;
		return fail(r, -EIO, "%s: %s", o->file, errbuf);
	}
	in->dlt = pcap_datalink(in->pc);
	in->lt = map_linktype(in->dlt);
	in->snaplen = pcap_snapshot(in->pc);
	in->classic = pcap_major_version(in->pc) == 2;
	capcheck_init(in->cnt, in->pc);
	return 0;
}

static void input_close(struct input *in)
{
	if (in->native)
		pcapfile_close(&in->pf);
	if (in->pc)
		pcap_close(in->pc); /* closes the stream, not the descriptor */
	if (in->own && in->fd >= 0)
		close(in->fd);
}

enum { IN_RECORD = 1, IN_END = 0, IN_ERROR = -1, IN_CUT = -2 };

/*
 * The next record into *x. IN_ERROR and IN_CUT leave the message (without
 * the file's name) in msg; nrec is the number of the record being read.
 */
static int input_next(struct input *in, struct rec *x, uint64_t nrec, char *msg, size_t len)
{
	if (in->native) {
		struct pcapfile_rec pr;
		int rc = pcapfile_next(&in->pf, &pr);

		if (rc == PCAPFILE_RECORD) {
			x->sec = pr.sec; /* unsigned in the file: 1970 to 2106 */
			x->frac_ns = in->pf.nano ? pr.frac : (uint64_t)pr.frac * 1000;
			x->caplen = pr.caplen;
			x->len = pr.len;
			x->filecap = pr.caplen;
			x->data = pr.data;
			return IN_RECORD;
		}
		if (rc == PCAPFILE_END)
			return IN_END;
		if (rc == PCAPFILE_CUT) {
			snprintf(msg, len, "the file ends inside record %llu, after %u of its "
				 "%u %s bytes (at byte %llu)", (unsigned long long)nrec,
				 in->pf.cut_got, in->pf.cut_want,
				 in->pf.cut_in_header ? "header" : "captured",
				 (unsigned long long)in->pf.offset);
			return IN_CUT;
		}
		if (rc == PCAPFILE_BIGCAP)
			snprintf(msg, len, "record %llu: captured length %u is above %u bytes: "
				 "the file is damaged here (no record can be found after it)",
				 (unsigned long long)nrec, pr.caplen, PCAPFILE_MAX_CAPLEN);
		else
			snprintf(msg, len, "record %llu: %s", (unsigned long long)nrec,
				 strerror(in->pf.err));
		return IN_ERROR;
	} else {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(in->pc, &h, &data);

		if (rc == 1) {
			/* a classic file's seconds are unsigned 32 bits, which
			 * libpcap reads as signed */
			x->sec = in->classic ? (int64_t)(uint32_t)h->ts.tv_sec : (int64_t)h->ts.tv_sec;
			x->frac_ns = h->ts.tv_usec < 0 ? 1000000000u : (uint64_t)h->ts.tv_usec;
			x->caplen = h->caplen;
			x->len = h->len;
			x->filecap = capcheck_len(in->cnt, h);
			x->data = data;
			return IN_RECORD;
		}
		if (rc != PCAP_ERROR)
			return IN_END;
		/* libpcap's message for a file that ends inside a record or a
		 * block: "truncated (pcapng) dump file; tried to read ..." */
		if (in->cnt->eof && strstr(pcap_geterr(in->pc), "truncated")) {
			snprintf(msg, len, "the file ends inside record %llu (or the block "
				 "before it): %s", (unsigned long long)nrec, pcap_geterr(in->pc));
			return IN_CUT;
		}
		snprintf(msg, len, "record %llu: %s", (unsigned long long)nrec,
			 pcap_geterr(in->pc));
		return IN_ERROR;
	}
}

/* A record into the window: keyed and counted as offered now, released to
 * the queue in order of time. */
static int take(struct run *r, const struct rec *x, uint64_t t)
{
	struct window *w = &r->win;
	struct wrec *e = window_tail(w);
	struct choke_flow_key key;
	struct replay_flow *f;
	int rc;

	choke_flow_key_from_frame(x->data, x->caplen, r->lt, &key, &e->info);
	e->flow = flowtab_get(&r->ft, &key);
	if (e->flow == UINT32_MAX)
		return fail(r, -ENOMEM, "out of memory");
	e->id = choke_protect_by(&r->q) ? choke_flow_identity(&key, choke_protect_by(&r->q), 0)
					: e->flow;
	e->t = t;
	e->wire_len = x->len;
	e->caplen = x->caplen;
	e->data = NULL;
	if (r->dumper) {
		e->data = malloc(x->caplen ? x->caplen : 1);
		if (!e->data)
			return fail(r, -ENOMEM, "out of memory");
		memcpy(e->data, x->data, x->caplen);
	}
	f = &r->ft.flows[e->flow];
	f->offered_pkts++;
	f->offered_bytes += x->len;
	window_put(w);
	while (w->n && w->e[w->head].t + REPLAY_REORDER_NS < r->newest)
		if ((rc = release(r)))
			return rc;
	return 0;
}

/* twice the slots (up to REPLAY_REORDER_MAX), the records kept in order;
 * 0, or -1 if it cannot grow */
static int window_grow(struct window *w)
{
	uint32_t size = w->mask + 1, i;
	struct wrec *e;

	if (size >= REPLAY_REORDER_MAX || !(e = malloc(2 * (size_t)size * sizeof(*e))))
		return -1;
	for (i = 0; i < w->n; i++)
		e[i] = w->e[(w->head + i) & w->mask];
	free(w->e);
	w->e = e;
	w->head = 0;
	w->mask = 2 * size - 1;
	return 0;
}

/* room in the window for one more record (of caplen bytes with --write):
 * a full window grows, or releases its first */
static int make_room(struct run *r, uint32_t caplen)
{
	struct window *w = &r->win;
	int rc;

	if (w->n > w->mask)
		window_grow(w);
	while (w->n && (w->n > w->mask ||
			(r->dumper && w->bytes + caplen > REPLAY_REORDER_BYTES)))
		if ((rc = release(r)))
			return rc;
	return 0;
}

int replay_run(const struct replay_opts *o, struct replay_result *res, char *err,
	       size_t errlen)
{
	char why[192], msg[256];
	struct run r;
	struct input in;
	struct rec x;
	uint64_t t = 0;
	int rc, status;
	uint32_t i;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.res = res;
	r.err = err;
	r.errlen = errlen;
	if (!o->rate_bps)
		return fail(&r, -EINVAL, "the bottleneck rate is 0");
	if ((status = input_open(&r, &in))) {
		input_close(&in);
		return status;
	}
	res->linktype = in.dlt;
	res->snaplen = in.snaplen;
	r.lt = in.lt;
	if (in.lt < 0 || !choke_pkt_linktype_supported(in.lt)) {
		const char *name = pcap_datalink_val_to_name(in.dlt);

		fail(&r, -ENOTSUP, "%s: link type %d (%s) is not supported (Ethernet, raw IP, "
		     "IPv4, IPv6, Linux cooked, BSD loopback, PPP, Cisco HDLC, 802.11 with or "
		     "without radiotap, NFLOG and PKTAP captures are)", o->file, in.dlt,
		     name ? name : "unknown");
		input_close(&in);
		return -ENOTSUP;
	}
	status = fail(&r, -ENOMEM, "out of memory");
	res->delay = calloc(1, sizeof(*res->delay));
	res->hh = malloc(sizeof(*res->hh));
	if (res->hh) {
		void *mem = malloc(choke_hh_bytes(REPLAY_HH_K));

		if (!mem || choke_hh_init(res->hh, REPLAY_HH_K, mem,
					  choke_hh_bytes(REPLAY_HH_K), o->seed)) {
			free(mem);
			free(res->hh);
			res->hh = NULL;
		}
	}
	r.ring = malloc(choke_ring_bytes(o->q.limit));
	r.pool = calloc((size_t)o->q.limit + 2, sizeof(*r.pool));
	/* the window grows as it fills (make_room) */
	r.win.e = malloc(REPLAY_REORDER_MIN * sizeof(*r.win.e));
	r.win.mask = REPLAY_REORDER_MIN - 1;
	for (i = 0; i < 256; i++) {
		r.tx[i].len = i; /* lengths 0 to 255 */
		r.tx[i].ns = choke_tx_ns(i, o->rate_bps);
	}
	if (!res->delay || !res->hh || !r.ring || !r.pool || !r.win.e || flowtab_init(&r.ft))
		goto out;
	if (choke_init(&r.q, &o->q, r.ring, choke_ring_bytes(o->q.limit))) {
		status = fail(&r, -EINVAL, "invalid queue configuration");
		goto out;
	}
	choke_seed(&r.q, o->seed);
	for (i = 0; i < o->q.limit + 2; i++)
		pkt_free(&r, &r.pool[i]);
	if (o->write_to && (status = open_dumper(&r, &in)))
		goto out;

	while ((rc = input_next(&in, &x, res->packets_read + 1, msg, sizeof(msg))) == IN_RECORD) {
		uint64_t ta = record_ns(&x), at;

		if (o->stop && *o->stop) {
			status = fail(&r, -EINTR, "interrupted after %llu records",
				      (unsigned long long)res->packets_read);
			goto out;
		}
		res->packets_read++;
		record_check(res, &x, ta, why, sizeof(why));
		if (why[0]) {
			if (o->strict) {
				status = fail(&r, -EBADMSG, "%s: record %llu: %s (refused: "
					      "--strict)", o->file,
					      (unsigned long long)res->packets_read, why);
				goto out;
			}
			if (replay_skipped(res) == 1)
				snprintf(res->first_skip, sizeof(res->first_skip),
					 "record %llu: %s",
					 (unsigned long long)res->packets_read, why);
			continue;
		}
		if ((status = make_room(&r, x.caplen)))
			goto out;
		at = arrival(&r, ta, why, sizeof(why));
		if (why[0] && o->strict) {
			status = fail(&r, -EBADMSG, "%s: record %llu: %s (refused: --strict)",
				      o->file, (unsigned long long)res->packets_read, why);
			goto out;
		}
		if (x.caplen < x.len)
			res->truncated_records++;
		if ((status = take(&r, &x, at)))
			goto out;
	}
	if (rc == IN_ERROR || (rc == IN_CUT && o->strict) || (o->stop && *o->stop)) {
		if (o->stop && *o->stop)
			status = fail(&r, -EINTR, "interrupted after %llu records",
				      (unsigned long long)res->packets_read);
		else
			status = fail(&r, rc == IN_CUT ? -EBADMSG : -EIO, "%s: %s%s", o->file,
				      msg, rc == IN_CUT ? " (refused: --strict)" : "");
		goto out;
	}
	if (rc == IN_CUT) {
		res->cut = 1;
		snprintf(res->cut_msg, sizeof(res->cut_msg), "%s", msg);
	}
	/* the capture is over: the window, then the queue */
	while (r.win.n)
		if ((status = release(&r)))
			goto out;
	res->capture_seconds = (double)r.last * 1e-9;
	t = r.last;
	while (r.link.on) {
		uint64_t done = r.link.free_at;

		finish_tx(&r);
		start_next(&r, done);
		t = done;
	}
	advance(&r, t);
	res->end_seconds = (double)t * 1e-9;
	if (r.dumper && (pcap_dump_flush(r.dumper) || ferror(pcap_dump_file(r.dumper)))) {
		status = fail(&r, -EIO, "writing the delivered packets: %s",
			      strerror(errno ? errno : EIO));
		goto out;
	}
	res->st = *choke_get_stats(&r.q);
	res->flows = r.ft.flows;
	r.ft.flows = NULL;
	res->nflows = r.ft.n;
	for (i = 0; i < res->nflows; i++) {
		const struct replay_flow *f = &res->flows[i];

		res->offered_pkts += f->offered_pkts;
		res->offered_bytes += f->offered_bytes;
		res->delivered_pkts += f->delivered_pkts;
		res->delivered_bytes += f->delivered_bytes;
		res->marked_pkts += f->marked_pkts;
		res->dropped_pkts += replay_flow_drops(f);
	}
	if (t > 0) {
		res->mean_qlen = r.qlen_area / (double)t;
		res->mean_backlog = r.backlog_area / (double)t;
	}
	status = 0;
	if (errlen)
		err[0] = 0;
out:
	free(r.ft.flows);
	run_free(&r);
	input_close(&in);
	if (status) {
		free(res->delay);
		res->delay = NULL;
		if (res->hh)
			free(res->hh->e);
		free(res->hh);
		res->hh = NULL;
	}
	return status;
}

void replay_result_free(struct replay_result *res)
{
	free(res->flows);
	free(res->delay);
	if (res->hh)
		free(res->hh->e); /* the summary's memory begins with its entries */
	free(res->hh);
	res->flows = NULL;
	res->delay = NULL;
	res->hh = NULL;
}
