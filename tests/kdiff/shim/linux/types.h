/* SPDX-License-Identifier: MIT */
/*
 * The few kernel types and helpers the kernel's own CoDel and DQL sources need to
 * compile as a userspace program beside libdebloat (tests/kdiff/). Our own
 * definitions, written from what the kernel documents each to do.
 */
#ifndef KDIFF_SHIM_TYPES_H
#define KDIFF_SHIM_TYPES_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL
/* divide a u64 in place by a 32-bit divisor, giving back the remainder */
#define do_div(n, base)                                                                            \
	({                                                                                         \
		u32 rem_ = (u32)((n) % (base));                                                    \
		(n) /= (base);                                                                     \
		rem_;                                                                              \
	})
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* the kernel's typecheck() is a compile-time check that evaluates to 1 */
#define typecheck(type, x) (1)
#define READ_ONCE(x)	   (x)
#define WRITE_ONCE(x, v)   ((x) = (v))

/* (val * ep_ro) >> 32: scale a 32-bit value into [0, ep_ro) */
static inline u32 reciprocal_scale(u32 val, u32 ep_ro)
{
	return (u32)(((u64)val * ep_ro) >> 32);
}
#endif
