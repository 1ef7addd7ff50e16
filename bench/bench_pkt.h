/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* `choke-bench pkt`: flow-key extraction and replay throughput. */
#ifndef CHOKE_BENCH_PKT_H
#define CHOKE_BENCH_PKT_H

/* argv[0] is "pkt", argv[1..] the options; returns the process exit status
 * (0, 2 for a usage error, 1 if the measurement could not run). */
int choke_bench_pkt_main(int argc, char **argv);

#endif
