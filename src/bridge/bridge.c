/* choke bridge: see bridge.h and docs/bridge.md. */
#include "bridge.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "afp.h"
#include "choke/hh.h"
#include "choke/pkt.h"

#define RX_RING_BYTES (16u << 20)
#define TX_FRAMES 1024
#define POOL_SLACK 512 /* frames of a block beyond the queue's limit */
#define HH_K 32        /* counters of the penalised-flows summary */

enum { PKT_FREE, PKT_QUEUED };

struct bpkt {
	uint8_t *buf;  /* our copy */
	uint8_t *data; /* the frame: in the receive ring, or buf */
	uint32_t len;
	uint8_t state;
	uint64_t t_in;
	struct flow_key key;
	struct pkt_info info;
	struct bpkt *next;
};

struct dir_stats {
	uint64_t rx_frames, rx_bytes, tx_frames, tx_bytes;
	uint64_t drop_ring_full, drop_oversize, drop_reconfig, rx_ring_drops;
	uint64_t copies;      /* frames copied out of the receive ring */
	uint64_t csum_filled; /* checksums a local sender left to the hardware */
	uint64_t direct;      /* frames sent straight from the receive ring */
	double delay_avg_ns;  /* EWMA of queueing delay, 1/64 */
	uint64_t delay_max_ns, delay_last_ns;
};

struct dir {
	const char *in, *out;
	struct afp_rx rx;
	struct afp_tx tx;
	int shaped, out_up;
	uint32_t max_frame;
	/* the queue */
	struct choke q;
	void *ring;
	struct choke_params prm;
	struct bpkt *free_list;
	struct bpkt **chunks;
	uint32_t nchunks, npkts;
	struct bpkt **inring; /* admitted this batch, still in the ring */
	uint32_t ninring, inring_cap;
	struct afp_frame *batch;
	uint64_t flow_seed;
	/* token bucket, in nanoseconds of transmission time */
	uint64_t rate_bps, burst_ns, last_ns;
	int64_t budget_ns;
	/* who is penalised: matched drops by flow, and each counter's key */
	struct choke_hh hh;
	struct flow_key hh_key[HH_K];
	/* accounting */
	struct dir_stats st;
	uint64_t rate_t, rate_rx_bytes, rate_tx_bytes;
	double rate_in_bps, rate_out_bps;
};

struct bridge {
	const struct bridge_opts *o;
	struct dir d[2];
	int ndirs;
	int ctl_fd, sig_fd;
	char sock_path[108];
	uint64_t start_ns;
	int stop;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bridge_default_socket(const char *in, char *buf, size_t len)
{
	snprintf(buf, len, "/run/choke/bridge-%s.sock", in);
}

/* ---- sysfs ---- */

static int read_sys(const char *ifname, const char *what, char *buf, size_t len)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static long sys_long(const char *ifname, const char *what)
{
	char buf[64];

	if (read_sys(ifname, what, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

static int if_is_up(const char *ifname)
{
	char buf[32];

	if (read_sys(ifname, "operstate", buf, sizeof(buf)))
		return 0;
	/* "unknown" is what interfaces without carrier reporting say */
	return !strcmp(buf, "up") || !strcmp(buf, "unknown");
}

/* ---- packets ---- */

static int pool_grow(struct dir *d, uint32_t n)
{
	struct bpkt *chunk = calloc(n, sizeof(*chunk));
	uint8_t *bufs = malloc((size_t)n * d->max_frame);
	struct bpkt **nc = realloc(d->chunks, (d->nchunks + 2) * sizeof(*nc));
	uint32_t i;

	if (!chunk || !bufs || !nc) {
		free(chunk);
		free(bufs);
		if (nc)
			d->chunks = nc;
		return -1;
	}
	d->chunks = nc;
	d->chunks[d->nchunks++] = chunk;
	d->chunks[d->nchunks] = NULL;
	for (i = 0; i < n; i++) {
		chunk[i].buf = bufs + (size_t)i * d->max_frame;
		chunk[i].next = d->free_list;
		d->free_list = &chunk[i];
	}
	d->npkts += n;
	return 0;
}

static void pkt_put(struct dir *d, struct bpkt *p)
{
	p->state = PKT_FREE;
	p->next = d->free_list;
	d->free_list = p;
}

static bool same_flow_cb(void *ctx, const void *a, const void *b)
{
	(void)ctx;
	return flow_key_equal(&((const struct bpkt *)a)->key,
			      &((const struct bpkt *)b)->key);
}

static void reconfig_drop_cb(void *ctx, void *pkt, uint32_t len)
{
	struct dir *d = (struct dir *)ctx;

	(void)len;
	d->st.drop_reconfig++;
	pkt_put(d, (struct bpkt *)pkt);
}

/* ---- token bucket ---- */

static uint64_t tx_time_ns(const struct dir *d, uint32_t len)
{
	return (uint64_t)(((__uint128_t)len * 8u * 1000000000u + d->rate_bps - 1) /
			  d->rate_bps);
}

static void bucket_refill(struct dir *d, uint64_t now)
{
	if (now > d->last_ns) {
		d->budget_ns += (int64_t)(now - d->last_ns);
		if (d->budget_ns > (int64_t)d->burst_ns)
			d->budget_ns = (int64_t)d->burst_ns;
		d->last_ns = now;
	}
}

/* ---- one direction ---- */

static int dir_open(struct bridge *b, struct dir *d, const char *in, const char *out,
		    int shaped, char *err, size_t errlen)
{
	const struct bridge_opts *o = b->o;
	long mtu_in = sys_long(in, "mtu"), mtu_out = sys_long(out, "mtu");
	uint32_t slot;

	memset(d, 0, sizeof(*d));
	d->rx.fd = d->tx.fd = -1;
	d->in = in;
	d->out = out;
	d->shaped = shaped;
	if (mtu_in < 0 || mtu_out < 0) {
		snprintf(err, errlen, "no such interface: %s", mtu_in < 0 ? in : out);
		return -1;
	}
	if (mtu_in > mtu_out && !o->allow_mtu_mismatch) {
		snprintf(err, errlen, "MTU mismatch: %s has MTU %ld but %s only %ld, so "
			 "larger frames could not be forwarded; make them equal or pass "
			 "--allow-mtu-mismatch (oversize frames are then dropped and counted)",
			 in, mtu_in, out, mtu_out);
		return -1;
	}
	/* Ethernet header, two VLAN tags, and slack */
	d->max_frame = (uint32_t)(mtu_in > mtu_out ? mtu_in : mtu_out) + 14 + 8 + 4;
	for (slot = 256; slot < d->max_frame + 64; slot <<= 1)
		;
	if (afp_rx_open(&d->rx, in, o->rx_v2 ? TPACKET_V2 : TPACKET_V3, RX_RING_BYTES,
			slot, err, errlen))
		return -1;
	if (afp_tx_open(&d->tx, out, slot, TX_FRAMES, err, errlen))
		return -1;
	d->out_up = if_is_up(out);
	d->flow_seed = o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)(d - b->d) + 1;
	d->inring_cap = afp_rx_batch_max(&d->rx);
	d->inring = calloc(d->inring_cap, sizeof(*d->inring));
	d->batch = calloc(d->inring_cap, sizeof(*d->batch));
	if (!d->inring || !d->batch) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!shaped)
		return 0;
	d->prm = o->q;
	d->rate_bps = o->rate_bps;
	if (d->rate_bps) {
		uint64_t two_frames = tx_time_ns(d, 2 * d->max_frame);

		d->burst_ns = o->burst_bytes ? tx_time_ns(d, (uint32_t)o->burst_bytes)
					     : 2000000; /* 2 ms of the rate */
		if (d->burst_ns < two_frames)
			d->burst_ns = two_frames;
		d->budget_ns = (int64_t)d->burst_ns;
	}
	d->ring = malloc(choke_ring_bytes(d->prm.cfg.limit));
	if (!d->ring || choke_init(&d->q, &d->prm.cfg, d->ring,
				   choke_ring_bytes(d->prm.cfg.limit))) {
		snprintf(err, errlen, "cannot set up the queue");
		return -1;
	}
	{
		struct choke_ops ops = { NULL, same_flow_cb, d };

		choke_set_ops(&d->q, &ops);
	}
	choke_seed(&d->q, o->seed + (uint64_t)(d - b->d));
	{
		void *mem = malloc(choke_hh_bytes(HH_K));

		if (!mem || choke_hh_init(&d->hh, HH_K, mem, choke_hh_bytes(HH_K), o->seed)) {
			free(mem);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (pool_grow(d, d->prm.cfg.limit + POOL_SLACK)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void dir_close(struct dir *d)
{
	uint32_t i;

	afp_rx_close(&d->rx);
	afp_tx_close(&d->tx);
	free(d->ring);
	for (i = 0; i < d->nchunks; i++) {
		free(d->chunks[i][0].buf);
		free(d->chunks[i]);
	}
	free(d->chunks);
	free(d->inring);
	free(d->batch);
	if (d->shaped)
		free(d->hh.e);
}

/* Send from the queue while the bucket and the transmit ring allow; the
 * ring is flushed (one send()) after each run of up to 256 frames. */
static void dir_transmit(struct dir *d, uint64_t now)
{
	uint32_t room;
	int rounds = 0;

	if (!d->shaped || !d->out_up || !choke_qlen(&d->q))
		return;
	if (d->rate_bps)
		bucket_refill(d, now);
	while (choke_qlen(&d->q) && rounds++ < 64 && (room = afp_tx_free_slots(&d->tx)) > 0) {
		int stop = 0;

		while (room && choke_qlen(&d->q)) {
			struct bpkt *p = (struct bpkt *)choke_peek(&d->q);
			uint64_t c = d->rate_bps ? tx_time_ns(d, p->len) : 0;
			uint64_t delay;
			uint32_t len;

			if (d->rate_bps && d->budget_ns < (int64_t)c) {
				stop = 1;
				break;
			}
			p = (struct bpkt *)choke_dequeue(&d->q, now, &len);
			if (afp_tx_put(&d->tx, p->data, p->len)) {
				d->st.drop_ring_full++; /* cannot happen: room was counted */
				pkt_put(d, p);
				continue;
			}
			delay = now > p->t_in ? now - p->t_in : 0;
			d->budget_ns -= (int64_t)c;
			d->st.tx_frames++;
			d->st.tx_bytes += p->len;
			if (p->data != p->buf)
				d->st.direct++;
			d->st.delay_last_ns = delay;
			d->st.delay_avg_ns += ((double)delay - d->st.delay_avg_ns) / 64.0;
			if (delay > d->st.delay_max_ns)
				d->st.delay_max_ns = delay;
			room--;
			pkt_put(d, p);
		}
		afp_tx_flush(&d->tx);
		if (stop)
			break;
	}
}

/* Time until the head packet may leave, 0 if now, -1 if nothing waits. */
static int64_t dir_wait_ns(struct dir *d, uint64_t now)
{
	struct bpkt *p;
	int64_t need;

	if (!d->shaped || !choke_qlen(&d->q) || !d->out_up)
		return -1;
	if (!d->rate_bps)
		return afp_tx_free_slots(&d->tx) ? 0 : (afp_tx_kick(&d->tx), 200000);
	bucket_refill(d, now);
	p = (struct bpkt *)choke_peek(&d->q);
	need = (int64_t)tx_time_ns(d, p->len) - d->budget_ns;
	if (need <= 0 && !afp_tx_free_slots(&d->tx)) {
		/* the transmit ring is full: frames a failed send() left behind
		 * (a flap) go now, and we look again shortly instead of spinning */
		afp_tx_kick(&d->tx);
		return 200000;
	}
	return need > 0 ? need : 0;
}

/* One frame of a receive block. A frame sent by a local socket (veth,
 * containers) may still lack its TCP/UDP checksum, left to an offload that
 * does not happen on this path: fill it in. */
static void dir_frame(struct dir *d, uint8_t *frame, uint32_t len, uint32_t status,
		      uint64_t now)
{
	struct choke_verdict v;
	struct bpkt *p;
	uint32_t i;
	int r;

	d->st.rx_frames++;
	d->st.rx_bytes += len;
	if (len > d->max_frame || len > d->tx.max_len) {
		d->st.drop_oversize++;
		return;
	}
	if (status & TP_STATUS_CSUMNOTREADY) {
		struct flow_key key;
		struct pkt_info info;

		flow_key_from_frame(frame, len, PKT_LINK_ETHERNET, &key, &info);
		d->st.csum_filled += pkt_l4_checksum_fill(frame, len, &info, key.proto);
	}
	if (!d->shaped) {
		if (afp_tx_put(&d->tx, frame, len)) {
			d->st.drop_ring_full++;
		} else {
			d->st.tx_frames++;
			d->st.tx_bytes += len;
			d->st.direct++;
		}
		return;
	}
	p = d->free_list;
	if (!p && pool_grow(d, 256) == 0)
		p = d->free_list;
	if (!p) {
		d->st.drop_ring_full++; /* out of packet memory */
		return;
	}
	d->free_list = p->next;
	p->data = frame;
	p->len = len;
	p->t_in = now;
	flow_key_from_frame(frame, len, PKT_LINK_ETHERNET, &p->key, &p->info);
	r = choke_enqueue(&d->q, p, len, flow_key_hash(&p->key, d->flow_seed),
			  pkt_ecn_capable(&p->info) ? CHOKE_PKT_ECN_CAPABLE : 0, now, &v);
	for (i = 0; i < v.nvictims; i++)
		pkt_put(d, (struct bpkt *)v.victim[i]);
	if (r == CHOKE_DROP_MATCH) {
		uint32_t slot = choke_hh_add(&d->hh, flow_key_hash(&p->key, d->flow_seed),
					     1 + v.nvictims, NULL);

		if (slot < HH_K)
			d->hh_key[slot] = p->key;
	}
	if (r >= CHOKE_DROP_MATCH) {
		pkt_put(d, p);
		return;
	}
	if (r == CHOKE_QUEUED_MARKED)
		pkt_ecn_set_ce(frame, len, &p->info);
	p->state = PKT_QUEUED;
	if (d->ninring < d->inring_cap)
		d->inring[d->ninring++] = p;
	else {
		memcpy(p->buf, p->data, p->len);
		p->data = p->buf;
		d->st.copies++;
	}
}

/* Drain the receive ring: each batch's frames are offered, the queue is
 * served, and the frames still queued are copied out before the batch goes
 * back to the kernel (dropped and promptly sent frames are never copied). */
static void dir_receive(struct dir *d, uint64_t now)
{
	uint32_t n, i, batches = 0;

	while (batches < 64 && (n = afp_rx_batch(&d->rx, d->batch, d->inring_cap)) > 0) {
		d->ninring = 0;
		for (i = 0; i < n; i++) {
			dir_frame(d, d->batch[i].data, d->batch[i].len, d->batch[i].status, now);
			/* serve the queue as we go: a V3 block can hold more
			 * frames than the queue's limit */
			if ((i & 255) == 255 && d->shaped)
				dir_transmit(d, now);
		}
		if (d->shaped) {
			dir_transmit(d, now);
			for (i = 0; i < d->ninring; i++) {
				struct bpkt *p = d->inring[i];

				if (p->state == PKT_QUEUED && p->data != p->buf) {
					memcpy(p->buf, p->data, p->len);
					p->data = p->buf;
					d->st.copies++;
				}
			}
			d->ninring = 0;
		} else {
			afp_tx_flush(&d->tx);
		}
		afp_rx_done(&d->rx);
		batches++;
	}
}

/* ---- reporting ---- */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		b->cap = b->cap * 2 + (size_t)(n > 0 ? n : 64);
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
}

/* "udp 10.0.0.1:5000>10.0.0.2:53" (JSON-safe) */
static void key_label(const struct flow_key *k, char *buf, size_t len)
{
	char s[64], d[64];
	int fam = k->kind == FLOW_KIND_IPV4 ? AF_INET : AF_INET6;

	if (k->kind != FLOW_KIND_IPV4 && k->kind != FLOW_KIND_IPV6) {
		snprintf(buf, len, "ethertype 0x%04x", k->ethertype);
		return;
	}
	inet_ntop(fam, k->src, s, sizeof(s));
	inet_ntop(fam, k->dst, d, sizeof(d));
	snprintf(buf, len, "%s %s:%u>%s:%u",
		 k->proto == 6 ? "tcp" : k->proto == 17 ? "udp" : k->proto == 1 ? "icmp" : "ip",
		 s, k->sport, d, k->dport);
}

static void if_counters(struct sbuf *b, const char *ifname)
{
	static const char *const names[] = { "rx_packets", "rx_bytes", "rx_dropped",
		"rx_errors", "tx_packets", "tx_bytes", "tx_dropped", "tx_errors" };
	char what[64];
	size_t i;

	sb_printf(b, "{\"name\":\"%s\",\"up\":%s", ifname, if_is_up(ifname) ? "true" : "false");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(what, sizeof(what), "statistics/%s", names[i]);
		sb_printf(b, ",\"%s\":%ld", names[i], sys_long(ifname, what));
	}
	sb_printf(b, "}");
}

static void dir_json(struct sbuf *b, struct dir *d)
{
	const struct choke_stats *s = d->shaped ? choke_get_stats(&d->q) : NULL;
	char line[256];

	sb_printf(b, "{\"in\":\"%s\",\"out\":\"%s\",\"shaped\":%s", d->in, d->out,
		  d->shaped ? "true" : "false");
	if (d->shaped) {
		choke_params_format(&d->prm.cfg, line, sizeof(line));
		sb_printf(b, ",\"rate_bps\":%llu,\"burst_ns\":%llu,\"discipline\":\"%s\","
			  "\"params\":\"%s\"",
			  (unsigned long long)d->rate_bps, (unsigned long long)d->burst_ns,
			  d->prm.cfg.kind == CHOKE_KIND_FIFO ? "fifo" :
			  d->prm.cfg.kind == CHOKE_KIND_RED ? "red" : "choke", line);
	}
	sb_printf(b, ",\"rx_frames\":%llu,\"rx_bytes\":%llu,\"tx_frames\":%llu,"
		  "\"tx_bytes\":%llu,\"rate_in_bps\":%.0f,\"rate_out_bps\":%.0f,"
		  "\"drops\":{\"discipline\":%llu,\"ring_full\":%llu,\"oversize\":%llu,"
		  "\"reconfigure\":%llu,\"rx_ring\":%llu},\"copies\":%llu,\"direct\":%llu,\"checksums_filled\":%llu",
		  (unsigned long long)d->st.rx_frames, (unsigned long long)d->st.rx_bytes,
		  (unsigned long long)d->st.tx_frames, (unsigned long long)d->st.tx_bytes,
		  d->rate_in_bps, d->rate_out_bps,
		  (unsigned long long)(s ? s->drops - s->other_drop : 0),
		  (unsigned long long)d->st.drop_ring_full,
		  (unsigned long long)d->st.drop_oversize,
		  (unsigned long long)d->st.drop_reconfig,
		  (unsigned long long)d->st.rx_ring_drops, (unsigned long long)d->st.copies,
		  (unsigned long long)d->st.direct, (unsigned long long)d->st.csum_filled);
	if (s) {
		sb_printf(b, ",\"qdisc\":{\"sent_bytes\":%llu,\"sent_pkts\":%llu,"
			  "\"dropped\":%llu,\"overlimits\":%llu,\"requeues\":0,"
			  "\"backlog_bytes\":%llu,\"backlog_pkts\":%u,\"marked\":%llu,"
			  "\"early\":%llu,\"pdrop\":%llu,\"other\":0,\"matched\":%llu},"
			  "\"queue\":{\"len\":%u,\"bytes\":%llu,\"delay_ms_last\":%.3f,"
			  "\"delay_ms_avg\":%.3f,\"delay_ms_max\":%.3f}",
			  (unsigned long long)s->sent_bytes, (unsigned long long)s->sent_pkts,
			  (unsigned long long)s->drops, (unsigned long long)s->overlimits,
			  (unsigned long long)choke_backlog(&d->q), choke_qlen(&d->q),
			  (unsigned long long)(s->prob_mark + s->forced_mark),
			  (unsigned long long)(s->prob_drop + s->forced_drop),
			  (unsigned long long)s->pdrop, (unsigned long long)s->matched,
			  choke_qlen(&d->q), (unsigned long long)choke_backlog(&d->q),
			  (double)d->st.delay_last_ns / 1e6, d->st.delay_avg_ns / 1e6,
			  (double)d->st.delay_max_ns / 1e6);
	}
	if (s) {
		struct choke_hh_item top[10];
		uint32_t n = choke_hh_top(&d->hh, top, 10), i;

		sb_printf(b, ",\"penalised\":{\"counters\":%u,\"total\":%llu,\"bound\":%llu,"
			  "\"flows\":[", HH_K, (unsigned long long)choke_hh_total(&d->hh),
			  (unsigned long long)choke_hh_bound(&d->hh));
		for (i = 0; i < n; i++) {
			char label[160];

			key_label(&d->hh_key[top[i].slot], label, sizeof(label));
			sb_printf(b, "%s{\"flow\":\"%s\",\"estimate\":%llu,\"error\":%llu}",
				  i ? "," : "", label, (unsigned long long)top[i].count,
				  (unsigned long long)top[i].err);
		}
		sb_printf(b, "]}");
	}
	sb_printf(b, ",\"if_in\":");
	if_counters(b, d->in);
	sb_printf(b, ",\"if_out\":");
	if_counters(b, d->out);
	sb_printf(b, "}");
}

static char *stats_json(struct bridge *br)
{
	struct sbuf b = { malloc(4096), 0, 4096 };
	int i;

	if (!b.s)
		abort();
	sb_printf(&b, "{\"pid\":%d,\"uptime_s\":%.3f,\"directions\":[", (int)getpid(),
		  (double)(now_ns() - br->start_ns) / 1e9);
	for (i = 0; i < br->ndirs; i++) {
		if (i)
			sb_printf(&b, ",");
		dir_json(&b, &br->d[i]);
	}
	sb_printf(&b, "]}\n");
	return b.s;
}

static void dir_text(struct sbuf *b, struct dir *d)
{
	const struct choke_stats *s = d->shaped ? choke_get_stats(&d->q) : NULL;
	char line[256];
	static const char *const names[] = { "rx_packets", "rx_dropped", "tx_packets",
					     "tx_dropped" };
	size_t i;

	if (s) {
		choke_params_format(&d->prm.cfg, line, sizeof(line));
		if (d->rate_bps)
			sb_printf(b, "%s -> %s: %s, shaped to %.6g Mbit/s\n", d->in, d->out,
				  line, (double)d->rate_bps / 1e6);
		else
			sb_printf(b, "%s -> %s: %s, not shaped\n", d->in, d->out, line);
		sb_printf(b, " Sent %llu bytes %llu pkt (dropped %llu, overlimits %llu "
			  "requeues 0)\n backlog %llub %up requeues 0\n  marked %llu early "
			  "%llu pdrop %llu other 0 matched %llu\n",
			  (unsigned long long)s->sent_bytes, (unsigned long long)s->sent_pkts,
			  (unsigned long long)s->drops, (unsigned long long)s->overlimits,
			  (unsigned long long)choke_backlog(&d->q), choke_qlen(&d->q),
			  (unsigned long long)(s->prob_mark + s->forced_mark),
			  (unsigned long long)(s->prob_drop + s->forced_drop),
			  (unsigned long long)s->pdrop, (unsigned long long)s->matched);
		{
			struct choke_hh_item top[5];
			uint32_t n = choke_hh_top(&d->hh, top, 5), j;

			for (j = 0; j < n; j++) {
				char label[160];

				key_label(&d->hh_key[top[j].slot], label, sizeof(label));
				sb_printf(b, "%s %s %llu (+-%llu)%s", j ? "," : " penalised:", label,
					  (unsigned long long)top[j].count,
					  (unsigned long long)top[j].err, j + 1 == n ? "\n" : "");
			}
		}
		sb_printf(b, " queue delay: last %.3f ms, average %.3f ms, max %.3f ms\n",
			  (double)d->st.delay_last_ns / 1e6, d->st.delay_avg_ns / 1e6,
			  (double)d->st.delay_max_ns / 1e6);
	} else {
		sb_printf(b, "%s -> %s: forwarded unshaped\n", d->in, d->out);
	}
	sb_printf(b, " frames in %llu (%.3f Mbit/s), out %llu (%.3f Mbit/s); dropped: ring "
		  "full %llu, oversize %llu, reconfigure %llu, receive ring %llu\n",
		  (unsigned long long)d->st.rx_frames, d->rate_in_bps / 1e6,
		  (unsigned long long)d->st.tx_frames, d->rate_out_bps / 1e6,
		  (unsigned long long)d->st.drop_ring_full,
		  (unsigned long long)d->st.drop_oversize,
		  (unsigned long long)d->st.drop_reconfig,
		  (unsigned long long)d->st.rx_ring_drops);
	sb_printf(b, " interfaces:");
	for (i = 0; i < 4; i++) {
		char what[64];

		snprintf(what, sizeof(what), "statistics/%s", names[i]);
		sb_printf(b, " %s %s %ld%s", i < 2 ? d->in : d->out, names[i],
			  sys_long(i < 2 ? d->in : d->out, what), i < 3 ? "," : "\n");
	}
}

static char *stats_text(struct bridge *br)
{
	struct sbuf b = { malloc(4096), 0, 4096 };
	int i;

	if (!b.s)
		abort();
	for (i = 0; i < br->ndirs; i++)
		dir_text(&b, &br->d[i]);
	return b.s;
}

/* ---- reconfiguration ---- */

static int apply_words(struct bridge *br, int argc, char **argv, char *msg, size_t len)
{
	struct choke_params p;
	char err[CHOKE_ERRBUF_SIZE];
	int kind = CHOKE_KIND_CHOKE, i;

	char *words[72], bw[32];
	int has_bw = 0;

	if (argc > 0 && (!strcmp(argv[0], "choke") || !strcmp(argv[0], "red") ||
			 !strcmp(argv[0], "fifo"))) {
		kind = !strcmp(argv[0], "red") ? CHOKE_KIND_RED :
		       !strcmp(argv[0], "fifo") ? CHOKE_KIND_FIFO : CHOKE_KIND_CHOKE;
		argc--, argv++;
	}
	if (argc > 64) {
		snprintf(msg, len, "error: too many words");
		return -1;
	}
	/* as at start: choke and red words without a bandwidth get the rate's */
	for (i = 0; i < argc; i++) {
		words[i] = argv[i];
		has_bw |= !strcmp(argv[i], "bandwidth");
	}
	if (kind != CHOKE_KIND_FIFO && !has_bw) {
		snprintf(bw, sizeof(bw), "%llubit",
			 (unsigned long long)(br->o->rate_bps ? br->o->rate_bps : 10000000000ull));
		words[argc++] = "bandwidth";
		words[argc++] = bw;
	}
	argv = words;
	if (choke_params_parse(argc, argv, kind, NULL, &p, err)) {
		snprintf(msg, len, "error: invalid parameters: %s", err);
		return -1;
	}
	for (i = 0; i < br->ndirs; i++) {
		struct dir *d = &br->d[i];
		void *nr = NULL, *old = NULL;

		if (!d->shaped)
			continue;
		if (choke_change_needs_ring(&d->q, p.cfg.limit)) {
			nr = malloc(choke_ring_bytes(p.cfg.limit));
			if (!nr) {
				snprintf(msg, len, "error: out of memory");
				return -1;
			}
		}
		if (p.cfg.limit + POOL_SLACK > d->npkts &&
		    pool_grow(d, p.cfg.limit + POOL_SLACK - d->npkts)) {
			free(nr);
			snprintf(msg, len, "error: out of memory");
			return -1;
		}
		if (choke_change(&d->q, &p.cfg, nr, nr ? choke_ring_bytes(p.cfg.limit) : 0,
				 &old, reconfig_drop_cb, d)) {
			free(nr);
			snprintf(msg, len, "error: the queue refused the configuration");
			return -1;
		}
		if (nr) {
			free(old);
			d->ring = nr;
		}
		d->prm = p;
	}
	choke_params_format(&p.cfg, err, sizeof(err));
	snprintf(msg, len, "ok: %s", err);
	return 0;
}

static int apply_line(struct bridge *br, char *line, char *msg, size_t len)
{
	char *argv[64], *save = NULL, *w;
	int argc = 0;

	for (w = strtok_r(line, " \t\r\n", &save); w && argc < 64;
	     w = strtok_r(NULL, " \t\r\n", &save))
		argv[argc++] = w;
	return apply_words(br, argc, argv, msg, len);
}

static void reload_config(struct bridge *br)
{
	char buf[2048], msg[512];
	FILE *f;
	size_t n;

	if (!br->o->config_file) {
		fprintf(stderr, "choke: bridge: SIGHUP: no --config file to reload\n");
		return;
	}
	f = fopen(br->o->config_file, "r");
	if (!f) {
		fprintf(stderr, "choke: bridge: SIGHUP: %s: %s\n", br->o->config_file,
			strerror(errno));
		return;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	apply_line(br, buf, msg, sizeof(msg));
	fprintf(stderr, "choke: bridge: SIGHUP: %s\n", msg);
}

/* ---- control socket ---- */

static int ctl_open(struct bridge *br, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	char dir[108], *slash;

	if (br->o->socket_path)
		snprintf(br->sock_path, sizeof(br->sock_path), "%s", br->o->socket_path);
	else
		bridge_default_socket(br->o->in, br->sock_path, sizeof(br->sock_path));
	snprintf(dir, sizeof(dir), "%s", br->sock_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0700);
	}
	br->ctl_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (br->ctl_fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", br->sock_path);
	unlink(br->sock_path);
	if (bind(br->ctl_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(br->sock_path, 0600) || listen(br->ctl_fd, 8)) {
		snprintf(err, errlen, "control socket %s: %s", br->sock_path, strerror(errno));
		return -1;
	}
	return 0;
}

static void ctl_serve(struct bridge *br)
{
	int c;

	while ((c = accept4(br->ctl_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		char req[2048], msg[512];
		struct timeval tv = { 0, 200000 };
		ssize_t n;

		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		n = recv(c, req, sizeof(req) - 1, 0);
		if (n > 0) {
			req[n] = 0;
			if (!strncmp(req, "stats", 5)) {
				char *js = strstr(req, "text") ? stats_text(br) : stats_json(br);

				if (send(c, js, strlen(js), MSG_NOSIGNAL) < 0)
					fprintf(stderr, "choke: bridge: stats reply: %s\n",
						strerror(errno));
				free(js);
			} else if (!strncmp(req, "reconfigure", 11)) {
				apply_line(br, req + 11, msg, sizeof(msg));
				fprintf(stderr, "choke: bridge: reconfigure: %s\n", msg);
				snprintf(req, sizeof(req), "%s\n", msg);
				if (send(c, req, strlen(req), MSG_NOSIGNAL) < 0)
					fprintf(stderr, "choke: bridge: reply: %s\n", strerror(errno));
			} else {
				static const char bad[] = "error: unknown request\n";

				send(c, bad, sizeof(bad) - 1, MSG_NOSIGNAL);
			}
		}
		close(c);
	}
}

int bridge_ctl_request(const char *socket_path, const char *request, FILE *out)
{
	struct sockaddr_un sa;
	char *reply = malloc(1 << 20);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ssize_t n;

	if (fd < 0 || !reply) {
		fprintf(stderr, "choke: control socket: %s\n", strerror(errno));
		free(reply);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", socket_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "choke: cannot reach the bridge at %s: %s%s\n", socket_path,
			strerror(errno), errno == EACCES ? " (the socket is root's, mode 0600)"
			: errno == ENOENT ? " (is `choke bridge` running? --socket PATH)" : "");
		close(fd);
		free(reply);
		return 1;
	}
	if (send(fd, request, strlen(request), MSG_NOSIGNAL) < 0 ||
	    (n = recv(fd, reply, (1 << 20) - 1, 0)) <= 0) {
		fprintf(stderr, "choke: no answer from the bridge at %s\n", socket_path);
		close(fd);
		free(reply);
		return 1;
	}
	reply[n] = 0;
	fputs(reply, out);
	close(fd);
	n = strncmp(reply, "error", 5) == 0;
	free(reply);
	return n ? 1 : 0;
}

/* ---- capabilities ---- */

static int drop_capabilities(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	for (cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			break;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &h, data)) {
		snprintf(err, errlen, "dropping capabilities: %s", strerror(errno));
		return -1;
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return 0;
}

/* ---- the loop ---- */

static void housekeeping(struct bridge *br, uint64_t now)
{
	int i;

	for (i = 0; i < br->ndirs; i++) {
		struct dir *d = &br->d[i];
		int up = if_is_up(d->out);
		double dt = (double)(now - d->rate_t) * 1e-9;

		if (up != d->out_up)
			fprintf(stderr, "choke: bridge: %s is %s%s\n", d->out, up ? "up" : "down",
				up ? ": resuming" : ": holding the queue (its discipline "
				"drops what does not fit)");
		d->out_up = up;
		d->st.rx_ring_drops += afp_rx_kernel_drops(&d->rx);
		if (dt > 0) {
			d->rate_in_bps = (double)(d->st.rx_bytes - d->rate_rx_bytes) * 8 / dt;
			d->rate_out_bps = (double)(d->st.tx_bytes - d->rate_tx_bytes) * 8 / dt;
		}
		d->rate_t = now;
		d->rate_rx_bytes = d->st.rx_bytes;
		d->rate_tx_bytes = d->st.tx_bytes;
	}
}

static void print_final(struct bridge *br)
{
	char *js;
	int i;

	for (i = 0; i < br->ndirs; i++)
		br->d[i].st.rx_ring_drops += afp_rx_kernel_drops(&br->d[i].rx);
	js = stats_json(br);
	fputs(js, stdout);
	fflush(stdout);
	free(js);
}

int bridge_run(const struct bridge_opts *o)
{
	struct bridge br;
	char err[512];
	sigset_t mask;
	uint64_t next_house;
	int i, status = 1;

	memset(&br, 0, sizeof(br));
	br.o = o;
	br.ctl_fd = br.sig_fd = -1;
	br.d[0].rx.fd = br.d[0].tx.fd = br.d[1].rx.fd = br.d[1].tx.fd = -1;
	if (!strcmp(o->in, o->out)) {
		fprintf(stderr, "choke: bridge: --in and --out are the same interface\n");
		return 1;
	}
	br.ndirs = 2;
	if (dir_open(&br, &br.d[0], o->in, o->out, 1, err, sizeof(err)) ||
	    dir_open(&br, &br.d[1], o->out, o->in, o->duplex, err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	if (ctl_open(&br, err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	br.sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (br.sig_fd < 0) {
		fprintf(stderr, "choke: bridge: signalfd: %s\n", strerror(errno));
		goto out;
	}
	if (!o->keep_caps && drop_capabilities(err, sizeof(err))) {
		fprintf(stderr, "choke: bridge: %s\n", err);
		goto out;
	}
	br.start_ns = now_ns();
	for (i = 0; i < 2; i++) {
		br.d[i].rate_t = br.start_ns;
		br.d[i].last_ns = br.start_ns;
	}
	next_house = br.start_ns + 1000000000u;
	fprintf(stderr, "choke: bridge: %s -> %s%s, control socket %s\n", o->in, o->out,
		o->duplex ? " (and back, shaped)" : " (back unshaped)", br.sock_path);

	while (!br.stop) {
		struct pollfd pf[4];
		uint64_t now = now_ns();
		int64_t wait = -1, w;
		int timeout_ms;

		for (i = 0; i < 2; i++)
			dir_receive(&br.d[i], now);
		now = now_ns();
		for (i = 0; i < 2; i++)
			dir_transmit(&br.d[i], now);
		if (now >= next_house) {
			housekeeping(&br, now);
			next_house = now + 1000000000u;
		}
		for (i = 0; i < 2; i++) {
			w = dir_wait_ns(&br.d[i], now);
			if (w >= 0 && (wait < 0 || w < wait))
				wait = w;
		}
		pf[0] = (struct pollfd){ br.d[0].rx.fd, POLLIN, 0 };
		pf[1] = (struct pollfd){ br.d[1].rx.fd, POLLIN, 0 };
		pf[2] = (struct pollfd){ br.ctl_fd, POLLIN, 0 };
		pf[3] = (struct pollfd){ br.sig_fd, POLLIN, 0 };
		timeout_ms = wait < 0 ? 1000 : (int)((wait + 999999) / 1000000);
		if (timeout_ms > 1000)
			timeout_ms = 1000;
		if (wait == 0) {
			/* ready to send more: only look at the control socket and
			 * the signals, without waiting */
			if (poll(pf + 2, 2, 0) < 0 && errno != EINTR)
				break;
			pf[0].revents = pf[1].revents = 0;
		} else if (wait > 0 && wait < 1000000) {
			/* sub-millisecond: ppoll with a nanosecond timeout */
			struct timespec ts = { 0, (long)wait };

			if (ppoll(pf, 4, &ts, NULL) < 0 && errno != EINTR)
				break;
		} else if (poll(pf, 4, timeout_ms) < 0 && errno != EINTR) {
			break;
		}
		if (pf[2].revents & POLLIN)
			ctl_serve(&br);
		if (pf[3].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(br.sig_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP)
					reload_config(&br);
				else
					br.stop = (int)si.ssi_signo;
			}
		}
	}
	fprintf(stderr, "choke: bridge: stopping on signal %d; final counters:\n", br.stop);
	print_final(&br);
	status = 0;
out:
	for (i = 0; i < 2; i++)
		dir_close(&br.d[i]);
	if (br.ctl_fd >= 0) {
		close(br.ctl_fd);
		unlink(br.sock_path);
	}
	if (br.sig_fd >= 0)
		close(br.sig_fd);
	return status;
}
