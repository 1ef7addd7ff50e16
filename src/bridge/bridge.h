/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke bridge: a bump in the wire between two interfaces. Frames arriving
 * on the input interface leave on the output interface through a queue
 * discipline of the core, paced by a token bucket at the bottleneck rate;
 * with duplex the reverse direction gets its own queue, otherwise it is
 * forwarded unshaped. See docs/bridge.md.
 *
 * The rooms: dataplane.c forwards frames (rings, token bucket, the core),
 * stats.c and stats_om.c render the counters, control.c is the control
 * socket's protocol, config.c the options and the configuration file, and
 * bridge.c the lifecycle (locks, setup, privileges, signals, reload).
 */
#ifndef CHOKE_BRIDGE_H
#define CHOKE_BRIDGE_H

#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/un.h>

#include "choke/params.h"
#include "../util/opt.h"

#define BRIDGE_MAX_WORDS 64

/* The options, in the order of the usage text. */
enum bridge_opt {
	BO_IN, BO_OUT, BO_RATE, BO_DUPLEX, BO_BURST, BO_SOCKET, BO_CONFIG,
	BO_ALLOW_MTU_MISMATCH, BO_RX_RING, BO_BACKEND, BO_BUSY_POLL, BO_SEED, BO_WAIT, BO_NOPTS
};

/* The options, declared once (src/util/opt.h: name, value, help, range)
 * for the command line (`choke bridge`, src/cli/cmd_bridge.c) and the
 * configuration file: bridge_options[k] is option k of enum bridge_opt,
 * with id k + 1; ended by an entry with id 0. */
extern const struct cli_opt bridge_options[BO_NOPTS + 1];

struct bridge_opts {
	char in[IF_NAMESIZE], out[IF_NAMESIZE];
	uint64_t rate_bps;      /* 0: no shaping (forwarding benchmark) */
	uint64_t burst_bytes;   /* 0: sized to the rate */
	int duplex;
	int allow_mtu_mismatch;
	int rx_v2;              /* TPACKET_V2 receive ring (lower latency) */
	int xdp;                /* --backend xdp: AF_XDP sockets, not AF_PACKET */
	int busy_poll_us;       /* xdp: busy polling (0: off) */
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* "": default */
	char config_file[4096]; /* options and words; re-read on SIGHUP */
	uint64_t seed;
	unsigned wait_s;        /* at start, wait this long for a missing interface */
	unsigned given;         /* bit per enum bridge_opt: set on the command line */
	int line[BO_NOPTS];     /* where each came from in the file (0: not) */
	/* the discipline: [choke|red|fifo] WORDS... as given (none: the
	 * default), one after the other with their NULs (so a copy of the
	 * struct is whole); words_line: the file's line they came from */
	int nwords, words_line;
	char wordbuf[4096];
};

/* Replace the words (as from the command line). 0, or -1 with a message. */
int bridge_set_words(struct bridge_opts *o, int n, char *const *words, char *err,
		     size_t errlen);

/* Point argv[0..nwords) at the words of o; returns nwords. */
int bridge_words(const struct bridge_opts *o, char **argv);

/* Defaults (seed 1, TPACKET_V2 receive ring, nothing given). */
void bridge_opts_init(struct bridge_opts *o);

/* Set one option (name without "--"; value NULL for a flag), checking its
 * range. 0, or -1 with a message naming the option and what it allows
 * ("--burst needs an integer from 1 to 1073741824, not "-5""). The
 * command line sets o->given for what it set. */
int bridge_opt_set(struct bridge_opts *o, const char *name, const char *value,
		   char *err, size_t errlen);

/* Read a configuration file (docs/bridge.md: one option, or the
 * discipline's words, per line; `#` comments and blank lines). Options
 * given on the command line (o->given) win over the file's; so do words.
 * 0, or -1 with "FILE:LINE: ..." in err and o unchanged. */
int bridge_config_read(struct bridge_opts *o, const char *path, char *err,
		       size_t errlen);

/* The discipline the words describe: "choke limit 1000" without words, a
 * missing `choke|red|fifo` is choke, and choke and red get `bandwidth RATE`
 * when they lack one. 0, or -1 with a message (warnings are in p). */
int bridge_discipline(const struct bridge_opts *o, struct choke_params *p, char *err,
		      size_t errlen);

/* Are all the required options there (in, out, rate)? 0, or -1 with a
 * message. */
int bridge_opts_check(const struct bridge_opts *o, char *err, size_t errlen);

/* Default control socket for an input interface. */
void bridge_default_socket(const char *in, char *buf, size_t len);

/* Run until SIGTERM or SIGINT; prints final counters to stdout. Returns the
 * exit status (0 on a clean stop). */
int bridge_run(const struct bridge_opts *o);

#endif
