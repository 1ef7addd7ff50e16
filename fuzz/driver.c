/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/* Runs a fuzz target over files (the seed corpus and the regression
 * inputs) without libFuzzer, so `make check` replays them under the
 * sanitizers. Usage: driver FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		buf = malloc(n > 0 ? (size_t)n : 1);
		if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			perror(argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		free(buf);
	}
	printf("ok   fuzz driver: %d inputs\n", argc - 1);
	return 0;
}
