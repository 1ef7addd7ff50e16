/*
 * The pre-split bridge's renderings of tests/bridge/scenario.h, to pin its
 * output before src/bridge/ is split into layers: builds against the old
 * bridge.c (included whole, for its static functions). Replaced by
 * tests/bridge/test_bridge.c, which must reproduce golden/scenario.out byte
 * for byte. Built and run by hand at this commit:
 *   gcc -std=c11 -Iinclude -D_GNU_SOURCE tests/bridge/golden_old.c \
 *       src/bridge/afp.c build/gcc/libchoke.a -lm && ./a.out
 */
#include "../../src/bridge/bridge.c"

#include "fakering.h"
#include "scenario.h"

static void setup(struct bridge *b, struct dir *d, const char *in, const char *out,
		  int shaped)
{
	const struct bridge_opts *o = b->o;

	memset(d, 0, sizeof(*d));
	d->in = in;
	d->out = out;
	d->shaped = shaped;
	d->max_frame = 1500 + 14 + 8 + 4;
	fake_rx_init(&d->rx, 256);
	fake_tx_init(&d->tx, 256);
	d->out_up = 1;
	d->flow_seed = o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)(d - b->d) + 1;
	d->inring_cap = afp_rx_batch_max(&d->rx);
	d->inring = calloc(d->inring_cap, sizeof(*d->inring));
	d->batch = calloc(d->inring_cap, sizeof(*d->batch));
	if (!shaped)
		return;
	d->prm = o->q;
	d->rate_bps = o->rate_bps;
	d->burst_ns = 2000000;
	if (d->burst_ns < tx_time_ns(d, 2 * d->max_frame))
		d->burst_ns = tx_time_ns(d, 2 * d->max_frame);
	d->budget_ns = (int64_t)d->burst_ns;
	d->ring = malloc(choke_ring_bytes(d->prm.cfg.limit));
	choke_init(&d->q, &d->prm.cfg, d->ring, choke_ring_bytes(d->prm.cfg.limit));
	{
		struct choke_ops ops = { NULL, same_flow_cb, d };

		choke_set_ops(&d->q, &ops);
	}
	choke_seed(&d->q, o->seed + (uint64_t)(d - b->d));
	{
		void *mem = malloc(choke_hh_bytes(HH_K));

		choke_hh_init(&d->hh, HH_K, mem, choke_hh_bytes(HH_K), o->seed);
	}
	pool_grow(d, d->prm.cfg.limit + POOL_SLACK);
}

int main(void)
{
	static struct bridge_opts o;
	struct bridge br;
	char *words[] = { "limit", "300", "min", "20", "max", "60", "ecn", "bandwidth",
			  "20mbit" };
	char err[CHOKE_ERRBUF_SIZE], *s;
	uint32_t rxk[2] = { 0, 0 }, txk[2] = { 0, 0 }, step;
	uint64_t now = SCEN_T0;
	int i;

	o.in = "tst-a";
	o.out = "tst-b";
	o.rate_bps = 20000000;
	o.seed = 1;
	if (choke_params_parse(9, words, CHOKE_KIND_CHOKE, NULL, &o.q, err))
		return 1;
	memset(&br, 0, sizeof(br));
	br.o = &o;
	br.ndirs = 2;
	setup(&br, &br.d[0], o.in, o.out, 1);
	setup(&br, &br.d[1], o.out, o.in, 0);
	for (i = 0; i < 2; i++)
		br.d[i].rate_t = br.d[i].last_ns = now;
	for (step = 0; step < SCEN_STEPS; step++) {
		now = SCEN_T0 + step * SCEN_STEP_NS;
		for (i = 0; i < 2; i++) {
			struct pb f[4];
			uint32_t st[4];
			int k, n = scen_frames(step, i, f, st);

			for (k = 0; k < n; k++)
				fake_rx_push(&br.d[i].rx, &rxk[i], f[k].d, (uint32_t)f[k].len, st[k]);
			dir_receive(&br.d[i], now);
			dir_transmit(&br.d[i], now);
			fake_tx_complete(&br.d[i].tx, &txk[i], NULL, NULL);
		}
		if (step == 15000 || step == 17000) { /* shrink, then grow back */
			char *w1[] = { "limit", "12", "min", "3", "max", "9", "ecn" };
			char *w2[] = { "limit", "300", "min", "20", "max", "60", "ecn" };
			char msg[512];

			apply_words(&br, 7, step == 15000 ? w1 : w2, msg, sizeof(msg));
			printf("%s\n", msg);
		}
		if (step % 10000 == 9999) { /* the rates, as housekeeping computes them */
			for (i = 0; i < 2; i++) {
				struct dir *d = &br.d[i];
				double dt = (double)(now - d->rate_t) * 1e-9;

				d->rate_in_bps = (double)(d->st.rx_bytes - d->rate_rx_bytes) * 8 / dt;
				d->rate_out_bps = (double)(d->st.tx_bytes - d->rate_tx_bytes) * 8 / dt;
				d->rate_t = now;
				d->rate_rx_bytes = d->st.rx_bytes;
				d->rate_tx_bytes = d->st.tx_bytes;
			}
		}
	}
	s = stats_text(&br);
	fputs(s, stdout);
	free(s);
	s = stats_json(&br);
	printf("{\"pid\":1,\"uptime_s\":2.000,%s", strstr(s, "\"directions\""));
	free(s);
	return 0;
}
