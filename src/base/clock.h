/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the monotonic clock (CLOCK_MONOTONIC) in nanoseconds, for the code that
 * times what it does: deadlines, durations, rates. Algorithms take the time as an
 * argument instead, so that their tests are deterministic; this is what their callers
 * read it with.
 */
#ifndef DEBLOAT_CLOCK_H
#define DEBLOAT_CLOCK_H

#include <stdint.h>

/* Nanoseconds since an arbitrary start (boot); never goes back. */
uint64_t mono_ns(void);

#endif
