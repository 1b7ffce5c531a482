/* SPDX-License-Identifier: MIT */
/* clock.c - clock.h: the monotonic clock. */
#include <time.h>

#include "clock.h"

uint64_t mono_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer on Linux */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
