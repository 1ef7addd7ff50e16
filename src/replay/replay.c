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

/* ---- flows: key -> index, open addressing ---- */

struct flowtab {
	uint32_t *slot; /* index + 1, 0 = empty */
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
	uint32_t *ns = calloc((size_t)nmask + 1, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < t->n; i++) {
		uint32_t h = choke_flow_key_hash(&t->flows[i].key, t->seed) & nmask;

		while (ns[h])
			h = (h + 1) & nmask;
		ns[h] = i + 1;
	}
	free(t->slot);
	t->slot = ns;
	t->mask = nmask;
	return 0;
}

/* the index of key, added if new; UINT32_MAX when out of memory */
static uint32_t flowtab_get(struct flowtab *t, const struct choke_flow_key *key)
{
	uint32_t h = choke_flow_key_hash(key, t->seed) & t->mask;

	for (;;) {
		uint32_t s = t->slot[h];

		if (!s)
			break;
		if (choke_flow_key_equal(&t->flows[s - 1].key, key))
			return s - 1;
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
	t->slot[h] = t->n + 1;
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

struct rpkt {
	uint32_t flow, wire_len, caplen;
	uint64_t t_arrival;
	uint8_t *data; /* with --write */
	struct choke_pkt_info info;
	struct rpkt *next;
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
	uint64_t now, last_change;
	double qlen_area, backlog_area;
	pcap_t *dead;
	pcap_dumper_t *dumper;
	char *err;
	size_t errlen;
};

static void pkt_free(struct run *r, struct rpkt *p)
{
	free(p->data);
	p->data = NULL;
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

static void start_next(struct run *r, uint64_t t)
{
	uint32_t len;
	struct rpkt *p;

	advance(r, t);
	p = (struct rpkt *)choke_dequeue(&r->q, t, &len);
	if (!p)
		return;
	r->link.on = p;
	r->link.free_at = t + choke_tx_ns(p->wire_len, r->o->rate_bps);
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

static int map_linktype(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
		return CHOKE_LINK_ETHERNET;
	case DLT_RAW:
#if defined(DLT_RAW) && DLT_RAW != 14
	case 14: /* DLT_RAW on some BSDs */
#endif
	case 101:
		return CHOKE_LINK_RAW;
	case DLT_LINUX_SLL:
		return CHOKE_LINK_LINUX_SLL;
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
	}
	return -1;
}

static int one_packet(struct run *r, const struct pcap_pkthdr *h,
		      const u_char *data, uint64_t t, int lt)
{
	struct replay_result *res = r->res;
	struct choke_flow_key key;
	struct rpkt *p = r->free_list;
	struct replay_flow *f;
	struct choke_verdict v;
	enum choke_outcome out;
	uint32_t fi, i;

	if (!p)
		return fail(r, -ENOMEM, "packet pool exhausted");
	choke_flow_key_from_frame(data, h->caplen, lt, &key, &p->info);
	fi = flowtab_get(&r->ft, &key);
	if (fi == UINT32_MAX)
		return fail(r, -ENOMEM, "out of memory");
	r->free_list = p->next;
	p->flow = fi;
	p->wire_len = h->len;
	p->caplen = h->caplen;
	p->t_arrival = t;
	p->data = NULL;
	if (r->dumper) {
		p->data = malloc(h->caplen ? h->caplen : 1);
		if (!p->data)
			return fail(r, -ENOMEM, "out of memory");
		memcpy(p->data, data, h->caplen);
	}
	f = &r->ft.flows[fi];
	f->offered_pkts++;
	f->offered_bytes += h->len;
	link_until(r, t);
	advance(r, t);
	out = choke_enqueue_as(&r->q, p, h->len, fi,
			       choke_protect_by(&r->q) ?
				       choke_flow_identity(&key, choke_protect_by(&r->q), 0) : fi,
			       choke_pkt_ecn_capable(&p->info) ? CHOKE_PKT_ECN_CAPABLE : 0, t, &v);
	for (i = 0; i < v.nvictims; i++) {
		struct rpkt *vp = (struct rpkt *)v.victim[i];

		r->ft.flows[vp->flow].drop_match_victim++;
		pkt_free(r, vp);
	}
	choke_hh_add_verdict(res->hh, fi, out, &v, NULL);
	if (choke_outcome_is_marked(out)) {
		f->marked_pkts++;
		if (p->data)
			choke_pkt_ecn_set_ce(p->data, p->caplen, &p->info);
	}
	if (choke_outcome_is_drop(out)) {
		f->drop[out]++;
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

static void run_free(struct run *r)
{
	uint32_t i;

	if (r->pool)
		for (i = 0; i < r->o->q.limit + 2; i++)
			free(r->pool[i].data);
	free(r->pool);
	free(r->ring);
	free(r->ft.slot);
	if (r->dumper)
		pcap_dump_close(r->dumper);
	if (r->dead)
		pcap_close(r->dead);
}

/* ---- what is refused in a capture (docs/inputs.md) ---- */

/*
 * The capture reaches libpcap through a counting stream (fopencookie over
 * the file's descriptor), so the bytes libpcap has consumed are known:
 * those the stream was given less those still in its buffer (glibc's read
 * pointers; elsewhere the check is off). That is how a classic-pcap record
 * whose captured length is above the file's snaplen is seen: libpcap cuts
 * it to the snaplen without a word (for pcapng it refuses the file).
 */
struct counted {
	int fd;             /* the file, or standard input */
	int own;            /* close fd at the end */
	uint64_t n;         /* bytes given to the stream */
	uint8_t magic[4];   /* the first four */
	FILE *s;            /* the stream libpcap reads */
	/* the check: record header bytes (0: no check) and where the next
	 * record starts */
	uint64_t hdr, pos;
};

static ssize_t counted_read(void *cookie, char *buf, size_t size)
{
	struct counted *c = cookie;
	ssize_t n = read(c->fd, buf, size);
	size_t i;

	if (n <= 0)
		return n; /* 0 at the end; -1 with errno (EINTR for a signal) */
	for (i = 0; c->n + i < 4 && i < (size_t)n; i++)
		c->magic[c->n + i] = (uint8_t)buf[i];
	c->n += (uint64_t)n;
	return n;
}

static int counted_close(void *cookie)
{
	struct counted *c = cookie;
	int rc = c->own ? close(c->fd) : 0;

	free(c);
	return rc;
}

/* path ("-": standard input) as a stream counting into *cp */
static FILE *counted_open(const char *path, struct counted **cp)
{
	static const cookie_io_functions_t io = { .read = counted_read,
						  .close = counted_close };
	struct counted *c = calloc(1, sizeof(*c));
	int e;

	if (!c)
		return NULL;
	c->own = strcmp(path, "-") != 0;
	c->fd = c->own ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (c->fd < 0) {
		e = errno;
		free(c);
		errno = e;
		return NULL;
	}
	c->s = fopencookie(c, "r", io);
	if (!c->s || setvbuf(c->s, NULL, _IOFBF, 1 << 16)) {
		if (c->s)
			fclose(c->s); /* frees c */
		else
			counted_close(c);
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

/* A record's time in ns since the epoch, or UINT64_MAX if it is none
 * (negative, a fraction of a second of 10^9 ns or more, or past 2514). */
static uint64_t record_ns(const struct pcap_pkthdr *h)
{
	if (h->ts.tv_sec < 0 || (uint64_t)h->ts.tv_sec >= (1ull << 34) ||
	    h->ts.tv_usec < 0 || h->ts.tv_usec >= 1000000000)
		return UINT64_MAX;
	return (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
}

/*
 * Why a record cannot be replayed, into why (empty if it can); counts it.
 * ta is its time (record_ns), last the previous replayed record's, first
 * whether there was none.
 */
static void record_check(struct replay_result *res, const struct pcap_pkthdr *h,
			 uint64_t filecap, uint64_t ta, uint64_t last, int first,
			 char *why, size_t len)
{
	why[0] = 0;
	if (filecap > h->caplen) {
		res->skipped_caplen++;
		snprintf(why, len, "captured length %llu is above the file's snaplen %d",
			 (unsigned long long)filecap, res->snaplen);
	} else if (h->len == 0 || h->len < h->caplen || h->len > REPLAY_MAX_LEN) {
		res->skipped_len++;
		if (h->len > REPLAY_MAX_LEN)
			snprintf(why, len, "original length %u is above %u bytes", h->len,
				 REPLAY_MAX_LEN);
		else if (h->len == 0)
			snprintf(why, len, "original length is 0");
		else
			snprintf(why, len, "original length %u is below the captured "
				 "length %u", h->len, h->caplen);
	} else if (ta == UINT64_MAX) {
		res->skipped_time++;
		snprintf(why, len, "timestamp %lld.%09lld s is not a time",
			 (long long)h->ts.tv_sec, (long long)h->ts.tv_usec);
	} else if (!first && (ta > last + REPLAY_MAX_GAP_NS || ta + REPLAY_MAX_GAP_NS < last)) {
		res->skipped_time++;
		snprintf(why, len, "timestamp is %.0f s %s the previous record's "
			 "(more than a day)",
			 ta > last ? (double)(ta - last) * 1e-9 : (double)(last - ta) * 1e-9,
			 ta > last ? "after" : "before");
	}
}

uint64_t replay_skipped(const struct replay_result *res)
{
	return res->skipped_caplen + res->skipped_len + res->skipped_time;
}

/* the dumper on a duplicate of the caller's descriptor */
static int open_dumper(struct run *r, pcap_t *pc)
{
	int fd = dup(fileno(r->o->write_to)), e;
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

	if (!f) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return fail(r, -e, "cannot write the delivered packets: %s", strerror(e));
	}
	r->dead = pcap_open_dead_with_tstamp_precision(pcap_datalink(pc), pcap_snapshot(pc),
						       PCAP_TSTAMP_PRECISION_NANO);
	r->dumper = r->dead ? pcap_dump_fopen(r->dead, f) : NULL;
	if (!r->dumper) {
		fclose(f);
		return fail(r, -EIO, "cannot write the delivered packets: %s",
			    r->dead ? pcap_geterr(r->dead) : "out of memory");
	}
	return 0;
}

int replay_run(const struct replay_opts *o, struct replay_result *res, char *err,
	       size_t errlen)
{
	char errbuf[PCAP_ERRBUF_SIZE], why[192];
	struct run r;
	struct counted *cnt = NULL;
	FILE *in;
	pcap_t *pc;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t t0 = 0, last_abs = 0, last = 0, t = 0;
	int lt, rc, first = 1, status;
	uint32_t i;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.res = res;
	r.err = err;
	r.errlen = errlen;
	if (!o->rate_bps)
		return fail(&r, -EINVAL, "the bottleneck rate is 0");
	in = counted_open(o->file, &cnt);
	if (!in)
		return fail(&r, -errno, "%s: %s", o->file, strerror(errno));
	pc = pcap_fopen_offline_with_tstamp_precision(in, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!pc) {
		fclose(in);
		return fail(&r, -EIO, "%s: %s", o->file, errbuf);
	}
	lt = map_linktype(pcap_datalink(pc));
	res->linktype = pcap_datalink(pc);
	res->snaplen = pcap_snapshot(pc);
	if (lt < 0 || !choke_pkt_linktype_supported(lt)) {
		const char *name = pcap_datalink_val_to_name(pcap_datalink(pc));

		fail(&r, -ENOTSUP, "%s: link type %d (%s) is not supported (Ethernet, raw IP, "
		     "IPv4, IPv6 and Linux cooked captures are)", o->file, pcap_datalink(pc),
		     name ? name : "unknown");
		pcap_close(pc);
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
	if (!res->delay || !res->hh || !r.ring || !r.pool || flowtab_init(&r.ft))
		goto out;
	if (choke_init(&r.q, &o->q, r.ring, choke_ring_bytes(o->q.limit))) {
		status = fail(&r, -EINVAL, "invalid queue configuration");
		goto out;
	}
	choke_seed(&r.q, o->seed);
	for (i = 0; i < o->q.limit + 2; i++)
		pkt_free(&r, &r.pool[i]);
	if (o->write_to && (status = open_dumper(&r, pc)))
		goto out;

	capcheck_init(cnt, pc);
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		uint64_t ta = record_ns(h);

		if (o->stop && *o->stop) {
			status = fail(&r, -EINTR, "interrupted after %llu records",
				      (unsigned long long)res->packets_read);
			goto out;
		}
		res->packets_read++;
		record_check(res, h, capcheck_len(cnt, h), ta, last_abs, first, why,
			     sizeof(why));
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
		if (first) {
			t0 = last_abs = ta;
			first = 0;
		}
		if (ta < last_abs) {
			res->reordered++;
			ta = last_abs; /* held at the previous */
		}
		last_abs = ta;
		t = last = ta - t0;
		if (h->caplen < h->len)
			res->truncated_records++;
		if ((status = one_packet(&r, h, data, t, lt)))
			goto out;
	}
	if (rc == PCAP_ERROR) {
		status = fail(&r, -EIO, "%s: record %llu: %s", o->file,
			      (unsigned long long)res->packets_read + 1, pcap_geterr(pc));
		goto out;
	}
	res->capture_seconds = (double)last * 1e-9;
	/* the capture is over: drain the queue */
	while (r.link.on) {
		uint64_t done = r.link.free_at;

		finish_tx(&r);
		start_next(&r, done);
		t = done;
	}
	advance(&r, t > last ? t : last);
	res->end_seconds = (double)(t > last ? t : last) * 1e-9;
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
	if (last > 0 || t > 0) {
		double span = (double)(t > last ? t : last);

		res->mean_qlen = r.qlen_area / span;
		res->mean_backlog = r.backlog_area / span;
	}
	status = 0;
	if (errlen)
		err[0] = 0;
out:
	free(r.ft.flows);
	run_free(&r);
	pcap_close(pc);
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
