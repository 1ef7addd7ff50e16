/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* The heavy-hitter summary against exact counts. */
#include <stdlib.h>
#include <string.h>

#include "choke/hh.h"
#include "testlib.h"

static struct choke_hh *hh_new(uint32_t k)
{
	struct choke_hh *h = malloc(sizeof(*h));
	void *mem = malloc(choke_hh_bytes(k));

	if (choke_hh_init(h, k, mem, choke_hh_bytes(k), 42)) {
		free(h);
		free(mem);
		return NULL;
	}
	return h;
}

static void hh_free(struct choke_hh *h)
{
	free(h->e);
	free(h);
}

/* the structure: buckets ascend strictly, entries carry their bucket's
 * count, the counts sum to the total */
static int hh_consistent(const struct choke_hh *h)
{
	uint32_t b = h->b[h->k].next, n = 0;
	uint64_t last = 0, sum = 0;

	while (b != h->k) {
		uint32_t i;

		if (h->b[b].count <= last || h->b[b].first == 0xffffffffu)
			return 0;
		last = h->b[b].count;
		for (i = h->b[b].first; i != 0xffffffffu; i = h->e[i].next) {
			if (h->e[i].count != last || h->e[i].bucket != b)
				return 0;
			sum += last;
			n++;
		}
		b = h->b[b].next;
	}
	return n == h->used && sum == h->total;
}

static void test_hh_exact_when_it_fits(void)
{
	struct choke_hh *h = hh_new(16);
	struct choke_hh_item top[16];
	uint32_t f, i, n;

	REQUIRE(h);
	for (f = 0; f < 10; f++)
		for (i = 0; i <= f; i++)
			choke_hh_add(h, 1000 + f, 1, NULL);
	choke_hh_add(h, 1003, 5, NULL); /* weighted */
	CHECK(hh_consistent(h));
	n = choke_hh_top(h, top, 16);
	CHECK_EQ(n, 10);
	CHECK_EQ(top[0].flow, 1009);
	CHECK_EQ(top[0].count, 10);
	for (i = 0; i < n; i++) {
		uint32_t fl = top[i].flow - 1000;

		CHECK_EQ(top[i].err, 0);
		CHECK_EQ(top[i].count, fl + 1 + (fl == 3 ? 5 : 0));
		if (i)
			CHECK(top[i].count <= top[i - 1].count);
	}
	CHECK_EQ(choke_hh_total(h), 55 + 5);
	hh_free(h);
}

/* Zipf-like stream over many flows: the Space-Saving guarantees hold */
static void test_hh_guarantees(void)
{
	uint32_t k = 64, nflows = 5000, i, n;
	uint64_t *exact = calloc(nflows, sizeof(*exact)), N = 0, x = 77;
	struct choke_hh *h = hh_new(k);
	struct choke_hh_item *top = malloc(k * sizeof(*top));
	int found_heavy = 1;

	REQUIRE(h && exact && top);
	for (i = 0; i < 300000; i++) {
		uint32_t f, w;
		double u;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		u = (double)(x >> 11) / 9007199254740992.0;
		f = (uint32_t)(nflows * u * u * u * u); /* skewed toward 0 */
		w = 1 + (uint32_t)(x % 3);               /* 1..3 packets a match */
		choke_hh_add(h, f, w, NULL);
		exact[f] += w;
		N += w;
		if ((i & 4095) == 0)
			CHECK(hh_consistent(h));
	}
	CHECK(hh_consistent(h));
	CHECK_EQ(choke_hh_total(h), N);
	n = choke_hh_top(h, top, k);
	CHECK_EQ(n, k);
	for (i = 0; i < n; i++) {
		uint64_t t = exact[top[i].flow];

		CHECK(top[i].count >= t);
		CHECK(top[i].count - top[i].err <= t);
		CHECK(top[i].err <= N / k);
	}
	/* every flow above N/k is reported */
	for (i = 0; i < nflows; i++) {
		uint32_t j, in = 0;

		if (exact[i] <= N / k)
			continue;
		for (j = 0; j < n; j++)
			in |= top[j].flow == i;
		found_heavy &= in;
	}
	CHECK(found_heavy);
	free(exact);
	free(top);
	hh_free(h);
}

static void test_hh_rejects(void)
{
	struct choke_hh h;
	uint8_t small[8];

	CHECK_EQ(choke_hh_init(&h, 0, small, sizeof(small), 1), CHOKE_EINVAL);
	CHECK_EQ(choke_hh_init(&h, 4, small, sizeof(small), 1), CHOKE_EINVAL);
}

const struct tl_test hh_tests[] = {
	{ "hh/exact-when-it-fits", test_hh_exact_when_it_fits },
	{ "hh/space-saving-guarantees", test_hh_guarantees },
	{ "hh/rejects", test_hh_rejects },
	{ NULL, NULL },
};
