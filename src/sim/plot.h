/*
 * The plot of a sweep: the UDP link share of each discipline against the
 * swept value, CHOKe's UDP share of the queue dashed and, when the sweep
 * moves the rate of a single UDP flow, the fluid model's curve, drawn by
 * gnuplot (Debian: gnuplot-nox).
 */
#ifndef CHOKE_SIM_PLOT_H
#define CHOKE_SIM_PLOT_H

#include <stddef.h>

#include "runner.h"

/* Draw the sweep batch b into the PNG file out. 0, or -1 with a message. */
int sim_plot_sweep(const char *out, const struct sim_batch *b, char *err, size_t errlen);

#endif
