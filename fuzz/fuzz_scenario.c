/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: the scenario file parser (sim_scenario_parse) and the
 * resolution of what it accepts into a run (sim_scenario_resolve), checked
 * and, when cheap, run (sim_check.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_scenario sc;
	struct sim_setup st;
	char err[512] = "", *text;
	int rc;

	if (size > 65536)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (sim_scenario_init(&sc))
		abort();
	rc = sim_scenario_parse(&sc, text, "fuzz", err, sizeof(err));
	fuzz_refused(rc, err);
	if (!rc) {
		rc = sim_scenario_resolve(&sc, &st, err, sizeof(err));
		fuzz_refused(rc, err);
		if (!rc) {
			fuzz_sim_check(&st);
			sim_setup_free(&st);
		}
	}
	sim_scenario_free(&sc);
	free(text);
	return 0;
}
