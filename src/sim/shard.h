/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Sweeps across machines: shard K of N of a batch runs only its runs
 * (sim_run_in_shard) and writes them to a shard file; the merge reads the
 * N files, checks that they are the N disjoint parts of the same batch, and
 * fills the batch's results, so that every report and the plot come out as
 * the unsharded run's, byte for byte.
 *
 * A shard file: the line "choke-sim-shard 1", the build's layout (byte
 * order and the sizes of the result structs: shards are merged by the same
 * build of choke), K, N, the batch's run count, the plan's words (scenario
 * name, seed, discipline, sweep, --set overrides) and a fingerprint of them
 * and of the scenario file's bytes; then each run of the shard: its index
 * and its result; then the line "end". A truncated file is refused.
 */
#ifndef CHOKE_SIM_SHARD_H
#define CHOKE_SIM_SHARD_H

#include <stddef.h>
#include <stdio.h>

#include "runner.h"

/* "K/N" with 1 <= K <= N <= SIM_MAX_SHARDS, digits only. 0, or -1 with a
 * message naming "--shard". */
#define SIM_MAX_SHARDS 100000
int sim_shard_parse(const char *s, int *k, int *n, char *err, size_t errlen);

/* Write shard k of n of the batch b (planned from p, run with that shard)
 * to f. 0, or -1 with a message (the scenario file unreadable, a write
 * failed). */
int sim_shard_write(FILE *f, const struct sim_batch *b, const struct sim_plan *p, int k, int n,
		    char *err, size_t errlen);

/* Merge: plan the batch of the shard files' plan into b (the scenario found
 * by name as when the shards ran, and its bytes the same), read the files'
 * results into it. Refused, with a message naming the file: not a shard
 * file, truncated, another build, another plan or scenario, another N, a
 * shard given twice, a shard missing. 0, or -1 (free b in both cases). */
int sim_shard_merge(struct sim_batch *b, const char *const *paths, int npaths, char *err,
		    size_t errlen);

#endif
