/* SPDX-License-Identifier: MIT */
/*
 * fuzz-model.c - every discipline under arbitrary operation streams.
 * Input: byte 0 picks a spec from checker_specs; then 4-byte operations (checker.h).
 * Any broken invariant aborts with the checker's message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "checker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct checker c;

	if (size < 1)
		return 0;
	if (checker_init(&c, checker_specs[data[0] % checker_nspecs]) < 0) {
		fprintf(stderr, "fuzz-model: bad built-in spec: %s\n", c.failure);
		abort();
	}
	for (size_t i = 1; i + 4 <= size && i < 1 + 4 * 8192; i += 4)
		if (checker_step(&c, data + i) < 0)
			break;
	if (checker_finish(&c) < 0) {
		fprintf(stderr, "fuzz-model: \"%s\": %s\n", checker_specs[data[0] % checker_nspecs],
			c.failure);
		abort();
	}
	return 0;
}
