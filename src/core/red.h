/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * RED arithmetic of include/net/red.h, in the kernel's fixed point and with
 * its integer widths (qavg is an unsigned long there: 64 bits here), so that
 * every intermediate wraps exactly where the kernel's does.
 * Internal to src/core.
 */
#ifndef CHOKE_CORE_RED_H
#define CHOKE_CORE_RED_H

#include "choke/core.h"

/* fls(): position of the most significant set bit, 1-based; fls(0) = 0. */
static inline int red_fls32(uint32_t x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* max_P implied by Plog alone: 2^32/2^Plog - 1 (all ones for Plog >= 32). */
static inline uint32_t red_maxp_from_plog(uint8_t Plog)
{
	return Plog < 32 ? (0xffffffffu >> Plog) : 0xffffffffu;
}

/*
 * Average while the queue is busy:
 *   qavg <- qavg + qlen - qavg/2^Wlog,  i.e. avg <- (1 - W) avg + W qlen
 * with qavg held scaled by 2^Wlog. Computed in 64-bit modular arithmetic as
 * the kernel does (the subtraction may wrap; the sum is non-negative).
 */
static inline uint64_t red_avg_busy(uint64_t qavg, uint8_t Wlog, uint32_t qlen)
{
	return qavg + ((uint64_t)qlen - (qavg >> Wlog));
}

/*
 * Average after an idle period of `idle` time units (already clamped to
 * Scell_max). The table gives a right shift for the idle cell; a zero entry
 * means the period is short and (1 - W)^m ~ 1 - mW is used instead, i.e.
 * qavg -= qavg * idle / 2^Scell_log, but never by more than half.
 */
static inline uint64_t red_avg_after_idle(uint64_t qavg, const uint8_t *stab,
					  uint8_t Scell_log, uint64_t idle)
{
	unsigned shift = stab[(idle >> Scell_log) & (CHOKE_STAB_SIZE - 1)];
	uint64_t d;

	if (shift)
		return qavg >> shift;
	d = (qavg * idle) >> Scell_log; /* wraps mod 2^64 as the kernel's */
	if (d < (qavg >> 1))
		return qavg - d;
	return qavg >> 1;
}

/*
 * Marking test between the thresholds. qR is uniform on [0, delta/max_P)
 * (scaled by 2^32), so with p_b = max_P (avg - min)/delta the chance of a
 * mark after qcount unmarked packets is about p_b * qcount (RED's uniform
 * spacing). The product is formed in 64 bits, qcount sign-extended, as in
 * the kernel's unsigned long arithmetic.
 */
static inline bool red_mark_probability(uint64_t qavg, uint32_t qth_min,
					uint8_t Wlog, int32_t qcount,
					uint32_t qR)
{
	uint64_t excess = (qavg - qth_min) >> Wlog;

	return !(excess * (uint64_t)(int64_t)qcount < (uint64_t)qR);
}

/*
 * Byte mode (sch_red's idea of a probability per byte): a packet of len
 * bytes is marked with len/avpkt times the packet-mode probability, i.e.
 * when excess * qcount * len >= qR * avpkt (in 128 bits, no overflow).
 */
static inline bool red_mark_probability_scaled(uint64_t qavg, uint32_t qth_min,
					       uint8_t Wlog, int32_t qcount,
					       uint32_t qR, uint32_t len,
					       uint32_t avpkt)
{
	uint64_t excess = (qavg - qth_min) >> Wlog;
	uint64_t prod = excess * (uint64_t)(int64_t)qcount;

	return (unsigned __int128)prod * len >= (unsigned __int128)qR * avpkt;
}

/* ++qcount with the kernel's two's-complement wrap. */
static inline int32_t red_qcount_inc(int32_t qcount)
{
	return (int32_t)((uint32_t)qcount + 1u);
}

#endif /* CHOKE_CORE_RED_H */
