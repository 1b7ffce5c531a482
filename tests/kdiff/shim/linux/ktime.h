/* SPDX-License-Identifier: MIT */
/* The clock the kernel's CoDel reads: the differential test sets kdiff_now_ns. */
#ifndef KDIFF_SHIM_KTIME_H
#define KDIFF_SHIM_KTIME_H
#include <linux/types.h>
extern u64 kdiff_now_ns;
static inline u64 ktime_get_ns(void)
{
	return kdiff_now_ns;
}
#endif
