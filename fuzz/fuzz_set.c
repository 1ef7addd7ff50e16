/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* libFuzzer target: the values the command line gives the simulator, on
 * the built-in paper scenario. Byte 0 picks the option, the rest (split at
 * newlines) are its values: --set KEY=VALUE (each applied in turn), --seed,
 * --qdisc, or --sweep (each point's value must be free of exponents and
 * either accepted by its key or refused with a message). What resolves is
 * checked and, when cheap, run (sim_check.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/sim/sweep.h"
#include "sim_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sweep(const char *spec, struct sim_scenario *sc)
{
	struct sim_sweep sw;
	char err[512] = "";
	int i, rc = sim_sweep_parse(spec, &sw, err, sizeof(err));

	fuzz_refused(rc, err);
	if (!rc) {
		if (sw.n < 1 || sw.n > SIM_SWEEP_MAX_POINTS)
			abort();
		for (i = 0; i < sw.n; i++) {
			if (strstr(spec, "..") && strpbrk(sw.values[i], "eE") &&
			    !strpbrk(spec, "eE"))
				abort(); /* a range's points print without exponents */
			err[0] = 0;
			rc = sim_scenario_set(sc, sw.key, sw.values[i], "--sweep", err, sizeof(err));
			fuzz_refused(rc, err);
		}
	}
	sim_sweep_free(&sw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_scenario sc;
	struct sim_setup st;
	char err[512] = "", buf[4097], *line, *save = NULL;
	int rc = 0, mode;

	if (size < 1 || size > sizeof(buf) - 1)
		return 0;
	mode = data[0] % 4;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	if (sim_scenario_builtin(&sc, err, sizeof(err)))
		abort();
	/* short runs, so that what resolves may also run */
	if (sim_scenario_set(&sc, "duration", "2s", "fuzz", err, sizeof(err)) ||
	    sim_scenario_set(&sc, "warmup", "1s", "fuzz", err, sizeof(err)))
		abort();
	for (line = strtok_r(buf, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		err[0] = 0;
		switch (mode) {
		case 0:
			rc = sim_scenario_set_kv(&sc, line, "--set", err, sizeof(err));
			break;
		case 1:
			rc = sim_scenario_set(&sc, "seed", line, "--seed", err, sizeof(err));
			break;
		case 2:
			rc = sim_scenario_set(&sc, "qdisc", line, "--qdisc", err, sizeof(err));
			break;
		default:
			check_sweep(line, &sc);
			break;
		}
		fuzz_refused(rc, err);
	}
	err[0] = 0;
	rc = sim_scenario_resolve(&sc, &st, err, sizeof(err));
	fuzz_refused(rc, err);
	if (!rc) {
		fuzz_sim_check(&st);
		sim_setup_free(&st);
	}
	sim_scenario_free(&sc);
	return 0;
}
