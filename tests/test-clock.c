/* SPDX-License-Identifier: MIT */
/* test-clock.c - the monotonic clock (base/clock.h). */
#include <time.h>

#include "base/clock.h"
#include "harness.h"

TEST(mono_ns_moves_forward_with_time)
{
	struct timespec ms2 = {.tv_nsec = 2000000};
	uint64_t a = mono_ns(), b;

	for (int i = 0; i < 1000; i++) {
		b = mono_ns();
		CHECK(b >= a); /* never back */
		a = b;
	}
	nanosleep(&ms2, NULL);
	b = mono_ns();
	CHECK(b - a >= 2000000); /* a sleep of 2 ms is at least 2 ms of it */
	CHECK(b - a < 10ULL * 1000000000ULL);
}
