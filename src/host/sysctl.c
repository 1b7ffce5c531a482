/* SPDX-License-Identifier: MIT */
/* sysctl.c - sysctl.h: a dotted name is a path under /proc/sys. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "host/sysctl.h"
#include "host/sysfs.h"

int sysctl_read(const char *proc_root, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int n;

	if (!*name || strchr(name, '/') || strstr(name, ".."))
		return -EINVAL;
	n = snprintf(path, sizeof(path), "%s/%s", proc_root, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + strlen(proc_root) + 1; *p; p++)
		if (*p == '.')
			*p = '/';
	return sysfs_read_str(path, buf, len);
}
