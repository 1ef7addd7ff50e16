/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * A label value of the Prometheus/OpenMetrics text format for any C
 * string: "..." with backslash, double quote and newline escaped (\\, \",
 * \n), every other byte as it is. Shared by the bridge's exposition
 * (src/bridge/stats_om.c) and the exporter's (src/exporter/), which merges
 * the bridges' and must quote its own labels the same way.
 */
#ifndef CHOKE_UTIL_OM_H
#define CHOKE_UTIL_OM_H

#include <stdio.h>

static inline void om_label_value(FILE *f, const char *v)
{
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

#endif /* CHOKE_UTIL_OM_H */
