/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Scenarios: the keys of a run, as text. A scenario file holds
 * `key = value` lines (blank lines and `#` comments are ignored); the
 * command line overrides any key (`--set key=value`). Every key has a
 * default; sim_scenario_resolve checks every value and turns the whole into
 * a struct sim_config, naming the key and where it was set on error.
 * The keys and their syntax: docs/sim.md (and sim_scenario_keys below).
 */
#ifndef CHOKE_SIM_SCENARIO_H
#define CHOKE_SIM_SCENARIO_H

#include <stddef.h>
#include <stdio.h>

#include "choke/params.h"
#include "sim.h"

enum sim_key_type {
	SIM_KT_STR,   /* free text */
	SIM_KT_UINT,  /* decimal integer in [min, max] */
	SIM_KT_BOOL,  /* 0 1 yes no on off true false */
	SIM_KT_TIME,  /* NUMBER[s|ms|us|ns] */
	SIM_KT_RANGE, /* TIME or TIME..TIME */
	SIM_KT_RATE,  /* tc rate or a multiple of the capacity (2c) */
	SIM_KT_BRATE, /* tc rate (the bottleneck itself) */
	SIM_KT_SIZE,  /* bytes: NUMBER[k|m|g] (powers of 1000) */
	SIM_KT_QDISC, /* fifo | red | choke, optionally followed by tc words */
	SIM_KT_WORDS, /* tc words for the discipline */
	SIM_KT_UDPKIND, /* cbr | poisson */
	SIM_KT_FRAC,  /* a number in [0, 1] */
	SIM_KT_SCHED, /* "" or periods A..B,C..D,... (ascending) */
	SIM_KT_NUM,   /* a number >= 0 (up to max) */
	SIM_KT_DIST,  /* fixed | exp | pareto */
};

struct sim_key {
	const char *name;
	int type;         /* enum sim_key_type */
	const char *def;  /* default value */
	double min, max;  /* SIM_KT_UINT bounds; for times and rates 0 = none */
	const char *help; /* meaning */
};

extern const struct sim_key sim_scenario_keys[];
extern const unsigned sim_scenario_nkeys;

#define SIM_WHERE_LEN 96

struct sim_scenario {
	char **val;                  /* sim_scenario_nkeys values (owned) */
	char (*where)[SIM_WHERE_LEN]; /* where each was set */
};

/* A resolved run: the engine's configuration and what describes it. */
struct sim_setup {
	struct sim_config cfg;
	struct sim_flow_cfg *flows; /* cfg.flows (owned) */
	struct choke_params qp;     /* the discipline as parsed */
	char name[64];
	char qdisc[16];     /* fifo, red, choke */
	char qline[256];    /* tc-style description of the discipline */
	uint32_t ntcp, nudp;
	double udp_rate_bps; /* total over the UDP flows */
	double udp_rate_c;   /* the same in units of the bottleneck rate */
	/* beyond the classic two classes (cfg.extended when any is used) */
	uint32_t nlight, nweb;  /* light UDP flows, short TCP transfers */
	double light_rate_bps;  /* total over the light flows */
	double web_rate;        /* transfers per second */
	double web_size;        /* mean bytes per transfer */
	char web_dist[8];       /* fixed, exp, pareto */
	struct sim_period *periods; /* the floods' on periods (owned) */
	uint32_t nperiods;
	uint32_t nhosts;        /* tcp_hosts: hosts of the long TCP flows (0: none) */
};

/* All keys at their defaults. 0, or -1 (out of memory). */
int sim_scenario_init(struct sim_scenario *sc);
void sim_scenario_free(struct sim_scenario *sc);
int sim_scenario_copy(struct sim_scenario *dst, const struct sim_scenario *src);

/* The keys, their defaults and meanings, one per line (choke sim --keys). */
void sim_scenario_write_keys(FILE *f);

/* Index of a key, or -1. */
int sim_scenario_key(const char *name);

/* Set key to value; where names the source for messages. The value is
 * checked syntactically here (and fully at resolve). 0, or -1 with a
 * message in err. */
int sim_scenario_set(struct sim_scenario *sc, const char *key, const char *value,
		     const char *where, char *err, size_t errlen);

/* "key=value" form of sim_scenario_set. */
int sim_scenario_set_kv(struct sim_scenario *sc, const char *kv, const char *where,
			char *err, size_t errlen);

/* Read a scenario file (path), or text given directly (path used in
 * messages). 0, or -1 with a message. */
CHOKE_MUST_CHECK int sim_scenario_load(struct sim_scenario *sc, const char *path, char *err,
		      size_t errlen);
int sim_scenario_parse(struct sim_scenario *sc, const char *text, const char *path,
		       char *err, size_t errlen);

/* The directory of the installed scenarios, compiled into scenario_find.c
 * as CHOKE_SCENARIO_DIR (make install puts the shipped ones there). */
extern const char sim_scenario_dir[];

/*
 * Find the scenario called name. A name with a '/' is a path, used as it
 * is. Otherwise the first regular file NAME in: each directory of
 * $CHOKE_SCENARIO_PATH (a colon-separated list), ./scenarios, installed_dir
 * (NULL: sim_scenario_dir), then the current directory; failing those,
 * paper-single-link is the built-in copy. Returns 1 with the file in path,
 * 0 for the built-in copy, or -1 with a message listing the directories
 * searched and the scenarios found in them.
 */
int sim_scenario_find(const char *name, const char *installed_dir, char *path, size_t pathlen,
		      char *err, size_t errlen);

/* Initialise sc and load the scenario called name (sim_scenario_find).
 * path receives the file read ("" for the built-in copy). 0, or -1 with a
 * message (sc is then freed). */
int sim_scenario_open(struct sim_scenario *sc, const char *name, char *path, size_t pathlen,
		      char *err, size_t errlen);

/* Initialise sc with the built-in paper-single-link. 0, or -1 with a
 * message (sc is then freed). */
int sim_scenario_builtin(struct sim_scenario *sc, char *err, size_t errlen);

/* Check everything and build the run. 0, or -1 with a message. */
CHOKE_MUST_CHECK int sim_scenario_resolve(const struct sim_scenario *sc, struct sim_setup *out,
			 char *err, size_t errlen);
void sim_setup_free(struct sim_setup *s);

/* Value parsers (exposed for the sweep and the tests). Each returns 0 or
 * -1. Times: NUMBER[s|ms|us|ns], seconds without a unit. Rates: tc's
 * syntax (10mbit, 1gbit, 125000Bps; bits/s without a unit) or a multiple
 * of the bottleneck capacity (2c, 0.5c) when cap_bps > 0. */
int sim_parse_time(const char *s, uint64_t *ns);
int sim_parse_rate(const char *s, double cap_bps, double *bps);

/* The built-in copy of scenarios/paper-single-link (for `choke demo`). */
extern const char sim_paper_scenario[];

#endif
