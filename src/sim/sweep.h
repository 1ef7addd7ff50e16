/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Sweeps: one scenario key over a range or a list of values,
 * "KEY=A..B:N[:log]" (N points from A to B, evenly or on a log scale; the
 * ends may carry a unit, the same at both) or "KEY=V1,V2,...". Each point's
 * value is text that the scenario parser (and tc) reads back as the same
 * number: 6 significant digits without an exponent, integers exactly.
 */
#ifndef CHOKE_SIM_SWEEP_H
#define CHOKE_SIM_SWEEP_H

#include <stddef.h>

#define SIM_SWEEP_MAX_POINTS 1000

struct sim_sweep {
	char key[64];
	int n;            /* points */
	int logscale;     /* A..B:N:log */
	char (*values)[64]; /* each point's value, as given to the key */
	double *x;        /* each point's number (a list's non-numbers: the index) */
};

/* Parse spec into sw (allocates; free with sim_sweep_free, also after an
 * error). 0, or -1 with a message in err naming "--sweep". */
int sim_sweep_parse(const char *spec, struct sim_sweep *sw, char *err, size_t errlen);
void sim_sweep_free(struct sim_sweep *sw);

/* The unit of a point's value ("c", "mbit", "ms", or "" for none). */
void sim_sweep_unit(const struct sim_sweep *sw, char *unit, size_t len);

/* Print v with 6 significant digits and never an exponent (what "%.6g"
 * prints, except that 1e+06 is written 1000000 and 1.5e-05 0.000015), so
 * that every parser of the project, and tc's, reads it back; integer: the
 * nearest integer, every digit. */
void sim_sweep_format(char *buf, size_t len, double v, int integer);

#endif
