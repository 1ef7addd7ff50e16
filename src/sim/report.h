/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Reports of simulator runs: the human table, JSON and CSV, for one run,
 * a comparison of disciplines, and sweeps. They write to a stdio stream
 * the caller owns and print nothing else.
 */
#ifndef CHOKE_SIM_REPORT_H
#define CHOKE_SIM_REPORT_H

#include <stdio.h>

#include "runner.h"
#include "scenario.h"
#include "sim.h"

enum sim_format { SIM_FMT_TEXT = 0, SIM_FMT_JSON = 1, SIM_FMT_CSV = 2 };

struct sim_write_opts {
	int format;    /* enum sim_format */
	int all_flows; /* text: list every flow even when there are many */
	int speed;     /* JSON: add the wall-clock figures */
};

/* The report of a batch in its kind's layout (the functions below). 0, or
 * -1 if writing to f failed. */
int sim_batch_write(FILE *f, const struct sim_batch *b, const struct sim_write_opts *o);

/* The fluid model's UDP share for this run, or a negative number when it
 * does not apply (not CHOKe, or not exactly one UDP flow). */
double sim_run_analytic(const struct sim_run *r);

/* One run. all_flows: list every flow even when there are many. */
void sim_report_text(FILE *f, const struct sim_run *r, int all_flows);
void sim_report_json(FILE *f, const struct sim_run *r, int speed);
void sim_report_csv(FILE *f, const struct sim_run *r);

/* Several disciplines on one scenario. */
void sim_compare_text(FILE *f, const struct sim_run *r, int n);
void sim_compare_json(FILE *f, const struct sim_run *r, int n, int speed);

/* A sweep: npoints x nq runs, point-major. */
void sim_sweep_text(FILE *f, const char *key, const struct sim_run *r, int npoints,
		    int nq);
void sim_sweep_json(FILE *f, const char *key, const struct sim_run *r, int npoints,
		    int nq, int speed);
/* CSV of summary rows (sweeps and comparisons): key may be NULL. */
void sim_summary_csv(FILE *f, const char *key, const struct sim_run *r, int n);

/* Speed line on f: events/s and bottleneck packets/s. */
void sim_report_speed(FILE *f, const struct sim_run *r, int n);

#endif
