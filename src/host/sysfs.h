/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h - reading the one-value files of sysfs and procfs ("1000\n").
 * -errno from open/read, -EINVAL for a value that is not what was asked for,
 * -EFBIG for a file longer than the caller's buffer. Outputs untouched on error.
 */
#ifndef DEBLOAT_HOST_SYSFS_H
#define DEBLOAT_HOST_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* The first line, without its newline. */
int sysfs_read_str(const char *path, char *buf, size_t len);
/* A decimal integer, optionally signed. */
int sysfs_read_int(const char *path, int64_t *out);

#endif
