/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Test runner: `choke-tests [--quick] [NAME-SUBSTRING...]` */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testlib.h"

int tl_failures;
int tl_quick;
const char *tl_current = "";

static const struct tl_test *const suites[] = {
	core_tests, model_tests, params_tests, red_tests, pkt_tests, hh_tests,
	opt_tests,
	protect_tests,
};

static int selected(const char *name, int argc, char **argv)
{
	int i, any = 0;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		any = 1;
		if (strstr(name, argv[i]))
			return 1;
	}
	return !any;
}

int main(int argc, char **argv)
{
	size_t s;
	int i, run = 0, failed_tests = 0;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--quick"))
			tl_quick = 1;
	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		const struct tl_test *t;

		for (t = suites[s]; t->name; t++) {
			int before = tl_failures;
			clock_t c0 = clock();

			if (!selected(t->name, argc, argv))
				continue;
			tl_current = t->name;
			t->fn();
			run++;
			if (tl_failures != before)
				failed_tests++;
			printf("%-4s %-48s %6.2fs\n",
			       tl_failures == before ? "ok" : "FAIL", t->name,
			       (double)(clock() - c0) / CLOCKS_PER_SEC);
			fflush(stdout);
		}
	}
	printf("%d tests, %d failed (%d failed checks)\n", run, failed_tests,
	       tl_failures);
	return tl_failures ? 1 : 0;
}
