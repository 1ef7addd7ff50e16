/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Several expositions in Prometheus's text format (each bridge's
 * `choke stats --format openmetrics`) merged into one: each family once,
 * with its HELP and TYPE, holding the samples of every source, each sample
 * with a label naming its source put first (bridge="eth1"). Prometheus
 * refuses an exposition that names a family twice, so concatenating the
 * bridges' outputs would not do.
 *
 * A source is checked line by line before any of it is taken: # HELP,
 * # TYPE, # UNIT and other comments, samples of the family announced last
 * (its name, or the name plus _sum, _count, _bucket, _created, _total,
 * _info, _gsum or _gcount), well-formed labels and a number as value,
 * # EOF last. A source that breaks a rule, already carries the label, names a
 * family twice, gives a family another type than an earlier source did, or
 * uses a reserved prefix (the exporter's own families) is refused whole,
 * with a message; the set is then unchanged.
 */
#ifndef CHOKE_EXPORTER_MERGE_H
#define CHOKE_EXPORTER_MERGE_H

#include <stddef.h>
#include <stdio.h>

#define OM_MAX_FAMILIES 1024

struct om_family {
	char *name, *type, *help; /* help may be NULL */
	char *samples;            /* sample lines, each ending with \n */
	size_t len, cap;
	int no_samples;           /* its samples are checked, not kept */
};

struct om_set {
	struct om_family *f;
	size_t n, cap;
};

/*
 * Add the exposition text[0 .. len) to set, every sample labelled
 * label="value" (value escaped here). Family names starting with one of
 * reserved[] (NULL-terminated; NULL for none) are refused. The families
 * named in no_samples[] (NULL-terminated; NULL for none) keep their HELP
 * and TYPE but not their samples (checked all the same): series the
 * operator did not ask for. 0, or -1 with a message naming the line.
 */
int om_merge(struct om_set *set, const char *text, size_t len, const char *label,
	     const char *value, const char *const *reserved, const char *const *no_samples,
	     char *err, size_t errlen);

/* Every family: # HELP, # TYPE, its samples (no # EOF: the caller ends). */
void om_write(FILE *f, const struct om_set *set);

void om_free(struct om_set *set);

#endif
