/* The pcap what-if replayer: see replay.h and docs/replay.md. */
#include "replay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t replay_stop;

static void on_signal(int sig)
{
	replay_stop = sig;
}

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
		uint32_t h = flow_key_hash(&t->flows[i].key, t->seed) & nmask;

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
static uint32_t flowtab_get(struct flowtab *t, const struct flow_key *key)
{
	uint32_t h = flow_key_hash(key, t->seed) & t->mask;

	for (;;) {
		uint32_t s = t->slot[h];

		if (!s)
			break;
		if (flow_key_equal(&t->flows[s - 1].key, key))
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
	case 1:
		return "icmp";
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 33:
		return "dccp";
	case 58:
		return "icmpv6";
	case 132:
		return "sctp";
	case 136:
		return "udplite";
	}
	snprintf(buf, len, "%u", proto);
	return buf;
}

void replay_addr(const struct flow_key *k, int dst, char *buf, size_t len)
{
	const uint8_t *a = dst ? k->dst : k->src;

	if (k->kind == FLOW_KIND_IPV4)
		inet_ntop(AF_INET, a, buf, (socklen_t)len);
	else if (k->kind == FLOW_KIND_IPV6)
		inet_ntop(AF_INET6, a, buf, (socklen_t)len);
	else
		snprintf(buf, len, "-");
}

/* ---- the replay ---- */

struct rpkt {
	uint32_t flow, wire_len, caplen;
	uint64_t t_arrival;
	uint8_t *data; /* with --write */
	struct pkt_info info;
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
	int write_failed;
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

static uint64_t tx_ns(uint64_t rate_bps, uint32_t bytes)
{
	__uint128_t num = (__uint128_t)bytes * 8u * 1000000000u;

	return (uint64_t)((num + rate_bps - 1) / rate_bps);
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
	r->link.free_at = t + tx_ns(r->o->rate_bps, p->wire_len);
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

static int fail(struct run *r, const char *fmt, const char *arg)
{
	(void)r;
	fprintf(stderr, "choke: replay: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return -1;
}

static int map_linktype(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
		return PKT_LINK_ETHERNET;
	case DLT_RAW:
#if defined(DLT_RAW) && DLT_RAW != 14
	case 14: /* DLT_RAW on some BSDs */
#endif
	case 101:
		return PKT_LINK_RAW;
	case DLT_LINUX_SLL:
		return PKT_LINK_LINUX_SLL;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		return PKT_LINK_LINUX_SLL2;
#endif
#ifdef DLT_IPV4
	case DLT_IPV4:
		return PKT_LINK_IPV4;
#endif
#ifdef DLT_IPV6
	case DLT_IPV6:
		return PKT_LINK_IPV6;
#endif
	}
	return -1;
}

static int one_packet(struct run *r, const struct pcap_pkthdr *h,
		      const u_char *data, uint64_t t, int lt)
{
	struct replay_result *res = r->res;
	struct flow_key key;
	struct rpkt *p = r->free_list;
	struct replay_flow *f;
	struct choke_verdict v;
	uint32_t fi, i;
	int out;

	if (!p)
		return fail(r, "%s", "packet pool exhausted");
	flow_key_from_frame(data, h->caplen, lt, &key, &p->info);
	fi = flowtab_get(&r->ft, &key);
	if (fi == UINT32_MAX)
		return fail(r, "%s", "out of memory");
	r->free_list = p->next;
	p->flow = fi;
	p->wire_len = h->len;
	p->caplen = h->caplen;
	p->t_arrival = t;
	p->data = NULL;
	if (r->dumper) {
		p->data = malloc(h->caplen ? h->caplen : 1);
		if (!p->data)
			return fail(r, "%s", "out of memory");
		memcpy(p->data, data, h->caplen);
	}
	f = &r->ft.flows[fi];
	f->offered_pkts++;
	f->offered_bytes += h->len;
	link_until(r, t);
	advance(r, t);
	out = choke_enqueue(&r->q, p, h->len, fi,
			    pkt_ecn_capable(&p->info) ? CHOKE_PKT_ECN_CAPABLE : 0, t, &v);
	for (i = 0; i < v.nvictims; i++) {
		struct rpkt *vp = (struct rpkt *)v.victim[i];

		r->ft.flows[vp->flow].drop_match_victim++;
		pkt_free(r, vp);
	}
	switch (out) {
	case CHOKE_QUEUED_MARKED:
		f->marked_pkts++;
		if (p->data)
			pkt_ecn_set_ce(p->data, p->caplen, &p->info);
		break;
	case CHOKE_DROP_MATCH:
		f->drop_match_arrival++;
		choke_hh_add(res->hh, fi, 1 + v.nvictims, NULL);
		break;
	case CHOKE_DROP_FORCED:
		f->drop_forced++;
		break;
	case CHOKE_DROP_EARLY:
		f->drop_early++;
		break;
	case CHOKE_DROP_LIMIT:
		f->drop_limit++;
		break;
	}
	if (out >= CHOKE_DROP_MATCH)
		pkt_free(r, p);
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

int replay_run(const struct replay_opts *o, struct replay_result *res)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct run r;
	pcap_t *pc;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t t0 = 0, last = 0, t = 0;
	int lt, rc, first = 1, status = -1;
	uint32_t i;
	struct sigaction sa, old_int, old_term;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.res = res;
	if (!o->rate_bps)
		return fail(&r, "%s", "the bottleneck rate is 0");
	pc = pcap_open_offline_with_tstamp_precision(o->file, PCAP_TSTAMP_PRECISION_NANO,
						     errbuf);
	if (!pc)
		return fail(&r, "%s", errbuf);
	lt = map_linktype(pcap_datalink(pc));
	res->linktype = pcap_datalink(pc);
	if (lt < 0 || !pkt_linktype_supported(lt)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s: link type %d (%s) is not supported "
			 "(Ethernet, raw IP, IPv4, IPv6 and Linux cooked captures are)",
			 o->file, pcap_datalink(pc),
			 pcap_datalink_val_to_name(pcap_datalink(pc)) ?
				 pcap_datalink_val_to_name(pcap_datalink(pc)) : "unknown");
		pcap_close(pc);
		return fail(&r, "%s", msg);
	}
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
	if (!res->delay || !res->hh || !r.ring || !r.pool || flowtab_init(&r.ft)) {
		fail(&r, "%s", "out of memory");
		goto out;
	}
	if (choke_init(&r.q, &o->q, r.ring, choke_ring_bytes(o->q.limit))) {
		fail(&r, "%s", "invalid queue configuration");
		goto out;
	}
	choke_seed(&r.q, o->seed);
	for (i = 0; i < o->q.limit + 2; i++)
		pkt_free(&r, &r.pool[i]);
	if (o->write_file) {
		r.dead = pcap_open_dead_with_tstamp_precision(pcap_datalink(pc),
							      pcap_snapshot(pc),
							      PCAP_TSTAMP_PRECISION_NANO);
		r.dumper = r.dead ? pcap_dump_open(r.dead, o->write_file) : NULL;
		if (!r.dumper) {
			fail(&r, "%s", r.dead ? pcap_geterr(r.dead) : "cannot open output");
			goto out;
		}
	}

	replay_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	while (!replay_stop && (rc = pcap_next_ex(pc, &h, &data)) == 1) {
		t = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		if (first) {
			t0 = t;
			first = 0;
		}
		t = t >= t0 ? t - t0 : 0;
		if (t < last) {
			res->reordered++;
			t = last;
		}
		last = t;
		res->packets_read++;
		if (h->caplen < h->len)
			res->truncated_records++;
		if (one_packet(&r, h, data, t, lt))
			goto restore;
	}
	if (replay_stop) {
		fprintf(stderr, "choke: replay: interrupted by signal %d after %llu "
			"packets; no report\n", (int)replay_stop,
			(unsigned long long)res->packets_read);
		goto restore;
	}
	if (rc == PCAP_ERROR) {
		fail(&r, "%s", pcap_geterr(pc));
		goto restore;
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
	if (r.dumper) {
		if (pcap_dump_flush(r.dumper) || ferror(pcap_dump_file(r.dumper))) {
			fail(&r, "%s", "writing the output file failed");
			goto restore;
		}
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
		res->dropped_pkts += f->drop_early + f->drop_forced + f->drop_limit +
				     f->drop_match_arrival + f->drop_match_victim;
	}
	if (last > 0 || t > 0) {
		double span = (double)(t > last ? t : last);

		res->mean_qlen = r.qlen_area / span;
		res->mean_backlog = r.backlog_area / span;
	}
	status = 0;
restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	free(r.ft.flows);
	run_free(&r);
	pcap_close(pc);
	if (status) {
		if (o->write_file)
			unlink(o->write_file); /* never leave a partial output */
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
