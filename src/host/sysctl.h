/* SPDX-License-Identifier: MIT */
/*
 * sysctl.h - reading sysctls by their dotted names ("net.ipv4.tcp_ecn") from
 * PROC_ROOT (normally /proc/sys). Reads only.
 */
#ifndef DEBLOAT_HOST_SYSCTL_H
#define DEBLOAT_HOST_SYSCTL_H

#include <stddef.h>

/* The value's first line. -EINVAL for a name with '/' or "..", -errno from the read. */
int sysctl_read(const char *proc_root, const char *name, char *buf, size_t len);

#endif
