/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Minimal test harness: named tests, CHECK macros that report and count. */
#ifndef CHOKE_TESTLIB_H
#define CHOKE_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>

extern int tl_failures;
extern int tl_quick; /* --quick: smaller random runs (valgrind) */
extern const char *tl_current;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			tl_failures++;                                         \
			fprintf(stderr, "FAIL %s: %s:%d: %s\n", tl_current,    \
				__FILE__, __LINE__, #cond);                    \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);               \
		if (a_ != b_) {                                                \
			tl_failures++;                                         \
			fprintf(stderr,                                        \
				"FAIL %s: %s:%d: %s == %s (%" PRIu64           \
				" != %" PRIu64 ")\n",                          \
				tl_current, __FILE__, __LINE__, #a, #b, a_,    \
				b_);                                           \
		}                                                              \
	} while (0)

/* A call whose result (CHOKE_MUST_CHECK) the test has no use for: the
 * arrival of a token packet nobody frees, say. */
#define TL_DISCARD(x) ((void)!(x))

/* Stop the current test function on failure (for loops of checks). */
#define REQUIRE(cond)                                                          \
	do {                                                                   \
		if (!(cond)) {                                                 \
			tl_failures++;                                         \
			fprintf(stderr, "FAIL %s: %s:%d: %s\n", tl_current,    \
				__FILE__, __LINE__, #cond);                    \
			return;                                                \
		}                                                              \
	} while (0)

struct tl_test {
	const char *name;
	void (*fn)(void);
};

/* each test file exports a NULL-terminated table */
extern const struct tl_test core_tests[];
extern const struct tl_test model_tests[];
extern const struct tl_test params_tests[];
extern const struct tl_test red_tests[];
extern const struct tl_test pkt_tests[];
extern const struct tl_test hh_tests[];
extern const struct tl_test opt_tests[];
extern const struct tl_test protect_tests[];

#endif
