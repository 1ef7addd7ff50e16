/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The plot of a sweep: the UDP link share of each discipline against the
 * swept value, CHOKe's UDP share of the queue dashed and, when the sweep
 * moves the rate of a single UDP flow, the fluid model's curve, drawn by
 * gnuplot (Debian: gnuplot-nox).
 *
 * The image's name gives its format: NAME.png, NAME.svg or NAME.pdf; beside
 * it goes NAME.gp, the gnuplot script that draws it, data included, for a
 * user to restyle and run again (`gnuplot NAME.gp` in that directory).
 * Both are written to a temporary file in their directory and renamed into
 * place only when complete. "-" writes a PNG to standard output (and no
 * script).
 *
 *   sim_plot_prepare() before the runs: everything that can be checked
 *   sim_plot_write() after them
 */
#ifndef CHOKE_SIM_PLOT_H
#define CHOKE_SIM_PLOT_H

#include <stddef.h>

#include "runner.h"

enum sim_plot_format { SIM_PLOT_PNG = 0, SIM_PLOT_SVG = 1, SIM_PLOT_PDF = 2 };

struct sim_plot {
	char image[4096];  /* as given, or "-" */
	char script[4096]; /* NAME.gp beside it ("" for "-") */
	int format;        /* enum sim_plot_format */
	char terminal[32]; /* the gnuplot terminal that writes it */
};

/* Check that a plot can go to path, before anything runs: the name's
 * extension (png, svg, pdf, any case) or "-"; gnuplot installed with a
 * terminal for that format; the directory writable (a file is created
 * there and removed); neither the image nor the script an existing
 * directory or special file, nor the same file (device and inode, after
 * following links) as one of the ninputs paths in inputs (which may not
 * exist). 0, or -1 with a message. */
int sim_plot_prepare(struct sim_plot *p, const char *path, const char *const *inputs,
		     int ninputs, char *err, size_t errlen);

/* Draw the sweep batch b as prepared. 0, or -1 with a message (gnuplot's
 * own first lines of complaint included); nothing is left behind on
 * failure. */
int sim_plot_write(const struct sim_plot *p, const struct sim_batch *b, char *err,
		   size_t errlen);

#endif
