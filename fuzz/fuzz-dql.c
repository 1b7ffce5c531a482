/* SPDX-License-Identifier: MIT */
/*
 * fuzz-dql.c - DQL under arbitrary queue/complete/reset/time streams over a
 * modelled ring. Input: 4 setup bytes (clamps, hold time), then 4-byte operations
 * (checker.h). Any broken invariant aborts with the checker's message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "checker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dql_checker c;

	if (size < 4)
		return 0;
	dql_checker_init(&c, data);
	for (size_t i = 4; i + 4 <= size && i < 4 + 4 * 8192; i += 4)
		if (dql_checker_step(&c, data + i) < 0) {
			fprintf(stderr, "fuzz-dql: operation %zu: %s\n", (i - 4) / 4, c.failure);
			abort();
		}
	return 0;
}
