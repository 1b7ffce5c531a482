/* SPDX-License-Identifier: MIT */
/* The jiffies clock, set by the differential test, and its wrap-safe comparisons. */
#ifndef KDIFF_SHIM_JIFFIES_H
#define KDIFF_SHIM_JIFFIES_H
#include <linux/types.h>
extern unsigned long jiffies;
#define time_after(a, b)     ((long)((b) - (a)) < 0)
#define time_after_eq(a, b)  ((long)((a) - (b)) >= 0)
#define time_before(a, b)    time_after(b, a)
#define time_before_eq(a, b) time_after_eq(b, a)
#endif
