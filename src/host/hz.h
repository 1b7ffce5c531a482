/* SPDX-License-Identifier: MIT */
/*
 * hz.h - the kernel's tick rate (CONFIG_HZ), which no file under /proc or /sys states
 * but a few values are counted in: BQL's stall_max is in jiffies. USER_HZ
 * (sysconf(_SC_CLK_TCK)) is another number (always 100) and no substitute.
 *
 * Read from the kernel's configuration: paths->kconfig (/proc/config.gz), else
 * /boot/config-RELEASE. -ENOENT when neither exists or names no CONFIG_HZ; *hz is then
 * untouched.
 */
#ifndef DEBLOAT_HOST_HZ_H
#define DEBLOAT_HOST_HZ_H

#include "host/host.h"

int host_kernel_hz(const struct host_paths *paths, const char *release, long *hz);

/* CONFIG_HZ=N as a whole line of a configuration's text; -ENOENT without one. */
int host_hz_from_config(const char *config, long *hz);

#endif
