/* SPDX-License-Identifier: MIT */
/* Bit helpers for the kernel's DQL stall history, for tests/kdiff/. */
#ifndef KDIFF_SHIM_BITOPS_H
#define KDIFF_SHIM_BITOPS_H
#include <linux/jiffies.h>
#include <linux/kernel.h>
/* cache-line alignment changes nothing in one thread */
#define ____cacheline_aligned_in_smp
#define BITS_PER_LONG (8 * (int)sizeof(long))
#define BIT_MASK(nr)  (1UL << ((nr) % BITS_PER_LONG))
static inline int test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}
#endif
