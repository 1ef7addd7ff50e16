/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * libchoke params: the `tc qdisc ... choke` vocabulary turned into the
 * integers the core runs on, with the same defaults, derivations, rounding
 * and rejections as iproute2 6.1 (tc/q_choke.c, tc/tc_red.c, tc/tc_util.c),
 * followed by the kernel's own validation. Userspace only (libc, libm).
 *
 * Errors: a negative code and a message in a buffer the caller owns and
 * sizes (err, errlen), as everywhere in libchoke and the layers above it;
 * CHOKE_ERRBUF_SIZE is always enough. Nothing here prints.
 */
#ifndef CHOKE_PARAMS_H
#define CHOKE_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "choke/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CHOKE_ERRBUF_SIZE 256
#define CHOKE_MAX_WARNINGS 4

/* Parsing options. */
struct choke_parse_opts {
	/* Link speed in Mbit/s for `bandwidth N%` (as tc reads it from
	 * /sys/class/net/DEV/speed); 0 = unknown, N% is then an error. */
	long link_mbit;
	/* 1 = behave exactly as stock tc: refuse `harddrop` and bandwidths
	 * above 4294967295 bytes/s. 0 (default) = accept both. */
	int strict_tc;
	/* 1 = skip the kernel's checks (red_check_params, limit cap): only
	 * what tc itself would refuse is refused. */
	int tc_only;
};

/* The outcome of parsing: the kernel's view (cfg) plus what was asked. */
struct choke_params {
	struct choke_config cfg;
	/* as asked or defaulted, before derivation */
	uint32_t burst;       /* packets */
	uint32_t avpkt;       /* bytes */
	double probability;   /* as typed (or 0.02) */
	uint64_t bandwidth_bytes_per_sec; /* `bandwidth`, in bytes per second (tc's
					     unit; every *_bps in libchoke is bits) */
	/* effective values */
	double max_p_effective; /* max_P / 2^32 the kernel marks at, at max */
	uint32_t xmit_ticks;    /* avpkt transmission time, 64 ns ticks */
	/* warnings (tc's and ours) */
	int nwarnings;
	char warnings[CHOKE_MAX_WARNINGS][CHOKE_ERRBUF_SIZE];
};

/*
 * Parse tc words (argv[0..argc), without the leading "choke") for the given
 * kind (CHOKE_KIND_CHOKE and CHOKE_KIND_RED take choke's words; FIFO takes
 * only `limit N`, default 1000). opts may be NULL (defaults).
 * Returns 0, or CHOKE_EINVAL with a message in err (errlen bytes, the
 * message cut to fit; CHOKE_ERRBUF_SIZE is enough).
 */
CHOKE_MUST_CHECK int choke_params_parse(int argc, char *const *argv, int kind,
					const struct choke_parse_opts *opts,
					struct choke_params *out, char *err, size_t errlen);

/* Print the configuration in tc's `tc -d qdisc show` style (no newline):
 * "limit 1000p min 100p max 300p ecn ewma 7 probability 0.02 Scell_log 17".
 * It shows what the kernel holds (derived values such as ewma and Scell_log
 * included), not words to type: see choke_params_words for those.
 * Returns the length snprintf would return. */
int choke_params_format(const struct choke_config *cfg, char *buf, size_t len);

/*
 * The words that give p back (no newline), the kind first: "choke limit
 * 1000 min 83 max 250 burst 138 avpkt 1000 bandwidth 1250000Bps
 * probability 0.02 ecn". For every p that choke_params_parse produced
 * (with the default options; a percentage's link speed is written out as
 * the absolute rate), parsing these words after their kind word gives p
 * again, field for field (tests/test_params.c checks it over many random
 * configurations). Returns the length snprintf would return.
 */
int choke_params_words(const struct choke_params *p, char *buf, size_t len);

/* The transmit-time pieces of tc, exposed for tests: bytes/s from a tc
 * rate string ("10mbit"); 0 on success. wide = accept > 32-bit rates. */
CHOKE_MUST_CHECK int choke_tc_get_rate(const char *str, int wide, uint64_t *bytes_per_sec);

/* tc's idle damping table; returns Scell_log or -1. */
CHOKE_MUST_CHECK int choke_tc_idle_damping(int Wlog, uint32_t avpkt, uint64_t bytes_per_sec,
					   uint8_t stab[CHOKE_STAB_SIZE], uint32_t *xmit_ticks);

/*
 * Nanoseconds a link of bits_per_sec takes to send `bytes` bytes, rounded
 * up (an exact integer: 8 10^9 bytes / bits_per_sec, never a float); the
 * one transmission time of every host (the simulator's links, replay's
 * bottleneck, the bridge's pacing, the open-loop demo). 0 for a rate of
 * 0; UINT64_MAX where the time does not fit (a rate below about 2 bit/s
 * for the largest packets).
 */
uint64_t choke_tx_ns(uint32_t bytes, uint64_t bits_per_sec);

#ifdef __cplusplus
}
#endif
#endif /* CHOKE_PARAMS_H */
