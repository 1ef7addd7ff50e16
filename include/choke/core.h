/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * libchoke core: the CHOKe queue discipline (and the RED and FIFO it is
 * built from), as merged into Linux (net/sched/sch_choke.c, include/net/red.h).
 *
 * Freestanding: no libc, no allocation, no floating point. The host owns
 * packet memory (the core stores opaque pointers), the ring memory (handed
 * in at init/change), the clock (every call that needs time takes it in
 * nanoseconds) and, optionally, the random source.
 *
 * Deliberate departures from mainline, all documented in docs/core.md:
 *  - the ring never wraps: it has twice mainline's slots, so every history in
 *    which mainline keeps working is reproduced exactly; when packets plus
 *    holes fill even that, the holes are compacted away before admitting;
 *  - flow identity is the host's: a 32-bit flow value compared for equality,
 *    confirmed by an optional exact comparison callback, so a hash collision
 *    never counts as a match;
 *  - the idle-damping clock ticks in 64 ns units by default (the unit tc
 *    builds its table for); CHOKE_IDLE_KERNEL_US reproduces the kernel's
 *    microsecond behaviour exactly;
 *  - a change that leaves more packets queued than the new limit drops the
 *    newest ones (counted) so that qlen never exceeds limit.
 *
 * Errors are negative errno values (CHOKE_EINVAL, ...). Nothing here blocks.
 */
#ifndef CHOKE_CORE_H
#define CHOKE_CORE_H

#if defined(__KERNEL__)
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A call whose result must be looked at: an error code, or (choke_enqueue)
 * who now owns the packet. */
#if defined(__GNUC__) || defined(__clang__)
#define CHOKE_MUST_CHECK __attribute__((__warn_unused_result__))
#else
#define CHOKE_MUST_CHECK
#endif

/* Queue disciplines the core implements, all on the same ring. */
enum choke_kind {
	CHOKE_KIND_CHOKE = 0, /* sch_choke: random draw + RED (default)    */
	CHOKE_KIND_RED = 1,   /* sch_red decisions, in packets             */
	CHOKE_KIND_FIFO = 2,  /* tail drop at limit only (pfifo)           */
};
#define CHOKE_NKINDS 3

/* The word naming a kind ("choke", "red", "fifo"), "?" for any other
 * value; and the kind a word names, or -1. These are the words that lead a
 * discipline's tc words everywhere (`choke params red ...`, a scenario's
 * qdisc, a bridge's configuration line). */
const char *choke_kind_name(int kind);
int choke_kind_from_word(const char *word);

/* Flags byte of struct tc_red_qopt. */
#define CHOKE_FLAG_ECN 0x01
#define CHOKE_FLAG_HARDDROP 0x02
#define CHOKE_FLAG_ADAPTATIVE 0x04 /* red only (tc red's `adaptive`): Linux's
				      adaptive RED, as CHOKE_RED_ARED */
#define CHOKE_FLAG_NODROP 0x08     /* red only: queue non-ECT instead of drop */
/* The flags each kind takes (choke_config_check refuses the others). */
#define CHOKE_FLAGS_CHOKE (CHOKE_FLAG_ECN | CHOKE_FLAG_HARDDROP)
#define CHOKE_FLAGS_RED (CHOKE_FLAGS_CHOKE | CHOKE_FLAG_ADAPTATIVE | CHOKE_FLAG_NODROP)

/* Largest limit the kernel accepts (CHOKE_MAX_QUEUE in sch_choke.c). */
#define CHOKE_MAX_LIMIT 131071u
#define CHOKE_STAB_SIZE 256

/* Idle-damping clock. */
enum choke_idle_unit {
	CHOKE_IDLE_TICKS64 = 0,   /* idle time in 64 ns ticks (tc's table unit) */
	CHOKE_IDLE_KERNEL_US = 1, /* idle time in microseconds, as Linux >= 3.3 */
};

/* Errors (negative errno values, as the kernel's). */
#define CHOKE_EINVAL (-22)
#define CHOKE_ENOMEM (-12)

/*
 * Configuration: exactly what the kernel receives from tc (struct
 * tc_red_qopt, the 256-byte Stab and the optional MAX_P), plus the kind and
 * the idle unit. Thresholds are in packets (unscaled).
 */
struct choke_config {
	uint32_t limit;   /* packets, <= CHOKE_MAX_LIMIT */
	uint32_t qth_min; /* packets */
	uint32_t qth_max; /* packets */
	uint8_t Wlog;     /* EWMA weight W = 2^-Wlog */
	uint8_t Plog;     /* max_P = (max-min)/2^Plog when max_P == 0 */
	uint8_t Scell_log;
	uint8_t flags;  /* CHOKE_FLAG_* */
	uint32_t max_P; /* probability in Q0.32; 0 = derive from Plog */
	uint8_t stab[CHOKE_STAB_SIZE];
	uint8_t kind;      /* enum choke_kind */
	uint8_t idle_unit; /* enum choke_idle_unit */
	/* Beyond mainline (docs/variants.md); all zero = sch_choke exactly. */
	uint8_t variant;      /* enum choke_variant */
	uint8_t draws;        /* CHOKE_VAR_DRAWS: draws per arrival (2..16);
				 CHOKE_VAR_GEOMETRIC: the cap (1..16) */
	uint32_t limit_bytes; /* byte mode: limit and thresholds in bytes */
	uint32_t avpkt;       /* byte mode: the size the probability is set for */
	uint16_t protect;     /* `protect [N]`: entries of the fair-share table
				 (a power of two, CHOKE_PROTECT_MIN..MAX);
				 0 = off */
	/* protect's additions (docs/variants.md), all 0 = as above */
	uint8_t protect_by;   /* enum choke_protect_by: whom protect shares
				 the link among (the host computes the
				 identity: choke_enqueue_as) */
	uint8_t sparse;       /* `sparse`: a packet of a flow with nothing
				 queued goes first (CHOKE_KIND_CHOKE) */
	uint32_t target_us;   /* `target TIME`: the queueing delay protect
				 keeps the link at, microseconds (1 ..
				 CHOKE_TARGET_MAX_US); 0: RED's average
				 against min says when the link is congested */
	uint8_t red_ext;      /* CHOKE_RED_*: RED beyond Linux's (below);
				 0: Linux's RED exactly */
};

/*
 * RED beyond what sch_choke and sch_red do, for the choke and red kinds
 * (docs/core.md, "Gentle, wait and ARED"); any combination, all off by
 * default. The words are `gentle`, `wait` and `ared`.
 *  - GENTLE (Floyd 2000): between max and twice max the probability rises
 *    from max_P to 1 instead of every packet being dropped; forced drops
 *    (or marks) start at twice max.
 *  - WAIT (ns-2's wait_): the packets between two marks are spread
 *    uniformly over [1/p_b, 2/p_b] instead of [0, 1/p_b].
 *  - ARED: Linux's adaptive RED (red_adaptative_algo(), as sch_red runs it
 *    for tc red's `adaptive`; Floyd, Gummadi, Shenker 2001): every 500 ms
 *    max_P grows by min(0.01, max_P/4) while the average is above
 *    min + 0.6 (max - min) and max_P <= 0.5, and shrinks to 0.9 max_P while
 *    it is below min + 0.4 (max - min) and max_P >= 0.01. The first period
 *    starts at the first arrival after init or a change.
 */
#define CHOKE_RED_GENTLE 0x01
#define CHOKE_RED_WAIT 0x02
#define CHOKE_RED_ARED 0x04
#define CHOKE_RED_EXT_ALL (CHOKE_RED_GENTLE | CHOKE_RED_WAIT | CHOKE_RED_ARED)
#define CHOKE_ARED_INTERVAL_NS 500000000ull /* sch_red's HZ / 2 */
/* max_P's bounds and steps in Q0.32, red.h's RED_ONE_PERCENT arithmetic */
#define CHOKE_ARED_MAX_P_MIN 42949673u   /* 1% */
#define CHOKE_ARED_MAX_P_MAX 2147483650u /* 50% */

/* CHOKe variants (CHOKE_KIND_CHOKE only). */
enum choke_variant {
	CHOKE_VAR_NONE = 0,      /* one draw per arrival (mainline) */
	CHOKE_VAR_DRAWS = 1,     /* `draws N`: N draws; the arrival and every
				    distinct matching victim are dropped */
	CHOKE_VAR_ADAPTIVE = 2,  /* `adaptive`: 2i draws in the i-th of 8 equal
				    regions between min and max, 16 above max */
	CHOKE_VAR_GEOMETRIC = 3, /* `geometric [CAP]` (gCHOKe): after each
				    match draw again, until a draw fails or
				    CAP draws were made */
};
#define CHOKE_MAX_DRAWS 16
#define CHOKE_ADAPTIVE_REGIONS 8

/* The variant's word ("draws", "adaptive", "geometric"; "none" for
 * CHOKE_VAR_NONE, "?" for any other value). */
const char *choke_variant_name(int variant);

/*
 * `protect [N]` (docs/variants.md; the rule in src/core/protect.h): every
 * flow is held to about its fair share of the link. A table of N flows
 * (the heaviest, fed by CHOKe's matches and a sample of arrivals) keeps
 * their arrival rates; the fair share is the window's departures divided
 * among the flows that arrived in it (counted in CHOKE_PROTECT_BINS hashed
 * bins), raised while the link idles with protect dropping; a tracked
 * flow's arrivals beyond its share are dropped before admission
 * (CHOKE_DROP_PROTECT). Fixed memory inside struct choke, O(1) per packet.
 * CHOKe kind only, in packets (not with byte mode); combines with the draw
 * variants.
 */
#define CHOKE_PROTECT_DEFAULT 64
#define CHOKE_PROTECT_MIN 8
#define CHOKE_PROTECT_MAX 256
#define CHOKE_PROTECT_WAYS 4     /* entries per bucket; two buckets a flow */
#define CHOKE_PROTECT_BINS_LOG 10
#define CHOKE_PROTECT_BINS (1u << CHOKE_PROTECT_BINS_LOG)
#define CHOKE_PROTECT_WINDOW_LOG 20 /* bytes departed per window: 1 MiB */
#define CHOKE_PROTECT_HALFLIFE_LOG 20 /* rate counters halve per window */
#define CHOKE_PROTECT_STEP_LOG 16   /* bytes per step (64 KiB): the rate
				       counters decay and the share is
				       corrected once a step */
#define CHOKE_PROTECT_SAMPLE 16u /* mean gap between sampled arrivals */
#define CHOKE_TARGET_MAX_US 1000000u /* `target`: at most a second */

/* Whom `protect` shares the link among (the words are cake's). */
enum choke_protect_by {
	CHOKE_PROTECT_BY_FLOW = 0,    /* `flows`: the host's flow (5-tuple) */
	CHOKE_PROTECT_BY_SRCHOST = 1, /* `srchost`: the source address */
	CHOKE_PROTECT_BY_DSTHOST = 2, /* `dsthost`: the destination address */
	CHOKE_PROTECT_BY_HOSTS = 3,   /* `hosts`: the pair of addresses */
};
#define CHOKE_PROTECT_BY_N 4
/* The word of a protect_by value ("flows", "srchost", "dsthost", "hosts";
 * "?" for any other value), and the value of a word, or -1. */
const char *choke_protect_by_name(int by);
int choke_protect_by_from_word(const char *word);

/*
 * `sparse`: a light flow's packets skip the queue. An arrival of a flow
 * with no packet queued (counted per bin of CHOKE_PROTECT_BINS hashed
 * bins) goes to a lane of CHOKE_LANE_SLOTS slots served before the queue,
 * one lane packet between two of the queue's while both hold packets; it
 * meets protect and the limit but not CHOKe's draw or RED.
 */
#define CHOKE_LANE_SLOTS 32
#define CHOKE_LANE_MAX_LEN 1600 /* longer packets never take the lane */

/* Packet flags passed to choke_enqueue. */
#define CHOKE_PKT_ECN_CAPABLE 0x01 /* ECT(0), ECT(1) or CE: may be marked */

/* What choke_enqueue decided. Test what it means with the predicates
 * below, not with the order of the values. */
enum choke_outcome {
	CHOKE_QUEUED = 0,        /* admitted unchanged */
	CHOKE_QUEUED_MARKED = 1, /* admitted; the host must set CE */
	CHOKE_DROP_MATCH = 2,    /* same flow as a queued packet: both dropped */
	CHOKE_DROP_FORCED = 3,   /* average above max threshold */
	CHOKE_DROP_EARLY = 4,    /* RED probabilistic drop */
	CHOKE_DROP_LIMIT = 5,    /* tail drop: qlen reached limit (pdrop) */
	CHOKE_DROP_PROTECT = 6,  /* `protect`: the flow arrives faster than
				    its fair share; its excess is dropped */
};
#define CHOKE_NOUTCOMES 7 /* outcomes are 0 .. CHOKE_NOUTCOMES - 1 */

/* Is the arrival dropped (the host frees it)? True for every CHOKE_DROP_*. */
static inline bool choke_outcome_is_drop(enum choke_outcome o)
{
	return o != CHOKE_QUEUED && o != CHOKE_QUEUED_MARKED;
}

/* Must the host set CE on the admitted arrival? */
static inline bool choke_outcome_is_marked(enum choke_outcome o)
{
	return o == CHOKE_QUEUED_MARKED;
}

/* A short name for an outcome, the same in every host's reports:
 * "queued", "marked", "match", "forced", "early", "limit", "protect";
 * "?" for any other value. */
const char *choke_outcome_name(int outcome);

#define CHOKE_MAX_VICTIMS CHOKE_MAX_DRAWS

/* Enqueue verdict: the queued packets the host must now free. */
struct choke_verdict {
	uint32_t nvictims;
	void *victim[CHOKE_MAX_VICTIMS];
	uint32_t victim_len[CHOKE_MAX_VICTIMS];
	uint32_t victim_idx[CHOKE_MAX_VICTIMS]; /* core scratch */
};

/* Counters. The first six are struct tc_choke_xstats' sources
 * (early = prob_drop + forced_drop, marked = prob_mark + forced_mark). */
struct choke_stats {
	uint64_t prob_drop;   /* RED early drops */
	uint64_t prob_mark;   /* RED early marks */
	uint64_t forced_drop; /* average above max, dropped */
	uint64_t forced_mark; /* average above max, marked */
	uint64_t pdrop;       /* drops at the limit: the arrival, or (`sparse`)
				 the head a lane arrival pushed out */
	uint64_t matched;     /* arrivals that matched a queued packet */
	/* generic qdisc statistics */
	uint64_t sent_bytes;
	uint64_t sent_pkts;
	uint64_t drops; /* every packet dropped: 2 per match, reset/change too */
	uint64_t overlimits;
	/* additions */
	uint64_t offered_pkts;  /* calls to choke_enqueue */
	uint64_t offered_bytes;
	uint64_t other_drop;    /* dropped by reset or a shrinking change */
	uint64_t compactions;   /* ring compactions (holes reclaimed) */
	uint64_t wrap_avoided;  /* admissions at which mainline's ring wraps */
	uint64_t match_victims; /* queued packets dropped by matches (variants:
				   up to CHOKE_MAX_DRAWS per matched arrival) */
	uint64_t draws;         /* random draws made for matching */
	/* `protect` */
	uint64_t protect_drop;    /* arrivals dropped above their fair share */
	uint64_t protect_inserts; /* flows entered into the table */
	uint64_t protect_mark;    /* ECT arrivals marked instead (ecn) */
	/* `sparse` */
	uint64_t lane_pkts;       /* arrivals admitted to the light lane */
};

/* One ring slot: pkt == NULL is a hole (or the empty slot at tail). */
struct choke_slot {
	void *pkt;
	uint32_t len;
	uint32_t flow;
};

/* Host hooks; every member may be NULL. */
struct choke_ops {
	/* Uniform 32-bit random numbers. NULL: the per-instance generator
	 * seeded by choke_seed(). */
	uint32_t (*random_u32)(void *ctx);
	/* Exact flow comparison, called only when the flow values are equal.
	 * NULL: equal flow values are the same flow. */
	bool (*same_flow)(void *ctx, const void *queued, const void *arriving);
	void *ctx;
};

/* `protect`'s state (private; the rule is in src/core/protect.h). */
struct choke_protect {
	uint64_t clock;       /* bytes dequeued while protect was on */
	uint32_t share;       /* the fair share: bytes per window (Q8),
				 0xffffffff: no limit */
	uint32_t boost;       /* multiplier of the share (Q8) */
	uint32_t flows;       /* this window: bins with an arrival */
	uint32_t drops;       /* this step: protect's drops */
	uint64_t fair;        /* the counter of a flow at the share */
	uint16_t nbuckets;    /* table entries / CHOKE_PROTECT_WAYS */
	uint16_t bshift;      /* 32 - log2(nbuckets) */
	uint32_t step_sent;   /* `target`: the bytes sent (stats.sent_bytes,
				 its low 32 bits) when this interval began
				 (with bshift, in what nbuckets left free:
				 sizeof(struct choke) unchanged) */
	uint32_t sample_left; /* untracked arrivals until the next sample */
	uint8_t idled;        /* this step: the link went idle */
	uint8_t busy;         /* the last step did not idle */
	uint8_t dropped;      /* the last step had protect drops */
	uint8_t congested;    /* `target`: the last delay seen was above it */
	/* `target`: the queueing delay, measured on one packet at a time */
	uint32_t probe;       /* the ring slot of the packet timed, or
				 0xffffffff */
	uint8_t drain;        /* the allowances' cut, Q8 (0..128), while the
				 delay stands above the goal */
	uint8_t spare;        /* `target`: intervals in a row that the link
				 idled while protect held only floods */
	uint16_t room;        /* `target`: an unresponsive flow's cap over
				 the equal split, Q6 (64..65535), raised
				 while the link idles (all three in what was
				 padding: sizeof(struct choke) unchanged) */
	uint64_t probe_ns;    /* its arrival */
	uint64_t step_ns;     /* when this step began (0: not known yet) */
	uint64_t idle_ns;     /* this step's idle time so far */
	uint64_t delay_ns;    /* this step's smallest delay, or ~0 */
	uint64_t target_ns;
	uint64_t wstart_ns;   /* `target`: this window's start (0: the
				 first window, which gives no share), */
	uint64_t wbytes;      /* the bytes departed in it with a packet
				 waiting before them, */
	uint64_t wsvc_ns;     /* and the time the link took for them */
	uint64_t goal_ns;     /* the delay aimed at: target, or three of the
				 largest packets' transmission times */
	uint32_t wmaxlen;     /* the largest packet departed in the window */
	uint32_t unresp;      /* `target`: an unresponsive flow's allowance,
				 Q8 of the others' (128..256) */
	uint64_t seen[CHOKE_PROTECT_BINS / 64]; /* this window's bins */
	/* where a flow value's entry was last found, by its low byte (a
	 * hint checked against the entry: never changes a decision) */
	uint8_t hint[256];
	/* the table, a bucket of 4 entries per 64-byte line */
	struct choke_protect_entry {
		uint32_t flow;  /* the host's flow value */
		uint32_t rate;  /* arrival counter; 0: a free entry */
		uint64_t stamp; /* the clock when rate was last brought up
				   to date (its low 48 bits) and the step
				   the entry was taken in (the top 16, or
				   0xffff: long ago) */
	} e[CHOKE_PROTECT_MAX];
};

/* Called for each packet a reset or a change drops. */
typedef void (*choke_drop_fn)(void *ctx, void *pkt, uint32_t len);

/* The instance. The host allocates it (sizeof(struct choke)); its fields
 * are private: use the functions below. The order follows the fast path:
 * the first 64 bytes hold what every enqueue and dequeue reads (ring,
 * lengths, RED average and thresholds), the next the generator and the
 * hooks, then the counters; the idle table, read only after an idle
 * period, is last. */
struct choke {
	/* ring: mask + 1 slots, a power of two, >= 2 * (limit + 1) */
	struct choke_slot *tab;
	uint32_t mask;
	uint32_t head, tail;
	uint32_t qlen;
	uint64_t backlog; /* bytes */
	/* RED variables and the configuration every packet reads */
	uint64_t qavg; /* << Wlog */
	uint32_t limit;
	uint32_t qth_min;    /* << Wlog */
	uint32_t qth_max;    /* << Wlog */
	int32_t qcount;
	uint32_t qR;
	uint8_t flags, kind, idle_unit, Wlog;
	uint8_t variant, draws; /* CHOKE_VAR_*, its draw count or cap */
	uint8_t bytes_mode;
	uint8_t red_ext;        /* CHOKE_RED_* (red's adaptive flag as ARED) */
	uint16_t protect;       /* table entries, 0: off */
	/* random source */
	uint64_t rng_state, rng_inc;
	struct choke_ops ops;
	/* the rest of the configuration and RED state */
	uint32_t max_P_div;  /* max(max_P / delta, 1): qR = random / max_P_div */
	bool idle;
	uint8_t Plog, Scell_log;
	uint8_t svc_held;    /* `target`: a packet waited when the last one
				departed (so the next departure's time since
				it is the link's service); 2: an arrival
				ended an idle period without its time
				(CHOKE_TIME_DEFERRED), the next time known
				settles its length */
	uint32_t qth_delta;  /* max(max - min, 1) in packets */
	uint32_t max_P;      /* effective, Q0.32 */
	uint32_t Scell_max;  /* 255 << Scell_log (u32, as the kernel) */
	uint32_t svc_last;   /* `target`: the last departure, in units of
				1024 ns (wraps; both in what was padding) */
	uint64_t idle_start_ns;
	uint32_t limit_bytes;   /* byte mode (0: packets) */
	uint32_t avpkt;
	/* ARED: the next period's end (0: not started), the target band */
	uint64_t ared_next_ns;
	uint32_t ared_target_min, ared_target_max; /* unscaled */
	struct choke_stats stats;
	uint8_t stab[CHOKE_STAB_SIZE];
	struct choke_protect pr; /* `protect` only */
	/* `sparse`: the lane, and the packets queued per bin */
	struct choke_slot lane[CHOKE_LANE_SLOTS];
	uint8_t lane_head, lane_len, lane_turn, sparse;
	uint8_t protect_by;
	uint16_t occ[CHOKE_PROTECT_BINS];
};

/* ---- configuration (slow path) ---- */

/*
 * Why a configuration is refused: a code and its message, listed once
 * here so that a host can map a code to its own literal (the kernel module
 * turns each into an extack message with NL_SET_ERR_MSG_MOD, which takes
 * only string literals):
 *
 *   #define X(code, text) case code: report(text); break;
 *   switch (choke_config_validate(c)) { CHOKE_CONFIG_REASONS(X) }
 *
 * Every limit named here is the one docs/inputs.md gives for the tc word
 * that sets the field; choke_params_parse refuses the words before these
 * checks where it can, with a message naming the word.
 */
#define CHOKE_CONFIG_REASONS(X)                                                        \
	X(CHOKE_CFG_OK, "ok")                                                          \
	X(CHOKE_CFG_KIND, "unknown discipline kind (choke, red or fifo)")              \
	X(CHOKE_CFG_IDLE_UNIT, "unknown idle time unit")                               \
	X(CHOKE_CFG_LIMIT, "limit must be 1 to 131071 packets")                       \
	X(CHOKE_CFG_FLAGS, "flags beyond the kind's: choke takes ecn and harddrop, "   \
			   "red also adaptive and nodrop, fifo none")                  \
	X(CHOKE_CFG_VARIANT, "unknown CHOKe variant")                                  \
	X(CHOKE_CFG_VARIANT_KIND, "draws, adaptive and geometric apply to choke only") \
	X(CHOKE_CFG_DRAWS, "draws must be 2 to 16")                                    \
	X(CHOKE_CFG_GEOMETRIC, "the geometric cap must be 1 to 16")                    \
	X(CHOKE_CFG_BYTES_KIND, "byte mode applies to choke and red only")             \
	X(CHOKE_CFG_BYTES_AVPKT, "byte mode needs avpkt of 1 byte or more")            \
	X(CHOKE_CFG_PROTECT_KIND, "protect applies to choke only")                     \
	X(CHOKE_CFG_PROTECT_SIZE, "the protect table must have 8 to 256 entries, "     \
				  "a power of two")                                    \
	X(CHOKE_CFG_PROTECT_BY, "protect shares among flows, srchost, dsthost or "     \
				"hosts, with protect")                                 \
	X(CHOKE_CFG_TARGET, "target must be 1 us to 1 s, with protect")                \
	X(CHOKE_CFG_SPARSE, "sparse applies to choke only")                            \
	X(CHOKE_CFG_RED_EXT, "unknown RED extension (gentle, wait and ared are known)") \
	X(CHOKE_CFG_RED_EXT_KIND, "gentle, wait and ared apply to choke and red only")  \
	X(CHOKE_CFG_MIN_WLOG, "min threshold too large for Wlog (qth_min << Wlog "     \
			      "overflows 32 bits)")                                    \
	X(CHOKE_CFG_MAX_WLOG, "max threshold too large for Wlog (qth_max << Wlog "     \
			      "overflows 32 bits)")                                    \
	X(CHOKE_CFG_SCELL_LOG, "Scell_log must be 0 to 31")                            \
	X(CHOKE_CFG_MAX_BELOW_MIN, "max threshold is below min threshold")             \
	X(CHOKE_CFG_MAX_ABOVE_LIMIT, "max threshold is above limit (the average can "  \
				     "never reach it)")                                \
	X(CHOKE_CFG_STAB, "idle damping table (Stab) entries must be 0 to 31")

enum choke_config_reason {
#define CHOKE_CFG_ENUM_(code, text) code,
	CHOKE_CONFIG_REASONS(CHOKE_CFG_ENUM_)
#undef CHOKE_CFG_ENUM_
	CHOKE_CFG_NREASONS
};

/* Check a configuration as the kernel does (red_check_params and the
 * limit cap) plus the core's own checks (the same in every host, the
 * kernel module included). Returns CHOKE_CFG_OK (0) or the first reason
 * it is refused. */
CHOKE_MUST_CHECK enum choke_config_reason
choke_config_validate(const struct choke_config *c);

/* The message of a reason (static text; "unknown reason" out of range). */
const char *choke_config_reason_text(int reason);

/* The same check as 0 or CHOKE_EINVAL; *why (if why != NULL) gets the
 * reason's message ("ok" when accepted). */
CHOKE_MUST_CHECK int choke_config_check(const struct choke_config *c, const char **why);

/* Ring slots for a limit: nextpow2(limit + 1) * 2. */
uint32_t choke_ring_slots(uint32_t limit);
/* Bytes of ring memory for a limit (slots * sizeof(struct choke_slot)). */
size_t choke_ring_bytes(uint32_t limit);

/* Initialise q. ring must be choke_ring_bytes(c->limit) bytes, any content
 * (it is cleared), aligned for pointers. Returns 0 or CHOKE_EINVAL. */
CHOKE_MUST_CHECK int choke_init(struct choke *q, const struct choke_config *c, void *ring,
				size_t ring_bytes);

/* Does changing to limit need a new ring (of choke_ring_bytes(limit))? */
bool choke_change_needs_ring(const struct choke *q, uint32_t limit);

/*
 * Change parameters in place (sch_choke's change). If the ring size changes
 * the host passes a new ring (else NULL); live packets move into it in order
 * with holes removed and *old_ring receives the previous ring for the host
 * to free (else NULL). Packets beyond the new limit, newest first, are
 * dropped through drop(). RED state restarts (qavg 0, qcount -1); if the
 * queue is empty the idle period ends. Counters survive.
 * Returns 0, or CHOKE_EINVAL (nothing changed).
 */
CHOKE_MUST_CHECK int choke_change(struct choke *q, const struct choke_config *c,
				  void *new_ring, size_t new_ring_bytes, void **old_ring,
				  choke_drop_fn drop, void *drop_ctx);

/* Set host hooks (NULL restores the defaults). */
void choke_set_ops(struct choke *q, const struct choke_ops *ops);

/* Seed the built-in generator (PCG32). Same seed, same decisions. */
void choke_seed(struct choke *q, uint64_t seed);

/* ---- fast path ---- */

/*
 * Offer a packet. flow identifies its flow (see choke_ops.same_flow),
 * pkt_flags is CHOKE_PKT_*, now_ns the host's monotonic time.
 * Returns the outcome. Every host then does the same, in this order:
 *  1. free v->victim[0 .. v->nvictims) (queued packets the arrival
 *     removed; v->nvictims is set on every call): with CHOKE_DROP_MATCH
 *     those a match dropped; with an admitted outcome (CHOKE_QUEUED or
 *     CHOKE_QUEUED_MARKED, `sparse` only) the queue's head, which a light
 *     flow's arrival at the limit pushed out: a limit drop of the victim's
 *     flow; 0 otherwise;
 *  2. on CHOKE_DROP_MATCH, count 1 + v->nvictims packets against the flow
 *     (choke_hh_add_verdict() feeds the penalised-flows summary);
 *  3. if choke_outcome_is_marked(), set CE on pkt (the core keeps it);
 *  4. if choke_outcome_is_drop(), free pkt; otherwise the core keeps it.
 */
CHOKE_MUST_CHECK enum choke_outcome
choke_enqueue(struct choke *q, void *pkt, uint32_t len, uint32_t flow, unsigned pkt_flags,
	      uint64_t now_ns, struct choke_verdict *v);

/*
 * The same with the identity protect shares the link among (the flow
 * value of the source host, the destination host or the pair, as
 * choke_protect_by(q) says; equal to flow for CHOKE_PROTECT_BY_FLOW, which
 * is what choke_enqueue passes). CHOKe's draw and `sparse` still compare
 * flow.
 */
CHOKE_MUST_CHECK enum choke_outcome
choke_enqueue_as(struct choke *q, void *pkt, uint32_t len, uint32_t flow, uint32_t id,
		 unsigned pkt_flags, uint64_t now_ns, struct choke_verdict *v);

/* Take the head packet, or NULL if empty (which starts an idle period).
 * *len (if len != NULL) gets its length. */
void *choke_dequeue(struct choke *q, uint64_t now_ns, uint32_t *len);

/* The head packet without removing it, or NULL. */
void *choke_peek(const struct choke *q);

/*
 * The host could not set CE on pkt, which the choke_enqueue just made
 * admitted marked (CHOKE_QUEUED_MARKED; ns-3's QueueDisc::Mark can fail):
 * turn the admission into the drop a packet that is not ECN-capable gets
 * there. Call it right after that choke_enqueue, before any other call on
 * q. The core's state is then the one the arrival would have left without
 * CHOKE_PKT_ECN_CAPABLE (RED's count and draw are the same for a mark and
 * a drop), and the counters move the mark to its drop: prob_mark to
 * prob_drop (CHOKE_DROP_EARLY), forced_mark to forced_drop
 * (CHOKE_DROP_FORCED), protect_mark to protect_drop (CHOKE_DROP_PROTECT);
 * `which` is that drop outcome (the host tells them apart by the counter
 * that moved). pkt leaves the ring; the host frees it. Returns 0, or
 * CHOKE_EINVAL (nothing changed) if pkt is not the packet just admitted at
 * the ring's tail, for red with `nodrop` (which admits an unmarkable
 * packet unmarked: the host keeps it), and with `sparse` or `target`.
 */
CHOKE_MUST_CHECK int choke_enqueue_unmarkable(struct choke *q, void *pkt,
					      enum choke_outcome which);

/*
 * Bursts (docs/core.md, "Bursts"): the same decisions as the single-packet
 * calls made one after the other on the same input, with the same random
 * numbers consumed, but the work shared across the burst (one idle check,
 * the state kept in registers, the next draw's slot prefetched).
 */

/* A queued packet that an arrival of the burst removed (a CHOKe match). */
struct choke_victim {
	void *pkt;
	uint32_t len;
	uint32_t arrival; /* index in the burst of the arrival that matched */
};

/* Victims one arrival can cause at most: 1 for mainline CHOKe, the draw
 * count or cap for the variants, 0 for RED and FIFO. */
uint32_t choke_victims_per_arrival(const struct choke *q);

/*
 * Offer pkt[0 .. n) (lengths len[], flow values flow[], CHOKE_PKT_* flags
 * pkt_flags[], which may be NULL for all 0) at time now_ns. Exactly
 * choke_enqueue(q, pkt[i], len[i], flow[i], pkt_flags[i], now_ns, v) for
 * i = 0, 1, ... n - 1: outcome[i] gets each arrival's outcome, and the
 * victims of all the arrivals (the matches', and the heads that `sparse`'s
 * lane arrivals pushed out at the limit) go to victim[0 .. *nvictims), in
 * the order of their arrivals (victim[k].arrival, non-decreasing), and within one
 * arrival in the order v->victim[] would list them. A victim may be an
 * arrival of the same burst that an earlier entry admitted.
 *
 * victim_cap is the size of victim[]; it must be at least
 * n * choke_victims_per_arrival(q) (n, or 0 for RED and FIFO;
 * n * CHOKE_MAX_VICTIMS always suffices). Returns 0, or CHOKE_EINVAL with
 * nothing done if it is smaller.
 *
 * The host then does, for each i in order, what choke_enqueue's comment
 * says for one arrival: free the victims with arrival == i (and, if
 * outcome[i] is CHOKE_DROP_MATCH, count them against flow[i]), set CE if
 * choke_outcome_is_marked(outcome[i]), free pkt[i] if
 * choke_outcome_is_drop(outcome[i]).
 */
CHOKE_MUST_CHECK int choke_enqueue_burst(struct choke *q, void *const pkt[],
					 const uint32_t len[], const uint32_t flow[],
					 const uint8_t pkt_flags[], uint32_t n,
					 uint64_t now_ns, uint8_t outcome[],
					 struct choke_victim victim[], uint32_t victim_cap,
					 uint32_t *nvictims);

/*
 * Batched CHOKe (docs/variants.md): the arguments, results and victim
 * array of choke_enqueue_burst, but for plain CHOKe (kind choke, no
 * variant, protect, sparse, byte mode or RED extension, the built-in
 * generator, no same_flow hook) each chunk of up to 32 arrivals is decided
 * from the queue as it stood when the chunk began: one draw per arrival
 * among the slots queued then (a hole is no match; no retries), RED's
 * region and probability from the chunk's first average. Not mainline's
 * decisions; faster on the burst path. Any other configuration:
 * choke_enqueue_burst (and its victim array: n * choke_victims_per_arrival).
 */
CHOKE_MUST_CHECK int choke_enqueue_burst_batched(struct choke *q, void *const pkt[],
						 const uint32_t len[], const uint32_t flow[],
						 const uint8_t pkt_flags[], uint32_t n,
						 uint64_t now_ns, uint8_t outcome[],
						 struct choke_victim victim[], uint32_t victim_cap,
						 uint32_t *nvictims);

/*
 * Take up to n packets from the head into pkt[] (their lengths into len[]
 * if len != NULL). Returns how many; fewer than n means the queue ran
 * empty, which starts an idle period at now_ns. Exactly n calls of
 * choke_dequeue(q, now_ns, ...).
 */
uint32_t choke_dequeue_burst(struct choke *q, uint64_t now_ns, void *pkt[], uint32_t len[],
			     uint32_t n);

/* Drop every queued packet through drop() (counted in drops and
 * other_drop), empty the ring and restart RED. Counters survive. */
void choke_reset(struct choke *q, choke_drop_fn drop, void *drop_ctx);

/* ---- observation ---- */

static inline uint32_t choke_qlen(const struct choke *q) { return q->qlen; }
static inline uint64_t choke_backlog(const struct choke *q) { return q->backlog; }
static inline const struct choke_stats *choke_get_stats(const struct choke *q)
{
	return &q->stats;
}
/* The probability RED marks with at max, Q0.32 (ARED changes it). */
static inline uint32_t choke_max_p(const struct choke *q) { return q->max_P; }
/* RED average in packets, scaled by 2^Wlog (divide by choke_wscale). */
static inline uint64_t choke_qavg_scaled(const struct choke *q) { return q->qavg; }
static inline uint64_t choke_wscale(const struct choke *q)
{
	return (uint64_t)1 << q->Wlog;
}
/*
 * When the core reads the time. choke_enqueue uses now_ns only to end an
 * idle period (RED's average decays by the time the queue stood empty),
 * and choke_dequeue only on an empty queue with no idle period open yet
 * (it starts one). A host whose clock is costly may read it only when
 * these say so and pass 0 otherwise; the decisions are the same. (With
 * ARED every arrival needs the time: it ends max_P's periods.)
 */
static inline bool choke_enqueue_needs_time(const struct choke *q)
{
	return q->idle || q->pr.target_ns || (q->red_ext & CHOKE_RED_ARED);
}
/*
 * With `target` every arrival and departure wants the time: two clock
 * reads per packet where the queue empties after each one. When this
 * says so (`target`, the queue empty and idle, no ARED) a host may pass
 * CHOKE_TIME_DEFERRED to choke_enqueue in place of the time: the arrival
 * is decided on protect's clock as the last call left it (its decay and
 * the ends of interval, step and window are taken at the next call with a
 * time), and the idle period's length is settled at that call (the
 * departure, which reads the time anyway), so that it also holds the
 * packet's wait for the link: at an idle link, none. Such an arrival is
 * not timed for the delay, and RED's average (which decides nothing under
 * `target`) is not decayed over the idle period. Passed where this says
 * no, the time the link went idle stands in. The kernel module defers;
 * the simulator and the other hosts pass every time (docs/variants.md,
 * "One clock read per packet").
 */
#define CHOKE_TIME_DEFERRED (~(uint64_t)0)
static inline bool choke_enqueue_may_defer_time(const struct choke *q)
{
	return q->pr.target_ns && q->idle && !q->qlen && !(q->red_ext & CHOKE_RED_ARED);
}
static inline bool choke_dequeue_needs_time(const struct choke *q)
{
	return (q->head == q->tail && !q->idle) || q->pr.target_ns;
}
/* Whom protect shares among (enum choke_protect_by): the identity a host
 * passes to choke_enqueue_as. */
static inline int choke_protect_by(const struct choke *q) { return q->protect_by; }
/* Packets in the light lane (`sparse`); they are counted in choke_qlen()
 * but are not in the ring that choke_slot_at() walks. */
static inline uint32_t choke_lane_len(const struct choke *q) { return q->lane_len; }
/* Slots between head and tail, holes included. */
static inline uint32_t choke_span(const struct choke *q)
{
	return (q->tail - q->head) & q->mask;
}
/* Slot i from the head, 0 <= i < choke_span(q); pkt NULL for a hole. */
static inline const struct choke_slot *choke_slot_at(const struct choke *q,
						     uint32_t i)
{
	return &q->tab[(q->head + i) & q->mask];
}

/* Walk the ring and check every structural invariant: head on a packet when
 * non-empty, the slot at tail empty, qlen and backlog equal to what the ring
 * holds, qlen <= limit, counters conserve packets. Returns 0 or a negative
 * code naming the first broken one (see choke_invariant_name). O(ring). */
CHOKE_MUST_CHECK int choke_check_invariants(const struct choke *q);
const char *choke_invariant_name(int code);

#ifdef __cplusplus
}
#endif
#endif /* CHOKE_CORE_H */
