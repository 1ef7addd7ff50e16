/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The netlink options of the qdisc id "chokeplus" (docs/kernel.md), shared
 * by sch_libchoke.ko and the tc plugin kmod/tc/q_chokeplus.so.
 *
 * "choke" stays byte-compatible with mainline sch_choke: stock tc sends it
 * and stock tc reads it back. "chokeplus" is the same discipline with the
 * words mainline has no room for (docs/variants.md: draws N, adaptive,
 * geometric [CAP], bytes, protect [N]). Its first three attributes are
 * choke's, with the same numbers and contents; the fourth carries the rest.
 * An attribute this module does not know, or one of the wrong length, is
 * refused (never ignored), so a newer tc cannot configure something this
 * module would silently not do.
 *
 * Dump: PARMS (thresholds unscaled), MAX_P (the effective probability) and
 * VARIANT. Extended statistics: struct tc_chokeplus_xstats, whose first
 * five fields are struct tc_choke_xstats.
 */
#ifndef CHOKE_KMOD_CHOKEPLUS_H
#define CHOKE_KMOD_CHOKEPLUS_H

#include <linux/types.h>

#define CHOKEPLUS_ID "chokeplus"

enum {
	TCA_CHOKEPLUS_UNSPEC,
	TCA_CHOKEPLUS_PARMS,   /* struct tc_red_qopt, as TCA_CHOKE_PARMS */
	TCA_CHOKEPLUS_STAB,    /* 256 bytes, as TCA_CHOKE_STAB */
	TCA_CHOKEPLUS_MAX_P,   /* u32, as TCA_CHOKE_MAX_P */
	TCA_CHOKEPLUS_VARIANT, /* struct tc_chokeplus_variant */
	__TCA_CHOKEPLUS_MAX,
};
#define TCA_CHOKEPLUS_MAX (__TCA_CHOKEPLUS_MAX - 1)

/* What struct choke_config holds beyond mainline's options (the same
 * fields, the same meanings: include/choke/core.h). All zero is plain
 * CHOKe. Byte mode is not offered here (the module counts packets; protect
 * counts bytes). The module takes the first 4 bytes alone too (version
 * 0.1.0's form: the fields after protect are then 0) and dumps all 12. */
struct tc_chokeplus_variant {
	__u8 variant;  /* 0 one draw, 1 draws, 2 adaptive, 3 geometric */
	__u8 draws;    /* draws: 2..16; geometric: the cap, 1..16; else 0 */
	__u16 protect; /* protect's table entries (8..256, a power of two);
			  0: off */
	__u8 protect_by; /* 0 flows, 1 srchost, 2 dsthost, 3 hosts (protect) */
	__u8 sparse;     /* 1: the light lane */
	__u16 pad;       /* 0 */
	__u32 target_us; /* protect's delay target, 1..1000000 us; 0: none */
};
#define TC_CHOKEPLUS_VARIANT_V1_LEN 4

struct tc_chokeplus_xstats {
	__u32 early;   /* as struct tc_choke_xstats */
	__u32 pdrop;
	__u32 other;
	__u32 marked;
	__u32 matched;
	__u32 protect; /* arrivals protect dropped above their fair share */
	/* new with protect in bytes (a reader takes what the length holds) */
	__u32 protect_marked; /* ECT arrivals protect marked instead */
	__u32 lane;           /* arrivals that took the light lane */
};

#endif /* CHOKE_KMOD_CHOKEPLUS_H */
