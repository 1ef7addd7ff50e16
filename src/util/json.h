/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * A JSON string literal for any C string: quotes and backslashes escaped,
 * control characters as \u00XX. Shared by the CLI and the simulator's
 * reports (which the simulator's tests link without the CLI).
 */
#ifndef CHOKE_UTIL_JSON_H
#define CHOKE_UTIL_JSON_H

#include <stdio.h>

static inline void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

#endif /* CHOKE_UTIL_JSON_H */
