/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke-bench: the benchmarks of docs/performance.md, a program of their
 * own so that the installed `choke` links neither the benchmarks nor DPDK.
 *
 *   choke-bench [--json] [--quick] ...   ns per packet of the core (bench.c)
 *   choke-bench pkt [--json] [--quick]   flow keys and replay (bench_pkt.c)
 */
#include <string.h>

#include "bench.h"
#include "bench_pkt.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "pkt"))
		return choke_bench_pkt_main(argc - 1, argv + 1);
	return choke_bench_main(argc, argv);
}
