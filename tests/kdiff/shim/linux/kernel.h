/* SPDX-License-Identifier: MIT */
/* max, min, clamp and the assertion macros the kernel's DQL uses, for tests/kdiff/. */
#ifndef KDIFF_SHIM_KERNEL_H
#define KDIFF_SHIM_KERNEL_H
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#define max(a, b)	  ((a) > (b) ? (a) : (b))
#define min(a, b)	  ((a) < (b) ? (a) : (b))
#define clamp(v, lo, hi)  min(max(v, lo), hi)
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define BUG_ON(c)                                                                                  \
	do {                                                                                       \
		if (c) {                                                                           \
			fprintf(stderr, "kernel DQL: BUG_ON(%s)\n", #c);                           \
			abort();                                                                   \
		}                                                                                  \
	} while (0)
#define WARN_ON_ONCE(c) (!!(c))
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define smp_wmb()	barrier()
#define smp_rmb()	barrier()
#endif
