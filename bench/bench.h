/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * `choke-bench`: nanoseconds per packet of the core's FIFO, RED and CHOKe
 * (and of DPDK's rte_red deciding in front of the core's FIFO ring) at
 * standing queues. See docs/performance.md.
 */
#ifndef CHOKE_BENCH_H
#define CHOKE_BENCH_H

/* argv[1..] are the options (argv[0] is the program's name); returns the
 * process exit status (0, or 2 for a usage error, 1 if a configuration
 * could not be set up). */
int choke_bench_main(int argc, char **argv);

#endif
