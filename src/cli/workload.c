/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Open-loop workload through one bottleneck: see workload.h. */
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "choke/params.h"

struct wl_pkt {
	uint32_t flow, len;
	uint64_t t_arrival;
	int measured;       /* arrived after the warm-up */
	struct wl_pkt *next; /* free list */
};

/* xorshift64* for the arrival process (the queue has its own generator) */
static double wl_uniform(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return ((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t wl_gap_ns(const struct wl_flow_spec *f, uint64_t *rng)
{
	double mean = f->pkt_len * 8.0 / f->rate_bps * 1e9;

	if (f->poisson)
		return (uint64_t)(-log(1.0 - wl_uniform(rng)) * mean) + 1;
	return (uint64_t)(mean * (0.95 + 0.1 * wl_uniform(rng))) + 1;
}

int wl_run(const struct wl_config *cfg, const struct choke_config *qc,
	   struct wl_result *out, char *err, size_t errlen)
{
	struct choke q;
	void *ring;
	struct wl_pkt *pool, *free_list = NULL, *on_link = NULL;
	uint64_t *next_arrival, rng = cfg->seed * 0x9E3779B97F4A7C15ull + 7;
	uint64_t now = 0, link_free_at = 0;
	uint64_t t_end = (uint64_t)(cfg->seconds * 1e9);
	uint64_t t_warm = (uint64_t)(cfg->warmup * 1e9), last_t = t_warm;
	double qlen_area = 0, delay_sum = 0, delivered_bits = 0;
	uint64_t delay_n = 0;
	uint32_t npool = qc->limit + 2, i;
	int f;

	memset(out, 0, sizeof(*out));
	ring = malloc(choke_ring_bytes(qc->limit));
	pool = calloc(npool, sizeof(*pool));
	next_arrival = calloc((size_t)cfg->nflows, sizeof(*next_arrival));
	out->flows = calloc((size_t)cfg->nflows, sizeof(*out->flows));
	if (!ring || !pool || !next_arrival || !out->flows) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (choke_init(&q, qc, ring, choke_ring_bytes(qc->limit))) {
		snprintf(err, errlen, "invalid queue configuration: %s",
			 choke_config_reason_text(choke_config_validate(qc)));
		goto fail;
	}
	choke_seed(&q, cfg->seed);
	for (i = 0; i < npool; i++) {
		pool[i].next = free_list;
		free_list = &pool[i];
	}
	for (f = 0; f < cfg->nflows; f++)
		next_arrival[f] = (uint64_t)(wl_uniform(&rng) *
					     wl_gap_ns(&cfg->flows[f], &rng));

	for (;;) {
		uint64_t t = UINT64_MAX;
		int who = -1; /* -1: the link finishes a packet */

		if (on_link)
			t = link_free_at;
		for (f = 0; f < cfg->nflows; f++) {
			if (next_arrival[f] < t) {
				t = next_arrival[f];
				who = f;
			}
		}
		if (t >= t_end)
			break;
		if (t > t_warm)
			qlen_area += (double)choke_qlen(&q) * (double)(t - last_t);
		if (t > t_warm)
			last_t = t;
		now = t;

		if (who < 0) {
			/* transmission complete */
			if (on_link->measured) {
				struct wl_flow_result *fr = &out->flows[on_link->flow];

				fr->delivered_pkts++;
				fr->delivered_bytes += on_link->len;
				delivered_bits += on_link->len * 8.0;
				delay_sum += (double)(now - on_link->t_arrival) * 1e-9;
				delay_n++;
			}
			on_link->next = free_list;
			free_list = on_link;
			on_link = NULL;
		} else {
			const struct wl_flow_spec *fs = &cfg->flows[who];
			struct wl_pkt *p = free_list;
			struct choke_verdict v;
			enum choke_outcome r;

			next_arrival[who] = now + wl_gap_ns(fs, &rng);
			if (!p) { /* cannot happen: the pool covers limit + link */
				snprintf(err, errlen, "workload packet pool exhausted");
				goto fail;
			}
			free_list = p->next;
			p->flow = (uint32_t)who;
			p->len = fs->pkt_len;
			p->t_arrival = now;
			p->measured = now >= t_warm;
			if (p->measured) {
				out->flows[who].offered_pkts++;
				out->flows[who].offered_bytes += p->len;
			}
			r = choke_enqueue(&q, p, p->len, (uint32_t)who,
					  fs->ect ? CHOKE_PKT_ECN_CAPABLE : 0, now, &v);
			for (i = 0; i < v.nvictims; i++) {
				struct wl_pkt *vp = (struct wl_pkt *)v.victim[i];

				/* a match's victim, or a head pushed out
				 * at the limit (`sparse`) */
				if (vp->measured && r == CHOKE_DROP_MATCH)
					out->flows[vp->flow].drop_match_victim++;
				else if (vp->measured)
					out->flows[vp->flow].drop[CHOKE_DROP_LIMIT]++;
				vp->next = free_list;
				free_list = vp;
			}
			if (choke_outcome_is_drop(r)) {
				if (p->measured)
					out->flows[who].drop[r]++;
				p->next = free_list;
				free_list = p;
			} else if (choke_outcome_is_marked(r) && p->measured) {
				out->flows[who].marked_pkts++;
			}
		}
		if (!on_link) {
			uint32_t len;
			struct wl_pkt *p = (struct wl_pkt *)choke_dequeue(&q, now, &len);

			if (p) {
				on_link = p;
				link_free_at = now + choke_tx_ns(len, (uint64_t)cfg->link_bps);
			}
		}
	}
	out->st = *choke_get_stats(&q);
	out->measured_seconds = cfg->seconds - cfg->warmup;
	if (out->measured_seconds > 0) {
		out->utilization = delivered_bits / (cfg->link_bps * out->measured_seconds);
		out->mean_qlen = qlen_area / (out->measured_seconds * 1e9);
	}
	out->mean_delay_s = delay_n ? delay_sum / (double)delay_n : 0;
	free(ring);
	free(pool);
	free(next_arrival);
	return 0;
fail:
	free(ring);
	free(pool);
	free(next_arrival);
	free(out->flows);
	out->flows = NULL;
	return -1;
}

void wl_result_free(struct wl_result *r)
{
	free(r->flows);
	r->flows = NULL;
}
