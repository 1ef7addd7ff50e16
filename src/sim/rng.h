/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The simulator's random source: xoshiro256** (Blackman and Vigna), seeded
 * through splitmix64. One generator per purpose, each from (seed, stream),
 * so adding draws in one place never shifts another's sequence.
 */
#ifndef CHOKE_SIM_RNG_H
#define CHOKE_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

static inline uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static inline void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = sim_splitmix64(&x);
}

static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t res = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return res;
}

/* Uniform on [0, 1) with 53 random bits. */
static inline double sim_rng_uniform(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform on [0, n) for n > 0 (Lemire's multiply; bias below 2^-32 for the
 * ranges used here). */
static inline uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)sim_rng_next(r) * n) >> 64);
}

#endif
